"""Cost of isolation: a 2 x 10^6-draw audit of a vectorized k-RR (d = 25, 80,000 draws per
input) through the default (isolated, sandboxed) CLI, against the same audit through the
Python API without isolation, in the same run.

    python benchmarks/bench_isolation.py [--repeats 5]

Whole processes (wall and CPU time, the CPU including the supervisor and worker processes):
- CLI, isolated:  python -m ldpaudit.cli audit benchmarks/krr_vectorized.py:make --batch ...
- CLI, --no-isolate
- Python API:     python -c "... ldpaudit.audit.audit(make(), ...)"
and, inside this process, the audit alone (``AuditResult.seconds``): isolated (worker already
started and not) and in-process. The machine is shared, so the load average is printed and
each figure is the median (and best) of the repeats, alternating the variants.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = "benchmarks/krr_vectorized.py:make"
AUDIT = ["audit", TARGET, "--batch", "--target-arg", "d=25", "--target-arg", "epsilon=1", "--domain", "0..24",
         "--epsilon", "1", "--samples", "80000", "--json"]
API = ("import importlib.util, ldpaudit\n"
       "spec = importlib.util.spec_from_file_location('k', 'benchmarks/krr_vectorized.py')\n"
       "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
       "r = ldpaudit.audit(m.make(d='25', epsilon='1'), domain=range(25), epsilon=1, samples=80000, batch=True)\n"
       "print(r.verdict)\n")


def run(argv) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, all descendants) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{argv} failed: {proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def in_process(isolate: bool) -> tuple[float, float]:
    """(audit seconds, start-up seconds of the worker) inside this process."""
    sys.path.insert(0, str(ROOT))
    from ldpaudit.audit import audit
    from ldpaudit.audit.external import isolated

    if isolate:
        import numpy as np

        start = time.perf_counter()
        with isolated(TARGET, {"d": "25", "epsilon": "1"}, batch=True) as randomizer:
            randomizer.draw_counts(0, 1, np.random.default_rng(0))
            started = time.perf_counter() - start
            result = audit(randomizer, domain=range(25), epsilon=1, samples=80000, batch=True)
        return result.seconds, started
    import importlib.util

    spec = importlib.util.spec_from_file_location("k", ROOT / "benchmarks/krr_vectorized.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return audit(module.make(), domain=range(25), epsilon=1, samples=80000, batch=True).seconds, 0.0


def per_call_figures(n: int = 200_000) -> tuple[float, float]:
    """Microseconds per call of a per-call k-RR: isolated (worker, histograms) vs in-process
    (the auditor's Sampler), both drawing n outputs."""
    import importlib.util

    import numpy as np

    sys.path.insert(0, str(ROOT))
    from ldpaudit.audit.adapters import Sampler
    from ldpaudit.audit.external import isolated

    with isolated("benchmarks/krr_vectorized.py:per_call") as randomizer:
        sampler = Sampler(randomizer, batch=True)
        sampler.draw(0, 10, np.random.SeedSequence(0))
        start = time.perf_counter()
        sampler.draw(3, n, np.random.SeedSequence(1))
        isolated_us = (time.perf_counter() - start) / n * 1e6
    spec = importlib.util.spec_from_file_location("k", ROOT / "benchmarks/krr_vectorized.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sampler = Sampler(module.per_call, batch=False)
    start = time.perf_counter()
    sampler.draw(3, n, np.random.SeedSequence(1))
    return isolated_us, (time.perf_counter() - start) / n * 1e6


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    py = sys.executable
    variants = {
        "CLI, isolated (default)": [py, "-m", "ldpaudit.cli", *AUDIT],
        "CLI, --no-isolate": [py, "-m", "ldpaudit.cli", *AUDIT, "--no-isolate"],
        "Python API process": [py, "-c", API],
        "python -c 'import numpy'": [py, "-c", "import numpy"],
    }
    print(f"load average at start: {os.getloadavg()}")
    times = {name: [] for name in variants}
    audit_only = {"isolated audit (AuditResult.seconds)": [], "worker start-up + first reply": [],
                  "in-process audit (AuditResult.seconds)": []}
    run(variants["CLI, isolated (default)"])  # warm the file cache
    for _ in range(args.repeats):
        for name, argv in variants.items():
            times[name].append(run(argv))
        seconds, started = in_process(True)
        audit_only["isolated audit (AuditResult.seconds)"].append(seconds)
        audit_only["worker start-up + first reply"].append(started)
        audit_only["in-process audit (AuditResult.seconds)"].append(in_process(False)[0])
    print(f"load average at end: {os.getloadavg()}")
    print(f"\n{'whole process':32s} {'wall median':>12s} {'wall best':>10s} {'CPU median':>11s} {'CPU best':>9s}")
    for name, values in times.items():
        walls, cpus = [w for w, _ in values], [c for _, c in values]
        print(f"{name:32s} {statistics.median(walls):11.2f}s {min(walls):9.2f}s {statistics.median(cpus):10.2f}s "
              f"{min(cpus):8.2f}s")
    print()
    for name, values in audit_only.items():
        print(f"{name:40s} median {statistics.median(values):.3f} s, best {min(values):.3f} s")
    iso = [w for w, _ in times["CLI, isolated (default)"]]
    api = [w for w, _ in times["Python API process"]]
    ratios = [a / b for a, b in zip(iso, api)]
    print(f"\nratio CLI isolated / Python API process (wall, per repeat): median {statistics.median(ratios):.2f}, "
          f"best {min(ratios):.2f}")
    iso_cpu = [c for _, c in times["CLI, isolated (default)"]]
    api_cpu = [c for _, c in times["Python API process"]]
    print(f"ratio CLI isolated / Python API process (CPU): median "
          f"{statistics.median([a / b for a, b in zip(iso_cpu, api_cpu)]):.2f}")
    figures = [per_call_figures() for _ in range(args.repeats)]
    print(f"per-call k-RR, 200,000 calls: isolated {statistics.median([f[0] for f in figures]):.2f} us/call, "
          f"in-process {statistics.median([f[1] for f in figures]):.2f} us/call (medians)")
    a, b = audit_only["isolated audit (AuditResult.seconds)"], audit_only["in-process audit (AuditResult.seconds)"]
    print(f"ratio isolated / in-process, audit alone: median {statistics.median([x / y for x, y in zip(a, b)]):.2f}")


if __name__ == "__main__":
    main()
