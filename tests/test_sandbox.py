"""The sandbox: a randomizer that attacks the auditor, the network or the files is stopped or
confined, and its death is reported as its failure (exit 2) with the input and the call;
warm-up and per-call timeouts; unusual outputs through the isolated worker; histograms."""

import collections
import errno
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import cli_inprocess

from ldpaudit.audit import audit, sandbox
from ldpaudit.audit.adapters import Sampler
from ldpaudit.audit.external import command, isolated
from ldpaudit.errors import RandomizerError

H = "tests/programs/hostile_randomizers.py"
PROGRAM = "tests/programs/hostile_program.py"
FOUND = sandbox.probe()


def cli(*args, env=None, timeout=300):
    """The command line: in this process (tests/cli_inprocess.py) unless it needs an environment
    of its own (a fault the worker reads from it)."""
    if env is None:
        return cli_inprocess.run(*args)
    return subprocess.run([sys.executable, "-m", "ldpaudit.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def cli_with_own_pid(*args, env=None):
    """Run the CLI with LDPAUDIT_TEST_AUDITOR_PID set to the CLI's own pid."""
    script = 'LDPAUDIT_TEST_AUDITOR_PID=$$ exec "$0" -m ldpaudit.cli "$@"'
    return subprocess.run(["sh", "-c", script, sys.executable, *args], capture_output=True, text=True,
                          timeout=300, env=env)


def environ(**extra):
    env = dict(os.environ)
    env.update({k: str(v) for k, v in extra.items()})
    return env


SMALL = ["--domain", "0..4", "--epsilon", "1", "--samples", "2000"]
STOPPED = "SIGSYS: the sandbox stopped it" if FOUND["seccomp"] else "lost its sandbox supervisor"


# --- targets that attack the auditor -------------------------------------------------------


@pytest.mark.parametrize("name,death", [
    ("kill_parent", STOPPED),
    ("killpg_own_group", r"was killed by signal 9 \(SIGKILL"),
])
def test_a_python_target_that_kills_its_parent_or_its_group_is_reported(name, death):
    with isolated(f"{H}:{name}") as randomizer:
        with pytest.raises(RandomizerError) as info:
            for _ in range(3):  # without seccomp the death shows at the next request
                randomizer(0, 50, np.random.default_rng(0))
    message = str(info.value)
    assert message.startswith(f"randomizer '{H}:{name}' on input 0: the program "), message
    assert re.search(death, message) and "before replying (" in message and "call 1)" in message, message


@pytest.mark.parametrize("name,how", [("kill_auditor", "env"), ("kill_auditor", "proc"), ("kill_parent", "")])
def test_a_python_target_that_kills_the_auditor_is_reported_and_the_auditor_survives(name, how):
    if not FOUND["seccomp"]:
        pytest.skip("without seccomp a same-user process that finds the auditor's pid can signal it "
                    "(stated in the report's sandbox.signals)")
    if how == "proc":  # the target finds the auditor by walking /proc up to `ldpaudit.cli`
        env = environ()
        env.pop("LDPAUDIT_TEST_AUDITOR_PID", None)
        proc = cli("audit", f"{H}:{name}", *SMALL, env=env)
    else:
        proc = cli_with_own_pid("audit", f"{H}:{name}", *SMALL)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)   # not -9: the auditor survived
    assert proc.stderr == (f"ldpaudit: error: randomizer '{H}:{name}' on input 0: the program was killed by "
                           f"signal 31 (SIGSYS: the sandbox stopped it: it tried to signal or trace another process "
                           f"(its parent? the auditor?)) before replying (call 1)\n")


@pytest.mark.parametrize("mode,death", [
    ("kill-parent", STOPPED),
    ("killpg", r"was killed by signal 9 \(SIGKILL"),
])
def test_a_command_program_that_kills_its_parent_or_its_group_is_reported(mode, death):
    with command(["python3", PROGRAM, mode]) as randomizer:
        randomizer(0, 10, np.random.default_rng(0))   # the first request is answered
        with pytest.raises(RandomizerError) as info:
            for _ in range(3):
                randomizer(1, 10, np.random.default_rng(0))
    message = str(info.value)
    assert "on input 1: the program " in message and re.search(death, message), message
    assert re.search(r"before replying \(request [23]\)", message), message


def test_a_command_program_that_kills_the_auditor_is_reported_and_the_auditor_survives():
    if not FOUND["seccomp"]:
        pytest.skip("needs seccomp (see the report's sandbox.signals)")
    proc = cli_with_own_pid("audit", "--command", f"python3 {PROGRAM} kill-auditor", *SMALL)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "on input 1: the program was killed by signal 31 (SIGSYS: the sandbox stopped it" in proc.stderr
    assert proc.stderr.endswith("before replying (request 2)\n")


@pytest.mark.parametrize("name,message", [
    ("segfaults_on_call_5", r"on input 0: the program was killed by signal 11 \(SIGSEGV: a segmentation fault\) "
                            r"before replying \(call 5\)"),
    ("exits_on_call_3", r"on input 0: the program exited with code 7 before replying \(call 3\)"),
])
def test_a_target_that_dies_is_reported_with_the_call(name, message):
    with isolated(f"{H}:{name}", memory_mb=512) as randomizer:
        with pytest.raises(RandomizerError, match=message):
            randomizer(0, 100, np.random.default_rng(0))


def test_without_namespaces_or_seccomp_a_parent_kill_is_still_reported(monkeypatch):
    monkeypatch.setattr(sandbox, "_PROBED", {"namespaces": False, "seccomp": False,
                                             "namespace_error": "disabled for the test", "seccomp_error": "off"})
    with isolated(f"{H}:kill_parent") as randomizer:
        with pytest.raises(RandomizerError, match=r"on input 2: the program lost its sandbox supervisor "
                                                  r"\(did the randomizer kill its parent\?\) before replying "
                                                  r"\(at or before call \d+\)"):
            for _ in range(20):  # the death is seen at the next request at the latest; allow for a loaded machine
                randomizer(2, 10, np.random.default_rng(0))
    with isolated("tests/programs/bad_randomizers.py:fine") as randomizer:
        randomizer(0, 1, np.random.default_rng(0))
        box = randomizer.describe()["sandbox"]
    assert box["level"] == "session" and box["network"] == "allowed" and box["process_tree"] == "subreaper"
    assert box["fallback"] == "no namespaces (disabled for the test); no seccomp filter"
    assert "can still signal it" in box["signals"]


# --- network and files ---------------------------------------------------------------------


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield f"127.0.0.1:{server.getsockname()[1]}"
    server.close()


def test_network_is_blocked_where_namespaces_exist(listener, monkeypatch):
    monkeypatch.setenv("LDPAUDIT_TEST_ADDRESS", listener)
    with isolated(f"{H}:connects") as randomizer:
        out = randomizer(0, 3, np.random.default_rng(0))
        box = randomizer.describe()["sandbox"]
    if FOUND["namespaces"]:
        assert out == [errno.ENETUNREACH] * 3
        assert box["network"] == "blocked" and box["level"].startswith("namespaces")
    else:
        assert out == [0] * 3
        assert box["network"] == "allowed" and "no namespaces" in box["fallback"]
    # the same target outside the sandbox reaches the listener: the test can tell the difference
    with isolated(f"{H}:connects", sandbox=False) as randomizer:
        assert randomizer(0, 3, np.random.default_rng(0)) == [0] * 3


def test_another_address_is_unreachable_in_the_sandbox(monkeypatch):
    if not FOUND["namespaces"]:
        pytest.skip("no network namespace on this machine: the report states network allowed")
    monkeypatch.setenv("LDPAUDIT_TEST_ADDRESS", "192.0.2.1:80")
    with isolated(f"{H}:connects") as randomizer:
        assert randomizer(0, 2, np.random.default_rng(0)) == [errno.ENETUNREACH] * 2


def test_writes_land_in_the_scratch_directory_not_the_real_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LDPAUDIT_TEST_REAL_HOME", str(home))
    with isolated(f"{H}:writes_home") as randomizer:
        out = randomizer(1, 1, np.random.default_rng(0))
        scratch = Path(randomizer._scratch)
        assert (scratch / "home" / "written-by-randomizer-1").read_text() == "x"
        box = randomizer.describe()["sandbox"]
    scratch_write, real_write, redirected = out[0]
    assert scratch_write == 0 and redirected
    if FOUND["namespaces"]:
        assert real_write == errno.EROFS
        assert box["filesystem"].startswith("read-only except the scratch directory")
        assert list(home.iterdir()) == []
    else:
        assert box["filesystem"].startswith("unrestricted")
    assert not scratch.exists()  # removed after the audit


def test_the_audit_json_and_report_state_the_sandbox_and_the_timeout_policy(tmp_path):
    proc = cli("audit", "tests/programs/slow_krr.py:make", "--target-arg", "delay=0", "--batch", *SMALL,
               "--timeout", "7", "--warmup", "30", "--json", "--report", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    box = payload["sandbox"]
    assert box["level"] == ("namespaces" if FOUND["namespaces"] else "session") + \
        ("+seccomp" if FOUND["seccomp"] else "")
    assert box["network"] == ("blocked" if FOUND["namespaces"] else "allowed")
    assert set(box) >= {"level", "network", "filesystem", "signals", "processes", "process_tree", "scratch",
                        "fallback"}
    assert box["process_tree"] == ("pid-namespace" if FOUND["pid_namespace"] else "subreaper")
    t = payload["timeouts"]
    assert (t["first_call_s"], t["floor_s"], t["factor"]) == (30.0, 7.0, 50.0)
    assert t["rule"] == "first call: 30 s (warm-up: imports, JIT compilation); later calls: max(7 s, 50 x the slowest call after the first)"
    assert t["slowest_call_s"] > 0  # a measured wall time: reported, never compared
    report = (tmp_path / "report.md").read_text()
    assert (f"| Sandbox | {box['level']}; network {box['network']}; files {box['filesystem']}; "
            f"process tree {box['process_tree']}") in report
    assert f"| Timeouts | {t['rule']} |" in report
    assert sandbox.unconfined()["level"] == "none"   # what --no-isolate reports


# --- timeouts: warm-up, then a floor -------------------------------------------------------


def test_a_slow_first_call_passes_within_the_warm_up_and_fails_beyond_it(monkeypatch):
    monkeypatch.setenv("LDPAUDIT_TEST_FIRST_SLEEP", "1.5")
    with isolated(f"{H}:slow_first_call", timeout=1, warmup=10) as randomizer:
        out = randomizer(0, 300, np.random.default_rng(0))
        assert len(out) == 300 and randomizer.describe()["timeouts"]["slowest_call_s"] > 0
    with isolated(f"{H}:slow_first_call", timeout=1, warmup=1) as randomizer:
        with pytest.raises(RandomizerError) as info:
            randomizer(0, 300, np.random.default_rng(0))
    assert str(info.value) == (f"randomizer '{H}:slow_first_call' on input 0: timed out: the first call took longer "
                               f"than the warm-up allowance of 1 s (raise it with --warmup) (call 1)")


def test_later_calls_get_the_floor_not_the_warm_up(monkeypatch):
    monkeypatch.setenv("LDPAUDIT_TEST_FIRST_SLEEP", "0")
    monkeypatch.setenv("LDPAUDIT_TEST_LATER_SLEEP", "2.5")
    with isolated(f"{H}:slow_first_call", timeout=1, warmup=60) as randomizer:
        with pytest.raises(RandomizerError) as info:
            randomizer(0, 300, np.random.default_rng(0))
    message = str(info.value)
    assert "on input 0: timed out: call took longer than 1 s = max(1 s, 50 x the slowest call so far" in message
    assert message.endswith("(raise the floor with --timeout) (call 200)")


@pytest.mark.slow
def test_a_first_call_of_20_seconds_passes_with_the_default_settings():
    proc = cli("audit", f"{H}:slow_first_call", "--domain", "0..4", "--epsilon", "1", "--samples", "1000",
               env=environ(LDPAUDIT_TEST_FIRST_SLEEP=20))
    assert proc.returncode == 0, proc.stderr


# --- outputs of every kind through the worker -----------------------------------------------


def _counter(out) -> dict:
    if out.kind == "objects":
        return dict(zip(out.values, out.counts.tolist()))
    rows = out.values.tolist()
    return dict(collections.Counter(tuple(r) if isinstance(r, list) else r for r in rows))


@pytest.mark.parametrize("name,expected", [
    ("bytes_out", {bytes([1, k]): 10 for k in range(3)}),
    ("numpy_int64_out", {10 + k: 10 for k in range(3)}),
    ("numpy_array_out", {(1, k): 10 for k in range(3)}),
    ("nested_tuple_out", {(1, (k, "a")): 10 for k in range(3)}),
    ("frozenset_out", {frozenset({"x1", k}): 10 for k in range(3)}),
])
def test_unusual_outputs_travel_through_the_isolated_worker(name, expected):
    with isolated(f"{H}:{name}") as randomizer:
        out = Sampler(randomizer, batch=True).draw(1, 30, np.random.SeedSequence(0))
    assert out.n == 30 and _counter(out) == expected


def test_batch_arrays_of_every_shape_travel_through_the_worker():
    with isolated("tests/programs/slow_krr.py:make", {"delay": "0"}, batch=True) as randomizer:
        out = randomizer(2, 1000, np.random.default_rng(0))
    assert isinstance(out, np.ndarray) and out.shape == (1000,) and set(out.tolist()) <= set(range(5))
    with isolated(f"{H}:bytes_batch", batch=True) as randomizer:
        out = randomizer(2, 500, np.random.default_rng(0))
    assert len(out) == 500 and all(isinstance(y, bytes) and len(y) == 1 for y in out)


def test_bytes_outputs_audit_end_to_end():
    options = dict(domain=range(4), epsilon=1.0, samples=15000, seed=1, batch=True)   # ε_lb 0.96 and 3.20
    with isolated(f"{H}:bytes_batch", batch=True) as randomizer:
        assert audit(randomizer, **options).verdict == "NO_EVIDENCE"
    with isolated(f"{H}:leaky_bytes_batch", batch=True) as randomizer:   # true ε = ln(0.9 / (0.1/3)) = ln 27
        result = audit(randomizer, **options)
    assert result.verdict == "VIOLATION" and result.epsilon_lower_bound > 2.5


def test_a_target_that_writes_a_lot_to_stderr_does_not_block():
    with isolated(f"{H}:chatty", timeout=2, warmup=5) as randomizer:
        out = randomizer(0, 10_000, np.random.default_rng(0))   # 10 MB through a 64 KB pipe
    assert len(out) == 10_000


def test_an_unhashable_output_is_reported_as_such():
    with isolated("tests/programs/bad_randomizers.py:returns_dict") as randomizer:
        with pytest.raises(RandomizerError, match=r"randomizer returned a dict for input 0; outputs must be hashable"):
            Sampler(randomizer, batch=True).draw(0, 5, np.random.SeedSequence(0))
    with isolated("tests/programs/bad_randomizers.py:returns_list") as randomizer:   # a list is read as a tuple
        out = Sampler(randomizer, batch=True).draw(0, 5, np.random.SeedSequence(0))
    assert out.kind == "array" and out.values.tolist() == [[0]] * 5


# --- histograms: counts instead of outputs ---------------------------------------------------


def test_histograms_give_exactly_the_audit_of_raw_outputs():
    target, args = "tests/programs/slow_krr.py:make", {"delay": "0", "epsilon": "1.3"}
    with isolated(target, args, batch=True) as randomizer:
        raw = Sampler(lambda x, n, rng: randomizer(x, n, rng), batch=True).draw(3, 20000, np.random.SeedSequence(5))
        hist = Sampler(randomizer, batch=True).draw(3, 20000, np.random.SeedSequence(5))
        assert raw.kind == "array" and hist.kind == "objects"    # the histogram path was taken
        assert len(hist.values) == 5
        assert _counter(raw) == _counter(hist)
        options = dict(domain=range(5), epsilon=1.0, samples=30000, seed=2, batch=True)
        a = audit(lambda x, n, rng: randomizer(x, n, rng), **options)
        b = audit(randomizer, **options)
    assert (a.verdict, a.epsilon_lower_bound, a.witness) == (b.verdict, b.epsilon_lower_bound, b.witness)
    assert a.verdict == "VIOLATION"


def test_the_worker_and_supervisor_import_nothing_heavy():
    code = ("import sys, ldpaudit.audit.worker, ldpaudit.audit.sandbox, ldpaudit.audit.adapters; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'sympy', 'scipy', 'z3', 'matplotlib', 'rich'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_journal_round_trips_histograms_and_unusual_outputs(tmp_path):
    from fractions import Fraction

    from ldpaudit.audit.adapters import Histogram, Opaque
    from ldpaudit.audit.external import decode
    from ldpaudit.audit.journal import Journal
    from ldpaudit.audit.worker import encode

    opaque = decode(encode(Fraction(1, 3)))
    assert opaque == Opaque("fractions.Fraction", "Fraction(1, 3)") == decode(encode(Fraction(2, 6)))
    journal = Journal(tmp_path)
    numeric = Histogram(np.array([0, 3, 7]), np.array([5, 1, 4]), 10)
    mixed = Histogram([b"\x00\x01", opaque, frozenset({1, "a"}), (1, (2, "b"))], np.array([1, 2, 3, 4]), 10)
    journal.store("a", numeric)
    journal.store("b", mixed)
    journal.store("c", [b"xy", opaque, np.int64(3)])
    got_a, got_b = journal.load("a"), journal.load("b")
    assert got_a.values.tolist() == [0, 3, 7] and got_a.counts.tolist() == [5, 1, 4] and got_a.n == 10
    assert got_b.values == mixed.values and got_b.counts.tolist() == [1, 2, 3, 4]
    assert journal.load("c") == [b"xy", opaque, 3]


# --- the journal keeps what was drawn before a death --------------------------------------------


def test_the_journal_keeps_chunks_drawn_before_the_target_died(tmp_path):
    args = ["audit", f"{H}:dies_at_call", "--batch", "--domain", "0..4", "--epsilon", "1", "--samples", "20000",
            "--seed", "3", "--json"]
    journal = tmp_path / "journal"
    # in this process too: the isolation worker reads the fault from the environment it inherits
    died = cli_inprocess.run(*args, "--journal", str(journal), env={"LDPAUDIT_TEST_DIE_AT": 4})
    assert died.returncode == 2
    assert "on input 3: the program was killed by signal 9 (SIGKILL" in died.stderr
    assert "before replying (call 4)" in died.stderr
    assert len(list((journal / "chunks").iterdir())) == 3
    resumed = cli("audit", "--resume", str(journal), "--json")    # the fault is gone
    assert resumed.returncode == 0, resumed.stderr
    fresh = cli(*args)

    def strip(text):
        return {k: v for k, v in json.loads(text).items() if k not in ("seconds", "timeouts", "memory")}

    assert strip(resumed.stdout) == strip(fresh.stdout)
