"""Verification benchmarks (ldpaudit.verify). Prints a Markdown table; every ratio is
measured in the same run.

    python benchmarks/bench_verify.py            # everything except the 10,000-case run
    python benchmarks/bench_verify.py --slow     # also the 10,000-case differential run

1. each catalog spec proved for all ε (and all d, k): target <= 100 ms, best of 5 after a
   warm-up (with and without the tight-ε closed form);
2. an exact random rational 1000 x 1000 channel (claims just above and just below its tight ε):
   target <= 2 s, beside the naive all-triples z3 encoding at growing sizes up to the largest
   that finishes within the time cap;
3. k-RAPPOR at d = 16 (65,536 outputs) through its product structure: target <= 100 ms, beside
   explicit enumeration (materialization + the per-column proof) in the same run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import sympy as sp
import z3

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ldpaudit.mechanism import load_spec  # noqa: E402
from ldpaudit.mechanism.catalog import k_rappor  # noqa: E402
from ldpaudit.mechanism.model import ExplicitChannel, FiniteDomain, Mechanism  # noqa: E402
from ldpaudit.verify import PROVED, REFUTED, verify  # noqa: E402
from ldpaudit.verify import smt  # noqa: E402
from ldpaudit.verify.finite import _verify_numeric  # noqa: E402
from ldpaudit.verify.problem import explicit_problem  # noqa: E402


def best_of(fn, n=5):
    times = []
    result = None
    for _ in range(n):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times), result


def ms(t):
    return f"{t * 1000:.1f} ms"


def catalog():
    rows = []
    for spec in sorted((ROOT / "specs").glob("*.toml")):
        mech = load_spec(spec)
        verify(mech)  # warm-up (imports, sympy caches)
        best, median, v = best_of(lambda: verify(mech))
        best_nt, _, _ = best_of(lambda: verify(mech, tight=False))
        assert v.status is PROVED, v
        ok = "yes" if best <= 0.1 else "NO"
        rows.append(f"| {spec.stem} | {v.scope} | {ms(best_nt)} | {ms(best)} (median {ms(median)}) | {ok} |")
    print("\n### Catalog proofs for all parameters (target <= 100 ms)\n")
    print("| spec | proved | proof only | proof + tight ε* | <= 100 ms |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


def random_channel(n, seed=0):
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        w = [rng.randint(1, 1000) for _ in range(n)]
        s = sum(w)
        rows.append(tuple(sp.Rational(a, s) for a in w))
    return rows


def mechanism(rows):
    n = len(rows)
    ch = ExplicitChannel(tuple(range(n)), tuple(range(n)), tuple(rows))
    return Mechanism(f"random {n}x{n}", (), FiniteDomain(sp.Integer(n), tuple(range(n))), ch, sp.Integer(1))


def naive_triples(rows, claim, cap_s):
    """The textbook encoding: one disjunct Q(y|x) > e^claim Q(y|x') per (x, x', y)."""
    start = time.perf_counter()
    enc = smt.Encoder((), [sp.exp(claim)])
    c = enc.z3(enc.poly(sp.exp(claim)))
    n = len(rows)
    vals = [[smt.rational(e) for e in row] for row in rows]
    terms = []
    for x in range(n):
        for xp in range(n):
            if x != xp:
                for y in range(n):
                    terms.append(vals[x][y] > c * vals[xp][y])
            if time.perf_counter() - start > cap_s:
                return None, None
    s = smt.new_solver(int(max(1, cap_s - (time.perf_counter() - start)) * 1000))
    s.add(*enc.constraints(), z3.Or(terms))
    r = s.check()
    elapsed = time.perf_counter() - start
    if r == z3.unknown:
        return None, None
    return elapsed, str(r)


def large_explicit(cap_s):
    print("\n### Exact numeric channels: per-column reduction vs all triples (target <= 2 s at 1000 x 1000)\n")
    rows = random_channel(1000)
    start = time.perf_counter()
    mech = mechanism(rows)
    build = time.perf_counter() - start
    tight = verify(mech).tight_epsilon
    above = tight + sp.Rational(1, 1000)
    below = tight - sp.Rational(1, 1000)
    t_above, _, v_above = best_of(lambda: verify(mech, epsilon=above), n=3)
    t_below, _, v_below = best_of(lambda: verify(mech, epsilon=below), n=3)
    assert v_above.status is PROVED and v_below.status is REFUTED
    print(f"(building and validating the 1000 x 1000 Mechanism itself, not timed below: {build:.1f} s)\n")
    print("| size | claim | per-column (this package) | naive all-triples z3 | triples |")
    print("|---|---|---|---|---|")
    print(f"| 1000 x 1000 | ε* + 1/1000 (PROVED) | {t_above:.2f} s | see below | 999,000,000 |")
    print(f"| 1000 x 1000 | ε* - 1/1000 (REFUTED) | {t_below:.2f} s | see below | 999,000,000 |")
    largest = None
    for n in (10, 20, 40, 80, 120, 160):
        r = random_channel(n, seed=n)
        m = mechanism(r)
        tight_n = verify(m).tight_epsilon
        claim = tight_n + sp.Rational(1, 1000)
        t_ours, _, v = best_of(lambda: verify(m, epsilon=claim), n=3)
        t_naive, answer = naive_triples(r, claim, cap_s)
        naive = "did not finish" if t_naive is None else f"{t_naive:.2f} s ({answer})"
        ratio = "" if t_naive is None else f" ({t_naive / t_ours:.0f}x)"
        print(f"| {n} x {n} | ε* + 1/1000 ({v.status}) | {t_ours * 1000:.1f} ms | {naive}{ratio} | {n * (n - 1) * n:,} |")
        if t_naive is None:
            break
        largest = n
    print(f"\nLargest size at which the naive encoding finished within {cap_s:.0f} s: {largest} x {largest}.")


def product_vs_explicit():
    print("\n### k-RAPPOR through its product structure vs explicit enumeration (target <= 100 ms at d = 16)\n")
    print("| d | outputs | product structure | explicit: materialize | explicit: prove | speed-up |")
    print("|---|---|---|---|---|---|")
    for d in (8, 12, 16):
        mech = k_rappor(d=d, epsilon=sp.log(9))  # s = 3: rational entries, exact enumeration possible
        verify(mech)
        t_prod, _, v = best_of(lambda: verify(mech))
        assert v.status is PROVED
        start = time.perf_counter()
        ch = mech.materialize()
        t_mat = time.perf_counter() - start
        start = time.perf_counter()
        v2 = _verify_numeric(explicit_problem(mech, ch), mech.claimed_epsilon, rlimit=None, start=start)
        t_exp = time.perf_counter() - start
        assert v2.status is PROVED and v2.tight_epsilon == v.tight_epsilon
        print(f"| {d} | {2 ** d:,} | {ms(t_prod)} | {t_mat:.2f} s | {t_exp:.2f} s | {(t_mat + t_exp) / t_prod:,.0f}x |")
    mech = k_rappor(d=16, epsilon=1)
    t, _, v = best_of(lambda: verify(mech, epsilon="999/1000"))
    assert v.status is REFUTED
    print(f"\nk-RAPPOR d = 16, ε = 1 refuted at 999/1000 through the product structure: {ms(t)} ({v.witness})")


def differential(n_slow: bool):
    if not n_slow:
        return
    print("\n### Differential run: 10,000 random rational channels (pytest -m slow)\n")
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-m", "slow", str(ROOT / "tests" / "test_verify_differential.py")],
        capture_output=True, text=True, cwd=ROOT,
    )
    elapsed = time.perf_counter() - start
    last = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr
    print(f"10,000 cases: {last} in {elapsed:.0f} s ({elapsed / 10_000 * 1000:.1f} ms per case)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--slow", action="store_true", help="also run the 10,000-case differential test")
    parser.add_argument("--cap", type=float, default=120.0, help="time cap (s) for one naive all-triples run")
    args = parser.parse_args()
    print(f"z3 {z3.get_version_string()}, Python {sys.version.split()[0]}")
    catalog()
    product_vs_explicit()
    large_explicit(args.cap)
    differential(args.slow)


if __name__ == "__main__":
    main()
