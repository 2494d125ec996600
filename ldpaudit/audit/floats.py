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

Both are tested in the format each column was computed in, detected on the pilot sample
(features.detect_precision): float32 (or float16) when the array has that dtype or every
value is one, with the round trip computed in float32 and its 23-bit mantissa (k = 1, 4, 12):
float32 ``x + Laplace`` or one-hot plus float32 noise (coordinate x is fl32(1 + n), the
others fl32(n): in [0.25, 0.5) the odd multiples of 2^-25 never come from x) pass the float64
tests untouched. On a decimal grid (every value a multiple of 10^-k) the analogue is "y - c is
a multiple of 10^-(k-1) (or 10^-(k-2))".

The features are part of the featurizer's view (features.FloatFeatures, fitted with it). Each
feature gives the events {feature} and {not feature}; the search (``float_candidates``)
chooses, per input pair, the best on the exploration sample, and the confirmation sample
certifies it like every other event (Clopper-Pearson, Bonferroni over everything confirmed).
The witness names two outputs: one drawn under x that is in the event, one drawn under x' that
is not, with the arithmetic a person can redo.
"""
from __future__ import annotations

import math

import numpy as np

from ldpaudit.audit import bounds
from ldpaudit.audit.events import Candidate, Event
from ldpaudit.audit.features import FloatFeatures


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
    return ranked_float_events(getattr(s.feat, "floats", None), s.b, pairs, n_confirm=n_confirm, z=z)


def ranked_float_events(floats: FloatFeatures | None, views: dict, pairs: list, *, n_confirm: int,
                        z: float) -> list[Candidate]:
    """:func:`float_candidates` of the ranking views {input: View with ``fbits`` and ``raw``}
    (the spec-guided audit's float pilot, guided_floats.py, has no Search)."""
    if floats is None:
        return []
    counts = {u: _counts(v) for u, v in views.items()}
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
        event = FloatEvent(f, holds, floats.describe(f, holds), _example(floats, views[x], views[y], f, holds, x, y))
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
