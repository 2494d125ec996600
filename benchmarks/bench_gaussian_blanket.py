"""Shuffling the Gaussian mechanism (issue 18 item 3b without pure LDP): the privacy-blanket
bound of ldpaudit/account/gaussian_blanket.py against the obvious baseline in the same run, the
best upper bound before it (one report, or the report clipped to [low - T, high + T] under the
clone bound; ldpaudit/account/gaussian_shuffle.py), and against the best rigorous lower bound.
For the spec's example σ = sqrt(2 ln 125000) and for σ = 1, n = 10^4 .. 10^6, δ = 1e-8: each
bound's ε, wall and CPU seconds and peak traced memory (tracemalloc), the ratios
blanket/baseline and blanket/lower, and the blanket's parts (end pair, pairs near the diagonal).

    PYTHONPATH=. python benchmarks/bench_gaussian_blanket.py
"""
from __future__ import annotations

import time
import tracemalloc

from ldpaudit.account import gaussian_shuffle as G
from ldpaudit.mechanism.loader import load_bound

SIGMAS = ("sqrt(2*log(125000))", "1")
NS = (10_000, 100_000, 1_000_000)
DELTA = 1e-8


def _timed(fn, *args):
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn(*args)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    tracemalloc.start()
    fn(*args)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return value, wall, cpu, peak


def main() -> None:
    print("| σ | n | baseline ε (one report / truncation) | its s | blanket ε | its s (CPU) | peak MB | "
          "blanket/baseline | lower ε | blanket/lower | end pair | near pairs |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for sigma in SIGMAS:
        mech = load_bound("specs/gaussian.toml", [f"sigma={sigma}", "epsilon=1"])
        der = G._Derived(mech)
        local = G._up(der.epsilon_bracket(1, DELTA)[1])
        for n in NS:
            (trunc, _), t_base, _, _ = _timed(G.truncated_epsilon, der, n, DELTA)
            base = min(local, trunc)
            blanket, t_b, c_b, peak = _timed(G.blanket_epsilon, der, n, DELTA, local)
            lower = max(G._down(der.epsilon_bracket(n, DELTA)[0]), G.count_lower(der, n, DELTA)[0])
            eps = blanket.epsilon
            print(f"| {sigma} | {n:,} | {base:.6g} | {t_base:.2f} | {eps:.6g} | {t_b:.2f} ({c_b:.2f}) | {peak:.0f} | "
                  f"{eps / base:.4f} | {lower:.6g} | {eps / lower:.3f} | {blanket.epsilon_end:.6g} | "
                  f"{blanket.epsilon_near:.6g} |", flush=True)


if __name__ == "__main__":
    main()
