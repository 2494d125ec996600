"""Quantities that solve for a variable: written as calls in a manifest, each names one variable
(a mechanism parameter such as ``g`` or ``beta``, or ``epsilon``) that its first argument is
taken in, symbolically, with every other symbol bound by the row::

    at(olh.variance, g, 4)                  # the expression with g = 4
    minimizer(olh.variance, g)              # the g > 0 where it is least (a stationary point)
    integer_minimizer(olh.variance, g)      # floor or ceil of that, whichever is smaller exactly
    crossing(pm.l2_worst, duchi.l2_worst, epsilon)   # the ε > 0 where the two are equal
    switch_point(hm.optimal_beta_l2, epsilon)        # where a piecewise quantity changes branch

Every value is derived, never looked up: ``crossing`` solves exactly in e^(ε/L)
(:func:`ldpaudit.derive.exproots.crossings`: an algebraic root with a rational isolating
interval); ``minimizer`` solves dE/dv = 0 exactly when sympy can, and otherwise finds the one
sign change of dE/dv from - to + and certifies a bracket of width 1e-25 around the root by the
exact sign of the derivative at its two rational ends (each evaluated to 60 digits)."""

from __future__ import annotations

import math

import sympy as sp

from ldpaudit.errors import InvalidSpec, Undecided


class At(sp.Function):
    """``at(E, v, value)``: E with the variable v set to value."""

    nargs = 3


class Crossing(sp.Function):
    """``crossing(A, B, v)``: the one v > 0 where A = B (A - B changes sign there)."""

    nargs = 3


class Minimizer(sp.Function):
    """``minimizer(E, v)``: the one v > 0 where E is least (dE/dv = 0, from - to +)."""

    nargs = 2


class IntegerMinimizer(sp.Function):
    """``integer_minimizer(E, v)``: floor or ceil of minimizer(E, v), the smaller E exactly."""

    nargs = 2


class SwitchPoint(sp.Function):
    """``switch_point(E, v)``: the v where the piecewise expression E changes branch."""

    nargs = 2


CALLS = {"at": (At, 3), "crossing": (Crossing, 3), "minimizer": (Minimizer, 2),
         "integer_minimizer": (IntegerMinimizer, 2), "switch_point": (SwitchPoint, 2)}
CALL_TYPES = (At, Crossing, Minimizer, IntegerMinimizer, SwitchPoint)
#: the position of the variable among each call's arguments
VARIABLE = {At: 1, Crossing: 2, Minimizer: 1, IntegerMinimizer: 1, SwitchPoint: 1}
DIGITS = 60


def variable(node) -> str:
    v = node.args[VARIABLE[type(node)]]
    if not isinstance(v, sp.Symbol):
        raise InvalidSpec(f"{name_of(node)}(): its variable must be a name (such as g or epsilon), got {sp.sstr(v)}")
    return v.name


def name_of(node) -> str:
    return next(k for k, (cls, _) in CALLS.items() if isinstance(node, cls))


def free_symbol(name: str) -> sp.Symbol:
    """The one symbol a variable is taken in, whatever assumptions the specs gave theirs."""
    return sp.Symbol(name, positive=True)


def solve_call(node, evaluate, field: str) -> sp.Basic:
    """The value of a solving call. ``evaluate(expr, free)`` is the argument at the row with the
    variables named in ``free`` left as :func:`free_symbol` symbols."""
    name = variable(node)
    v = free_symbol(name)
    where = f"{field}: {name_of(node)}(..., {name})"
    if isinstance(node, At):
        expr, _, value = node.args
        return evaluate(expr, {name}).xreplace({v: evaluate(value, set())})
    if isinstance(node, Crossing):
        a, b = (evaluate(x, {name}) for x in node.args[:2])
        return _crossing(a, b, v, where)
    expr = evaluate(node.args[0], {name})
    if isinstance(node, SwitchPoint):
        return _switch_point(expr, v, where)
    point = _minimizer(expr, v, where)
    if isinstance(node, Minimizer):
        return point
    low = max(1, math.floor(sp.N(point, 30)))
    scored = [(c, sp.N(expr.xreplace({v: c}), DIGITS)) for c in sorted({low, low + 1})]
    return sp.Integer(min(scored, key=lambda cv: cv[1])[0])


def _crossing(a, b, v, where: str) -> sp.Basic:
    from ldpaudit.derive.exproots import S, crossings, exp_form

    from ldpaudit.errors import NotDerivable

    try:
        regions = crossings(a, b, v)
        numerator = sp.Poly(sp.fraction(sp.factor(exp_form(sp.together(a - b), v, regions.form.scale).rational))[0], S)
    except NotDerivable as exc:
        raise InvalidSpec(f"{where}: the two sides are not rational in e^({v.name}/L): {exc}") from None
    roots = [r for i, r in enumerate(regions.roots)
             if regions.signs[i] != regions.signs[i + 1] and numerator.rem(r.polynomial).is_zero]
    if len(roots) != 1:
        raise InvalidSpec(f"{where}: the two sides cross at {len(roots)} points with {v.name} > 0 "
                          f"({', '.join(f'{float(r.value()):.6g}' for r in roots) or 'none'}); a crossing is one point")
    return roots[0].epsilon


def _switch_point(expr, v, where: str) -> sp.Basic:
    if not isinstance(expr, sp.Piecewise):
        raise InvalidSpec(f"{where}: the expression is not piecewise in {v.name} at this row: {sp.sstr(expr)[:80]}")
    points = []
    for _, cond in expr.args:
        for rel in cond.atoms(sp.core.relational.Relational):
            if v in rel.free_symbols:
                for p in sp.solve(rel.lhs - rel.rhs, v):
                    if not any(sp.simplify(p - q) == 0 for q in points):
                        points.append(p)
    if len(points) != 1:
        raise InvalidSpec(f"{where}: the branches change at {len(points)} points; a switch point is one")
    return points[0]


def _minimizer(expr, v, where: str) -> sp.Basic:
    derivative = sp.diff(expr, v)
    curvature = sp.diff(derivative, v)
    try:
        roots = sp.solve(sp.numer(sp.together(derivative)), v)
    except (NotImplementedError, sp.PolynomialError):
        roots = None
    if roots is not None:
        good = [sp.simplify(r) for r in roots if _real_positive(r)
                and sp.N(curvature.xreplace({v: r}), DIGITS) > 0]
        if len(good) == 1:
            return good[0]
        if good:
            raise InvalidSpec(f"{where}: {len(good)} local minima with {v.name} > 0; a minimizer is one point")
    return _certified_minimizer(derivative, v, where)


def _real_positive(r) -> bool:
    value = sp.N(r, DIGITS)
    return bool(value.is_real and value > 0)


def _sign(derivative, v, at: sp.Rational) -> int:
    value = sp.N(derivative.xreplace({v: at}), DIGITS)
    if not value.is_real:
        return 0
    return 1 if value > 0 else -1 if value < 0 else 0


def _certified_minimizer(derivative, v, where: str) -> sp.Basic:
    """The one sign change of dE/dv from - to + on a grid 2^(j/8), j = -80..80, refined by
    mpmath and certified by the exact signs at two rationals 1e-25 either side of the root."""
    import mpmath

    grid = [sp.Integer(2) ** sp.Rational(j, 8) for j in range(-80, 81)]
    grid = [sp.nsimplify(sp.Float(sp.N(g, 20), 20), rational=True) for g in grid]
    signs = [_sign(derivative, v, g) for g in grid]
    changes = [i for i in range(len(grid) - 1) if signs[i] == -1 and signs[i + 1] == 1]
    if len(changes) != 1:
        raise Undecided(f"{where}: dE/d{v.name} changes sign from - to + {len(changes)} times on "
                        f"2^-10 <= {v.name} <= 2^10; no single minimizer found")
    lo, hi = grid[changes[0]], grid[changes[0] + 1]
    f = sp.lambdify(v, derivative, "mpmath")
    with mpmath.workdps(50):
        root = mpmath.findroot(f, (mpmath.mpf(lo.p) / lo.q, mpmath.mpf(hi.p) / hi.q), solver="illinois")
        text = mpmath.nstr(root, 40)
    center = sp.Rational(text)
    width = sp.Rational(1, 10**25)
    if _sign(derivative, v, center - width) != -1 or _sign(derivative, v, center + width) != 1:
        raise Undecided(f"{where}: the root of dE/d{v.name} near {mpmath.nstr(root, 12)} could not be certified")
    return sp.Float(center, 30)


__all__ = ["CALLS", "CALL_TYPES", "solve_call", "variable", "free_symbol"]
