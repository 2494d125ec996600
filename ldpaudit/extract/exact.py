"""Exact identities and short forms of the probabilities an extraction reads: exponentials of
one symbol written as powers of one variable (e^ε = T^2 when e^(ε/2) = T also occurs), then
rational functions, which are canonical."""
from __future__ import annotations

import math

import sympy as sp


def _as_powers(expr) -> tuple[dict, dict]:
    """The exponentials of one symbol in ``expr`` as powers of one positive variable per symbol
    (e^ε = T^2 when e^(ε/2) = T also occurs): the substitution, and the way back."""
    reps, back, by_symbol = {}, {}, {}
    for e in expr.atoms(sp.exp):
        coeff, rest = e.args[0].as_coeff_Mul()
        if rest.is_Symbol and coeff.is_Rational:
            by_symbol.setdefault(rest, []).append((e, coeff))
    for sym, items in by_symbol.items():
        lcm = math.lcm(*(int(c.q) for _, c in items))
        t = sp.Dummy(f"T_{sym}", positive=True)
        back[t] = sp.exp(sym / lcm)
        for e, c in items:
            reps[e] = t ** int(c * lcm)
    return reps, back


def tidy(expr):
    """A probability in a short exact form: exponentials of one symbol as powers of one
    variable (e^ε = T^2 when e^(ε/2) = T also occurs), cancelled and factored, then back."""
    expr = sp.sympify(expr)
    reps, back = _as_powers(expr)
    try:
        return sp.factor(sp.cancel(sp.together(expr.xreplace(reps)))).xreplace(back)
    except (sp.PolynomialError, TypeError, ValueError):
        return expr


def same(a, b) -> bool:
    """Exactly equal for every value of the symbols (exponentials of one symbol as powers of
    one variable, then rational cancellation; sympy's zero test when that is not enough)."""
    diff = sp.sympify(a) - sp.sympify(b)
    if diff == 0:
        return True
    reps, _ = _as_powers(diff)
    rational = diff.xreplace(reps)
    gens = sorted(rational.free_symbols, key=str)
    if gens:
        try:  # the field of rational functions in the symbols: exact and canonical, no simplification
            from sympy.polys.fields import field

            K = field(gens, sp.QQ)[0]
            if K.from_expr(rational) == K.zero:
                return True
        except (ValueError, TypeError, sp.PolynomialError, sp.polys.polyerrors.CoercionFailed):
            pass
    try:
        if sp.cancel(sp.together(rational)) == 0:
            return True
    except (sp.PolynomialError, TypeError, ValueError):
        pass
    from ldpaudit.mechanism.checks import is_zero

    return is_zero(diff) is True
