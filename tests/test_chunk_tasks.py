"""A block's tasks held as columns (draws.ChunkTasks, issue 31 item 7): they are the tuples
(x, n, entropy, (phase, index, k)) the auditor made one by one before, and an isolated
randomizer draws from them exactly what it draws from those tuples."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ldpaudit.audit import draws, seeds
from ldpaudit.audit.adapters import Sampler
from ldpaudit.audit.draws import ChunkTasks, Draws, Progress
from ldpaudit.audit.external import isolated
from ldpaudit.audit.wire import first_seeds, request_seeds


def _draws(seed: int = 5) -> Draws:
    return Draws(Sampler(lambda x, n, rng: rng.integers(0, 3, size=n), batch=True), seed, 1, Progress(False))


def test_chunk_tasks_are_the_tuples_they_stand_for():
    d = _draws()
    jobs = [(i, f"x{i}", 10 + i, 3) for i in range(20)]
    first = d.tasks(jobs)
    again = d.tasks(jobs[:12])      # the second chunk of the first 12 inputs
    assert isinstance(first, ChunkTasks) and len(first) == 20
    assert list(first) == [(f"x{i}", 10 + i, 5, (3, i, 0)) for i in range(20)]
    assert first[7] == ("x7", 17, 5, (3, 7, 0)) and first[-1] == ("x19", 29, 5, (3, 19, 0))
    assert [t[3] for t in again] == [(3, i, 1) for i in range(12)]
    assert first.key_table().tolist() == [[3, i, 0] for i in range(20)]
    # a few jobs, or several phases, stay a list of tuples
    assert isinstance(d.tasks(jobs[:3]), list)
    assert isinstance(d.tasks([(i, i, 5, i % 2) for i in range(10)]), list)


def test_request_seeds_from_columns_equal_those_from_tuples():
    d = _draws(seed=2**70 + 11)
    tasks = d.tasks([(i * 7, i, 100, 4) for i in range(40)])
    assert isinstance(tasks, ChunkTasks)
    for counts in ([1] * 40, [(i % 3) + 1 for i in range(40)]):
        got = request_seeds(tasks, counts)
        assert got == request_seeds(list(tasks), counts)
        assert got == seeds._spawned_integers_slowly(tasks.entropy, tasks.key_table(), counts)


def test_an_isolated_audit_draws_the_same_from_columns_and_from_tuples(monkeypatch):
    columns = draws.Draws.tasks

    def as_tuples(self, jobs):
        return list(columns(self, jobs))

    target = f"{Path(__file__).parent / 'wide_randomizers.py'}:krr"
    with isolated(target, {"d": "300", "eps": "1"}, batch=True) as randomizer:
        sampler = Sampler(randomizer, batch=True)
        jobs = [(i, i, 50, 6) for i in range(300)]
        got = Draws(sampler, 9, 1, Progress(False))._draw_block(jobs)
        monkeypatch.setattr(draws.Draws, "tasks", as_tuples)
        want = Draws(sampler, 9, 1, Progress(False))._draw_block(jobs)
    assert [out.values.tolist() for out in got] == [out.values.tolist() for out in want]
    assert len(np.unique(np.concatenate([out.values for out in got]))) == 300


def test_first_seeds_of_columns_are_the_first_request_seeds(monkeypatch):
    """wire.first_seeds (one request a task, a uint64 array from the key table) gives what
    request_seeds gives the tuples, and numpy's own objects, also through Lemire's rejection."""
    for entropy in (5, 2**70 + 11, 2**127 + 2**64 + 3):
        d = _draws(seed=entropy)
        tasks = d.tasks([(i * 7, i, 100, 4) for i in range(40)])
        got = first_seeds(tasks)
        assert isinstance(got, np.ndarray) and got.dtype == np.uint64
        want = [s for s, in request_seeds(list(tasks), [1] * 40)]
        assert got.tolist() == want == [s for s, in seeds._spawned_integers_slowly(entropy, list(tasks.key_table()),
                                                                                   [1] * 40)]
    monkeypatch.setattr(seeds, "_THRESHOLD", 2**64 - 1)     # every value "rejected": numpy's objects decide
    assert seeds.spawned_first(d.entropy, tasks.key_table()).tolist() == want


def test_first_seeds_fall_back_to_numpy_where_the_arithmetic_differs(monkeypatch):
    """spawned_first checks the first table of each shape against numpy's objects: seeds computed
    wrong (as another numpy's would differ) are replaced by numpy's own, for every key."""
    tasks = _draws(seed=77).tasks([(i, i, 100, 4) for i in range(30)])
    want = [s for s, in request_seeds(list(tasks), [1] * 30)]
    monkeypatch.setattr(seeds, "_FIRST_AGREES", {})
    monkeypatch.setattr(seeds, "_xsl_rr", lambda high, low: high ^ low)     # not PCG64's output
    assert first_seeds(tasks).tolist() == want
    assert seeds._FIRST_AGREES == {(1, 3): False}
