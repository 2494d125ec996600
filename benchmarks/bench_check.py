"""First contact in CPU seconds: what a newcomer's first commands cost, counted as the CPU time of
the command and every process it waited for (wait4), so the figures do not depend on what else
the machine is doing.

- `ldpaudit check specs/` (the README's first command): cold (an empty result cache) and warm
  (run again with the same cache), each a fresh interpreter, with the rows compared;
- each bundled spec's load (parse, validate, bind its example) with the cache off, measured in a
  forked child of a process that has already imported sympy (what `load_budgeted` pays); target
  <= 0.3 s;
- `show specs/krr.toml` and `verify specs/krr.toml`, cold and warm; target <= 0.5 s;
- the baseline of the same run: `python -c "import sympy"` (every command that computes pays it).

    python benchmarks/bench_check.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOAD_TARGET = 0.3
SHOW_TARGET = 0.5


def cpu_of(argv: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """(CPU seconds of the process tree it waited for, peak RSS MiB of its largest process, stdout)."""
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=subprocess.DEVNULL, text=True,
                                env={**os.environ, **(env or {})})
        _, _, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read()


def best(argv, env, repeat: int) -> tuple[float, float, str]:
    runs = [cpu_of(argv, env) for _ in range(repeat)]
    return min(runs, key=lambda r: r[0])


LOADS = """
import json, os, resource, sys
import sympy, sympy.sets.setexpr, sympy.tensor.tensor
from pathlib import Path
from ldpaudit.mechanism.loader import load_spec
out = {}
for path in sys.argv[1:]:
    pid = os.fork()
    if pid == 0:
        m = load_spec(path)
        m.bind_example()
        os._exit(0)
    _, status, usage = os.wait4(pid, 0)
    assert status == 0, path
    out[Path(path).stem] = usage.ru_utime + usage.ru_stime
print(json.dumps(out))
"""


def rows_without_timings(payload: dict) -> list:
    rows = payload["specs"]
    for r in rows:
        for stage in r.get("stages", {}).values():
            stage.pop("seconds", None)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    py = sys.executable
    base, _, _ = best([py, "-c", "import sympy"], None, repeat)
    print(f"baseline: python -c 'import sympy' {base:.3f} s CPU\n")

    cache = tempfile.mkdtemp(prefix="ldpaudit-bench-")
    env = {"LDPAUDIT_CACHE_DIR": cache}
    cold_cpu, cold_peak, cold_out = cpu_of([py, "-m", "ldpaudit", "check", "specs", "--json", "-q"], env)
    warm_cpu, warm_peak, warm_out = best([py, "-m", "ldpaudit", "check", "specs", "--json", "-q"], env, repeat)
    cold, warm = json.loads(cold_out), json.loads(warm_out)
    same = rows_without_timings(cold) == rows_without_timings(warm)
    print("| `ldpaudit check specs/` | CPU s | peak MiB | verdict | summary |")
    print("|---|---|---|---|---|")
    print(f"| cold (empty cache) | {cold_cpu:.2f} | {cold_peak:.0f} | {cold['verdict']} | {cold['summary']} |")
    print(f"| warm (run again) | {warm_cpu:.2f} | {warm_peak:.0f} | {warm['verdict']} | {warm['summary']} |")
    print(f"\nwarm / cold {warm_cpu / cold_cpu:.3f}; rows identical apart from timings: {same}\n")

    specs = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "specs").glob("*.toml"))
    loads = {}
    for _ in range(repeat):
        _, _, out = cpu_of([py, "-c", LOADS, *specs], {"LDPAUDIT_CACHE_DIR": "off"})
        for stem, cpu in json.loads(out).items():
            loads[stem] = min(loads.get(stem, cpu), cpu)
    over = [s for s, c in loads.items() if c > LOAD_TARGET]
    print(f"| spec | load CPU s (cache off, best of {repeat}) | <= {LOAD_TARGET} |")
    print("|---|---|---|")
    for stem, cpu in loads.items():
        print(f"| {stem} | {cpu:.3f} | {'ok' if cpu <= LOAD_TARGET else 'OVER'} |")
    print()

    print(f"| command | cold CPU s | warm CPU s | × import sympy (warm) | <= {SHOW_TARGET} |")
    print("|---|---|---|---|---|")
    status = 0 if same else 1
    for name in ("show", "verify"):
        fresh = {"LDPAUDIT_CACHE_DIR": tempfile.mkdtemp(prefix="ldpaudit-bench-")}
        c, _, _ = cpu_of([py, "-m", "ldpaudit", name, "specs/krr.toml"], fresh)
        w, _, _ = best([py, "-m", "ldpaudit", name, "specs/krr.toml"], fresh, repeat)
        print(f"| `{name} specs/krr.toml` | {c:.3f} | {w:.3f} | {w / base:.2f} | {'ok' if w <= SHOW_TARGET else 'OVER'} |")
    print(f"\nspecs over the load target: {over or 'none'}; peak RSS of this process "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    return status


if __name__ == "__main__":
    sys.exit(main())
