"""Bounds on δ(ε) of K reports past the exact convolution's work budget
(ldpaudit/account/bounds.py), against exact δ computed here independently: for k-RR the K
reports' loss is (i - m) ε0, i the reports equal to x and m those equal to x' (a trinomial; a
binomial for d = 2), summed with Fractions when e^ε0 and e^ε are rational and with mpmath at 60
digits otherwise. Also: the exact path for small K, the work budget counted in work units, and
what the JSON and the text say."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from ldpaudit.account import bounds as Bd
from ldpaudit.account import composition as C
from ldpaudit.account import pld as P
from ldpaudit.account import profile as pf
from ldpaudit.account.command import compute
from ldpaudit.cli import main
from ldpaudit.mechanism import Mechanism, load_spec

#: the lattice path: the bounds differ by float rounding only (K (4 (k + 2) + 8) u, a few e-12)
LATTICE_GAP = 1e-10


def trinomial_delta(d: int, t, K: int, r):
    """δ(log r) of K reports of k-RR with e^ε0 = t: Σ over i (outputs = x) and m (outputs = x')
    of K!/(i! m! (K-i-m)!) p^i q^m s^(K-i-m) (1 - r / t^(i-m))_+, p = t/Z, q = 1/Z,
    s = (d-2)/Z, Z = t + d - 1. Exact with Fraction t, r; mpmath numbers otherwise."""
    Z = t + d - 1
    p, q, s = t / Z, 1 / Z, (d - 2) / Z
    total = 0
    for i in range(K + 1):
        for m in (range(K - i + 1) if d > 2 else (K - i,)):  # d = 2: a binomial, no third output
            ratio = t ** (i - m)
            if ratio > r:
                total += math.comb(K, i) * math.comb(K - i, m) * p ** i * q ** m * s ** (K - i - m) * (1 - r / ratio)
    return total


def _bounds(spec_binding, K, eps, step=None):
    single = pf.view(load_spec("specs/krr.toml").bind(**spec_binding))
    return Bd.view_bounds(single.classes, K, eps, step)


@pytest.mark.parametrize("d, K, r", [(4, 10, Fraction(10)), (4, 100, Fraction(10 ** 12)), (4, 100, Fraction(3, 2)),
                                     (4, 200, Fraction(10 ** 30)), (2, 60, Fraction(7)), (8, 150, Fraction(1))])
def test_lattice_bounds_bracket_the_exact_sum_with_fractions(d, K, r):
    """k-RR at ε0 = log 3: every loss a multiple of log 3 (the lattice, no rounding)."""
    b = _bounds(dict(d=d, epsilon="log(3)"), K, sp.log(sp.Rational(r.numerator, r.denominator)))
    exact = trinomial_delta(d, Fraction(3), K, r)
    assert b.grid.kind == "lattice" and b.grid.exact == "log(3)"
    assert Fraction(b.lower) <= exact <= Fraction(b.upper), (float(exact), b.lower, b.upper)
    assert b.upper - b.lower <= LATTICE_GAP


@pytest.mark.parametrize("K, eps", [(100, 10), (100, sp.Rational(1, 2)), (100, 40), (57, 3),
                                    pytest.param(300, 30, marks=pytest.mark.slow), (1000, 100)])
def test_lattice_bounds_bracket_the_exact_sum_in_q_e(K, eps):
    """k-RR d = 8 at ε0 = 1 (entries in Q(e)) and d = 2 (binary RR: a binomial, K = 1000), at
    60 digits."""
    d = 2 if K == 1000 else 8
    with mpmath.workdps(60):
        exact = trinomial_delta(d, mpmath.e, K, mpmath.exp(mpmath.mpf(int(sp.Rational(eps).p)) / int(sp.Rational(eps).q)))
        b = _bounds(dict(d=d, epsilon=1), K, sp.sympify(eps))
        assert b.grid.kind == "lattice" and b.grid.low == b.grid.high == 1.0
        assert mpmath.mpf(b.lower) <= exact <= mpmath.mpf(b.upper), (float(exact), b.lower, b.upper)
    assert b.upper - b.lower <= LATTICE_GAP


@pytest.mark.parametrize("K, r, step", [(20, Fraction(30), 2.0 ** -6), (60, Fraction(10 ** 6), 2.0 ** -8),
                                        (100, Fraction(10 ** 9), 2.0 ** -9)])
def test_grid_bounds_bracket_the_exact_sum_and_the_gap_is_at_most_k_steps(K, r, step):
    """A grid forced on k-RR at ε0 = log 3 (losses ±log 3 rounded): lower <= δ(ε) <= upper, and
    the tolerance of rounding: every report's loss moves by < h, so
    δ(ε + K h) <= lower and upper <= δ(ε - K h) (up to the float slack)."""
    b = _bounds(dict(d=4, epsilon="log(3)"), K, sp.log(sp.Rational(r.numerator, r.denominator)), step)
    assert b.grid.kind == "grid" and b.grid.step == step
    exact = trinomial_delta(4, Fraction(3), K, r)
    assert Fraction(b.lower) <= exact <= Fraction(b.upper)
    with mpmath.workdps(40):
        shift = mpmath.exp(mpmath.mpf(K * step))
        below = trinomial_delta(4, mpmath.mpf(3), K, mpmath.mpf(r.numerator) / r.denominator * shift)
        above = trinomial_delta(4, mpmath.mpf(3), K, mpmath.mpf(r.numerator) / r.denominator / shift)
    assert below - 1e-12 <= b.lower and b.upper <= above + 1e-12, (float(below), b.lower, b.upper, float(above))
    assert b.upper - b.lower > 1e-6  # rounded losses: a real gap, not float noise


def _ln3_ln5_exact(K: int, r: Fraction) -> Fraction:
    """δ(log r) of K rounds of k-RR(log 3) and k-RR(log 5), d = 3: the two net counts n3, n5 are
    independent, each the difference of a trinomial's first two counts; loss n3 log 3 + n5 log 5."""
    def net(t):
        Z = t + 2
        p, q, s = t / Z, Fraction(1) / Z, Fraction(1) / Z
        out: dict = {}
        for i in range(K + 1):
            for m in range(K - i + 1):
                out[i - m] = out.get(i - m, 0) + math.comb(K, i) * math.comb(K - i, m) * p ** i * q ** m * s ** (K - i - m)
        return out

    three, five = net(Fraction(3)), net(Fraction(5))
    total = Fraction(0)
    for a, pa in three.items():
        for b, pb in five.items():
            ratio = Fraction(3) ** a * Fraction(5) ** b
            if ratio > r:
                total += pa * pb * (1 - r / ratio)
    return total


@pytest.mark.parametrize("K, r", [(12, Fraction(10 ** 4)), pytest.param(30, Fraction(10 ** 12), marks=pytest.mark.slow)])
def test_non_commensurate_bounds_bracket_the_exact_double_sum(K, r):
    """Losses ±log 3 and ±log 5 together (no lattice): the default grid, both bounds around the
    exact δ, the gap under 2 % of δ."""
    comp = C.load_composition("specs/compositions/krr_ln3_ln5.toml")
    b = Bd.view_bounds(comp.view(1).classes, K, sp.log(sp.Rational(r.numerator, r.denominator)))
    exact = _ln3_ln5_exact(K, r)
    assert b.grid.kind == "grid"
    assert Fraction(b.lower) <= exact <= Fraction(b.upper), (float(exact), b.lower, b.upper)
    assert b.upper - b.lower <= 0.02 * float(exact)


def test_lattice_is_found_on_exact_ratios_and_refused_without_one():
    v = pf.view(load_spec("specs/krr.toml").bind(d=5, epsilon="log(3)"))
    base, mult = P.lattice(P.prepared(v.classes[0].pld, 2))
    assert v.bases.expr(base) == 3 and sorted(mult.values()) == [-1, 0, 1]
    odd = Mechanism.from_matrix([[7, 3, 1], [2, 5, 4], [1, 2, 9]], epsilon="log(9)")
    assert all(P.lattice(P.prepared(c.pld, 2)) is None for c in pf.view(odd).classes)
    # ratios 4 and 1/2 (and 1/4 and 2 the other way): multiples 2 and -1 of log 2
    two = Mechanism.from_matrix([[Fraction(4, 7), Fraction(3, 7)], [Fraction(1, 7), Fraction(6, 7)]], epsilon="log(4)")
    for c in pf.view(two).classes:
        base, mult = P.lattice(P.prepared(c.pld, 2))
        assert c.pld.bases.expr(base) == 2 and sorted(mult.values()) in ([-1, 2], [-2, 1])


# --- the work budget, and which answer was given ----------------------------------------------


def _actual_work(pld: P.PLD, K: int) -> int:
    """Products of two mass terms done by K - 1 schoolbook convolutions, counted on the real
    intermediate PLDs."""
    one = P.prepared(pld, K)
    out, work = one, 0
    for _ in range(K - 1):
        work += sum(len(a1) * len(a2) + len(b1) * len(b2)
                    for a1, b1 in out.atoms.values() for a2, b2 in one.atoms.values())
        out = P.compose(out, one)
    return work


@pytest.mark.parametrize("binding", [dict(d=8, epsilon=1), dict(d=16, epsilon="log(3)"), dict(d=3, epsilon="1/2")])
def test_predicted_work_is_the_work_done(binding):
    """The budget counts work units: the prediction (supports and degree spans, no mass
    multiplied) equals the terms multiplied by the convolutions for k-RR."""
    pld = pf.view(load_spec("specs/krr.toml").bind(**binding)).classes[0].pld
    for K in (2, 5, 17):
        assert P.composition_work(P.prepared(pld, K), K, math.inf) == _actual_work(pld, K)


def test_budget_boundary_is_a_number_of_work_units():
    """k-RR d = 8, ε0 = 1: 57 reports need 195,048 work units, 58 need 205,314; the default budget
    of 200,000 gives the exact value at 57 and bounds at 58, and a budget of 195,048 is exact
    at 57 while 195,047 is not."""
    pld = P.prepared(pf.view(load_spec("specs/krr.toml").bind(d=8, epsilon=1)).classes[0].pld, 2)
    assert P.composition_work(pld, 57, math.inf) == 195_048
    assert P.composition_work(pld, 58, math.inf) == 205_314
    assert P.MAX_PRODUCTS == 200_000
    assert compute("specs/krr.toml", ["d=8", "epsilon=1"], reports=57, epsilon="3")["answer"] == "exact"
    assert compute("specs/krr.toml", ["d=8", "epsilon=1"], reports=58, epsilon="3")["answer"] == "bounds"
    assert compute("specs/krr.toml", ["d=8", "epsilon=1"], reports=57, epsilon="3", work_budget=195_048)["answer"] == "exact"
    out = compute("specs/krr.toml", ["d=8", "epsilon=1"], reports=57, epsilon="3", work_budget=195_047)
    assert out["answer"] == "bounds" and out["work_budget"] == 195_047 and "195,047" in out["reason"]


def test_small_k_is_exact_and_the_curve_only_when_asked(capsys):
    """K = 10 of k-RR d = 4 at ε0 = log 3: the exact δ(log 10) equals the Fraction sum; without
    --curve no breakpoints or pieces are built, with it they are."""
    out = compute("specs/krr.toml", ["d=4", "epsilon=log(3)"], reports=10, epsilon="log(10)")
    assert out["answer"] == "exact" and out["exact"] is True and out["work"] <= out["work_budget"]
    want = trinomial_delta(4, Fraction(3), 10, Fraction(10))
    assert sp.Rational(out["delta"]) == sp.Rational(want.numerator, want.denominator)
    assert not {"breakpoints", "pieces", "tradeoff", "worst_pair_proved"} & set(out)
    assert sp.expand_log(sp.sympify(out["tight_epsilon"]), force=True) == 10 * sp.log(3)
    full = compute("specs/krr.toml", ["d=4", "epsilon=log(3)"], reports=10, epsilon="log(10)", curve=True)
    assert len(full["breakpoints"]) == 10 and full["worst_pair_proved"] is True and full["delta"] == out["delta"]
    assert main(["profile", "specs/krr.toml", "-p", "d=4", "-p", "epsilon=log(3)", "--reports", "10",
                 "--epsilon", "log(10)"]) == 0
    text = capsys.readouterr().out
    assert "EXACT" in text and "breakpoints of δ(ε)" not in text and "--curve" in text
    assert main(["profile", "specs/krr.toml", "-p", "d=4", "-p", "epsilon=log(3)", "--reports", "10",
                 "--epsilon", "log(10)", "--curve"]) == 0
    assert "breakpoints of δ(ε) at ε = " in capsys.readouterr().out


def test_json_and_text_say_bounds_with_the_grid_and_the_budget(capsys):
    """A budget of 100 work units: K = 10 of k-RR gets bounds; the JSON names the answer, the
    bounds, the lattice and the budget that was passed; the text says BOUNDS."""
    argv = ["profile", "specs/krr.toml", "-p", "d=4", "-p", "epsilon=log(3)", "--reports", "10",
            "--epsilon", "log(10)", "--work-budget", "100"]
    assert main(argv + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    exact = trinomial_delta(4, Fraction(3), 10, Fraction(10))
    assert out["answer"] == "bounds" and out["exact"] is False and out["delta"] is None
    assert Fraction(out["delta_lower"]) <= exact <= Fraction(out["delta_upper"])
    assert out["work_budget"] == 100 and out["exact_work_at_least"] > 100 and "work budget of 100 " in out["reason"]
    assert out["discretization"]["kind"] == "lattice" and out["discretization"]["interval_exact"] == "log(3)"
    assert out["discretization"]["interval"] == pytest.approx(math.log(3))
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "BOUNDS, not the exact value" in text and "<= δ(log(10)) <=" in text and "lattice λ = log(3)" in text
    # a grid asked for: rounded losses, the grid in the output
    assert main(argv + ["--grid", "0.01", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["discretization"]["kind"] == "grid" and out["discretization"]["interval_exact"] == "2**-7"
    assert Fraction(out["delta_lower"]) <= exact <= Fraction(out["delta_upper"])


@pytest.mark.parametrize("text", ["-1", "lots", "1.5"])
def test_bad_work_budget_is_one_line_exit_2(text, capsys):
    assert main(["profile", "specs/krr.toml", "--work-budget", text]) == 2
    err = capsys.readouterr().err
    assert "--work-budget" in err and err.count("\n") == 1


def test_infinite_losses_are_bounded_on_both_sides():
    """A channel with P' = 0 on one output (an infinite loss): P(some report hits it) =
    1 - (1 - p)^K is inside both bounds; against the exact K-fold value."""
    mech = Mechanism.from_matrix([[Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)],
                                  [Fraction(0), Fraction(1, 2), Fraction(1, 2)]], epsilon=100)
    single = pf.view(mech)
    for K in (3, 12):
        exact = pf.delta_at(pf.view(mech, reports=K, budget=math.inf), sp.Rational(1, 2))
        b = Bd.view_bounds(single.classes, K, sp.Rational(1, 2))
        with mpmath.workdps(40):
            want = mpmath.mpf(sp.N(exact.delta, 40))
            assert mpmath.mpf(b.lower) <= want <= mpmath.mpf(b.upper)
        assert b.lower >= 1 - (3 / 4) ** K - 1e-15
