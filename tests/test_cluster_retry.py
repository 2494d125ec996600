"""The retry of a chunk whose sandbox supervisor was lost (issue 35.4), without a cluster: a fake
client whose futures fail as a Dask worker's task does. The LocalCluster test, with a supervisor
killed by pid mid-audit, is tests/test_cluster.py::test_lost_sandbox_supervisor_is_retried_and_the_result_identical."""
from __future__ import annotations

import pickle

import pytest

from ldpaudit.audit.cluster_retry import SupervisorLost, retry_lost, supervisor_lost
from ldpaudit.errors import RandomizerError

GROUP = [(0, ("x", 100, None, (2, 0, 5)), "key")]      # (input index, task, journal key)


class Future:
    def __init__(self, key, outcome):
        self.key, self.outcome, self.released = key, outcome, False

    def result(self):
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome

    def release(self):
        self.released = True


class Client:
    def __init__(self, outcome):
        self.outcome, self.submitted = outcome, []

    def submit(self, function, *args, pure, key, workers, allow_other_workers):
        self.submitted.append(dict(function=function, args=args, key=key, workers=workers,
                                   allow_other_workers=allow_other_workers))
        return Future(key, self.outcome)


def lost(worker):
    return SupervisorLost("the program lost its sandbox supervisor (did the randomizer kill its parent?)", worker)


def test_a_lost_supervisor_runs_the_chunk_again_on_another_worker():
    client, stats = Client(outcome=42), {}
    value = retry_lost(client, Future("chunk-7", lost("tcp://a")), GROUP, (max, (1, 2)), stats,
                       lambda: ["tcp://a", "tcp://b"])
    assert value == 42 and stats == {"supervisors_lost": 1, "chunks_retried": 1}
    (sent,) = client.submitted
    assert sent == dict(function=max, args=(1, 2), key="chunk-7-retry", workers=["tcp://b"], allow_other_workers=True)


def test_a_second_loss_of_the_same_chunk_blames_the_randomizer_in_one_line():
    client, stats = Client(outcome=lost("tcp://b")), {}
    with pytest.raises(RandomizerError) as caught:
        retry_lost(client, Future("chunk-7", lost("tcp://a")), GROUP, (max, (1, 2)), stats, lambda: ["tcp://a", "tcp://b"])
    text = str(caught.value)
    assert not isinstance(caught.value, SupervisorLost) and "\n" not in text
    assert "lost twice on chunk (2, 0, 5) of input 'x' (on tcp://a, then on tcp://b)" in text
    assert stats == {"supervisors_lost": 2}


def test_other_failures_and_successes_pass_through():
    client = Client(outcome=0)
    assert retry_lost(client, Future("k", 5), GROUP, (max, ()), {}, lambda: []) == 5
    with pytest.raises(RandomizerError, match="exited with code 3"):
        retry_lost(client, Future("k", RandomizerError("the program exited with code 3")), GROUP, (max, ()), {},
                   lambda: [])
    assert client.submitted == []
    # a one-worker cluster: the retry may run anywhere
    one = Client(outcome=1)
    retry_lost(one, Future("k", lost("tcp://a")), GROUP, (max, ()), {}, lambda: ["tcp://a"])
    assert one.submitted[0]["workers"] is None


def test_supervisor_lost_reads_the_status_and_travels_between_processes():
    class Program:
        sandbox = True
        status: dict = {}

    program = Program()
    assert supervisor_lost(program)
    for seen in ({"exit": 0}, {"signal": 9}, {"error": "the randomizer exceeded 64 processes"}):
        program.status = {"pid": 5, **seen}
        assert not supervisor_lost(program)
    program.sandbox, program.status = False, {}
    assert not supervisor_lost(program) and not supervisor_lost(object())
    back = pickle.loads(pickle.dumps(lost("tcp://a")))
    assert isinstance(back, SupervisorLost) and back.worker == "tcp://a" and "lost its sandbox" in str(back)
