"""The :class:`Mechanism` value: parameters, an input domain, a channel and a claimed ε,
validated once at construction.

Validation here covers what every form shares (names, symbols, the claimed ε, sizes); the
channel's own checks are its ``validate(mech)`` method, and materialization its
``materialize(mech, max_entries=...)``, so this module imports no channel form. A channel
form provides::

    form: str                            "explicit", "structured", ...
    variables: frozenset                 symbols besides the parameters (x, y, z)
    expressions() -> list                every expression, for budgets and symbol checks
    substitute(subs) -> channel          the channel with parameter values substituted
    size_fields() -> [(field, size)]     sizes that must be whole numbers in 0..MAX_SIZE
    validate(mech) -> [note]             InvalidSpec naming the field, or notes on what was proved
    materialize(mech, max_entries=...)   an ExplicitChannel, or NotMaterializable
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import sympy as sp

from ldpaudit.errors import InvalidParameter, InvalidSpec
from ldpaudit.mechanism.expr import check_budget, shown
from ldpaudit.mechanism.params import (
    MAX_MATERIALIZED_ENTRIES,
    MAX_SIZE,
    Parameter,
    _check_bounds_consistent,
    _check_range,
    _decided,
    _exact_value,
    _subs,
    _transfer_bounds,
    decide,
)
from ldpaudit.mechanism.spaces import Domain, FiniteDomain, _subs_domain


@dataclass(frozen=True)
class Mechanism:
    """An immutable, validated LDP mechanism.

    ``parameters`` are the free parameters; ``bindings`` records the values already
    substituted by :meth:`bind`. Construction validates the channel once.
    """

    name: str
    parameters: tuple[Parameter, ...]
    inputs: Domain
    channel: object  # one of the channel forms (ldpaudit.mechanism.model.Channel)
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

    def materialize(self, *, max_entries: int = MAX_MATERIALIZED_ENTRIES):
        """The channel as an explicit exact matrix (needs numeric sizes; refuses huge ones)."""
        return materialize(self, max_entries=max_entries)

    def _repr_markdown_(self) -> str:
        """Jupyter's display: name, parameters, inputs, claimed ε and the channel in LaTeX."""
        from ldpaudit.mechanism.describe import channel_latex_lines
        from ldpaudit.render.notebook import mechanism_markdown

        return mechanism_markdown(self, channel_latex_lines(self.channel))

    @classmethod
    def from_matrix(cls, weights, *, epsilon, name: str = "matrix channel", inputs=None, outputs=None,
                    description: str = "", source: str = "") -> Mechanism:
        """A finite mechanism from a matrix of non-negative weights (rows = inputs), each row
        normalized exactly by its sum: a numpy array or nested lists of ints, Fractions or floats
        (floats converted exactly). Built in time linear in the entries; ``epsilon`` is the
        claim (a number or an exact expression such as ``"log(3)"``)."""
        from ldpaudit.mechanism.expr import parse_expression
        from ldpaudit.mechanism.matrix import matrix_channel

        channel = matrix_channel(weights, inputs=inputs, outputs=outputs)
        claim = parse_expression(epsilon if isinstance(epsilon, str) else str(sp.nsimplify(epsilon, rational=True))
                                 if isinstance(epsilon, float) else str(epsilon), {}, field="epsilon")
        return cls(name=name, parameters=(), inputs=FiniteDomain(sp.Integer(len(channel.inputs)), channel.inputs),
                   channel=channel, claimed_epsilon=claim, description=description, source=source)

    def describe(self) -> str:
        params = ", ".join(p.describe() for p in self.parameters) or "none"
        bound = ", ".join(f"{k}={v}" for k, v in self.bindings)
        return f"{self.name} [{self.channel.form}] params: {params}" + (f"; bound: {bound}" if bound else "")


def materialize(mech: Mechanism, *, max_entries: int = MAX_MATERIALIZED_ENTRIES):
    """The channel of ``mech`` as an :class:`~ldpaudit.mechanism.explicit.ExplicitChannel`."""
    return mech.channel.materialize(mech, max_entries=max_entries)


# --- validation ------------------------------------------------------------------------------


def _validate(mech: Mechanism) -> list[str]:
    """Check the mechanism once: names, symbols, the claimed ε and sizes here, then the
    channel's own checks (non-negativity, row sums, ...). Returns notes."""
    if not isinstance(mech.name, str) or not mech.name.strip():
        raise InvalidSpec("mechanism.name is empty; give the mechanism a name")
    names = [p.name for p in mech.parameters]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise InvalidSpec(f"parameters declared twice: {', '.join(sorted(dupes))}")
    for p in mech.parameters:
        _check_bounds_consistent(p)
    allowed = set(mech.symbols.values()) | set(getattr(mech.channel, "variables", ()))
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
    else:
        _check_claim_below(mech, claimed)
    if mech.claimed_delta is not None:
        _check_claimed_delta(mech, sp.sympify(mech.claimed_delta))
    _check_sizes(mech)
    _check_interval(mech)

    validate = getattr(mech.channel, "validate", None)
    if validate is None:
        raise InvalidSpec(f"channel of {mech.name!r} has unknown form {type(mech.channel).__name__}")
    return list(validate(mech))


def _check_interval(mech: Mechanism) -> None:
    """Real inputs [low, high] (or a box of them): low above high, shown at the expression or
    at an admissible sample point, is an empty domain (Laplace mean with low = 2M, high = -2M
    would be "proved" with a tight ε twice its claim): refused, naming both ends."""
    from ldpaudit.mechanism.checks import sample_points

    low, high = getattr(mech.inputs, "low", None), getattr(mech.inputs, "high", None)
    if low is None or high is None:
        return
    gap = sp.sympify(low) - sp.sympify(high)
    points = [{}] if gap.is_number else sample_points(mech)
    for point in points:
        value = _subs(gap, {mech.symbols[k]: v for k, v in point.items()}) if point else gap
        if value.is_number and value.is_extended_real and decide(value > 0) is True:
            at = f" at {', '.join(f'{k} = {v}' for k, v in point.items())}" if point else ""
            raise InvalidSpec(f"inputs.low = {shown(low)} is above inputs.high = {shown(high)}{at}: the input interval "
                              f"of {mech.name!r} is empty; swap them (low <= high)")


def _check_claim_below(mech: Mechanism, claimed: sp.Basic) -> None:
    """A claimed ε that mentions a parameter with no lower bound (``epsilon`` declared without
    ``min``): the claim at that parameter = -1 (the others at a sample point), refused when it
    is shown not positive there. Sample points lie inside the usual ranges and never probe
    below; a claim of ε <= 0 is no LDP claim, so the spec must exclude it."""
    from ldpaudit.mechanism.checks import sample_points

    base = next(iter(sample_points(mech, count=1)), None)
    if base is None:
        return
    for p in mech.parameters:
        if p.lower is not None or p.symbol not in claimed.free_symbols:
            continue
        point = {**base, p.name: sp.Integer(-1)}
        subs = {mech.symbols[k]: v for k, v in point.items()}
        admissible = all(
            decide(_subs(q.lower, subs) < point[q.name] if q.lower_strict else _subs(q.lower, subs) <= point[q.name])
            is True for q in mech.parameters if q.lower is not None) and all(
            decide(point[q.name] < _subs(q.upper, subs) if q.upper_strict else point[q.name] <= _subs(q.upper, subs))
            is True for q in mech.parameters if q.upper is not None)
        if not admissible:
            continue
        value = _subs(claimed, subs)
        if value.is_number and not value.has(sp.zoo, sp.nan) and decide(value > 0) is False:
            pretty = ", ".join(f"{k} = {v}" for k, v in point.items())
            raise InvalidSpec(f"mechanism.claimed_epsilon = {shown(claimed)} is {shown(value)} at {pretty}, not positive: "
                              f"parameters.{p.name} has no lower bound; add min = 0 with strict_min = true (or the "
                              f"smallest value the claim holds for)")


def _size_fields(mech: Mechanism) -> list[tuple[str, sp.Basic]]:
    fields = []
    if isinstance(mech.inputs, FiniteDomain) and mech.inputs.labels is None:
        fields.append(("inputs.size", mech.inputs.size))
    return fields + list(getattr(mech.channel, "size_fields", list)())


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


def _check_claimed_delta(mech, cd: sp.Basic) -> None:
    """mechanism.claimed_delta: in the declared parameters, and in [0, 1) when it is a number."""
    unknown = cd.free_symbols - set(mech.symbols.values())
    if unknown:
        raise InvalidSpec(f"unknown symbol {', '.join(sorted(map(str, unknown)))!r} in mechanism.claimed_delta; "
                          f"declared parameters are {', '.join(sorted(mech.symbols)) or '(none)'}")
    if cd.is_number and not (cd.is_extended_real and _decided(cd >= 0, "mechanism.claimed_delta", cd)
                             and _decided(cd < 1, "mechanism.claimed_delta", cd)):
        raise InvalidSpec(f"mechanism.claimed_delta = {shown(cd)} must be in [0, 1), e.g. \"1/100000\"")
