"""The structured channel form: for each input x, the outputs fall into a few classes
relative to x (k-RR: ``y == x`` / ``y != x``; k-subset: ``x in y`` / ``x not in y``; local
hashing: ``v == hash(c, x)``), each with a symbolic multiplicity and a per-output weight, so
d = 10**6 costs nothing.

Validation checks the classes against their conditions at load: that the conditions are
exclusive and cover every output and that each class holds ``count`` outputs for every
input, over the structure of the output space for all parameter values where the conditions
allow it (``y == x``, ``x in y``, ``v == hash(c, x)``), and always by enumerating the outputs
of the ``[example]`` instance (up to :data:`MAX_CLASS_CHECKS` input-output pairs)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

import sympy as sp

from ldpaudit.errors import InvalidSpec, LdpAuditError, NotMaterializable
from ldpaudit.mechanism.checks import (
    _require_nonnegative,
    check_materialized_size,
    is_zero,
    require_sum_one,
    require_numeric_sizes,
    sample_points,
)
from ldpaudit.mechanism.explicit import ExplicitChannel
from ldpaudit.mechanism.expr import eval_condition, parse_condition, shown
from ldpaudit.mechanism.hashing import _Token, check_hash_structure
from ldpaudit.mechanism.params import _check_range, _subs
from ldpaudit.mechanism.spaces import CohortSpace, ElementSpace, FiniteDomain, OutputSpace, SubsetSpace, _concrete_int


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
        n_out = _concrete_int(self.outputs.count(), "output space size")
        labels = mech.inputs.labels
        n_in = len(labels) if labels is not None else _concrete_int(mech.inputs.size, "inputs.size")
        check_materialized_size(mech, n_in, n_out, max_entries)  # before listing the inputs
        return _materialize_structured(mech, self, mech.inputs.enumerate())


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
    require_sum_one(mech, total, lambda: f"rows of channel {mech.name!r} sum to {sp.simplify(total)} (sum over "
                                         "classes of count*weight); each row must sum to 1")
    covered = sp.Add(*(c.count for c in ch.classes))
    if is_zero(covered - ch.outputs.count()) is not True:
        raise InvalidSpec(
            f"output classes of {mech.name!r} cover {covered} outputs but the output space has {ch.outputs.count()}; "
            "the classes must partition the outputs"
        )
    notes = ["row sums proved symbolically from the output classes"]
    if _check_classes_by_structure(mech, ch):
        notes.append("class conditions exclusive and exhaustive with the declared counts for every parameter value "
                     "(over the output types)")
    listed = _check_classes_on_example(mech, ch)
    if listed:
        notes.append(listed)
    return notes


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
    hash_of = None
    if isinstance(ch.outputs, CohortSpace):
        hash_of = lambda c, xx, _t=ch.outputs.table(len(inputs)): _t[c][xx]  # noqa: E731
    counts = [_concrete_int(c.count, f"channel.classes[{i}].count") for i, c in enumerate(ch.classes)]
    matrix = [tuple(ch.classes[i].weight for i in row)
              for _, row in _classify(mech, ch, inputs, outputs, env_params, hash_of, counts)]
    return ExplicitChannel(tuple(inputs), tuple(outputs), tuple(matrix))


# --- the output classes against their conditions -------------------------------------------

#: the example instance's classes are checked by enumeration up to this many (input, output) pairs
MAX_CLASS_CHECKS = 50_000


def _only(node: ast.AST, atom) -> bool:
    """Whether a condition is and/or/not over comparisons that ``atom`` accepts."""
    if isinstance(node, ast.BoolOp):
        return all(_only(v, atom) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _only(node.operand, atom)
    return isinstance(node, ast.Compare) and atom(node)


def _names(node: ast.Compare, allowed: set[str]) -> bool:
    return all(isinstance(o, ast.Name) and o.id in allowed for o in (node.left, *node.comparators))


def _element_atom(node: ast.Compare) -> bool:  # y == x, y != x
    return all(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops) and _names(node, {"x", "y"})


def _subset_atom(node: ast.Compare) -> bool:  # x in y, x not in y
    return (len(node.ops) == 1 and isinstance(node.ops[0], ast.In | ast.NotIn)
            and isinstance(node.left, ast.Name) and node.left.id == "x"
            and isinstance(node.comparators[0], ast.Name) and node.comparators[0].id == "y")


def _hash_of_x(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hash"
            and len(node.args) == 2 and all(isinstance(a, ast.Name) for a in node.args)
            and [a.id for a in node.args] == ["c", "x"])


def _cohort_atom(node: ast.Compare) -> bool:  # v == hash(c, x), v != hash(c, x)
    return all(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops) and all(
        (isinstance(o, ast.Name) and o.id == "v") or _hash_of_x(o) for o in (node.left, *node.comparators))


def _output_types(mech, ch: StructuredChannel) -> list[tuple[str, sp.Basic, dict]] | None:
    """The outputs y for one input x, in types that every class condition treats alike:
    (the relation to x, how many outputs stand in it as an expression in the parameters, an
    environment with tokens for x and y). None when a condition looks at more than the type
    (a literal, ``bit``, a parameter) or the inputs are not the output space's items."""
    space = ch.outputs
    if not isinstance(mech.inputs, FiniteDomain) or mech.inputs.labels is not None:
        return None
    d, x = mech.inputs.size, _Token("x")
    if isinstance(space, ElementSpace):
        if all(_only(c.predicate, _element_atom) for c in ch.classes) and is_zero(space.size - d) is True:
            return [("y == x", sp.Integer(1), {"x": x, "y": x}), ("y != x", space.size - 1, {"x": x, "y": _Token("y")})]
    elif isinstance(space, SubsetSpace):
        if all(_only(c.predicate, _subset_atom) for c in ch.classes) and is_zero(space.universe - d) is True:
            n, k = space.universe, space.k
            return [("x in y", sp.binomial(n - 1, k - 1), {"x": x, "y": (x,)}),
                    ("x not in y", sp.binomial(n - 1, k), {"x": x, "y": ()})]
    elif isinstance(space, CohortSpace):
        if all(_only(c.predicate, _cohort_atom) for c in ch.classes):
            v, c = _Token("v"), _Token("c")
            return [("v == hash(c, x)", space.C, {"x": x, "c": c, "v": v, "hash": lambda c, x: v}),
                    ("v != hash(c, x)", space.C * (space.k - 1),
                     {"x": x, "c": c, "v": v, "hash": lambda c, x, _h=_Token("hash(c, x)"): _h})]
    return None


def _example(mech) -> dict | None:
    """The [example] values when they bind every free parameter within its range ({} for a
    mechanism without free parameters), else None (loading the spec refuses such an example)."""
    example = dict(mech.example) if mech.parameters else {}
    if not set(mech.parameter_names) <= set(example):
        return None
    subs = {mech.symbols[k]: v for k, v in example.items() if k in mech.symbols}
    try:
        for p in mech.parameters:
            _check_range(mech.name, p, example[p.name], subs)
    except LdpAuditError:
        return None
    return example


def _points(mech) -> list[dict]:
    """Where to evaluate a symbolic count: the [example] instance first, then sample points."""
    example = _example(mech)
    points = [example] if example else []
    return points + [p for p in sample_points(mech) if p != example]


def _at(mech, expr, point) -> sp.Basic | None:
    """``expr`` at a point as an exact integer, or None (not a number, or over the budgets)."""
    try:
        value = _subs(sp.sympify(expr), {mech.symbols[k]: v for k, v in point.items() if k in mech.symbols})
        value = value if value.is_Integer else sp.expand_func(value)
    except LdpAuditError:
        return None
    return value if value.is_Integer else None


def _pretty(point) -> str:
    return ", ".join(f"{k}={shown(v)}" for k, v in point.items())


def _field(ch, i: int) -> str:
    return f"channel.classes[{i}] ({ch.classes[i].name!r})"


def _check_classes_by_structure(mech, ch: StructuredChannel) -> bool:
    """Exclusivity, coverage and counts for every parameter value, over the output types;
    True when proved, False when the types do not apply or a count was not proved. Refuses
    what it shows wrong at an admissible point (the example first)."""
    types = _output_types(mech, ch)
    if types is None:
        return False
    points = _points(mech)
    matched = [[i for i, c in enumerate(ch.classes) if eval_condition(c.predicate, env)] for _, _, env in types]
    for (what, many, _), hits in zip(types, matched):
        if len(hits) == 1 or is_zero(many) is True:
            continue
        for point in points:
            n = _at(mech, many, point)
            if n is None or n <= 0:
                continue
            where = f"{n} of them for each input at {_pretty(point)}" if point else f"{n} for each input"
            if hits:
                i, j = hits[:2]
                raise InvalidSpec(
                    f"{_field(ch, j)}.when = {ch.classes[j].condition!r} overlaps {_field(ch, i)}.when = "
                    f"{ch.classes[i].condition!r} of {mech.name!r}: every output with {what} satisfies both ({where}); "
                    "make the conditions exclusive, so that each output is in exactly one class")
            raise InvalidSpec(
                f"no channel.classes[].when of {mech.name!r} holds for the outputs with {what} ({where}); the classes "
                "must cover every output: add a class for them or widen a condition")
    proved = True
    for i, cls in enumerate(ch.classes):
        computed = sp.Add(*(many for (_, many, _), hits in zip(types, matched) if i in hits))
        if is_zero(cls.count - computed) is True:
            continue
        proved = False
        for point in points:
            declared, actual = _at(mech, cls.count, point), _at(mech, computed, point)
            if declared is None or actual is None or declared == actual:
                continue
            raise InvalidSpec(
                f"{_field(ch, i)}.count = {shown(cls.count)} of {mech.name!r}, but {shown(computed)} of the outputs "
                f"satisfy when = {cls.condition!r} for every input ({actual}, not {declared}, at {_pretty(point)}); "
                f"set count = \"{computed}\"")
    return proved


def _classify(mech, ch: StructuredChannel, inputs, outputs, env_params: dict, hash_of, counts, where: str = ""):
    """For each input x, the class index of every output (in order), checked: each output in
    exactly one class, and ``counts[i]`` outputs in class i. One-line InvalidSpec naming the
    class, the field and the output otherwise. ``hash_of(c, x)`` is a cohort space's hash."""
    for x in inputs:
        env = dict(env_params, x=x)
        env["bit"] = lambda value, j: (int(value) >> int(j)) & 1
        if hash_of is not None:
            env["hash"] = hash_of
        row = []
        seen = [0] * len(ch.classes)
        for y in outputs:
            if hash_of is not None:
                env["c"], env["v"] = y
            env["y"] = y
            hits = [i for i, c in enumerate(ch.classes) if eval_condition(c.predicate, env)]
            if len(hits) > 1:
                i, j = hits[:2]
                raise InvalidSpec(
                    f"{_field(ch, j)}.when = {ch.classes[j].condition!r} overlaps {_field(ch, i)}.when = "
                    f"{ch.classes[i].condition!r} of {mech.name!r}: output y={shown(y)} for input x={shown(x)} satisfies "
                    f"both{where}; make the conditions exclusive, so that each output is in exactly one class")
            if not hits:
                raise InvalidSpec(
                    f"output y={shown(y)} for input x={shown(x)} of {mech.name!r} satisfies no channel.classes[].when"
                    f"{where}; the classes must cover every output: add a class for it or widen a condition")
            seen[hits[0]] += 1
            row.append(hits[0])
        for i, (n, declared) in enumerate(zip(seen, counts)):
            if n != declared:
                cls = ch.classes[i]
                shown_count = shown(cls.count) + ("" if cls.count == declared else f" = {declared}")
                raise InvalidSpec(
                    f"{_field(ch, i)}.count = {shown_count} of {mech.name!r}, but {n} of the outputs satisfy when = "
                    f"{cls.condition!r} for input x={shown(x)}{where}; set count to the number of outputs that satisfy "
                    "the condition for every input")
        yield x, row


def _spread(n: int, m: int) -> list[int]:
    """At most ``m`` of the indices 0..n-1: both ends and an even selection between."""
    if n <= m:
        return list(range(n))
    return sorted({j * (n - 1) // (m - 1) for j in range(m)}) if m > 1 else [0]


def _check_classes_on_example(mech, ch: StructuredChannel) -> str | None:
    """Enumerate the outputs of the example instance (of the channel itself when there is no
    free parameter) and check each class against its condition, for every input or, past
    :data:`MAX_CLASS_CHECKS` pairs, for both ends and inputs spread between. Returns a note
    saying what was checked, or None when there is no numeric instance to list."""
    example = _example(mech)
    if example is None:
        return None
    subs = {mech.symbols[k]: v for k, v in example.items() if k in mech.symbols}
    where = f" at the [example] instance {_pretty(example)}" if example else ""
    try:
        size = _subs(sp.sympify(mech.inputs.size), subs)
        space = ch.outputs.substitute(subs)
        counts = [_subs(c.count, subs) for c in ch.classes]
        n_out = _subs(sp.sympify(space.count()), subs)
    except LdpAuditError:
        return None  # a size over the budgets: the [example] binding refuses it
    if not (size.is_Integer and n_out.is_Integer and all(c.is_Integer for c in counts)) or size < 1 or n_out < 1:
        return None  # a non-integer or empty size or count is refused by validation or by the [example] binding
    what = "the example instance" if example else "the channel"
    if n_out > MAX_CLASS_CHECKS:
        return (f"class conditions not listed on {what}: {n_out} outputs per input, more than "
                f"{MAX_CLASS_CHECKS:,}")
    labels = mech.inputs.labels
    picked = _spread(int(size), max(1, MAX_CLASS_CHECKS // int(n_out)))
    inputs = [labels[i] for i in picked] if labels is not None else picked
    env_params = {k: int(v) if sp.sympify(v).is_Integer else v for k, v in (*mech.bindings, *example.items())}
    try:
        outputs = space.enumerate(env_params)
        hash_of = space.hash if isinstance(space, CohortSpace) else None
        classified = list(_classify(mech, ch, inputs, outputs, env_params, hash_of, [int(c) for c in counts], where))
    except NotMaterializable:
        return None
    spread = "" if len(classified) == size else f", {len(classified)} of its {size} inputs spread from both ends"
    return f"class conditions and counts checked on {what} ({len(classified) * len(outputs)} input-output pairs{spread})"
