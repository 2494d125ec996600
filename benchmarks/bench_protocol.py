"""KVGausstimate (known variance, two rounds) at 10^6 users × 100 trials, against a plain-Python
loop over users measured in the same run on fewer users and extrapolated linearly.

    python benchmarks/bench_protocol.py [--users 1000000] [--trials 100]

Three ways to run the same protocol (ε = 1, σ = 1, R = 1000, μ = R/3):

* ``law``   — ldpaudit.protocol.simulate with exact count laws: every RR round's histogram is a
  Multinomial/Binomial draw with the exact report probabilities under N(μ, σ²) (the analyst's
  whole view, in law); the aggregators are the same code as for per-user draws;
* ``users`` — every user's x is drawn, quantized and randomized (vectorized numpy, in trial blocks);
* ``loop``  — a plain-Python loop over users (random.gauss, math.floor, random.random) with the
  same aggregation, timed on ``--loop-users`` users × 2 trials and extrapolated to users × trials.
"""

from __future__ import annotations

import argparse
import math
import random
import time

import numpy as np

from ldpaudit.protocol.joseph import kv_levels, kv_two_round
from ldpaudit.protocol.aggregate import debias_rr, inverse_normal_estimate, median_search
from ldpaudit.protocol.simulate import Gaussian, run

EPS, SIGMA, R = 1.0, 1.0, 1000.0
MU = R / 3


def loop_protocol(n: int, rng: random.Random) -> float:
    """KVGausstimate with a Python loop over users (the obvious baseline)."""
    L = kv_levels(R, SIGMA)
    half = n // 2
    k4 = math.exp(EPS) / (math.exp(EPS) + 3)
    k2 = math.exp(EPS) / (math.exp(EPS) + 1)
    counts = [[0] * 4 for _ in range(L)]
    for i in range(half):
        j = i * L // half
        x = rng.gauss(MU, SIGMA)
        v = math.floor(x / (SIGMA * 2**j)) % 4
        if rng.random() >= k4:
            v = (v + rng.randrange(1, 4)) % 4
        counts[j][v] += 1
    mu1 = float(median_search(debias_rr(np.array(counts)[None], EPS), SIGMA)[0])
    plus = 0
    for _ in range(n - half):
        x = rng.gauss(MU, SIGMA)
        s = x >= mu1
        if rng.random() >= k2:
            s = not s
        plus += s
    freq = debias_rr(np.array([[n - half - plus, plus]]), EPS)
    return float(inverse_normal_estimate(mu1, freq[:, 1], SIGMA, n - half)[0])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=10**6)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--loop-users", type=int, default=100_000)
    args = ap.parse_args()
    proto = kv_two_round()
    consts = {"n": args.users, "epsilon": EPS, "sigma": SIGMA, "R": R}
    pop = Gaussian(MU, SIGMA)
    run(proto, {**consts, "n": 10_000}, pop, trials=2, seed=0)          # warm up imports (scipy)
    results = {}
    for method in ("law", "users"):
        t0 = time.perf_counter()
        est = run(proto, consts, pop, trials=args.trials, seed=1, method=method)
        results[method] = (time.perf_counter() - t0, float(np.quantile(np.abs(est - MU), 0.95)))
    rng = random.Random(2)
    t0 = time.perf_counter()
    loop_err = [abs(loop_protocol(args.loop_users, rng) - MU) for _ in range(2)]
    loop_seconds = (time.perf_counter() - t0) / (2 * args.loop_users) * args.users * args.trials
    total = args.users * args.trials
    print(f"KVGausstimate, {args.users:,} users x {args.trials} trials = {total:.0e} user reports "
          f"(eps={EPS}, sigma={SIGMA}, R={R}):")
    for method, (sec, q) in results.items():
        print(f"  {method:>5}: {sec:8.2f} s   ({total / sec:.3g} users/s; 95% error quantile {q:.4f})  "
              f"speed-up vs loop {loop_seconds / sec:,.0f}x")
    print(f"   loop: {loop_seconds:8.1f} s extrapolated from {args.loop_users:,} users x 2 trials "
          f"(errors {', '.join(f'{e:.4f}' for e in loop_err)})")


if __name__ == "__main__":
    main()
