"""Moments of a piecewise density by integrating cell by cell: E[z|x], Var[z|x], the unbiased
affine report map and its worst-case variance over the input interval.

The density is split into the cells between its breakpoints in z
(:mod:`ldpaudit.mechanism.piecewise`); on the order of the breakpoints that the sample points
show (the same at every one of them, else nothing is derived) each moment is a sum of exact
integrals of elementary expressions. Nothing is typed in: the Piecewise mechanism's
Var[z|x] = x²/(e^(ε/2) - 1) + (e^(ε/2) + 3)/(3(e^(ε/2) - 1)²) (Wang et al. 2019, Lemma 1)
comes out of the channel's density.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from ldpaudit.derive.algebra import cancel, simplify
from ldpaudit.errors import NotDerivable
from ldpaudit.mechanism.checks import sample_points
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.params import X, Z
from ldpaudit.mechanism.spaces import IntervalDomain
from ldpaudit.mechanism.piecewise import NotPiecewiseLinear, PiecewiseDensity, in_exp_base, is_piecewise_in, sample_inputs


@dataclass(frozen=True)
class PiecewiseMoments:
    """Moments of z given x on the breakpoint order ``order`` (breakpoints listed smallest first
    in ``order_text``), and the unbiased affine report map g(z) = (z - intercept)/slope."""

    order_text: str
    mean: sp.Basic
    second_moment: sp.Basic
    variance: sp.Basic
    slope: sp.Basic
    intercept: sp.Basic
    report: sp.Basic
    report_variance: sp.Basic
    bias: sp.Basic  # E[g(Z) | x] - x, integrated again from the density (0 when g is unbiased)
    worst_variance: sp.Basic
    worst_inputs: tuple
    worst_note: str


def applies(mech: Mechanism) -> bool:
    return isinstance(mech.channel, DensityChannel) and is_piecewise_in(mech.channel.density, Z)


def _orders_at_samples(mech: Mechanism, pd: PiecewiseDensity) -> set[tuple[int, ...]]:
    points = [{mech.symbols[k]: v for k, v in pt.items()} for pt in sample_points(mech, 3)] or [{}]
    seen = set()
    for params in points:
        ends = [None if e is None else sp.sympify(e).xreplace(params) for e in (mech.inputs.low, mech.inputs.high)]
        inner = sample_inputs(*ends)[1:-1]  # interior inputs: the ends may tie two breakpoints
        for xv in inner:
            order, values = pd.order_at({**params, X: xv})
            seen.add(tuple(order))
    return seen


def piecewise_moments(mech: Mechanism) -> PiecewiseMoments:
    if not applies(mech) or not isinstance(mech.inputs, IntervalDomain) or not mech.inputs.bounded:
        raise NotDerivable(f"{mech.name!r} is not a piecewise density channel on a bounded interval")
    try:
        pd = PiecewiseDensity(mech.channel.density, Z)
        orders = _orders_at_samples(mech, pd)
    except NotPiecewiseLinear as exc:
        raise NotDerivable(str(exc)) from None
    if len(orders) != 1:
        raise NotDerivable(f"the order of the breakpoints in z changes with x or the parameters ({len(orders)} orders "
                           "at the sample points); moments per region are not derived")
    order = next(iter(orders))
    try:
        m1 = simplify(pd.integral(order, Z))
        m2 = simplify(pd.integral(order, Z**2))
    except NotPiecewiseLinear as exc:
        raise NotDerivable(str(exc)) from None
    variance = _tidy(m2 - m1**2)
    if not m1.is_polynomial(X) or sp.degree(sp.expand(m1), X) > 1:
        raise NotDerivable(f"E[z|x] = {m1} is not affine in x; no affine report map is unbiased")
    slope = simplify(sp.diff(m1, X))
    if slope == 0:
        raise NotDerivable("E[z|x] does not depend on x; no report map is unbiased")
    intercept = simplify(m1 - slope * X)
    report = (Z - intercept) / slope
    report_variance = _tidy(variance / slope**2)
    bias = _tidy(pd.integral(order, report) - X)
    worst, where, note = _worst_over_interval(mech, report_variance)
    import re

    from ldpaudit.mechanism.names import breakpoint_texts, spec_definitions   # in the spec's own names

    named = breakpoint_texts(mech, [pd.breakpoints[k] for k in order])
    text = " < ".join(named)
    own = [n for n, _ in spec_definitions(mech) if any(re.search(rf"\b{re.escape(n)}\b", t) for t in named)]
    if own:
        text += f", with {', '.join(own)} as the spec defines {'them' if len(own) > 1 else 'it'}"
    return PiecewiseMoments(text, m1, m2, variance, slope, intercept, report, report_variance, bias, worst, where, note)


def _tidy(expr: sp.Basic) -> sp.Basic:
    """A short exact form: collected in x, each coefficient factored (in e^(ε/L))."""
    w_expr, back = in_exp_base(sp.expand(expr))
    w_expr = cancel(w_expr)  # sp.cancel(sp.together(w_expr)), from the polynomial ring when it applies
    num, den = sp.fraction(w_expr)
    if not den.has(X) and num.is_polynomial(X):
        terms = [sp.factor(c / den) * X**k for (k,), c in sp.Poly(sp.expand(num), X).terms()]
        return sp.Add(*terms).xreplace(back)
    return simplify(expr)


def _positive(expr: sp.Basic, mech: Mechanism) -> bool:
    """Is ``expr`` positive for every admissible parameter value? Shown when, with e^(p/L) = 1 + v
    (v > 0, for a parameter p > 0), numerator and denominator are polynomials with positive
    coefficients in the positive variables; never guessed."""
    w_expr, back = in_exp_base(sp.sympify(expr))
    subs = {}
    for w, e in back.items():
        (p,) = e.args[0].free_symbols
        if p.is_positive:
            subs[w] = 1 + sp.Dummy("v", positive=True)
    num, den = sp.fraction(sp.cancel(sp.together(w_expr.xreplace(subs))))

    def positive_poly(q):
        q = sp.expand(q)
        gens = sorted(q.free_symbols, key=str)
        if not all(g.is_positive for g in gens):
            return False
        if not gens:
            return q.is_positive is True
        poly = sp.Poly(q, *gens)
        cs = poly.coeffs()
        return all(c.is_positive for c in cs) or all(c.is_negative for c in cs)

    return positive_poly(num) and positive_poly(den) and bool((num / den).subs(
        {g: 1 for g in (num / den).free_symbols}) > 0)


def _worst_over_interval(mech: Mechanism, v: sp.Basic) -> tuple[sp.Basic, tuple, str]:
    """sup over x in [low, high] of v(x): at an end or a stationary point inside. The candidate
    is chosen exactly when sympy can sign the differences, else at the example point (said so)."""
    lo, hi = mech.inputs.low, mech.inputs.high
    cands = [lo, hi]
    if v.has(X):
        for s in sp.solve(sp.diff(v, X), X):
            cands.append(s)
    values = [simplify(v.xreplace({X: c})) for c in cands]
    unique: list[tuple[sp.Basic, list]] = []
    for c, val in zip(cands, values):
        for u in unique:
            if simplify(u[0] - val) == 0:
                u[1].append(c)
                break
        else:
            unique.append((val, [c]))
    if len(unique) == 1:
        return unique[0][0], tuple(unique[0][1]), "equal at every candidate"
    if v.is_polynomial(X) and sp.degree(v, X) == 2:
        a = sp.Poly(v, X).LC()
        if _positive(a, mech):  # convex: an end
            ends = [u for u in unique if any(c in (lo, hi) for c in u[1])]
            if len(ends) == 1:
                return ends[0][0], tuple(ends[0][1]), "convex in x: largest at an end"
    point = {mech.symbols[k]: val for k, val in dict(mech.example).items() if k in mech.symbols}
    best = max(unique, key=lambda u: float(sp.N(u[0].xreplace(point), 30)))
    return best[0], tuple(best[1]), "largest at the example point among the ends and stationary points"


