"""Events and the search for the (pair, event) candidates most likely to certify a large ε.

The exploration sample comes in two independent halves. Half A fits, for each ordered input
pair (x, x'), an ordering of candidate events by estimated likelihood ratio; half B evaluates
prefixes/thresholds of that ordering and predicts the bound each would certify on the
confirmation sample. Three families, all likelihood-ratio sets:

- histogram: row codes (discrete values, quantile bins of a real output, frequent vector
  rows) sorted by A's ratio P(code|x)/P(code|x'); the event is a prefix. For real outputs also
  the thresholds y >= c and y < c.
- projection: the joint value of the few columns whose A marginals differ most between x and
  x', its cells sorted by ratio; the event is a prefix (for k-RAPPOR, OUE, k-subset the cell
  {y[x] = 1, y[x'] = 0} has ratio exactly e^ε).
- linear: the naive-Bayes log-likelihood ratio sum_j w_j[y_j] with per-column weights from
  A (weights within 2 standard errors of 0 are set to 0); the event is a threshold on it.

With δ > 0 ((ε, δ) audits, bounds.py) every family is ranked by the bound at that δ,
ln((p − δ)/q): for a location family such as x + N(0, σ²) the best event is then a tail
{y >= c} (or {y < c}) whose probability under x still clearly exceeds δ, not the farthest
tail, where the ratio alone is largest.

Nothing here looks at the confirmation sample, so the choice cannot inflate the final bound.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import numpy as np

from ldpaudit.audit.bounds import (EXPLORE_Z, bound_sd, predicted_bound, predicted_bound_terms, wilson_lower,
                                   wilson_upper)
from ldpaudit.audit.features import Featurizer, View

SCORE_BINS = 2048
MAX_PROJECTION_CELLS = 4096
MAX_PROJECTION_COLUMNS = 4
MAX_DESCRIBED = 8
SCREEN_CODES = 64               # codes per input looked at when screening many pairs


class Event:
    """A set S of outputs, defined on the featurizer's view. ``text`` is its description or a
    function computing it (descriptions are only needed for the few events confirmed)."""

    text: object = ""

    @property
    def description(self) -> str:
        if callable(self.text):
            self.text = self.text()
        return self.text

    def mask(self, view: View) -> np.ndarray:
        raise NotImplementedError

    def hits(self, view, u, role: int) -> int:
        """How many draws of ``view`` (outputs of input u in role 0 = x or 1 = x') are in S."""
        return view.count(self.mask(view))


@dataclass(eq=False)
class CodeSetEvent(Event):
    in_set: np.ndarray
    text: object = ""

    def mask(self, view):
        return self.in_set[view.codes]


@dataclass(eq=False)
class ProjectionEvent(Event):
    columns: np.ndarray
    strides: np.ndarray
    in_set: np.ndarray
    text: object = ""

    def mask(self, view):
        return self.in_set[_joint_code(view.cats, self.columns, self.strides)]


@dataclass(eq=False)
class ScoreEvent(Event):
    weights: np.ndarray          # flat, indexed by offsets[j] + cats[:, j]
    offsets: np.ndarray
    threshold: float
    text: object = ""

    def score(self, cats: np.ndarray) -> np.ndarray:
        active = np.flatnonzero(np.add.reduceat(np.abs(self.weights), self.offsets) > 0) \
            if len(self.offsets) else np.zeros(0, int)
        score = np.zeros(cats.shape[0])
        for j in active:
            score += self.weights[self.offsets[j] + cats[:, j]]
        return score

    def mask(self, view):
        return self.score(view.cats) >= self.threshold


@dataclass
class Candidate:
    pair: tuple
    event: Event
    family: str
    predicted: float
    p_explore: float
    q_explore: float
    sd: float = 0.0

    def roles(self, u) -> tuple:
        """The roles (0: x, 1: x') input u plays in this candidate."""
        return tuple(r for r in (0, 1) if self.pair[r] == u)

    @property
    def inputs(self) -> tuple:
        return tuple(self.pair)

    def trials(self, n: int) -> tuple[int, int]:
        """Trials behind the counts under x and under x' after n draws per input."""
        return n, n


def _joint_code(cats: np.ndarray, columns, strides) -> np.ndarray:
    """The joint value of a few columns of cats as one integer per row."""
    code = cats[:, columns[0]].astype(np.int64) * int(strides[0])
    for c, st in zip(columns[1:], strides[1:]):
        code += cats[:, c].astype(np.int64) * int(st)
    return code


def _best_prefix(order, cb_x, cb_y, n_x, n_y, n_confirm, z, delta=0.0):
    """Best prefix of ``order`` on half B: (predicted bound at δ, prefix length, p̂, q̂)."""
    px = np.cumsum(cb_x[order]) / n_x
    qy = np.cumsum(cb_y[order]) / n_y
    pred = predicted_bound(px, qy, n_confirm, z, min(n_x, n_y), delta)
    i = int(np.argmax(pred))
    return float(pred[i]), i + 1, float(px[i]), float(qy[i])


def _ratio_order(ca_x, ca_y, n_x, n_y):
    llr = np.log((ca_x + 0.5) / (n_x + 1.0)) - np.log((ca_y + 0.5) / (n_y + 1.0))
    return np.argsort(-llr, kind="stable")


def _best_prefixes(cx, cy, n_x, n_y, n_confirm, z, delta=0.0):
    """:func:`_best_prefix` of every row at once, given each row's cumulative half-B counts
    along its order, cx and cy (r, k) (integers), and draws n_x, n_y (r,). Row i's figures
    are those of ``_best_prefix(order_i, cb_x[i], cb_y[i], n_x[i], n_y[i], ...)`` bit for bit:
    the same elementwise operations and the first maximum per row. A prefix's frequencies are
    its count over n, so where the counts are fewer than the prefixes, the two terms of the
    predicted bound are computed once per count and looked up."""
    n_e = np.minimum(n_x, n_y)
    groups = np.unique(np.stack([n_x, n_y, n_e], axis=1), axis=0)
    if len(groups) == 1:
        in_group = [slice(None)]
    else:
        in_group = [np.flatnonzero((n_x == g[0]) & (n_y == g[1]) & (n_e == g[2])) for g in groups]
    pred = np.empty(cx.shape)
    for (nx, ny, ne), rows in zip(groups.tolist(), in_group):
        gx, gy = cx[rows], cy[rows]
        top = int(max(gx.max(initial=0), gy.max(initial=0))) + 1
        if gx.dtype.kind in "iu" and gx.min(initial=0) >= 0 and gy.min(initial=0) >= 0 and top < gx.size:
            count = np.arange(top)
            log_low, _ = predicted_bound_terms(count / nx, count[:1] / ny, n_confirm, z, ne, delta)
            _, log_up = predicted_bound_terms(count[:1] / nx, count / ny, n_confirm, z, ne, delta)
            pred[rows] = log_low[gx] - log_up[gy]
        else:
            pred[rows] = predicted_bound(gx / nx, gy / ny, n_confirm, z, ne, delta)
    i = np.argmax(pred, axis=1)
    rows = np.arange(len(i))
    return pred[rows, i], i + 1, cx[rows, i] / n_x, cy[rows, i] / n_y


def _prefix_masks(order: np.ndarray, rows: np.ndarray, length: np.ndarray) -> np.ndarray:
    """For each of ``rows``, the codes in the first ``length[row]`` of its order (``order``
    (r, k), or one order (k,) for every row), as a row of booleans: a code is in the prefix
    where its position in the order is below the length."""
    k = order.shape[-1]
    if order.ndim == 2:
        position = np.empty((len(rows), k), dtype=np.intp)
        position[np.arange(len(rows))[:, None], order[rows]] = np.arange(k)
    else:
        position = np.empty(k, dtype=np.intp)
        position[order] = np.arange(k)
    return position < length[rows][:, None]


def _ratio_orders(ca, na, bx, by):
    """``np.argsort(-(L[bx] - L[by]), axis=1, kind="stable")`` with L = ln((ca + 1/2)/(na + 1))
    row by row (half A's counts ca (m, k) of m inputs, na (m,)): each row the order
    :func:`_ratio_order` gives that pair. When every input has the same draws and the counts
    are few, the ratios are those of a table over (count under x, count under x'), sorted
    once: the rows are then sorted by their rank in it (a stable radix sort of small
    integers: equal ranks exactly where the ratios are equal)."""
    top = int(ca.max(initial=0)) + 1
    if ca.dtype.kind in "iu" and ca.min(initial=0) >= 0 and (na == na[0]).all() and top * top <= bx.size * ca.shape[1]:
        f = np.log((np.arange(top) + 0.5) / (na[0] + 1.0))
        _, rank = np.unique(-(f[:, None] - f[None, :]).ravel(), return_inverse=True)
        rank = rank.reshape(top, top).astype(np.int16 if top * top < 2**15 else np.int64)
        return np.argsort(rank[ca[bx], ca[by]], axis=1, kind="stable")
    log_a = np.log((ca + 0.5) / (na + 1.0)[:, None])
    return np.argsort(-(log_a[bx] - log_a[by]), axis=1, kind="stable")


class Search:
    """The candidate search over a fixed featurizer and the two exploration halves; events
    are ranked by the bound they are predicted to certify at ``delta``."""

    def __init__(self, feat: Featurizer, half_a: dict, half_b: dict, n_confirm: int, z: float,
                 delta: float = 0.0):
        self.feat = feat
        self.delta = delta
        self.a = half_a
        self.b = half_b
        self.n_confirm = n_confirm
        self.z = z
        k = feat.n_codes
        self.codes_a = {x: v.bincount(v.codes, k) for x, v in half_a.items()}
        self.codes_b = {x: v.bincount(v.codes, k) for x, v in half_b.items()}
        self.vector = feat.shape in ("vector", "set")
        if self.vector:
            self.ncat = feat.ncats
            self.offsets = np.concatenate([[0], np.cumsum(self.ncat)[:-1]]).astype(np.int64)
            self.width_f = int(self.ncat.sum())
            self.cols_a = {x: self._column_counts(v) for x, v in half_a.items()}

    def _column_counts(self, view: View) -> np.ndarray:
        flat = (view.cats.astype(np.int64) + self.offsets).ravel()
        w = None if view.weights is None else np.repeat(view.weights, view.cats.shape[1])
        return np.bincount(flat, weights=w, minlength=self.width_f).astype(float)

    # -- screening -----------------------------------------------------------------------
    def screen(self, pairs: list, keep: int) -> list:
        """Keep the ``keep`` pairs whose best single code or column value already looks most
        distinguishing on half A."""
        if len(pairs) <= keep:
            return pairs
        counts = self.cols_a if self.vector else self.codes_a
        position = {u: i for i, u in enumerate(counts)}
        inputs = sorted({u for p in pairs for u in p}, key=position.get)
        row = {u: i for i, u in enumerate(inputs)}
        freq = np.stack([counts[u] / self.a[u].n for u in inputs])
        n_min = min(self.a[u].n for u in inputs)
        # predicted_bound(p, q) = ln(low(p)) - ln(up(q)), computed once per input and side.
        with np.errstate(divide="ignore"):
            low = wilson_lower(wilson_lower(freq, n_min, EXPLORE_Z), self.n_confirm, self.z)
            log_low = np.log(np.maximum(low - self.delta, 0.0) if self.delta else low)
            log_up = np.log(wilson_upper(wilson_upper(freq, n_min, EXPLORE_Z), self.n_confirm, self.z))
        # Per x, only the SCREEN_CODES codes most typical of x against the average input.
        with np.errstate(invalid="ignore"):
            typical_up = np.where(np.isfinite(log_up), log_up, 0.0).mean(axis=0)
        score = np.full((len(inputs), len(inputs)), -np.inf)
        for x in {p[0] for p in pairs}:
            lx = log_low[row[x]]
            live = np.flatnonzero(np.isfinite(lx))
            if len(live) > SCREEN_CODES:
                live = live[np.argpartition(-(lx[live] - typical_up[live]), SCREEN_CODES)[:SCREEN_CODES]]
            if len(live):
                score[row[x]] = (lx[live][None, :] - log_up[:, live]).max(axis=1)
        flat = score[[row[p[0]] for p in pairs], [row[p[1]] for p in pairs]]
        order = np.argsort(-flat, kind="stable")[:keep]
        return [pairs[i] for i in np.sort(order)]

    # -- families ------------------------------------------------------------------------
    def histogram(self, x, y) -> list[Candidate]:
        return self.histograms([(x, y)])[0]

    def histograms(self, pairs: list) -> list[list[Candidate]]:
        """Each pair's histogram and threshold candidates (a list per pair): the codes sorted
        by half A's ratio and the best prefix on half B, for blocks of pairs at once (a
        stable argsort, cumulative sums, the predicted bound and its first maximum per row)."""
        k = self.feat.n_codes
        out: list[list[Candidate]] = [[] for _ in pairs]
        if k <= 1 or not pairs:
            return out
        inputs = list(dict.fromkeys(u for p in pairs for u in p))
        row = {u: i for i, u in enumerate(inputs)}
        ca = np.stack([self.codes_a[u] for u in inputs])
        cb = np.stack([self.codes_b[u] for u in inputs])
        na = np.array([self.a[u].n for u in inputs])
        nb = np.array([self.b[u].n for u in inputs])
        xi = np.array([row[x] for x, _ in pairs])
        yi = np.array([row[y] for _, y in pairs])
        live = np.ones(len(pairs), dtype=bool)
        if self.vector:   # only the last code (no frequent row) seen under both: nothing to rank
            seen = ca[:, :-1].sum(axis=1)
            live = seen[xi] + seen[yi] != 0
        families = ["histogram"]
        thresholds = []     # the threshold orders are the same for every pair: counted per input
        if self.feat.shape == "real":
            families += ["threshold", "threshold"]
            thresholds = [(np.arange(k)[::-1], np.cumsum(cb[:, ::-1], axis=1)), (np.arange(k), np.cumsum(cb, axis=1))]
        describe = self._describe_codes
        step = max(1, (1 << 16) // k)
        for lo in range(0, len(pairs), step):
            bx, by = xi[lo:lo + step], yi[lo:lo + step]
            order = _ratio_orders(ca, na, bx, by)
            cbx, cby = cb[bx], cb[by]
            cumulative = [(order, np.cumsum(np.take_along_axis(cbx, order, axis=1), axis=1),
                           np.cumsum(np.take_along_axis(cby, order, axis=1), axis=1))]
            cumulative += [(o, cum[bx], cum[by]) for o, cum in thresholds]
            for family, (order, cx, cy) in zip(families, cumulative):
                pred, length, p, q = _best_prefixes(cx, cy, nb[bx], nb[by], self.n_confirm, self.z, self.delta)
                keep = np.flatnonzero(np.isfinite(pred) & live[lo:lo + step])
                masks = _prefix_masks(order, keep, length)
                keep = keep.tolist()
                pred, length, p, q = (v.tolist() for v in (pred, length, p, q))
                for in_set, j in zip(masks, keep):
                    pair = pairs[lo + j]
                    event = CodeSetEvent(in_set, partial(describe, in_set, family))
                    out[lo + j].append(Candidate(pair if type(pair) is tuple else tuple(pair), event, family,
                                                 pred[j], p[j], q[j]))
        return out

    def projection(self, x, y) -> list[Candidate]:
        if not self.vector:
            return []
        na_x, na_y = self.a[x].n, self.a[y].n
        p = (self.cols_a[x] + 0.5) / (na_x + 1.0)
        q = (self.cols_a[y] + 0.5) / (na_y + 1.0)
        seen = (self.cols_a[x] + self.cols_a[y]) > 0
        contrib = np.where(seen, (p - q) * (np.log(p) - np.log(q)), 0.0)
        divergence = np.add.reduceat(contrib, self.offsets)
        ranked = np.argsort(-divergence, kind="stable")
        cols = []
        cells = 1
        for j in ranked[:MAX_PROJECTION_COLUMNS]:
            if divergence[j] <= 0 or cells * self.ncat[j] > MAX_PROJECTION_CELLS:
                break
            cols.append(int(j))
            cells *= int(self.ncat[j])
        if not cols:
            return []
        cols = np.array(cols)
        dims = self.ncat[cols]
        strides = np.ones(len(cols), dtype=np.int64)
        for i in range(len(cols) - 2, -1, -1):
            strides[i] = strides[i + 1] * dims[i + 1]
        tables = {}
        for tag, half, u in (("ax", self.a, x), ("ay", self.a, y), ("bx", self.b, x), ("by", self.b, y)):
            view = half[u]
            code = _joint_code(view.cats, cols, strides)
            tables[tag] = view.bincount(code, cells).reshape(tuple(dims)).astype(float)
        out = []
        nb_x, nb_y = self.b[x].n, self.b[y].n
        for g in sorted({1, min(2, len(cols)), len(cols)}):
            axes = tuple(range(g, len(cols)))
            marg = {t: tab.sum(axis=axes).ravel() for t, tab in tables.items()}
            order = _ratio_order(marg["ax"], marg["ay"], na_x, na_y)
            pred, length, pe, qe = _best_prefix(order, marg["bx"], marg["by"], nb_x, nb_y, self.n_confirm, self.z,
                                                self.delta)
            if not math.isfinite(pred):
                continue
            in_set = np.zeros(len(marg["ax"]), dtype=bool)
            in_set[order[:length]] = True
            sub_strides = strides[:g] // strides[g - 1]
            event = ProjectionEvent(cols[:g], sub_strides, in_set,
                                    partial(self._describe_projection, cols[:g], dims[:g], in_set))
            out.append(Candidate((x, y), event, "projection", pred, pe, qe))
        return out

    def linear_weights(self, x, y) -> np.ndarray:
        ca_x, ca_y = self.cols_a[x], self.cols_a[y]
        na_x, na_y = self.a[x].n, self.a[y].n
        w = np.log((ca_x + 0.5) / (na_x + 1.0)) - np.log((ca_y + 0.5) / (na_y + 1.0))
        se = np.sqrt(1.0 / (ca_x + 0.5) + 1.0 / (ca_y + 0.5))
        w[np.abs(w) < 2 * se] = 0.0
        return w

    def linear(self, pairs: list) -> list[Candidate]:
        """Threshold events on the linear log-likelihood-ratio score, for all pairs at once
        (one matrix product per input over the pairs it takes part in)."""
        if not self.vector or not pairs:
            return []
        weights = np.stack([self.linear_weights(x, y) for x, y in pairs], axis=1).astype(np.float32)
        lo = np.minimum.reduceat(weights, self.offsets, axis=0).sum(axis=0, dtype=float)
        hi = np.maximum.reduceat(weights, self.offsets, axis=0).sum(axis=0, dtype=float)
        width = (hi - lo) / SCORE_BINS
        hist = {}
        by_input: dict = {}
        for i, (x, y) in enumerate(pairs):
            if width[i] > 0:
                by_input.setdefault(x, []).append((i, "x"))
                by_input.setdefault(y, []).append((i, "y"))
        for u, uses in by_input.items():
            view = self.b[u]
            idx = np.array([i for i, _ in uses])
            counts = self._score_histograms(view, weights[:, idx], lo[idx], width[idx])
            for (i, role), c in zip(uses, counts):
                hist[(i, role)] = c
        out = []
        for i, (x, y) in enumerate(pairs):
            if width[i] <= 0:
                continue
            # Event {score >= lo + j*width}: counts are reverse cumulative sums.
            px = np.cumsum(hist[(i, "x")][::-1])[::-1] / self.b[x].n
            qy = np.cumsum(hist[(i, "y")][::-1])[::-1] / self.b[y].n
            pred = predicted_bound(px, qy, self.n_confirm, self.z, min(self.b[x].n, self.b[y].n), self.delta)
            j = int(np.argmax(pred))
            if not math.isfinite(pred[j]):
                continue
            threshold = float(lo[i] + j * width[i])
            w = weights[:, i].astype(float)
            event = ScoreEvent(w, self.offsets, threshold, partial(self._describe_score, w, threshold))
            out.append(Candidate((x, y), event, "linear", float(pred[j]), float(px[j]), float(qy[j])))
        return out

    def _score_histograms(self, view: View, w: np.ndarray, lo: np.ndarray, width: np.ndarray) -> list:
        n_rows, n_pairs = view.cats.shape[0], w.shape[1]
        counts = np.zeros(n_pairs * SCORE_BINS, dtype=np.int64)
        chunk = max(1024, (1 << 23) // max(self.width_f, n_pairs, 1))
        cols = np.arange(view.cats.shape[1])
        shift = (np.arange(n_pairs, dtype=np.int32) * SCORE_BINS)[None, :]
        lo32 = lo.astype(np.float32)
        inv32 = (1.0 / width).astype(np.float32)
        for start in range(0, n_rows, chunk):
            cats = view.cats[start:start + chunk]
            onehot = np.zeros((cats.shape[0], self.width_f), dtype=np.float32)
            rows = np.arange(cats.shape[0])[:, None]
            onehot[rows, self.offsets[cols][None, :] + cats] = 1.0
            scaled = onehot @ w
            scaled -= lo32
            scaled *= inv32
            np.clip(scaled, 0, SCORE_BINS - 1, out=scaled)
            bins = scaled.astype(np.int32)
            bins += shift
            weights = None if view.weights is None else np.repeat(view.weights[start:start + chunk], n_pairs)
            counts += np.bincount(bins.ravel(), weights=weights, minlength=n_pairs * SCORE_BINS).astype(np.int64)
        return list(counts.reshape(n_pairs, SCORE_BINS))

    # -- descriptions --------------------------------------------------------------------
    def _describe_codes(self, in_set: np.ndarray, family: str) -> str:
        codes = np.flatnonzero(in_set)
        if self.feat.shape == "real":
            return "y in " + " ∪ ".join(_intervals(codes, self.feat.edges))
        names = [self.feat.describe_code(int(c)) for c in codes[:MAX_DESCRIBED]]
        more = len(codes) - MAX_DESCRIBED
        text = ", ".join(names) + (f", ... ({more} more)" if more > 0 else "")
        return f"y in {{{text}}}"

    def _describe_projection(self, cols, dims, in_set) -> str:
        grid = in_set.reshape(tuple(dims))
        keep = []
        for axis in range(grid.ndim):
            first = np.take(grid, [0], axis=axis)
            if not (grid == first).all():
                keep.append(axis)
        # Columns the set does not depend on are left out of the description.
        index = tuple(slice(None) if a in keep else 0 for a in range(grid.ndim))
        grid = grid[index]
        cols = [cols[a] for a in keep]
        if not cols:
            return "any output" if grid.all() else "no output"
        cells = np.argwhere(grid)
        parts = []
        for cell in cells[:MAX_DESCRIBED]:
            parts.append(" and ".join(self.feat.describe_cat(int(j), int(c)) for j, c in zip(cols, cell)))
        more = len(cells) - MAX_DESCRIBED
        if len(parts) == 1:
            return parts[0]
        return " or ".join(f"({p})" for p in parts) + (f" or ... ({more} more cells)" if more > 0 else "")

    def _describe_score(self, w: np.ndarray, threshold: float) -> str:
        terms = []
        for j in range(len(self.ncat)):
            block = w[self.offsets[j]:self.offsets[j] + self.ncat[j]]
            for c in np.flatnonzero(block):
                terms.append((abs(block[c]), f"{block[c]:+.3f}·[{self.feat.describe_cat(j, int(c))}]"))
        terms.sort(key=lambda t: -t[0])
        shown = " ".join(t for _, t in terms[:MAX_DESCRIBED])
        more = len(terms) - MAX_DESCRIBED
        return f"score >= {threshold:.4g}, score = {shown}" + (f" + {more} smaller terms" if more > 0 else "")


def _intervals(codes: np.ndarray, edges: np.ndarray) -> list[str]:
    """Merge consecutive bins into intervals [lo, hi)."""
    out = []
    if len(codes) == 0:
        return ["∅"]
    start = prev = int(codes[0])
    for c in list(codes[1:]) + [None]:
        if c is not None and int(c) == prev + 1:
            prev = int(c)
            continue
        lo = -math.inf if start == 0 else edges[start - 1]
        hi = math.inf if prev == len(edges) else edges[prev]
        out.append(f"[{lo:.4g}, {hi:.4g})")
        if c is not None:
            start = prev = int(c)
    return out


def search(feat: Featurizer, half_a: dict, half_b: dict, pairs: list, *, n_confirm: int, z: float,
           max_pairs: int = 1000, searcher: Search | None = None, extra: list | None = None,
           delta: float = 0.0) -> list[Candidate]:
    """All families' best event per pair, and the ``extra`` candidates, sorted by predicted
    certified bound at δ (``searcher``'s if given, best first). The pairs kept by screening are
    left in ``searcher.pairs``."""
    s = searcher or Search(feat, half_a, half_b, n_confirm, z, delta)
    pairs = s.screen(pairs, max_pairs)
    s.pairs = pairs
    candidates = []
    for (x, y), found in zip(pairs, s.histograms(pairs)):
        candidates += found
        candidates += s.projection(x, y)
    candidates += s.linear(pairs)
    candidates += extra or []
    n_rank = min(v.n for v in half_b.values())
    missing = [c for c in candidates if not c.sd]
    if missing:
        sd = bound_sd(np.array([c.p_explore for c in missing], dtype=float),
                      np.array([c.q_explore for c in missing], dtype=float), n_confirm, s.delta)
        for c, v in zip(missing, sd.tolist()):
            c.sd = v
    keys = [-(c.predicted - p) for c, p in zip(candidates, _complexity_penalties(candidates, feat, n_rank, s.delta))]
    order = sorted(range(len(candidates)), key=keys.__getitem__)
    candidates[:] = [candidates[i] for i in order]
    return candidates


def _complexity_penalties(candidates: list[Candidate], feat: Featurizer, n_rank: int, delta: float = 0.0) -> list:
    """Per candidate, one standard deviation of the ranking half's estimate against sets of
    many frequent rows or real-output bins (whose best prefix partly fits that half's noise),
    so that a threshold or projection event doing about as well is preferred: it is as valid,
    and easier to read. 0 for the others."""
    penalty = [0.0] * len(candidates)
    if feat.shape == "discrete":
        return penalty
    many = [i for i, c in enumerate(candidates)
            if c.family == "histogram" and np.count_nonzero(c.event.in_set) > 2]
    if many:
        sd = bound_sd(np.array([candidates[i].p_explore for i in many], dtype=float),
                      np.array([candidates[i].q_explore for i in many], dtype=float), n_rank, delta)
        for i, v in zip(many, sd.tolist()):
            penalty[i] = v
    return penalty


def choose(candidates: list[Candidate], max_confirm: int) -> list[Candidate]:
    """The candidates to confirm: the best, plus the next ones (distinct events) whose
    predicted bound is within one standard deviation of it, up to max_confirm."""
    chosen: list[Candidate] = []
    seen = set()
    for c in candidates:
        key = (c.pair, round(c.p_explore, 12), round(c.q_explore, 12))
        if key in seen:
            continue
        if chosen and (c.predicted < chosen[0].predicted - chosen[0].sd or len(chosen) >= max_confirm):
            break
        seen.add(key)
        chosen.append(c)
    return chosen
