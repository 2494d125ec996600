"""Sequential mode: false-alarm rate under optional stopping, and draws needed against the
fixed-n mode at equal power, measured in the same run.

    python benchmarks/bench_sequential.py
"""

from __future__ import annotations

import time

import numpy as np

from ldpaudit.audit import audit
from ldpaudit.audit.sequential import sequential_audit
from ldpaudit.mechanism import k_rr
from ldpaudit.mechanism.randomizers import krappor, krr, oue


def false_alarms(runs: int = 300, alpha: float = 0.05) -> None:
    cases = [("k-RR d=4", krr(d=4, epsilon=1.0), None), ("k-RAPPOR d=4", krappor(d=4, epsilon=1.0), None),
             ("OUE d=4", oue(d=4, epsilon=1.0), None), ("k-RR d=4, spec-guided", krr(d=4, epsilon=1.0), k_rr(d=4, epsilon=1))]
    t0 = time.perf_counter()
    alarms = 0
    for seed in range(runs):
        name, f, spec = cases[seed % len(cases)]
        result, _ = sequential_audit(f, domain=range(4), epsilon=1.0, budget=50_000, alpha=alpha, seed=seed,
                                     batch=True, spec=spec)
        alarms += result.verdict == "VIOLATION"
    print(f"false alarms at the tight ε: {alarms}/{runs} = {alarms / runs:.3%} (α = {alpha}); "
          f"{time.perf_counter() - t0:.1f} s")


def power(eps_true: float = 1.12, seeds: int = 40) -> None:
    bad = krr(d=4, epsilon=eps_true)
    used, caught = [], 0
    for seed in range(seeds):
        result, _ = sequential_audit(bad, domain=range(4), epsilon=1.0, budget=200_000, alpha=0.05, seed=seed,
                                     batch=True, first=1_000, explore=1_000)
        caught += result.verdict == "VIOLATION"
        used.append(result.samples_per_input)
    seq_power = caught / seeds
    print(f"planted fault k-RR ε={eps_true} claimed 1: sequential power {seq_power:.3f}, "
          f"draws per input mean {np.mean(used):,.0f}, median {np.median(used):,.0f}, max {max(used):,}")
    grid = list(range(4_000, 24_001, 2_000))
    curve = []
    for n in grid:
        p = sum(audit(bad, domain=range(4), epsilon=1.0, samples=n, alpha=0.05, seed=s, batch=True).verdict
                == "VIOLATION" for s in range(seeds)) / seeds
        curve.append(p)
        print(f"  fixed n = {n:>6,}: power {p:.3f}")
    reliable = next(n for i, n in enumerate(grid) if all(p >= seq_power for p in curve[i:]))
    print(f"fixed-n needs {reliable:,} draws per input to reach power {seq_power:.3f} at every larger n; "
          f"ratio sequential/fixed = {np.mean(used) / reliable:.2f}")


if __name__ == "__main__":
    false_alarms()
    power()
