"""Shuffling n reports of a pure ε0-LDP density channel: the Laplace, Piecewise and Square Wave
mechanisms, any real-output spec whose tight ε0 is finite (issue 18, item 3a for real outputs).

Upper bounds, each proved for every pair of neighbouring datasets:

* **one report** (``epsilon_local`` = ε0): the shuffled view is a post-processing of the n
  reports, and the others' reports do not depend on the target; a pure ε0-LDP report gives
  (ε0, 0).
* **generic** (``epsilon_generic``): Feldman, McMillan & Talwar's numerical clone bound for an
  ε0-LDP randomizer (:func:`ldpaudit.account.shuffle.clone_epsilon`, the same as for finite
  channels). ε0 is the tight ε of the density, found and proved by ``verify``
  (:func:`ldpaudit.verify.core.tight_epsilon`), rounded up.

``epsilon_upper`` is the smaller. The privacy-blanket bound is not computed for these channels
(:mod:`ldpaudit.account.gaussian_blanket` covers Gaussian noise, whose every-pair argument is
specific to it): null, with a note.

Lower bound (a post-processing of the shuffled view for one pair of datasets): **the count of
reports above a threshold t** (:func:`ldpaudit.account.shuffle.count_epsilon`), the target at
one end of the input interval and the others at the other end, both ways, over thresholds at
quantiles of the target's report. P(Z > t | x) is integrated by sympy from the density (absolute
values rewritten as cases) and evaluated at 40 digits; when sympy cannot integrate it the lower
bound is 0 with a note.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from ldpaudit.errors import InvalidParameter

#: tail probabilities P(Z > t | target) at which the thresholds sit
TAIL_LEVELS = tuple(10.0 ** (-k / 2) for k in range(1, 19))
DIGITS = 40


@dataclass(frozen=True)
class DensityAmplification:
    mechanism: str
    n: int
    delta: float
    epsilon0: float | None
    epsilon0_exact: str | None
    epsilon_upper: float
    epsilon_lower: float
    epsilon_local: float | None
    epsilon_generic: float | None
    epsilon_count_lower: float
    count_witness: dict = field(default_factory=dict)
    epsilon_blanket: float | None = None
    seconds: dict = field(default_factory=dict)
    notes: tuple = ()

    rigorous = property(lambda self: math.isfinite(self.epsilon_upper))

    def to_json(self) -> dict:
        from ldpaudit.account.amplify import result_json

        return {**result_json(self, ("epsilon_upper", "epsilon_generic")), "kind": "density"}


def check_n_delta(n, delta) -> float:
    """n a whole number >= 1 (n = 1: the report itself) and δ in (0, 1), as a float; one-line
    errors otherwise."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidParameter(f"--n {n!r} must be a whole number of users >= 1")
    d = float(delta)
    if not 0 < d < 1:
        raise InvalidParameter(f"--delta {delta} is outside (0, 1); give a probability such as 1e-6")
    return d


def _tail_function(mech, value):
    """t -> P(Z > t | x = value) (mpmath, DIGITS), from the density by sympy; None when sympy
    leaves an integral."""
    import mpmath
    import sympy as sp

    from ldpaudit.mechanism.expr import fold
    from ldpaudit.mechanism.params import X, Z

    t = sp.Dummy("t", real=True)
    f = mech.channel.density.xreplace({X: value}).rewrite(sp.Piecewise)
    try:
        f = fold(f)
        tail = sp.integrate(f, (Z, t, sp.oo))
    except (ValueError, TypeError, NotImplementedError, InvalidParameter):
        return None
    if tail.has(sp.Integral):
        return None
    g = sp.lambdify(t, tail, modules="mpmath")

    def at(u):
        with mpmath.workdps(DIGITS):
            return mpmath.mpf(g(mpmath.mpf(u)))

    return at


def _threshold(tail, level: float, start: float, width: float) -> float | None:
    """A t with tail(t) about ``level`` (bisection; tail is non-increasing), or None."""
    lo, hi = start - width, start + width
    steps = 0
    while tail(lo) < level:
        lo -= width * 2 ** steps
        steps += 1
        if steps > 60:
            return None
    steps = 0
    while tail(hi) > level:
        hi += width * 2 ** steps
        steps += 1
        if steps > 60:
            return None
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if tail(mid) > level:
            lo = mid
        else:
            hi = mid
    return hi


def count_lower(mech, n: int, delta: float) -> tuple[float, dict, str | None]:
    """The count of reports above t, target at one end and the others at the other (both ways),
    best over thresholds at quantiles of the target's report."""
    import sympy as sp

    from ldpaudit.account.shuffle import count_epsilon

    low, high = mech.inputs.low, mech.inputs.high
    tails = {"low": _tail_function(mech, low), "high": _tail_function(mech, high)}
    if any(v is None for v in tails.values()):
        return 0.0, {}, "the count lower bound is not computed: sympy could not integrate the density's tail"
    ends = {"low": float(sp.N(low, 30)), "high": float(sp.N(high, 30))}
    width = max(ends["high"] - ends["low"], 1e-9)
    best, where = 0.0, {}
    for target, other in (("high", "low"), ("low", "high")):
        for level in TAIL_LEVELS:
            t = _threshold(tails[target], level, ends[target], width)
            if t is None:
                continue
            q0, q1 = float(tails[target](t)), float(tails[other](t))
            if not (0 < q0 < 1 and 0 < q1 < 1):
                continue
            eps = count_epsilon(q0, q1, n, delta)
            if eps > best:
                best, where = eps, {"threshold": t, "target": target, "others": other,
                                    "q_target": q0, "q_others": q1,
                                    "dataset": f"others at {other}; target at {target} vs {other}; statistic: the "
                                               "count of reports above the threshold"}
    return best, where, None


def density_amplify(mech, n: int, delta) -> DensityAmplification:
    """Every bound of the module doc for ``mech`` (a bound density channel on an interval)."""
    import sympy as sp

    from ldpaudit.account.amplify import _up
    from ldpaudit.account.shuffle import clone_epsilon
    from ldpaudit.verify.core import tight_epsilon
    from ldpaudit.verify.result import Status

    d = check_n_delta(n, delta)
    if mech.parameters:
        raise InvalidParameter(f"amplify needs numeric parameters; bind {', '.join(mech.parameter_names)} "
                               f"(e.g. -p {mech.parameter_names[0]}=...)")
    if not mech.inputs.bounded:
        raise InvalidParameter(f"amplify needs a bounded input interval; {mech.name!r} has none")
    clock, notes = {}, []
    t = time.perf_counter()
    tight = tight_epsilon(mech)
    clock["epsilon0"] = time.perf_counter() - t
    eps0 = eps0_text = None
    if tight.proof is not None and tight.proof.status is Status.PROVED and tight.value.is_finite:
        eps0_text = sp.sstr(tight.value)
        eps0 = _up(float(sp.N(tight.value, 30)))    # one ulp up, as for finite channels
    else:
        notes.append(f"no proved finite ε0 for {mech.name!r} ({tight.method or 'the tight ε was not proved'}): no "
                     "upper bound from pure LDP")
    t = time.perf_counter()
    generic = clone_epsilon(eps0, n, d, math.exp(-eps0)) if eps0 is not None and n >= 2 else None
    clock["generic"] = time.perf_counter() - t
    t = time.perf_counter()
    count, witness, why = count_lower(mech, n, d)
    clock["count_lower"] = time.perf_counter() - t
    if why:
        notes.append(why)
    notes.append("epsilon_blanket is not computed for this density: the every-pair argument of the privacy-blanket "
                 "bound is made for Gaussian noise only (ldpaudit/account/gaussian_blanket.py)")
    candidates = [v for v in (eps0, generic) if v is not None and math.isfinite(v)]
    upper = min(candidates) if candidates else math.inf
    return DensityAmplification(mech.name, n, d, eps0, eps0_text, upper, count, eps0, generic, count, witness,
                                seconds=clock, notes=tuple(notes))


def render(r: DensityAmplification) -> str:
    def fmt(v):
        return "not computed" if v is None else f"{v:.6g}"

    lines = [f"{r.mechanism}: n = {r.n} shuffled reports, δ = {r.delta:g}; a density channel, local ε0 = "
             f"{r.epsilon0_exact or 'none'}" + (f" ({r.epsilon0:.6g})" if r.epsilon0 is not None else ""),
             f"  epsilon_upper       {fmt(r.epsilon_upper if math.isfinite(r.epsilon_upper) else None)}   "
             "best proved upper bound",
             f"  epsilon_local       {fmt(r.epsilon_local)}   one report's ε0 (shuffling only post-processes)",
             f"  epsilon_generic     {fmt(r.epsilon_generic)}   FMT clones from ε0 alone",
             "  epsilon_blanket     not computed (see the note)",
             f"  epsilon_lower       {fmt(r.epsilon_lower)}   best rigorous lower bound (count of reports above a "
             "threshold" + (f" {r.count_witness['threshold']:.4g}, target at {r.count_witness['target']}"
                            if r.count_witness else "") + ")"]
    lines += [f"  note: {note}" for note in r.notes]
    return "\n".join(lines)


#: the entry point the amplify command calls (with :func:`render`)
amplify = density_amplify
