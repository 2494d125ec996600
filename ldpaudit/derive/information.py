"""Mutual information I(X;Y) under the uniform prior, and Wang et al.'s bound on it.

* Symmetric structured channels: for an output y, the inputs it hits (|hit(y)| of them:
  1 for an element, k for a k-subset) each give y the 'hit' weight and the others the
  'miss' weight, so m_y = (|hit(y)|·w_hit + (d - |hit(y)|)·w_miss)/d; then
  I = Σ over the orbits of outputs for one input of count·w·ln(w/m_y).
* Product channels on {0,1}^d: Q(y|x) depends only on y_x and the weight |y| = w, so the
  sum over 2^d outputs collapses to a sum over w = 0..d with C(d, w) outputs each.
* Explicit (or materialized) channels: the exact double sum Σ_x Σ_y (1/d) Q ln(Q/m_y).

Wang et al. Thm 2.1: sup over ε-LDP channels of I(X;Y) = max_k I_k, the k-subset
mechanism's information, attained at k = floor or ceil of the stationary point β; here I_k
is derived from the catalog's k-subset channel and β by solving dI_k/dk = 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ldpaudit.derive.algebra import simplify
from ldpaudit.errors import NotDerivable
from ldpaudit.derive.hits import item_statistic
from ldpaudit.derive.statistic import ItemStatistic
from ldpaudit.derive.memo import per_channel
from ldpaudit.errors import NotMaterializable
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.explicit import ExplicitChannel
from ldpaudit.mechanism.product import ProductChannel
from ldpaudit.mechanism.structured import StructuredChannel


@dataclass(frozen=True)
class MutualInformation:
    value: sp.Basic           # in nats
    method: str
    marginal: sp.Basic | None = None   # m_y as derived
    simplify_marginal: bool = False     # shown simplified (simplified only when shown)

    @property
    def output_marginal(self) -> sp.Basic | None:
        """m_y under the uniform prior, as shown; an objective that needs only the value
        (the k-subset bound of every other mechanism) never pays for simplifying it."""
        if self.marginal is None or not self.simplify_marginal:
            return self.marginal
        return simplify(self.marginal)


def _log_ratio(w, m):
    return sp.expand_log(sp.log(simplify(w / m)), force=True)


@per_channel
def mutual_information(mech: Mechanism) -> MutualInformation:
    """I(X;Y) in nats for X uniform on the inputs."""
    ch = mech.channel
    if isinstance(ch, DensityChannel) or (isinstance(ch, ProductChannel) and ch.continuous):
        raise NotDerivable(f"{mech.name!r} has a continuous output; its mutual information is not derived here")
    if getattr(ch, "form", None) == "bloom" or (isinstance(ch, StructuredChannel) and ch.outputs.kind == "cohort"):
        return _explicit(mech)  # the output marginal depends on the hash table
    if isinstance(ch, StructuredChannel):
        try:
            stat = item_statistic(mech)
        except NotDerivable:
            return _explicit(mech)
        return _structured(stat)
    if isinstance(ch, ProductChannel):
        return _product(mech, ch)
    return _explicit(mech)


def _structured(stat: ItemStatistic) -> MutualInformation:
    d = stat.domain_size
    hit = [o for o in stat.same if o.hits]
    miss = [o for o in stat.same if not o.hits]
    if len(hit) != 1 or len(miss) != 1:
        raise NotDerivable("the output classes do not split into a 'hit' and a 'miss' orbit")
    w_hit, w_miss = hit[0].weight, miss[0].weight
    size = stat.hit_set_size
    m_y = (size * w_hit + (d - size) * w_miss) / d
    terms = []
    for o in stat.same:
        mass = simplify(o.count * o.weight)
        terms.append(mass * sp.log(simplify(o.weight / m_y)))
    value = sp.Add(*terms)
    shown = m_y if d.free_symbols else None  # numeric d: m_y is 1/(huge integer), not shown
    return MutualInformation(value, "closed form over output orbits (m_y is the same for every y)", shown, True)


def _product(mech: Mechanism, ch: ProductChannel) -> MutualInformation:
    d = ch.coordinates
    values = {v for v, _ in ch.on.probabilities} | {v for v, _ in ch.off.probabilities}
    if not values <= {0, 1}:
        raise NotDerivable(f"{mech.name!r}: coordinates take values {sorted(values)}; the weight-class sum needs bits")
    on1, on0 = simplify(ch.on.probability(1)), simplify(ch.on.probability(0))
    off1, off0 = simplify(ch.off.probability(1)), simplify(ch.off.probability(0))
    w = sp.Symbol("w", integer=True, nonnegative=True)
    q1 = on1 * off1 ** (w - 1) * off0 ** (d - w)      # y has weight w and y_x = 1
    q0 = on0 * off1**w * off0 ** (d - w - 1)          # y has weight w and y_x = 0
    m = (w * q1 + (d - w) * q0) / d
    r1 = sp.powsimp(simplify(q1 / m), force=True)
    r0 = sp.powsimp(simplify(q0 / m), force=True)
    body = sp.binomial(d, w) * (w * q1 * sp.log(r1) + (d - w) * q0 * sp.log(r0)) / d
    total = sp.Sum(body, (w, 0, d))
    if d.is_Integer:
        terms = []
        for i in range(int(d) + 1):
            for mult, q, r in ((i, q1, r1), (int(d) - i, q0, r0)):
                if mult:
                    terms.append(sp.binomial(d, i) * mult * q.subs(w, i) * sp.log(simplify(r.subs(w, i))) / d)
        total = sp.Add(*terms)
    return MutualInformation(total, "sum over output weights w = |y| (Q(y|x) depends on y_x and |y| only)", m)


def _explicit(mech: Mechanism) -> MutualInformation:
    ch = mech.channel
    if not isinstance(ch, ExplicitChannel):
        try:
            ch = mech.materialize(max_entries=200_000)
        except NotMaterializable as exc:
            raise NotDerivable(f"mutual information of {mech.name!r}: {exc}") from None
    d = len(ch.inputs)
    cols = list(zip(*ch.matrix))
    terms = []
    for col in cols:
        m_y = sp.Add(*col) / d
        for q in col:
            if q != 0:
                terms.append(simplify(q / d) * sp.log(simplify(q / m_y)))
    return MutualInformation(sp.Add(*terms), "exact sum over inputs and outputs")


def subset_information(d=None, epsilon=None) -> sp.Basic:
    """I_k of the k-subset mechanism (k free), derived from the catalog channel."""
    from ldpaudit.mechanism.catalog import k_subset

    mech = k_subset(d=d, epsilon=epsilon)
    return mutual_information(mech).value
