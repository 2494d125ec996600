"""`ldpaudit optimize` with f-divergence utilities (issue 20 item 3: "mutual information under a
prior, f-divergence utilities"): the largest KL, total variation, χ² and squared Hellinger
divergence between the output laws P0·Q and P1·Q over all ε-LDP mechanisms Q.

Against values computed here independently:
* two point masses on d = 2 (Kairouz, Oh & Viswanath: randomized response is optimal for binary
  hypotheses): the divergence of the 2 x 2 randomized response, in mpmath at 60 digits;
* P0 and P1 with disjoint supports on d = 4: by data processing no ε-LDP mechanism separates them
  better than randomized response on the support label, and that mechanism is ε-LDP, so the
  optimum is the same binary value;
* overlapping laws on d = 3: a float LP written here from scratch (itertools patterns, the
  divergence of every column from its definition) and every mechanism that groups the inputs
  into two classes.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from ldpaudit.errors import InvalidParameter
from ldpaudit.extremal import enclosure as enc
from ldpaudit.extremal.staircase import DIVERGENCES, certify, check_dual, problem, recheck

F = Fraction


def divergence(name, p, q):
    """The f-divergence between two finite laws, from its definition (mpmath or floats)."""
    if name == "kl":
        return sum(a * mpmath.log(a / b) for a, b in zip(p, q) if a)
    if name == "tv":
        return sum(abs(a - b) for a, b in zip(p, q)) / 2
    if name == "chi2":
        return sum((a - b) ** 2 / b for a, b in zip(p, q))
    if name == "hellinger":
        return sum((mpmath.sqrt(a) - mpmath.sqrt(b)) ** 2 for a, b in zip(p, q)) / 2
    raise ValueError(name)


def binary_rr_value(name, eps):
    with mpmath.workdps(60):
        t = mpmath.e ** mpmath.mpf(sp.N(eps, 70))
        keep, flip = t / (t + 1), 1 / (t + 1)
        return divergence(name, (keep, flip), (flip, keep))


def inside(opt, value):
    lo, hi = mpmath.mpf(opt.lower.numerator) / opt.lower.denominator, \
        mpmath.mpf(opt.upper.numerator) / opt.upper.denominator
    slack = mpmath.mpf(10) ** -40
    return lo - slack <= value <= hi + slack


@pytest.mark.parametrize("name", DIVERGENCES)
@pytest.mark.parametrize("eps", [sp.Rational(1, 2), sp.Integer(1), sp.log(3), sp.Integer(3)])
def test_point_masses_on_two_inputs_give_randomized_response(name, eps):
    opt = certify(problem(2, eps, prior=(F(1), F(0)), objective=name, alternative=(F(0), F(1))))
    assert opt.status == "PROVED" and recheck(opt) == []
    with mpmath.workdps(60):
        assert inside(opt, binary_rr_value(name, eps))
    assert float(opt.width) < 1e-12
    t = sp.exp(eps)
    assert sorted(c.pattern for c in opt.columns) == [1, 2]           # t1 and 1t: randomized response
    assert all(sp.simplify(c.weight - 1 / (1 + t)) == 0 for c in opt.columns)


@pytest.mark.parametrize("name", ["kl", "hellinger", "tv"])
def test_disjoint_supports_reduce_to_the_binary_value(name):
    eps = sp.Integer(2)
    opt = certify(problem(4, eps, prior=(F(1, 2), F(1, 2), F(0), F(0)), objective=name,
                          alternative=(F(0), F(0), F(1, 3), F(2, 3))))
    assert opt.status == "PROVED" and recheck(opt) == []
    with mpmath.workdps(60):
        assert inside(opt, binary_rr_value(name, eps))


def float_lp(name, prior, alternative, eps):
    """The staircase LP written from scratch: one column per pattern in {1, e^ε}^d, its utility the
    divergence between the two laws' masses on it, each input's row summing to 1."""
    import numpy as np
    from scipy.optimize import linprog

    d, t = len(prior), math.exp(eps)
    patterns = list(itertools.product((1.0, t), repeat=d))
    utility = []
    for s in patterns:
        m0 = sum(float(p) * v for p, v in zip(prior, s))
        m1 = sum(float(p) * v for p, v in zip(alternative, s))
        utility.append(float(divergence(name, (m0,), (m1,))) if name != "tv" else abs(m0 - m1) / 2)
    A = np.array(patterns).T
    res = linprog(-np.array(utility), A_eq=A, b_eq=np.ones(d), bounds=(0, None), method="highs")
    assert res.status == 0
    return -res.fun


def grouped_rr_values(name, prior, alternative, eps):
    """Every mechanism that reports randomized response on a two-class grouping of the inputs."""
    t = math.exp(eps)
    keep, flip = t / (t + 1), 1 / (t + 1)
    d = len(prior)
    out = []
    for r in range(1, d):
        for group in itertools.combinations(range(d), r):
            rows = [(keep, flip) if x in group else (flip, keep) for x in range(d)]
            p = [sum(float(w) * row[y] for w, row in zip(prior, rows)) for y in range(2)]
            q = [sum(float(w) * row[y] for w, row in zip(alternative, rows)) for y in range(2)]
            out.append(float(divergence(name, p, q)))
    return out


@pytest.mark.parametrize("name", DIVERGENCES)
def test_overlapping_laws_match_an_independent_lp_and_beat_every_grouping(name):
    prior, alternative = (F(1, 3), F(1, 3), F(1, 3)), (F(1, 2), F(1, 4), F(1, 4))
    opt = certify(problem(3, 1, prior=prior, objective=name, alternative=alternative))
    assert opt.status == "PROVED" and recheck(opt) == []
    assert float(opt.width) < 1e-25      # the degenerate LP's dual is refined too, not left at float precision
    assert float(opt.lower) == pytest.approx(float_lp(name, prior, alternative, 1.0), rel=1e-9, abs=1e-15)
    assert all(v <= float(opt.upper) * (1 + 1e-12) for v in grouped_rr_values(name, prior, alternative, 1.0))


def test_a_lowered_dual_fails_the_check():
    opt = certify(problem(3, 1, prior=(F(1, 3),) * 3, objective="kl", alternative=(F(1, 2), F(1, 4), F(1, 4))))
    with enc.precision(opt.bits):        # the precision the certificate was checked at
        _lowered_duals_fail(opt)


def _lowered_duals_fail(opt):
    assert check_dual(opt.problem, opt.dual).ok
    # every support pattern's slack is ~0 (complementary slackness) and all its entries are >= 1,
    # so lowering any coordinate by 1e-6 makes some pattern's slack negative
    for x in range(3):
        lowered = list(opt.dual)
        lowered[x] -= Fraction(1, 10**6)
        assert not check_dual(opt.problem, lowered).ok


@pytest.mark.parametrize("kwargs, message", [
    ({"objective": "kl"}, r"--alternative is missing"),
    ({"objective": "mi", "alternative": "uniform"}, r"--alternative is for the divergences"),
    ({"objective": "tv", "alternative": "uniform"}, r"--alternative equals --prior"),
    ({"objective": "chi2", "alternative": (F(1, 2), F(1, 2))}, r"--alternative has 2 weights; d = 3 needs 3"),
    ({"objective": "hellinger", "alternative": (F(1, 2), F(1, 2), F(1, 2))}, r"--alternative weights sum to 3/2"),
])
def test_bad_divergence_input_names_the_option(kwargs, message):
    with pytest.raises(InvalidParameter, match=message):
        problem(3, 1, **kwargs)


def test_cli_divergence_json(capsys):
    import json

    from ldpaudit import cli

    code = cli.main(["optimize", "--objective", "tv", "-p", "d=2", "-p", "epsilon=log(3)", "--prior", "1,0",
                     "--alternative", "0,1", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["verdict"] == "PROVED"
    assert payload["alternative"] == ["0", "1"] and payload["objective"] == "tv"
    assert Fraction(payload["lower"]) <= Fraction(1, 2) <= Fraction(payload["upper"])   # tanh(ln 3 / 2) = 1/2
    assert cli.main(["optimize", "--objective", "kl", "-p", "d=2", "-p", "epsilon=1", "--alternative", "2,x"]) == 2


@pytest.mark.parametrize("name", DIVERGENCES)
def test_binary_theorem_check_agrees_and_finds_wrr(name):
    from ldpaudit.extremal.theorems import check_binary_divergence

    c = check_binary_divergence(name, (F(9, 10), F(1, 10)), (F(1, 2), F(1, 2)), sp.Integer(1))
    assert c.verdict == "AGREES" and c.mechanism_equal is True
    # the theorem's side is W-RR's divergence by its definition: recompute it here
    t = math.e
    keep, flip = t / (t + 1), 1 / (t + 1)
    p = (0.9 * keep + 0.1 * flip, 0.9 * flip + 0.1 * keep)
    q = (0.5, 0.5)
    assert float(c.theorem_lower) == pytest.approx(float(divergence(name, p, q)), rel=1e-12)
