"""Randomizers with leaks the auditor used to miss (issue 12), and their correct twins.

Batch samplers f(x, n, rng). Each docstring states the leak and the true ε it yields."""
from __future__ import annotations

import math

import numpy as np

from ldpaudit.mechanism import randomizers as R


def krr_rare_error(*, d=4, epsilon=1.0, p_bad=2e-4, p_good=4e-5, bad=0, error=-1):
    """k-RR that also emits ``error`` with probability p_bad under input ``bad`` and p_good
    under the others: true ε >= ln(p_bad/p_good) (ln 5 for the defaults); the twin with
    p_bad == p_good is ε-LDP (the error output does not depend on x)."""
    base = R.krr(d=d, epsilon=epsilon)

    def sample(x, n, rng):
        y = np.asarray(base(x, n, rng))
        pe = p_bad if x == bad else p_good
        return np.where(rng.random(n) < pe, error, y)

    return sample


def oue_rare_marker(*, d=4, epsilon=1.0, p_bad=2e-4, p_good=4e-5, bad=0):
    """OUE whose report is replaced by the marker vector (2, ..., 2) with probability p_bad
    under input ``bad`` and p_good under the others (true ε >= ln 5 for the defaults)."""
    base = R.oue(d=d, epsilon=epsilon)

    def sample(x, n, rng):
        y = np.asarray(base(x, n, rng)).copy()
        pe = p_bad if x == bad else p_good
        y[rng.random(n) < pe] = 2
        return y

    return sample


def unary_true_bit_bug(*, d, epsilon, kind="oue"):
    """pure-LDP 1.1.2-style unary encoding: the true bit is kept with probability p + (1-p)q
    instead of p (it is set, then perturbed like the other bits and OR-ed back), other bits
    are 1 with probability q. kind 'sue' (symmetric, k-RAPPOR: p = e^(ε/2)/(1+e^(ε/2)),
    q = 1-p) or 'oue' (p = 1/2, q = 1/(e^ε+1)). True ε: ln(p'(1-q)/(q(1-p'))), p' = p+(1-p)q,
    a little above ε; the output law differs from the spec's in the true bit only."""
    p, q = unary_probabilities(kind, epsilon)
    keep = p + (1 - p) * q

    def sample(x, n, rng):
        y = (rng.random((n, d)) < q).astype(np.int8)
        y[:, x] = rng.random(n) < keep
        return y

    return sample


def unary_probabilities(kind, epsilon):
    if kind == "sue":
        p = math.exp(epsilon / 2) / (1 + math.exp(epsilon / 2))
        return p, 1 - p
    return 0.5, 1 / (math.exp(epsilon) + 1)


def unary_true_bit_bug_true_epsilon(epsilon, kind="oue") -> float:
    p, q = unary_probabilities(kind, epsilon)
    keep = p + (1 - p) * q
    return math.log(keep * (1 - q) / (q * (1 - keep)))


def naive_float_laplace(*, epsilon=1.0):
    """x + Laplace(1/ε) in float64 (numpy's sampler): ε-DP over the reals, not over the doubles
    (Mironov 2012): some doubles are reachable from one input only. True ε: infinite."""
    def sample(x, n, rng):
        return float(x) + rng.laplace(scale=1 / epsilon, size=n)

    return sample


def naive_float_unary_laplace(*, d=4, epsilon=1.0):
    """Unary encoding plus Laplace noise on every coordinate in float64 (the "HE" clients):
    y[j] = [j == x] + Laplace(2/ε). ε-DP over the reals (L1 sensitivity 2), not over the
    doubles: coordinate x is 1 + L, on a coarser grid near 0 than the L of the others."""
    def sample(x, n, rng):
        y = rng.laplace(scale=2 / epsilon, size=(n, d))
        y[:, x] += 1.0
        return y

    return sample


def integer_laplace(*, epsilon=1.0):
    """x + round(Laplace(1/ε)) as a float: integer-granular, outputs k with probability
    ∫_{k-1/2}^{k+1/2} Laplace(x, 1/ε), which is ε-DP for integer inputs."""
    def sample(x, n, rng):
        return float(x) + np.round(rng.laplace(scale=1 / epsilon, size=n))

    return sample


def snapping_laplace(*, epsilon=1.0, bound=64.0):
    """Mironov's snapping mechanism: clamp(Λ·round((clamp(x) + L)/Λ)) with Λ the smallest power of
    two >= 1/ε, L = sign·(1/ε)·ln(U) from a uniform double; the output grid is the same for
    every input (here Λ = 1: integers), so the doubles leak nothing beyond the real ε
    (plus the mechanism's own tiny slack)."""
    lam = 2.0 ** math.ceil(math.log2(1 / epsilon))

    def sample(x, n, rng):
        u = 1.0 - rng.random(n)                      # (0, 1]
        noise = np.where(rng.random(n) < 0.5, -1.0, 1.0) * (1 / epsilon) * np.log(u)
        y = lam * np.round((min(max(float(x), -bound), bound) + noise) / lam)
        return np.clip(y, -bound, bound)

    return sample


def discrete_laplace(*, epsilon=1.0):
    """Two-sided geometric: x + G1 - G2, G ~ Geometric(1 - e^-ε) on {0, 1, ...}: exactly ε-DP
    for integer inputs at distance 1."""
    p = 1 - math.exp(-epsilon)

    def sample(x, n, rng):
        return int(x) + rng.geometric(p, size=n) - rng.geometric(p, size=n)

    return sample


# -- local hashing --------------------------------------------------------------------------

_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def olh_hash(seed, v, g):
    """A splitmix64-style hash of (seed, v) into range(g), vectorized over numpy arrays."""
    with np.errstate(over="ignore"):
        z = np.asarray(seed).astype(np.uint64) ^ (np.asarray(v).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        z = z ^ (z >> np.uint64(31))
    return (z % np.uint64(g)).astype(np.int64)


def olh(*, d, epsilon, g=None, g_perturb=None, hash_seed=True):
    """Optimized local hashing (Wang et al. 2017): draw a 63-bit seed, report (seed, value) with
    value = h_seed(x) w.p. p = e^ε/(e^ε+g-1), else uniform over the other g-1 values.
    Faults: ``g_perturb`` computes p with a different g than the hash range (true ε =
    ln(p(g-1)/(1-p)) with that p); ``hash_seed=False`` hashes with seed 0 whatever seed it
    reports (still ε-LDP: k-RR over g fixed buckets, but useless for estimation)."""
    g = g or int(round(math.exp(epsilon))) + 1
    gp = g_perturb or g
    p = math.exp(epsilon) / (math.exp(epsilon) + gp - 1)

    def sample(x, n, rng):
        seed = rng.integers(0, 2**63 - 1, size=n, dtype=np.int64)
        h = olh_hash(seed if hash_seed else np.zeros(n, np.int64), x, g)
        other = rng.integers(0, g - 1, size=n)
        value = np.where(rng.random(n) < p, h, other + (other >= h))
        return np.stack([seed, value], axis=1)

    return sample


def olh_true_epsilon(*, epsilon, g, g_perturb):
    p = math.exp(epsilon) / (math.exp(epsilon) + g_perturb - 1)
    return math.log(p * (g - 1) / (1 - p))


def olh_support(*, d, g):
    """The feature for OLH reports: (seed, value) -> the unary vector of the inputs v with
    h_seed(v) == value (batch form: an (n, 2) array to an (n, d) array)."""
    def feature(outputs):
        out = np.asarray(outputs)
        seeds, values = out[:, 0], out[:, 1]
        return np.stack([olh_hash(seeds, v, g) == values for v in range(d)], axis=1).astype(np.int8)

    return feature
