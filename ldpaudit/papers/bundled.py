"""The papers that ship with ldpaudit as manifests (``ldpaudit/papers/manifests/NAME/paper.toml``):
``ldpaudit reproduce NAME`` builds the bundled manifest into ``proofs/NAME``."""

from __future__ import annotations

from pathlib import Path

MANIFESTS = Path(__file__).resolve().parent / "manifests"


def bundled_manifest(name: str) -> Path | None:
    path = MANIFESTS / name / "paper.toml"
    return path if path.is_file() else None


def reproduce_bundled(name: str, out_dir, *, progress=None, **hook_options) -> tuple[list, dict]:
    """Build the bundled manifest ``name`` into ``out_dir/name``; (files written, values)."""
    from ldpaudit.papers.build import build
    from ldpaudit.papers.manifest import load_manifest

    manifest = load_manifest(bundled_manifest(name))
    result = build(manifest, Path(out_dir) / name, progress=progress, hook_options=hook_options or None)
    payload = {"verdict": result.verdict, "items": {r.item.key: r.payload for r in result.items},
               "rebuilt": result.rebuilt}
    return result.files, payload


__all__ = ["MANIFESTS", "bundled_manifest", "reproduce_bundled"]
