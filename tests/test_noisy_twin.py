"""The default suite's twin of tests/test_noisy_neighbours.py (a slow test): the same answers
beside CPU hogs as on a quiet machine, and under another Python hash seed, for four bundled specs
of different forms (a finite channel, a piecewise density, a density on the real line with |.|,
a hashed channel): `check` of one of them, `verify --tight --json` of all four, and `amplify` at
n = 10^4. Budgets count the job's own work, so only timings may differ. The busy half runs on one
core beside a busy process pinned to that core (half a core for the commands), so that the
suite's other worker is not slowed down too.

Each half is one interpreter that runs the commands' own entry point one after the other (one
start-up rather than seven; the full test starts every command as its own process)."""

from __future__ import annotations

import pytest

import json
import os
import subprocess
import sys

from test_noisy_neighbours import ROOT, _parsed, beside_hogs

SPECS = ["specs/krr.toml", "specs/square_wave.toml", "specs/joseph_uvrr2.toml", "specs/olh.toml"]
CHECK = ("specs/square_wave.toml",)
AMPLIFY = ["amplify", "krr", "-p", "d=8", "-p", "epsilon=1", "--n", "10000", "--delta", "1e-6", "--json"]

#: one interpreter runs the commands in turn (the CLI's own entry point, budgets and child
#: processes) and prints the answers as tests/test_noisy_neighbours.py's ``_parsed`` reads them
RUN_ALL = """
import contextlib, io, json, sys
from ldpaudit.cli import main
specs, check, amplify = json.loads(sys.argv[1])

def run(argv):
    buf, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
        code = main(argv)
    return {"exit": code, "stdout": buf.getvalue(), "stderr": err.getvalue()}

out = {"check": run(["check", *check, "--json", "-q", "--jobs", "1"]), "amplify": run(amplify)}
out["verify0"] = {"exit": 0, "stdout": json.dumps({s: run(["verify", "--tight", "--json", "-q", s]) for s in specs}),
                  "stderr": ""}
print(json.dumps(out))
"""


def _half(cache, hash_seed: str, pin=None) -> dict:
    env = {**os.environ, "LDPAUDIT_CACHE_DIR": str(cache), "COLUMNS": "80", "PYTHONHASHSEED": hash_seed}
    proc = subprocess.run([sys.executable, "-c", RUN_ALL, json.dumps([SPECS, list(CHECK), AMPLIFY])], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=1800,   # a far guard, never a verdict
                          preexec_fn=pin)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def _beside_a_hog_on_its_core(job):
    """``job(pin)`` with its commands and one busy process on the same core (``pin`` moves a child
    there): the commands get half a core, as beside one hog per core on a full machine, while
    the suite's other worker keeps the other core. Where affinity cannot be set, one hog per core."""
    try:
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(os.getpid(), os.sched_getaffinity(0))     # probe: settable here
    except (AttributeError, OSError):
        return beside_hogs(1, lambda: job(None))

    def pin():
        os.sched_setaffinity(0, {core})

    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=pin)
    try:
        return job(pin)
    finally:
        hog.kill()
        hog.wait()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    quiet = _parsed(_half(tmp_path_factory.mktemp("quiet"), "0"))
    noisy = _parsed(_beside_a_hog_on_its_core(lambda pin: _half(tmp_path_factory.mktemp("noisy"), "1", pin)))
    return quiet, noisy


def test_the_same_answers_beside_cpu_hogs_and_under_another_hash_seed(runs):
    quiet, noisy = runs
    code, rows = noisy["check"]
    assert code == 0 and rows["summary"] == {"OK": 1}
    assert quiet["check"] == noisy["check"]
    assert set(noisy["verify"]) == set(SPECS)
    for spec in SPECS:
        assert noisy["verify"][spec] == quiet["verify"][spec], spec
        assert noisy["verify"][spec][0] == 0, spec
    assert quiet["amplify"] == noisy["amplify"] and noisy["amplify"][0] == 0
