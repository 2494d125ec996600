"""The privacy-blanket bound of a finite channel after shuffling (issue 18, item 3b).

n users apply the same finite ε0-LDP channel Q(y|x); the analyst sees the multiset of reports.
Neighbouring datasets differ in one user's input (x vs x'); the others' inputs are arbitrary.

Balle, Bell, Gascón & Nissim ("The privacy blanket of the shuffle model", CRYPTO 2019): with
ω(y) = min_z Q(y|z), every report is, with probability γ = Σ ω, a draw from ω/γ whatever the
input. Revealing which other users' reports came from the rest, and those reports, can only help
the analyst, so with Z_1..Z_n i.i.d. over Y ∪ {⊥}, P(Z = y) = ω(y), P(Z = ⊥) = 1 - γ,

    D_{e^ε}(view(x) || view(x')) <= (1/n) E[(Σ_j l(Z_j))_+],
    l(y) = (Q(y|x) - e^ε Q(y|x'))/ω(y),  l(⊥) = 0

(the likelihood ratio of the multiset h is Σ_y h_y Q(y|x)/ω(y) over the same with x'). Su,
Cheng & Wang (arXiv 2504.07414, 2025) show this decomposition is the optimal one among all
clone/blanket decompositions, so it is never weaker than a clone bound valid for the channel.

Computation: outputs with equal (a, b) = (Q(y|x)/ω(y), Q(y|x')/ω(y)) form a class; class counts
are multinomial. Up to three classes the expectation is summed exactly: the first classes over
Chernoff windows of their counts (sequential conditional binomials), the last in closed form by
binomial tails, E[(t + vB)_+] for B ~ Bin(M, ρ). Grid points whose whole contribution is
provably below a budget (t · P(B <= t/|v|) with B at its smallest trial count) are skipped and
the budget is added. More classes, or grids over :data:`MAX_POINTS`, are reduced pessimistically:
two classes merged take the larger a and the smaller b; a class with a <= b may become ⊥ (l can
only grow, so the bound stays valid). Every reduction tried is a valid bound; the best is kept.

Numerical control: a rounded up, b rounded down from 40-digit values, l = a - e^ε b rounded up;
the class probabilities' float rounding is charged as a total variation n Σ|Δπ| times the
largest l (a user-by-user coupling of the two count laws); the mass outside the windows is
added times the largest l (S <= n max l); each binomial pmf/tail carries the relative error
budget :data:`ldpaudit.account.binomials.REL_ERR` (positive parts up, negative down). ε is the
upper end of the final bracket, where D <= δ was evaluated. Assumed, not proved: that Loader's
pmf and Boost's incomplete beta are within that budget (tests check them against exact
rationals).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ldpaudit.account import binomials as bn
from ldpaudit.errors import InvalidParameter, NotDerivable

#: the most grid points summed per evaluation of D(ε) for three classes (about 1 s each)
MAX_POINTS = 1_500_000
#: relative width of the final ε bracket (its upper end is returned: a wider bracket costs
#: tightness, never validity)
EPS_RTOL = 1e-7
#: the share of δ spent on windows and skipped grid points (added to D, so still rigorous)
BUDGET_SHARE = 1e-4


# --- the channel as numbers ------------------------------------------------------------------


@dataclass(frozen=True)
class ChannelNumbers:
    """A bound finite channel: entries to 40 digits (mpmath) and, when every entry is rational,
    exactly (Fractions). Rows are inputs, columns outputs (all-zero columns dropped)."""

    name: str
    inputs: tuple
    outputs: tuple
    rows: tuple            # tuple of tuples of mpmath mpf
    exact: tuple | None    # tuple of tuples of Fraction, or None
    bindings: dict = field(default_factory=dict)

    @property
    def k(self) -> int:
        return len(self.rows)

    @property
    def m(self) -> int:
        return len(self.outputs)


def channel_numbers(mech) -> ChannelNumbers:
    """The channel of a mechanism bound to numbers (``load_bound(spec, ["d=8", ...])``)."""
    import mpmath
    import sympy as sp

    from ldpaudit.errors import NotMaterializable

    if mech.parameters:
        free = ", ".join(mech.parameter_names)
        raise InvalidParameter(f"{mech.name}: parameters {free} are free; bind them with -p "
                               f"(e.g. -p {mech.parameter_names[0]}=...): shuffling bounds need numbers")
    try:
        ch = mech.materialize()
    except NotMaterializable as exc:
        raise NotDerivable(f"{mech.name}: shuffling bounds need a finite channel; {exc}") from None
    mpmath.mp.dps = 40
    rows, exact, rational = [], [], True
    for row in ch.matrix:
        r_mp, r_ex = [], []
        for e in row:
            e = sp.sympify(e)
            if e.is_Rational:
                r_ex.append(Fraction(int(e.p), int(e.q)))
                r_mp.append(mpmath.mpf(int(e.p)) / int(e.q))
            else:
                rational = False
                r_mp.append(mpmath.mpf(str(sp.N(e, 45))))
        rows.append(r_mp)
        exact.append(r_ex)
    keep = [j for j in range(len(ch.outputs)) if any(r[j] > 0 for r in rows)]
    return ChannelNumbers(mech.name, tuple(ch.inputs), tuple(ch.outputs[j] for j in keep),
                          tuple(tuple(r[j] for j in keep) for r in rows),
                          tuple(tuple(r[j] for j in keep) for r in exact) if rational else None,
                          {k: str(v) for k, v in mech.bindings})


def local_epsilon(ch: ChannelNumbers) -> float:
    """The tight ε0 = max over outputs and input pairs of ln(Q(y|x)/Q(y|x')), a float rounded
    up; inf when an output has probability 0 under some inputs only."""
    import mpmath

    worst = mpmath.mpf(0)
    for j in range(ch.m):
        col = [r[j] for r in ch.rows]
        if min(col) == 0:
            return math.inf
        worst = max(worst, mpmath.log(max(col) / min(col)))
    return _up(worst)


def _up(x) -> float:
    f = float(x)
    return f if f >= x else math.nextafter(f, math.inf)


def _down(x) -> float:
    f = float(x)
    return f if f <= x else math.nextafter(f, -math.inf)


def check_inputs(n, delta) -> None:
    """One-line errors naming the field, the value and the fix."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise InvalidParameter(f"--n {n!r} is not an integer; give the number of users, e.g. --n 1000000")
    if n < 2:
        raise InvalidParameter(f"--n {n} is below 2; shuffling needs at least two users (e.g. --n 1000)")
    if not 0 < float(delta) < 1:
        raise InvalidParameter(f"--delta {delta} is outside (0, 1); give a probability such as 1e-8")


# --- search on ε ------------------------------------------------------------------------------


class Work:
    """A budget of divergence evaluations counted in grid points (the work each one does), never
    in seconds: where a search stops, and so the ε it shows, is the same on any machine."""

    def __init__(self, limit: int | None):
        self.limit, self.spent = limit, 0

    def allows(self, cost: int) -> bool:
        return self.limit is None or self.spent + cost <= self.limit

    def spend(self, cost: int) -> None:
        self.spent += cost


def evaluation_cost(divergence) -> int:
    """Grid points one evaluation of ``divergence`` sums (1 for a closed form)."""
    points = getattr(divergence, "points", None)
    return max(1, points()) if callable(points) else 1


def smallest_epsilon(divergence, delta: float, upper: float,
                     work: Work | None = None, rtol: float = EPS_RTOL,
                     lower: float = 0.0) -> tuple[float, int, bool]:
    """The smallest ε in [lower, upper] (to ``rtol``, relative) with divergence(ε) <= δ (``lower``
    known to have divergence > δ, or 0), for a certified
    (upper-bound) divergence non-increasing in ε. Regula falsi on log D with
    the Illinois rule, a bisection step every eighth; (ε, evaluations, whether the bracket
    closed within the ``work`` budget, if any). The bracket keeps D(lo) > δ >= D(hi) and
    its upper end is returned (ε = upper is valid by the caller's assumption). An evaluation
    may return inf (not computed): it counts as D > δ, so it can cost tightness, never validity."""
    lo, hi = lower, upper
    dlo = math.inf     # D(lower) is not evaluated (the costliest point): treated as > δ
    dhi = divergence(upper)
    calls, side, converged = 1, 0, True
    cost = evaluation_cost(divergence)   # an evaluation the budget cannot pay for is not started
    while hi - lo > rtol * max(hi, 1e-12) and calls < 200:
        if work is not None and not work.allows(cost):
            converged = False
            break   # hi is still shown: D(hi) <= δ
        if 0 < dhi and math.isfinite(dlo) and calls % 8 != 0:
            flo, fhi = math.log(dlo / delta), math.log(dhi / delta)
            if side == 2:
                fhi /= 2
            elif side == -2:
                flo /= 2
            mid = lo + (hi - lo) * min(max(flo / (flo - fhi), 1e-3), 1 - 1e-3)
        else:
            mid = 0.5 * (lo + hi)
        d = divergence(mid)
        if work is not None:
            work.spend(cost)
        calls += 1
        if d <= delta:
            hi, dhi = mid, d
            side = -2 if side < 0 else -1
        else:
            lo, dlo = mid, d
            side = 2 if side > 0 else 1
    return hi, calls, converged and hi - lo <= rtol * max(hi, 1e-12)


# --- classes ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Classes:
    """The blanket view of one ordered pair (x, x'): classes of outputs with outward-rounded
    (a, b) = (Q(y|x)/ω(y), Q(y|x')/ω(y)) and probability Σ ω(y); the rest, 1 - Σ ω, is ⊥."""

    a: tuple
    b: tuple
    prob: tuple
    pair: tuple
    merged: bool = False
    #: Σ |prob (float) - the exact class probability|: the class-count law used is within
    #: n · prob_err in total variation of the true one (a coupling, user by user)
    prob_err: float = 0.0

    def key(self):
        return tuple(sorted(zip(self.a, self.b, self.prob)))


def blanket_omega(ch: ChannelNumbers) -> tuple:
    """ω(y) = min over inputs of Q(y|x), per output (40-digit values)."""
    return tuple(min(r[col] for r in ch.rows) for col in range(ch.m))


def blanket_classes(ch: ChannelNumbers, i: int, j: int, omegas: tuple | None = None) -> Classes:
    """The classes of the ordered pair (inputs[i], inputs[j]) (``omegas``: from
    :func:`blanket_omega`, computed once per channel)."""
    groups: dict = {}
    omegas = blanket_omega(ch) if omegas is None else omegas
    seen: dict = {}   # (Q(y|x), Q(y|x'), ω) -> (a, b): many outputs share their entries
    for col in range(ch.m):
        omega = omegas[col]
        if omega == 0:
            raise NotDerivable(f"output {ch.outputs[col]!r} has probability 0 under some inputs but not all: "
                               "the channel is not pure LDP and has no privacy blanket on that output")
        entries = (ch.rows[i][col], ch.rows[j][col], omega)
        key = seen.get(entries)
        if key is None:
            key = seen[entries] = (_up(entries[0] / omega), _down(entries[1] / omega))
        groups[key] = groups.get(key, 0) + omega
    keys = sorted(groups)
    probs = tuple(float(groups[k]) for k in keys)
    err = float(sum(abs(groups[k] - p) for k, p in zip(keys, probs)))
    return Classes(tuple(k[0] for k in keys), tuple(k[1] for k in keys), probs, (ch.inputs[i], ch.inputs[j]),
                   prob_err=_up(err * (1 + 1e-6)) + 1e-300)


def _merge(cl: Classes, s: int, t: int, target: tuple | None = None) -> Classes:
    """Classes s and t as one class with values ``target`` (default: the larger a, the smaller b)."""
    keep = [r for r in range(len(cl.a)) if r not in (s, t)]
    a, b = target if target is not None else (max(cl.a[s], cl.a[t]), min(cl.b[s], cl.b[t]))
    return Classes(tuple([cl.a[r] for r in keep] + [a]), tuple([cl.b[r] for r in keep] + [b]),
                   tuple([cl.prob[r] for r in keep] + [cl.prob[s] + cl.prob[t]]), cl.pair, True,
                   cl.prob_err + 2.3e-16 * (cl.prob[s] + cl.prob[t]))


def _drop(cl: Classes, s: int) -> Classes:
    keep = [r for r in range(len(cl.a)) if r != s]
    return Classes(tuple(cl.a[r] for r in keep), tuple(cl.b[r] for r in keep),
                   tuple(cl.prob[r] for r in keep), cl.pair, True, cl.prob_err)


def _raises_l(target: tuple, a: float, b: float, e_max: float) -> bool:
    """Does a class with values ``target`` have l = a' - e^ε b' >= a - e^ε b for every ε in
    [0, ln e_max]? (linear in e^ε: checked at both ends, exactly on the floats)."""
    da, db = Fraction(target[0]) - Fraction(a), Fraction(target[1]) - Fraction(b)
    if math.isinf(e_max):   # every ε >= 0
        return da >= db and db <= 0
    return da >= db and da >= Fraction(e_max) * db


def _damage(cl: Classes, s: int, target: tuple) -> float:
    """How much a class moved to ``target`` raises l at ε = 0, weighted by its probability."""
    return cl.prob[s] * ((target[0] - cl.a[s]) - (target[1] - cl.b[s]))


def reductions(cl: Classes, classes: int, e_max: float = math.inf) -> list[Classes]:
    """Pessimistic reductions of ``cl`` to at most ``classes`` classes, valid for ε in
    [0, ln e_max]: every drop to ⊥ (l = 0) of a class with a <= b, every merge of two classes
    into (the larger a, the smaller b), and every merge into the values of one of the two
    when that raises the other's l on the whole range (e.g. (e, e) into (1, 1)). Beyond one
    step only the two options that raise l least (at ε = 0) are followed."""
    if len(cl.a) <= classes:
        return [cl]
    r = len(cl.a)
    options = [(cl.prob[s] * (cl.b[s] - cl.a[s]), _drop(cl, s)) for s in range(r) if cl.a[s] <= cl.b[s]]
    for s in range(r):
        for t in range(s + 1, r):
            hull = (max(cl.a[s], cl.a[t]), min(cl.b[s], cl.b[t]))
            options.append((_damage(cl, s, hull) + _damage(cl, t, hull), _merge(cl, s, t)))
            for keep, move in ((s, t), (t, s)):
                target = (cl.a[keep], cl.b[keep])
                if target != hull and _raises_l(target, cl.a[move], cl.b[move], e_max):
                    options.append((_damage(cl, move, target), _merge(cl, s, t, target)))
    options.sort(key=lambda o: o[0])
    if r > classes + 1:
        options = options[:2]
    seen, out = set(), []
    for _, o in options:
        for red in reductions(o, classes, e_max):
            if red.key() not in seen:
                seen.add(red.key())
                out.append(red)
    return out


# --- the divergence ---------------------------------------------------------------------------


def _positive_part_mean(t: np.ndarray, v: float, m: np.ndarray, rho: float) -> tuple[np.ndarray, np.ndarray]:
    """(pos, neg) >= 0 with E[(t + v B)_+] = pos - neg for B ~ Bin(m, ρ), elementwise."""
    t = np.asarray(t, dtype=float)
    m = np.asarray(m, dtype=float)
    if v == 0 or rho == 0:
        return np.maximum(t, 0.0), np.zeros_like(t)
    mean = m * rho
    m1 = np.maximum(m - 1, 0)
    if v < 0:   # Σ_{B <= K} (t - |v| B) pmf(B), K = floor(t/|v|); B pmf(B) = mρ pmf_{m-1}(B-1)
        kk = np.where(t >= 0, np.floor(t / -v), -1.0)
        return np.maximum(t, 0.0) * bn.cdf(kk, m, rho), -v * mean * bn.cdf(kk - 1, m1, rho)
    # v > 0: Σ_{B > K'} (t + v B) pmf(B), K' the largest B with t + v B < 0
    kk = np.where(t < 0, np.ceil(-t / v) - 1, -1.0)
    tail = bn.sf(kk, m, rho)
    return v * mean * bn.sf(kk - 1, m1, rho) + np.maximum(t, 0.0) * tail, np.maximum(-t, 0.0) * tail


class BlanketDivergence:
    """D(ε), an upper bound on (1/n) E[(Σ_j l(Z_j))_+], for classes with at most three
    members; ``budget`` is the absolute error spent on windows and skipped points."""

    def __init__(self, cl: Classes, n: int, budget: float, max_points: int = MAX_POINTS, offset: float = 0.0):
        if len(cl.a) > 3:
            raise ValueError("reduce to at most three classes first")
        self.cl, self.n, self.budget, self.max_points = cl, n, budget, max_points
        #: a constant added to Σ l (<= 0; used by :class:`DecoupledDivergence`)
        self.offset = offset
        amax = max(cl.a)
        self.tail = budget / (4 * amax * max(1, len(cl.a)))   # mass outside each window
        self.windows = [bn.chernoff_window(n, p, self.tail) for p in cl.prob]
        # summed in closed form: the heaviest class with a <= b (l <= 0 at every ε >= 0)
        never_positive = [s for s in range(len(cl.a)) if cl.a[s] <= cl.b[s]]
        self.last = max(never_positive or range(len(cl.a)), key=lambda s: cl.prob[s])

    def points(self) -> int:
        size = 1
        for s, (lo, hi) in enumerate(self.windows):
            if s != self.last:
                size *= hi - lo + 1
        return size

    def __call__(self, epsilon: float) -> float:
        cl, n = self.cl, self.n
        e = math.exp(epsilon)
        lv = [_l_up(a, b, epsilon) for a, b in zip(cl.a, cl.b)]
        r = len(lv)
        if max(lv) <= 0:
            return 0.0
        lmax = max(lv)
        offset = self.offset
        # float64 rounding of the class probabilities (total variation of the count law, times
        # the largest (S)_+/n) and of the sums of l (a few ulps of the largest |l| per class)
        rounding = lmax * n * cl.prob_err + 64 * 2.3e-16 * r * max(abs(x) for x in lv) \
            + 4 * 2.3e-16 * abs(offset) / n
        slack = 8 * bn.REL_ERR
        if r == 1 and offset == 0:
            return lmax * cl.prob[0] * (1 + slack) + rounding
        if r == 1:   # E[(offset + l B)_+] for B ~ Bin(n, p): the closed form with no first classes
            pos, neg = _positive_part_mean(np.array([offset]), lv[0], np.array([float(n)]), cl.prob[0])
            inner = max(float(pos[0]) * (1 + slack) - float(neg[0]) * (1 - slack), 0.0)
            return inner * (1 + slack) / n + rounding
        last = self.last
        firsts = [s for s in range(r) if s != last]
        excluded = self.tail * len(firsts)
        total_pos = 0.0
        skipped = 0.0
        # skip threshold: a point whose closed-form term is at most `thr` is dropped, costing at
        # most thr (probability-weighted, so summed <= thr) in n·D
        thr = 0.25 * self.budget * n
        windows = [self.windows[s] for s in firsts]
        rest = 1.0 - sum(cl.prob[s] for s in firsts)
        rho = min(1.0, cl.prob[last] / rest) if rest > 0 else 0.0
        v = lv[last]
        # the smallest trial count of the last class over the grid, for the skip test
        m_min = max(0, n - sum(hi for _, hi in windows))
        t_star = _skip_level(v, m_min, rho, thr) if v < 0 else -math.inf
        s0 = firsts[0]
        lo0, hi0 = windows[0]
        c0 = np.arange(lo0, hi0 + 1, dtype=float)
        w0 = bn.pmf(c0, n, cl.prob[s0])
        if len(firsts) == 1:
            base, counts, weight = lv[s0] * c0 + offset, c0, w0
            keep = base > t_star
            skipped += 0.0
            pos, neg = _positive_part_mean(base[keep], v, n - counts[keep], rho)
            inner = np.maximum(pos * (1 + slack) - neg * (1 - slack), 0.0)
            total_pos = float(np.sum(weight[keep] * inner))
        else:
            # only the points with base > t* (the others are skipped, within thr), row by row:
            # base = l0 c0 + l1 c1 is monotone in c1, so each row keeps one run of c1
            s1 = firsts[1]
            l0, l1 = lv[s0], lv[s1]
            lo1, hi1 = windows[1]
            rho1 = cl.prob[s1] / (1.0 - cl.prob[s0])
            if l1 < 0:
                start = np.full(len(c0), float(lo1))
                stop = np.minimum(float(hi1), np.ceil((l0 * c0 + offset - t_star) / -l1) - 1) if math.isfinite(t_star) \
                    else np.full(len(c0), float(hi1))
            elif l1 > 0:
                start = np.maximum(float(lo1), np.floor((t_star - l0 * c0 - offset) / l1) + 1) if math.isfinite(t_star) \
                    else np.full(len(c0), float(lo1))
                stop = np.full(len(c0), float(hi1))
            else:
                ok = l0 * c0 + offset > t_star
                start = np.where(ok, float(lo1), 1.0)
                stop = np.where(ok, float(hi1), 0.0)
            # and within each row only the conditional Chernoff window of c1 given c0 (the mass
            # left out is at most `tail` in every row, so at most `tail` in all)
            row_lo, row_hi = bn.chernoff_window_rows(n - c0, rho1, self.tail)
            excluded += self.tail
            start = np.maximum(start, row_lo)
            stop = np.minimum(np.minimum(stop, n - c0), row_hi)
            length = np.maximum(stop - start + 1, 0).astype(np.int64)
            if int(length.sum()) > self.max_points:
                return math.inf   # not evaluated: the search treats it as D > δ (never as a pass)
            rows = np.flatnonzero(length)
            chunk_rows = []
            acc = 0
            for r0 in rows:   # chunks of about 10^6 points
                chunk_rows.append(r0)
                acc += int(length[r0])
                if acc >= 1_000_000 or r0 == rows[-1]:
                    idx = np.asarray(chunk_rows)
                    lens = length[idx]
                    a0v = np.repeat(c0[idx], lens)
                    offsets = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
                    c1v = np.repeat(start[idx], lens) + offsets
                    w = np.repeat(w0[idx], lens) * bn.pmf(c1v, n - a0v, rho1)
                    base = l0 * a0v + l1 * c1v + offset
                    pos, neg = _positive_part_mean(base, v, n - a0v - c1v, rho)
                    inner = np.maximum(pos * (1 + slack) - neg * (1 - slack), 0.0)
                    total_pos += float(np.sum(w * inner))
                    chunk_rows, acc = [], 0
        return total_pos * (1 + slack) / n + lmax * excluded + (thr * (1 + 4 * bn.REL_ERR) / n if v < 0 else 0.0) + rounding



#: three-class grids up to this many points are summed exactly; larger ones are decoupled
EXACT_POINTS = 400_000
#: the decoupled class's count is cut where its term costs about these shares of δ; the best is kept
DECOUPLE_LEVELS = (3e-2,)


class DecoupledDivergence:
    """D(ε) for three or more classes without a grid over more than one count: every class but
    two is split off, each split-off class s having a <= b (l_s <= 0 at every ε >= 0), by
    (u + Σ v_s)_+ <= (u + Σ y_s)_+ + Σ (v_s - y_s)_+ (any y_s, any joint law), with
    v_s = l_s C_s, C_s ~ Bin(n, p_s) and u the sum over the two kept classes:

        n·D <= E[(u + Σ y_s)_+] + Σ E[(l_s C_s - y_s)_+],  y_s = l_s k_s  (k_s a lower quantile of C_s)

    The first term is the two-class sum of :class:`BlanketDivergence` (the split-off classes
    counted as ⊥) shifted by Σ y_s; the others are |l_s| E[(k - C_s)_+] = |l_s| (k P(C <= k) -
    n p_s P(Bin(n-1, p_s) <= k-1)), all with the binomial error budget. Kept: the classes with
    a > b, then the a <= b classes whose sums spread most (|l| times the count's standard
    deviation). A class whose l_s is small and whose count is nearly constant on the scale of u
    (k-RR's d - 2 outputs outside the pair, l = 1 - e^ε; OUE's outputs with both bits equal)
    loses little. No class is merged, so OUE's four classes are used as they are; the exact
    grid (:data:`EXACT_POINTS`) is used for three classes when it is small."""

    def __init__(self, cl: Classes, n: int, budget: float):
        r = len(cl.a)
        if r < 3:
            raise ValueError("the decoupled divergence takes at least three classes")
        negative = [s for s in range(r) if cl.a[s] <= cl.b[s]]
        if len(negative) < r - 2:
            raise ValueError("more than two classes with a > b: nothing to split off")
        self.cl, self.n, self.budget = cl, n, budget
        self.merged = cl.merged

        def spread(s):
            return (cl.b[s] - cl.a[s]) * math.sqrt(n * cl.prob[s] * (1 - cl.prob[s]))

        kept = [s for s in range(r) if s not in negative]
        kept += sorted(negative, key=spread, reverse=True)[:2 - len(kept)]
        self.kept = sorted(kept)
        self.split = [s for s in range(r) if s not in kept]
        self.rest = Classes(tuple(cl.a[s] for s in self.kept), tuple(cl.b[s] for s in self.kept),
                            tuple(cl.prob[s] for s in self.kept), cl.pair, cl.merged, cl.prob_err)

    def __call__(self, epsilon: float) -> float:
        cl, n = self.cl, self.n
        slack = 8 * bn.REL_ERR
        best = math.inf
        for level in DECOUPLE_LEVELS:
            offset, lower_part = 0.0, 0.0
            for s in self.split:
                ls = min(_l_up(cl.a[s], cl.b[s], epsilon), 0.0)   # > 0 only at ε = 0 with a = b
                p = cl.prob[s]
                if ls == 0 or p <= 0:
                    continue
                share = level / len(self.split)
                k = _lower_quantile(n, p, share * (self.budget / BUDGET_SHARE) / (-ls * p))
                offset += ls * k
                if k > 0:   # E[(k - C)_+] = k P(C <= k) - n p P(Bin(n-1, p) <= k-1), bounded above
                    first = k * float(bn.cdf(np.array([float(k)]), np.array([float(n)]), p)[0]) * (1 + slack)
                    second = n * p * float(bn.cdf(np.array([float(k - 1)]), np.array([float(n - 1)]), p)[0]) * (1 - slack)
                    lower_part += max(first - second, 0.0) * -ls * (1 + slack) + 4 * 2.3e-16 * k * -ls
            # the offset's own rounding: a few ulps of each term, charged whole
            offset = math.nextafter(offset, math.inf) + 8 * 2.3e-16 * abs(offset)
            upper_part = BlanketDivergence(self.rest, n, self.budget, offset=min(offset, 0.0))(epsilon)
            best = min(best, upper_part + lower_part * (1 + slack) / n)
        return best


def _lower_quantile(n: int, p: float, mass: float) -> int:
    """The largest k >= 0 with P(Bin(n, p) <= k) <= mass, roughly (0 when none): any k gives a
    valid bound above; this one balances the two terms."""
    lo, hi = 0, int(n * p)
    if mass <= 0 or float(bn.cdf(np.array([0.0]), np.array([float(n)]), p)[0]) > mass:
        return 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if float(bn.cdf(np.array([float(mid)]), np.array([float(n)]), p)[0]) <= mass:
            lo = mid
        else:
            hi = mid
    return lo


def _l_up(a: float, b: float, epsilon: float) -> float:
    """A float >= a - e^ε b (a, b >= 0): e^ε taken from below, each rounding directed."""
    e_low = math.nextafter(math.exp(epsilon), 0.0)      # math.exp is within 1 ulp
    product = math.nextafter(e_low * b, 0.0)
    return math.nextafter(a - product, math.inf)


def _skip_level(v: float, m: int, rho: float, thr: float) -> float:
    """The largest t >= 0 with t · P(Bin(m, ρ) <= t/|v|) <= thr (an upper bound on the closed
    form E[(t + vB)_+] for any trial count >= m), found by bisection; grid points with base
    at most this level are skipped (t · cdf grows with t, and B with more trials is larger)."""
    if thr <= 0:
        return 0.0

    from scipy import special

    def g(t: float) -> float:   # t P(Bin(m, ρ) <= floor(t/|v|)), as bn.cdf computes it
        k = math.floor(t / -v)
        if k < 0:
            return 0.0
        return t * (1.0 if k >= m else float(special.betainc(m - k, k + 1, 1 - rho)))

    lo, hi = 0.0, max(1.0, -v * m * rho)
    while g(hi) <= thr:
        lo, hi = hi, 2 * hi
        if hi > 1e300:
            return lo
    for _ in range(60):   # lo always has g(lo) <= thr: a rougher level skips less, never wrongly
        if hi - lo <= 1e-3 * hi:
            break
        mid = 0.5 * (lo + hi)
        if g(mid) <= thr:
            lo = mid
        else:
            hi = mid
    return lo


# --- the bound --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bound:
    """One upper bound on the shuffled ε at δ: the divergence shown at it, how it was found."""

    epsilon: float
    delta_at: float
    method: str
    evaluations: int = 0
    notes: tuple = ()

    def to_json(self) -> dict:
        return {"epsilon": self.epsilon, "delta_at_epsilon": self.delta_at, "method": self.method,
                "evaluations": self.evaluations, "notes": list(self.notes)}


def blanket_epsilon(ch: ChannelNumbers, n: int, delta: float, *, max_points: int = MAX_POINTS,
                    work: int | None = None) -> Bound:
    """The privacy-blanket bound of the channel for n users at δ, the worst ordered pair.

    ``work`` bounds the three-class searches in grid points summed over their evaluations (the
    two-class ones always finish, ~0.3 s at n = 10^6): past it the search stops at the best ε
    shown so far (still an upper bound, less tight; a note says where it stopped). ``None``: no
    limit. A count of work, not seconds, so the ε is the same on any machine."""
    check_inputs(n, delta)
    budget = BUDGET_SHARE * delta
    pairs: dict = {}
    omegas = blanket_omega(ch)
    for i, j in itertools.permutations(range(ch.k), 2):
        cl = blanket_classes(ch, i, j, omegas)   # names an output without a blanket
        pairs.setdefault(cl.key(), cl)
    eps0 = local_epsilon(ch)
    e_max = math.nextafter(math.exp(eps0), math.inf) * (1 + 1e-15)   # every ε searched is <= ε0
    spent = Work(work)
    worst, worst_div, calls, merged = -1.0, None, 0, False
    stopped = False
    for cl in pairs.values():
        # two classes first (one sum, cheap: a valid bound to start from), then three classes
        # exactly, searched below it; a three-class evaluation over max_points counts as D > δ
        best = None
        split_whole = None
        if len(cl.a) > 3:   # split off without merging first (valid when at most two classes have a > b)
            try:
                split_whole = DecoupledDivergence(cl, n, budget)
            except ValueError:
                split_whole = None
        for level in (2, 3):
            candidates = list(reductions(cl, level, e_max))
            if level == 2 and split_whole is not None:
                candidates = candidates[:1]   # only a starting bracket for the split-off search
            if level == 3 and split_whole is not None:
                # merged reductions only where their exact grid is small; the unmerged split otherwise
                candidates = [split_whole] + [red for red in candidates if len(red.a) == 3
                                              and BlanketDivergence(red, n, budget).points() <= EXACT_POINTS]
            for red in candidates:
                if isinstance(red, DecoupledDivergence):
                    div = red
                    eps, k, done = smallest_epsilon(div, delta, eps0 if best is None else best[0], None)
                    calls += k
                    if best is None or eps < best[0]:
                        best = (eps, div)
                    continue
                if level == 3 and len(red.a) < 3:
                    continue
                div = BlanketDivergence(red, n, budget, max_points)
                if level == 3 and div.points() > EXACT_POINTS and any(a <= b for a, b in zip(red.a, red.b)):
                    div = DecoupledDivergence(red, n, budget)
                if level == 3 and not spent.allows(evaluation_cost(div)):
                    stopped = True
                    continue
                eps, k, done = smallest_epsilon(div, delta, eps0 if best is None else best[0],
                                                spent if level == 3 else None)
                stopped = stopped or not done
                calls += k
                if best is None or eps < best[0]:
                    best = (eps, div)
        if best[0] > worst:
            worst, worst_div = best
        merged = merged or best[1].cl.merged
    notes = [f"worst ordered pair x={worst_div.cl.pair[0]!r}, x'={worst_div.cl.pair[1]!r}",
             f"{len(worst_div.cl.a)} output classes summed exactly" if not isinstance(worst_div, DecoupledDivergence)
             else f"{len(worst_div.cl.a)} output classes"]
    if stopped:
        notes.append(f"the three-class search stopped at its work budget ({spent.spent:,} of {work:,} grid points "
                     "evaluated): the ε shown is valid, a longer search may give a smaller one")
    if isinstance(worst_div, DecoupledDivergence):
        k = len(worst_div.split)
        notes.append(f"{len(worst_div.cl.a)} classes: two summed exactly, {k} split off ((u + v)_+ <= (u + y)_+ + "
                     f"(v - y)_+; " + ("more than three classes, none merged)" if len(worst_div.cl.a) > 3 else
                                       f"the exact grid would exceed {EXACT_POINTS} points)"))
    merged = worst_div.cl.merged
    if merged:
        notes.append("classes merged pessimistically (every l = (Q(y|x) - e^ε Q(y|x'))/ω only raised) to keep three")
    return Bound(worst, worst_div(worst), "privacy blanket (optimal decomposition)", calls, tuple(notes))
