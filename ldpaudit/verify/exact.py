"""Exact signs of numeric expressions such as ``e/(e+7) - 2/7`` without floats.

The expression is rewritten by the :class:`~ldpaudit.verify.smt.Encoder` into a polynomial
expression in a few constants (e^g, roots, logs), evaluated in rational interval arithmetic
from rigorous enclosures of those constants, and refined until the interval excludes 0. An
interval that keeps containing 0 is settled by an exact zero test (sympy simplification);
if that fails too the sign is reported as unknown (None), never guessed.

Constants of huge magnitude (e^(10^9) has 1.4 billion bits) make rational enclosures as
long as their values; when an exponential's argument exceeds :data:`HUGE_EXPONENT` the same
evaluation runs in mpmath's interval arithmetic instead (binary floating point with an
unbounded exponent and outward rounding, so still a rigorous enclosure), whose cost depends
on the precision asked for, not on the magnitude.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from ldpaudit.verify.numbers import HUGE_EXPONENT, exp_bounds, log_bounds, power_bounds, root_bounds
from ldpaudit.verify.smt import Encoder, Unsupported

Interval = tuple[Fraction, Fraction]


def huge(enc: Encoder) -> bool:
    """Does some constant have a magnitude too large for rational enclosures?"""
    for a in enc.atoms:
        if a.kind == "exp" and abs(a.data[0]) > HUGE_EXPONENT:
            return True
        if a.kind == "rpow" and abs(a.data[1]) * max(1, abs(a.data[0].numerator).bit_length(), a.data[0].denominator.bit_length()) > HUGE_EXPONENT:
            return True
    return False


def _iv_rational(iv, q: Fraction):
    return iv.mpf(q.numerator) / iv.mpf(q.denominator)


def _iv_enclosures(enc: Encoder, iv) -> dict:
    out = {}
    for a in enc.atoms:
        if a.kind == "exp":
            out[a.symbol] = iv.exp(_iv_rational(iv, a.data[0]))
        elif a.kind == "log":
            out[a.symbol] = iv.log(_iv_rational(iv, a.data[0]))
        elif a.kind == "root":
            base, n = a.data
            b = _iv_rational(iv, Fraction(int(base.p), int(base.q)))
            out[a.symbol] = iv.exp(iv.log(b) / n) if base != 0 else iv.mpf(0)
        elif a.kind == "rpow":
            base, r = a.data
            out[a.symbol] = iv.exp(iv.log(_iv_rational(iv, base)) * _iv_rational(iv, r))
        else:
            raise Unsupported(f"{a.meaning} is not a numeric constant")
    return out


def _iv_evaluate(expr: sp.Basic, enclosures: dict, iv):
    if expr.is_Rational:
        return _iv_rational(iv, Fraction(int(expr.p), int(expr.q)))
    if expr.is_Symbol:
        return enclosures[expr]
    if expr.is_Add:
        acc = iv.mpf(0)
        for a in expr.args:
            acc = acc + _iv_evaluate(a, enclosures, iv)
        return acc
    if expr.is_Mul:
        acc = iv.mpf(1)
        for a in expr.args:
            acc = acc * _iv_evaluate(a, enclosures, iv)
        return acc
    if expr.is_Pow and expr.exp.is_Integer:
        base = _iv_evaluate(expr.base, enclosures, iv)
        n = int(expr.exp)
        if n < 0:
            if base.a <= 0 <= base.b:
                raise ZeroDivisionError
            return 1 / base ** (-n)
        return base**n
    if isinstance(expr, sp.Abs):
        return abs(_iv_evaluate(expr.args[0], enclosures, iv))
    raise Unsupported(f"cannot evaluate {expr} in interval arithmetic")


def _sign_huge(enc: Encoder, poly: sp.Basic, max_bits: int) -> int | None:
    from mpmath import iv

    bits = 64
    saved = iv.prec
    try:
        while bits <= max_bits:
            iv.prec = bits
            value = _iv_evaluate(poly, _iv_enclosures(enc, iv), iv)
            if value.a > 0:
                return 1
            if value.b < 0:
                return -1
            bits *= 4
    finally:
        iv.prec = saved
    return None


def _mul(a: Interval, b: Interval) -> Interval:
    products = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
    return min(products), max(products)


def _pow(a: Interval, n: int) -> Interval:
    if n == 0:
        return Fraction(1), Fraction(1)
    if n < 0:
        lo, hi = _pow(a, -n)
        if lo <= 0 <= hi:
            raise ZeroDivisionError
        return 1 / hi, 1 / lo
    lo, hi = a[0] ** n, a[1] ** n
    if n % 2 == 0 and a[0] <= 0 <= a[1]:
        return Fraction(0), max(lo, hi)
    return (lo, hi) if lo <= hi else (hi, lo)


def evaluate(expr: sp.Basic, enclosures: dict) -> Interval:
    """Interval of a normalized expression given enclosures of its symbols."""
    if expr.is_Rational:
        v = Fraction(int(expr.p), int(expr.q))
        return v, v
    if expr.is_Symbol:
        return enclosures[expr]
    if expr.is_Add:
        lo = hi = Fraction(0)
        for a in expr.args:
            alo, ahi = evaluate(a, enclosures)
            lo, hi = lo + alo, hi + ahi
        return lo, hi
    if expr.is_Mul:
        acc = (Fraction(1), Fraction(1))
        for a in expr.args:
            acc = _mul(acc, evaluate(a, enclosures))
        return acc
    if expr.is_Pow and expr.exp.is_Integer:
        return _pow(evaluate(expr.base, enclosures), int(expr.exp))
    if isinstance(expr, sp.Abs):
        lo, hi = evaluate(expr.args[0], enclosures)
        if lo >= 0:
            return lo, hi
        if hi <= 0:
            return -hi, -lo
        return Fraction(0), max(-lo, hi)
    raise Unsupported(f"cannot evaluate {expr} in interval arithmetic")


def enclosures_for(enc: Encoder, bits: int) -> dict:
    out = {}
    for a in enc.atoms:
        if a.kind == "exp":
            out[a.symbol] = exp_bounds(a.data[0], bits)
        elif a.kind == "log":
            out[a.symbol] = log_bounds(a.data[0], bits)
        elif a.kind == "root":
            base, n = a.data
            out[a.symbol] = root_bounds(Fraction(int(base.p), int(base.q)), n, bits)
        elif a.kind == "rpow":
            out[a.symbol] = power_bounds(*a.data, bits)
        else:
            raise Unsupported(f"{a.meaning} is not a numeric constant")
    return out


def sign(expr: sp.Basic, *, max_bits: int = 4096) -> int | None:
    """-1, 0 or 1: the exact sign of a numeric sympy expression (None if undecidable here)."""
    expr = sp.sympify(expr)
    if expr.is_Rational:
        return int(expr.p > 0) - int(expr.p < 0)
    if expr.free_symbols:
        raise ValueError(f"sign of non-numeric {expr}")
    if expr.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
        if expr == sp.oo:
            return 1
        if expr == -sp.oo:
            return -1
        return None
    try:
        enc = Encoder((), [expr])
        poly = enc.poly(expr)
        if huge(enc):
            s = _sign_huge(enc, poly, max_bits)
            if s is not None:
                return s
            return 0 if _is_zero(expr) else None
        bits = 64
        while bits <= max_bits:
            lo, hi = evaluate(poly, enclosures_for(enc, bits))
            if lo > 0:
                return 1
            if hi < 0:
                return -1
            # zero as a rational function of its constants (1/tanh(1/4) and (√e + 1)/(√e - 1) in e^(1/4))
            if bits == 64 and (sp.cancel(sp.together(poly)) == 0 or _is_zero(expr)):
                return 0
            bits *= 4
    except (Unsupported, ZeroDivisionError):
        pass
    return 0 if _is_zero(expr) else None


def _is_zero(expr) -> bool:
    try:
        if sp.simplify(expr) == 0:
            return True
        if not expr.has(sp.exp, sp.E, sp.log, sp.pi):  # algebraic: decide by the minimal polynomial
            x = sp.Dummy("x")
            return sp.minimal_polynomial(expr, x) == x
    except Exception:  # sympy raises many types on odd inputs; undecided is not zero
        return False
    return False


#: the longest denominator of a log's coefficient for which sympy may build e^claim
LONG_ROOT = 64


def long_power(claim: sp.Basic) -> bool:
    """Would ``sp.exp(claim)`` make sympy expand q^(p/r) for a long r? e^(log(24/5)·999999999/10^9)
    is (24/5)^(999999999/10^9), and sympy's perfect-power extraction computes 2^999999997 (and
    hangs) the moment it is built or multiplied. Such a claim is compared as a logarithm."""
    claim = sp.sympify(claim)
    if claim.free_symbols or not claim.has(sp.log):
        return False
    expanded = sp.expand(claim)
    for term in sp.Add.make_args(expanded):
        coeff, rest = term.as_coeff_Mul()
        if rest.has(sp.log) and coeff.is_Rational and int(coeff.q) > LONG_ROOT:
            return True
    return False


def log_exceeds(ratio: sp.Basic, claim: sp.Basic) -> int | None:
    """Sign of log(ratio) - claim, exactly (ratio > 0 numeric, claim numeric): the comparison of
    ratio with e^claim without building e^claim (see :func:`long_power`)."""
    ratio = sp.sympify(ratio)
    if ratio == sp.oo:
        return 1
    log_ratio = sp.expand_log(sp.log(ratio), force=True)
    return sign(log_ratio - sp.sympify(claim))


def compare(a: sp.Basic, b: sp.Basic) -> int | None:
    """Sign of a - b, exactly."""
    return sign(sp.sympify(a) - sp.sympify(b))


def enclose(expr: sp.Basic, bits: int = 96) -> tuple[Fraction, Fraction]:
    """Rational lo <= expr <= hi for a numeric expression (rigorous)."""
    expr = sp.sympify(expr)
    if expr.is_Rational:
        v = Fraction(int(expr.p), int(expr.q))
        return v, v
    enc = Encoder((), [expr])
    return evaluate(enc.poly(expr), enclosures_for(enc, bits))


def approx(expr: sp.Basic, digits: int = 6) -> str:
    """A short decimal rendering for humans (never used for decisions)."""
    try:
        value = sp.N(expr, digits)
        return str(value)
    except Exception:
        return "?"
