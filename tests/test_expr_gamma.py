"""gamma of a large integer is refused before sympy multiplies it out.

``binomial(n, k)`` with an irrational k is written by sympy as
gamma(n + 1)/(gamma(k + 1) gamma(n - k + 1)), and gamma of an integer (or half-integer) is
evaluated exactly: binding d = 10**6 in ``binomial(d, sqrt(epsilon))`` computed 10**6!, 5.6
million digits, for 4.7 s of CPU before the number-size check refused it (three cases of
tests/test_spec_fuzz.py's seed-8 run cost 4.6-4.8 s each, against its 5 s budget).
"""

from __future__ import annotations

import math
import os

import mpmath
import pytest
import sympy as sp

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism.expr import MAX_INT_BITS, parse_expression, substitute

D = sp.Symbol("d", integer=True, positive=True)
EPS = sp.Symbol("epsilon", positive=True)
SYMBOLS = {"d": D, "epsilon": EPS}


def cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


def _largest_allowed_factorial_argument() -> int:
    """The largest n whose Γ(n + 1) = n! the budget allows: it bounds Γ(a) by a! (log2, within
    MAX_INT_BITS), one factor of a more than Γ(a), so a = n + 1 needs log2 (n + 1)! <= MAX_INT_BITS."""
    n = 1
    while math.lgamma(n + 3) / math.log(2) <= MAX_INT_BITS:
        n += 1
    return n


@pytest.mark.parametrize("text", [
    "binomial(d, sqrt(epsilon))",                       # fuzz seed 8, expression 922 (inside a Min)
    "sqrt(binomial(Max(d, pi), log(1/2)))",             # fuzz seed 8, expression 400
    "binomial((1 if d > 10**60 else d), sqrt(floor(log(d))))",  # like expression 1439
])
def test_binding_a_million_into_a_binomial_with_irrational_k_is_refused_quickly(text):
    value = parse_expression(text, SYMBOLS, field="f")
    start = cpu_seconds()
    with pytest.raises(InvalidSpec, match=r"gamma\(1000001\) has about 1\.85e\+07 bits; exact numbers are limited to 65536 bits"):
        substitute(value, {D: sp.Integer(10**6), EPS: sp.Integer(3)}, field="f")
    assert cpu_seconds() - start < 0.5


def test_factorials_up_to_the_bit_limit_are_still_evaluated_exactly():
    n = _largest_allowed_factorial_argument()
    assert 5000 < n < 7000
    ok = parse_expression(f"binomial({n}, sqrt(2))", SYMBOLS, field="f")
    exact = sp.gamma(n + 1)  # n!, as sympy writes the numerator
    assert exact == math.factorial(n) and ok.has(exact)
    mpmath.mp.dps = 30
    assert abs(sp.N(sp.log(ok), 25) - mpmath.log(mpmath.binomial(n, mpmath.sqrt(2)))) < 1e-15
    with pytest.raises(InvalidSpec, match=rf"gamma\({n + 2}\) has about .* bits; exact numbers are limited to 65536 bits"):
        parse_expression(f"binomial({n + 1}, sqrt(2))", SYMBOLS, field="f")


def test_gamma_of_small_or_non_rational_arguments_is_untouched():
    assert parse_expression("binomial(d, sqrt(2))", SYMBOLS, field="f") == sp.binomial(D, sp.sqrt(2))
    bound = substitute(parse_expression("binomial(d, 1/2)", SYMBOLS, field="f"), {D: sp.Integer(7)}, field="f")
    # 7!/(Γ(3/2) Γ(15/2)) with Γ(3/2) = √π/2 and Γ(15/2) = (13·11·9·7·5·3·1/2^7) √π
    assert bound == sp.Rational(5040 * 2 * 2**7, 13 * 11 * 9 * 7 * 5 * 3) / sp.pi == sp.Rational(4096, 429) / sp.pi
