"""Vectorized binomial probabilities for the shuffling bounds, accurate to ~1e-13 relative.

The pmf is Loader's saddle-point form ("Fast and accurate computation of binomial
probabilities", 2000; R's dbinom, :func:`ldpaudit.audit.binomial.pmf` is the scalar copy), here
over numpy arrays: ``exp(lgamma(...))`` loses ~1e-8 relative at n = 10^7. Tails are Boost's
regularized incomplete beta (scipy.special.betainc/betaincc), not cephes' bdtr (off by 1e-3 near
the median at n = 10^7).

Every bound built on these numbers carries :data:`REL_ERR`, a relative error budget per
evaluated quantity that is two orders of magnitude above the accuracy of both functions
(checked against exact rational arithmetic in tests/test_amplify.py).
"""
from __future__ import annotations

import math

import numpy as np

#: the relative error budget of one float64 evaluation of a pmf, a tail or a short sum of them
REL_ERR = 1e-11

_LN_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_SMALL = np.array([math.lgamma(k + 1) - (k + 0.5) * math.log(k) + k - _LN_SQRT_2PI if k else 0.0
                   for k in range(16)])


def _stirlerr(n: np.ndarray) -> np.ndarray:
    """ln(n!) - ln(sqrt(2πn) (n/e)^n) for n >= 1 (array)."""
    n = np.asarray(n, dtype=float)
    out = np.empty_like(n)
    small = n <= 15
    out[small] = _SMALL[n[small].astype(int)]
    big = n[~small]
    nn = big * big
    s0, s1, s2, s3, s4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188
    out[~small] = (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / big
    return out


def _bd0(x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """x ln(x/m) + m - x without cancellation when x is near m (arrays, x, m > 0)."""
    x, m = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(m, dtype=float))
    out = np.empty(x.shape)
    near = np.abs(x - m) < 0.1 * (x + m)
    xf, mf = x[~near], m[~near]
    out[~near] = xf * np.log(xf / mf) + mf - xf
    xn, mn = x[near], m[near]
    v = (xn - mn) / (xn + mn)
    # |v| < 0.01: the series 2x Σ_j v^(2j+1)/(2j+1) - (x - m) v (five terms: the next is below
    # 1e-20 relative); 0.01 <= |v| < 0.1: m ((1+u) log1p(u) - u) with u = (x - m)/m, which
    # loses at most two digits to cancellation there
    s = np.empty_like(v)
    small = np.abs(v) < 0.01
    vs, xs, ms = v[small], xn[small], mn[small]
    acc = (xs - ms) * vs
    ej = 2 * xs * vs
    v2 = vs * vs
    for j in range(1, 6):
        ej = ej * v2
        acc = acc + ej / (2 * j + 1)
    s[small] = acc
    u = (xn[~small] - mn[~small]) / mn[~small]
    s[~small] = mn[~small] * ((1 + u) * np.log1p(u) - u)
    out[near] = s
    return out


def pmf(k, n, p: float) -> np.ndarray:
    """P(Binomial(n, p) = k), elementwise over integer arrays k and n (0 outside 0..n)."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float))
    out = np.zeros(k.shape)
    q = 1.0 - p
    if p <= 0.0 or q <= 0.0:
        out[(k == (0 if p <= 0.0 else n))] = 1.0
        return out
    inside = (k >= 0) & (k <= n)
    low = inside & (k == 0)
    high = inside & (k == n) & (n > 0)
    mid = inside & ~low & ~high
    if low.any():
        nl = n[low]
        out[low] = np.exp(nl * math.log1p(-p))
    if high.any():
        out[high] = np.exp(n[high] * math.log(p))
    if mid.any():
        km, nm = k[mid], n[mid]
        lc = _stirlerr(nm) - _stirlerr(km) - _stirlerr(nm - km) - _bd0(km, nm * p) - _bd0(nm - km, nm * q)
        lf = 2 * _LN_SQRT_2PI + np.log(km) + np.log1p(-km / nm)
        out[mid] = np.exp(lc - 0.5 * lf)
    return out


def cdf(k, n, p: float) -> np.ndarray:
    """P(Binomial(n, p) <= k) = I_{1-p}(n - k, k + 1), elementwise (0 for k < 0, 1 for k >= n)."""
    from scipy import special

    k, n = np.broadcast_arrays(np.floor(np.asarray(k, dtype=float)), np.asarray(n, dtype=float))
    out = np.where(k >= n, 1.0, 0.0)
    mid = (k >= 0) & (k < n)
    if mid.any():
        out[mid] = special.betainc(n[mid] - k[mid], k[mid] + 1, 1 - p) if p < 1 else 0.0
    return out


def sf(k, n, p: float) -> np.ndarray:
    """P(Binomial(n, p) > k) = 1 - cdf, computed directly (no cancellation in the upper tail)."""
    from scipy import special

    k, n = np.broadcast_arrays(np.floor(np.asarray(k, dtype=float)), np.asarray(n, dtype=float))
    out = np.where(k < 0, 1.0, 0.0)
    mid = (k >= 0) & (k < n)
    if mid.any():
        out[mid] = special.betaincc(n[mid] - k[mid], k[mid] + 1, 1 - p) if p < 1 else 1.0
    return out


def chernoff_window(n: int, p: float, tail: float) -> tuple[int, int]:
    """Integers lo <= hi with P(Bin(n, p) < lo) + P(Bin(n, p) > hi) <= tail, by the Chernoff
    bound P(X >= k) <= exp(-n KL(k/n || p)) (k > np; symmetric below), each side <= tail/2.
    The KL threshold carries a 1% margin for float64 evaluation."""
    if p <= 0.0:
        return 0, 0
    if p >= 1.0:
        return n, n
    target = (math.log(2.0 / tail) * 1.01 + 1e-9) / n

    def kl(t: float) -> float:
        out = 0.0
        if t > 0:
            out += t * math.log(t / p)
        if t < 1:
            out += (1 - t) * math.log((1 - t) / (1 - p))
        return out

    def search(inside: int, outside: int) -> int:
        # the point nearest the mean with KL >= target, between inside (KL < target) and outside
        while abs(outside - inside) > 1:
            mid = (inside + outside) // 2
            if kl(mid / n) >= target:
                outside = mid
            else:
                inside = mid
        return outside

    mean = n * p
    hi_start, lo_start = min(n, math.ceil(mean)), max(0, math.floor(mean))
    hi = n if kl(1.0) < target else search(hi_start, n)          # P(X >= hi) <= tail/2
    lo = 0 if kl(0.0) < target else search(lo_start, 0)          # P(X <= lo) <= tail/2
    # the window excludes X >= hi + 1 and X <= lo - 1 (only), so it is [lo, hi]
    return lo, hi


def chernoff_window_rows(m: np.ndarray, p: float, tail: float) -> tuple[np.ndarray, np.ndarray]:
    """Elementwise :func:`chernoff_window` for Bin(m_i, p) (float arrays lo, hi), by a vectorized
    bisection on the KL threshold: P(X < lo_i) + P(X > hi_i) <= tail for every i."""
    m = np.asarray(m, dtype=float)
    if p <= 0.0 or p >= 1.0:
        v = np.zeros_like(m) if p <= 0.0 else m.copy()
        return v, v.copy()
    target = (math.log(2.0 / tail) * 1.01 + 1e-9) / np.maximum(m, 1.0)

    def kl(t):
        t = np.clip(t, 0.0, 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.where(t > 0, t * np.log(t / p), 0.0)
            b = np.where(t < 1, (1 - t) * np.log((1 - t) / (1 - p)), 0.0)
        return a + b

    mean = m * p
    out = []
    for inside, extreme in ((np.ceil(mean), m.copy()), (np.floor(mean), np.zeros_like(m))):
        reachable = kl(extreme / np.maximum(m, 1.0)) >= target
        inside, outside = inside.copy(), extreme.copy()
        for _ in range(64):
            if not np.any(np.abs(outside - inside) > 1):
                break
            mid = np.floor((inside + outside) / 2)
            far = kl(mid / np.maximum(m, 1.0)) >= target
            outside = np.where(far, mid, outside)
            inside = np.where(far, inside, mid)
        # where even the extreme value is not far enough, the window runs to it
        out.append(np.where(reachable, outside, extreme))
    hi, lo = out
    return lo, hi
