"""Quantities that solve for a variable: written as calls in a manifest, each names one variable
(a mechanism parameter such as ``g`` or ``beta``, or ``epsilon``) that its first argument is
taken in, symbolically, with every other symbol bound by the row::

    at(olh.variance, g, 4)                  # the expression with g = 4
    minimizer(olh.variance, g)              # the g > 0 where it is least (a stationary point)
    integer_minimizer(olh.variance, g)      # floor or ceil of that, whichever is smaller exactly
    best_integer(pmv.l2_worst, k, 1, d)     # the integer k in [1, d] where it is least, all tried
    crossing(pm.l2_worst, duchi.l2_worst, epsilon)   # the ε > 0 where the two are equal
    switch_point(hm.optimal_beta_l2, epsilon)        # where a piecewise quantity changes branch

Every value is derived, never looked up: ``crossing`` solves exactly in e^(ε/L)
(:func:`ldpaudit.derive.exproots.crossings`: an algebraic root with a rational isolating
interval); ``minimizer`` solves dE/dv = 0 exactly when sympy can (a smooth E), and otherwise
finds the one local minimum on a grid, refines it, and certifies it by exact comparisons at three
rationals 1e-15 apart (each evaluated to 60 digits): a minimum lies within 1e-15 of the value."""

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


class BestInteger(sp.Function):
    """``best_integer(E, v, low, high)``: the integer v in [low, high] where E is least."""

    nargs = 4


class SwitchPoint(sp.Function):
    """``switch_point(E, v)``: the v where the piecewise expression E changes branch."""

    nargs = 2


class LazyMax(sp.Function):
    """Max whose exact arguments are compared only when evaluated (sympy's Max decides the
    order of two exact expressions on construction, seconds each for a derived worst case):
    rational arguments at once, any others when the value is evaluated (to its precision)."""

    @classmethod
    def eval(cls, *args):
        if args and all(a.is_Rational for a in args):
            return sp.Max(*args)
        return None

    def _eval_evalf(self, prec):
        from mpmath.libmp import prec_to_dps

        values = [a.evalf(n=prec_to_dps(prec) + 10) for a in self.args]
        if not all(v.is_Float or v.is_Rational for v in values):
            return None
        return self._pick(values).evalf(n=prec_to_dps(prec))

    @staticmethod
    def _pick(values):
        return max(values)


class LazyMin(LazyMax):
    @classmethod
    def eval(cls, *args):
        if args and all(a.is_Rational for a in args):
            return sp.Min(*args)
        return None

    @staticmethod
    def _pick(values):
        return min(values)


def lazy(expr: sp.Basic) -> sp.Basic:
    """``expr`` with Max and Min as :class:`LazyMax` and :class:`LazyMin`."""
    if not expr.has(sp.Max, sp.Min):
        return expr
    return expr.replace(lambda e: isinstance(e, (sp.Max, sp.Min)),
                        lambda e: (LazyMax if isinstance(e, sp.Max) else LazyMin)(*e.args))


#: lambdify's translation of the lazy functions
MODULES = [{"LazyMax": max, "LazyMin": min}, "mpmath"]


CALLS = {"at": (At, 3), "crossing": (Crossing, 3), "minimizer": (Minimizer, 2),
         "integer_minimizer": (IntegerMinimizer, 2), "best_integer": (BestInteger, 4), "switch_point": (SwitchPoint, 2)}
CALL_TYPES = (At, Crossing, Minimizer, IntegerMinimizer, BestInteger, SwitchPoint)
#: the position of the variable among each call's arguments
VARIABLE = {At: 1, Crossing: 2, Minimizer: 1, IntegerMinimizer: 1, BestInteger: 1, SwitchPoint: 1}
#: integers one best_integer() call may try
MAX_CANDIDATES = 10_000
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
    if isinstance(node, BestInteger):
        return _best_integer(expr, v, evaluate(node.args[2], set()), evaluate(node.args[3], set()), where)
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


def _best_integer(expr, v, low, high, where: str) -> sp.Integer:
    """Every integer of [low, high] tried: values to 30 digits, the two smallest compared again
    to 60 (exactly when both are rational) so that a near tie is decided, never guessed."""
    import mpmath

    if not (low.is_Integer and high.is_Integer and low <= high):
        raise InvalidSpec(f"{where}: the range must be two integers low <= high, got {low} and {high}")
    if high - low + 1 > MAX_CANDIDATES:
        raise InvalidSpec(f"{where}: {high - low + 1:,} integers to try, more than {MAX_CANDIDATES:,}")
    f = sp.lambdify(v, expr, MODULES)
    with mpmath.workdps(30):
        scored = sorted((f(mpmath.mpf(int(c))), int(c)) for c in range(int(low), int(high) + 1))
    if len(scored) > 1:
        exact = sorted((sp.N(expr.xreplace({v: c}), DIGITS), c) for _, c in scored[:2])
        if exact[0][0] == exact[1][0]:
            raise Undecided(f"{where}: {v.name} = {exact[0][1]} and {exact[1][1]} tie to {DIGITS} digits")
        return sp.Integer(exact[0][1])
    return sp.Integer(scored[0][1])


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
    if not expr.has(sp.Max, sp.Min, sp.Piecewise, sp.Abs, LazyMax):
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
    return _certified_minimizer(expr, v, where)


def _real_positive(r) -> bool:
    value = sp.N(r, DIGITS)
    return bool(value.is_real and value > 0)


def _certified_minimizer(expr, v, where: str) -> sp.Float:
    """The one local minimum of E on the grid 2^(j/8), j = -80..80, refined by golden-section
    search and certified by exact comparisons: E(c - w) > E(c) < E(c + w) at rationals c ± w,
    w = 1e-15, each side evaluated to 60 digits, so a minimum lies within w of c."""
    import mpmath

    f = sp.lambdify(v, expr, MODULES)
    with mpmath.workdps(DIGITS):
        grid = [mpmath.mpf(2) ** (mpmath.mpf(j) / 8) for j in range(-80, 81)]
        values = []
        for g in grid:
            try:
                y = f(g)
                values.append(y if mpmath.isfinite(y) and mpmath.im(y) == 0 else None)
            except (ZeroDivisionError, ValueError, OverflowError):
                values.append(None)
        minima = [i for i in range(1, len(grid) - 1) if None not in values[i - 1:i + 2]
                  and values[i] < values[i - 1] and values[i] < values[i + 1]]
        if len(minima) != 1:
            raise Undecided(f"{where}: the expression has {len(minima)} local minima on 2^-10 <= {v.name} <= 2^10 "
                            "(sampled); no single minimizer found")
        a, b = grid[minima[0] - 1], grid[minima[0] + 1]
        ratio = (mpmath.sqrt(5) - 1) / 2
        while b - a > mpmath.mpf(10) ** -22:
            c, d = b - ratio * (b - a), a + ratio * (b - a)
            if f(c) < f(d):
                b = d
            else:
                a = c
        center = sp.Rational(mpmath.nstr((a + b) / 2, 30))
    width = sp.Rational(1, 10**15)
    at = [sp.N(expr.xreplace({v: x}), DIGITS) for x in (center - width, center, center + width)]
    if not (at[0] > at[1] < at[2]):
        raise Undecided(f"{where}: the minimum near {float(center):.12g} could not be certified")
    return sp.Float(center, 30)


__all__ = ["CALLS", "CALL_TYPES", "solve_call", "variable", "free_symbol"]
