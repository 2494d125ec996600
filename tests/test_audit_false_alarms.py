"""False alarms: a correct randomizer claimed at exactly its tight ε must be flagged with
probability at most α. 240 seeded audits at α = 0.05 (slow: run with ``pytest -m slow``).

With a true rate of α = 0.05 the number of VIOLATIONs among 240 audits would be
Binomial(240, 0.05), mean 12; the test fails if it exceeds 21 (P = 0.006 under rate α), so a
miscalibrated auditor (rate well above α) is caught while a calibrated one passes. The
auditor is conservative by construction (Clopper-Pearson, Bonferroni), so the observed rate
is far below α; benchmarks/README.md records it.
"""
from __future__ import annotations

import math

import pytest

import faulty_randomizers as F
from ldpaudit.audit import audit
from ldpaudit.mechanism import catalog as C
from ldpaudit.mechanism import randomizers as R

ALPHA = 0.05
SEEDS = 40
CASES = [
    ("W-RR ε=ln 3", R.wrr(epsilon=math.log(3)), [0, 1], math.log(3), True, 20_000),
    ("k-RR d=4", R.krr(d=4, epsilon=1), range(4), 1.0, True, 20_000),
    ("k-RAPPOR d=4", R.krappor(d=4, epsilon=1), range(4), 1.0, True, 20_000),
    ("k-subset d=6 k=2", R.ksubset(d=6, k=2, epsilon=1), range(6), 1.0, True, 20_000),
    ("Laplace mean", R.laplace_mean(M=1, epsilon=1), [-1.0, 1.0], 1.0, True, 20_000),
    ("k-RR d=3 ε=2 per call", F.krr_per_call(d=3, epsilon=2), range(3), 2.0, False, 10_000),
]


@pytest.mark.slow
def test_false_alarm_rate_at_most_alpha():
    flagged = []
    ratios = []
    for name, f, domain, eps, batch, n in CASES:
        for seed in range(SEEDS):
            r = audit(f, domain=domain, epsilon=eps, samples=n, alpha=ALPHA, batch=batch, seed=1000 + seed)
            ratios.append(r.epsilon_lower_bound / eps)
            if r.verdict == "VIOLATION":
                flagged.append((name, seed, r.epsilon_lower_bound))
    total = len(CASES) * SEEDS
    assert total >= 200
    assert len(flagged) <= 21, flagged
    # The audits are not trivially weak: the bounds come close to the tight ε.
    assert sum(ratios) / len(ratios) > 0.75


@pytest.mark.slow
def test_spec_guided_false_alarms_and_conformance():
    """Spec-guided audits of correct randomizers: VIOLATION and conformance rejection each at
    most α of the time (80 audits; fails above 9, P = 0.008 under rate α)."""
    violations = rejections = 0
    cases = [(R.krr(d=4, epsilon=1), C.k_rr(d=4, epsilon=1), range(4)),
             (R.ksubset(d=6, k=2, epsilon=1), C.k_subset(d=6, k=2, epsilon=1), range(6))]
    for f, spec, domain in cases:
        for seed in range(40):
            r = audit(f, domain=domain, epsilon=1, samples=20_000, alpha=ALPHA, batch=True, spec=spec, seed=2000 + seed)
            violations += r.verdict == "VIOLATION"
            rejections += not r.conformance["passed"]
    assert violations <= 9 and rejections <= 9, (violations, rejections)
