"""Per-item statistics of symmetric channels and their hit rates g and h, derived from
the channel itself.

For a symmetric mechanism the aggregator keeps, for each item j, the count F_j of reports
whose statistic T_j(y) fires: ``1{y = j}`` for k-RR, ``1{j in y}`` for k-subset, the
coordinate ``y_j`` for unary encodings. The law of T_j depends only on whether the user's
input is j, so two moments suffice (Wang et al. §3.2; Ye & Barg §III):

    g  = E[T_j | x = j],      g2 = E[T_j^2 | x = j],
    h  = E[T_j | x = i != j], h2 = E[T_j^2 | x = i != j].

Structured channels: the outputs are split into *orbits* relative to the marked items
(x, and j when j != x) -- "y = x", "y = j", "y avoids both" for elements; "contains x,
avoids j" etc. for k-subsets -- whose sizes follow from one counting rule per output space
(the k-subsets of a U-set containing a given marked items and avoiding b others number
C(U - a - b, k - a)). Each orbit is assigned to the output class whose condition holds on a
representative, the orbit sizes are checked against the declared class counts, and
g = sum over the orbits hitting j of size x weight. Product channels: g and h are the
moments of the 'on' and 'off' coordinate laws (integrals for densities).
"""

from __future__ import annotations

import ast

import sympy as sp

from ldpaudit.derive.algebra import simplify
from ldpaudit.derive.hashed import hashed_statistic
from ldpaudit.derive.memo import per_channel
from ldpaudit.derive.statistic import ItemStatistic, Orbit
from ldpaudit.errors import NotDerivable
from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism.checks import sample_points
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.expr import eval_condition
from ldpaudit.mechanism.params import Z
from ldpaudit.mechanism.product import ProductChannel
from ldpaudit.mechanism.spaces import ElementSpace, FiniteDomain, SubsetSpace
from ldpaudit.mechanism.structured import StructuredChannel


class _Filler:
    """An unnamed element of a representative subset: equal to nothing but itself."""

    def __repr__(self):
        return "*"


_FILLER = _Filler()
_X, _J, _THIRD = 0, 1, 2


def _names_only_x_y(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id not in ("x", "y"):
            return False
        if isinstance(sub, (ast.Constant, ast.Call)):
            return False
    return True


def _orbits(space, marks: tuple[int, ...], j: int):
    """(relation, count, representative, hits_j) for every orbit of outputs relative to the
    marked items, with counts from the counting rule of the output space."""
    names = {_X: "x", _J: "j"}
    if isinstance(space, ElementSpace):
        out = [(f"y = {names[m]}", sp.Integer(1), m, m == j) for m in marks]
        others = " and ".join(f"y != {names[m]}" for m in marks)
        out.append((others, space.size - len(marks), _THIRD, False))
        return out
    U, k = space.universe, space.k
    out = []
    for mask in range(2 ** len(marks)):
        inside = tuple(m for i, m in enumerate(marks) if mask >> i & 1)
        outside = tuple(m for m in marks if m not in inside)
        # k-subsets of a U-set containing a given |inside| items and avoiding |outside| others
        count = sp.binomial(U - len(marks), k - len(inside))
        rel = ", ".join([f"{names[m]} in y" for m in inside] + [f"{names[m]} not in y" for m in outside])
        out.append((rel, count, frozenset(inside) | {_FILLER}, j in inside))
    return out


@per_channel
def item_statistic(mech: Mechanism) -> ItemStatistic:
    """Derive T_j and its hit rates; raises NotDerivable when the channel is not symmetric."""
    ch = mech.channel
    if getattr(ch, "form", None) == "bloom" or (isinstance(ch, StructuredChannel) and ch.outputs.kind == "cohort"):
        return hashed_statistic(mech)
    if isinstance(ch, StructuredChannel):
        return _structured(mech, ch)
    if isinstance(ch, ProductChannel):
        return _product(mech, ch)
    raise NotDerivable(f"{mech.name!r} has a {ch.form} channel; per-item hit rates need a structured or product channel")


def _structured(mech: Mechanism, ch: StructuredChannel) -> ItemStatistic:
    space = ch.outputs
    if not isinstance(space, (ElementSpace, SubsetSpace)):
        raise NotDerivable(f"{mech.name!r} outputs {space.kind} pairs; hit rates need element or subset outputs")
    if not isinstance(mech.inputs, FiniteDomain) or mech.inputs.labels is not None:
        raise NotDerivable(f"{mech.name!r} has labelled inputs; hit rates need inputs 0..d-1")
    d = mech.inputs.size
    universe = space.size if isinstance(space, ElementSpace) else space.universe
    if simplify(universe - d) != 0:
        raise NotDerivable(
            f"{mech.name!r}: the output space is over {universe} items but there are {d} inputs; "
            "the channel is not symmetric in the inputs"
        )
    for c in ch.classes:
        if not _names_only_x_y(c.predicate):
            raise NotDerivable(
                f"class {c.name!r} of {mech.name!r} has condition {c.condition!r}, which mentions more than x and y; "
                "the channel is not symmetric under relabelling the inputs"
            )

    def classify(marks, j):
        orbits = []
        for rel, count, rep, hits in _orbits(space, marks, j):
            matches = [c for c in ch.classes if eval_condition(c.predicate, {"x": _X, "y": rep})]
            if len(matches) != 1:
                raise InvalidSpec(
                    f"outputs with {rel} fall in {len(matches)} classes of {mech.name!r} "
                    f"({[c.name for c in matches]}); the class conditions must be exclusive and exhaustive"
                )
            orbits.append(Orbit(rel, count, hits, matches[0].name, matches[0].weight))
        for c in ch.classes:
            total = sum((o.count for o in orbits if o.cls == c.name), sp.Integer(0))
            if not _same_count(mech, total, c.count):
                raise InvalidSpec(
                    f"channel.classes {c.name!r} of {mech.name!r} declares count {c.count} but the outputs "
                    f"satisfying {c.condition!r} number {simplify(total)}; fix the count"
                )
        return tuple(orbits)

    same = classify((_X,), _X)
    other = classify((_X, _J), _J)
    g = simplify(sum((o.count * o.weight for o in same if o.hits), sp.Integer(0)))
    h = simplify(sum((o.count * o.weight for o in other if o.hits), sp.Integer(0)))
    stat = "1{y = j}" if isinstance(space, ElementSpace) else "1{j in y}"
    hit_size = sp.Integer(1) if isinstance(space, ElementSpace) else space.k
    return ItemStatistic(
        stat, g, h, g, h, "structured", same, other, hit_set_size=hit_size, domain_size=d,
        notes=("T_j is an indicator, so E[T_j^2] = E[T_j]",),
    )


def _same_count(mech: Mechanism, a, b) -> bool:
    """a == b symbolically, or (when sympy cannot decide, e.g. binomials at a boundary) at
    every admissible sample point of the mechanism's free parameters."""
    diff = a - b
    if simplify(diff) == 0:
        return True
    if not diff.free_symbols:
        return sp.simplify(sp.expand_func(diff)) == 0
    for point in sample_points(mech, 6):
        subs = {mech.symbols[k]: v for k, v in point.items()}
        value = sp.expand_func(diff.xreplace(subs))
        if sp.simplify(value) != 0:
            return False
    return True


def _product(mech: Mechanism, ch: ProductChannel) -> ItemStatistic:
    if ch.continuous:
        from ldpaudit.derive.continuous import density_moments

        g, g2, _ = density_moments(ch.on.density, Z)
        h, h2, _ = density_moments(ch.off.density, Z)
        notes = ("moments of the coordinate densities by integration over z",)
        indicator = False
    else:
        g = simplify(sum((v * p for v, p in ch.on.probabilities), sp.Integer(0)))
        h = simplify(sum((v * p for v, p in ch.off.probabilities), sp.Integer(0)))
        g2 = simplify(sum((v**2 * p for v, p in ch.on.probabilities), sp.Integer(0)))
        h2 = simplify(sum((v**2 * p for v, p in ch.off.probabilities), sp.Integer(0)))
        values = {v for v, _ in ch.on.probabilities} | {v for v, _ in ch.off.probabilities}
        indicator = values <= {0, 1}
        notes = ("moments of the 'on' and 'off' coordinate laws",)
    return ItemStatistic(
        "y_j", g, h, g2, h2, "product", domain_size=mech.inputs.size, indicator=indicator, notes=notes,
    )
