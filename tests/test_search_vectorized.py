"""The per-pair search and the rare-event screening run on blocks of pairs at once
(events.Search.histograms, rare.rare_candidates; issue 31, item 7). They must find exactly
what the per-pair code found: the same candidates in the same order, the same events, the
same predicted bounds and exploration frequencies to the last bit. Checked here against
the per-pair code kept below as it was, on random count tables (many ties, zero counts,
inputs with different draws, δ > 0, the predicted bound tabulated per count or not) and on
the featurized draws of real randomizers (discrete, real and vector outputs)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from ldpaudit.audit import bounds
from ldpaudit.audit.adapters import Sampler
from ldpaudit.audit.events import Candidate, CodeSetEvent, Search, _best_prefix, _ratio_order, search
from ldpaudit.audit.features import Featurizer, View, concat_views
from ldpaudit.audit.pool import PooledCandidate
from ldpaudit.audit.rare import MAX_RARE_CODES, could_certify, rare_candidates
from ldpaudit.mechanism import randomizers

from faulty_randomizers import krr_rare_leak


# -- the per-pair code, as it was before the search was vectorized -------------------------

def per_pair_histogram(s: Search, x, y) -> list:
    k = s.feat.n_codes
    if k <= 1:
        return []
    ca_x, ca_y = s.codes_a[x], s.codes_a[y]
    cb_x, cb_y = s.codes_b[x], s.codes_b[y]
    na_x, na_y, nb_x, nb_y = s.a[x].n, s.a[y].n, s.b[x].n, s.b[y].n
    if s.vector and ca_x[:-1].sum() + ca_y[:-1].sum() == 0:
        return []
    orders = [("histogram", _ratio_order(ca_x, ca_y, na_x, na_y))]
    if s.feat.shape == "real":
        orders.append(("threshold", np.arange(k)[::-1]))
        orders.append(("threshold", np.arange(k)))
    out = []
    for family, order in orders:
        pred, length, p, q = _best_prefix(order, cb_x, cb_y, nb_x, nb_y, s.n_confirm, s.z, s.delta)
        if not math.isfinite(pred):
            continue
        in_set = np.zeros(k, dtype=bool)
        in_set[order[:length]] = True
        out.append(Candidate((x, y), CodeSetEvent(in_set), family, pred, p, q))
    return out


def per_pair_rare(s: Search, pairs: list, *, n_confirm: int, alpha_each: float) -> list:
    k = s.feat.n_codes
    if k <= 1 or n_confirm <= 1:
        return []
    counts = {x: s.codes_a[x] + s.codes_b[x] for x in s.codes_a}
    n_e = {x: s.a[x].n + s.b[x].n for x in s.a}
    inputs = list(counts)
    out = []
    sides = [((x,), (y,)) for x, y in pairs]
    if len(inputs) > 2:
        sides += [((x,), tuple(u for u in inputs if u != x)) for x in dict.fromkeys(p[0] for p in pairs)]
    total = sum(counts.values())
    n_total = sum(n_e.values())
    for xs, ys in sides:
        x = xs[0]
        cx = counts[x]
        if len(ys) == 1:
            cy, m_e = counts[ys[0]], n_e[ys[0]]
        else:
            cy, m_e = total - cx, n_total - n_e[x]
        px = cx / n_e[x]
        rare = np.flatnonzero((cx > 0) & (px * n_confirm < 1000))
        if len(rare) == 0:
            continue
        llr = np.log((cx[rare] + 0.5) / n_e[x]) - np.log((cy[rare] + 0.5) / m_e)
        order = rare[np.argsort(-llr, kind="stable")][:MAX_RARE_CODES]
        a = np.cumsum(cx[order])
        b = np.cumsum(cy[order])
        score = could_certify(a, n_e[x], b, m_e, n_confirm, alpha_each, n_confirm * len(ys), s.delta)
        i = int(np.argmax(score))
        if not math.isfinite(score[i]):
            continue
        in_set = np.zeros(k, dtype=bool)
        in_set[order[:i + 1]] = True
        args = ((x, ys[0]), CodeSetEvent(in_set), "rare", float(score[i]), a[i] / n_e[x], b[i] / m_e)
        c = Candidate(*args) if len(ys) == 1 else PooledCandidate(*args, x_side=xs, y_side=ys)
        c.sd = math.sqrt(1.0 / a[i] + 1.0 / max(b[i], 1))
        out.append(c)
    out.sort(key=lambda c: -(c.predicted - c.sd))
    return out


def per_pair_search(s: Search, pairs: list) -> list:
    """events.search's candidates with the per-pair histogram, each candidate's standard
    deviation and complexity penalty computed on its own."""
    found = []
    for x, y in pairs:
        found += per_pair_histogram(s, x, y)
        found += s.projection(x, y)
    found += s.linear(pairs)
    n_rank = min(v.n for v in s.b.values())
    for c in found:
        if not c.sd:
            c.sd = float(bounds.bound_sd(c.p_explore, c.q_explore, s.n_confirm, s.delta))
    found.sort(key=lambda c: -(c.predicted - complexity_penalty(c, s.feat, n_rank, s.delta)))
    return found


def complexity_penalty(c: Candidate, feat, n_rank: int, delta: float = 0.0) -> float:
    if c.family == "histogram" and feat.shape != "discrete" and np.count_nonzero(c.event.in_set) > 2:
        return float(bounds.bound_sd(c.p_explore, c.q_explore, n_rank, delta))
    return 0.0


def bits(c: Candidate) -> tuple:
    """Everything a candidate carries, floats as their exact bits."""
    def exact(v):
        return float(v).hex()

    event = c.event
    mask = getattr(event, "in_set", None)
    return (type(c).__name__, c.pair, c.family, exact(c.predicted), exact(c.p_explore), exact(c.q_explore),
            exact(c.sd), None if mask is None else np.flatnonzero(mask).tolist(),
            getattr(c, "x_side", None), getattr(c, "y_side", None), type(event).__name__,
            None if getattr(event, "columns", None) is None else event.columns.tolist())


# -- random count tables -------------------------------------------------------------------

@dataclass
class TableFeaturizer:
    """The little of a featurizer the search reads: the number of codes and the output shape."""

    n_codes: int
    shape: str


def table_views(rng, inputs, k: int, n_range, spread: int) -> dict:
    """Per input, a view of k codes whose counts come from a random table: few distinct counts
    (ties everywhere), some codes never seen, inputs with different numbers of draws (spread >
    0) or all with n_range[0] draws (spread 0)."""
    views = {}
    for u in inputs:
        if spread:
            counts = rng.integers(0, spread, size=k) * rng.integers(1, 4)
            counts[rng.random(k) < 0.3] = 0
            counts[rng.integers(0, k)] += int(rng.integers(*n_range))
        else:
            weights = rng.integers(0, 3, size=k).astype(float)
            weights[0] += 1
            counts = rng.multinomial(n_range[0], weights / weights.sum())
        views[u] = View(np.arange(k), None, counts.astype(np.int64), None, int(counts.sum()))
    return views


TABLES = [  # (seed, inputs, codes, draws added to one code (or of each input), distinct counts, shape, δ,
           #  confirmation draws)
    (1, 4, 7, (0, 5), 3, "discrete", 0.0, 200),
    (2, 6, 40, (50, 400), 4, "discrete", 0.0, 5_000),
    (3, 5, 262, (100, 2_000), 3, "real", 0.0, 750),
    (4, 3, 30, (10, 100), 2, "real", 0.05, 1_000),
    (5, 8, 129, (0, 50), 6, "discrete", 0.01, 100_000),
    (6, 2, 5, (0, 3), 2, "discrete", 0.0, 50),
    (7, 3, 4, (5_000, 20_000), 3, "real", 0.0, 1_000),      # more counts than prefixes: no table
    (8, 6, 50, (60,), 0, "discrete", 0.0, 500),                # the same draws per input: ranked ratios
    (9, 5, 262, (125,), 0, "real", 0.0, 750),
    (10, 4, 20, (30,), 0, "real", 0.02, 200),
]


@pytest.mark.parametrize("table", TABLES, ids=[f"seed{t[0]}-{t[5]}-k{t[2]}" for t in TABLES])
def test_vectorized_search_equals_the_per_pair_search_on_count_tables(table):
    seed, m, k, n_range, spread, shape, delta, n_confirm = table
    rng = np.random.default_rng(seed)
    inputs = [f"x{i}" for i in range(m)]
    half_a = table_views(rng, inputs, k, n_range, spread)
    half_b = table_views(rng, inputs, k, n_range, spread)
    feat = TableFeaturizer(k, shape)
    z = bounds.z_value(0.01 / 6)
    s = Search(feat, half_a, half_b, n_confirm, z, delta)
    pairs = [(x, y) for x in inputs for y in inputs if x != y]
    rng.shuffle(pairs)
    got = s.histograms(pairs)
    want = [per_pair_histogram(s, x, y) for x, y in pairs]
    assert [[bits(c) for c in g] for g in got] == [[bits(c) for c in w] for w in want]
    assert sum(len(w) for w in want) > 0, "the tables give candidates to compare"
    if shape == "real":
        assert {c.family for w in want for c in w} == {"histogram", "threshold"}
    assert [bits(c) for c in search(feat, half_a, half_b, pairs, n_confirm=n_confirm, z=z, searcher=s)] == \
        [bits(c) for c in per_pair_search(s, pairs)]
    for alpha_each in (0.01 / 6, 1e-6):
        got = rare_candidates(s, pairs, n_confirm=n_confirm, alpha_each=alpha_each)
        want = per_pair_rare(s, pairs, n_confirm=n_confirm, alpha_each=alpha_each)
        assert [bits(c) for c in got] == [bits(c) for c in want]
    assert want, "the tables give rare candidates to compare"
    assert any(isinstance(c, PooledCandidate) for c in want) == (m > 2)


def test_ties_keep_the_per_pair_order():
    """All codes equally frequent under both inputs: every ratio ties, and the event is the
    prefix in code order, as the stable per-pair sort gives it."""
    k = 12
    half = {u: View(np.arange(k), None, np.full(k, 5, dtype=np.int64), None, 5 * k) for u in "ab"}
    s = Search(TableFeaturizer(k, "discrete"), half, half, 1_000, bounds.z_value(0.001))
    got, want = s.histograms([("a", "b")])[0], per_pair_histogram(s, "a", "b")
    assert [bits(c) for c in got] == [bits(c) for c in want]
    rare_got = rare_candidates(s, [("a", "b"), ("b", "a")], n_confirm=1_000, alpha_each=0.001)
    rare_want = per_pair_rare(s, [("a", "b"), ("b", "a")], n_confirm=1_000, alpha_each=0.001)
    assert [bits(c) for c in rare_got] == [bits(c) for c in rare_want]


# -- featurized draws of real randomizers --------------------------------------------------

RANDOMIZERS = {
    "k-RR, d = 6 (discrete)": (randomizers.krr(d=6, epsilon=1), list(range(6)), 0.0),
    "k-RR with a rare leak": (krr_rare_leak(d=4, epsilon=1), list(range(4)), 0.0),
    "Laplace (real)": (randomizers.laplace_mean(M=1, epsilon=1), [-1.0, 0.0, 0.5, 1.0], 0.0),
    "Laplace (real), δ = 0.02": (randomizers.laplace_mean(M=1, epsilon=1), [-1.0, 1.0], 0.02),
    "OUE, d = 5 (vector)": (randomizers.oue(d=5, epsilon=1), list(range(5)), 0.0),
}


@pytest.mark.parametrize("name", list(RANDOMIZERS))
def test_vectorized_search_equals_the_per_pair_search_on_draws(name):
    randomizer, inputs, delta = RANDOMIZERS[name]
    sampler = Sampler(randomizer, batch=True)
    draw = {(x, h): sampler.draw(x, 3_000, np.random.SeedSequence(11, spawn_key=(h, i)))
            for i, x in enumerate(inputs) for h in (0, 1)}
    feat = Featurizer().fit([(x, draw[(x, 0)]) for x in inputs])
    half = {h: {x: concat_views([feat.transform(draw[(x, h)], x)]) for x in inputs} for h in (0, 1)}
    feat.freeze(list(half[0].values()))
    z = bounds.z_value(0.01 / 6)
    s = Search(feat, half[0], half[1], 20_000, z, delta)
    pairs = [(x, y) for x in inputs for y in inputs if x != y]
    got = search(feat, half[0], half[1], pairs, n_confirm=20_000, z=z, searcher=s)
    want = per_pair_search(s, pairs)
    assert [bits(c) for c in got] == [bits(c) for c in want]
    assert any(c.family in ("histogram", "threshold") for c in want)
    got = rare_candidates(s, pairs, n_confirm=20_000, alpha_each=0.01 / 6)
    want = per_pair_rare(s, pairs, n_confirm=20_000, alpha_each=0.01 / 6)
    assert [bits(c) for c in got] == [bits(c) for c in want]
