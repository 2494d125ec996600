"""Build a paper manifest into its output folder, item by item, incrementally.

An item (a table, figure, claim, derivation or hook) is rebuilt only when the hash of its inputs
changed: its manifest entry (with the named quantities it uses), the bytes of the specs it uses
(a bundled name counts as the ldpaudit version), the files it reads (CSV, claims file) and the
ldpaudit version. The hashes are kept in ``.ldpaudit-build.json`` in the output folder; an item
whose files are missing is rebuilt too. Every item writes ``<kind>-<name>.json`` (its values)
and ``.tex`` (a fragment for ``\\input``; a figure also ``.pdf`` and ``.png``); the whole build
writes ``report.md`` (every AGREE / DIFFER and claim verdict) and ``paper.json``."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from ldpaudit import __version__
from ldpaudit.papers.manifest import Item, Manifest

STATE = ".ldpaudit-build.json"
REPORT, PAPER_JSON = "report.md", "paper.json"


@dataclass
class ItemResult:
    item: Item
    rebuilt: bool
    payload: dict
    files: list

    @property
    def differ(self) -> int:
        return self.payload.get("differ", 0)

    @property
    def status(self) -> str:
        """The item's worst outcome: REFUTED, UNKNOWN, DIFFER or OK."""
        claims = [c["status"] for c in self.payload.get("claims", [])]
        if "REFUTED" in claims:
            return "REFUTED"
        if self.differ:
            return "DIFFER"
        if any(s != "PROVED" for s in claims):
            return "UNKNOWN"
        return "OK"


@dataclass
class BuildResult:
    manifest: Manifest
    out: Path
    items: list = field(default_factory=list)
    files: list = field(default_factory=list)

    @property
    def rebuilt(self) -> list[str]:
        return [r.item.key for r in self.items if r.rebuilt]

    @property
    def exit_code(self) -> int:
        """1 when a printed value differs (not a known misprint) or a claim is refuted, 3 when a
        claim is undecided, else 0."""
        statuses = {r.status for r in self.items}
        if statuses & {"REFUTED", "DIFFER"}:
            return 1
        return 3 if "UNKNOWN" in statuses else 0

    @property
    def verdict(self) -> str:
        return {0: "OK", 1: "REFUTED", 3: "UNKNOWN"}[self.exit_code]

    def as_dict(self) -> dict:
        return {"title": self.manifest.title, "source": self.manifest.source, "output": str(self.out),
                "rebuilt": self.rebuilt, "items": [_summary(r) for r in self.items],
                "values": {r.item.key: r.payload for r in self.items}, "written": [str(p) for p in self.files]}


def _summary(r: ItemResult) -> dict:
    p = r.payload
    out = {"item": r.item.key, "status": r.status, "rebuilt": r.rebuilt}
    for key in ("agree", "differ", "known_differences"):
        if key in p:
            out[key] = p[key]
    return out


def item_hash(manifest: Manifest, item: Item) -> str:
    """The hash of everything the item's files depend on."""
    h = hashlib.sha256()
    h.update(f"ldpaudit {__version__}\n".encode())
    h.update(json.dumps({"paper_model": manifest.model, "entry": item.entry}, sort_keys=True, default=str).encode())
    for name in sorted(item.uses):
        mech = manifest.mechanisms[name]
        h.update(json.dumps({name: mech.entry}, sort_keys=True).encode())
        target = Path(mech.target)
        h.update(target.read_bytes() if target.is_file() else f"bundled {mech.target}".encode())
    for path in item.files:
        p = Path(path)
        h.update(str(p.name).encode())
        h.update(p.read_bytes() if p.is_file() else b"(missing)")
    return h.hexdigest()


def build(manifest: Manifest, out: str | Path | None = None, *, force: bool = False, progress=None,
          hook_options: dict | None = None) -> BuildResult:
    """Build every item of ``manifest`` into ``out`` (default: the manifest's output folder);
    ``progress(line)`` gets one line per item; ``hook_options`` override the hooks' options for
    this build (which then rebuilds every hook)."""
    from ldpaudit.papers.items import build_item
    from ldpaudit.papers.quantities import Evaluator
    from ldpaudit.papers.golden import write_toolchain

    out = Path(out) if out is not None else manifest.output
    out.mkdir(parents=True, exist_ok=True)
    state_path = out / STATE
    try:
        state = json.loads(state_path.read_text(encoding="utf-8")) if state_path.is_file() else {}
    except (ValueError, UnicodeDecodeError):
        state = {}
    state = state if isinstance(state, dict) else {}
    evaluator = Evaluator(manifest.mechanisms)
    result = BuildResult(manifest, out)
    total = len(manifest.items)
    for number, item in enumerate(manifest.items, 1):
        digest = item_hash(manifest, item)
        stem = f"{item.kind}-{item.name}"
        fresh = force or (hook_options is not None and item.kind == "hook")
        cached = _cached(out, stem, state.get(item.key), digest) if not fresh else None
        if cached is not None:
            payload, files = cached
            r = ItemResult(item, False, payload, files)
        else:
            payload, files = build_item(manifest, item, evaluator, out, stem, hook_options)
            state[item.key] = digest
            r = ItemResult(item, True, payload, files)
            state_path.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        result.items.append(r)
        result.files += files
        if progress is not None:
            progress(f"[{number}/{total}] {item.key}: {'built' if r.rebuilt else 'up to date'}{_detail(r)}")
    state = {k: v for k, v in state.items() if k in {i.key for i in manifest.items}}
    state_path.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    from ldpaudit.papers.report import write_report

    result.files += write_report(result, out)
    result.files.append(write_toolchain(out))
    return result


def _cached(out: Path, stem: str, recorded: str | None, digest: str):
    if recorded != digest:
        return None
    js = out / f"{stem}.json"
    if not js.is_file():
        return None
    try:
        payload = json.loads(js.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    files = [out / name for name in payload.get("files", [])]
    if not all(f.is_file() for f in files):
        return None
    return payload, files


def _detail(r: ItemResult) -> str:
    p = r.payload
    parts = []
    if "rows" in p and r.item.kind == "table":
        parts.append(f"{len(p['rows'])} row{'s' if len(p['rows']) != 1 else ''}")
    if "agree" in p:
        parts.append(f"{p['agree']} AGREE, {p['differ']} DIFFER" + (f" ({p['known_differences']} known)"
                                                                     if p.get("known_differences") else ""))
    for c in p.get("claims", []):
        parts.append(f"{c['status']} {c['name']}")
    return f" ({'; '.join(parts)})" if parts else ""


__all__ = ["build", "item_hash", "BuildResult", "ItemResult", "STATE", "REPORT", "PAPER_JSON"]
