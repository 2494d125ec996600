"""ldpaudit.portable: elementary functions within a few ulp of mpmath, samplers exact in law
(each law test fixes its seed, states α and the number of draws, and rejects a planted fault),
and the same bits on every CPU: a digest of every sampler's draws is pinned here, and a child
process with numpy's vector extensions, glibc's FMA/AVX variants and OpenBLAS's CPU kernels
switched off reproduces it."""

from __future__ import annotations

import json
import platform
import subprocess
import sys

import mpmath
import numpy as np
import plain_cpu
import pytest
from scipy import stats

from ldpaudit import portable as P

ALPHA = 0.001


def _ulps(got, exact):
    return np.max(np.abs(got - exact) / np.spacing(np.abs(exact)))


def test_log_exp_log1p_within_a_few_ulp_of_mpmath():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.random(2000) * 10, np.exp(rng.uniform(-700, 700, 2000)), 1 + rng.normal(size=1000) * 1e-6,
                        [5e-324, 2.0, 0.5, np.nextafter(1.0, 0), 1.7976931348623157e308]])
    assert P.log(1.0) == 0.0
    with mpmath.workdps(40):
        assert _ulps(P.log(x), np.array([float(mpmath.log(mpmath.mpf(v))) for v in x])) <= 1
        y = np.concatenate([rng.uniform(-0.9, 3, 2000), rng.normal(size=1000) * 1e-8])
        assert _ulps(P.log1p(y), np.array([float(mpmath.log1p(mpmath.mpf(v))) for v in y])) <= 4
        z = np.concatenate([rng.uniform(-700, 700, 2000), rng.normal(size=1000)])
        assert _ulps(P.exp(z), np.array([float(mpmath.exp(mpmath.mpf(v))) for v in z])) <= 1
    assert P.exp(np.array([800.0, -800.0, 0.0])).tolist() == [np.inf, 0.0, 1.0]


@pytest.mark.parametrize("n", [600, pytest.param(2000, marks=pytest.mark.slow)])
def test_ndtri_against_mpmath_in_the_centre_and_both_tails(n):
    rng = np.random.default_rng(1)
    p = np.concatenate([rng.random(n), np.exp(-rng.uniform(0, 36, n // 2)), 1 - np.exp(-rng.uniform(0, 36, n // 2))])
    p = p[(p > 0) & (p < 1)]
    with mpmath.workdps(50):
        exact = np.array([float(mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(v) - 1)) for v in p])
    assert np.max(np.abs(P.ndtri(p) - exact) / np.abs(exact)) < 1e-15
    assert P.ndtri(0.5) == 0.0


def test_fdlibm_split_of_ln2():
    """k * LN2_HI must be exact for every exponent a float can have."""
    assert float.hex(P._LN2_HI).endswith("00000p-1")
    with mpmath.workdps(60):
        assert abs(mpmath.mpf(P._LN2_HI) + mpmath.mpf(P._LN2_LO) - mpmath.log(2)) < mpmath.mpf(2) ** -85


def test_chunking_does_not_change_a_bit():
    rng = np.random.default_rng(2)
    x = rng.random(3 * P._CHUNK + 17) + 0.01
    whole = P.log(x)
    assert np.array_equal(whole, np.concatenate([P.log(x[i:i + 1000]) for i in range(0, x.size, 1000)]))
    assert np.array_equal(P.ndtri(x / 2)[::97], np.array([P.ndtri(v) for v in x[::97] / 2]))


@pytest.mark.parametrize("call, match", [
    (lambda: P.log(np.array([1.0, 0.0])), "positive and finite"),
    (lambda: P.log1p(-1.0), "finite and > -1"),
    (lambda: P.ndtri(np.array([0.5, 1.0])), r"in \(0, 1\)"),
    (lambda: P.standard_gamma(np.random.default_rng(), 0.5, 3), "shape >= 1"),
    (lambda: P.binomial(np.random.default_rng(), [3], [1.5]), "0 <= p <= 1"),
    (lambda: P.binomial(np.random.default_rng(), [-1], [0.5]), "n >= 0"),
    (lambda: P.multinomial(np.random.default_rng(), 3, [0.5, -0.1]), "weights >= 0"),
])
def test_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("S, rank", [(30, 30), (30, 7), (40, 1), (25, 0)])
def test_pseudo_inverse_factor_against_numpy(S, rank):
    """G = B Bᵀ of rank r: M Mᵀ is numpy's pinv (relative 1e-9), the rank is found, and the
    Moore-Penrose identities hold; matmul equals numpy's product to rounding."""
    rng = np.random.default_rng(S + rank)
    B = rng.normal(size=(S, rank))
    G = P.matmul(B, B.T) if rank else np.zeros((S, S))
    assert np.allclose(G, B @ B.T, rtol=1e-13, atol=1e-13)
    M, r = P.psd_pinv_factor(G)
    assert r == rank == np.linalg.matrix_rank(G)
    pinv = M @ M.T
    assert np.allclose(pinv, np.linalg.pinv(G, hermitian=True), rtol=1e-9, atol=1e-9 * max(1.0, np.abs(pinv).max()))
    assert np.allclose(G @ pinv @ G, G, atol=1e-9 * max(1.0, np.abs(G).max()))


# --- laws: Kolmogorov-Smirnov / chi-square at α = 0.001, fixed seeds, a planted fault each ------

@pytest.mark.parametrize("draw, cdf, fault", [
    (lambda rng, m: P.normal(rng, m), stats.norm.cdf, lambda rng, m: 1.02 * P.normal(rng, m)),
    (lambda rng, m: P.laplace(rng, m), stats.laplace.cdf, lambda rng, m: P.laplace(rng, m) + 0.02),
    (lambda rng, m: P.exponential(rng, m), stats.expon.cdf, lambda rng, m: 1.02 * P.exponential(rng, m)),
    (lambda rng, m: P.standard_gamma(rng, 2.5, m), stats.gamma(2.5).cdf,
     lambda rng, m: P.standard_gamma(rng, 2.55, m)),
    (lambda rng, m: P.standard_gamma(rng, 1e4, m), stats.gamma(1e4).cdf,
     lambda rng, m: P.standard_gamma(rng, 1e4, m) + 2.0),
])
def test_continuous_laws(draw, cdf, fault):
    """200,000 draws: the KS test keeps the sampler and rejects the planted fault (α = 0.001)."""
    m = 200_000
    assert stats.kstest(draw(np.random.default_rng(10), m), cdf).pvalue > ALPHA
    assert stats.kstest(fault(np.random.default_rng(10), m), cdf).pvalue < ALPHA


@pytest.mark.parametrize("n, p", [(20, 0.3), (7, 0.93), (1000, 0.4), (400, 0.97), (10**6, 0.002)])
def test_binomial_law_chi_square(n, p):
    """Inversion (n p < 10) and BTRS (n p >= 10), both sides of 1/2: 100,000 draws against the
    exact pmf (cells with expected count >= 5, tails pooled), α = 0.001; p + 0.01 is rejected."""
    def pvalue(sample, q):
        lo, hi = stats.binom.ppf(1e-5, n, q), stats.binom.ppf(1 - 1e-5, n, q)
        ks = np.arange(lo, hi + 1)
        expected = stats.binom.pmf(ks, n, p) * sample.size
        keep = expected >= 5
        edges = ks[keep]
        observed = np.array([np.count_nonzero(sample <= edges[0])]
                            + [np.count_nonzero(sample == k) for k in edges[1:-1]]
                            + [np.count_nonzero(sample >= edges[-1])])
        exp_ = np.array([stats.binom.cdf(edges[0], n, p)] + list(stats.binom.pmf(edges[1:-1], n, p))
                        + [stats.binom.sf(edges[-1] - 1, n, p)]) * sample.size
        return stats.chisquare(observed, exp_).pvalue

    m = 100_000
    sample = P.binomial(np.random.default_rng(11), np.full(m, n), p)
    assert sample.min() >= 0 and sample.max() <= n
    assert pvalue(sample, p) > ALPHA
    assert pvalue(P.binomial(np.random.default_rng(11), np.full(m, n), p + 0.01 if p < 0.9 else p - 0.01), p) < ALPHA


def test_binomial_at_a_billion_users():
    """n = 10⁹: mean and variance of 200,000 draws within 4 standard errors."""
    n, p, m = 10**9, 0.3, 200_000
    x = P.binomial(np.random.default_rng(12), np.full(m, n), p).astype(float)
    mean, var = n * p, n * p * (1 - p)
    assert abs(x.mean() - mean) <= 4 * np.sqrt(var / m)
    assert abs(x.var() / var - 1) <= 4 * np.sqrt(2 / m)


def test_multinomial_law_on_every_outcome():
    """Multinomial(4, (0.5, 0.3, 0.15, 0.05)) over its 35 outcomes, 100,000 draws, α = 0.001; the
    counts sum to n; swapping two probabilities is rejected."""
    from itertools import product
    from math import factorial

    n, p = 4, np.array([0.5, 0.3, 0.15, 0.05])
    outcomes = [c for c in product(range(n + 1), repeat=4) if sum(c) == n]
    pmf = np.array([factorial(n) / np.prod([factorial(k) for k in c]) * np.prod(p ** np.array(c)) for c in outcomes])
    index = {c: i for i, c in enumerate(outcomes)}

    def pvalue(q):
        x = P.multinomial(np.random.default_rng(13), np.full(100_000, n), q)
        assert (x.sum(axis=1) == n).all()
        observed = np.bincount([index[tuple(r)] for r in x.tolist()], minlength=len(outcomes))
        big = pmf * 100_000 >= 5
        return stats.chisquare(np.append(observed[big], observed[~big].sum()),
                               np.append(pmf[big], pmf[~big].sum()) * 100_000).pvalue

    assert pvalue(p) > ALPHA
    assert pvalue(p[[1, 0, 2, 3]]) < ALPHA


# --- the same bits everywhere ---------------------------------------------------------------------

_DIGEST_PROGRAM = r"""
import hashlib, json, sys
import numpy as np
from ldpaudit import portable as P
rng = np.random.default_rng([2024, 31])
parts = {
    "log": P.log(rng.random(10_000) * 1e3 + 1e-300),
    "exp": P.exp((rng.random(10_000) - 0.5) * 1400),
    "normal": P.normal(rng, 20_000),
    "laplace": P.laplace(rng, 20_000),
    "gamma": np.concatenate([P.standard_gamma(rng, 3.5, 5_000), P.standard_gamma(rng, 1e8, 1_000)]),
    "binomial": P.binomial(rng, rng.integers(0, 10**9, 20_000), rng.random(20_000)).astype(float),
    "multinomial": P.multinomial(rng, [10**6, 37, 10**9], rng.random((3, 300))).astype(float),
    "slope": np.array([P.loglog_slope([1, 10, 100, 1000], [3.0, 0.4, 0.05, 0.007])]),
}
B = np.random.default_rng([2024, 32]).random((60, 40))
parts["pinv"] = P.psd_pinv_factor(P.matmul(B, B.T))[0]
print(json.dumps({k: hashlib.sha256(np.ascontiguousarray(v, dtype=float).tobytes()).hexdigest()[:16]
                  for k, v in parts.items()}))
"""

#: digests of the program above on an AMD EPYC (AVX-512) under numpy 2.4; a CPU or C library on
#: which any of them differs breaks the promise of ldpaudit.portable
PINNED = {
    "log": "17e1195e2e2a8a81",
    "exp": "4164cc38d2e2a50c",
    "normal": "790bd499d083d622",
    "laplace": "45eaf4e557b177f5",
    "gamma": "a11cf28f7dc7d783",
    "binomial": "90fad71dd94ab448",
    "multinomial": "e612a9041371323e",
    "slope": "4e2ae12a16e862a5",
    "pinv": "568950b93253f5b0",
}


def _digests(plain: bool) -> dict:
    return json.loads(plain_cpu.run(["-c", _DIGEST_PROGRAM], plain=plain, timeout=300).stdout)


def test_same_bits_with_the_vector_extensions_off_and_as_pinned():
    here, plain = _digests(False), _digests(True)
    assert plain == here
    assert here == PINNED


def test_the_plainer_cpu_is_plainer():
    """The child really runs without the dispatched SIMD targets (else the test above shows nothing)."""
    from numpy._core import _multiarray_umath as umath

    env = plain_cpu.other_cpu_env()
    if "NPY_DISABLE_CPU_FEATURES" not in env:
        pytest.skip("numpy dispatches nothing beyond its baseline on this CPU")
    code = ("from numpy._core import _multiarray_umath as u; import json; "
            "print(json.dumps(sorted(f for f in u.__cpu_dispatch__ if u.__cpu_features__.get(f))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []
    assert any(umath.__cpu_features__.get(f) for f in umath.__cpu_dispatch__)
    probe = "import hashlib, numpy as np; print(hashlib.sha256(np.log(np.linspace(0.1, 50, 100001)).tobytes()).hexdigest())"
    a = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120).stdout
    b = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120).stdout
    if platform.machine().lower() in ("x86_64", "amd64") and umath.__cpu_features__.get("AVX512F"):
        assert a != b      # numpy's own log takes another path: what ldpaudit.portable avoids
