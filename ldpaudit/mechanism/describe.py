"""What a channel says, for people and programs: the JSON-able description of ``ldpaudit show
--json`` and the LaTeX lines of ``ldpaudit show``, shared by ``show`` and the notebook display
of a :class:`~ldpaudit.mechanism.core.Mechanism`. Imports the channel forms, never ``core``
(core's ``_repr_markdown_`` imports this module)."""

from __future__ import annotations

import sympy as sp

from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.explicit import ExplicitChannel
from ldpaudit.mechanism.product import ProductChannel
from ldpaudit.mechanism.realinput import RealInputChannel
from ldpaudit.mechanism.spaces import CohortSpace, SubsetSpace
from ldpaudit.mechanism.structured import StructuredChannel


def describe_channel(mech) -> dict:
    """A JSON-able description of the channel (stable schema)."""
    ch = mech.channel
    out: dict = {"form": ch.form}
    if hasattr(ch, "describe_fields"):  # forms that describe themselves (vector inputs)
        out.update(ch.describe_fields())
    elif isinstance(ch, ExplicitChannel):
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
            if space.hash_table is not None:
                out["outputs"]["hash"] = [list(r) for r in space.hash_table]
            else:
                out["outputs"]["family"] = {"name": space.family.name, "seed": space.family.seed,
                                            "cohorts": str(space.C)}
        if isinstance(space, SubsetSpace):
            out["outputs"]["k"] = str(space.k)
    elif isinstance(ch, ProductChannel):
        def law(l):
            if l.density is not None:
                return {"density": str(l.density), "latex": sp.latex(l.density)}
            return {"values": {str(v): str(p) for v, p in l.probabilities},
                    "latex": {str(v): sp.latex(p) for v, p in l.probabilities}}
        out.update(coordinates=str(ch.coordinates), on=law(ch.on), off=law(ch.off))
    elif getattr(ch, "form", None) == "bloom":
        out.update(cohorts=str(ch.cohorts), k=str(ch.k), hashes=str(ch.hashes), description=ch.describe(),
                   hash=None if ch.table is None else [[list(r) for r in rows] for rows in ch.table],
                   family=None if ch.family is None else {"name": ch.family.name, "seed": ch.family.seed},
                   on={str(v): str(p) for v, p in ch.on.probabilities},
                   off={str(v): str(p) for v, p in ch.off.probabilities})
    elif getattr(ch, "form", None) == "mixture":
        out["components"] = [
            {"weight": str(c.weight), "weight_latex": sp.latex(c.weight), "kind": c.kind,
             **({"density": str(c.density), "latex": sp.latex(c.density)} if c.kind == "density" else
                {"outputs": [str(y) for y in c.outputs], "entry": str(c.entry), "latex": sp.latex(c.entry),
                 "at": str(c.at)})}
            for c in ch.components]
    elif isinstance(ch, DensityChannel):
        out.update(density=str(ch.density), latex=sp.latex(ch.density))
    elif isinstance(ch, RealInputChannel):
        out.update(layout=ch.layout, outputs=[str(y) for y in ch.outputs], entry=str(ch.entry), latex=sp.latex(ch.entry))
        if ch.classes:
            out["classes"] = [{"name": c.name, "when": c.condition, "count": str(c.count), "weight": str(c.weight),
                               "latex": sp.latex(c.weight)} for c in ch.classes]
    return out


def channel_latex_lines(ch) -> list[str]:
    """The channel's formulas in LaTeX, one per line (``ldpaudit show``'s LaTeX section)."""
    if hasattr(ch, "latex_lines"):
        return list(ch.latex_lines())
    if isinstance(ch, ExplicitChannel):
        return [f"Q = {sp.latex(ch.to_sympy_matrix())}"]
    if isinstance(ch, StructuredChannel):
        return [f"Q(y \\mid x) = {sp.latex(c.weight)} \\quad \\text{{if }} {c.condition}" for c in ch.classes]
    if isinstance(ch, RealInputChannel):
        return [f"Q(y \\mid x) = {sp.latex(ch.entry)}"]
    if getattr(ch, "form", None) == "bloom":
        return [f"Q((c, y) \\mid x) = \\frac{{1}}{{{sp.latex(ch.cohorts)}}} \\prod_b P_{{b \\in B_c(x)}}(y_b)"]
    if getattr(ch, "form", None) == "mixture":
        return [(f"w_{{{i}}} = {sp.latex(c.weight)}:\\quad " +
                 (f"f(z \\mid x) = {sp.latex(c.density)}" if c.kind == "density" else
                  f"Q(y \\mid x) = {sp.latex(c.entry)} \\text{{ at }} z = {sp.latex(c.at)}"))
                for i, c in enumerate(ch.components)]
    if isinstance(ch, ProductChannel):
        lines = []
        for side, l in (("j = x", ch.on), ("j \\ne x", ch.off)):
            body = sp.latex(l.density) if l.density is not None else ", ".join(
                f"P({v}) = {sp.latex(p)}" for v, p in l.probabilities)
            lines.append(f"{side}: {body}")
        return lines
    return [f"f(z \\mid x) = {sp.latex(ch.density)}"]


# --- a density as the paper prints it ----------------------------------------------------------


def density_in_names(mech):
    """``(density, definitions)`` in the names the spec file uses (``p if l <= z <= r else ...``
    with C, p, l, r under it), read again from the file by the same allow-list parser (nothing is
    evaluated); None when the mechanism has no spec file or no ``[definitions]``. Each definition
    is in the parameters, x, z and the definitions above it."""
    import tomllib
    from pathlib import Path

    from ldpaudit.mechanism.expr import parse_expression
    from ldpaudit.mechanism.params import X, Z

    path = getattr(mech, "spec_path", None)
    if not path:
        return None
    try:
        doc = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    raw = doc.get("definitions")
    text = (doc.get("channel") or {}).get("density")
    if not isinstance(raw, dict) or not raw or not isinstance(text, str):
        return None
    scope = {**{p.name: p.symbol for p in mech.parameters}, "x": X, "z": Z}
    scope.update({k: sp.sympify(v) for k, v in mech.bindings})
    names = {}
    definitions = []
    try:
        for name, value in raw.items():
            expr = parse_expression(value, {**scope, **names}, field=f"definitions.{name}")
            definitions.append((name, expr))
            names[name] = sp.Symbol(name, real=True)
        density = parse_expression(text, {**scope, **names}, field="channel.density")
    except Exception:  # the loader accepted the file; if it changed since, show the inlined form
        return None
    return density, definitions


def piece_lines(expr, head: str = "f(z|x)") -> list[str]:
    """``f(z|x) = value   if condition`` one piece a line, the first that holds applies (a nested
    ``a if c else b`` flattened in order), conditions on z written ``lo <= z <= hi``; ``head``
    names the left side (``P(s | v)`` for a signs channel's entry)."""
    for_people = paper_text
    pieces = _pieces(expr)
    if len(pieces) == 1:
        return [f"{head} = {for_people(pieces[0][0])}"]
    values = [for_people(v) for v, _ in pieces]
    wide = max(len(v) for v in values)
    out = []
    for i, (value, (_, cond)) in enumerate(zip(values, pieces)):
        lead = f"{head} = " if i == 0 else " " * len(f"{head} = ")
        if cond is sp.true or cond is True:
            when = "otherwise"
        else:
            when = ("if " if i == 0 else "else if ") + _condition_text(cond)
        out.append(f"{lead}{value.ljust(wide)}   {when}")
    return out


def piece_latex_lines(expr, head: str = r"f(z \mid x)", latex=sp.latex) -> list[str]:
    r"""The LaTeX twin of :func:`piece_lines`: ``head = \begin{cases}``, then one piece a line
    (``value & \text{if } l \le z \le r \\``; the first that holds applies), then
    ``\end{cases}``; one line ``head = value`` when there is one piece. ``latex`` prints an
    expression (``sympy.latex`` unless given)."""
    pieces = _pieces(expr)
    if len(pieces) == 1:
        return [f"{head} = {latex(pieces[0][0])}"]
    out = [f"{head} = \\begin{{cases}}"]
    for i, (value, cond) in enumerate(pieces):
        if cond is sp.true or cond is True:
            when = r"\text{otherwise}"
        else:
            when = (r"\text{if } " if i == 0 else r"\text{else if } ") + _condition_latex(cond, latex)
        out.append(f"  {latex(value)} & {when}" + (r" \\" if i < len(pieces) - 1 else ""))
    return out + [r"\end{cases}"]


def _condition_latex(cond, latex) -> str:
    r"""The LaTeX twin of :func:`_condition_text`: ``l \le z \le r``, ``\wedge``, ``\vee``."""
    ops = {"<": "<", "<=": r"\le", ">": ">", ">=": r"\ge"}
    if isinstance(cond, sp.And):
        lower, upper, rest = _band(cond)
        parts = [_condition_latex(a, latex) for a in rest]
        if lower and upper:
            flip = lower[0].replace(">", "<")
            parts.insert(0, f"{latex(lower[1])} {ops[flip]} z {ops[upper[0]]} {latex(upper[1])}")
        else:
            parts[:0] = [f"z {ops[b[0]]} {latex(b[1])}" for b in (lower, upper) if b]
        return r" \wedge ".join(parts)
    if isinstance(cond, sp.Or):
        return r" \vee ".join(f"({_condition_latex(a, latex)})" for a in cond.args)
    bound = _z_bound(cond)
    if bound is not None:
        return f"z {ops[bound[0]]} {latex(bound[1])}"
    if isinstance(cond, sp.core.relational.Relational) and cond.rel_op in ops:
        lhs, rhs, op = cond.lhs, cond.rhs, cond.rel_op
        if isinstance(rhs, sp.Abs) and op in (">=", ">"):   # b >= |x - z|: |x - z| <= b
            lhs, rhs, op = rhs, lhs, op.replace(">", "<")
        return f"{latex(lhs)} {ops[op]} {latex(rhs)}"
    return latex(cond)


def _pieces(expr) -> list[tuple]:
    if not isinstance(expr, sp.Piecewise):
        return [(expr, sp.true)]
    out = []
    for value, cond in expr.args:
        if isinstance(value, sp.Piecewise) and (cond is sp.true or cond is True):
            out.extend(_pieces(value))
        elif isinstance(value, sp.Piecewise):
            out.extend((v, sp.And(cond, c)) for v, c in _pieces(value))
        else:
            out.append((value, cond))
    return out


def _band(cond: sp.And) -> tuple:
    """A conjunction's first lower and first upper bound on z (``(op, value)`` or None) and the
    rest of its terms: the band ``l <= z <= r`` the text and LaTeX forms print first."""
    lower = upper = None
    rest = []
    for a in cond.args:
        bound = _z_bound(a)
        if bound is not None and bound[0] in (">", ">=") and lower is None:
            lower = bound
        elif bound is not None and bound[0] in ("<", "<=") and upper is None:
            upper = bound
        else:
            rest.append(a)
    return lower, upper, rest


def _condition_text(cond) -> str:
    """``l <= z <= r`` for a band in z, ``|x - z| <= b``, ``and``/``or`` in words."""
    if isinstance(cond, sp.And):
        lower, upper, rest = _band(cond)
        parts = [_condition_text(a) for a in rest]
        if lower and upper:
            parts.insert(0, f"{paper_text(lower[1])} {lower[0].replace('>', '<')} z {upper[0]} {paper_text(upper[1])}")
        else:
            parts[:0] = [f"z {b[0]} {paper_text(b[1])}" for b in (lower, upper) if b]
        return " and ".join(parts)
    if isinstance(cond, sp.Or):
        return " or ".join(f"({_condition_text(a)})" for a in cond.args)
    if isinstance(cond, sp.Not):
        return f"not ({_condition_text(cond.args[0])})"
    bound = _z_bound(cond)
    if bound is not None:
        return f"z {bound[0]} {paper_text(bound[1])}"
    if isinstance(cond, sp.core.relational.Relational):
        lhs, rhs, op = cond.lhs, cond.rhs, cond.rel_op
        if isinstance(rhs, sp.Abs) and op in (">=", ">"):   # b >= |x - z|: |x - z| <= b
            lhs, rhs, op = rhs, lhs, op.replace(">", "<")
        return f"{paper_text(lhs)} {op} {paper_text(rhs)}"
    return paper_text(cond)


def _z_bound(rel) -> tuple[str, sp.Basic] | None:
    """``(op, bound)`` when ``rel`` is ``z op bound`` in disguise (``r >= z``, ``C >= -z``)."""
    from ldpaudit.mechanism.params import Z

    if not isinstance(rel, sp.core.relational.Relational) or rel.rel_op not in ("<", "<=", ">", ">="):
        return None
    d = sp.expand(rel.lhs - rel.rhs)
    k = d.coeff(Z)
    rest = sp.expand(d - k * Z)
    if k not in (1, -1) or rest.has(Z):
        return None
    op = rel.rel_op
    if k == -1:   # -z + rest op 0  <=>  z op' rest
        op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
        return op, rest
    return op, -rest


def paper_text(expr) -> str:
    """An expression as a paper prints it in plain text: e^ε-style powers of e (``e^epsilon``,
    ``e^(epsilon/2)``), ``|x - z|`` for absolute values, ``e`` for Euler's number."""
    from sympy.printing.precedence import PRECEDENCE
    from sympy.printing.str import StrPrinter

    class _Paper(StrPrinter):
        def _print_Exp1(self, e):
            return "e"

        def _print_exp(self, e):
            arg = e.args[0]
            text = self._print(arg)
            simple = arg.is_Symbol or arg.is_Integer and arg >= 0
            return f"e^{text}" if simple else f"e^({text})"

        def _print_Abs(self, e):
            return f"|{self._print(e.args[0])}|"

        def _print_Pow(self, e, rational=False):
            if e.base is sp.E:
                return self._print_exp(sp.exp(e.exp, evaluate=False))
            return super()._print_Pow(e, rational)

    _ = PRECEDENCE
    return _Paper().doprint(expr)
