"""Planted (ε, δ) targets for ``audit --delta`` (tests/test_audit_delta.py): the Gaussian
mechanism x + N(0, σ²) on x in [0, 1] (sensitivity Δ = 1) calibrated exactly, an undersized
one, and the Laplace mechanism (pure ε, so (ε, δ) for every δ).

Calibration: the analytic Gaussian mechanism (Balle & Wang, ICML 2018, Theorem 8): x + N(0, σ²)
with sensitivity Δ is (ε, δ)-DP iff

    δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) <= δ,

and δ(ε) decreases in σ, so the smallest such σ is found by bisection (scipy's brentq).

Outputs are snapped to a grid 2^20 times finer than the noise scale, as
``ldpaudit.mechanism.randomizers._snap`` does: rounding is post-processing of the real output
(so the calibration still holds), and it makes the doubles reachable from every input the same,
so the float-level events (Mironov 2012, a separate attack) cannot fire here.

Targets are batch randomizers ``f(x, n, rng)``; the module-level ones are for the command line
(``tests/delta_randomizers.py:gaussian_undersized``).
"""
from __future__ import annotations

import math

import numpy as np

EPSILON = 1.0
DELTA = 1e-5
SENSITIVITY = 1.0
DOMAIN = [0.0, 0.5, 1.0]        # inputs in [0, 1]; the pair (0, 1) is at the sensitivity


def gaussian_delta(sigma: float, epsilon: float, sensitivity: float = SENSITIVITY) -> float:
    """The exact δ(ε) of x + N(0, σ²) with sensitivity Δ (Balle & Wang 2018, Theorem 8)."""
    from scipy.special import log_ndtr, ndtr

    a = sensitivity / (2 * sigma)
    b = epsilon * sigma / sensitivity
    # e^ε Φ(−a − b) computed in logs: for large ε the factor and the tail are far apart.
    return float(ndtr(a - b) - math.exp(epsilon + log_ndtr(-a - b)))


def analytic_sigma(epsilon: float, delta: float, sensitivity: float = SENSITIVITY) -> float:
    """The smallest σ with gaussian_delta(σ, ε) <= δ, by bisection on δ(ε) − δ (decreasing in σ)."""
    from scipy.optimize import brentq

    lo, hi = 1e-3 * sensitivity, 1.0 * sensitivity
    while gaussian_delta(hi, epsilon, sensitivity) > delta:
        hi *= 2
    sigma = brentq(lambda s: gaussian_delta(s, epsilon, sensitivity) - delta, lo, hi, xtol=1e-14, rtol=1e-14)
    while gaussian_delta(sigma, epsilon, sensitivity) > delta:    # the root's side that satisfies the claim
        sigma = float(np.nextafter(sigma, math.inf))
    return sigma


def _snap(y: np.ndarray, scale: float) -> np.ndarray:
    grid = 2.0 ** (math.floor(math.log2(scale)) - 20)
    return np.round(y / grid) * grid


def _input(x) -> float:
    xf = float(x)
    if not 0.0 <= xf <= 1.0:
        raise ValueError(f"input x={x!r} is outside [0, 1]")
    return xf


def gaussian(sigma: float):
    """x + N(0, σ²), snapped."""
    def sample(x, n, rng):
        return _snap(_input(x) + rng.normal(0.0, sigma, size=n), sigma)

    sample.__name__ = f"gaussian_sigma_{sigma:.4g}"
    return sample


def laplace(epsilon: float):
    """x + Laplace(Δ/ε), snapped: ε-LDP, hence (ε, δ)-LDP for every δ."""
    scale = SENSITIVITY / epsilon

    def sample(x, n, rng):
        return _snap(_input(x) + rng.laplace(0.0, scale, size=n), scale)

    sample.__name__ = f"laplace_eps_{epsilon:g}"
    return sample


#: σ ≈ 3.73 for (ε, δ) = (1, 1e-5): the exact calibration (the classical √(2 ln(1.25/δ))/ε is 4.84)
SIGMA_CORRECT = analytic_sigma(EPSILON, DELTA)
#: a third of it, σ ≈ 1.24: gaussian_delta(SIGMA_UNDERSIZED, 1) ≈ 0.065, 6,500 times the claimed
#: δ = 1e-5 (asserted in test_audit_delta.py)
SIGMA_UNDERSIZED = SIGMA_CORRECT / 3

gaussian_correct = gaussian(SIGMA_CORRECT)
gaussian_undersized = gaussian(SIGMA_UNDERSIZED)
laplace_correct = laplace(EPSILON)
