"""Optimality theorems checked against the certified LP optimum.

* Wang et al. Theorem 2.1: under the uniform prior, the best k-subset mechanism attains the
  largest mutual information of any ε-LDP mechanism, sup I(X;Y) = max_k I_k. I_k comes from the
  project's derivation for the catalog k-subset channel (:func:`ldpaudit.derive.information.
  subset_information`), enclosed at every integer k = 1..d-1.
* Kairouz, Bonawitz & Ramage (ICML 2016) Theorem 2: for binary inputs W-RR is optimal. The LP
  checks the sublinear-utility form (Kairouz, Oh & Viswanath): for every prior on the grid, the
  certified largest I(X;Y) equals W-RR's (from the catalog channel), and the optimal staircase
  mechanism is W-RR itself, compared exactly.
* The same theorem for binary hypotheses: for two laws P0, P1 on {0, 1} and each f-divergence
  objective (KL, TV, χ², squared Hellinger), the certified largest divergence between P0·Q and
  P1·Q equals W-RR's, and the optimal staircase mechanism is W-RR.

A comparison AGREES when the two enclosures overlap and their hull is narrower than
:data:`AGREEMENT_WIDTH`; it is BEATEN when the certified optimum is proved larger than the
theorem's value (the LP's mechanism is then the counterexample); otherwise UNDECIDED.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import sympy as sp

from ldpaudit.extremal import enclosure as enc
from ldpaudit.extremal.staircase import Optimum, certify, divergence_term, pattern_text, problem

AGREEMENT_WIDTH = Fraction(1, 10**12)


@dataclass(frozen=True)
class Comparison:
    """The certified LP optimum [lower, upper] against a theorem's value [lower, upper]."""

    optimum: Optimum
    theorem_lower: Fraction
    theorem_upper: Fraction
    attained_by: str                  # what attains the theorem's value (e.g. "k = 3")
    mechanism_equal: bool | None = None

    @property
    def hull_width(self) -> Fraction:
        return max(self.optimum.upper, self.theorem_upper) - min(self.optimum.lower, self.theorem_lower)

    @property
    def verdict(self) -> str:
        o = self.optimum
        if o.status != "PROVED":
            return "UNKNOWN"
        if o.lower > self.theorem_upper:
            return "BEATEN"
        if self.theorem_lower > o.upper:
            return "INCONSISTENT"     # a feasible mechanism above a proved optimum: a bug
        if self.hull_width < AGREEMENT_WIDTH:
            return "AGREES"
        return "UNDECIDED"

    def row(self) -> dict:
        o = self.optimum
        p = o.problem
        out = {"d": p.d, "epsilon": sp.sstr(p.epsilon), "prior": "uniform" if p.uniform else [str(w) for w in p.prior],
               "verdict": self.verdict, "status": o.status, "optimum_lower": str(o.lower), "optimum_upper": str(o.upper),
               "optimum": o.value, "theorem_lower": str(self.theorem_lower), "theorem_upper": str(self.theorem_upper),
               "theorem_value": float((self.theorem_lower + self.theorem_upper) / 2), "attained_by": self.attained_by,
               "hull_width": float(self.hull_width) if o.status == "PROVED" else None,
               "outputs": len(o.columns)}
        if self.mechanism_equal is not None:
            out["mechanism_equal"] = self.mechanism_equal
        if self.verdict == "BEATEN":
            out["counterexample"] = [{"pattern": pattern_text(c.pattern, p.d), "weight": sp.sstr(c.weight)}
                                     for c in o.columns]
        return out


@lru_cache(maxsize=None)
def _subset_information(d: int):
    from ldpaudit.derive.information import subset_information

    expr = subset_information(d=d)
    names = {s.name: s for s in expr.free_symbols}
    return expr, names.get("k"), names.get("epsilon")


def subset_information_enclosures(d: int, epsilon) -> list[tuple[int, object]]:
    """(k, enclosure of I_k) for k = 1..d-1, at the current precision; I_k derived from the
    catalog k-subset channel (uniform prior)."""
    expr, k, eps_symbol = _subset_information(d)
    env = {"epsilon": enc.enclose(sp.sympify(epsilon))}
    out = []
    for kk in range(1, d):
        value = expr.subs(k, kk) if k is not None else expr
        out.append((kk, enc.enclose(value, env)))
    return out


def check_wang_21(d: int, epsilon) -> Comparison:
    """Wang et al. Thm 2.1 at one (d, ε): certified LP optimum (uniform prior) vs max_k I_k."""
    return compare_wang_21(certify(problem(d, epsilon)))


def compare_wang_21(opt: Optimum) -> Comparison:
    """A certified uniform-prior MI optimum against max_k I_k at its (d, ε)."""
    with enc.precision(opt.bits):
        values = subset_information_enclosures(opt.problem.d, opt.problem.epsilon)
    best_k, best = max(values, key=lambda kv: enc.lower(kv[1]))
    hi = max(enc.upper(v) for _, v in values)
    return Comparison(opt, enc.lower(best), hi, f"k = {best_k}")


def information_enclosure(matrix, prior) -> object:
    """I(X;Y) in nats of an explicit channel (rows = inputs, exact entries) with X ~ prior, from
    the definition Σ_x Σ_y P_x Q(y|x) ln(Q(y|x)/m_y), m_y = Σ_x P_x Q(y|x)."""
    entries = [[enc.enclose(sp.sympify(q)) for q in row] for row in matrix]
    weights = [enc.exact(Fraction(p)) for p in prior]
    total = enc.iv.mpf(0)
    for y in range(len(matrix[0])):
        m = enc.iv.mpf(0)
        for x, row in enumerate(entries):
            m = m + weights[x] * row[y]
        for x, row in enumerate(entries):
            if prior[x] and sp.sympify(matrix[x][y]) != 0:
                total = total + weights[x] * row[y] * enc.iv.log(row[y] / m)
    return total


def check_kairouz_binary(prior_zero, epsilon) -> Comparison:
    """Kairouz et al. Thm 2 (binary alphabets), sublinear-utility form, at one (prior, ε): the
    certified largest I(X;Y) over all ε-LDP mechanisms on {0, 1} with P(X = 0) = ``prior_zero``
    against W-RR's, and whether the optimal staircase mechanism is W-RR itself."""
    from ldpaudit.mechanism.catalog import wrr

    p0 = Fraction(prior_zero)
    opt = certify(problem(2, epsilon, prior=(p0, 1 - p0)))
    mech = wrr(epsilon=sp.sympify(epsilon))
    matrix = mech.channel.matrix
    with enc.precision(opt.bits):
        value = information_enclosure(matrix, (p0, 1 - p0))
    return Comparison(opt, enc.lower(value), enc.upper(value), "W-RR", _same_mechanism(opt, matrix))


def divergence_enclosure(objective: str, matrix, first, second) -> object:
    """The divergence between the output laws first·Q and second·Q of an explicit channel, from
    its definition Σ_y m1_y f(m0_y/m1_y) (see :data:`ldpaudit.extremal.staircase.OBJECTIVES`)."""
    entries = [[enc.enclose(sp.sympify(q)) for q in row] for row in matrix]
    total = enc.iv.mpf(0)
    for y in range(len(matrix[0])):
        m0 = sum((enc.exact(Fraction(w)) * row[y] for w, row in zip(first, entries)), enc.iv.mpf(0))
        m1 = sum((enc.exact(Fraction(w)) * row[y] for w, row in zip(second, entries)), enc.iv.mpf(0))
        total = total + divergence_term(objective, m0, m1, enc.iv.log, enc.iv.sqrt)
    return total


def check_binary_divergence(objective: str, first, second, epsilon) -> Comparison:
    """Kairouz et al.'s binary theorem for one divergence objective at one (P0, P1, ε): the
    certified largest divergence over all ε-LDP mechanisms on {0, 1} against W-RR's, and whether
    the optimal staircase mechanism is W-RR itself."""
    from ldpaudit.mechanism.catalog import wrr

    first, second = tuple(map(Fraction, first)), tuple(map(Fraction, second))
    opt = certify(problem(2, epsilon, prior=first, objective=objective, alternative=second))
    matrix = wrr(epsilon=sp.sympify(epsilon)).channel.matrix
    with enc.precision(opt.bits):
        value = divergence_enclosure(objective, matrix, first, second)
    return Comparison(opt, enc.lower(value), enc.upper(value), "W-RR", _same_mechanism(opt, matrix))


def _same_mechanism(opt: Optimum, matrix) -> bool | None:
    """Is the optimal staircase mechanism ``matrix`` up to the order of its outputs (exactly)?"""
    if opt.status != "PROVED":
        return None
    found = sorted((tuple(sp.simplify(e) for e in col) for col in zip(*opt.channel_matrix())), key=str)
    wanted = sorted((tuple(sp.simplify(e) for e in col) for col in zip(*matrix)), key=str)
    return len(found) == len(wanted) and all(sp.simplify(a - b) == 0 for fa, wa in zip(found, wanted)
                                             for a, b in zip(fa, wa))


__all__ = ["Comparison", "check_binary_divergence", "divergence_enclosure", "check_wang_21", "compare_wang_21", "check_kairouz_binary", "subset_information_enclosures",
           "information_enclosure", "AGREEMENT_WIDTH"]
