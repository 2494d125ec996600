"""Random draws and elementary functions that give the same bits on every CPU.

A seeded simulation is reproducible only if every operation between the seed and the printed
figure returns the same bits on every machine. numpy's PCG64 stream, its integers and its
uniforms (``Generator.random`` is an integer k times 2⁻⁵³) are such operations, and so are
IEEE-754's correctly rounded +, −, ×, ÷ and √, comparisons, floor, frexp and ldexp, each one
numpy call (a compiler cannot fuse two ufunc calls into one FMA), and sums in a fixed order
(numpy's pairwise sum, ``math.fsum``). Other operations are not:

* numpy's vectorized exp, log, power, sin, tanh, log1p, ... take a different code path on
  AVX2, AVX-512 and NEON and differ in the last bit;
* the C library's scalar exp, log and pow (behind ``math.exp`` and inside numpy's normal,
  laplace, gamma, binomial and multinomial samplers) differ with and without FMA (glibc picks
  its variant by CPU) and between C libraries;
* BLAS and LAPACK (``@``, ``np.linalg``, ``np.polyfit``) pick kernels by CPU.

So everything here is built from the first kind only: :func:`log`, :func:`log1p` and
:func:`exp` are fdlibm's reductions with Taylor kernels evaluated by Horner's rule (within a few
ulp of the true value, and the same bits everywhere); :func:`ndtri` is Wichura's AS 241; the
samplers are exact in law up to that rounding (normal by inversion, Laplace and exponential by
inversion, gamma by Marsaglia-Tsang, binomial by inversion or Hörmann's BTRS, multinomial by a
tree of conditional binomials). They draw from a numpy ``Generator`` in a fixed order, so a
(seed, call sequence) gives the same numbers on any x86-64 or ARM CPU with the same numpy
(PCG64 and its integer methods are stable across numpy releases by NEP 19's policy).
Derived numbers that a simulation needs (probabilities, e^ε, a slope of logs) come from
:func:`exact_function`, :func:`exact_log` and :func:`loglog_slope`: mpmath at 30 digits (integer
arithmetic), rounded once. Linear algebra (:func:`matmul`, the pseudo-inverse factor
:func:`psd_pinv_factor`) sums in a fixed order instead of calling BLAS or LAPACK.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

__all__ = ["binomial", "exact_function", "exact_log", "exp", "exponential", "laplace", "log", "log1p", "loglog_slope",
           "matmul", "multinomial", "ndtri", "normal", "open_uniform", "psd_pinv_factor", "standard_gamma"]

# fdlibm's split of ln 2: LN2_HI has 21 trailing zero bits, so k * LN2_HI is exact for |k| < 2**21
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e+00
_SQRT_HALF = 0.70710678118654752440
# log(1 + f) = f - (f²/2 - s (f²/2 + R(s²))), s = f/(2 + f), R(z) = Σ_{k≥1} 2 z^k/(2k + 1)
_LOG_SERIES = tuple(2 / (2 * k + 1) for k in range(1, 11))
_EXP_SERIES = tuple(1 / math.factorial(k) for k in range(14))


def _horner(coefficients, x):
    """Σ c_k x^k (coefficients in ascending order), one multiply and one add per numpy call."""
    acc = np.full_like(x, coefficients[-1])
    for c in reversed(coefficients[:-1]):
        acc = acc * x
        acc = acc + c
    return acc


_CHUNK = 1 << 15


def _chunked(kernel, x: np.ndarray) -> np.ndarray:
    """kernel applied to x in flat chunks that stay in cache (elementwise, so the chunking does
    not change a bit of the result)."""
    flat = x.ravel()
    if flat.size <= _CHUNK:
        return kernel(flat).reshape(x.shape)
    out = np.empty(flat.size)
    for start in range(0, flat.size, _CHUNK):
        out[start:start + _CHUNK] = kernel(flat[start:start + _CHUNK])
    return out.reshape(x.shape)


def _log1p_reduced(f: np.ndarray) -> np.ndarray:
    """log(1 + f) for 1 + f in [√½, √2)."""
    s = f / (2.0 + f)
    z = s * s
    r = z * _horner(_LOG_SERIES, z)
    hfsq = 0.5 * f * f
    return f - (hfsq - s * (hfsq + r))


def log(x) -> np.ndarray:
    """Natural logarithm of positive finite x: x = m 2^e with m in [√½, √2), then log(m) by
    the series in s = (m - 1)/(m + 1) (fdlibm's e_log reduction)."""
    x = np.asarray(x, dtype=float)
    if not np.all((x > 0) & (x < np.inf)):
        raise ValueError("portable log: every argument must be positive and finite")
    return _chunked(_log_kernel, x)


def _log_kernel(x: np.ndarray) -> np.ndarray:
    m, e = np.frexp(x)
    low = m < _SQRT_HALF
    m[low] *= 2.0
    k = e.astype(float)
    k[low] -= 1.0
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    r = z * _horner(_LOG_SERIES, z)
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)


def log1p(x) -> np.ndarray:
    """log(1 + x) for x > -1, accurate for small x (no rounding of 1 + x when |x| < 1/4)."""
    x = np.asarray(x, dtype=float)
    if not np.all((x > -1) & (x < np.inf)):
        raise ValueError("portable log1p: every argument must be finite and > -1")
    return _chunked(_log1p_kernel, x)


def _log1p_kernel(x: np.ndarray) -> np.ndarray:
    small = np.abs(x) < 0.25
    out = np.empty_like(x)
    out[small] = _log1p_reduced(x[small])
    out[~small] = _log_kernel(1.0 + x[~small])
    return out


def exp(x) -> np.ndarray:
    """e^x: x = k ln 2 + r with |r| ≤ ln2/2 (Cody-Waite with fdlibm's split), a degree-13
    Taylor polynomial in r, then 2^k by ldexp (overflow to inf, underflow to 0 as IEEE)."""
    x = np.asarray(x, dtype=float)
    if np.any(np.isnan(x)):
        raise ValueError("portable exp: NaN argument")
    return _chunked(_exp_kernel, np.clip(x, -1100.0, 1100.0))


def _exp_kernel(x: np.ndarray) -> np.ndarray:
    k = np.floor(x * _INV_LN2 + 0.5)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    with np.errstate(over="ignore", under="ignore"):
        return np.ldexp(_horner(_EXP_SERIES, r), k.astype(np.int32))


# --- the normal quantile: Wichura, Algorithm AS 241 (PPND16), Appl. Statist. 37 (1988) 477-484 ---

_AS241_A = (3.3871328727963666080e0, 1.3314166789178437745e+2, 1.9715909503065514427e+3, 1.3731693765509461125e+4,
            4.5921953931549871457e+4, 6.7265770927008700853e+4, 3.3430575583588128105e+4, 2.5090809287301226727e+3)
_AS241_B = (1.0, 4.2313330701600911252e+1, 6.8718700749205790830e+2, 5.3941960214247511077e+3,
            2.1213794301586595867e+4, 3.9307895800092710610e+4, 2.8729085735721942674e+4, 5.2264952788528545610e+3)
_AS241_C = (1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0, 3.64784832476320460504e0,
            1.27045825245236838258e0, 2.41780725177450611770e-1, 2.27238449892691845833e-2, 7.74545014278341407640e-4)
_AS241_D = (1.0, 2.05319162663775882187e0, 1.67638483018380384940e0, 6.89767334985100004550e-1,
            1.48103976427480074590e-1, 1.51986665636164571966e-2, 5.47593808499534494600e-4, 1.05075007164441684324e-9)
_AS241_E = (6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0, 2.96560571828504891230e-1,
            2.65321895265761230930e-2, 1.24266094738807843860e-3, 2.71155556874348757815e-5, 2.01033439929228813265e-7)
_AS241_F = (1.0, 5.99832206555887937690e-1, 1.36929880922735805310e-1, 1.48753612908506148525e-2,
            7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7, 2.04426310338993978564e-15)


def ndtri(p) -> np.ndarray:
    """Φ⁻¹(p) for 0 < p < 1 (about 1e-16 relative, AS 241's rational approximations)."""
    p = np.asarray(p, dtype=float)
    if not np.all((p > 0) & (p < 1)):
        raise ValueError("portable ndtri: every argument must be in (0, 1)")
    return _chunked(_ndtri_kernel, p)


def _ndtri_kernel(p: np.ndarray) -> np.ndarray:
    q = p - 0.5
    out = np.empty_like(p)
    central = np.abs(q) <= 0.425
    qc = q[central]
    r = 0.180625 - qc * qc
    out[central] = qc * _horner(_AS241_A, r) / _horner(_AS241_B, r)
    tail = ~central
    if tail.any():
        qt = q[tail]
        r = np.sqrt(-_log_kernel(np.where(qt < 0, p[tail], 1.0 - p[tail])))   # 1 - p is exact for p > 1/2
        near = r <= 5.0
        value = np.empty_like(r)
        rn = r[near] - 1.6
        value[near] = _horner(_AS241_C, rn) / _horner(_AS241_D, rn)
        rf = r[~near] - 5.0
        value[~near] = _horner(_AS241_E, rf) / _horner(_AS241_F, rf)
        out[tail] = np.where(qt < 0, -value, value)
    return out


# --- samplers -----------------------------------------------------------------------------------

def open_uniform(rng: np.random.Generator, size) -> np.ndarray:
    """Uniform on (0, 1): (2k + 1)/2⁵³ for k uniform on [0, 2⁵²), exact (never 0 or 1, symmetric)."""
    k = rng.integers(0, 1 << 52, size=size, dtype=np.int64)
    k *= 2
    k += 1
    u = k.astype(float)
    u *= 2.0**-53
    return u


def normal(rng: np.random.Generator, size, loc=0.0, scale=1.0) -> np.ndarray:
    """N(loc, scale²) by inversion, Φ⁻¹ of an open uniform (tails beyond ±8.3 are cut, mass 1e-16)."""
    z = ndtri(open_uniform(rng, size))
    return z if (loc, scale) == (0.0, 1.0) else loc + scale * z


def exponential(rng: np.random.Generator, size) -> np.ndarray:
    """Exp(1) by inversion: -log U."""
    return -log(open_uniform(rng, size))


def laplace(rng: np.random.Generator, size) -> np.ndarray:
    """Laplace(0, 1) by inversion: log 2U below the median, -log(2 - 2U) above (both exact)."""
    return _chunked(_laplace_kernel, open_uniform(rng, size))


def _laplace_kernel(u: np.ndarray) -> np.ndarray:
    lower = u < 0.5
    twice = u + u
    magnitude = _log_kernel(np.where(lower, twice, 2.0 - twice))
    return np.where(lower, magnitude, -magnitude)


def standard_gamma(rng: np.random.Generator, shape: float, size) -> np.ndarray:
    """Gamma(shape, 1) for shape ≥ 1, Marsaglia & Tsang (2000): d = shape - 1/3, c = 1/√(9d),
    V = (1 + cX)³ with X normal, accepted when log U < X²/2 + d(1 - V + log V); returns dV.
    Pending draws are retried together, in order."""
    if not shape >= 1:
        raise ValueError(f"portable standard_gamma: shape={shape}; needs shape >= 1")
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    out = np.empty(int(np.prod(size, dtype=np.int64)))
    pending = np.arange(out.size)
    while pending.size:
        x = normal(rng, pending.size)
        u = open_uniform(rng, pending.size)
        v = 1.0 + c * x
        positive = v > 0
        v = v * v * v
        xx = x * x
        accept = positive & (u < 1.0 - 0.0331 * (xx * xx))
        slow = positive & ~accept
        if slow.any():
            vs = v[slow]
            accept[slow] = log(u[slow]) < 0.5 * xx[slow] + d * ((1.0 - vs) + log(vs))
        out[pending[accept]] = d * v[accept]
        pending = pending[~accept]
    return out.reshape(size)


@lru_cache(maxsize=1)
def _stirling_tail_table() -> np.ndarray:
    """log k! - [(k + ½) log(k + 1) - (k + 1) + ½ log 2π] for k = 0..9, by mpmath (exact bits)."""
    import mpmath

    with mpmath.workdps(40):
        return np.array([float(mpmath.loggamma(k + 1) - (k + mpmath.mpf(1) / 2) * mpmath.log(k + 1) + (k + 1)
                               - mpmath.log(2 * mpmath.pi) / 2) for k in range(10)])


def _stirling_tail(k: np.ndarray) -> np.ndarray:
    """The remainder of Stirling's formula for log k! (table below 10, series in 1/(k + 1) above)."""
    k1 = k + 1.0
    z = 1.0 / (k1 * k1)
    series = (1.0 / 12 - z * (1.0 / 360 - z * (1.0 / 1260 - z * (1.0 / 1680)))) / k1
    return np.where(k <= 9, _stirling_tail_table()[np.clip(k, 0, 9).astype(np.int64)], series)


def _binomial_inversion(rng, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Binomial(n, p) for n p < 10 by sequential search from 0 (P(x)/P(x - 1) = (n+1)s/x - s,
    s = p/q); a draw that runs past n p + 10 √(npq + 1) (rounding left u above the summed
    masses) starts again with a fresh uniform."""
    q = 1.0 - p
    s = p / q
    a = (n + 1.0) * s
    first = exp(n * log1p(-p))
    bound = np.minimum(n, np.floor(n * p + 10.0 * np.sqrt(n * p * q + 1.0)))
    out = np.empty(n.size, dtype=np.int64)
    pending = np.arange(n.size)
    while pending.size:
        u = rng.random(pending.size)
        r = first[pending]
        x = np.zeros(pending.size)
        live = np.flatnonzero(u > r)
        restart = np.zeros(pending.size, dtype=bool)
        while live.size:
            u[live] = u[live] - r[live]
            x[live] = x[live] + 1.0
            i = pending[live]
            r[live] = r[live] * (a[i] / x[live] - s[i])
            over = x[live] > bound[i]
            restart[live[over]] = True
            live = live[~over]
            live = live[u[live] > r[live]]
        out[pending[~restart]] = x[~restart].astype(np.int64)
        pending = pending[restart]
    return out


def _binomial_btrs(rng, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Binomial(n, p) for n p ≥ 10 and p ≤ ½: Hörmann's transformed rejection with squeeze
    (BTRS; W. Hörmann, J. Statist. Comput. Simul. 46 (1993) 101-110)."""
    nf = n.astype(float)
    q = 1.0 - p
    spq = np.sqrt(nf * p * q)
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = nf * p + 0.5
    v_r = 0.92 - 4.2 / b
    ratio = p / q
    alpha = (2.83 + 5.1 / b) * spq
    m = np.floor((nf + 1.0) * p)
    out = np.empty(n.size, dtype=np.int64)
    pending = np.arange(n.size)
    while pending.size:
        i = pending
        u = open_uniform(rng, i.size) - 0.5
        v = open_uniform(rng, i.size)
        us = 0.5 - np.abs(u)
        k = np.floor((2.0 * a[i] / us + b[i]) * u + c[i])
        inside = (k >= 0) & (k <= nf[i])
        accept = inside & (us >= 0.07) & (v <= v_r[i])
        slow = inside & ~accept
        if slow.any():
            j, ks, uss = i[slow], k[slow], us[slow]
            nj, mj, rj = nf[j], m[j], ratio[j]
            lhs = log(v[slow] * alpha[j] / (a[j] / (uss * uss) + b[j]))
            upper = ((mj + 0.5) * log((mj + 1.0) / (rj * (nj - mj + 1.0)))
                     + (nj + 1.0) * log1p((ks - mj) / (nj - ks + 1.0))
                     + (ks + 0.5) * log(rj * (nj - ks + 1.0) / (ks + 1.0))
                     + _stirling_tail(mj) + _stirling_tail(nj - mj) - _stirling_tail(ks) - _stirling_tail(nj - ks))
            accept[slow] = lhs <= upper
        out[i[accept]] = k[accept].astype(np.int64)
        pending = i[~accept]
    return out


def binomial(rng: np.random.Generator, n, p) -> np.ndarray:
    """Binomial(n, p), elementwise over the broadcast of n (integers ≥ 0) and p (in [0, 1])."""
    n = np.asarray(n)
    if n.size and not np.issubdtype(n.dtype, np.integer):
        if np.any(n != np.floor(n)):
            raise ValueError("portable binomial: n must be integers")
    n, p = np.broadcast_arrays(n.astype(np.int64), np.asarray(p, dtype=float))
    shape = n.shape
    n, p = n.ravel(), p.ravel()
    if np.any(n < 0) or np.any(~((p >= 0) & (p <= 1))):
        raise ValueError("portable binomial: needs n >= 0 and 0 <= p <= 1")
    flip = p > 0.5
    p = np.where(flip, 1.0 - p, p)                # exact for p in [1/2, 1]
    out = np.zeros(n.size, dtype=np.int64)
    mean = n * p
    live = (n > 0) & (p > 0)
    small = live & (mean < 10)
    large = live & ~small
    if small.any():
        out[small] = _binomial_inversion(rng, n[small].astype(float), p[small])
    if large.any():
        out[large] = _binomial_btrs(rng, n[large], p[large])
    return np.where(flip, n - out, out).reshape(shape)


def multinomial(rng: np.random.Generator, n, pvals) -> np.ndarray:
    """Multinomial(n, pvals) over the last axis of ``pvals`` (weights ≥ 0, normalized here),
    broadcast against the leading shape of n. Drawn down a balanced binary tree of the K cells:
    each node splits its count between its halves by Binomial(count, mass_left/mass), one
    vectorized binomial per level (log₂ K levels), which is the multinomial law exactly."""
    pvals = np.asarray(pvals, dtype=float)
    if pvals.ndim == 0 or np.any(~(pvals >= 0)) or np.any(~np.isfinite(pvals)):
        raise ValueError("portable multinomial: pvals must be finite weights >= 0 along the last axis")
    n = np.asarray(n, dtype=np.int64)
    lead = np.broadcast_shapes(n.shape, pvals.shape[:-1])
    K = pvals.shape[-1]
    width = 1 << max(0, (K - 1).bit_length())
    mass = np.zeros(pvals.shape[:-1] + (width,))
    mass[..., :K] = pvals
    levels = [mass]
    while levels[-1].shape[-1] > 1:
        below = levels[-1]
        levels.append(below[..., 0::2] + below[..., 1::2])
    counts = np.broadcast_to(n, lead)[..., None].copy()
    for below, total in zip(reversed(levels[:-1]), reversed(levels[1:])):
        left = below[..., 0::2]
        share = np.divide(left, total, out=np.zeros_like(left), where=total > 0)
        x = binomial(rng, counts, np.minimum(share, 1.0))
        counts = np.stack([x, counts - x], axis=-1).reshape(lead + (2 * counts.shape[-1],))
    return counts[..., :K]


# --- exact evaluation of derived expressions ----------------------------------------------------

#: decimal digits of the mpmath evaluations below (rounded once to a float at the end)
EXACT_DIGITS = 30


def _mpf(value):
    import mpmath
    from fractions import Fraction

    if isinstance(value, Fraction):
        return mpmath.mpf(value.numerator) / value.denominator
    if isinstance(value, str):
        return mpmath.mpf(value)
    return mpmath.mpf(value) if isinstance(value, (int, float, np.integer, np.floating)) else value


def exact_function(args, expr):
    """A float function of ``args`` evaluating the sympy expression ``expr`` with mpmath at
    :data:`EXACT_DIGITS` digits and rounding once (where ``lambdify(..., "math")`` would call
    the C library's exp, log and pow, and ``"numpy"`` numpy's vector paths)."""
    import mpmath
    import sympy as sp

    compiled = sp.lambdify(args, expr, "mpmath")

    def evaluate(*values):
        with mpmath.workdps(EXACT_DIGITS):
            return float(compiled(*(_mpf(v) for v in values)))

    return evaluate


def exact_log(value) -> float:
    """log(value) by mpmath, rounded once."""
    import mpmath

    with mpmath.workdps(EXACT_DIGITS):
        return float(mpmath.log(_mpf(value)))


def loglog_slope(xs, ys) -> float:
    """Least-squares slope of log y on log x, computed by mpmath (logs and sums) and rounded once."""
    import mpmath

    with mpmath.workdps(EXACT_DIGITS):
        lx = [mpmath.log(_mpf(x)) for x in xs]
        ly = [mpmath.log(_mpf(y)) for y in ys]
        mx, my = mpmath.fsum(lx) / len(lx), mpmath.fsum(ly) / len(ly)
        sxy = mpmath.fsum((a - mx) * (b - my) for a, b in zip(lx, ly))
        sxx = mpmath.fsum((a - mx) ** 2 for a in lx)
        return float(sxy / sxx)


# --- linear algebra in a fixed order (no BLAS, no LAPACK) -----------------------------------------

def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b for 2-d a (m × k) and b (k × n), each entry summed over k in a fixed order
    (BLAS picks kernels, block sizes and FMA by CPU; this does not)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    out = np.empty((a.shape[0], b.shape[1]))
    for i in range(a.shape[0]):
        out[i] = (a[i][:, None] * b).sum(axis=0)
    return out


def psd_pinv_factor(G: np.ndarray, rel_tol: float = 1e-10) -> tuple[np.ndarray, int]:
    """M (S × r) with G⁺ = M Mᵀ for a symmetric positive semi-definite G, and the rank r.

    Pivoted Cholesky G = Pᵀ L Lᵀ P (largest remaining diagonal first, stopped when it falls to
    ``rel_tol`` × the largest diagonal of G: the numerical rank), then L = QR by Householder
    reflections, so G⁺ = L (LᵀL)⁻² Lᵀ = M Mᵀ with M = L R⁻¹ R⁻ᵀ. Every step is an outer-product
    update, a sum in a fixed order or a triangular solve: the same bits on every CPU (LAPACK's
    eigendecomposition is not)."""
    G = np.array(G, dtype=float)
    S = G.shape[0]
    perm = np.arange(S)
    L = np.zeros((S, S))
    tol = rel_tol * float(np.max(np.diagonal(G))) if S else 0.0
    r = 0
    for j in range(S):
        diag = np.diagonal(G)[j:]
        q = j + int(np.argmax(diag))
        if not diag[q - j] > tol:
            break
        if q != j:
            G[[j, q], :] = G[[q, j], :]
            G[:, [j, q]] = G[:, [q, j]]
            L[[j, q], :j] = L[[q, j], :j]
            perm[[j, q]] = perm[[q, j]]
        pivot = math.sqrt(G[j, j])
        L[j, j] = pivot
        column = G[j + 1:, j] / pivot
        L[j + 1:, j] = column
        G[j + 1:, j + 1:] -= np.outer(column, column)
        r = j + 1
    factor = np.zeros((S, r))
    factor[perm] = L[:, :r]
    R = factor.copy()
    for j in range(r):
        x = R[j:, j]
        norm = math.sqrt(float((x * x).sum()))
        v = x.copy()
        v[0] += norm if x[0] >= 0 else -norm
        beta = float((v * v).sum())
        if beta > 0:
            R[j:, j:] -= np.outer(v, (v[:, None] * R[j:, j:]).sum(axis=0) * (2.0 / beta))
    R = np.triu(R[:r, :r])
    W = np.empty((S, r))
    for j in range(r):
        W[:, j] = (factor[:, j] - (W[:, :j] * R[:j, j]).sum(axis=1)) / R[j, j]
    M = np.empty((S, r))
    for j in range(r - 1, -1, -1):
        M[:, j] = (W[:, j] - (M[:, j + 1:] * R[j, j + 1:]).sum(axis=1)) / R[j, j]
    return M, r
