"""Region claims (ldpaudit prove): CPU time and peak memory to decide each claim of
proofs/theorems/*.toml, beside the obvious baseline measured in the same run: evaluating Ye &
Barg's ratios on the 36-point grid (the bundled manifest's ratios table), which proves nothing.

    python benchmarks/bench_theorems.py [--seconds 60]
"""

from __future__ import annotations

import argparse
import sys
import time
import resource
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's ldpaudit, not an installed one


def measure(func):
    """(result, CPU seconds, the process's peak resident memory so far in MiB). tracemalloc is
    not used: it slows sympy and mpmath several times, and the CPU figure is the acceptance one."""
    start = time.process_time()
    out = func()
    cpu = time.process_time() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out, cpu, peak


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=60.0)
    args = ap.parse_args()
    import tempfile
    from dataclasses import replace

    from ldpaudit.papers.build import build
    from ldpaudit.papers.bundled import bundled_manifest
    from ldpaudit.papers.manifest import load_manifest
    from ldpaudit.theorems.claims import load_claims
    from ldpaudit.theorems.prover import prove_claim

    manifest = load_manifest(bundled_manifest("yebarg2017"))
    ratios = replace(manifest, items=tuple(i for i in manifest.items if i.key == "table:ratios"))
    with tempfile.TemporaryDirectory() as tmp:
        _, grid_cpu, grid_mem = measure(lambda: build(ratios, tmp, force=True))
    print(f"baseline: Ye & Barg 36-point grid (no proof): {grid_cpu:.2f} s CPU, peak RSS {grid_mem:.0f} MiB")
    print("| file | claim | verdict | CPU s (incl. loading) | peak RSS so far, MiB | CPU / grid |")
    print("|---|---|---|---|---|---|")
    for path in sorted((ROOT / "proofs" / "theorems").glob("*.toml")):
        cf, load_cpu, _ = measure(lambda: load_claims(path))
        for claim in cf.claims:
            r, cpu, mem = measure(lambda: prove_claim(cf, claim, seconds=args.seconds))
            total = cpu + load_cpu / len(cf.claims)
            print(f"| {path.name} | {claim.name} | {r.status} | {total:.2f} | {mem:.0f} | {total / grid_cpu:.2f}x |")


if __name__ == "__main__":
    main()
