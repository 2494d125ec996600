"""Confidence intervals for the mean of bounded i.i.d. values, by betting.

Waudby-Smith & Ramdas, "Estimating means of bounded random variables by betting" (JRSS-B 2024),
the hedged capital process with predictable plug-in bets. For values x_1..x_n in [0, 1] and a
candidate mean m, a gambler betting λ_t on x_t - m holds

    K⁺_t(m) = Π_{i<=t} (1 + λ⁺_i(m)(x_i - m)),   K⁻_t(m) = Π_{i<=t} (1 - λ⁻_i(m)(x_i - m)),

with λ_t = sqrt(2 log(2/α) / (n σ̂²_{t-1})) chosen from the values before t (σ̂² the running
variance around the running mean, both started at 1/2 and 1/4), truncated to λ⁺(m) <= c/m and
λ⁻(m) <= c/(1 - m) so the capital stays positive. At the true mean both are nonnegative
martingales starting at 1, so by Ville's inequality P(sup_t max(K⁺_t, K⁻_t)/2 >= 1/α) <= α:
every m where that happens is excluded, and the rest is a (1 - α) confidence interval, valid
for any distribution on [0, 1] at every n (no normal approximation). Each factor is positive
and nonincreasing in m for K⁺ (nondecreasing for K⁻), so the excluded set is the union of two
half-lines and the interval is found by bisection, each end rounded outwards.
"""

from __future__ import annotations

import math

import numpy as np

#: the bet is truncated at C/m (C/(1 - m)): the capital never loses more than C of itself per step
_C = 0.5
#: bisection steps for each end of an interval (the ends are exact to 2^-40 of the unit range)
_STEPS = 40


def _bets(x: np.ndarray, alpha: float) -> np.ndarray:
    """The predictable plug-in bets λ_t (before truncation), from the values before t."""
    n = len(x)
    t = np.arange(1, n + 1)
    mean = (0.5 + np.cumsum(x)) / (t + 1)                   # μ̂_t
    previous = np.concatenate([[0.5], mean[:-1]])           # μ̂_{t-1}
    var = (0.25 + np.cumsum((x - previous) ** 2)) / (t + 1)  # σ̂²_t
    var_before = np.concatenate([[0.25], var[:-1]])          # σ̂²_{t-1}
    return np.sqrt(2 * math.log(2 / alpha) / (n * var_before))


def _log_capital(x: np.ndarray, bets: np.ndarray, m: float, side: int) -> float:
    """log sup_t K⁺_t(m) (side +1) or log sup_t K⁻_t(m) (side -1)."""
    if side > 0:
        lam = np.minimum(bets, _C / m) if m > 0 else bets
        factors = 1 + lam * (x - m)
    else:
        lam = np.minimum(bets, _C / (1 - m)) if m < 1 else bets
        factors = 1 - lam * (x - m)
    with np.errstate(divide="ignore"):
        path = np.cumsum(np.log(np.maximum(factors, 0.0)))
    return float(max(0.0, path.max()))


def _check(values, alpha: float) -> np.ndarray:
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or len(x) < 2:
        raise ValueError("need at least two values")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha!r} must be in (0, 1)")
    if np.any(~np.isfinite(x)) or x.min() < 0 or x.max() > 1:
        raise ValueError("values must lie in [0, 1]")
    return x


def p_value(values, m: float, alpha: float, *, side: int = 0) -> float:
    """The p-value of the hypothesis mean = m (side 0), mean <= m (side +1: the gambler bets the
    mean is above m) or mean >= m (side -1): 1/sup_t of the capital (halved when both sides are
    bet on), at most 1. ``alpha`` tunes the bets only (the level the test is meant for)."""
    x = _check(values, alpha)
    bets = _bets(x, alpha)
    if side:
        log_k = _log_capital(x, bets, m, side)
    else:
        log_k = max(_log_capital(x, bets, m, 1), _log_capital(x, bets, m, -1)) - math.log(2)
    return float(min(1.0, math.exp(-log_k)))


def interval(values, alpha: float) -> tuple[float, float]:
    """A (1 - α) confidence interval for the mean of ``values`` (in [0, 1]), valid at every n."""
    x = _check(values, alpha)
    bets = _bets(x, alpha)
    threshold = math.log(2 / alpha)        # max(K⁺, K⁻)/2 >= 1/α

    def excluded(m: float, side: int) -> bool:
        return _log_capital(x, bets, m, side) >= threshold

    # K⁺ excludes a half-line [0, L) (it never bets against m = 1), K⁻ a half-line (U, 1]
    low = 0.0
    if excluded(0.0, 1):
        lo, hi = 0.0, 1.0                 # lo excluded, hi not
        for _ in range(_STEPS):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if excluded(mid, 1) else (lo, mid)
        low = lo                          # an excluded point: the interval rounded outwards
    high = 1.0
    if excluded(1.0, -1):
        lo, hi = 0.0, 1.0                 # hi excluded, lo not
        for _ in range(_STEPS):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if excluded(mid, -1) else (mid, hi)
        high = hi
    return min(low, high), max(low, high)   # (empty only on wild data: the hull is a superset)
