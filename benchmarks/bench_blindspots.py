"""The auditor's blind spots (issue 12): this code against a baseline checkout measured in the
same run (``--baseline DIR``, default /work/main or $LDPAUDIT_BASELINE: the auditor before
these changes), each case in a fresh subprocess so the two never share state.

    python benchmarks/bench_blindspots.py [--baseline DIR] [--quick]
    python benchmarks/bench_blindspots.py rate [--seeds 200] [--first-seed 1000] [--draws 2000000] [--alpha 0.01 ...]

Cases (α as stated, fixed seeds):
- rare: k-RR d=4, ε=1 plus an error output 2e-4 vs 4e-5, 2·10^6 draws per input, 20 seeds,
  and its correct twin (error output 1e-4 under every input);
- pooled: black-box k-RR d=1000, ε=1, 10^5 draws per input: ε_lb/ε and seconds;
- unary bug (pure-LDP 1.1.2): SUE and OUE at ε = 0.25, 1, 4, d=25: flagged with the spec at
  3,000 draws; the smallest black-box sample size that flags it;
- floats: naive float Laplace, scalar and unary (d=4), ε=1: the smallest sample size flagged;
- projection: OLH d=25, ε=1, 10^6 draws per input with the support feature (this code only:
  the baseline has no ``feature=``; its raw-output figure is given).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"

RUNNER = r'''
import json, math, sys, time
from fractions import Fraction
sys.path.insert(0, {root!r}); sys.path.insert(0, {tests!r})
import blindspot_randomizers as B
from ldpaudit.audit import audit
from ldpaudit.mechanism import catalog as C, randomizers as R
case = json.loads(sys.argv[1])
kind = case["kind"]
t = time.perf_counter()
if kind == "rare":
    f = B.krr_rare_error(p_bad=case["p_bad"], p_good=case["p_good"])
    flagged = sum(audit(f, domain=range(4), epsilon=1, samples=2_000_000, alpha=0.05, seed=s, batch=True).verdict
                  == "VIOLATION" for s in range(case["seeds"]))
    out = dict(flagged=flagged, seeds=case["seeds"])
elif kind == "krr1000":
    r = audit(R.krr(d=1000, epsilon=1), domain=range(1000), epsilon=1, samples=100_000, alpha=0.005, seed=0, batch=True)
    out = dict(ratio=r.epsilon_lower_bound, verdict=r.verdict)
elif kind == "ue_spec":
    spec = (C.k_rappor if case["ue"] == "sue" else C.oue)(d=25, epsilon=str(Fraction(case["eps"])))
    f = B.unary_true_bit_bug(d=25, epsilon=case["eps"], kind=case["ue"])
    r = audit(f, domain=range(25), epsilon=case["eps"], samples=3000, alpha=0.05, seed=0, batch=True, spec=spec)
    out = dict(flagged=r.verdict == "VIOLATION" or not r.conformance["passed"])
elif kind == "first_flag":
    if case["f"] == "ue":
        f = B.unary_true_bit_bug(d=25, epsilon=case["eps"], kind=case["ue"]); dom = range(25)
    elif case["f"] == "laplace":
        f = B.naive_float_laplace(epsilon=1); dom = [0.0, 1.0]
    else:
        f = B.naive_float_unary_laplace(d=4, epsilon=1); dom = range(4)
    out = dict(n=None, lb=0.0)
    for n in case["grid"]:
        r = audit(f, domain=dom, epsilon=case.get("eps", 1), samples=n, alpha=0.05, seed=0, batch=True)
        out["lb"] = r.epsilon_lower_bound
        if r.verdict == "VIOLATION":
            out["n"] = n
            break
elif kind == "olh":
    f = B.olh(d=25, epsilon=1, g=4)
    extra = dict(feature=B.olh_support(d=25, g=4)) if case["feature"] else dict()
    r = audit(f, domain=range(25), epsilon=1, samples=case["n"], alpha=0.005, seed=0, batch=True, **extra)
    out = dict(ratio=r.epsilon_lower_bound)
out["seconds"] = time.perf_counter() - t
print(json.dumps(out))
'''


def run(code_root: Path, case: dict) -> dict:
    script = RUNNER.format(root=str(code_root), tests=str(TESTS))
    proc = subprocess.run([sys.executable, "-c", script, json.dumps(case)], capture_output=True, text=True,
                          cwd=str(code_root))
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _commit(path: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return "?"


def _n(n) -> str:
    return "not flagged" if n is None else f"{n:,}"


def false_alarm_rate(argv) -> int:
    """``rate [--seeds N] [--first-seed S] [--draws N] [--alpha A ...]``: the correct twin of the
    rare-output randomizer (k-RR d = 4, ε = 1, tight, plus an error output 1e-4 under every
    input) audited at its tight ε with seeds S.. (default 1000, disjoint from the tests' seeds),
    on this code; the false-alarm rate with its exact 95% Clopper-Pearson interval, and which
    events raised the alarms."""
    import collections
    import time

    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(TESTS))
    import blindspot_randomizers as B
    from scipy import stats

    from ldpaudit.audit import audit

    def opt(name, default, cast):
        values = [cast(argv[i + 1]) for i, a in enumerate(argv) if a == name]
        return values or default

    seeds = opt("--seeds", [200], int)[0]
    first = opt("--first-seed", [1000], int)[0]
    draws = opt("--draws", [2_000_000], int)[0]
    alphas = opt("--alpha", [0.01, 0.05], float)
    f = B.krr_rare_error(p_bad=1e-4, p_good=1e-4)
    print(f"correct twin of the rare-output k-RR, {draws:,} draws per input, seeds {first}..{first + seeds - 1}")
    print("\n| α | false alarms | rate | 95% CI (Clopper-Pearson) | events that alarmed | CPU s |\n|---|---|---|---|---|---|")
    for alpha in alphas:
        t = time.process_time()
        events = collections.Counter()
        alarms = 0
        for s in range(first, first + seeds):
            r = audit(f, domain=range(4), epsilon=1, samples=draws, alpha=alpha, seed=s, batch=True)
            if r.verdict == "VIOLATION":
                alarms += 1
                events[r.witness["event"] if r.witness else "?"] += 1
        lo, hi = stats.binomtest(alarms, seeds).proportion_ci(0.95, method="exact")
        what = "; ".join(f"{e} ×{c}" for e, c in events.most_common()) or "—"
        print(f"| {alpha:g} | {alarms}/{seeds} | {alarms / seeds:.4f} | [{lo:.4f}, {hi:.4f}] | {what} | "
              f"{time.process_time() - t:.0f} |", flush=True)
    return 0


def main(argv) -> int:
    if argv[:1] == ["rate"]:
        return false_alarm_rate(argv[1:])
    quick = "--quick" in argv
    base = Path(os.environ.get("LDPAUDIT_BASELINE", "/work/main"))
    if "--baseline" in argv:
        base = Path(argv[argv.index("--baseline") + 1])
    print(f"this code: {ROOT} @ {_commit(ROOT)}; baseline: {base} @ {_commit(base)}")
    seeds = 5 if quick else 20

    print("\n| case | baseline | this code |\n|---|---|---|")
    for name, case in [("k-RR + error 2e-4 vs 4e-5: VIOLATIONs", dict(kind="rare", p_bad=2e-4, p_good=4e-5, seeds=seeds)),
                       ("correct twin (1e-4 everywhere): VIOLATIONs", dict(kind="rare", p_bad=1e-4, p_good=1e-4, seeds=seeds))]:
        a, b = run(base, case), run(ROOT, case)
        print(f"| {name}, 2·10^6 draws, α = 0.05 | {a.get('flagged')}/{seeds} ({a.get('seconds', 0):.0f} s) | "
              f"{b.get('flagged')}/{seeds} ({b.get('seconds', 0):.0f} s) |")

    a, b = run(base, dict(kind="krr1000")), run(ROOT, dict(kind="krr1000"))
    print(f"| k-RR d=1000, 10^5 draws, α = 0.005: ε_lb/ε, seconds | {a.get('ratio', float('nan')):.3f}, "
          f"{a.get('seconds', 0):.0f} s | {b.get('ratio', float('nan')):.3f}, {b.get('seconds', 0):.0f} s "
          f"({a.get('seconds', 0) / max(b.get('seconds', 1), 1e-9):.1f}x faster) |")

    grid = [3000, 10**4, 10**5, 10**6] if not quick else [3000, 10**4, 10**5]
    for ue in ("sue", "oue"):
        for eps in (0.25, 1, 4):
            a = run(base, dict(kind="ue_spec", ue=ue, eps=eps))
            b = run(ROOT, dict(kind="ue_spec", ue=ue, eps=eps))
            print(f"| pure-LDP 1.1.2 {ue.upper()} ε={eps}, d=25: flagged with the spec at 3,000 draws | "
                  f"{a.get('flagged')} | {b.get('flagged')} |")
            b = run(ROOT, dict(kind="first_flag", f="ue", ue=ue, eps=eps, grid=grid))
            print(f"| … without the spec: smallest n flagged (ε_lb) | (not run) | "
                  f"{_n(b.get('n'))} ({b.get('lb', 0):.3f}) |")

    fgrid = [10**4, 10**5, 10**6] if not quick else [10**4, 10**5]
    for f, label in (("laplace", "naive float Laplace"), ("unary", "unary + float Laplace, d=4")):
        a = run(base, dict(kind="first_flag", f=f, grid=fgrid))
        b = run(ROOT, dict(kind="first_flag", f=f, grid=fgrid))
        print(f"| {label}, ε=1: smallest n flagged (ε_lb) | {_n(a.get('n'))} ({a.get('lb', 0):.3f}) | "
              f"{_n(b.get('n'))} ({b.get('lb', 0):.3f}) |")

    n_olh = 10**5 if quick else 10**6
    a = run(base, dict(kind="olh", feature=False, n=n_olh))
    b = run(ROOT, dict(kind="olh", feature=True, n=n_olh))
    print(f"| OLH d=25, ε=1, {n_olh:,} draws, α = 0.005: ε_lb/ε (baseline raw outputs, this code --feature) | "
          f"{a.get('ratio', float('nan')):.3f} ({a.get('seconds', 0):.0f} s) | "
          f"{b.get('ratio', float('nan')):.3f} ({b.get('seconds', 0):.0f} s) |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
