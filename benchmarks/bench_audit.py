"""Audit benchmark: power of the black-box auditor near the statistical limit, speed of the
vectorized and per-call paths, and the false-alarm rate on correct randomizers.

    python benchmarks/bench_audit.py            # everything (a few minutes on 2 cores)
    python benchmarks/bench_audit.py power      # one section: power, speed, alarms
"""
from __future__ import annotations

import math
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import faulty_randomizers as F  # noqa: E402
from ldpaudit.audit import audit  # noqa: E402
from ldpaudit.mechanism import catalog as C  # noqa: E402
from ldpaudit.mechanism import randomizers as R  # noqa: E402

D, EPS, N, ALPHA = 25, 1.0, 10**6, 0.005


def power():
    """ε_lb/ε at d=25, ε=1, 10^6 draws per input, α=0.005, black-box and spec-guided."""
    k = round(D / (1 + math.e))
    cases = [
        ("k-RR", R.krr(d=D, epsilon=EPS), C.k_rr(d=D, epsilon=1)),
        ("k-RAPPOR", R.krappor(d=D, epsilon=EPS), C.k_rappor(d=D, epsilon=1)),
        ("OUE", R.oue(d=D, epsilon=EPS), C.oue(d=D, epsilon=1)),
        (f"k-subset (k={k})", R.ksubset(d=D, k=k, epsilon=EPS), C.k_subset(d=D, k=k, epsilon=1)),
    ]
    print(f"## power: d={D}, ε={EPS}, {N} draws per input, α={ALPHA}")
    print("| mechanism | mode | ε_lb | ε_lb/ε | detectable ε | seconds | witness |")
    print("|---|---|---|---|---|---|---|")
    ok = True
    for name, sampler, spec in cases:
        for mode in ("black-box", "spec-guided"):
            kwargs = {"spec": spec} if mode == "spec-guided" else {}
            r = audit(sampler, domain=range(D), epsilon=EPS, samples=N, alpha=ALPHA, batch=True, seed=0, **kwargs)
            w = r.witness
            ratio = r.epsilon_lower_bound / EPS
            ok &= ratio >= 0.90 and r.verdict == "NO_EVIDENCE"
            print(f"| {name} | {mode} | {r.epsilon_lower_bound:.4f} | {ratio:.3f} | {r.detectable_epsilon:.2f} | "
                  f"{r.seconds:.1f} | x={w['pair'][0]}, x'={w['pair'][1]}: {w['event']} "
                  f"({w['counts'][0]} vs {w['counts'][1]} of {w['samples'][0]}) |")
    print(f"acceptance (ε_lb/ε >= 0.90, no false VIOLATION): {'met' if ok else 'NOT MET'}\n")
    return ok


def speed():
    """Wall time of a vectorized k-RR audit with 10^6 draws for each of 2 inputs, and the
    per-call overhead: audit time vs the randomizer's own time for the same calls."""
    print("## speed")
    sampler = R.krr(d=D, epsilon=EPS)
    audit(sampler, domain=[0, 1], epsilon=EPS, samples=10**4, batch=True)  # warm up imports
    times = []
    for seed in range(3):
        t0 = time.perf_counter()
        audit(sampler, domain=[0, 1], epsilon=EPS, samples=N, alpha=ALPHA, batch=True, seed=seed)
        times.append(time.perf_counter() - t0)
    print(f"vectorized k-RR (d={D}), 10^6 draws x 2 inputs, full audit: best {min(times):.3f} s, "
          f"worst {max(times):.3f} s (acceptance <= 1 s: {'met' if max(times) <= 1 else 'NOT MET'})")

    rows = []
    for name, f in [("k-RR per call (d=25, random module)", F.krr_per_call(d=D, epsilon=EPS)),
                    ("k-subset tuple per call (d=10, k=3)", F.ksubset_ordered_tuple_per_call(d=10, k=3, epsilon=EPS))]:
        n = N if "k-RR" in name else 200_000
        own = total = math.inf
        for _ in range(3):   # best of 3, interleaved; CPU time, robust to other load on the machine
            random.seed(0)
            t0 = time.process_time()
            for x in (0, 1):
                [f(x) for _ in range(n)]   # the cheapest way to collect the outputs
            own = min(own, time.process_time() - t0)
            t0 = time.process_time()
            audit(f, domain=[0, 1], epsilon=EPS, samples=n, alpha=ALPHA, seed=1)
            total = min(total, time.process_time() - t0)
        t0 = time.perf_counter()
        audit(f, domain=[0, 1], epsilon=EPS, samples=n, alpha=ALPHA, seed=1, workers=2)
        two = time.perf_counter() - t0
        rows.append((name, n, own, total, (total - own) / own, two))
    print("| per-call randomizer | draws x 2 inputs | randomizer alone (CPU, best of 3) | audit (CPU, best of 3) | overhead | audit, 2 workers (wall) |")
    print("|---|---|---|---|---|---|")
    for name, n, own, total, over, two in rows:
        print(f"| {name} | {n} | {own:.2f} s | {total:.2f} s | {100 * over:.1f}% | {two:.2f} s |")
    print()


def alarms(per_case: int = 50):
    """False-alarm rate: seeded audits of correct randomizers claimed at exactly their tight ε."""
    alpha = 0.05
    cases = [
        ("W-RR ε=ln 3", R.wrr(epsilon=math.log(3)), [0, 1], math.log(3), True, 20_000),
        ("k-RR d=4 ε=1", R.krr(d=4, epsilon=1), range(4), 1.0, True, 20_000),
        ("k-RAPPOR d=4 ε=1", R.krappor(d=4, epsilon=1), range(4), 1.0, True, 20_000),
        ("k-subset d=6 k=2 ε=1", R.ksubset(d=6, k=2, epsilon=1), range(6), 1.0, True, 20_000),
        ("Laplace mean M=1 ε=1", R.laplace_mean(M=1, epsilon=1), [-1.0, 1.0], 1.0, True, 20_000),
        ("k-RR d=3 ε=2 per call", F.krr_per_call(d=3, epsilon=2), range(3), 2.0, False, 10_000),
    ]
    print(f"## false alarms: α = {alpha}, {per_case} seeds per case, claimed ε = tight ε")
    print("| randomizer | audits | VIOLATIONs | mean ε_lb/ε | max ε_lb/ε |")
    print("|---|---|---|---|---|")
    total = flagged = 0
    for name, f, dom, eps, batch, n in cases:
        ratios, hits = [], 0
        for seed in range(per_case):
            r = audit(f, domain=dom, epsilon=eps, samples=n, alpha=alpha, batch=batch, seed=1000 + seed)
            hits += r.verdict == "VIOLATION"
            ratios.append(r.epsilon_lower_bound / eps)
        total += per_case
        flagged += hits
        print(f"| {name} | {per_case} | {hits} | {np.mean(ratios):.3f} | {np.max(ratios):.3f} |")
    print(f"overall: {flagged}/{total} = {flagged / total:.4f} (must be <= α = {alpha})")

    spec_cases = [("k-RR d=4", R.krr(d=4, epsilon=1), C.k_rr(d=4, epsilon=1), range(4)),
                  ("k-subset d=6 k=2", R.ksubset(d=6, k=2, epsilon=1), C.k_subset(d=6, k=2, epsilon=1), range(6))]
    print("| spec-guided | audits | VIOLATIONs | conformance rejections |")
    print("|---|---|---|---|")
    for name, f, spec, dom in spec_cases:
        v = c = 0
        for seed in range(per_case):
            r = audit(f, domain=dom, epsilon=1, samples=20_000, alpha=alpha, batch=True, spec=spec, seed=2000 + seed)
            v += r.verdict == "VIOLATION"
            c += not r.conformance["passed"]
        print(f"| {name} | {per_case} | {v} | {c} |")
    print()
    return flagged / total <= alpha


def main(argv):
    sections = argv[1:] or ["power", "speed", "alarms"]
    for s in sections:
        {"power": power, "speed": speed, "alarms": alarms}[s]()


if __name__ == "__main__":
    main(sys.argv)
