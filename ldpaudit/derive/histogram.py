"""The histogram density estimator of a product channel such as the Laplace histogram
(Duchi, Jordan & Wainwright 2013, as the blog of seed document 001 tells it).

A density f on [0, 1] is cut into K equal bins G_j = [(j-1)/K, j/K); each user reports the
channel's privatized one-hot vector of its bin, and f̂(x) = K p̂_j on G_j, where p̂_j is the
channel's unbiased estimator of the bin probability P_j. The integrated squared error splits
into the integrated variance ∫ Var f̂ = Σ_j ∫_{G_j} K² Var p̂_j dx, derived here from the
channel (i.i.d. inputs drawn from f), and the integrated squared bias of the histogram, which
for a Hölder-β density is *modelled* as C₁² K^(-2β): the one assumption, carried with the
result. Minimizing bias² + the variance's leading term over K (d/dK = 0, solved by sympy)
gives the optimal number of bins K* and, substituted back, the rate; their exponents in n ε²
are read off by differentiating the logarithm, never typed in.

For a concrete polynomial density the bin probabilities, Σ_j P_j² and the exact integrated
squared bias ∫ f² - K Σ_j P_j² are summed in closed form in K (:func:`density_bins`), so the
model can be compared with the truth."""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ldpaudit.derive.algebra import N_USERS, leading_power, simplify
from ldpaudit.errors import NotDerivable
from ldpaudit.mechanism.core import Mechanism

#: smoothness of the Hölder class and the constant of the modelled bias C₁ K^(-β)
SMOOTHNESS = sp.Symbol("beta", positive=True)
BIAS_CONSTANT = sp.Symbol("C_1", positive=True)
#: the number of bins relaxed to a positive real for the optimization
BINS = sp.Symbol("K", positive=True)
#: the point of [0, 1] where the density is evaluated, and a bin index
POINT = sp.Symbol("x", real=True)
BIN = sp.Symbol("j", positive=True, integer=True)


@dataclass(frozen=True)
class HistogramDensity:
    """The histogram density estimator of a channel over K bins, and its optimal K and rate."""

    mechanism: str
    bin_estimator: sp.Basic           # p̂_j in terms of f_j (the mean of the reports' coordinate j)
    bin_variance: sp.Basic            # Var p̂_j in p_j (i.i.d. inputs)
    bin_factor: sp.Basic              # ∫_{G_j} K² dx: Var f̂ on G_j is K² Var p̂_j
    integrated_variance: sp.Basic     # ∫ Var f̂, in K, n, ε and S_2 = Σ_j P_j²
    leading_variance: sp.Basic        # its leading term as K -> oo
    dropped_ratio: sp.Basic           # (integrated variance - leading term) / leading term
    squared_bias: sp.Basic            # the model C₁² K^(-2β)
    risk: sp.Basic                    # squared bias + leading variance
    stationarity: sp.Basic            # d risk / dK
    second_derivative: sp.Basic       # d² risk / dK², positive for every K > 0 (convex: K* is the minimum)
    optimal_bins: sp.Basic            # K*
    rate: sp.Basic                    # risk at K*
    bins_exponent: sp.Basic           # K* ∝ (n ε²)^bins_exponent
    rate_exponent: sp.Basic           # rate ∝ (n ε²)^rate_exponent
    epsilon: sp.Symbol


def histogram_density(mech: Mechanism, *, smoothness: sp.Basic = SMOOTHNESS,
                      bias_constant: sp.Basic = BIAS_CONSTANT) -> HistogramDensity:
    """Derive the histogram estimator's integrated variance from ``mech`` (a product channel
    with a number of bins K and a privacy parameter epsilon), then K* and the rate under the
    Hölder bias model C₁² K^(-2β)."""
    from ldpaudit.derive.estimator import HitEstimator, unbiased_estimator
    from ldpaudit.derive.risk import hit_risk

    if "K" not in mech.symbols or "epsilon" not in mech.symbols:
        raise NotDerivable(f"{mech.name!r} has no free parameters K and epsilon; bind neither to derive the "
                           "optimal number of bins")
    est = unbiased_estimator(mech)
    if not isinstance(est, HitEstimator):
        raise NotDerivable(f"{mech.name!r} has no per-bin estimator p̂_j; the histogram needs a symmetric channel")
    K, eps, n = mech.symbols["K"], mech.symbols["epsilon"], N_USERS
    risk = hit_risk(est, "iid")
    bin_factor = sp.expand(sp.integrate(BINS**2, (POINT, (BIN - 1) / BINS, BIN / BINS)))
    integrated = simplify(bin_factor * risk.total.xreplace({K: BINS}))
    c, a = leading_power(integrated, BINS)
    leading = c * BINS**a
    dropped = simplify((integrated - leading) / leading)
    squared_bias = bias_constant**2 * BINS ** (-2 * smoothness)
    total = squared_bias + leading
    stationarity = sp.diff(total, BINS)
    # sympy's own check of each root is slow on symbolic powers: check them here instead
    roots = [sp.simplify(r) for r in sp.solve(stationarity, BINS, check=False, simplify=False)]
    roots = [r for r in roots if r.is_positive and sp.simplify(stationarity.xreplace({BINS: r})) == 0]
    if len(roots) != 1:
        raise NotDerivable(f"d/dK ({total}) = 0 has {len(roots)} positive solutions in K; expected one")
    optimal = roots[0]
    second = sp.diff(total, BINS, 2)
    if second.is_positive is not True:
        raise NotDerivable(f"the risk is not shown to be convex in K (d²/dK² = {second}); K = {optimal} may not be "
                           "its minimum")
    rate = sp.simplify(total.xreplace({BINS: optimal}))
    return HistogramDensity(mech.name, est.expression, risk.variance, bin_factor, integrated, leading, dropped,
                            squared_bias, total, stationarity, second, optimal, rate,
                            _exponent_in(optimal, n, eps), _exponent_in(rate, n, eps), eps)


def _exponent_in(expr: sp.Basic, n: sp.Symbol, eps: sp.Symbol) -> sp.Basic:
    """a with expr ∝ (n ε²)^a: the elasticity n ∂ log(expr)/∂n, checked to be constant and to
    equal half the elasticity in ε (so expr depends on n and ε through n ε² alone)."""
    log = sp.expand_log(sp.log(expr), force=True)
    in_n = sp.simplify(n * sp.diff(log, n))
    in_eps = sp.simplify(eps * sp.diff(log, eps) / 2)
    if in_n.has(n, eps) or sp.simplify(in_n - in_eps) != 0:
        raise NotDerivable(f"{expr} is not a power of n·ε² (elasticities {in_n} in n, {2 * in_eps} in ε)")
    return in_n


@dataclass(frozen=True)
class DensityBins:
    """A polynomial density on [0, 1] over K equal bins, in closed form in K."""

    density: sp.Basic
    cdf: sp.Basic
    bin_probability: sp.Basic         # P_j in j and K
    sum_squares: sp.Basic             # S_2 = Σ_j P_j²
    squared_integral: sp.Basic        # ∫ f²
    integrated_squared_bias: sp.Basic  # ∫ (E f̂ - f)² = ∫ f² - K S_2
    bias_exponent: sp.Basic           # ISB ~ C₁² K^bias_exponent as K -> oo
    bias_constant_squared: sp.Basic   # C₁²
    lipschitz: sp.Basic               # max |f'| on [0, 1]


def density_bins(density: sp.Basic, x: sp.Symbol = POINT) -> DensityBins:
    """Bin probabilities, Σ_j P_j² and the exact integrated squared bias of the histogram of a
    polynomial density on [0, 1] (sympy sums the polynomial in j in closed form)."""
    density = sp.sympify(density)
    if not density.is_polynomial(x) or density.free_symbols - {x}:
        raise NotDerivable(f"density {density} is not a polynomial in {x} alone; its bins are not summed in closed form")
    total = sp.integrate(density, (x, 0, 1))
    if total != 1:
        raise NotDerivable(f"density {density} integrates to {total} over [0, 1], not 1")
    critical = [r for r in sp.solve(sp.diff(density, x), x) if r.is_real and 0 <= r <= 1]
    if min(density.subs(x, v) for v in [0, 1, *critical]) < 0:
        raise NotDerivable(f"density {density} is negative somewhere on [0, 1]")
    t = sp.Symbol("t", real=True)
    cdf = sp.integrate(density.xreplace({x: t}), (t, 0, x))
    prob = sp.expand(cdf.xreplace({x: BIN / BINS}) - cdf.xreplace({x: (BIN - 1) / BINS}))
    # Σ_j of a polynomial in j, power by power (Faulhaber's sums; sympy's general summation is slower)
    square = sp.Poly(sp.expand(prob**2), BIN)
    s2 = sp.factor(sp.Add(*[c * sp.summation(BIN**k, (BIN, 1, BINS)) for (k,), c in square.terms()]))
    squared = sp.integrate(density**2, (x, 0, 1))
    isb = sp.factor(squared - BINS * s2)
    c, a = leading_power(isb, BINS)
    slope = sp.diff(density, x)
    slope_points = [0, 1, *[r for r in sp.solve(sp.diff(slope, x), x) if r.is_real and 0 <= r <= 1]]
    lipschitz = max(abs(slope.subs(x, v)) for v in slope_points)
    return DensityBins(density, cdf, prob, s2, squared, isb, a, c, lipschitz)


def exact_risk(hd: HistogramDensity, bins: DensityBins) -> sp.Basic:
    """The exact integrated squared error of the histogram estimator for a concrete density:
    the exact squared bias plus the derived integrated variance with S_2 = Σ_j P_j², in K, n, ε."""
    from ldpaudit.derive.risk import S2

    return bins.integrated_squared_bias + hd.integrated_variance.xreplace({S2: bins.sum_squares})
