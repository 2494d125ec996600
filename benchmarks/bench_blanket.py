"""The privacy-blanket bound after shuffling (issue 18 item 3b, ldpaudit/account/blanket.py):
time, peak memory and the ε it proves, beside the obvious baseline measured in the same run,
the generic clone bound of Feldman, McMillan & Talwar from ε0 alone (ldpaudit/account/shuffle.py).
Records CPU seconds and the peak RSS of this process (ru_maxrss).

    python benchmarks/bench_blanket.py
"""
from __future__ import annotations

import resource
import time


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


CASES = [  # (spec, params, n, δ, work budget of the three-class search in grid points, or None)
    ("krr", ("d=2", "epsilon=1"), 10**6, 1e-8, 10**7),
    ("krr", ("d=8", "epsilon=1"), 10**4, 1e-8, 10**6),
    ("krr", ("d=8", "epsilon=1"), 10**5, 1e-8, 10**7),
    ("krr", ("d=8", "epsilon=1"), 10**5, 1e-8, None),
    ("krr", ("d=16", "epsilon=2"), 10**5, 1e-8, None),
    ("krr", ("d=8", "epsilon=1"), 10**6, 1e-8, 10**7),
    ("krr", ("d=8", "epsilon=1"), 10**6, 1e-8, None),
    ("oue", ("d=4", "epsilon=1"), 10**4, 1e-8, None),
]


def main() -> None:
    from ldpaudit.account import blanket
    from ldpaudit.account.shuffle import generic_epsilon
    from ldpaudit.mechanism.loader import load_bound

    print("| spec | n | δ | budget | blanket ε | classes | CPU s | generic ε (FMT21) | CPU s | ε ratio | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for spec, params, n, delta, work in CASES:
        ch = blanket.channel_numbers(load_bound(spec, list(params)))
        eps0 = blanket.local_epsilon(ch)
        t = time.process_time()
        bound = blanket.blanket_epsilon(ch, n, delta, work=work,
                                        max_points=blanket.MAX_POINTS if work else 4_000_000)
        t_blanket = time.process_time() - t
        t = time.process_time()
        generic = generic_epsilon(eps0, n, delta)
        t_generic = time.process_time() - t
        classes = next(note.split()[0] for note in bound.notes if "output classes" in note)
        merged = " (merged)" if any("merged" in note for note in bound.notes) else ""
        merged += " (split off)" if any("split off" in note for note in bound.notes) else ""
        merged += " (stopped)" if any("stopped" in note for note in bound.notes) else ""
        budget = "none" if work is None else f"{work:,} points"
        print(f"| {spec} {' '.join(params)} | {n:,} | {delta:g} | {budget} | {bound.epsilon:.6f} | {classes}{merged} | "
              f"{t_blanket:.2f} | {generic:.6f} | {t_generic:.2f} | {bound.epsilon / generic:.3f} | {_peak_mb():.0f} |",
              flush=True)


if __name__ == "__main__":
    main()
