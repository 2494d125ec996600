"""Privacy profiles of the catalog's density channels (a real output z, a bounded real input).

One report: the exact δ(ε) of :func:`ldpaudit.verify.density_delta.density_delta` (log-concave
location family: monotone likelihood ratio, worst pair at the ends of the input interval, the
event z > t, both tails integrated by sympy), so the Laplace mechanism's
max(0, 1 - e^((ε - ε0)/2)) and the Gaussian's Φ(Δ/(2σ) - εσ/Δ) - e^ε Φ(-Δ/(2σ) - εσ/Δ) come out
of the spec's density, not out of this file.

K reports:

* Gaussian noise (log g quadratic in w, checked by sympy: (log g)'' = -1/s² constant): the
  log-likelihood ratio of one report is linear in z, so the loss of K reports is the sum of K
  i.i.d. normal losses, which is the loss of one report with noise √K g(√K w) (scale s/√K):
  exact, δ by the same derivation. Its trade-off curve is G_μ (Dong, Roth & Su 2019) with
  μ = Δ/s, Δ the input interval's width and s derived from the density.
* any other log-concave location family with a bounded loss (Laplace): an upper bound by the
  pessimistic discretized PLD (:mod:`ldpaudit.account.discrete`). The loss L(z) is
  non-decreasing in z, so on a cell (z_j, z_(j+1)] it is at most L(z_(j+1)); the P-mass of the
  cell (from the derived tail function, evaluated by mpmath at 50 digits and rounded up) goes to
  the grid point above L(z_(j+1)). Mass rounded up and losses rounded up: a dominating PLD.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp

from ldpaudit.account import discrete as D
from ldpaudit.mechanism.params import X, Z

def _symbols():
    from ldpaudit.verify.density_delta import _V, _W  # the tails are integrated in these symbols

    return _W, _V


_W, _V = _symbols()
#: cells of the input interval in the z-grid of a discretized density PLD
Z_CELLS = 4000


def noise_of(mech) -> sp.Basic:
    """g(w) with f(z | x) = g(z - x)."""
    return mech.channel.density.xreplace({Z: X + _W})


def gaussian_scale(mech) -> sp.Basic | None:
    """s when the noise is Gaussian (log g has the constant second derivative -1/s²), else None."""
    noise = noise_of(mech)
    if noise.has(X) or noise.has(sp.Abs):
        return None
    second = sp.simplify(sp.diff(sp.expand_log(sp.log(noise), force=True), _W, 2))
    if second.has(_W) or not (second.is_negative is True):
        return None
    return sp.sqrt(-1 / second)


def _with_noise(mech, noise_w: sp.Basic, name: str):
    from dataclasses import replace

    return replace(mech, channel=replace(mech.channel, density=noise_w.xreplace({_W: Z - X})), name=name)


def k_report_gaussian(mech, reports: int):
    """The one-report mechanism with noise √K g(√K w): the same privacy loss as K reports."""
    k = sp.Integer(reports)
    noise = noise_of(mech)
    return _with_noise(mech, sp.sqrt(k) * noise.xreplace({_W: sp.sqrt(k) * _W}), f"{mech.name}, {reports} reports")


def _Phi_inv(p: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(p))


def gaussian_tradeoff(mu: float, points: int = 21) -> list:
    """(α, G_μ(α)) with G_μ(α) = Φ(Φ^{-1}(1 - α) - μ), for plotting (floats)."""
    from scipy.stats import norm

    out = []
    for i in range(points):
        a = i / (points - 1)
        out.append((a, float(norm.cdf(norm.ppf(1 - a) - mu)) if 0 < a < 1 else (1.0 - a)))
    return out


def _tail_function(noise: sp.Basic):
    """u -> P(W > u) for the noise density, as an mpmath function (closed forms by sympy)."""
    from ldpaudit.verify.density_delta import _tail

    u = sp.Dummy("u", real=True)
    if not noise.has(sp.Abs):
        expr = _tail(noise, u)
        f = sp.lambdify(u, expr, modules="mpmath")
        return lambda x: f(mpmath.mpf(x))
    a = sp.Dummy("a", positive=True)  # not _V: _tail integrates over _V
    pos = sp.lambdify(a, _tail(noise, a), modules="mpmath")
    neg = sp.lambdify(a, _tail(noise, -a), modules="mpmath")
    return lambda x: pos(mpmath.mpf(x)) if x > 0 else (neg(-mpmath.mpf(x)) if x < 0 else pos(mpmath.mpf("1e-60")))


def discretized_density_pld(mech, step: float, cells: int = Z_CELLS) -> D.GridPLD:
    """The pessimistic grid PLD of the pair (high, low) of a log-concave location family with a
    bounded loss (the worst pair for every ε, see :mod:`ldpaudit.verify.density_delta`)."""
    from ldpaudit.verify.density_delta import NotDerived, _check_log_concave

    noise = noise_of(mech)
    if noise.has(X):
        raise NotDerived(f"{mech.name!r}: not a location family; K reports are not bounded here")
    _check_log_concave(mech, noise)
    lo, hi = mech.inputs.low, mech.inputs.high
    loss = sp.expand_log(sp.log(noise.xreplace({_W: Z - hi})) - sp.log(noise.xreplace({_W: Z - lo})), force=True)
    top = sp.limit(loss, Z, sp.oo)
    if not top.is_finite:
        raise NotDerived(f"{mech.name!r}: the privacy loss is unbounded; K reports are derived for Gaussian noise only")
    with mpmath.workdps(50):
        return _grid_from_cells(mech, step, cells, loss, top, noise, lo, hi)


def _grid_from_cells(mech, step, cells, loss, top, noise, lo, hi) -> D.GridPLD:
    L = sp.lambdify(Z, loss, modules="mpmath")
    T = _tail_function(noise)
    lo_f, hi_f = mpmath.mpf(sp.N(lo, 60)), mpmath.mpf(sp.N(hi, 60))
    edges = [lo_f + (hi_f - lo_f) * j / cells for j in range(cells + 1)]
    tails = [T(e - hi_f) for e in edges]  # P_hi(Z > e)
    idx, mass = [], []

    def put(loss_value, m):
        idx.append(int(math.ceil(float(loss_value / step) + 1e-9)))  # >= the loss (margin over mpmath's error)
        mass.append(D._up(float(m) * (1 + 1e-12) + 1e-300))

    put(L(lo_f), 1 - tails[0])                       # z <= low: loss <= L(low)
    for j in range(cells):
        put(L(edges[j + 1]), tails[j] - tails[j + 1])  # L non-decreasing: loss <= L(z_(j+1))
    put(mpmath.mpf(sp.N(top, 60)), tails[-1])        # z > high: loss <= sup L
    base = min(idx)
    out = np.zeros(max(idx) - base + 1)
    for i, m in zip(idx, mass):
        out[i - base] = D._up(out[i - base] + m)
    return D.GridPLD(step, base, out, 0.0)


EPSILON = sp.Symbol("epsilon", nonnegative=True)
#: ε grid of the curve's sample points (the plot): up to this multiple of the largest breakpoint
CURVE_POINTS = 41


def profile_curve(mech) -> dict:
    """δ(ε) for every ε >= 0 in closed form, derived from the density by
    :func:`ldpaudit.verify.density_delta.density_delta` with ε symbolic: pieces (ε-intervals and
    the expression on each), the breakpoints between them, and sample points.

    With a finite tight ε0 (the loss is bounded: Laplace) δ = 0 from ε0 on, and below it ε is
    written ε0/(1 + q) with q > 0, so every sign the derivation needs is decided (then
    q = ε0/ε - 1 is put back); without one (Gaussian) one expression holds for every ε >= 0."""
    key = (str(mech.channel.density), str(mech.inputs.low), str(mech.inputs.high))
    hit = _CURVES.get(key)
    if hit is None:
        hit = _CURVES[key] = _profile_curve(mech)
    return hit


#: curves already derived, by (density, low, high): one derivation per channel and process
_CURVES: dict = {}


def _profile_curve(mech) -> dict:
    from ldpaudit.verify.density_delta import density_delta

    tight = _tight_epsilon(mech)
    if tight == sp.oo:
        expr = density_delta(mech, sp.Symbol("epsilon", positive=True)).delta
        expr = expr.xreplace({sp.Symbol("epsilon", positive=True): EPSILON})
        pieces = [(sp.Integer(0), None, expr)]
    elif tight == 0:
        pieces = [(sp.Integer(0), None, sp.Integer(0))]
    else:
        q = sp.Symbol("q", positive=True)
        below = density_delta(mech, tight / (1 + q)).delta
        expr = sp.simplify(below.xreplace({q: tight / EPSILON - 1}))
        pieces = [(sp.Integer(0), tight, expr), (tight, None, sp.Integer(0))]
    out_pieces = [{"epsilon_from": str(a), "epsilon_to": None if b is None else str(b),
                   "epsilon_from_float": float(sp.N(a, 20)), "epsilon_to_float": None if b is None else float(sp.N(b, 20)),
                   "delta": str(e)} for a, b, e in pieces]
    breaks = [b for _, b, _ in pieces if b is not None]
    top = float(sp.N(breaks[-1], 20)) * 1.5 if breaks else _curve_end(pieces[0][2])
    points = []
    funcs = [(float(sp.N(a, 20)), None if b is None else float(sp.N(b, 20)),
              sp.lambdify(EPSILON, expr.rewrite(sp.erfc), modules="mpmath")) for a, b, expr in pieces]
    with mpmath.workdps(30):
        for i in range(CURVE_POINTS):
            e = top * i / (CURVE_POINTS - 1)
            for a, b, f in funcs:
                if e >= a and (b is None or e < b):
                    points.append({"epsilon": e, "delta": max(0.0, float(f(mpmath.mpf(e))))})
                    break
    return {"variable": "epsilon", "pieces": out_pieces,
            "breakpoints": [{"epsilon": str(b), "epsilon_float": float(sp.N(b, 20))} for b in breaks],
            "points": points}


def _curve_end(expr) -> float:
    """An ε where the (Gaussian) curve is below 1e-6 of its value at 0: the end of the samples."""
    f = sp.lambdify(EPSILON, expr.rewrite(sp.erfc), modules="mpmath")
    start = float(f(mpmath.mpf(0)))
    e = 0.5
    while float(f(mpmath.mpf(e))) > 1e-6 * start and e < 1e3:
        e *= 2
    return e


def compute_density(mech, *, reports: int, epsilon, grid=None, curve: bool = False) -> dict:
    """The ``ldpaudit profile`` payload of a density channel; ``curve`` adds the whole δ(ε) in
    closed form (:func:`profile_curve`, one more symbolic derivation)."""
    from ldpaudit.verify.density_delta import density_delta

    eps = sp.sympify(epsilon)
    s = gaussian_scale(mech)
    lo, hi = mech.inputs.low, mech.inputs.high
    width = sp.simplify(hi - lo)
    out = {"kind": "density", "mechanism": mech.name, "reports": reports, "epsilon": str(eps)}
    one = density_delta(mech, eps)
    tight = _tight_epsilon(mech)
    out["single_report_delta"] = str(one.delta)
    out["tight_epsilon"] = str(tight)
    out["tight_epsilon_float"] = None if tight == sp.oo else float(sp.N(tight, 20))
    if s is not None:
        mu = sp.simplify(width * sp.sqrt(reports) / s)
        target = k_report_gaussian(mech, reports) if reports > 1 else mech
        d = density_delta(target, eps) if reports > 1 else one
        if curve:
            out["curve"] = profile_curve(target)
        out.update({
            "answer": "exact",
            "exact": True,
            "delta": str(d.delta),
            "delta_erfc": str(d.delta.rewrite(sp.erfc)),
            "delta_float": float(sp.N(d.delta.rewrite(sp.erfc), 30)),
            "worst_pairs": [[str(hi), str(lo)]],
            "method": ("Gaussian noise (log-density quadratic in z, s = " + str(s) + "): " +
                       ("K reports have the privacy loss of one report with noise scale s/sqrt(K); " if reports > 1 else "")
                       + one.method),
            "tradeoff": {"family": "G_mu", "mu": str(mu), "mu_float": float(sp.N(mu, 20)),
                         "curve": "Phi(Phi^-1(1 - alpha) - mu)",
                         "points": [{"alpha": a, "beta": b} for a, b in gaussian_tradeoff(float(sp.N(mu, 20)))]},
            "notes": [f"μ = Δ/s · sqrt(K) = {mu} with Δ = {width} the input interval's width (Dong, Roth & Su 2019)"],
        })
        return out
    if reports == 1:
        out.update({"answer": "exact", "exact": True, "delta": str(one.delta), "delta_float": float(sp.N(one.delta, 30)),
                    "worst_pairs": [[str(hi), str(lo)]], "method": one.method, "notes": []})
        if curve:
            out["curve"] = profile_curve(mech)
        return out
    step = grid or 2.0 ** -12
    g = D.power(discretized_density_pld(mech, step), reports)
    up = D.delta_upper(g, D.float_down(eps))
    out.update({"answer": "upper bound", "exact": False, "delta": None, "delta_float": None, "delta_upper": up,
                "grid_step": step,
                "grid_points": g.support, "z_cells": Z_CELLS, "worst_pairs": [[str(hi), str(lo)]],
                "method": "pessimistic discretized PLD of the pair (high, low): z cells on the input interval, each "
                          "cell's mass at the grid point above the loss at its right end, masses rounded up; "
                          "K-fold direct convolution with its float error bounded (an upper bound on δ)",
                "reason": "no closed form for K reports of this density",
                "single_report_epsilon": str(tight),
                "basic_composition_epsilon": str(reports * tight) if tight != sp.oo else "oo",
                "notes": []})
    return out


def _tight_epsilon(mech) -> sp.Basic:
    """sup of the privacy loss over z for the worst pair (oo for the Gaussian)."""
    noise = noise_of(mech)
    lo, hi = mech.inputs.low, mech.inputs.high
    loss = sp.expand_log(sp.log(noise.xreplace({_W: Z - hi})) - sp.log(noise.xreplace({_W: Z - lo})), force=True)
    return sp.simplify(sp.limit(loss, Z, sp.oo))


def render_density(r: dict) -> str:
    lines = [f"{r['mechanism']}: {r['reports']} report(s); density channel, worst pair x, x' = "
             f"{', '.join(r['worst_pairs'][0])}"]
    if r.get("delta") is not None:
        lines.append(f"  δ({r['epsilon']}) = {r['delta']}  ≈ {r['delta_float']:.6g}")
    else:
        lines.append(f"  δ({r['epsilon']}) <= {r['delta_upper']:.9g}  (delta_upper: pessimistic discretized PLD, grid "
                     f"step {r['grid_step']:g}, {r['grid_points']:,} grid points; an upper bound, not the exact value)")
    lines.append(f"  tight ε (δ = 0) = {r['tight_epsilon']}")
    for q in (r.get("curve") or {}).get("pieces", []):
        lines.append(f"  ε in [{q['epsilon_from']}, {q['epsilon_to'] or 'oo'}): δ(ε) = {q['delta']}")
    if "tradeoff" in r:
        lines.append(f"  trade-off curve: G_μ with μ = {r['tradeoff']['mu']} ≈ {r['tradeoff']['mu_float']:.6g}")
    lines.append(f"  method: {r['method']}")
    return "\n".join(lines + [f"  note: {n}" for n in r["notes"]]) + "\n"
