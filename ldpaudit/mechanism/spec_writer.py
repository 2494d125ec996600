"""Writing a mechanism back as a spec file (:func:`dumps_spec`): every expression printed so that
the loader reads it back to the same mechanism (checked), conditions, labels, hash families
and mixture components as TOML.
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.explicit import ExplicitChannel
from ldpaudit.mechanism.expr import (
    parse_expression,
    parse_predicate,
)
from ldpaudit.mechanism.params import X, Y, Z
from ldpaudit.mechanism.product import ProductChannel
from ldpaudit.mechanism.realinput import RealInputChannel
from ldpaudit.mechanism.spaces import BoxDomain, ElementSpace, IntervalDomain, SubsetSpace
from ldpaudit.mechanism.structured import OutputClass, StructuredChannel
from ldpaudit.mechanism.vector import CoordinatesChannel, SignVectorChannel, T, V


class _SpecPrinter(sp.printing.str.StrPrinter):
    """sympy's text, except for the forms the spec parser spells differently:
    ``a if c else b`` for Piecewise, ``%`` for Mod, ``and``/``or``/``not``."""

    def _print_Piecewise(self, expr):
        *pieces, (last, cond) = expr.args
        text = f"({self._print(last)})" if cond is sp.true else f"({self._print(last)}) if ({self._print(cond)}) else 0"
        for value, c in reversed(pieces):
            text = f"({self._print(value)}) if ({self._print(c)}) else {text}"
        return f"({text})"

    def _print_Mod(self, expr):
        return f"(({self._print(expr.args[0])}) % ({self._print(expr.args[1])}))"

    def _print_And(self, expr):
        return "(" + " and ".join(f"({self._print(a)})" for a in expr.args) + ")"

    def _print_Or(self, expr):
        return "(" + " or ".join(f"({self._print(a)})" for a in expr.args) + ")"

    def _print_Not(self, expr):
        return f"(not ({self._print(expr.args[0])}))"

    def _print_Relational(self, expr):
        return f"(({self._print(expr.lhs)}) {expr.rel_op} ({self._print(expr.rhs)}))"


def _expr_text(expr, field: str, symbols: Mapping[str, sp.Basic]) -> str:
    """Print an expression so that the safe parser reads back exactly the same expression."""
    text = _SpecPrinter().doprint(expr) if expr.has(sp.Piecewise, sp.Mod) or isinstance(expr, sp.logic.boolalg.Boolean) else sp.sstr(expr)
    back = parse_expression(text, symbols, field=field)
    if isinstance(expr, sp.logic.boolalg.Boolean) or expr.has(sp.Piecewise):
        same = back == expr or sp.piecewise_fold(back) == sp.piecewise_fold(expr) or _equivalent(back, expr)
    else:
        same = back == expr or sp.simplify(back - expr) == 0
    if not same:
        raise InvalidSpec(f"{field} = {expr} cannot be written as spec text that reads back unchanged")
    return text


def _equivalent(a, b) -> bool:
    """Structural equality up to sympy's rewriting of what the parser reads back: values equal
    when their difference simplifies to 0, a relation equal to the same relation written from
    the other side (z <= r and r >= z), And/Or arguments in any order."""
    if a == b:
        return True
    if isinstance(a, sp.Piecewise) and isinstance(b, sp.Piecewise):
        return len(a.args) == len(b.args) and all(
            _equivalent(va, vb) and _equivalent(ca, cb) for (va, ca), (vb, cb) in zip(a.args, b.args))
    if isinstance(a, (sp.And, sp.Or)) and type(a) is type(b):
        rest = list(b.args)
        for x in a.args:
            match = next((y for y in rest if _equivalent(x, y)), None)
            if match is None:
                return False
            rest.remove(match)
        return not rest
    if isinstance(a, sp.Not) and isinstance(b, sp.Not):
        return _equivalent(a.args[0], b.args[0])
    if isinstance(a, sp.core.relational.Relational) and isinstance(b, sp.core.relational.Relational):
        flip = {">": "<", ">=": "<=", "<": "<", "<=": "<=", "==": "==", "!=": "!="}

        def canonical(r):
            return (flip[r.rel_op], r.rhs - r.lhs) if r.rel_op in (">", ">=") else (r.rel_op, r.lhs - r.rhs)

        (oa, da), (ob, db) = canonical(a), canonical(b)
        return oa == ob and (sp.simplify(da - db) == 0 or (oa in ("==", "!=") and sp.simplify(da + db) == 0))
    if isinstance(a, sp.logic.boolalg.Boolean) or isinstance(b, sp.logic.boolalg.Boolean):
        return False
    if a.has(sp.Piecewise) or b.has(sp.Piecewise):
        return False
    return sp.simplify(a - b) == 0


def _condition_text(c: OutputClass, symbols) -> str:
    """A real-input class condition: as written when it still reads back (nothing bound)."""
    try:
        if parse_predicate(c.condition, symbols, field="when") == c.relation:
            return c.condition
    except InvalidSpec:
        pass
    return _expr_text(c.relation, "when", symbols)


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _label(value) -> str:
    return str(value) if isinstance(value, int) else _q(str(value))


def _hash_lines(table, family, permutation, depth: int = 2) -> list[str]:
    def nested(v):
        return "[" + ", ".join(nested(e) for e in v) + "]" if isinstance(v, tuple) else str(v)

    lines = [f"hash = {nested(table)}"] if table is not None else [f"family = {_q(family.name)}", f"seed = {family.seed}"]
    return lines + (["permutation = true"] if permutation else [])


def _component_lines(ch, syms, table: str) -> list[str]:
    """The ``[[TABLE.components]]`` of a mixture channel as spec text."""
    lines = []
    for i, c in enumerate(ch.components):
        where = f"{table}.components[{i}]"
        lines += ["", f"[[{table}.components]]", f"weight = {_q(_expr_text(c.weight, where + '.weight', syms))}"]
        if c.density is not None:
            lines.append(f"density = {_q(_expr_text(c.density, where + '.density', dict(syms, x=X, z=Z)))}")
        else:
            lines += ["outputs = [" + ", ".join(_label(v) for v in c.outputs) + "]",
                      f"entry = {_q(_expr_text(c.entry, where + '.entry', dict(syms, x=X, y=Y)))}",
                      f"at = {_q(_expr_text(c.at, where + '.at', dict(syms, y=Y)))}"]
    return lines


def dumps_spec(mech: Mechanism) -> str:
    """Write a mechanism as spec text that :func:`loads_spec` reads back to an equal mechanism."""
    syms = mech.symbols
    lines = ["[mechanism]", f"name = {_q(mech.name)}", f"claimed_epsilon = {_q(_expr_text(mech.claimed_epsilon, 'claimed_epsilon', syms))}"]
    if mech.claimed_delta is not None:
        lines.append(f"claimed_delta = {_q(_expr_text(mech.claimed_delta, 'claimed_delta', syms))}")
    if mech.description:
        lines.append(f"description = {_q(mech.description)}")
    if mech.source:
        lines.append(f"source = {_q(mech.source)}")
    for p in mech.parameters:
        lines += ["", f"[parameters.{p.name}]", f"type = {_q(p.kind)}"]
        if p.lower is not None:
            lines.append(f"min = {_q(_expr_text(p.lower, p.name, syms))}")
        if p.upper is not None:
            lines.append(f"max = {_q(_expr_text(p.upper, p.name, syms))}")
        if p.lower_strict:
            lines.append("strict_min = true")
        if p.upper_strict:
            lines.append("strict_max = true")
        if p.public:
            lines.append("public = true")
        if p.unbounded:
            lines.append("unbounded = true")
        if p.description:
            lines.append(f"description = {_q(p.description)}")
    if mech.example:
        lines += ["", "[example]"] + [f"{k} = {_q(sp.sstr(v))}" for k, v in mech.example]
    lines += ["", "[inputs]"]
    dom = mech.inputs
    if isinstance(dom, BoxDomain):
        lines += [f"dimension = {_q(_expr_text(dom.dimension, 'inputs.dimension', syms))}",
                  f"low = {_q(_expr_text(dom.low, 'inputs.low', syms))}",
                  f"high = {_q(_expr_text(dom.high, 'inputs.high', syms))}"]
    elif isinstance(dom, IntervalDomain):
        if dom.low is None and dom.high is None:
            lines.append("real = true")
        if dom.low is not None:
            lines.append(f"low = {_q(_expr_text(dom.low, 'inputs.low', syms))}")
        if dom.high is not None:
            lines.append(f"high = {_q(_expr_text(dom.high, 'inputs.high', syms))}")
    elif dom.labels is not None:
        lines.append("labels = [" + ", ".join(_label(v) for v in dom.labels) + "]")
    else:
        lines.append(f"size = {_q(_expr_text(dom.size, 'inputs.size', syms))}")
    ch = mech.channel
    lines += ["", "[channel]", f"form = {_q(ch.layout if isinstance(ch, RealInputChannel) else ch.form)}"]
    if isinstance(ch, ExplicitChannel):
        lines.append("outputs = [" + ", ".join(_label(v) for v in ch.outputs) + "]")
        lines.append("rows = [")
        for i, row in enumerate(ch.matrix):
            lines.append("  [" + ", ".join(_q(_expr_text(e, f"rows[{i}]", syms)) for e in row) + "],")
        lines.append("]")
    elif isinstance(ch, StructuredChannel):
        out = ch.outputs
        lines.append(f"outputs = {_q(out.kind)}")
        if isinstance(out, ElementSpace):
            lines.append(f"size = {_q(_expr_text(out.size, 'size', syms))}")
        elif isinstance(out, SubsetSpace):
            lines += [f"universe = {_q(_expr_text(out.universe, 'universe', syms))}", f"k = {_q(_expr_text(out.k, 'k', syms))}"]
        else:
            lines.append(f"k = {_q(_expr_text(out.k, 'k', syms))}")
            if out.cohorts is not None:
                lines.append(f"cohorts = {_q(_expr_text(out.cohorts, 'cohorts', syms))}")
            lines += _hash_lines(out.hash_table, out.family, out.permutation)
        for c in ch.classes:
            lines += [
                "",
                "[[channel.classes]]",
                f"name = {_q(c.name)}",
                f"when = {_q(c.condition)}",
                f"count = {_q(_expr_text(c.count, 'count', syms))}",
                f"weight = {_q(_expr_text(c.weight, 'weight', syms))}",
            ]
    elif isinstance(ch, RealInputChannel) and ch.layout == "structured":
        xy = dict(syms, x=X, y=Y)
        lines += ['outputs = "element"', f"size = {len(ch.outputs)}"]
        for c in ch.classes:
            lines += [
                "",
                "[[channel.classes]]",
                f"name = {_q(c.name)}",
                f"when = {_q(_condition_text(c, xy))}",
                f"count = {_q(_expr_text(c.count, 'count', syms))}",
                f"weight = {_q(_expr_text(c.weight, 'weight', dict(syms, x=X)))}",
            ]
    elif isinstance(ch, RealInputChannel):
        lines.append("outputs = [" + ", ".join(_label(v) for v in ch.outputs) + "]")
        lines.append(f"entry = {_q(_expr_text(ch.entry, 'entry', dict(syms, x=X, y=Y)))}")
    elif getattr(ch, "form", None) == "bloom":
        lines += [f"cohorts = {_q(_expr_text(ch.cohorts, 'cohorts', syms))}", f"k = {_q(_expr_text(ch.k, 'k', syms))}",
                  f"hashes = {_q(_expr_text(ch.hashes, 'hashes', syms))}"]
        lines += _hash_lines(ch.table, ch.family, ch.permutation, depth=3)
        for side, law in (("on", ch.on), ("off", ch.off)):
            lines += ["", f"[channel.{side}]", "values = { " + ", ".join(
                f"{_q(str(v))} = {_q(_expr_text(p, side, syms))}" for v, p in law.probabilities) + " }"]
    elif isinstance(ch, ProductChannel):
        lines.append(f"coordinates = {_q(_expr_text(ch.coordinates, 'coordinates', syms))}")
        for side, law in (("on", ch.on), ("off", ch.off)):
            lines += ["", f"[channel.{side}]"]
            if law.density is not None:
                lines.append(f"density = {_q(_expr_text(law.density, side, dict(syms, z=Z)))}")
            else:
                lines.append(
                    "values = { "
                    + ", ".join(f"{_q(str(v))} = {_q(_expr_text(p, side, syms))}" for v, p in law.probabilities)
                    + " }"
                )
    elif isinstance(ch, SignVectorChannel):
        lines += [f"latent = {_q(_expr_text(ch.latent, 'latent', dict(syms, x=X, v=V)))}",
                  f"entry = {_q(_expr_text(ch.entry, 'entry', dict(syms, t=T)))}",
                  f"scale = {_q(_expr_text(ch.scale, 'scale', syms))}"]
    elif isinstance(ch, CoordinatesChannel):
        lines += [f"sampled = {_q(_expr_text(ch.sampled, 'sampled', syms))}",
                  f"scale = {_q(_expr_text(ch.scale, 'scale', syms))}", "", "[channel.coordinate]"]
        c = ch.coordinate
        if isinstance(c, DensityChannel):
            lines += ['form = "density"', f"density = {_q(_expr_text(c.density, 'density', dict(syms, x=X, z=Z)))}"]
        elif getattr(c, "form", None) == "mixture":
            lines.append('form = "mixture"')
            lines += _component_lines(c, syms, "channel.coordinate")
        else:
            lines += ['form = "explicit"', "outputs = [" + ", ".join(_label(v) for v in c.outputs) + "]",
                      f"entry = {_q(_expr_text(c.entry, 'entry', dict(syms, x=X, y=Y)))}"]
    elif getattr(ch, "form", None) == "mixture":
        lines += _component_lines(ch, syms, "channel")
    elif getattr(ch, "form", None) == "matrix":
        raise InvalidSpec(f"{mech.name!r} is a matrix channel: its weights live in a file (channel.file); "
                          "save them with numpy.save and point the spec at it")
    else:
        lines.append(f"density = {_q(_expr_text(ch.density, 'density', dict(syms, x=X, z=Z)))}")
    return "\n".join(lines) + "\n"
