"""The analyst's aggregators of Joseph, Kulkarni, Mao & Wu (arXiv 1811.08382), vectorized
over trials: de-biasing k-ary randomized response (KVAgg1/KVAgg2), the one-round binary
(median) search over the levels of ⌊x/(w 2^j)⌋ mod 4 (EstMean1), the scale estimate of the
unknown-variance protocols, and the inverse-normal-CDF estimate μ̂ = μ₁ + σ Φ⁻¹(p̂) of KVRR2.

Reconstruction choices (the seed text lost the formulas) are stated in each docstring and
collected in the generated report ``proofs/joseph2018/``. The arithmetic gives the same bits on
every CPU (:mod:`ldpaudit.portable`): e^ε by mpmath, Φ⁻¹ by AS 241, powers of two by ldexp."""

from __future__ import annotations

import math

import numpy as np

from ldpaudit import portable


def rr_probabilities(epsilon: float, k: int) -> tuple[float, float]:
    """k-RR's (p, q) = (e^ε, 1)/(e^ε + k - 1): keep the value, report one given other value.
    By mpmath, rounded once: stable for any finite ε (no e^ε is formed as a float) and the same
    bits on every CPU (``math.exp`` differs in the last bit between C libraries)."""
    import mpmath

    with mpmath.workdps(portable.EXACT_DIGITS):
        t = mpmath.exp(mpmath.mpf(float(epsilon)))
        return float(t / (t + k - 1)), float(1 / (t + k - 1))


def rr_keep(epsilon, k: int) -> np.ndarray:
    """p = e^ε/(e^ε + k - 1) elementwise over an array of ε (as :func:`rr_probabilities`, once
    per distinct ε)."""
    eps = np.asarray(epsilon, dtype=float)
    values, index = np.unique(eps, return_inverse=True)
    keep = np.array([rr_probabilities(v, k)[0] for v in values])
    return keep[index].reshape(eps.shape)


def debias_rr(counts: np.ndarray, epsilon: float) -> np.ndarray:
    """Unbiased frequencies from k-ary randomized response counts (last axis = the k outputs).

    k-RR keeps the true value with p = e^ε/(e^ε + k - 1) and reports each other value with
    q = 1/(e^ε + k - 1), so E[c_a/m] = q + (p - q) f_a and f̂_a = (c_a/m - q)/(p - q)
    (KVAgg1 for k = 4, KVAgg2 for k = 2)."""
    counts = np.asarray(counts, dtype=float)
    k = counts.shape[-1]
    m = counts.sum(axis=-1, keepdims=True)
    p, q = rr_probabilities(epsilon, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (counts / np.maximum(m, 1) - q) / (p - q)


def median_search(freq: np.ndarray, width: float, stop: np.ndarray | int = 0) -> np.ndarray:
    """EstMean1, reconstructed as a one-round binary search for the median of the inputs.

    ``freq[..., j, a]`` estimates P(⌊x/(width·2^j)⌋ ≡ a mod 4) for levels j = 0..L-1. The search
    starts from the two blocks -1, 0 of level L-1 (the interval [-w 2^(L-1), w 2^(L-1))) and at
    each level j keeps the block (b or b+1) holding the median: P(x < (b+1) w 2^j) is estimated
    by the frequencies of the residues of blocks b-1 and b (four consecutive blocks have four
    distinct residues mod 4, which is why RR1 reports ⌊·⌋ mod 4 and not one bit: a bit cannot
    tell "just below the interval" from "its upper half"). The chosen block becomes the two
    blocks of the next level. After level ``stop`` (per trial), the estimate is the centre of
    the chosen block: within about one block width of μ when the search succeeds.
    """
    freq = np.asarray(freq, dtype=float)
    lead = freq.shape[:-2]
    levels = freq.shape[-2]
    stop = np.broadcast_to(np.asarray(stop), lead)
    b = np.full(lead, -1, dtype=np.int64)
    chosen = b.copy()
    estimate = np.zeros(lead)
    for j in range(levels - 1, -1, -1):
        f = freq[..., j, :]
        below = np.take_along_axis(f, ((b - 1) % 4)[..., None], -1)[..., 0] + \
            np.take_along_axis(f, (b % 4)[..., None], -1)[..., 0]
        chosen = np.where(below >= 0.5, b, b + 1)
        w = math.ldexp(width, j)
        done = j == stop
        estimate = np.where(done, (chosen + 0.5) * w, estimate)
        b = 2 * chosen
        if np.all(j <= stop):
            break
    return estimate


def scale_level(freq: np.ndarray, threshold: float = 0.8) -> np.ndarray:
    """The unknown-variance scale estimate (EstVar, reconstructed): the lowest level j whose
    histogram puts at least ``threshold`` of its mass on two adjacent residues mod 4.

    With block width w = w0·2^j, two adjacent blocks hold at least Φ(1.5 w/σ) - Φ(-0.5 w/σ)
    of a N(μ, σ²) sample: 0.62 at w = σ, 0.84 at w = 2σ, 0.98 at w = 4σ. So the first level
    passing 0.8 has w between about 2σ and 4σ, and σ̂ = w/2 is within a factor 2 of σ."""
    freq = np.asarray(freq, dtype=float)
    pair = freq + np.roll(freq, -1, axis=-1)
    concentrated = pair.max(axis=-1) >= threshold            # (..., L)
    levels = freq.shape[-2]
    first = np.where(concentrated.any(axis=-1), concentrated.argmax(axis=-1), levels - 1)
    return first


def inverse_normal_estimate(center, fraction_above, sigma, m) -> np.ndarray:
    """μ̂ = c + σ Φ⁻¹(p̂) from the de-biased fraction p̂ of inputs above the threshold c
    (KVAgg2 + the final step of KVGausstimate: P(x > c) = Φ((μ - c)/σ)). p̂ is clipped to
    [1/(2m), 1 - 1/(2m)] so the estimate stays finite."""
    m = np.maximum(np.asarray(m, dtype=float), 1.0)
    p = np.clip(np.nan_to_num(fraction_above, nan=0.5), 0.5 / m, 1 - 0.5 / m)
    return np.asarray(center) + np.asarray(sigma) * portable.ndtri(p)


def nearest_grid_point(x, offset, spacing):
    """The point of offset + spacing·ℤ nearest to x (ties upward)."""
    return offset + spacing * np.floor((np.asarray(x) - offset) / spacing + 0.5)


def round_log2(x) -> np.ndarray:
    """The integer nearest log₂ x (x > 0), from the binary exponent: x = m 2^e with m in [½, 1),
    so log₂ x rounds to e - 1 below m = √½ and to e from it (exact; no vectorized log2)."""
    m, e = np.frexp(np.asarray(x, dtype=float))
    return np.where(m < math.sqrt(0.5), e - 1, e).astype(np.int64)
