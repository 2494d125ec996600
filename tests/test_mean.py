"""Mean estimators derived from real-input channels (ldpaudit.derive.mean): Duchi's ±B
mechanism's unbiased report map and variance against an independent computation, a 10^5-user
simulation within 3 standard errors, and refusals for channels that are not affine in x."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from ldpaudit.derive.mean import mean_estimator, solve_linear_estimator
from ldpaudit.errors import NotDerivable
from ldpaudit.mechanism.model import X

ROOT = Path(__file__).resolve().parents[1]
B, EPS = sp.symbols("B epsilon", positive=True)


def _duchi():
    """Duchi, Jordan & Wainwright's one-dimensional mechanism, typed from the paper's definition:
    report +B' with probability 1/2 + x(e^ε - 1)/(2B(e^ε + 1)), else -B'."""
    t = sp.exp(EPS)
    plus = sp.Rational(1, 2) + X * (t - 1) / (2 * B * (t + 1))
    return solve_linear_estimator((-1, 1), [1 - plus, plus], X, name="Duchi", interval=(-B, B))


def test_duchi_estimator_is_unbiased_symbolically():
    est = _duchi()
    assert est.expectation == X
    t = sp.exp(EPS)
    # the published report value B' = B (e^ε + 1)/(e^ε - 1), for +, and its negative
    assert sp.simplify(est.estimator[1] - B * (t + 1) / (t - 1)) == 0
    assert sp.simplify(est.estimator[0] + B * (t + 1) / (t - 1)) == 0


def test_duchi_variance_matches_an_independent_computation():
    """Independently: g(Y)² = B'² whatever Y is, so Var(g(Y)|x) = B'² - x²."""
    est = _duchi()
    t = sp.exp(EPS)
    b_prime = B * (t + 1) / (t - 1)
    assert sp.simplify(est.variance - (b_prime**2 - X**2)) == 0
    assert sp.simplify(est.worst_variance - b_prime**2) == 0          # at x = 0
    # exact spot check at B = 1, ε = ln 3, x = 1/2: B' = 2, Var = 4 - 1/4
    assert est.variance.subs({B: 1, EPS: sp.log(3), X: sp.Rational(1, 2)}).simplify() == sp.Rational(15, 4)


def test_duchi_spec_file_gives_the_same_estimator():
    from ldpaudit.mechanism import load_spec

    mech = load_spec(ROOT / "specs" / "duchi_binary_mean.toml")
    est = mean_estimator(mech)
    ref = _duchi()
    S = mech.symbols
    assert est.expectation == X
    assert sp.simplify(est.variance.subs({S["B"]: B, S["epsilon"]: EPS}) - ref.variance) == 0


def test_duchi_simulated_mean_within_three_standard_errors():
    """10^5 users with x uniform on [1/2, B] (B = 2, ε = 1/2): the mean of the derived report map
    estimates the mean of the x's within 3 SE, SE from the derived variance (fixed inputs)."""
    est = _duchi()
    Bv, ev = 2.0, 0.5
    g = np.array([float(v.subs({B: Bv, EPS: ev})) for v in est.estimator])
    p_plus = sp.lambdify(X, (sp.Rational(1, 2) + X * (sp.exp(EPS) - 1) / (2 * B * (sp.exp(EPS) + 1))).subs({B: Bv, EPS: ev}))
    var = sp.lambdify(X, est.variance.subs({B: Bv, EPS: ev}))
    rng = np.random.default_rng(2013)
    n = 100_000
    x = rng.uniform(0.5, Bv, size=n)
    reports = np.where(rng.random(n) < p_plus(x), g[1], g[0])
    se = np.sqrt(var(x).sum()) / n
    assert abs(reports.mean() - x.mean()) <= 3 * se
    # and the same check catches a report map off by 10% (a planted fault)
    assert abs(1.10 * reports.mean() - x.mean()) > 3 * se


def test_three_outputs_take_the_minimum_norm_map():
    t = sp.exp(EPS)
    probs = [(1 - X) / 3, sp.Rational(1, 3), (1 + X) / 3]
    est = solve_linear_estimator((0, 1, 2), probs, X, name="three")
    assert est.minimum_norm and est.expectation == X
    assert [sp.simplify(g) for g in est.estimator] == [-sp.Rational(3, 2), 0, sp.Rational(3, 2)]
    assert t.has(EPS)


@pytest.mark.parametrize("probs, match", [
    ([1 - X**2 / 4, X**2 / 4], r"Q\(y=0\|x\) = .* is not affine in x"),
    ([sp.Rational(1, 3), sp.Rational(2, 3)], r"no report map is unbiased"),
    ([sp.Rational(1, 3), X / 3], r"sum to"),
])
def test_refusals(probs, match):
    with pytest.raises(NotDerivable, match=match):
        solve_linear_estimator((0, 1), probs, X, name="bad")
