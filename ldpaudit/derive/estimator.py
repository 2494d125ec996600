"""Unbiased estimators of the input distribution p, derived from the channel.

* Symmetric channels (structured or product): the item statistic T_j has mean
  E[f_j] = p_j g + (1 - p_j) h, where f_j = F_j/n is its observed frequency; solving this
  linear equation for p_j gives the empirical estimator p̂_j = (f_j - h)/(g - h)
  (Kairouz et al., Wang et al. Algorithm 2, Ye & Barg eq. (6)).
* Explicit channels: m = pQ, so any R with QR = I gives the unbiased p̂ = m̂R. We use the
  inverse when Q is square and the least-squares right inverse R = Qᵀ(QQᵀ)⁻¹ otherwise
  (Wang et al. §3.2's linear regression); when Q has rank below the number of inputs no R
  exists and :class:`NotIdentifiable` is raised.

Unbiasedness is proved symbolically: E[p̂] - p simplifies to 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import sympy as sp
from sympy.polys.matrices import DomainMatrix

from ldpaudit.derive.algebra import F_J, P_J, factor_cancelled, is_zero, simplify, to_exp_base
from ldpaudit.errors import NotDerivable, NotIdentifiable
from ldpaudit.derive.hits import item_statistic
from ldpaudit.derive.statistic import ItemStatistic
from ldpaudit.derive.memo import per_channel
from ldpaudit.errors import NotMaterializable
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.explicit import ExplicitChannel


@dataclass(frozen=True)
class HitEstimator:
    """p̂_j = (f_j - h)/(g - h) for the item statistic ``stat``."""

    stat: ItemStatistic
    mean_equation: sp.Basic       # E[f_j] as a function of p_j
    expression: sp.Basic          # p̂_j in terms of f_j
    bias: sp.Basic                # E[p̂_j] - p_j, simplified (0)

    kind = "hit"

    @property
    def unbiased(self) -> bool:
        return self.bias == 0


@dataclass(frozen=True)
class MatrixEstimator:
    """p̂ = m̂ R with QR = I (R the inverse, or Qᵀ(QQᵀ)⁻¹ when Q is wide)."""

    channel: ExplicitChannel
    Q: sp.Matrix
    R: sp.Matrix
    p: tuple[sp.Symbol, ...]
    marginal: sp.Matrix           # m = pQ (row vector)
    bias: sp.Matrix               # E[p̂] - p = pQR - p, simplified (zeros)
    method: str
    Qu: sp.Matrix | None = None   # Q over u = e^(ε/L) (for fast exact products)
    Ru: object = None             # R over u, as a DomainMatrix
    back: dict = field(default_factory=dict)

    kind = "left-inverse"

    @property
    def unbiased(self) -> bool:
        return all(e == 0 for e in self.bias)


def input_probabilities(count: int) -> tuple[sp.Symbol, ...]:
    return tuple(sp.Symbol(f"p_{i}", nonnegative=True) for i in range(count))


def hit_estimator(stat: ItemStatistic) -> HitEstimator:
    mean = P_J * stat.g + (1 - P_J) * stat.h
    if is_zero(stat.g - stat.h):
        raise NotIdentifiable(
            f"the statistic {stat.statistic} has the same mean {simplify(stat.g)} whether or not x = j (g = h); "
            "no unbiased estimator of p_j exists from it"
        )
    # E[f_j] = a p_j + b is linear in p_j: f_j = a p_j + b has the one solution (f_j - b)/a
    a = sp.diff(mean, P_J)
    if a.has(P_J):
        raise NotDerivable(f"could not solve E[f_j] = {mean} for p_j")
    expression = simplify((F_J - mean.xreplace({P_J: 0})) / a)
    bias = simplify(expression.xreplace({F_J: mean}) - P_J)
    if bias != 0 and is_zero(bias):
        bias = sp.Integer(0)
    return HitEstimator(stat, simplify(mean), expression, bias)


def matrix_estimator(mech: Mechanism, channel: ExplicitChannel | None = None) -> MatrixEstimator:
    ch = channel if channel is not None else _explicit(mech)
    Q = sp.Matrix(ch.matrix)
    d, k = Q.shape
    Qu, back = _over_u(Q)
    dm = DomainMatrix.from_Matrix(Qu).to_field()
    rank = dm.rank()
    if rank < d:
        raise NotIdentifiable(
            f"channel of {mech.name!r} has rank {rank} < {d} inputs: different input distributions give the same "
            f"output distribution, so Q has no left inverse and no unbiased estimator of p exists"
            + (" (it has fewer outputs than inputs)" if k < d else "")
        )
    method = "inverse" if k == d else "least-squares right inverse R = Q^T (Q Q^T)^(-1)"
    Ru, QRu = _right_inverse(dm)
    R = Ru.to_Matrix().applyfunc(lambda e: _back(e, back))
    p = input_probabilities(d)
    prow = sp.Matrix([list(p)])
    m = (prow * Q).applyfunc(simplify)
    QR = QRu.to_Matrix().applyfunc(lambda e: _back(e, back))
    bias = (prow * QR - prow).applyfunc(simplify)
    bias = bias.applyfunc(lambda e: sp.Integer(0) if is_zero(e) else e)
    return MatrixEstimator(ch, Q, R, p, m, bias, method, Qu, Ru, back)


def _right_inverse(dm: DomainMatrix) -> tuple[DomainMatrix, DomainMatrix]:
    """(R, QR) for Q = ``dm`` over a field: R = Q⁻¹ when Q is square, else Qᵀ(QQᵀ)⁻¹.

    Over a field of rational functions in u, arithmetic on fractions pays a gcd per operation;
    so Q = Q'/c is cleared of denominators, the products and the fraction-free inverse
    (adjugate and determinant) are taken over the polynomial ring, and one division at the end
    gives R = c·Q'ᵀ adj/det (the same field elements, exactly)."""
    d, k = dm.shape
    K = dm.domain
    if getattr(K, "is_FractionField", False):
        ring = K.get_ring()
        c, Qp = dm.clear_denoms()
        Qp = Qp.convert_to(ring)
        adj, det = (Qp.inv_den() if k == d else (Qp * Qp.transpose()).inv_den())
        Rp = adj if k == d else Qp.transpose() * adj
        det = K.convert_from(getattr(det, "element", det), ring)
        c = getattr(c, "element", c)
        c = c if K.of_type(c) else K.convert_from(c, ring)
        return Rp.convert_to(K).mul(c / det), (Qp * Rp).convert_to(K).mul(K.one / det)
    Ru = dm.inv() if k == d else dm.transpose() * (dm * dm.transpose()).inv()
    return Ru, dm * Ru


def _over_u(M: sp.Matrix):
    """M with every e^(qε) written as a power of one symbol u (see algebra.to_exp_base)."""
    atoms = set(M.atoms(sp.exp)) | ({sp.E} if any(e.has(sp.E) for e in M) else set())
    if not atoms:
        return M, {}
    _, back = to_exp_base(sp.Add(*atoms))
    if not back:
        return M, {}
    u, base = next(iter(back.items()))
    power = {}
    for a in atoms:
        arg = sp.Integer(1) if a is sp.E else a.args[0]
        power[a] = u ** sp.nsimplify(arg / sp.log(base))
    return M.applyfunc(lambda e: e.xreplace(power)), back


def _back(e, back):
    """An entry over u, cancelled, factored and written back in e^ε. A channel has few distinct
    probabilities, so its inverse has few distinct entries: each is worked out once."""
    return _factored(e).xreplace(back) if back else _factored(e)


@lru_cache(maxsize=1024)
def _factored(e):
    return factor_cancelled(e, together=False)


def _explicit(mech: Mechanism) -> ExplicitChannel:
    if isinstance(mech.channel, ExplicitChannel):
        return mech.channel
    try:
        return mech.materialize(max_entries=20_000)
    except NotMaterializable as exc:
        raise NotDerivable(f"{mech.name!r} is not symmetric in its inputs and {exc}") from None


@per_channel
def unbiased_estimator(mech: Mechanism) -> HitEstimator | MatrixEstimator:
    """The unbiased estimator of p: the hit-count estimator for symmetric channels, the
    left-inverse estimator for explicit (or non-symmetric, materializable) channels."""
    if isinstance(mech.channel, DensityChannel):
        raise NotDerivable(f"{mech.name!r} has a density channel; use mean_estimation() for the mean")
    try:
        stat = item_statistic(mech)
    except NotDerivable as why:
        try:
            return matrix_estimator(mech)
        except NotDerivable:
            if getattr(mech.channel, "form", None) == "bloom" or getattr(getattr(mech.channel, "outputs", None), "kind", None) == "cohort":
                raise NotDerivable(str(why)) from None  # hashed channels: say why no hit count works
            raise
    return hit_estimator(stat)
