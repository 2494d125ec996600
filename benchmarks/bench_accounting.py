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

    # pessimistic discretized PLD (upper bound) against the exact PLD, same run
    from ldpaudit.account import composition as C
    from ldpaudit.account import discrete as D

    krr = load_spec("specs/krr.toml").bind(d=16, epsilon="log(3)")
    single = view(krr)
    exact = delta_at(view(krr, reports=100), 5).delta_float
    for step in (2.0 ** -6, 2.0 ** -8, 2.0 ** -10):
        t = _cpu()
        up = D.view_delta_upper(single.classes, 100, 5, step)
        took = _cpu() - t
        print(f"k-RR d=16, 100 reports, ε = ln 3, discretized h = 2^{int(np.log2(step))}: {took:.2f} s CPU, "
              f"{up.support} grid points, δ(5) <= {up.delta_upper:.6g} (exact {exact:.6g}, gap {up.delta_upper - exact:.2g}); "
              f"peak RSS {_peak_mb():.0f} MB")
    comp = C.load_composition("specs/compositions/krr_ln3_ln5.toml")
    one = comp.view(1)
    t = _cpu()
    ex20 = delta_at(comp.view(20), 30).delta_float
    ex_took = _cpu() - t
    t = _cpu()
    up20 = D.view_delta_upper(one.classes, 20, 30, 2.0 ** -10)
    up_took = _cpu() - t
    print(f"k-RR ln 3 + ln 5 (d=3), 20 rounds: exact PLD {ex_took:.2f} s CPU (δ(30) = {ex20:.6g}); discretized "
          f"h = 2^-10 {up_took:.2f} s CPU (δ(30) <= {up20.delta_upper:.6g}; ratio {ex_took / up_took:.0f}x)")
    t = _cpu()
    up100 = D.view_delta_upper(one.classes, 100, 150, D.default_step(one.classes, 100))
    print(f"k-RR ln 3 + ln 5 (d=3), 100 rounds, default grid h = {up100.step:g}: {_cpu() - t:.2f} s CPU, "
          f"δ(150) <= {up100.delta_upper:.6g}; exact: support past the budget; peak RSS {_peak_mb():.0f} MB")
    from ldpaudit.account import density as A

    lap = load_spec("specs/laplace_mean.toml").bind(M=1, epsilon=1)
    t = _cpu()
    g = A.discretized_density_pld(lap, 2.0 ** -12)
    g10 = D.power(g, 10)
    bound = D.delta_upper(g10, 5.0)
    took = _cpu() - t
    print(f"Laplace mean (ε0 = 1), 10 reports, discretized h = 2^-12: {took:.2f} s CPU, δ(5) <= {bound:.6g} "
          f"(basic composition: δ(10) = 0, δ(5) = not bounded); peak RSS {_peak_mb():.0f} MB")

    krappor = load_spec("specs/krappor.toml").bind(d=16, epsilon="log(3)")  # entries with √3
    t = _cpu()
    enc = D.enclosed_delta_upper(krappor, 10, 2)
    took = _cpu() - t
    near = load_spec("specs/krappor.toml").bind(d=16, epsilon="log(4)")  # e^(ε/2) = 2: exact
    t = _cpu()
    ex = delta_at(view(near, reports=10), 2).delta_float
    ex_took = _cpu() - t
    print(f"k-RAPPOR d=16, ε = ln 3 (√3 entries), 10 reports, enclosures: {took:.2f} s CPU, δ(2) <= {enc.delta_upper:.6g} "
          f"(h = {enc.step:g}); exact at ε = ln 4 for scale: {ex_took:.2f} s CPU, δ(2) = {ex:.6g}; peak RSS {_peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
