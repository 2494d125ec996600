"""The density channel form: a real output z with a symbolic density f(z | x) given a real
input x (the Laplace mechanism for a mean). Its validation (integrates to 1 over z) also
checks the coordinate densities of continuous product channels."""

from __future__ import annotations

from dataclasses import dataclass, replace

import sympy as sp

from ldpaudit.errors import InvalidSpec, NotMaterializable
from ldpaudit.mechanism.checks import is_zero
from ldpaudit.mechanism.params import X, Z, _subs
from ldpaudit.mechanism.spaces import IntervalDomain


@dataclass(frozen=True)
class DensityChannel:
    """A real output z with density ``density`` in :data:`Z` given the input :data:`X`."""

    density: sp.Basic
    form = "density"
    variables = frozenset({X, Z})

    def expressions(self) -> list[sp.Basic]:
        return [self.density]

    def substitute(self, subs) -> DensityChannel:
        return replace(self, density=_subs(self.density, subs))

    def size_fields(self) -> list:
        return []

    def validate(self, mech) -> list[str]:
        return validate_density(mech, self.density, "channel.density")

    def materialize(self, mech, *, max_entries: int):
        raise NotMaterializable(f"{mech.name!r} has a continuous output; it has no finite channel matrix")


def validate_density(mech, density, where, *, input_free=False) -> list[str]:
    """``density`` is a density in z: non-negative, integrating to 1 over z (for every x, or
    with ``input_free`` not mentioning x at all)."""
    density = sp.sympify(density)
    from ldpaudit.mechanism import piecewise
    from ldpaudit.mechanism.checks import sample_points

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
