"""The three-class privacy-blanket bound without its two-dimensional grid (one class split off,
ldpaudit/account/blanket.py: DecoupledDivergence) and the clone bounds' faster evaluation:
never below the exact three-class sum or the brute-force expectation, close to them, and the
same answer with or without a time budget at n = 10^6."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from ldpaudit.account import blanket as B
from ldpaudit.account import shuffle as S
from ldpaudit.mechanism.loader import load_bound


def krr_rows(d: int, e_eps: Fraction):
    top = e_eps / (e_eps + d - 1)
    low = 1 / (e_eps + d - 1)
    return [[top if i == j else low for j in range(d)] for i in range(d)]


def expectation(rows, i, j, n, e_eps):
    """(1/n) E[(Σ l(Z_j))_+] by enumerating the multinomial counts, exact rationals."""
    m = len(rows[0])
    omega = [min(r[y] for r in rows) for y in range(m)]
    values = [(rows[i][y] - e_eps * rows[j][y]) / omega[y] for y in range(m)] + [Fraction(0)]
    probs = omega + [1 - sum(omega)]
    total = Fraction(0)
    for counts in itertools.product(range(n + 1), repeat=m + 1):
        if sum(counts) != n:
            continue
        weight = Fraction(math.factorial(n))
        for c, p in zip(counts, probs):
            weight = weight / math.factorial(c) * p ** c
        s = sum(c * v for c, v in zip(counts, values))
        if s > 0:
            total += weight * s
    return total / n


def as_channel(rows):
    from ldpaudit.mechanism.core import Mechanism

    scale = math.lcm(*(f.denominator for r in rows for f in r))
    return B.channel_numbers(Mechanism.from_matrix([[int(f * scale) for f in r] for r in rows], epsilon="10"))


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("e_eps", [Fraction(1), Fraction(6, 5), Fraction(2)])
def test_decoupled_is_above_the_brute_force_expectation(n, e_eps):
    rows = krr_rows(3, Fraction(3))
    ch = as_channel(rows)
    cl = B.blanket_classes(ch, 0, 1)
    exact = expectation(rows, 0, 1, n, e_eps)
    value = B.DecoupledDivergence(cl, n, 1e-12)(math.log(e_eps))
    assert value >= float(exact) * (1 - 1e-12)
    # not vacuous: the split costs at most the decoupled class's own positive part
    assert value <= 1.0


@pytest.mark.parametrize("d,n,loss", [(3, 2_000, 1.06), (8, 5_000, 1.045), (8, 20_000, 1.022)])
def test_decoupled_against_the_exact_three_class_sum(d, n, loss):
    """Where the exact grid is small enough to sum, the split-off bound is above it at every ε
    tried, and its ε at δ is close to the exact one, closer as n grows (measured: 5.3 %, 4.0 %,
    1.9 %; 0.8 % at n = 10^5; the split is used only past EXACT_POINTS grid points)."""
    ch = B.channel_numbers(load_bound("krr", [f"d={d}", "epsilon=1"]))
    cl = B.blanket_classes(ch, 0, 1)
    budget = B.BUDGET_SHARE * 1e-8
    exact = B.BlanketDivergence(cl, n, budget, max_points=10**8)
    split = B.DecoupledDivergence(cl, n, budget)
    for eps in (0.01, 0.03, 0.06, 0.1):
        assert split(eps) >= exact(eps) * (1 - 1e-9)
    e_exact = B.smallest_epsilon(exact, 1e-8, 1.0)[0]
    e_split = B.smallest_epsilon(split, 1e-8, 1.0)[0]
    assert e_exact <= e_split <= loss * e_exact


def test_a_million_users_same_answer_without_a_budget():
    """k-RR d = 8 at n = 10^6: the grid would be 2.4·10^7 points; the split-off search finishes
    (no budget note) and gives the same ε with or without a work budget, below the channel's
    clone bound and above the projection lower bound."""
    ch = B.channel_numbers(load_bound("krr", ["d=8", "epsilon=1"]))
    free = B.blanket_epsilon(ch, 10**6, 1e-8, work=None)
    budgeted = B.blanket_epsilon(ch, 10**6, 1e-8, work=10**6)
    assert free.epsilon == budgeted.epsilon
    assert not any("stopped" in note for note in free.notes) and any("split off" in note for note in free.notes)
    facts = S.channel_facts(load_bound("krr", ["d=8", "epsilon=1"]))
    lower, _ = S.projection_lower(facts, 10**6, 1e-8)
    assert lower < free.epsilon < S.channel_epsilon(facts, 10**6, 1e-8)
    assert abs(free.epsilon - 0.0030219) < 2e-7


def test_a_work_budget_cuts_the_search_at_the_same_point_every_time():
    """k-RR d = 8 at n = 10^4: a budget of 10^6 grid points stops the three-class search (the
    note says where), the ε is still valid (>= the unbudgeted one) and the same on every run;
    a budget below one evaluation keeps only the two-class bound."""
    ch = B.channel_numbers(load_bound("krr", ["d=8", "epsilon=1"]))
    free = B.blanket_epsilon(ch, 10**4, 1e-8)
    cut = [B.blanket_epsilon(ch, 10**4, 1e-8, work=10**6) for _ in range(2)]
    assert cut[0].epsilon == cut[1].epsilon and cut[0].notes == cut[1].notes
    assert free.epsilon < cut[0].epsilon < 1.05 * free.epsilon
    stop = next(note for note in cut[0].notes if "stopped" in note)
    assert "of 1,000,000 grid points evaluated" in stop
    spent = int(stop.split("(")[1].split(" of")[0].replace(",", ""))
    assert 0 < spent <= 10**6
    two_class = B.blanket_epsilon(ch, 10**4, 1e-8, work=10)
    assert "(0 of 10 grid points" in next(note for note in two_class.notes if "stopped" in note)
    assert two_class.epsilon > cut[0].epsilon
    assert not any("stopped" in note for note in free.notes)


def test_clone_bound_unchanged_by_the_faster_tails():
    """One incomplete beta plus Loader pmfs per evaluation: the same tails as four incomplete
    betas (to 1e-12), and the generic bound within 1e-8 relative of the previous value."""
    import numpy as np

    c = np.arange(0, 4000, 7).astype(float)
    k0 = np.floor(0.55 * (c + 1)) + 1
    stepped = S._sf_steps(k0, c)
    direct = [S._sf(k0 + s, c) for s in (-3, -2, -1, 0)]
    for a, b in zip(stepped, direct):
        assert np.all(np.abs(a - b) <= 1e-12 * np.maximum(b, 1e-300) + 1e-300)
    # the value before this change (scipy.stats windows, four incomplete betas, brentq)
    assert abs(S.generic_epsilon(1.0, 10**6, 1e-8) / 0.006128917698055671 - 1) < 1e-8


@pytest.mark.parametrize("e_eps", [Fraction(1), Fraction(3, 2)])
def test_four_classes_split_without_merging_above_brute_force(e_eps):
    """OUE (d = 3, e^ε0 = 3: entries 1/2, 1/4, rational) has four blanket classes (the two bits
    of the pair); two are split off, none merged; the bound is above the exact expectation."""
    ch = B.channel_numbers(load_bound("oue", ["d=3", "epsilon=log(3)"]))
    rows = [list(r) for r in ch.exact]
    cl = B.blanket_classes(ch, 0, 1)
    assert len(cl.a) == 4
    div = B.DecoupledDivergence(cl, 3, 1e-12)
    assert len(div.split) == 2 and not div.merged
    exact = expectation(rows, 0, 1, 3, e_eps)
    assert float(exact) * (1 - 1e-12) <= div(math.log(e_eps)) <= 1.0


def test_oue_at_a_million_users_is_below_the_clone_bounds():
    ch = B.channel_numbers(load_bound("oue", ["d=8", "epsilon=1"]))
    bound = B.blanket_epsilon(ch, 10**6, 1e-8)
    assert any("none merged" in note for note in bound.notes)
    assert 0.00017 < bound.epsilon < S.generic_epsilon(1.0, 10**6, 1e-8)
