"""``ldpaudit reproduce paper.toml [--out DIR] [--check] [--json]``: build a paper manifest
(:mod:`ldpaudit.papers.manifest`) incrementally, one progress line per item; with ``--check``,
rebuild everything into a temporary folder and compare it, by meaning, with the committed
output folder (:func:`check_manifest`).

Exit status: 0 every printed value AGREEs and every claim is PROVED; 1 a value DIFFERs (not a
known misprint), a claim is REFUTED, or (``--check``) the committed files differ; 2 a malformed
manifest (one line naming the key); 3 a claim undecided."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path


def is_manifest(name: str) -> bool:
    """Whether the ``reproduce`` argument names a manifest (a .toml file or a folder with one)."""
    p = Path(name)
    return name.endswith(".toml") or "/" in name or (p.is_dir() and (p / "paper.toml").is_file())


def build_manifest(path, out=None, *, force: bool = False, progress=None):
    from ldpaudit.papers.build import build
    from ldpaudit.papers.manifest import load_manifest

    return build(load_manifest(path), out, force=force, progress=progress)


def compare_folders(generated: Path, committed: Path) -> list[str]:
    """Where the files of two builds differ in meaning: JSON value by value, LaTeX and Markdown
    to the letter when the committed files were written by the installed toolchain (else only
    through their JSON), figures present; the same rules as the golden files of ``proofs/``."""
    from ldpaudit.papers.build import STATE
    from ldpaudit.papers.golden import TOOLCHAIN_FILE, json_differences, same_toolchain

    if not committed.is_dir():
        return [f"{committed}: no committed output to compare with; build it and commit it first"]
    letter = same_toolchain(committed)
    out = []
    skip = {STATE, TOOLCHAIN_FILE}
    names = {p.name for p in generated.iterdir() if p.is_file()} - skip
    old = {p.name for p in committed.iterdir() if p.is_file()} - skip
    for name in sorted(old - names):
        out.append(f"{name}: committed but no longer built")
    for name in sorted(names):
        mine, theirs = generated / name, committed / name
        if name not in old:
            out.append(f"{name}: built but not committed")
            continue
        if mine.suffix == ".json":
            a = json.loads(mine.read_text(encoding="utf-8"))
            b = json.loads(theirs.read_text(encoding="utf-8"))
            out += [f"{name}: {d}" for d in json_differences(a, b, "$")]
        elif mine.suffix in (".tex", ".md") and letter:
            if mine.read_text(encoding="utf-8") != theirs.read_text(encoding="utf-8"):
                out.append(f"{name}: the text differs from the committed file")
        elif mine.suffix in (".png", ".pdf") and theirs.stat().st_size == 0:
            out.append(f"{name}: the committed figure is empty")
    return out


def check_manifest(path, committed=None, *, progress=None) -> tuple[object, list[str]]:
    """Rebuild ``path`` from scratch into a temporary folder; (the build, its differences from
    ``committed``, default the manifest's output folder)."""
    from ldpaudit.papers.manifest import load_manifest

    manifest = load_manifest(path)
    committed = Path(committed) if committed is not None else manifest.output
    from ldpaudit.papers.build import build

    with tempfile.TemporaryDirectory(prefix="ldpaudit-check-") as tmp:
        result = build(manifest, Path(tmp), force=True, progress=progress)
        differences = compare_folders(Path(tmp), committed)
    return result, differences


def run_manifest(args, path: str, out=None) -> int:
    from ldpaudit.papers.report import paper_value

    stream = sys.stderr if args.json else sys.stdout

    def progress(line: str) -> None:
        if not getattr(args, "quiet", False):
            print(f"reproduce: {line}", file=stream, flush=True)

    differences: list[str] = []
    if getattr(args, "check", False):
        result, differences = check_manifest(path, out, progress=progress)
    else:
        result = build_manifest(path, out, progress=progress)
    code = result.exit_code
    if differences:
        code = 1
    differ_lines = []
    for r in result.items:
        for row in r.payload.get("rows", []) if r.item.kind == "table" else []:
            for c in row.get("cells", []):
                if c.get("verdict") == "DIFFER":
                    at = ", ".join(f"{k} = {v}" for k, v in row["parameters"].items())
                    differ_lines.append(f"DIFFER {r.item.name} [{at}] {c['label']}: derived {c['shown']}, "
                                        f"paper {paper_value(c)}" + (" (known)" if c.get("known_difference") else ""))
    if args.json:
        from ldpaudit.schema import envelope

        verdict = {0: "OK", 1: "REFUTED", 3: "UNKNOWN"}[code]
        body = {"manifest": str(path), **result.as_dict(), "check": bool(getattr(args, "check", False)),
                "differences": differences}
        if getattr(args, "check", False):
            body["written"] = []  # a check writes only into a temporary folder
        print(json.dumps(envelope("reproduce", verdict, body), indent=2, ensure_ascii=False, default=str))
        return code
    for line in differ_lines:
        print(line)
    if getattr(args, "check", False):
        for d in differences:
            print(f"differs from the committed build: {d}")
        print(f"check: {len(differences)} difference(s) from {result.manifest.output if out is None else out}; "
              f"{result.verdict}")
    else:
        print(f"{result.manifest.title}: {result.verdict}; {len(result.rebuilt)} of {len(result.items)} items rebuilt "
              f"into {result.out} (report.md, paper.json)")
    return code


__all__ = ["is_manifest", "build_manifest", "check_manifest", "compare_folders", "run_manifest"]
