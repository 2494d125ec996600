"""Audits at deployment scale (issue 21): black-box k-RR at d = 10^4, 10^5 and 10^6, OUE bit
vectors at d = 2,000 and spec-guided Hadamard response (specs/hadamard.toml) at d = 10^6, each
in a fresh process, with time, peak memory (ru_maxrss), the certified ε_lb beside the
statistical limit (the bound an oracle that knew the best event in advance would certify from
every draw: exact Clopper-Pearson at α/2 on the expected counts), and the throughput ratio
raw/audit against the obvious baseline in the same run: the same randomizer called for every
input with the same number of draws and nothing counted.

    python benchmarks/bench_scale.py            # all rows
    python benchmarks/bench_scale.py krr4       # one row: krr4, krr5, oue, krr6, hr6, cli4, cluster9
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent / "tests"

CASES = {   # name: (randomizer factory, d, draws per input, ε[, spec file: a spec-guided audit])
    "krr4": ("krr", 10_000, 10_000, 1.0),
    "krr5": ("krr", 100_000, 1_000, 1.0),
    "oue": ("oue", 2_000, 5_000, 1.0),
    "krr6": ("krr", 1_000_000, 100, 1.0),
    "hr6": ("hr", 1_000_000, 100, 1.0, "hadamard.toml"),
}
SPECS = HERE.parent / "specs"

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {tests!r})
import numpy as np
import wide_randomizers as wr
from ldpaudit.audit import audit
f = getattr(wr, {kind!r})({d}, {eps})
t = time.perf_counter()
if {raw}:
    rng = np.random.default_rng(0)
    for x in range({d}):
        f(x, {n}, rng)
    out = {{}}
else:
    spec = None
    if {spec!r}:
        from ldpaudit.mechanism.loader import load_bound
        spec = load_bound({spec!r}, ["d={d}", "epsilon={eps_exact}"])
    r = audit(f, domain=range({d}), epsilon={eps}, samples={n}, batch=True, alpha=0.01, seed=1, spec=spec)
    out = {{"lb": r.epsilon_lower_bound, "verdict": r.verdict, "event": r.witness and r.witness["event"],
            "conformance": r.conformance and r.conformance["passed"]}}
out["seconds"] = time.perf_counter() - t
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def run_child(kind, d, n, eps, raw, spec=""):
    from fractions import Fraction

    code = CHILD.format(tests=str(TESTS), kind=kind, d=d, n=n, eps=eps, raw=raw, spec=spec,
                        eps_exact=Fraction(eps).limit_denominator())
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def limit(kind, d, n, eps, alpha=0.01):
    from scipy import stats

    if kind == "krr":
        p = math.exp(eps) / (math.exp(eps) + d - 1)
        q = p / math.exp(eps)
    elif kind == "hr":  # HR's pooled event {b = h(j, x) != h(j, x')}: half the columns separate x, x'
        p = 0.5 * math.exp(eps) / (math.exp(eps) + 1)
        q = 0.5 / (math.exp(eps) + 1)
    else:   # OUE's tight event {y[x] = 1, y[x'] = 0}
        p = 0.5 * math.exp(eps) / (math.exp(eps) + 1)
        q = 0.5 / (math.exp(eps) + 1)
    trials = d * n
    lo = stats.beta.ppf(alpha / 2, round(p * trials), trials - round(p * trials) + 1)
    hi = stats.beta.ppf(1 - alpha / 2, round(q * trials) + 1, trials - round(q * trials))
    return math.log(lo / hi)


def cli_row():
    """The issue's command, isolated (the randomizer in the sandbox), d = 10^4."""
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "ldpaudit", "audit", "wide_randomizers:krr", "--target-arg", "d=10000",
                           "--target-arg", "eps=1", "--batch", "--domain", "0..9999", "--epsilon", "1", "--samples",
                           "10000", "--json"], capture_output=True, text=True, cwd=TESTS)
    out = json.loads(proc.stdout)
    return {"seconds": time.perf_counter() - t, "lb": out["epsilon_lower_bound"], **out["memory"]}


def cluster_row(d=10_000, n=100_000):
    """10^9 draws (k-RR, d = 10^4, 10^5 draws per input) on a LocalCluster of 2 worker
    processes with one worker killed a third of the way, against the same audit in this
    process: the verdict, bound and counts must be identical."""
    import os
    import signal
    import threading

    import distributed

    sys.path.insert(0, str(TESTS))
    import wide_randomizers as wr
    from ldpaudit.audit import audit

    kw = dict(domain=range(d), epsilon=1.0, samples=n, batch=True, alpha=0.01, seed=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=40) as local, distributed.Client(local) as client:
        victim = next(iter(client.run(os.getpid).values()))
        killed = threading.Event()

        def progress(done, total):
            if not killed.is_set() and total and done >= total // 3:
                os.kill(victim, signal.SIGKILL)
                killed.set()

        t = time.perf_counter()
        remote = audit(wr.krr(d, 1.0), cluster=client, progress=progress, **kw)
        cluster_s = time.perf_counter() - t
    t = time.perf_counter()
    here = audit(wr.krr(d, 1.0), **kw)
    local_s = time.perf_counter() - t
    same = (remote.verdict, remote.epsilon_lower_bound, remote.witness["counts"]) == \
        (here.verdict, here.epsilon_lower_bound, here.witness["counts"])
    import resource
    return {"draws": d * n, "killed": killed.is_set(), "identical": same, "eps_lb": round(here.epsilon_lower_bound, 4),
            "limit": round(limit("krr", d, n, 1.0), 4), "cluster_s": round(cluster_s, 1), "local_s": round(local_s, 1),
            "client_peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def main(names):
    for name in names:
        if name == "cluster9":
            print("cluster9", json.dumps(cluster_row()), flush=True)
            continue
        if name == "cli4":
            print("cli4", json.dumps(cli_row()))
            continue
        kind, d, n, eps, *spec = CASES[name]
        spec = str(SPECS / spec[0]) if spec else ""
        raw = run_child(kind, d, n, eps, True)
        aud = run_child(kind, d, n, eps, False, spec)
        print(name, json.dumps({"d": d, "n": n, "eps_lb": round(aud["lb"], 4), "limit": round(limit(kind, d, n, eps), 4),
                                "audit_s": round(aud["seconds"], 2), "raw_s": round(raw["seconds"], 2),
                                "ratio_raw_over_audit": round(raw["seconds"] / aud["seconds"], 2),
                                "peak_mb": round(aud["peak_mb"]), "raw_peak_mb": round(raw["peak_mb"]),
                                "event": aud["event"], "conformance": aud["conformance"]}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["krr4", "krr5", "oue", "krr6", "hr6", "cli4", "cluster9"])
