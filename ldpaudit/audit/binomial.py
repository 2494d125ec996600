"""The exact two-sided binomial test of the conformance checks, without scipy.stats.

scipy.stats takes ~0.6 s longer to import than scipy.special (which bounds.py already uses), and
a spec-guided audit needs only ``binomtest(k, n, p).pvalue``. This is the same test: the
probability of the outcomes no more likely than k (relative tolerance 1e-7), the other tail
found by bisection on the pmf; the tails are regularized incomplete beta functions
(scipy.special.betainc, Boost's, as scipy.stats uses; cephes' bdtr is off by 1e-3 near the
median at n = 10^7), and the pmf is Loader's saddle-point form ("Fast and accurate computation of binomial
probabilities", 2000; R's dbinom), accurate to ~1e-13 relative where exp(lgamma(...)) loses
~1e-8 at n = 10^7 and can tip the 1e-7 comparison.
"""
from __future__ import annotations

import math

_LN_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _stirlerr(n: float) -> float:
    """ln(n!) - ln(sqrt(2πn) (n/e)^n), the error of Stirling's formula."""
    if n <= 15:
        return math.lgamma(n + 1) - (n + 0.5) * math.log(n) + n - _LN_SQRT_2PI
    nn = n * n
    s0, s1, s2, s3, s4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188
    if n > 500:
        return (s0 - s1 / nn) / n
    if n > 80:
        return (s0 - (s1 - s2 / nn) / nn) / n
    if n > 35:
        return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


def _bd0(x: float, m: float) -> float:
    """x ln(x/m) + m - x, without cancellation when x is near m."""
    if abs(x - m) < 0.1 * (x + m):
        v = (x - m) / (x + m)
        s = (x - m) * v
        ej = 2 * x * v
        v *= v
        j = 1
        while True:
            ej *= v
            s1 = s + ej / (2 * j + 1)
            if s1 == s:
                return s1
            s = s1
            j += 1
    return x * math.log(x / m) + m - x


def pmf(k: int, n: int, p: float) -> float:
    """P(Binomial(n, p) = k)."""
    q = 1.0 - p
    if k < 0 or k > n:
        return 0.0
    if p == 0.0:
        return 1.0 if k == 0 else 0.0
    if q == 0.0:
        return 1.0 if k == n else 0.0
    if k == 0:
        return math.exp(-_bd0(n, n * q) - n * p if p < 0.1 else n * math.log1p(-p))
    if k == n:
        return math.exp(-_bd0(n, n * p) - n * q if q < 0.1 else n * math.log(p))
    lc = _stirlerr(n) - _stirlerr(k) - _stirlerr(n - k) - _bd0(k, n * p) - _bd0(n - k, n * q)
    lf = 2 * _LN_SQRT_2PI + math.log(k) + math.log1p(-k / n)
    return math.exp(lc - 0.5 * lf)


def pvalue(k: int, n: int, p: float) -> float:
    """The two-sided p-value of k successes in n trials against p (scipy.stats.binomtest's)."""
    from scipy import special

    k, n = int(k), int(n)
    if p <= 0.0 or p >= 1.0:
        return 1.0 if k == (0 if p <= 0.0 else n) else 0.0

    def cdf(i: int) -> float:   # P(X <= i) = I_{1-p}(n - i, i + 1)
        return 0.0 if i < 0 else 1.0 if i >= n else float(special.betainc(n - i, i + 1, 1 - p))

    def sf(i: int) -> float:    # P(X > i)
        return 1.0 - cdf(i) if i < 0 or i >= n else float(special.betaincc(n - i, i + 1, 1 - p))

    def search(a, d: float, lo: int, hi: int) -> int:
        """i in [lo - 1, hi] with a(i) <= d < a(i + 1), for a increasing on [lo, hi]."""
        while lo < hi:
            mid = lo + (hi - lo) // 2
            value = a(mid)
            if value < d:
                lo = mid + 1
            elif value > d:
                hi = mid - 1
            else:
                return mid
        return lo if a(lo) <= d else lo - 1

    d = pmf(k, n, p)
    rerr = 1 + 1e-7
    if k == p * n:
        return 1.0
    if k < p * n:
        ix = search(lambda i: -pmf(i, n, p), -d * rerr, math.ceil(p * n), n)
        y = n - ix + int(d * rerr == pmf(ix, n, p))
        return min(1.0, cdf(k) + sf(n - y))
    ix = search(lambda i: pmf(i, n, p), d * rerr, 0, math.floor(p * n))
    return min(1.0, cdf(ix) + sf(k - 1))
