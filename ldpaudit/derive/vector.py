"""Per-coordinate moments of vector-input mechanisms, derived from the channel.

``coordinates`` (PM/HM in d dimensions): coordinate j is sampled with probability k/d and
then reported as scale * z, z from the scalar channel at x_j, else as 0; so

    E[t_j | x] = (k/d) scale E[z | x_j],   E[t_j² | x] = (k/d) scale² E[z² | x_j],

with the scalar moments integrated cell by cell from the density (:mod:`ldpaudit.derive.piecewise`)
or summed over the finite outputs.

``signs`` (Duchi et al.'s ℓ∞ mechanism): s_j² = 1, so E[t_j² | x] = scale². For the mean,
substituting s = w ∘ v (coordinatewise product) shows E[s_j | v] = v_j c_d with
c_d = Σ_w w_1 G(Σ_i w_i), a finite sum over t = Σ w_i with binomial counts, so
E[t_j | x] = scale c_d E[v_j | x_j]. Both are exact for each d; with d a parameter of finite
range they are derived at every d, and the family's expressions are stated when every d agrees.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import sympy as sp

from ldpaudit.derive.algebra import simplify
from ldpaudit.errors import NotDerivable
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.params import X, _subs, decide
from ldpaudit.mechanism.vector import CoordinatesChannel, PerCoordinate, SignVectorChannel, sign_dimensions


@dataclass(frozen=True)
class CoordinateMoments:
    """Moments of one coordinate t_j of the report given the input coordinate x_j = x."""

    mean: sp.Basic
    second_moment: sp.Basic
    variance: sp.Basic
    worst_variance: sp.Basic
    worst_inputs: tuple
    how: str
    per_dimension: tuple = ()  # ((d, E[t_j|x], Var(t_j|x)), ...) for signs channels


def applies(mech: Mechanism) -> bool:
    return isinstance(mech.channel, (CoordinatesChannel, SignVectorChannel))


def coordinate_moments(mech: Mechanism) -> CoordinateMoments:
    if isinstance(mech.channel, CoordinatesChannel):
        return _coordinates(mech)
    return _signs(mech)


def _coordinates(mech: Mechanism) -> CoordinateMoments:
    ch = mech.channel
    pc = PerCoordinate(mech, mech.claimed_epsilon)
    sub = pc.sub
    if getattr(sub.channel, "form", None) == "mixture":
        from ldpaudit.derive.mixture import channel_moments

        moments = channel_moments(sub, worst_case=False)  # the worst case is the vector report's, below
        mean_1, second_1 = moments.mean, moments.second_moment
        how = "the coordinate's mixture components (densities cell by cell, atoms summed)"
    elif isinstance(sub.channel, DensityChannel):
        from ldpaudit.derive.piecewise import applies as piecewise_applies, piecewise_moments

        if not piecewise_applies(sub):
            raise NotDerivable("the coordinate's density is not piecewise in z; its moments are not derived here")
        pm = piecewise_moments(sub)
        mean_1, second_1 = pm.mean, pm.second_moment
        how = "the coordinate's density integrated cell by cell"
    else:
        outputs = sub.channel.outputs
        mean_1 = simplify(sp.Add(*(y * sub.channel.probability(y) for y in outputs)))
        second_1 = simplify(sp.Add(*(y**2 * sub.channel.probability(y) for y in outputs)))
        how = "the coordinate's outputs summed"
    # in the scalar mechanism's parameters (ε/k written as one positive parameter), then back
    forward = {} if pc.per is None else {pc.param.symbol: pc.k * pc.per.symbol}
    keep = ch.sampled / mech.inputs.dimension
    mean = simplify(keep * _subs(ch.scale, forward) * mean_1)
    second = simplify(keep * _subs(ch.scale, forward) ** 2 * second_1)
    variance = simplify(second - mean**2)
    worst, where = _worst(mech, variance)
    back = pc.back
    return CoordinateMoments(simplify(back(mean)), simplify(back(second)), simplify(back(variance)),
                             simplify(back(worst)), tuple(back(x) for x in where), how)


def _signs(mech: Mechanism) -> CoordinateMoments:
    ch = mech.channel
    dims = sign_dimensions(mech)
    if dims is None:
        raise NotDerivable(f"d = {mech.inputs.dimension} has no finite range of at most 8 values; bind it (-p d=3)")
    d_sym = sp.sympify(mech.inputs.dimension)
    latent_mean = simplify(ch.latent_law(1, X) - ch.latent_law(-1, X))  # E[v_j | x_j = x]
    table = []
    for d in dims:
        at = {} if d_sym.is_number else {d_sym: sp.Integer(d)}
        c_d = sp.Integer(0)
        for t in range(-d, d + 1, 2):
            plus = (d + t) // 2  # coordinates equal to +1 in a w with Σ w = t
            lead = (math.comb(d - 1, plus - 1) if plus >= 1 else 0) - (math.comb(d - 1, plus) if plus <= d - 1 else 0)
            c_d += lead * _subs(ch.given_latent(t), at)
        scale = _subs(ch.scale, at)
        mean = simplify(scale * c_d * _subs(latent_mean, at))
        table.append((d, mean, simplify(scale**2) - mean**2))
    # the family's expressions when every d gives the same function of d (the unbiased case: mean = x)
    means = {simplify(m) for _, m, _ in table}
    mean = means.pop() if len(means) == 1 else None
    if mean is None:
        raise NotDerivable("E[t_j | x] differs between dimensions: " +
                           "; ".join(f"d = {d}: {sp.sstr(m)}" for d, m, _ in table) + " (bind d to derive one)")
    variance = ch.scale**2 - mean**2
    worst, where = _worst(mech, variance)
    how = "E[s_j | v] = v_j c_d by the substitution s = w ∘ v, with c_d summed over t = Σ w_i; s_j² = 1"
    return CoordinateMoments(mean, ch.scale**2, variance, worst, where, how, tuple(table))


def _worst(mech: Mechanism, variance: sp.Basic) -> tuple[sp.Basic, tuple]:
    """sup of a quadratic Var(t_j | x) over x in [low, high]: the ends, and the vertex when it
    lies inside and the quadratic opens downwards; the comparisons decided exactly where sympy
    can (else the maximum is stated as a Max)."""
    lo, hi = mech.inputs.low, mech.inputs.high
    expanded = sp.expand(variance)
    if not expanded.is_polynomial(X) or sp.degree(expanded, X) > 2:
        raise NotDerivable(f"Var(t_j | x) = {sp.sstr(variance)} is not a quadratic in x")
    poly = sp.Poly(expanded, X)
    a = simplify(poly.coeff_monomial(X**2))
    b = simplify(poly.coeff_monomial(X))
    ends = [(simplify(variance.xreplace({X: lo})), lo), (simplify(variance.xreplace({X: hi})), hi)]
    candidates = list(ends)
    if a != 0 and _positive(mech, a) is not True:
        vertex = simplify(-b / (2 * a))
        inside = decide(sp.And(vertex >= lo, vertex <= hi))
        at_vertex = (simplify(variance.xreplace({X: vertex})), vertex)
        if _positive(mech, -a) is True and inside is True:
            candidates = [at_vertex]  # opens downwards with its vertex inside: the vertex is the maximum
        elif inside is not False:
            candidates.append(at_vertex)
    values: list = []
    where: list = []
    for value, x in candidates:
        if any(simplify(value - v) == 0 for v in values):
            where[[simplify(value - v) == 0 for v in values].index(True)] += (x,)
            continue
        values.append(value)
        where.append((x,))
    if len(values) == 1:
        return values[0], where[0]
    return sp.Max(*values), tuple(x for w in where for x in w)


def _positive(mech: Mechanism, expr: sp.Basic) -> bool | None:
    """True when expr > 0 is shown for every admissible parameter value (sympy's assumptions,
    or positive polynomials in e^(p/L) - 1 > 0: :func:`ldpaudit.derive.piecewise._positive`),
    writing an integer parameter bounded above by another (k <= d) as d = k + m: shown for
    m > 0 and for m = 0. None when not shown."""
    from ldpaudit.derive.piecewise import _positive as shown_positive

    if expr.is_number:
        return decide(expr > 0)
    if expr.is_positive is not None:
        return expr.is_positive
    variants = [expr]
    for p in mech.parameters:
        if p.kind == "integer" and p.upper is not None and p.upper.is_Symbol and p.lower is not None and p.lower >= 1:
            gap = sp.Dummy("m", positive=True, integer=True)
            variants = [v.xreplace({p.upper: p.symbol + gap}) for v in variants] + [
                v.xreplace({p.upper: p.symbol}) for v in variants]
    return True if all(shown_positive(v, mech) for v in variants) else None


def worst_case_statement(mech, cm, model: str) -> tuple[sp.Basic, str, str]:
    """``(sup E(μ̂_j - μ_j)², relation, why)`` over n users under ``model``, as the scalar forms
    state it: given the inputs (fixed), exact when E[t_j² | x] is affine in x (i.i.d.: the same
    function of μ_j as Var(t_j | x) is of x, as the real-input forms), else the upper bound
    (sup V(X_j) + sup_x Var(t_j | x))/n of the densities (PM, SW; Popoviciu)."""
    from ldpaudit.derive.algebra import N_USERS, simplify

    x = sp.Symbol("x", real=True)
    n = N_USERS
    if model == "fixed":
        return simplify(cm.worst_variance / n), "=", "over n users, given the inputs:"
    m2 = sp.expand(cm.second_moment)
    if m2.is_polynomial(x) and sp.degree(m2, x) <= 1:
        return simplify(cm.worst_variance / n), "=", (
            "E[t_j² | x] is affine in x, so under the i.i.d. model Var t_j = V(X_j) + E Var(t_j | X_j) = "
            "E[t_j² | x = μ_j] - μ_j² is the same function of μ_j = E X_j as Var(t_j | x) is of x; over n users:")
    lo, hi = mech.inputs.low, mech.inputs.high
    return simplify((cm.worst_variance + (hi - lo) ** 2 / 4) / n), "≤", (
        "under the i.i.d. model Var t_j = V(X_j) + E Var(t_j | X_j), so Var μ̂_j is at most (sup V(X_j) + "
        "sup_x Var(t_j | x))/n, with sup V(X_j) = (high - low)²/4 (Popoviciu); an upper bound, stated as one:")
