"""``ldpaudit check``: validate specs and summarize every stage (verify, derive, audit) on
their example instances: the main job a newcomer runs on the bundled specs."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

from ldpaudit import __version__
from ldpaudit.errors import LdpAuditError


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("check", help="validate specs and summarize every stage on their examples")
    p.add_argument("target", nargs="?", default="specs", help="a spec file or a directory of them (default: specs)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--audit-samples", type=int, default=20_000, help="samples per input for the quick audit")
    p.set_defaults(func=cmd_check)


def spec_files(target: str) -> list[Path]:
    path = Path(target)
    if path.is_dir():
        files = sorted(path.glob("*.toml"))
        if not files:
            raise LdpAuditError(f"no *.toml spec files in directory {target!r}")
        return files
    if not path.exists():
        raise LdpAuditError(f"spec {target!r} does not exist; give a .toml file or a directory of them")
    return [path]


def check_one(path: Path, *, audit_samples: int) -> dict:
    """Validate one spec and run the three stages (verify, derive, audit) on its example instance."""
    row: dict = {"spec": str(path)}
    from ldpaudit.spec import load_spec

    try:
        mech = load_spec(path)
    except LdpAuditError as exc:
        row.update(mechanism=path.stem, ok=False, error=str(exc), stochastic="INVALID")
        return row
    example = mech.bind_example()
    row.update(
        mechanism=mech.name,
        form=mech.channel.form,
        parameters=[p.describe() for p in mech.parameters],
        example={k: str(v) for k, v in mech.example},
        claimed_epsilon=str(mech.claimed_epsilon),
        stochastic="proved" if mech.parameters else "exact",
        notes=list(mech.notes),
        ok=True,
    )
    stages = (
        ("verification", "ldpaudit.verify", "summary", mech),
        ("derivation", "ldpaudit.derive.headline", "headline", example),
        ("audit", "ldpaudit.audit.command", "check_summary", example),
    )
    for key, module, attr, target in stages:
        func = getattr(importlib.import_module(module), attr)
        try:
            row[key] = func(target, samples=audit_samples) if key == "audit" else func(target)
        except LdpAuditError as exc:
            row[key] = f"error: {exc}"
    return row


def cmd_check(args) -> int:
    rows = [check_one(path, audit_samples=args.audit_samples) for path in spec_files(args.target)]
    if args.json:
        print(json.dumps({"version": __version__, "specs": rows}, indent=2))
    else:
        _render_check(rows)
    return 0 if all(r["ok"] for r in rows) else 2  # an invalid spec is bad input


def _render_check(rows: list[dict]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="ldpaudit check", show_lines=True)
    columns = ["mechanism", "parameters", "claimed ε", "rows sum to 1"]
    extra = ["verification", "derivation", "audit"]
    for name in columns + extra:
        table.add_column(name, overflow="fold")
    for r in rows:
        if not r["ok"]:
            table.add_row(r["mechanism"], "", "", f"[red]INVALID[/red]: {r['error']}", *["" for _ in extra])
            continue
        params = ", ".join(r["parameters"]) or "(none)"
        example = ", ".join(f"{k}={v}" for k, v in r["example"].items())
        table.add_row(
            f"{r['mechanism']}\n[dim]{r['form']}[/dim]",
            params + (f"\nexample: {example}" if example else ""),
            r["claimed_epsilon"],
            f"[green]{r['stochastic']}[/green]",
            *[str(r.get(k, "")) for k in extra],
        )
    Console(width=max(150, Console().width)).print(table)
