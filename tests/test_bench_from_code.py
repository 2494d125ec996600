"""`ldpaudit bench --from-code` (issue 36, item 4): the suite's planted bugs, written as ordinary
Python in ldpaudit/bench/planted.py, are proved wrong from their source with the tight ε of each
bug, derived by hand: k-RR's "other" drawn from all d values gives e^ε* = 4e^ε/3 + 1 at d = 4
(Q(x|x) = e^ε/(e^ε+3) + 3/(4(e^ε+3)), Q(x|x') = 3/(4(e^ε+3))); Python's inclusive randint gives
ε + log(4/3)."""

from __future__ import annotations

import json

from ldpaudit.cli import main


def test_planted_bugs_proved_from_their_source(capsys):
    code = main(["bench", "--from-code", "--only", "krr-uniform-fallback", "--only", "randint-inclusive", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["verdict"] == "OK"
    rows = {r["bug"]: r for r in payload["from_code"]}
    assert rows["krr-uniform-fallback"]["status"] == "REFUTED"
    assert rows["krr-uniform-fallback"]["tight_epsilon"] == "log(4*exp(epsilon)/3 + 1)"
    assert rows["randint-inclusive"]["tight_epsilon"] == "epsilon + log(4/3)"
    assert all(r["as_expected"] and "line " in r["source_lines"] for r in rows.values())


def test_an_expectation_the_code_does_not_meet_is_reported(capsys, monkeypatch):
    from ldpaudit.bench import from_code

    wrong = dict(from_code.PROVED_FROM_CODE_ONLY)
    target, args, domain, _ = wrong["randint-inclusive"]
    wrong["randint-inclusive"] = (target, args, domain, "epsilon + log(5/4)")
    monkeypatch.setattr(from_code, "PROVED_FROM_CODE_ONLY", wrong)
    assert main(["bench", "--from-code", "--only", "randint-inclusive"]) == 1
    out = capsys.readouterr().out
    assert "randint-inclusive: REFUTED, tight ε* = epsilon + log(4/3) (expected epsilon + log(5/4)) [NOT AS EXPECTED]" in out


def test_unknown_name_is_bad_input(capsys):
    assert main(["bench", "--from-code", "--only", "float-laplace"]) == 2
    assert "has no planted source for --from-code" in capsys.readouterr().err
