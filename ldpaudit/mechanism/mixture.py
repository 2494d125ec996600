"""The mixture channel form: with probability w_i, report with component i.

Wang et al.'s Hybrid mechanism (ICDE 2019, §III-C) reports with the Piecewise mechanism (a
density on [-C, C]) with probability β and with Duchi et al.'s one-bit mechanism (point masses
at ±B) otherwise: a density plus point masses, which no single density or finite form can
declare. A mixture lists its components, each with a weight that may depend on the parameters
but not on the input x:

* at most one *density* component, ``density`` = f(z | x), written as in ``form = "density"``;
* *atoms* components: finitely many labels ``outputs``, ``entry`` = Q(y | x) as in a real-input
  explicit channel, and ``at`` = the real position of the atom of label y (used by derive and
  the sampler; verify reads only Q).

The weights are non-negative and sum to 1, decided exactly at load; each component is validated
by its own form's checks (:func:`ldpaudit.mechanism.density.validate_density`, the real-input
row checks), with the field named ``channel.components[i]``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

import sympy as sp

from ldpaudit.errors import InvalidSpec, NotMaterializable, refused
from ldpaudit.mechanism.checks import _require_nonnegative, require_sum_one
from ldpaudit.mechanism.density import DensityChannel, validate_density
from ldpaudit.mechanism.expr import shown
from ldpaudit.mechanism.params import X, Y, Z, _subs
from ldpaudit.mechanism.realinput import RealInputChannel, _validate_real_input
from ldpaudit.mechanism.spaces import IntervalDomain
from ldpaudit.render.text import for_people


@dataclass(frozen=True)
class Component:
    """One component of a mixture: its ``weight`` and either a ``density`` in z and x, or atoms
    (``outputs`` labels, ``entry`` = Q(y|x) in y and x, ``at`` = the position of label y)."""

    weight: sp.Basic
    density: sp.Basic | None = None
    outputs: tuple = ()
    entry: sp.Basic | None = None
    at: sp.Basic | None = None

    @property
    def kind(self) -> str:
        return "density" if self.density is not None else "atoms"

    @property
    def channel(self) -> DensityChannel | RealInputChannel:
        """The component on its own, as a channel of the existing forms."""
        if self.density is not None:
            return DensityChannel(self.density)
        return RealInputChannel(self.outputs, self.entry, "explicit")

    def position(self, y) -> sp.Basic:
        """The real position of the atom of label ``y``."""
        return _subs(self.at, {Y: sp.Integer(y)})

    def expressions(self) -> list[sp.Basic]:
        return [e for e in (self.weight, self.density, self.entry, self.at) if e is not None]

    def substitute(self, subs) -> Component:
        def sub(e):
            return None if e is None else _subs(e, subs)

        return replace(self, weight=sub(self.weight), density=sub(self.density), entry=sub(self.entry), at=sub(self.at))


@dataclass(frozen=True)
class MixtureChannel:
    """Report with component i with probability ``components[i].weight`` (independent of x)."""

    components: tuple[Component, ...]
    form = "mixture"
    variables = frozenset({X, Y, Z})

    def expressions(self) -> list[sp.Basic]:
        return [e for c in self.components for e in c.expressions()]

    def substitute(self, subs) -> MixtureChannel:
        return replace(self, components=tuple(c.substitute(subs) for c in self.components))

    def size_fields(self) -> list:
        return []

    def validate(self, mech) -> list[str]:
        return _validate_mixture(mech, self)

    def materialize(self, mech, *, max_entries: int):
        raise NotMaterializable(f"{mech.name!r} has a real output (a mixture); it has no finite channel matrix")

    def describe(self) -> str:
        parts = [f"w = {for_people(c.weight)}: " + (f"density f(z|x) = {for_people(c.density)}" if c.kind == "density" else
                 f"atoms at {for_people(c.at)} for y in {{{', '.join(map(str, c.outputs))}}}, Q(y|x) = {for_people(c.entry)}")
                 for c in self.components]
        return "; ".join(parts)


def component_mechanism(mech, index: int):
    """Component ``index`` of a mixture mechanism as a mechanism of its own (the same name,
    parameters, inputs and claim), for the verifiers and derivations of its form.

    Not validated a second time: the mixture's validation (:func:`_validate_mixture`) ran the
    component's own checks (its form's), with the same parameters and inputs; the copy keeps the
    mixture's notes, which say so. Validating a density again cost a derivation a fifth of its CPU."""
    comp = mech.channel.components[index]
    part = copy.copy(mech)  # a copy without __init__, so without __post_init__'s validation
    for name, value in (("name", f"{mech.name} [component {index}: {comp.kind}]"), ("channel", comp.channel),
                        ("claimed_delta", None)):
        object.__setattr__(part, name, value)
    return part


# --- validation ------------------------------------------------------------------------------


def _validate_mixture(mech, ch: MixtureChannel) -> list[str]:
    """Weights free of x, y, z, non-negative and summing to 1 (exactly); at most one density
    component; each component valid by its own form's checks."""
    if not isinstance(mech.inputs, IntervalDomain):
        raise InvalidSpec(f"channel of {mech.name!r} is a mixture with real inputs but [inputs] is finite; use low/high")
    if not ch.components:
        raise InvalidSpec("channel.components is empty; list the components as [[channel.components]] tables")
    densities = [i for i, c in enumerate(ch.components) if c.kind == "density"]
    if len(densities) > 1:
        raise InvalidSpec(f"channel.components[{densities[1]}].density: a mixture has at most one density component "
                          f"(components {', '.join(map(str, densities))} are densities); write their mixture as one density")
    notes = []
    for i, c in enumerate(ch.components):
        where = f"channel.components[{i}].weight"
        used = sorted(str(s) for s in c.weight.free_symbols & {X, Y, Z})
        if used:
            raise InvalidSpec(f"{where} = {shown(c.weight)} mentions {', '.join(used)}; a mixture weight may depend on "
                              "the parameters only (the component is chosen before the input is seen)")
        _require_nonnegative(mech, c.weight, where)
    total = sp.Add(*[c.weight for c in ch.components])
    require_sum_one(mech, total, lambda: f"channel.components weights sum to {shown(sp.simplify(total))}; the "
                                         "weights of a mixture must sum to 1 (e.g. beta and 1 - beta)")
    notes.append("mixture weights are free of x, non-negative and sum to 1 (exactly)")
    for i, c in enumerate(ch.components):
        where = f"channel.components[{i}]"
        if c.kind == "density":
            for n in validate_density(mech, c.density, f"{where}.density"):
                notes.append(n)
            continue
        try:
            part = _validate_real_input(mech, c.channel)
        except InvalidSpec as exc:
            raise refused(exc, f"{where} (atoms): {exc}") from None
        notes += [f"{where} (atoms): {n}" for n in part]
        used = sorted(str(s) for s in c.at.free_symbols & {X, Z})
        if used:
            raise InvalidSpec(f"{where}.at = {shown(c.at)} mentions {', '.join(used)}; an atom's position depends on "
                              "its label y and the parameters only")
        if c.at.is_extended_real is False or c.at.has(sp.nan, sp.zoo, sp.oo, -sp.oo, sp.I):
            raise InvalidSpec(f"{where}.at = {shown(c.at)} is not a real number")
    return notes
