"""The polynomial-ring fast paths of ldpaudit.derive.algebra give sympy's own forms:
``cancel_factor(e)`` against ``sp.cancel(sp.together(e))`` and ``sp.factor`` of it (the
cancelled form structurally; the factored form up to where a sign sits), on random rational
functions, including the products of linear forms for which ``_factor_list`` skips the multivariate factorizer."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from ldpaudit.derive import algebra

SYMS = sp.symbols("a m1 m2 t")
coefficient = st.integers(-3, 3)


@st.composite
def polynomials(draw, max_terms=4):
    terms = draw(st.lists(st.tuples(coefficient, *[st.integers(0, 2) for _ in SYMS]), min_size=1, max_size=max_terms))
    return sum((c * sp.Mul(*[s**e for s, e in zip(SYMS, exps)]) for c, *exps in terms), sp.Integer(0))


@st.composite
def linear_forms(draw):
    """c0 + Σ c_i·m_i with coefficients polynomial in (a, t): degree 1 in (m1, m2)."""
    a, m1, m2, t = SYMS
    c = [draw(coefficient) + draw(coefficient) * a + draw(coefficient) * t for _ in range(3)]
    g = draw(coefficient) * a + draw(coefficient) * t + draw(st.integers(1, 3))
    return sp.expand(g * (c[0] + c[1] * m1 + c[2] * m2))


def _sympy_forms(expr):
    cancelled = sp.cancel(sp.together(expr))
    return cancelled, sp.factor(cancelled)


def _factors_up_to_sign(expr):
    out = []
    for part in sp.fraction(sp.together(expr)):
        coeff, factors = sp.factor_list(part)
        out.append((abs(coeff), sorted((sp.srepr(f if sp.Poly(f).LC() > 0 else -f), k) for f, k in factors)))
    return out


def _check(expr):
    fast = algebra.cancel_factor(expr)
    if fast is None:  # not a rational function of its symbols: the callers ask sympy
        return
    cancelled, factored = _sympy_forms(expr)
    assert fast[0] == cancelled, expr  # the cancelled form, structurally
    # the factored form: the same function with the same irreducible factors; where a sign -1
    # sits (a*m2*(1 - t) or -a*m2*(t - 1)) was seen to differ from sympy's on random inputs in
    # one CI process and not in others (never on the bundled specs, whose printed derivations
    # tests/test_reproduce.py compares to the letter)
    assert sp.cancel(fast[1] - factored) == 0, expr
    assert _factors_up_to_sign(fast[1]) == _factors_up_to_sign(factored), expr
    assert algebra.cancel(expr) == fast[0]
    assert sp.cancel(algebra.factor_cancelled(expr) - fast[1]) == 0


def _rational(p, q):
    if q != 0:
        _check(p / q + p / (q + 1))


def _linear(linear, q):
    if q != 0:
        _check(linear / q)
        _check(linear)


# the default suite draws 25 cases of each (sympy's factor, the reference, is the slow side);
# the slow twins draw 200
test_rational_functions_match_sympy = settings(max_examples=25, deadline=None)(
    given(polynomials(), polynomials())(_rational))
test_linear_forms_match_sympy = settings(max_examples=25, deadline=None)(
    given(linear_forms(), polynomials(max_terms=2))(_linear))
test_rational_functions_match_sympy_200 = pytest.mark.slow(settings(max_examples=200, deadline=None)(
    given(polynomials(), polynomials())(_rational)))
test_linear_forms_match_sympy_200 = pytest.mark.slow(settings(max_examples=200, deadline=None)(
    given(linear_forms(), polynomials(max_terms=2))(_linear)))


def test_linear_shortcut_returns_the_content_and_one_irreducible_factor():
    a, m1, m2, t = SYMS
    expr = sp.expand((2 * a + 2) * (t * m1 - 3 * m2 + a))
    fast = algebra.cancel_factor(expr)
    assert fast is not None and fast[1] == sp.factor(expr)
    assert sp.factor_list(fast[1]) == (2, [(a + 1, 1), (a + m1 * t - 3 * m2, 1)])


_SAME_NAME = """
import sys
import sympy as sp
from ldpaudit.derive import algebra
t, t_pos, a = sp.Symbol("t"), sp.Symbol("t", positive=True), sp.Symbol("a")
values = {t: 2, t_pos: 3, a: 5}
for expr in ((a*t - a*t_pos + t)/(t_pos + 2*t + 1), (t - t_pos)*(a + t)/(t_pos - 2*a), (t_pos - t)**2/(a*t - t_pos)):
    for form in algebra.cancel_factor(expr):
        print(sorted((str(f.xreplace(values)), str(k)) for f, k in (b.as_base_exp() for b in sp.Mul.make_args(form))))
"""


def test_ring_forms_do_not_depend_on_the_hash_seed_with_same_named_symbols():
    """Two symbols with one name (t and t positive) tie in sympy's generator sort, which then
    keeps a set's order: the lex order, and so which factor carries a sign -1, changed with
    PYTHONHASHSEED (the factored form then differed from sympy's in some processes only).
    Each factor's value at a point where the two t differ pins where the sign sits."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    outputs = set()
    for seed in ("0", "1", "2", "3", "4", "5"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(root))
        proc = subprocess.run([sys.executable, "-c", _SAME_NAME], capture_output=True, text=True, env=env, cwd=root, timeout=120)
        assert proc.returncode == 0, proc.stderr
        outputs.add(proc.stdout)
    assert len(outputs) == 1, outputs
