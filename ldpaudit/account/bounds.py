"""Proven lower and upper bounds on δ(ε) of K reports, from each pair's exact one-report PLD,
where the exact K-fold convolution is past its work budget.

Under P the K reports' privacy loss is the sum of K independent one-report losses, and

    δ(ε) = P(some report has P' = 0) + E_P[(1 - e^(ε - L_1 - ... - L_K))_+ ; every L_i finite],

non-decreasing in every loss and every mass. So the K-fold convolution of a one-report PLD
with every loss rounded *up* to a grid and every mass rounded up bounds δ from above (the
pessimistic PLD of Koskela et al. 2021 and Google's dp_accounting), and the same with losses
rounded *down* and masses down bounds it from below (the optimistic one). The gap is at most
the change of δ when ε moves by K h (h the grid step).

Two grids:

* the losses' own lattice: when every finite loss of a pair is an integer multiple of one loss
  λ (k-RR: 0 and ±ε; decided on the exact exponent vectors, :func:`ldpaudit.account.pld.lattice`),
  the grid is λ Z and nothing is rounded: the bounds differ by float rounding only;
* otherwise a grid h Z with h a power of two; each loss's floor and ceiling from a rigorous
  interval enclosure of its log (exact for the loss 0 and for losses j c of ratios e^(jc)).

Floats: masses are enclosed (mpmath ``iv``) and rounded outward; after each convolution the
computed vector c (every entry a sum of k products of non-negative numbers) is widened to
c (1 + 4(k+2)u) + k η, rounded up (upper), and (c - k η)(1 - 4(k+2)u), rounded down and clipped
at 0 (lower), which contain the exact convolution of the inputs whatever the summation order
(|fl(Σ) - Σ| <= γ_k Σ + k η, Higham §3.1; u = 2^-53, η = 2^-1074 covers underflow). The final
Σ m_i (1 - e^(ε - L_i))_+ uses outward enclosures of L_i, ε and expm1, and fsum. The answer is
a pair of floats lower <= δ(ε) <= upper.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from ldpaudit.account import pld as P
from ldpaudit.account.discrete import BLOCK, _convolve
from ldpaudit.account.numbers import PRECISIONS, Unsupported

U = 2.0 ** -53
ETA = 2.0 ** -1074
#: the bounds' work budget: multiply-adds of the convolutions (both sides), predicted first
MAX_WORK = 2 * 10**9
#: the default grid (no lattice): the finest whose convolutions need at most this many
#: multiply-adds (about 1 s)
TARGET_WORK = 5 * 10**8
#: ... and keeps at most this many grid points
TARGET_POINTS = 1 << 20
#: tails of at most this P-mass are cut after each convolution (moved outward: still bounds)
TAIL = 1e-30


def _down(x: float) -> float:
    return math.nextafter(x, -math.inf)


def _up(x: float) -> float:
    return math.nextafter(x, math.inf)


def float_below(m) -> float:
    """The largest float <= the mpf ``m`` (exact comparison)."""
    x = float(m)
    return _down(x) if mpmath.mpf(x) > m else x


def float_above(m) -> float:
    x = float(m)
    return _up(x) if mpmath.mpf(x) < m else x


@dataclass(frozen=True)
class Grid:
    """Losses i λ (i an integer): ``kind`` "lattice" (the losses' own λ, nothing rounded) or
    "grid" (λ = h a power of two, losses rounded); λ enclosed by floats [low, high]."""

    kind: str
    low: float
    high: float
    exact: str          # λ written exactly ("1", "log(3)", "2**-7")

    @property
    def step(self) -> float:
        return self.high if self.low == self.high else (self.low + self.high) / 2


@dataclass
class Side:
    """A one-side discretized PLD: mass ``masses[i]`` at loss (offset + i) λ, plus ``p_inf``
    (the P-mass of the outputs with P' = 0); each entry a bound (below or above) on the exact
    rounded PLD's."""

    offset: int
    masses: np.ndarray
    p_inf: float


def _widen(c: np.ndarray, k: int, upper: bool) -> np.ndarray:
    """Entrywise bounds on the exact convolution from the computed one (k products per entry)."""
    if upper:
        return np.nextafter(c * (1 + 4 * (k + 2) * U) + k * ETA, np.inf)
    return np.maximum(0.0, np.nextafter((c - k * ETA) * (1 - 4 * (k + 2) * U), -np.inf))


def _shift_add(v: np.ndarray, atoms: list, width: int, upper: bool) -> np.ndarray:
    """Σ_j m_j v shifted by s_j (a sparse one-report PLD), widened."""
    out = np.zeros(len(v) + width)
    for s, m in atoms:
        out[s:s + len(v)] += m * v
    return _widen(out, len(atoms), upper)


def _dense(a: np.ndarray, b: np.ndarray, upper: bool) -> np.ndarray:
    c, blocks = _convolve(a, b)
    return _widen(c, min(len(a), len(b), BLOCK) + blocks, upper)


def _sum_bound(x: np.ndarray, upper: bool) -> float:
    """A float >= (upper) or <= the exact sum of the non-negative floats x."""
    if not len(x):
        return 0.0
    s = float(np.sum(x))
    g = 4 * (len(x) + 2) * U
    return _up(s * (1 + g) + len(x) * ETA) if upper else max(0.0, _down(s * (1 - g)))


def truncate(side: "Side", upper: bool, tail: float = TAIL) -> tuple:
    """(side, mass sent to +oo): the tails of mass <= ``tail`` cut off. Upper: the left tail
    moves up to the first kept point, the right tail to a loss of +oo (returned, added to δ);
    lower: the left tail is dropped (to -oo), the right tail moves down to the last kept point.
    Losses only move up (upper) or down (lower): the bound stays a bound."""
    m = side.masses
    if len(m) <= 1024:
        return side, 0.0
    left = np.cumsum(m)
    right = np.cumsum(m[::-1])
    i = int(np.searchsorted(left, tail, side="right"))        # m[:i] sums to <= tail
    j = len(m) - int(np.searchsorted(right, tail, side="right"))  # m[j:] sums to <= tail
    if i >= j or (i == 0 and j == len(m)):
        return side, 0.0
    kept = m[i:j].copy()
    if upper:
        moved = _sum_bound(m[:i], True)
        if moved:
            kept[0] = _up(kept[0] + moved)
        return Side(side.offset + i, kept, side.p_inf), _sum_bound(m[j:], True)
    moved = _sum_bound(m[j:], False)
    if moved:
        kept[-1] = _down(kept[-1] + moved)
    return Side(side.offset + i, kept, side.p_inf), 0.0


def plan(span: int, nnz: int, reports: int, width=None) -> tuple:
    """("sequential" | "squaring", multiply-adds): the cheaper way to compose K = ``reports``
    copies of a one-report PLD spanning ``span`` + 1 grid points with ``nnz`` atoms; ``width(n)``
    bounds the points kept after n reports (default n span + 1)."""
    width = width or (lambda n: n * span + 1)
    sequential = sum(width(n) * nnz for n in range(1, reports))
    squaring, k, n, acc = 0, reports, 1, None
    while k:
        if k & 1:
            squaring += 0 if acc is None else width(acc) * width(n)
            acc = n if acc is None else acc + n
        k >>= 1
        if k:
            squaring += width(n) ** 2
            n *= 2
    return ("sequential", sequential) if sequential <= 4 * squaring else ("squaring", squaring)


def kept_width(span: int, variance: float | None = None, tail: float = TAIL):
    """n -> about the grid points kept after n reports (a plan, not a bound the answer relies
    on): one report's rounded loss lies in ``span`` steps with ``variance`` (steps^2), so the sum
    of n leaves [mean ± t] with probability <= tail for t from Hoeffding,
    2 exp(-2 t^2 / (n span^2)), or Bernstein, 2 exp(-t^2 / (2 (n variance + span t / 3)))."""
    lg = math.log(2 / tail)

    def width(n: int) -> int:
        t = span * math.sqrt(n * lg / 2)
        if variance is not None:
            a = 2 * lg * span / 3
            t = min(t, (a + math.sqrt(a * a + 8 * lg * n * variance)) / 2)
        return min(n * span, 2 * math.ceil(t) + 2 * span) + 1

    return width


def _variance(masses: np.ndarray) -> float:
    """The variance of the grid index under the (normalized) masses, in steps^2."""
    total = float(masses.sum())
    if total <= 0:
        return 0.0
    i = np.arange(len(masses))
    mean = float((i * masses).sum()) / total
    return float(((i - mean) ** 2 * masses).sum()) / total


def compose_side(one: Side, reports: int, upper: bool) -> tuple:
    """(K-fold composition of a one-side PLD, multiply-adds): losses add, masses multiply; the
    tails below :data:`TAIL` cut after each convolution (:func:`truncate`), the mass sent to a
    loss of +oo added to ``p_inf``."""
    nz = np.flatnonzero(one.masses)
    atoms = [(int(i), float(one.masses[i])) for i in nz]
    span = len(one.masses) - 1
    how, _ = plan(span, len(atoms), reports, kept_width(span, _variance(one.masses)))
    gone, work = 0.0, 0
    if how == "sequential":
        v = Side(one.offset, one.masses, 0.0)
        for _ in range(reports - 1):
            work += len(v.masses) * len(atoms)
            v, cut = truncate(Side(v.offset + one.offset, _shift_add(v.masses, atoms, span, upper), 0.0), upper)
            gone = _up(gone + cut) if cut else gone
    else:
        v, base, k = None, Side(one.offset, one.masses, 0.0), reports
        while k:
            if k & 1:
                if v is None:
                    v = base
                else:
                    work += len(v.masses) * len(base.masses)
                    v, cut = truncate(Side(v.offset + base.offset, _dense(v.masses, base.masses, upper), 0.0), upper)
                    gone = _up(gone + cut) if cut else gone
            k >>= 1
            if k:
                work += len(base.masses) ** 2
                base, cut = truncate(Side(2 * base.offset, _dense(base.masses, base.masses, upper), 0.0), upper)
                # a cut of the base reaches +oo in every later product: at most its mass each time
                gone = _up(gone + cut * reports) if cut else gone
    # P(some report has P' = 0) = 1 - (1 - p_inf)^K, enclosed; a mass cut to +oo stays there
    # through the later reports, whose rounded-up masses may sum to a little over 1: times S^K
    iv = mpmath.iv
    iv.prec = PRECISIONS[0]
    box = 1 - (1 - iv.mpf(one.p_inf)) ** reports
    if not upper:
        return Side(v.offset, v.masses, min(1.0, float_below(box.a))), work
    if gone:
        total = max(1.0, _up(_sum_bound(one.masses, True) + one.p_inf))
        gone = _up(gone * float_above((iv.mpf(total) ** reports).b))
    return Side(v.offset, v.masses, min(1.0, _up(float_above(box.b) + gone))), work


# --- one report, discretized ------------------------------------------------------------------


def _mass_box(field, num, den):
    return field.enclose(num, PRECISIONS[0]) / field.enclose(den, PRECISIONS[0])


def _exact_loss(bases, key):
    """The loss as a Fraction when it is rational (ratio 1, or e^(jc) in Q(e^c)), else None."""
    if key == () or key == ("q", 1, 1):
        return Fraction(0)
    c = bases.field.c
    if c is None:
        return None
    num, den = bases.value(key)
    if len(num) == 1 and len(den) == 1 and num.LC == 1 and den.LC == 1:
        j = num.degree() - den.degree()
        return Fraction(int(c.p), int(c.q)) * j
    return None


def _grid_indices(bases, key, step: float) -> tuple:
    """(floor, ceil) of loss / step, rigorously (a loss that cannot be told apart from a grid
    point gets the grid points on both sides)."""
    exact = _exact_loss(bases, key)
    if exact is not None:
        q = exact / Fraction(step)
        return math.floor(q), math.ceil(q)
    for prec in PRECISIONS:
        box = bases.log_ratio(key, prec)
        with mpmath.workprec(4 * prec):  # endpoints exactly; step a power of two: exact quotients
            lo, hi = mpmath.mpf(box.a) / step, mpmath.mpf(box.b) / step
            fl, cl = int(mpmath.floor(lo)), int(mpmath.ceil(hi))
            if int(mpmath.floor(hi)) == fl and int(mpmath.ceil(lo)) == cl:
                return fl, cl
    return fl, cl


def one_report(pld: P.PLD, grid: Grid, multiples: dict | None) -> tuple:
    """(lower side, upper side) of one report's PLD on ``grid``: losses rounded down / up (on
    the lattice: exact), masses enclosed and rounded down / up."""
    field = pld.field
    lo_idx, hi_idx, lo_mass, hi_mass = [], [], [], []
    p_inf_lo = p_inf_hi = 0.0
    inf_box = None
    for key, (a, _) in pld.atoms.items():
        if key == P.ZERO or not a:
            continue
        box = _mass_box(field, a, pld.p_den)
        if key == P.INF:
            inf_box = box if inf_box is None else inf_box + box
            continue
        if multiples is not None:
            i = j = multiples[key]
        else:
            i, j = _grid_indices(pld.bases, key, grid.step)
        lo_idx.append(i)
        hi_idx.append(j)
        lo_mass.append(float_below(box.a))
        hi_mass.append(float_above(box.b))
    if inf_box is not None:
        p_inf_lo, p_inf_hi = float_below(inf_box.a), min(1.0, float_above(inf_box.b))
    return _side(lo_idx, lo_mass, p_inf_lo, upper=False), _side(hi_idx, hi_mass, p_inf_hi, upper=True)


def _side(idx, mass, p_inf, *, upper: bool) -> Side:
    if not idx:
        return Side(0, np.zeros(1), p_inf)
    lo = min(idx)
    out = np.zeros(max(idx) - lo + 1)
    for i, m in zip(idx, mass):  # a few atoms per cell: each addition rounded outward
        if out[i - lo]:
            m = _up(out[i - lo] + m) if upper else _down(out[i - lo] + m)
        out[i - lo] = m
    return Side(lo, out, p_inf)


def _loss_moments(pld: P.PLD) -> tuple:
    """(width, standard deviation) of one report's finite losses with P-mass > 0, as floats (for
    planning the grid only)."""
    logs, mass = [], []
    for k, (a, _) in pld.atoms.items():
        if a and k not in (P.INF, P.ZERO):
            logs.append(float(pld.bases.log_ratio(k, PRECISIONS[0]).mid) if k != () else 0.0)
            mass.append(float(_mass_box(pld.field, a, pld.p_den).mid))
    if not logs:
        return 0.0, 0.0
    logs, mass = np.array(logs), np.array(mass)
    mean = float((logs * mass).sum() / mass.sum())
    return float(logs.max() - logs.min()), math.sqrt(float(((logs - mean) ** 2 * mass).sum() / mass.sum()))


def default_step(pld: P.PLD, reports: int, work: int = TARGET_WORK, points: int = TARGET_POINTS) -> float:
    """The finest power of two h whose convolutions (both sides, :func:`plan` with the kept
    widths of :func:`kept_width`) need at most ``work`` multiply-adds and keep at most
    ``points`` grid points."""
    w, sd = _loss_moments(pld)
    nnz = sum(1 for k, (a, _) in pld.atoms.items() if a and k not in (P.INF, P.ZERO))
    if w == 0:
        return 1.0
    h = 2.0 ** math.floor(math.log2(w))
    while h > 2.0 ** -40:
        span = math.ceil(w / (h / 2)) + 1
        kept = kept_width(span, (sd / (h / 2) + 1) ** 2)
        if kept(reports) > points or 2 * plan(span, min(nnz, span + 1), reports, kept)[1] > work:
            break
        h /= 2
    return h


def _lattice_step(pld: P.PLD, base) -> float:
    return float(pld.bases.log_ratio(base, PRECISIONS[0]).mid)


def choose_grid(pld: P.PLD, reports: int, step: float | None) -> tuple:
    """(Grid, multiples or None): the losses' lattice when there is one and its convolutions fit
    in :data:`MAX_WORK` (and no grid step was asked for), else h Z (``step`` or the default)."""
    found = P.lattice(pld) if step is None else None
    if found is not None:
        base, mult = found
        span = max(mult.values()) - min(mult.values())
        variance = (_loss_moments(pld)[1] / _lattice_step(pld, base)) ** 2  # in lattice steps^2
        if plan(span, len(mult), reports, kept_width(span, variance))[1] <= MAX_WORK:
            import sympy as sp

            box = pld.bases.log_ratio(base, PRECISIONS[0])
            lam = sp.log(pld.bases.expr(base))
            exact = _exact_loss(pld.bases, base)
            if exact is not None and Fraction(float(exact)) == exact:  # λ a float exactly (1, 1/2)
                return Grid("lattice", float(exact), float(exact), str(lam)), mult
            return Grid("lattice", float_below(box.a), float_above(box.b), str(lam)), mult
    h = step if step is not None else default_step(pld, reports)
    h = 2.0 ** math.floor(math.log2(h))
    return Grid("grid", h, h, f"2**{int(math.log2(h))}"), None


# --- δ from a side ----------------------------------------------------------------------------


def _epsilon_box(epsilon) -> tuple:
    """Floats [lo, hi] around the exact ε (a sympy number)."""
    import sympy as sp

    from ldpaudit.account.discrete import enclose_number

    box = enclose_number(sp.sympify(epsilon), PRECISIONS[0])
    return float_below(box.a), float_above(box.b)


def _losses(side: Side, grid: Grid, upper: bool) -> np.ndarray:
    """Floats below (upper=False) or above every loss (offset + i) λ."""
    i = (side.offset + np.arange(len(side.masses))).astype(np.float64)  # exact: |i| < 2^53
    if upper:
        x = np.where(i >= 0, i * grid.high, i * grid.low)
        return np.nextafter(x + np.abs(x) * (2 * U), np.inf)
    x = np.where(i >= 0, i * grid.low, i * grid.high)
    return np.nextafter(x - np.abs(x) * (2 * U), -np.inf)


def side_delta(side: Side, grid: Grid, eps: tuple, upper: bool) -> float:
    """A float >= (upper) or <= (lower) the δ(ε) of the side's exact PLD, ε in [eps[0], eps[1]]."""
    m = side.masses
    if not (np.all(np.isfinite(m)) and np.all(m >= 0)):
        raise Unsupported("the discretized PLD has a mass that is not a finite number >= 0; no bound is given")
    loss = _losses(side, grid, upper)
    e = eps[0] if upper else eps[1]
    keep = loss > e
    if upper:
        w = np.minimum(1.0, -np.expm1(e - loss[keep]) + 4 * U)   # expm1 is within an ulp
    else:
        w = np.maximum(0.0, -np.expm1(e - loss[keep]) - 4 * U)
    n = int(keep.sum())
    total = math.fsum((m[keep] * w).tolist())                     # products rounded (u each), fsum exact-rounded
    if upper:
        total = _up(_up(total * (1 + 4 * U) + n * ETA) + side.p_inf)
        return min(1.0, total)
    total = _down((total - n * ETA) * (1 - 4 * U))
    return max(0.0, _down(max(0.0, total) + side.p_inf))


@dataclass(frozen=True)
class DeltaBounds:
    """lower <= δ(ε) <= upper for K = ``reports`` reports, from the discretized PLDs."""

    epsilon: object
    lower: float
    upper: float
    grid: Grid
    points: int               # grid points kept in the K-fold PLD (largest over the classes)
    reports: int
    pairs: tuple              # the pairs of the class with the largest upper bound
    work: int                 # multiply-adds of the convolutions (all classes, both sides)
    grids: tuple = ()         # every class's grid (``grid``: the one of ``pairs``' class)


def class_bounds(pld: P.PLD, reports: int, eps: tuple, step: float | None = None) -> tuple:
    """(lower, upper, grid, points, work) for one pair class's K-fold composition."""
    pld = P.prepared(pld, 2)
    grid, mult = choose_grid(pld, reports, step)
    lo, hi = one_report(pld, grid, mult)
    span = max(len(lo.masses), len(hi.masses)) - 1
    nnz = max(int(np.count_nonzero(lo.masses)), int(np.count_nonzero(hi.masses)))
    predicted = 2 * plan(span, nnz, reports, kept_width(span, _variance(hi.masses)))[1]
    if predicted > MAX_WORK:
        raise Unsupported(f"the discretized PLD of {reports} reports on the grid h = {grid.exact} needs about "
                          f"{predicted:,} multiply-adds (> {MAX_WORK:,}); give a coarser grid step (--grid)")
    (lo_k, w1), (hi_k, w2) = compose_side(lo, reports, upper=False), compose_side(hi, reports, upper=True)
    points = max(len(lo_k.masses), len(hi_k.masses))
    return side_delta(lo_k, grid, eps, upper=False), side_delta(hi_k, grid, eps, upper=True), grid, points, w1 + w2


def view_bounds(classes, reports: int, epsilon, step: float | None = None) -> DeltaBounds:
    """max over pair classes of each class's bounds: bounds on the K-fold view's δ(ε)."""
    eps = _epsilon_box(epsilon)
    best_lo, best_hi, pairs, points, work, grid, grids = 0.0, -1.0, (), 0, 0, None, []
    for c in classes:
        lo, hi, g, n, w = class_bounds(c.pld, reports, eps, step)
        best_lo = max(best_lo, lo)
        if hi > best_hi:
            best_hi, pairs, grid = hi, tuple(c.pairs), g
        points, work = max(points, n), work + w
        grids.append(g)
    return DeltaBounds(epsilon, best_lo, best_hi, grid, points, reports, pairs, work, tuple(dict.fromkeys(grids)))
