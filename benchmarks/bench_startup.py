"""Start-up benchmark: the CPU time (user + sys of the child process, from
``resource.getrusage(RUSAGE_CHILDREN)``) of whole ``ldpaudit`` commands, each a fresh process,
against ``python -c "import numpy"`` measured in the same run, plus a ``python -X importtime``
summary of what the commands import.

    python benchmarks/bench_startup.py [--repeat 3] [--specs krr,ksubset]

Targets (issue 11): ``--help`` <= 0.3 s CPU, ``verify specs/krr.toml`` <= 1 s CPU,
``derive`` <= 2 s CPU per bundled spec on a cold process (``--no-cache``); the warm-cache
derive is reported beside it. Each figure is the median of ``--repeat`` runs; CPU time, not
wall time, so a shared machine's load matters less (it still slows caches and memory).

Bytecode: an installed package has its ``.pyc`` files (pip compiles them); a source checkout
run with ``PYTHONDONTWRITEBYTECODE=1`` (as on the shared development machine) recompiles every
ldpaudit module in every process. The table is measured as installed (``compileall`` of
``ldpaudit/`` first, into its ``__pycache__``, which git ignores); the ``verify`` rows are also
measured from source only, before compiling, to show what the recompilation costs.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("sympy", "scipy", "z3", "matplotlib", "dask", "rich", "numpy")


def cpu_of(argv: list[str], env: dict | None = None) -> tuple[float, float, int]:
    """(CPU seconds user+sys, wall seconds, exit code) of one fresh child process."""
    import time

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc.returncode


def median_cpu(argv, env, repeat) -> tuple[float, float, int]:
    runs = [cpu_of(argv, env) for _ in range(repeat)]
    return (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), runs[-1][2])


def importtime(args: list[str], env: dict) -> dict[str, float]:
    """Cumulative import time (seconds) of each heavy top-level package, from -X importtime."""
    proc = subprocess.run([sys.executable, "-X", "importtime", *args], cwd=ROOT, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    out: dict[str, float] = {}
    total = 0.0
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if not m:
            continue
        cumulative, depth, name = int(m.group(2)) / 1e6, len(m.group(3)), m.group(4)
        if depth == 1:  # a top-level import: its cumulative time counts once
            total += cumulative
        top = name.split(".")[0]
        if top in HEAVY and name == top:
            out[top] = max(out.get(top, 0.0), cumulative)
    out["(all imports)"] = total
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--specs", help="comma-separated spec stems for derive (default: every bundled spec)")
    opts = ap.parse_args()
    py = sys.executable
    cli = [py, "-m", "ldpaudit.cli"]
    cache = tempfile.mkdtemp(prefix="ldpaudit-bench-cache-")
    env = dict(os.environ, LDPAUDIT_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
    specs = sorted(ROOT.glob("specs/*.toml"))
    if opts.specs:
        wanted = set(opts.specs.split(","))
        specs = [s for s in specs if s.stem in wanted]

    print(f"# ldpaudit start-up (CPU = user+sys of the child; median of {opts.repeat}; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores)\n")
    baseline, baseline_wall, _ = median_cpu([py, "-c", "import numpy"], env, opts.repeat)
    bare, _, _ = median_cpu([py, "-c", "pass"], env, opts.repeat)
    print(f"baseline: python -c 'import numpy' {baseline:.3f} s CPU ({baseline_wall:.3f} s wall); "
          f"python -c pass {bare:.3f} s CPU\n")
    for cached in (ROOT / "ldpaudit").rglob("__pycache__"):  # measure from source first
        shutil.rmtree(cached, ignore_errors=True)
    source_only = {label: median_cpu(argv, env, opts.repeat)[0] for label, argv in (
        ("ldpaudit verify specs/krr.toml", [*cli, "verify", "specs/krr.toml"]),
        ("ldpaudit verify krr (catalog name)", [*cli, "verify", "krr"]),
    )}
    subprocess.run([py, "-m", "compileall", "-q", str(ROOT / "ldpaudit")], cwd=ROOT, env=env,
                   stdout=subprocess.DEVNULL, check=True)
    print("| command | CPU s | wall s | × import numpy | target | exit |")
    print("|---|---|---|---|---|---|")
    rows = [
        ("ldpaudit --help", [*cli, "--help"], 0.3),
        ("ldpaudit --version", [*cli, "--version"], 0.3),
        ("ldpaudit verify specs/krr.toml", [*cli, "verify", "specs/krr.toml"], 1.0),
        ("ldpaudit verify krr (catalog name)", [*cli, "verify", "krr"], 1.0),
        ("ldpaudit check specs/krr.toml", [*cli, "check", "specs/krr.toml"], None),
    ]
    failures = []

    def report(label, argv, target, repeat=opts.repeat):
        cpu, wall, code = median_cpu(argv, env, repeat)
        ok = "" if target is None else (f"<= {target:g} s " + ("ok" if cpu <= target else "MISSED"))
        if target is not None and cpu > target:
            failures.append(label)
        print(f"| {label} | {cpu:.3f} | {wall:.3f} | {cpu / baseline:.1f} | {ok} | {code} |", flush=True)

    for label, argv, target in rows:
        report(label, argv, target)
    for label, cpu in source_only.items():
        print(f"| {label}, from source (no .pyc) | {cpu:.3f} | | {cpu / baseline:.1f} | | |", flush=True)
    for spec in specs:
        rel = spec.relative_to(ROOT).as_posix()
        report(f"derive {rel} --no-cache (cold)", [*cli, "derive", rel, "--no-cache"], 2.0)
        subprocess.run([*cli, "derive", rel], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        report(f"derive {rel} (warm cache)", [*cli, "derive", rel], 2.0)

    print("\n## -X importtime: cumulative import seconds of the heavy packages\n")
    print("| command | " + " | ".join(HEAVY) + " | all imports |")
    print("|---|" + "---|" * (len(HEAVY) + 1))
    for label, args in (("--help", ["-m", "ldpaudit.cli", "--help"]),
                        ("verify specs/krr.toml", ["-m", "ldpaudit.cli", "verify", "specs/krr.toml"]),
                        ("derive specs/krr.toml (warm)", ["-m", "ldpaudit.cli", "derive", "specs/krr.toml"]),
                        ("import numpy", ["-c", "import numpy"])):
        t = importtime(args, env)
        cells = " | ".join(f"{t[h]:.3f}" if h in t else "-" for h in HEAVY)
        print(f"| {label} | {cells} | {t['(all imports)']:.3f} |")
    if failures:
        print(f"\nover target: {', '.join(failures)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
