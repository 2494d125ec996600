"""Certificates: the z3 queries behind a verdict, re-checkable without ldpaudit.

``write_certificate`` writes two files per verdict:

* ``NAME.smt2`` — every query of the proof as a self-contained SMT-LIB 2 script, separated
  by ``(reset)``; ``z3 NAME.smt2`` prints one line per query and, for a PROVED verdict, every
  line is ``unsat`` (no obligation can fail). For a REFUTED verdict the script states the
  claim at the witness and z3 answers ``unsat`` too (the claim contradicts the exact entries);
* ``NAME.json`` — the claim, the verdict, the witness, the tight ε, the method, the expected
  answers, the solver's name, version and random seed, and the SHA-256 of the spec file, so
  the certificate is pinned to the exact text it proves.

Certificates carry no timestamps or timings, so regenerating them is a no-op unless
something changed (``ldpaudit reproduce certificates`` rewrites ``proofs/certificates/``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ldpaudit._version import __version__
from ldpaudit.mechanism.loader import load_spec, spec_sha256
from ldpaudit.verify import smt
from ldpaudit.verify.result import Verdict

#: the bundled specs (repository layout: <root>/specs next to <root>/ldpaudit)
SPECS_DIR = Path(__file__).resolve().parents[2] / "specs"
CERTIFICATES_DIR = Path(__file__).resolve().parents[2] / "proofs" / "certificates"


def smt2_script(verdict: Verdict) -> str:
    """All queries of a verdict in one file, separated by (reset)."""
    parts = []
    for i, (description, text, expected, _result) in enumerate(verdict.proof):
        header = f"; query {i + 1}: {description} (expected: {expected})\n"
        parts.append(header + str(text).rstrip() + "\n")
    return "(reset)\n".join(parts)


def metadata(verdict: Verdict, *, spec_path: str | Path | None = None, smt2_name: str | None = None) -> dict:
    data = verdict.to_json()
    data.pop("seconds", None)
    return {
        "ldpaudit_version": __version__,
        "spec": None if spec_path is None else _display_path(Path(spec_path)).as_posix(),
        "spec_sha256": None if spec_path is None else spec_sha256(spec_path),
        "mechanism": verdict.mechanism,
        "params": data["params"],
        "claim": data["claim"],
        "scope": verdict.scope,
        "verdict": verdict.status.value,
        "text": data["text"],
        "tight_epsilon": data["tight_epsilon"],
        "exact_delta": data["exact_delta"],
        "witness": data["witness"],
        "reason": verdict.reason,
        "method": verdict.method,
        "notes": data["notes"],
        "solver": {"name": "z3", "version": smt.z3_version(), "random_seed": smt.SEED},
        "smt2": smt2_name,
        "queries": [
            {"description": d, "expected": e, "result": r} for d, _t, e, r in verdict.proof
        ],
        "recheck": None if smt2_name is None else f"z3 {smt2_name}  # prints one line per query; expect: "
        + " ".join(e for _d, _t, e, _r in verdict.proof),
    }


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-").lower() or "certificate"


def write_certificate(verdict: Verdict, out_dir: str | Path, *, name: str | None = None,
                      spec_path: str | Path | None = None) -> list[Path]:
    """Write NAME.smt2 (when the verdict has queries) and NAME.json into ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = _slug(name or verdict.mechanism)
    paths = []
    smt2_name = None
    if verdict.proof:
        smt2_path = out / f"{stem}.smt2"
        header = (
            f"; ldpaudit {__version__} certificate: {verdict.mechanism}: {verdict.status.value} {verdict.claim_text()}\n"
            f"; re-check: z3 {smt2_path.name}   (every line of output must be unsat)\n"
        )
        smt2_path.write_text(header + smt2_script(verdict))
        smt2_name = smt2_path.name
        paths.append(smt2_path)
    json_path = out / f"{stem}.json"
    json_path.write_text(json.dumps(metadata(verdict, spec_path=spec_path, smt2_name=smt2_name), indent=2) + "\n")
    paths.append(json_path)
    return paths


def reproduce_certificates(out_dir: str | Path = CERTIFICATES_DIR, specs_dir: str | Path = SPECS_DIR) -> list[Path]:
    """Certificates for every bundled spec: the family proof (all parameters symbolic) and the
    example instance. Returns the files written."""
    from ldpaudit.verify.core import verify

    out = Path(out_dir)
    written: list[Path] = []
    for spec in sorted(Path(specs_dir).glob("*.toml")):
        mech = load_spec(spec)
        if not smt_certified(mech):
            continue
        family = verify(mech)
        written += write_certificate(family, out, name=spec.stem, spec_path=spec)
        if mech.example:
            example = verify(mech.bind_example())
            written += write_certificate(example, out, name=f"{spec.stem}-example", spec_path=spec)
    return written


def smt_certified(mech) -> bool:
    """Whether the spec's claim is decided by z3 queries a certificate can replay: not an (ε, δ)
    claim of a density channel, whose δ(ε) is a closed form compared at 60 digits
    (:mod:`ldpaudit.verify.density_delta`; ``ldpaudit reproduce gaussian`` records it)."""
    from ldpaudit.verify.density_delta import applies

    return mech.claimed_delta is None or not applies(mech)


def _display_path(path: Path) -> Path:
    """Bundled specs are named relative to the repository root; others as given."""
    try:
        return path.resolve().relative_to(SPECS_DIR.parent)
    except ValueError:
        return path
