"""Exact privacy-loss distributions (PLDs) of a pair of output distributions, their
composition, the hockey-stick divergence and the trade-off curve.

For an ordered pair of inputs (x, x') with output laws P = Q(.|x) and P' = Q(.|x'), the PLD
lists the atoms of the likelihood ratio r(y) = P(y)/P'(y): each atom carries the P-mass and the
P'-mass of the outputs with that ratio. Everything the accountant needs is a function of it:

* the hockey-stick divergence (the privacy profile of the pair), for t = e^ε >= 1,
  δ(ε) = Σ_y max(0, P(y) - t P'(y)) = Σ_{atoms r > t} (p_r - t p'_r), piecewise linear in t
  with breakpoints at the ratios (Balle, Barthe & Gaboardi 2018, "privacy profiles");
* the trade-off curve of testing P against P' (Dong, Roth & Su 2019, f-DP): the
  Neyman-Pearson tests reject the atoms of largest P'/P first, so T(α) is the piecewise-linear
  curve through (Σ p, 1 - Σ p') accumulated over the atoms by increasing r;
* composition: the K reports of the same input are independent, the pair's laws are products,
  and the ratios multiply: the PLD of a composition is the convolution of the PLDs (atoms
  multiply their ratios and masses). Ratios are kept exact as exponent vectors over a basis of
  primes and irreducible polynomials (:class:`~ldpaudit.account.numbers.Bases`), so equal
  ratios merge and the support stays exact.

Masses are polynomials in T over QQ sharing one denominator per side (``p_den``, ``q_den``),
so convolution only multiplies and adds polynomials. Two special keys: ``INF`` (P' = 0 < P,
an infinite loss) and ``ZERO`` (P = 0 < P').
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import mpmath
import sympy as sp
from sympy import QQ

from ldpaudit.account.numbers import PRECISIONS, Bases, Field, Unsupported

#: a PLD with at most this many atoms is factored before composition (factoring is per ratio)
MAX_FACTORED = 256
#: the work budget of an exact K-fold composition, in work units: products of two mass terms
#: (a mass is a polynomial in T; over Q one term), predicted before any mass is multiplied.
#: Past it the command answers with two-sided bounds (:mod:`ldpaudit.account.bounds`). About
#: 0.5 s over Q(e), 1.7 s over Q (larger rationals): k-RR d = 8, ε = 1 is exact to K = 57;
#: k-RR d = 16, ε = ln 3 at K = 100 needs 59,994.
MAX_PRODUCTS = 200_000
INF = ("inf",)


class SupportTooLarge(Unsupported):
    """The exact K-fold composition needs more work than its budget; callers answer with
    bounds from the discretized PLD (:mod:`ldpaudit.account.bounds`)."""

    def __init__(self, message: str, *, work: int = 0, budget: int = 0, reports: int = 0):
        super().__init__(message)
        self.work, self.budget, self.reports = work, budget, reports


ZERO = ("zero",)


@dataclass
class PLD:
    """Atoms ``key -> (A, B)``: P-mass A/p_den and P'-mass B/q_den of the outputs whose ratio
    has that key (a factor key, or ``INF``/``ZERO``)."""

    atoms: dict
    p_den: object
    q_den: object
    bases: Bases

    @property
    def field(self) -> Field:
        return self.bases.field

    def __len__(self) -> int:
        return len(self.atoms)

    def signature(self) -> tuple:
        """Equal signatures: equal PLDs (atoms as exact rationals of polynomials)."""
        pd, qd = self.p_den, self.q_den
        return tuple(sorted((key, tuple(sorted(a.items())), tuple(sorted(b.items())))
                            for key, (a, b) in self.atoms.items())) + ((tuple(sorted(pd.items())), tuple(sorted(qd.items()))),)


def _lcm(R, dens):
    distinct = {tuple(sorted(d.items())): d for d in dens}
    return functools.reduce(lambda a, b: a.lcm(b), distinct.values(), R(1))


def pair_pld(bases: Bases, p_row, q_row) -> PLD:
    """The PLD of P against P' given as sequences of ``(num, den)`` entries (same outputs);
    ratios keyed by their canonical value (:meth:`Bases.value_key`)."""
    field = bases.field
    R = field.R
    if field.c is None:
        return _pair_pld_rational(bases, p_row, q_row)
    p_den = _lcm(R, [d for n, d in p_row if n])
    q_den = _lcm(R, [d for n, d in q_row if n])
    atoms: dict = {}
    memo = bases.memo  # the rows of a channel share a few entries: products and keys reused

    def scaled(n, common, den):
        """n * common / den."""
        hit = memo.get(("scaled", n, common, den))
        if hit is None:
            hit = memo[("scaled", n, common, den)] = n * common.exquo(den)
        return hit

    for (pn, pd), (qn, qd) in zip(p_row, q_row):
        if not pn and not qn:
            continue
        a = scaled(pn, p_den, pd) if pn else R(0)
        b = scaled(qn, q_den, qd) if qn else R(0)
        if not qn:
            key = INF
        elif not pn:
            key = ZERO
        else:
            key = memo.get(("ratio", pn, pd, qn, qd))
            if key is None:
                key = memo[("ratio", pn, pd, qn, qd)] = bases.value_key(pn * qd, pd * qn)
        old = atoms.get(key)
        atoms[key] = (a, b) if old is None else (old[0] + a, old[1] + b)
    return PLD(atoms, p_den, q_den, bases)


def _qq(num, den):
    """num(g)/den(g) for ground polynomials (the field Q), as a QQ element."""
    return (num.LC / den.LC) if num else None


def _pair_pld_rational(bases: Bases, p_row, q_row) -> PLD:
    """:func:`pair_pld` over Q: masses and ratios as rationals, no polynomial arithmetic
    (p_den = q_den = 1, ratio keys ("q", numerator, denominator))."""
    R = bases.field.R
    sums: dict = {}
    zero = QQ(0)
    for (pn, pd), (qn, qd) in zip(p_row, q_row):
        a, b = _qq(pn, pd), _qq(qn, qd)
        if a is None and b is None:
            continue
        if b is None:
            key = INF
        elif a is None:
            key = ZERO
        else:
            r = a / b
            key = ("q", int(r.numerator), int(r.denominator))
        old = sums.get(key)
        sums[key] = (a or zero, b or zero) if old is None else (old[0] + (a or zero), old[1] + (b or zero))
    atoms = {key: (R(a), R(b)) for key, (a, b) in sums.items()}
    return PLD(atoms, R(1), R(1), bases)


def identity_pld(bases: Bases) -> PLD:
    R = bases.field.R
    return PLD({(): (R(1), R(1))}, R(1), R(1), bases)


def factored(pld: PLD) -> PLD:
    """The same PLD with every finite ratio keyed by its factorization (so that products of
    ratios are sums of exponent vectors, and equal products merge)."""
    atoms: dict = {}
    for key, (a, b) in pld.atoms.items():
        if key not in (INF, ZERO) and key and key[0] in ("v", "q"):
            key = pld.bases.key(*pld.bases.value(key))
        old = atoms.get(key)
        atoms[key] = (a, b) if old is None else (old[0] + a, old[1] + b)
    return PLD(atoms, pld.p_den, pld.q_den, pld.bases)


def _add_keys(bases, k1, k2):
    if k1 == INF or k2 == INF:
        return None if (k1 == ZERO or k2 == ZERO) else INF
    if k1 == ZERO or k2 == ZERO:
        return ZERO
    if (k1 and k1[0] in ("v", "q")) or (k2 and k2[0] in ("v", "q")):
        (n1, d1), (n2, d2) = bases.value(k1), bases.value(k2)
        return bases.value_key(n1 * n2, d1 * d2)
    out = dict(k1)
    for i, e in k2:
        out[i] = out.get(i, 0) + e
    return tuple(sorted((i, e) for i, e in out.items() if e))


def compose(first: PLD, second: PLD) -> PLD:
    """The PLD of the pair of product laws (P1 x P2 against P1' x P2'): the convolution."""
    atoms: dict = {}
    for k1, (a1, b1) in first.atoms.items():
        for k2, (a2, b2) in second.atoms.items():
            key = _add_keys(first.bases, k1, k2)
            if key is None:  # P = 0 and P' = 0: no output
                continue
            a, b = a1 * a2, b1 * b2
            old = atoms.get(key)
            atoms[key] = (a, b) if old is None else (old[0] + a, old[1] + b)
    return PLD(atoms, first.p_den * second.p_den, first.q_den * second.q_den, first.bases)


def _span(poly):
    """(lowest, highest) exponent of T in a nonzero polynomial; None for 0."""
    if not poly:
        return None
    degrees = [m[0] for m in poly.keys()]
    return min(degrees), max(degrees)


def _terms(span) -> int:
    return 0 if span is None else span[1] - span[0] + 1


def _join(s1, s2):
    """The span of a sum of two polynomials with these spans (at most)."""
    if s1 is None or s2 is None:
        return s1 if s2 is None else s2
    return min(s1[0], s2[0]), max(s1[1], s2[1])


def _times(s1, s2):
    return None if s1 is None or s2 is None else (s1[0] + s2[0], s1[1] + s2[1])


def composition_work(pld: PLD, k: int, budget=None, *, spent: int = 0) -> int:
    """The work of the exact k-fold convolution, in work units (one unit: the product of two
    mass terms; a step multiplies every atom of the partial composition by every atom of
    ``pld``, so it costs (terms of the partial masses) x (terms of pld's masses), per side).
    Predicted from the supports and the degree spans of the masses (an upper bound on the
    terms), without multiplying masses; raises :class:`SupportTooLarge` as soon as the work
    passes ``budget`` (None: :data:`MAX_PRODUCTS`) together with the ``spent`` work of other
    pair classes."""
    budget = MAX_PRODUCTS if budget is None else budget
    one = {key: (_span(a), _span(b)) for key, (a, b) in pld.atoms.items()}
    one_a = sum(_terms(sa) for sa, _ in one.values())
    one_b = sum(_terms(sb) for _, sb in one.values())
    cur, work = one, 0
    for n in range(1, k):
        work += sum(_terms(sa) for sa, _ in cur.values()) * one_a + sum(_terms(sb) for _, sb in cur.values()) * one_b
        if spent + work > budget:
            why = "" if lattice(pld) is not None else "; the losses are not commensurate"
            raise SupportTooLarge(f"the exact {k}-fold convolution needs more than its work budget of {budget:,} work "
                                  f"units (products of two mass terms): {spent + work:,} by the {n + 1}-fold, with "
                                  f"{len(cur):,} distinct ratios in the {n}-fold{why}",
                                  work=spent + work, budget=budget, reports=k)
        if n == k - 1:
            break
        nxt: dict = {}
        for k1, (a1, b1) in cur.items():
            for k2, (a2, b2) in one.items():
                key = _add_keys(pld.bases, k1, k2)
                if key is None:
                    continue
                a, b = _times(a1, a2), _times(b1, b2)
                old = nxt.get(key)
                nxt[key] = (a, b) if old is None else (_join(old[0], a), _join(old[1], b))
        cur = nxt
    return work


def prepared(pld: PLD, k: int) -> PLD:
    """The PLD as :func:`compose_power` composes it: ratios factored (when small enough), so
    that products of ratios are sums of exponent vectors."""
    return factored(pld) if k > 1 and len(pld) <= MAX_FACTORED else pld


def compose_power(pld: PLD, k: int, budget=None) -> PLD:
    """The k-fold composition of one PLD with itself (k >= 1), by repeated convolution (the
    ratios factored first, so that the support is the set of distinct products). Its work is
    predicted first (:func:`composition_work`): past ``budget`` work units (None:
    :data:`MAX_PRODUCTS`; ``math.inf``: no limit) it raises :class:`SupportTooLarge` before
    any mass is multiplied."""
    pld = prepared(pld, k)
    if budget != math.inf:
        composition_work(pld, k, budget)
    out = pld
    for _ in range(k - 1):
        out = compose(out, pld)
    return out


def lattice(pld: PLD):
    """``(base, {key: n})`` when every finite loss of ``pld`` is an integer multiple n of one loss
    λ = log ratio(base) > 0 (exponent vectors all multiples of one primitive vector: sufficient,
    whatever relations the bases may have); None otherwise (or when ratios are not factored).
    Then K reports have their losses on λ Z too: no rounding is needed to discretize them."""
    finite = [k for k in pld.atoms if k not in (INF, ZERO)]
    if any(k and k[0] in ("v", "q") for k in finite):
        return None
    nonzero = [dict(k) for k in finite if k]
    if not nonzero:
        return None
    first = nonzero[0]
    g = math.gcd(*first.values())
    prim = {i: e // g for i, e in first.items()}
    lead = min(prim)
    mult = {(): 0}
    for key in finite:
        vec = dict(key)
        if not vec:
            continue
        if set(vec) != set(prim) or vec[lead] % prim[lead]:
            return None
        n = vec[lead] // prim[lead]
        if any(vec[i] != n * e for i, e in prim.items()):
            return None
        mult[key] = n
    base = tuple(sorted(prim.items()))
    box = pld.bases.log_ratio(base, PRECISIONS[0])
    if box.a <= 0 <= box.b:  # bases with a hidden relation (opaque constants): not decided here
        return None
    if box.b < 0:  # λ > 0: flip the primitive vector
        base = tuple(sorted((i, -e) for i, e in prim.items()))
        mult = {k: -n for k, n in mult.items()}
    return base, {k: mult[k] for k in finite}


# --- ordering the ratios, exactly ----------------------------------------------------------


def _log(bases: Bases, key, prec: int):
    if key == INF:
        return mpmath.iv.mpf(mpmath.inf)
    if key == ZERO:
        return mpmath.iv.mpf(-mpmath.inf)
    return bases.log_ratio(key, prec)


def compare_keys(bases: Bases, k1, k2) -> int:
    """-1, 0, 1: the order of two ratios, exactly (distinct keys are distinct numbers)."""
    if k1 == k2:
        return 0
    if k1 in (INF, ZERO) or k2 in (INF, ZERO):
        order = {ZERO: -1, INF: 1}
        return (order.get(k1, 0) > order.get(k2, 0)) - (order.get(k1, 0) < order.get(k2, 0))
    if k1 and k2 and k1[0] == "q" and k2[0] == "q":  # both rational in lowest terms, positive denominators
        x, y = k1[1] * k2[2], k2[1] * k1[2]
        return (x > y) - (x < y)
    if bases.field.c is None:
        a, b = bases.rational(k1), bases.rational(k2)
        return (a > b) - (a < b)
    for n, prec in enumerate(PRECISIONS):
        a, b = bases.log_ratio(k1, prec), bases.log_ratio(k2, prec)
        if a.b < b.a:
            return -1
        if a.a > b.b:
            return 1
        if n == 0 and bases.equal(k1, k2):
            return 0
    raise Unsupported("two likelihood ratios could not be ordered at 5120 bits")


def sort_ratio_keys(bases: Bases, keys) -> list:
    """Ratio keys by increasing ratio, exactly. Over Q by the rationals themselves; over Q(g)
    by the midpoints of 80-bit log enclosures, then every adjacent pair confirmed with
    :func:`compare_keys` (n - 1 exact comparisons instead of n log n); a pair found out of
    order (enclosures too close) falls back to the exact comparison sort."""
    keys = list(keys)
    special = [k for k in (ZERO,) if k in keys], [k for k in (INF,) if k in keys]
    finite = [k for k in keys if k not in (INF, ZERO)]
    if bases.field.c is None and all(k and k[0] == "q" for k in finite):
        finite.sort(key=lambda k: k[1] / k[2])  # correctly rounded; confirmed exactly below
    elif bases.field.c is None:
        finite.sort(key=bases.rational)
    else:
        prec = PRECISIONS[0]
        finite.sort(key=lambda k: bases.log_ratio(k, prec).mid)
    if any(compare_keys(bases, a, b) > 0 for a, b in zip(finite, finite[1:])):
        finite.sort(key=functools.cmp_to_key(lambda a, b: compare_keys(bases, a, b)))
    return special[0] + finite + special[1]


def sorted_keys(pld: PLD, *, descending: bool = True) -> list:
    """The PLD's keys ordered by their ratio (cached on the PLD: its atoms are not changed
    after construction)."""
    keys = pld.__dict__.get("_order")
    if keys is None:
        keys = pld.__dict__["_order"] = sort_ratio_keys(pld.bases, pld.atoms)
    return keys[::-1] if descending else list(keys)


def _log_form(epsilon) -> tuple:
    """ε = q (rational; base None) or ε = q log(r) with q, r rational: ``(q, r)``."""
    if epsilon.is_Rational:
        return epsilon, None
    q, rest = epsilon.as_coeff_Mul()
    if isinstance(rest, sp.log) and rest.args[0].is_Rational and rest.args[0] > 0 and q.is_Rational:
        return q, rest.args[0]
    raise Unsupported(f"ε = {epsilon}: give a rational ε or a rational multiple of the log of a rational "
                      "(such as 1/2 or log(3)) for exact accounting")


class Threshold:
    """t = e^ε for a given exact ε: its log enclosure, and its key when e^ε is in the field
    (then a tie with a ratio is decided on keys; otherwise no ratio equals it, see
    :mod:`ldpaudit.account.numbers`)."""

    def __init__(self, bases: Bases, epsilon):
        self.bases, self.epsilon = bases, sp.sympify(epsilon)
        self.value = sp.exp(self.epsilon)
        field = bases.field
        self.key = None
        self.scale, self.base = _log_form(self.epsilon)
        if self.value.is_Rational or (field.c is not None and self.epsilon.is_Rational
                                      and (self.epsilon / field.c).is_Integer):
            self.key = bases.value_key(*field.convert(self.value))
        # otherwise e^ε is not in Q(g): an irrational algebraic number (ε = q log r) or e to a
        # rational power outside Q(g); no likelihood ratio equals it, intervals decide
        self._logs: dict = {}

    def log(self, prec: int):
        hit = self._logs.get(prec)
        if hit is None:
            iv = mpmath.iv
            iv.prec = prec
            q, r = self.scale, self.base
            hit = iv.mpf(int(q.p)) / int(q.q)
            if r is not None:
                hit = hit * iv.log(iv.mpf(int(r.p)) / int(r.q))
            self._logs[prec] = hit
        return hit

    def above(self, key) -> bool:
        """ratio(key) > e^ε, exactly."""
        if key == INF:
            return True
        if key == ZERO:
            return False
        if self.key is not None and key == self.key:
            return False
        if self.key is not None and self.bases.field.c is None:
            return self.bases.rational(key) > self.bases.rational(self.key)
        for n, prec in enumerate(PRECISIONS):
            a, b = self.bases.log_ratio(key, prec), self.log(prec)
            if a.a > b.b:
                return True
            if a.b < b.a:
                return False
            if n == 0 and self.key is not None and self.bases.equal(key, self.key):
                return False
        raise Unsupported(f"a likelihood ratio could not be compared with e^{self.epsilon} at 5120 bits")


def hockey_stick(pld: PLD, threshold: Threshold) -> tuple:
    """δ = A/p_den - e^ε B/q_den exactly, as (A, B): the sums over atoms with ratio > e^ε."""
    R = pld.field.R
    A, B = R(0), R(0)
    for key, (a, b) in pld.atoms.items():
        if threshold.above(key):
            A, B = A + a, B + b
    return A, B


def profile_pieces(pld: PLD) -> list:
    """The pair's δ as a function of t = e^ε >= 0: ``[(key_r, A, B)]`` by decreasing ratio;
    on t in [r_{k+1}, r_k] δ(t) = A_k/p_den - t B_k/q_den (the sums over the first k atoms)."""
    R = pld.field.R
    if pld.field.c is None:  # ground polynomials: add the rationals, wrap once
        A, B = R.domain.zero, R.domain.zero
        out = []
        for key in sorted_keys(pld, descending=True):
            a, b = pld.atoms[key]
            A, B = A + (a.LC if a else 0), B + (b.LC if b else 0)
            out.append((key, R.ground_new(A), R.ground_new(B)))
        return out
    A, B = R(0), R(0)
    out = []
    for key in sorted_keys(pld, descending=True):
        a, b = pld.atoms[key]
        A, B = A + a, B + b
        out.append((key, A, B))
    return out


def tradeoff_points(pld: PLD) -> list:
    """The vertices (α, β) of the trade-off curve T(P, P'), as ``(key, Σp, Σp')`` accumulated
    over the atoms by increasing ratio P/P' (the most P'-like outputs rejected first):
    α = Σp/p_den, β = 1 - Σp'/q_den; the first vertex is (0, 1)."""
    R = pld.field.R
    A, B = R(0), R(0)
    out = [(None, A, B)]
    for key in sorted_keys(pld, descending=False):
        a, b = pld.atoms[key]
        A, B = A + a, B + b
        out.append((key, A, B))
    return out
