"""A one-line derivation summary for the ``ldpaudit check`` table (fast: < 0.5 s)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from ldpaudit.derive.algebra import N_USERS, numeric
from ldpaudit.errors import NotDerivable, NotIdentifiable
from ldpaudit.derive.continuous import mean_estimation
from ldpaudit.derive.estimator import _explicit, hit_estimator
from ldpaudit.derive.hits import item_statistic
from ldpaudit.derive.risk import effective_samples, hit_risk
from ldpaudit.errors import LdpAuditError
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.density import DensityChannel


def _per_n(expr) -> str:
    value = numeric(sp.sympify(expr).subs(N_USERS, 1))
    return f"{value:.4g}/n" if value is not None else sp.sstr(expr)


def headline(mech: Mechanism) -> str:
    """e.g. ``worst-case ℓ2² = 0.8474/n (i.i.d., at uniform p); n_eff = 0.2864 n``."""
    if mech.channel.form == "real-input":
        return _real_input_headline(mech)
    if mech.channel.form in ("signs", "coordinates"):
        return _vector_headline(mech)
    try:
        if mech.channel.form == "mixture":
            from ldpaudit.derive.mixture import channel_moments

            cm = channel_moments(mech)
            return f"unbiased affine report; worst-case Var per report = {_per_n(cm.worst_variance * N_USERS)[:-2]}"
        if isinstance(mech.channel, DensityChannel):
            from ldpaudit.derive import piecewise

            if piecewise.applies(mech):
                pm = piecewise.piecewise_moments(mech)
                return f"unbiased affine report; worst-case Var per report = {_per_n(pm.worst_variance * N_USERS)[:-2]}"
            me = mean_estimation(mech)
            return f"unbiased mean; worst-case MSE = {_per_n(me.l2_worst_iid)} (i.i.d.)"
        try:
            stat = item_statistic(mech)
        except NotDerivable:
            return _matrix_headline(mech)
        risk = hit_risk(hit_estimator(stat), "iid")
        neff = numeric(effective_samples(risk.l2_worst, stat.domain_size) / N_USERS)
        tail = f"; n_eff = {neff:.4g} n" if neff is not None else ""
        return f"worst-case ℓ2² = {_per_n(risk.l2_worst)} (i.i.d., at {risk.l2_argmax}){tail}"
    except NotIdentifiable as exc:
        try:
            from ldpaudit.derive.leastsquares import headline as least_squares

            return least_squares(mech)
        except LdpAuditError:
            return f"no unbiased estimator: {str(exc).split(':')[0]}"
    except LdpAuditError as exc:
        return f"not derived: {exc}"


def _vector_headline(mech: Mechanism) -> str:
    """Vector inputs: each coordinate's report, its bias and worst-case variance."""
    from ldpaudit.derive.vector import coordinate_moments
    from ldpaudit.mechanism.params import X

    try:
        cm = coordinate_moments(mech)
    except LdpAuditError as exc:
        return f"not derived: {exc}"
    unbiased = "unbiased" if sp.simplify(cm.mean - X) == 0 else f"E[t_j|x] = {sp.sstr(cm.mean)}"
    return f"{unbiased} per coordinate; worst-case Var per coordinate = {_per_n(cm.worst_variance * N_USERS)[:-2]}"


def _real_input_headline(mech: Mechanism) -> str:
    """A real input with finitely many outputs: the unbiased linear mean estimator when the
    channel makes E[g(Y) | x] = x solvable (Duchi's ±B), else why not."""
    from ldpaudit.derive.mean import mean_estimator

    try:
        est = mean_estimator(mech)
    except LdpAuditError as exc:
        return f"no linear mean estimator: {str(exc).split(': ', 1)[-1].split(';')[0]}"
    g = ", ".join(f"g({y}) = {sp.sstr(v)}" for y, v in zip(est.outputs, est.estimator))
    worst = getattr(est, "worst_variance", None)
    tail = f"; worst-case variance = {_per_n(worst)}" if worst is not None else ""
    return f"unbiased mean: {g}{tail}"


def _matrix_headline(mech: Mechanism) -> str:
    """Explicit channels: the same quantities in floating point (exact ones are in `derive`)."""
    ch = _explicit(mech)
    Q = np.array([[float(sp.N(e)) for e in row] for row in ch.matrix])
    d, k = Q.shape
    if np.linalg.matrix_rank(Q) < d:
        from ldpaudit.derive.leastsquares import headline as least_squares

        return least_squares(mech)
    R = np.linalg.pinv(Q)
    # iid total risk (n = 1): Σ_x p_x c_x - ||p||², c_x = Σ_y Q[x,y] ||R[y,:]||²
    c = Q @ (R**2).sum(axis=1)
    p = _project(c / 2)
    worst = float(p @ c - p @ p)
    where = "uniform p" if np.allclose(p, 1 / d) else "p = (" + ", ".join(f"{v:.3g}" for v in p) + ")"
    neff = (1 - 1 / d) / worst
    return f"worst-case ℓ2² ≈ {worst:.4g}/n (i.i.d., at {where}); n_eff ≈ {neff:.4g} n"


def _project(v: np.ndarray) -> np.ndarray:
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1
    idx = np.arange(1, len(v) + 1)
    rho = idx[u - css / idx > 0][-1]
    return np.maximum(v - css[rho - 1] / rho, 0)
