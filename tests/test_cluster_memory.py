"""The exploration sample the auditor (the client, on a cluster) keeps is compacted
(features.compact): the distinct rows of scalar outputs with their counts, so its size no longer
grows with the draws (issue 13: client memory flat from 10^6 to 10^7 draws, real-valued outputs
included). Compaction must change nothing the event search sees: every candidate (pair, family,
event, predicted bound, exploration frequencies, the example outputs it quotes) is the same as
on the full sample, checked here against the uncompacted views for real, float-leaky, discrete
and rare-output randomizers."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from ldpaudit.audit import bounds
from ldpaudit.audit.adapters import Sampler
from ldpaudit.audit.events import Search, search
from ldpaudit.audit.features import Featurizer, compact, concat_views
from ldpaudit.audit.floats import float_candidates
from ldpaudit.audit.pool import relation_candidates
from ldpaudit.audit.rare import rare_candidates
from ldpaudit.mechanism import randomizers

from blindspot_randomizers import krr_rare_error, naive_float_laplace
from faulty_randomizers import krr_rare_leak

CASES = {
    "laplace (real)": (randomizers.laplace_mean(M=1, epsilon=1), [-1.0, 0.0, 1.0]),
    "naive float Laplace (float features)": (naive_float_laplace(epsilon=1.0), [0.0, 1.0]),
    "k-RR (discrete)": (randomizers.krr(d=5, epsilon=1), list(range(5))),
    "k-RR with a rare leak (rare events)": (krr_rare_leak(d=4, epsilon=1), list(range(4))),
    "k-RR with a rare error value": (krr_rare_error(), list(range(4))),
}


def _halves(randomizer, inputs, n_chunk: int, chunks: int):
    sampler = Sampler(randomizer, batch=True)
    draw = {(x, h, k): sampler.draw(x, n_chunk, np.random.SeedSequence(7, spawn_key=(h, i, k)))
            for i, x in enumerate(inputs) for h in (0, 1) for k in range(chunks)}
    feat = Featurizer().fit([(x, draw[(x, 0, 0)]) for x in inputs])
    raw = {h: {x: concat_views([feat.transform(draw[(x, h, k)], x) for k in range(chunks)]) for x in inputs}
           for h in (0, 1)}
    small = {h: {x: compact(concat_views([compact(feat.transform(draw[(x, h, k)], x)) for k in range(chunks)]))
                 for x in inputs} for h in (0, 1)}
    feat.freeze(list(raw[0].values()))
    return feat, raw, small


def _candidates(feat, half_a, half_b, inputs):
    pairs = [(x, y) for x in inputs for y in inputs if x != y]
    z = bounds.z_value(0.05 / 40)
    s = Search(feat, half_a, half_b, 100_000, z)
    found = relation_candidates(s, n_confirm=100_000, z=z) + float_candidates(s, pairs, n_confirm=100_000, z=z)
    found = search(feat, half_a, half_b, pairs, n_confirm=100_000, z=z, max_pairs=64, searcher=s, extra=found)
    found += rare_candidates(s, pairs, n_confirm=100_000, alpha_each=0.05 / 40)
    return [(c.pair, c.family, c.event.description, getattr(c.event, "example", ""), c.predicted, c.p_explore, c.q_explore, c.sd)
            for c in found]


@pytest.mark.parametrize("name", list(CASES))
def test_compacted_exploration_gives_the_same_candidates(name):
    randomizer, inputs = CASES[name]
    feat, raw, small = _halves(randomizer, inputs, 20_000, 3)
    full = _candidates(feat, raw[0], raw[1], inputs)
    assert full, "the search found candidates to compare"
    assert _candidates(feat, small[0], small[1], inputs) == full
    for h in (0, 1):
        for x in inputs:
            a, b = raw[h][x], small[h][x]
            assert b.n == a.n == 60_000 and int(b.weights.sum()) == a.n
            # bounded by the distinct (code, float features) rows, not by the draws
            width = 0 if a.fbits is None else a.fbits.shape[1]
            assert len(b.codes) <= feat.n_codes * 2 ** width and len(b.codes) < a.n // 10
            assert np.array_equal(b.bincount(b.codes, feat.n_codes), a.bincount(a.codes, feat.n_codes))


def test_compacted_rows_keep_the_first_draw_of_each_row():
    """The example a float event quotes is the first draw in the event: each compacted row is
    the first draw of its (code, features) row, in the order of the draws."""
    randomizer, inputs = CASES["naive float Laplace (float features)"]
    feat, raw, small = _halves(randomizer, inputs, 5_000, 2)
    a, b = raw[0][0.0], small[0][0.0]
    key = lambda v, r: (int(v.codes[r]), tuple(v.fbits[r]))     # noqa: E731
    seen = {}
    for r in range(len(a.codes)):
        seen.setdefault(key(a, r), r)
    firsts = sorted(seen.values())
    assert [key(b, r) for r in range(len(b.codes))] == [key(a, r) for r in firsts]
    assert np.array_equal(b.raw, a.raw[firsts])
    counts = {k: 0 for k in seen}
    for r in range(len(a.codes)):
        counts[key(a, r)] += 1
    assert b.weights.tolist() == [counts[key(a, r)] for r in firsts]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM is Linux's")
def test_own_peak_ignores_the_launching_process():
    """A process started from a large one: Linux carries the launcher's peak into ru_maxrss
    across vfork/exec, so the auditor's own peak is read from VmHWM (its own address space)."""
    import subprocess

    big = np.ones(70_000_000)          # 560 MB resident in this process
    big[::4096] = 2.0
    code = ("import resource; from ldpaudit.budget import own_peak_mb; from ldpaudit.audit.command import memory_report; "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, own_peak_mb(), "
            "memory_report(512)['peak_mb'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    del big
    inherited, own, reported = map(float, out)
    assert inherited > 500             # what ru_maxrss says: the launcher's peak
    assert own < 200 and reported == round(own, 1)
