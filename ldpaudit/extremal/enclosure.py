"""Rigorous enclosures of exact real numbers, for certificates whose values involve exp and log.

mpmath's interval context rounds every operation outward (the lower end down, the upper end
up), exp and log included, so an enclosure computed here contains the exact value. Endpoints
are binary floating-point numbers, hence exact rationals (:func:`lower`, :func:`upper`): a
bound read off an enclosure is a proved rational bound. The working precision is mpmath's
context setting; :func:`precision` sets it for a block and restores it.
"""

from __future__ import annotations

from contextlib import contextmanager
from fractions import Fraction

import sympy as sp
from mpmath import iv
from mpmath.libmp import from_int, round_ceiling, round_floor, to_rational

from ldpaudit.errors import NotDerivable

#: working precision in bits of a certificate (about 60 decimal digits), and the largest retried
DEFAULT_BITS = 200
MAX_BITS = 1600


@contextmanager
def precision(bits: int):
    """Run a block at ``bits`` of interval precision, then restore the previous setting."""
    old = iv.prec
    iv.prec = bits
    try:
        yield
    finally:
        iv.prec = old


def exact(value) -> object:
    """The enclosure of an exact rational (int, Fraction or sympy Rational)."""
    if isinstance(value, sp.Rational):
        value = Fraction(int(value.p), int(value.q))
    if isinstance(value, int):
        # a long integer is rounded to the working precision: outward, each end its own way
        return iv.make_mpf((from_int(value, iv.prec, round_floor), from_int(value, iv.prec, round_ceiling)))
    if isinstance(value, Fraction):
        return exact(value.numerator) / exact(value.denominator)
    raise TypeError(f"not an exact rational: {value!r}")


def lower(x) -> Fraction:
    """The lower end of an enclosure, as an exact rational."""
    return Fraction(*to_rational(x._mpi_[0]))


def upper(x) -> Fraction:
    """The upper end of an enclosure, as an exact rational."""
    return Fraction(*to_rational(x._mpi_[1]))


def width(x) -> Fraction:
    return upper(x) - lower(x)


def sign(x) -> int | None:
    """+1 or -1 when the whole enclosure is on one side of 0; None when it contains 0."""
    if lower(x) > 0:
        return 1
    if upper(x) < 0:
        return -1
    return None


def enclose(expr: sp.Basic, env: dict | None = None):
    """An enclosure of a closed-form real ``expr`` (numbers, + * /, integer and half-integer
    powers, exp, log; symbols looked up in ``env``, name -> enclosure). A form outside this
    list, or a log whose argument is not provably positive, is :class:`NotDerivable`."""
    env = env or {}
    if isinstance(expr, sp.Rational):
        return exact(expr)
    if expr is sp.E:
        return iv.e
    if expr is sp.pi:
        return iv.pi
    if isinstance(expr, sp.Symbol):
        if expr.name not in env:
            raise NotDerivable(f"cannot enclose {expr}: the symbol has no value")
        return env[expr.name]
    if isinstance(expr, sp.Add):
        total = iv.mpf(0)
        for a in expr.args:
            total = total + enclose(a, env)
        return total
    if isinstance(expr, sp.Mul):
        total = iv.mpf(1)
        for a in expr.args:
            total = total * enclose(a, env)
        return total
    if isinstance(expr, sp.Pow):
        base = enclose(expr.base, env)
        e = expr.exp
        if e.is_Integer:
            n = int(e)
            if n < 0:
                if sign(base) is None:
                    raise NotDerivable(f"cannot enclose {expr}: the base may be 0")
                return 1 / base**(-n)
            return base**n
        if e == sp.Rational(1, 2) or e == sp.Rational(-1, 2):
            if lower(base) < 0:
                raise NotDerivable(f"cannot enclose {expr}: the base may be negative")
            root = iv.sqrt(base)
            return root if e > 0 else 1 / root
        if expr.base is sp.E:
            return iv.exp(enclose(e, env))
        raise NotDerivable(f"cannot enclose {expr}: power with exponent {e}")
    if isinstance(expr, sp.exp):
        return iv.exp(enclose(expr.args[0], env))
    if isinstance(expr, sp.log):
        arg = enclose(expr.args[0], env)
        if sign(arg) != 1:
            raise NotDerivable(f"cannot enclose {expr}: its argument is not provably positive")
        return iv.log(arg)
    raise NotDerivable(f"cannot enclose {expr}: {type(expr).__name__} is not supported")


def fmt(x, digits: int = 17) -> str:
    """An enclosure as 'mid ± radius' for people."""
    lo, hi = lower(x), upper(x)
    mid = (lo + hi) / 2
    return f"{float(mid):.{digits}g} ± {float((hi - lo) / 2):.2g}"
