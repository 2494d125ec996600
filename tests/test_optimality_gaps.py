"""Optimality gaps (issue 20 item 4): derived worst-case risks over the published minimax
lower-bound rates, checked against the reference formulas (formulas.md) typed here. Ye & Barg's
are the bundled manifest's table (proofs/yebarg2017/table-gaps.json, which
tests/test_reproduce.py regenerates and compares)."""
from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

PROOFS = Path(__file__).resolve().parents[1] / "proofs"


def test_yebarg_gaps_against_reference_formulas():
    table = json.loads((PROOFS / "yebarg2017" / "table-gaps.json").read_text(encoding="utf-8"))
    gaps = [({k: float(Fraction(v)) for k, v in row["parameters"].items()},
             {c["label"]: c["value"] for c in row["cells"]}) for row in table["rows"]]
    assert len(gaps) == 20 and all(math.exp(p["epsilon"]) < p["d"] for p, _ in gaps)
    for p, g in gaps:
        d, t = p["d"], math.exp(p["epsilon"])
        rate = d * t / (t - 1) ** 2                                   # Ye & Barg Thm IV.1, constant 1, n = 1
        krr_l2 = ((t + d - 1) / (t - 1)) ** 2 * (1 - 1 / d)          # formulas.md, n = 1
        rappor_l2 = (1 - 1 / d) * (1 + d**2 * math.sqrt(t) / ((d - 1) * (math.sqrt(t) - 1) ** 2))
        assert g["l2^2 k-RR"] == pytest.approx(krr_l2 / rate, rel=1e-9)
        assert g["l2^2 k-RAPPOR"] == pytest.approx(rappor_l2 / rate, rel=1e-9)
        krr_l1 = (t + d - 1) / (t - 1) * math.sqrt(2 * (d - 1) / math.pi)
        assert g["l1 k-RR"] == pytest.approx(krr_l1 / (d * math.sqrt(t) / (t - 1)), rel=1e-9)
        # k-subset at its optimal k is order-optimal: its ratio stays near 4 (ℓ2²), 2·sqrt(2/π) (ℓ1)
        assert 3.2 <= g["l2^2 k-subset"] <= 4.05
        assert 1.4 <= g["l1 k-subset"] <= 1.61
        assert g["l2^2 k-subset"] <= min(g["l2^2 k-RR"], g["l2^2 k-RAPPOR"]) + 1e-12
    big = [g for p, g in gaps if p["d"] == 10_000 and p["epsilon"] == 0.5][0]
    assert big["l2^2 k-RR"] > 1000                                   # k-RR is far from the bound there


def test_duchi_gap_limits():
    from ldpaudit.derive import hit_risk, unbiased_estimator
    from ldpaudit.mechanism.catalog import k_rappor
    from ldpaudit.papers.documents import Document
    from ldpaudit.papers.hooks.duchi2013 import _minimax_gap

    rap = k_rappor()
    d, e = rap.symbols["d"], rap.symbols["epsilon"]
    out = _minimax_gap(Document("t"), hit_risk(unbiased_estimator(rap), "iid").l2_worst, d, e)
    assert out["small_alpha_limits"] == {"k-RAPPOR": "4", "k-RR": "d - 1"}
    for row in out["rows"]:
        s, dd, a = math.exp(row["alpha"] / 2), row["d"], row["alpha"]
        rappor = (1 - 1 / dd) * (1 + dd**2 * s / ((dd - 1) * (s - 1) ** 2))   # formulas.md, n = 1
        assert row["k-RAPPOR"] == pytest.approx(rappor / (dd / a**2), rel=1e-9)
