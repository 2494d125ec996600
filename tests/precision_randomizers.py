"""Randomizers whose outputs have no fixed shape or are computed below float64 (issue 23.7),
with their correct twins.

Batch samplers f(x, n, rng) unless said otherwise. Each docstring states the output's shape
or precision and the true ε."""
from __future__ import annotations

import math

import numpy as np


# -- thresholded histogram encoding ------------------------------------------------------------

def the_true_epsilon(*, epsilon=1.0, theta=0.67, scale_factor=2.0) -> float:
    """The exact ε of thresholded histogram encoding with Laplace noise of scale
    b = scale_factor/ε per coordinate and threshold θ in [0, 1]. Only the coordinates x and x'
    differ between the inputs, so the worst output set holds x and not x':
    ε = ln(A(1-B) / (B(1-A))), A = P(1 + L > θ) = 1 - e^((θ-1)/b)/2, B = P(L > θ) = e^(-θ/b)/2."""
    if not 0 <= theta <= 1:
        raise ValueError(f"theta={theta!r} must lie in [0, 1]")
    b = scale_factor / epsilon
    a = 1 - 0.5 * math.exp((theta - 1) / b)
    p = 0.5 * math.exp(-theta / b)
    return math.log(a * (1 - p) / (p * (1 - a)))


def the_client(*, d=8, epsilon=1.0, theta=0.67, scale_factor=2.0, as_list=False):
    """Thresholded histogram encoding (Wang et al., USENIX Security 2017; the THE clients of
    pure-LDP and multi-freq-ldpy): the one-hot vector of x plus Laplace noise of scale
    scale_factor/ε on each of the d coordinates, reported as the indices whose noisy value
    exceeds θ, an array of varying length (a list of them per batch). scale_factor 2 is ε-LDP
    (the noisy vector is, with L1 sensitivity 2, and thresholding is post-processing; the true
    ε is ``the_true_epsilon``, below ε); scale_factor 1 (noise sized for sensitivity 1) has the
    true ε ``the_true_epsilon(scale_factor=1)``, 1.645 for ε = 1 and θ = 0.67."""
    b = scale_factor / epsilon
    # the index array of every subset of range(d), by its bit mask (outputs share them)
    subsets = [np.flatnonzero([(mask >> j) & 1 for j in range(d)]) for mask in range(1 << d)]
    if as_list:
        subsets = [s.tolist() for s in subsets]
    weights = 1 << np.arange(d)

    def sample(x, n, rng):
        y = rng.laplace(0.0, b, size=(n, d))
        y[:, int(x)] += 1.0
        masks = (y > theta) @ weights
        return [subsets[m] for m in masks.tolist()]

    return sample


def the_client_per_call(*, d=8, epsilon=1.0, theta=0.67, scale_factor=2.0):
    """The same client called once per report, f(x) -> tuple of indices (possibly empty),
    drawing from numpy.random as a library client would."""
    b = scale_factor / epsilon

    def sample(x):
        y = np.random.laplace(0.0, b, size=d)
        y[int(x)] += 1.0
        return tuple(np.flatnonzero(y > theta).tolist())

    return sample


def pair_subset(*, d=6, epsilon=1.0, order="shuffled"):
    """2-subset selection (Wang et al. 2016, k = 2): report a set holding x with probability
    2e^ε/(2e^ε + d - 2) (x and a uniform other input), else a uniform pair of the other
    inputs; the set is ε-LDP (tight for d = 6: ratio (e^ε/2)·(d-2)/2 = e^ε). Reported as a
    tuple whose order is a fair coin (``order="shuffled"``: the tuple is as private as the set)
    or puts x first whenever it is in the set (``order="x first"``: the order leaks x, the
    tuple (x, x') never comes from x', so the tuple's true ε is infinite)."""
    e = math.exp(epsilon)
    p_in = 2 * e / (2 * e + d - 2)

    def sample(x, n, rng):
        x = int(x)
        a = rng.integers(0, d - 1, size=n)
        a += a >= x                                  # an input other than x
        b = rng.integers(0, d - 2, size=n)           # another one, other than x and a
        lo, hi = np.minimum(a, x), np.maximum(a, x)
        b += b >= lo
        b += b >= hi
        first = np.where(rng.random(n) < p_in, x, b)
        out = np.stack([first, a], axis=1)
        if order == "shuffled":
            swap = rng.random(n) < 0.5
            out[swap] = out[swap][:, ::-1]
        return out

    return sample


# -- float32, float16 and decimal outputs -----------------------------------------------------

def float32_laplace(*, epsilon=1.0):
    """x + Laplace(1/ε) computed in float32 (noise drawn in float64, rounded to float32, added
    to fl32(x) in float32 arithmetic): ε-DP over the reals, not over the floats. For x = 1 the
    outputs in [0.25, 0.5) are multiples of 2^-24 (1 + n with n in [-0.75, -0.5)); for x = 0
    they are n itself, odd multiples of 2^-25 half the time. True ε: infinite."""
    def sample(x, n, rng):
        noise = rng.laplace(0.0, 1 / epsilon, size=n).astype(np.float32)
        return np.float32(x) + noise

    return sample


def float32_onehot_laplace(*, d=8, epsilon=1.0):
    """The histogram encoding in float32: y[j] = fl32([j == x] + n_j), n_j = fl32(Laplace(2/ε)).
    Coordinate x is fl32(1 + n), the others fl32(n): in [0.25, 0.5) the odd multiples of 2^-25
    never come from coordinate x. True ε: infinite."""
    def sample(x, n, rng):
        y = rng.laplace(0.0, 2 / epsilon, size=(n, d)).astype(np.float32)
        y[:, int(x)] += np.float32(1.0)
        return y

    return sample


def snap_to_grid(y: np.ndarray, grid: float) -> np.ndarray:
    """Round to multiples of ``grid`` in the array's own precision (ldpaudit.mechanism.randomizers'
    _snap): every input reaches the same grid points."""
    g = y.dtype.type(grid)
    return np.round(y / g) * g


def float32_laplace_snapped(*, epsilon=1.0, grid=2.0 ** -10):
    """float32_laplace rounded to multiples of 2^-10 in float32: post-processing of the real
    Laplace output (up to the float32 rounding of the noise, far below the grid); ε-DP."""
    base = float32_laplace(epsilon=epsilon)

    def sample(x, n, rng):
        return snap_to_grid(base(x, n, rng), grid)

    return sample


def float32_onehot_laplace_snapped(*, d=8, epsilon=1.0, grid=2.0 ** -10):
    """float32_onehot_laplace rounded to multiples of 2^-10 in float32: ε-DP."""
    base = float32_onehot_laplace(d=d, epsilon=epsilon)

    def sample(x, n, rng):
        return snap_to_grid(base(x, n, rng), grid)

    return sample


def float32_laplace_as_float64(*, epsilon=1.0):
    """float32_laplace returned as a float64 array (computed in float32, widened afterwards):
    the precision shows only in the values, every one of them a float32. True ε: infinite."""
    base = float32_laplace(epsilon=epsilon)

    def sample(x, n, rng):
        return base(x, n, rng).astype(np.float64)

    return sample


def float16_laplace(*, epsilon=1.0):
    """x + Laplace(1/ε) in float16 (half precision, 11-bit significands). True ε: infinite."""
    def sample(x, n, rng):
        noise = rng.laplace(0.0, 1 / epsilon, size=n).astype(np.float16)
        return np.float16(x) + noise

    return sample


def decimal_laplace_coarse_noise(*, epsilon=1.0, digits=5):
    """x + Laplace(1/ε) with the noise rounded to digits - 1 decimals and the sum printed with
    ``digits`` decimals, as a program computing in decimal fixed point would: for
    x = 5·10^-digits every output is an odd multiple of 5·10^-digits, for x = 0 a multiple of
    10^-(digits-1). True ε: infinite."""
    def sample(x, n, rng):
        noise = np.round(rng.laplace(0.0, 1 / epsilon, size=n), digits - 1)
        return np.round(float(x) + noise, digits)

    return sample


def decimal_laplace_rounded(*, epsilon=1.0, digits=3):
    """x + Laplace(1/ε) rounded to ``digits`` decimals: every input reaches the same grid of
    multiples of 10^-digits (inputs on that grid); post-processing of the real output, ε-DP."""
    def sample(x, n, rng):
        return np.round(float(x) + rng.laplace(0.0, 1 / epsilon, size=n), digits)

    return sample
