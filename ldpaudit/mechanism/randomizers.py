"""Reference randomizers: exact, vectorized samplers of the catalog's channels.

Each factory takes keyword-only parameters and returns a batch sampler ``sample(x, n, rng)``
that draws ``n`` i.i.d. outputs for input ``x`` from the channel in
``/work/shared/reference/formulas.md`` without enumerating the output space. They are the
ground truth the auditor is tested against and the implementations a user can compare with.
Parameters may be Python or sympy numbers; they are converted once, at construction.
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Callable

import numpy as np

from ldpaudit.errors import InvalidParameter

Sampler = Callable[[object, int, np.random.Generator], np.ndarray]

# Rows of work per chunk for samplers that build an (n, d) matrix of random keys.
_CHUNK_CELLS = 1 << 22


def _epsilon(epsilon) -> float:
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise InvalidParameter(f"epsilon={epsilon!r} is not a number; pass a finite epsilon >= 0") from None
    if not math.isfinite(eps) or eps < 0:
        raise InvalidParameter(f"epsilon={epsilon!r} must be finite and >= 0")
    return eps


def _size(name: str, value, *, low: int, high: int | None = None) -> int:
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise InvalidParameter(f"{name}={value!r} is not an integer") from None
    if v != value and float(v) != float(value):
        raise InvalidParameter(f"{name}={value!r} is not an integer")
    if v < low or (high is not None and v > high):
        upper = "" if high is None else f" and <= {high}"
        raise InvalidParameter(f"{name}={value!r} must be >= {low}{upper}")
    return v


def _n(n) -> int:
    return _size("n", n, low=0)


def _rng(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(rng)


def _input(x, d: int, mechanism: str) -> int:
    """Check that x is an integer in [0, d) and return it as an int."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Integral, np.integer)):
        try:
            ok = float(x) == int(x)
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok or isinstance(x, (bool, np.bool_)):
            raise InvalidParameter(
                f"input x={x!r} of {mechanism} is not an integer; the domain is {{0, ..., {d - 1}}}")
    xi = int(x)
    if not 0 <= xi < d:
        raise InvalidParameter(f"input x={x!r} is outside the domain {{0, ..., {d - 1}}} of {mechanism}")
    return xi


def _binary_rr(b: int, keep: float, n: int, rng: np.random.Generator) -> np.ndarray:
    flip = rng.random(n) >= keep
    return np.where(flip, 1 - b, b).astype(np.int64)


def wrr(*, epsilon) -> Sampler:
    """Warner's randomized response on {0, 1}: y = x w.p. t/(t+1), t = e^ε."""
    eps = _epsilon(epsilon)
    keep = math.exp(eps) / (math.exp(eps) + 1.0)

    def sample(x, n, rng):
        xi = _input(x, 2, "W-RR")
        return _binary_rr(xi, keep, _n(n), _rng(rng))

    return sample


def krr(*, d, epsilon) -> Sampler:
    """k-RR: y = x w.p. t/(t+d-1), else uniform over the other d-1 values."""
    d = _size("d", d, low=2)
    eps = _epsilon(epsilon)
    t = math.exp(eps)
    keep = t / (t + d - 1)

    def sample(x, n, rng):
        xi = _input(x, d, "k-RR")
        n, rng = _n(n), _rng(rng)
        other = rng.integers(0, d - 1, size=n)
        other += other >= xi
        return np.where(rng.random(n) < keep, xi, other).astype(np.int64)

    return sample


def krappor(*, d, epsilon) -> Sampler:
    """k-RAPPOR (SUE): one-hot of x, each bit kept w.p. s/(1+s), s = e^(ε/2)."""
    d = _size("d", d, low=2)
    eps = _epsilon(epsilon)
    flip = 1.0 / (1.0 + math.exp(eps / 2))

    def sample(x, n, rng):
        xi = _input(x, d, "k-RAPPOR")
        n, rng = _n(n), _rng(rng)
        y = (rng.random((n, d)) < flip).view(np.uint8)
        y[:, xi] ^= 1
        return y

    return sample


def oue(*, d, epsilon) -> Sampler:
    """Optimized unary encoding: bit x is 1 w.p. 1/2, every other bit is 1 w.p. 1/(t+1)."""
    d = _size("d", d, low=2)
    eps = _epsilon(epsilon)
    q = 1.0 / (math.exp(eps) + 1.0)

    def sample(x, n, rng):
        xi = _input(x, d, "OUE")
        n, rng = _n(n), _rng(rng)
        u = rng.random((n, d))
        y = (u < q).view(np.uint8)
        y[:, xi] = u[:, xi] < 0.5
        return y

    return sample


def ksubset(*, d, k, epsilon) -> Sampler:
    """k-subset (Wang et al. Algorithm 1; Ye & Barg): w.p. kt/(kt+d-k) report x plus k-1
    distinct uniform others, else k distinct uniform elements other than x.

    Returns a boolean membership matrix (n, d) with exactly k True per row. The uniform
    subsets come from the k smallest of i.i.d. uniform keys, with x's key forced to the front
    (x included) or the back (x excluded)."""
    d = _size("d", d, low=2)
    k = _size("k", k, low=1, high=d - 1)
    eps = _epsilon(epsilon)
    t = math.exp(eps)
    include = k * t / (k * t + d - k)
    rows_per_chunk = max(1, _CHUNK_CELLS // d)

    def sample(x, n, rng):
        xi = _input(x, d, "k-subset")
        n, rng = _n(n), _rng(rng)
        out = np.zeros((n, d), dtype=bool)
        for lo in range(0, n, rows_per_chunk):
            m = min(rows_per_chunk, n - lo)
            keys = rng.random((m, d))
            keys[:, xi] = np.where(rng.random(m) < include, -1.0, 2.0)
            chosen = np.argpartition(keys, k - 1, axis=1)[:, :k]
            np.put_along_axis(out[lo:lo + m], chosen, True, axis=1)
        return out

    return sample


def orr(*, hash_table, k, epsilon) -> Sampler:
    """O-RR (Kairouz et al.): cohort c uniform in [C], then k-RR over [k] around hash_table[c][x].

    Returns an int array (n, 2) of (c, v)."""
    k = _size("k", k, low=2)
    eps = _epsilon(epsilon)
    try:
        table = np.array([[int(v) for v in row] for row in hash_table], dtype=np.int64)
    except (TypeError, ValueError):
        raise InvalidParameter("hash_table must be a list of rows of integers (one row per cohort)") from None
    if table.ndim != 2 or table.shape[0] == 0 or table.shape[1] == 0:
        raise InvalidParameter(f"hash_table must be a non-empty list of equal-length rows, got shape {table.shape}")
    if table.min() < 0 or table.max() >= k:
        raise InvalidParameter(f"hash_table values must lie in {{0, ..., {k - 1}}}; found {table.min()}..{table.max()}")
    cohorts, d = table.shape
    t = math.exp(eps)
    keep = t / (t + k - 1)

    def sample(x, n, rng):
        xi = _input(x, d, "O-RR")
        n, rng = _n(n), _rng(rng)
        c = rng.integers(0, cohorts, size=n)
        h = table[c, xi]
        other = rng.integers(0, k - 1, size=n)
        other += other >= h
        v = np.where(rng.random(n) < keep, h, other)
        return np.stack([c, v], axis=1).astype(np.int64)

    return sample


def _hash_rows(hash_table, k: int, what: str) -> np.ndarray:
    try:
        table = np.array(hash_table, dtype=np.int64)
    except (TypeError, ValueError):
        raise InvalidParameter(f"{what} must be a rectangular table of integers") from None
    if table.size == 0 or table.min() < 0 or table.max() >= k:
        raise InvalidParameter(f"{what} values must lie in {{0, ..., {k - 1}}}")
    return table


def local_hashing(*, d, g, epsilon) -> Sampler:
    """Local hashing with the all-functions family (OLH at g = round(e^ε) + 1, BLH at g = 2;
    Wang et al. 2017): the user's cohort c is a uniform function [d] -> [g], drawn as its d
    base-g digits (c = Σ_x digit_x g^x); the report is (c, g-ary RR of digit_x).

    Returns an int array (n, 2) of (c, v); needs g^d < 2^63."""
    d = _size("d", d, low=2)
    g = _size("g", g, low=2)
    if g**d >= 2**63:
        raise InvalidParameter(f"g**d = {g}**{d} cohorts do not fit the int64 output; use a smaller d or g")
    eps = _epsilon(epsilon)
    t = math.exp(eps)
    keep = t / (t + g - 1)
    powers = np.array([g**x for x in range(d)], dtype=np.int64)

    def sample(x, n, rng):
        xi = _input(x, d, "local hashing")
        n, rng = _n(n), _rng(rng)
        digits = rng.integers(0, g, size=(n, d))
        c = digits @ powers
        h = digits[:, xi]
        other = rng.integers(0, g - 1, size=n)
        other += other >= h
        v = np.where(rng.random(n) < keep, h, other)
        return np.stack([c, v], axis=1).astype(np.int64)

    return sample


def blh(*, d, epsilon) -> Sampler:
    """Binary local hashing: local hashing with g = 2."""
    return local_hashing(d=d, g=2, epsilon=epsilon)


def hadamard(*, d, epsilon) -> Sampler:
    """Binary Hadamard response (Cormode, Kulkarni & Srivastava 2018; Apple's HRR): a column j
    uniform in [K], K the smallest power of two > d, and b = popcount((x + 1) & j) mod 2 (the
    entry H[x + 1, j] as a bit) kept with probability e^ε/(e^ε + 1), flipped otherwise.

    Returns an int array (n, 2) of (j, b)."""
    from ldpaudit.mechanism.hashing import parity

    d = _size("d", d, low=2, high=2**62 - 1)
    K = 1 << d.bit_length()
    t = math.exp(_epsilon(epsilon))
    keep = t / (t + 1)

    def sample(x, n, rng):
        xi = _input(x, d, "Hadamard response")
        n, rng = _n(n), _rng(rng)
        j = rng.integers(0, K, size=n, dtype=np.int64)
        h = parity(j.astype(np.uint64) & np.uint64(xi + 1)).astype(np.int64)
        b = np.where(rng.random(n) < keep, h, 1 - h)
        return np.stack([j, b], axis=1)

    return sample


def orappor(*, hash_table, k, epsilon) -> Sampler:
    """O-RAPPOR (Kairouz et al.): cohort c uniform, a k-bit Bloom filter with the bits
    hash_table[c][i][x] (i < h) set, then every bit kept w.p. s/(1+s), s = e^(ε/(2h)).

    Returns an int array (n, 1 + k) of (c, b_0, ..., b_{k-1})."""
    k = _size("k", k, low=2)
    table = _hash_rows(hash_table, k, "hash_table")
    if table.ndim != 3:
        raise InvalidParameter(f"hash_table must be indexed [c][i][x] (3 levels), got shape {table.shape}")
    cohorts, h, d = table.shape
    eps = _epsilon(epsilon)
    flip = 1.0 / (1.0 + math.exp(eps / (2 * h)))

    def sample(x, n, rng):
        xi = _input(x, d, "O-RAPPOR")
        n, rng = _n(n), _rng(rng)
        c = rng.integers(0, cohorts, size=n)
        bloom = np.zeros((n, k), dtype=np.int64)
        for i in range(h):
            bloom[np.arange(n), table[c, i, xi]] = 1
        noisy = bloom ^ (rng.random((n, k)) < flip)
        return np.concatenate([c[:, None], noisy], axis=1).astype(np.int64)

    return sample


def rr_bit(*, bits, bit=None, epsilon, j=None) -> Sampler:
    """RR1 (Joseph et al.): binary randomized response on bit ``bit`` of x in [0, 2^bits).

    ``j`` is accepted as another name for ``bit`` (the spec file's parameter name)."""
    if (bit is None) == (j is None):
        raise InvalidParameter("give the reported bit as bit= (or j=), exactly once")
    bit = j if bit is None else bit
    bits = _size("bits", bits, low=1, high=62)
    bit = _size("bit", bit, low=0, high=bits - 1)
    eps = _epsilon(epsilon)
    keep = math.exp(eps) / (math.exp(eps) + 1.0)

    def sample(x, n, rng):
        xi = _input(x, 1 << bits, "RR on one bit")
        return _binary_rr((xi >> bit) & 1, keep, _n(n), _rng(rng))

    return sample


def _snap(y: np.ndarray, scale: float) -> np.ndarray:
    """Round real outputs to multiples of a power of two 2^20 times finer than the noise scale.
    ``x + Laplace`` in float64 is not private over the doubles (the values reachable from two
    inputs differ below the grid of y - x; Mironov, CCS 2012); rounding to a grid far coarser
    than the noise's float granularity is post-processing of the real Laplace output and
    reaches the same doubles from every input."""
    grid = 2.0 ** (math.floor(math.log2(scale)) - 20)
    return np.round(y / grid) * grid


def laplace_mean(*, M, epsilon) -> Sampler:
    """Laplace mechanism for a bounded mean: y = x + Laplace(2M/ε), x in [-M, M], rounded to
    a grid 2^20 times finer than the noise scale (see ``_snap``)."""
    try:
        bound = float(M)
    except (TypeError, ValueError):
        raise InvalidParameter(f"M={M!r} is not a number") from None
    if not math.isfinite(bound) or bound <= 0:
        raise InvalidParameter(f"M={M!r} must be finite and > 0")
    eps = _epsilon(epsilon)
    if eps == 0:
        raise InvalidParameter("epsilon=0 gives infinite Laplace noise; pass epsilon > 0")
    scale = 2.0 * bound / eps

    def sample(x, n, rng):
        try:
            xf = float(x)
        except (TypeError, ValueError):
            raise InvalidParameter(f"input x={x!r} of Laplace mean is not a number; the domain is [-{bound}, {bound}]") from None
        if not -bound <= xf <= bound:
            raise InvalidParameter(f"input x={x!r} is outside the domain [-{bound}, {bound}] of Laplace mean")
        n, rng = _n(n), _rng(rng)
        return _snap(xf + rng.laplace(0.0, scale, size=n), scale)

    return sample


def laplace_histogram(*, K, epsilon) -> Sampler:
    """Laplace histogram: one-hot of bin x plus Laplace(2/ε) noise on each of the K coordinates,
    rounded to a grid 2^20 times finer than the noise scale (see ``_snap``)."""
    K = _size("K", K, low=1)
    eps = _epsilon(epsilon)
    if eps == 0:
        raise InvalidParameter("epsilon=0 gives infinite Laplace noise; pass epsilon > 0")
    scale = 2.0 / eps

    def sample(x, n, rng):
        xi = _input(x, K, "Laplace histogram")
        n, rng = _n(n), _rng(rng)
        y = rng.laplace(0.0, scale, size=(n, K))
        y[:, xi] += 1.0
        return _snap(y, scale)

    return sample


def _real(name: str, value, *, positive: bool = False) -> Fraction:
    """A real parameter or input as an exact Fraction (sympy numbers via their text)."""
    if isinstance(value, (bool, np.bool_)):
        raise InvalidParameter(f"{name}={value!r} is not a real number")
    try:
        out = Fraction(value) if isinstance(value, (numbers.Rational, float, np.floating, np.integer)) else Fraction(str(value))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        try:
            out = Fraction(float(value))
        except (TypeError, ValueError, OverflowError):
            raise InvalidParameter(f"{name}={value!r} is not a real number") from None
    if positive and out <= 0:
        raise InvalidParameter(f"{name}={value!r} must be > 0")
    return out


def _real_input(x, mechanism: str, low=None, high=None) -> Fraction:
    try:
        xf = _real("x", x)
    except InvalidParameter:
        raise InvalidParameter(f"input x={x!r} of {mechanism} is not a real number") from None
    if not math.isfinite(float(xf)) or (low is not None and xf < low) or (high is not None and xf > high):
        raise InvalidParameter(f"input x={x!r} is outside the domain of {mechanism}")
    return xf


def joseph_rr1(*, epsilon, s, j) -> Sampler:
    """RR1 (Joseph et al.): 4-ary randomized response on floor(x/(s*2^j)) mod 4 — the true
    residue w.p. t/(t+3), each other residue w.p. 1/(t+3), t = e^ε. The residue is computed
    exactly (x as the exact rational value of the float)."""
    eps = _epsilon(epsilon)
    scale = _real("s", s, positive=True) * Fraction(2) ** int(_size("j", j, low=-1074))
    keep = math.exp(eps) / (math.exp(eps) + 3.0)

    def sample(x, n, rng):
        v = math.floor(_real_input(x, "Joseph RR1") / scale) % 4
        n, rng = _n(n), _rng(rng)
        other = (v + rng.integers(1, 4, size=n)) % 4
        return np.where(rng.random(n) < keep, v, other).astype(np.int64)

    return sample


def joseph_kvrr2(*, epsilon, mu1, sigma) -> Sampler:
    """KVRR2 (Joseph et al.): binary randomized response on the sign of (x - mu1)/sigma
    (+1 on a tie): the true sign w.p. t/(t+1), t = e^ε. Outputs -1 or +1."""
    eps = _epsilon(epsilon)
    center = _real("mu1", mu1)
    _real("sigma", sigma, positive=True)
    keep = math.exp(eps) / (math.exp(eps) + 1.0)

    def sample(x, n, rng):
        sign = 1 if _real_input(x, "Joseph KVRR2") >= center else -1
        n, rng = _n(n), _rng(rng)
        return np.where(rng.random(n) < keep, sign, -sign).astype(np.int64)

    return sample


def joseph_kvrr2_oneround(*, epsilon, g, rho, sigma) -> Sampler:
    """1RoundKVRR2 (Joseph et al.): binary randomized response on the sign of x - z(x), z(x) the
    nearest point of the grid {g + b rho sigma} (ties round up; +1 on x = z(x)). Exact
    rational arithmetic for the grid point."""
    eps = _epsilon(epsilon)
    offset = _real("g", g)
    spacing = Fraction(_size("rho", rho, low=1)) * _real("sigma", sigma, positive=True)
    keep = math.exp(eps) / (math.exp(eps) + 1.0)

    def sample(x, n, rng):
        xf = _real_input(x, "Joseph 1RoundKVRR2")
        nearest = offset + spacing * math.floor((xf - offset) / spacing + Fraction(1, 2))
        sign = 1 if xf >= nearest else -1
        n, rng = _n(n), _rng(rng)
        return np.where(rng.random(n) < keep, sign, -sign).astype(np.int64)

    return sample


def duchi_binary_mean(*, B, epsilon) -> Sampler:
    """Duchi, Jordan & Wainwright's two-point mean mechanism on x in [-B, B]: +1 w.p.
    1/2 + x (t-1)/(2B(t+1)), else -1 (the report is ±B(t+1)/(t-1)), t = e^ε."""
    eps = _epsilon(epsilon)
    bound = _real("B", B, positive=True)
    t = math.exp(eps)

    def sample(x, n, rng):
        xf = _real_input(x, "Duchi binary mean", -bound, bound)
        p_plus = 0.5 + float(xf / bound) * (t - 1.0) / (2.0 * (t + 1.0))
        n, rng = _n(n), _rng(rng)
        return np.where(rng.random(n) < p_plus, 1, -1).astype(np.int64)

    return sample


def joseph_uvrr2(*, epsilon, mu1, r) -> Sampler:
    """UVRR2 (Joseph et al.): x clipped to [mu1 - r, mu1 + r], plus Laplace noise of scale
    2r/ε (the clipped value has sensitivity 2r), rounded to a grid (see ``_snap``)."""
    eps = _epsilon(epsilon)
    if eps == 0:
        raise InvalidParameter("epsilon=0 gives infinite Laplace noise; pass epsilon > 0")
    center, half = _real("mu1", mu1), _real("r", r, positive=True)
    scale = 2.0 * float(half) / eps

    def sample(x, n, rng):
        clipped = float(min(max(_real_input(x, "Joseph UVRR2"), center - half), center + half))
        n, rng = _n(n), _rng(rng)
        return _snap(clipped + rng.laplace(0.0, scale, size=n), scale)

    return sample


def _band_or_rest(x: float, lo: float, hi: float, left: float, right: float, inside: float, n: int,
                  rng: np.random.Generator) -> np.ndarray:
    """w.p. ``inside`` uniform on the band [lo, hi], else uniform on [left, lo) ∪ (hi, right]."""
    u = rng.random(n)
    band = lo + (hi - lo) * rng.random(n)
    left_len, right_len = lo - left, right - hi
    v = (left_len + right_len) * rng.random(n)
    rest = np.where(v < left_len, left + v, hi + (v - left_len))
    return np.where(u < inside, band, rest)


def piecewise(*, epsilon) -> Sampler:
    """Piecewise mechanism (Wang et al., ICDE 2019, Algorithm 2): x in [-1, 1]; w.p.
    e^(ε/2)/(e^(ε/2) + 1) uniform on the band [l(x), r(x)], else uniform on the rest of [-C, C],
    rounded to a grid 2^20 times finer than C (see ``_snap``)."""
    eps = _epsilon(epsilon)
    if eps == 0:
        raise InvalidParameter("epsilon=0 gives an unbounded output range; pass epsilon > 0")
    s = math.exp(eps / 2)
    C = (s + 1) / (s - 1)

    def sample(x, n, rng):
        xf = float(_real_input(x, "Piecewise mechanism", -1, 1))
        lo = (C + 1) / 2 * xf - (C - 1) / 2
        hi = lo + C - 1
        return _snap(_band_or_rest(xf, lo, hi, -C, C, s / (s + 1), _n(n), _rng(rng)), C)

    return sample


def hybrid(*, epsilon, beta) -> Sampler:
    """Hybrid mechanism (Wang et al., ICDE 2019, §III-C): x in [-1, 1]; w.p. β the Piecewise
    mechanism's report (``piecewise``), else Duchi et al.'s one-bit report ±B, B = (t+1)/(t-1),
    t = e^ε (``duchi_binary_mean`` with bound 1, its label times B). Outputs float64 reals."""
    eps = _epsilon(epsilon)
    if eps == 0:
        raise InvalidParameter("epsilon=0 gives an unbounded output range; pass epsilon > 0")
    weight = float(_real("beta", beta))
    if not 0 <= weight <= 1:
        raise InvalidParameter(f"beta={beta!r} must be in [0, 1] (the probability of reporting with the Piecewise mechanism)")
    pm, one_bit = piecewise(epsilon=epsilon), duchi_binary_mean(B=1, epsilon=epsilon)
    t = math.exp(eps)
    B = (t + 1) / (t - 1)

    def sample(x, n, rng):
        _real_input(x, "Hybrid mechanism", -1, 1)
        n, rng = _n(n), _rng(rng)
        use_pm = rng.random(n) < weight
        out = one_bit(x, n, rng).astype(np.float64) * B
        k = int(use_pm.sum())
        if k:
            out[use_pm] = pm(x, k, rng)
        return out

    return sample


def square_wave(*, epsilon, b) -> Sampler:
    """Square Wave (Li et al., SIGMOD 2020): x in [0, 1]; w.p. 2b e^ε/(2b e^ε + 1) uniform on
    [x - b, x + b], else uniform on the rest of [-b, 1 + b], rounded to a grid 2^20 times finer
    than 1 + 2b (see ``_snap``)."""
    eps = _epsilon(epsilon)
    half = float(_real("b", b, positive=True))
    t = math.exp(eps)

    def sample(x, n, rng):
        xf = float(_real_input(x, "Square wave", 0, 1))
        inside = 2 * half * t / (2 * half * t + 1)
        return _snap(_band_or_rest(xf, xf - half, xf + half, -half, 1 + half, inside, _n(n), _rng(rng)), 1 + 2 * half)

    return sample


def gaussian(*, sigma, epsilon=None) -> Sampler:
    """Gaussian mechanism: x + N(0, σ²) on x in [0, 1], rounded to a grid 2^20 times finer than σ
    (see ``_snap``); ε only names the claim and does not change the sampler."""
    scale = float(_real("sigma", sigma, positive=True))

    def sample(x, n, rng):
        xf = float(_real_input(x, "Gaussian mechanism", 0, 1))
        return _snap(xf + _rng(rng).normal(0.0, scale, size=_n(n)), scale)

    return sample


def _box_input(x, d: int, mechanism: str) -> np.ndarray:
    """A vector input of d coordinates in [-1, 1] as float64 (each coordinate checked exactly)."""
    try:
        coords = list(x)
    except TypeError:
        raise InvalidParameter(f"input x={x!r} of {mechanism} is not a vector of {d} numbers") from None
    if len(coords) != d:
        raise InvalidParameter(f"input x={x!r} of {mechanism} has {len(coords)} coordinates; expected d = {d}")
    return np.array([float(_real_input(c, mechanism, -1, 1)) for c in coords])


def _keep(eps: float) -> float:
    return math.exp(eps) / (math.exp(eps) + 1.0)


def duchi_multidim(*, epsilon, d) -> Sampler:
    """Duchi, Jordan & Wainwright's ℓ∞ mechanism on x in [-1, 1]^d (specs/duchi_multidim.toml):
    a latent sign vector v, P(v_j = 1) = (1 + x_j)/2; then s in {-1, 1}^d with P(s | v) =
    keep/2^(d-1) when <s, v> > 0, (1 - keep)/2^(d-1) when < 0 and 1/2^d on a tie, keep =
    e^ε/(e^ε + 1), drawn exactly by rejection from the uniform s (acceptance 1, e^-ε and
    1/(2 keep)); the report is B s, B = (e^ε + 1)/(e^ε - 1) 2^(d-1)/binomial(d - 1, floor(d/2)).
    Outputs: float64 arrays of shape (n, d)."""
    eps = _epsilon(epsilon)
    if eps == 0:
        raise InvalidParameter("epsilon=0 gives an unbounded report; pass epsilon > 0")
    dim = _size("d", d, low=1, high=64)
    keep = _keep(eps)
    scale = (math.exp(eps) + 1) / (math.exp(eps) - 1) * 2 ** (dim - 1) / math.comb(dim - 1, dim // 2)

    def sample(x, n, rng):
        xs = _box_input(x, dim, "Duchi multidimensional mean")
        n, rng = _n(n), _rng(rng)
        v = np.where(rng.random((n, dim)) < (1 + xs) / 2, 1, -1)
        out = np.empty((n, dim), dtype=np.int64)
        todo = np.arange(n)
        while todo.size:
            s = np.where(rng.random((todo.size, dim)) < 0.5, 1, -1)
            t = (s * v[todo]).sum(axis=1)
            accept = np.where(t > 0, 1.0, np.where(t < 0, (1 - keep) / keep, 0.5 / keep))
            ok = rng.random(todo.size) < accept
            out[todo[ok]] = s[ok]
            todo = todo[~ok]
        return out * scale

    return sample


def piecewise_multidim(*, epsilon, d, k) -> Sampler:
    """The Piecewise mechanism in d dimensions (Wang et al., ICDE 2019, Algorithm 4): k of the
    d coordinates sampled uniformly, each reported by the Piecewise mechanism at ε/k (see
    :func:`piecewise`) times d/k, the others as 0. Outputs: float64 arrays of shape (n, d)."""
    eps = _epsilon(epsilon)
    if eps == 0:
        raise InvalidParameter("epsilon=0 gives an unbounded output range; pass epsilon > 0")
    dim = _size("d", d, low=1, high=4096)
    kk = _size("k", k, low=1, high=dim)
    s = math.exp(eps / kk / 2)
    C = (s + 1) / (s - 1)

    def sample(x, n, rng):
        xs = _box_input(x, dim, "Piecewise mechanism, d dimensions")
        n, rng = _n(n), _rng(rng)
        chosen = np.argsort(rng.random((n, dim)), axis=1)[:, :kk]
        xv = xs[chosen].ravel()
        lo = (C + 1) / 2 * xv - (C - 1) / 2
        z = _band_or_rest(xv, lo, lo + C - 1, -C, C, s / (s + 1), xv.size, rng)
        out = np.zeros((n, dim))
        np.put_along_axis(out, chosen, (_snap(z, C) * dim / kk).reshape(n, kk), axis=1)
        return out

    return sample


def hybrid_multidim(*, epsilon, d, k, beta) -> Sampler:
    """The Hybrid mechanism in d dimensions (Wang et al., ICDE 2019, Algorithm 4): k of the d
    coordinates sampled uniformly, each reported by :func:`hybrid` at ε/k (its weight β) times d/k,
    the others as 0. Outputs: float64 arrays of shape (n, d)."""
    eps = _epsilon(epsilon)
    if eps == 0:
        raise InvalidParameter("epsilon=0 gives an unbounded output range; pass epsilon > 0")
    dim = _size("d", d, low=1, high=4096)
    kk = _size("k", k, low=1, high=dim)
    one = hybrid(epsilon=eps / kk, beta=beta)

    def sample(x, n, rng):
        xs = _box_input(x, dim, "Hybrid mechanism, d dimensions")
        n, rng = _n(n), _rng(rng)
        chosen = np.argsort(rng.random((n, dim)), axis=1)[:, :kk]
        out = np.zeros((n, dim))
        for j in range(dim):  # every draw that sampled coordinate j reports it through the 1-d sampler
            rows = np.nonzero((chosen == j).any(axis=1))[0]
            if rows.size:
                out[rows, j] = one(xs[j], rows.size, rng) * dim / kk
        return out

    return sample


def rappor_permanent(*, d, f) -> Sampler:
    """RAPPOR's permanent response on one-hot x: each bit set to 1 w.p. f/2, 0 w.p. f/2, kept
    w.p. 1 - f (Erlingsson et al. 2014)."""
    d = _size("d", d, low=2)
    f = float(f)
    if not 0 < f < 1:
        raise InvalidParameter(f"f={f!r} must be in (0, 1)")

    def sample(x, n, rng):
        xi = _input(x, d, "RAPPOR permanent")
        n, rng = _n(n), _rng(rng)
        u = rng.random((n, d))
        y = (u < f / 2).view(np.uint8)                 # off bits: 1 w.p. f/2
        y[:, xi] = u[:, xi] >= f / 2                   # the input's bit: 1 w.p. 1 - f/2
        return y

    return sample


def rappor_instantaneous(*, p, q) -> Sampler:
    """RAPPOR's instantaneous response on one memoized bit: 1 w.p. q if the bit is 1, p if 0."""
    p, q = float(p), float(q)

    def sample(x, n, rng):
        xi = _input(x, 2, "RAPPOR instantaneous")
        n, rng = _n(n), _rng(rng)
        return (rng.random(n) < (q if xi == 1 else p)).astype(np.int64)

    return sample


REFERENCE = {
    "wrr": wrr,
    "krr": krr,
    "krappor": krappor,
    "oue": oue,
    "ksubset": ksubset,
    "orr": orr,
    "orr_open": orr,
    "orappor": orappor,
    "olh": local_hashing,
    "blh": blh,
    "hadamard": hadamard,
    "rr_bit": rr_bit,
    "laplace_mean": laplace_mean,
    "laplace_histogram": laplace_histogram,
    "joseph_rr1": joseph_rr1,
    "joseph_kvrr2": joseph_kvrr2,
    "duchi_binary_mean": duchi_binary_mean,
    "joseph_uvrr2": joseph_uvrr2,
    "joseph_kvrr2_oneround": joseph_kvrr2_oneround,
    "piecewise": piecewise,
    "hybrid": hybrid,
    "square_wave": square_wave,
    "gaussian": gaussian,
    "duchi_multidim": duchi_multidim,
    "piecewise_multidim": piecewise_multidim,
    "hybrid_multidim": hybrid_multidim,
    "rappor_permanent": rappor_permanent,
    "rappor_instantaneous": rappor_instantaneous,
}


_BY_NAME = {
    "W-RR": "wrr", "k-RR": "krr", "k-RAPPOR": "krappor", "OUE": "oue", "k-subset": "ksubset",
    "O-RR": "orr", "RR-bit": "rr_bit", "Laplace mean": "laplace_mean", "Laplace histogram": "laplace_histogram",
    "Joseph RR1": "joseph_rr1", "Joseph KVRR2": "joseph_kvrr2", "Duchi binary mean": "duchi_binary_mean",
    "Joseph UVRR2": "joseph_uvrr2", "Joseph 1RoundKVRR2": "joseph_kvrr2_oneround",
    "Piecewise mechanism": "piecewise", "Hybrid mechanism": "hybrid", "Square wave": "square_wave", "Gaussian mechanism": "gaussian",
    "Duchi multidimensional mean": "duchi_multidim", "Piecewise mechanism, d dimensions": "piecewise_multidim",
    "Hybrid mechanism, d dimensions": "hybrid_multidim",
    "RAPPOR permanent": "rappor_permanent", "RAPPOR instantaneous": "rappor_instantaneous", "HR": "hadamard",
}


def reference_for(mech) -> Sampler:
    """The reference sampler of a bound catalog Mechanism (matched by its spec file stem, else
    by its name), with the mechanism's parameter values."""
    from pathlib import Path

    if getattr(mech, "parameters", ()):
        names = ", ".join(p.name for p in mech.parameters)
        raise InvalidParameter(f"{mech.name!r} still has free parameters {names}; bind them first")
    stem = Path(mech.spec_path).stem if getattr(mech, "spec_path", None) else None
    key = stem if stem in REFERENCE else _BY_NAME.get(mech.name)
    if key is None:
        raise InvalidParameter(
            f"no reference randomizer for {mech.name!r}; known: {', '.join(sorted(REFERENCE))}")
    params = dict(mech.bindings)
    if key in ("orr", "orr_open"):
        space = mech.channel.outputs
        return orr(hash_table=space.table(int(mech.inputs.size)), k=space.k, epsilon=params["epsilon"])
    if key == "orappor":
        ch = mech.channel
        return orappor(hash_table=ch.hash_table(int(mech.inputs.size)), k=ch.k, epsilon=params["epsilon"])
    if key == "wrr":
        return wrr(epsilon=params["epsilon"])
    return REFERENCE[key](**params)
