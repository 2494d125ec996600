"""Isolation and the JSON-lines protocol: untrusted randomizers that hang, crash, exhaust
memory or print end with a clear error in bounded time, and the auditor survives."""

import shutil

import numpy as np
import pytest

from ldpaudit.audit.external import command, isolated
from ldpaudit.errors import RandomizerError

BAD = "tests/programs/bad_randomizers.py"


@pytest.mark.parametrize(
    "name,message",
    [
        ("sleeps_forever", r"on input 0: timed out: the first call took longer than the warm-up allowance "
                           r"of 1 s \(raise it with --warmup\) \(call 1\)"),
        ("exits", r"on input 0: the program exited with code 3 before replying"),
        ("eats_memory", r"on input 0: randomizer ran out of memory .* \(call 1\)"),
        ("prints", r"on input 0: randomizer wrote to stdout: 'debug: x = 0\\n' \(call 1\)"),
    ],
)
def test_misbehaving_randomizers_end_with_a_clear_error(name, message):
    warmup = 1 if name == "sleeps_forever" else 30
    with isolated(f"{BAD}:{name}", timeout=1, warmup=warmup, memory_mb=512) as randomizer:
        with pytest.raises(RandomizerError, match=message):
            randomizer(0, 100, np.random.default_rng(0))
    # the auditor process is alive and a good randomizer still works afterwards
    with isolated(f"{BAD}:fine") as good:
        out = good(1, 2000, np.random.default_rng(0))
    assert len(out) == 2000 and set(out) <= {0, 1}
    assert 0.70 < np.mean(np.array(out) == 1) < 0.80


def test_isolated_runs_are_reproducible_and_batch_targets_return_arrays():
    with isolated(f"{BAD}:fine") as a, isolated(f"{BAD}:fine") as b:
        assert a(0, 500, np.random.default_rng(7)) == b(0, 500, np.random.default_rng(7))
    with isolated(f"{BAD}:fine_batch", batch=True) as r:
        out = r(1, 200_000, np.random.default_rng(1))
    assert isinstance(out, np.ndarray) and out.shape == (200_000,)
    assert abs(out.mean() - 0.75) < 0.01


def _frequencies(randomizer, x, n, d):
    out = np.asarray(randomizer(x, n, np.random.default_rng(3)))
    return np.bincount(out, minlength=d) / n


PROGRAMS = [
    ["python3", "examples/jsonlines/krr.py", "5", "1"],
    pytest.param(["node", "examples/jsonlines/krr.js", "5", "1"],
                 marks=pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")),
]


@pytest.mark.parametrize("argv", PROGRAMS)
def test_json_lines_example_programs_produce_krr(argv):
    keep = np.e / (np.e + 4)
    with command(argv, chunk=30_000) as randomizer:
        freq = _frequencies(randomizer, 2, 120_000, 5)
    # 120,000 draws: standard error of each frequency is below 0.0015
    assert abs(freq[2] - keep) < 0.01
    assert np.all(np.abs(np.delete(freq, 2) - (1 - keep) / 4) < 0.01)


@pytest.mark.parametrize(
    "script,message",
    [
        ("read l; echo garbage", r"replied with something that is not JSON: 'garbage'"),
        ("exit 4", r"the program exited with code 4 before replying|closed its input"),
        ("read l; echo '{\"outputs\": [1, 2]}'", r"returned 2 outputs for a request of 10"),
        ("read l; echo '[1, 2]'", r"expected an object"),
        ("read l; echo '{\"values\": []}'", r"reply has no 'outputs' field"),
        ("read l; echo '{\"error\": \"no entropy\"}'", r"on input 0: no entropy"),
        ("read l; sleep 30", r"no reply within 1 s \(timed out; the program was killed\)"),
    ],
)
def test_a_broken_program_is_reported_clearly(script, message):
    with command(["sh", "-c", script], timeout=1, warmup=1) as randomizer:
        with pytest.raises(RandomizerError, match=message):
            randomizer(0, 10, np.random.default_rng(0))


def test_a_missing_program_is_reported():
    with pytest.raises(RandomizerError, match=r"cannot start 'no-such-program-xyz'"):
        command("no-such-program-xyz")(0, 1, np.random.default_rng(0))
