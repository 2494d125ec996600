"""Derived variances and worst-case risks against brute force: for small explicit channels
and a few users, every sequence of reports is enumerated with exact rational arithmetic
and the estimator's mean squared error computed directly. Written independently of the
library: the estimator here is Q⁻¹ (or Qᵀ(QQᵀ)⁻¹) computed in the test, and the k-subset
hit rates are typed in from the reference sheet."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest
import sympy as sp

from ldpaudit.derive import N_USERS, hit_risk, matrix_risk, unbiased_estimator
from ldpaudit.mechanism.catalog import k_subset, wrr
from ldpaudit.mechanism.model import ExplicitChannel, FiniteDomain, Mechanism


def explicit(name: str, rows: list[list[F]]) -> Mechanism:
    d, k = len(rows), len(rows[0])
    matrix = tuple(tuple(sp.Rational(e.numerator, e.denominator) for e in r) for r in rows)
    return Mechanism(name, (), FiniteDomain(sp.Integer(d), tuple(range(d))),
                     ExplicitChannel(tuple(range(d)), tuple(range(k)), matrix), sp.Integer(1))


SQUARE = [[F(1, 2), F(1, 3), F(1, 6)], [F(1, 5), F(3, 5), F(1, 5)], [F(1, 4), F(1, 4), F(1, 2)]]
WIDE = [[F(1, 2), F(1, 4), F(1, 8), F(1, 8)], [F(1, 8), F(1, 2), F(1, 4), F(1, 8)], [F(1, 8), F(1, 8), F(1, 4), F(1, 2)]]
SYMMETRIC = [[F(1, 2), F(1, 4), F(1, 4)], [F(1, 4), F(1, 2), F(1, 4)], [F(1, 4), F(1, 4), F(1, 2)]]


def right_inverse(Q: list[list[F]]) -> list[list[F]]:
    M = sp.Matrix(Q)
    R = M.inv() if M.rows == M.cols else M.T * (M * M.T).inv()
    return [[F(int(sp.fraction(e)[0]), int(sp.fraction(e)[1])) for e in R.row(i)] for i in range(R.rows)]


def brute_mse(Q, R, p, n, model):
    """Exact Σ_j E(p̂_j - p_j)² and per-coordinate MSEs by enumerating all report sequences."""
    d, k = len(Q), len(Q[0])
    if model == "iid":
        m = [sum(p[x] * Q[x][y] for x in range(d)) for y in range(k)]
        laws = [m] * n
    else:  # n p_x users hold x
        holders = [x for x in range(d) for _ in range(int(p[x] * n))]
        assert len(holders) == n
        laws = [Q[x] for x in holders]
    mse = [F(0)] * d
    for seq in itertools.product(range(k), repeat=n):
        prob = F(1)
        for law, y in zip(laws, seq):
            prob *= law[y]
        if prob == 0:
            continue
        counts = [seq.count(y) for y in range(k)]
        est = [sum(F(counts[y], n) * R[y][j] for y in range(k)) for j in range(d)]
        for j in range(d):
            mse[j] += prob * (est[j] - p[j]) ** 2
    return mse


def simplex_grid(d, step):
    for combo in itertools.product(range(step + 1), repeat=d - 1):
        if sum(combo) <= step:
            yield [F(c, step) for c in combo] + [F(step - sum(combo), step)]


def as_fraction(expr) -> F:
    value = sp.simplify(sp.sympify(expr))
    assert value.is_Rational, value
    return F(int(value.p), int(value.q))


@pytest.mark.parametrize("rows", [SQUARE, WIDE, SYMMETRIC], ids=["square", "wide", "symmetric"])
@pytest.mark.parametrize("model, n, p", [("iid", 3, [F(1, 5), F(1, 2), F(3, 10)]), ("fixed", 4, [F(1, 4), F(1, 2), F(1, 4)])])
def test_explicit_variances_match_enumeration(rows, model, n, p):
    mech = explicit("test", rows)
    est = unbiased_estimator(mech)
    risk = matrix_risk(est, model)
    R = right_inverse(rows)
    brute = brute_mse(rows, R, p, n, model)
    subs = {pi: sp.Rational(v.numerator, v.denominator) for pi, v in zip(est.p, p)}
    subs[N_USERS] = n
    for j in range(len(p)):
        assert as_fraction(risk.variances[j].subs(subs)) == brute[j]


@pytest.mark.parametrize("rows", [SQUARE, WIDE, SYMMETRIC], ids=["square", "wide", "symmetric"])
def test_explicit_worst_case_matches_enumeration(rows):
    mech = explicit("test", rows)
    est = unbiased_estimator(mech)
    n = 2
    R = right_inverse(rows)
    for model in ("iid", "fixed"):
        risk = matrix_risk(est, model)
        worst = as_fraction(risk.l2_worst.subs(N_USERS, n))
        best_grid = F(0)
        for p in simplex_grid(3, 12):
            if model == "fixed" and any((x * n).denominator != 1 for x in p):
                continue
            best_grid = max(best_grid, sum(brute_mse(rows, R, p, n, model)))
        assert best_grid <= worst
        if model == "fixed" or rows is SYMMETRIC:
            assert best_grid == worst  # the maximizer (a vertex, or the uniform p) lies on the grid
        else:  # the derived maximizer, evaluated by brute force, attains the derived value
            point = [as_fraction(v) for v in _argmax(risk)]
            assert sum(brute_mse(rows, R, point, n, model)) == worst


def _argmax(risk):
    text = risk.l2_argmax
    if text.startswith("uniform"):
        return [sp.Rational(1, 3)] * 3
    inside = text[text.index("(") + 1:text.rindex(")")]
    return [sp.sympify(v) for v in inside.split(",")]


def test_wrr_variance_enumeration():
    mech = wrr(epsilon=sp.log(3))
    est = unbiased_estimator(mech)
    rows = [[F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)]]
    R = right_inverse(rows)
    for model, n, p in (("iid", 5, [F(1, 3), F(2, 3)]), ("fixed", 4, [F(1, 4), F(3, 4)])):
        risk = matrix_risk(est, model)
        brute = brute_mse(rows, R, p, n, model)
        subs = {est.p[0]: sp.Rational(p[0].numerator, p[0].denominator),
                est.p[1]: sp.Rational(p[1].numerator, p[1].denominator), N_USERS: n}
        assert as_fraction(risk.variances[0].subs(subs)) == brute[0]


def test_ksubset_hit_estimator_variance_enumeration():
    """d = 4, k = 2, t = 2: enumerate the 6 subsets for n users; p̂_j from hit counts with the
    reference g, h; compare the derived Var(p̂_j) under both models."""
    d, k, t = 4, 2, F(2)
    subsets = list(itertools.combinations(range(d), k))
    Z = F(3) * t + F(3)  # C(3,1) t + C(3,2)
    Q = [[(t if x in y else F(1)) / Z for y in subsets] for x in range(d)]
    g = k * t / (k * t + d - k)
    h = g * F(k - 1, d - 1) + (F(d - k) / (k * t + d - k)) * F(k, d - 1)
    # R maps output y to the per-item contribution: p̂_j = (f_j - h)/(g - h), f_j = (1/n) Σ 1{j in y}
    mech = k_subset(d=4, k=2, epsilon=sp.log(2))
    est = unbiased_estimator(mech)
    from ldpaudit.derive.algebra import P_J

    for model, n, p in (("iid", 2, [F(1, 10), F(2, 5), F(1, 5), F(3, 10)]), ("fixed", 4, [F(1, 4), F(1, 2), F(1, 4), F(0)])):
        if model == "iid":
            m = [sum(p[x] * Q[x][i] for x in range(d)) for i in range(len(subsets))]
            laws = [m] * n
        else:
            holders = [x for x in range(d) for _ in range(int(p[x] * n))]
            laws = [Q[x] for x in holders]
        mse = [F(0)] * d
        for seq in itertools.product(range(len(subsets)), repeat=n):
            prob = F(1)
            for law, i in zip(laws, seq):
                prob *= law[i]
            for j in range(d):
                f = F(sum(j in subsets[i] for i in seq), n)
                mse[j] += prob * ((f - h) / (g - h) - p[j]) ** 2
        risk = hit_risk(est, model)
        for j in range(d):
            value = risk.variance.subs({P_J: sp.Rational(p[j].numerator, p[j].denominator), N_USERS: n})
            assert as_fraction(value) == mse[j]


from hypothesis import given, settings, strategies as st  # noqa: E402


@st.composite
def rational_channels(draw):
    """Random 2x2..3x4 row-stochastic matrices with rational entries (weights 1..9)."""
    d = draw(st.integers(2, 3))
    k = draw(st.integers(d, d + 1))
    rows = []
    for _ in range(d):
        w = draw(st.lists(st.integers(1, 9), min_size=k, max_size=k))
        rows.append([F(x, sum(w)) for x in w])
    return rows


@settings(max_examples=15, deadline=None)
@given(rational_channels(), st.sampled_from(["iid", "fixed"]))
def test_random_channels_variance_matches_enumeration(rows, model):
    if sp.Matrix(rows).rank() < len(rows):
        return  # not identifiable; covered by test_non_invertible_channel
    d = len(rows)
    mech = explicit("random", rows)
    est = unbiased_estimator(mech)
    risk = matrix_risk(est, model)
    R = right_inverse(rows)
    n = 2
    p = [F(1, 2), F(1, 2)] if d == 2 else [F(1, 2), F(1, 2), F(0)]
    if model == "iid":
        p = [F(1, 3), F(2, 3)] if d == 2 else [F(1, 6), F(1, 2), F(1, 3)]
    brute = brute_mse(rows, R, p, n, model)
    subs = {pi: sp.Rational(v.numerator, v.denominator) for pi, v in zip(est.p, p)}
    subs[N_USERS] = n
    assert [as_fraction(v.subs(subs)) for v in risk.variances] == brute
