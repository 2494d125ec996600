"""Rigorous rational enclosures of the few irrational constants a channel can contain.

A numeric channel such as k-RR at ε = 1 has entries e/(e+7): not rational, so they cannot be
handed to z3 as exact numerals. The verifier writes every such constant as a variable and
pins it between two rationals computed here with exact integer arithmetic (never floats):

* ``exp(q)`` for rational q — Taylor series of e^(q/m) with its remainder bound, raised to m;
* ``log(r)`` for rational r > 0 — the series 2 atanh((r-1)/(r+1)) with its remainder bound;
* ``a**(1/n)`` for rational a > 0 — integer n-th roots (these also get their exact defining
  equation r**n = a, so z3 treats them exactly);
* ``a**r`` for rational a > 0 and rational r of any size (``3**(1/10**9)``) — as
  exp(r ln a) from the two enclosures above, so the work grows with the number of bits asked
  for, never with the root's degree.

Every enclosure is returned as a pair of :class:`fractions.Fraction` ``(lo, hi)`` with
``lo < value < hi`` and ``hi - lo <= 2**-bits * max(1, |value|)`` roughly; callers refine by
asking for more bits.
"""

from __future__ import annotations

import math
from fractions import Fraction

from sympy import integer_nthroot


def _floor_dyadic(x: Fraction, bits: int) -> Fraction:
    return Fraction(math.floor(x * (1 << bits)), 1 << bits)


def _ceil_dyadic(x: Fraction, bits: int) -> Fraction:
    return Fraction(math.ceil(x * (1 << bits)), 1 << bits)


def exp_bounds(q: Fraction, bits: int = 96) -> tuple[Fraction, Fraction]:
    """Rationals lo < e^q < hi (q rational, q != 0)."""
    q = Fraction(q)
    if q == 0:
        return Fraction(1), Fraction(1)
    m = max(1, math.ceil(abs(q) * 2))  # |q/m| <= 1/2
    x = q / m
    work = bits + 16 + m.bit_length() * 2
    # Taylor sum up to N terms: remainder |R| <= 2 |x|^(N+1)/(N+1)! for |x| <= 1/2
    total = Fraction(0)
    term = Fraction(1)
    n = 0
    while True:
        total += term
        n += 1
        term = term * x / n
        if abs(term) * 2 < Fraction(1, 1 << work):
            break
    err = abs(term) * 2 + Fraction(1, 1 << work)
    lo = _floor_dyadic(total - err, work)
    hi = _ceil_dyadic(total + err, work)
    if lo <= 0:
        raise ArithmeticError("exp enclosure lost positivity")  # cannot happen for |x| <= 1/2
    # raise to the m-th power, rounding outward at each squaring step
    lo_m, hi_m = _pow_bounds(lo, hi, m, work)
    return _floor_dyadic(lo_m, bits + 8) - Fraction(1, 1 << (bits + 8)), _ceil_dyadic(hi_m, bits + 8) + Fraction(
        1, 1 << (bits + 8)
    )


def _pow_bounds(lo: Fraction, hi: Fraction, m: int, work: int) -> tuple[Fraction, Fraction]:
    rlo, rhi = Fraction(1), Fraction(1)
    blo, bhi = lo, hi
    while m:
        if m & 1:
            rlo, rhi = _floor_dyadic(rlo * blo, work), _ceil_dyadic(rhi * bhi, work)
        m >>= 1
        if m:
            blo, bhi = _floor_dyadic(blo * blo, work), _ceil_dyadic(bhi * bhi, work)
    return rlo, rhi


def log_bounds(r: Fraction, bits: int = 96) -> tuple[Fraction, Fraction]:
    """Rationals lo < ln r < hi (r rational, r > 0, r != 1)."""
    r = Fraction(r)
    if r <= 0:
        raise ValueError(f"log of non-positive {r}")
    if r == 1:
        return Fraction(0), Fraction(0)
    # r = 2^k * m with m in [2/3, 4/3]: ln r = k ln 2 + ln m
    k = 0
    m = r
    while m > Fraction(4, 3):
        m /= 2
        k += 1
    while m < Fraction(2, 3):
        m *= 2
        k -= 1
    work = bits + 16 + abs(k).bit_length()
    lo_m, hi_m = _atanh_log(m, work)
    if k:
        lo_2, hi_2 = _atanh_log(Fraction(2), work)
        if k > 0:
            lo_m, hi_m = lo_m + k * lo_2, hi_m + k * hi_2
        else:
            lo_m, hi_m = lo_m + k * hi_2, hi_m + k * lo_2
    return _floor_dyadic(lo_m, bits + 8) - Fraction(1, 1 << (bits + 8)), _ceil_dyadic(hi_m, bits + 8) + Fraction(
        1, 1 << (bits + 8)
    )


def _atanh_log(m: Fraction, work: int) -> tuple[Fraction, Fraction]:
    """ln m = 2 sum z^(2i+1)/(2i+1), z = (m-1)/(m+1), |z| <= 1/3 for m in [1/2, 2]."""
    z = (m - 1) / (m + 1)
    z2 = z * z
    total = Fraction(0)
    power = z
    i = 0
    eps = Fraction(1, 1 << work)
    while True:
        term = power / (2 * i + 1)
        total += term
        power *= z2
        i += 1
        # remainder of the tail: |power| / ((2i+1)(1 - z^2))
        tail = abs(power) / ((2 * i + 1) * (1 - z2))
        if tail < eps:
            break
    total = 2 * total
    tail = 2 * tail + eps
    return _floor_dyadic(total - tail, work), _ceil_dyadic(total + tail, work)


#: integer n-th roots up to this degree; beyond it roots go through exp(ln(a)/n)
MAX_INTEGER_ROOT_DEGREE = 64
#: e^q with |q| above this has a value too long for rational enclosures (e^1024: 1,478 bits)
HUGE_EXPONENT = 1024


def root_bounds(a: Fraction, n: int, bits: int = 96) -> tuple[Fraction, Fraction]:
    """Rationals lo <= a^(1/n) <= hi (a rational >= 0), with equality only when the root is rational."""
    a = Fraction(a)
    if a < 0:
        raise ValueError(f"real {n}-th root of negative {a}")
    if n > MAX_INTEGER_ROOT_DEGREE and a > 0:
        lo, hi = power_bounds(a, Fraction(1, n), bits)
        return max(lo, Fraction(0)), hi
    scale = 1 << bits
    # floor((a * scale^n)^(1/n)) = floor(floor(a * scale^n)^(1/n))
    big = a.numerator * scale**n // a.denominator
    root, exact = integer_nthroot(big, n)
    lo = Fraction(root, scale)
    if exact and lo**n == a:
        return lo, lo
    return lo, Fraction(root + 1, scale)


def power_bounds(a: Fraction, r: Fraction, bits: int = 96) -> tuple[Fraction, Fraction]:
    """Rationals lo < a^r < hi (a > 0 rational, a != 1, r rational != 0), as exp(r ln a) with
    the exponent enclosed first; the cost depends on ``bits`` and the size of r ln a, not on
    the numerator or denominator of r."""
    a, r = Fraction(a), Fraction(r)
    if a <= 0:
        raise ValueError(f"power of non-positive {a}")
    if a == 1 or r == 0:
        return Fraction(1), Fraction(1)
    extra = bits + 16 + max(1, abs(r).numerator.bit_length() - abs(r).denominator.bit_length())
    llo, lhi = log_bounds(a, extra)
    ends = (r * llo, r * lhi)
    elo, ehi = _floor_dyadic(min(ends), extra), _ceil_dyadic(max(ends), extra)
    lo = exp_bounds(elo, bits)[0] if elo != 0 else Fraction(1)
    hi = exp_bounds(ehi, bits)[1] if ehi != 0 else Fraction(1)
    return lo, hi


def float_of(x: Fraction) -> float:
    """Correctly rounded float of an exact rational (for display only)."""
    return x.numerator / x.denominator
