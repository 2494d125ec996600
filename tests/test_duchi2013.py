"""The rest of seed 001 in ``reproduce duchi2013``: the Laplace histogram's optimal K and rate
against an independent sympy computation, its integrated variance against a first-principles
one, the exact bias of a concrete density and of clipping against quadrature, and the
simulations' samplers against per-user reports (with planted faults they must catch).
The payload of the full target is checked in tests/test_reproduce.py::test_duchi."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from scipy import integrate

from ldpaudit.derive.algebra import N_USERS
from ldpaudit.derive.histogram import BINS, POINT, density_bins, exact_risk, histogram_density
from ldpaudit.derive.risk import S2
from ldpaudit.errors import NotDerivable
from ldpaudit.mechanism.catalog import laplace_histogram
from ldpaudit.papers.hooks import duchi2013_sim as sim

BETA22 = 6 * POINT * (1 - POINT)


@pytest.fixture(scope="module")
def hd():
    return histogram_density(laplace_histogram())


def test_optimal_bins_and_rate_against_an_independent_solution(hd):
    """bias² + variance written here, d/dK = 0 solved here: K* and the rate agree with the
    library's, and their exponents in nε² are 1/(2β+2) and -2β/(2β+2) exactly."""
    K, n = sp.Symbol("K", positive=True), sp.Symbol("n", positive=True)
    eps, beta, c = sp.Symbol("epsilon", positive=True), sp.Symbol("beta", positive=True), sp.Symbol("C_1", positive=True)
    risk = c**2 * K ** (-2 * beta) + 8 * K**2 / (n * eps**2)
    (k_star,) = sp.solve(sp.Eq(sp.diff(risk, K), 0), K)
    rate = risk.subs(K, k_star)
    lib = {s.name: s for s in hd.optimal_bins.free_symbols | hd.rate.free_symbols}
    to_test = {lib[name]: sym for name, sym in (("K", K), ("n", n), ("epsilon", eps), ("beta", beta), ("C_1", c))
               if name in lib}
    assert sp.simplify(hd.optimal_bins.xreplace(to_test) - k_star) == 0
    assert sp.simplify(hd.rate.xreplace(to_test) / rate - 1) == 0
    lib_beta = lib["beta"]
    assert sp.simplify(hd.bins_exponent - 1 / (2 * lib_beta + 2)) == 0
    assert sp.simplify(hd.rate_exponent + 2 * lib_beta / (2 * lib_beta + 2)) == 0
    # the other side: neither is the non-private exponent nor the blog's sign-flipped K exponent
    assert sp.simplify(hd.rate_exponent + 2 * lib_beta / (2 * lib_beta + 1)) != 0
    assert sp.simplify(hd.bins_exponent + 1 / (2 * lib_beta + 2)) != 0
    # numerically: at β = 1, C₁ = 1, n ε² = 8·10⁴ the optimum is K = 10 with risk 2/100
    at = {lib_beta: 1, lib["C_1"]: 1, lib["epsilon"]: 1, N_USERS: 80_000}
    assert float(hd.optimal_bins.xreplace(at)) == pytest.approx(10.0)
    assert float(hd.rate.xreplace(at)) == pytest.approx(0.02)


def test_integrated_variance_from_first_principles(hd):
    """Var of one report's coordinate j: the indicator's p_j(1 - p_j) plus the variance of
    Laplace(2/ε), integrated here; ∫ Var f̂ = Σ_j (1/K) K² Var p̂_j."""
    eps, n = hd.epsilon, N_USERS
    w = sp.Symbol("w", positive=True)
    scale = 2 / eps
    laplace_var = 2 * sp.integrate(w**2 * sp.exp(-w / scale) / (2 * scale), (w, 0, sp.oo))
    assert sp.simplify(laplace_var - 8 / eps**2) == 0
    # Σ_j p_j(1 - p_j) = 1 - S₂, and K noise terms
    expected = BINS * ((1 - S2) + BINS * laplace_var) / n
    assert sp.simplify(hd.integrated_variance - expected) == 0
    assert sp.simplify(hd.leading_variance - 8 * BINS**2 / (n * eps**2)) == 0
    # a fault: the blog's C₂/n without the factor K is not what is derived
    assert sp.simplify(hd.integrated_variance - ((1 - S2) + BINS**2 * laplace_var) / n) != 0


def test_density_bins_exact_against_quadrature():
    bins = density_bins(BETA22)
    f = sp.lambdify(POINT, BETA22)
    for K in (1, 3, 7):
        edges = np.arange(K + 1) / K
        P = [integrate.quad(f, a, b)[0] for a, b in zip(edges[:-1], edges[1:])]
        isb = sum(integrate.quad(lambda x, p=p: (K * p - f(x)) ** 2, a, b)[0] for p, a, b in zip(P, edges[:-1], edges[1:]))
        assert float(bins.integrated_squared_bias.subs(BINS, K)) == pytest.approx(isb, rel=1e-10, abs=1e-14)
        assert float(bins.sum_squares.subs(BINS, K)) == pytest.approx(sum(p * p for p in P), rel=1e-12)
    assert bins.bias_exponent == -2 and bins.bias_constant_squared == 1 and bins.lipschitz == 6
    fprime2 = integrate.quad(lambda x: (6 - 12 * x) ** 2, 0, 1)[0]
    assert float(bins.bias_constant_squared) == pytest.approx(fprime2 / 12)


@pytest.mark.parametrize("density, words", [
    (2 * POINT**2, "integrates to 2/3"),
    (3 - 4 * POINT, "negative somewhere"),
    (sp.exp(POINT) / (sp.E - 1), "not a polynomial"),
])
def test_density_bins_refuses_what_is_not_a_polynomial_density(density, words):
    with pytest.raises(NotDerivable, match=words):
        density_bins(density)


@pytest.mark.parametrize("bound", [100, 101, 105])
def test_clipping_bias_and_variance_against_quadrature(bound):
    clip = sim.clipped_normal(100, 1, bound)
    pdf = lambda x: math.exp(-((x - 100) ** 2) / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    upper = integrate.quad(lambda x: (x - bound) * pdf(x), bound, np.inf, epsabs=1e-15, epsrel=1e-12)[0]
    second = integrate.quad(lambda x: (min(x, bound) - 100) ** 2 * pdf(x), 80, 120, points=[bound], epsabs=1e-14)[0]
    # the lower tail (x < -bound) is 200 standard deviations away: below any double
    assert clip.bias_value() == pytest.approx(-upper, rel=1e-9, abs=1e-20)
    assert clip.variance_value() == pytest.approx(second - upper**2, rel=1e-9)
    assert clip.bias_value() < 0


def _per_user_imse(K, n, alpha, reps, rng, *, epsilon=None):
    """IMSE of the histogram from reports drawn user by user with the catalog's reference
    randomizer (inputs from Beta(2, 2))."""
    from ldpaudit.mechanism.randomizers import laplace_histogram as sampler

    sample = sampler(K=K, epsilon=alpha if epsilon is None else epsilon)
    edges = np.arange(K + 1) / K
    probs = np.diff(3 * edges**2 - 2 * edges**3)
    out = np.empty(reps)
    for r in range(reps):
        x = np.minimum((rng.beta(2, 2, size=n) * K).astype(int), K - 1)
        total = np.zeros(K)
        for j, count in enumerate(np.bincount(x, minlength=K)):
            if count:
                total += sample(j, int(count), rng).sum(axis=0)
        p_hat = total / n
        out[r] = 1.2 - 2 * K * p_hat @ probs + K * p_hat @ p_hat
    return out


def _beta22_bins(K: int) -> list[float]:
    x = sp.Symbol("x")
    return sim.bin_probabilities(3 * x**2 - 2 * x**3, x, K)


def test_bin_probabilities_are_exact_and_refuse_an_irrational_cdf():
    x = sp.Symbol("x")
    assert sim.bin_probabilities(3 * x**2 - 2 * x**3, x, 2) == [0.5, 0.5]
    assert sum(sim.bin_probabilities(3 * x**2 - 2 * x**3, x, 7)) == pytest.approx(1, abs=1e-15)
    with pytest.raises(ArithmeticError, match="not rational at the bin edges"):
        sim.bin_probabilities(sp.sqrt(x), x, 3)


def test_aggregate_sampler_agrees_with_per_user_reports_and_the_exact_risk(hd):
    """The simulation draws the aggregate (multinomial + Gamma differences); per-user reports
    from the reference randomizer must give the same mean IMSE, and both the exact one
    (z within 4; 1500 repetitions, fixed seeds). A randomizer at the wrong ε is caught."""
    K, n, alpha, reps = 4, 300, 0.5, 1500
    bins = density_bins(BETA22)
    exact = float(exact_risk(hd, bins).xreplace({BINS: K, N_USERS: n, hd.epsilon: alpha}))
    users = _per_user_imse(K, n, alpha, reps, np.random.default_rng(7))
    agg_mean, agg_se = sim.histogram_imse(probs=_beta22_bins(K), squared_integral=1.2,
                                          estimator=lambda f: f, K=K, n=n, alpha=alpha, reps=reps, keys=(99,))
    users_se = users.std(ddof=1) / math.sqrt(reps)
    assert abs(users.mean() - exact) / users_se < 4
    assert abs(agg_mean - exact) / agg_se < 4
    assert abs(users.mean() - agg_mean) / math.hypot(users_se, agg_se) < 4
    wrong = _per_user_imse(K, n, alpha, 300, np.random.default_rng(8), epsilon=2 * alpha)
    assert abs(wrong.mean() - exact) / (wrong.std(ddof=1) / math.sqrt(300)) > 10


def test_slope_at_a_fixed_number_of_bins_misses_the_rate():
    """The acceptance (slope within 0.1 of -1/2) can fail: without growing K with n the
    simulated slope is far from the derived exponent."""
    ns = (10**5, 10**6, 10**7, 10**8, 10**9)
    imse = [sim.histogram_imse(probs=_beta22_bins(10), squared_integral=1.2, estimator=lambda f: f, K=10,
                               n=m, alpha=0.5, reps=200, keys=(98, i))[0] for i, m in enumerate(ns)]
    assert abs(sim.fit_slope(ns, imse) + 0.5) > 0.1
    ks = [round((m * 0.25 / 8) ** 0.25) for m in ns]
    grown = [sim.histogram_imse(probs=_beta22_bins(K), squared_integral=1.2, estimator=lambda f: f,
                                K=K, n=m, alpha=0.5, reps=200, keys=(97, i))[0]
             for i, (K, m) in enumerate(zip(ks, ns))]
    assert abs(sim.fit_slope(ns, grown) + 0.5) < 0.1


def test_mean_experiment_matches_the_derived_mse_and_catches_a_wrong_scale():
    """Per-user clipped N(100, 1) data + Laplace(2M/α): the simulated MSE is within 4 SE of
    bias² + Var clip(X)/n + 8M²/(nα²); noise of scale M/α (a planted fault) is not."""
    clip = sim.clipped_normal(100, 1, 105)
    derived = lambda n, a: clip.bias_value() ** 2 + clip.variance_value() / n + 8 * 105**2 / (n * a * a)  # noqa: E731
    res = sim.mean_experiment(lambda z: z, mu=100.0, sigma=1.0, bound=105.0, alphas=(0.3, 0.7), ns=(200,), reps=800)
    for r in res["rows"]:
        assert abs(r["mse"] - derived(r["n"], r["alpha"])) / r["mse_se"] < 4
    # the fault: noise of scale M/α where the claim is α (drawn as 2M/α' with α' = 2α)
    (r,) = sim.mean_experiment(lambda z: z, mu=100.0, sigma=1.0, bound=105.0, alphas=(1.4,), ns=(200,), reps=800)["rows"]
    assert abs(r["mse"] - derived(200, 0.7)) / r["mse_se"] > 10


def test_density_rows_need_the_symbols_they_optimize():
    with pytest.raises(NotDerivable, match="K and epsilon"):
        histogram_density(laplace_histogram(K=4))
