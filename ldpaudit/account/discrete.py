"""A proven upper bound on δ(ε) of K reports by a pessimistically discretized PLD, where the
exact support explodes (losses that are not commensurate: ln 3 and ln 5, two different channels).

The hockey-stick divergence of a pair, written over the privacy-loss distribution under P
(the loss L(y) = ln P(y)/P'(y), P-mass p at each loss, p_inf on the outputs with P' = 0), is

    δ(ε) = p_inf + Σ_L p_L (1 - e^(ε - L))_+ ,

non-decreasing in every loss L and in every mass p_L. Under composition the losses add and the
P-masses multiply (convolution). So rounding every loss *up* to the grid h Z, and every mass
*up*, gives a dominating (pessimistic) PLD whose δ is >= the true δ at every ε, for one report
and for every composition of such roundings (Koskela, Jälkö, Prediger & Honkela 2021; the
"pessimistic estimate" of Google's dp_accounting). The lost P'-mass e^(-L) p - e^(-L') p goes to
a loss of -oo, which adds nothing to δ.

Floats: each loss is rounded up from a rigorous interval enclosure (mpmath iv), each mass to
the next float above an enclosure of the exact value. Convolutions are direct (numpy.convolve,
every term >= 0): each entry of the result is within a relative γ_n = n u / (1 - n u) of the
exact convolution of the float inputs (any summation order; Higham, Accuracy and Stability,
§3.1), plus n 2^-1074 for underflow. A factor F >= 1 and an absolute slack A per entry are
carried so that true <= F * computed + A holds entrywise, and the final sum is bounded the same
way. The answer is a float that is >= the δ of the pessimistic PLD, hence >= the true δ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np

from ldpaudit.account import pld as P
from ldpaudit.account.numbers import PRECISIONS

U = 2.0 ** -53          # unit roundoff of float64
ETA = 2.0 ** -1074      # smallest subnormal: the absolute error of an underflowing product
#: the largest grid support a convolution may produce (direct convolution is O(n m))
MAX_SUPPORT = 400_000


def _up(x: float) -> float:
    return math.nextafter(x, math.inf)


def _gamma(n: int) -> float:
    return n * U / (1 - n * U)


@dataclass
class GridPLD:
    """Masses ``masses[i]`` at loss (offset + i) h, plus ``p_inf``; the exact pessimistic
    masses m satisfy m <= factor * masses + slack entrywise."""

    step: float
    offset: int
    masses: np.ndarray
    p_inf: float
    factor: float = 1.0
    slack: float = 0.0

    @property
    def support(self) -> int:
        return len(self.masses)


def grid_index_up(bases, key, step: float) -> int:
    """The least i with i h >= ln ratio(key), from an enclosure (so i h >= the true loss)."""
    box = bases.log_ratio(key, PRECISIONS[0])
    with mpmath.workprec(4 * PRECISIONS[0]):  # the endpoints exactly; step a power of two: exact quotient
        lo, hi = math.ceil(mpmath.mpf(box.a) / step), math.ceil(mpmath.mpf(box.b) / step)
    return int(lo if lo == hi else hi)  # L <= box.b <= hi h


def _mass_up(field, num, den) -> float:
    """A float >= num(g)/den(g) >= 0."""
    if not num:
        return 0.0
    box = field.enclose(num, PRECISIONS[0]) / field.enclose(den, PRECISIONS[0])
    return _up(float(mpmath.mpf(box.b)))


def discretize(pld: P.PLD, step: float) -> GridPLD:
    """The pessimistic grid PLD of one pair (under P): losses rounded up to h Z, masses up."""
    if not step > 0:
        raise ValueError("the grid step must be > 0")
    field = pld.field
    p_inf = 0.0
    idx, mass = [], []
    for key, (a, _) in pld.atoms.items():
        if key == P.ZERO or not a:
            continue
        m = _mass_up(field, a, pld.p_den)
        if key == P.INF:
            p_inf = _up(p_inf + m)
            continue
        idx.append(grid_index_up(pld.bases, key, step) if key != () else 0)
        mass.append(m)
    if not idx:
        return GridPLD(step, 0, np.zeros(1), p_inf)
    lo = min(idx)
    out = np.zeros(max(idx) - lo + 1)
    for i, m in zip(idx, mass):
        out[i - lo] = _up(out[i - lo] + m)  # few atoms per cell; each addition rounded up
    return GridPLD(step, lo, out, p_inf)


#: numpy.convolve slows down sharply above about 10^4 points per side: blocks of this size
BLOCK = 8192


def _convolve(x: np.ndarray, y: np.ndarray) -> tuple:
    """The direct convolution of two non-negative vectors by blocks, and the number of partial
    sums added into any one entry (for the error bound)."""
    if len(x) <= BLOCK and len(y) <= BLOCK:
        return np.convolve(x, y), 1
    out = np.zeros(len(x) + len(y) - 1)
    bx, by = range(0, len(x), BLOCK), range(0, len(y), BLOCK)
    for i in bx:
        for j in by:
            part = np.convolve(x[i:i + BLOCK], y[j:j + BLOCK])
            out[i + j:i + j + len(part)] += part
    return out, len(bx) * len(by)


def compose(a: GridPLD, b: GridPLD) -> GridPLD:
    """The pessimistic PLD of the composition (losses add: convolution), with its error bound."""
    if a.step != b.step:
        raise ValueError("grid PLDs on different steps")
    n = min(a.support, b.support)
    if a.support + b.support - 1 > MAX_SUPPORT:
        from ldpaudit.account.numbers import Unsupported

        raise Unsupported(f"the discretized PLD would have {a.support + b.support - 1:,} grid points "
                          f"(> {MAX_SUPPORT:,}); give a coarser grid step")
    c, blocks = _convolve(a.masses, b.masses)
    g = _gamma(n + blocks + 1)
    # true <= (Fa ma + Aa) * (Fb mb + Ab) summed: Fa Fb conv(ma, mb) + Aa Fb Σmb + Ab Fa Σma + n Aa Ab
    sa = _up(float(a.masses.sum()) / (1 - _gamma(a.support)) * (1 + 4 * U))
    sb = _up(float(b.masses.sum()) / (1 - _gamma(b.support)) * (1 + 4 * U))
    factor = _up(a.factor * b.factor / (1 - g) * (1 + 4 * U))  # the float operations' own rounding covered
    slack = _up(_up(a.slack * b.factor * sb + b.slack * a.factor * sa + n * a.slack * b.slack) + n * ETA * factor)
    p_inf = _up(a.p_inf + b.p_inf)  # union bound: P(some report has P' = 0)
    return GridPLD(a.step, a.offset + b.offset, c, min(1.0, p_inf), factor, slack)


def power(g: GridPLD, k: int) -> GridPLD:
    """k-fold composition by repeated squaring."""
    result, base = None, g
    while k:
        if k & 1:
            result = base if result is None else compose(result, base)
        k >>= 1
        if k:
            base = compose(base, base)
    return result


def delta_upper(g: GridPLD, epsilon: float) -> float:
    """A float >= δ(ε) of the pessimistic PLD (ε a float <= the exact ε: pass it rounded down)."""
    if not (np.all(np.isfinite(g.masses)) and np.all(g.masses >= 0) and math.isfinite(g.factor + g.slack)):
        from ldpaudit.account.numbers import Unsupported

        raise Unsupported("the discretized PLD has a mass that is not a finite number >= 0; no bound is given")
    losses = (g.offset + np.arange(g.support)) * g.step
    keep = losses > epsilon
    if not keep.any():
        return min(1.0, _up(g.p_inf))
    w = -np.expm1(epsilon - losses[keep])          # (1 - e^(ε - L)) in (0, 1]
    w = np.minimum(1.0, w + 4 * U)                 # expm1's error is below a few ulps of 1
    m = g.masses[keep]
    n = int(keep.sum())
    total = math.fsum((m * w).tolist()) * (1 + 2 * U)  # products rounded (u each), fsum exact-rounded
    total = g.factor * total * (1 + 4 * U) + g.slack * n + n * ETA
    return min(1.0, _up(_up(total) + g.p_inf))


def float_down(value) -> float:
    """A float <= the exact real ``value`` (sympy number)."""
    import sympy as sp

    x = float(sp.N(value, 30))
    return math.nextafter(x, -math.inf) if x > 0 else x


@dataclass(frozen=True)
class DeltaUpper:
    epsilon: object
    delta_upper: float
    step: float
    support: int
    reports: int
    pairs: tuple


def view_delta_upper(classes, reports: int, epsilon, step: float) -> DeltaUpper:
    """max over pair classes of the pessimistic δ(ε) of ``reports`` compositions of each class's
    PLD (one report, exact), a proven upper bound on the composed view's δ(ε)."""
    eps = float_down(epsilon)
    best, best_pairs, support = -1.0, (), 0
    for c in classes:
        g = power(discretize(c.pld, step), reports)
        d = delta_upper(g, eps)
        support = max(support, g.support)
        if d > best:
            best, best_pairs = d, tuple(c.pairs)
    return DeltaUpper(epsilon, best, step, support, reports, best_pairs)


def default_step(classes, reports: int, target: int = 60_000) -> float:
    """A grid step giving at most about ``target`` points after ``reports`` compositions (the
    tolerance is about reports * step in ε; a finer step is given with --grid)."""
    width = 0.0
    for c in classes:
        finite = [k for k, (a, _) in c.pld.atoms.items() if a and k not in (P.INF, P.ZERO)]
        if finite:
            logs = [float(mpmath.mpf(c.pld.bases.log_ratio(k, PRECISIONS[0]).mid)) if k != () else 0.0 for k in finite]
            width = max(width, max(logs) - min(logs))
    if width == 0:
        return 1e-3
    raw = reports * width / target
    return 2.0 ** math.ceil(math.log2(raw))  # a power of two: the grid points are exact floats


# --- channels whose entries are outside Q(e^c): enclosures of the entries ---------------------


def enclose_number(value, prec: int = 120):
    """A rigorous mpmath interval holding the real sympy number ``value`` (rationals, +, *, powers,
    exp, log, sqrt, pi, E); anything else raises :class:`Unsupported`."""
    import sympy as sp

    from ldpaudit.account.numbers import Unsupported

    iv = mpmath.iv
    iv.prec = prec

    def walk(e):
        if e.is_Rational:
            return iv.mpf(int(e.p)) / int(e.q)
        if e is sp.E:
            return iv.e
        if e is sp.pi:
            return iv.pi
        if e.is_Add:
            out = iv.mpf(0)
            for a in e.args:
                out += walk(a)
            return out
        if e.is_Mul:
            out = iv.mpf(1)
            for a in e.args:
                out *= walk(a)
            return out
        if e.is_Pow:
            base, ex = e.args
            if ex.is_Integer:
                return walk(base) ** int(ex)
            if ex == sp.Rational(1, 2):
                return iv.sqrt(walk(base))
            return iv.exp(walk(ex) * iv.log(walk(base)))
        if isinstance(e, sp.exp):
            return iv.exp(walk(e.args[0]))
        if isinstance(e, sp.log):
            return iv.log(walk(e.args[0]))
        raise Unsupported(f"cannot enclose {e} in an interval (only rationals, +, *, powers, exp, log, pi)")

    return walk(sp.sympify(value))


def grid_pair_from_entries(p_row, q_row, step: float) -> GridPLD:
    """The pessimistic grid PLD of P against P' from intervals of their entries (exact zeros
    given as None): loss up to the upper end of log p - log q, mass to the upper end of p."""
    iv = mpmath.iv
    p_inf, idx, mass = 0.0, [], []
    for p, q in zip(p_row, q_row):
        if p is None:
            continue
        up = _up(float(mpmath.mpf(p.b)))
        if q is None:
            p_inf = _up(p_inf + up)
            continue
        if p.a <= 0 or q.a <= 0:
            from ldpaudit.account.numbers import Unsupported

            raise Unsupported("an entry of the channel could not be separated from 0 by its enclosure")
        loss = (iv.log(p) - iv.log(q)).b
        with mpmath.workprec(4 * PRECISIONS[0]):  # the endpoint exactly; step a power of two: exact quotient
            idx.append(int(math.ceil(mpmath.mpf(loss) / step)))
        mass.append(up)
    if not idx:
        return GridPLD(step, 0, np.zeros(1), min(1.0, p_inf))
    lo = min(idx)
    out = np.zeros(max(idx) - lo + 1)
    for i, m in zip(idx, mass):
        out[i - lo] = _up(out[i - lo] + m)
    return GridPLD(step, lo, out, min(1.0, p_inf))


def enclosed_classes(mech) -> list:
    """[(pairs, one-report grid PLD builder)] of a bound finite mechanism from enclosures of its
    entries (product channels: PLD(on, off) * PLD(off, on) for every ordered pair)."""
    import itertools

    def iv_or_none(e):
        return None if e == 0 else enclose_number(e)

    ch = mech.channel
    if getattr(ch, "form", None) == "product" and not ch.continuous:
        values = sorted({v for v, _ in ch.on.probabilities} | {v for v, _ in ch.off.probabilities})
        on = [iv_or_none(ch.on.probability(v)) for v in values]
        off = [iv_or_none(ch.off.probability(v)) for v in values]
        inputs = mech.inputs.enumerate()
        pairs = [(x, y) for x in inputs for y in inputs if x != y]
        return [(pairs, lambda step: compose(grid_pair_from_entries(on, off, step), grid_pair_from_entries(off, on, step)))]
    explicit = mech.materialize()
    rows = [[iv_or_none(e) for e in row] for row in explicit.matrix]
    found: dict = {}
    for i, k in itertools.permutations(range(len(rows)), 2):
        sig = tuple(sorted((str(a), str(b)) for a, b in zip(explicit.matrix[i], explicit.matrix[k])))
        found.setdefault(sig, ([], rows[i], rows[k]))[0].append((explicit.inputs[i], explicit.inputs[k]))
    return [(pairs, (lambda p, q: lambda step: grid_pair_from_entries(p, q, step))(p, q)) for pairs, p, q in found.values()]


def enclosed_delta_upper(mech, reports: int, epsilon, step: float | None = None) -> DeltaUpper:
    """A proven upper bound on δ(ε) of ``reports`` reports of a channel whose entries are outside
    Q(e^c) (k-RAPPOR at ε = log 3 has √3): the pessimistic grid PLD of each ordered pair."""
    eps = float_down(epsilon)
    if step is None:
        coarse = 2.0 ** -6
        width = max(build(coarse).support for _, build in enclosed_classes(mech)) * coarse
        step = 2.0 ** math.ceil(math.log2(max(reports * width / 60_000, 2.0 ** -14)))
    best, best_pairs, support = -1.0, (), 0
    for pairs, build in enclosed_classes(mech):
        g = power(build(step), reports)
        d = delta_upper(g, eps)
        support = max(support, g.support)
        if d > best:
            best, best_pairs = d, tuple(pairs)
    return DeltaUpper(epsilon, best, step, support, reports, best_pairs)
