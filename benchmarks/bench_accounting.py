"""Privacy accounting (issue 18): exact profile of a 1000-output channel, and the 100-fold
composition of k-RR (d = 16) by exact PLD convolution, each with CPU seconds and peak memory
(ru_maxrss), against baselines measured in the same run:

* profile: the brute-force δ(ε) of verify.delta (every pair, every output, exact) at ONE ε,
  against the whole piecewise profile (every ε) computed by ldpaudit.account;
* composition: the naive product channel (d^k outputs enumerated, exact fractions) at small k,
  against the PLD at the same k and at k = 100.

Composition at the accountants' speed (issue 31 item 8, ``accountants``): ``ldpaudit profile``'s
payload (:func:`ldpaudit.account.command.compute`, from the spec file) at K = 10, 100 and 1000
reports against Google's dp-accounting PLD (pessimistic and optimistic, its default
discretization interval 1e-4) in the same run, CPU seconds of the process and of its children
(the spec is loaded in a forked child), both of our bounds around the exact δ computed here
independently (a trinomial sum at 60 digits: the K reports' loss is (i - m) ε0, i reports equal
to x and m equal to x'). dp-accounting is not a dependency of ldpaudit; install it to run this::

    pip install dp-accounting

    python benchmarks/bench_accounting.py              # everything
    python benchmarks/bench_accounting.py accountants  # only the dp-accounting comparison
"""

from __future__ import annotations

import itertools
import math
import resource
import sys
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
        v = view(krr, reports=100, budget=math.inf)  # the exact convolution without its work budget
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
    ex20 = delta_at(comp.view(20, math.inf), 30).delta_float
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


# --- composition at the accountants' speed (issue 31 item 8) -----------------------------------


def _cpu_all() -> float:
    """CPU seconds of this process and of its finished children (the forked spec loader)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _best_cpu(fn, repeat: int = 3):
    """(result, least CPU seconds over ``repeat`` runs)."""
    best, out = math.inf, None
    for _ in range(repeat):
        t = _cpu_all()
        out = fn()
        best = min(best, _cpu_all() - t)
    return out, best


def trinomial_delta(d: int, eps0, K: int, eps):
    """Exact δ(ε) of K reports of k-RR (mpmath, current precision): Σ over i outputs equal to x
    and m equal to x' of K!/(i! m! (K-i-m)!) p^i q^m s^(K-i-m) (1 - e^(ε - (i-m) ε0))_+, with
    p = t/Z, q = 1/Z, s = (d-2)/Z, Z = t + d - 1, t = e^ε0. Terms by ratios of neighbours."""
    import mpmath

    t = mpmath.exp(eps0)
    Z = t + d - 1
    p, q, s = t / Z, 1 / Z, mpmath.mpf(d - 2) / Z
    total = mpmath.mpf(0)
    row = s ** K                        # i = 0, m = 0
    for i in range(K + 1):
        term = row                      # m = 0
        for m in range(K - i + 1):
            if (i - m) * eps0 > eps:
                total += term * -mpmath.expm1(eps - (i - m) * eps0)
            elif m:
                break                   # the loss only falls with m
            if m < K - i:
                term = term * (K - i - m) / (m + 1) * q / s
        if i < K:
            row = row * (K - i) / (i + 1) * p / s
    return total


def _ln3_ln5_delta(K: int, eps):
    """Exact δ(ε) of K rounds of k-RR(ln 3) and k-RR(ln 5), d = 3: independent net counts."""
    import mpmath

    def net(t):
        Z = mpmath.mpf(t) + 2
        p, q = t / Z, 1 / Z
        out: dict = {}
        for i in range(K + 1):
            for m in range(K - i + 1):
                c = mpmath.binomial(K, i) * mpmath.binomial(K - i, m)
                out[i - m] = out.get(i - m, 0) + c * p ** i * q ** m * q ** (K - i - m)
        return out

    three, five = net(3), net(5)
    l3, l5 = mpmath.log(3), mpmath.log(5)
    total = mpmath.mpf(0)
    for a, pa in three.items():
        for b, pb in five.items():
            loss = a * l3 + b * l5
            if loss > eps:
                total += pa * pb * -mpmath.expm1(eps - loss)
    return total


def accountants() -> None:
    import os

    import mpmath

    os.environ["LDPAUDIT_CACHE_DIR"] = "off"  # every run loads and validates the spec (no result cache)

    try:
        from dp_accounting.pld import privacy_loss_distribution as dpl
    except ImportError:
        print("accountants: dp-accounting is not installed (pip install dp-accounting); skipped")
        return
    from ldpaudit.account.command import compute

    print("k-RR d = 8, ε0 = 1: ldpaudit profile (compute(), from the spec) against dp-accounting's PLD "
          "(from_randomized_response, value_discretization_interval = 1e-4); CPU s = best of 3, own + children")
    noise = 8 / (math.e + 7)            # dp-accounting's RR: truth w.p. 1 - p + p/8 = e/(e + 7)
    for K, eps in ((10, 1), (100, 10), (1000, 100)):
        ours, our_cpu = _best_cpu(lambda: compute("specs/krr.toml", ["d=8", "epsilon=1"], reports=K, epsilon=str(eps)))
        theirs = {}
        for pess in (True, False):
            def run():
                pld = dpl.from_randomized_response(noise, 8, pessimistic_estimate=pess, value_discretization_interval=1e-4)
                return pld.self_compose(K).get_delta_for_epsilon(eps)
            theirs[pess] = _best_cpu(run)
        t = _cpu_all()
        with mpmath.workdps(60):
            exact = trinomial_delta(8, mpmath.mpf(1), K, mpmath.mpf(eps))
        exact_cpu = _cpu_all() - t
        if ours["answer"] == "exact":
            ours_text = f"exact δ = {ours['delta_float']:.15g} (work {ours['work']:,} of {ours['work_budget']:,} units)"
            inside = abs(ours["delta_float"] - exact) <= 1e-15 * exact
        else:
            g = ours["discretization"]
            ours_text = (f"{ours['delta_lower']:.15g} <= δ <= {ours['delta_upper']:.15g} (gap {ours['gap']:.2g}; "
                         f"{g['kind']} {g['interval_exact']}, {g['grid_points']:,} points)")
            inside = mpmath.mpf(ours["delta_lower"]) <= exact <= mpmath.mpf(ours["delta_upper"])
        print(f"K = {K}, δ({eps}): exact {mpmath.nstr(exact, 17)} (trinomial sum, 60 digits, {exact_cpu:.2f} s)")
        print(f"  ldpaudit: {ours_text}; {our_cpu:.3f} s CPU; exact inside: {inside}")
        for pess, label in ((True, "pessimistic"), (False, "optimistic")):
            d, c = theirs[pess]
            print(f"  dp-accounting {label}: δ = {d:.15g} (off by {float(d - exact):+.2e}); {c:.3f} s CPU; "
                  f"ratio ldpaudit / dp-accounting = {our_cpu / c:.2f}")
    print("k-RR ln 3 + k-RR ln 5 (d = 3, no lattice: losses rounded to a grid), composition file")
    spec = "specs/compositions/krr_ln3_ln5.toml"
    for K, eps in ((100, 150), (1000, 1500)):
        ours, our_cpu = _best_cpu(lambda: compute(spec, None, reports=K, epsilon=str(eps)), repeat=1)

        def run():
            three = dpl.from_randomized_response(3 / 5, 3, value_discretization_interval=1e-4)
            five = dpl.from_randomized_response(3 / 7, 3, value_discretization_interval=1e-4)
            return three.compose(five).self_compose(K).get_delta_for_epsilon(eps)
        d, c = _best_cpu(run, repeat=1)
        exact = None
        if K <= 100:
            with mpmath.workdps(40):
                exact = _ln3_ln5_delta(K, mpmath.mpf(eps))
        g = ours["discretization"]
        print(f"K = {K} rounds, δ({eps}): exact {mpmath.nstr(exact, 12) if exact is not None else '(not computed)'}")
        print(f"  ldpaudit: {ours['delta_lower']:.9g} <= δ <= {ours['delta_upper']:.9g} (gap {ours['gap']:.2g}; grid "
              f"{g['interval_exact']}, {g['grid_points']:,} points); {our_cpu:.2f} s CPU")
        print(f"  dp-accounting pessimistic: δ = {d:.9g}; {c:.2f} s CPU; ratio {our_cpu / c:.2f}")
    print(f"peak RSS {_peak_mb():.0f} MB")


if __name__ == "__main__":
    if sys.argv[1:] == ["accountants"]:
        accountants()
    else:
        main()
        accountants()
