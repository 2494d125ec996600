"""Seeded simulations for ``reproduce duchi2013`` (seed document 001's experiments).

* The blog's experiment: the bounded-mean Laplace mechanism on N(100, 1) data, which are
  unbounded, so each user clips x to [-M, M] before adding Laplace(2M/α) noise. The clipping
  bias and the clipped variance are derived exactly (:func:`clipped_normal`); the simulation
  draws every user's x and noise.
* The Laplace histogram density estimator: for K bins the aggregate Σ_i Z_i of n reports is, in
  law, the bin counts (multinomial) plus (2/α)(G - G') per coordinate with G, G' independent
  Gamma(n, 1) draws (a Laplace(0, 1) variable is a difference of two Exp(1) variables, and a sum
  of n Exp(1) is Gamma(n, 1)). Drawing the aggregate exactly in law keeps n up to 10⁹ cheap.

Every figure here is the same bits on every CPU: fixed seeds, one stream per point, draws from
:mod:`ldpaudit.portable` (integers and correctly rounded arithmetic only, no vectorized exp or
log, no C library, no BLAS), bin probabilities exact, sums in a fixed order, slopes by mpmath."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
import sympy as sp

from ldpaudit import portable

SEED = 20130001


def _rng(*keys: int) -> np.random.Generator:
    return np.random.default_rng([SEED, *keys])


def r6(x: float) -> float:
    """Six significant digits (the simulated figures' printed precision)."""
    return float(f"{x:.6g}")


# --- clipped normal data -------------------------------------------------------------------

_Z = sp.Symbol("z", real=True)
_A = sp.Symbol("a", real=True)


@dataclass(frozen=True)
class ClippedNormal:
    """X ~ N(mu, sigma²) clipped to [-bound, bound]: E clip(X) - mu and Var clip(X), exact."""

    mu: sp.Basic
    sigma: sp.Basic
    bound: sp.Basic
    upper_excess: sp.Basic        # g(a) = E[(Z - a)_+], Z ~ N(0, 1)
    upper_excess_square: sp.Basic  # h(a) = E[(Z² - a²) 1{Z > a}]
    bias: sp.Basic
    variance: sp.Basic

    def bias_value(self, digits: int = 15) -> float:
        return float(sp.N(self.bias, digits))

    def variance_value(self, digits: int = 15) -> float:
        return float(sp.N(self.variance, digits))


@lru_cache(maxsize=1)
def _tail_integrals() -> tuple[sp.Basic, sp.Basic]:
    """g(a) = ∫_a^∞ (z - a) φ(z) dz and h(a) = ∫_a^∞ (z² - a²) φ(z) dz from antiderivatives of
    z^k φ (Φ, -φ, Φ - zφ, by parts), each checked by differentiating it."""
    phi = sp.exp(-_Z**2 / 2) / sp.sqrt(2 * sp.pi)
    cdf = 1 - sp.erfc(_Z / sp.sqrt(2)) / 2
    tails = []
    for k, anti in enumerate((cdf, -phi, cdf - _Z * phi)):
        if sp.simplify(sp.diff(anti, _Z) - _Z**k * phi) != 0:
            raise ArithmeticError(f"{anti} is not an antiderivative of z^{k} φ(z)")
        at_infinity = anti.subs(_Z, sp.oo)
        if at_infinity is sp.nan or not at_infinity.is_finite:
            at_infinity = sp.limit(anti, _Z, sp.oo)
        tails.append(at_infinity - anti.subs(_Z, _A))
    m0, m1, m2 = tails
    return sp.expand(m1 - _A * m0), sp.expand(m2 - _A**2 * m0)


def clipped_normal(mu, sigma, bound) -> ClippedNormal:
    """clip(X) - mu = sigma·clip(Z, -(bound + mu)/sigma, (bound - mu)/sigma); with
    a⁺ = (bound - mu)/sigma and a⁻ = (bound + mu)/sigma (the lower tail by the symmetry Z -> -Z):
    bias = sigma (g(a⁻) - g(a⁺)),  Var = sigma² (1 - h(a⁺) - h(a⁻)) - bias²."""
    mu, sigma, bound = (sp.nsimplify(v) for v in (mu, sigma, bound))
    g, h = _tail_integrals()
    upper, lower = (bound - mu) / sigma, (bound + mu) / sigma
    bias = sigma * (g.subs(_A, lower) - g.subs(_A, upper))
    variance = sigma**2 * (1 - h.subs(_A, upper) - h.subs(_A, lower)) - bias**2
    return ClippedNormal(mu, sigma, bound, g, h, bias, variance)


# --- the blog's mean experiment ------------------------------------------------------------

def mean_experiment(estimator, *, mu: float, sigma: float, bound: float, alphas, ns, reps: int,
                    chunk: int = 2_000_000) -> dict:
    """Every user draws x ~ N(mu, sigma²), clips it to [-bound, bound] and reports
    clip(x) + (2·bound/α) W, W ~ Laplace(0, 1); ``estimator`` maps the mean of the reports to μ̂.
    The same draws (x, W) serve every α at a given n (common random numbers). Returns per
    (n, α): MSE of μ̂ with its standard error, mean error with its standard error."""
    out = {"rows": [], "clipped_values": 0, "values": 0}
    for i, n in enumerate(ns):
        rng = _rng(1, i)
        xbar, wbar = np.empty(reps), np.empty(reps)
        step = max(1, chunk // n)
        for start in range(0, reps, step):
            r = min(step, reps - start)
            x = portable.normal(rng, (r, n), mu, sigma)
            clipped = np.clip(x, -bound, bound)
            out["clipped_values"] += int(np.count_nonzero(clipped != x))
            xbar[start:start + r] = clipped.mean(axis=1)
            wbar[start:start + r] = portable.laplace(rng, (r, n)).mean(axis=1)
        out["values"] += reps * n
        for alpha in alphas:
            err = estimator(xbar + 2 * bound / alpha * wbar) - mu
            sq = err**2
            out["rows"].append({"n": int(n), "alpha": float(alpha), "mse": float(sq.mean()),
                                "mse_se": float(sq.std(ddof=1) / math.sqrt(reps)), "mean_error": float(err.mean()),
                                "mean_error_se": float(err.std(ddof=1) / math.sqrt(reps))})
    return out


def report_sample(*, mu: float, sigma: float, bound: float, alphas, n: int) -> dict:
    """One population of n users and its private reports at each α (for the histogram figure)."""
    rng = _rng(2)
    x = portable.normal(rng, n, mu, sigma)
    w = portable.laplace(rng, n)
    return {"x": x, "reports": {float(a): np.clip(x, -bound, bound) + 2 * bound / a * w for a in alphas}}


# --- the Laplace histogram density estimator -----------------------------------------------

def bin_probabilities(cdf, point, K: int) -> list[float]:
    """P_j = F(j/K) - F((j-1)/K), exact (a CDF with rational values at rational points, like a
    polynomial with rational coefficients), each rounded once."""
    values = [cdf.xreplace({point: sp.Rational(j, K)}) for j in range(K + 1)]
    if not all(v.is_Rational for v in values):
        raise ArithmeticError(f"the CDF {cdf} is not rational at the bin edges j/{K}; its bin probabilities "
                              "cannot be computed exactly")
    F = [Fraction(int(v.p), int(v.q)) for v in values]
    return [float(F[j + 1] - F[j]) for j in range(K)]



def histogram_imse(*, probs, squared_integral: float, estimator, K: int, n: int, alpha: float, reps: int,
                   keys: tuple[int, ...]) -> tuple[float, float]:
    """Mean and standard error over ``reps`` of ∫ (f̂ - f)², f̂ = K p̂_j on bin j, for n users
    drawn from a density with bin probabilities ``probs`` (exact, rounded once) reporting
    through the Laplace histogram with K bins at α. The aggregate is drawn exactly in law
    (module doc); for a piecewise-constant f̂ the integral is exact:
    ∫ f² - 2K Σ_j p̂_j P_j + K Σ_j p̂_j²."""
    rng = _rng(3, *keys)
    probs = np.asarray(probs, dtype=float)
    counts = portable.multinomial(rng, np.full(reps, n), probs).astype(float)
    noise = portable.standard_gamma(rng, n, (reps, K)) - portable.standard_gamma(rng, n, (reps, K))
    f = (counts + 2.0 / alpha * noise) / n               # f_j: mean of the reports' coordinate j
    p_hat = estimator(f)
    imse = squared_integral - 2 * K * (p_hat * probs).sum(axis=1) + K * (p_hat * p_hat).sum(axis=1)
    return float(imse.mean()), float(imse.std(ddof=1) / math.sqrt(reps))


def fit_slope(xs, ys) -> float:
    """Least-squares slope of log y on log x (mpmath, the same bits everywhere)."""
    return portable.loglog_slope(xs, ys)


# --- figures -------------------------------------------------------------------------------

def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_reports(sample: dict, mu: float, bound: float, path):
    from ldpaudit.papers.documents import save_png

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    reports = sample["reports"]
    span = max(float(np.percentile(np.abs(z - mu), 99)) for z in reports.values())
    bins = np.linspace(mu - span, mu + span, 121)
    for a, z in sorted(reports.items()):
        ax.hist(z, bins=bins, histtype="step", density=True, label=f"reports, α = {a:g}")
    ax.hist(sample["x"], bins=np.linspace(mu - 5, mu + 5, 41), density=True, alpha=0.4, color="k",
            label="true data N(100, 1)")
    ax.set_yscale("log")
    ax.set_xlabel(f"value (clipped to [-{bound:g}, {bound:g}], then Laplace(2M/α) added)")
    ax.set_ylabel("density")
    ax.set_title(f"n = {len(sample['x'])}: the private reports spread as 2M/α")
    ax.legend(fontsize=8)
    return save_png(fig, path)


def plot_mse_n(rows: list[dict], derived, alphas, ns, path):
    from ldpaudit.papers.documents import save_png

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    grid = np.geomspace(min(ns), max(ns), 60)
    for a, marker in zip(alphas, "osD^v"):
        pts = [r for r in rows if r["alpha"] == a]
        line = ax.errorbar([r["n"] for r in pts], [r["simulated_mse"] for r in pts], yerr=[2 * r["simulated_mse_se"] for r in pts],
                           fmt=marker, markersize=4, label=f"simulated, α = {a:g}")
        ax.plot(grid, [derived(n, a) for n in grid], ":", color=line[0].get_color())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n (users)")
    ax.set_ylabel("MSE of μ̂")
    ax.set_title("MSE against n (dotted: derived bias² + V/n + 8M²/(nα²))")
    ax.legend(fontsize=8)
    return save_png(fig, path)


def plot_mse_alpha(rows: list[dict], derived, n: int, path):
    from ldpaudit.papers.documents import save_png

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    pts = [r for r in rows if r["n"] == n]
    grid = np.linspace(0.15, 1.0, 60)
    ax.plot(grid, [derived(n, a) for a in grid], "k:", label="derived bias² + V/n + 8M²/(nα²)")
    ax.errorbar([r["alpha"] for r in pts], [r["simulated_mse"] for r in pts], yerr=[2 * r["simulated_mse_se"] for r in pts], fmt="o",
                label="simulated (± 2 SE)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("α")
    ax.set_ylabel("MSE of μ̂")
    ax.set_title(f"MSE against α at n = {n}")
    ax.legend(fontsize=8)
    return save_png(fig, path)


def plot_density(rows: list[dict], exact, alphas, path):
    from ldpaudit.papers.documents import save_png

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for a, marker in zip(alphas, "osD^v"):
        pts = [r for r in rows if r["alpha"] == a]
        ns = [r["n"] for r in pts]
        imse = [r["simulated_imse"] for r in pts]
        line = ax.errorbar(ns, imse, yerr=[2 * r["simulated_imse_se"] for r in pts], fmt=marker, markersize=4,
                           label=f"α = {a:g}: simulated (slope {fit_slope(ns, imse):.3f})")
        ax.plot(ns, [exact(r["K"], r["n"], a) for r in pts], ":", color=line[0].get_color())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n (users)")
    ax.set_ylabel("∫ (f̂ - f)²")
    ax.set_title("Laplace histogram at the derived K*: integrated squared error (dotted: exact)")
    ax.legend(fontsize=8)
    return save_png(fig, path)
