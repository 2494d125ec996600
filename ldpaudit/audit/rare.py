"""Rare-event search: events whose counts are small in exploration but whose ratio could
certify more than the claimed ε at the confirmation sample size.

The main ranking (events.py) makes exploration estimates pessimistic twice (Wilson at z = 2 on
the exploration counts, then at the confirmation level), which is right for picking among
many frequent events but buries a rare output: an error code emitted with probability 2·10^-4
under x and 4·10^-5 under x' (ratio 5) has about 50 vs 10 exploration hits, so its pessimistic
prediction is ~0.5 while the frequent singletons of a k-RR predict ~1.

Here every ordered pair (x, x'), and every input x against all the others pooled (one-vs-rest,
pool.py: P(S|x) <= e^ε avg_x' P(S|x') uses d-1 times the draws under x'), gets one more
candidate, scored by what it *could certify*: the Clopper-Pearson bound of the confirmation
sample if its frequencies equalled the exploration frequencies (both exploration halves
pooled, a count of 0 under x' kept as 0),

    could(S) = ln( CP_lower(p̂·n_c, n_c, α') / CP_upper(q̂·m_c, m_c, α') ),

with m_c = n_c for a pair and (d-1)·n_c one-vs-rest, and S a prefix of the codes sorted by
pooled exploration ratio (a single rare output, or the outputs seen under x and never under
x'). The best pair candidate and the best one-vs-rest candidate are confirmed alongside the
main ones when could(S) plus one standard error of the exploration estimate of ln(p/q)
exceeds the claimed ε (a fair chance to certify a violation). They are counted on the fresh
confirmation sample and enter the Bonferroni correction like every other confirmed
candidate, so the choice, however optimistic, cannot inflate the certified bound. A correct
randomizer's rare outputs have ratio at most e^ε, so they are rarely confirmed and cost little.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import numpy as np

from ldpaudit.audit import bounds
from ldpaudit.audit.events import Candidate, CodeSetEvent, Search
from ldpaudit.audit.pool import PooledCandidate

MAX_RARE_CODES = 64            # prefixes over at most this many codes per pair


def could_certify(a, n_e, b, m_e, n_confirm: int, alpha_each: float, m_confirm: int | None = None,
                  delta: float = 0.0):
    """ln((CP_lower(a n_c/n_e, n_c) − δ) / CP_upper(b m_c/m_e, m_c)) with n_c = n_confirm trials
    under x and m_c = m_confirm (default n_c) under x': the bound certified at δ if the
    confirmation frequencies equalled the exploration ones. Vectorized; -inf for a = 0 (and
    wherever the lower bound is at most δ)."""
    m_confirm = n_confirm if m_confirm is None else m_confirm
    a_c = np.asarray(a, dtype=float) * (n_confirm / n_e)
    b_c = np.asarray(b, dtype=float) * (m_confirm / m_e)
    low = bounds.cp_lower(a_c, n_confirm, alpha_each)
    if delta:
        low = np.maximum(low - delta, 0.0)
    up = bounds.cp_upper(np.minimum(b_c, m_confirm - 1), m_confirm, alpha_each)
    with np.errstate(divide="ignore"):
        return np.log(low) - np.log(up)


def rare_candidates(s: Search, pairs: list, *, n_confirm: int, alpha_each: float) -> Sequence[Candidate]:
    """Per ordered pair (x, x'), and per input x against all the others pooled (one-vs-rest,
    pool.py), the prefix of codes rare under x, sorted by pooled exploration ratio, with the
    largest ``could_certify`` at the search's δ. Sorted best first (by the score less one
    standard error), each candidate made when asked for (:class:`RareCandidates`). Blocks of
    sides at once: a stable argsort per row (codes not rare under x sorted last), cumulative
    sums, the Clopper-Pearson bounds of each distinct count once."""
    k = s.feat.n_codes
    if k <= 1 or n_confirm <= 1:
        return []
    counts = {x: s.codes_a[x] + s.codes_b[x] for x in s.codes_a}
    n_e = {x: s.a[x].n + s.b[x].n for x in s.a}
    inputs = list(counts)
    # the sides: every pair, then (when there are more than two inputs) each pair's x against the others
    alone = list(dict.fromkeys(p[0] for p in pairs)) if len(inputs) > 2 else []
    if not pairs:
        return []
    total = sum(counts.values())
    n_total = sum(n_e.values())
    row = {u: i for i, u in enumerate(inputs)}
    c = np.stack([counts[u] for u in inputs] + [total])       # the last row: every input's counts
    n_row = np.array([n_e[u] for u in inputs])
    xi = np.array([row[x] for x, _ in pairs] + [row[x] for x in alone])
    yi = np.array([row[y] for _, y in pairs] + [len(inputs)] * len(alone))     # pooled: the last row
    pooled = np.arange(len(xi)) >= len(pairs)
    n_x = n_row[xi]
    m_e = np.where(pooled, n_total - n_x, np.append(n_row, 0)[yi])
    m_confirm = np.where(pooled, n_confirm * (len(inputs) - 1), n_confirm)

    def side(t: int) -> tuple[tuple, tuple]:
        if t < len(pairs):
            return (pairs[t][0],), (pairs[t][1],)
        x = alone[t - len(pairs)]
        return (x,), tuple(u for u in inputs if u != x)

    width = min(MAX_RARE_CODES, k)
    step = max(1, (1 << 16) // k)
    found = []      # per block of sides: the sides with a candidate, its prefix length, score, counts, order
    for lo in range(0, len(xi), step):
        rows = slice(lo, lo + step)
        cx = c[xi[rows]]
        cy = np.where(pooled[rows, None], c[-1] - cx, c[yi[rows]])
        # Rare under x: fewer than ~1000 expected confirmation hits; the main ranking has the rest.
        rare = (cx > 0) & (cx / n_x[rows, None] * n_confirm < 1000)
        order = _rare_orders(cx, cy, n_x[rows], m_e[rows], rare)[:, :width]
        valid = np.arange(width) < np.minimum(rare.sum(axis=1), width)[:, None]
        a = np.cumsum(np.take_along_axis(cx, order, axis=1), axis=1)
        b = np.cumsum(np.take_along_axis(cy, order, axis=1), axis=1)
        score = _could_certify_rows(a, n_x[rows], b, m_e[rows], n_confirm, alpha_each, m_confirm[rows], s.delta,
                                    valid)
        best = np.argmax(score, axis=1)
        js = np.flatnonzero(valid[:, 0] & np.isfinite(score[np.arange(len(best)), best]))
        i = best[js]
        found.append((lo + js, i, score[js, i], a[js, i], b[js, i], order[js]))
    sides, length, predicted, a, b = (np.concatenate([f[j] for f in found]) for j in range(5))
    orders = np.concatenate([f[5] for f in found])
    # The exploration estimate's own uncertainty (delta method on ln(a/b)), as math.sqrt gives it.
    sd = np.sqrt(1.0 / a + 1.0 / np.maximum(b, 1))
    # Best first by the score less its exploration uncertainty, so that a pair whose x' count
    # was low by luck does not displace the same event against the pooled other inputs.
    ranked = np.argsort(-(predicted - sd), kind="stable")
    describe = s._describe_codes

    def make(r: int) -> Candidate:
        xs, ys = side(int(sides[r]))
        x, i = xs[0], int(length[r])
        in_set = np.zeros(k, dtype=bool)
        in_set[orders[r, :i + 1]] = True
        event = CodeSetEvent(in_set, partial(describe, in_set, "rare"))
        m = n_total - n_e[x] if len(ys) > 1 else n_e[ys[0]]
        args = ((x, ys[0]), event, "rare", float(predicted[r]), a[r] / n_e[x], b[r] / m)
        if len(ys) == 1:
            cand = Candidate(*args)
        else:
            cand = PooledCandidate(*args, x_side=xs, y_side=ys,
                                   pooled_text=f"x = {x!r} against the average over the {len(ys)} other inputs")
        cand.sd = float(sd[r])
        return cand

    return RareCandidates(lambda t: make(int(ranked[t])), pooled[sides[ranked]])


class RareCandidates(Sequence):
    """:func:`rare_candidates`' result, best first, each candidate made when first asked for:
    the audit reads the best of each kind only (:func:`best_of_kind`), and several hundred
    candidate objects (an event, a description, a mask of every code) are not made for it."""

    def __init__(self, make, pooled: np.ndarray):
        self._make, self._pooled, self._made = make, pooled, {}

    def __len__(self) -> int:
        return len(self._pooled)

    def __getitem__(self, t):
        if isinstance(t, slice):
            return [self[j] for j in range(*t.indices(len(self)))]
        t = t + len(self) if t < 0 else t
        if not 0 <= t < len(self):
            raise IndexError(t)
        if t not in self._made:
            self._made[t] = self._make(t)
        return self._made[t]

    def best(self, kind: type) -> Candidate | None:
        """The best candidate of ``kind``: Candidate (a pair) or PooledCandidate (one-vs-rest)."""
        of_kind = np.flatnonzero(self._pooled == (kind is PooledCandidate))
        return self[int(of_kind[0])] if len(of_kind) else None


def best_of_kind(rare: Sequence[Candidate], kind: type) -> Candidate | None:
    """The first candidate of type ``kind`` in ``rare`` (best first), or None."""
    if isinstance(rare, RareCandidates):
        return rare.best(kind)
    return next((c for c in rare if type(c) is kind), None)


def _rare_orders(cx, cy, n_x, m_e, rare):
    """``np.argsort(np.where(rare, -llr, inf), axis=1, kind="stable")`` with llr =
    ln((cx + 1/2)/n_x) − ln((cy + 1/2)/m_e) row by row: each side's codes rare under x by
    pooled exploration ratio, the others after them. Where the counts are few, the ratios are
    those of a table over (count under x, count under x') per (n_x, m_e), and those rows are
    sorted by their rank in it (a stable radix sort of small integers: equal ranks exactly
    where the ratios are equal); the other rows (pooled sides' large counts) by llr."""
    order = np.empty(cx.shape, dtype=np.intp)
    by_llr = np.ones(len(cx), dtype=bool)
    ints = cx.dtype.kind in "iu" and cy.dtype.kind in "iu" and cx.min(initial=0) >= 0 and cy.min(initial=0) >= 0
    for nx, my in (np.unique(np.stack([n_x, m_e], axis=1), axis=0).tolist() if ints else ()):
        rows = np.flatnonzero((n_x == nx) & (m_e == my))
        gx, gy = cx[rows], cy[rows]
        top_x, top_y = int(gx.max(initial=0)) + 1, int(gy.max(initial=0)) + 1
        if top_x * top_y > gx.size:
            continue
        fx, fy = np.log((np.arange(top_x) + 0.5) / nx), np.log((np.arange(top_y) + 0.5) / my)
        distinct, rank = np.unique(-(fx[:, None] - fy[None, :]).ravel(), return_inverse=True)
        if len(distinct) >= 2**15:
            continue
        keys = np.where(rare[rows], rank.reshape(top_x, top_y).astype(np.int16)[gx, gy], np.int16(len(distinct)))
        order[rows] = np.argsort(keys, axis=1, kind="stable")
        by_llr[rows] = False
    rows = np.flatnonzero(by_llr)
    if len(rows):
        gx, gy = cx[rows], cy[rows]
        llr = np.log((gx + 0.5) / n_x[rows, None]) - np.log((gy + 0.5) / m_e[rows, None])
        order[rows] = np.argsort(np.where(rare[rows], -llr, np.inf), axis=1, kind="stable")
    return order


def _could_certify_rows(a, n_e, b, m_e, n_confirm: int, alpha_each: float, m_confirm, delta: float, valid):
    """:func:`could_certify` of every row's prefixes (a, b (r, w); n_e, m_e, m_confirm (r,)),
    -inf where not ``valid``: the same values elementwise, each Clopper-Pearson bound computed
    once per distinct scaled count (and, under x', per confirmation size)."""
    factor_a = n_confirm / n_e
    factor_b = m_confirm / m_e
    low = np.zeros(a.shape)
    distinct, where = _distinct_scaled(a, factor_a, valid, None)
    low[valid] = np.asarray(bounds.cp_lower(distinct, n_confirm, alpha_each))[where]
    if delta:
        low = np.maximum(low - delta, 0.0)
    up = np.ones(b.shape)
    for m in np.unique(m_confirm).tolist():
        cells = valid & (m_confirm == m)[:, None]
        distinct, where = _distinct_scaled(b, factor_b, cells, m - 1)
        up[cells] = np.asarray(bounds.cp_upper(distinct, m, alpha_each))[where]
    with np.errstate(divide="ignore"):
        score = np.log(low) - np.log(up)
    score[~valid] = -np.inf
    return score


def _distinct_scaled(counts, factor, cells, top):
    """``np.unique(v, return_inverse=True)`` of v = ``counts * factor[:, None]`` (floats) at
    ``cells``, capped at ``top`` when given: the distinct values, ascending, and each cell's
    index among them. Integer counts under one factor are few: found by marking them, each
    distinct count scaled once (the same products), without sorting every cell."""
    rows = np.flatnonzero(cells.any(axis=1))
    values = counts[cells]
    if counts.dtype.kind in "iu" and len(rows) and values.size and (factor[rows] == factor[rows[0]]).all() \
            and values.min() >= 0 and values.max() < 4 * values.size:
        seen = np.zeros(int(values.max()) + 1, dtype=bool)
        seen[values] = True
        ints = np.flatnonzero(seen)
        scaled = ints.astype(float) * factor[rows[0]]
        if top is not None:
            scaled = np.minimum(scaled, top)
        first = np.ones(len(scaled), dtype=bool)
        first[1:] = scaled[1:] != scaled[:-1]       # the cap can make several counts one value
        index = np.zeros(len(seen), dtype=np.intp)
        index[ints] = np.cumsum(first) - 1
        return scaled[first], index[values]
    scaled = counts.astype(float) * factor[:, None]
    if top is not None:
        scaled = np.minimum(scaled, top)
    distinct, where = np.unique(scaled[cells], return_inverse=True)
    return distinct, where.ravel()


def add_rare(chosen: list[Candidate], rare: list[Candidate], epsilon: float) -> list[Candidate]:
    """``chosen`` plus the best rare pair candidate and the best one-vs-rest one, each if it
    could certify more than ``epsilon`` within one standard error of its exploration estimate
    (a fair chance to certify a violation) and is not already chosen. Both kinds are kept
    because a pair's x' count may be low by luck, while the pooled x' side is steadier."""
    out = list(chosen)
    for kind in (Candidate, PooledCandidate):
        best = best_of_kind(rare, kind)
        if best is None or best.predicted + best.sd <= epsilon:
            continue
        if any(o.pair == best.pair and o.inputs == best.inputs and
               np.array_equal(getattr(o.event, "in_set", None), best.event.in_set) for o in out):
            continue
        out.append(best)
    return out
