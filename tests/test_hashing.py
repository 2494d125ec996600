"""Hash families as part of a mechanism (issue 14): spec validation, privacy for every hash
table (symbolic in C, k, h, ε), refuted mutants with exactly re-checked witnesses, and the
closed-alphabet reductions O-RR -> k-RR and O-RAPPOR -> k-RAPPOR."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism import load_spec, loads_spec
from ldpaudit.mechanism.hashing import MERSENNE_31, HashFamily, carter_wegman_key
from ldpaudit.verify import PROVED, REFUTED, verify

SPECS = Path(__file__).resolve().parents[1] / "specs"
ORR = (SPECS / "orr.toml").read_text()
ORR_OPEN = (SPECS / "orr_open.toml").read_text()
ORAPPOR = (SPECS / "orappor.toml").read_text()

PERM_ORR = """
[mechanism]
name = "closed O-RR"
claimed_epsilon = "epsilon"
[parameters.epsilon]
type = "real"
min = 0
strict_min = true
[example]
epsilon = 1
[inputs]
size = 4
[channel]
form = "structured"
outputs = "cohort"
k = 4
hash = [[2, 0, 3, 1]]
permutation = true
[[channel.classes]]
name = "hit"
when = "v == hash(c, x)"
count = 1
weight = "exp(epsilon)/(exp(epsilon) + 3)"
[[channel.classes]]
name = "miss"
when = "v != hash(c, x)"
count = 3
weight = "1/(exp(epsilon) + 3)"
"""

PERM_ORAPPOR = """
[mechanism]
name = "closed O-RAPPOR"
claimed_epsilon = "epsilon"
[parameters.epsilon]
type = "real"
min = 0
strict_min = true
[example]
epsilon = 1
[inputs]
size = 4
[channel]
form = "bloom"
k = 4
hashes = 1
hash = [[[1, 3, 0, 2]]]
permutation = true
[channel.on]
values = { "0" = "1/(1 + exp(epsilon/2))", "1" = "exp(epsilon/2)/(1 + exp(epsilon/2))" }
[channel.off]
values = { "0" = "exp(epsilon/2)/(1 + exp(epsilon/2))", "1" = "1/(1 + exp(epsilon/2))" }
"""


# --- spec side ----------------------------------------------------------------------------------

BAD = [
    ("hash value outside [0, k)", ORR.replace("[0, 1, 2, 0, 1, 2]", "[0, 1, 2, 0, 1, 5]"),
     r"channel.hash\[0\]\[5\] = 5 of 'O-RR' is outside \[0, k\) = 0..2"),
    ("C = 0 (numeric)", ORR_OPEN.replace('cohorts = "C"', "cohorts = 0"),
     r"channel.cohorts = 0 of 'O-RR \(hash family\)': a hashed mechanism needs at least 1 cohort"),
    ("C = 0 (parameter)", ORR_OPEN.replace("d = 8\nC = 2", "d = 8\nC = 0"), r"parameter C = 0 .* need C >= 1"),
    ("h > k", ORAPPOR.replace('hashes = "h"', "hashes = 5").replace('k = "k"', "k = 4"),
     r"channel.hashes = 5 exceeds channel.k = 4 of 'O-RAPPOR'"),
    ("not a permutation", PERM_ORR.replace("[[2, 0, 3, 1]]", "[[2, 0, 2, 1]]"),
     r"channel.hash\[0\] = \[2, 0, 2, 1\] of 'closed O-RR' is not a permutation of 0..3"),
    ("bloom not a permutation", PERM_ORAPPOR.replace("[[[1, 3, 0, 2]]]", "[[[1, 3, 3, 2]]]"),
     r"channel.hash\[0\] = \[1, 3, 3, 2\] of 'closed O-RAPPOR' is not a permutation"),
    ("rows vs cohorts", ORR.replace("k = 3\n", "k = 3\ncohorts = 2\n"), r"channel.cohorts = 2 .* but channel.hash has 3 rows"),
    ("row length", ORR.replace("[0, 1, 2, 0, 1, 2]", "[0, 1, 2, 0, 1]"), r"channel.hash\[0\] of 'O-RR' has 5 values but there are 6 inputs"),
    ("unknown family", ORR_OPEN.replace('"carter-wegman"', '"xxhash"'), r"channel.family = 'xxhash' is not a known hash family"),
    ("table and family", ORR_OPEN.replace("seed = 0", "seed = 0\nhash = [[0]]"), r"exactly one of channel.hash"),
    ("permutation with a family", ORR_OPEN.replace("seed = 0", "seed = 0\npermutation = true"), r"needs an explicit table"),
    ("all-functions cohorts", ORR_OPEN.replace('"carter-wegman"', '"all-functions"'), r"all-functions family has C = k\*\*d"),
]


@pytest.mark.parametrize("name, text, message", BAD, ids=[b[0] for b in BAD])
def test_bad_hash_declarations_are_one_line_errors(name, text, message):
    with pytest.raises(InvalidSpec, match=message) as info:
        loads_spec(text)
    assert "\n" not in str(info.value)


def test_carter_wegman_reference_implementation():
    """((a x + b) mod p) mod k with keys from splitmix64: the numpy table equals the scalar
    definition, and pairs collide in about 1/k of the cohorts."""
    fam = HashFamily("carter-wegman", seed=7)
    table = fam.table(64, 2, 50, 8)
    for c, i, x in [(0, 0, 0), (3, 1, 17), (63, 1, 49)]:
        a, b = carter_wegman_key(7, c, i)
        assert 1 <= a < MERSENNE_31 and 0 <= b < MERSENNE_31
        assert table[c, i, x] == ((a * x + b) % MERSENNE_31) % 8 == fam.value(c, i, x, 8)
    big = fam.table(2000, 1, 20, 8)[:, 0, :]
    rates = [(big[:, x] == big[:, y]).mean() for x, y in itertools.combinations(range(20), 2)]
    assert abs(np.mean(rates) - 1 / 8) < 0.01
    assert not np.array_equal(table, HashFamily("carter-wegman", seed=8).table(64, 2, 50, 8))


def test_all_functions_family_is_exactly_universal():
    fam = HashFamily("all-functions")
    k, d = 3, 3
    table = fam.table(k**d, 1, d, k)[:, 0, :]
    assert len({tuple(r) for r in table}) == k**d  # every function once
    for x, y in itertools.combinations(range(d), 2):
        assert (table[:, x] == table[:, y]).sum() * k == k**d


# --- verify: every hash table --------------------------------------------------------------------


@pytest.mark.parametrize("stem", ["orr", "orr_open", "orappor"])
def test_hashed_specs_proved_for_all_tables_and_tight(stem):
    mech = load_spec(SPECS / f"{stem}.toml")
    v = verify(mech)
    assert v.status is PROVED and sp.simplify(v.tight_epsilon - mech.symbols["epsilon"]) == 0
    assert "every hash" in v.method
    worse = verify(mech, epsilon="epsilon - 1/1000")
    assert worse.status is REFUTED


def test_orappor_proof_is_symbolic_in_h():
    v = verify(load_spec(SPECS / "orappor.toml"))
    assert "h" in v.scope and "C" in v.scope and "k" in v.scope
    assert any("L_on(1) = epsilon/(2*h)" in n for n in v.notes)


def _brute_bloom(mech, x, y):
    """Q((c, y)|x) recomputed from scratch: cohort 1/C, Bloom bits from the family, flips."""
    ch = mech.channel
    d, C, k, h = int(mech.inputs.size), int(ch.cohorts), int(ch.k), int(ch.hashes)
    table = ch.family.table(C, h, d, k) if ch.family is not None else np.array(ch.table)
    hot = {int(table[y[0], i, x]) for i in range(h)}
    prob = sp.Rational(1, C)
    for b, bit in enumerate(y[1:]):
        law = ch.on if b in hot else ch.off
        prob *= dict(law.probabilities)[bit]
    return prob


def test_mutant_flips_calibrated_for_one_hash_is_refuted_with_a_checked_witness():
    """Bit flips at ε/2 per bit (k-RAPPOR's) with h = 2 hashes: 2h bits differ, true ε is hε."""
    mech = loads_spec(ORAPPOR.replace("epsilon/(2*h)", "epsilon/2"))
    v = verify(mech)
    assert v.status is REFUTED
    w = v.witness
    inst = mech.bind(dict(w.params))
    num, den = _brute_bloom(inst, w.x, w.y), _brute_bloom(inst, w.x_prime, w.y)
    assert num == w.numerator and den == w.denominator
    claim = dict(w.params)["epsilon"]
    assert sp.simplify(num / den - sp.exp(2 * claim)) == 0  # 2h bits at ε/2 each: e^(hε) with h = 2
    assert sp.N(num / den) > sp.N(sp.exp(claim))
    assert verify(mech, epsilon="h*epsilon").status is PROVED  # and exactly hε is the true budget


LEAK = ORR_OPEN[:ORR_OPEN.index("[[channel.classes]]")] + """
[[channel.classes]]
name = "leaky cohort hit"
when = "c == 0 and v == hash(c, x)"
count = 1
weight = "exp(2*epsilon)/(C*(exp(2*epsilon) + k - 1))"

[[channel.classes]]
name = "leaky cohort miss"
when = "c == 0 and v != hash(c, x)"
count = "k - 1"
weight = "1/(C*(exp(2*epsilon) + k - 1))"

[[channel.classes]]
name = "hit"
when = "c != 0 and v == hash(c, x)"
count = "C - 1"
weight = "exp(epsilon)/(C*(exp(epsilon) + k - 1))"

[[channel.classes]]
name = "miss"
when = "c != 0 and v != hash(c, x)"
count = "(C - 1)*(k - 1)"
weight = "1/(C*(exp(epsilon) + k - 1))"
"""


def test_mutant_cohort_that_leaks_more_is_refuted_with_a_checked_witness():
    mech = loads_spec(LEAK)
    v = verify(mech)
    assert v.status is REFUTED
    w = v.witness
    inst = mech.bind(dict(w.params))
    Q = inst.materialize()
    i, ip, j = Q.inputs.index(w.x), Q.inputs.index(w.x_prime), Q.outputs.index(w.y)
    assert Q.matrix[i][j] == w.numerator and Q.matrix[ip][j] == w.denominator
    assert w.y[0] == 0  # the leaky cohort
    assert sp.N(w.numerator / w.denominator) > sp.N(sp.exp(dict(w.params)["epsilon"]))
    assert verify(mech, epsilon="2*epsilon").status is PROVED


def test_hash_values_do_not_matter_only_collisions():
    """Same verdict and ε* for tables with the same collision pattern; a table whose cohorts
    never separate two inputs has ε* = 0 (every output is equally likely under every input)."""
    base = load_spec(SPECS / "orr.toml").bind(epsilon=1)
    relabelled = loads_spec(ORR.replace("[[0, 1, 2, 0, 1, 2], [1, 2, 0, 2, 0, 1], [2, 2, 1, 0, 0, 1]]",
                                        "[[2, 0, 1, 2, 0, 1], [0, 1, 2, 1, 2, 0], [1, 1, 0, 2, 2, 0]]")).bind(epsilon=1)
    assert verify(base).tight_epsilon == verify(relabelled).tight_epsilon == 1
    constant = loads_spec(ORR.replace("[[0, 1, 2, 0, 1, 2], [1, 2, 0, 2, 0, 1], [2, 2, 1, 0, 0, 1]]",
                                      "[[1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0], [2, 2, 2, 2, 2, 2]]")).bind(epsilon=1)
    v = verify(constant)
    assert v.status is PROVED and v.tight_epsilon == 0
    Q = np.array(constant.materialize(), dtype=float)
    assert np.allclose(Q, Q[0])


def test_orappor_tight_epsilon_counts_differing_bits_of_the_table():
    """A table where inputs overlap in one of h = 2 bits: ε* = (a + b)·ε/(2h) with a = b = 1."""
    text = PERM_ORAPPOR.replace("size = 4", "size = 3").replace("hashes = 1", "hashes = 2") \
        .replace("hash = [[[1, 3, 0, 2]]]\npermutation = true", "hash = [[[0, 1, 2], [1, 2, 3]]]") \
        .replace("epsilon/2", "epsilon/4")
    mech = loads_spec(text).bind(epsilon=1)
    # inputs 0 and 2 have bit sets {0, 1} and {2, 3}: disjoint, so a = b = 2 and ε* = 1
    v = verify(mech)
    assert v.status is PROVED and v.tight_epsilon == 1
    overlap = loads_spec(text.replace("[[[0, 1, 2], [1, 2, 3]]]", "[[[0, 1, 2], [1, 2, 0]]]")).bind(epsilon=1)
    # sets {0,1}, {1,2}, {2,0}: every pair overlaps in one bit, a = b = 1, ε* = 1/2
    assert verify(overlap).tight_epsilon == sp.Rational(1, 2)


# --- closed alphabets: C = 1, h = 1, permutation --------------------------------------------------


def test_closed_orr_is_krr_up_to_relabelling():
    from ldpaudit.derive import hit_risk, unbiased_estimator
    from ldpaudit.mechanism.catalog import k_rr

    orr = loads_spec(PERM_ORR)
    krr = k_rr(d=4)
    Qo = orr.bind(epsilon=1).materialize()
    Qk = krr.bind(epsilon=1).materialize()
    perm = [2, 0, 3, 1]
    for x in range(4):
        for xp in range(4):
            assert Qo.matrix[x][Qo.outputs.index((0, perm[xp]))] == Qk.matrix[x][xp]
    assert verify(orr).tight_epsilon == verify(krr).tight_epsilon
    for model in ("iid", "fixed"):
        ro = hit_risk(unbiased_estimator(orr), model)
        rk = hit_risk(unbiased_estimator(krr), model)
        assert sp.simplify(ro.l2_worst - rk.l2_worst) == 0
        assert sp.simplify(ro.variance - rk.variance) == 0


def test_closed_orappor_is_krappor_up_to_relabelling():
    from ldpaudit.derive import hit_risk, unbiased_estimator
    from ldpaudit.mechanism.catalog import k_rappor

    orap = loads_spec(PERM_ORAPPOR)
    krap = k_rappor(d=4)
    assert sp.simplify(verify(orap).tight_epsilon - verify(krap).tight_epsilon) == 0
    for model in ("iid", "fixed"):
        ro = hit_risk(unbiased_estimator(orap), model)
        rk = hit_risk(unbiased_estimator(krap), model)
        assert sp.simplify(ro.l2_worst - rk.l2_worst) == 0
    Qo = np.array(orap.bind(epsilon=1).materialize(), dtype=float)
    Qk = np.array(krap.bind(epsilon=1).materialize(), dtype=float)
    # output (0, b_0..b_3) of O-RAPPOR is k-RAPPOR's output with bit hash(x) at position x
    perm = [1, 3, 0, 2]
    kout = list(itertools.product((0, 1), repeat=4))
    for j, y in enumerate(itertools.product((0, 1), repeat=4)):
        mapped = tuple(y[perm[x]] for x in range(4))
        assert np.allclose(Qo[:, j], Qk[:, kout.index(mapped)])


# --- samplers follow the channels ---------------------------------------------------------------------


@pytest.mark.parametrize("stem", ["orr_open", "orappor"])
def test_reference_samplers_match_the_channel(stem):
    """Chi-square of 40,000 draws per input against the exact rows (α = 0.001, fixed seed)."""
    from scipy.stats import chisquare

    from ldpaudit.mechanism.randomizers import reference_for

    mech = load_spec(SPECS / f"{stem}.toml").bind_example()
    Q = mech.materialize()
    sample = reference_for(mech)
    rng = np.random.default_rng(4)
    index = {y: j for j, y in enumerate(Q.outputs)}
    for x in (0, 1):
        draws = sample(x, 40_000, rng)
        counts = np.bincount([index[tuple(int(v) for v in row)] for row in draws], minlength=len(Q.outputs))
        probs = np.array([float(sp.N(e)) for e in Q.matrix[x]])
        assert chisquare(counts, probs * 40_000).pvalue > 0.001


@pytest.mark.parametrize("stem", ["orr", "orr_open", "orappor", "olh", "blh"])
def test_hashed_specs_round_trip_through_the_writer(stem):
    from ldpaudit.mechanism import dumps_spec

    mech = load_spec(SPECS / f"{stem}.toml")
    assert loads_spec(dumps_spec(mech)) == mech
    for text in (PERM_ORR, PERM_ORAPPOR):
        m = loads_spec(text)
        assert loads_spec(dumps_spec(m)) == m


def test_olh_and_blh_hit_rates_come_from_the_family():
    """All-functions family: h = 1/g exactly (collision rate 1/g), for OLH and BLH (g = 2)."""
    from ldpaudit.derive.hits import item_statistic

    olh = item_statistic(load_spec(SPECS / "olh.toml"))
    g = load_spec(SPECS / "olh.toml").symbols["g"]
    eps = load_spec(SPECS / "olh.toml").symbols["epsilon"]
    assert sp.simplify(olh.h - 1 / g) == 0
    assert sp.simplify(olh.g - sp.exp(eps) / (sp.exp(eps) + g - 1)) == 0
    # brute force at d = 3, g = 2, ε = log 3: P(v = hash_c(j) | x) from the materialized channel
    mech = load_spec(SPECS / "olh.toml").bind(d=3, g=2, epsilon="log(3)")
    Q = mech.materialize()
    space = mech.channel.outputs
    for x in range(3):
        for j in range(3):
            hit = sum(q for (c, v), q in zip(Q.outputs, Q.matrix[x]) if v == space.hash(c, j))
            assert hit == (sp.Rational(3, 4) if x == j else sp.Rational(1, 2))
