"""Suite-wide settings: every test starts with an empty result cache of its own (derivations,
loads, check rows, command outputs), so no test is answered by an entry another test left
behind, whatever it monkeypatched, and no test depends on the order the tests run in.

Output is laid out 1000 columns wide unless a test sets its own width: a command's text wraps at
80 columns in a pipe, and where it wraps depends on the length of the checkout's path (a spec's
path is part of the text), so an assertion on a phrase must not depend on where the suite runs.
The tests of wrapping set $COLUMNS themselves."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_result_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("LDPAUDIT_CACHE_DIR", str(tmp_path_factory.mktemp("ldpaudit-cache")))
    monkeypatch.setenv("COLUMNS", "1000")
    yield


#: the files that cost the most CPU (benchmarks/README.md, "The test suite"), run first: a file runs
#: on one worker (--dist loadfile), so a heavy file started last keeps one core busy after the other
#: has finished. pyproject passes --no-loadscope-reorder, which keeps this order (pytest-xdist
#: otherwise orders the files by their number of tests).
HEAVY_FIRST = (
    "test_docs.py", "test_noisy_twin.py", "test_verify_cli.py", "test_process_tree.py", "test_reproduce.py",
    "test_audit_wide.py", "test_theorems_forms.py", "test_cluster.py", "test_load_budget.py",
    "test_hostile_specs.py", "test_vector_inputs.py", "test_hostile_commands.py", "test_sandbox.py",
    "test_theorems.py", "test_accounting_pld.py", "test_spec_costs.py", "test_cluster_late.py",
    "test_pytest_plugin.py", "test_vocabulary.py", "test_optimize.py",
)


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))     # stable: files stay whole, in order
