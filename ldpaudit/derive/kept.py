"""A derivation printed in a quantity the spec defines of the parameters (issue 32): Square Wave
written the paper's way has b = (ε e^ε - e^ε + 1)/(2 e^ε (e^ε - 1 - ε)) in its ``[definitions]``,
and its worst-case variance, derived with b inlined, prints in some 600 characters. Derived again
with b a parameter of its own (the file read again, :mod:`ldpaudit.mechanism.kept`), it is

    sup_x Var(g(Z) | x) = (16*b**4*e^(2*epsilon) + 32*b**3*e^epsilon + ...)/(48*b**2*(e^epsilon - 1)**2)
        where b = ...

Nothing of the second derivation is taken on trust: each of its expressions, with b (and every
other name it prints) substituted back, is proved equal to the expression the first derivation
derived before it is printed (:func:`proved_equal`); an expression not shown equal is printed
as derived. Machine-readable formats keep the derived expressions."""

from __future__ import annotations

import sympy as sp

from ldpaudit.derive.algebra import to_exp_base
from ldpaudit.derive.names import _GAIN, Names, in_names
from ldpaudit.mechanism.describe import paper_text

#: exact sample values of a positive symbol, for the sign of an expression with square roots
_POSITIVE = (sp.Rational(1, 3), sp.Rational(1, 2), sp.Integer(1), sp.Integer(2), sp.Rational(7, 2), sp.Integer(5))
#: operations past which an expression is left as derived (bounded work)
_MAX_OPS = 2000


def kept_derivation(mech, model: str):
    """``(derivation, {symbol: value})``: ``mech`` derived again with the quantities of
    :func:`ldpaudit.mechanism.kept.kept_definitions` as parameters, and each such parameter's
    symbol with its definition in ``mech``'s parameters; None when there is none, or the spec
    does not read again with them as parameters, or the second derivation fails."""
    from ldpaudit.derive.derivation import derive
    from ldpaudit.errors import LdpAuditError
    from ldpaudit.mechanism.kept import kept_definitions, with_definitions_as_parameters
    from ldpaudit.mechanism.names import spec_definitions

    kept = kept_definitions(mech)
    if not kept:
        return None
    again = with_definitions_as_parameters(mech, kept)
    if again is None:
        return None
    inline: dict = {}
    for name, expr in spec_definitions(mech):
        inline[sp.Symbol(name, real=True)] = expr.xreplace(inline)
    values = {again.symbols[k]: inline[sp.Symbol(k, real=True)] for k in kept}
    try:
        return derive(again, model=model), values
    except (LdpAuditError, ValueError, TypeError, ArithmeticError, NotImplementedError):
        return None


def _kept_names(mech, values: dict) -> Names:
    """The spec's other definitions, each in the parameters and the kept symbols (q = 1/(2 b e^ε
    + 1) with b kept), as :func:`ldpaudit.derive.names.in_names` substitutes them."""
    from ldpaudit.derive.names import _WORTH
    from ldpaudit.mechanism.names import spec_definitions

    kept = {s.name: s for s in values}
    inline: dict = {sp.Symbol(k, real=True): s for k, s in kept.items()}
    out = []
    for name, expr in spec_definitions(mech):
        sym = sp.Symbol(name, real=True)
        if name in kept:
            continue
        inline[sym] = expr.xreplace(inline)
        if len(paper_text(inline[sym])) >= _WORTH or inline[sym].has(sp.exp):
            out.append((sym, inline[sym]))
    return Names(tuple(out))


def proved_equal(a: sp.Basic, b: sp.Basic) -> bool:
    """Whether ``a = b`` is shown exactly. With every e^(kε) a power of one T = e^(ε/L), both are
    rational functions of T and the symbols: equal when the difference cancels to 0. With square
    roots (a worst-case absolute error), their squares must cancel so, and then a = ±b, the sign
    compared at exact sample points of the symbols (the same nonzero sign at each, at least two).
    False when it is not shown (then nothing is substituted)."""
    try:
        if sp.count_ops(a) + sp.count_ops(b) > _MAX_OPS:
            return False
        if _cancels(a - b):
            return True
        roots = [p for p in (a - b).atoms(sp.Pow) if not p.exp.is_Integer]
        if not roots or not _cancels(a**2 - b**2):
            return False
        return _same_sign(a, b)
    except (sp.PolynomialError, TypeError, ValueError, ZeroDivisionError, NotImplementedError):
        return False


def _cancels(d: sp.Basic) -> bool:
    d_u, _ = to_exp_base(sp.sympify(d))
    if d_u.has(sp.exp):
        return False
    return sp.cancel(sp.together(d_u)) == 0


def _same_sign(a: sp.Basic, b: sp.Basic) -> bool:
    symbols = sorted((a - b).free_symbols, key=str)
    agree = 0
    for i in range(len(_POSITIVE)):
        point = {s: (_POSITIVE[(i + j) % len(_POSITIVE)] if not s.is_integer else sp.Integer(2 + i + j))
                 for j, s in enumerate(symbols)}
        va, vb = (complex(sp.N(e.xreplace(point), 30)) for e in (a, b))
        if abs(va.imag) > 1e-20 or abs(vb.imag) > 1e-20 or abs(va.real) < 1e-20 or abs(vb.real) < 1e-20:
            continue   # outside the admissible region, or a zero: says nothing of the sign
        if (va.real > 0) != (vb.real > 0):
            return False
        agree += 1
    return agree >= 2


def kept_forms(dv, again, mech) -> dict:
    """``{derived expression: (form in the kept names, where text)}`` for the equations of ``dv``
    whose twin in the kept derivation ``again = (derivation, values)`` prints shorter in the
    kept names, each form proved equal to the derived expression (:func:`proved_equal`)."""
    kept_dv, values = again
    other = _kept_names(mech, values)
    inline = {s: e.xreplace(values) for s, e in other.definitions}
    twins = {(s.title, e.lhs): e.expr for s in kept_dv.steps for e in s.equations}
    forms: dict = {}
    for step in dv.steps:
        for eq in step.equations:
            twin = twins.get((step.title, eq.lhs))
            if twin is None or not isinstance(twin, sp.Expr) or not twin.has(*values) or eq.expr in forms:
                continue
            form, used = in_names(twin, other)
            shown = paper_text(form)
            if len(shown) >= len(paper_text(eq.expr)) * _GAIN:
                continue
            if not proved_equal(form.xreplace(inline).xreplace(values), eq.expr):
                continue
            forms[eq.expr] = (form, _where(form, used, other, values, mech))
    return forms


def with_kept_forms(names: Names | None, dv, again, mech) -> Names | None:
    """``names`` with the forms :func:`kept_forms` proves (``names`` itself when none)."""
    from dataclasses import replace

    forms = kept_forms(dv, again, mech) if again is not None else {}
    if not forms:
        return names
    return replace(names if names is not None else Names(()), forms=forms)


def _definition_text(expr: sp.Basic) -> str:
    """A kept quantity's definition as a paper prints it: factored in u = e^(ε/L) (checked equal),
    u printed e^epsilon where it appears only to the power ±1 (``(epsilon*e^epsilon - e^epsilon +
    1)/(2*e^epsilon*(-epsilon + e^epsilon - 1))``, not sympy's ``...*e^(-epsilon)/(2*(...))``)."""
    expr_u, back = to_exp_base(expr)
    if not back:
        return paper_text(expr)
    ((u, power),) = back.items()
    try:
        others = sorted(expr_u.free_symbols - {u}, key=str)   # u leads: its terms' signs positive
        factored = sp.factor(sp.cancel(sp.together(expr_u)), u, *others)
    except (sp.PolynomialError, TypeError, ValueError):
        return paper_text(expr)
    if not proved_equal(factored.xreplace(back), expr):
        return paper_text(expr)
    if factored.has(sp.exp) or any(p.base == u and p.exp not in (1, -1) for p in factored.atoms(sp.Pow)):
        return paper_text(factored.xreplace(back))
    mark = sp.Dummy("u", positive=True)   # printed as a name sorts after ε, then written e^ε
    text = paper_text(factored.xreplace({u: sp.Symbol(f"u_{mark.dummy_index}_", positive=True)}))
    return text.replace(f"u_{mark.dummy_index}_", paper_text(power))


def _where(form, used, other: Names, values: dict, mech) -> str:
    """``where b = ..., q = ...``: the kept quantities and the names the form uses, in the spec
    file's order, each in the parameters and the kept names."""
    from ldpaudit.mechanism.names import spec_definitions

    shown = {s: _definition_text(e) for s, e in values.items()}
    shown.update({s: paper_text(other.expression(s)) for s in used})
    wanted = (form.free_symbols | {a for s in used for a in other.expression(s).free_symbols}) & set(shown)
    order = [n for n, _ in spec_definitions(mech)]
    rank = {s: order.index(s.name) if s.name in order else len(order) for s in wanted}
    return "where " + ", ".join(f"{s} = {shown[s]}" for s in sorted(wanted, key=lambda s: (rank[s], s.name)))


__all__ = ["kept_derivation", "kept_forms", "proved_equal", "with_kept_forms"]
