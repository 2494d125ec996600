"""The explicit channel form: a finite matrix of exact sympy entries, rows = inputs. Every
finite form materializes to one (:meth:`~ldpaudit.mechanism.core.Mechanism.materialize`)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, replace

import sympy as sp

from ldpaudit.errors import InvalidSpec, NotMaterializable
from ldpaudit.mechanism.checks import _require_nonnegative, require_sum_one
from ldpaudit.mechanism.params import _subs


@dataclass(frozen=True)
class ExplicitChannel:
    """A finite channel: ``matrix[i][j] = Q(outputs[j] | inputs[i])`` (exact sympy entries;
    rows are ``inputs``, columns ``outputs``). ``numpy.asarray(channel)`` gives the float64
    matrix when every entry is a number; :meth:`to_sympy_matrix` keeps it exact."""

    inputs: tuple
    outputs: tuple
    matrix: tuple[tuple[sp.Basic, ...], ...]
    form = "explicit"
    variables = frozenset()

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

    def size_fields(self) -> list:
        return []

    def validate(self, mech) -> list[str]:
        _validate_explicit(mech, self)
        return []

    def materialize(self, mech, *, max_entries: int) -> ExplicitChannel:
        return self


def _validate_explicit(mech, ch: ExplicitChannel) -> None:
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
        require_sum_one(mech, total, lambda: f"row x={x} of channel {mech.name!r} sums to "
                                             f"{sp.simplify(total) if total.is_number else total}; each row must sum to 1")
