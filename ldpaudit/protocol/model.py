"""Protocols: rounds of local randomizers with public parameters bound by the analyst.

A :class:`Protocol` is a sequence of :class:`Round` values. Each round assigns a group of
users (a share of n or a count, optionally split into equal subgroups) one local
:class:`Randomizer`: a :class:`~ldpaudit.mechanism.model.Mechanism` (what verify proves) plus a
vectorized numpy sampler (what the simulation runs). The randomizer's public parameters are
bound to Python values or callables; a callable's argument names say what it reads: protocol
constants (``n``, ``epsilon``, ``sigma``, ...), estimates produced by earlier rounds' aggregators
(``mu1``), or ``subgroup`` (the subgroup index). The analyst's aggregation is a Python callable
on the round's sufficient statistic; nothing in a spec file is executed.

Validation happens once, at construction, with one-line errors naming the field.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from ldpaudit.errors import InvalidParameter, InvalidSpec

#: the name a binding callable uses to receive the subgroup index (0 .. subgroups-1)
SUBGROUP = "subgroup"


@dataclass(frozen=True)
class Randomizer:
    """A local randomizer: the spec it is proved from and a vectorized sampler.

    ``sample(x, rng, **params)`` maps an array of inputs (any shape) to reports of the same
    shape; each parameter arrives as an array broadcastable to ``x``. ``outputs`` lists the
    finite reports (the round's statistic is then a histogram over them) or is None for real
    reports (the statistic is their sum). ``law(population, sizes, rng, trials, **params)``,
    when given, draws that statistic directly, exactly in law, for a Gaussian population
    (``params`` per subgroup, shape (trials, subgroups)); it must agree in distribution with
    summarizing ``sample`` (tests check this)."""

    name: str
    sample: Callable
    spec: object = None            # a Mechanism, a spec path, or a zero-argument callable returning one
    outputs: tuple | None = None
    law: Callable | None = None
    public: tuple[str, ...] = ()   # public parameter names (read from the spec's `public = true` when present)

    def mechanism(self):
        """The Mechanism this randomizer is proved from (loaded on first use)."""
        from ldpaudit.mechanism import Mechanism, load_spec

        spec = self.spec
        if spec is None:
            raise InvalidSpec(f"randomizer {self.name!r} has no spec; give spec= a Mechanism or a .toml path")
        if isinstance(spec, Mechanism):
            return spec
        if isinstance(spec, (str, Path)):
            return load_spec(spec)
        return spec()

    def public_parameters(self) -> tuple[str, ...]:
        """Declared public names, else the spec's parameters marked ``public = true``."""
        if self.public:
            return self.public
        try:
            mech = self.mechanism()
        except InvalidSpec:
            return ()
        return tuple(p.name for p in mech.parameters if getattr(p, "public", False))


@dataclass(frozen=True)
class Round:
    """One group of users answering one randomizer.

    ``share`` (a fraction of n) or ``count`` sizes the group; ``subgroups`` splits it into equal
    parts (an int, or a callable of protocol constants). ``users_from`` names an earlier round
    whose users answer again (they send two messages: privacy composes). ``bind`` maps each
    randomizer parameter to a value or a callable; ``aggregate(stat, ctx)`` returns a dict of
    new estimates whose names are declared in ``produces``."""

    name: str
    randomizer: Randomizer
    aggregate: Callable
    produces: tuple[str, ...] = ()
    share: object = None
    count: int | None = None
    subgroups: object = 1
    bind: Mapping[str, object] = field(default_factory=dict)
    users_from: str | None = None


@dataclass(frozen=True)
class Protocol:
    """Rounds run in order; ``output`` names the final estimate; ``constants`` are the names
    the caller supplies at run time (n is always available)."""

    name: str
    rounds: tuple[Round, ...]
    output: str
    constants: tuple[str, ...] = ("n", "epsilon")
    description: str = ""
    epsilon: str = "epsilon"   # the per-message budget every randomizer is claimed at

    def __post_init__(self):
        object.__setattr__(self, "rounds", tuple(self.rounds))
        object.__setattr__(self, "constants", tuple(dict.fromkeys(("n", *self.constants))))
        validate(self)

    def round(self, name: str) -> Round:
        for r in self.rounds:
            if r.name == name:
                return r
        raise InvalidParameter(f"protocol {self.name!r} has no round {name!r}; rounds: {', '.join(r.name for r in self.rounds)}")

    def depth(self) -> dict[str, int]:
        """Interaction round of each Round: 1 + the deepest round whose estimate its bindings read."""
        producer, depth = {}, {}
        for r in self.rounds:
            reads = {name for value in r.bind.values() for name in binding_arguments(value)}
            d = 1 + max((depth[producer[e]] for e in reads if e in producer), default=0)
            if r.users_from is not None:
                d = max(d, depth[r.users_from] + 1)
            depth[r.name] = d
            for e in r.produces:
                producer[e] = r.name
        return depth

    @property
    def interaction_rounds(self) -> int:
        return max(self.depth().values())


def binding_arguments(value) -> tuple[str, ...]:
    """The names a binding reads: a callable's parameter names; nothing for a constant value."""
    if not callable(value):
        return ()
    try:
        params = inspect.signature(value).parameters.values()
    except (TypeError, ValueError):
        raise InvalidSpec(f"binding {value!r} has no inspectable signature; use a def or lambda with named arguments") from None
    out = []
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise InvalidSpec(f"binding {getattr(value, '__name__', value)!r} takes *args/**kwargs; name each value it reads")
        out.append(p.name)
    return tuple(out)


def _as_share(r: Round) -> Fraction | None:
    if r.share is None:
        return None
    try:
        share = Fraction(str(r.share)) if not isinstance(r.share, Fraction) else r.share
    except (ValueError, ZeroDivisionError):
        raise InvalidParameter(f"round {r.name!r} share = {r.share!r} is not a number; give a fraction of n such as 1/2") from None
    if share > 1:
        raise InvalidParameter(f"round {r.name!r} share = {share} is above 1; a share is a fraction of n in (0, 1] (or give count=)")
    if share <= 0:
        raise InvalidParameter(f"round {r.name!r} share = {share} must be > 0; a share is a fraction of n in (0, 1]")
    return share


def validate(protocol: Protocol) -> None:
    if not protocol.rounds:
        raise InvalidSpec(f"protocol {protocol.name!r} has no rounds; give at least one Round")
    names = [r.name for r in protocol.rounds]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InvalidSpec(f"protocol {protocol.name!r} has two rounds named {dupes[0]!r}; round names must be unique")
    produced: dict[str, str] = {}
    fresh_total = Fraction(0)
    for r in protocol.rounds:
        if not isinstance(r.randomizer, Randomizer):
            raise InvalidSpec(f"round {r.name!r} randomizer is {type(r.randomizer).__name__}; give a Randomizer")
        if (r.share is None) == (r.count is None):
            raise InvalidParameter(f"round {r.name!r} needs exactly one of share= (a fraction of n) or count=")
        share = _as_share(r)
        if r.count is not None and (not isinstance(r.count, int) or r.count < 1):
            raise InvalidParameter(f"round {r.name!r} count = {r.count!r} must be a positive integer")
        if r.users_from is not None:
            if r.users_from not in {q.name for q in protocol.rounds[: names.index(r.name)]}:
                raise InvalidSpec(f"round {r.name!r} users_from = {r.users_from!r} is not an earlier round; earlier: "
                                  f"{', '.join(names[: names.index(r.name)]) or '(none)'}")
        elif share is not None:
            fresh_total += share
        if not callable(r.aggregate):
            raise InvalidSpec(f"round {r.name!r} aggregate is not callable; give a Python function (stat, ctx) -> dict")
        known = set(protocol.constants) | set(produced) | {SUBGROUP}
        for param, value in r.bind.items():
            for arg in binding_arguments(value):
                if arg not in known:
                    have = ", ".join(sorted(produced)) or "(none)"
                    raise InvalidSpec(
                        f"round {r.name!r} binds {param!r} from {arg!r}, which is neither a protocol constant "
                        f"({', '.join(protocol.constants)}) nor an estimate of an earlier round (estimates so far: {have})")
        for arg in binding_arguments(r.subgroups):
            if arg not in protocol.constants:
                raise InvalidSpec(f"round {r.name!r} subgroups reads {arg!r}, which is not a protocol constant "
                                  f"({', '.join(protocol.constants)})")
        for public in r.randomizer.public_parameters():
            if public not in r.bind:
                raise InvalidParameter(
                    f"public parameter {public!r} of randomizer {r.randomizer.name!r} in round {r.name!r} is not bound; "
                    f"add {public!r} to the round's bind= (a value or a function of constants/earlier estimates)")
        for e in r.produces:
            produced[e] = r.name
    if fresh_total > 1:
        parts = ", ".join(f"{r.name}: {_as_share(r)}" for r in protocol.rounds if r.share is not None and r.users_from is None)
        raise InvalidParameter(f"protocol {protocol.name!r} round shares sum to {fresh_total} > 1 ({parts}); "
                               f"fresh groups are disjoint, so their shares must sum to at most 1 (use users_from= to reuse users)")
    if protocol.output not in produced:
        raise InvalidSpec(f"protocol {protocol.name!r} output = {protocol.output!r} is not produced by any round; "
                          f"estimates: {', '.join(sorted(produced)) or '(none)'}")


def call_binding(value, values: Mapping[str, object]):
    """Evaluate a binding: a constant is returned as is; a callable gets the values it names."""
    if not callable(value):
        return value
    return value(**{a: values[a] for a in binding_arguments(value)})
