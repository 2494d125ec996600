"""(ε, δ) audits (``audit --delta``): power on the undersized Gaussian, false alarms on the
correctly calibrated Gaussian and on Laplace. The targets are tests/delta_randomizers.py.

    python benchmarks/bench_delta.py [power|alarms]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from scipy import optimize

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import delta_randomizers as D  # noqa: E402

from ldpaudit.audit import audit  # noqa: E402


def _audit(f, delta, n, seed, alpha):
    return audit(f, domain=D.DOMAIN, epsilon=D.EPSILON, delta=delta, samples=n, alpha=alpha, seed=seed, batch=True)


def power(seeds: int = 20, alpha: float = 0.01) -> None:
    sigma = D.SIGMA_UNDERSIZED
    print(f"undersized Gaussian σ = {sigma:.4f} (analytic σ for (1, 1e-5) is {D.SIGMA_CORRECT:.4f}); "
          f"true δ(1) = {D.gaussian_delta(sigma, 1.0):.4f}; α = {alpha}, {seeds} seeds")
    print("| claimed δ | true ε at δ | draws per input | flagged | mean ε_lb | s per audit |")
    print("|---|---|---|---|---|---|")
    for delta in (1e-5, 1e-3, 0.03, 0.05, 0.1):
        eps_true = optimize.brentq(lambda e: D.gaussian_delta(sigma, e) - delta, 0.0, 50.0)
        for n in (10_000, 30_000, 100_000):
            t0 = time.perf_counter()
            rs = [_audit(D.gaussian_undersized, delta, n, seed, alpha) for seed in range(seeds)]
            dt = (time.perf_counter() - t0) / seeds
            flagged = sum(r.verdict == "VIOLATION" for r in rs)
            lb = np.mean([r.epsilon_lower_bound for r in rs])
            print(f"| {delta:g} | {eps_true:.3f} | {n:,} | {flagged}/{seeds} | {lb:.3f} | {dt:.2f} |")


def alarms(seeds: int = 200, alpha: float = 0.05, n: int = 100_000) -> None:
    cases = [("Gaussian, analytic σ for (1, 1e-5)", D.gaussian_correct, 1e-5),
             ("Gaussian, analytic σ for (1, 1e-2)", D.gaussian(D.analytic_sigma(1.0, 1e-2)), 1e-2),
             ("Laplace ε = 1 (pure)", D.laplace_correct, 1e-5)]
    print(f"false alarms: {seeds} seeds (5000..) each, α = {alpha}, {n:,} draws per input")
    print("| randomizer | claimed δ | VIOLATIONs | mean ε_lb | max ε_lb | s |")
    print("|---|---|---|---|---|---|")
    for name, f, delta in cases:
        t0 = time.perf_counter()
        rs = [_audit(f, delta, n, 5000 + seed, alpha) for seed in range(seeds)]
        flagged = sum(r.verdict == "VIOLATION" for r in rs)
        lbs = [r.epsilon_lower_bound for r in rs]
        print(f"| {name} | {delta:g} | {flagged}/{seeds} | {np.mean(lbs):.3f} | {np.max(lbs):.3f} | "
              f"{time.perf_counter() - t0:.1f} |")


if __name__ == "__main__":
    which = sys.argv[1:] or ["power", "alarms"]
    for name in which:
        {"power": power, "alarms": alarms}[name]()
