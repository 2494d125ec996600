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

from dataclasses import dataclass

from ldpaudit.audit.events import Candidate


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
