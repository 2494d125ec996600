"""Continuous outputs: moments of densities by integration, and the bounded-mean
estimator of a location-family density channel (Duchi, Jordan & Wainwright via the blog:
Z = X + σW, W ~ Laplace(0, 1), σ = 2M/ε, Var = V(X)/n + 8M²/(nε²)).

Nothing here is typed in: the noise mean and variance come from integrating the
channel's density, the worst-case V(X) from maximizing the variance of a two-point law
on the input interval."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from ldpaudit.derive.algebra import N_USERS, simplify
from ldpaudit.errors import NotDerivable
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.params import X, Z
from ldpaudit.mechanism.spaces import IntervalDomain

_W = sp.Symbol("w", positive=True)


def _integrate_line(expr: sp.Basic, var: sp.Symbol) -> sp.Basic:
    """∫ expr d var over the real line, split at 0 so |var| becomes ±var on each side."""
    right = expr.xreplace({var: _W})
    left = expr.xreplace({var: -_W})
    total = sp.integrate(sp.refine(right, sp.Q.positive(_W)), (_W, 0, sp.oo)) + sp.integrate(
        sp.refine(left, sp.Q.positive(_W)), (_W, 0, sp.oo)
    )
    if total.has(sp.Integral):
        raise NotDerivable(f"sympy could not integrate {expr} over the real line")
    return sp.simplify(total)


@lru_cache(maxsize=64)
def density_moments(density: sp.Basic, var: sp.Symbol = Z) -> tuple[sp.Basic, sp.Basic, sp.Basic]:
    """(mean, second moment, variance) of a density in ``var`` with no other random input.

    The density is first centred at its location (if any) so that the absolute value in a
    Laplace density splits at 0: E[V] = c + E[V - c]."""
    centre = _location(density, var)
    shifted = density.xreplace({var: var + centre})
    m1 = _integrate_line(var * shifted, var)
    m2c = _integrate_line(var**2 * shifted, var)
    mean = simplify(centre + m1)
    variance = simplify(m2c - m1**2)
    second = simplify(variance + mean**2)
    return mean, second, variance


def _location(density: sp.Basic, var: sp.Symbol) -> sp.Basic:
    """The point where |var - c| appears in the density (0 if none)."""
    for a in density.atoms(sp.Abs):
        arg = a.args[0]
        if arg.has(var) and sp.diff(arg, var) in (1, -1):
            return simplify(var - arg) if sp.diff(arg, var) == 1 else simplify(arg + var)
    return sp.Integer(0)


@dataclass(frozen=True)
class MeanEstimation:
    """The mean estimator of a location-family density channel."""

    noise_mean: sp.Basic
    noise_variance: sp.Basic
    estimator: sp.Basic          # in terms of zbar (the mean of the reports)
    bias: sp.Basic
    variance_iid: sp.Basic       # in terms of V (the input variance)
    variance_fixed: sp.Basic
    worst_input_variance: sp.Basic
    l2_worst_iid: sp.Basic
    shifted_density: sp.Basic


ZBAR = sp.Symbol("zbar", real=True)
MU = sp.Symbol("mu", real=True)
VX = sp.Symbol("V", nonnegative=True)


def mean_estimation(mech: Mechanism) -> MeanEstimation:
    """Derive the unbiased mean estimator and its variance for a density channel."""
    ch = mech.channel
    if not isinstance(ch, DensityChannel) or not isinstance(mech.inputs, IntervalDomain):
        raise NotDerivable(f"{mech.name!r} is not a density channel on an interval")
    w = sp.Symbol("w", real=True)
    noise = ch.density.xreplace({Z: X + w})
    if noise.has(X):
        raise NotDerivable(
            f"the density of {mech.name!r} is not a location family (f(x + w | x) depends on x); "
            "the mean estimator needs Z = x + noise"
        )
    b, _, var = density_moments(noise, w)
    # E[zbar] = mu + b for the mean mu of the inputs: solve for mu
    estimator = sp.solve(sp.Eq(ZBAR, MU + b), MU)[0]
    bias = simplify(estimator.xreplace({ZBAR: MU + b}) - MU)
    n = N_USERS
    # law of total variance per report: Var Z = Var E[Z|X] + E Var[Z|X] = V + var
    variance_iid = simplify((VX + var) / n)
    variance_fixed = simplify(var / n)
    lo, hi = mech.inputs.low, mech.inputs.high
    q = sp.Symbol("q", positive=True)
    two_point = q * (1 - q) * (hi - lo) ** 2  # variance of the law q at hi, 1-q at lo
    qstar = sp.solve(sp.diff(two_point, q), q)[0]
    worst_v = simplify(two_point.subs(q, qstar))
    return MeanEstimation(
        noise_mean=b,
        noise_variance=var,
        estimator=estimator,
        bias=bias,
        variance_iid=variance_iid,
        variance_fixed=variance_fixed,
        worst_input_variance=worst_v,
        l2_worst_iid=simplify(variance_iid.subs(VX, worst_v)),
        shifted_density=noise,
    )
