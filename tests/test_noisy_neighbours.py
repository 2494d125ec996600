"""The noisy-neighbour test: the same answers beside CPU hogs as on a quiet machine.

Every budget counts the job's own work (CPU seconds, z3's resource units, grid points), so a
machine that other jobs keep busy may slow a command down but never change what it says. Here
four busy processes per core run beside the README's first command (``ldpaudit check specs/``),
``verify --tight`` of every bundled spec and ``amplify`` at n = 10^6; each answer must be the
quiet run's, apart from timings. Both runs start with empty caches of their own, so the loads,
proofs and audits are really done under load.

The whole run is a slow test (its hogs hold both cores for a minute); the default suite runs its
twin, tests/test_noisy_twin.py: the same comparison on four specs of different forms beside one
hog per core.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
SPECS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "specs").glob("*.toml"))

#: one interpreter runs ``ldpaudit verify --tight --json`` on every spec given (the CLI's own
#: entry point, budgets and child processes; one start-up instead of one per spec)
VERIFY_ALL = """
import contextlib, io, json, sys
from ldpaudit.cli import main
out = {}
for spec in sys.argv[1:]:
    buf, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
        code = main(["verify", "--tight", "--json", "-q", spec])
    out[spec] = {"exit": code, "stdout": buf.getvalue(), "stderr": err.getvalue()}
print(json.dumps(out))
"""

AMPLIFY = ["amplify", "krr", "-p", "d=8", "-p", "epsilon=1", "--n", "1000000", "--delta", "1e-8", "--json"]

#: keys that hold measured times, the only fields allowed to differ
TIMING = ("seconds", "slowest_call_s", "cpu_s", "wall_s")


def _without_timings(value):
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if not any(t in k for t in TIMING)}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def _start(argv, cache: Path, hash_seed: str) -> subprocess.Popen:
    # the quiet and the noisy runs also differ in Python's hash seed: an answer that follows the
    # order of a set (of sympy atoms, of strings) differs between them too
    env = {**os.environ, "LDPAUDIT_CACHE_DIR": str(cache), "COLUMNS": "80", "PYTHONHASHSEED": hash_seed}
    return subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


#: verify's share of the specs runs in this many processes (with check's four workers, the jobs
#: hold about as many processes as the hogs: the test's wall time stays short beside them)
VERIFY_PROCESSES = 4


def _jobs(cache: Path, hash_seed: str, specs=None, amplify=None, check=("specs/",)) -> list[subprocess.Popen]:
    """The jobs, started together (they share the machine with each other too)."""
    specs = SPECS if specs is None else specs
    shares = [specs[i::VERIFY_PROCESSES] for i in range(VERIFY_PROCESSES)]
    return [
        _start([sys.executable, "-m", "ldpaudit", "check", *check, "--json", "-q", "--jobs", "4"], cache / "check", hash_seed),
        _start([sys.executable, "-m", "ldpaudit", *(amplify or AMPLIFY)], cache / "amplify", hash_seed),
        *(_start([sys.executable, "-c", VERIFY_ALL, *share], cache / f"verify{i}", hash_seed)
          for i, share in enumerate(shares) if share),
    ]


def _answers(procs: list[subprocess.Popen]) -> dict:
    out = {}
    names = ["check", "amplify"] + [f"verify{i}" for i in range(len(procs) - 2)]
    for name, proc in zip(names, procs):
        stdout, stderr = proc.communicate(timeout=1800)  # a far guard: a hung test fails, it never hangs CI
        out[name] = {"exit": proc.returncode, "stdout": stdout, "stderr": stderr}
    return out


def _parsed(answers: dict) -> dict:
    verify = {}
    for i in range(len(answers) - 2):
        assert answers[f"verify{i}"]["exit"] == 0, answers[f"verify{i}"]["stderr"][-2000:]
        verify.update(json.loads(answers[f"verify{i}"]["stdout"]))
    return {
        "check": (answers["check"]["exit"], _without_timings(json.loads(answers["check"]["stdout"]))),
        "verify": {spec: (r["exit"], _without_timings(json.loads(r["stdout"])) if r["stdout"].strip() else r["stderr"])
                   for spec, r in verify.items()},
        "amplify": (answers["amplify"]["exit"], _without_timings(json.loads(answers["amplify"]["stdout"]))),
    }


@pytest.fixture(scope="module")
def quiet(tmp_path_factory):
    return _parsed(_answers(_jobs(tmp_path_factory.mktemp("quiet"), "0")))


@pytest.fixture(scope="module")
def noisy(tmp_path_factory, quiet):
    return _parsed(beside_hogs(4, lambda: _answers(_jobs(tmp_path_factory.mktemp("noisy"), "1"))))


def beside_hogs(per_core: int, job):
    """``job()`` run beside ``per_core`` busy processes per core."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(per_core * (os.cpu_count() or 1))]
    try:
        return job()
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()


def test_check_json_lists_every_bundled_spec(quiet):
    """The quiet run of the README's first command: every bundled spec OK on every stage."""
    from ldpaudit.schema import SCHEMA_VERSION

    code, payload = quiet["check"]
    assert code == 0
    names = {r["mechanism"] for r in payload["specs"]}
    assert names >= {"W-RR", "k-RR", "k-RAPPOR", "OUE", "k-subset", "O-RR", "RR-bit", "Laplace mean", "Laplace histogram"}
    assert names >= {"Joseph RR1", "Joseph KVRR2", "Joseph UVRR2", "Joseph 1RoundKVRR2", "Duchi binary mean"}  # real inputs
    assert all(r["ok"] and r["stochastic"] in ("proved", "exact") for r in payload["specs"])
    assert payload["schema_version"] == SCHEMA_VERSION and payload["command"] == "check" and payload["verdict"] == "OK"
    assert len(payload["specs"]) == len(SPECS) and payload["cached"] == 0
    for r in payload["specs"]:
        stages = r["stages"]
        assert stages["verify"]["verdict"] == "PROVED", (r["mechanism"], stages["verify"])
        assert stages["audit"]["verdict"] == "NO_EVIDENCE" and stages["audit"]["alpha"] == 0.01
        assert stages["derive"]["verdict"] in ("OK", "NOT_DERIVED") and stages["derive"]["text"]
        assert r["verification"] == stages["verify"]["text"]


def test_the_readme_first_command_exits_0_beside_cpu_hogs_with_the_quiet_rows(quiet, noisy):
    code, rows = noisy["check"]
    assert code == 0, [r.get("error") for r in rows["specs"] if not r["ok"]]
    assert rows["summary"] == {"OK": len(SPECS)}
    assert quiet["check"] == noisy["check"]


def test_verify_tight_of_every_bundled_spec_is_the_same_beside_cpu_hogs(quiet, noisy):
    assert set(noisy["verify"]) == set(SPECS)
    for spec in SPECS:
        assert noisy["verify"][spec] == quiet["verify"][spec], spec
    proved = [spec for spec, (code, _) in noisy["verify"].items() if code == 0]
    assert len(proved) >= len(SPECS) - 1  # every pure-ε spec PROVED (the Gaussian's δ needs numbers)


def test_amplify_at_a_million_users_is_the_same_beside_cpu_hogs(quiet, noisy):
    code, result = noisy["amplify"]
    assert code == 0 and abs(result["epsilon_blanket"] - 0.0030219) < 2e-7
    assert quiet["amplify"] == noisy["amplify"]
