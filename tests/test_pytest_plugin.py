"""The pytest plugin (ldpaudit/pytest_plugin.py), run by pytest's own ``pytester`` in a fresh
pytest process: the ``--ldp-*`` options in ``--help``, a planted faulty k-RR caught with its
witness and certified bound, a correct one left alone, the options honoured, the seed fixed by
the node id, and a test that audits nothing or cannot be audited failing loudly.

The plugin is loaded with ``-p no:ldpaudit -p ldpaudit.pytest_plugin``: the entry point (once
installed) is blocked so that the module of this checkout is the one loaded, once."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from ldpaudit.pytest_plugin import seed_of

pytest_plugins = ["pytester"]

PLUGIN = ("-p", "no:ldpaudit", "-p", "ldpaudit.pytest_plugin")
SAMPLES = "20000"   # 4 inputs: ~0.1 s per audit

RANDOMIZERS = '''
import math, random

def k_rr(d, epsilon):
    p = math.exp(epsilon) / (math.exp(epsilon) + d - 1)
    def randomizer(x):
        if random.random() < p:
            return x
        y = random.randrange(d - 1)
        return y if y < x else y + 1
    return randomizer

correct = k_rr(4, 1.0)
doubled = k_rr(4, 2.0)          # claims ε = 1, spends 2ε: true ε = 2

def rare_leak(x):               # 1-LDP k-RR, but 1% of reports are 10 + x: true ε = ∞
    if random.random() < 0.01:
        return 10 + x
    return correct(x)
'''

TESTS = '''
import sys
import pytest
from randomizers import correct, doubled, rare_leak

def test_a_session_without_audits_loads_no_auditor():
    assert not {"numpy", "scipy", "sympy", "z3"} & set(sys.modules)

@pytest.mark.ldp(epsilon=1.0, domain=range(4))
def test_correct(ldp_audit):
    assert ldp_audit(correct).verdict == "NO_EVIDENCE"

@pytest.mark.ldp(epsilon=1.0, domain=range(4))
def test_doubled(ldp_audit):
    ldp_audit(doubled)

@pytest.mark.ldp(epsilon=1.0, domain=range(4))
def test_rare_leak(ldp_audit):
    ldp_audit(rare_leak)

@pytest.mark.ldp(epsilon=1.0, domain=range(4))
def test_marked_but_never_audits():
    pass

def test_one_input(ldp_audit):
    ldp_audit(correct, epsilon=1.0, domain=[0])

def test_missing_epsilon(ldp_audit):
    ldp_audit(correct, domain=range(4))

@pytest.mark.ldp(epsilon=1.0, domain=range(4), sample=1000)
def test_misspelt_option(ldp_audit):
    ldp_audit(correct)
'''


@pytest.fixture
def project(pytester):
    pytester.makepyfile(randomizers=RANDOMIZERS, test_k_rr=TESTS)
    pytester.syspathinsert()
    return pytester


def _failure(result, name: str) -> str:
    """The failure section of one test in a pytest run's output."""
    text = result.stdout.str()
    start = text.index(f"_ {name} _")
    end = min((i for i in (text.find("\n_____", start + 1), text.find("short test summary", start)) if i > 0))
    return text[start:end]


def _run(project, *args, samples=SAMPLES):
    size = ("--ldp-samples", samples) if samples else ()
    return project.runpytest_subprocess(*PLUGIN, "--strict-markers", "-p", "no:cacheprovider", *size, *args)


def test_help_lists_the_options(pytester):
    result = pytester.runpytest_subprocess(*PLUGIN, "--help")
    assert result.ret == 0
    out = result.stdout.str()
    assert "ldpaudit" in out
    for option in ("--ldp-alpha", "--ldp-samples", "--ldp-seed", "ldp_alpha (string)", "ldp_samples (string)"):
        assert option in out, option


def test_faulty_randomizers_fail_with_witness_and_bound_a_correct_one_passes(project):
    result = _run(project, "--ldp-alpha", "0.02")
    result.assert_outcomes(passed=2, failed=6)
    assert "ldpaudit: 20,000 samples per input, alpha=0.02, seed from each test's node id" in result.stdout.str()

    doubled = _failure(result, "test_doubled")
    assert "Failed: VIOLATION: k_rr.<locals>.randomizer is not 1-LDP" in doubled
    certified = float(re.search(r"Certified: ε >= ([0-9.]+) > claimed ε = 1, at confidence 0.98", doubled)[1])
    assert 1.0 < certified <= 2.0   # above the claim, and a valid lower bound on the true ε = 2
    witness = re.search(r"Falsifying witness: x=(\d), x'=(\d), S = .*: (\d+)/(\d+) under x vs (\d+)/(\d+) under x'",
                        doubled)
    assert witness, doubled
    a, na, b, nb = map(int, witness.groups()[2:])
    assert a / na > 2.5 * b / nb       # the witness's own counts show the gap
    assert "at most α = 0.02" in doubled and "Clopper-Pearson" in doubled
    assert "Settings: 20,000 samples per input, α = 0.02, seed " in doubled
    assert f"seed {seed_of('test_k_rr.py::test_doubled')} (derived from the node id" in doubled
    assert "Reproduce: pytest 'test_k_rr.py::test_doubled'" in doubled

    leak = _failure(result, "test_rare_leak")
    assert "VIOLATION: rare_leak is not 1-LDP" in leak
    bound = re.search(r"Certified: ε >= ([0-9.]+) >", leak)[1]
    assert float(bound) > 1.0
    counts = re.search(r"Falsifying witness: x=(\d), x'=\d, S = y in \{(1[0-3])\}: (\d+)/\d+ under x vs 0/", leak)
    assert counts and int(counts[2]) == 10 + int(counts[1]) and int(counts[3]) > 0, leak  # the rare output
    command = re.search(r"or: ldpaudit audit (randomizers:rare_leak .*--no-isolate)", leak)[1]
    assert command.startswith("randomizers:rare_leak --domain 0..3 --epsilon 1.0 --samples 20000 --alpha 0.02 --seed ")
    rerun = subprocess.run([sys.executable, "-m", "ldpaudit", "audit", *command.split()], cwd=project.path,
                           capture_output=True, text=True, timeout=120,
                           env={**os.environ, "PYTHONPATH": os.pathsep.join([str(project.path), *sys.path])})
    assert rerun.returncode == 1, rerun.stderr
    assert f"certified ε >= {bound} " in rerun.stdout   # the command repeats the audit

    assert "never requested the ldp_audit fixture" in _failure(result, "test_marked_but_never_audits")
    assert "domain=[0] needs at least two inputs" in _failure(result, "test_one_input")
    assert "epsilon is required" in _failure(result, "test_missing_epsilon")
    assert "unknown option sample=1000; the options are" in _failure(result, "test_misspelt_option")
    assert "test_correct" not in result.stdout.str().split("short test summary")[1]


def _doubled_run(project, *args, samples=SAMPLES) -> dict:
    """Seed, α, samples, certified bound and witness counts of test_doubled in a fresh pytest process."""
    result = _run(project, "-k", "doubled", *args, samples=samples)
    result.assert_outcomes(failed=1)
    text = _failure(result, "test_doubled")
    return {"seed": int(re.search(r"α = [0-9.]+, seed (\d+) ", text)[1]),
            "bound": re.search(r"ε >= ([0-9.]+)", text)[1],
            "counts": re.search(r"witness: .*: (\d+/\d+ under x vs \d+/\d+)", text)[1],
            "samples": re.search(r"Settings: ([0-9,]+) samples", text)[1],
            "alpha": re.search(r"samples per input, α = ([0-9.]+), seed", text)[1]}


def test_the_seed_comes_from_the_node_id_and_the_options_and_ini_override_it(project):
    first, again = _doubled_run(project), _doubled_run(project)
    assert first == again   # two processes, the same draws
    assert first["seed"] == seed_of("test_k_rr.py::test_doubled") != seed_of("test_k_rr.py::test_correct")
    assert first["samples"] == "20,000" and first["alpha"] == "0.01"
    project.makeini("[pytest]\nldp_samples = 30000\nldp_alpha = 0.05\n")
    seeded = _doubled_run(project, "--ldp-seed", "7", samples=None)   # the ini's settings
    assert seeded["seed"] == 7 and seeded["samples"] == "30,000" and seeded["alpha"] == "0.05"
    assert seeded["counts"] != first["counts"]


def test_seed_of_is_the_first_8_bytes_of_the_node_ids_sha256():
    # pinned: a change would give every user's test other draws
    assert seed_of("t.py::test_a") == 8476538840432950380
    assert seed_of("t.py::test_b") != seed_of("t.py::test_a")


def test_bad_options_stop_the_session_naming_the_value(pytester):
    pytester.makepyfile("def test_x(): pass")
    for args, message in ((("--ldp-alpha", "2"), "--ldp-alpha '2': the false-alarm probability must lie strictly"),
                          (("--ldp-samples", "ten"), "--ldp-samples 'ten': draws per input must be an integer >= 100"),
                          (("--ldp-seed", "-1"), "--ldp-seed '-1': the seed must be a non-negative integer")):
        result = pytester.runpytest_subprocess(*PLUGIN, *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert message in result.stderr.str()


def test_the_entry_point_is_declared():
    root = Path(__file__).resolve().parents[1]
    declared = tomllib.loads((root / "pyproject.toml").read_text())["project"]["entry-points"]["pytest11"]
    assert declared == {"ldpaudit": "ldpaudit.pytest_plugin"}
    from importlib.metadata import entry_points

    installed = [ep for ep in entry_points(group="pytest11") if ep.name == "ldpaudit"]
    if installed:   # ldpaudit installed from a checkout that has the plugin
        assert installed[0].value == "ldpaudit.pytest_plugin"


def test_importing_the_plugin_imports_nothing_heavy():
    heavy = ["sympy", "z3", "scipy", "matplotlib", "dask", "numpy"]
    probe = ("import json, sys, ldpaudit.pytest_plugin; "
             f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({heavy!r}))))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []
