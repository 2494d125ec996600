"""Privacy amplification by shuffling: the central (ε, δ) of the shuffled reports of n users.

Three numbers, reported together so the gap between them is visible:

* the **generic clone bound** of Feldman, McMillan & Talwar ("Hiding among the clones", FOCS
  2021), from ε0 alone: every ε0-LDP channel has Q(·|x) >= p (Q(·|x0) + Q(·|x1)) for all x with
  p = e^-ε0 / 2, and any ε0-close pair is Q(·|x0) = α W0 + (1-α) W1, Q(·|x1) = (1-α) W0 + α W1
  with α = e^ε0/(e^ε0+1). Each other user is then a clone labelled 0 or 1 with probability p
  each (the rest is revealed to the analyst, which only helps it), and the shuffled view is a
  post-processing of the counts (A + Δ, C - A + 1 - Δ): C ~ Bin(n-1, 2p), A ~ Bin(C, 1/2),
  Δ ~ Bern(α) under x0 and Bern(1 - α) under x1. δ(ε) is the hockey-stick divergence of that
  pair, computed per value of C (observable: it is the sum of the counts) and summed;
* the **channel clone bound**: the same reduction with the largest p the channel itself admits,
  p* = min over x0 != x1, x, y of Q(y|x) / (Q(y|x0) + Q(y|x1)) (exact, from the materialized
  channel), and ε0 its tight ε. For k-RR p* = 1/(e^ε0+1), the clone count of Feldman, McMillan &
  Talwar's SODA 2023 "stronger clone" analysis; their errata restricts that count to the
  randomizers that admit it, which is exactly what p* checks instead of assuming;
* at small n, the **exact** δ(ε) of the shuffled mechanism: the hockey-stick divergence between
  the two multinomial output histograms, maximized over every pair (x0, x1) and every multiset
  of the other n-1 users' inputs, by enumeration (exact rationals when the channel is rational);
* a **lower bound** at any n: one dataset (others all at x1) and one statistic (the count of
  the output y that separates x0 from x1 most), a post-processing of the view, so its δ(ε) is
  below the true one.

Numerical control. The clone divergences are computed in float64 from binomial tails
(``scipy.special.betainc``, Boost's incomplete beta: cephes' ``bdtrc`` is off
by 3e-3 relative near the median at n = 10^7): each tail term is charged a relative error of
:data:`FLOAT_SLACK` (a stated allowance, far above the few ulps the incomplete beta loses), the
threshold set is taken as the best of the three integer cut points around the float threshold
(each is a valid event, so the best is never above the true divergence and equals it when the
float threshold is off by at most one), and the mass of C outside the summed window is added
whole (as if those C leaked everything). The ε reported is a root of δ_upper(ε) = δ (Brent) moved up
until the check δ_upper(ε) <= δ passes at that very point: a true upper bound up to the stated float allowance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations_with_replacement

import numpy as np

from ldpaudit.errors import InvalidParameter, NotMaterializable

#: relative error charged to every binomial tail computed in floats (see module doc)
FLOAT_SLACK = 1e-10
#: the summed window of C leaves out at most this fraction of δ (added back whole)
TAIL_SHARE = 1e-6
#: relative tolerance of the root search for ε (the reported point is then checked)
ROOT_RTOL = 1e-12
#: the exact small-n enumeration gives up beyond this many (histogram, dataset) terms
EXACT_WORK = 400_000


#: the most users the bounds are computed for: the clone bound's binomial window grows like √n
#: (about 40 CPU s at 10^9 users, minutes and gigabytes at 10^12)
MAX_USERS = 10**9


def check_inputs(n, delta) -> tuple[int, float]:
    """n and δ as the computations take them; one-line errors naming the field and the fix."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise InvalidParameter(f"--n {n!r} is not an integer; give the number of users, e.g. --n 1000000")
    if n < 2:
        raise InvalidParameter(f"--n {n} is below 2; shuffling needs at least two users (e.g. --n 1000)")
    if n > MAX_USERS:
        shown = str(n) if n < 10**30 else f"of {len(str(n))} digits"
        raise InvalidParameter(f"--n {shown} is above 10^9, the most users the shuffle bounds are computed for (their "
                               f"work grows like √n); give at most --n 1e9")
    d = float(delta)
    if not 0 < d < 1:
        raise InvalidParameter(f"--delta {delta} is outside (0, 1); give a probability such as 1e-8")
    return int(n), d


# --- the clone pair ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ClonePair:
    """The pair (A + Δ, C - A + 1 - Δ) of the clone reduction for n users: others are clones
    with probability ``clone`` (= 2p), the target's bit has bias ``alpha``."""

    n: int
    epsilon0: float
    clone: float
    alpha: float = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "alpha", 1.0 / (1.0 + math.exp(-self.epsilon0)))


def _binom_window(n: int, p: float, tail: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Values c of Bin(n, p) with their pmf, and an upper bound on the mass left out (the
    Chernoff window of :func:`ldpaudit.account.binomials.chernoff_window`: at most ``tail``)."""
    from ldpaudit.account import binomials as bn

    if p >= 1.0:
        return np.array([n]), np.array([1.0]), 0.0
    if p <= 0.0:
        return np.array([0]), np.array([1.0]), 0.0
    lo, hi = bn.chernoff_window(n, p, tail)
    cs = np.arange(lo, hi + 1)
    w = bn.pmf(cs, n, p)
    return cs, w, tail * (1 + FLOAT_SLACK) + FLOAT_SLACK * float(w.sum())


class CloneDivergence:
    """δ_upper(ε) of a :class:`ClonePair`, with the window of C computed once."""

    def __init__(self, pair: ClonePair, delta_target: float):
        self.pair = pair
        self.cs, self.w, self.tail = _binom_window(pair.n - 1, pair.clone, TAIL_SHARE * delta_target)

    def delta(self, epsilon: float) -> float:
        """An upper bound on D_{e^ε}(P || Q) (= D_{e^ε}(Q || P) by the symmetry a -> c + 1 - a)."""
        a = self.pair.alpha
        t = math.exp(epsilon)
        lead = a - t * (1 - a)  # coefficient of P(Bin(c,1/2) >= k - 1)
        if lead <= 0:  # ε >= ε0: the pair is ε-indistinguishable (up to the slack)
            return self.tail
        back = t * a - (1 - a)  # coefficient of P(Bin(c,1/2) >= k)
        r = back / lead
        beta = r / (1 + r)
        c = self.cs.astype(float)
        k0 = np.floor(beta * (c + 1)) + 1
        best = np.zeros_like(c)
        tails = _sf_steps(k0, c)  # P(Bin > k0-3), ..., P(Bin > k0)
        for s2, s1 in zip(tails, tails[1:]):  # the cut points k0 - 1, k0, k0 + 1
            value = lead * s2 - back * s1 + FLOAT_SLACK * (lead * s2 + back * s1)
            best = np.maximum(best, value)
        return float(np.dot(self.w, best)) * (1 + FLOAT_SLACK) + self.tail

    def epsilon(self, delta: float) -> float:
        """The smallest ε (to :data:`ROOT_RTOL`, from above) with delta(ε) <= δ, checked there."""
        hi = self.pair.epsilon0
        d_hi = self.delta(hi)
        if d_hi > delta:
            return math.inf  # the float allowance alone exceeds δ: nothing rigorous to report
        d_lo = self.delta(0.0)
        if d_lo <= delta:
            return 0.0
        root = _root(lambda e: self.delta(e) - delta, 0.0, hi, d_lo - delta, d_hi - delta)
        step = max(ROOT_RTOL * root, 1e-15)
        while self.delta(root) > delta:  # only a point that passed the check is reported
            root = min(root + step, hi)
            step *= 2
        return root


def _root(f, lo: float, hi: float, f_lo: float | None = None, f_hi: float | None = None) -> float:
    """A root of the decreasing f on [lo, hi] (f(lo) > 0 >= f(hi)) to :data:`ROOT_RTOL`, by
    Brent's method (Brent 1973, "Algorithms for minimization without derivatives", ch. 4:
    inverse quadratic interpolation guarded by bisection); the caller checks f <= 0 at the
    point it reports. The bracket's upper end is returned."""
    a, b = lo, hi
    fa = f(a) if f_lo is None else f_lo
    fb = f(b) if f_hi is None else f_hi
    c, fc = a, fa
    d = e = b - a
    for _ in range(200):
        if fb * fc > 0:
            c, fc = a, fa
            d = e = b - a
        if abs(fc) < abs(fb):
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tol = 2e-16 * abs(b) + 0.5 * max(ROOT_RTOL * abs(b), 1e-15)
        m = 0.5 * (c - b)
        if abs(m) <= tol or fb == 0:
            break
        if abs(e) >= tol and abs(fa) > abs(fb):
            s = fb / fa
            if a == c:
                p, q = 2 * m * s, 1 - s
            else:
                q, r = fa / fc, fb / fc
                p = s * (2 * m * q * (q - r) - (b - a) * (r - 1))
                q = (q - 1) * (r - 1) * (s - 1)
            if p > 0:
                q = -q
            p = abs(p)
            if 2 * p < min(3 * m * q - abs(tol * q), abs(e * q)):
                e, d = d, p / q
            else:
                d = e = m
        else:
            d = e = m
        a, fa = b, fb
        b = b + (d if abs(d) > tol else (tol if m > 0 else -tol))
        fb = f(b)
    # the end of the final bracket where f <= 0
    return b if fb <= 0 else c


def _sf_steps(k0: np.ndarray, c: np.ndarray) -> list:
    """[P(Bin(c, 1/2) > k0 + s) for s = -3, -2, -1, 0]: one incomplete beta, then
    P(Bin > j - 1) = P(Bin > j) + P(Bin = j) with Loader's pmf (each term within the
    relative error :data:`FLOAT_SLACK` charged to it, like the incomplete beta)."""
    from ldpaudit.account import binomials as bn

    out = [_sf(k0, c)]
    # P(Bin(c, 1/2) = k - 1) = P(Bin = k) k / (c - k + 1): two steps down from one Loader pmf
    pmf = bn.pmf(k0, c, 0.5)
    for shift in (0, -1, -2):
        out.append(np.minimum(out[-1] + pmf, 1.0))
        k = k0 + shift
        inside = (k >= 1) & (k <= c)
        with np.errstate(divide="ignore", invalid="ignore"):
            pmf = np.where(inside, pmf * k / (c - k + 1), 0.0)
        edge = ~inside & (k - 1 >= 0) & (k - 1 <= c)   # k = c + 1: P(Bin = c) directly
        if edge.any():
            pmf = np.where(edge, bn.pmf(k - 1, c, 0.5), pmf)
    return out[::-1]


def _sf(j: np.ndarray, c: np.ndarray) -> np.ndarray:
    """P(Bin(c, 1/2) > j), exact at the edges (1 below 0, 0 from c on)."""
    from scipy import special

    jj = np.clip(j, 0, np.maximum(c - 1, 0))
    with np.errstate(invalid="ignore"):
        inner = special.betainc(jj + 1, np.maximum(c - jj, 1), 0.5)
    return np.where(j < 0, 1.0, np.where(j >= c, 0.0, inner))


def generic_epsilon(epsilon0: float, n: int, delta: float) -> float:
    """Feldman, McMillan & Talwar (FOCS 2021) numerical bound for any ε0-LDP randomizer:
    clones with probability e^-ε0 (C ~ Bin(n-1, e^-ε0))."""
    n, delta = check_inputs(n, delta)
    eps0 = float(epsilon0)
    return clone_epsilon(eps0, n, delta, math.exp(-eps0))


#: above this local ε0 the clone bound is not computed (e^ε of the search overflows a float)
LARGE_EPSILON0 = 700.0


def clone_epsilon(epsilon0: float, n: int, delta: float, clone: float) -> float:
    """The clone-reduction ε at δ for n users, target bias ε0 and clone probability ``clone``."""
    if epsilon0 <= 0:
        return 0.0
    if epsilon0 > LARGE_EPSILON0:  # e^ε overflows a float: no amplification computed, and the
        return float(epsilon0)    # local ε0 bounds the shuffled output (post-processing)
    return CloneDivergence(ClonePair(n, float(epsilon0), min(1.0, float(clone))), delta).epsilon(delta)


# --- what the channel admits ------------------------------------------------------------------


@dataclass(frozen=True)
class ChannelFacts:
    """Exact facts of a finite channel the shuffle bounds use."""

    name: str
    inputs: tuple
    outputs: tuple
    rows: list  # exact rows (Fraction or sympy numbers)
    epsilon0: float  # tight LDP ε of the channel (max log-ratio), float
    epsilon0_exact: str
    clone_p: Fraction | object  # p* (exact)
    clone_p_float: float
    rational: bool


def channel_facts(mech) -> ChannelFacts:
    """Materialize a numeric finite mechanism and compute its tight ε0 and clone parameter p*
    exactly (rationals when the channel is rational, sympy numbers otherwise)."""
    import sympy as sp

    if mech.parameters:
        raise InvalidParameter(
            f"amplify needs numeric parameters; bind {', '.join(mech.parameter_names)} "
            f"(e.g. -p {mech.parameter_names[0]}=...)"
        )
    try:
        ch = mech.materialize()
    except NotMaterializable as exc:
        raise InvalidParameter(f"amplify needs a finite channel: {exc}") from None
    rational = all(e.is_Rational for row in ch.matrix for e in row)
    if rational:
        rows = [[Fraction(int(e.p), int(e.q)) for e in row] for row in ch.matrix]
    else:
        rows = [[sp.nsimplify(e) if e.is_Rational else e for e in row] for row in ch.matrix]
    cols = list(zip(*rows))
    num = _numeric(rows, rational)
    # tight ε0: max over y of max_x Q / min_x Q
    best_ratio, where = None, None
    for j, col in enumerate(zip(*num)):
        lo, hi = min(col), max(col)
        if lo == 0:
            if hi > 0:
                raise InvalidParameter(
                    f"channel '{mech.name}' is not ε-LDP for any finite ε (output {ch.outputs[j]!r} has "
                    f"probability 0 under some input); shuffle bounds here need a pure-LDP channel")
            continue
        ratio = hi / lo
        if best_ratio is None or ratio > best_ratio:
            best_ratio, where = ratio, j
    # p* = min over columns of min_x Q / (two largest entries) — the pair x0, x1 maximizing the
    # denominator in that column gives the minimum
    best_p, best_p_float = None, None
    for j in range(len(cols)):
        col = cols[j]
        ncol = [num[i][j] for i in range(len(num))]
        if max(ncol) == 0:
            continue
        order = sorted(range(len(ncol)), key=lambda i: ncol[i], reverse=True)
        i0, i1 = order[0], order[1]
        imin = order[-1]
        value = col[imin] / (col[i0] + col[i1])
        fvalue = ncol[imin] / (ncol[i0] + ncol[i1])
        if best_p_float is None or fvalue < best_p_float:
            best_p, best_p_float = value, fvalue
    if not rational:
        best_p = sp.simplify(best_p)
    if rational:
        eps_exact = f"log({Fraction(max(c for c in cols[where])) / min(c for c in cols[where])})"
    else:
        column = cols[where]
        fcol = [num[i][where] for i in range(len(num))]
        top = column[max(range(len(fcol)), key=lambda i: fcol[i])]
        bottom = column[min(range(len(fcol)), key=lambda i: fcol[i])]
        eps_exact = str(sp.simplify(sp.log(top / bottom)))
    return ChannelFacts(
        name=mech.name, inputs=tuple(ch.inputs), outputs=tuple(ch.outputs), rows=rows,
        epsilon0=_log_ratio(best_ratio) if best_ratio else 0.0, epsilon0_exact=eps_exact,
        clone_p=best_p, clone_p_float=_lower_float(best_p, rational, best_p_float), rational=rational,
    )


def _log_ratio(ratio) -> float:
    """log of a ratio past the float range too (e^1000: an exact Fraction, or a 40-digit mpf)."""
    if isinstance(ratio, Fraction):
        return math.log(ratio.numerator) - math.log(ratio.denominator)
    import mpmath

    return float(mpmath.log(ratio))


def _numeric(rows, rational: bool):
    """High-precision values of the rows (mpmath, 40 digits) for comparisons; exact if rational."""
    if rational:
        return rows
    import mpmath

    with mpmath.workdps(40):
        return [[mpmath.mpf(str(e.evalf(40))) for e in row] for row in rows]


def _lower_float(value, rational: bool, approx) -> float:
    """A float at most ``value`` (p* enters the bound as a clone probability: smaller is safe)."""
    f = float(approx)
    return float(np.nextafter(f, 0.0)) if f > 0 else 0.0


def channel_epsilon(facts: ChannelFacts, n: int, delta: float) -> float:
    """The clone bound with the channel's own p* and tight ε0 (never below e^-ε0/2 for an
    ε0-LDP channel, so never worse than the generic bound's clone count)."""
    eps0_up = float(np.nextafter(facts.epsilon0, math.inf))  # a larger ε0 is safe
    return clone_epsilon(eps0_up, n, delta, 2 * facts.clone_p_float)


# --- lower bounds -----------------------------------------------------------------------------


def projection_lower(facts: ChannelFacts, n: int, delta: float) -> tuple[float, dict]:
    """A lower bound on the shuffled ε at δ: the dataset (x0, x1, ..., x1) vs (x1, ..., x1),
    seen only through the count N of one output y (post-processing of the shuffled view).
    Under the first N = Bern(Q(y|x0)) + Bin(n-1, Q(y|x1)), under the second Bin(n, Q(y|x1));
    (x0, x1, y) maximize Q(y|x0)/Q(y|x1). Floats: every δ is charged -FLOAT_SLACK (so the ε
    returned is below the one of the pair)."""
    num = _numeric(facts.rows, facts.rational)
    best = None
    for j in range(len(facts.outputs)):
        col = [float(num[i][j]) for i in range(len(num))]
        i0 = max(range(len(col)), key=lambda i: col[i])
        i1 = min(range(len(col)), key=lambda i: col[i])
        if col[i1] <= 0:
            continue
        key = col[i0] / col[i1]
        if best is None or key > best[0]:
            best = (key, i0, i1, j)
    if best is None:  # every output is impossible under some input, in floats (ε0 past 709): no count bound
        return 0.0, {"x0": _plain(facts.inputs[0]), "x1": _plain(facts.inputs[-1]), "y": None,
                     "dataset": "none: every output's smallest probability is 0 in floats; the trivial bound 0"}
    _, i0, i1, j = best
    eps = count_epsilon(float(num[i0][j]), float(num[i1][j]), n, delta)
    where = {"x0": _plain(facts.inputs[i0]), "x1": _plain(facts.inputs[i1]), "y": _plain(facts.outputs[j]),
             "dataset": "target at x0 or x1, the other n-1 users at x1; statistic: the count of y"}
    return eps, where


def count_epsilon(q0: float, q1: float, n: int, delta: float) -> float:
    """A lower bound on the ε at δ of the pair N = Bern(q0) + Bin(n-1, q1) vs Bin(n, q1) (the
    count of one output when the target moves from x1 to x0 and the n - 1 others stay at x1),
    both directions; a post-processing of the shuffled view, so a lower bound on its ε.
    Floats: every δ is charged -FLOAT_SLACK (1 + e^ε), the bisection keeps its lower end."""
    from ldpaudit.account import binomials as bn

    lo, hi = bn.chernoff_window(n - 1, q1, 1e-4 * delta)
    lo, hi = max(0, lo - 2), min(n, hi + 2)
    k = np.arange(lo, hi + 1)
    base = bn.pmf(k, n - 1, q1)
    prev = bn.pmf(k - 1, n - 1, q1)
    p_law = q0 * prev + (1 - q0) * base
    q_law = q1 * prev + (1 - q1) * base

    def dfun(eps):
        t = math.exp(eps)
        one = np.clip(p_law - t * q_law, 0, None).sum()
        two = np.clip(q_law - t * p_law, 0, None).sum()
        return max(one, two) - FLOAT_SLACK * (1 + t)

    if dfun(0.0) <= delta:
        return 0.0
    lo_e, hi_e = 0.0, max(math.log(max(q0 / q1, (1 - q1) / max(1 - q0, 1e-300))), 1e-12)
    while hi_e - lo_e > 1e-12:
        mid = 0.5 * (lo_e + hi_e)
        if dfun(mid) > delta:
            lo_e = mid
        else:
            hi_e = mid
    return lo_e


def _plain(value):
    return value if isinstance(value, (int, str)) else repr(value)


# --- exact small n ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ExactShuffle:
    """The exact ε at δ of n shuffled reports, over every pair and every other-users' dataset."""

    epsilon: float
    epsilon_exact: str  # "log(r)" for a rational channel; a decimal otherwise
    exact: bool  # rational arithmetic (True) or 40-digit mpmath (False)
    x0: object
    x1: object
    others: tuple  # the other users' inputs at the worst dataset
    datasets: int  # how many (pair, others) were enumerated


def exact_work(facts: ChannelFacts, n: int) -> int:
    """The number of (histogram, dataset) terms the exact enumeration would visit."""
    d, m = len(facts.inputs), len(facts.outputs)
    hists = math.comb(n + m - 1, m - 1)
    others = math.comb(n - 1 + d - 1, d - 1)
    return hists * others * d * (d - 1)


def exact_small_n(facts: ChannelFacts, n: int, delta) -> ExactShuffle:
    """The exact worst-case ε at δ of the shuffled mechanism with n users, by enumeration of
    the output histograms. δ(ε) = max over (x0, x1, others) of sum_h (P(h) - e^ε Q(h))_+, and for
    each dataset the ε with δ(ε) = δ is log((P(S) - δ)/Q(S)) on the threshold set S where it
    falls (the curve is piecewise in e^ε between sorted likelihood ratios)."""
    n, _ = check_inputs(n, float(delta))
    work = exact_work(facts, n)
    if work > EXACT_WORK:
        largest = next((m for m in range(n - 1, 1, -1) if exact_work(facts, m) <= EXACT_WORK), None)
        within = f"--n {largest} or less" if largest else "a smaller channel"
        raise InvalidParameter(
            f"--exact: the exact shuffle enumeration at n={n} needs {work:,} terms (over {EXACT_WORK:,}); give "
            f"{within}, or drop --exact (the bounds need no enumeration)")
    exact = facts.rational
    target = Fraction(str(delta)) if exact else None
    if exact:
        rows, dval = facts.rows, target
    else:
        import mpmath

        mpmath.mp.dps = 40
        rows = _numeric(facts.rows, False)
        dval = mpmath.mpf(str(delta))
    d = len(rows)
    best = None
    count = 0
    for others in combinations_with_replacement(range(d), n - 1):
        base = {(0,) * len(rows[0]): Fraction(1) if exact else 1}
        for x in others:
            base = _add_user(base, rows[x])
        for i0 in range(d):
            pa = _add_user(base, rows[i0])
            for i1 in range(d):
                if i1 == i0:
                    continue
                count += 1
                pb = _add_user(base, rows[i1])
                ratio_value = _epsilon_at(pa, pb, dval, exact)
                if best is None or ratio_value[0] > best[0][0]:
                    best = (ratio_value, i0, i1, others)
    (value_t, _), i0, i1, others = best
    if exact:
        eps = math.log(value_t) if value_t > 0 else 0.0
        text = f"log({value_t})" if value_t > 1 else "0"
    else:
        import mpmath

        eps = float(mpmath.log(value_t)) if value_t > 1 else 0.0
        text = mpmath.nstr(mpmath.log(value_t), 20) if value_t > 1 else "0"
    return ExactShuffle(eps, text, exact, facts.inputs[i0], facts.inputs[i1],
                        tuple(facts.inputs[x] for x in others), count)


def _add_user(hist: dict, row) -> dict:
    out: dict = {}
    for h, ph in hist.items():
        for j, q in enumerate(row):
            if q == 0:
                continue
            g = h[:j] + (h[j] + 1,) + h[j + 1:]
            out[g] = out.get(g, 0) + ph * q
    return out


def _epsilon_at(pa: dict, pb: dict, delta, exact: bool):
    """(t, set size): the smallest t = e^ε >= 1 with sum_h (P(h) - t Q(h))_+ <= δ."""
    keys = set(pa) | set(pb)
    zero = Fraction(0) if exact else 0
    items = []
    p_only = zero  # mass of P where Q = 0: leaks at every ε
    for h in keys:
        p, q = pa.get(h, zero), pb.get(h, zero)
        if q == 0:
            p_only += p
            continue
        if p > q:
            items.append((p / q, p, q))
    if p_only > delta:
        return (float("inf") if not exact else Fraction(10**30), 0)
    items.sort(key=lambda r: r[0], reverse=True)
    ps, qs = p_only, zero
    # at t = ratio of item k (k = 0..): δ(t) = sum over the first k items (ratio > t) of p - t q
    for k, (ratio, p, q) in enumerate(items):
        value = ps - ratio * qs
        if value > delta:  # the root lies above this ratio, on the set of the first k items
            return ((ps - delta) / qs, k)
        ps += p
        qs += q
    one = 1 if not exact else Fraction(1)
    if ps - qs > delta:  # between ratio 1 and the last ratio
        return ((ps - delta) / qs, len(items))
    return (one, len(items))
