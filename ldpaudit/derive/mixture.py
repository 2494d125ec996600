"""Mixtures of unbiased real-valued reports, and reporting k sampled coordinates of d.

Wang et al.'s Hybrid mechanism (ICDE 2019, §III-C) reports with mechanism A with probability α
and with mechanism B otherwise. Both reports are unbiased for x, so the mixture is, and

    Var[z | x] = α E_A[z² | x] + (1 - α) E_B[z² | x] - x²,   E[z² | x] = Var[z | x] + x².

When both second moments are even quadratics in x, a x² + c, so is the mixture's variance, and
its worst case over |x| ≤ B is c(α) + max(0, a(α)) B²: the maximum of two functions linear in α,
convex, with one kink where a(α) = 0. Its minimum over α in [0, 1] is at 0, at 1 or at the kink;
which one, for every ε > 0, is decided exactly from the sign regions of the differences
(:mod:`ldpaudit.derive.exproots`), never on a grid.

The d-dimensional versions (§IV) sample k of the d coordinates, report each sampled one with
the one-dimensional mechanism at budget ε/k scaled by d/k, and the others as 0. Coordinate j is
sampled with probability k/d, so its report is unbiased and E[t_j² | x] = (d/k) E[z² | x] at ε/k:

    Var[t_j | x] = (d/k) E[z² | x]_{ε/k} - x².
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ldpaudit.derive.algebra import simplify
from ldpaudit.derive.exproots import S, ExactRoot, gap_points, exp_form, sign_regions
from ldpaudit.errors import NotDerivable

#: the mixing weight: the probability of reporting with the first mechanism
ALPHA = sp.Symbol("alpha", nonnegative=True)
#: dimensions and sampled coordinates of the d-dimensional mechanisms
DIMENSIONS = sp.Symbol("d", positive=True, integer=True)
SAMPLED = sp.Symbol("k", positive=True, integer=True)


def even_quadratic(expr: sp.Basic, x: sp.Symbol) -> tuple[sp.Basic, sp.Basic]:
    """(a, c) with expr = a x² + c; NotDerivable when expr is not of that form."""
    expanded = sp.expand(expr)
    if not expanded.is_polynomial(x) or sp.degree(expanded, x) > 2:
        raise NotDerivable(f"{sp.sstr(expr)} is not a quadratic in {x}")
    poly = sp.Poly(expanded, x)
    if simplify(poly.coeff_monomial(x)) != 0:
        raise NotDerivable(f"{sp.sstr(expr)} has a term linear in {x}; the worst case over a symmetric interval "
                           "is not derived here")
    return simplify(poly.coeff_monomial(x**2)), simplify(poly.coeff_monomial(1))


@dataclass(frozen=True)
class Piece:
    """On ε in (low, high) (None: 0 or ∞) the worst case is smallest at α = ``weight``
    (``label``: "second", "first" or "kink"), where it equals ``worst``, attained ``where``."""

    low: ExactRoot | None
    high: ExactRoot | None
    label: str
    weight: sp.Basic
    worst: sp.Basic
    where: str


@dataclass(frozen=True)
class MixtureOptimum:
    variance: sp.Basic          # Var[z|x] of the mixture, in α and x
    x_squared: sp.Basic         # a(α)
    constant: sp.Basic          # c(α)
    kink: sp.Basic | None       # the α where a(α) = 0
    bound: sp.Basic
    pieces: tuple[Piece, ...]

    @property
    def thresholds(self) -> tuple[ExactRoot, ...]:
        return tuple(p.high for p in self.pieces if p.high is not None)


def mixture_variance(second_a: sp.Basic, second_b: sp.Basic, x: sp.Symbol, alpha: sp.Symbol = ALPHA) -> sp.Basic:
    """Var[z|x] of "A with probability α, else B" for unbiased reports A and B."""
    return alpha * second_a + (1 - alpha) * second_b - x**2


def optimal_mixture(second_a: sp.Basic, second_b: sp.Basic, x: sp.Symbol, bound: sp.Basic, eps: sp.Symbol,
                    alpha: sp.Symbol = ALPHA) -> MixtureOptimum:
    """The α in [0, 1] minimizing sup over |x| ≤ bound of the mixture's variance, for every ε > 0
    (see the module doc). The second moments are E[z²|x] of the two unbiased reports."""
    variance = mixture_variance(second_a, second_b, x, alpha)
    a, c = even_quadratic(variance, x)
    kink = _kink(a, alpha)
    options = {"second": sp.Integer(0), "first": sp.Integer(1)}
    if kink is not None:
        options["kink"] = kink
    b2 = sp.sympify(bound) ** 2
    variants = {}  # (option, where) -> worst-case candidate value
    for name, value in options.items():
        at_zero = simplify(c.xreplace({alpha: value}))
        at_bound = simplify((c + a * b2).xreplace({alpha: value}))
        variants[(name, "x = 0")] = at_zero
        variants[(name, "|x| = bound")] = at_bound
    deciding = [a.xreplace({alpha: 0}), a.xreplace({alpha: 1})]
    if kink is not None:
        deciding += [kink, 1 - kink]
    values = list(variants.values())
    deciding += [values[i] - values[j] for i in range(len(values)) for j in range(i + 1, len(values))]
    scale = 1
    for e in deciding:
        scale = sp.ilcm(scale, exp_form(e, eps).scale)
    forms = {key: exp_form(v, eps, scale).rational for key, v in variants.items()}
    kink_form = exp_form(kink, eps, scale).rational if kink is not None else None
    roots = _merged_roots([r for e in deciding for r in sign_regions(e, eps, scale).roots])
    pieces: list[Piece] = []
    bounds = [None, *roots, None]
    for i, q in enumerate(gap_points([r.s_interval for r in roots])):
        worst = {}
        for name in options:
            if name == "kink" and not (0 <= kink_form.xreplace({S: q}) <= 1):
                continue
            at = {where: forms[(name, where)].xreplace({S: q}) for where in ("x = 0", "|x| = bound")}
            worst[name] = max(at.values()), at
        best = min(worst, key=lambda n: worst[n][0])
        at = worst[best][1]
        where = ("every x" if at["x = 0"] == at["|x| = bound"] else max(at, key=at.get))
        value = variants[(best, "x = 0" if where == "every x" else where)]
        piece = Piece(bounds[i], bounds[i + 1], best, options[best], value, where)
        if pieces and pieces[-1].label == best and pieces[-1].where == where:
            pieces[-1] = Piece(pieces[-1].low, piece.high, best, options[best], value, where)
        else:
            pieces.append(piece)
    return MixtureOptimum(variance, a, c, kink, sp.sympify(bound), tuple(pieces))


def _kink(a: sp.Basic, alpha: sp.Symbol) -> sp.Basic | None:
    """The one α where a(α) = 0, or None. a is affine in α (the variance is), a1 α + a0, so the
    root is -a0/a1, read off the coefficients (sp.solve took a tenth of a derivation's CPU for
    it); anything else goes to sp.solve."""
    if not a.has(alpha):
        return None
    try:
        poly = sp.Poly(a, alpha)
    except sp.PolynomialError:
        poly = None
    if poly is not None and poly.degree() == 1:
        a1, a0 = poly.all_coeffs()
        if simplify(a1) != 0:
            return simplify(-a0 / a1)
    kinks = sp.solve(a, alpha)
    return simplify(kinks[0]) if len(kinks) == 1 else None


def _merged_roots(roots: list[ExactRoot]) -> list[ExactRoot]:
    """Distinct roots, increasing; two roots of the same irreducible polynomial with overlapping
    intervals are one root. Distinct roots whose intervals overlap are refused (never guessed)."""
    out: list[ExactRoot] = []
    for r in sorted(roots, key=lambda r: r.s_interval[0]):
        if out and r.s_interval[0] <= out[-1].s_interval[1]:
            if r.polynomial.monic() == out[-1].polynomial.monic():
                continue
            raise NotDerivable(f"two roots could not be separated: {r.root} and {out[-1].root}")
        out.append(r)
    return out


@dataclass(frozen=True)
class SampledCoordinate:
    """One coordinate of the "k of d coordinates, each at ε/k, scaled by d/k" mechanism."""

    mean: sp.Basic
    second_moment: sp.Basic
    variance: sp.Basic
    x_squared: sp.Basic   # coefficient of x² in the variance
    constant: sp.Basic

    def worst(self, bound: sp.Basic = 1) -> sp.Basic:
        """sup over |x| ≤ bound: at x = 0 or at |x| = bound (an even quadratic)."""
        return sp.Max(self.constant, self.constant + self.x_squared * sp.sympify(bound) ** 2)


def sampled_coordinate(mean_1d: sp.Basic, second_1d: sp.Basic, x: sp.Symbol, eps: sp.Symbol,
                       d: sp.Symbol = DIMENSIONS, k: sp.Symbol = SAMPLED) -> SampledCoordinate:
    """E, E[·²] and Var of one coordinate's report, from the one-dimensional report's mean and
    second moment (functions of ε and x) and the sampling step."""
    keep = k / d                       # probability that the coordinate is one of the k sampled
    scaled = d / k                     # the factor a sampled coordinate's report is multiplied by
    mean = simplify(keep * scaled * mean_1d.xreplace({eps: eps / k}))
    second = simplify(keep * scaled**2 * second_1d.xreplace({eps: eps / k}))
    if simplify(mean - x) != 0:
        raise NotDerivable(f"the sampled report has mean {sp.sstr(mean)}, not {x}: the one-dimensional report is biased")
    variance = second - x**2
    a, c = even_quadratic(variance, x)
    return SampledCoordinate(mean, second, simplify(variance), a, c)


# --- a mixture channel declared in a spec ------------------------------------------------------


@dataclass(frozen=True)
class ComponentMoments:
    """E[z | x] and E[z² | x] of one component of a mixture channel (its report z as declared:
    the density's output, or the atom's position)."""

    index: int
    kind: str
    weight: sp.Basic
    mean: sp.Basic
    second_moment: sp.Basic


@dataclass(frozen=True)
class ChannelMoments:
    """Moments of a mixture channel (:class:`ldpaudit.mechanism.mixture.MixtureChannel`):
    E[z|x] = Σ w_i E_i[z|x], E[z²|x] = Σ w_i E_i[z²|x], the affine report map g(z) that is
    unbiased for x, Var(g(Z) | x) and its sup over the input interval [-b, b]; and, when the
    mixture is "A with probability w, else B" for a free parameter w in [0, 1] with two unbiased
    components, the w minimizing that sup for every ε (:func:`optimal_mixture`)."""

    components: tuple[ComponentMoments, ...]
    mean: sp.Basic
    second_moment: sp.Basic
    variance: sp.Basic
    slope: sp.Basic
    intercept: sp.Basic
    report: sp.Basic
    report_variance: sp.Basic
    x_squared: sp.Basic
    constant: sp.Basic
    bound: sp.Basic
    worst_variance: sp.Basic | None  # None when derived with worst_case=False
    weight: sp.Symbol | None = None
    optimum: MixtureOptimum | None = None
    optimum_note: str = ""


def channel_moments(mech, family=None, *, worst_case: bool = True) -> ChannelMoments:
    """Derive the moments of a mixture channel from its components: densities cell by cell
    (:func:`ldpaudit.derive.piecewise.piecewise_moments`), atoms as sums over their positions.
    ``family`` (the unbound mechanism) supplies the free weight and ε for the optimal weight when
    ``mech`` has them bound. With ``worst_case=False`` (a coordinate of a vector mechanism, whose
    worst case is taken over the vector report) the same checks are made but the sup over x and
    the optimal weight are not derived: ``worst_variance`` is None and ``x_squared``, ``constant``
    are as :func:`even_quadratic` gives them."""
    from ldpaudit.derive.piecewise import _tidy, piecewise_moments
    from ldpaudit.mechanism.mixture import MixtureChannel, component_mechanism
    from ldpaudit.mechanism.params import X, Z

    ch = mech.channel
    if not isinstance(ch, MixtureChannel):
        raise NotDerivable(f"{mech.name!r} is not a mixture channel")
    dom = mech.inputs
    if not dom.bounded or simplify(dom.low + dom.high) != 0:
        raise NotDerivable(f"the input interval {dom.describe()} is not symmetric [-b, b]; the worst case is derived "
                           "for symmetric intervals only")
    parts = []
    for i, comp in enumerate(ch.components):
        if comp.kind == "density":
            pm = piecewise_moments(component_mechanism(mech, i))
            mean, second = pm.mean, pm.second_moment
        else:
            q = [(comp.position(y), comp.channel.probability(y)) for y in comp.outputs]
            mean = simplify(sp.Add(*[a * p for a, p in q]))
            second = simplify(sp.Add(*[a**2 * p for a, p in q]))
        parts.append(ComponentMoments(i, comp.kind, comp.weight, mean, second))
    mean = simplify(sp.Add(*[c.weight * c.mean for c in parts]))
    second = simplify(sp.Add(*[c.weight * c.second_moment for c in parts]))
    if not mean.is_polynomial(X) or sp.degree(sp.expand(mean), X) > 1:
        raise NotDerivable(f"E[z|x] = {sp.sstr(mean)} is not affine in x; no affine report map is unbiased")
    slope = simplify(sp.diff(mean, X))
    if slope == 0:
        raise NotDerivable("E[z|x] does not depend on x; no report map is unbiased")
    intercept = simplify(mean - slope * X)
    variance = _tidy(second - mean**2)
    report_variance = _tidy(variance / slope**2)
    a, c = even_quadratic(report_variance, X)
    bound = sp.sympify(dom.high)
    if not worst_case:
        return ChannelMoments(tuple(parts), mean, second, variance, slope, intercept, (Z - intercept) / slope,
                              report_variance, a, c, bound, None)
    a, c = _tidy(a), _tidy(c)
    worst = sp.Max(c, _tidy(c + a * bound**2))
    out = ChannelMoments(tuple(parts), mean, second, variance, slope, intercept, (Z - intercept) / slope,
                         report_variance, a, c, bound, worst)
    base = family if family is not None else mech
    try:
        weight, optimum = _optimal_weight(base, channel_moments(base) if base is not mech else out)
    except NotDerivable as exc:
        return ChannelMoments(**{**out.__dict__, "optimum_note": str(exc)})
    return ChannelMoments(**{**out.__dict__, "weight": weight, "optimum": optimum})


def optimal_weight_expr(moments: ChannelMoments, eps: sp.Symbol) -> tuple[sp.Basic, sp.Basic]:
    """(w*(ε), the worst case at w*) as Piecewise functions of ε over the optimum's pieces."""
    pieces = moments.optimum.pieces
    weight = sp.Piecewise(*[(p.weight, eps < p.high.epsilon) for p in pieces[:-1]], (pieces[-1].weight, True))
    worst = sp.Piecewise(*[(p.worst, eps < p.high.epsilon) for p in pieces[:-1]], (pieces[-1].worst, True))
    return weight, worst


def _optimal_weight(mech, moments: ChannelMoments) -> tuple[sp.Symbol, MixtureOptimum]:
    """The weight w in [0, 1] minimizing the worst-case variance, for a two-component mixture
    "w, else 1 - w" of unbiased reports whose only other parameter is ε (NotDerivable otherwise)."""
    from ldpaudit.mechanism.params import X

    parts = moments.components
    if len(parts) != 2:
        raise NotDerivable(f"the optimal weight is derived for two components; this mixture has {len(parts)}")
    first, second = parts
    w = first.weight
    params = {p.symbol: p for p in mech.parameters}
    if w not in params or simplify(second.weight - (1 - w)) != 0:
        raise NotDerivable(f"the weights {sp.sstr(first.weight)} and {sp.sstr(second.weight)} are not a free "
                           "parameter w and 1 - w")
    p = params[w]
    if p.lower != 0 or p.upper != 1 or p.lower_strict or p.upper_strict:
        raise NotDerivable(f"the weight {p.name} does not range over [0, 1]")
    others = [s for s in params if s != w]
    if len(others) != 1 or (moments.report_variance.free_symbols - {X, w}) - set(others):
        raise NotDerivable("the optimal weight is derived as a function of one parameter (ε) besides the weight")
    for c in parts:
        if simplify(c.mean - X) != 0:
            raise NotDerivable(f"component {c.index}'s report has mean {sp.sstr(c.mean)}, not x")
    return w, optimal_mixture(first.second_moment, second.second_moment, X, moments.bound, others[0], w)
