"""``ldpaudit derive SPEC --no-cache`` costs at most 2 s of CPU for every bundled spec, cold, in
a fresh process (issue 11).

CPU, not wall time: user + sys of the child from ``resource.getrusage(RUSAGE_CHILDREN)``, so
waiting for a core on a shared machine does not count. Other processes still add CPU time
(cache and memory contention, frequency scaling), never remove it, so the cost of a derivation
is at most the smallest of a few measurements: each spec gets up to three runs and passes on the
first within budget. Every run must also succeed (exit 0, a JSON derivation with verdict OK), so
a crash cannot pass as fast.

The one margin, and why: contention that lasts the whole test inflates every run alike. It is
measured in the same test by ``python -c "import sympy"`` (pure CPU work in the same
interpreter, the first thing every derivation does): when that baseline costs more than it does
on a quiet machine (QUIET_SYMPY_IMPORT, the figure in benchmarks/README.md), the 2 s budget is
scaled by the same factor. On a quiet machine, or a faster one, the budget is exactly 2 s.

The default suite checks the specs whose derivations cost most (the O-RR explicit 6 x 9 channel,
k-subset with its optimal k, and Duchi's real-input mean whose spec validation dominates); every
bundled spec runs under ``-m slow`` (about 40 s of CPU).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUDGET = 2.0  # seconds of CPU, cold (issue 11)
QUIET_SYMPY_IMPORT = 0.33  # seconds of CPU of `python -c "import sympy"` on a quiet machine (benchmarks/README.md)
ATTEMPTS = 3
NOT_DERIVABLE = {"joseph_uvrr2"}  # no mean estimator (not a location family): said in not_derived, exit 0
HEAVIEST = ("orr", "ksubset", "duchi_binary_mean")
ALL_SPECS = sorted(p.stem for p in (ROOT / "specs").glob("*.toml"))


def _child_cpu(argv) -> tuple[float, subprocess.CompletedProcess]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc


@pytest.fixture(scope="module")
def budget() -> float:
    """2 s, scaled by the contention the import-sympy baseline shows now (never below 2 s)."""
    baseline = min(_child_cpu([sys.executable, "-c", "import sympy"])[0] for _ in range(3))
    return BUDGET * max(1.0, baseline / QUIET_SYMPY_IMPORT)


def _cold_cpu(stem: str) -> float:
    """CPU seconds of one fresh ``ldpaudit derive specs/STEM.toml --no-cache --json``."""
    cpu, proc = _child_cpu([sys.executable, "-m", "ldpaudit.cli", "derive", f"specs/{stem}.toml", "--no-cache", "--json"])
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["verdict"] == "OK" and payload["command"] == "derive"
    if stem in NOT_DERIVABLE:
        assert "not a location family" in payload["not_derived"]["estimator"], payload["not_derived"]
    return cpu


def _check(stem: str, budget: float) -> None:
    runs = []
    for _ in range(ATTEMPTS):
        runs.append(_cold_cpu(stem))
        if runs[-1] <= budget:
            return
    raise AssertionError(f"derive {stem} --no-cache took {', '.join(f'{r:.2f}' for r in runs)} s of CPU; "
                         f"budget {budget:.2f} s (2 s scaled by the import-sympy baseline)")


@pytest.mark.parametrize("stem", HEAVIEST)
def test_the_heaviest_derivations_fit_the_budget(stem, budget):
    _check(stem, budget)


@pytest.mark.slow
@pytest.mark.parametrize("stem", ALL_SPECS)
def test_every_bundled_derivation_fits_the_budget(stem, budget):
    _check(stem, budget)


def test_the_budget_test_covers_every_bundled_spec():
    assert set(HEAVIEST) <= set(ALL_SPECS) and len(ALL_SPECS) >= 18
