"""Pooled candidates: one certified inequality from the draws of many inputs.

If a randomizer is ε-LDP then for every input x, every x' and every event S_x (which may depend
on x), P(S_x|x) <= e^ε P(S_x|x'). Averaging over a list of pairs (x_i, x'_i), i = 1..m,

    (1/m) Σ_i P(S_i|x_i)  <=  e^ε (1/m) Σ_i P(S_i|x'_i),

so ε_lb = ln(p̄_lower / q̄_upper) with bounds on the two averages is a valid certificate. Two
shapes are used:

- one-vs-rest (rare.py): S fixed, x fixed, x' ranging over the other inputs: P(S|x) <=
  e^ε · avg_x' P(S|x'), counted on n draws of x against n·(d-1) draws of the others;
- relation pooling: S_x = {y related to x} (y == x, y[x] = 1, x in y, ...) paired with
  x' = σ(x), the next input in a cyclic order: every input's draws count once on each side,
  so d·n trials on each side instead of n.

Why Clopper-Pearson still applies. The pooled count on one side is a sum of independent
Bernoulli draws with unequal probabilities (p_1 on the draws of x_1, ...), a Poisson-binomial
variable S with mean N p̄. Hoeffding (1956, Theorem 4) shows P(S <= c) <= P(Bin(N, p̄) <= c)
for c <= N p̄ - 1 and P(S >= c) <= P(Bin(N, p̄) >= c) for c >= N p̄ + 1. A one-sided
Clopper-Pearson bound at level α' < 1/2 fails only on counts in the binomial's α'-tail,
which lies beyond N p̄ ∓ 1 (a binomial's median is within 1 of its mean), so the bound on p̄
fails with probability at most α'. The pooled candidate then enters the Bonferroni correction
like any other confirmed candidate.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldpaudit.audit import bounds
from ldpaudit.audit.events import Candidate, Event


@dataclass
class PooledCandidate(Candidate):
    """A candidate whose counts under "x" pool the draws of ``x_side`` and under "x'" those of
    ``y_side`` (an input may be on both sides); ``pair`` is a representative pair for
    reports. ``pooled_text`` says what was pooled, for the witness."""

    x_side: tuple = ()
    y_side: tuple = ()
    pooled_text: str = ""

    def __post_init__(self):
        self._x = set(self.x_side)
        self._y = set(self.y_side)

    def roles(self, u) -> tuple:
        return tuple(r for r, side in ((0, self._x), (1, self._y)) if u in side)

    @property
    def inputs(self) -> tuple:
        return tuple(dict.fromkeys(self.x_side + self.y_side))

    def trials(self, n: int) -> tuple[int, int]:
        return len(self.x_side) * n, len(self.y_side) * n


# -- relation pooling -----------------------------------------------------------------------

@dataclass(eq=False)
class RelationEvent(Event):
    """S_x for every input x, counted under x (role 0) and under x' = σ(x) (role 1, so input u
    counts S_{σ⁻¹(u)}). ``target[u]`` describes S_u on the view: a row code (discrete outputs)
    or the category ``cat`` of column ``col`` (vector/set outputs), with, for ``exclude``, the
    category of the column of σ(u) required to differ."""

    target: dict                     # u -> code (int, -1 for none) or (col, cat)
    pred: dict                       # u -> σ⁻¹(u)
    succ: dict                       # u -> σ(u)
    exclude: bool = False
    text: object = ""

    def _count(self, view, x) -> int:
        t = self.target.get(x)
        if isinstance(t, tuple):
            col, cat = t
            if col is None:
                return 0
            m = view.cats[:, col] == cat
            if self.exclude:
                col2, cat2 = self.target[self.succ[x]]
                if col2 is not None:
                    m &= view.cats[:, col2] != cat2
            return view.count(m)
        if t is None or t < 0:
            return 0
        return view.count(view.codes == t)

    def hits(self, view, u, role: int) -> int:
        return self._count(view, u if role == 0 else self.pred[u])

    def mask(self, view):
        raise TypeError("a relation event depends on the input; count it with hits(view, u, role)")


def pooled_texts(name: str, d: int) -> tuple[str, str]:
    """(the event's description, the witness's ``pooled`` line) of relation ``name`` pooled
    over d inputs against x' = the next input: one wording for every pooled candidate."""
    return (f"S_x = {{{name}}} for every input x, against x' = the next input (pooled over all {d} inputs)",
            f"avg_x P({name}|x) vs avg_x P({name}|next(x)) over {d} inputs")


def _cyclic(inputs: list) -> tuple[dict, dict]:
    succ = {u: inputs[(i + 1) % len(inputs)] for i, u in enumerate(inputs)}
    pred = {v: u for u, v in succ.items()}
    return succ, pred


def _relation_events(feat, inputs: list) -> list[tuple[str, dict, bool]]:
    """(description, target, exclude) of the relations the output shape supports."""
    out = []
    if feat.shape == "discrete":
        target = {u: feat.code_of.get(u, -1) for u in inputs}
        if sum(c >= 0 for c in target.values()) >= 2:
            out.append(("y == x", target, False))
        return out
    if feat.shape == "set":
        cols = {u: feat.universe.get(u) for u in inputs}
        if sum(c is not None for c in cols.values()) >= 2:
            target = {u: (cols[u], 1) for u in inputs}
            out.append(("x in y", target, False))
            out.append(("x in y and x' not in y", target, True))
        return out
    if feat.shape != "vector":
        return out
    if all(isinstance(u, (int, np.integer)) and 0 <= u < feat.width for u in inputs):
        col_of = {u: int(u) for u in inputs}
    elif len(inputs) == feat.width:
        col_of = {u: i for i, u in enumerate(inputs)}
    else:
        return out
    columns = feat.columns
    shared = None
    for j in set(col_of.values()):
        c = columns[j]
        if c.kind != "cat":
            return out
        vals = set(c.values.tolist())
        shared = vals if shared is None else shared & vals
    for v in sorted(shared or ()):
        target = {}
        for u, j in col_of.items():
            cat = int(np.searchsorted(columns[j].values, v))
            target[u] = (j, cat)
        out.append((f"y[x] = {v}", target, False))
        out.append((f"y[x] = {v} and y[x'] != {v}", target, True))
    return out


def relation_candidates(s, *, n_confirm: int, z: float) -> list[Candidate]:
    """Pooled candidates over every input for the relations the outputs support (y == x,
    x in y, y[x] = v, each also with x' = σ(x) excluded), ranked on both exploration halves
    with the same pessimistic prediction as the main search (at ``s.delta``), at d·n_confirm
    trials a side. With δ the averaged inequality gains the same + δ, so pooling stays valid."""
    delta = getattr(s, "delta", 0.0)
    inputs = list(s.a)
    if len(inputs) < 3:
        return []
    succ, pred = _cyclic(inputs)
    n_e = sum(s.a[u].n + s.b[u].n for u in inputs)
    out = []
    for name, target, exclude in _relation_events(s.feat, inputs):
        event = RelationEvent(target, pred, succ, exclude)
        a = sum(event.hits(h[u], u, 0) for h in (s.a, s.b) for u in inputs)
        b = sum(event.hits(h[u], u, 1) for h in (s.a, s.b) for u in inputs)
        p, q = a / n_e, b / n_e
        d = len(inputs)
        predicted = float(bounds.predicted_bound(p, q, n_confirm * d, z, n_e, delta))
        if not math.isfinite(predicted):
            continue
        event.text, pooled = pooled_texts(name, d)
        c = PooledCandidate((inputs[0], succ[inputs[0]]), event, "pooled", predicted, p, q,
                            x_side=tuple(inputs), y_side=tuple(inputs), pooled_text=pooled)
        c.sd = float(bounds.bound_sd(p, q, n_confirm * d, delta))
        out.append(c)
    return out
