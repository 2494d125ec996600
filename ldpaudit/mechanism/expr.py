"""Safe parsing of spec-file expressions into sympy.

Spec files are untrusted input, so expression text is never handed to ``eval``,
``sympify`` or ``parse_expr`` (all of which execute code). Instead the text is
parsed by Python's ``ast`` module and every node is checked against an allow-list
before it is translated, node by node, into sympy objects.

Allowed: integer literals, declared names, ``+ - * / **``, unary minus, the
functions in ``FUNCTIONS``, comparisons, ``and``/``or``/``not``, and conditional
expressions ``a if cond else b`` (which become ``Piecewise``). Float literals are
rejected: specs are exact, write ``1/2`` instead of ``0.5``.

Spec text is also bounded in cost: every operation whose evaluation could burn CPU or
memory (powers, ``exp`` of a number, ``binomial``, ``floor``, ``%``, ``bit``) is checked
*before* sympy evaluates it, against the limits below; substituting parameter values
(:func:`substitute`) goes through the same checks. Values that cannot be real (``1/0``,
``log(0)``, ``(-1)**(1/2)``) are refused at the sub-expression that produced them.
"""

from __future__ import annotations

import ast
import itertools
import math
import re
import reprlib
from collections.abc import Callable, Mapping
from fractions import Fraction

import sympy as sp

from ldpaudit.errors import InvalidSpec

# --- budgets: what one spec expression may cost ---------------------------------------------

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


class Phi(sp.Function):
    """The standard normal CDF Φ(a) = erfc(-a/√2)/2 (printed as Φ; evaluated through erfc)."""

    nargs = 1

    @classmethod
    def eval(cls, a):
        if a is sp.oo:
            return sp.Integer(1)
        if a is -sp.oo:
            return sp.Integer(0)
        if a == 0:
            return sp.Rational(1, 2)
        return None

    def _eval_rewrite_as_erfc(self, a, **kwargs):
        return sp.erfc(-a / sp.sqrt(2)) / 2

    def _eval_evalf(self, prec):
        return self.rewrite(sp.erfc)._eval_evalf(prec)

    def _sympystr(self, printer):
        return f"Phi({printer._print(self.args[0])})"

    def _latex(self, printer):
        return rf"\Phi\left({printer._print(self.args[0])}\right)"


FUNCTIONS = {
    "exp": (sp.exp, 1),
    "log": (sp.log, 1),
    "sqrt": (sp.sqrt, 1),
    "abs": (sp.Abs, 1),
    "Abs": (sp.Abs, 1),
    "binomial": (sp.binomial, 2),
    "floor": (sp.floor, 1),
    "ceiling": (sp.ceiling, 1),
    "Max": (sp.Max, 2),
    "Min": (sp.Min, 2),
    "bit": (_bit, 2),
    "Phi": (Phi, 1),
    "erf": (sp.erf, 1),
    "erfc": (sp.erfc, 1),
}
CONSTANTS = {"pi": sp.pi, "E": sp.E, "oo": sp.oo}

_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a**b,
    ast.Mod: lambda a, b: sp.Mod(a, b),
}
_COMPARE = {
    ast.Eq: sp.Eq,
    ast.NotEq: sp.Ne,
    ast.Lt: sp.Lt,
    ast.LtE: sp.Le,
    ast.Gt: sp.Gt,
    ast.GtE: sp.Ge,
}


# --- budgets: checks made before sympy evaluates an operation --------------------------------

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


def piecewise_fold(expr: sp.Basic, *, guarded: bool = True) -> sp.Basic:
    """``sympy.piecewise_fold(expr)`` (the same result) with every node it rebuilds built by
    :func:`apply_guarded`, and at most :data:`MAX_PIECES` pieces per fold.

    sympy folds ``f(Piecewise((a, c), (b, True)))`` into ``Piecewise((f(a), c), (f(b), True))``,
    evaluating ``f(a)`` unguarded: ``2**64 ** (2**64 if epsilon > 10 else 1)`` is harmless
    unevaluated but folds into a number of 2**70 bits; and the pieces multiply, so ``n`` of
    ``a if c else b`` added in one comparison fold into 2**n pieces. sympy folds every condition
    that contains a Piecewise when it builds a Piecewise, so the parser folds conditions here first.

    ``guarded=False`` is sympy's fold step for step, for expressions the parser has already
    bounded (a density whose ``abs(z - x)`` is rewritten as a Piecewise). Either way, conditions
    that are ``ITE``s are simplified by :func:`simplify_cnf` (sympy's result, faster).
    """
    from sympy.functions.elementary.piecewise import ExprCondPair
    from sympy.logic.boolalg import ITE
    from sympy.utilities.iterables import common_prefix, sift

    if not isinstance(expr, sp.Basic) or not expr.has(sp.Piecewise):
        return expr
    build = apply_guarded if guarded else (lambda func, args: func(*args))
    count = _count_pieces if guarded else (lambda n: None)

    def again(e):
        return piecewise_fold(e, guarded=guarded)

    pieces = []
    if isinstance(expr, ExprCondPair | sp.Piecewise):
        for e, c in expr.args:
            if not isinstance(e, sp.Piecewise):
                e = again(e)
            if isinstance(c, ITE):
                c = simplify_cnf(c.to_nnf())
            if isinstance(e, sp.Piecewise):
                pieces.extend((again(ei), sp.And(ci, c)) for ei, ci in e.args)
            else:
                pieces.append((e, c))
            count(len(pieces))
    else:
        if expr.is_Add or expr.is_Mul and expr.is_commutative:
            # Piecewise terms with the same conditions are combined piece by piece (as sympy does)
            p, args = sift(expr.args, lambda x: x.is_Piecewise, binary=True)
            pc = sift(p, lambda x: tuple(c for e, c in x.args))
            for c in list(sp.ordered(pc)):
                if len(pc[c]) > 1:
                    pargs = [list(i.args) for i in pc[c]]
                    com = common_prefix(*[[i.cond for i in j] for j in pargs])
                    n = len(com)
                    collected = [(build(expr.func, tuple(ai[i].expr for ai in pargs)), com[i]) for i in range(n)]
                    remains = []
                    for a in pargs:
                        if n == len(a):
                            continue
                        remains.append(a[n].expr if a[n].cond == True else sp.Piecewise(*a[n:], evaluate=False))  # noqa: E712
                    if remains:
                        collected.append((build(expr.func, tuple(remains)), True))
                    args.append(sp.Piecewise(*collected, evaluate=False))
                    continue
                args.extend(pc[c])
        else:
            args = expr.args
        folded = [again(a) for a in args]
        choices = [a.args if isinstance(a, sp.Piecewise) else [(a, sp.true)] for a in folded]
        count(math.prod(len(c) for c in choices))
        for ec in itertools.product(*choices):
            e, c = zip(*ec)
            pieces.append((build(expr.func, e), sp.And(*c)))
    out = sp.Piecewise(*pieces)
    if any(s.expr.has(sp.Piecewise) for q in out.atoms(sp.Piecewise) for s in q.args):
        return again(out)
    return out


def simplify_cnf(cond: sp.Basic) -> sp.Basic:
    """``sympy.simplify_logic(cond, form="cnf")``, the same result, without sympy's generic
    ``simplify`` of each relation when every relation is an inequality between linear
    polynomials with rational coefficients (:func:`simplified_inequality`): that ``simplify``
    samples the expression at random points and imports ``sympy.physics.units`` (together
    most of the cost of loading Square Wave's ``abs(z - x) <= b``)."""
    from sympy.logic.boolalg import is_cnf, is_literal, simplify_logic

    def quick(c) -> bool:  # simplify_logic returns a CNF of literals as it is
        return is_cnf(c) and all(is_literal(a) for a in c.args)

    if quick(cond):
        return cond
    table = {}
    for rel in cond.atoms(sp.core.relational.Relational):
        table[rel] = simplified_inequality(rel)
        if table[rel] is None:
            return simplify_logic(cond, form="cnf")
    relations_simplified = cond.xreplace(table)
    if quick(relations_simplified):  # sympy would go on to minimize it: let it
        return simplify_logic(cond, form="cnf")
    return simplify_logic(relations_simplified, form="cnf", deep=False)


def simplified_inequality(rel: sp.Basic) -> sp.Basic | None:
    """``sympy.simplify(rel)`` for an inequality between polynomials of degree <= 1 in real
    symbols with rational coefficients, by the steps of sympy's ``Relational._eval_simplify``
    that apply to one (such sides are already simplified, and a difference with a free symbol
    is not identically 0, so sympy's numeric zero test is skipped); None for any other relation."""
    from sympy.core.function import count_ops
    from sympy.polys.polytools import gcd
    from sympy.solvers.solveset import linear_coeffs

    if not isinstance(rel, (sp.Lt, sp.Le, sp.Gt, sp.Ge)) or not all(_linear_rational(side) for side in rel.args):
        return None
    if not (rel.lhs - rel.rhs).free_symbols:
        return None
    r = rel.canonical
    free = list(sp.ordered(r.free_symbols))
    dif = r.lhs - r.rhs
    if len(free) == 1:
        m, b = linear_coeffs(dif, free[0])
        if m.is_zero is False:
            r = r.func(-b / m, free[0]) if m.is_negative else r.func(free[0], -b / m)
        else:
            r = r.func(b, sp.S.Zero)
    else:
        m = linear_coeffs(dif, *free)
        constant = m.pop()
        scale = gcd(m)
        m = [c / scale for c in m]
        terms = [(c, s) for c, s in zip(m, free) if c != 0]
        if scale.is_zero is False:
            if constant != 0:
                r = r.func(sp.Add(*[c * s for c, s in terms]), -constant / scale)
            else:
                r = r.func(terms[0][0] * terms[0][1], -sp.Add(*[c * s for c, s in terms[1:]]))
        else:
            r = r.func(constant, sp.S.Zero)
    r = r.canonical
    return r if count_ops(r) < 1.7 * count_ops(rel) else rel


def _linear_rational(e: sp.Basic) -> bool:
    """A sum of rationals times real symbols, and at most one rational."""
    for term in e.args if e.is_Add else (e,):
        if term.is_Rational:
            continue
        c, s = term.as_coeff_Mul()
        if not (c.is_Rational and s.is_Symbol and s.is_real):
            return False
    return True


def fold(expr: sp.Basic, *, field: str = "expression", error: type = InvalidSpec) -> sp.Basic:
    """:func:`piecewise_fold` for the loader: a refusal is ``error`` naming ``field``."""
    try:
        return piecewise_fold(expr)
    except BudgetExceeded as exc:
        raise error(f"{field} = {shown(expr)}: {exc}") from None


def _count_pieces(n: int) -> None:
    if n > MAX_PIECES:
        raise BudgetExceeded(
            f"folding the conditional expressions ('a if c else b') in a condition gives more than {MAX_PIECES} "
            "cases; use fewer conditional expressions inside conditions"
        )


def substitute(
    expr: sp.Basic,
    subs: Mapping[sp.Symbol, sp.Basic],
    *,
    field: str = "expression",
    error: type[InvalidSpec] | type = InvalidSpec,
) -> sp.Basic:
    """``expr.xreplace(subs)``, rebuilding the expression bottom-up under the same budgets as
    parsing: binding ``d = 10**9, k = 10**8`` in ``binomial(d, k)`` is refused before sympy
    starts on a number of half a billion bits. Errors are ``error`` naming ``field``."""
    expr = sp.sympify(expr)
    if not subs:
        return expr
    keys = set(subs)
    memo: dict = {}

    def walk(node):
        if node in subs:
            return subs[node]
        if not node.args or not (node.free_symbols & keys):
            return node
        if node in memo:
            return memo[node]
        args = tuple(walk(a) for a in node.args)
        out = node if args == node.args else apply_guarded(node.func, args)
        memo[node] = out
        return out

    try:
        return walk(expr)
    except BudgetExceeded as exc:
        at = ", ".join(f"{k}={shown(v, 30)}" for k, v in subs.items())
        raise error(f"{field} = {shown(expr)} at {shown(at, 80)}: {exc}") from None


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


_DECIMAL = re.compile(r"[+-]?(\d[\d_]*)?(\.\d*)?([eE][+-]?\d+)?")


def exact_decimal(text: str) -> Fraction | None:
    """``Fraction(text)`` for number text ("8", "1/2", "0.25", "1e-3"), within the budgets;
    None when the text is not a plain number (then it goes to the expression parser).

    ``Fraction("1e999999999")`` alone would compute a billion-digit integer."""
    text = text.strip()
    if not text or len(text) > MAX_LENGTH:
        return None
    num, slash, den = text.partition("/")
    parts = (num, den) if slash else (num,)
    for part in parts:
        m = _DECIMAL.fullmatch(part.strip())
        if m is None:
            return None
        digits = len(re.sub(r"\D", "", (m.group(1) or "") + (m.group(2) or "")))
        exponent = abs(int(m.group(3)[1:])) if m.group(3) else 0
        if digits + exponent > MAX_INT_DIGITS * 5:
            raise BudgetExceeded(
                f"{shown(text)} has more than {MAX_INT_DIGITS * 5} digits (with its exponent); "
                "write a smaller number or an expression such as 10**100"
            )
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None


def parse_expression(
    text: str | int,
    symbols: Mapping[str, sp.Basic],
    *,
    field: str = "expression",
    predicate: bool = False,
    functions: Mapping | None = None,
) -> sp.Basic:
    """Parse ``text`` into a sympy expression using only the names in ``symbols`` (a condition
    instead of a number with ``predicate=True``; see :func:`parse_predicate`).

    ``field`` names where the text came from, for error messages
    (e.g. ``"channel.classes[0].weight"``). The result is a real-valued expression (not a
    condition) within the budgets above; anything else is :class:`InvalidSpec`. ``functions``
    adds names to the allow-list for one caller (the claims files' ``diff``; specs never do).
    """
    if text is None:
        raise InvalidSpec(f"{field} is missing; write an expression such as 'exp(epsilon)'")
    if isinstance(text, bool):
        raise InvalidSpec(f"{field} = {text!r} is a boolean; write an expression such as 'exp(epsilon)'")
    if isinstance(text, int):
        if abs(text).bit_length() > MAX_INT_DIGITS * 10 // 3 + 1 or len(str(abs(text))) > MAX_INT_DIGITS:
            raise InvalidSpec(f"{field} = {shown(text)}: integer literals are limited to {MAX_INT_DIGITS} digits")
        text = str(text)
    if isinstance(text, float):
        raise InvalidSpec(
            f"{field} = {text!r} is a float; specs are exact, write a fraction such as '1/2' in quotes"
        )
    if not isinstance(text, str):
        raise InvalidSpec(
            f"{field} = {shown(text)} must be a string expression such as 'exp(epsilon)', got {_kind(text)}"
        )
    if not text.strip():
        raise InvalidSpec(f"{field} is empty; write an expression such as 'exp(epsilon)'")
    if len(text) > MAX_LENGTH:
        raise InvalidSpec(
            f"{field} = {shown(text)} is {len(text)} characters long; expressions are limited to {MAX_LENGTH}"
        )
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise InvalidSpec(f"{field} = {shown(text)} is not a valid expression: {exc.msg}") from None
    except (RecursionError, MemoryError, ValueError):
        raise InvalidSpec(f"{field} = {shown(text)} is nested too deeply to parse; the limit is {MAX_DEPTH} levels") from None
    translator = _Translator(symbols, field, text, functions)
    value = translator.visit(tree.body, 0)
    if predicate:
        if isinstance(value, sp.Expr):
            raise translator.fail("this is a number, which is not a condition; write a comparison such as 'y == floor(x)'")
        return value
    if not isinstance(value, sp.Expr):
        raise translator.fail("this is a condition (true or false), not a number; use it in 'a if condition else b'")
    return value


def parse_predicate(text, symbols: Mapping[str, sp.Basic], *, field: str = "condition",
                    functions: Mapping | None = None) -> sp.Basic:
    """Parse a condition (a comparison, or and/or/not of comparisons) into a sympy boolean, under
    the same allow-list and budgets as :func:`parse_expression`."""
    return parse_expression(text, symbols, field=field, predicate=True, functions=functions)


def _kind(value) -> str:
    return {dict: "a table", list: "an array", str: "a string"}.get(type(value), type(value).__name__)


class _Translator:
    def __init__(self, symbols: Mapping[str, sp.Basic], field: str, text: str, functions: Mapping | None = None):
        self.symbols = symbols
        self.functions = {**FUNCTIONS, **functions} if functions else FUNCTIONS
        self.field = field
        self.text = text

    def fail(self, what: str) -> InvalidSpec:
        return InvalidSpec(f"{self.field} = {shown(self.text)}: {what}")

    def visit(self, node: ast.AST, depth: int):
        if depth > MAX_DEPTH:
            raise self.fail(f"expression is nested more than {MAX_DEPTH} levels deep")
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            raise self.fail(
                f"{type(node).__name__} is not allowed; use numbers, parameter names, "
                f"+ - * / ** %, comparisons, 'a if cond else b' and the functions {', '.join(sorted(FUNCTIONS))}"
            )
        value = method(node, depth + 1)
        if not isinstance(node, ast.Name | ast.Constant):
            self.check_real(value, node)
        return value

    def check_real(self, value, node: ast.AST) -> None:
        """Refuse, at the sub-expression that produced it, a value that cannot be real."""
        part = _cut(ast.unparse(node), 40)
        if value.has(sp.zoo, sp.nan):
            raise self.fail(f"{part} is undefined (a division by zero, log(0) or oo - oo); the value must be a real number")
        if value.has(sp.I) or (value.is_number and value.is_extended_real is False):
            raise self.fail(f"{part} = {shown(value, 40)} is not a real number")

    def condition(self, value, node: ast.AST):
        if isinstance(value, sp.Expr):
            raise self.fail(f"{_cut(ast.unparse(node), 40)} is a number, not a condition; write a comparison such as d > 2")
        return value

    def apply(self, func, args, node: ast.AST):
        """``func(*args)`` within the budgets; errors name the sub-expression and the limit."""
        try:
            return apply_guarded(func, args)
        except BudgetExceeded as exc:
            raise self.fail(str(exc)) from None

    def visit_Constant(self, node: ast.Constant, depth: int):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float):
                raise self.fail(f"float literal {_cut(ast.unparse(node), 30)} is not exact; write a fraction such as 1/2")
            raise self.fail(f"literal {shown(value, 30)} is not allowed; only integers")
        if abs(value).bit_length() > MAX_INT_DIGITS * 10 // 3 + 1 or len(str(abs(value))) > MAX_INT_DIGITS:
            raise self.fail(f"integer literal has more than {MAX_INT_DIGITS} digits")
        return sp.Integer(value)

    def visit_Name(self, node: ast.Name, depth: int):
        if node.id in self.symbols:
            return self.symbols[node.id]
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        if node.id in ("True", "False"):
            return sp.true if node.id == "True" else sp.false
        declared = ", ".join(sorted(self.symbols)) or "(none)"
        raise self.fail(f"unknown symbol {shown(node.id, 30)}; declared names are {_cut(declared, 120)}")

    def visit_BinOp(self, node: ast.BinOp, depth: int):
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.fail(f"operator {type(node.op).__name__} is not allowed; use + - * / ** %")
        left = self.visit(node.left, depth)
        right = self.visit(node.right, depth)
        if isinstance(node.op, ast.Pow) and right.is_Number:
            if abs(right) > MAX_CONSTANT_EXPONENT:
                raise self.fail(f"constant exponent {shown(right, 30)} exceeds {MAX_CONSTANT_EXPONENT}")
            if left.is_Rational and left != 0 and _log2_size(left) * abs(right) > MAX_INT_BITS:
                raise self.fail(f"constant power has more than {MAX_INT_BITS} bits; simplify the number")
        if isinstance(node.op, ast.Pow):
            return self.apply(sp.Pow, (left, right), node)
        if isinstance(node.op, ast.Mod):
            return self.apply(sp.Mod, (left, right), node)
        return self.apply(op, (left, right), node)

    def visit_UnaryOp(self, node: ast.UnaryOp, depth: int):
        operand = self.visit(node.operand, depth)
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, ast.Not):
            return self.apply(sp.Not, (self.condition(operand, node.operand),), node)
        raise self.fail(f"unary operator {type(node.op).__name__} is not allowed")

    def visit_Call(self, node: ast.Call, depth: int):
        if not isinstance(node.func, ast.Name):
            raise self.fail("only plain function calls such as exp(x) are allowed (no attributes)")
        name = node.func.id
        if name not in self.functions:
            raise self.fail(f"function {shown(name, 30)} is not allowed; allowed: {', '.join(sorted(self.functions))}")
        if node.keywords:
            raise self.fail(f"{name}() takes no keyword arguments")
        func, arity = self.functions[name]
        if len(node.args) != arity:
            raise self.fail(f"{name}() takes {arity} argument(s), got {len(node.args)}")
        args = tuple(self.visit(arg, depth) for arg in node.args)
        return self.apply(func, args, node)

    def visit_Compare(self, node: ast.Compare, depth: int):
        parts = []
        left = self.visit(node.left, depth)
        for op, comparator in zip(node.ops, node.comparators):
            rel = _COMPARE.get(type(op))
            right = self.visit(comparator, depth)
            if rel is None:
                raise self.fail(f"comparison {type(op).__name__} is not allowed here")
            parts.append(self.apply(rel, (left, right), node))
            left = right
        return self.apply(sp.And, tuple(parts), node) if len(parts) > 1 else parts[0]

    def visit_BoolOp(self, node: ast.BoolOp, depth: int):
        values = tuple(self.condition(self.visit(v, depth), v) for v in node.values)
        return self.apply(sp.And if isinstance(node.op, ast.And) else sp.Or, values, node)

    def visit_IfExp(self, node: ast.IfExp, depth: int):
        cond = self.condition(self.visit(node.test, depth), node.test)
        body, orelse = self.visit(node.body, depth), self.visit(node.orelse, depth)
        if cond.has(sp.Piecewise):  # sympy would fold it, unguarded, as it builds the Piecewise
            cond = self.apply(_folded_condition, (cond,), node)
        return self.apply(lambda *a: sp.Piecewise((a[0], a[1]), (a[2], True)), (body, cond, orelse), node)


def _folded_condition(cond: sp.Basic) -> sp.Basic:
    """What sympy's ExprCondPair makes of a condition containing a Piecewise (the Piecewise
    folded out of it and rewritten as ITE), within the budgets."""
    folded = piecewise_fold(cond)
    return _as_ite(folded) if isinstance(folded, sp.Piecewise) else folded


def _as_ite(pw: sp.Piecewise) -> sp.Basic:
    """``pw.rewrite(ITE)`` for a Piecewise of conditions that ends in ``(b, True)``.

    sympy's rewrite also stops early where the conditions so far cover every real value of
    their variable, found by solving each condition as an inequality (``as_set``): unbounded
    work (``binomial(1, d) < 2**64`` factors a polynomial for minutes). Here only conditions
    ``symbol <op> number`` are solved; other conditions are kept, which gives the same truth
    values."""
    from sympy.core.relational import _canonical

    args = [list(a) for a in pw.args]
    covered: dict = {}
    i, c = 0, sp.false
    for i, (b, c) in enumerate(args):
        if c == True:  # noqa: E712
            break
        for part in c.args if isinstance(c, sp.Or) else [c]:
            if not (isinstance(part, sp.core.relational.Relational) and part.lhs.is_Symbol and part.rhs.is_Rational):
                continue
            x = part.lhs
            covered[x] = covered.get(x, sp.S.EmptySet).union(part.as_set())
            if covered[x] in (sp.S.UniversalSet, sp.S.Reals):
                c = args[i][1] = sp.true
                break
        if c == True:  # noqa: E712
            break
    if c != True:  # noqa: E712
        raise BudgetExceeded("a condition's cases do not end in a default case")  # the parser always writes one
    last = args[i][0]
    for a, cond in reversed(args[:i]):
        last = sp.ITE(cond, a, last)
    return _canonical(last)


# --- conditions over concrete values (for structured channels' output classes) ------------

_CONDITION_NAMES = {"x", "y", "c", "v"}


def parse_condition(text: str, *, field: str, context: set[str]) -> ast.expr:
    """Parse an output-class condition such as ``y == x`` or ``x in y``.

    Conditions relate a concrete input and output; they are kept as a checked AST
    and evaluated by :func:`eval_condition`, never by Python's ``eval``.
    Allowed: names in ``context``, integer literals, ``== != in not in and or not``,
    and the call ``hash(c, x)`` / ``bit(x, j)`` where declared.
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidSpec(f"{field} = {shown(text)}; write a condition such as 'y == x' or 'x in y'")
    if len(text) > MAX_LENGTH:
        raise InvalidSpec(f"{field} = {shown(text)} is {len(text)} characters long; conditions are limited to {MAX_LENGTH}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise InvalidSpec(f"{field} = {shown(text)} is not a valid condition: {exc.msg}") from None
    except (RecursionError, MemoryError, ValueError):
        raise InvalidSpec(f"{field} = {shown(text)} is nested too deeply to parse; the limit is {MAX_DEPTH} levels") from None
    text = _cut(text, SHOWN_CHARS)
    depths = {tree.body: 0}

    def check(node: ast.AST) -> None:
        depth = depths.pop(node, 0)
        if depth > MAX_DEPTH:
            raise InvalidSpec(f"{field} = {text!r}: condition is nested more than {MAX_DEPTH} levels deep")
        for child in ast.iter_child_nodes(node):
            depths[child] = depth + 1
        if isinstance(node, ast.Compare):
            for op in node.ops:
                if not isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn):
                    raise InvalidSpec(f"{field} = {text!r}: comparison {type(op).__name__} not allowed; use == != in 'not in'")
            check(node.left)
            for comp in node.comparators:
                check(comp)
        elif isinstance(node, ast.BoolOp):
            for v in node.values:
                check(v)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            check(node.operand)
        elif isinstance(node, ast.Name):
            if node.id not in context:
                raise InvalidSpec(
                    f"{field} = {text!r}: unknown name {node.id!r}; conditions may use {', '.join(sorted(context))}"
                )
        elif isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            if abs(node.value).bit_length() > 64:
                raise InvalidSpec(f"{field} = {text!r}: integers in conditions are limited to 64 bits")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in context:
            if node.keywords:
                raise InvalidSpec(f"{field} = {text!r}: keyword arguments are not allowed")
            for arg in node.args:
                check(arg)
        else:
            raise InvalidSpec(
                f"{field} = {text!r}: {type(node).__name__} is not allowed in a condition; "
                "use == != in 'not in' and/or/not over x, y"
            )

    check(tree.body)
    return tree.body


def eval_condition(node: ast.expr, env: Mapping[str, object]) -> object:
    """Evaluate a condition AST produced by :func:`parse_condition` on concrete values.

    A condition that does not apply to the values (``x in y`` for integer outputs, a hash
    row too short for x) is :class:`InvalidSpec`, not a Python error."""
    try:
        return _eval_condition(node, env)
    except (TypeError, ValueError, IndexError, KeyError, ArithmeticError) as exc:
        where = ", ".join(f"{k}={shown(env[k], 30)}" for k in ("x", "y", "c", "v") if k in env)
        raise InvalidSpec(
            f"condition {shown(ast.unparse(node))} cannot be evaluated at {where}: "
            f"{type(exc).__name__}: {shown(str(exc), 80)[1:-1]}"
        ) from None


def _eval_condition(node: ast.expr, env: Mapping[str, object]) -> object:
    if isinstance(node, ast.Compare):
        left = _eval_condition(node.left, env)
        for op, comp in zip(node.ops, node.comparators):
            right = _eval_condition(comp, env)
            if isinstance(op, ast.Eq):
                ok = left == right
            elif isinstance(op, ast.NotEq):
                ok = left != right
            elif isinstance(op, ast.In):
                ok = left in right
            else:
                ok = left not in right
            if not ok:
                return False
            left = right
        return True
    if isinstance(node, ast.BoolOp):
        results = (bool(_eval_condition(v, env)) for v in node.values)
        return all(results) if isinstance(node.op, ast.And) else any(results)
    if isinstance(node, ast.UnaryOp):
        return not _eval_condition(node.operand, env)
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Call):
        return env[node.func.id](*(_eval_condition(a, env) for a in node.args))
    raise InvalidSpec(f"cannot evaluate {ast.dump(node)}")  # unreachable after parse_condition

