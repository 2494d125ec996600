"""The cost of spec text, bounded before sympy pays it: the limits on length, depth, integer
sizes, exponents and pieces, and the checks made before sympy evaluates an operation whose
evaluation could burn CPU or memory (powers, ``exp`` of a number, ``binomial``, ``floor``, ``%``,
``bit``). Values that cannot be real (``1/0``, ``log(0)``) are refused where they arise.
:func:`shown` quotes spec text in messages, cut to a readable length.
"""

from __future__ import annotations

import math
import re
import reprlib
from collections.abc import Callable

import sympy as sp

from ldpaudit.errors import InvalidSpec

MAX_LENGTH = 2000  # characters of expression text
MAX_DEPTH = 40  # nesting of the expression tree
MAX_INT_DIGITS = 60  # digits of an integer literal
MAX_CONSTANT_EXPONENT = 1000  # |b| in a**b for a literal number b
MAX_INT_BITS = 65536  # bits of every exact number (numerator, denominator, binomial, power): k-subset at d = 20,000 needs ~20,000
MAX_ROOT_BITS = 2048  # bits of a rational whose fractional power sympy would simplify
MAX_EXP_ARGUMENT = 10**5  # |a| in exp(a), and |b*log(a)| in a**b, for numbers a, b
MAX_INTEGER_PART_BITS = 60  # log2 |a| for an irrational number a given to floor, ceiling, %, bit
MAX_BINOMIAL_TERMS = 1000  # k in binomial(n, k) when sympy would expand it into k factors
MAX_PIECES = 64  # pieces of a Piecewise folded out of a condition (each 'a if c else b' in it doubles them)
SHOWN_CHARS = 60  # values are shortened to this many characters in messages


def _bit(x, j):
    """The j-th bit of a non-negative integer x: floor(x / 2**j) mod 2."""
    power = apply_guarded(sp.Pow, (sp.Integer(2), j))
    return apply_guarded(sp.Mod, (apply_guarded(sp.floor, (x / power,)), sp.Integer(2)))


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = SHOWN_CHARS
_REPR.maxlevel = 3
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = 6


def shown(value, limit: int = SHOWN_CHARS) -> str:
    """``value`` for an error message: one line, at most about ``limit`` characters.

    Text is quoted (repr); huge integers are summarized by their size (Python refuses to
    print integers of more than 4300 digits); nested containers are cut short."""
    if isinstance(value, sp.Integer):
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 180:
        return f"{'-' if value < 0 else ''}an integer of {_digits(value)} digits"
    if isinstance(value, sp.Basic):
        big = [a for a in value.atoms(sp.Rational) if max(int(a.p).bit_length(), int(a.q).bit_length()) > 14_000]
        text = "an expression with a number of more than 4000 digits" if big else sp.sstr(value)
    elif isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = _REPR.repr(value)
        except (ValueError, RecursionError):
            text = f"a {type(value).__name__}"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _digits(n: int) -> int:
    return max(1, int(abs(n).bit_length() * 0.30103) + 1)


def _bits(q: sp.Rational) -> int:
    return max(int(q.p).bit_length(), int(q.q).bit_length())


def _log2_size(q: sp.Rational) -> float:
    """log2 of the larger of |numerator| and denominator: the bits per unit of exponent."""
    return max(math.log2(abs(int(q.p))) if q.p else 0.0, math.log2(int(q.q)))


def _log2_abs(value: sp.Basic) -> float | None:
    """log2 |value| for a number (-inf for 0, inf for infinities), None if it cannot be bounded.

    Called only on values whose parts already passed the budget checks, so the low-precision
    ``evalf`` is cheap."""
    if value.is_Rational:
        if value == 0:
            return -math.inf
        return math.log2(abs(int(value.p))) - math.log2(int(value.q))
    if value in (sp.oo, -sp.oo, sp.zoo):
        return math.inf
    if value is sp.nan or not value.is_number:
        return None
    try:
        approx = value.evalf(15)
    except (TypeError, ValueError, ArithmeticError, RecursionError, NotImplementedError):
        return None
    if not isinstance(approx, sp.Float):
        return None  # complex, or sympy could not evaluate it
    import mpmath

    x = mpmath.mpf(approx._mpf_)
    if mpmath.isnan(x):
        return None
    if mpmath.isinf(x):
        return math.inf
    if x == 0:
        return -math.inf
    try:
        return float(mpmath.log(abs(x), 2))
    except OverflowError:
        return math.inf


class BudgetExceeded(InvalidSpec):
    """An expression would cost more to evaluate than the spec budgets allow."""


def _magnitude(value: sp.Basic, what: str) -> float:
    m = _log2_abs(value)
    if m is None or math.isnan(m):
        raise BudgetExceeded(f"{what}: cannot bound the size of {shown(value)}")
    return m


def _constant_term(expr: sp.Basic) -> sp.Basic | None:
    """The numeric term c of ``c + rest``: ``expand`` splits a**(c + x) into a**c * a**x."""
    if isinstance(expr, sp.Add):
        c, _ = expr.as_coeff_Add()
        return c if c != 0 else None
    return None


def _tower_check(base: sp.Basic, exponent: sp.Basic) -> None:
    """Refuse a**(b**c) with parameters in both b and c (``d**d**d``): its size grows doubly
    exponentially in small parameter values (d = 3 gives 3**27), so evaluating it at the
    validation's sample points never ends, whatever the other budgets allow."""
    if exponent.is_number:
        return
    for node in sp.preorder_traversal(exponent):
        if isinstance(node, sp.Pow) and node.base.free_symbols and node.exp.free_symbols:
            raise BudgetExceeded(
                f"{_operand(base)}**{_operand(exponent)} is a power tower: its exponent raises a parameter to a "
                f"parameter ({shown(node, 30)}), so its size grows doubly exponentially; write it without a "
                "parameter raised to a parameter in an exponent"
            )


def _pow_check(base: sp.Basic, exponent: sp.Basic) -> None:
    _tower_check(base, exponent)
    if base.is_number and _constant_term(exponent) is not None:
        _pow_check(base, _constant_term(exponent))
    if not (base.is_number and exponent.is_number):
        return
    if base.is_Rational and exponent.is_Rational:
        if base == 0 or abs(base) == 1:
            return
        bits = abs(exponent) * _log2_size(base)
        if bits > MAX_INT_BITS:
            raise BudgetExceeded(
                f"{_operand(base)}**{_operand(exponent)} has about {int(bits)} bits; "
                f"exact numbers are limited to {MAX_INT_BITS} bits"
            )
        if not exponent.is_Integer and _bits(base) > MAX_ROOT_BITS:
            raise BudgetExceeded(
                f"{_operand(base)}**{_operand(exponent)}: the fractional power of a number of "
                f"{_bits(base)} bits is too costly; the limit is {MAX_ROOT_BITS} bits"
            )
        return
    if not exponent.is_Integer and _is_negative_number(base):
        raise BudgetExceeded(
            f"{_operand(base)}**{_operand(exponent)} is not a real number (a negative base to a non-integer power)"
        )
    # |base**exponent| = 2**(exponent * log2|base|): bound its logarithm like exp's argument
    lb = _magnitude(base, "power")
    le = _magnitude(exponent, "power")
    if lb == -math.inf or le == -math.inf:
        return
    if le == math.inf or abs(lb) == math.inf or (2**le if le < 1000 else math.inf) * abs(lb) * math.log(2) > MAX_EXP_ARGUMENT:
        raise BudgetExceeded(
            f"{_operand(base)}**{_operand(exponent)} is too large or too small to evaluate; "
            f"|exponent * log(base)| is limited to {MAX_EXP_ARGUMENT}"
        )


def _operand(value: sp.Basic) -> str:
    text = shown(value, 30)
    return text if re.fullmatch(r"[\w.]+", text) else f"({text})"


def _is_negative_number(value: sp.Basic) -> bool:
    if value.is_Rational:
        return value < 0
    if value.is_extended_negative is not None:
        return bool(value.is_extended_negative)
    try:
        approx = value.evalf(15)
    except _EVALUATION_ERRORS:
        return False
    return isinstance(approx, sp.Float) and approx < 0


def _exp_check(arg: sp.Basic) -> None:
    if _constant_term(arg) is not None:
        _exp_check(_constant_term(arg))
    if not arg.is_number:
        return
    m = _magnitude(arg, "exp")
    if m > math.log2(MAX_EXP_ARGUMENT):
        raise BudgetExceeded(
            f"exp({shown(arg, 40)}): the argument is about 2^{_approx(m)}; "
            f"exp arguments are limited to |a| <= {MAX_EXP_ARGUMENT}"
        )


def _approx(m: float) -> str:
    return "inf" if m == math.inf else f"{m:.3g}"


def _integer_part_check(arg: sp.Basic, what: str) -> None:
    """floor/ceiling/%/bit of a number: exact for bounded rationals, costly (and often stuck)
    for large irrational numbers, whose integer part sympy must compute to full precision."""
    if not arg.is_number or arg.is_Rational:
        return
    m = _magnitude(arg, what)
    if m > MAX_INTEGER_PART_BITS:
        raise BudgetExceeded(
            f"{what} of {shown(arg, 40)}: the number is about 2^{_approx(m)}; the integer part of an "
            f"irrational number is computed only up to 2^{MAX_INTEGER_PART_BITS}"
        )


def _mod_check(a: sp.Basic, b: sp.Basic) -> None:
    if b.is_zero:
        raise BudgetExceeded(f"{shown(a, 30)} % {shown(b, 30)} is a modulo by zero")
    _integer_part_check(a, "%")
    _integer_part_check(b, "%")
    if b.is_number and not b.is_Rational and _magnitude(b, "%") < -MAX_INTEGER_PART_BITS:
        raise BudgetExceeded(f"{shown(a, 30)} % {shown(b, 30)}: the modulus is too small to evaluate")


def _binomial_check(n: sp.Basic, k: sp.Basic) -> None:
    what = f"binomial({shown(n, 30)}, {shown(k, 30)})"
    for v in (n, k):  # sympy expands gamma of half-integers into factorials: keep them small
        if v.is_number and not v.is_Integer and _magnitude(v, "binomial") > math.log2(MAX_BINOMIAL_TERMS):
            raise BudgetExceeded(f"{what}: arguments that are not integers are limited to |a| <= {MAX_BINOMIAL_TERMS}")
    if k.is_number and k.is_Integer and not n.is_number and abs(k) > MAX_BINOMIAL_TERMS * 100:
        raise BudgetExceeded(f"{what}: k is limited to {MAX_BINOMIAL_TERMS * 100} when n is symbolic")
    if not (n.is_number and k.is_number):
        return
    if not (n.is_Rational and k.is_Rational):
        for v in (n, k):
            if _magnitude(v, "binomial") > MAX_INTEGER_PART_BITS:
                raise BudgetExceeded(f"{what}: arguments that are not rational are limited to 2^{MAX_INTEGER_PART_BITS}")
        if k.is_Integer and abs(k) > MAX_BINOMIAL_TERMS // 50:  # a product of k irrational factors
            raise BudgetExceeded(f"{what}: k is limited to {MAX_BINOMIAL_TERMS // 50} when n is irrational")
        if not k.is_Integer:  # sympy writes gamma(n + 1)/(gamma(k + 1) gamma(n - k + 1)) and evaluates each
            for a in (n + 1, k + 1, n - k + 1):
                _gamma_check(a)
        return
    if not k.is_Integer:  # sympy goes through gamma(n + 1), a factorial for integer n
        if abs(n) > MAX_BINOMIAL_TERMS:
            raise BudgetExceeded(f"{what}: with a fractional k, n is limited to |n| <= {MAX_BINOMIAL_TERMS}")
        return
    k_ = int(k)
    if k_ < 0:
        return  # zero
    if n.is_Integer:
        n_ = int(n)
        if n_ >= 0 and k_ > n_:
            return  # zero
        if n_ < 0:  # binomial(-m, k) = (-1)**k binomial(m + k - 1, k), which sympy multiplies out
            if k_ > MAX_BINOMIAL_TERMS * 10:
                raise BudgetExceeded(f"{what}: with a negative n, k is limited to {MAX_BINOMIAL_TERMS * 10}")
            n_ = -n_ + k_ - 1
        m = min(k_, n_ - k_)
        if m == 0:
            return
        bits = _log2_binomial(n_, m)
    else:
        if k_ > MAX_BINOMIAL_TERMS:
            raise BudgetExceeded(f"{what}: k is limited to {MAX_BINOMIAL_TERMS} when n is not an integer")
        bits = k_ * (_bits(n) + math.log2(k_ + 1) + 1)
    if bits > MAX_INT_BITS:
        raise BudgetExceeded(f"{what} has about {_approx(bits)} bits; exact numbers are limited to {MAX_INT_BITS} bits")


def _log2_binomial(n: int, m: int) -> float:
    """log2 C(n, m) for 0 < m <= n/2, without computing it (lgamma, or a lower bound)."""
    if n < 2**50:
        return (math.lgamma(n + 1) - math.lgamma(m + 1) - math.lgamma(n - m + 1)) / math.log(2)
    return m * (math.log2(n) - math.log2(m))  # C(n, m) >= (n/m)**m


def _gamma_check(a: sp.Basic) -> None:
    """gamma of an integer or half-integer a is exact, (|a| - 1)! or a rational multiple of √π
    with about as many bits: sympy multiplies it out (binomial(n, k) with an irrational k is
    written with gamma, so binding n = 10**6 asked for 10**6!). Other arguments stay unevaluated."""
    if not a.is_Rational or a.q > 2:
        return
    bits = math.lgamma(float(abs(a)) + 1) / math.log(2)
    if bits > MAX_INT_BITS:
        raise BudgetExceeded(
            f"gamma({shown(a, 30)}) has about {_approx(bits)} bits; exact numbers are limited to {MAX_INT_BITS} bits"
        )


def _bit_check(x: sp.Basic, j: sp.Basic) -> None:
    if j.is_number:
        if not j.is_Integer or j < 0:
            raise BudgetExceeded(f"bit({shown(x, 30)}, {shown(j, 30)}): the bit index must be a non-negative integer")
        if j > MAX_INT_BITS:
            raise BudgetExceeded(
                f"bit({shown(x, 30)}, {shown(j, 30)}): the bit index is limited to {MAX_INT_BITS} "
                f"(numbers have at most {MAX_INT_BITS} bits)"
            )
    _integer_part_check(x, "bit")


#: operations checked before they are evaluated: function -> check(*args)
_PRECHECKS: dict[object, Callable[..., None]] = {
    sp.Pow: _pow_check,
    sp.exp: _exp_check,
    sp.binomial: _binomial_check,
    sp.gamma: _gamma_check,
    sp.floor: lambda a: _integer_part_check(a, "floor"),
    sp.ceiling: lambda a: _integer_part_check(a, "ceiling"),
    sp.Mod: _mod_check,
    _bit: _bit_check,
}


def _check_numbers(value: sp.Basic) -> None:
    """Every exact number in ``value`` stays within :data:`MAX_INT_BITS`."""
    atoms = [value] if value.is_Rational else value.atoms(sp.Rational) if isinstance(value, sp.Basic) else ()
    for q in atoms:
        if _bits(q) > MAX_INT_BITS:
            raise BudgetExceeded(f"a number of about {_digits(max(int(q.p), int(q.q)))} digits; exact numbers are limited to {MAX_INT_BITS} bits")


_EVALUATION_ERRORS = (TypeError, ValueError, ArithmeticError, RecursionError, NotImplementedError, AttributeError)


def apply_guarded(func, args) -> sp.Basic:
    """``func(*args)`` after the budget checks; raises :class:`BudgetExceeded` (an
    :class:`InvalidSpec`) naming the operation and the limit, never a sympy error."""
    check = _PRECHECKS.get(func)
    if check is not None:
        check(*args)
    try:
        result = func(*args)
    except BudgetExceeded:
        raise
    except _EVALUATION_ERRORS as exc:
        raise BudgetExceeded(f"cannot be evaluated ({type(exc).__name__}: {shown(str(exc).splitlines()[0] if str(exc) else '', 80)})") from None
    _check_numbers(result)
    return result


def check_budget(expr: sp.Basic, *, field: str = "expression", error: type = InvalidSpec) -> None:
    """Refuse an already-built expression (from the Python API) whose numbers or operations
    exceed the budgets, as if it had been parsed from spec text."""
    expr = sp.sympify(expr)
    try:
        _check_numbers(expr)
        for node in sp.preorder_traversal(expr):
            check = _PRECHECKS.get(getattr(node, "func", None))
            if check is not None and node.args:
                check(*node.args)
    except BudgetExceeded as exc:
        raise error(f"{field} = {shown(expr)}: {exc}") from None
