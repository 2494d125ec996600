"""Goodness of fit of the reference samplers against the channel formulas, enumerated exactly.

Every discrete sampler is compared with probabilities computed here by brute force from
formulas.md with exact fractions (t = e^ε = 4, s = e^(ε/2) = 2 so everything is rational),
by a chi-square test over the full output space on 10^5 samples per input at a fixed seed:
p > 1e-3 must hold for the real sampler and p < 1e-6 for a deliberately wrong one.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from ldpaudit.errors import InvalidParameter
from ldpaudit.mechanism import randomizers as R

EPS = math.log(4)
T = Fraction(4)
S = Fraction(2)
N = 100_000


def _keys(y) -> list:
    y = np.asarray(y)
    if y.ndim == 1:
        return [int(v) for v in y]
    return [tuple(int(v) for v in row) for row in y]


def gof_pvalue(sampler, x, probs: dict, *, n=N, seed=1) -> float:
    """Chi-square p-value of n samples of sampler(x) against the exact output distribution."""
    assert sum(probs.values()) == 1
    rng = np.random.default_rng(seed)
    keys = _keys(sampler(x, n, rng))
    outside = set(keys) - set(probs)
    assert not outside, f"outputs outside the channel's support: {sorted(outside)[:5]}"
    support = list(probs)
    index = {y: i for i, y in enumerate(support)}
    observed = np.bincount([index[y] for y in keys], minlength=len(support))
    expected = np.array([float(probs[y]) for y in support]) * n
    return stats.chisquare(observed, expected).pvalue


# Exact channels, enumerated from formulas.md.

def wrr_channel(x):
    return {y: (T / (T + 1) if y == x else 1 / (T + 1)) for y in (0, 1)}


def krr_channel(x, d):
    return {y: (T / (T + d - 1) if y == x else 1 / (T + d - 1)) for y in range(d)}


def product_channel(x, d, p_one):
    """Bit-vector channel whose bit j is 1 w.p. p_one(j == x), independently."""
    out = {}
    for y in itertools.product((0, 1), repeat=d):
        prob = Fraction(1)
        for j, bit in enumerate(y):
            p = p_one(j == x)
            prob *= p if bit else 1 - p
        out[y] = prob
    return out


def krappor_channel(x, d, s=S):
    return product_channel(x, d, lambda hot: s / (1 + s) if hot else 1 / (1 + s))


def oue_channel(x, d):
    return product_channel(x, d, lambda hot: Fraction(1, 2) if hot else 1 / (T + 1))


def ksubset_channel(x, d, k):
    z = math.comb(d - 1, k - 1) * T + math.comb(d - 1, k)
    out = {}
    for subset in itertools.combinations(range(d), k):
        y = tuple(int(j in subset) for j in range(d))
        out[y] = (T if x in subset else 1) / z
    return out


def orr_channel(x, table, k):
    c_count = len(table)
    return {(c, v): Fraction(1, c_count) * (1 + (T - 1) * (table[c][x] == v)) / (T + k - 1)
            for c in range(c_count) for v in range(k)}


def rr_bit_channel(x, bit):
    b = (x >> bit) & 1
    return {y: (T / (T + 1) if y == b else 1 / (T + 1)) for y in (0, 1)}


TABLE = [[0, 1, 2], [2, 2, 0]]

CASES = [
    ("wrr", R.wrr(epsilon=EPS), [0, 1], wrr_channel),
    ("krr", R.krr(d=4, epsilon=EPS), range(4), lambda x: krr_channel(x, 4)),
    ("krappor", R.krappor(d=4, epsilon=EPS), [0, 3], lambda x: krappor_channel(x, 4)),
    ("oue", R.oue(d=4, epsilon=EPS), [0, 2], lambda x: oue_channel(x, 4)),
    ("ksubset", R.ksubset(d=4, k=2, epsilon=EPS), [0, 3], lambda x: ksubset_channel(x, 4, 2)),
    ("ksubset k=3", R.ksubset(d=5, k=3, epsilon=EPS), [1], lambda x: ksubset_channel(x, 5, 3)),
    ("orr", R.orr(hash_table=TABLE, k=3, epsilon=EPS), range(3), lambda x: orr_channel(x, TABLE, 3)),
    ("rr_bit", R.rr_bit(bits=2, bit=1, epsilon=EPS), range(4), lambda x: rr_bit_channel(x, 1)),
]


@pytest.mark.parametrize("name, sampler, inputs, channel", CASES, ids=[c[0] for c in CASES])
def test_sampler_matches_channel(name, sampler, inputs, channel):
    for x in inputs:
        p = gof_pvalue(sampler, x, channel(x))
        assert p > 1e-3, f"{name}: input {x} rejected, p = {p:.3g}"


# Deliberately wrong samplers: the same test must reject them.

def krr_wrong_normalizer(*, d, epsilon):
    """k-RR keeping x w.p. t/(t+d) instead of t/(t+d-1)."""
    t = math.exp(epsilon)

    def sample(x, n, rng):
        other = rng.integers(0, d - 1, size=n)
        other += other >= x
        return np.where(rng.random(n) < t / (t + d), x, other)

    return sample


def ksubset_wrong_inclusion(*, d, k, epsilon):
    """k-subset including x w.p. kt/(kt+d) instead of kt/(kt+d-k)."""
    t = math.exp(epsilon)
    bad_include = k * t / (k * t + d)

    def sample(x, n, rng):
        keys = rng.random((n, d))
        keys[:, x] = np.where(rng.random(n) < bad_include, -1.0, 2.0)
        chosen = np.argpartition(keys, k - 1, axis=1)[:, :k]
        out = np.zeros((n, d), dtype=bool)
        np.put_along_axis(out, chosen, True, axis=1)
        return out

    return sample


WRONG = [
    ("krr d normalizer", krr_wrong_normalizer(d=4, epsilon=EPS), 1, krr_channel(1, 4)),
    ("krappor eps not eps/2", R.krappor(d=4, epsilon=2 * EPS), 2, krappor_channel(2, 4)),
    ("ksubset wrong inclusion", ksubset_wrong_inclusion(d=4, k=2, epsilon=EPS), 0, ksubset_channel(0, 4, 2)),
    ("oue judged as krappor", R.oue(d=4, epsilon=EPS), 1, krappor_channel(1, 4)),
]


@pytest.mark.parametrize("name, sampler, x, probs", WRONG, ids=[w[0] for w in WRONG])
def test_wrong_sampler_is_rejected(name, sampler, x, probs):
    p = gof_pvalue(sampler, x, probs)
    assert p < 1e-6, f"{name} was not rejected: p = {p:.3g}"


def test_ksubset_always_k_elements_large_domain():
    y = R.ksubset(d=1000, k=269, epsilon=1.0)(17, 10_000, np.random.default_rng(3))
    assert y.shape == (10_000, 1000) and y.dtype == bool
    assert (y.sum(axis=1) == 269).all()
    g = 269 * math.e / (269 * math.e + 1000 - 269)
    # Inclusion frequency of x within 4.5 standard errors of g.
    assert abs(y[:, 17].mean() - g) < 4.5 * math.sqrt(g * (1 - g) / 10_000)


@pytest.mark.parametrize("x", [-0.8, 0.0, 1.0])
def test_laplace_mean_ks(x):
    M, eps = 1.0, 0.7
    y = R.laplace_mean(M=M, epsilon=eps)(x, N, np.random.default_rng(5))
    assert stats.kstest(y, stats.laplace(loc=x, scale=2 * M / eps).cdf).pvalue > 1e-3
    wrong = stats.laplace(loc=x, scale=M / eps).cdf
    assert stats.kstest(y, wrong).pvalue < 1e-6


@pytest.mark.parametrize("x,center", [(-10.0, 1.0), (0.5, 1.0), (2.5, 1.0), (7.0, 3.0)])
def test_joseph_uvrr2_clips_then_adds_laplace(x, center):
    """Laplace(2r/ε) around x clipped to [mu1 - r, mu1 + r] (KS against the clipped location,
    and the unclipped location rejected when they differ)."""
    r, eps = 2.0, 1.0
    y = R.joseph_uvrr2(epsilon=eps, mu1=center, r=r)(x, N, np.random.default_rng(8))
    clipped = min(max(x, center - r), center + r)
    assert stats.kstest(y, stats.laplace(loc=clipped, scale=2 * r / eps).cdf).pvalue > 1e-3
    if clipped != x:
        assert stats.kstest(y, stats.laplace(loc=x, scale=2 * r / eps).cdf).pvalue < 1e-6


def test_laplace_histogram_ks():
    K, eps, x = 4, 1.5, 2
    y = R.laplace_histogram(K=K, epsilon=eps)(x, N, np.random.default_rng(6))
    assert y.shape == (N, K)
    for j in range(K):
        dist = stats.laplace(loc=float(j == x), scale=2 / eps)
        assert stats.kstest(y[:, j], dist.cdf).pvalue > 1e-3, f"coordinate {j}"
    assert stats.kstest(y[:, 0], stats.laplace(loc=1.0, scale=2 / eps).cdf).pvalue < 1e-6


def test_sympy_parameters_accepted():
    import sympy

    y = R.krr(d=sympy.Integer(5), epsilon=sympy.log(3))(sympy.Integer(2), 10, np.random.default_rng(0))
    assert y.shape == (10,) and set(y) <= set(range(5))


@pytest.mark.parametrize("factory, kwargs, x, match", [
    (R.krr, dict(d=4, epsilon=1), 4, r"x=4 is outside the domain \{0, ..., 3\}"),
    (R.krr, dict(d=4, epsilon=1), -1, r"x=-1 is outside"),
    (R.krr, dict(d=4, epsilon=1), 1.5, r"x=1.5 .* not an integer"),
    (R.wrr, dict(epsilon=1), 2, r"x=2 is outside the domain \{0, ..., 1\}"),
    (R.krappor, dict(d=3, epsilon=1), "a", r"x='a' .* not an integer"),
    (R.ksubset, dict(d=5, k=2, epsilon=1), 5, r"x=5 is outside"),
    (R.orr, dict(hash_table=TABLE, k=3, epsilon=1), 3, r"x=3 is outside the domain \{0, ..., 2\}"),
    (R.rr_bit, dict(bits=2, bit=0, epsilon=1), 4, r"x=4 is outside the domain \{0, ..., 3\}"),
    (R.laplace_mean, dict(M=1, epsilon=1), 1.5, r"x=1.5 is outside the domain \[-1.0, 1.0\]"),
    (R.laplace_histogram, dict(K=3, epsilon=1), 3, r"x=3 is outside"),
])
def test_input_outside_domain(factory, kwargs, x, match):
    with pytest.raises(InvalidParameter, match=match):
        factory(**kwargs)(x, 10, np.random.default_rng(0))


@pytest.mark.parametrize("factory, kwargs, match", [
    (R.krr, dict(d=1, epsilon=1), r"d=1 must be >= 2"),
    (R.krr, dict(d=4, epsilon=-1), r"epsilon=-1 must be finite and >= 0"),
    (R.ksubset, dict(d=4, k=4, epsilon=1), r"k=4 must be >= 1 and <= 3"),
    (R.orr, dict(hash_table=[[0, 3]], k=3, epsilon=1), r"hash_table values must lie in"),
    (R.laplace_mean, dict(M=0, epsilon=1), r"M=0 must be finite and > 0"),
])
def test_bad_parameters(factory, kwargs, match):
    with pytest.raises(InvalidParameter, match=match):
        factory(**kwargs)


def test_rr_bit_accepts_spec_parameter_name():
    rng = np.random.default_rng(0)
    a = R.rr_bit(bits=3, j=2, epsilon=50)(4, 20, rng)
    assert (a == 1).all()
    with pytest.raises(InvalidParameter, match="exactly once"):
        R.rr_bit(bits=3, bit=1, j=2, epsilon=1)


def test_registry_covers_catalog():
    assert set(R.REFERENCE) == {"wrr", "krr", "krappor", "oue", "ksubset", "orr", "rr_bit",
                                "laplace_mean", "laplace_histogram", "joseph_rr1", "joseph_kvrr2",
                                "duchi_binary_mean", "joseph_uvrr2", "joseph_kvrr2_oneround", "orr_open", "orappor",
                                "olh", "blh", "piecewise", "hybrid", "square_wave", "gaussian"}
