"""Confidence bounds for the auditor: exact one-sided Clopper-Pearson bounds on event
probabilities, and the certified lower bound on ε they imply.

For an input pair (x, x') and an event S, with a ~ Bin(n, P(S|x)) and b ~ Bin(m, P(S|x')),

    ε_lb = ln( CP_lower(a, n, α') / CP_upper(b, m, α') ).

Each bound fails with probability at most α', so ε_lb > ln(P(S|x)/P(S|x')) <= ε with
probability at most 2α'. Auditing k (pair, event) candidates at α' = α/(2k) keeps the chance
of any false certificate at most α (Bonferroni).

(ε, δ). An (ε, δ)-LDP randomizer has P(S|x) <= e^ε P(S|x') + δ for every event S, so

    ε_lb(δ) = ln( (CP_lower(a, n, α') − δ) / CP_upper(b, m, α') )      (when CP_lower > δ)

is a lower bound on the ε of every (ε, δ) guarantee it could have at that δ, with the same
false-alarm probability; ε_lb(δ) > ε is CP_lower − e^ε CP_upper > δ. δ = 0 is the bound above.
"""
from __future__ import annotations

import math

import numpy as np

# scipy.special (not scipy.stats: it takes ~1 s to import) is imported where it is used: the
# processes that only sample (a cluster worker's sampling child) import engine and events but
# compute no bound.


def cp_lower(successes, trials, alpha):
    """One-sided (1-alpha) Clopper-Pearson lower bound on a binomial probability."""
    from scipy import special

    a = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        bound = special.betaincinv(a, n - a + 1, alpha)
    bound = np.where(a <= 0, 0.0, bound)
    return bound if bound.ndim else float(bound)


def cp_upper(successes, trials, alpha):
    """One-sided (1-alpha) Clopper-Pearson upper bound on a binomial probability."""
    from scipy import special

    b = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        bound = special.betaincinv(b + 1, n - b, 1 - alpha)
    bound = np.where(b >= n, 1.0, bound)
    return bound if bound.ndim else float(bound)


def epsilon_lower_bound(a: int, n: int, b: int, m: int, alpha_each: float,
                        delta: float = 0.0) -> tuple[float, float, float]:
    """(ε_lb(δ), p_lower, q_upper) for a of n hits under x and b of m hits under x':
    ε_lb(δ) = ln((p_lower − δ)/q_upper).

    ε_lb is -inf when p_lower <= δ (no evidence at all: a = 0, or too few hits at this δ)."""
    p_low = cp_lower(a, n, alpha_each)
    q_up = cp_upper(b, m, alpha_each)
    if p_low <= delta:
        return -math.inf, p_low, q_up
    return math.log((p_low - delta) / q_up), p_low, q_up


def detectable_epsilon(n: int, alpha_each: float, delta: float = 0.0) -> float:
    """The largest ε_lb(δ) any event can give with n samples per input: a = n hits under x
    and b = 0 under x', ln((CP_lower(n, n) − δ)/CP_upper(0, n)) (about ln((1 − δ) n / ln(1/α')));
    0 when CP_lower(n, n) <= δ (nothing can be certified)."""
    if n <= 0:
        return 0.0
    p_low = cp_lower(n, n, alpha_each)
    if p_low <= delta:
        return 0.0
    return math.log((p_low - delta) / cp_upper(0, n, alpha_each))


def z_value(alpha_each: float) -> float:
    from scipy import special

    return float(-special.ndtri(alpha_each)) + 0.0   # the normal quantile: stats.norm.isf without scipy.stats


def wilson_lower(phat, n, z):
    """Wilson score lower bound: a fast, smooth stand-in for CP_lower when ranking events."""
    phat = np.asarray(phat, dtype=float)
    z2 = z * z
    centre = phat + z2 / (2 * n)
    spread = z * np.sqrt(np.maximum(phat * (1 - phat), 0.0) / n + z2 / (4 * n * n))
    return np.maximum((centre - spread) / (1 + z2 / n), 0.0)


def wilson_upper(qhat, n, z):
    qhat = np.asarray(qhat, dtype=float)
    z2 = z * z
    centre = qhat + z2 / (2 * n)
    spread = z * np.sqrt(np.maximum(qhat * (1 - qhat), 0.0) / n + z2 / (4 * n * n))
    return np.minimum((centre + spread) / (1 + z2 / n), 1.0)


EXPLORE_Z = 2.0


def predicted_bound(phat, qhat, n_confirm: int, z: float, n_explore: int | None = None, delta: float = 0.0):
    """The ε_lb(δ) one expects to certify on n_confirm fresh samples per input for an event
    whose probabilities are estimated as phat (under x) and qhat (under x') from n_explore draws.

    The estimates are first made pessimistic by two standard errors (Wilson, z = 2) so that
    events seen only a handful of times in exploration are not mistaken for certainties, and
    the best of many candidates is not chosen for its luck.
    Vectorized; -inf where the lower bound on P(S|x) is at most δ."""
    log_low, log_up = predicted_bound_terms(phat, qhat, n_confirm, z, n_explore, delta)
    return log_low - log_up


def predicted_bound_terms(phat, qhat, n_confirm: int, z: float, n_explore: int | None = None, delta: float = 0.0):
    """The two logarithms whose difference is :func:`predicted_bound`: (ln of the pessimistic
    P(S|x) less δ, ln of the pessimistic P(S|x')), each a function of its own estimate (so that
    a search can tabulate them once per count)."""
    if n_explore is not None:
        phat = wilson_lower(phat, n_explore, EXPLORE_Z)
        qhat = wilson_upper(qhat, n_explore, EXPLORE_Z)
    low = wilson_lower(phat, n_confirm, z)
    up = wilson_upper(qhat, n_confirm, z)
    if delta:
        low = np.maximum(low - delta, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(low), np.log(up)


def bound_sd(phat, qhat, n: int, delta: float = 0.0):
    """Delta-method standard deviation of ln((p̂ − δ)/q̂) with n samples per input."""
    phat = np.maximum(np.asarray(phat, dtype=float), 1.0 / n)
    qhat = np.maximum(np.asarray(qhat, dtype=float), 1.0 / n)
    if delta:   # sd(p̂)/(p̂ − δ) for the first term
        gap = np.maximum(phat - delta, 1.0 / n)
        return np.sqrt(phat * (1 - phat) / (n * gap * gap) + (1 - qhat) / (n * qhat))
    return np.sqrt((1 - phat) / (n * phat) + (1 - qhat) / (n * qhat))
