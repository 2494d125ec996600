"""The privacy-blanket bound (ldpaudit/account/blanket.py) against brute force with exact
rationals: the blanket expectation itself, the true shuffled hockey-stick divergence (every pair,
every multiset of the other users' inputs), and the generic clone bound."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from ldpaudit.account import binomials as bn
from ldpaudit.account import blanket as B
from ldpaudit.mechanism.loader import load_bound


def channel(spec, *params):
    return B.channel_numbers(load_bound(spec, list(params)))


def matrix_channel(rows):
    from ldpaudit.mechanism.core import Mechanism

    return B.channel_numbers(Mechanism.from_matrix(rows, epsilon="10"))


# --- brute force --------------------------------------------------------------------------------


def histogram_law(rows, inputs):
    m = len(rows[0])
    law = {(0,) * m: Fraction(1)}
    for x in inputs:
        new = {}
        for h, p in law.items():
            for y in range(m):
                if rows[x][y]:
                    g = h[:y] + (h[y] + 1,) + h[y + 1:]
                    new[g] = new.get(g, 0) + p * rows[x][y]
        law = new
    return law


def true_delta(rows, n, e_eps):
    """max over ordered pairs and multisets of the others' inputs of Σ_h (P(h) - E P'(h))_+."""
    k = len(rows)
    worst = Fraction(0)
    for others in itertools.combinations_with_replacement(range(k), n - 1):
        laws = [histogram_law(rows, others + (x,)) for x in range(k)]
        for i, j in itertools.permutations(range(k), 2):
            total = sum(max(Fraction(0), p - e_eps * laws[j].get(h, 0)) for h, p in laws[i].items())
            worst = max(worst, total)
    return worst


def blanket_expectation(rows, i, j, n, e_eps):
    """(1/n) E[(Σ_j l(Z_j))_+] by enumerating every sequence class (multinomial counts)."""
    m = len(rows[0])
    omega = [min(r[y] for r in rows) for y in range(m)]
    bottom = 1 - sum(omega)
    values = [(rows[i][y] - e_eps * rows[j][y]) / omega[y] for y in range(m)] + [Fraction(0)]
    probs = omega + [bottom]
    total = Fraction(0)
    for counts in itertools.product(range(n + 1), repeat=m + 1):
        if sum(counts) != n:
            continue
        mult = math.factorial(n)
        for c in counts:
            mult //= math.factorial(c)
        weight = Fraction(mult)
        for c, p in zip(counts, probs):
            weight *= p ** c
        s = sum(c * v for c, v in zip(counts, values))
        if s > 0:
            total += weight * s
    return total / n


KRR3 = [[Fraction(3, 5), Fraction(1, 5), Fraction(1, 5)],
        [Fraction(1, 5), Fraction(3, 5), Fraction(1, 5)],
        [Fraction(1, 5), Fraction(1, 5), Fraction(3, 5)]]
# a rational channel with no symmetry: every column positive (pure LDP), rows sum to 1
SKEW = [[Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)],
        [Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)],
        [Fraction(1, 5), Fraction(3, 5), Fraction(1, 5)]]


def as_channel(rows):
    scale = math.lcm(*(f.denominator for r in rows for f in r))
    return matrix_channel([[int(f * scale) for f in r] for r in rows])


# --- the blanket expectation --------------------------------------------------------------------


@pytest.mark.parametrize("rows", [KRR3, SKEW], ids=["krr3", "skew"])
@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("e_eps", [Fraction(1), Fraction(6, 5), Fraction(2)])
def test_blanket_divergence_equals_brute_force_expectation(rows, n, e_eps):
    ch = as_channel(rows)
    budget = 1e-12
    for i, j in itertools.permutations(range(3), 2):
        exact = blanket_expectation(rows, i, j, n, e_eps)
        div = B.BlanketDivergence(B.blanket_classes(ch, i, j), n, budget)
        value = div(math.log(e_eps))
        # an upper bound, and tight up to the stated budget and float error
        assert value >= float(exact) * (1 - 1e-12)
        assert value <= float(exact) * (1 + 1e-9) + 2 * budget + 1e-9


@pytest.mark.parametrize("rows", [KRR3, SKEW], ids=["krr3", "skew"])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_blanket_divergence_bounds_the_true_shuffled_divergence(rows, n):
    """The blanket D(ε) is >= the true worst-case hockey-stick divergence at every ε tried, and
    is not vacuous: below 1 and, at ε = 0, within a factor of the truth."""
    ch = as_channel(rows)
    classes = [B.blanket_classes(ch, i, j) for i, j in itertools.permutations(range(3), 2)]
    for e_eps in (Fraction(1), Fraction(11, 10), Fraction(3, 2), Fraction(2)):
        truth = true_delta(rows, n, e_eps)
        bound = max(B.BlanketDivergence(c, n, 1e-12)(math.log(e_eps)) for c in classes)
        assert bound >= float(truth) * (1 - 1e-12)
        assert bound < 1


def test_blanket_is_tight_for_krr_at_small_n():
    """k-RR, d = 3, ε0 = ln 3: the blanket bound meets the true worst case (others all at x) at
    n = 2, 3, 4 to 1e-12 at ε = ln(6/5): the decomposition is optimal here, not just valid."""
    ch = as_channel(KRR3)
    for n in (2, 3, 4):
        truth = true_delta(KRR3, n, Fraction(6, 5))
        bound = B.BlanketDivergence(B.blanket_classes(ch, 0, 1), n, 1e-14)(math.log(Fraction(6, 5)))
        assert float(truth) <= bound <= float(truth) + 1e-9


def test_merges_and_drops_only_raise_the_divergence():
    """Every pessimistic reduction is >= the unreduced sum (OUE d = 3 has five classes)."""
    ch = channel("oue", "d=3", "epsilon=log(3)")
    cl = B.blanket_classes(ch, 0, 1)
    assert len(cl.a) > 3
    small = B.blanket_classes(channel("krr", "d=4", "epsilon=log(3)"), 0, 1)  # three classes
    for red in B.reductions(small, 2):
        for eps in (0.0, 0.2, 0.5):
            assert B.BlanketDivergence(red, 40, 1e-14)(eps) >= B.BlanketDivergence(small, 40, 1e-14)(eps) * (1 - 1e-12)
    reds = B.reductions(cl, 3)
    assert reds and all(len(r.a) <= 3 and r.merged for r in reds)


# --- ε at δ against the exact value and the generic bound -----------------------------------------


def exact_epsilon(rows, n, delta):
    """The true worst-case ε at δ: the largest over datasets of the exact threshold."""
    k = len(rows)
    worst = 0.0
    for others in itertools.combinations_with_replacement(range(k), n - 1):
        laws = [histogram_law(rows, others + (x,)) for x in range(k)]
        for i, j in itertools.permutations(range(k), 2):
            keys = set(laws[i]) | set(laws[j])
            items = sorted(((laws[i].get(h, 0) / laws[j][h], laws[i].get(h, 0), laws[j][h]) for h in keys),
                           reverse=True)
            sp = sq = Fraction(0)
            for idx, (r, p, q) in enumerate(items):
                sp, sq = sp + p, sq + q
                nxt = items[idx + 1][0] if idx + 1 < len(items) else 0
                if sp - nxt * sq > delta:
                    worst = max(worst, math.log((sp - delta) / sq))
                    break
    return worst


@pytest.mark.parametrize("rows,n", [(KRR3, 3), (KRR3, 5), (SKEW, 3), (SKEW, 4)])
def test_blanket_epsilon_is_at_least_the_exact_small_n_value(rows, n):
    delta = Fraction(1, 100)
    truth = exact_epsilon(rows, n, delta)
    bound = B.blanket_epsilon(as_channel(rows), n, float(delta))
    assert bound.epsilon >= truth
    assert bound.delta_at <= float(delta)
    if rows is KRR3:   # tight for k-RR (the decomposition is optimal)
        assert bound.epsilon <= truth + 1e-5


def test_blanket_is_never_looser_than_the_generic_clone_bound_for_krr():
    from ldpaudit.account.shuffle import generic_epsilon

    for d, n, delta in [(2, 10, 1e-3), (2, 1000, 1e-8), (3, 100, 1e-6), (3, 1000, 1e-8), (8, 1000, 1e-8),
                        (8, 10_000, 1e-6), (16, 10_000, 1e-8), (2, 10**6, 1e-8)]:
        ch = channel("krr", f"d={d}", "epsilon=1")
        bound = B.blanket_epsilon(ch, n, delta)
        generic = generic_epsilon(B.local_epsilon(ch), n, delta)
        assert bound.epsilon <= generic, (d, n, delta, bound.epsilon, generic)


def test_bad_input_is_one_line():
    ch = channel("krr", "d=3", "epsilon=1")
    with pytest.raises(ValueError, match=r"--n 1 is below 2"):
        B.blanket_epsilon(ch, 1, 1e-6)
    with pytest.raises(ValueError, match=r"--delta 1.5 is outside \(0, 1\)"):
        B.blanket_epsilon(ch, 10, 1.5)
    with pytest.raises(ValueError, match=r"free; bind them with -p"):
        B.channel_numbers(load_bound("krr", []))


def test_not_pure_ldp_is_refused_with_the_output_named():
    ch = matrix_channel([[1, 1, 0], [1, 1, 2]])
    with pytest.raises(ValueError, match=r"output 2 has probability 0 under some inputs but not all"):
        B.blanket_epsilon(ch, 10, 1e-6)


# --- the numbers underneath ---------------------------------------------------------------------


def test_binomials_against_exact_rationals():
    for n, p in [(7, Fraction(1, 3)), (30, Fraction(2, 7)), (200, Fraction(1, 10))]:
        ks = np.arange(-1, n + 2)
        exact = [Fraction(math.comb(n, k)) * p ** k * (1 - p) ** (n - k) if 0 <= k <= n else Fraction(0)
                 for k in range(-1, n + 2)]
        pmf = bn.pmf(ks, np.full(len(ks), n), float(p))
        cdf = bn.cdf(ks, np.full(len(ks), n), float(p))
        sf = bn.sf(ks, np.full(len(ks), n), float(p))
        run = Fraction(0)
        for k, e, a, c, s in zip(ks, exact, pmf, cdf, sf):
            run += e
            assert abs(a - float(e)) <= 1e-13 * float(e) + 1e-300
            assert abs(c - float(run)) <= 1e-12 * float(run) + 1e-300
            assert abs(s - float(1 - run)) <= 1e-12 * float(1 - run) + 1e-300


def test_chernoff_window_leaves_out_at_most_the_tail():
    for n, p, tail in [(50, 0.3, 1e-3), (10_000, 0.1, 1e-9), (10**6, 0.37, 1e-15)]:
        lo, hi = bn.chernoff_window(n, p, tail)
        outside = float(bn.cdf(lo - 1, n, p)) + float(bn.sf(hi, n, p))
        assert lo <= n * p <= hi
        assert outside <= tail
        assert outside >= tail * 1e-6 or (lo == 0 and hi == n)   # and not absurdly wide


def test_blanket_against_the_channel_clone_bound_for_krr():
    """Two independent computations: for binary RR (d = 2) the blanket and the clone pair with
    the channel's own clone count p* = 1/(e^ε0+1) are the same divergence (equal to 1e-4: the blanket spends 1e-4 δ on its windows); for
    d >= 3 the blanket, the optimal decomposition, is smaller."""
    from ldpaudit.account.shuffle import channel_epsilon, channel_facts

    for d in (2, 3, 8):
        mech = load_bound("krr", [f"d={d}", "epsilon=1"])
        ch, facts = B.channel_numbers(mech), channel_facts(mech)
        for n, delta in [(10, 1e-3), (1000, 1e-6), (10_000, 1e-3)]:
            blanket = B.blanket_epsilon(ch, n, delta).epsilon
            clone = channel_epsilon(facts, n, delta)
            if d == 2:
                assert blanket == pytest.approx(clone, rel=1e-4)
            else:
                assert blanket < clone * 0.99


def test_reductions_of_oue_bound_its_exact_blanket_expectation():
    """OUE (d = 3, ε = ln 3, rational) has four classes for a pair: (1, 1), (1, e), (e, 1),
    (e, e). Every reduction to three classes (drops, hull merges, and merges into the values
    of one class such as (e, e) into (1, 1), valid for ε <= ε0) is >= the exact four-class
    expectation, enumerated over all 8 outputs with rationals, and the best is close to it."""
    from ldpaudit.mechanism.loader import load_bound as bound

    mech = bound("oue", ["d=3", "epsilon=log(3)"])
    rows = [[Fraction(str(e)) for e in row] for row in mech.materialize().matrix]
    ch = B.channel_numbers(mech)
    cl = B.blanket_classes(ch, 0, 1)
    assert len(cl.a) == 4
    reds = B.reductions(cl, 3, 3.0 * (1 + 1e-12))
    assert any(red.a.count(1.0) >= 2 and (1.0, 1.0) in zip(red.a, red.b) for red in reds)
    n = 3
    for e_eps in (Fraction(1), Fraction(3, 2), Fraction(5, 2), Fraction(3)):
        exact = float(blanket_expectation(rows, 0, 1, n, e_eps))
        values = [B.BlanketDivergence(red, n, 1e-14)(math.log(e_eps)) for red in reds]
        assert min(values) >= exact * (1 - 1e-12)
        assert min(values) <= exact * 1.5 + 1e-12


def test_random_rational_channels_blanket_bounds_the_truth():
    """Differential test: 6 random 3-input rational channels (3 or 4 outputs, weights 1..6),
    n = 3: the blanket bound (all pairs, with any merges it needs) is >= the true worst-case
    shuffled divergence at four values of e^ε, and its ε at δ = 1/20 is >= the exact ε."""
    rng = np.random.default_rng(20261125)
    for _ in range(6):
        m = int(rng.integers(3, 5))
        weights = rng.integers(1, 7, size=(3, m))
        rows = [[Fraction(int(w), int(r.sum())) for w in r] for r in weights]
        ch = as_channel(rows)
        classes = [B.blanket_classes(ch, i, j) for i, j in itertools.permutations(range(3), 2)]
        e_max = math.exp(B.local_epsilon(ch)) * (1 + 1e-12)
        for e_eps in (Fraction(1), Fraction(6, 5), Fraction(2), Fraction(3)):
            if math.log(e_eps) > B.local_epsilon(ch):
                continue
            truth = float(true_delta(rows, 3, e_eps))
            bound = max(min(B.BlanketDivergence(red, 3, 1e-14)(math.log(e_eps)) for red in B.reductions(c, 3, e_max))
                        for c in classes)
            assert bound >= truth * (1 - 1e-12)
        assert B.blanket_epsilon(ch, 3, 0.05).epsilon >= exact_epsilon(rows, 3, Fraction(1, 20))
