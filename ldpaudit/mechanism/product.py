"""The product channel form: independent coordinates, one per input (one-hot encoded),
whose law depends only on whether the coordinate is the input's (k-RAPPOR/SUE, OUE, the
Laplace histogram). Coordinate laws are finite or densities in z."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import sympy as sp

from ldpaudit.errors import InvalidSpec, NotMaterializable
from ldpaudit.mechanism.checks import _require_nonnegative, check_materialized_size, is_zero, require_numeric_sizes
from ldpaudit.mechanism.density import validate_density
from ldpaudit.mechanism.explicit import ExplicitChannel
from ldpaudit.mechanism.params import X, Z, _subs
from ldpaudit.mechanism.spaces import FiniteDomain, _concrete_int


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

    @property
    def variables(self) -> frozenset:
        return frozenset({X, Z}) if self.continuous else frozenset()

    def expressions(self) -> list[sp.Basic]:
        return [self.coordinates, *self.on.expressions(), *self.off.expressions()]

    def substitute(self, subs) -> ProductChannel:
        return replace(
            self, coordinates=_subs(self.coordinates, subs), on=self.on.substitute(subs), off=self.off.substitute(subs)
        )

    def size_fields(self) -> list[tuple[str, sp.Basic]]:
        return [("channel.coordinates", self.coordinates)]

    def validate(self, mech) -> list[str]:
        return _validate_product(mech, self)

    def materialize(self, mech, *, max_entries: int) -> ExplicitChannel:
        if self.continuous:
            raise NotMaterializable(f"{mech.name!r} has a continuous output; it has no finite channel matrix")
        require_numeric_sizes(mech)
        inputs = mech.inputs.enumerate()
        n = _concrete_int(self.coordinates, "channel.coordinates")
        values = sorted({v for v, _ in self.on.probabilities} | {v for v, _ in self.off.probabilities})
        check_materialized_size(mech, len(inputs), len(values) ** n, max_entries)
        outputs = tuple(itertools.product(values, repeat=n))
        matrix = []
        for x in inputs:
            row = []
            for y in outputs:
                terms = [(self.on if j == x else self.off).probability(yj) for j, yj in enumerate(y)]
                row.append(sp.Mul(*terms))
            matrix.append(tuple(row))
        return ExplicitChannel(tuple(inputs), outputs, tuple(matrix))


def _validate_product(mech, ch: ProductChannel) -> list[str]:
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
            notes += validate_density(mech, law.density, f"channel.{side}.density", input_free=True)
    if not isinstance(mech.inputs, FiniteDomain):
        raise InvalidSpec(f"product channel {mech.name!r} needs a finite input domain (one-hot encoded)")
    if is_zero(ch.coordinates - mech.inputs.size) is not True:
        raise InvalidSpec(
            f"channel.coordinates of {mech.name!r} = {ch.coordinates} but the input domain has {mech.inputs.size} values; "
            "a product channel has one coordinate per input"
        )
    notes.append("each coordinate law sums to 1, so the product does")
    return notes
