"""The spec-guided audit's density forms: a density piecewise in z (the Piecewise mechanism,
Square Wave) gives cells between the breakpoints of both densities at x and x' with exact
masses (length × value); any other density gives thresholds {y >= c} and {y < c} from numeric
CDFs.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy as sp

from ldpaudit.audit.guided_events import IntervalsEvent

#: the cells of density 0 are tested narrowed by this fraction of the support's width
SUPPORT_MARGIN = 2.0 ** -16


@dataclass(frozen=True)
class _Cell:
    """An open interval (lo, hi) between consecutive breakpoints (exact, and as floats), and
    its exact probability under each of the inputs it was built for."""

    lo: sp.Basic
    hi: sp.Basic
    lo_f: float
    hi_f: float
    masses: tuple


class _PiecewiseLaw:
    """The exact law of a density piecewise in z (ldpaudit.mechanism.piecewise) at numeric
    inputs: breakpoints, the density on each cell, and the cells between the breakpoints of
    several inputs with their masses, by exact integration (no quadrature)."""

    def __init__(self, pd):
        self.pd = pd
        self._at: dict = {}

    @staticmethod
    def of(density) -> "_PiecewiseLaw | None":
        from ldpaudit.errors import InvalidSpec
        from ldpaudit.mechanism.params import Z
        from ldpaudit.mechanism.piecewise import NotPiecewiseLinear, PiecewiseDensity, is_piecewise_in

        if not is_piecewise_in(density, Z):
            return None
        try:
            return _PiecewiseLaw(PiecewiseDensity(density, Z))
        except (NotPiecewiseLinear, InvalidSpec):
            return None

    def at(self, x) -> tuple[list, list, list]:
        """At input x (the exact value of the double the randomizer is given): the breakpoints
        in increasing order, their 30-digit values, and the density on each of the cells."""
        key = float(x)
        if key not in self._at:
            from ldpaudit.mechanism.params import X

            exact = sp.Rational(*Fraction(key).as_integer_ratio())
            order, values = self.pd.order_at({X: exact})
            points = [values[k] for k in order]
            cells = [sp.sympify(v).xreplace({X: exact}) for v in self.pd.cell_values(order)]
            self._at[key] = (points, [sp.N(v, 30) for v in points], cells)
        return self._at[key]

    def cells(self, inputs) -> list[_Cell]:
        """The cells between the breakpoints of f(.|u) for every u in ``inputs`` (merged; points
        within 1e-25 of each other are one), with P(cell|u) for each u, exactly."""
        pts: list = []
        for u in inputs:
            points, keys, _ = self.at(u)
            pts += zip(keys, points)
        pts.sort(key=lambda t: t[0])
        merged: list = []
        for key, v in pts:
            if merged and abs(key - merged[-1][0]) <= 1e-25 * max(1, abs(key)):
                continue
            merged.append((key, v))
        bounds_ = [(None, -sp.oo)] + merged + [(None, sp.oo)]
        out = []
        for (klo, lo), (khi, hi) in zip(bounds_[:-1], bounds_[1:]):
            if klo is None and khi is None:
                t = sp.Integer(0)
            else:
                t = khi - 1 if klo is None else klo + 1 if khi is None else (klo + khi) / 2
            masses = []
            for u in inputs:
                _, keys, values = self.at(u)
                masses.append(_cell_mass(values[bisect.bisect_left(keys, t)], lo, hi))
            out.append(_Cell(lo, hi, -math.inf if klo is None else float(klo), math.inf if khi is None else float(khi),
                             tuple(masses)))
        return out


def _cell_mass(value, lo, hi) -> sp.Basic:
    """∫_lo^hi value dz, exactly: length × value for a value constant in z."""
    from ldpaudit.mechanism.params import Z
    from ldpaudit.mechanism.piecewise import integrate_cell

    if value == 0:
        return sp.Integer(0)
    if not value.has(Z):
        return value * (hi - lo)
    return integrate_cell(value, Z, lo, hi)


def _float(value) -> float:
    return float(sp.N(value, 20))


def _interval_text(lo: float, hi: float) -> str:
    if lo == -math.inf:
        return f"(-inf, {hi:.6g})"
    return f"[{lo:.6g}, {hi:.6g})" if hi < math.inf else f"[{lo:.6g}, inf)"


def _intervals_event(cells: list) -> IntervalsEvent:
    """The union of cells (adjacent ones joined) as one event."""
    spans: list = []
    for c in sorted(cells, key=lambda c: c.lo_f):
        if spans and spans[-1][1] == c.lo_f:
            spans[-1][1] = c.hi_f
        else:
            spans.append([c.lo_f, c.hi_f])
    text = " ∪ ".join(_interval_text(lo, hi) for lo, hi in spans)
    return IntervalsEvent(np.array([v for s in spans for v in s]), f"y in {text}")


def _cdf(density, x_value):
    """A numeric CDF of a density in z (x substituted when given)."""
    from scipy import integrate

    from ldpaudit.mechanism.params import X, Z

    expr = density if x_value is None else density.xreplace({X: sp.Float(x_value, 30)})
    f = sp.lambdify(Z, expr, modules=["numpy"])
    cache: dict = {}

    def cdf(c):
        c = float(c)
        if c not in cache:
            # split at the kinks of typical densities so quad is accurate
            val, _ = integrate.quad(lambda z: float(f(z)), -np.inf, c, limit=200, epsabs=1e-13, epsrel=1e-11)
            cache[c] = min(max(val, 0.0), 1.0)
        return cache[c]

    return cdf


def _grid(cdf_a, cdf_b, points=None) -> list[float]:
    """Thresholds: quantiles of both laws (found by bisection on the CDFs)."""
    levels = points or (0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98)
    out = set()
    for cdf in (cdf_a, cdf_b):
        for lv in levels:
            out.add(round(_quantile(cdf, lv), 6) + 0.0)   # + 0.0 turns -0.0 into 0.0
    return sorted(out)


def _quantile(cdf, level: float) -> float:
    lo, hi = -1.0, 1.0
    while cdf(lo) > level:
        lo *= 2
    while cdf(hi) < level:
        hi *= 2
    for _ in range(40):
        mid = (lo + hi) / 2
        if cdf(mid) < level:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2
