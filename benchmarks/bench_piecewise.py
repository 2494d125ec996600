"""Piecewise densities (issue 23): CPU seconds and peak memory of loading + verifying, deriving and
auditing the Piecewise mechanism (specs/piecewise.toml), each in a fresh process (cold: imports
included), beside baselines measured in the same run.

    python benchmarks/bench_piecewise.py [--repeat 3] [--samples 1000000]

(a) ``load_spec + verify`` of specs/piecewise.toml (target <= 2 s CPU) beside ``import sympy``
    and ``load_spec + verify`` of specs/laplace_mean.toml;
(b) ``ldpaudit.derive.derivation.derive`` of the loaded PM spec (target <= 5 s CPU; the function
    itself, which reads no cache);
(c) the spec-guided audit of the reference PM sampler at ε = 1, inputs -1 and 1, ``--samples``
    draws per input (target <= 10 s): the CLI command of the issue (its isolated worker
    included), and the same audit through the API with the call alone timed, beside numpy's
    raw sampling of the same 2 × samples draws by the reference sampler in that process.

CPU = user + sys of the child and everything it waited for (``RUSAGE_CHILDREN`` of this process),
peak memory = the largest resident set of the child or of its own children (``ru_maxrss``);
each figure is the median of ``--repeat`` fresh processes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TASKS = {
    "import sympy": "import sympy",
    "load + verify laplace_mean": """
from ldpaudit.mechanism.loader import load_spec
from ldpaudit.verify import verify
v = verify(load_spec("specs/laplace_mean.toml"))
info["verdict"] = v.status.value
""",
    "load + verify piecewise": """
from ldpaudit.mechanism.loader import load_spec
from ldpaudit.verify import verify
v = verify(load_spec("specs/piecewise.toml"))
info["verdict"] = v.status.value
""",
    "derive piecewise": """
from ldpaudit.mechanism.loader import load_spec
from ldpaudit.derive.derivation import derive
d = derive(load_spec("specs/piecewise.toml"))
info["verdict"] = "derived" if d.results.get("variance") is not None else "not derived"
""",
    "audit piecewise (API)": """
import time
import numpy as np
from ldpaudit.audit import audit
from ldpaudit.mechanism.loader import load_spec
from ldpaudit.mechanism.randomizers import piecewise
spec = load_spec("specs/piecewise.toml").bind(epsilon=1)
f = piecewise(epsilon=1)
t = time.process_time()
r = audit(f, domain=[-1.0, 1.0], epsilon=1, samples=SAMPLES, batch=True, spec=spec, alpha=0.01, seed=0)
info["call_cpu"] = time.process_time() - t
info["verdict"] = r.verdict
info["epsilon_lb"] = r.epsilon_lower_bound
info["conformance"] = "ok" if r.conformance["passed"] else "FAILED"
rng = np.random.default_rng(0)
t = time.process_time()
for x in (-1.0, 1.0):
    f(x, SAMPLES, rng)
info["raw_cpu"] = time.process_time() - t
""",
}

CLI_AUDIT = ["audit", "ldpaudit.mechanism.randomizers:piecewise", "--target-arg", "epsilon=1", "--batch", "--spec",
             "specs/piecewise.toml", "-p", "epsilon=1", "--domain", "[-1, 1]", "--json"]

CHILD = """
import json, resource, sys
info = {{}}
SAMPLES = {samples}
{body}
rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
info["peak_mb"] = rss / 1024
print("BENCH " + json.dumps(info))
"""

CLI_CHILD = """
import json, resource, runpy, sys, io, contextlib
sys.argv = ["ldpaudit"] + {argv!r}
out = io.StringIO()
code = None
with contextlib.redirect_stdout(out):
    try:
        from ldpaudit.cli import main
        code = main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
payload = json.loads(out.getvalue())
rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print("BENCH " + json.dumps({{"verdict": payload["verdict"], "epsilon_lb": payload["epsilon_lower_bound"],
                             "conformance": "ok" if not payload["conformance_failed"] else "FAILED",
                             "exit": code, "peak_mb": rss / 1024}}))
"""


def run_child(code: str, env: dict) -> dict:
    """One fresh process: CPU (user + sys, its waited-for children included), wall, and what it printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("BENCH ")]
    if proc.returncode != 0 or not line:
        raise SystemExit(f"benchmark child failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    info = json.loads(line[-1][6:])
    info["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    info["wall"] = wall
    return info


def median_of(runs: list[dict]) -> dict:
    out = dict(runs[-1])
    for key in ("cpu", "wall", "peak_mb", "call_cpu", "raw_cpu", "epsilon_lb"):
        if key in runs[0]:
            out[key] = statistics.median(r[key] for r in runs)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--samples", type=int, default=10**6)
    opts = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT), LDPAUDIT_CACHE_DIR=tempfile.mkdtemp(prefix="ldpaudit-bench-"))
    print(f"# piecewise densities: median of {opts.repeat} fresh processes; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores; "
          f"{opts.samples:,} draws per input\n")
    results = {}
    for name, body in TASKS.items():
        runs = []
        for _ in range(opts.repeat):
            runs.append(run_child(CHILD.format(samples=opts.samples, body=body), env))
        results[name] = median_of(runs)
    cli_argv = CLI_AUDIT + ["--samples", str(opts.samples)]
    results["audit piecewise (CLI, isolated worker)"] = median_of([run_child(CLI_CHILD.format(argv=cli_argv), env)
                                                                   for _ in range(opts.repeat)])

    sympy_cpu = results["import sympy"]["cpu"]
    lap = results["load + verify laplace_mean"]["cpu"]
    targets = {"load + verify piecewise": 2.0, "derive piecewise": 5.0, "audit piecewise (API)": 10.0,
               "audit piecewise (CLI, isolated worker)": 10.0}
    print("| task | CPU s | wall s | peak MB | × import sympy | target | result |")
    print("|---|---|---|---|---|---|---|")
    missed = []
    for name, r in results.items():
        target = targets.get(name)
        status = "" if target is None else (f"<= {target:g} s " + ("met" if r["cpu"] <= target else "MISSED"))
        if target is not None and r["cpu"] > target:
            missed.append(name)
        extra = ", ".join(f"{k} {r[k]:.4f}" if isinstance(r[k], float) else f"{k} {r[k]}"
                          for k in ("verdict", "epsilon_lb", "conformance", "exit") if k in r)
        print(f"| {name} | {r['cpu']:.2f} | {r['wall']:.2f} | {r['peak_mb']:.0f} | {r['cpu'] / sympy_cpu:.1f} | "
              f"{status} | {extra} |")
    pm = results["load + verify piecewise"]["cpu"]
    print(f"\nverify: piecewise / laplace_mean = {pm / lap:.2f} (both cold, load_spec + verify)")
    api = results["audit piecewise (API)"]
    print(f"audit call alone: {api['call_cpu']:.2f} s CPU; numpy's raw sampling of the same 2 × {opts.samples:,} draws: "
          f"{api['raw_cpu']:.3f} s CPU; ratio {api['call_cpu'] / api['raw_cpu']:.1f}; ε_lb/ε = {api['epsilon_lb']:.4f}")
    if missed:
        print("missed targets: " + ", ".join(missed))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
