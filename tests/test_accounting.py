"""Privacy profiles, trade-off curves and compositions (ldpaudit.account) against brute force:
every subset of outputs (the hockey-stick divergence is the largest P(S) - e^ε P'(S)), every
randomized test (T(α) from the convex hull of the deterministic tests), the product channel of
two reports enumerated output by output (verify.delta, independent code)."""

from __future__ import annotations

import dataclasses
import itertools
import json
from fractions import Fraction

import pytest
import sympy as sp

from ldpaudit.account import composition as C
from ldpaudit.account.profile import delta_at, profile, tight_epsilon, tradeoff_at, view, basic_composition
from ldpaudit.cli import main
from ldpaudit.mechanism import Mechanism, load_spec

EPSILONS = [sp.Rational(k, 10) for k in (0, 1, 2, 3, 5, 7, 9, 11, 15, 25)]
ALPHAS = [sp.Rational(k, 20) for k in (0, 1, 2, 3, 5, 8, 11, 13, 17, 19)]


def _rows(mech):
    ch = mech.materialize()
    return [list(r) for r in ch.matrix]


def brute_delta(rows, eps):
    """max over ordered pairs and subsets S of P(S) - e^ε P'(S), exactly (ranked at 60 digits,
    the winner's value returned as (P(S), P'(S)))."""
    best, best_val = None, None
    t = sp.exp(eps)
    m = len(rows[0])
    for i, k in itertools.permutations(range(len(rows)), 2):
        for r in range(m + 1):
            for S in itertools.combinations(range(m), r):
                a = sum((rows[i][j] for j in S), sp.Integer(0))
                b = sum((rows[k][j] for j in S), sp.Integer(0))
                val = sp.N(a - t * b, 60)
                if best_val is None or val > best_val + sp.Float("1e-50", 60):
                    best, best_val = (a, b), val
    return best


@pytest.mark.parametrize("spec, binding", [("krr", dict(d=3, epsilon=1)), ("krr", dict(d=4, epsilon="log(3)")),
                                           ("oue", dict(d=3, epsilon="log(3)"))])
def test_delta_equals_brute_force_over_subsets(spec, binding):
    mech = load_spec(f"specs/{spec}.toml").bind(**binding)
    v = view(mech)
    rows = _rows(mech)
    for eps in EPSILONS:
        got = delta_at(v, eps)
        a, b = brute_delta(rows, eps)
        assert sp.simplify(got.a - a) == 0 and sp.simplify(got.b - b) == 0, (eps, got.delta, a, b)
    # both sides of the tight ε: δ > 0 just below it, 0 at it
    eps_star = tight_epsilon(v)
    assert delta_at(v, eps_star).delta == 0
    assert delta_at(v, eps_star * sp.Rational(999, 1000)).delta_float > 0


def brute_tradeoff(p, q, alpha):
    """min β over the convex hull of deterministic tests (α_S, β_S) with α <= alpha."""
    m = len(p)
    pts = []
    for r in range(m + 1):
        for S in itertools.combinations(range(m), r):
            pts.append((sum((p[j] for j in S), Fraction(0)), 1 - sum((q[j] for j in S), Fraction(0))))
    best = min(b for a, b in pts if a <= alpha)
    for (a1, b1), (a2, b2) in itertools.combinations(pts, 2):
        if a1 > a2:
            (a1, b1), (a2, b2) = (a2, b2), (a1, b1)
        if a1 <= alpha <= a2 and a2 > a1:
            best = min(best, b1 + (b2 - b1) * (alpha - a1) / (a2 - a1))
    return best


@pytest.mark.parametrize("spec, binding", [("krr", dict(d=3, epsilon="log(3)")), ("oue", dict(d=3, epsilon="log(2)"))])
def test_tradeoff_equals_brute_force_over_tests(spec, binding):
    mech = load_spec(f"specs/{spec}.toml").bind(**binding)
    prof = profile(view(mech))
    x, x2 = prof.worst.pairs[0]
    ch = mech.materialize()
    i, k = ch.inputs.index(x), ch.inputs.index(x2)
    p = [Fraction(int(e.p), int(e.q)) for e in ch.matrix[i]]
    q = [Fraction(int(e.p), int(e.q)) for e in ch.matrix[k]]
    for alpha in ALPHAS:
        got = tradeoff_at(prof.tradeoff, alpha)
        want = brute_tradeoff(p, q, Fraction(int(alpha.p), int(alpha.q)))
        assert got == sp.Rational(want.numerator, want.denominator), (alpha, got, want)


def test_krr_tradeoff_with_e_entries_matches_formula_points():
    """k-RR at ε = 1: T has vertices at α = 1/(e+2), 2/(e+2) (d = 3), β = 1 - e α on the first piece."""
    mech = load_spec("specs/krr.toml").bind(d=3, epsilon=1)
    prof = profile(view(mech))
    alphas = [a for a, _ in prof.tradeoff]
    assert sp.simplify(alphas[1] - 1 / (sp.E + 2)) == 0
    a = sp.Rational(1, 10)
    assert sp.simplify(tradeoff_at(prof.tradeoff, a) - (1 - sp.E * a)) == 0


@pytest.mark.parametrize("binding", [dict(d=3, epsilon="log(2)"), dict(d=3, epsilon="log(5)")])
def test_two_reports_equal_the_enumerated_product_channel(binding):
    from ldpaudit.verify.delta import delta_for

    mech = load_spec("specs/krr.toml").bind(**binding)
    rows = [[Fraction(int(e.p), int(e.q)) for e in r] for r in _rows(mech)]
    product = [[a * b for a in r for b in r] for r in rows]
    product_mech = Mechanism.from_matrix(product, epsilon=10)
    single, two = view(mech), view(mech, reports=2)
    for eps in [sp.Integer(0), sp.log(2), sp.Rational(1, 3), sp.Rational(1, 2), 1, sp.log(3), sp.Rational(3, 2), 2, sp.log(7), 3]:
        got = delta_at(two, eps).delta
        want = delta_for(product_mech, eps).delta
        assert sp.simplify(got - want) == 0, (eps, got, want)
        basic = basic_composition(single, 2, eps)
        assert sp.N(basic - got, 40) >= 0  # basic composition is never tighter than the exact value


def test_hundred_reports_of_krr16_support_stays_exact():
    v = view(load_spec("specs/krr.toml").bind(d=16, epsilon="log(3)"), reports=100)
    assert len(v.classes) == 1 and len(v.classes[0].pld) == 201  # ratios 3^j, j = -100..100, merged
    assert sp.exp(tight_epsilon(v)) == 3 ** 100
    assert delta_at(v, 100 * sp.log(3)).delta == 0
    # exact mass: the outputs with ratio 3^100 are "x every time": (3/18)^100
    top = delta_at(v, 99 * sp.log(3))
    assert top.a - 3 ** 99 * top.b == sp.Rational(3, 18) ** 100 - 3 ** 99 * sp.Rational(1, 18) ** 100


def test_memoized_rappor_grows_toward_the_permanent_epsilon_and_never_past_it():
    comp = C.load_composition("specs/compositions/rappor_memoized.toml")
    caps = [C.memoization_cap(comp, k) for k in (1, 10, 100)]
    eps = [float(c.epsilon) for c in caps]
    assert eps[0] < eps[1] < eps[2]
    assert all(c.below for c in caps) and sp.exp(caps[0].permanent) == 9
    assert eps[2] > 0.999 * float(caps[0].permanent)
    # one day: Erlingsson et al.'s ε1 = h ln(q*(1 - p*)/(p*(1 - q*))), q* = f(p + q)/2 + (1 - f) q,
    # p* = f(p + q)/2 + (1 - f) p, with f = 1/2, p = 1/2, q = 3/4, h = 1
    f, p, q = sp.Rational(1, 2), sp.Rational(1, 2), sp.Rational(3, 4)
    qs, ps = f * (p + q) / 2 + (1 - f) * q, f * (p + q) / 2 + (1 - f) * p
    assert sp.exp(caps[0].epsilon) == qs * (1 - ps) / (ps * (1 - qs))
    chained = dataclasses.replace(comp, mode="chained")
    assert float(tight_epsilon(chained.view(10))) > float(caps[0].permanent)  # no memoization: grows past it


def test_memoized_view_equals_day_by_day_enumeration():
    """L-GRR over 2 days: the histogram view has the same δ as the sequence view enumerated."""
    comp = C.load_composition("specs/compositions/lgrr.toml", ["d=3", "eps_perm=log(4)", "eps_inst=log(2)"])
    perm, inst = (_rows(m) for m in comp.mechanisms)
    seq = [[sum(perm[x][b] * inst[b][y1] * inst[b][y2] for b in range(3)) for y1 in range(3) for y2 in range(3)]
           for x in range(3)]
    from ldpaudit.verify.delta import delta_for

    seq_mech = Mechanism.from_matrix([[Fraction(int(e.p), int(e.q)) for e in r] for r in seq], epsilon=10)
    v = comp.view(2)
    for eps in (sp.Integer(0), sp.Rational(1, 2), 1):
        assert sp.simplify(delta_at(v, eps).delta - delta_for(seq_mech, eps).delta) == 0


def test_cli_json_interface(capsys):
    code = main(["profile", "specs/krr.toml", "-p", "d=3", "-p", "epsilon=log(2)", "--reports", "2", "--epsilon", "1/2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    want = delta_at(view(load_spec("specs/krr.toml").bind(d=3, epsilon="log(2)"), reports=2), sp.Rational(1, 2)).delta
    assert sp.simplify(sp.sympify(out["delta"]) - want) == 0
    assert out["delta_float"] == pytest.approx(float(want), rel=1e-12)
    assert out["basic_composition"]["delta_float"] >= out["delta_float"]


@pytest.mark.parametrize("argv, message", [
    (["profile", "specs/krr.toml", "--reports", "0"], "--reports '0'"),
    (["profile", "specs/krr.toml", "--reports", "two"], "not a whole number"),
    (["profile", "specs/krr.toml", "--epsilon", "-1"], "must be a real number >= 0"),
])
def test_bad_input_is_one_line_exit_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_composition_naming_an_unknown_spec(tmp_path, capsys):
    path = tmp_path / "c.toml"
    path.write_text('[composition]\nmode = "independent"\n[[randomizer]]\nspec = "nosuch.toml"\n')
    assert main(["profile", str(path)]) == 2
    err = capsys.readouterr().err
    assert "randomizer[0].spec = 'nosuch.toml'" in err and err.count("\n") == 1
    path.write_text('[composition]\nmode = "independent"\n[[randomizer]]\nspec = "nosuchname"\n')
    assert main(["profile", str(path)]) == 2
    assert "randomizer[0].spec = 'nosuchname'" in capsys.readouterr().err


def test_irrational_entries_are_not_given_an_exact_value(capsys):
    """√3 entries: no exact δ; an upper bound labeled delta_upper (tests/test_accounting_pld.py)."""
    assert main(["profile", "specs/krappor.toml", "-p", "d=3", "-p", "epsilon=log(3)", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["delta"] is None and out["exact"] is False and "sqrt(3)" in out["reason"]


@pytest.mark.slow
def test_committed_accounting_is_regenerated_exactly(tmp_path):
    """proofs/accounting/ is what `ldpaudit reproduce accounting` writes (JSON compared by value)."""
    from pathlib import Path

    from ldpaudit.papers.reproduce import reproduce
    from ldpaudit.papers.golden import json_differences

    reproduce("accounting", tmp_path)
    committed = Path(__file__).resolve().parents[1] / "proofs" / "accounting" / "accounting.json"
    generated = json.loads((tmp_path / "accounting" / "accounting.json").read_text(encoding="utf-8"))
    assert json_differences(generated, json.loads(committed.read_text(encoding="utf-8"))) == []
    rows = generated["memoized"]
    assert all(r["below_cap"] for r in rows)
    rappor = [r for r in rows if r["composition"] == "RAPPOR, memoized"]
    assert rappor[-1]["epsilon_without_memoization"] > float(sp.sympify(rappor[-1]["epsilon_permanent"]))
