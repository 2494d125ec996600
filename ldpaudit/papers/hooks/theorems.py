"""``ldpaudit reproduce theorems``: every claims file under proofs/theorems/ decided over its
region (``ldpaudit prove``), written as proofs/theorems/theorems.{md,tex,json}.

The claims are the seed papers' inequalities (Ye & Barg Prop. III.5 and the bounds of III.3; Wang et al.'s ε²/8
bounds, the MRR condition, the concavity of I_k); the verdicts are whatever the prover
decides, with the exact witness of every refutation and the pieces left by every UNKNOWN."""

from __future__ import annotations

from pathlib import Path

CLAIMS_DIR = Path(__file__).resolve().parents[3] / "proofs" / "theorems"
SECONDS = 60.0


def claims_files(directory: Path = CLAIMS_DIR) -> list[Path]:
    return sorted(directory.glob("*.toml"))


def reproduce(out_dir, *, seconds: float = SECONDS) -> tuple[list, dict]:
    from ldpaudit.papers.documents import Document, write_outputs
    from ldpaudit.theorems.claims import load_claims
    from ldpaudit.theorems.prover import prove_file

    out_dir = Path(out_dir) / "theorems"
    doc = Document("The seed papers' inequalities, decided over their whole regions")
    doc.para("Each claims file in proofs/theorems/ states inequalities between quantities derived from the "
             "catalog channels, over a region of the parameters; `ldpaudit prove FILE` decides them by rigorous "
             f"interval branch-and-bound (budget {seconds:g} s CPU per claim). PROVED holds on the whole region; "
             "REFUTED comes with a point of the region where the claim fails, checked exactly; UNKNOWN lists what "
             "is left. The method is described in docs/reference/theorems.md.")
    doc.para("Corrected statements: where a paper's claim is refuted, the file wang_unimodal.toml states and proves "
             "what is true instead: I_k is unimodal in real k with its peak at beta (which is what Corollary 2.2's "
             "k* in {floor beta, ceil beta} needs, and which implies the MRR direction of wang_mrr.toml: beta >= 2 "
             "gives I_1 <= I_2, beta <= 1 gives I_1 >= I_k for every k >= 1), and I_k is concave exactly for "
             "k <= d(2 eps t - t + 1)/(t - 1)^2, convex above, the largest concave region (wang_concave.toml is "
             "refuted on the part above it).")
    rows, payload = [], {"files": {}}
    for path in claims_files():
        cf = load_claims(path)
        results = prove_file(cf, seconds=seconds)
        payload["files"][path.name] = {"title": cf.title, "source": cf.source,
                                       "claims": [r.as_dict() for r in results]}
        doc.heading(f"{path.name}: {cf.title}")
        doc.para(f"Source: {cf.source}.")
        if cf.note:
            doc.para(" ".join(cf.note.split()))
        doc.para("Region: " + "; ".join(cf.region.texts) + (
            "; " + ", ".join(f"{s} = {v}" for s, v in cf.region.bindings.items()) if cf.region.bindings else ""))
        for r in results:
            text = f"**{r.status}**: {r.name}: `{r.statement}`. "
            if r.status == "PROVED":
                text += f"{r.reason} ({r.boxes} pieces, {r.seconds:.1f} s); {r.method}."
            elif r.status == "REFUTED":
                w = r.witness
                text += (f"Witness {', '.join(f'{k} = {v}' for k, v in w.point.items())}: "
                         f"{w.lhs_value} against {w.rhs_value} (exact sign checks).")
            else:
                text += f"{r.reason} after {r.seconds:.0f} s; first pieces left: " + "; ".join(
                    x[:160] for x in r.left[:3]) + "."
            if r.note:
                text += f" ({r.note})"
            doc.para(text)
            rows.append([path.name, r.name, r.status, f"{r.seconds:.1f}"])
    doc.heading("Summary")
    doc.table(["file", "claim", "verdict", "CPU s"], rows)
    return write_outputs(out_dir, "theorems", doc, payload), payload
