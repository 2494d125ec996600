"""Cost of isolation: a 2 x 10^6-draw audit of a vectorized k-RR (d = 25, 80,000 draws per
input) through the default (isolated, sandboxed) CLI, against the same audit through the
Python API without isolation, in the same run.

    python benchmarks/bench_isolation.py [--repeats 5]
    python benchmarks/bench_isolation.py throughput [--repeats 3] [--cases 100000x1000 ...]   # issue 31

``throughput``: isolated audits of k-RR over wide domains against raw numpy sampling of the
same randomizer (every input called once with its draws, nothing counted), d = 10^4 with 10^4
and with 10^3 draws per input, d = 10^5 with 10^3; each figure from a fresh process, the
variants alternated, CPU seconds (the auditor's ``time.process_time`` plus the supervisor's
and worker's CPU from ``/proc/<pid>/stat``), never wall time. The isolated figure is the audit
with its worker started and the auditor's libraries imported (both once per audit, not per
draw; the start-up is printed beside it, and the whole run with it); the ratio is raw CPU /
isolated CPU of the same repeat (median over repeats). Peaks: VmHWM of the auditor and worker.

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


THROUGHPUT_CASES = ["10000x10000", "100000x1000", "10000x1000"]     # d x draws per input

THROUGHPUT_CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, {tests!r})
import numpy as np
import wide_randomizers as wr
from ldpaudit.audit import audit, bounds
from ldpaudit.audit.external import isolated

bounds.z_value(0.01)        # the auditor's libraries (scipy.special), imported once per process
tick = os.sysconf("SC_CLK_TCK")


def cpu_of(pid):
    with open(f"/proc/{{pid}}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / tick


def peak_mb(pid="self"):
    with open(f"/proc/{{pid}}/status") as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM:"))


mode, d, n = {mode!r}, {d}, {n}
out = {{}}
if mode == "raw":
    f, rng = wr.krr(d, 1.0), np.random.default_rng(0)
    t = time.process_time()
    for x in range(d):
        f(x, n, rng)
    out["cpu"] = time.process_time() - t
elif mode == "no-isolate":
    t = time.process_time()
    r = audit(wr.krr(d, 1.0), domain=range(d), epsilon=1.0, samples=n, batch=True, alpha=0.01, seed=1)
    out.update(cpu=time.process_time() - t, lb=r.epsilon_lower_bound)
else:
    t0, c0 = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    randomizer = isolated("wide_randomizers:krr", {{"d": str(d), "eps": "1"}}, batch=True)
    assert randomizer.load_error() is None
    randomizer._read_status()       # the worker's pid, as the supervisor reports it
    pids = [randomizer.proc.pid, randomizer.target_pid]
    t1, w1 = time.process_time(), sum(cpu_of(p) for p in pids)
    r = audit(randomizer, domain=range(d), epsilon=1.0, samples=n, batch=True, alpha=0.01, seed=1)
    t2, w2 = time.process_time(), sum(cpu_of(p) for p in pids)
    out.update(cpu=(t2 - t1) + (w2 - w1), auditor_cpu=t2 - t1, worker_cpu=w2 - w1, startup_cpu=(t1 - t0) + w1,
               lb=r.epsilon_lower_bound, worker_peak_mb=peak_mb(randomizer.target_pid))
    randomizer.close()
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out["with_startup_cpu"] = time.process_time() - t0 + (c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime)
out["peak_mb"] = peak_mb()
print(json.dumps(out))
"""


def throughput_child(mode: str, d: int, n: int) -> dict:
    import json

    code = THROUGHPUT_CHILD.format(tests=str(ROOT / "tests"), mode=mode, d=d, n=n)
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "tests", capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{mode} d={d} n={n} failed: {proc.stderr}")
    return json.loads(proc.stdout)


def throughput(repeats: int, cases: list[str]) -> None:
    """Isolated audits of wide k-RR against raw numpy sampling, CPU seconds (see the docstring)."""
    print(f"load average at start: {os.getloadavg()}")
    for case in cases:
        d, n = (int(v) for v in case.split("x"))
        runs = {"raw": [], "isolated": [], "no-isolate": []}
        for r in range(repeats):
            order = ["raw", "isolated", "no-isolate"] if r % 2 == 0 else ["no-isolate", "isolated", "raw"]
            for mode in order:
                runs[mode].append(throughput_child(mode, d, n))
        raw = [x["cpu"] for x in runs["raw"]]
        iso = runs["isolated"]
        med = statistics.median
        ratios = [a / b["cpu"] for a, b in zip(raw, iso)]
        with_start = [a / b["with_startup_cpu"] for a, b in zip(raw, iso)]
        no_iso = [a / b["cpu"] for a, b in zip(raw, runs["no-isolate"])]
        print(f"\nk-RR d = {d}, {n} draws per input ({d * n:.0e} draws), {repeats} repeats, CPU seconds (median, best):")
        print(f"  raw numpy (every input, nothing counted)   {med(raw):6.2f} ({min(raw):.2f})")
        print(f"  isolated audit (worker started)            {med([x['cpu'] for x in iso]):6.2f} "
              f"({min(x['cpu'] for x in iso):.2f}): auditor {med([x['auditor_cpu'] for x in iso]):.2f}, "
              f"worker {med([x['worker_cpu'] for x in iso]):.2f}")
        print(f"  worker start-up                            {med([x['startup_cpu'] for x in iso]):6.2f}")
        print(f"  isolated audit with start-up               {med([x['with_startup_cpu'] for x in iso]):6.2f}")
        print(f"  --no-isolate audit                         {med([x['cpu'] for x in runs['no-isolate']]):6.2f}")
        print(f"  throughput isolated / raw numpy: {med(ratios):.2f} (per repeat: "
              f"{', '.join(f'{v:.2f}' for v in ratios)}); with start-up {med(with_start):.2f}; "
              f"--no-isolate / raw {med(no_iso):.2f}")
        print(f"  peaks: auditor {max(x['peak_mb'] for x in iso):.0f} MB, worker "
              f"{max(x['worker_peak_mb'] for x in iso):.0f} MB; eps_lb isolated "
              f"{sorted({round(x['lb'], 6) for x in iso})}, --no-isolate {sorted({round(x['lb'], 6) for x in runs['no-isolate']})}")
    print(f"\nload average at end: {os.getloadavg()}")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("section", nargs="?", choices=["cli", "throughput"], default="cli")
    p.add_argument("--repeats", type=int, default=None)
    p.add_argument("--cases", nargs="+", default=THROUGHPUT_CASES, metavar="DxN",
                   help="throughput: d x draws per input (default: %(default)s)")
    args = p.parse_args()
    if args.section == "throughput":
        throughput(args.repeats or 3, args.cases)
        return
    args.repeats = args.repeats or 5
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
