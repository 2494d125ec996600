"""A spec's definitions of the parameters read back as parameters of their own (issue 32): Square
Wave written the paper's way defines b = (ε e^ε - e^ε + 1)/(2 e^ε (e^ε - 1 - ε)) and draws its
window |z - x| <= b. :func:`kept_definitions` finds such a quantity (a definition in the parameters
alone that the channel's conditions use, directly or through other definitions) and
:func:`with_definitions_as_parameters` reads the same file again with it declared under
``[parameters]`` instead, so that a derivation keeps it as a symbol. The file is read by the
loader's allow-list parser (nothing is evaluated); what comes of the second reading is checked
by whoever uses it (``ldpaudit.derive.kept`` proves each expression equal to the inlined one)."""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.names import spec_definitions

#: decimal digits of a kept quantity's value at the example point, its example as a fraction
_EXAMPLE_DIGITS = 12


def _condition_symbols(expr) -> set[str]:
    """The names the conditions of a (nested) Piecewise use."""
    out: set[str] = set()
    for pw in expr.atoms(sp.Piecewise) if isinstance(expr, sp.Basic) else ():
        for _, cond in pw.args:
            if isinstance(cond, sp.Basic):
                out |= {s.name for s in cond.free_symbols}
    return out


def kept_definitions(mech: Mechanism) -> list[str]:
    """The names of the spec's definitions that are quantities of the parameters alone (no x, z
    and no other definition in them, still free after the bindings) and that the density's
    conditions use, directly or through the definitions they name; in file order. Empty for the
    other channel forms, and when there are none."""
    from ldpaudit.mechanism.describe import density_in_names

    if getattr(mech.channel, "form", None) != "density":
        return []
    named = density_in_names(mech)
    if named is None:
        return []
    density, definitions = named
    by_name = dict(definitions)
    params = {p.name for p in mech.parameters}
    wanted = _condition_symbols(density)
    grown = True
    while grown:   # a condition on l uses whatever l's definition names
        grown = False
        for name in list(wanted):
            if name in by_name:
                more = {s.name for s in by_name[name].free_symbols} - wanted
                wanted |= more
                grown = grown or bool(more)
    out = []
    for name, expr in definitions:
        names = {s.name for s in expr.free_symbols}
        if name in wanted and names and names <= params:
            out.append(name)
    return out


def with_definitions_as_parameters(mech: Mechanism, kept: list[str]) -> Mechanism | None:
    """``mech``'s spec file read again with each definition in ``kept`` declared a real parameter
    (positive when its value at the spec's example is, else negative), its example value that
    value as a fraction of 12 digits, and bound as ``mech`` is; None when the file cannot be
    read again or the result is not a valid spec (a definition that normalizes the density only
    at its own value, such as the Piecewise mechanism's C)."""
    import tomllib
    from pathlib import Path

    from ldpaudit.errors import LdpAuditError
    from ldpaudit.mechanism.loader import _build

    path = getattr(mech, "spec_path", None)
    if not path or not kept:
        return None
    try:
        doc = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    example = {name: sp.sympify(v) for name, v in mech.example}
    point = {p.symbol: example[p.name] for p in mech.parameters if p.name in example}
    inline: dict = {}
    for name, expr in spec_definitions(mech):
        inline[sp.Symbol(name, real=True)] = expr.xreplace(inline)
    params = doc.setdefault("parameters", {})
    example_t = doc.setdefault("example", {})
    for name in kept:
        if sp.Symbol(name, real=True) not in inline or not isinstance(doc.get("definitions"), dict):
            return None
        try:
            value = sp.N(inline[sp.Symbol(name, real=True)].xreplace(point), 30)
            fraction = Fraction(str(sp.Float(value, _EXAMPLE_DIGITS))).limit_denominator(10**_EXAMPLE_DIGITS)
        except (TypeError, ValueError, ZeroDivisionError):
            return None
        if fraction == 0:
            return None
        doc["definitions"].pop(name, None)
        params[name] = {"type": "real", "min" if fraction > 0 else "max": 0,
                        "strict_min" if fraction > 0 else "strict_max": True}
        example_t[name] = str(fraction)
    try:
        family = _build(doc, Path(path).parent)
        bound = family.bind(dict(mech.bindings)) if mech.bindings else family
    except (LdpAuditError, ValueError, TypeError, ArithmeticError):
        return None
    return bound


__all__ = ["kept_definitions", "with_definitions_as_parameters"]
