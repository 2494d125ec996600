"""Cold ``ldpaudit derive SPEC --no-cache --json``: CPU and peak memory against the budget test's
own baseline, ``python -c "import sympy"``, measured in the same run; optionally against another
source tree (an older commit, exported with ``git archive``) in the same run too.

    python benchmarks/bench_derive_budget.py [--repeat 5] [--specs hybrid,hybrid_multidim] [--against DIR]

CPU = user + sys of the command's process and of its forked spec-loading child
(``RUSAGE_CHILDREN`` of a small wrapper process, as tests/test_derive_budget.py measures it);
peak memory = the largest resident set of the two (``ru_maxrss``). Each figure is the minimum
over ``--repeat`` fresh processes (contention from other processes only ever adds CPU time).
The budget (tests/test_derive_budget.py) is 2 s of CPU, scaled up by the import-sympy baseline
when that is slower than 0.33 s (a loaded machine). With ``--against DIR`` every spec is also
derived by DIR's code and the JSON outputs are compared byte for byte.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUIET_SYMPY_IMPORT = 0.33  # tests/test_derive_budget.py
BUDGET = 2.0

_WRAPPER = """
import json, resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write(json.dumps({"cpu": r.ru_utime + r.ru_stime, "rss_kib": r.ru_maxrss, "code": proc.returncode}))
sys.stdout.buffer.write(proc.stdout)
"""


def measure(argv: list[str], cwd: Path) -> tuple[float, int, int, bytes]:
    """(CPU seconds, peak RSS KiB, exit code, stdout) of one fresh run of ``argv`` in ``cwd``."""
    proc = subprocess.run([sys.executable, "-c", _WRAPPER, *argv], cwd=cwd, capture_output=True)
    figures = json.loads(proc.stderr)
    return figures["cpu"], figures["rss_kib"], figures["code"], proc.stdout


def best(argv: list[str], cwd: Path, repeat: int) -> tuple[float, int, int, bytes]:
    runs = [measure(argv, cwd) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), runs[-1][2], runs[-1][3]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--specs", default="hybrid,hybrid_multidim")
    ap.add_argument("--against", type=Path, help="another source tree (e.g. git archive of an older commit)")
    opts = ap.parse_args()
    py = sys.executable
    base_cpu, base_rss, _, _ = best([py, "-c", "import sympy"], ROOT, opts.repeat)
    budget = BUDGET * max(1.0, base_cpu / QUIET_SYMPY_IMPORT)
    print(f"baseline: python -c 'import sympy' {base_cpu:.3f} s CPU, {base_rss / 1024:.0f} MiB; "
          f"budget {budget:.2f} s (min of {opts.repeat} runs each)\n")
    head = "| spec | CPU s | peak MiB | × import sympy | budget |"
    if opts.against:
        head += f" {opts.against.name}: CPU s | peak MiB | new / old CPU | same JSON |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    failed = 0
    for stem in opts.specs.split(","):
        argv = [py, "-m", "ldpaudit.cli", "derive", f"specs/{stem}.toml", "--no-cache", "--json"]
        cpu, rss, code, out = best(argv, ROOT, opts.repeat)
        ok = code == 0 and cpu <= budget
        failed += not ok
        row = f"| {stem} | {cpu:.3f} | {rss / 1024:.0f} | {cpu / base_cpu:.1f} | {'ok' if ok else 'MISSED'} |"
        if opts.against:
            old_cpu, old_rss, _, old_out = best(argv, opts.against, opts.repeat)
            row += f" {old_cpu:.3f} | {old_rss / 1024:.0f} | {cpu / old_cpu:.2f} | {'yes' if out == old_out else 'NO'} |"
        print(row)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
