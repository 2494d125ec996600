"""Randomizers that attack the auditor or its machine, or return unusual outputs, for the
sandbox tests (loaded by path by the isolation worker)."""
import ctypes
import errno
import os
import random
import signal
import socket
import time

import numpy as np

_calls = 0


def _krr(x, d=5, keep=2.718281828459045 / (2.718281828459045 + 4)):
    """k-RR with d = 5, ε = 1."""
    return x if random.random() < keep else random.choice([v for v in range(d) if v != x])


def kill_parent(x):
    os.kill(os.getppid(), signal.SIGKILL)
    return _krr(x)


def killpg_own_group(x):
    os.killpg(os.getpgid(0), signal.SIGKILL)
    return _krr(x)


def kill_auditor(x):
    """Find the auditor: the pid the test put in the environment, else the nearest ancestor
    running ldpaudit.cli (walking /proc)."""
    pid = int(os.environ.get("LDPAUDIT_TEST_AUDITOR_PID", "0"))
    if not pid:
        pid = os.getppid()
        while pid > 1:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"ldpaudit.cli" in f.read():
                    break
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
    os.kill(pid, signal.SIGKILL)
    return _krr(x)


def segfaults_on_call_5(x):
    global _calls
    _calls += 1
    if _calls == 5:
        ctypes.string_at(0)
    return _krr(x)


def exits_on_call_3(x):
    global _calls
    _calls += 1
    if _calls == 3:
        os._exit(7)
    return _krr(x)


def connects(x):
    """0 if the connection to the address in LDPAUDIT_TEST_ADDRESS succeeds, else the errno."""
    host, port = os.environ["LDPAUDIT_TEST_ADDRESS"].rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=2):
            return 0
    except OSError as exc:
        return exc.errno or errno.ETIMEDOUT


def writes_home(x):
    """Write to $HOME and to the directory in LDPAUDIT_TEST_REAL_HOME; return the outcome of
    each (0 written, else the errno) and whether HOME was redirected."""
    outcome = []
    for directory in (os.environ["HOME"], os.environ["LDPAUDIT_TEST_REAL_HOME"]):
        try:
            with open(os.path.join(directory, f"written-by-randomizer-{x}"), "w") as f:
                f.write("x")
            outcome.append(0)
        except OSError as exc:
            outcome.append(exc.errno)
    return (*outcome, os.environ["HOME"] != os.environ["LDPAUDIT_TEST_REAL_HOME"])


def slow_first_call(x):
    """Sleeps LDPAUDIT_TEST_FIRST_SLEEP seconds on its first call (a JIT warm-up), then is a
    fast k-RR; with LDPAUDIT_TEST_LATER_SLEEP, call 200 sleeps that long."""
    global _calls
    _calls += 1
    if _calls == 1:
        time.sleep(float(os.environ.get("LDPAUDIT_TEST_FIRST_SLEEP", "3")))
    if _calls == 200 and os.environ.get("LDPAUDIT_TEST_LATER_SLEEP"):
        time.sleep(float(os.environ["LDPAUDIT_TEST_LATER_SLEEP"]))
    return _krr(x)


# -- unusual outputs: deterministic in (x, call) so the tests know the exact counts ---------

def _next():
    global _calls
    _calls += 1
    return _calls % 3


def bytes_out(x):
    return bytes([x, _next()])


def numpy_int64_out(x):
    return np.int64(10 * x + _next())


def numpy_array_out(x):
    return np.array([x, _next()], dtype=np.int16)


def nested_tuple_out(x):
    return (x, (_next(), "a"))


def frozenset_out(x):
    return frozenset({f"x{x}", _next()})


def bytes_batch(x, n, rng):
    """opendp-style: a bit vector as bytes; a k-RR over 4 values encoded as one byte."""
    keep = rng.random(n) < np.exp(1) / (np.exp(1) + 3)
    other = (x + rng.integers(1, 4, n)) % 4
    return [bytes([int(v)]) for v in np.where(keep, x, other)]


def leaky_bytes_batch(x, n, rng):
    keep = rng.random(n) < 0.9
    other = (x + rng.integers(1, 4, n)) % 4
    return [bytes([int(v)]) for v in np.where(keep, x, other)]


def dies_at_call(x, n, rng):
    """A batch k-RR (d=5, ε=1) that kills itself on call LDPAUDIT_TEST_DIE_AT (when set)."""
    global _calls
    _calls += 1
    if _calls == int(os.environ.get("LDPAUDIT_TEST_DIE_AT", "0")):
        os.kill(os.getpid(), signal.SIGKILL)
    keep = np.exp(1) / (np.exp(1) + 4)
    other = rng.integers(0, 4, n)
    other = other + (other >= x)
    return np.where(rng.random(n) < keep, x, other)


def chatty(x):
    """Writes 1 KB to stderr on every call (10 MB over a test): must not block the pipe."""
    import sys

    sys.stderr.write("w" * 1023 + "\n")
    return _krr(x)
