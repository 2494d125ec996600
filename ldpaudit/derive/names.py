"""Derived expressions printed as a paper prints them (issue 32, item 2): powers of e gathered
into one e^ε, the expression factored, and the spec's own definition names (p, q, b, C ...)
substituted back where a subexpression is one of them, each substitution checked exactly
(substituting the definitions again gives the derived expression: equal as rational functions
of e^ε and the parameters). The text of ``ldpaudit derive`` then reads

    sup_x Var(g(Z) | x) = (C + 1)*(...)/(...)
        where C = (e^(epsilon/2) + 1)/(e^(epsilon/2) - 1)

and machine-readable formats keep the expressions as derived."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce
from math import gcd, lcm

import sympy as sp

from ldpaudit.mechanism.describe import paper_text

#: a rewriting is printed when it is at most this fraction of the derived expression's length
_GAIN = 0.9
#: printed length past which a definition's name is worth a line of its own
_WORTH = 12


@dataclass(frozen=True)
class Names:
    """The spec's definitions ``[(symbol, expression in the parameters)]``, in file order, and
    ``forms``: derived expressions already written in a quantity the spec defines,
    ``{expression: (form, where text)}``, each proved equal to it (:mod:`ldpaudit.derive.kept`)."""

    definitions: tuple[tuple[sp.Symbol, sp.Basic], ...]
    forms: dict = field(default_factory=dict, compare=False, hash=False)

    def expression(self, symbol) -> sp.Basic:
        return dict(self.definitions)[symbol]


def spec_names(mech) -> Names | None:
    """The spec file's ``[definitions]`` with each one inlined (in the parameters, x and z);
    None when there are none (or the mechanism has no spec file)."""
    from ldpaudit.mechanism.names import spec_definitions

    found = spec_definitions(mech)
    if not found:
        return None
    full: list[tuple[sp.Symbol, sp.Basic]] = []
    for name, expr in found:
        expr = expr.xreplace(dict(full))
        full.append((sp.Symbol(name, real=True), expr))
    out = [(s, e) for s, e in full if len(paper_text(e)) >= _WORTH or e.has(sp.exp)]
    return Names(tuple(out)) if out else None


def _exp_generator(expr):
    """``(base, {exp(a): T**k})``: every exp(a) in ``expr`` is T**k for T = exp(base) with k an
    integer; None when the exponents are not rational multiples of one expression."""
    exps = [a for a in expr.atoms(sp.exp)]
    if not exps:
        return None
    first = exps[0].args[0]
    ratios = []
    for e in exps:
        r = sp.simplify(e.args[0] / first)
        if not r.is_Rational:
            return None
        ratios.append(sp.Rational(r))
    num = reduce(gcd, (int(r.p) for r in ratios))
    den = reduce(lcm, (int(r.q) for r in ratios))
    unit = sp.Rational(num, den)
    base = first * unit
    return base, {e: int(r / unit) for e, r in zip(exps, ratios)}


def _in_t(expr, t, base):
    gen = _exp_generator(expr)
    if gen is None:
        return None
    b, powers = gen
    if sp.simplify(b - base) != 0:
        ratio = sp.simplify(b / base)
        if not ratio.is_Integer:
            return None
        powers = {e: k * int(ratio) for e, k in powers.items()}
    return expr.xreplace({e: t ** k for e, k in powers.items()})


def _equal(a, b, t) -> bool:
    """Exact equality of two rational functions (of T = e^base and the parameters); False when
    sympy cannot tell (no substitution is then made)."""
    try:
        return sp.cancel(sp.together(a - b)) == 0
    except (sp.PolynomialError, TypeError, ValueError):
        return False


def in_names(expr, names: Names | None) -> tuple[sp.Basic, list[sp.Symbol]]:
    """``expr`` in the spec's names where that is shorter, with the names it uses; ``expr``
    itself (and no names) when nothing shorter is found or equality cannot be shown."""
    if not isinstance(expr, sp.Expr) or expr.is_number or not expr.has(sp.exp) and names is None:
        return expr, []
    gen = _exp_generator(expr)
    if gen is None:
        return expr, []
    base, _ = gen
    t = sp.Dummy("T", positive=True)
    body = _in_t(expr, t, base)
    if body is None or body.has(sp.exp):
        return expr, []
    back = {t: sp.exp(base)}
    best, best_len, used = expr, len(paper_text(expr)), []
    try:
        factored = sp.factor(body)
    except (sp.PolynomialError, TypeError, ValueError):
        factored = body
    candidates = [(factored, [])]
    x = next((s for s in body.free_symbols if s.name == "x"), None)
    if x is not None and body.is_Add:   # a polynomial in x: its coefficients factored, each
        try:
            parts = sp.collect(sp.expand(body), x, evaluate=False)
            candidates.append((sp.Add(*(sp.factor(c) * k for k, c in parts.items())), []))
        except (sp.PolynomialError, TypeError, ValueError):
            pass
    for sym, definition in (names.definitions if names else ()):
        d = _in_t(definition, t, base)
        if d is None or d.has(sp.exp) or d.has(sp.Symbol("x", real=True)) or d.has(sp.Symbol("z", real=True)):
            continue
        for form, uses in list(candidates):
            for pattern, value in ((sp.factor(d), sym), (sp.factor(1 / d), 1 / sym)):
                if pattern.is_Atom:
                    continue
                new = form.subs(pattern, value)
                if new != form and not any(a.base == sym and a.exp.is_negative for a in new.atoms(sp.Pow)):
                    candidates.append((new, uses + [sym]))
                    break
    for form, uses in candidates:
        printed = form.xreplace(back)
        n = len(paper_text(printed))
        if n < best_len * _GAIN:
            whole = form.xreplace({s: _in_t(names.expression(s), t, base) for s in uses}) if uses else form
            if _equal(whole, body, t):
                best, best_len, used = printed, n, uses
    return best, used


#: expressions printed shorter than this are printed as derived (no factoring tried)
_SHORT = 50
#: expressions with more operations than this are printed as derived (bounded work)
_MAX_OPS = 600


def equation_text(expr, names: Names | None) -> tuple[str, str]:
    """``(text, where)``: ``expr`` as a paper prints it (e^ε, factored, in the spec's names when
    shorter) and the ``where ...`` line of the names it uses ("" when none)."""
    from ldpaudit.render.text import human

    if not isinstance(expr, sp.Expr) or isinstance(expr, sp.MatrixBase):
        return human(expr), ""
    if names is not None and expr in names.forms:
        form, where = names.forms[expr]
        return paper_text(form), where
    plain = paper_text(expr)
    if len(plain) < _SHORT or sp.count_ops(expr) > _MAX_OPS:
        return plain, ""
    new, used = in_names(expr, names)
    return paper_text(new), (where_text(used, names) if used else "")


def where_text(used: list[sp.Symbol], names: Names) -> str:
    """``where b = ..., p = ...`` for the names an expression uses."""
    return "where " + ", ".join(f"{s} = {paper_text(names.expression(s))}" for s in used)


__all__ = ["Names", "equation_text", "in_names", "spec_names", "where_text"]
