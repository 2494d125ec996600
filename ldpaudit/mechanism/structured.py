"""The structured channel form: for each input x, the outputs fall into a few classes
relative to x (k-RR: ``y == x`` / ``y != x``; k-subset: ``x in y`` / ``x not in y``; local
hashing: ``v == hash(c, x)``), each with a symbolic multiplicity and a per-output weight, so
d = 10**6 costs nothing."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

import sympy as sp

from ldpaudit.errors import InvalidSpec, NotMaterializable
from ldpaudit.mechanism.checks import (
    _require_nonnegative,
    check_materialized_size,
    is_zero,
    require_numeric_sizes,
)
from ldpaudit.mechanism.explicit import ExplicitChannel
from ldpaudit.mechanism.expr import eval_condition, parse_condition
from ldpaudit.mechanism.hashing import check_hash_structure
from ldpaudit.mechanism.params import _subs
from ldpaudit.mechanism.spaces import CohortSpace, FiniteDomain, OutputSpace, _concrete_int


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
    variables = frozenset()

    def expressions(self) -> list[sp.Basic]:
        return [e for c in self.classes for e in (c.count, c.weight)] + [sp.sympify(self.outputs.count())]

    def substitute(self, subs) -> StructuredChannel:
        return replace(self, outputs=self.outputs.substitute(subs), classes=tuple(c.substitute(subs) for c in self.classes))

    def size_fields(self) -> list[tuple[str, sp.Basic]]:
        return self.outputs.size_fields()

    def validate(self, mech) -> list[str]:
        return _validate_structured(mech, self)

    def materialize(self, mech, *, max_entries: int) -> ExplicitChannel:
        require_numeric_sizes(mech)
        inputs = mech.inputs.enumerate()
        n_out = _concrete_int(self.outputs.count(), "output space size")
        check_materialized_size(mech, len(inputs), n_out, max_entries)
        return _materialize_structured(mech, self, inputs)


def _validate_structured(mech, ch: StructuredChannel) -> list[str]:
    if not ch.classes:
        raise InvalidSpec(f"channel.classes of {mech.name!r} is empty; declare at least one output class")
    if not isinstance(mech.inputs, FiniteDomain):
        raise InvalidSpec(f"structured channel {mech.name!r} needs a finite input domain")
    if isinstance(ch.outputs, CohortSpace):
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
