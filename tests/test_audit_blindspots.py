"""The auditor's blind spots (issue 12): rare outputs, pooled events, float-level leaks,
user projections. Every audit fixes its seed and states α and the samples per input; each
planted leak must be flagged and its correct twin left alone. The many-seed runs are slow.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import blindspot_randomizers as B
from ldpaudit.audit import audit
from ldpaudit.audit import bounds
from ldpaudit.audit.rare import could_certify

ALPHA = 0.05
N_RARE = 2_000_000


# -- rare outputs -------------------------------------------------------------------------

def test_could_certify_is_the_bound_of_scaled_counts():
    """Exploration 100 of 5·10^5 under x and 20 under x', confirmation 1.5·10^6: the score is
    the Clopper-Pearson bound of 300 vs 60 hits."""
    got = could_certify(100, 500_000, 20, 500_000, 1_500_000, 0.01)
    want = math.log(bounds.cp_lower(300, 1_500_000, 0.01) / bounds.cp_upper(60, 1_500_000, 0.01))
    assert got == pytest.approx(want, rel=1e-9)
    # x' pooled over 3 inputs: 60 hits in 1.5·10^6 trials become 180 in 4.5·10^6.
    pooled = could_certify(100, 500_000, 60, 1_500_000, 1_500_000, 0.01, 4_500_000)
    assert pooled == pytest.approx(math.log(bounds.cp_lower(300, 1_500_000, 0.01)
                                            / bounds.cp_upper(180, 4_500_000, 0.01)), rel=1e-9)
    assert pooled > got


RARE_LEAKS = [
    ("k-RR + error 2e-4 vs 4e-5", B.krr_rare_error(), math.log(5)),
    ("k-RR + error only under x=0", B.krr_rare_error(p_bad=1e-4, p_good=0.0), math.inf),
    ("OUE + marker 2e-4 vs 4e-5", B.oue_rare_marker(), math.log(5)),
]
RARE_TWINS = [
    ("k-RR + error 1e-4 everywhere", B.krr_rare_error(p_bad=1e-4, p_good=1e-4)),
    ("OUE + marker 1e-4 everywhere", B.oue_rare_marker(p_bad=1e-4, p_good=1e-4)),
]


@pytest.mark.parametrize("name, f, true_eps", RARE_LEAKS[:2], ids=[c[0] for c in RARE_LEAKS[:2]])
def test_rare_output_leak_is_flagged(name, f, true_eps):
    """d = 4, ε = 1, 2·10^6 draws per input, α = 0.05: the error output alone certifies ε > 1."""
    r = audit(f, domain=range(4), epsilon=1, samples=N_RARE, alpha=ALPHA, seed=0, batch=True)
    assert r.verdict == "VIOLATION", r
    assert 1 < r.epsilon_lower_bound <= true_eps
    assert r.witness["event"] == "y in {-1}" and r.witness["pair"][0] == 0
    assert r.witness["family"] == "rare"


def test_rare_output_twin_is_not_flagged():
    name, f = RARE_TWINS[0]
    r = audit(f, domain=range(4), epsilon=1, samples=N_RARE, alpha=ALPHA, seed=0, batch=True)
    assert r.verdict == "NO_EVIDENCE", r
    assert r.epsilon_lower_bound > 0.95      # the k-RR part is still measured near its tight ε


@pytest.mark.slow
@pytest.mark.parametrize("name, f, true_eps", RARE_LEAKS, ids=[c[0] for c in RARE_LEAKS])
def test_rare_output_leak_power_over_seeds(name, f, true_eps):
    """20 seeds at 2·10^6 draws per input, α = 0.05: flagged at least 19 times."""
    flagged = sum(audit(f, domain=range(4), epsilon=1, samples=N_RARE, alpha=ALPHA, seed=100 + s,
                        batch=True).verdict == "VIOLATION" for s in range(20))
    assert flagged >= 19


@pytest.mark.slow
@pytest.mark.parametrize("name, f", RARE_TWINS, ids=[c[0] for c in RARE_TWINS])
def test_rare_output_twin_false_alarms_over_seeds(name, f):
    """20 seeds of the correct twin at α = 0.05: at most 3 VIOLATIONs (P = 0.016 of more
    under a false-alarm rate of exactly α)."""
    flagged = sum(audit(f, domain=range(4), epsilon=1, samples=N_RARE, alpha=ALPHA, seed=200 + s,
                        batch=True).verdict == "VIOLATION" for s in range(20))
    assert flagged <= 3
