"""One path of a randomizer's draws, and the work budget that bounds all of them.

A path is the branch taken at each choice point (a draw's outcome, or a case of a comparison
on a symbolic input), replayed from a prefix of choices; it carries its probability factors,
the events a person can follow, and for a symbolic domain (``--domain 0..d-1``) the conditions
assumed by its case splits and the draws of symbolic size it made.
"""
from __future__ import annotations

import sympy as sp

from ldpaudit.errors import BudgetSpent
from ldpaudit.extract.symbolic import Stop


class Steps:
    """A budget of work units (statements, expressions, draw outcomes): never the clock."""

    def __init__(self, limit: int):
        self.limit, self.used = limit, 0

    def spend(self, n: int = 1) -> None:
        self.used += n
        if self.used > self.limit:
            raise BudgetSpent(f"extraction spent its budget of {self.limit:,} work units (statements and draw "
                              "outcomes over all paths and inputs); raise --max-steps or bind smaller sizes")


class Path:
    """One path: the branch taken at each choice point (replayed from ``prefix``), its
    probability factors and the events (line, outcome) a person can follow. ``conditions``:
    relations on the symbolic input and draws that hold on this path (its case splits);
    ``draws``: (symbol, low, high, line) of each uniform integer draw of symbolic size, the
    symbol ranging over low..high-1; ``indices``: the generic index of each loop over a symbolic
    range (:mod:`ldpaudit.extract.items`); ``shared``: draws made outside an item of one."""

    def __init__(self, prefix: list[int]):
        self.prefix = list(prefix)
        self.sizes: list[int] = []
        self.factors: list = []
        self.events: list[tuple[int, str]] = []
        self.lines: set[int] = set()
        self.conditions: list = []
        self.draws: list[tuple] = []
        self.indices: list[tuple] = []   # (symbol, length) of each generic index of a symbolic range
        self.shared: list[int] = []      # lines of draws made outside any item of such a range

    def choose(self, options: list, line: int):
        pos = len(self.sizes)
        if not options:
            raise Stop("a draw with no possible outcome")
        if pos < len(self.prefix):
            index = self.prefix[pos]
        else:
            index = 0
            self.prefix.append(0)
        self.sizes.append(len(options))
        prob, value, note = options[index]
        self.factors.append(prob)
        self.events.append((line, note))
        return value

    def next_prefix(self) -> list[int] | None:
        """The next path in depth-first order, or None when all are done."""
        prefix = self.prefix[:len(self.sizes)]
        while prefix:
            if prefix[-1] + 1 < self.sizes[len(prefix) - 1]:
                prefix[-1] += 1
                return prefix
            prefix.pop()
        return None

    @property
    def probability(self):
        return sp.Mul(*self.factors)
