"""``ldpaudit show``: a mechanism's parameters, channel (pretty-printed and as LaTeX) and
claimed ε, for people (text) and programs (``--json``, a stable schema). The spec is loaded
under the load budget (``--load-timeout``, ``--load-memory-mb``), like in every command."""

from __future__ import annotations

import json

import sympy as sp


from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.describe import (channel_latex_lines, density_in_names, describe_channel,  # describe_channel: re-exported
                                         paper_text, piece_lines)
from ldpaudit.mechanism.names import channel_latex_in_names, channel_lines_in_names
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.explicit import ExplicitChannel
from ldpaudit.render.text import for_people
from ldpaudit.mechanism.loader import load_budgeted
from ldpaudit.mechanism.options import add_load_budget, load_budget
from ldpaudit.mechanism.product import ProductChannel
from ldpaudit.mechanism.realinput import RealInputChannel
from ldpaudit.mechanism.structured import StructuredChannel


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("show", help="print a mechanism: parameters, channel, LaTeX, claimed ε")
    p.add_argument("spec")
    p.add_argument("-p", "--param", action="append", metavar="NAME=VALUE", help="bind a parameter exactly")
    p.add_argument("--json", action="store_true")
    add_load_budget(p)
    p.set_defaults(func=cmd_show)


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
    _, mech = load_budgeted(args.spec, args.param, **load_budget(args))
    payload = show_payload(mech)
    if args.json:
        from ldpaudit.schema import SCHEMA_VERSION

        print(json.dumps({"schema_version": SCHEMA_VERSION, "command": "show", "verdict": "OK", **payload}, indent=2))
        return 0
    print(f"{mech.name}: {mech.description}" if mech.description else mech.name)
    if mech.source:
        print(f"  source: {mech.source}")
    print(f"  parameters: {', '.join(p.describe() for p in mech.parameters) or '(none free)'}")
    if mech.bindings:
        print(f"  bound: {', '.join(f'{k} = {v}' for k, v in mech.bindings)}")
    print(f"  inputs: x in {mech.inputs.describe()}")
    claim = for_people(mech.claimed_epsilon)
    print(f"  claimed: ({claim}, {for_people(mech.claimed_delta)})-LDP" if mech.claimed_delta is not None
          else f"  claimed epsilon: {claim}")
    ch = mech.channel
    print(f"  channel ({ch.form}):")
    in_names = channel_lines_in_names(mech)   # mixture and vector forms, piece by piece in the spec's names
    if in_names is not None:
        for line in in_names:
            print(f"    {line}")
    elif hasattr(ch, "show_lines"):
        for line in ch.show_lines():
            print(f"    {line}")
    elif isinstance(ch, ExplicitChannel):
        print(_indent(sp.pretty(ch.to_sympy_matrix(), use_unicode=True), 4))
        print(f"    rows: x in {list(ch.inputs)}; columns: y in {list(ch.outputs)}")
    elif isinstance(ch, StructuredChannel):
        print(f"    outputs: {ch.outputs.describe()} ({ch.outputs.count()} in all)")
        for c in ch.classes:
            print(f"    Q(y|x) = {for_people(c.weight)}   when {c.condition}   ({c.count} such y for each x)")
    elif isinstance(ch, RealInputChannel):
        print(f"    outputs: y in {{{', '.join(map(str, ch.outputs))}}} from a real input x")
        for c in ch.classes:
            print(f"    Q(y|x) = {for_people(c.weight)}   when {c.condition}   ({c.count} such y for each x)")
        if not ch.classes:
            print(f"    Q(y|x) = {for_people(ch.entry)}")
    elif getattr(ch, "form", None) == "bloom":
        print(f"    outputs: {ch.describe()}")
        for side, law in (("bit b in B_c(x)", ch.on), ("bit b not in B_c(x)", ch.off)):
            print(f"      {side}: " + ", ".join(f"P({v}) = {for_people(p)}" for v, p in law.probabilities))
    elif isinstance(ch, ProductChannel):
        print(f"    {ch.coordinates} independent coordinates; coordinate j:")
        for side, l in (("j == x", ch.on), ("j != x", ch.off)):
            if l.density is not None:
                print(f"      {side}: density {for_people(l.density)}")
            else:
                print(f"      {side}: " + ", ".join(f"P({v}) = {for_people(p)}" for v, p in l.probabilities))
    elif ch.form == "mixture":
        print(f"    with probability w_i, report with component i ({len(ch.components)} components, weights free of x):")
        for i, c in enumerate(ch.components):
            if c.kind == "density":
                print(f"    [{i}] w = {for_people(c.weight)}: density f(z|x) = {for_people(c.density)}")
            else:
                print(f"    [{i}] w = {for_people(c.weight)}: atoms z = {for_people(c.at)} for y in {{{', '.join(map(str, c.outputs))}}}, "
                      f"Q(y|x) = {for_people(c.entry)}")
    else:
        named = density_in_names(mech)
        density, definitions = named if named is not None else (ch.density, [])
        for line in piece_lines(density):
            print(f"    {line}")
        if definitions:
            print("    where")
            for name, expr in definitions:
                print(f"      {name} = {paper_text(expr)}")
    print("  LaTeX:")
    print(f"    \\varepsilon = {sp.latex(mech.claimed_epsilon)}")
    named = density_in_names(mech) if isinstance(ch, DensityChannel) else None
    latex_in_names = channel_latex_in_names(mech)   # mixture and vector forms, as the text above
    if latex_in_names is not None:
        for line in latex_in_names:
            print(f"    {line}")
    elif named is not None:  # in the spec's own names, the definitions under it
        print(f"    f(z \\mid x) = {sp.latex(named[0])}")
        for name, expr in named[1]:
            print(f"    {sp.latex(sp.Symbol(name))} = {sp.latex(expr)}")
    else:
        for line in channel_latex_lines(ch):
            print(f"    {line}")
    for note in mech.notes:
        print(f"  validated: {note}")
    return 0


def _indent(text: str, n: int) -> str:
    return "\n".join(" " * n + line for line in text.splitlines())
