"""audit-estimator stays within its budgets: the derivation, the draws and the server's calls
run under --timeout CPU seconds and --memory-mb; spent, the verdict is INCONCLUSIVE (exit 3) with
one line saying which budget, never a hang or a verdict."""

from __future__ import annotations

import json

from ldpaudit.cli import main

ARGS = ["audit-estimator", "ldpaudit.mechanism.randomizers:oue", "--batch", "--target-arg", "d=4", "--target-arg",
        "epsilon=1", "estimator_servers:spec_server", "--server-arg", "spec=oue", "--server-arg", "d=4",
        "--server-arg", "epsilon=1", "--spec", "oue", "-p", "d=4", "-p", "epsilon=1", "--n", "200", "--trials", "20000"]


def test_a_spent_cpu_budget_is_inconclusive(capsys):
    assert main([*ARGS, "--timeout", "0.2", "--json"]) == 3
    captured = capsys.readouterr()
    payload = json.loads(captured.out)
    assert payload["verdict"] == "INCONCLUSIVE" and "used its 0.2 s of CPU time" in payload["error"]["message"]
    assert len(captured.err.strip().splitlines()) == 1


def test_bad_budgets_are_bad_input(capsys):
    assert main([*ARGS, "--timeout", "nan"]) == 2
    assert "--timeout 'nan' must be a positive number of seconds" in capsys.readouterr().err
    assert main([*ARGS, "--memory-mb", "-3"]) == 2
