"""ldpaudit prove, the techniques beyond plain interval bisection (issue 20, follow-up): Taylor and
mean-value forms, expansions and monotonicity at a range end, the unbounded tail, goals that are
multiples of a relation, signed factors, and diff() in claims. Each has a fast PROVED case and a
REFUTED one whose witness is recomputed here from reference formulas in exact arithmetic."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism.expr import parse_expression
from ldpaudit.theorems import goals, prover
from ldpaudit.theorems.claims import load_claims, loads_claims
from ldpaudit.theorems.intervals import point_sign
from ldpaudit.theorems.prover import PROVED, REFUTED, UNKNOWN, prove_claim
from ldpaudit.verify import exact

ROOT = Path(__file__).resolve().parents[1]
THEOREMS = ROOT / "proofs" / "theorems"


def sign(e):
    s = point_sign(e)
    return s if s is not None else exact.sign(e)


def wang_bound(eps):
    """Wang et al.'s bound on I_beta, from the paper (not the derivation)."""
    t = sp.exp(eps)
    return sp.log((t - 1) / eps) + eps / (t - 1) - 1


def one_d(where: str, statement: str) -> str:
    return f"""
[region]
parameters = {{ epsilon = "real" }}
where = [{where}]
[[claim]]
statement = "{statement}"
"""


GAP = "log((exp(epsilon) - 1)/epsilon) + epsilon/(exp(epsilon) - 1) - 1"


def test_small_gap_needs_the_taylor_forms(monkeypatch):
    # on [1/2, 1] the gap eps^2/8 - bound is 1e-4 .. 1.7e-3 between terms near 1; the end
    # methods are switched off so that the Taylor / mean-value forms alone must close it
    cf = loads_claims(one_d('"epsilon >= 1/2", "epsilon <= 1"', f"{GAP} <= epsilon**2/8"))
    monkeypatch.setattr(prover.Search, "_monotone", lambda *a: False)
    monkeypatch.setattr(prover.Search, "_end_expansion", lambda *a: False)
    r = prove_claim(cf, cf.claims[0], seconds=30)
    assert r.status == PROVED and ("Taylor" in r.method or "mean-value" in r.method), r.as_dict()
    monkeypatch.setattr(prover.Search, "_decide", lambda self, goal, box, depth=0: False)
    plain = prove_claim(cf, cf.claims[0], seconds=1.5)
    assert plain.status == UNKNOWN


def test_a_bound_below_the_gap_is_refuted_and_the_witness_recomputed():
    cf = loads_claims(one_d('"epsilon >= 1/2", "epsilon <= 1"', f"{GAP} <= epsilon**2/8 - 1/500"))
    r = prove_claim(cf, cf.claims[0], seconds=30)
    assert r.status == REFUTED
    eps = sp.Rational(r.witness.point["epsilon"])
    assert sp.Rational(1, 2) <= eps <= 1
    assert sign(wang_bound(eps) - (eps**2 / 8 - sp.Rational(1, 500))) == 1


def test_wang_ibeta_eps2_over_8_is_proved_for_all_epsilon():
    cf = load_claims(THEOREMS / "wang_ibeta.toml")
    r = prove_claim(cf, cf.claims[1], seconds=60)
    assert r.status == PROVED, r.as_dict()
    assert "monotonicity" in r.method and "unbounded end" in r.method


def test_eps2_over_9_fails_near_zero_with_an_exact_witness():
    # the bound is eps^2/8 - eps^4/576 + ..., so eps^2/9 is wrong for small eps
    cf = loads_claims(one_d('"epsilon > 0"', f"{GAP} <= epsilon**2/9"))
    r = prove_claim(cf, cf.claims[0], seconds=30)
    assert r.status == REFUTED
    eps = sp.Rational(r.witness.point["epsilon"])
    assert eps > 0 and sign(wang_bound(eps) - eps**2 / 9) == 1


def test_a_strict_goal_is_not_proved_at_a_closed_end():
    cf = loads_claims(one_d('"epsilon >= 0", "epsilon <= 1"', "epsilon**3 > 0"))
    r = prove_claim(cf, cf.claims[0], seconds=5)
    assert r.status != PROVED
    cf = loads_claims(one_d('"epsilon > 0", "epsilon <= 1"', "epsilon**3 > 0"))
    assert prove_claim(cf, cf.claims[0], seconds=5).status == PROVED


def reference_di_dk(d, k, eps):
    """dI_k/dk for the k-subset mechanism (uniform prior), differentiated by hand from
    I_k = k eps t/D - log(D/d), D = k t + d - k: (d(eps t - t + 1) - k (t - 1)^2)/D^2."""
    t = sp.exp(eps)
    return (d * (eps * t - t + 1) - k * (t - 1) ** 2) / (k * t + d - k) ** 2


UNIMODAL = (THEOREMS / "wang_unimodal.toml").read_text()


def test_unimodality_of_i_k_is_proved_for_every_d_and_epsilon():
    cf = load_claims(THEOREMS / "wang_unimodal.toml")
    for claim in cf.claims[:2]:
        r = prove_claim(cf, claim, seconds=30)
        assert r.status == PROVED, r.as_dict()
        assert "q * h" in r.method


def test_increasing_up_to_twice_beta_is_refuted(tmp_path):
    text = UNIMODAL.replace('statement = "k >= (epsilon*exp(epsilon) - exp(epsilon) + 1)*d/',
                            'statement = "k >= 2*(epsilon*exp(epsilon) - exp(epsilon) + 1)*d/', 1)
    assert text != UNIMODAL
    text = text.replace('where = ["d >= 2", "epsilon > 0", "k >= 0", "k <= d"]',
                        'where = ["d >= 2", "d <= 64", "epsilon > 0", "epsilon <= 4", "k >= 0", "k <= d"]')
    assert "d <= 64" in text
    path = tmp_path / "false.toml"
    path.write_text(text)
    cf = load_claims(path)
    r = prove_claim(cf, cf.claims[0], seconds=30)
    assert r.status == REFUTED
    pt = {k: sp.Rational(v) for k, v in r.witness.point.items()}
    assert 0 <= pt["k"] <= pt["d"] and pt["epsilon"] > 0 and pt["d"] >= 2
    assert sign(reference_di_dk(pt["d"], pt["k"], pt["epsilon"])) == -1


@pytest.mark.slow
def test_concavity_region_claims_are_proved():
    cf = load_claims(THEOREMS / "wang_unimodal.toml")
    for claim in cf.claims[2:]:
        r = prove_claim(cf, claim, seconds=30)
        assert r.status == PROVED, (claim.name, r.as_dict())


def test_diff_is_a_claims_function_only():
    with pytest.raises(InvalidSpec, match="function 'diff' is not allowed"):
        parse_expression("diff(epsilon, epsilon)", {"epsilon": sp.Symbol("epsilon")})
    text = UNIMODAL.replace("diff(ss.mutual_information, k) >= 0", "diff(ss.mutual_information, 2) >= 0", 1)
    with pytest.raises(InvalidSpec, match=r"claim\[0\].statement = .*diff\(expression, x\) needs a region parameter"):
        loads_claims(text, source=str(THEOREMS / "x.toml"))


def reference_l2(d, eps):
    """Worst-case l2^2 risks (n = 1) of k-RR and k-RAPPOR from the reference formulas."""
    t, s = sp.exp(eps), sp.exp(eps / 2)
    krr = ((t + d - 1) / (t - 1)) ** 2 * (1 - sp.Rational(1, d))
    krappor = (1 - sp.Rational(1, d)) * (1 + d**2 * s / ((d - 1) * (s - 1) ** 2))
    return krr, krappor


def test_kairouz_crossing_without_the_small_epsilon_cut_is_refuted_at_d_5(tmp_path):
    text = (THEOREMS / "kairouz_crossing.toml").read_text()
    text = text.replace('where = ["d >= 3", "epsilon >= 1/2",', 'where = ["d >= 3", "epsilon > 0",')
    text = text.replace('q = "exp(-epsilon/2)"', 'q = "1 - exp(-epsilon/2)"').replace('"-2*log(q)"', '"-2*log(1 - q)"')
    text = text.replace('"1/(u*q**3)"', '"1/(u*(1 - q)**3)"')
    path = tmp_path / "kairouz_all_eps.toml"
    path.write_text(text)
    cf = load_claims(path)
    r = prove_claim(cf, cf.claims[0], seconds=30)
    assert r.status == REFUTED
    d, eps = int(r.witness.point["d"]), sp.Rational(r.witness.point["epsilon"])
    assert 0 < eps and sign(2 * sp.log(d) / 3 - 1 - eps) >= 0
    krr, krappor = reference_l2(d, eps)
    assert sign(krappor - krr) == 1          # k-RR is better there, against the claim


@pytest.mark.slow
def test_kairouz_crossing_both_sides_are_proved():
    for name in ("kairouz_crossing.toml", "kairouz_crossing_above.toml"):
        cf = load_claims(THEOREMS / name)
        r = prove_claim(cf, cf.claims[0], seconds=60)
        assert r.status == PROVED, (name, r.as_dict())
    # and the window is tight enough to matter: at d = 10^4 the sign flips inside it
    d = 10**4
    lo, hi = sp.Rational(2, 3) * sp.log(d) - 1, sp.Rational(2, 3) * sp.log(d) + 1
    krr, krappor = reference_l2(d, lo)
    assert sign(krr - krappor) == 1
    krr, krappor = reference_l2(d, hi)
    assert sign(krappor - krr) == 1


# --- the MRR condition: logarithms bounded by log y >= 1 - 1/y, an 'or' with mixed strictness ---

def reference_information(d, k, eps):
    """I_k of the k-subset mechanism under the uniform prior, from Wang et al. (not the derivation)."""
    t = sp.exp(eps)
    return (k * t * sp.log(d * t / (k * t + d - k)) + (d - k) * sp.log(sp.Integer(d) / (k * t + d - k))) / (k * t + d - k)


def test_log_relaxed_is_a_lower_bound_exact_to_first_order():
    a, e = sp.symbols("a e", positive=True)
    g = a * e / ((a + 1) * (2 * a + 1)) + sp.log(a + 1) - sp.log(2 * a + 1)
    low = goals._log_relaxed(g)
    assert not low.has(sp.log)
    assert sp.simplify(low - (a * e / ((a + 1) * (2 * a + 1)) - a / (a + 1))) == 0   # log(y) -> 1 - 1/y, y = (a+1)/(2a+1)
    for av in (sp.Rational(1, 1000), sp.Rational(1, 3), 5):
        for ev in (sp.Rational(1, 7), 2):
            assert sign(g.subs({a: av, e: ev}) - low.subs({a: av, e: ev})) == 1          # strictly below off y = 1
    assert goals._log_relaxed(a * sp.log(a + 1)) is None                              # a symbolic coefficient: no bound


@pytest.mark.slow
def test_mrr_condition_is_proved_in_the_papers_direction():
    cf = load_claims(THEOREMS / "wang_mrr.toml")
    r = prove_claim(cf, cf.claims[0], seconds=60)
    assert r.status == PROVED, r.left
    assert "log y >= 1 - 1/y" in r.method


def test_a_weaker_mrr_condition_is_refuted_with_an_exact_witness(tmp_path):
    text = (THEOREMS / "wang_mrr_converse.toml").read_text()
    text = text[:text.index("[[claim]]")] + (
        '[[claim]]\nstatement = "(exp(epsilon) - 1)**2/(epsilon*exp(epsilon) - exp(epsilon) + 1) > 5*d/6 '
        'or ss1.mutual_information <= ss2.mutual_information"\n')
    cf = loads_claims(text, source=str(THEOREMS / "weaker.toml"))
    r = prove_claim(cf, cf.claims[0], seconds=60)
    assert r.status == REFUTED
    d, eps = int(r.witness.point["d"]), sp.Rational(r.witness.point["epsilon"])
    t = sp.exp(eps)
    assert sign((t - 1) ** 2 / (eps * t - t + 1) - sp.Rational(5 * d, 6)) <= 0          # beta >= 6/5 there
    assert sign(reference_information(d, 1, eps) - reference_information(d, 2, eps)) == 1  # yet I_1 > I_2
