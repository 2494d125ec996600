"""``simulate --privacy`` follows the exit contract: 0 only when every round is PROVED and no
user spends more than the per-message ε, 1 when a round is REFUTED or a user answers rounds
whose budgets sum past ε, 3 when a round is UNKNOWN; ``--json`` carries the same verdict."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import cli_inprocess
import sympy as sp

from ldpaudit import cli
from ldpaudit.protocol import joseph, privacy_report
from ldpaudit.protocol.privacy import protocol_verdict

ROOT = Path(__file__).resolve().parents[1]
SIMULATE = ["simulate", "kv2", "--n", "1000", "--trials", "2", "--privacy"]


def _kv2_with(tmp_path, *, claimed=None, users_from=None):
    """KVGausstimate with its KVRR2 round changed: the spec claims ``claimed`` instead of ε (a
    planted under-claim), or the round reuses the users of ``users_from`` (a second message)."""
    proto = joseph.kv_two_round()
    rr1, kvrr2 = proto.rounds
    if claimed is not None:
        text = (ROOT / "specs" / "joseph_kvrr2.toml").read_text()
        assert 'claimed_epsilon = "epsilon"' in text
        spec = tmp_path / "kvrr2_underclaimed.toml"
        spec.write_text(text.replace('claimed_epsilon = "epsilon"', f'claimed_epsilon = "{claimed}"'))
        kvrr2 = dataclasses.replace(kvrr2, randomizer=dataclasses.replace(kvrr2.randomizer, spec=spec))
    if users_from is not None:
        kvrr2 = dataclasses.replace(kvrr2, users_from=users_from, share=None, count=1)
    return dataclasses.replace(proto, rounds=(rr1, kvrr2))


@pytest.mark.parametrize("statuses, over, expected", [
    (["PROVED", "PROVED"], False, "PROVED"),
    (["PROVED", "PROVED"], True, "REFUTED"),
    (["PROVED", "REFUTED"], False, "REFUTED"),
    (["UNKNOWN", "REFUTED"], False, "REFUTED"),
    (["PROVED", "UNKNOWN"], False, "UNKNOWN"),
    (["UNKNOWN", "PROVED"], True, "UNKNOWN"),
])
def test_protocol_verdict_table(statuses, over, expected):
    assert protocol_verdict(statuses, over_budget=over) == expected


def test_a_proved_protocol_exits_0_with_verdict_proved():
    out = cli_inprocess.run(*SIMULATE, "--json", cwd=ROOT)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["verdict"] == "PROVED"
    assert payload["privacy"]["verdict"] == "PROVED" and payload["privacy"]["claimed_epsilon"] == "epsilon"
    assert [r["status"] for r in payload["privacy"]["rounds"]] == ["PROVED", "PROVED"]
    assert out.stderr == ""


def test_without_privacy_the_verdict_is_ok():
    assert cli.main(["simulate", "kv2", "--n", "1000", "--trials", "2", "--quiet"]) == 0


def test_a_refuted_round_exits_1(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(joseph.PROTOCOLS, "kv2", lambda: _kv2_with(tmp_path, claimed="epsilon*99/100"))
    assert cli.main([*SIMULATE, "--json"]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["verdict"] == "REFUTED" and payload["privacy"]["verdict"] == "REFUTED"
    rounds = {r["round"]: r["status"] for r in payload["privacy"]["rounds"]}
    assert rounds == {"RR1": "PROVED", "KVRR2": "REFUTED"}
    assert payload["privacy"]["reason"].startswith("round KVRR2 (KVRR2): REFUTED")
    # the console says the same, with the reason
    assert cli.main([*SIMULATE, "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "REFUTED: RR1 PROVED at epsilon, KVRR2 REFUTED at 99*epsilon/100" in out
    assert "round KVRR2 (KVRR2): REFUTED" in out


def test_a_user_answering_twice_is_over_budget(tmp_path):
    report = privacy_report(_kv2_with(tmp_path, users_from="RR1"))
    eps = sp.Symbol("epsilon", positive=True)
    assert report.status == "PROVED" and not report.sequential      # every round is proved ...
    assert sp.simplify(report.epsilon - 2 * eps) == 0                 # ... but a user spends 2ε
    assert report.verdict == "REFUTED" and report.witness == ("RR1", "KVRR2")
    assert "not sequentially interactive" in report.reason() and "2*epsilon > epsilon" in report.reason()


def _spec_at_half_epsilon(name, tmp_path):
    """A bundled spec whose channel and claim run at ε/2 (two such messages spend ε)."""
    text = (ROOT / "specs" / name).read_text()
    assert text.count('claimed_epsilon = "epsilon"') == 1 and "exp(epsilon)" in text
    spec = tmp_path / f"half_{name}"
    spec.write_text(text.replace('claimed_epsilon = "epsilon"', 'claimed_epsilon = "epsilon/2"')
                    .replace("exp(epsilon)", "exp(epsilon/2)"))
    return spec


def test_budget_split_over_two_messages_is_proved(tmp_path):
    """Two messages at ε/2 each stay within ε: PROVED although the user answers twice."""
    proto = _kv2_with(tmp_path, users_from="RR1")
    rounds = tuple(dataclasses.replace(r, randomizer=dataclasses.replace(
        r.randomizer, spec=_spec_at_half_epsilon(spec, tmp_path)))
        for r, spec in zip(proto.rounds, ["joseph_rr1.toml", "joseph_kvrr2.toml"]))
    report = privacy_report(dataclasses.replace(proto, rounds=rounds))
    assert [r.status for r in report.rounds] == ["PROVED", "PROVED"] and not report.sequential
    assert sp.simplify(report.epsilon - sp.Symbol("epsilon", positive=True)) == 0
    assert report.verdict == "PROVED"
