"""Shuffling (issue 18 item 3): the clone bounds, the exact small-n value, the lower bounds and
``ldpaudit amplify``, against brute-force enumeration with exact rationals."""
from __future__ import annotations

import json
import math
from fractions import Fraction
from itertools import combinations_with_replacement, product
from pathlib import Path

import pytest

import ldpaudit
from ldpaudit.account import shuffle
from ldpaudit.account.amplify import amplification_curve, amplify
from ldpaudit.cli import main
from ldpaudit.errors import InvalidParameter

ROOT = Path(__file__).resolve().parents[1]


def krr(d=3, eps="log(3)"):
    return ldpaudit.load_spec(ROOT / "specs" / "krr.toml").bind(d=d, epsilon=eps)


# --- brute force ------------------------------------------------------------------------------


def brute_histograms(rows, users):
    """P(histogram) of the users' reports by enumerating every output sequence (exact)."""
    m = len(rows[0])
    law = {}
    for ys in product(range(m), repeat=len(users)):
        p = Fraction(1)
        for x, y in zip(users, ys):
            p *= rows[x][y]
        h = tuple(ys.count(j) for j in range(m))
        law[h] = law.get(h, 0) + p
    return law


def hockey(pa, pb, t):
    return sum(max(Fraction(0), pa.get(h, 0) - t * pb.get(h, 0)) for h in set(pa) | set(pb))


def brute_clone_delta(n, eps0_ratio: Fraction, clone: Fraction, t: Fraction):
    """Exact D_t of (A + Δ, C - A + 1 - Δ) vs the same with Δ flipped, by enumeration."""
    alpha = eps0_ratio / (eps0_ratio + 1)
    P, Q = {}, {}
    for c in range(n):
        wc = math.comb(n - 1, c) * clone**c * (1 - clone) ** (n - 1 - c)
        for a in range(c + 1):
            wa = wc * Fraction(math.comb(c, a), 2**c)
            for bit, (pp, qq) in ((1, (alpha, 1 - alpha)), (0, (1 - alpha, alpha))):
                key = (a + bit, c - a + 1 - bit)
                P[key] = P.get(key, 0) + wa * pp
                Q[key] = Q.get(key, 0) + wa * qq
    return hockey(P, Q, t)


# --- the exact small-n value ------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_exact_small_n_equals_brute_force(n):
    facts = shuffle.channel_facts(krr())
    delta = Fraction(1, 1000)
    ex = shuffle.exact_small_n(facts, n, delta)
    assert ex.exact and ex.epsilon_exact.startswith("log(")
    t = Fraction(ex.epsilon_exact[4:-1])
    assert math.isclose(math.log(t), ex.epsilon, rel_tol=1e-15)
    rows = facts.rows
    worst = Fraction(0)
    for others in combinations_with_replacement(range(3), n - 1):
        for x0, x1 in product(range(3), repeat=2):
            if x0 != x1:
                pa = brute_histograms(rows, [x0, *others])
                pb = brute_histograms(rows, [x1, *others])
                worst = max(worst, hockey(pa, pb, t))
                assert hockey(pa, pb, t) <= delta
    assert worst == delta  # attained exactly at the reported e^ε
    # and just below it, δ is exceeded: the value is the smallest
    pa = brute_histograms(rows, [facts.inputs.index(ex.x0), *ex.others])
    pb = brute_histograms(rows, [facts.inputs.index(ex.x1), *ex.others])
    assert hockey(pa, pb, t * (1 - Fraction(1, 10**6))) > delta


def test_exact_small_n_refuses_large_enumeration():
    facts = shuffle.channel_facts(krr(d=8, eps=1))
    with pytest.raises(InvalidParameter, match="exact shuffle enumeration at n=40 needs"):
        shuffle.exact_small_n(facts, 40, 1e-6)


# --- the clone divergence ---------------------------------------------------------------------


@pytest.mark.parametrize("n,clone", [(5, Fraction(1, 3)), (9, Fraction(1, 2)), (12, Fraction(2, 7))])
def test_clone_divergence_bounds_the_exact_one_tightly(n, clone):
    ratio = Fraction(3)
    pair = shuffle.ClonePair(n, math.log(3), float(clone))
    div = shuffle.CloneDivergence(pair, 1e-9)
    for t in (Fraction(1), Fraction(11, 10), Fraction(3, 2), Fraction(2), Fraction(29, 10)):
        exact = brute_clone_delta(n, ratio, clone, t)
        upper = div.delta(math.log(t))
        assert upper >= float(exact)  # an upper bound
        assert upper <= float(exact) * (1 + 1e-8) + 3 * shuffle.FLOAT_SLACK  # and tight (the stated allowance)
    assert div.delta(math.log(3) + 1e-9) <= 2 * shuffle.FLOAT_SLACK  # nothing leaks beyond ε0 but the allowance


def test_generic_bound_decreases_in_n_and_stays_below_eps0():
    values = [shuffle.generic_epsilon(1.0, n, 1e-6) for n in (100, 1_000, 10_000, 100_000)]
    assert all(a > b for a, b in zip(values, values[1:]))
    assert values[0] < 1.0
    # the pair's own δ at the returned ε is within δ, and above it just below
    div = shuffle.CloneDivergence(shuffle.ClonePair(10_000, 1.0, math.exp(-1.0)), 1e-6)
    assert div.delta(values[2]) <= 1e-6 < div.delta(values[2] * (1 - 1e-6))


def test_check_inputs_one_line_errors():
    with pytest.raises(InvalidParameter, match=r"--n 1 is below 2"):
        shuffle.check_inputs(1, 1e-6)
    with pytest.raises(InvalidParameter, match=r"--delta 1.0 is outside \(0, 1\)"):
        shuffle.check_inputs(10, 1.0)
    with pytest.raises(InvalidParameter, match=r"--delta 0 is outside"):
        shuffle.check_inputs(10, 0)


# --- what the channel admits ------------------------------------------------------------------


@pytest.mark.parametrize("d,r", [(3, 3), (5, 2), (8, Fraction(7, 2))])
def test_krr_clone_parameter_is_stronger_clone_count(d, r):
    facts = shuffle.channel_facts(krr(d=d, eps=f"log({r})"))
    assert facts.clone_p == 1 / (Fraction(r) + 1)  # 1/(e^ε0 + 1), Feldman et al. 2023's count
    assert facts.epsilon0_exact == f"log({Fraction(r)})"


def test_oue_clone_parameter_is_generic():
    mech = ldpaudit.load_spec(ROOT / "specs" / "oue.toml").bind(d=3, epsilon="log(2)")
    facts = shuffle.channel_facts(mech)
    assert facts.clone_p == Fraction(1, 4)  # e^-ε0 / 2: OUE admits no more clones than any ε0-LDP channel
    assert facts.epsilon0_exact == "log(2)"


# --- the bounds together ----------------------------------------------------------------------


@pytest.mark.parametrize("r,n", [(3, 3), (3, 6), (2, 5), (5, 4)])
def test_krr_bounds_are_ordered(r, n):
    res = amplify(krr(eps=f"log({r})"), n, "1e-3", samples=6000, seed=1)
    assert res.epsilon_exact is not None and res.exact_witness["arithmetic"] == "exact rationals"
    assert res.epsilon_channel <= res.epsilon_generic  # the channel bound is never looser
    assert res.epsilon_upper == min(res.epsilon_generic, res.epsilon_channel, res.epsilon_blanket)
    assert res.epsilon_exact <= res.epsilon_blanket
    assert res.epsilon_exact <= res.epsilon_upper  # never below the exact value
    assert res.epsilon_projection <= res.epsilon_exact
    assert 0 <= res.epsilon_empirical <= res.epsilon_exact  # nor below the empirical lower bound
    assert res.epsilon_lower == res.epsilon_exact
    assert res.epsilon_upper < math.log(r)  # shuffling helps


@pytest.mark.parametrize("eps", ["1/2", "1", "2"])
def test_krr_channel_bound_at_large_n(eps):
    for n in (1_000, 100_000):
        res = amplify(krr(d=8, eps=eps), n, 1e-8)
        assert res.epsilon_lower < res.epsilon_channel <= res.epsilon_generic < float(Fraction(eps))
        assert res.epsilon_lower < res.epsilon_upper <= res.epsilon_channel
        assert res.epsilon_exact is None


def test_amplification_curve_rows():
    rows = amplification_curve(ROOT / "specs" / "krr.toml", {"d": 4, "epsilon": 1}, [100, 10_000], 1e-6)
    assert [r["n"] for r in rows] == [100, 10_000]
    assert rows[1]["epsilon_upper"] < rows[0]["epsilon_upper"]
    assert all(r["epsilon_lower"] <= r["epsilon_upper"] <= r["epsilon_generic"] for r in rows)


# The FMT bound against Apple's reference implementation: tests/test_amplify_reference.py.


# --- the command ------------------------------------------------------------------------------


def test_cli_json_keys(capsys):
    code = main(["amplify", "krr", "-p", "d=3", "-p", "epsilon=log(3)", "--n", "4", "--delta", "1e-3",
                 "--samples", "2000", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["command"] == "amplify" and out["verdict"] == "OK"
    for key in ("epsilon_upper", "epsilon_generic", "epsilon_lower"):
        assert isinstance(out[key], float)
    assert out["epsilon_lower"] <= out["epsilon_upper"] <= out["epsilon_generic"]
    assert out["epsilon_exact_text"].startswith("log(")


@pytest.mark.parametrize("argv,message", [
    (["--n", "1", "--delta", "1e-8"], "--n 1 is below 2"),
    (["--n", "100", "--delta", "1.5"], r"--delta 1.5 is outside \(0, 1\)"),
    (["--n", "100", "--delta", "0"], r"--delta 0 is outside \(0, 1\)"),
    (["--n", "ten", "--delta", "1e-8"], "--n 'ten' is not a whole number"),
])
def test_cli_bad_input(argv, message, capsys):
    import re

    code = main(["amplify", "krr", "-p", "d=3", "-p", "epsilon=1", *argv])
    err = capsys.readouterr().err
    assert code == 2 and re.search(message, err) and err.count("\n") == 1


def test_cli_unknown_spec(capsys):
    code = main(["amplify", "no_such_spec.toml", "--n", "10", "--delta", "1e-6"])
    err = capsys.readouterr().err
    assert code == 2 and "no_such_spec.toml" in err and err.count("\n") == 1


def test_cli_unbound_parameters(capsys):
    code = main(["amplify", "krr", "--n", "10", "--delta", "1e-6"])
    err = capsys.readouterr().err
    assert code == 2 and "bind d, epsilon" in err
