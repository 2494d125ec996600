"""A mixture's or a vector channel's law as ``ldpaudit show`` prints it: piece by piece, in the
names the spec file defines (``p if l <= z <= r else ...`` with C, p, l, r under it), as densities
already are (:func:`ldpaudit.mechanism.describe.density_in_names`). The file is read again by the
same allow-list parser as the loader (nothing is evaluated); when it has no ``[definitions]`` the
channel's own (inlined) expressions are printed the same way."""

from __future__ import annotations

import sympy as sp

from ldpaudit.mechanism.describe import paper_text, piece_latex_lines, piece_lines


def _spec_names(mech):
    """``(parse, definitions)``: a parser of the file's channel fields in its definition names,
    and the definitions ``[(name, expr)]``, each in the parameters and the names above it; None
    when the mechanism has no spec file or no ``[definitions]``."""
    import tomllib
    from pathlib import Path

    from ldpaudit.mechanism.expr import parse_expression
    from ldpaudit.mechanism.params import X, Y, Z
    from ldpaudit.mechanism.vector import T, V

    path = getattr(mech, "spec_path", None)
    if not path:
        return None
    try:
        doc = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    raw = doc.get("definitions")
    if not isinstance(raw, dict) or not raw:
        return None
    scope = {**{p.name: p.symbol for p in mech.parameters}, "x": X, "z": Z, "y": Y, "v": V, "t": T}
    scope.update({k: sp.sympify(v) for k, v in mech.bindings})
    definitions = []
    try:
        for name, value in raw.items():
            definitions.append((name, parse_expression(value, scope, field=f"definitions.{name}")))
            scope[name] = sp.Symbol(name, real=True)
    except Exception:  # the loader accepted the file; if it changed since, print the inlined form
        return None

    def parse(text, field):
        return parse_expression(text, scope, field=field)

    return doc.get("channel") or {}, parse, definitions


def spec_definitions(mech) -> list[tuple[str, sp.Basic]]:
    """The spec file's ``[definitions]`` ``[(name, expr)]``, each in the parameters, x, z and
    the names above it (as symbols); empty when there are none."""
    named = _spec_names(mech)
    return [] if named is None else list(named[2])


def breakpoint_texts(mech, breakpoints) -> list[str]:
    """Each breakpoint in z of a density channel as people read it: in the spec's names where it is
    one of the file's own condition sides (``x - b``, ``x + b``, ``-b``, ``1 + b`` of ``|z - x| <= b``
    and ``-b <= z <= 1 + b``), checked equal exactly; otherwise as derived, e^ε written e^epsilon."""
    from ldpaudit.mechanism.describe import _pieces, _z_bound, density_in_names

    out = [paper_text(b) for b in breakpoints]
    named = density_in_names(mech)
    if named is None:
        return out
    density, definitions = named
    sides = []
    for _, cond in _pieces(density):
        for rel in (cond.atoms(sp.core.relational.Relational) if isinstance(cond, sp.Basic) else ()):
            bound = _z_bound(rel)
            if bound is not None:
                sides.append(bound[1])
            for a in rel.atoms(sp.Abs):   # |z - c| <= w: the sides c - w and c + w
                from ldpaudit.mechanism.params import Z

                inner, other = a.args[0], (rel.rhs if rel.lhs == a else rel.lhs)
                k = sp.expand(inner).coeff(Z)
                if k in (1, -1) and not other.has(Z):
                    c = -sp.expand(inner - k * Z) * k
                    sides.extend([c - other, c + other])
    inline = {}
    for name, expr in definitions:
        inline[sp.Symbol(name, real=True)] = expr.xreplace(inline)
    for i, b in enumerate(breakpoints):
        for side in sides:
            full = side.xreplace(inline)
            if _same(full, b, mech):
                out[i] = paper_text(side)
                break
    return out


def _same(a, b, mech) -> bool:
    """Exactly equal: first compared at an exact sample point (cheap), then by sympy."""
    from ldpaudit.mechanism.params import X

    point = {p.symbol: sp.Integer(1) + sp.Rational(i, 7) for i, p in enumerate(mech.parameters)}
    point[X] = sp.Rational(1, 3)
    try:
        if abs(sp.N((a - b).xreplace(point), 30)) > sp.Float("1e-20"):
            return False
        return sp.simplify(a - b) == 0
    except (TypeError, ValueError):
        return False


def channel_lines_in_names(mech) -> list[str] | None:
    """``show``'s lines for a mixture, signs or coordinates channel, each law piece by piece in
    the spec's names with the definitions under it; None for the other forms."""
    ch = mech.channel
    form = getattr(ch, "form", None)
    if form not in ("mixture", "signs", "coordinates"):
        return None
    named = _spec_names(mech)
    try:
        if named is None:
            lines = _lines(ch, None, None)
            definitions = []
        else:
            table, parse, definitions = named
            lines = _lines(ch, table, parse)
    except Exception:  # a field not as the loader read it: the inlined form
        lines, definitions = _lines(ch, None, None), []
    if definitions:
        lines.append("where")
        lines.extend(f"  {name} = {paper_text(expr)}" for name, expr in definitions)
    return lines


def _field(ch, table, parse, name, field):
    """The field ``name`` of the channel: in the spec's names when ``table`` is given."""
    if table is None or not isinstance(table.get(name), (str, int)):
        return getattr(ch, name)
    return parse(table[name], field)


def _lines(ch, table, parse, where="channel") -> list[str]:
    form = getattr(ch, "form", None)
    if form == "mixture":
        return _mixture_lines(ch, table, parse, where)
    if form == "signs":
        latent = _field(ch, table, parse, "latent", f"{where}.latent")
        entry = _field(ch, table, parse, "entry", f"{where}.entry")
        scale = _field(ch, table, parse, "scale", f"{where}.scale")
        return [f"latent sign v_j in {{-1, 1}}: P(v_j = v | x_j = x) = {paper_text(latent)}",
                "sign vector s in {-1, 1}^d with t = <s, v>:",
                *(f"  {line}" for line in piece_lines(entry, head="P(s | v)")),
                f"report: {paper_text(scale)} * s"]
    if form == "coordinates":
        sub = None if table is None else table.get("coordinate")
        sampled = _field(ch, table, parse, "sampled", f"{where}.sampled")
        scale = _field(ch, table, parse, "scale", f"{where}.scale")
        return [f"{paper_text(sampled)} of the d coordinates sampled uniformly; the others reported as 0",
                f"each sampled x_j reported as t_j = {paper_text(scale)} * z, z drawn at x = x_j from",
                *(f"  {line}" for line in _lines(ch.coordinate, sub if isinstance(sub, dict) else None, parse,
                                                 f"{where}.coordinate"))]
    # one scalar law: a density or atoms
    if getattr(ch, "density", None) is not None:
        return piece_lines(_field(ch, table, parse, "density", f"{where}.density"))
    entry = _field(ch, table, parse, "entry", f"{where}.entry")
    return [f"Q(y|x) = {paper_text(entry)}, y in {{{', '.join(map(str, ch.outputs))}}}"]


def _mixture_lines(ch, table, parse, where) -> list[str]:
    raw = None if table is None else table.get("components")
    lines = [f"component i of {len(ch.components)} reports with probability w_i (free of x):"]
    for i, c in enumerate(ch.components):
        comp = raw[i] if isinstance(raw, list) and i < len(raw) and isinstance(raw[i], dict) else None
        field = f"{where}.components[{i}]"
        weight = paper_text(_field(c, comp, parse, "weight", f"{field}.weight"))
        if c.kind == "density":
            lines.append(f"[{i}] w = {weight}: density")
            lines.extend(f"      {line}" for line in piece_lines(_field(c, comp, parse, "density", f"{field}.density")))
        else:
            at = _field(c, comp, parse, "at", f"{field}.at")
            entry = _field(c, comp, parse, "entry", f"{field}.entry")
            lines.append(f"[{i}] w = {weight}: atoms z = {paper_text(at)} for y in {{{', '.join(map(str, c.outputs))}}},")
            lines.append(f"      Q(y|x) = {paper_text(entry)}")
    return lines


def channel_latex_in_names(mech) -> list[str] | None:
    """``show``'s LaTeX lines for a mixture, signs or coordinates channel, as
    :func:`channel_lines_in_names` prints its text: each law piece by piece (one line a piece of
    a ``cases``), in the spec's names, the definitions under it; None for the other forms."""
    ch = mech.channel
    if getattr(ch, "form", None) not in ("mixture", "signs", "coordinates"):
        return None
    named = _spec_names(mech)
    try:
        if named is None:
            lines, definitions = _latex_lines(ch, None, None), []
        else:
            table, parse, definitions = named
            lines = _latex_lines(ch, table, parse)
    except Exception:  # a field not as the loader read it: the inlined form
        lines, definitions = _latex_lines(ch, None, None), []
    return lines + [f"{_latex(sp.Symbol(name, real=True))} = {_latex(expr)}" for name, expr in definitions]


def _latex(expr) -> str:
    r"""``sympy.latex`` with a name of several letters in italics as one word (``\mathit{keep}``,
    not sympy's ``keep``, which TeX sets as the product k e e p); Greek and subscripted names as
    sympy writes them (``\beta``, ``e_{1}``)."""
    names = {s: rf"\mathit{{{s.name}}}" for s in getattr(expr, "free_symbols", ())
             if len(s.name) > 1 and s.name.isalpha() and sp.latex(s) == s.name}
    return sp.latex(expr, symbol_names=names) if names else sp.latex(expr)


def _latex_lines(ch, table, parse, where="channel") -> list[str]:
    latex = _latex
    form = getattr(ch, "form", None)
    if form == "mixture":
        raw = None if table is None else table.get("components")
        lines = []
        for i, c in enumerate(ch.components):
            comp = raw[i] if isinstance(raw, list) and i < len(raw) and isinstance(raw[i], dict) else None
            field = f"{where}.components[{i}]"
            weight = f"w_{{{i}}} = {latex(_field(c, comp, parse, 'weight', f'{field}.weight'))}:\\quad "
            if c.kind == "density":
                law = piece_latex_lines(_field(c, comp, parse, "density", f"{field}.density"), latex=latex)
                lines += [weight + law[0], *law[1:]]
            else:
                at = latex(_field(c, comp, parse, "at", f"{field}.at"))
                entry = latex(_field(c, comp, parse, "entry", f"{field}.entry"))
                outputs = ", ".join(map(str, c.outputs))
                lines.append(f"{weight}Q(y \\mid x) = {entry} \\text{{ at }} z = {at},\\ y \\in \\{{{outputs}\\}}")
        return lines
    if form == "signs":
        latent = _field(ch, table, parse, "latent", f"{where}.latent")
        entry = _field(ch, table, parse, "entry", f"{where}.entry")
        scale = _field(ch, table, parse, "scale", f"{where}.scale")
        return [f"P(v_j = v \\mid x_j = x) = {latex(latent)}",
                r"t = \langle s, v \rangle,\ s \in \{-1, 1\}^d",
                *piece_latex_lines(entry, head=r"P(s \mid v)", latex=latex),
                f"z = {latex(scale)}\\, s"]
    if form == "coordinates":
        sub = None if table is None else table.get("coordinate")
        sampled = _field(ch, table, parse, "sampled", f"{where}.sampled")
        scale = _field(ch, table, parse, "scale", f"{where}.scale")
        return [f"t_j = {latex(scale)}\\, z_j \\text{{ on }} {latex(sampled)} \\text{{ of the }} d "
                r"\text{ coordinates (sampled uniformly), } t_j = 0 \text{ on the others}",
                r"z_j \text{ drawn at } x = x_j \text{ from}",
                *_latex_lines(ch.coordinate, sub if isinstance(sub, dict) else None, parse, f"{where}.coordinate")]
    if getattr(ch, "density", None) is not None:
        return piece_latex_lines(_field(ch, table, parse, "density", f"{where}.density"), latex=latex)
    entry = _field(ch, table, parse, "entry", f"{where}.entry")
    return [f"Q(y \\mid x) = {latex(entry)},\\ y \\in \\{{{', '.join(map(str, ch.outputs))}\\}}"]


__all__ = ["breakpoint_texts", "channel_latex_in_names", "channel_lines_in_names", "spec_definitions"]
