"""The protocols' integer decisions and constants do not hang on the last bit of a float
(issue 31.3): group sizes from exact logarithms, the order statistic's indices from the binomial
CDF in integers, k-RR's probabilities and Φ by mpmath, powers of two by the exponent."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy.stats import binom

from ldpaudit.protocol import joseph
from ldpaudit.protocol.aggregate import round_log2, rr_keep, rr_probabilities
from ldpaudit.protocol.simulate import _binomial_ppf


@pytest.mark.parametrize("x, k", [(Fraction(16), 4), (Fraction(17), 5), (Fraction(1, 3), -1), (Fraction(1, 4), -2),
                                  (Fraction(1004), 10), (Fraction(2064), 12), (Fraction(2048), 11), (Fraction(1), 0)])
def test_ceil_log2_is_exact_at_powers_of_two(x, k):
    assert joseph._ceil_log2(x) == k


def test_group_sizes():
    """σ_max/σ_min = 16 exactly: ⌈log₂ 16⌉ + 2 = 6 scales (a log2 of 4.000000000000001 would give 7)."""
    assert joseph.uv_scales(0.5, 8.0) == 6
    assert joseph.kv_levels(1000.0, 1.0) == 11 and joseph.uv_levels(1000.0, 0.5, 8.0) == 13
    for n in (16384, 65536, 262144, 10**6):
        assert joseph.kv_rho(n) == 2 * math.ceil(math.sqrt(2 * math.log(n))) + 4
        assert joseph.uv_rho(n) == math.ceil(2 * math.sqrt(2 * math.log(n))) + 5


def test_round_log2():
    x = np.array([1.0, 2.0, 0.5, 2.0**40, 3.0, 2.8, 2.9, 0.7, 0.75, 1e-300])
    assert round_log2(x).tolist() == [0, 1, -1, 40, 2, 1, 2, -1, 0, round(math.log2(1e-300))]
    assert round_log2(np.ldexp(0.5, np.arange(-10, 10)) * 2).tolist() == list(range(-10, 10))


@pytest.mark.parametrize("T", [1, 7, 200, 401])
@pytest.mark.parametrize("q", [Fraction(19, 20), Fraction(1, 2), Fraction(1, 3)])
def test_binomial_ppf_in_integers_equals_scipy(T, q):
    for level in (Fraction(1, 40), Fraction(1, 2), Fraction(39, 40)):
        assert _binomial_ppf(level, T, q) == int(binom.ppf(float(level), T, float(q)))


def test_binomial_ppf_at_a_cdf_value_exactly():
    """P(Bin(2, 1/2) <= 0) = 1/4 exactly: the smallest k reaching level 1/4 is 0, and 1 just above."""
    assert _binomial_ppf(Fraction(1, 4), 2, Fraction(1, 2)) == 0
    assert _binomial_ppf(Fraction(1, 4) + Fraction(1, 10**30), 2, Fraction(1, 2)) == 1


def test_rr_probabilities_by_mpmath_for_any_finite_epsilon():
    with mpmath.workdps(40):
        t = mpmath.e
        assert rr_probabilities(1.0, 4) == (float(t / (t + 3)), float(1 / (t + 3)))
    assert rr_probabilities(800.0, 4) == (1.0, 0.0) and rr_probabilities(1e6, 2) == (1.0, 0.0)
    keep = rr_probabilities(1.0, 4)[0]
    assert rr_keep(np.array([[1.0, 800.0], [1.0, 1.0]]), 4).tolist() == [[keep, 1.0], [keep, keep]]


def test_block_masses_sum_to_one_and_match_scipy():
    from scipy.special import ndtr

    masses = joseph._block_masses(2.3, 1.0, 1.0, 0.0, 4)
    assert abs(masses.sum() - 1) < 1e-15
    b = np.arange(-20, 25)
    ref = np.bincount(b % 4, weights=ndtr(b + 1 - 2.3) - ndtr(b - 2.3), minlength=4)
    assert np.allclose(masses, ref, atol=1e-15)
