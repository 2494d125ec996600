"""What the per-item hit-rate derivations return: the statistic T_j of a symmetric channel
with its moments (g, g2 given x = j; h, h2 given x != j) and, for structured channels, the
orbits of outputs they were counted from.

Both :mod:`ldpaudit.derive.hits` (element, subset and product channels) and
:mod:`ldpaudit.derive.hashed` (cohort and Bloom channels, dispatched to from ``hits``) build
these values; they live here, below both, so that neither imports the other's types.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp


@dataclass(frozen=True)
class Orbit:
    """Outputs standing in one relation to the marked items: ``count`` of them, each in
    output class ``cls`` with probability ``weight``; ``hits`` says whether T_j fires."""

    relation: str
    count: sp.Basic
    hits: bool
    cls: str
    weight: sp.Basic


@dataclass(frozen=True)
class ItemStatistic:
    """The per-item statistic T_j and its moments given x = j (g, g2) and x != j (h, h2)."""

    statistic: str
    g: sp.Basic
    h: sp.Basic
    g2: sp.Basic
    h2: sp.Basic
    source: str
    same: tuple[Orbit, ...] = ()
    other: tuple[Orbit, ...] = ()
    hit_set_size: sp.Basic | None = None
    domain_size: sp.Basic | None = None
    indicator: bool = True
    notes: tuple[str, ...] = ()
