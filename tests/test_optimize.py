"""`ldpaudit optimize`: the staircase LP's certified optimum (issue 20 item 3).

Against: Wang et al.'s I_k (reference formula typed here, the library derives it), the
mutual information of concrete ε-LDP mechanisms computed by brute force, W-RR for binary inputs;
a perturbed certificate must fail its re-check; the emitted spec must re-verify.
"""
from __future__ import annotations

import json
import math
from dataclasses import replace
from fractions import Fraction
from itertools import combinations

import pytest

import cli_inprocess
import sympy as sp

from ldpaudit.errors import InvalidParameter
from ldpaudit.extremal import enclosure as enc
from ldpaudit.extremal.staircase import certify, check_dual, problem, recheck
from ldpaudit.extremal.theorems import AGREEMENT_WIDTH, check_kairouz_binary, check_wang_21

EPSILONS = (sp.Rational(1, 4), sp.Rational(1, 2), sp.Integer(1), sp.Integer(2), sp.log(5))


def reference_ik(d, k, eps):
    """Wang et al. Thm 2.1 / formulas.md, in floats: I_k of k-subset under the uniform prior."""
    t = math.exp(eps)
    z = k * t + d - k
    return (k * t * math.log(d * t / z) + (d - k) * math.log(d / z)) / z


def mutual_information(matrix, prior):
    """Brute force in floats: Σ_x Σ_y P_x Q ln(Q/m_y)."""
    total = 0.0
    for y in range(len(matrix[0])):
        m = sum(p * row[y] for p, row in zip(prior, matrix))
        total += sum(p * row[y] * math.log(row[y] / m) for p, row in zip(prior, matrix) if p and row[y])
    return total


def subset_channel(d, k, eps):
    """k-subset by enumeration: Q(S|x) ∝ e^ε if x in S else 1."""
    t = math.exp(eps)
    subsets = list(combinations(range(d), k))
    z = math.comb(d - 1, k - 1) * t + math.comb(d - 1, k)
    return [[(t if x in s else 1) / z for s in subsets] for x in range(d)]


# the default suite certifies d = 2, 3, 4 and 6 (each d is one LP per ε, the same code path);
# d = 5 and 7..10 are slow cases (d = 11, 12 in test_wang_theorem_up_to_d_12)
@pytest.mark.parametrize("d", [2, 3, 4, 6] + [pytest.param(d, marks=pytest.mark.slow) for d in (5, 7, 8, 9, 10)])
def test_certified_optimum_is_the_best_subset(d):
    for eps in EPSILONS:
        c = check_wang_21(d, eps)
        o = c.optimum
        assert o.status == "PROVED", o.reason
        assert c.verdict == "AGREES"
        assert c.hull_width < AGREEMENT_WIDTH and o.width < Fraction(1, 10**20)
        best = max(reference_ik(d, k, float(eps)) for k in range(1, d))
        assert float(o.lower) == pytest.approx(best, rel=1e-13, abs=1e-15)
        assert o.lower <= o.upper


def test_d2_optimum_is_wang_closed_form_and_below_eps_squared_over_8():
    eps = sp.Integer(1)
    o = certify(problem(2, eps))
    t = math.e
    closed = t / (t + 1) - math.log((t + 1) / 2)  # I_1(d = 2) = εt/(t+1) - ln((t+1)/2)
    assert float(o.lower) == pytest.approx(closed, rel=1e-15)
    assert o.upper < Fraction(1, 8)


def test_concrete_mechanisms_never_exceed_the_proved_upper_end():
    """Non-uniform prior: k-RR and every k-subset, computed by brute force, lie below the proved
    optimum, and the best of them is strictly below it only if the LP found something better."""
    prior = (Fraction(1, 2), Fraction(1, 4), Fraction(1, 8), Fraction(1, 8))
    eps = sp.Integer(1)
    o = certify(problem(4, eps, prior=prior))
    assert o.status == "PROVED" and not recheck(o)
    p = [float(w) for w in prior]
    values = [mutual_information(subset_channel(4, k, 1.0), p) for k in range(1, 4)]
    assert max(values) <= float(o.upper) + 1e-15
    optimal = [[float(sp.N(e, 30)) for e in row] for row in o.channel_matrix()]
    assert mutual_information(optimal, p) == pytest.approx(float(o.lower), rel=1e-12)


def test_a_perturbed_dual_fails_the_check():
    o = certify(problem(6, sp.Integer(1)))
    assert recheck(o) == []
    for x in range(6):
        y = list(o.dual)
        y[x] -= Fraction(1, 10**20)                 # far below the float LP's own accuracy
        bad = replace(o, dual=tuple(y), upper=sum(y))
        assert not check_dual(o.problem, y).ok
        assert any("dual infeasible" in f for f in recheck(bad))
    loose = [v + Fraction(1, 1000) for v in o.dual]  # raising y keeps it feasible, the bound looser
    assert check_dual(o.problem, loose).ok
    wrong_upper = replace(o, upper=o.upper - Fraction(1, 10**15))
    assert any("sum of the dual" in f for f in recheck(wrong_upper))


def test_a_perturbed_primal_fails_the_check():
    o = certify(problem(5, sp.Rational(1, 2)))
    first = o.columns[0]
    bad = replace(o, columns=(replace(first, weight=first.weight * sp.Rational(1001, 1000)),) + o.columns[1:])
    assert any("sums to" in f for f in recheck(bad))
    high = replace(o, lower=o.upper + 1)
    assert any("below the stated lower end" in f for f in recheck(high))


@pytest.mark.parametrize("p0", [Fraction(1, 10), Fraction(1, 3), Fraction(1, 2), Fraction(4, 5)])
def test_binary_alphabets_wrr_is_optimal(p0):
    """Kairouz et al. Thm 2 (binary), sublinear-utility form: W-RR attains the certified optimum
    and is the optimal staircase mechanism itself."""
    for eps in (sp.Rational(1, 3), sp.Integer(1), sp.Integer(3)):
        c = check_kairouz_binary(p0, eps)
        assert c.verdict == "AGREES" and c.mechanism_equal is True
        t = math.exp(float(eps))
        wrr = [[t / (t + 1), 1 / (t + 1)], [1 / (t + 1), t / (t + 1)]]
        assert float(c.optimum.lower) == pytest.approx(mutual_information(wrr, [float(p0), float(1 - p0)]), rel=1e-13)


def test_rational_e_to_the_epsilon_is_exact():
    o = certify(problem(4, sp.log(3)))            # t = 3: the weights are rationals
    assert o.status == "PROVED"
    assert all(c.weight.is_Rational for c in o.columns)


def _cli(*args):
    return cli_inprocess.run("optimize", *args)     # in this process (tests/cli_inprocess.py)


def test_cli_json_and_emitted_spec_reverifies(tmp_path):
    out = tmp_path / "opt.toml"
    r = _cli("--objective", "mi", "-p", "d=6", "-p", "epsilon=1", "--json", "--out", str(out))
    assert r.returncode == 0, r.stderr
    payload = json.loads(r.stdout)
    assert payload["command"] == "optimize" and payload["verdict"] == "PROVED"
    assert Fraction(payload["lower"]) <= Fraction(payload["upper"])
    assert payload["wang_theorem_2_1"]["verdict"] == "AGREES" and payload["wang_theorem_2_1"]["attained_by"] == "k = 2"
    assert abs(payload["value"] - reference_ik(6, 2, 1.0)) < 1e-14
    from ldpaudit.mechanism.loader import load_spec
    from ldpaudit.verify import verify

    mech = load_spec(out)
    verdict = verify(mech)
    assert verdict.status == "PROVED"
    assert sp.simplify(verdict.tight_epsilon - 1) == 0


@pytest.mark.parametrize("args, message", [
    (("-p", "d=1", "-p", "epsilon=1"), r"d = 1 must be at least 2"),
    (("--objective", "entropy", "-p", "d=3", "-p", "epsilon=1"), r"--objective 'entropy' is unknown; objectives: mi"),
    (("-p", "d=3", "-p", "epsilon=-1"), r"epsilon = -1 must be positive"),
    (("-p", "d=3", "-p", "epsilon=0"), r"epsilon = 0 must be positive"),
    (("-p", "d=3", "-p", "epsilon=1", "--prior", "1/2,1/4,1/3"), r"--prior weights sum to 13/12"),
    (("-p", "d=3"), r"-p epsilon is missing"),
    (("-p", "d=40", "-p", "epsilon=1"), r"limited to d <= 16"),
])
def test_bad_input_is_one_line_exit_2(args, message, capsys):
    import re

    from ldpaudit import cli

    assert cli.main(["optimize", *args]) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and re.search(message, lines[0]), err


def test_problem_rejects_bad_prior_in_python():
    with pytest.raises(InvalidParameter, match=r"--prior weight -1/2 is negative"):
        problem(2, 1, prior=(Fraction(3, 2), Fraction(-1, 2)))


@pytest.mark.slow
@pytest.mark.parametrize("d", [11, 12])
def test_wang_theorem_up_to_d_12(d):
    for eps in EPSILONS:
        assert check_wang_21(d, eps).verdict == "AGREES"


@pytest.mark.slow
def test_reproduce_optimality_matches_the_committed_files(tmp_path):
    """`ldpaudit reproduce optimality` (Wang Thm 2.1 for d = 2..12 on six ε, W-RR on 18 binary
    points) regenerates proofs/optimality exactly, and every point agrees."""
    from pathlib import Path

    from ldpaudit.papers.reproduce import reproduce
    from ldpaudit.papers.golden import json_differences

    _, payload = reproduce("optimality", tmp_path)
    assert payload["all_agree"] and payload["binary_mechanism_is_wrr"]
    assert len(payload["wang_theorem_2_1"]) == 66 and len(payload["binary_divergences"]) == 4 * 3 * 3
    committed = Path(__file__).resolve().parents[1] / "proofs" / "optimality" / "optimality.json"
    generated = json.loads((tmp_path / "optimality" / "optimality.json").read_text(encoding="utf-8"))
    assert json_differences(generated, json.loads(committed.read_text(encoding="utf-8"))) == []
