"""Shuffling n reports of the Gaussian mechanism z = x + N(0, s²), x in [low, high] (issue 18,
item 3b for a mechanism without pure local DP).

Upper bounds, each proved for every pair of neighbouring datasets (any target pair (x, x'),
any inputs of the n - 1 others):

* **one report** (``epsilon_local``): the shuffled view is a post-processing of the n reports,
  and the other reports do not depend on the target, so the shuffled (ε, δ) is at most the
  single report's: ε with δ_1(ε) = δ, δ_1 the exact profile derived from the density
  (:func:`ldpaudit.verify.density_delta.density_delta`, Balle & Wang 2018).
* **truncation, then clones** (``epsilon_truncated``): R'(x) = the report clipped to
  [low - T, high + T]. R' is ε0(T)-LDP: inside, the log-ratio of the Gaussian is
  (x - x')(2z - x - x')/(2s²) <= Δ(Δ + 2T)/(2s²) (the derived log-ratio at z = high + T,
  Δ = high - low); the atom at high + T has ratio P(W > high + T - x)/P(W > high + T - x') <=
  P(W > T)/P(W > T + Δ) (log-concave tail: -log P(W > u) has a non-decreasing slope), the
  other atom likewise. Each user's report differs from R' with probability at most
  τ = P(|W| > T), so the two shuffled views are within TV = 1 - (1 - τ)^n (a coupling, user by
  user), and for neighbouring datasets D_{e^ε}(P || Q) <= D_{e^ε}(P' || Q') + (1 + e^ε) TV
  (the reduction Feldman, McMillan & Talwar (FOCS 2021) and Koskela et al. (2023) use for
  (ε0, δ0) local randomizers). D_{e^ε}(P' || Q') is bounded by the generic clone bound of
  :mod:`ldpaudit.account.shuffle` for ε0(T) at δ - (1 + e^ε0) TV (the ε found is <= ε0). T is
  chosen so that the TV term takes a fixed share of δ (a few shares are tried; each T gives a
  valid bound, the smallest ε is kept).

``epsilon_upper`` is the smaller of the two. ``epsilon_generic`` (FMT from ε0 alone) is not
defined (the Gaussian is not ε0-LDP for any finite ε0): null, with a note. The privacy-blanket
bound of Su, Cheng & Wang (arXiv 2601.19154) is not computed: its maximum over target pairs
(x, x') in [low, high] is not shown here to be at the ends of the interval, so computing it
for the end pair would not give a bound proved for every neighbouring pair.

Lower bounds (post-processings of the shuffled view for one pair of datasets: the others all
at low, the target at high vs low):

* **the sum** of the n reports: N(high + (n-1) low, n s²) vs N(n low, n s²), the Gaussian
  mechanism with noise scale s√n, whose exact δ(ε) is derived from the density like one report;
  its ε at δ (the lower end of a bracket decided at 60 digits) is a lower bound. This is also
  the central Gaussian-sum mechanism, so the upper bound is never below it;
* **the count of reports above a threshold t**: Bern(P(W > t - high)) + Bin(n-1, P(W > t - low))
  vs Bin(n, P(W > t - low)) (:func:`ldpaudit.account.shuffle.count_epsilon`), over a grid of t.

At n = 1 both sides are the one report's exact ε (:func:`gaussian_amplify` accepts n = 1; the
command asks n >= 2).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import mpmath
import sympy as sp

from ldpaudit.account.blanket import _down, _up
from ldpaudit.errors import InvalidParameter

#: the shares of δ given to the truncation term (1 + e^ε0) TV; the best resulting ε is kept
TV_SHARES = (0.5, 0.1, 0.01)
#: thresholds t = high + k s / 4, k = 0..COUNT_STEPS, of the count lower bound
COUNT_STEPS = 24
DIGITS = 60
MARGIN = mpmath.mpf("1e-30")


@dataclass(frozen=True)
class GaussianAmplification:
    mechanism: str
    n: int
    delta: float
    scale: str
    epsilon_upper: float
    epsilon_lower: float
    epsilon_local: float
    epsilon_truncated: float | None
    epsilon_sum_lower: float
    epsilon_count_lower: float
    truncation: dict = field(default_factory=dict)
    count_witness: dict = field(default_factory=dict)
    epsilon_generic: float | None = None
    epsilon_blanket: float | None = None
    blanket: dict = field(default_factory=dict)
    epsilon0: float | None = None
    seconds: dict = field(default_factory=dict)
    notes: tuple = ()

    @property
    def rigorous(self) -> bool:
        return math.isfinite(self.epsilon_upper)

    def to_json(self) -> dict:
        from ldpaudit.account.amplify import result_json

        return {**result_json(self, ("epsilon_upper", "epsilon_truncated")), "kind": "gaussian"}


class _Derived:
    """What the bounds need, derived from the spec's density by sympy: the noise scale s, the
    exact δ(ε) of one report with the noise scaled by c (c = 1: one report; c = √n: the sum),
    the noise tail P(W > u) and the log-ratio of the end pair."""

    def __init__(self, mech):
        from ldpaudit.account.density import _W, gaussian_scale, noise_of
        from ldpaudit.verify.density_delta import _tail, applies

        if not applies(mech) or not mech.inputs.bounded:
            raise InvalidParameter(f"amplify needs a finite channel or a density channel on a bounded interval; "
                                   f"{mech.name!r} is neither")
        if mech.parameters:
            raise InvalidParameter(f"amplify needs numeric parameters; bind {', '.join(mech.parameter_names)} "
                                   f"(e.g. -p {mech.parameter_names[0]}=...)")
        noise = noise_of(mech)
        s = gaussian_scale(mech)
        if s is None:
            raise InvalidParameter(f"amplify handles density channels with Gaussian noise only; the noise of "
                                   f"{mech.name!r} is not Gaussian (its log-density is not quadratic)")
        if sp.simplify(noise - noise.xreplace({_W: -_W})) != 0:
            raise InvalidParameter(f"the noise of {mech.name!r} is not symmetric about 0; not handled")
        self.s = s
        self.low, self.high = mech.inputs.low, mech.inputs.high
        self.width = sp.simplify(self.high - self.low)
        self.eps, self.r = sp.Symbol("epsilon", positive=True), sp.Symbol("r", positive=True)
        u = sp.Dummy("u", real=True)
        self.tail_expr = _tail(noise, u)
        self._tail = sp.lambdify(u, self.tail_expr, modules="mpmath")
        from ldpaudit.mechanism.params import Z

        # the noise scaled by r (r = sqrt(n): the sum of n reports), g_r(w) = g(w/r)/r; its
        # log-ratio for the end pair is non-decreasing in z (Gaussian: linear), so δ_r(ε) =
        # P_high(Z > t) - e^ε P_low(Z > t) at the crossing t of the log-ratio with ε
        ratio_r = sp.expand_log(sp.log(noise.xreplace({_W: (Z - self.high) / self.r}))
                                - sp.log(noise.xreplace({_W: (Z - self.low) / self.r})), force=True)
        self._ratio = sp.lambdify(Z, sp.simplify(ratio_r.xreplace({self.r: 1})), modules="mpmath")
        crossing = sp.solve(sp.Eq(sp.simplify(ratio_r), self.eps), Z)
        if len(crossing) != 1:
            raise InvalidParameter(f"the log-ratio of {mech.name!r} does not cross ε once; not handled")
        t = crossing[0]
        self.delta_expr_r = sp.simplify(self.tail_expr.xreplace({u: (t - self.high) / self.r})
                                        - sp.exp(self.eps) * self.tail_expr.xreplace({u: (t - self.low) / self.r}))
        self.delta_expr = self.delta_expr_r.xreplace({self.r: 1})
        self._delta = sp.lambdify((self.eps, self.r), self.delta_expr_r.rewrite(sp.erfc), modules="mpmath")
        with mpmath.workdps(DIGITS):
            self.s_mp = mpmath.mpf(sp.N(s, DIGITS + 10))
            self.width_mp = mpmath.mpf(sp.N(self.width, DIGITS + 10))
            self.high_mp = mpmath.mpf(sp.N(self.high, DIGITS + 10))
            self.low_mp = mpmath.mpf(sp.N(self.low, DIGITS + 10))

    def delta(self, eps, c: int):
        """δ(ε) of one report with the noise scaled by sqrt(c) (c = n: the sum of n reports)."""
        with mpmath.workdps(DIGITS):
            return self._delta(mpmath.mpf(eps), mpmath.sqrt(c))

    def tail(self, u):
        with mpmath.workdps(DIGITS):
            return self._tail(mpmath.mpf(u))

    def epsilon_bracket(self, c: int, delta: float) -> tuple[float, float]:
        """(lo, hi) floats with δ_c(lo) > δ and δ_c(hi) < δ, both decided at 60 digits with a
        margin of 1e-30, hi - lo small: δ_c is the exact profile with the noise scaled by √c."""
        target = mpmath.mpf(delta)
        lo, hi = 0.0, 1.0
        if self.delta(0.0, c) <= target + MARGIN:
            return 0.0, 0.0
        while self.delta(hi, c) >= target - MARGIN:
            lo, hi = hi, 2 * hi
            if hi > 1e6:
                raise InvalidParameter(f"the one-report δ(ε) stays above δ = {delta} up to ε = 10^6")
        for _ in range(200):
            if hi - lo <= 1e-13 * hi:
                break
            mid = 0.5 * (lo + hi)
            value = self.delta(mid, c)
            if value > target + MARGIN:
                lo = mid
            elif value < target - MARGIN:
                hi = mid
            else:
                break
        return lo, hi


def truncated_epsilon(der: _Derived, n: int, delta: float) -> tuple[float, dict]:
    """The truncation-then-clones bound (module doc): the best over :data:`TV_SHARES`."""
    from ldpaudit.account.shuffle import clone_epsilon

    best, where = math.inf, {}
    for share in TV_SHARES:
        facts = _truncation(der, n, delta, share)
        if facts is None:
            continue
        eps = clone_epsilon(facts["epsilon0"], n, facts["delta_clone"], math.exp(-facts["epsilon0"]))
        facts["epsilon"] = eps
        if eps < best:
            best, where = eps, facts
    return best, where


def _truncation(der: _Derived, n: int, delta: float, share: float) -> dict | None:
    """T with (1 + e^ε0(T)) TV(T) about share·δ (bisection on T), and the rounded facts at T."""

    def facts_at(T):
        with mpmath.workdps(DIGITS):
            T = mpmath.mpf(T)
            inside = der._ratio(der.high_mp + T)                 # Δ(Δ + 2T)/(2s²), derived
            atom = mpmath.log(der.tail(T)) - mpmath.log(der.tail(T + der.width_mp))
            eps0 = _up(max(inside, atom) * (1 + mpmath.mpf(10) ** -40))
            tau = 2 * der.tail(T)                                 # P(|W| > T), symmetric noise
            tv = -mpmath.expm1(n * mpmath.log1p(-tau))            # 1 - (1 - τ)^n
            cost = (1 + mpmath.exp(mpmath.mpf(eps0))) * tv
            return eps0, _up(tau * (1 + mpmath.mpf(10) ** -40)), _up(tv * (1 + mpmath.mpf(10) ** -40)), \
                _up(cost * (1 + mpmath.mpf(10) ** -40))

    target = share * delta
    lo, hi = 0.0, float(der.s_mp)
    while facts_at(hi)[3] > target:
        lo, hi = hi, 2 * hi
        if hi > 1e6 * float(der.s_mp):
            return None
    for _ in range(60):
        if hi - lo <= 1e-6 * hi:
            break
        mid = 0.5 * (lo + hi)
        if facts_at(mid)[3] > target:
            lo = mid
        else:
            hi = mid
    eps0, tau, tv, cost = facts_at(hi)
    remaining = delta - cost
    if not remaining > 0:
        return None
    return {"T": hi, "epsilon0": eps0, "tau": tau, "tv": tv, "tv_term": cost, "share": share,
            "delta_clone": math.nextafter(remaining, 0.0),
            "interval": [float(der.low_mp) - hi, float(der.high_mp) + hi]}


def count_lower(der: _Derived, n: int, delta: float) -> tuple[float, dict]:
    """The count of reports above t (target high vs low, the others at low), best over t."""
    from ldpaudit.account.shuffle import count_epsilon

    best, where = 0.0, {}
    for k in range(COUNT_STEPS + 1):
        t = der.high_mp + der.s_mp * k / 4
        q0, q1 = float(der.tail(t - der.high_mp)), float(der.tail(t - der.low_mp))
        if not 0 < q1 < 1 or not 0 < q0 < 1:
            continue
        eps = count_epsilon(q0, q1, n, delta)
        if eps > best:
            best, where = eps, {"threshold": float(t), "q_target_high": q0, "q_target_low": q1,
                                "dataset": "others at low; target at high vs low; statistic: the count of "
                                           "reports above the threshold"}
    return best, where


def gaussian_amplify(mech, n: int, delta) -> GaussianAmplification:
    """Every bound of the module doc for ``mech`` (a bound Gaussian-noise density channel)."""
    from ldpaudit.account.density_shuffle import check_n_delta

    d = check_n_delta(n, delta)
    clock = {}
    t = time.perf_counter()
    der = _Derived(mech)
    clock["derive"] = time.perf_counter() - t
    t = time.perf_counter()
    lo1, hi1 = der.epsilon_bracket(1, d)
    local_up, local_low = _up(hi1), _down(lo1)
    clock["local"] = time.perf_counter() - t
    notes = ["epsilon_generic is not defined: the Gaussian mechanism is not ε0-LDP for any finite ε0 (Feldman, "
             "McMillan & Talwar's generic bound needs one); epsilon_truncated applies it to the report clipped to "
             "[low - T, high + T] and charges the clipping's total variation to δ"]
    if n == 1:
        return GaussianAmplification(mech.name, n, d, str(der.s), local_up, local_low, local_up, None, local_low,
                                     local_low, notes=tuple(notes + ["n = 1: the shuffled view is the report itself; "
                                                                     "both sides are its exact ε at δ"]),
                                     seconds=clock)
    t = time.perf_counter()
    trunc, facts = truncated_epsilon(der, n, d)
    clock["truncated"] = time.perf_counter() - t
    t = time.perf_counter()
    lo_n, _ = der.epsilon_bracket(n, d)
    sum_low = _down(lo_n)
    clock["sum_lower"] = time.perf_counter() - t
    t = time.perf_counter()
    count_low, witness = count_lower(der, n, d)
    clock["count_lower"] = time.perf_counter() - t
    t = time.perf_counter()
    blanket = blanket_epsilon(der, n, d, local_up, max(sum_low, count_low))
    clock["blanket"] = time.perf_counter() - t
    notes += list(blanket.notes)
    upper = min(local_up, trunc, blanket.epsilon if blanket.epsilon is not None else math.inf)
    if not math.isfinite(trunc):
        notes.append("epsilon_truncated: no truncation leaves part of δ to the clone bound at this n and δ")
    return GaussianAmplification(
        mechanism=mech.name, n=n, delta=d, scale=str(der.s), epsilon_upper=upper,
        epsilon_lower=max(sum_low, count_low), epsilon_local=local_up,
        epsilon_truncated=trunc if math.isfinite(trunc) else None, epsilon_sum_lower=sum_low,
        epsilon_count_lower=count_low, truncation=facts, count_witness=witness,
        epsilon_blanket=blanket.epsilon, blanket=blanket.to_json(),
        epsilon0=facts.get("epsilon0"), seconds=clock, notes=tuple(notes),
    )


def blanket_epsilon(der: _Derived, n: int, delta: float, cap: float, hint: float = 0.0):
    """The privacy-blanket bound of :mod:`ldpaudit.account.gaussian_blanket` for this
    mechanism: the half-width a = (high - low)/(2 s) in noise scales, one report's exact δ and ε
    at a distance d (noise scales) from the derived profile (the end pair with the noise scaled
    by r = 2a/d has distance d)."""
    from ldpaudit.account.gaussian_blanket import blanket_bound

    with mpmath.workdps(DIGITS):
        a_mp = der.width_mp / (2 * der.s_mp)

    def scale(d):
        with mpmath.workdps(DIGITS):
            return (2 * a_mp / mpmath.mpf(d)) ** 2

    def one_delta(d, eps):
        return _up(der.delta(eps, scale(d)) * (1 + mpmath.mpf(10) ** -40))

    def one_epsilon(d):
        return _up(der.epsilon_bracket(scale(d), delta)[1])

    return blanket_bound(float(a_mp), n, delta, epsilon_cap=cap, one_report_delta=one_delta,
                         one_report_epsilon=one_epsilon, epsilon_hint=hint)


def render(r: GaussianAmplification) -> str:
    def fmt(v):
        return "not computed" if v is None else f"{v:.6g}"

    lines = [f"{r.mechanism}: n = {r.n} shuffled reports, δ = {r.delta:g}; Gaussian noise, scale s = {r.scale} "
             "(not pure LDP: no ε0)",
             f"  epsilon_upper       {fmt(r.epsilon_upper)}   best proved upper bound",
             f"  epsilon_local       {fmt(r.epsilon_local)}   one report's exact ε at δ (shuffling only post-processes)"]
    if r.truncation:
        tr = r.truncation
        lines.append(f"  epsilon_truncated   {fmt(r.epsilon_truncated)}   clip to [{tr['interval'][0]:.4g}, "
                     f"{tr['interval'][1]:.4g}]: ε0 = {tr['epsilon0']:.6g}, TV term {tr['tv_term']:.3g}, "
                     f"clone bound at δ = {tr['delta_clone']:.3g}")
    if r.blanket:
        b = r.blanket
        if r.epsilon_blanket is not None:
            lines.append(f"  epsilon_blanket     {fmt(r.epsilon_blanket)}   privacy blanket, every target pair: end pair "
                         f"{b['epsilon_end']:.6g}, pairs closer than {b['d_monotone']:.3g} noise scales "
                         f"{b['epsilon_near']:.6g}")
        else:
            lines.append("  epsilon_blanket     not computed (see the note)")
    lines += [f"  epsilon_generic     {'none' if r.epsilon_generic is None else fmt(r.epsilon_generic)}   "
              "not defined: no pure ε0 (see the note)",
              f"  epsilon_lower       {fmt(r.epsilon_lower)}   best rigorous lower bound (sum of reports: "
              f"{fmt(r.epsilon_sum_lower)}; count above a threshold: {fmt(r.epsilon_count_lower)})"]
    lines += [f"  note: {note}" for note in r.notes]
    return "\n".join(lines)


#: the entry point the amplify command calls (with :func:`render`)
amplify = gaussian_amplify
