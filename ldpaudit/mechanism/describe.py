"""What a channel says, for people and programs: the JSON-able description of ``ldpaudit show
--json`` and the LaTeX lines of ``ldpaudit show``, shared by ``show`` and the notebook display
of a :class:`~ldpaudit.mechanism.core.Mechanism`. Imports the channel forms, never ``core``
(core's ``_repr_markdown_`` imports this module)."""

from __future__ import annotations

import sympy as sp

from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.explicit import ExplicitChannel
from ldpaudit.mechanism.product import ProductChannel
from ldpaudit.mechanism.realinput import RealInputChannel
from ldpaudit.mechanism.spaces import CohortSpace, SubsetSpace
from ldpaudit.mechanism.structured import StructuredChannel


def describe_channel(mech) -> dict:
    """A JSON-able description of the channel (stable schema)."""
    ch = mech.channel
    out: dict = {"form": ch.form}
    if hasattr(ch, "describe_fields"):  # forms that describe themselves (vector inputs)
        out.update(ch.describe_fields())
    elif isinstance(ch, ExplicitChannel):
        out.update(
            inputs=[str(x) for x in ch.inputs],
            outputs=[str(y) for y in ch.outputs],
            rows=[[str(e) for e in row] for row in ch.matrix],
            latex=sp.latex(ch.to_sympy_matrix()),
        )
    elif isinstance(ch, StructuredChannel):
        space = ch.outputs
        out.update(
            outputs={"kind": space.kind, "count": str(space.count()), "description": space.describe()},
            classes=[
                {
                    "name": c.name,
                    "when": c.condition,
                    "count": str(c.count),
                    "weight": str(c.weight),
                    "latex": sp.latex(c.weight),
                }
                for c in ch.classes
            ],
        )
        if isinstance(space, CohortSpace):
            if space.hash_table is not None:
                out["outputs"]["hash"] = [list(r) for r in space.hash_table]
            else:
                out["outputs"]["family"] = {"name": space.family.name, "seed": space.family.seed,
                                            "cohorts": str(space.C)}
        if isinstance(space, SubsetSpace):
            out["outputs"]["k"] = str(space.k)
    elif isinstance(ch, ProductChannel):
        def law(l):
            if l.density is not None:
                return {"density": str(l.density), "latex": sp.latex(l.density)}
            return {"values": {str(v): str(p) for v, p in l.probabilities},
                    "latex": {str(v): sp.latex(p) for v, p in l.probabilities}}
        out.update(coordinates=str(ch.coordinates), on=law(ch.on), off=law(ch.off))
    elif getattr(ch, "form", None) == "bloom":
        out.update(cohorts=str(ch.cohorts), k=str(ch.k), hashes=str(ch.hashes), description=ch.describe(),
                   hash=None if ch.table is None else [[list(r) for r in rows] for rows in ch.table],
                   family=None if ch.family is None else {"name": ch.family.name, "seed": ch.family.seed},
                   on={str(v): str(p) for v, p in ch.on.probabilities},
                   off={str(v): str(p) for v, p in ch.off.probabilities})
    elif getattr(ch, "form", None) == "mixture":
        out["components"] = [
            {"weight": str(c.weight), "weight_latex": sp.latex(c.weight), "kind": c.kind,
             **({"density": str(c.density), "latex": sp.latex(c.density)} if c.kind == "density" else
                {"outputs": [str(y) for y in c.outputs], "entry": str(c.entry), "latex": sp.latex(c.entry),
                 "at": str(c.at)})}
            for c in ch.components]
    elif isinstance(ch, DensityChannel):
        out.update(density=str(ch.density), latex=sp.latex(ch.density))
    elif isinstance(ch, RealInputChannel):
        out.update(layout=ch.layout, outputs=[str(y) for y in ch.outputs], entry=str(ch.entry), latex=sp.latex(ch.entry))
        if ch.classes:
            out["classes"] = [{"name": c.name, "when": c.condition, "count": str(c.count), "weight": str(c.weight),
                               "latex": sp.latex(c.weight)} for c in ch.classes]
    return out


def channel_latex_lines(ch) -> list[str]:
    """The channel's formulas in LaTeX, one per line (``ldpaudit show``'s LaTeX section)."""
    if hasattr(ch, "latex_lines"):
        return list(ch.latex_lines())
    if isinstance(ch, ExplicitChannel):
        return [f"Q = {sp.latex(ch.to_sympy_matrix())}"]
    if isinstance(ch, StructuredChannel):
        return [f"Q(y \\mid x) = {sp.latex(c.weight)} \\quad \\text{{if }} {c.condition}" for c in ch.classes]
    if isinstance(ch, RealInputChannel):
        return [f"Q(y \\mid x) = {sp.latex(ch.entry)}"]
    if getattr(ch, "form", None) == "bloom":
        return [f"Q((c, y) \\mid x) = \\frac{{1}}{{{sp.latex(ch.cohorts)}}} \\prod_b P_{{b \\in B_c(x)}}(y_b)"]
    if getattr(ch, "form", None) == "mixture":
        return [(f"w_{{{i}}} = {sp.latex(c.weight)}:\\quad " +
                 (f"f(z \\mid x) = {sp.latex(c.density)}" if c.kind == "density" else
                  f"Q(y \\mid x) = {sp.latex(c.entry)} \\text{{ at }} z = {sp.latex(c.at)}"))
                for i, c in enumerate(ch.components)]
    if isinstance(ch, ProductChannel):
        lines = []
        for side, l in (("j = x", ch.on), ("j \\ne x", ch.off)):
            body = sp.latex(l.density) if l.density is not None else ", ".join(
                f"P({v}) = {sp.latex(p)}" for v, p in l.probabilities)
            lines.append(f"{side}: {body}")
        return lines
    return [f"f(z \\mid x) = {sp.latex(ch.density)}"]
