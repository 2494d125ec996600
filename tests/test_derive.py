"""Derived quantities against the reference formulas of shared/reference/formulas.md.

The reference formulas live HERE (typed in from the sheet); the library derives them
from the channels. Each comparison simplifies the difference to 0 or, failing that, checks
exact equality at >= 20 random rational points (ε = log t with t rational, so e^ε is exact).
"""

from __future__ import annotations

import random

import pytest
import sympy as sp

from ldpaudit.derive import (
    N_USERS,
    NotIdentifiable,
    derive,
    effective_samples,
    hit_risk,
    integer_optimum,
    item_statistic,
    mean_estimation,
    mutual_information,
    stationary_point,
    unbiased_estimator,
)
from ldpaudit.derive.algebra import F_J, P_J, leading_power, leading_term_at_zero
from ldpaudit.errors import InvalidParameter
from ldpaudit.mechanism.catalog import k_rappor, k_rr, k_subset, laplace_mean, rr_bit, wrr

n = N_USERS
pi = sp.pi


def rational_points(symbols: dict, count: int = 24, seed: int = 7):
    """Random admissible points: d integer in [3, 40], k in [1, d-1], t = e^ε rational > 1."""
    rng = random.Random(seed)
    pts = []
    for _ in range(count):
        pt = {}
        d = rng.randint(3, 40)
        for name, sym in symbols.items():
            if name == "d":
                pt[sym] = d
            elif name == "k":
                pt[sym] = rng.randint(1, d - 1)
            elif name == "epsilon":
                pt[sym] = sp.log(sp.Rational(rng.randint(11, 90), rng.randint(2, 10)))
            elif name == "M":
                pt[sym] = sp.Rational(rng.randint(1, 9), rng.randint(1, 5))
        pt.setdefault(n, rng.randint(1, 10**6))
        pts.append(pt)
    return pts


def assert_same(derived, reference, symbols, *, positive=False):
    derived, reference = sp.sympify(derived), sp.sympify(reference)
    diff = sp.simplify(derived - reference)
    if diff == 0:
        return
    for pt in rational_points(symbols):
        a = derived.subs(pt)
        b = reference.subs(pt)
        if positive:  # both sides positive: compare squares exactly (removes square roots)
            a, b = a**2, b**2
        value = sp.simplify(sp.expand_log(sp.expand(a - b), force=True))
        if value != 0:
            assert abs(sp.N(a - b, 60)) < sp.Float("1e-45", 60), (derived, reference, pt)


# --- k-RR ---------------------------------------------------------------------------------------


def krr_setup():
    m = k_rr()
    S = m.symbols
    d, e = S["d"], S["epsilon"]
    t = sp.exp(e)
    return m, S, d, e, t


def test_krr_estimator_and_hit_rates():
    m, S, d, e, t = krr_setup()
    stat = item_statistic(m)
    assert_same(stat.g, t / (t + d - 1), S)
    assert_same(stat.h, 1 / (t + d - 1), S)
    est = unbiased_estimator(m)
    assert_same(est.expression, ((t + d - 1) * F_J - 1) / (t - 1), S)
    assert est.bias == 0


def test_krr_risks_iid():
    m, S, d, e, t = krr_setup()
    risk = hit_risk(unbiased_estimator(m), "iid")
    assert_same(risk.l2_worst, ((t + d - 1) / (t - 1)) ** 2 * (1 - 1 / d) / n, S)
    assert_same(risk.l1_worst, ((t + d - 1) / (t - 1)) * sp.sqrt(2 * (d - 1) / (pi * n)), S, positive=True)
    neff = effective_samples(risk.l2_worst, d)
    assert_same(neff, n * ((t - 1) / (t + d - 1)) ** 2, S)
    c, a = leading_power(neff.subs(e, sp.log(d)), d)
    assert (c, a) == (n / 4, 0)
    small = leading_term_at_zero(neff, e)
    assert sp.simplify(small - n * e**2 / d**2) == 0


def test_variance_models_and_their_difference():
    """Var(p̂_j) under both models for the symmetric estimators; iid - fixed = p_j(1 - p_j)/n."""
    for mech in (k_rr(), k_rappor(), k_subset()):
        S = mech.symbols
        stat = item_statistic(mech)
        g, h = stat.g, stat.h
        est = unbiased_estimator(mech)
        iid = hit_risk(est, "iid").variance
        fixed = hit_risk(est, "fixed").variance
        mj = P_J * g + (1 - P_J) * h
        S2 = dict(S, p=P_J)
        assert_same(iid, mj * (1 - mj) / (n * (g - h) ** 2), S2)
        assert_same(fixed, (P_J * g * (1 - g) + (1 - P_J) * h * (1 - h)) / (n * (g - h) ** 2), S2)
        assert_same(iid - fixed, P_J * (1 - P_J) / n, S2)


# --- k-RAPPOR -----------------------------------------------------------------------------------


def test_krappor():
    m = k_rappor()
    S = m.symbols
    d, e = S["d"], S["epsilon"]
    s = sp.exp(e / 2)
    est = unbiased_estimator(m)
    assert_same(est.expression, ((s + 1) / (s - 1)) * F_J - 1 / (s - 1), S)
    risk = hit_risk(est, "iid")
    assert_same(risk.l2_worst, ((1 - 1 / d) / n) * (1 + d**2 * s / ((d - 1) * (s - 1) ** 2)), S)
    assert_same(risk.l1_worst, sp.sqrt(2 * (s + d - 1) * (s * (d - 1) + 1) / ((s - 1) ** 2 * pi * n)), S, positive=True)
    neff = effective_samples(risk.l2_worst, d)
    assert_same(neff, n * (d - 1) * (s - 1) ** 2 / ((d - 1) * (s - 1) ** 2 + d**2 * s), S)
    c, a = leading_power(neff.subs(e, sp.log(d)), d)
    assert sp.simplify(c * d**a - n / sp.sqrt(d)) == 0
    c0, a0 = leading_power(leading_term_at_zero(neff, e), d)
    assert sp.simplify(c0 * d**a0 - n * e**2 / (4 * d)) == 0


def test_krappor_slide_misprint_is_not_derived():
    """The slides print d² e^ε in n_eff; the derivation gives d² e^(ε/2) (they differ)."""
    m = k_rappor()
    S = m.symbols
    d, e = S["d"], S["epsilon"]
    s = sp.exp(e / 2)
    neff = effective_samples(hit_risk(unbiased_estimator(m), "iid").l2_worst, d)
    printed = n * (d - 1) * (s - 1) ** 2 / ((d - 1) * (s - 1) ** 2 + d**2 * sp.exp(e))
    assert sp.simplify(neff.subs({d: 10, e: 2}) - printed.subs({d: 10, e: 2})) != 0


# --- W-RR (explicit) ----------------------------------------------------------------------------


def test_wrr_left_inverse_estimator():
    m = wrr()
    e = m.symbols["epsilon"]
    t = sp.exp(e)
    est = unbiased_estimator(m)
    assert est.kind == "left-inverse" and est.unbiased
    T = sp.Symbol("T_over_n")
    # p̂ for x = 1 ("yes") from the output frequencies (1 - T/n, T/n)
    p_yes = sp.simplify((1 - T) * est.R[0, 1] + T * est.R[1, 1])
    assert sp.simplify(p_yes - (((t + 1) / (t - 1)) * T - 1 / (t - 1))) == 0


# --- k-subset -----------------------------------------------------------------------------------


def ksubset_setup():
    m = k_subset()
    S = m.symbols
    d, k, e = S["d"], S["k"], S["epsilon"]
    t = sp.exp(e)
    g = k * t / (k * t + d - k)
    h = g * (k - 1) / (d - 1) + ((d - k) / (k * t + d - k)) * k / (d - 1)
    return m, S, d, k, e, t, g, h


def test_ksubset_hit_rates_estimator_and_fixed_risk():
    m, S, d, k, e, t, g, h = ksubset_setup()
    stat = item_statistic(m)
    assert_same(stat.g, g, S)
    assert_same(stat.h, h, S)
    est = unbiased_estimator(m)
    assert_same(est.expression, (F_J - h) / (g - h), S)
    assert est.bias == 0
    risk = hit_risk(est, "fixed")
    assert_same(risk.l2_worst, (g * (1 - g) + (d - 1) * h * (1 - h)) / (n * (g - h) ** 2), S)
    assert risk.l2_argmax == "every p"  # independent of p


def test_ksubset_k1_is_krr():
    m, S, d, k, e, t, g, h = ksubset_setup()
    one = unbiased_estimator(k_subset(k=1)).expression
    krr = unbiased_estimator(k_rr()).expression
    assert sp.simplify(one.subs(k_subset(k=1).symbols["d"], d) - krr.subs(k_rr().symbols["d"], d)) == 0


def test_ksubset_optimal_k_continuous():
    m, S, d, k, e, t, g, h = ksubset_setup()
    l2 = stationary_point(m, "k", "l2")
    assert_same(l2.point, d / (1 + t), S)
    mi = stationary_point(m, "k", "mi")
    assert_same(mi.point, (e * t - t + 1) * d / (t - 1) ** 2, S)


@pytest.mark.parametrize("d, eps, k_star, k_sharp", [
    (16, 1, 5, 4), (256, 3, 29, 12),
    pytest.param(32, 2, 7, 4, marks=pytest.mark.slow), pytest.param(64, 3, 7, 3, marks=pytest.mark.slow)])
def test_ksubset_optimal_integer_k_examples(d, eps, k_star, k_sharp):
    fam = k_subset(d=d, epsilon=eps)
    assert integer_optimum(stationary_point(fam, "k", "mi"), {}).value == k_star
    assert integer_optimum(stationary_point(fam, "k", "l2"), {}).value == k_sharp


def test_integer_optimum_compares_floor_and_ceil_not_rounding():
    """d=8, ε=1: d/(1+e) = 2.15 rounds to 2 but... both neighbours are evaluated."""
    opt = integer_optimum(stationary_point(k_subset(d=8, epsilon=1), "k", "l2"), {})
    assert [c for c, _ in opt.candidates] == [2, 3]
    values = dict(opt.candidates)
    assert opt.value == min(values, key=values.get)


# --- mutual information -------------------------------------------------------------------------


def test_ksubset_mutual_information():
    m, S, d, k, e, t, g, h = ksubset_setup()
    I = mutual_information(m).value
    ref = (k * t * sp.log(d * t / (k * t + d - k)) + (d - k) * sp.log(d / (k * t + d - k))) / (k * t + d - k)
    assert_same(I, ref, S)


def test_binary_information_and_bound():
    mech = k_rr(d=2)
    e = mech.symbols["epsilon"]
    t = sp.exp(e)
    I = mutual_information(mech).value
    assert_same(I, e * t / (t + 1) - sp.log((t + 1) / 2), {"epsilon": e})
    for eps in (sp.Rational(1, 10), sp.Rational(1, 2), 1, 2, 5):
        assert float(I.subs(e, eps)) <= float(sp.Rational(eps) ** 2 / 8)


def test_explicit_information_matches_structured():
    for mech in (k_rr(d=5, epsilon=1), k_subset(d=5, k=2, epsilon=sp.log(3)), k_rappor(d=3, epsilon=1)):
        from ldpaudit.derive.information import _explicit

        assert abs(float(mutual_information(mech).value) - float(_explicit(mech).value)) < 1e-12


# --- Laplace ------------------------------------------------------------------------------------


def test_laplace_mean_variance():
    m = laplace_mean()
    S = m.symbols
    M, e = S["M"], S["epsilon"]
    me = mean_estimation(m)
    V = sp.Symbol("V", nonnegative=True)
    assert sp.simplify(me.variance_iid - (V / n + 8 * M**2 / (n * e**2))) == 0
    assert sp.simplify(me.noise_variance - 2 * (2 * M / e) ** 2) == 0  # 2σ², σ = 2M/ε
    assert me.bias == 0


# --- full derivation and errors -----------------------------------------------------------------


def test_full_derivation_records_both_models():
    for model in ("iid", "fixed"):
        dv = derive(k_rr(d=8), model=model)
        assert dv.sampling_model == model
        assert dv.results["l2_worst"] is not None
        assert any(model in s.title or ("i.i.d." if model == "iid" else "fixed") in s.title for s in dv.steps)


def test_parameter_out_of_range():
    with pytest.raises(InvalidParameter, match=r"parameter d = 1 of k-RR is out of range: need d >= 2"):
        k_rr(d=1)
    with pytest.raises(InvalidParameter, match=r"k = 6 .* need k <= d - 1"):
        k_subset(d=6, k=6)


def test_non_invertible_channel():
    with pytest.raises(NotIdentifiable, match=r"rank 2 < 8 inputs.*no left inverse"):
        unbiased_estimator(rr_bit(bits=3, j=1, epsilon=1))
    dv = derive(rr_bit(bits=3, j=1, epsilon=1))
    assert "rank 2 < 8" in dv.results["not_derived"]["estimator"]


def test_unknown_target():
    with pytest.raises(InvalidParameter, match=r"optimization target 'l3' is unknown; choose one of l2, l1, mi"):
        stationary_point(k_subset(), "k", "l3")
    with pytest.raises(InvalidParameter, match=r"sampling model 'bayes' is unknown; use 'iid' or 'fixed'"):
        derive(k_rr(), model="bayes")


def test_cli_derive_json_and_errors(capsys):
    import json

    from ldpaudit.cli import main

    assert main(["derive", "specs/ksubset.toml", "-p", "d=16", "-p", "epsilon=1", "--format", "json", "--model", "fixed"]) == 0
    payload = json.loads(capsys.readouterr().out)
    for key in ("mechanism", "params", "sampling_model", "marginal", "estimator", "variance", "l2_worst", "l1_worst",
                "effective_samples", "optimal", "mutual_information"):
        assert key in payload
    assert payload["sampling_model"] == "fixed"
    assert payload["optimal"]["k_l2"]["value"]["float"] == 4
    assert payload["optimal"]["k_mi"]["value"]["float"] == 5
    assert main(["derive", "specs/krr.toml", "-p", "d=1"]) == 2
    assert "out of range" in capsys.readouterr().err
    assert main(["derive", "specs/krr.toml", "-p", "d=8", "-p", "epsilon=1", "-n", "10000", "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert abs(payload["l2_worst"]["float"] - 27.99 / 10000) < 1e-5


@pytest.mark.parametrize("fmt", ["text", "md", "latex"])
def test_cli_formats_state_steps(capsys, fmt):
    from ldpaudit.cli import main

    assert main(["derive", "krr", "-p", "d=4", "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert "Unbiased estimator" in out and "Worst-case" in out and "Solving" in out


def test_derive_duchi_binary_mean_from_the_spec():
    """`derive` on Duchi's ±B spec: the report map is solved from the channel; at B = 1,
    ε = ln 3 (P(+1|x) = 1/2 + x/4) an independent hand computation gives g(±1) = ±2 and
    Var(g(Y)|x) = 4 - x², so the worst case over [-1, 1] is 4/n."""
    from ldpaudit.derive import derive
    from ldpaudit.derive.algebra import N_USERS
    from ldpaudit.mechanism import load_spec

    mech = load_spec("specs/duchi_binary_mean.toml").bind(B=1, epsilon="log(3)")
    dv = derive(mech)
    g = dv.results["estimator"]
    assert sp.simplify(g["1"] - 2) == 0 and sp.simplify(g["-1"] + 2) == 0
    x = sp.Symbol("x", real=True)
    for xv in (sp.Rational(-1), sp.Rational(-1, 3), sp.Rational(0), sp.Rational(7, 10), sp.Rational(1)):
        p_plus = sp.Rational(1, 2) + xv / 4
        mean = 2 * p_plus - 2 * (1 - p_plus)
        var = 4 - mean**2
        assert mean == xv
        assert sp.simplify(dv.results["variance"].subs(x, xv) * N_USERS - var) == 0
    assert sp.simplify(dv.results["l2_worst"] - 4 / N_USERS) == 0
    # a threshold channel has no linear report map, and the derivation says why
    kvrr2 = derive(load_spec("specs/joseph_kvrr2.toml").bind_example())
    assert "step function of x" in kvrr2.results["not_derived"]["estimator"]
