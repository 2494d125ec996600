"""Float-level events for real outputs: what the bit patterns of doubles give away.

``x + numpy.random.laplace(scale=1/ε)`` is ε-DP over the reals and not private at all over the
doubles (Mironov, CCS 2012): the doubles reachable from x = 0 (every double L the sampler can
return) and from x = 1 (the rounded sums fl(1 + L), on a coarser grid near 0) differ, so some
outputs occur under one input and never under the other. Quantile bins cannot see this; these
binary features of each real output (or each real column of a vector output) can:

- round trip through an offset c: fl(fl(y − c) + c) ≠ y, "y is not c plus a double". For an
  output fl(c + L) the round trip holds (almost always exactly); for an output drawn without
  adding c it fails whenever y carries bits finer than the grid of y − c. The offsets c are
  fixed on the pilot sample: the numeric inputs and the rounded medians of the outputs;
- trailing zero bits of the mantissa: at least k of the low mantissa bits are zero
  (k = 4, 12, 24): a coarse grid of reachable values near an input.

Each feature gives the events {feature} and {not feature}; the search (``float_candidates``)
chooses, per input pair, the best on the exploration sample, and the confirmation sample
certifies it like every other event (Clopper-Pearson, Bonferroni over everything confirmed).
The witness names two outputs: one drawn under x that is in the event, one drawn under x' that
is not, with the arithmetic a person can redo.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ldpaudit.audit import bounds
from ldpaudit.audit.events import Candidate, Event

LOW_BITS = (4, 12, 24)
MAX_OFFSETS = 8
MAX_FLOAT_COLUMNS = 16
_MANTISSA = np.uint64((1 << 52) - 1)


class FloatFeatures:
    """Binary features of real outputs: a list of (column or None for scalars, kind, param)."""

    def __init__(self, features: list[tuple]):
        self.features = features

    @classmethod
    def fit(cls, columns: dict, inputs: list) -> "FloatFeatures | None":
        """columns: {column index or None: {input: pilot float values}}."""
        feats = []
        numeric = [float(u) for u in inputs if isinstance(u, numbers.Real) and not isinstance(u, bool)]
        for j, by_input in list(columns.items())[:MAX_FLOAT_COLUMNS]:
            values = [v for v in by_input.values() if len(v)]
            if not values or all(np.all(v == np.round(v)) for v in values):
                continue                      # integer-valued: nothing below the unit grid
            offsets = [] if j is not None else [c for c in numeric if c != 0]
            offsets += [float(np.round(np.median(v))) for v in values]
            offsets += [1.0]
            seen = []
            for c in offsets:
                if c != 0 and math.isfinite(c) and c not in seen:
                    seen.append(c)
            for c in seen[:MAX_OFFSETS]:
                feats.append((j, "roundtrip", c))
            for k in LOW_BITS:
                feats.append((j, "lowbits", k))
        return cls(feats) if feats else None

    @property
    def width(self) -> int:
        return len(self.features)

    def transform(self, values: np.ndarray) -> np.ndarray:
        """(n, width) bool matrix for float values of shape (n,) or (n, m)."""
        values = np.asarray(values, dtype=float)
        out = np.zeros((values.shape[0], len(self.features)), dtype=bool)
        for f, (j, kind, param) in enumerate(self.features):
            col = values if j is None else values[:, j]
            out[:, f] = _feature(col, kind, param)
        return out

    def describe(self, f: int, holds: bool) -> str:
        j, kind, param = self.features[f]
        y = "y" if j is None else f"y[{j}]"
        if kind == "roundtrip":
            rel = "!=" if holds else "=="
            return f"({y} - {param:g}) + {param:g} {rel} {y} in float64"
        return f"the low {param} mantissa bits of {y} are {'all zero' if holds else 'not all zero'}"

    def explain(self, f: int, y: float) -> str:
        j, kind, param = self.features[f]
        name = "y" if j is None else f"y[{j}]"
        if kind == "roundtrip":
            back = (y - param) + param
            return f"{name} = {y!r}: ({name} - {param:g}) + {param:g} = {back!r}"
        bits = int(np.float64(y).view(np.uint64) & _MANTISSA)
        return f"{name} = {y!r}: mantissa 0x{bits:013x}"


def _feature(col: np.ndarray, kind: str, param) -> np.ndarray:
    if kind == "roundtrip":
        return (col - param) + param != col
    bits = col.view(np.uint64) & _MANTISSA
    return (bits & np.uint64((1 << param) - 1)) == 0


class FloatEvent(Event):
    """Feature f of the float features has value ``holds``."""

    def __init__(self, f: int, holds: bool, text, example: str = ""):
        self.f = f
        self.holds = holds
        self.text = text
        self.example = example

    def mask(self, view):
        return view.fbits[:, self.f] == self.holds


def float_candidates(s, pairs: list, *, n_confirm: int, z: float) -> list[Candidate]:
    """Per ordered pair, the float event (feature, value) with the best predicted bound on the
    ranking half (half B), with an example pair of outputs from half B."""
    floats = getattr(s.feat, "floats", None)
    if floats is None:
        return []
    counts = {u: _counts(v) for u, v in s.b.items()}
    out = []
    for x, y in pairs:
        (hx, nx), (hy, ny) = counts[x], counts[y]
        p = np.concatenate([hx / nx, 1 - hx / nx])
        q = np.concatenate([hy / ny, 1 - hy / ny])
        pred = bounds.predicted_bound(p, q, n_confirm, z, min(nx, ny))
        i = int(np.argmax(pred))
        if not math.isfinite(pred[i]):
            continue
        f, holds = i % floats.width, i < floats.width
        event = FloatEvent(f, holds, floats.describe(f, holds), _example(floats, s.b[x], s.b[y], f, holds, x, y))
        c = Candidate((x, y), event, "float", float(pred[i]), float(p[i]), float(q[i]))
        out.append(c)
    return out


def _counts(view) -> tuple[np.ndarray, int]:
    if view.weights is None:
        return view.fbits.sum(axis=0).astype(float), view.n
    return (view.fbits * view.weights[:, None]).sum(axis=0).astype(float), view.n


def _example(floats: FloatFeatures, vx, vy, f: int, holds: bool, x, y) -> str:
    """Two outputs of the exploration sample: one drawn under x in the event, one drawn under
    x' outside it (if any)."""
    j = floats.features[f][0]

    def pick(view, want):
        rows = np.flatnonzero(view.fbits[:, f] == want)
        if not len(rows) or view.raw is None:
            return None
        r = view.raw[rows[0]]
        return float(r if j is None else r[j])

    a, b = pick(vx, holds), pick(vy, not holds)
    parts = []
    if a is not None:
        parts.append(f"under x = {x!r}: {floats.explain(f, a)} (in S)")
    if b is not None:
        parts.append(f"under x' = {y!r}: {floats.explain(f, b)} (not in S)")
    return "; ".join(parts)
