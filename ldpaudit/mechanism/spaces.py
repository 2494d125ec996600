"""Input domains (finite, or a real interval) and the output spaces of structured channels
(elements, k-subsets, hashed cohort pairs), with their sizes and enumerations."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Union

import sympy as sp

from ldpaudit.errors import InvalidSpec, NotMaterializable
from ldpaudit.mechanism.params import _subs, decide

# --- input domains ---------------------------------------------------------------------------

#: the most inputs listed one by one (a tuple of 10^7 ints holds about 400 MB; beyond it a
#: channel is handled in its structured form or refused, never listed into a MemoryError)
MAX_ENUMERATED = 10**7


@dataclass(frozen=True)
class FiniteDomain:
    """Inputs ``0 .. size-1`` (``labels`` None) or an explicit tuple of labels."""

    size: sp.Basic
    labels: tuple | None = None

    def enumerate(self) -> tuple:
        if self.labels is not None:
            return self.labels
        n = _concrete_int(self.size, "inputs.size")
        if n > MAX_ENUMERATED:
            raise NotMaterializable(f"inputs.size = {n}: more inputs than can be listed one by one (at most "
                                    f"{MAX_ENUMERATED:,}); give a smaller size (-p) or use a command that works on "
                                    f"the structured form (verify, derive)")
        return tuple(range(n))

    def describe(self) -> str:
        if self.labels is not None:
            return "{" + ", ".join(map(str, self.labels)) + "}"
        return f"{{0, ..., {self.size - 1}}}"


@dataclass(frozen=True)
class IntervalDomain:
    """Real inputs in the closed interval [low, high]; a missing end (None) makes it a
    half-line, both missing all of R."""

    low: sp.Basic | None
    high: sp.Basic | None

    @property
    def bounded(self) -> bool:
        return self.low is not None and self.high is not None

    def contains(self, value) -> bool:
        """Whether a numeric value is shown to lie in the domain (ends that are still symbolic
        are ignored; a comparison with an end that cannot be decided exactly is not shown)."""
        low, high = self.low, self.high
        if low is not None and sp.sympify(low).is_number and decide(value >= low) is not True:
            return False
        if high is not None and sp.sympify(high).is_number and decide(value <= high) is not True:
            return False
        return True

    def describe(self) -> str:
        if self.low is None and self.high is None:
            return "R"
        left = "(-oo" if self.low is None else f"[{self.low}"
        right = "oo)" if self.high is None else f"{self.high}]"
        return f"{left}, {right}"


@dataclass(frozen=True)
class BoxDomain:
    """Vector inputs in the box [low, high]^dimension (``dimension`` a positive integer or an
    integer parameter; both ends required: a vector input without bounds has no vertices)."""

    dimension: sp.Basic
    low: sp.Basic
    high: sp.Basic

    @property
    def interval(self) -> IntervalDomain:
        """The domain of one coordinate."""
        return IntervalDomain(self.low, self.high)

    def vertices(self) -> list[tuple]:
        """The 2^d corners of the box (needs a numeric dimension)."""
        d = _concrete_int(self.dimension, "inputs.dimension")
        return list(itertools.product((self.low, self.high), repeat=d))

    def describe(self) -> str:
        return f"[{self.low}, {self.high}]^{self.dimension}"


Domain = Union[FiniteDomain, IntervalDomain, BoxDomain]


def _subs_domain(domain, subs):
    if isinstance(domain, FiniteDomain):
        return replace(domain, size=_subs(domain.size, subs))
    if isinstance(domain, BoxDomain):
        return replace(domain, dimension=_subs(domain.dimension, subs), low=_subs(domain.low, subs),
                       high=_subs(domain.high, subs))
    return replace(domain, low=_subs(domain.low, subs), high=_subs(domain.high, subs))


def _concrete_int(expr, what: str) -> int:
    expr = sp.sympify(expr)
    if not expr.is_number:
        raise NotMaterializable(f"{what} = {expr} is symbolic; bind the parameters first (e.g. mech.bind(d=8))")
    value = sp.simplify(expr)
    if not value.is_Integer:
        raise InvalidSpec(f"{what} = {expr} is not an integer")
    return int(value)


# --- output spaces of structured channels ----------------------------------------------------


@dataclass(frozen=True)
class ElementSpace:
    """Outputs ``0 .. size-1``; conditions see ``x`` and ``y``."""

    size: sp.Basic
    kind: str = "element"

    def count(self) -> sp.Basic:
        return self.size

    def enumerate(self, params: Mapping[str, object]) -> list:
        return list(range(_concrete_int(self.size, "channel.outputs.size")))

    def size_fields(self) -> list[tuple[str, sp.Basic]]:
        return [("channel.size", self.size)]

    def substitute(self, subs) -> ElementSpace:
        return replace(self, size=_subs(self.size, subs))

    def describe(self) -> str:
        return f"y in {{0, ..., {self.size - 1}}}"


@dataclass(frozen=True)
class SubsetSpace:
    """Outputs are the k-subsets of ``0 .. universe-1`` (as sorted tuples); conditions see
    ``x`` and ``y`` (so ``x in y`` is membership)."""

    universe: sp.Basic
    k: sp.Basic
    kind: str = "subset"

    def count(self) -> sp.Basic:
        return sp.binomial(self.universe, self.k)

    def enumerate(self, params):
        n = _concrete_int(self.universe, "channel.outputs.universe")
        k = _concrete_int(self.k, "channel.outputs.k")
        return list(itertools.combinations(range(n), k))

    def size_fields(self) -> list[tuple[str, sp.Basic]]:
        return [("channel.universe", self.universe), ("channel.k", self.k)]

    def substitute(self, subs) -> SubsetSpace:
        return replace(self, universe=_subs(self.universe, subs), k=_subs(self.k, subs))

    def describe(self) -> str:
        return f"{self.k}-subsets y of {{0, ..., {self.universe - 1}}}"


@dataclass(frozen=True)
class CohortSpace:
    """Outputs are pairs (c, v): a cohort c in [C] and a value v in [k]; cohort c's hash of
    input x is ``hash_table[c][x]`` (an explicit table) or comes from a named ``family``
    (:mod:`ldpaudit.mechanism.hashing`) with ``cohorts`` = C. ``permutation`` requires every row
    to be a permutation of 0..k-1 (closed alphabets). Conditions see ``x``, ``c``, ``v`` and
    ``hash(c, x)``."""

    hash_table: tuple[tuple[int, ...], ...] | None
    k: sp.Basic
    kind: str = "cohort"
    cohorts: sp.Basic | None = None
    family: object = None  # ldpaudit.mechanism.hashing.HashFamily
    permutation: bool = False

    @property
    def C(self) -> sp.Basic:
        return sp.Integer(len(self.hash_table)) if self.hash_table is not None else sp.sympify(self.cohorts)

    def count(self) -> sp.Basic:
        return self.C * self.k

    def hash(self, c: int, x: int) -> int:
        if self.hash_table is not None:
            return self.hash_table[c][x]
        return self.family.value(int(c), 0, int(x), int(self.k))

    def table(self, d: int) -> tuple[tuple[int, ...], ...]:
        """The hash values [c][x] (numeric sizes; generated for a named family)."""
        if self.hash_table is not None:
            return self.hash_table
        rows = self.family.table(_concrete_int(self.C, "channel.cohorts"), 1, d, _concrete_int(self.k, "channel.k"))
        return tuple(tuple(int(v) for v in r[0]) for r in rows)

    def enumerate(self, params):
        k = _concrete_int(self.k, "channel.outputs.k")
        C = _concrete_int(self.C, "channel.cohorts")
        return [(c, v) for c in range(C) for v in range(k)]

    def size_fields(self) -> list[tuple[str, sp.Basic]]:
        return [("channel.k", self.k)] + ([("channel.cohorts", self.cohorts)] if self.cohorts is not None else [])

    def substitute(self, subs) -> CohortSpace:
        return replace(self, k=_subs(self.k, subs), cohorts=_subs(self.cohorts, subs))

    def describe(self) -> str:
        how = "" if self.family is None else f"; hash family {self.family.describe()}"
        return f"(c, v): cohort c in {{0, ..., {self.C - 1}}}, v in {{0, ..., {self.k - 1}}}{how}"


OutputSpace = Union[ElementSpace, SubsetSpace, CohortSpace]
