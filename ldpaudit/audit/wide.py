"""Black-box audits over wide domains (10^4 to 10^6 inputs) in memory linear in d.

At d inputs and n draws per input the per-pair search (events.py) cannot see anything: a
k-RR output equals the input with probability e^ε/(e^ε + d − 1), a few times in n = 10^4
draws, and the search's tables grow as d × outputs (12 GB at d = 10^4). What carries the
bound is a pooled event (pool.py): one relation S_x for every input x (y == x, y[x] = v,
x in y), counted under x and under x' = the next input, so every input's draws count once on
each side and the pooled inequality (1/d) Σ P(S_x|x) <= e^ε (1/d) Σ P(S_x|next(x)) is
certified from d·n trials a side (Hoeffding 1956 for the Poisson-binomial sums, see pool.py).

How a wide audit runs, every step linear in d and streamed (draws are reduced to counts
chunk by chunk and never kept):

1. pilot: a few draws of every input give the output shape (scalars, bit vectors as 2-D
   arrays, sets) and so the relations to pool;
2. per-pair search on a subsample of inputs (evenly spaced, at most ``SUBSAMPLE``, fewer when
   wide vector outputs would exceed the memory budget): the regular search of auditor.py, so
   that a flaw of a few inputs that no relation sees can still be found;
3. relation exploration: every input's exploration draws counted for every relation;
4. confirmation: the chosen candidates (relations and subsample events, Bonferroni over all)
   counted on fresh draws of every input they use.

Wide outputs are drawn in chunks of at most ``CHUNK_BYTES`` (a bit vector of d = 10^5
columns: 160 draws per chunk), so one chunk never holds more than a few megabytes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ldpaudit.audit import bounds
from ldpaudit.audit.adapters import Outputs
from ldpaudit.audit.draws import CHUNK, Positions
from ldpaudit.audit.events import Candidate, Event

WIDE_INPUTS = 4096              # more inputs than this: always a wide audit
GUIDED_INPUTS = 256             # a spec-guided audit over more inputs runs as a wide black-box one
SUBSAMPLE = 24                  # inputs of the per-pair search in a wide audit, at most
CHUNK_BYTES = 1 << 23           # one chunk of vector outputs holds at most this many cells
MAX_VALUES = 2                  # values v of y[x] = v pooled for vector outputs (the most frequent)
PILOT_WIDE = 8                  # pilot draws per input of a wide audit


def chunk_size(width: int) -> int:
    """Draws per chunk for outputs of ``width`` columns (1 for scalars)."""
    return int(max(64, min(CHUNK, CHUNK_BYTES // max(1, width) // 8)))


def explore_memory(n_inputs: int, half: int, width: int, distinct: int) -> int:
    """Bytes the per-pair search of auditor.py would hold for these inputs: compacted views
    (2·half draws per input; scalar views keep at most ``distinct`` rows), the code tables
    of the search and its screening (about eight d × codes arrays) and the d × d pair scores."""
    codes = max(2, min(distinct, 4097))
    if width > 1:
        views = n_inputs * 2 * half * (width + 24)
    else:
        views = n_inputs * min(2 * half, codes) * 32
    return views + 8 * 8 * n_inputs * codes + 8 * n_inputs * n_inputs


def is_wide(n_inputs: int, half: int, width: int, distinct: int, memory_mb: float) -> bool:
    """Whether the per-pair search over every input would not fit in half the budget (or the
    domain is wider than ``WIDE_INPUTS``)."""
    return n_inputs > WIDE_INPUTS or explore_memory(n_inputs, half, width, distinct) > memory_mb * 2**20 / 2


def subsample(inputs: list, half: int, width: int, memory_mb: float) -> list:
    """Evenly spaced inputs (first and last included) for the per-pair search, as many as
    ``SUBSAMPLE`` and a quarter of the budget allow (at least 2)."""
    m = SUBSAMPLE
    while m > 2 and explore_memory(m, half, width, 4097) > memory_mb * 2**20 / 4:
        m -= 1
    if len(inputs) <= m:
        return list(inputs)
    idx = np.unique(np.linspace(0, len(inputs) - 1, m).round().astype(np.int64))
    return [inputs[i] for i in idx]


# -- the shape of the outputs, from the pilot --------------------------------------------------

@dataclass
class Shape:
    """What the pilot draws show: scalars ('scalar'), vectors of ``width`` columns
    ('vector', 2-D arrays), sets ('set', tuples or frozensets whose order is ignored), tuples
    read as opaque values ('opaque') or several of these ('mixed': no relation; the featurizer
    of the per-pair search reports the inputs that differ)."""

    kind: str = ""
    width: int = 1
    values: dict = field(default_factory=dict)   # value -> count in vector cells (vectors)
    distinct: set = field(default_factory=set)   # distinct scalar outputs (capped)

    def add(self, x, out: Outputs, as_set: bool) -> None:
        if out.n == 0:
            return
        if out.kind == "array" and out.values.ndim == 2:
            kind, width = "vector", out.values.shape[1]
            vals, counts = np.unique(out.values, return_counts=True)
            if len(self.values) < 64:
                for v, c in zip(vals.tolist(), counts.tolist()):
                    self.values[v] = self.values.get(v, 0) + c
        elif out.kind == "array":
            kind, width = "scalar", 1
            if len(self.distinct) < 1 << 16:
                self.distinct.update(np.unique(out.values).tolist())
        else:
            first = out.values[0]
            if as_set or isinstance(first, (frozenset, set)):
                kind, width = "set", 1
            elif isinstance(first, tuple):
                kind, width = "opaque", 1
            else:
                kind, width = "scalar", 1
            if len(self.distinct) < 1 << 16:
                self.distinct.update(v for v in out.values if not isinstance(v, set))
        if self.kind and (kind, width) != (self.kind, self.width):
            self.kind, self.width = "mixed", max(width, self.width)   # the featurizer names the inputs
            return
        if self.kind != "mixed":
            self.kind, self.width = kind, width


# -- relations on raw outputs ------------------------------------------------------------------

class Ring(Positions):
    """The inputs in domain order with the cyclic successor x' = next(x): positions only, so
    that a domain of 10^6 integers 0..d-1 costs nothing to keep or to send to a worker."""

    def pos(self, u) -> int:
        return self[u]

    def pred(self, u):
        return self.at((self.pos(u) - 1) % self.n)

    def succ(self, u):
        return self.at((self.pos(u) + 1) % self.n)


@dataclass(eq=False)
class WideRelation(Event):
    """S_x for every input x, counted on raw outputs: under x (role 0) and under x' = next(x)
    (role 1: input u counts S_{prev(u)}). ``kind``: 'equal' (y == x), 'column' (y[col(x)] =
    value, with ``exclude`` also y[col(next(x))] != value) or 'member' (x in y, with
    ``exclude`` also next(x) not in y) or 'hash' (value == h(seed, x), with ``exclude`` also
    value != h(seed, next(x)), on local-hashing outputs (seed, value))."""

    kind: str
    ring: Ring
    value: object = None
    exclude: bool = False
    column_of_index: bool = False    # column of x: its position in the domain (else x itself)
    text: object = ""
    hash_function: object = None     # kind 'hash': value == h(seed, x) on (seed, value) outputs

    def column(self, x) -> int:
        return self.ring.pos(x) if self.column_of_index else int(x)

    def count(self, out: Outputs, x) -> int:
        """Draws in ``out`` that are in S_x."""
        if out.n == 0:
            return 0
        nxt = self.ring.succ(x)
        if self.kind == "equal":
            if out.kind == "array":
                return int(np.count_nonzero(out.values == x))
            return int(sum(int(c) for v, c in zip(out.values, out.counts) if _same(v, x)))
        if self.kind == "hash":
            seeds, values = _hashed(out, None, None)
            m = _hashed(out, self.hash_function, x) == values
            if self.exclude:
                m &= _hashed(out, self.hash_function, nxt) != values
            return int(np.count_nonzero(m))
        if self.kind == "column":
            vals = out.values
            m = vals[:, self.column(x)] == self.value
            if self.exclude:
                m &= vals[:, self.column(nxt)] != self.value
            return int(np.count_nonzero(m))
        total = 0
        for v, c in zip(out.values, out.counts):
            if x in v and not (self.exclude and nxt in v):
                total += int(c)
        return total

    def block_hits(self, block, role: int) -> int | None:
        """:meth:`hits` summed over the chunks of a block (draws.Block) at once, where that is
        the same count: y == x on 1-d numeric outputs of a ring of consecutive integers (x
        compared in the outputs' dtype, as a Python int would be); None otherwise."""
        if self.kind != "equal" or self.ring.values is not None:
            return None
        xs = np.asarray(block.inputs, dtype=np.int64)
        if role:
            xs = self.ring.start + (xs - self.ring.start - 1) % self.ring.n
        flat, dtype = block.narrow()
        if flat is not None and dtype.kind in "iu" and flat.dtype.kind in "iu":
            info = np.iinfo(flat.dtype)     # integers compared in the dtype they travelled in
            if info.min <= int(xs.min()) and int(xs.max()) <= info.max:
                xs = xs.astype(flat.dtype)
            else:
                flat = None
        else:
            flat = None
        if flat is None:
            flat = block.flat()
            if flat is None or flat.dtype.kind not in "biuf" or flat.dtype == np.uint64:
                return None
            if flat.dtype.kind == "f":
                xs = xs.astype(flat.dtype)
        sizes = block.sizes()
        if len(set(sizes)) == 1:
            return int(np.count_nonzero(flat.reshape(len(sizes), sizes[0]) == xs[:, None]))
        return int(np.count_nonzero(flat == np.repeat(xs, sizes)))

    def hits(self, view, u, role: int) -> int:
        x = u if role == 0 else self.ring.pred(u)
        if isinstance(view, HashedChunk) and self.kind == "hash" and view.h is self.hash_function:
            m = view.column(x) == view.values
            if self.exclude:
                m &= view.column(self.ring.succ(x)) != view.values
            return int(np.count_nonzero(m))
        out = view.out if hasattr(view, "out") else view
        return self.count(out, x)

    def mask(self, view):
        raise TypeError("a relation event depends on the input; count it with hits(view, u, role)")


class HashedChunk:
    """A chunk of (seed, value) outputs read through the hash ``h``: its seeds and values split
    once, and h(seed, x) computed once for each x asked (x, next(x), prev(x)), shared by every
    hashed relation and conformance test counting the chunk (the view of a hashed wide audit)."""

    __slots__ = ("out", "h", "seeds", "values", "_columns")

    def __init__(self, out: Outputs, h):
        from ldpaudit.audit.projection import seeds_and_values

        self.out, self.h, self._columns = out, h, {}
        if out.n == 0:
            self.seeds = self.values = np.zeros(0, dtype=np.int64)
            return
        pairs = out.values if out.kind == "array" else np.repeat(np.array(out.values, dtype=object), out.counts, axis=0)
        self.seeds, self.values = seeds_and_values(pairs)

    def column(self, x):
        col = self._columns.get(x)
        if col is None:
            from ldpaudit.audit.projection import hash_column

            col = self._columns[x] = hash_column(self.h, self.seeds, x)
        return col


_HASHED: dict = {}       # (id(outputs), hash, x) -> (outputs, value): a chunk's seeds and hashes, computed once


def _hashed(out: Outputs, h, x):
    """The (seeds, values) of a chunk of (seed, value) outputs (``h`` None), or h(seed, x) for
    its seeds: every relation and test counting the chunk shares them (the cache keeps the
    chunk alive, so its id is not reused while cached)."""
    key = (id(out), id(h), x)
    hit = _HASHED.get(key)
    if hit is not None and hit[0] is out:
        return hit[1]
    if len(_HASHED) > 16:
        _HASHED.clear()
    from ldpaudit.audit.projection import hash_column, seeds_and_values

    if h is None:
        pairs = out.values if out.kind == "array" else np.repeat(np.array(out.values, dtype=object), out.counts, axis=0)
        value = seeds_and_values(pairs)
    else:
        value = hash_column(h, _hashed(out, None, None)[0], x)
    _HASHED[key] = (out, value)
    return value


def _same(v, x) -> bool:
    try:
        return bool(v == x) and type(v) is not bool
    except Exception:
        return False


def relations(shape: Shape, ring: Ring) -> list[tuple[str, WideRelation]]:
    """The relations the output shape supports, each with its name."""
    out = []
    if shape.kind == "scalar":
        out.append(("y == x", WideRelation("equal", ring)))
    elif shape.kind == "set":
        out.append(("x in y", WideRelation("member", ring)))
        out.append(("x in y and x' not in y", WideRelation("member", ring, exclude=True)))
    elif shape.kind == "vector":
        first, last = ring.at(0), ring.at(ring.n - 1)
        ints = ring.values is None or all(isinstance(u, (int, np.integer)) for u in (first, last))
        if ints and ring.values is None and 0 <= ring.start and ring.start + ring.n <= shape.width:
            by_index = False
        elif ring.n == shape.width:
            by_index = True
        else:
            return out
        common = sorted(shape.values, key=lambda v: -shape.values[v])[:MAX_VALUES]
        for v in sorted(common):
            out.append((f"y[x] = {v:g}", WideRelation("column", ring, v, False, by_index)))
            out.append((f"y[x] = {v:g} and y[x'] != {v:g}", WideRelation("column", ring, v, True, by_index)))
    return out


class RelationTally:
    """Counts of every relation under both roles in one chunk: a plain value (a cluster can
    compute it where the chunk is drawn)."""

    def __init__(self, events: list[WideRelation], ring: Ring):
        self.events, self.ring = events, ring

    def __call__(self, out: Outputs, i: int) -> np.ndarray:
        u = self.ring.at(i)
        return np.asarray([e.hits(out, u, role) for e in self.events for role in (0, 1)], dtype=np.int64)

    def block(self, block) -> np.ndarray:
        """The sum of the rows of a block's chunks (draws.Block)."""
        row = []
        for e in self.events:
            for role in (0, 1):
                count = e.block_hits(block, role)
                if count is None:
                    count = sum(e.hits(out, u, role) for u, out in zip(block.inputs, block.outs))
                row.append(count)
        return np.asarray(row, dtype=np.int64)


@dataclass
class WideCandidate(Candidate):
    """A relation pooled over every input of the ring: both sides count every input."""

    ring: Ring | None = None
    pooled_text: str = ""

    def roles(self, u) -> tuple:
        return (0, 1)

    @property
    def inputs(self):
        """Every input of the ring, in order (a range or the ring's list: nothing copied)."""
        return range(self.ring.start, self.ring.start + self.ring.n) if self.ring.values is None else self.ring.values

    def trials(self, n: int) -> tuple[int, int]:
        return self.ring.n * n, self.ring.n * n

    def block_hits(self, block, role: int) -> int | None:
        """Hits of a block's chunks at once (every input plays both roles), or None."""
        return self.event.block_hits(block, role)


def relation_candidates(events: list[tuple[str, WideRelation]], counts: np.ndarray, n_explore: int, *,
                        ring: Ring, n_confirm: int, z: float, delta: float) -> list[WideCandidate]:
    """Candidates of the relations, ranked by the bound their exploration counts predict on
    d·n_confirm confirmation trials a side (the same pessimistic prediction as events.py)."""
    d = ring.n
    n_e = d * n_explore
    out = []
    for k, (name, event) in enumerate(events):
        a, b = int(counts[2 * k]), int(counts[2 * k + 1])
        p, q = a / n_e, b / n_e
        predicted = float(bounds.predicted_bound(p, q, n_confirm * d, z, n_e, delta))
        if not math.isfinite(predicted):
            continue
        c = pooled_candidate(name, event, ring, predicted, p, q)
        c.sd = float(bounds.bound_sd(p, q, n_confirm * d, delta))
        out.append(c)
    return out


def fixed_candidates(events: list[tuple[str, WideRelation]], ring: Ring) -> list[WideCandidate]:
    """The relations as candidates chosen before sampling (no prediction)."""
    return [pooled_candidate(name, event, ring, math.nan, math.nan, math.nan) for name, event in events]


def pooled_candidate(name: str, event: WideRelation, ring: Ring, predicted: float, p: float,
                     q: float) -> WideCandidate:
    """Relation ``name`` pooled over the ring as a candidate (its texts from pool.pooled_texts)."""
    from ldpaudit.audit.pool import pooled_texts

    event.text, pooled = pooled_texts(name, ring.n)
    return WideCandidate((ring.at(0), ring.at(1 % ring.n)), event, "pooled", predicted, p, q, ring=ring,
                         pooled_text=pooled)


class ChunkView:
    """What confirmation counts in one chunk: the raw outputs (relations) and, for an input of
    the subsample, the featurizer's view (subsample events, computed only when asked)."""

    __slots__ = ("out", "_feat", "_u", "_view")

    def __init__(self, out: Outputs, feat, u):
        self.out, self._feat, self._u, self._view = out, feat, u, None

    def featurized(self):
        if self._view is None:
            self._view = self._feat.transform(self.out, self._u)
        return self._view


@dataclass(eq=False)
class OnFeatures(Event):
    """A subsample event counted on the featurizer's view of a chunk."""

    inner: Event = None

    @property
    def description(self) -> str:
        return self.inner.description

    def hits(self, view, u, role: int) -> int:
        return self.inner.hits(view.featurized(), u, role)

    def __getattr__(self, name):           # in_set, example, ...: the inner event's
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)
