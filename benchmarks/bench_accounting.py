"""Privacy accounting (issue 18): exact profile of a 1000-output channel, and the 100-fold
composition of k-RR (d = 16) by exact PLD convolution, each with CPU seconds and peak memory
(ru_maxrss), against baselines measured in the same run:

* profile: the brute-force δ(ε) of verify.delta (every pair, every output, exact) at ONE ε,
  against the whole piecewise profile (every ε) computed by ldpaudit.account;
* composition: the naive product channel (d^k outputs enumerated, exact fractions) at small k,
  against the PLD at the same k and at k = 100.

    python benchmarks/bench_accounting.py
"""

from __future__ import annotations

import itertools
import resource
import time
from fractions import Fraction

import numpy as np


def _cpu() -> float:
    return time.process_time()


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def naive_product_delta(rows, k, t: Fraction) -> Fraction:
    """max over ordered pairs of Σ over the d^k outputs of max(0, P(y) - t P'(y)), exactly."""
    best = Fraction(0)
    for a, b in itertools.permutations(range(len(rows)), 2):
        total = Fraction(0)
        for ys in itertools.product(range(len(rows[0])), repeat=k):
            p = q = Fraction(1)
            for y in ys:
                p *= rows[a][y]
                q *= rows[b][y]
            if p > t * q:
                total += p - t * q
        best = max(best, total)
    return best


def main() -> None:
    import sympy as sp

    from ldpaudit.account.profile import delta_at, profile, view
    from ldpaudit.mechanism import Mechanism, load_spec
    from ldpaudit.verify.delta import delta_for

    rng = np.random.default_rng(0)
    for n in (2, 4):
        W = rng.integers(1, 1000, size=(n, 1000))
        mech = Mechanism.from_matrix(W, epsilon="log(1000)")
        t = _cpu()
        prof = profile(view(mech))
        took = _cpu() - t
        t = _cpu()
        base = delta_for(mech, sp.log(2))
        base_took = _cpu() - t
        got = delta_at(view(mech), sp.log(2)).delta
        assert sp.simplify(got - base.delta) == 0
        print(f"profile {n} x 1000: {took:.2f} s CPU ({len(prof.breakpoints)} breakpoints, worst pair proved: "
              f"{prof.worst is not None}); baseline verify.delta at one ε: {base_took:.2f} s CPU "
              f"(ratio {took / base_took:.1f}); peak RSS {_peak_mb():.0f} MB")

    krr = load_spec("specs/krr.toml").bind(d=16, epsilon="log(3)")
    rows = [[Fraction(int(e.p), int(e.q)) for e in r] for r in krr.materialize().matrix[:2]]
    for k in (2, 3, 4):
        t = _cpu()
        naive = naive_product_delta(rows, k, Fraction(2))  # pair (0, 1) only: every pair is alike
        naive_took = _cpu() - t
        t = _cpu()
        exact = delta_at(view(krr, reports=k), sp.log(2)).delta
        took = _cpu() - t
        assert exact == sp.Rational(naive.numerator, naive.denominator)
        print(f"k-RR d=16, {k} reports: PLD {took:.3f} s CPU, naive product channel ({16 ** k} outputs, one pair) "
              f"{naive_took:.2f} s CPU (ratio {naive_took / took:.0f}x)")
    for eps, label in (("log(3)", "ε = ln 3 (rational entries)"), (1, "ε = 1 (entries in Q(e))")):
        krr = load_spec("specs/krr.toml").bind(d=16, epsilon=eps)
        t = _cpu()
        v = view(krr, reports=100)
        d = delta_at(v, 5)
        took = _cpu() - t
        print(f"k-RR d=16, 100 reports, {label}: {took:.2f} s CPU, {len(v.classes[0].pld)} atoms, "
              f"δ(5) = {d.delta_float:.6g}; naive: 16^100 outputs; peak RSS {_peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
