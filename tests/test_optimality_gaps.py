"""Optimality gaps (issue 20 item 4): derived worst-case risks over the published minimax
lower-bound rates, checked against the reference formulas (formulas.md) typed here."""
from __future__ import annotations

import math

import pytest
import sympy as sp

from ldpaudit.report.yebarg2017 import lower_bound_rate, optimality_gaps


def test_yebarg_gaps_against_reference_formulas():
    gaps = optimality_gaps()
    assert gaps and all(math.exp(g["epsilon"]) < g["d"] for g in gaps)
    for g in gaps:
        d, eps = g["d"], g["epsilon"]
        t = math.exp(eps)
        rate = d * t / (t - 1) ** 2
        krr_l2 = ((t + d - 1) / (t - 1)) ** 2 * (1 - 1 / d)          # formulas.md, n = 1
        assert g["l2"]["lower_bound_rate"] == pytest.approx(rate, rel=1e-12)
        assert g["l2"]["k-RR / bound"] == pytest.approx(krr_l2 / rate, rel=1e-9)
        assert g["l1"]["lower_bound_rate"] == pytest.approx(d * math.sqrt(t) / (t - 1), rel=1e-12)
        # k-subset at its optimal k is order-optimal: its ratio stays near 4 (ℓ2²), 2·sqrt(2/π) (ℓ1)
        assert 3.2 <= g["l2"]["k-subset / bound"] <= 4.05
        assert 1.4 <= g["l1"]["k-subset / bound"] <= 1.61
        assert g["l2"]["k-subset / bound"] <= min(g["l2"]["k-RR / bound"], g["l2"]["k-RAPPOR / bound"]) + 1e-12
    big = [g for g in gaps if g["d"] == 10_000 and g["epsilon"] == 0.5][0]
    assert big["l2"]["k-RR / bound"] > 1000                          # k-RR is far from the bound there
    assert float(lower_bound_rate(100, sp.Integer(1), "l2", n=10)) == pytest.approx(100 * math.e / (10 * (math.e - 1) ** 2))


def test_duchi_gap_limits():
    from ldpaudit.derive import hit_risk, unbiased_estimator
    from ldpaudit.mechanism.catalog import k_rappor
    from ldpaudit.report.documents import Document
    from ldpaudit.report.duchi2013 import _minimax_gap

    rap = k_rappor()
    d, e = rap.symbols["d"], rap.symbols["epsilon"]
    out = _minimax_gap(Document("t"), hit_risk(unbiased_estimator(rap), "iid").l2_worst, d, e)
    assert out["small_alpha_limits"] == {"k-RAPPOR": "4", "k-RR": "d - 1"}
    for row in out["rows"]:
        s, dd, a = math.exp(row["alpha"] / 2), row["d"], row["alpha"]
        rappor = (1 - 1 / dd) * (1 + dd**2 * s / ((dd - 1) * (s - 1) ** 2))   # formulas.md, n = 1
        assert row["k-RAPPOR"] == pytest.approx(rappor / (dd / a**2), rel=1e-9)
