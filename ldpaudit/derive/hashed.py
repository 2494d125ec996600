"""Hit rates of hashed channels (O-RR, OLH/BLH, O-RAPPOR with one hash), from the channel
and the declared hash family.

The aggregator's statistic for item j is T_j(c, v) = 1{v = hash_c(j)} for cohort outputs
(Wang et al.'s "support" of local hashing) and T_j(c, y) = y_{hash_c(j)} for a one-hash
Bloom filter. Given x = j it fires with g = C·w_hit (cohort outputs; the 'on' mean for
bits); given x ≠ j it fires with

    h = κ·(hit rate) + (1 - κ)·(miss rate),   κ = P_c(hash_c(x) = hash_c(j)),

the collision rate of the pair. The empirical estimator (f_j - h)/(g - h) is unbiased only
when κ is the same for every pair x ≠ j: a permutation table (κ = 0, closed alphabets:
O-RR becomes k-RR and O-RAPPOR k-RAPPOR, up to relabelling), the all-functions family
(κ = 1/k exactly: OLH/BLH), the Hadamard family (κ = 1/2 exactly: HR), or an explicit table whose pairs all collide equally often.
Otherwise the rates differ between pairs and :mod:`ldpaudit.derive.leastsquares` decodes.
"""

from __future__ import annotations

import itertools

import sympy as sp

from ldpaudit.derive.algebra import simplify
from ldpaudit.derive.statistic import ItemStatistic, Orbit
from ldpaudit.errors import InvalidSpec, NotDerivable
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.hashing import BloomChannel, cohort_class, cohort_literals
from ldpaudit.mechanism.spaces import CohortSpace, FiniteDomain
from ldpaudit.mechanism.structured import StructuredChannel


def is_hashed(mech: Mechanism) -> bool:
    ch = mech.channel
    return isinstance(ch, BloomChannel) or (isinstance(ch, StructuredChannel) and isinstance(ch.outputs, CohortSpace))


def collision_rate(mech: Mechanism, table, family, permutation: bool, k, C) -> sp.Basic:
    """κ, the same for every pair of distinct inputs, or NotDerivable."""
    if permutation:
        return sp.Integer(0)
    if family is not None and family.name in ("all-functions", "hadamard"):
        return 1 / sp.sympify(k)
    if family is not None:
        raise NotDerivable(
            f"{mech.name!r}: the {family.name} family's collision rate differs between input pairs, so no "
            "hit-count estimator is unbiased for every p; bind the sizes and use the least-squares decoder "
            "(ldpaudit.derive.leastsquares)")
    d = len(table[0])
    rates = set()
    for x, xp in itertools.combinations(range(d), 2):
        rates.add(sum(1 for row in table if row[x] == row[xp]))
        if len(rates) > 1:
            raise NotDerivable(
                f"{mech.name!r}: input pairs collide in different numbers of cohorts ({sorted(rates)}), so no "
                "hit-count estimator is unbiased for every p; use the least-squares decoder (ldpaudit.derive.leastsquares)")
    return sp.Rational(rates.pop() if rates else 0, len(table))


def hashed_statistic(mech: Mechanism) -> ItemStatistic:
    ch = mech.channel
    if not isinstance(mech.inputs, FiniteDomain) or mech.inputs.labels is not None:
        raise NotDerivable(f"{mech.name!r} has labelled inputs; hit rates need inputs 0..d-1")
    d = mech.inputs.size
    if isinstance(ch, BloomChannel):
        return _bloom(mech, ch, d)
    space = ch.outputs
    if cohort_literals(ch):
        raise NotDerivable(f"{mech.name!r} has cohort-specific classes; the cohorts are not exchangeable")
    try:
        i_hit = cohort_class(mech, ch, None, True)
        i_miss = cohort_class(mech, ch, None, False)
    except InvalidSpec as exc:
        raise NotDerivable(str(exc)) from None
    hit, miss = ch.classes[i_hit], ch.classes[i_miss]
    C, k = space.C, space.k
    table = space.hash_table
    kappa = collision_rate(mech, table, space.family, space.permutation, k, C)
    g = simplify(C * hit.weight)
    q = simplify(C * miss.weight)
    h = simplify(kappa * g + (1 - kappa) * q)
    same = (Orbit("v = hash(c, x)", C, True, hit.name, hit.weight),
            Orbit("v != hash(c, x)", C * (k - 1), False, miss.name, miss.weight))
    return ItemStatistic(
        "1{v = hash_c(j)}", g, h, g, h, "hashed", same=same, hit_set_size=sp.Integer(1), domain_size=d,
        notes=(f"T_j(c, v) = 1{{v = hash_c(j)}} fires with g = C·w_hit when x = j; when x ≠ j, with the hit rate in "
               f"the cohorts where hash_c(x) = hash_c(j) (a fraction κ = {sp.sstr(kappa)} of them for every pair, "
               f"{_kappa_reason(space.family, space.permutation)}) and the miss rate C·w_miss in the others, so "
               "h = κ g + (1 - κ) C w_miss. T_j is an indicator, so E[T_j^2] = E[T_j].",),
    )


def _kappa_reason(family, permutation) -> str:
    if permutation:
        return "a permutation in every cohort"
    if family is not None and family.name == "hadamard":
        return ("the Hadamard family: the rows x + 1 and j + 1 of a Sylvester Hadamard matrix are distinct and "
                "non-zero, so they agree in exactly half of the columns")
    if family is not None:
        return "the all-functions family"
    return "counted from the table"


def _bloom(mech, ch: BloomChannel, d) -> ItemStatistic:
    if sp.sympify(ch.hashes) != 1:
        raise NotDerivable(
            f"{mech.name!r} sets h = {ch.hashes} bits per input: a bit's count mixes several items, so no per-item "
            "hit count is unbiased; use the least-squares decoder (ldpaudit.derive.leastsquares)")
    table = None if ch.table is None else [[rows[0][x] for x in range(len(rows[0]))] for rows in ch.table]
    kappa = collision_rate(mech, table, ch.family, ch.permutation, ch.k, ch.cohorts)
    g = simplify(sum((v * p for v, p in ch.on.probabilities), sp.Integer(0)))
    q = simplify(sum((v * p for v, p in ch.off.probabilities), sp.Integer(0)))
    g2 = simplify(sum((v**2 * p for v, p in ch.on.probabilities), sp.Integer(0)))
    q2 = simplify(sum((v**2 * p for v, p in ch.off.probabilities), sp.Integer(0)))
    h = simplify(kappa * g + (1 - kappa) * q)
    h2 = simplify(kappa * g2 + (1 - kappa) * q2)
    values = {v for v, _ in ch.on.probabilities} | {v for v, _ in ch.off.probabilities}
    return ItemStatistic(
        "y_{hash_c(j)}", g, h, g2, h2, "hashed", domain_size=d, indicator=values <= {0, 1},
        notes=(f"T_j(c, y) = y_(hash_c(j)), the bit of j in the user's cohort: it has the 'on' law when x = j; when "
               f"x ≠ j it has the 'on' law in the cohorts where hash_c(x) = hash_c(j) (a fraction κ = {sp.sstr(kappa)}, "
               f"{_kappa_reason(ch.family, ch.permutation)}) and the 'off' law otherwise.",),
    )


__all__ = ["hashed_statistic", "collision_rate", "is_hashed"]
