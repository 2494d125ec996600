"""The ``ldpaudit`` command line: parses arguments, calls the API, renders.

Subcommands owned by other stages live next to their code (``ldpaudit/<stage>/command.py``,
each with ``add_parser(subparsers)`` and ``run(args) -> int``) and are wired in here.
Bad input exits with status 2 and a one-line message, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path

import sympy as sp

from ldpaudit import __version__
from ldpaudit.errors import LdpAuditError
from ldpaudit.spec import load_spec
from ldpaudit.spec.loader import load_bound
from ldpaudit.spec.model import (
    CohortSpace,
    DensityChannel,
    RealInputChannel,
    ExplicitChannel,
    Mechanism,
    ProductChannel,
    StructuredChannel,
    SubsetSpace,
)

#: stage modules that contribute subcommands, in the order they appear in --help
STAGE_COMMANDS = (
    "ldpaudit.derive.command",
    "ldpaudit.verify.command",
    "ldpaudit.audit.command",
    "ldpaudit.report.command",
    "ldpaudit.protocol.command",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own usage errors also exit 2, in one line
        self.exit(2, f"ldpaudit: error: {message}\n")


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


# --- check ------------------------------------------------------------------------------------


def check_one(path: Path, *, audit_samples: int) -> dict:
    """Validate one spec and run the three stages (verify, derive, audit) on its example instance."""
    row: dict = {"spec": str(path)}
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
        ("derivation", "ldpaudit.derive", "headline", example),
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
    return 0 if all(r["ok"] for r in rows) else 1


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


# --- show -------------------------------------------------------------------------------------


def describe_channel(mech: Mechanism) -> dict:
    """A JSON-able description of the channel (stable schema)."""
    ch = mech.channel
    out: dict = {"form": ch.form}
    if isinstance(ch, ExplicitChannel):
        out.update(
            inputs=[str(x) for x in ch.inputs],
            outputs=[str(y) for y in ch.outputs],
            rows=[[str(e) for e in row] for row in ch.matrix],
            latex=sp.latex(ch.to_sympy_matrix()),
        )
    elif isinstance(ch, StructuredChannel):
        space = ch.outputs
        out.update(
            outputs={"kind": space.kind, "count": str(space.count()), "description": space.describe()},
            classes=[
                {
                    "name": c.name,
                    "when": c.condition,
                    "count": str(c.count),
                    "weight": str(c.weight),
                    "latex": sp.latex(c.weight),
                }
                for c in ch.classes
            ],
        )
        if isinstance(space, CohortSpace):
            out["outputs"]["hash"] = [list(r) for r in space.hash_table]
        if isinstance(space, SubsetSpace):
            out["outputs"]["k"] = str(space.k)
    elif isinstance(ch, ProductChannel):
        def law(l):
            if l.density is not None:
                return {"density": str(l.density), "latex": sp.latex(l.density)}
            return {"values": {str(v): str(p) for v, p in l.probabilities},
                    "latex": {str(v): sp.latex(p) for v, p in l.probabilities}}
        out.update(coordinates=str(ch.coordinates), on=law(ch.on), off=law(ch.off))
    elif isinstance(ch, DensityChannel):
        out.update(density=str(ch.density), latex=sp.latex(ch.density))
    elif isinstance(ch, RealInputChannel):
        out.update(layout=ch.layout, outputs=[str(y) for y in ch.outputs], entry=str(ch.entry), latex=sp.latex(ch.entry))
        if ch.classes:
            out["classes"] = [{"name": c.name, "when": c.condition, "count": str(c.count), "weight": str(c.weight),
                               "latex": sp.latex(c.weight)} for c in ch.classes]
    return out


def show_payload(mech: Mechanism) -> dict:
    dom = mech.inputs
    return {
        "mechanism": mech.name,
        "description": mech.description,
        "source": mech.source,
        "spec": mech.spec_path,
        "parameters": [
            {
                "name": p.name,
                "type": p.kind,
                "min": None if p.lower is None else str(p.lower),
                "max": None if p.upper is None else str(p.upper),
                "strict_min": p.lower_strict,
                "strict_max": p.upper_strict,
                "public": p.public,
                "unbounded": p.unbounded,
                "description": p.description,
            }
            for p in mech.parameters
        ],
        "bindings": {k: str(v) for k, v in mech.bindings},
        "inputs": dom.describe(),
        "claimed_epsilon": str(mech.claimed_epsilon),
        "claimed_epsilon_latex": sp.latex(mech.claimed_epsilon),
        "channel": describe_channel(mech),
        "validation": list(mech.notes),
    }


def cmd_show(args) -> int:
    mech = load_bound(args.spec, args.param)
    payload = show_payload(mech)
    if args.json:
        print(json.dumps(payload, indent=2))
        return 0
    print(f"{mech.name}: {mech.description}")
    if mech.source:
        print(f"  source: {mech.source}")
    print(f"  parameters: {', '.join(p.describe() for p in mech.parameters) or '(none free)'}")
    if mech.bindings:
        print(f"  bound: {', '.join(f'{k} = {v}' for k, v in mech.bindings)}")
    print(f"  inputs: x in {mech.inputs.describe()}")
    print(f"  claimed epsilon: {mech.claimed_epsilon}")
    ch = mech.channel
    print(f"  channel ({ch.form}):")
    if isinstance(ch, ExplicitChannel):
        print(_indent(sp.pretty(ch.to_sympy_matrix(), use_unicode=True), 4))
        print(f"    rows: x in {list(ch.inputs)}; columns: y in {list(ch.outputs)}")
    elif isinstance(ch, StructuredChannel):
        print(f"    outputs: {ch.outputs.describe()} ({ch.outputs.count()} in all)")
        for c in ch.classes:
            print(f"    Q(y|x) = {sp.sstr(c.weight)}   when {c.condition}   ({c.count} such y for each x)")
    elif isinstance(ch, RealInputChannel):
        print(f"    outputs: y in {{{', '.join(map(str, ch.outputs))}}} from a real input x")
        for c in ch.classes:
            print(f"    Q(y|x) = {sp.sstr(c.weight)}   when {c.condition}   ({c.count} such y for each x)")
        if not ch.classes:
            print(f"    Q(y|x) = {sp.sstr(ch.entry)}")
    elif isinstance(ch, ProductChannel):
        print(f"    {ch.coordinates} independent coordinates; coordinate j:")
        for side, l in (("j == x", ch.on), ("j != x", ch.off)):
            if l.density is not None:
                print(f"      {side}: density {sp.sstr(l.density)}")
            else:
                print(f"      {side}: " + ", ".join(f"P({v}) = {sp.sstr(p)}" for v, p in l.probabilities))
    else:
        print(f"    f(z|x) = {sp.sstr(ch.density)}")
    print("  LaTeX:")
    print(f"    \\varepsilon = {sp.latex(mech.claimed_epsilon)}")
    if isinstance(ch, ExplicitChannel):
        print(f"    Q = {sp.latex(ch.to_sympy_matrix())}")
    elif isinstance(ch, StructuredChannel):
        for c in ch.classes:
            print(f"    Q(y \\mid x) = {sp.latex(c.weight)} \\quad \\text{{if }} {c.condition}")
    elif isinstance(ch, RealInputChannel):
        print(f"    Q(y \\mid x) = {sp.latex(ch.entry)}")
    elif isinstance(ch, ProductChannel):
        for side, l in (("j = x", ch.on), ("j \\ne x", ch.off)):
            body = sp.latex(l.density) if l.density is not None else ", ".join(
                f"P({v}) = {sp.latex(p)}" for v, p in l.probabilities)
            print(f"    {side}: {body}")
    else:
        print(f"    f(z \\mid x) = {sp.latex(ch.density)}")
    for note in mech.notes:
        print(f"  validated: {note}")
    return 0


def _indent(text: str, n: int) -> str:
    return "\n".join(" " * n + line for line in text.splitlines())


# --- main -------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ldpaudit", description="Prove, derive and audit local differential privacy.")
    parser.add_argument("--version", action="version", version=f"ldpaudit {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("check", help="validate specs and summarize every stage on their examples")
    p.add_argument("target", nargs="?", default="specs", help="a spec file or a directory of them (default: specs)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--audit-samples", type=int, default=20_000, help="samples per input for the quick audit")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("show", help="print a mechanism: parameters, channel, LaTeX, claimed ε")
    p.add_argument("spec")
    p.add_argument("-p", "--param", action="append", metavar="NAME=VALUE", help="bind a parameter exactly")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_show)

    for module in STAGE_COMMANDS:
        stage = importlib.import_module(module)
        before = set(sub.choices)
        stage.add_parser(sub)
        for name in set(sub.choices) - before:
            if sub.choices[name].get_default("func") is None:
                sub.choices[name].set_defaults(func=stage.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.func(args)
    except LdpAuditError as exc:
        print(f"ldpaudit: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ldpaudit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `ldpaudit ... | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
