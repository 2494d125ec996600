"""What every form of the spec-guided audit shares: a sample seen through the spec
(:class:`SpecView`), the events over it, and the conformance tests' Holm correction and summary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldpaudit.audit import binomial
from ldpaudit.audit.adapters import Outputs
from ldpaudit.audit.events import Event
from ldpaudit.errors import RandomizerError

_PHASE_GUIDED = 4


@dataclass
class SpecView:
    n: int
    weights: np.ndarray | None
    codes: np.ndarray | None = None     # index into the spec's finite outputs
    mat: np.ndarray | None = None       # membership (subset), coordinates (product)
    vals: np.ndarray | None = None      # real outputs (density)
    raw: Outputs | None = None
    fbits: np.ndarray | None = None     # float features of real outputs (guided_floats.FloatView)

    def count(self, mask: np.ndarray) -> int:
        if self.weights is None:
            return int(np.count_nonzero(mask))
        return int(self.weights[mask].sum())


def _rows(out: Outputs) -> tuple[list | np.ndarray, np.ndarray | None]:
    if out.kind == "array":
        return out.values, None
    return out.values, out.counts


def _space_error(x, y, space: str) -> RandomizerError:
    text = repr(y)
    text = text if len(text) <= 80 else text[:77] + "..."
    return RandomizerError(f"randomizer returned {text} for input {x!r}, outside the spec's output space {space}")


@dataclass(eq=False)
class CellsEvent(Event):
    """(mat[:, i], mat[:, j]) in cells."""

    i: int
    j: int
    cells: tuple
    description: str = ""

    def mask(self, view):
        a, b = view.mat[:, self.i], view.mat[:, self.j]
        m = np.zeros(len(a), dtype=bool)
        for u, v in self.cells:
            m |= (a == u) & (b == v)
        return m


@dataclass(eq=False)
class ElementEvent(Event):
    """y in ``singles``, or (with ``others``) y outside ``special``."""

    singles: tuple
    others: bool
    special: tuple
    description: str = ""

    def mask(self, view):
        m = np.isin(view.codes, self.singles) if self.singles else np.zeros(len(view.codes), bool)
        if self.others:
            m |= ~np.isin(view.codes, self.special)
        return m


@dataclass(eq=False)
class ColumnValueEvent(Event):
    """mat[:, j] == value (or, with ``others``, the pooled count over all columns but j)."""

    j: int
    value: object
    description: str = ""

    def mask(self, view):
        return view.mat[:, self.j] == self.value


@dataclass(eq=False)
class BoxEvent(Event):
    """A real output (column i, or the scalar with i None) >= a, and column j < b."""

    i: int | None
    a: float
    j: int | None = None
    b: float = math.inf
    upper: bool = True
    description: str = ""

    def mask(self, view):
        first = view.vals if self.i is None else view.mat[:, self.i]
        m = first >= self.a if self.upper else first < self.a
        if self.j is not None:
            m &= view.mat[:, self.j] < self.b
        return m


@dataclass(eq=False)
class IntervalsEvent(Event):
    """A real output in [a_0, b_0) ∪ [a_1, b_1) ∪ ...: ``ends`` is the increasing array
    a_0, b_0, a_1, b_1, ... (±inf allowed); y is inside when an odd number of ends are <= y."""

    ends: np.ndarray
    description: str = ""

    def mask(self, view):
        y = view.vals
        if len(self.ends) > 16:   # a binary search per output (~25 ns each) beats many comparisons
            return np.searchsorted(self.ends, y, side="right") % 2 == 1
        m = np.zeros(len(y), dtype=bool)
        for a, b in zip(self.ends[::2], self.ends[1::2]):   # two comparisons per interval: ~1 ns per output
            if a == -math.inf:
                m |= y < b
            elif b == math.inf:
                m |= y >= a
            else:
                m |= (y >= a) & (y < b)
        return m


@dataclass(eq=False)
class PredicateEvent(Event):
    """A user predicate on one raw output (for ``audit(events=...)``)."""

    predicate: object
    description: str = ""

    def mask(self, view):
        values, _ = _rows(view.raw)
        if isinstance(values, np.ndarray):
            items = values.tolist() if values.ndim == 1 else [tuple(r) for r in values.tolist()]
        else:
            items = values
        return np.fromiter((bool(self.predicate(v)) for v in items), dtype=bool, count=len(items))


@dataclass(eq=False)
class _OffColumns(Event):
    """Pooled over the columns other than i: the number of (row, column) with value v
    (or >= v for real columns); Binomial(n (d-1), p) under a product spec."""

    i: int
    value: object
    description: str = ""
    real: bool = False

    def hits(self, view, u=None, role: int = 0) -> int:
        mat = view.mat
        hit = mat >= self.value if self.real else mat == self.value
        per_row = hit.sum(axis=1) - hit[:, self.i]
        return int(per_row.sum() if view.weights is None else (per_row * view.weights).sum())


@dataclass(eq=False)
class _PooledRelation(Event):
    """A conformance event that depends on the input u through one relation, counted on the
    draws of every input: y = u (codes), u in y / y[pos(u)] = value (column of u), or the
    other columns of u (``off``, (d-1) trials per draw). Under the spec its count over all
    inputs is a sum of independent Bernoulli draws of one shared probability, a binomial."""

    column: dict | None = None          # u -> column of mat
    code: dict | None = None            # u -> output code
    value: object = True
    off: bool = False
    real: bool = False
    description: str = ""

    def hits(self, view, u=None, role: int = 0) -> int:
        if self.code is not None:
            return view.count(view.codes == self.code[u])
        j = self.column[u]
        if self.off:
            return _OffColumns(j, self.value, real=self.real).hits(view)
        col = view.mat[:, j]
        return view.count(col >= self.value if self.real else col == self.value)


def _member(x, a) -> str:
    return f"{x} in y" if a else f"{x} not in y"


def _holm(pvalues: list[float], alpha: float) -> list[bool]:
    """Holm's step-down rejections at family-wise level alpha."""
    order = np.argsort(pvalues, kind="stable")
    m = len(pvalues)
    reject = [False] * m
    for rank, i in enumerate(order):
        if pvalues[i] <= alpha / (m - rank):
            reject[i] = True
        else:
            break
    return reject


def _conformance(tests, test_hits, n: int, alpha: float) -> dict:
    pvalues = []
    for (u, ev, p, per), h in zip(tests, test_hits):
        trials = n * per
        pvalues.append(binomial.pvalue(h, trials, min(max(p, 0.0), 1.0)))
    reject = _holm(pvalues, alpha) if pvalues else []
    rejected = [i for i, r in enumerate(reject) if r]
    discrepancy = None
    if rejected:
        i = min(rejected, key=lambda j: pvalues[j])
        u, ev, p, per = tests[i]
        trials = n * per
        discrepancy = {"input": u if u is not None else "every input (pooled)", "event": ev.description, "count": test_hits[i], "trials": trials,
                       "observed_frequency": test_hits[i] / trials, "expected_probability": p,
                       "p_value": pvalues[i]}
    return {"passed": not rejected, "tests": len(tests), "rejected": len(rejected), "alpha": alpha,
            "method": (f"{len(tests)} exact two-sided binomial tests of observed frequencies against the "
                       f"spec's probabilities, Holm-corrected at family-wise level α = {alpha:g}"),
            "discrepancy": discrepancy}
