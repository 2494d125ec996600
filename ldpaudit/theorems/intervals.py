"""Rigorous interval enclosures of sympy expressions (mpmath's ``iv`` context: outward-rounded
binary intervals, unbounded exponent).

An expression is compiled once into a tree of closures; evaluating it on a box (symbol ->
interval) returns an interval that contains every value the expression takes on the box.
Where an operation is undefined on part of the box (log of an interval reaching below 0, a
division by an interval containing 0) the enclosure is the whole line, which proves nothing
and is never mistaken for a sign.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import sympy as sp
from mpmath import iv

WHOLE = None  # set lazily: iv.mpf(['-inf', '+inf'])


def whole():
    return iv.mpf(["-inf", "+inf"])


def rational(q) -> object:
    """The tightest interval around an exact rational (``sympy.Rational`` or ``Fraction``)."""
    q = sp.Rational(q)
    if q.q == 1:
        return iv.mpf(int(q.p))
    return iv.mpf(int(q.p)) / iv.mpf(int(q.q))


def _safe(func):
    def wrapped(*args):
        try:
            out = func(*args)
        except (ValueError, ZeroDivisionError, ArithmeticError, TypeError):
            return whole()
        if _nan(out):
            return whole()
        return out

    return wrapped


def _nan(x) -> bool:
    a, b = x.a, x.b
    return a != a or b != b  # noqa: PLR0124 (nan test)


@_safe
def _log(x):
    if x.b <= 0:
        return whole()
    if x.a <= 0:
        return iv.mpf(["-inf", iv.log(iv.mpf(x.b)).b])
    return iv.log(x)


@_safe
def _sqrt(x):
    if x.b < 0:
        return whole()
    if x.a < 0:
        x = iv.mpf([0, x.b])
    return iv.sqrt(x)


@_safe
def _div(a, b):
    if b.a <= 0 <= b.b:
        return whole()
    return a / b


@_safe
def _ipow(x, n: int):
    if n >= 0:
        return x**n
    return _div(iv.mpf(1), x ** (-n))


@_safe
def _rpow(x, r):
    if r == sp.Rational(1, 2):
        return _sqrt(x)
    if r == -sp.Rational(1, 2):
        return _div(iv.mpf(1), _sqrt(x))
    return iv.exp(rational(r) * _log(x))


@_safe
def _gpow(x, y):
    return iv.exp(y * _log(x))


def _min(*xs):
    return iv.mpf([min(x.a for x in xs), min(x.b for x in xs)])


def _max(*xs):
    return iv.mpf([max(x.a for x in xs), max(x.b for x in xs)])


@_safe
def _floor(x):
    import mpmath

    return iv.mpf([mpmath.floor(x.a), mpmath.floor(x.b)])


@_safe
def _ceiling(x):
    import mpmath

    return iv.mpf([mpmath.ceil(x.a), mpmath.ceil(x.b)])


@_safe
def _abs(x):
    if x.a >= 0:
        return x
    if x.b <= 0:
        return -x
    return iv.mpf([0, max(-x.a, x.b)])


class Unsupported(ValueError):
    """The expression has an operation the interval evaluator does not enclose."""


Compiled = Callable[[Mapping], object]


def compile_expr(expr: sp.Basic) -> Compiled:
    """A function box -> interval enclosing ``expr`` on the box (keys: sympy symbols)."""
    return _compile(sp.sympify(expr))


def _compile(e: sp.Basic) -> Compiled:
    if e.is_Symbol:
        return lambda box, e=e: box[e]
    if e.is_Rational:
        c = rational(e)
        return lambda box, c=c: c
    if e is sp.pi:
        return lambda box: iv.pi
    if e is sp.E:
        return lambda box: iv.e
    if e is sp.oo:
        return lambda box: iv.mpf("+inf")
    if e.is_Add:
        parts = [_compile(a) for a in e.args]

        def add(box, parts=parts):
            acc = parts[0](box)
            for p in parts[1:]:
                acc = acc + p(box)
            return whole() if _nan(acc) else acc

        return add
    if e.is_Mul:
        num = [_compile(a) for a in e.args if not (a.is_Pow and a.exp.is_number and a.exp < 0)]
        den = [_compile(1 / a) for a in e.args if a.is_Pow and a.exp.is_number and a.exp < 0]

        def mul(box, num=num, den=den):
            # the first factor itself, not 1 * it: a product with the exact 1 is that interval
            acc = num[0](box) if num else iv.mpf(1)
            for p in num[1:]:
                acc = acc * p(box)
            if _nan(acc):
                return whole()
            if den:
                d = den[0](box)
                for p in den[1:]:
                    d = d * p(box)
                acc = _div(acc, d)
            return whole() if _nan(acc) else acc

        return mul
    if e.is_Pow:
        base = _compile(e.base)
        if e.exp.is_Integer:
            n = int(e.exp)
            return lambda box, base=base, n=n: _ipow(base(box), n)
        if e.exp.is_Rational:
            r = e.exp
            return lambda box, base=base, r=r: _rpow(base(box), r)
        ex = _compile(e.exp)
        return lambda box, base=base, ex=ex: _gpow(base(box), ex(box))
    if isinstance(e, sp.exp):
        a = _compile(e.args[0])
        return _safe(lambda box, a=a: iv.exp(a(box)))
    if isinstance(e, sp.log):
        a = _compile(e.args[0])
        return lambda box, a=a: _log(a(box))
    if isinstance(e, sp.Min | sp.Max):
        parts = [_compile(a) for a in e.args]
        f = _min if isinstance(e, sp.Min) else _max
        return lambda box, parts=parts, f=f: f(*(p(box) for p in parts))
    if isinstance(e, sp.floor):
        a = _compile(e.args[0])
        return lambda box, a=a: _floor(a(box))
    if isinstance(e, sp.ceiling):
        a = _compile(e.args[0])
        return lambda box, a=a: _ceiling(a(box))
    if isinstance(e, sp.Abs):
        a = _compile(e.args[0])
        return lambda box, a=a: _abs(a(box))
    if e.is_number:  # other constants (log(2), sqrt(2)...) are handled above structurally
        raise Unsupported(f"cannot enclose the constant {e}")
    raise Unsupported(f"cannot enclose {type(e).__name__} in {sp.sstr(e)[:80]}")


def point_sign(expr: sp.Basic, *, precisions=(80, 320, 1280)) -> int | None:
    """The sign of a numeric expression from point enclosures at rising precision; None if
    every enclosure contains 0 (then the sign is not claimed)."""
    f = compile_expr(expr)
    saved = iv.prec
    try:
        for bits in precisions:
            iv.prec = bits
            value = f({})
            if value.a > 0:
                return 1
            if value.b < 0:
                return -1
    finally:
        iv.prec = saved
    return None
