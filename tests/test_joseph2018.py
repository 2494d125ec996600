"""`ldpaudit reproduce joseph2018`: the four protocols with n, ε, error quantile and slope; each
slope within 0.1 of -1/2; KVGausstimate beats clipped Laplace by at least 5x at R/σ = 1000; every
randomizer verified. The default suite checks the committed JSON (test_reproduce regenerates it
and fails on any difference); the slow test runs the command itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "proofs" / "joseph2018" / "joseph2018.json"


def _check(payload: dict) -> None:
    protocols = payload["protocols"]
    assert [p["name"] for p in protocols] == ["KVGausstimate", "1RoundKVGausstimate", "UVGausstimate",
                                              "1RoundUVGausstimate"]
    assert [p["interaction_rounds"] for p in protocols] == [2, 1, 2, 1]
    for p in protocols:
        assert len(p["rows"]) >= 4
        for row in p["rows"]:
            assert row["epsilon"] == 1.0 and row["n"] > 0
            assert 0 < row["quantile_low"] <= row["quantile"] <= row["quantile_high"]
        assert abs(p["slope"] + 0.5) <= 0.1, (p["name"], p["slope"])
        # every round's randomizer is proved ε-LDP for all real inputs and all public values
        assert p["privacy"]["status"] == "PROVED", p["privacy"]
        assert p["privacy"]["epsilon"] == "epsilon" and p["privacy"]["sequentially_interactive"]
        for rnd in p["privacy"]["rounds"]:
            assert rnd["status"] == "PROVED" and rnd["epsilon"] == "epsilon", rnd
    assert payload["baseline"]["privacy"]["status"] == "PROVED"
    cmp = payload["kv2_vs_laplace"]
    assert cmp["R_over_sigma"] == 1000.0
    assert min(cmp["ratio"]) >= 5
    kv2 = {r["n"]: r["quantile"] for r in protocols[0]["rows"]}
    for row in payload["baseline"]["rows"]:               # same n, same ε
        assert row["quantile"] >= 5 * kv2[row["n"]]
    sweep = {r["R_over_sigma"]: r for r in payload["R_sweep"]}
    assert sweep[1000.0]["ratio"] >= 5
    # the protocol's error barely depends on R, the baseline's grows with it
    assert sweep[10_000.0]["kv2_quantile"] < 2 * sweep[10.0]["kv2_quantile"]
    assert sweep[10_000.0]["laplace_quantile"] > 100 * sweep[10.0]["laplace_quantile"]
    items = {r["item"] for r in payload["reconstruction"]}
    assert {"RR1", "KVRR2/KVAgg2", "KVAgg1/EstMean1", "EstVar", "group sizes"} <= items


def test_committed_joseph2018_results():
    _check(json.loads(COMMITTED.read_text(encoding="utf-8")))


@pytest.mark.slow
def test_reproduce_joseph2018_json(tmp_path):
    out = subprocess.run([sys.executable, "-m", "ldpaudit.cli", "reproduce", "joseph2018", "--out", str(tmp_path),
                          "--json"], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    _check(payload)
    assert (tmp_path / "joseph2018" / "joseph2018_error_vs_n.png").stat().st_size > 1000
    assert (tmp_path / "joseph2018" / "joseph2018.json").read_text(encoding="utf-8") == \
        COMMITTED.read_text(encoding="utf-8")
