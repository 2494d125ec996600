"""The privacy profile δ(ε) and the f-DP trade-off curve of a finite channel, for one report
or K independent reports of the same input, exactly.

For every ordered pair of inputs the pair's PLD is built from the channel's exact entries
(:mod:`ldpaudit.account.pld`); pairs with equal PLDs are merged (k-RR, OUE, k-RAPPOR have one
class: every ordered pair is the same experiment); δ(ε) is the maximum over the classes,
decided exactly. For a product channel (one-hot coordinates, law ``on`` at the input's
coordinate and ``off`` elsewhere) the pair's laws differ on two coordinates only, so its PLD is
PLD(on, off) * PLD(off, on) for every ordered pair: no 2^d outputs are listed.

The worst pair is *proved* over all ε: pair w dominates pair o when δ_w(t) >= δ_o(t) at
t = 1 and at every breakpoint of δ_w (δ_w is linear between its breakpoints and δ_o convex,
so δ_w - δ_o is concave there and its minimum is at the ends), and no ratio of o exceeds w's
largest one. When no class dominates, the profile is reported as the maximum of the classes'
pieces (exact, but not merged into one piecewise function).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from dataclasses import dataclass, field

import mpmath
import sympy as sp

from ldpaudit.account import pld as P
from ldpaudit.account.numbers import PRECISIONS, Bases, Field, Unsupported
from ldpaudit.errors import InvalidParameter, NotMaterializable


@dataclass
class PairClass:
    """Ordered pairs (x, x') sharing one PLD."""

    pairs: list
    pld: P.PLD
    note: str = ""


@dataclass
class View:
    """What an analyst sees of one user: the pair classes of the (composed) channel."""

    name: str
    classes: list
    bases: Bases
    reports: int = 1
    notes: list = field(default_factory=list)
    work: int = 0                    # work units of the exact convolutions that built it

    @property
    def field(self) -> Field:
        return self.bases.field


# --- building the pair classes -------------------------------------------------------------


def channel_entries(mech) -> list:
    """Every exact entry of a bound finite mechanism (for :class:`Field`)."""
    ch = mech.channel
    if getattr(ch, "form", None) == "product" and not ch.continuous:
        return [p for _, p in ch.on.probabilities] + [p for _, p in ch.off.probabilities]
    return list(_materialized(mech).entries())


def _materialized(mech):
    if mech.parameters:
        raise InvalidParameter(f"the privacy profile needs numeric parameters; bind {', '.join(mech.parameter_names)} "
                               f"(e.g. -p {mech.parameter_names[0]}=...)")
    try:
        return mech.materialize()
    except NotMaterializable as exc:
        raise InvalidParameter(f"the exact privacy profile needs a finite channel: {exc}") from None


def _law_rows(bases: Bases, on, off):
    values = sorted({v for v, _ in on.probabilities} | {v for v, _ in off.probabilities})
    f = bases.field
    return [f.convert(on.probability(v)) for v in values], [f.convert(off.probability(v)) for v in values]


def pair_classes(mech, bases: Bases) -> list:
    """The classes of ordered pairs x != x' of a bound finite mechanism, with exact PLDs."""
    ch = mech.channel
    if getattr(ch, "form", None) == "product" and not ch.continuous:
        if mech.parameters:
            _materialized(mech)  # the one-line error naming the parameters to bind
        inputs = mech.inputs.enumerate()
        on, off = _law_rows(bases, ch.on, ch.off)
        pld = P.compose(P.pair_pld(bases, on, off), P.pair_pld(bases, off, on))
        pairs = [(x, y) for x in inputs for y in inputs if x != y]
        return [PairClass(pairs, pld, "product channel: coordinate j's law depends only on whether j is the input, "
                                      "so every ordered pair is PLD(on, off) * PLD(off, on)")]
    explicit = _materialized(mech)
    rows = [[bases.field.convert(e) for e in row] for row in explicit.matrix]
    return classes_from_rows(bases, explicit.inputs, rows)


def classes_from_rows(bases: Bases, inputs, rows) -> list:
    """Pair classes of a channel given by rows of ``(num, den)`` entries (rows = inputs)."""
    found: dict = {}
    for i, k in itertools.permutations(range(len(rows)), 2):
        pld = P.pair_pld(bases, rows[i], rows[k])
        sig = pld.signature()
        if sig in found:
            found[sig].pairs.append((inputs[i], inputs[k]))
        else:
            found[sig] = PairClass([(inputs[i], inputs[k])], pld)
    return list(found.values())


def view(mech, *, reports: int = 1, extra_numbers=(), budget=None) -> View:
    """The view of K = ``reports`` independent reports of one input through ``mech``; past
    ``budget`` work units (None: :data:`ldpaudit.account.pld.MAX_PRODUCTS`) the K-fold
    convolution raises :class:`~ldpaudit.account.pld.SupportTooLarge` before it starts."""
    reports = check_reports(reports)
    bases = Bases(Field(channel_entries(mech) + list(extra_numbers)))
    single = View(mech.name, pair_classes(mech, bases), bases)
    return composed(single, reports, budget=budget) if reports > 1 else single


def composed(single: View, rounds: int, *, budget=None) -> View:
    """The view of ``rounds`` independent repetitions of ``single`` (every pair class's PLD
    composed ``rounds`` times). The work of every class is predicted first, against one budget
    (:func:`ldpaudit.account.pld.composition_work`); none is composed if the total passes it."""
    classes, work = compose_classes(single.classes, rounds, budget)
    return View(single.name, classes, single.bases, single.reports * rounds, list(single.notes), work)


def compose_classes(classes: list, rounds: int, budget=None) -> tuple:
    """([class with its PLD composed ``rounds`` times], work units), the work checked first."""
    if rounds == 1:
        return list(classes), 0
    plds = [P.prepared(c.pld, rounds) for c in classes]
    work = 0
    for pld in plds:
        work += P.composition_work(pld, rounds, budget, spent=work)
    return [PairClass(c.pairs, P.compose_power(pld, rounds, math.inf), c.note) for c, pld in zip(classes, plds)], work


def check_reports(reports) -> int:
    if isinstance(reports, bool) or not isinstance(reports, int) or reports < 1:
        raise InvalidParameter(f"--reports = {reports!r}: the number of reports K must be a whole number >= 1")
    return reports


# --- exact numbers out ---------------------------------------------------------------------


def frac(field: Field, num, den) -> sp.Basic:
    if num.is_ground and den.is_ground:  # a rational number: no polynomial gcd, no sympy arithmetic
        q = (num.LC if num else field.R.domain.zero) / den.LC
        return sp.Rational(int(q.numerator), int(q.denominator))
    g = num.gcd(den)
    if g != 1:
        num, den = num.exquo(g), den.exquo(g)
    return field.to_expr(num) / field.to_expr(den)


def _enclose_delta(field: Field, A, pd, B, qd, threshold, prec):
    iv = mpmath.iv
    a = field.enclose(A, prec) / field.enclose(pd, prec)
    b = field.enclose(B, prec) / field.enclose(qd, prec)
    return a - iv.exp(threshold.log(prec)) * b


def _same_delta(field, d1, d2, threshold) -> bool:
    (A1, p1, B1, q1), (A2, p2, B2, q2) = d1, d2
    if threshold.key is None:  # 1 and e^ε are linearly independent over Q(g)
        return A1 * p2 == A2 * p1 and B1 * q2 == B2 * q1
    tn, td = threshold.bases.value(threshold.key)
    left = (A1 * q1 * td - tn * B1 * p1) * (p2 * q2)
    right = (A2 * q2 * td - tn * B2 * p2) * (p1 * q1)
    return left == right


def compare_deltas(field: Field, d1, d2, threshold) -> int:
    """Sign of δ1 - δ2 for (A, p_den, B, q_den) tuples at e^ε, exactly."""
    if field.c is None and threshold.key is not None:  # everything rational: Fractions
        t = threshold.bases.rational(threshold.key)
        q = lambda poly: Fraction(int(poly.LC.numerator), int(poly.LC.denominator)) if poly else Fraction(0)  # noqa: E731
        x = q(d1[0]) / q(d1[1]) - t * q(d1[2]) / q(d1[3]) - q(d2[0]) / q(d2[1]) + t * q(d2[2]) / q(d2[3])
        return (x > 0) - (x < 0)
    for n, prec in enumerate(PRECISIONS):
        box = _enclose_delta(field, d1[0], d1[1], d1[2], d1[3], threshold, prec) - \
            _enclose_delta(field, d2[0], d2[1], d2[2], d2[3], threshold, prec)
        if box.a > 0:
            return 1
        if box.b < 0:
            return -1
        if n == 0 and _same_delta(field, d1, d2, threshold):
            return 0
    raise Unsupported("two pairs' δ could not be compared exactly at 5120 bits")


@dataclass(frozen=True)
class DeltaAt:
    """δ(ε) = a - e^ε b exactly, the worst pairs attaining it."""

    epsilon: sp.Basic
    a: sp.Basic
    b: sp.Basic
    pairs: tuple

    @property
    def delta(self) -> sp.Basic:
        return self.a - sp.exp(self.epsilon) * self.b

    @property
    def delta_float(self) -> float:
        return float(sp.N(self.delta, 30))


def delta_at(v: View, epsilon) -> DeltaAt:
    """The exact δ(ε) of the view: the maximum over pair classes of the hockey-stick divergence."""
    epsilon = sp.sympify(epsilon)
    th = P.Threshold(v.bases, epsilon)
    best, best_pairs = None, []
    for c in v.classes:
        A, B = P.hockey_stick(c.pld, th)
        cur = (A, c.pld.p_den, B, c.pld.q_den)
        if best is None:
            best, best_pairs = cur, list(c.pairs)
            continue
        order = compare_deltas(v.field, cur, best, th)
        if order > 0:
            best, best_pairs = cur, list(c.pairs)
        elif order == 0:
            best_pairs += c.pairs
    A, pd, B, qd = best
    return DeltaAt(epsilon, frac(v.field, A, pd), frac(v.field, B, qd), tuple(best_pairs))


def tight_epsilon(v: View) -> sp.Basic:
    """The smallest ε with δ(ε) = 0: log of the largest likelihood ratio (oo if unbounded)."""
    top = None
    for c in v.classes:
        key = P.sorted_keys(c.pld)[0]
        if key == P.INF:
            return sp.oo
        if top is None or P.compare_keys(v.bases, key, top) > 0:
            top = key
    if top in (None, P.ZERO):
        return sp.Integer(0)
    return sp.log(v.bases.expr(top))


# --- the whole profile ---------------------------------------------------------------------


@dataclass
class Piece:
    """On e^ε in [t_low, t_high]: δ(ε) = a - e^ε b (t_high None: unbounded above)."""

    t_low: sp.Basic
    t_high: sp.Basic | None
    a: sp.Basic
    b: sp.Basic


def class_pieces(v: View, c: PairClass) -> list:
    """The pair class's δ on t = e^ε >= 1 as pieces, by decreasing t: on [r_(n+1), r_n] the
    atoms with ratio > t are the first n + 1 (ratios sorted decreasing)."""
    f = v.field
    one = v.bases.value_key(f.R(1), f.R(1))
    raw = list(zip(*_sorted_sums(v, c)))
    out = []
    for n, (key, A, B) in enumerate(raw):
        if key == P.ZERO or (key != P.INF and P.compare_keys(v.bases, key, one) <= 0):
            break
        nxt = raw[n + 1][0] if n + 1 < len(raw) else P.ZERO
        low = one if nxt == P.ZERO or P.compare_keys(v.bases, nxt, one) <= 0 else nxt
        high = None if key == P.INF else v.bases.expr(key)
        out.append(Piece(v.bases.expr(low), high, frac(f, A, c.pld.p_den), frac(f, B, c.pld.q_den)))
    return out


def _breakpoint_keys(v: View, c: PairClass) -> list:
    one = v.bases.value_key(v.field.R(1), v.field.R(1))
    return [k for k in P.sorted_keys(c.pld) if k not in (P.INF, P.ZERO) and P.compare_keys(v.bases, k, one) > 0]


def _sorted_sums(v: View, c: PairClass):
    """(keys by decreasing ratio, cumulative A, cumulative B), cached on the class."""
    hit = getattr(c, "_sums", None)
    if hit is None:
        raw = P.profile_pieces(c.pld)
        hit = ([k for k, _, _ in raw], [a for _, a, _ in raw], [b for _, _, b in raw])
        c._sums = hit
    return hit


def _delta_at_key(v: View, c: PairClass, key):
    """(A, B) of the class at t = ratio(key): the sums over atoms with ratio > t (bisection)."""
    keys, cum_a, cum_b = _sorted_sums(v, c)
    lo, hi = 0, len(keys)  # first index whose ratio is <= t
    while lo < hi:
        mid = (lo + hi) // 2
        if P.compare_keys(v.bases, keys[mid], key) > 0:
            lo = mid + 1
        else:
            hi = mid
    R = v.field.R
    return (cum_a[lo - 1], cum_b[lo - 1]) if lo else (R(0), R(0))


def dominates(v: View, w: PairClass, o: PairClass) -> bool:
    """δ_w(t) >= δ_o(t) for every t >= 1, checked exactly at t = 1 and w's breakpoints (one
    sweep down both sorted supports)."""
    wk, ok = P.sorted_keys(w.pld), P.sorted_keys(o.pld)
    if ok and ok[0] != P.ZERO and (wk[0] == P.ZERO or P.compare_keys(v.bases, ok[0], wk[0]) > 0):
        return False
    one = v.bases.value_key(v.field.R(1), v.field.R(1))
    okeys, cum_a, cum_b = _sorted_sums(v, o)
    R = v.field.R
    n = 0  # the number of o's atoms with ratio > t
    for key in [*_breakpoint_keys(v, w), one]:  # decreasing t
        while n < len(okeys) and P.compare_keys(v.bases, okeys[n], key) > 0:
            n += 1
        th = _KeyThreshold(v.bases, key)
        dw = _delta_at_key(v, w, key)
        do = (cum_a[n - 1], cum_b[n - 1]) if n else (R(0), R(0))
        if compare_deltas(v.field, (dw[0], w.pld.p_den, dw[1], w.pld.q_den),
                          (do[0], o.pld.p_den, do[1], o.pld.q_den), th) < 0:
            return False
    return True


class _KeyThreshold(P.Threshold):
    """The threshold t = a ratio of the field itself (a breakpoint)."""

    def __init__(self, bases, key):
        self.bases, self.key, self._logs = bases, key, {}
        self.epsilon = None

    def log(self, prec):
        return self.bases.log_ratio(self.key, prec)


@dataclass
class Profile:
    """δ(ε) for all ε >= 0 and the trade-off curve of the worst pair."""

    view: View
    worst: PairClass | None          # the class that attains δ(ε) for every ε (None: none does)
    pieces: list                     # the worst class's pieces, or every class's when none dominates
    breakpoints: list                # e^ε where δ changes slope (exact), decreasing
    tight_epsilon: sp.Basic
    tradeoff: list                   # [(α, β)] vertices of T(α) for the worst pair (exact)
    notes: list


def _largest_at_one(v: View) -> list:
    """The classes whose δ at ε = 0 (total variation) is the largest, exactly."""
    one = v.bases.value_key(v.field.R(1), v.field.R(1))
    th = _KeyThreshold(v.bases, one)
    best, out = None, []
    for c in v.classes:
        a, b = _delta_at_key(v, c, one)
        cur = (a, c.pld.p_den, b, c.pld.q_den)
        order = 1 if best is None else compare_deltas(v.field, cur, best, th)
        if order > 0:
            best, out = cur, [c]
        elif order == 0:
            out.append(c)
    return out


def profile(v: View) -> Profile:
    notes = list(v.notes)
    # candidates: the classes of largest total variation (δ at ε = 0)
    dominant = None
    for c in _largest_at_one(v):  # a class attaining δ(ε) for all ε attains it at ε = 0
        if all(o is c or dominates(v, c, o) for o in v.classes):
            dominant = c
            break
    if dominant is not None:
        classes = [dominant]
        notes.append(f"worst pair {dominant.pairs[0]} attains δ(ε) for every ε >= 0 "
                     f"({len(v.classes)} class(es) of ordered pairs compared exactly at every breakpoint)")
    else:
        classes = v.classes
        notes.append("no single pair attains δ(ε) for every ε: δ is the maximum of the listed pairs' pieces")
    pieces = [(c.pairs[0], class_pieces(v, c)) for c in classes]
    bps = []
    for c in classes:
        bps += _breakpoint_keys(v, c)
    bps = P.sort_ratio_keys(v.bases, set(bps))[::-1]
    worst = dominant or classes[0]
    trade = tradeoff(v, worst)
    return Profile(v, dominant, pieces, [v.bases.expr(k) for k in bps], tight_epsilon(v), trade, notes)


def tradeoff(v: View, c: PairClass) -> list:
    """Vertices (α, β) of T(α) for testing Q(.|x) against Q(.|x') (x, x' the class's first pair)."""
    f = v.field
    out = []
    for _, A, B in P.tradeoff_points(c.pld):
        out.append((frac(f, A, c.pld.p_den), 1 - frac(f, B, c.pld.q_den)))
    return out


def tradeoff_at(vertices: list, alpha) -> sp.Basic:
    """T(α) by linear interpolation between the vertices (exact)."""
    alpha = sp.sympify(alpha)
    for (a0, b0), (a1, b1) in zip(vertices, vertices[1:]):
        if a1 == a0:
            continue
        if sp.simplify(alpha - a1) <= 0 or (a1, b1) == vertices[-1]:
            if sp.simplify(alpha - a0) >= 0:
                return sp.simplify(b0 + (b1 - b0) * (alpha - a0) / (a1 - a0))
    return sp.Integer(0)


# --- composition theorems beside the exact value --------------------------------------------


def basic_composition(single: View, reports: int, epsilon) -> sp.Basic:
    """Basic composition: K reports of an (ε/K, δ1)-LDP channel are (ε, K δ1): K δ1(ε/K)."""
    d1 = delta_at(single, sp.sympify(epsilon) / reports)
    return sp.Min(1, reports * d1.delta)


def advanced_composition(eps0: sp.Basic, reports: int, epsilon) -> sp.Basic | None:
    """Advanced composition (Dwork, Rothblum & Vadhan 2010) for a pure ε0-LDP channel:
    K reports are (ε, δ') for ε = sqrt(2K ln(1/δ')) ε0 + K ε0 (e^ε0 - 1); solved for δ'
    (1 when ε is below K ε0 (e^ε0 - 1)). None when ε0 is infinite."""
    if eps0 == sp.oo:
        return None
    eps, k = sp.sympify(epsilon), sp.Integer(reports)
    drift = k * eps0 * (sp.exp(eps0) - 1)
    if sp.N(eps - drift, 30) <= 0 or eps0 == 0:
        return sp.Integer(1)
    return sp.Min(1, sp.exp(-((eps - drift) / eps0) ** 2 / (2 * k)))
