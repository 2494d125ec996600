"""The float-encoding tests of a spec-guided audit of real outputs (issue 32).

The spec's events (thresholds, intervals, boxes: guided_density.py, plan.py) read an output as
a real number, so ``x + numpy.random.laplace(scale=1/ε)`` passes them (its law is the spec's)
while its doubles give the input away (Mironov 2012, floats.py): the black-box audit said
VIOLATION of the same code the spec-guided one called NO_EVIDENCE. A spec-guided audit of a
density or continuous product channel therefore runs the black-box audit's float tests too:

1. a float pilot of ``m`` draws per input (phase of its own) fits the float features
   (features.FloatFeatures: the precision of each real column, the offsets); integer-valued
   outputs have none, and the audit goes on without float tests;
2. ``m`` more draws per input (another phase) rank the float events of every pair
   (floats.ranked_float_events: the black-box search's, on its own counts);
3. the best float event is confirmed beside the spec's events when its predicted bound
   exceeds theirs (a float-safe sampler's float events predict little, and its audit is the
   one it had: same events, same Bonferroni k), on the same fresh draws, in the same
   Bonferroni correction; findings.findings_of then reports the float encoding and the law
   apart, the verdict being the worse.

The pilot's draws come out of the audit's budget (``samples`` draws per input in all); the
confirmation draws are those an audit without the pilot would make (seeds per phase, draws.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ldpaudit.audit.draws import Draws, Progress, chunks
from ldpaudit.audit.events import Candidate
from ldpaudit.audit.features import FloatFeatures, View
from ldpaudit.audit.findings import FLOAT
from ldpaudit.audit.floats import ranked_float_events

_PHASE_FLOAT_FIT, _PHASE_FLOAT_RANK = 7, 8      # auditor.py uses 1-3, 5, 6; guided_events.py 4
FLOAT_PILOT = 1 << 12           # draws per input per pilot half, at most
PILOT_SHARE = 32                # and at most 1/32 of the budget each
KINDS = ("density", "cproduct")  # the plan kinds whose outputs are real numbers


@dataclass
class FloatPilot:
    """What the float pilot found: the features (None: integer-valued outputs), the ranked
    float candidates (one per pair), the draws per input it spent and what it did."""

    floats: FloatFeatures | None
    kind: str
    width: int
    spent: int
    text: str
    candidates: list = field(default_factory=list)

    def outputs_json(self) -> dict:
        """How the outputs were read (the ``outputs`` entry of the result, as a black-box audit's)."""
        read = ("real numbers (the spec's density)" if self.kind == "density" else
                f"vectors of length {self.width}, per coordinate (the spec's continuous product)")
        if self.floats is None:
            read += "; integer-valued on the float pilot: no float-encoding tests"
        return {"shape": "real" if self.kind == "density" else "vector", "read_as": read, "as_set": False,
                "precision": self.floats.to_json() if self.floats is not None else None}


class FloatView:
    """The spec's view of a chunk (plan.view) with the float features of its real outputs, which
    the float events read (``fbits``). A plain value, so a cluster can build it where it draws."""

    def __init__(self, plan, floats: FloatFeatures):
        self.plan, self.floats = plan, floats

    def __call__(self, out, u):
        view = self.plan.view(out, u)
        view.fbits = self.floats.transform(view.vals if view.vals is not None else view.mat)
        return view


def pilot_size(plan, samples: int) -> int:
    """Draws per input of each half of the float pilot; 0 when the spec's outputs are not real."""
    if plan is None or plan.kind not in KINDS:
        return 0
    return min(FLOAT_PILOT, samples // PILOT_SHARE)


def float_pilot(engine: Draws, prog: Progress, plan, *, inputs: list, index: dict, pairs: list, samples: int,
                z: float) -> FloatPilot | None:
    """Fit the float features on ``m`` draws per input and rank the float events of every pair on
    ``m`` more (``m`` = :func:`pilot_size`); None when the spec's outputs are not real."""
    m = pilot_size(plan, samples)
    if not m:
        return None
    width = 1 if plan.kind == "density" else int(plan.d)
    fit = _draw(engine, prog, plan, inputs, index, m, _PHASE_FLOAT_FIT)
    if plan.kind == "density":
        columns = {None: {u: raw for u, (raw, _, _) in fit.items()}}
    else:
        columns = {j: {u: raw[:, j] for u, (raw, _, _) in fit.items()} for j in range(width)}
    floats = FloatFeatures.fit(columns, list(inputs))
    if floats is None:
        return FloatPilot(None, plan.kind, width, m, f"float pilot: {m} draws per input, integer-valued (no float "
                                                     f"features to test)")
    rank = _draw(engine, prog, plan, inputs, index, m, _PHASE_FLOAT_RANK)
    views = {u: View(None, None, weights, None, n, floats.transform(vals), vals)
             for u, (_, vals, (weights, n)) in rank.items()}
    candidates = ranked_float_events(floats, views, pairs, n_confirm=samples - 2 * m, z=z)
    grids = "; ".join(sorted({p.grid for p in floats.precisions.values()}))
    text = (f"float pilot (audit/floats.py): {m} draws per input to fit {floats.width} float features ({grids}) and "
            f"{m} to rank the float events of each pair")
    return FloatPilot(floats, plan.kind, width, 2 * m, text, candidates)


def with_float(chosen: list[Candidate], pilot: FloatPilot | None) -> tuple[list[Candidate], str]:
    """The spec's chosen candidates plus the pilot's best float event when its predicted bound
    exceeds all of theirs, and the method's words for it."""
    if pilot is None:
        return chosen, ""
    if not pilot.candidates:
        return chosen, pilot.text
    best = max(pilot.candidates, key=lambda c: c.predicted)
    bar = max((c.predicted for c in chosen), default=0.0)
    if best.predicted <= bar:
        return chosen, (f"{pilot.text}; the best (predicted ε >= {best.predicted:.3g}) predicted no more than the "
                        f"spec's events ({bar:.3g}): not confirmed")
    assert best.family == FLOAT
    return chosen + [best], (f"{pilot.text}; the best, S = {best.event.description} for x = {best.pair[0]!r}, "
                             f"x' = {best.pair[1]!r} (predicted ε >= {best.predicted:.3g}), confirmed beside the "
                             f"spec's events")


def _draw(engine: Draws, prog: Progress, plan, inputs: list, index: dict, m: int, phase: int) -> dict:
    """{input: (raw values as drawn (their dtype kept), float values, (weights, n))} of ``m``
    draws of every input in ``phase``, seen through the spec (plan.view checks the output space)."""
    prog.add_total(len(inputs) * m)
    parts: dict = {u: [] for u in inputs}
    by_index = {index[u]: u for u in inputs}
    for i, out in engine.draw([(index[u], u, size, phase) for u in inputs for size in chunks(m)]):
        u = by_index[i]
        view = plan.view(out, u)
        vals = view.vals if view.vals is not None else view.mat
        raw = out.values if out.kind == "array" else vals
        weights = view.weights if view.weights is not None else np.ones(len(vals), np.int64)
        parts[u].append((raw, vals.astype(float), weights, view.n))
    out = {}
    for u, chunk_list in parts.items():
        raw = np.concatenate([p[0] for p in chunk_list])
        vals = np.concatenate([p[1] for p in chunk_list])
        weights = np.concatenate([p[2] for p in chunk_list])
        unit = bool(np.all(weights == 1))
        out[u] = (raw, vals, (None if unit else weights, sum(p[3] for p in chunk_list)))
    return out
