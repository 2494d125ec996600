"""The mechanism model: an immutable, validated channel Q(y|x) with named parameters.

A :class:`Mechanism` holds parameters (sympy symbols with assumptions and range
constraints), an input domain, a channel and a claimed ε. Four channel forms sit
behind one interface:

* :class:`ExplicitChannel`  — a finite matrix of exact sympy entries (rows = inputs).
* :class:`StructuredChannel` — outputs fall into a few classes relative to the input
  (k-RR: ``y == x`` / ``y != x``; k-subset: ``x in y`` / ``x not in y``), each with a
  symbolic multiplicity and a per-output weight, so d = 10**6 costs nothing.
* :class:`ProductChannel` — independent coordinates whose law depends only on whether
  the coordinate is the input's (k-RAPPOR/SUE, OUE, the Laplace histogram).
* :class:`DensityChannel` — a real output with a symbolic density f(z | x).

Every form materializes to an explicit exact matrix when it is small (except
densities), for brute-force cross-checks. Validation runs once, in ``__post_init__``.
"""

from __future__ import annotations

import ast
import itertools
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Union

import sympy as sp

from ldpaudit.errors import InvalidParameter, InvalidSpec, NotMaterializable
from ldpaudit.mechanism.expr import (
    MAX_INTEGER_PART_BITS,
    check_budget,
    eval_condition,
    parse_condition,
    parse_expression,
    shown,
    substitute,
)

#: the input variable of density and real-input channels, the output variable of densities,
#: and the (integer) output variable of real-input channels
X = sp.Symbol("x", real=True)
Z = sp.Symbol("z", real=True)
Y = sp.Symbol("y", integer=True)

#: materialization refuses channels with more entries than this
MAX_MATERIALIZED_ENTRIES = 2_000_000

#: numeric sizes (inputs, outputs, coordinates) are at most this: 64-bit domains, and no
#: number whose enumeration, sampling or printing could not finish
MAX_SIZE = 2**64


# --- parameters ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Parameter:
    """A named mechanism parameter: ``kind`` is "integer" or "real"; bounds are inclusive
    unless the matching ``*_strict`` flag is set, and may refer to other parameters."""

    name: str
    kind: str = "real"
    lower: sp.Basic | None = None
    upper: sp.Basic | None = None
    lower_strict: bool = False
    upper_strict: bool = False
    description: str = ""
    #: set by the analyst (a bit index, a round-1 estimate), not by the privacy budget; verify
    #: quantifies it universally like every other parameter, so it must declare its range
    public: bool = False
    #: an explicit "all values" range (a public parameter must say so rather than omit min/max)
    unbounded: bool = False

    def __post_init__(self):
        if not self.name.isidentifier() or self.name in ("x", "y", "z", "c", "v"):
            raise InvalidSpec(f"parameter name {shown(self.name)} is not allowed; use an identifier other than x, y, z, c, v")
        if self.kind not in ("integer", "real"):
            raise InvalidSpec(f"parameters.{self.name}.type = {shown(self.kind)}; use 'integer' or 'real'")
        if self.unbounded and (self.lower is not None or self.upper is not None):
            raise InvalidSpec(
                f"parameters.{self.name} declares unbounded = true and a min/max; keep one of them"
            )
        if self.public and self.lower is None and self.upper is None and not self.unbounded:
            raise InvalidSpec(
                f"parameters.{self.name} is public but declares no range; give min and/or max, "
                f"or unbounded = true for all {'integers' if self.kind == 'integer' else 'real values'}"
            )

    @property
    def symbol(self) -> sp.Symbol:
        assumptions = {"integer": True} if self.kind == "integer" else {"real": True}
        low = self.lower
        if low is not None and low.is_number:
            if low > 0 or (low == 0 and self.lower_strict):
                assumptions["positive"] = True
            elif low >= 0:
                assumptions["nonnegative"] = True
        return sp.Symbol(self.name, **assumptions)

    def constraints(self, symbols: Mapping[str, sp.Basic] | None = None) -> list[sp.Basic]:
        """The range constraints as sympy relations (bounds may mention other symbols)."""
        s = self.symbol
        out = []
        if self.lower is not None:
            out.append(sp.Gt(s, self.lower, evaluate=False) if self.lower_strict else sp.Ge(s, self.lower, evaluate=False))
        if self.upper is not None:
            out.append(sp.Lt(s, self.upper, evaluate=False) if self.upper_strict else sp.Le(s, self.upper, evaluate=False))
        return out

    def describe(self) -> str:
        parts = []
        if self.lower is not None:
            parts.append(f"{self.lower} {'<' if self.lower_strict else '<='} ")
        parts.append(self.name)
        if self.upper is not None:
            parts.append(f" {'<' if self.upper_strict else '<='} {self.upper}")
        if self.unbounded:
            parts.append(" in Z" if self.kind == "integer" else " in R")
        text = "".join(parts) + (" (integer)" if self.kind == "integer" and not self.unbounded else "")
        return text + (" (public)" if self.public else "")


def integer(name: str, *, lower=None, upper=None, description: str = "") -> Parameter:
    return Parameter(name, "integer", _opt(lower), _opt(upper), description=description)


def positive(name: str, *, description: str = "") -> Parameter:
    return Parameter(name, "real", sp.Integer(0), None, lower_strict=True, description=description)


def _opt(value):
    return None if value is None else sp.sympify(value) if not isinstance(value, sp.Basic) else value


# --- domains ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FiniteDomain:
    """Inputs ``0 .. size-1`` (``labels`` None) or an explicit tuple of labels."""

    size: sp.Basic
    labels: tuple | None = None

    def enumerate(self) -> tuple:
        if self.labels is not None:
            return self.labels
        n = _concrete_int(self.size, "inputs.size")
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
        """Whether a numeric value lies in the domain (ends that are still symbolic are ignored)."""
        low, high = self.low, self.high
        if low is not None and sp.sympify(low).is_number and bool(value < low):
            return False
        if high is not None and sp.sympify(high).is_number and bool(value > high):
            return False
        return True

    def describe(self) -> str:
        if self.low is None and self.high is None:
            return "R"
        left = "(-oo" if self.low is None else f"[{self.low}"
        right = "oo)" if self.high is None else f"{self.high}]"
        return f"{left}, {right}"


Domain = Union[FiniteDomain, IntervalDomain]


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

    def describe(self) -> str:
        how = "" if self.family is None else f"; hash family {self.family.describe()}"
        return f"(c, v): cohort c in {{0, ..., {self.C - 1}}}, v in {{0, ..., {self.k - 1}}}{how}"


OutputSpace = Union[ElementSpace, SubsetSpace, CohortSpace]


# --- channels --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExplicitChannel:
    """A finite channel: ``matrix[i][j] = Q(outputs[j] | inputs[i])`` (exact sympy entries;
    rows are ``inputs``, columns ``outputs``). ``numpy.asarray(channel)`` gives the float64
    matrix when every entry is a number; :meth:`to_sympy_matrix` keeps it exact."""

    inputs: tuple
    outputs: tuple
    matrix: tuple[tuple[sp.Basic, ...], ...]
    form = "explicit"

    def entries(self) -> Iterable[sp.Basic]:
        return itertools.chain.from_iterable(self.matrix)

    def expressions(self) -> list[sp.Basic]:
        return list(self.entries())

    def substitute(self, subs) -> ExplicitChannel:
        return replace(self, matrix=tuple(tuple(_subs(e, subs) for e in row) for row in self.matrix))

    def to_sympy_matrix(self) -> sp.Matrix:
        return sp.Matrix(self.matrix)

    def __array__(self, dtype=None, copy=None):
        import numpy as np

        free = sorted({str(s) for e in self.entries() for s in e.free_symbols})
        if free:
            raise NotMaterializable(
                f"the channel has free parameters ({', '.join(free)}); bind them first, e.g. mech.bind(...).materialize()"
            )
        return np.array([[float(e) for e in row] for row in self.matrix], dtype=dtype or np.float64)


@dataclass(frozen=True)
class OutputClass:
    """Outputs y standing in one relation to the input x: there are ``count`` of them for
    every x, each with probability ``weight``."""

    name: str
    condition: str
    count: sp.Basic
    weight: sp.Basic
    predicate: ast.expr | None = field(default=None, compare=False, repr=False)
    #: real-input channels: the condition as a sympy boolean in X, Y and the parameters
    relation: sp.Basic | None = None

    def substitute(self, subs) -> OutputClass:
        return replace(
            self, count=_subs(self.count, subs), weight=_subs(self.weight, subs),
            relation=None if self.relation is None else _subs(self.relation, subs),
        )


@dataclass(frozen=True)
class StructuredChannel:
    """A channel whose outputs fall, for each input, into classes of known size and weight."""

    outputs: OutputSpace
    classes: tuple[OutputClass, ...]
    form = "structured"

    def expressions(self) -> list[sp.Basic]:
        return [e for c in self.classes for e in (c.count, c.weight)] + [sp.sympify(self.outputs.count())]

    def substitute(self, subs) -> StructuredChannel:
        out = self.outputs
        if isinstance(out, ElementSpace):
            out = replace(out, size=_subs(out.size, subs))
        elif isinstance(out, SubsetSpace):
            out = replace(out, universe=_subs(out.universe, subs), k=_subs(out.k, subs))
        else:
            out = replace(out, k=_subs(out.k, subs), cohorts=_subs(out.cohorts, subs))
        return replace(self, outputs=out, classes=tuple(c.substitute(subs) for c in self.classes))


@dataclass(frozen=True)
class CoordinateLaw:
    """The law of one coordinate of a product channel: either finite ``probabilities``
    (value -> probability) or a ``density`` in the output variable :data:`Z`."""

    probabilities: tuple[tuple[int, sp.Basic], ...] | None = None
    density: sp.Basic | None = None

    def expressions(self) -> list[sp.Basic]:
        return [p for _, p in self.probabilities] if self.probabilities is not None else [self.density]

    def substitute(self, subs) -> CoordinateLaw:
        if self.probabilities is not None:
            return replace(self, probabilities=tuple((v, _subs(p, subs)) for v, p in self.probabilities))
        return replace(self, density=_subs(self.density, subs))

    def probability(self, value) -> sp.Basic:
        for v, p in self.probabilities:
            if v == value:
                return p
        return sp.Integer(0)


@dataclass(frozen=True)
class ProductChannel:
    """``coordinates`` independent coordinates; coordinate j has law ``on`` when j is the
    input, ``off`` otherwise (the input is one-hot encoded)."""

    coordinates: sp.Basic
    on: CoordinateLaw
    off: CoordinateLaw
    form = "product"

    @property
    def continuous(self) -> bool:
        return self.on.density is not None

    def expressions(self) -> list[sp.Basic]:
        return [self.coordinates, *self.on.expressions(), *self.off.expressions()]

    def substitute(self, subs) -> ProductChannel:
        return replace(
            self, coordinates=_subs(self.coordinates, subs), on=self.on.substitute(subs), off=self.off.substitute(subs)
        )


@dataclass(frozen=True)
class DensityChannel:
    """A real output z with density ``density`` in :data:`Z` given the input :data:`X`."""

    density: sp.Basic
    form = "density"

    def expressions(self) -> list[sp.Basic]:
        return [self.density]

    def substitute(self, subs) -> DensityChannel:
        return replace(self, density=_subs(self.density, subs))


@dataclass(frozen=True)
class RealInputChannel:
    """Finitely many outputs from a real input: ``entry`` is Q(y|x) as an expression in
    :data:`X` and :data:`Y` (a ``Piecewise`` over class conditions for a structured spec),
    ``outputs`` the output labels (integers).

    Written in a spec as ``form = "explicit"`` with ``outputs = [...]`` and ``entry``, or as
    ``form = "structured"`` with ``outputs = "element"`` and classes whose conditions may use
    functions of x (floor, ``%``, comparisons with parameters, Max/Min, abs, ``bit``);
    ``layout`` records which, and ``classes`` keeps the structured classes (their
    ``relation`` is the condition as a sympy boolean)."""

    outputs: tuple
    entry: sp.Basic
    layout: str = "explicit"
    classes: tuple[OutputClass, ...] = ()
    form = "real-input"

    def probability(self, y) -> sp.Basic:
        """Q(y|x) for one output label, as an expression in :data:`X` and the parameters."""
        return _subs(self.entry, {Y: sp.Integer(y)})

    def expressions(self) -> list[sp.Basic]:
        return [self.entry] + [e for c in self.classes for e in (c.count, c.weight)]

    def substitute(self, subs) -> RealInputChannel:
        return replace(self, entry=_subs(self.entry, subs), classes=tuple(c.substitute(subs) for c in self.classes))


Channel = Union[ExplicitChannel, StructuredChannel, ProductChannel, DensityChannel, RealInputChannel]


# --- the mechanism ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Mechanism:
    """An immutable, validated LDP mechanism.

    ``parameters`` are the free parameters; ``bindings`` records the values already
    substituted by :meth:`bind`. Construction validates the channel once.
    """

    name: str
    parameters: tuple[Parameter, ...]
    inputs: Domain
    channel: Channel
    claimed_epsilon: sp.Basic
    bindings: tuple[tuple[str, sp.Basic], ...] = ()
    description: str = ""
    source: str = ""
    example: tuple[tuple[str, sp.Basic], ...] = ()
    spec_path: str | None = field(default=None, compare=False)
    notes: tuple[str, ...] = field(default=(), compare=False)
    #: the δ of an (ε, δ) claim (None: pure ε-LDP); 0 <= δ < 1, may mention parameters
    claimed_delta: sp.Basic | None = None
    #: set by :meth:`bind` only: the family's identities (row sums, class partition, densities
    #: integrating to 1) were proved for all admissible parameters, so they hold for the bound
    #: values and are not re-proved (re-proving binomial(19999, k) identities takes minutes)
    identities_proved: bool = field(default=False, compare=False, repr=False)

    def __post_init__(self):
        notes = _validate(self)
        object.__setattr__(self, "notes", tuple(notes))

    # -- parameters --

    @property
    def symbols(self) -> dict[str, sp.Symbol]:
        return {p.name: p.symbol for p in self.parameters}

    @property
    def parameter_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parameters)

    @property
    def is_numeric(self) -> bool:
        return not self.parameters

    @property
    def family(self) -> str:
        return self.channel.form

    def parameter(self, name: str) -> Parameter:
        for p in self.parameters:
            if p.name == name:
                return p
        raise InvalidParameter(f"{self.name} has no free parameter {name!r}; free parameters: {', '.join(self.parameter_names) or '(none)'}")

    def constraints(self) -> list[sp.Basic]:
        """Range constraints on the free parameters, as sympy relations."""
        return [c for p in self.parameters for c in p.constraints()]

    def bind(self, values: Mapping[str, object] | None = None, /, **kwargs) -> Mechanism:
        """A copy with some parameters replaced by exact values.

        Values may be ints, Fractions, sympy numbers or expressions (e.g. ``sp.log(3)``)
        or strings parsed by the safe expression parser (``"1/2"``, ``"log(3)"``). Floats
        are refused: they are inexact (use ``verify`` with float parameters for that).
        """
        raw = dict(values or {}, **kwargs)
        if not raw:
            return self
        known = set(self.parameter_names)
        for name in raw:
            if name not in known:
                bound = dict(self.bindings)
                hint = f" (already bound to {bound[name]})" if name in bound else ""
                raise InvalidParameter(
                    f"unknown parameter {shown(name)} for {self.name}{hint}; free parameters: {', '.join(sorted(known)) or '(none)'}"
                )
        subs = {}
        exact = {}
        for name, value in raw.items():
            exact[name] = _exact_value(name, value, self.symbols)
            subs[self.parameter(name).symbol] = exact[name]
        remaining = []
        for p in self.parameters:
            if p.name in exact:
                _check_range(self.name, p, exact[p.name], subs)
            else:
                remaining.append(
                    replace(
                        p,
                        lower=None if p.lower is None else _subs(p.lower, subs),
                        upper=None if p.upper is None else _subs(p.upper, subs),
                    )
                )
        for p in self.parameters:
            if p.name in exact:
                remaining = _transfer_bounds(p, exact[p.name], subs, remaining)
        return replace(
            self,
            parameters=tuple(remaining),
            inputs=_subs_domain(self.inputs, subs),
            channel=self.channel.substitute(subs),
            claimed_epsilon=_subs(self.claimed_epsilon, subs),
            claimed_delta=None if self.claimed_delta is None else _subs(self.claimed_delta, subs),
            bindings=self.bindings + tuple(exact.items()),
            example=tuple((k, v) for k, v in self.example if k not in exact),
            identities_proved=True,
        )

    def bind_example(self) -> Mechanism:
        """Bind every free parameter to the spec's example value."""
        return self.bind(dict(self.example))

    # -- materialization --

    def materialize(self, *, max_entries: int = MAX_MATERIALIZED_ENTRIES) -> ExplicitChannel:
        """The channel as an explicit exact matrix (needs numeric sizes; refuses huge ones)."""
        return materialize(self, max_entries=max_entries)

    def describe(self) -> str:
        params = ", ".join(p.describe() for p in self.parameters) or "none"
        bound = ", ".join(f"{k}={v}" for k, v in self.bindings)
        return f"{self.name} [{self.channel.form}] params: {params}" + (f"; bound: {bound}" if bound else "")


# --- helpers ---------------------------------------------------------------------------------


def _subs(expr, subs):
    """``expr`` with parameter values substituted, under the spec budgets (a binding such as
    d = 10**9, k = 10**8 in binomial(d, k) is refused before sympy evaluates it)."""
    if not subs or expr is None:
        return expr
    if all(isinstance(k, sp.Symbol) for k in subs):
        return substitute(expr, subs, field="expression", error=InvalidParameter)
    return expr.subs(subs)


def _transfer_bounds(p: Parameter, value, subs, remaining: list[Parameter]) -> list[Parameter]:
    """Binding ``k = 3`` where ``k <= d - 1`` and d stays free leaves the constraint ``d >= 4``:
    move it onto d's bounds (for bounds linear in one free parameter), so that sample points
    and later bindings respect it."""
    by_symbol = {q.symbol: i for i, q in enumerate(remaining)}
    for bound, strict, is_lower in ((p.lower, p.lower_strict, True), (p.upper, p.upper_strict, False)):
        if bound is None:
            continue
        b = _subs(bound, subs)
        free = b.free_symbols
        if len(free) != 1 or next(iter(free)) not in by_symbol:
            continue
        (s,) = free
        try:
            poly = sp.Poly(b, s)
        except sp.PolynomialError:
            continue
        if poly.degree() != 1 or not all(c.is_number for c in poly.all_coeffs()):
            continue
        a, c = poly.all_coeffs()
        limit = (value - c) / a
        # value >= a*s + c (p's lower bound) gives s <= limit when a > 0; p's upper bound the reverse
        s_is_lower = (not is_lower) == bool(a > 0)
        q = remaining[by_symbol[s]]
        old = q.lower if s_is_lower else q.upper
        old_strict = q.lower_strict if s_is_lower else q.upper_strict
        if old is not None:
            if not old.is_number:
                continue
            tighter = limit > old if s_is_lower else limit < old
            if not bool(tighter):
                if limit == old:
                    strict = strict or old_strict
                else:
                    continue
        new = replace(q, lower=limit, lower_strict=strict) if s_is_lower else replace(q, upper=limit, upper_strict=strict)
        if new.symbol == q.symbol:  # the symbol's assumptions depend on its bounds: keep them unchanged
            remaining = remaining[: by_symbol[s]] + [new] + remaining[by_symbol[s] + 1 :]
    return remaining


def _subs_domain(domain, subs):
    if isinstance(domain, FiniteDomain):
        return replace(domain, size=_subs(domain.size, subs))
    return replace(domain, low=_subs(domain.low, subs), high=_subs(domain.high, subs))


def _concrete_int(expr, what: str) -> int:
    expr = sp.sympify(expr)
    if not expr.is_number:
        raise NotMaterializable(f"{what} = {expr} is symbolic; bind the parameters first (e.g. mech.bind(d=8))")
    value = sp.simplify(expr)
    if not value.is_Integer:
        raise InvalidSpec(f"{what} = {expr} is not an integer")
    return int(value)


def _exact_value(name: str, value, symbols) -> sp.Basic:
    if isinstance(value, bool):
        raise InvalidParameter(f"parameter {name} = {value!r} is a boolean; give a number")
    if isinstance(value, float):
        raise InvalidParameter(
            f"parameter {name} = {value!r} is a float, which is inexact; give an int, a Fraction, "
            f"sympy.Rational or a string such as '1/2' or 'log(3)'"
        )
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, str):
        expr = parse_expression(value, {}, field=f"parameter {name}")
    elif isinstance(value, sp.Basic):
        expr = value
    else:
        raise InvalidParameter(f"parameter {name} = {value!r} ({type(value).__name__}) is not a number")
    if isinstance(expr, sp.Float) or expr.atoms(sp.Float):
        raise InvalidParameter(f"parameter {name} = {shown(value)} contains a float; give an exact value such as Rational(1, 2)")
    check_budget(expr, field=f"parameter {name}", error=InvalidParameter)
    if expr.free_symbols:
        raise InvalidParameter(f"parameter {name} = {value!r} is not a number (mentions {sorted(map(str, expr.free_symbols))})")
    if not expr.is_real or not expr.is_finite:
        raise InvalidParameter(f"parameter {name} = {value!r} is not a finite real number")
    return expr


def _check_range(mech_name, p: Parameter, value, subs):
    if p.kind == "integer" and not value.is_Integer:
        raise InvalidParameter(f"parameter {p.name} = {shown(value)} of {mech_name} must be an integer")
    for bound, strict, sign in ((p.lower, p.lower_strict, 1), (p.upper, p.upper_strict, -1)):
        if bound is None:
            continue
        b = _subs(bound, subs)
        if not b.is_number:
            continue  # depends on a parameter that is still free; checked when it is bound
        if b.has(sp.zoo, sp.nan) or b.is_extended_real is False:
            raise InvalidParameter(
                f"parameter {p.name} = {shown(value)} of {mech_name}: its bound {shown(bound)} is {shown(b)}, not a real number, "
                "at these parameter values"
            )
        try:
            ok = bool((value > b if strict else value >= b) if sign == 1 else (value < b if strict else value <= b))
        except TypeError:
            raise InvalidParameter(
                f"parameter {p.name} = {shown(value)} of {mech_name}: cannot decide whether it is within its bound "
                f"{shown(bound)} = {shown(b)}; give a value farther from the bound"
            ) from None
        if not ok:
            rel = (">" if strict else ">=") if sign == 1 else ("<" if strict else "<=")
            raise InvalidParameter(
                f"parameter {p.name} = {shown(value)} of {mech_name} is out of range: need {p.name} {rel} {shown(bound)}"
                + (f" = {shown(b)}" if b != bound else "")
            )


def is_zero(expr) -> bool | None:
    """True when sympy proves ``expr == 0``, False when it proves otherwise, None if unsure."""
    expr = sp.sympify(expr)
    if expr == 0:
        return True
    if expr.is_number:
        if expr.is_Rational:
            return False
        if sp.cancel(sp.together(expr)) == 0:
            return True
        nz = sp.simplify(expr)
        if nz == 0:
            return True
        return None if nz.is_zero is None else bool(nz.is_zero)
    # combsimp proves the binomial identities of subset channels in milliseconds; simplify takes 0.2 s
    for simplifier in (sp.cancel, sp.combsimp, sp.simplify, lambda e: sp.simplify(sp.gammasimp(e)),
                       lambda e: sp.simplify(sp.expand_func(e))):
        try:
            if simplifier(expr) == 0:
                return True
        except (TypeError, ValueError, NotImplementedError):
            continue
    return None


def sample_points(mech: Mechanism, count: int = 6) -> list[dict]:
    """A few admissible numeric assignments of the free parameters (for spot checks)."""
    points = []
    candidates = {
        "integer": [2, 3, 5, 8, 13, 40],
        "real": [sp.Rational(1, 3), sp.Rational(1, 2), 1, 2, sp.Rational(7, 2), 5],
    }
    params = mech.parameters
    for i in range(count):
        point = {}
        for p in params:
            options = candidates[p.kind]
            subs = {mech.symbols[k]: v for k, v in point.items()}
            chosen = None
            for j in range(len(options)):
                value = sp.sympify(options[(i + j) % len(options)])
                lo = None if p.lower is None else _subs(p.lower, subs)
                hi = None if p.upper is None else _subs(p.upper, subs)
                if lo is not None and lo.is_number and (value < lo or (p.lower_strict and value == lo)):
                    continue
                if hi is not None and hi.is_number and (value > hi or (p.upper_strict and value == hi)):
                    continue
                chosen = value
                break
            if chosen is None:
                lo = _subs(p.lower, subs) if p.lower is not None else sp.Integer(0)
                hi = None if p.upper is None else _subs(p.upper, subs)
                if p.kind == "real" and hi is not None and hi.is_number and lo.is_number:
                    chosen = _simple_between(lo, hi)  # both ends bound it: a short rational inside
                else:
                    chosen = sp.ceiling(lo) + (1 if p.lower_strict else 0) if p.kind == "integer" else lo + 1
            point[p.name] = chosen
        if point not in points:
            points.append(point)
    return points


def _simple_between(lo: sp.Basic, hi: sp.Basic) -> sp.Basic:
    """A rational strictly between two numbers lo < hi with a small denominator."""
    from fractions import Fraction

    a, b = Fraction(str(sp.N(lo, 30))), Fraction(str(sp.N(hi, 30)))
    mid = (a + b) / 2
    for den in (1, 2, 3, 4, 5, 8, 10, 16, 20, 50, 100, 1000, 10**6):
        q = mid.limit_denominator(den)
        if a < q < b:
            return sp.Rational(q.numerator, q.denominator)
    return sp.Rational(mid.numerator, mid.denominator)


# --- validation ------------------------------------------------------------------------------


def _validate(mech: Mechanism) -> list[str]:
    """Check the mechanism once: names, symbols, non-negativity, row sums. Returns notes."""
    notes: list[str] = []
    if not isinstance(mech.name, str) or not mech.name.strip():
        raise InvalidSpec("mechanism.name is empty; give the mechanism a name")
    names = [p.name for p in mech.parameters]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise InvalidSpec(f"parameters declared twice: {', '.join(sorted(dupes))}")
    for p in mech.parameters:
        _check_bounds_consistent(p)
    allowed = set(mech.symbols.values())
    if isinstance(mech.channel, DensityChannel) or (
        isinstance(mech.channel, ProductChannel) and mech.channel.continuous
    ):
        allowed |= {X, Z}
    if isinstance(mech.channel, RealInputChannel):
        allowed |= {X, Y}
    claimed = sp.sympify(mech.claimed_epsilon)
    if claimed is None:
        raise InvalidSpec(f"mechanism {mech.name!r} has no claimed epsilon; set mechanism.claimed_epsilon")
    everything = [("claimed_epsilon", claimed)] + [("channel", e) for e in mech.channel.expressions()]
    for p in mech.parameters:
        everything += [(f"parameters.{p.name}", b) for b in (p.lower, p.upper) if b is not None]
    for where, expr in everything:
        check_budget(expr, field=where)
        unknown = sp.sympify(expr).free_symbols - allowed
        if unknown:
            declared = ", ".join(sorted(mech.symbols)) or "(none)"
            raise InvalidSpec(
                f"unknown symbol {', '.join(sorted(map(str, unknown)))!r} in {where} of {mech.name!r}; declared parameters are {declared}"
            )
    if claimed.has(sp.zoo, sp.nan) or claimed.is_extended_real is False:
        raise InvalidSpec(f"mechanism.claimed_epsilon = {shown(claimed)} is not a real number")
    if claimed.is_number:
        if not (claimed.is_extended_real and _decided(claimed > 0, "mechanism.claimed_epsilon", claimed)):
            raise InvalidSpec(f"mechanism.claimed_epsilon = {shown(claimed)} must be positive")
    elif claimed.is_positive is False:
        raise InvalidSpec(f"mechanism.claimed_epsilon = {shown(claimed)} is not positive")
    if mech.claimed_delta is not None:
        cd = sp.sympify(mech.claimed_delta)
        unknown = cd.free_symbols - set(mech.symbols.values())
        if unknown:
            raise InvalidSpec(f"unknown symbol {', '.join(sorted(map(str, unknown)))!r} in mechanism.claimed_delta; "
                              f"declared parameters are {', '.join(sorted(mech.symbols)) or '(none)'}")
        if cd.is_number and not (cd.is_extended_real and _decided(cd >= 0, "mechanism.claimed_delta", cd)
                                 and _decided(cd < 1, "mechanism.claimed_delta", cd)):
            raise InvalidSpec(f"mechanism.claimed_delta = {shown(cd)} must be in [0, 1), e.g. \"1/100000\"")
    _check_sizes(mech)

    channel = mech.channel
    if isinstance(channel, ExplicitChannel):
        _validate_explicit(mech, channel)
    elif isinstance(channel, StructuredChannel):
        notes += _validate_structured(mech, channel)
    elif isinstance(channel, ProductChannel):
        notes += _validate_product(mech, channel)
    elif isinstance(channel, DensityChannel):
        notes += _validate_density(mech, channel.density, "channel.density")
    elif isinstance(channel, RealInputChannel):
        notes += _validate_real_input(mech, channel)
    elif getattr(channel, "form", None) == "bloom":
        from ldpaudit.mechanism.hashing import validate_bloom

        notes += validate_bloom(mech, channel)
    else:
        raise InvalidSpec(f"channel of {mech.name!r} has unknown form {type(channel).__name__}")
    return notes


def _decided(relation, where: str, value) -> bool:
    """``bool(relation)``, or InvalidSpec when sympy cannot decide it (numbers too close)."""
    try:
        return bool(relation)
    except TypeError:
        raise InvalidSpec(f"{where} = {shown(value)}: cannot decide the comparison {shown(relation)} exactly") from None


def _size_fields(mech: Mechanism) -> list[tuple[str, sp.Basic]]:
    fields = []
    if isinstance(mech.inputs, FiniteDomain) and mech.inputs.labels is None:
        fields.append(("inputs.size", mech.inputs.size))
    ch = mech.channel
    if isinstance(ch, StructuredChannel):
        out = ch.outputs
        if isinstance(out, ElementSpace):
            fields.append(("channel.size", out.size))
        elif isinstance(out, SubsetSpace):
            fields += [("channel.universe", out.universe), ("channel.k", out.k)]
        elif isinstance(out, CohortSpace):
            fields.append(("channel.k", out.k))
            if out.cohorts is not None:
                fields.append(("channel.cohorts", out.cohorts))
    elif isinstance(ch, ProductChannel):
        fields.append(("channel.coordinates", ch.coordinates))
    elif getattr(ch, "form", None) == "bloom":
        fields += [("channel.cohorts", ch.cohorts), ("channel.k", ch.k), ("channel.hashes", ch.hashes)]
    return fields


def _check_sizes(mech: Mechanism) -> None:
    """Numeric sizes are whole numbers in 0..MAX_SIZE (bindings are checked here too)."""
    for where, size in _size_fields(mech):
        size = sp.sympify(size)
        if not size.is_number:
            continue
        if not size.is_Integer:
            raise InvalidSpec(f"{where} = {shown(size)} of {mech.name!r} must be a whole number")
        if size < 0:
            raise InvalidSpec(f"{where} = {shown(size)} of {mech.name!r} is negative")
        if size > MAX_SIZE:
            raise InvalidSpec(
                f"{where} = {shown(size)} of {mech.name!r} exceeds the size limit 2**64 = {MAX_SIZE}; "
                "give a smaller size"
            )


def _check_bounds_consistent(p: Parameter) -> None:
    """Numeric bounds must leave room for a value (an integer, for integer parameters)."""
    low, high = p.lower, p.upper
    for which, bound in (("min", low), ("max", high)):
        if bound is None:
            continue
        if bound.has(sp.zoo, sp.nan, sp.I) or (bound.is_number and bound.is_extended_real is False):
            raise InvalidSpec(f"parameters.{p.name}.{which} = {shown(bound)} is not a real number")
        if not isinstance(bound, sp.Expr):
            raise InvalidSpec(f"parameters.{p.name}.{which} = {shown(bound)} is not a number")
        if p.kind == "integer" and bound.is_number and not bound.is_Rational and bound.is_finite:
            m = abs(bound).evalf(15)
            if not m.is_Float or m > 2**MAX_INTEGER_PART_BITS:
                raise InvalidSpec(
                    f"parameters.{p.name}.{which} = {shown(bound)} is too large for the bound of an integer "
                    f"parameter; irrational bounds are limited to 2^{MAX_INTEGER_PART_BITS}"
                )
    if low is None or high is None or not (low.is_number and high.is_number):
        return
    where = f"parameters.{p.name}"
    empty = _decided(low > high, where, p.describe()) or (low == high and (p.lower_strict or p.upper_strict))
    if p.kind == "integer" and not empty:
        first = sp.floor(low) + 1 if p.lower_strict or not low.is_integer else low
        last = sp.ceiling(high) - 1 if p.upper_strict or not high.is_integer else high
        empty = _decided(first > last, where, p.describe())
    if empty:
        raise InvalidSpec(
            f"parameters.{p.name} has contradictory bounds: {p.describe()} admits no "
            f"{'integer' if p.kind == 'integer' else 'value'}; fix min/max"
        )


def _vanishing_denominator(mech: Mechanism, expr) -> str | None:
    """For an expression in one real parameter, a point of its admissible range where a
    denominator is 0 (sympy solveset), or None."""
    free = expr.free_symbols
    if len(free) != 1:
        return None
    (sym,) = free
    param = next((p for p in mech.parameters if p.symbol == sym), None)
    if param is None or param.kind != "real":
        return None
    low = param.lower if param.lower is not None and param.lower.is_number else -sp.oo
    high = param.upper if param.upper is not None and param.upper.is_number else sp.oo
    domain = sp.Interval(low, high, param.lower_strict or low == -sp.oo, param.upper_strict or high == sp.oo)
    _, den = sp.fraction(sp.together(expr))
    for factor in sp.Mul.make_args(sp.factor(den)):
        if factor.is_number or factor.is_positive:
            continue
        try:
            zeros = sp.solveset(factor, sym, domain)
        except (NotImplementedError, ValueError, TypeError):
            continue
        if isinstance(zeros, sp.FiniteSet) and zeros:
            try:
                return f"{sym} = {shown(sorted(zeros, key=lambda v: float(v))[0])}"
            except (TypeError, ValueError, OverflowError):
                return f"{sym} = {shown(next(iter(zeros)))}"
    return None


def _require_nonnegative(mech: Mechanism, expr, where: str) -> None:
    expr = sp.sympify(expr)
    if expr.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
        raise InvalidSpec(f"{where} of {mech.name!r} = {expr} is not finite")
    if expr.is_number:
        if expr.is_Rational:
            if expr < 0:
                raise InvalidSpec(f"{where} of {mech.name!r} = {expr} is negative; probabilities must be >= 0")
            return
        if not expr.is_extended_real:
            raise InvalidSpec(f"{where} of {mech.name!r} = {shown(expr)} is not a real number")
        if expr.is_nonnegative:
            return
        if _decided(expr < 0, where, expr):
            raise InvalidSpec(f"{where} of {mech.name!r} = {expr} is negative; probabilities must be >= 0")
        return
    if expr.is_nonnegative:
        return
    vanishing = _vanishing_denominator(mech, expr)
    if vanishing is not None:
        raise InvalidSpec(f"{where} of {mech.name!r} = {expr} has a denominator that is 0 at {vanishing}; "
                          "rewrite it so that it is defined on the whole parameter range")
    for point in sample_points(mech):
        value = sp.sympify(expr).xreplace({mech.symbols[k]: v for k, v in point.items()})
        if not value.is_number and _varies(value):
            continue  # still a function of the input (x): no simplification makes it a number to check
        value = sp.simplify(value) if not value.is_number else value
        if value.is_number and (
            value.has(sp.nan, sp.zoo) or value.is_extended_real is False or _decided(value < 0, where, value)
        ):
            pretty = ", ".join(f"{k}={v}" for k, v in point.items())
            raise InvalidSpec(f"{where} of {mech.name!r} = {expr} is {value} (negative or undefined) at {pretty}")


def _varies(expr) -> bool:
    """True when ``expr`` takes two different finite values at two points of its free symbols,
    so it is not a constant function and no simplification turns it into a number. False
    means only "not shown" (a value undefined there, or equal values)."""
    symbols = sorted(expr.free_symbols, key=str)
    values = []
    for start in (sp.Rational(2, 7), sp.Rational(13, 11)):
        try:
            value = complex(sp.N(expr.xreplace({s: start + i for i, s in enumerate(symbols)}), 30))
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            return False
        if not (math.isfinite(value.real) and math.isfinite(value.imag)):
            return False
        values.append(value)
    return abs(values[0] - values[1]) > 1e-9 * max(1.0, abs(values[0]))


def _validate_explicit(mech: Mechanism, ch: ExplicitChannel) -> None:
    if not ch.inputs or not ch.outputs:
        raise InvalidSpec(f"channel of {mech.name!r} has no inputs or no outputs")
    if len(set(ch.outputs)) != len(ch.outputs):
        raise InvalidSpec(f"channel.outputs of {mech.name!r} has repeated labels")
    if len(set(ch.inputs)) != len(ch.inputs):
        raise InvalidSpec(f"channel.inputs of {mech.name!r} has repeated labels")
    if len(ch.matrix) != len(ch.inputs):
        raise InvalidSpec(
            f"channel.rows of {mech.name!r} has {len(ch.matrix)} rows but there are {len(ch.inputs)} inputs; give one row per input"
        )
    checked: set = set()
    for x, row in zip(ch.inputs, ch.matrix):
        if len(row) != len(ch.outputs):
            raise InvalidSpec(
                f"row x={x} of channel {mech.name!r} has {len(row)} entries but there are {len(ch.outputs)} outputs"
            )
        for y, entry in zip(ch.outputs, row):
            if entry not in checked:
                _require_nonnegative(mech, entry, f"entry Q(y={y}|x={x})")
                checked.add(entry)
        if mech.identities_proved:
            continue
        total = sp.Add(*row)
        verdict = is_zero(total - 1)
        if verdict is not True:
            total_shown = sp.simplify(total) if verdict is False or total.is_number else total
            raise InvalidSpec(
                f"row x={x} of channel {mech.name!r} sums to {total_shown}; each row must sum to 1"
                + ("" if verdict is False else " (sympy could not prove it)")
            )


def _validate_structured(mech: Mechanism, ch: StructuredChannel) -> list[str]:
    if not ch.classes:
        raise InvalidSpec(f"channel.classes of {mech.name!r} is empty; declare at least one output class")
    if not isinstance(mech.inputs, FiniteDomain):
        raise InvalidSpec(f"structured channel {mech.name!r} needs a finite input domain")
    if isinstance(ch.outputs, CohortSpace):
        from ldpaudit.mechanism.hashing import check_hash_structure

        space = ch.outputs
        table = None if space.hash_table is None else [[row] for row in space.hash_table]
        check_hash_structure(table=table, family=space.family, cohorts=space.C if space.cohorts is None else space.cohorts, k=space.k, hashes=1,
                             d=mech.inputs.size, permutation=space.permutation, name=mech.name)
    context = set(mech.symbols) | {k for k, _ in mech.bindings} | {"x", "y"}
    if isinstance(ch.outputs, CohortSpace):
        context |= {"c", "v", "hash"}
    context.add("bit")
    for i, cls in enumerate(ch.classes):
        if cls.predicate is None:
            predicate = parse_condition(cls.condition, field=f"channel.classes[{i}].when", context=context)
            object.__setattr__(cls, "predicate", predicate)
        _require_nonnegative(mech, cls.weight, f"channel.classes[{i}].weight")
        _require_nonnegative(mech, cls.count, f"channel.classes[{i}].count")
        if cls.count.is_number and not sp.simplify(cls.count).is_Integer:
            raise InvalidSpec(f"channel.classes[{i}].count of {mech.name!r} = {cls.count} is not an integer")
    if mech.identities_proved:
        return ["row sums proved symbolically from the output classes"]
    total = sp.Add(*(c.count * c.weight for c in ch.classes))
    verdict = is_zero(total - 1)
    if verdict is not True:
        total_shown = sp.simplify(total)
        raise InvalidSpec(
            f"rows of channel {mech.name!r} sum to {total_shown} (sum over classes of count*weight); each row must sum to 1"
            + ("" if verdict is False else " (sympy could not prove it)")
        )
    covered = sp.Add(*(c.count for c in ch.classes))
    if is_zero(covered - ch.outputs.count()) is not True:
        raise InvalidSpec(
            f"output classes of {mech.name!r} cover {covered} outputs but the output space has {ch.outputs.count()}; "
            "the classes must partition the outputs"
        )
    return ["row sums proved symbolically from the output classes"]


def _validate_product(mech: Mechanism, ch: ProductChannel) -> list[str]:
    notes = []
    _require_nonnegative(mech, ch.coordinates, "channel.coordinates")
    if ch.on.probabilities is None and ch.off.probabilities is not None or (
        ch.on.density is None and ch.off.density is not None
    ):
        raise InvalidSpec(f"channel.on and channel.off of {mech.name!r} must both be discrete or both densities")
    for side, law in (("on", ch.on), ("off", ch.off)):
        if law.probabilities is not None:
            values = [v for v, _ in law.probabilities]
            if len(set(values)) != len(values):
                raise InvalidSpec(f"channel.{side}.values of {mech.name!r} repeats a value")
            for v, p in law.probabilities:
                _require_nonnegative(mech, p, f"channel.{side}.values[{v}]")
            total = sp.Add(*(p for _, p in law.probabilities))
            if not mech.identities_proved and is_zero(total - 1) is not True:
                raise InvalidSpec(
                    f"channel.{side} of {mech.name!r} has probabilities summing to {sp.simplify(total)}; they must sum to 1"
                )
        else:
            notes += _validate_density(mech, law.density, f"channel.{side}.density", input_free=True)
    if not isinstance(mech.inputs, FiniteDomain):
        raise InvalidSpec(f"product channel {mech.name!r} needs a finite input domain (one-hot encoded)")
    if is_zero(ch.coordinates - mech.inputs.size) is not True:
        raise InvalidSpec(
            f"channel.coordinates of {mech.name!r} = {ch.coordinates} but the input domain has {mech.inputs.size} values; "
            "a product channel has one coordinate per input"
        )
    notes.append("each coordinate law sums to 1, so the product does")
    return notes


def _validate_density(mech, density, where, *, input_free=False) -> list[str]:
    density = sp.sympify(density)
    from ldpaudit.mechanism import piecewise

    if not input_free and isinstance(mech.inputs, IntervalDomain) and piecewise.is_piecewise_in(density, Z):
        points = [{mech.symbols[k]: v for k, v in pt.items()} for pt in sample_points(mech, 3)] or [{}]
        return piecewise.check_at_points(mech.name, density, Z, X, mech.inputs.low, mech.inputs.high, points,
                                         where=where)
    if density.has(sp.nan, sp.zoo):
        raise InvalidSpec(f"{where} of {mech.name!r} = {density} is not finite")
    if not density.has(Z):
        raise InvalidSpec(f"{where} of {mech.name!r} = {density} does not mention the output variable z")
    if input_free and density.has(X):
        raise InvalidSpec(f"{where} of {mech.name!r} mentions x; product coordinates depend on x only through on/off")
    if not input_free and not isinstance(mech.inputs, IntervalDomain):
        raise InvalidSpec(f"density channel {mech.name!r} needs an interval input domain")
    if density.is_nonnegative is False:
        raise InvalidSpec(f"{where} of {mech.name!r} = {density} can be negative")
    if mech.identities_proved:
        return [f"{where} integrates to 1 (sympy, proved for every admissible parameter)"]
    w = sp.Symbol("w", real=True)
    # location families integrate fastest after the shift z = x + w
    shifted = density.xreplace({Z: X + w}) if not input_free else density.xreplace({Z: w})
    if shifted.has(X):
        # a location other than x itself (a clipped input, Min(Max(x, a), b)): shift by it
        for a in density.atoms(sp.Abs):
            loc = sp.expand(Z - a.args[0])
            if not loc.has(Z) and not density.xreplace({Z: loc + w}).has(X):
                shifted = density.xreplace({Z: loc + w})
                break
        else:
            shifted = density.xreplace({Z: w})
    try:
        total = sp.integrate(shifted, (w, -sp.oo, sp.oo))
    except Exception as exc:  # sympy raises many types when it cannot integrate
        raise InvalidSpec(f"{where} of {mech.name!r}: could not integrate the density ({exc})") from None
    if isinstance(total, sp.Integral) or is_zero(total - 1) is not True:
        raise InvalidSpec(f"{where} of {mech.name!r} integrates to {sp.simplify(total)} over z; a density must integrate to 1")
    return [f"{where} integrates to 1 (sympy)"]


def _validate_real_input(mech: Mechanism, ch: RealInputChannel) -> list[str]:
    """Rows of a real-input channel: non-negative and summing to 1 for every x, proved by a
    case split over the values of its input functions where possible, and always checked
    exactly at representative inputs and sample parameters; structured class counts too."""
    from ldpaudit.mechanism import realinput

    if not isinstance(mech.inputs, IntervalDomain):
        raise InvalidSpec(f"channel of {mech.name!r} has real inputs but [inputs] is finite; use low/high or real = true")
    if not ch.outputs or len(set(ch.outputs)) != len(ch.outputs):
        raise InvalidSpec(f"channel.outputs of {mech.name!r} must be non-empty and without repeats")
    for i, c in enumerate(ch.classes):
        if not (c.count.is_Integer and c.count >= 0):
            raise InvalidSpec(
                f"channel.classes[{i}].count of {mech.name!r} = {c.count}; with real inputs a class count must be "
                "a non-negative integer (the number of outputs in the class for every x)"
            )
    rows = [ch.probability(y) for y in ch.outputs]
    relations = [c.relation.xreplace({Y: sp.Integer(y)}) for c in ch.classes for y in ch.outputs]
    ab = realinput.abstract(rows + relations)
    notes = []
    proved = False
    if ab.case_count <= realinput.MAX_CASES:
        n = len(rows)
        proved = True
        seen = set()
        for case in ab.cases():
            values = [ab.at(e, case) for e in ab.expressions[:n]]
            for y, v in zip(ch.outputs, values):
                if v not in seen:
                    seen.add(v)
                    _require_nonnegative(mech, v, f"Q(y={y}|x) of the real-input channel")
            if is_zero(sp.Add(*values) - 1) is not True:
                proved = False
            if ch.classes:
                rel = ab.expressions[n:]
                for i, c in enumerate(ch.classes):
                    hits = [ab.at(r, case) for r in rel[i * n:(i + 1) * n]]
                    if any(h not in (sp.true, sp.false) for h in hits) or sum(h is sp.true for h in hits) != int(c.count):
                        proved = False
        if proved:
            what = ", ".join(f.describe() for f in ab.features) or "no input function"
            scope = "every x" + (" (x enters only through " + what + ")" if ab.features and not ab.residual else "")
            notes.append(f"rows sum to 1{' and class counts hold' if ch.classes else ''} for {scope}: case split, sympy")
    checked = _spot_check_real_input(mech, ch, rows)
    notes.append(f"rows checked exactly at {checked} (input, parameter) points")
    if not proved:
        notes.append("row sums not proved symbolically for every x; spot checks only")
    return notes


def _spot_check_real_input(mech: Mechanism, ch: RealInputChannel, rows) -> int:
    from ldpaudit.mechanism import realinput

    count = 0
    for point in sample_points(mech, count=3):
        subs = {mech.symbols[k]: v for k, v in point.items()}
        bound_rows = [r.xreplace(subs) for r in rows]
        xs = realinput.representative_inputs(_subs_domain(mech.inputs, subs), bound_rows)
        if len(xs) > 14:  # keep the spread: both far ends and an even selection between
            step = (len(xs) - 1) / 13
            xs = sorted({xs[round(i * step)] for i in range(14)})
        pretty = ", ".join(f"{k}={v}" for k, v in point.items())
        for x in xs:
            values = [realinput.evaluate(r, x) for r in bound_rows]
            for y, v in zip(ch.outputs, values):
                if not v.is_number or v.has(sp.nan, sp.zoo) or bool(v < 0):
                    raise InvalidSpec(f"Q(y={y}|x={x}) of {mech.name!r} = {v} at {pretty} is not a probability")
            if is_zero(sp.Add(*values) - 1) is not True:
                raise InvalidSpec(
                    f"row x={x} of channel {mech.name!r} sums to {sp.nsimplify(sp.Add(*values))} at {pretty}; each row must sum to 1"
                )
            for i, c in enumerate(ch.classes):
                rel = c.relation.xreplace(subs)
                hits = sum(realinput.evaluate(rel.xreplace({Y: sp.Integer(y)}), x) is sp.true for y in ch.outputs)
                if hits != int(c.count):
                    raise InvalidSpec(
                        f"channel.classes[{i}] ({c.name!r}) of {mech.name!r} declares count {c.count} but {hits} outputs "
                        f"satisfy {c.condition!r} for input x={x} at {pretty}"
                    )
            count += 1
    return count


# --- materialization -------------------------------------------------------------------------


def materialize(mech: Mechanism, *, max_entries: int = MAX_MATERIALIZED_ENTRIES) -> ExplicitChannel:
    channel = mech.channel
    if isinstance(channel, ExplicitChannel):
        return channel
    if isinstance(channel, DensityChannel) or (isinstance(channel, ProductChannel) and channel.continuous):
        raise NotMaterializable(f"{mech.name!r} has a continuous output; it has no finite channel matrix")
    if isinstance(channel, RealInputChannel):
        raise NotMaterializable(f"{mech.name!r} has real inputs; it has no finite channel matrix")
    if mech.parameters and any(
        s in e.free_symbols for e in _size_exprs(mech) for s in mech.symbols.values()
    ):
        raise NotMaterializable(
            f"{mech.name!r} has symbolic sizes; bind {', '.join(mech.parameter_names)} first (e.g. mech.bind(d=4))"
        )
    if getattr(channel, "form", None) == "bloom":
        from ldpaudit.mechanism.hashing import materialize_bloom

        return materialize_bloom(mech, channel, max_entries)
    inputs = mech.inputs.enumerate()
    if isinstance(channel, StructuredChannel):
        n_out = _concrete_int(channel.outputs.count(), "output space size")
        _check_size(mech, len(inputs), n_out, max_entries)
        return _materialize_structured(mech, channel, inputs)
    n = _concrete_int(channel.coordinates, "channel.coordinates")
    values = sorted({v for v, _ in channel.on.probabilities} | {v for v, _ in channel.off.probabilities})
    _check_size(mech, len(inputs), len(values) ** n, max_entries)
    outputs = tuple(itertools.product(values, repeat=n))
    matrix = []
    for x in inputs:
        row = []
        for y in outputs:
            terms = [(channel.on if j == x else channel.off).probability(yj) for j, yj in enumerate(y)]
            row.append(sp.Mul(*terms))
        matrix.append(tuple(row))
    return ExplicitChannel(tuple(inputs), outputs, tuple(matrix))


def _size_exprs(mech):
    ch = mech.channel
    out = [mech.inputs.size] if isinstance(mech.inputs, FiniteDomain) else []
    if isinstance(ch, StructuredChannel):
        out.append(ch.outputs.count())
    if isinstance(ch, ProductChannel):
        out.append(ch.coordinates)
    if getattr(ch, "form", None) == "bloom":
        out += [ch.cohorts, ch.k, ch.hashes]
    return [sp.sympify(e) for e in out]


def _check_size(mech, n_in, n_out, max_entries):
    if n_in * n_out > max_entries:
        raise NotMaterializable(
            f"{mech.name!r} has {n_in} x {n_out} = {n_in * n_out} entries, more than the limit {max_entries}; "
            "use its structured form or pass a larger max_entries"
        )


def _condition_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _materialize_structured(mech, ch: StructuredChannel, inputs) -> ExplicitChannel:
    env_params = {k: int(v) if sp.sympify(v).is_Integer else v for k, v in mech.bindings}
    for c in ch.classes:
        free = sorted(_condition_names(c.predicate) & set(mech.parameter_names))
        if free:
            raise NotMaterializable(
                f"class condition {c.condition!r} of {mech.name!r} uses the free parameter {free[0]!r}; "
                f"bind it first (e.g. mech.bind({free[0]}=1))"
            )
    outputs = ch.outputs.enumerate(env_params)
    hash_rows = ch.outputs.table(len(inputs)) if isinstance(ch.outputs, CohortSpace) else None
    counts = [_concrete_int(c.count, f"channel.classes[{i}].count") for i, c in enumerate(ch.classes)]
    matrix = []
    for x in inputs:
        env = dict(env_params, x=x)
        env["bit"] = lambda value, j: (int(value) >> int(j)) & 1
        if isinstance(ch.outputs, CohortSpace):
            env["hash"] = lambda c, xx, _t=hash_rows: _t[c][xx]
        row = []
        seen = [0] * len(ch.classes)
        for y in outputs:
            if isinstance(ch.outputs, CohortSpace):
                env["c"], env["v"] = y
            env["y"] = y
            matches = [i for i, c in enumerate(ch.classes) if eval_condition(c.predicate, env)]
            if len(matches) != 1:
                names = [ch.classes[i].name for i in matches]
                raise InvalidSpec(
                    f"output y={y} for input x={x} of {mech.name!r} falls in {len(matches)} classes {names}; "
                    "the class conditions must be exclusive and exhaustive"
                )
            seen[matches[0]] += 1
            row.append(ch.classes[matches[0]].weight)
        if seen != counts:
            bad = next(i for i in range(len(counts)) if seen[i] != counts[i])
            raise InvalidSpec(
                f"channel.classes[{bad}] ({ch.classes[bad].name!r}) of {mech.name!r} declares count "
                f"{ch.classes[bad].count} = {counts[bad]} but {seen[bad]} outputs satisfy "
                f"{ch.classes[bad].condition!r} for input x={x}"
            )
        matrix.append(tuple(row))
    return ExplicitChannel(tuple(inputs), tuple(outputs), tuple(matrix))


def symbols_for(parameters: Iterable[Parameter]) -> dict[str, sp.Symbol]:
    return {p.name: p.symbol for p in parameters}


def parse_in(mech_params: Iterable[Parameter], text, *, field: str, extra: Mapping[str, sp.Basic] | None = None):
    """Parse an expression over the given parameters (and extra names such as x, z)."""
    names = symbols_for(mech_params)
    if extra:
        names.update(extra)
    return parse_expression(text, names, field=field)


__all__ = [
    "X", "Z", "Parameter", "integer", "positive", "FiniteDomain", "IntervalDomain", "ElementSpace", "SubsetSpace",
    "CohortSpace", "ExplicitChannel", "OutputClass", "StructuredChannel", "CoordinateLaw", "ProductChannel",
    "DensityChannel", "RealInputChannel", "Y", "Mechanism", "materialize", "is_zero", "sample_points",
]
