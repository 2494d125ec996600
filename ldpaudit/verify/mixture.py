"""Mixtures of a density and atoms: ε-LDP component by component.

A mixture reports with component i with probability w_i, chosen before x is seen
(:mod:`ldpaudit.mechanism.mixture`). For an event S,

    P(S | x) = Σ_i w_i P_i(S | x).

If every component of positive weight is ε-LDP, P(S|x) <= Σ_i w_i e^ε P_i(S|x') = e^ε P(S|x'):
the mixture is ε-LDP. Conversely the density part and the atoms are mutually singular (a density
puts no mass on the finitely many atom positions; an interval of z that avoids them carries no
atom), so a violating event of one component is one of the mixture: for the density, an
interval around z off the atoms, with ratio f(z|x)/f(z|x'); for an atom at position a, the event
{z = a}, whose probability collects every atom at a (re-computed exactly over all atoms
components at the witness's parameters). So the mixture is ε-LDP iff every component of positive
weight is, and ε* = max over those components of their ε*.

Each component is verified by its own form's verifier (:mod:`~ldpaudit.verify.piecewise`,
:mod:`~ldpaudit.verify.density`, :mod:`~ldpaudit.verify.real`) on the component as a mechanism
of its own (:func:`ldpaudit.mechanism.mixture.component_mechanism`), for every parameter value. A
refutation counts only with a witness where the component's weight is > 0, re-checked exactly on
the mixture; anything else is UNKNOWN.
"""

from __future__ import annotations

import dataclasses
import time

import sympy as sp

from ldpaudit.errors import InvalidParameter, InvalidSpec
from ldpaudit.mechanism.checks import is_zero, sample_points
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.mixture import MixtureChannel, component_mechanism
from ldpaudit.mechanism.params import X, Z
from ldpaudit.mechanism.realinput import RealInputChannel, evaluate
from ldpaudit.verify import density, exact, piecewise, real, smt
from ldpaudit.verify.claims import scope_of, unknown
from ldpaudit.verify.result import Status, TightEpsilon, Verdict, Witness
from ldpaudit.verify.smt import Unsupported
from ldpaudit.render.text import sstr
from ldpaudit.verify.witness import checked_witness

METHOD = ("mixture: the density part and the atoms are mutually singular, so the mixture is ε-LDP iff every "
          "component of positive weight is; each component verified by its own form")

#: at most this many parameter points are tried for a refutation where the component's weight is > 0
_RETRIES = 3


def applies(mech: Mechanism) -> bool:
    return isinstance(mech.channel, MixtureChannel)


def _form(cmech: Mechanism):
    """(verify, tight) of a component's own form."""
    if isinstance(cmech.channel, RealInputChannel):
        return real.verify_real, real.tight_real
    if piecewise.applies(cmech):
        return piecewise.verify_piecewise, piecewise.tight_piecewise
    return density.verify_density, density.tight_density


def _label(mech: Mechanism, i: int) -> str:
    c = mech.channel.components[i]
    return f"component {i} ({c.kind}, weight {sstr(c.weight)})"


def _active(mech: Mechanism) -> list[int]:
    """Components whose weight is not identically 0."""
    return [i for i, c in enumerate(mech.channel.components) if is_zero(c.weight) is not True]


# --- witnesses on the mixture -----------------------------------------------------------------


def _bound_at(mech: Mechanism, params) -> Mechanism | None:
    """The mixture at a component witness's parameter values (its bindings beyond the mixture's)."""
    point = {k: v for k, v in params if k in mech.parameter_names}
    if set(point) != set(mech.parameter_names):
        return None
    try:
        return mech.bind(point) if point else mech
    except (InvalidParameter, InvalidSpec):
        return None


def _event(bound: Mechanism, i: int, w: Witness) -> tuple | None:
    """(P at x, P at x', y, y_text, kind) of the mixture event that witnesses component i's
    ratio at the numeric instance ``bound``: the mixture density w_i f(z|x) at z for the density
    component; for an atom, P(z = a | x), summed over every atom of every atoms component at the
    position a (decided exactly); None when the weight is not shown > 0 or a position is undecided."""
    comps = bound.channel.components
    weight = comps[i].weight
    if weight.free_symbols or exact.sign(weight) != 1:
        return None
    if comps[i].kind == "density":
        try:
            num, den = (piecewise._evaluate(comps[i].density.xreplace({X: x, Z: w.y})) for x in (w.x, w.x_prime))
        except Unsupported:
            return None
        return weight * num, weight * den, w.y, "", "f"
    position = comps[i].position(w.y)
    num = den = sp.Integer(0)
    for c in comps:
        if c.kind != "atoms":
            continue
        for y in c.outputs:
            same = exact.compare(c.position(y), position)
            if same is None:
                return None
            if same == 0:
                q = c.channel.probability(y)
                num += c.weight * evaluate(q, w.x)
                den += c.weight * evaluate(q, w.x_prime)
    return num, den, position, "", "P"


def mixture_witness(mech: Mechanism, i: int, w: Witness) -> Witness | None:
    """Component i's violating witness as a witness of the mixture: its weight > 0 there and the
    mixture event's ratio exceeding e^claim, re-checked exactly (None otherwise)."""
    bound = _bound_at(mech, w.params)
    if bound is None:
        return None
    event = _event(bound, i, w)
    if event is None:
        return None
    num, den, y, y_text, kind = event
    out = checked_witness(bound, w.x, w.x_prime, y, num, den, w.claim, y_text=y_text)
    return None if out is None else dataclasses.replace(out, kind=kind)


def _attaining(mech: Mechanism, i: int, w: Witness | None) -> Witness | None:
    """Component i's ε*-attaining witness as one of the mixture (ratio exactly e^ε*, weight > 0)."""
    if w is None:
        return None
    bound = _bound_at(mech, w.params)
    event = None if bound is None else _event(bound, i, w)
    if event is None:
        return None
    num, den, y, y_text, kind = event
    if den == 0:
        return None
    ratio = sp.simplify(num / den)
    if exact.compare(ratio, sp.exp(w.claim)) != 0:
        return None
    return Witness(w.x, w.x_prime, y, ratio, num, den, w.claim, params=bound.bindings, y_text=y_text, kind=kind)


def _refutation(mech: Mechanism, i: int, verdict: Verdict, claim, *, rlimit) -> Witness | None:
    """A mixture witness from component i's refutation: its own witness when the weight is > 0
    there, else the component refuted again at a few parameter points where the weight is > 0."""
    found = mixture_witness(mech, i, verdict.witness) if verdict.witness is not None else None
    if found is not None or not mech.parameters:
        return found
    verify_fn, _ = _form(component_mechanism(mech, i))
    weight = mech.channel.components[i].weight
    tried = 0
    for point in [dict(mech.example)] + sample_points(mech):
        if set(point) != set(mech.parameter_names):
            continue
        subs = {mech.symbols[k]: v for k, v in point.items()}
        claim_at = sp.sympify(claim).xreplace(subs)
        if exact.sign(weight.xreplace(subs)) != 1 or exact.sign(claim_at) != 1:
            continue
        try:
            bound = mech.bind(point)
        except (InvalidParameter, InvalidSpec):
            continue
        tried += 1
        v = verify_fn(component_mechanism(bound, i), claim_at, rlimit=rlimit, start=time.perf_counter(),
                      tight=False)
        if v.status is Status.REFUTED and v.witness is not None:
            found = mixture_witness(bound, i, v.witness)
            if found is not None:
                return found
        if tried >= _RETRIES:
            break
    return None


# --- verify ----------------------------------------------------------------------------------


def _largest(values: list[tuple[int, sp.Basic]]) -> tuple[sp.Basic, list[int]] | None:
    """(the largest ε*, the components attaining it) when every comparison is decided exactly."""
    best, who = None, []
    for i, v in values:
        if best is None:
            best, who = v, [i]
            continue
        d = sp.simplify(v - best)
        if is_zero(d) is True:
            who.append(i)
            continue
        s = exact.sign(d) if d.is_number else (1 if d.is_positive else -1 if d.is_negative else None)
        if s is None:
            return None
        if s > 0:
            best, who = v, [i]
    return None if best is None else (best, who)


def _tight_note(mech: Mechanism, value, who: list[int]) -> str:
    names = " and ".join(_label(mech, i) for i in who)
    return (f"tight ε* = {sstr(value)}: the largest ε* of the components, attained by {names}"
            + (" (wherever its weight is > 0)" if len(who) == 1 else " (each, wherever its weight is > 0)"))


def _weights_nonnegative(mech: Mechanism, *, rlimit) -> tuple[str | None, list]:
    """Every weight >= 0 for every admissible parameter value (load checks it at sample points
    only): sympy's assumptions, else z3 finds no parameter value where it is negative. Returns
    the reason it is not shown (None when shown) and the z3 queries (unsat expected)."""
    proof = []
    for i, c in enumerate(mech.channel.components):
        if c.weight.is_nonnegative or not c.weight.free_symbols:
            continue
        try:
            enc = smt.Encoder(mech.parameters, [c.weight])
            negative = piecewise.rel(enc, c.weight, "<")  # built before the constraints, which cover its variables
            res = smt.check(enc.constraints() + [negative], rlimit=rlimit,
                            comment=f"{mech.name}: the weight of component {i} is negative somewhere")
        except Unsupported as exc:
            return f"the weight {sstr(c.weight)} of component {i} is not encodable in z3 ({exc})", proof
        proof.append((f"weight of component {i} >= 0", res.smt2, "unsat", res.result))
        if res.result != "unsat":
            return (f"the weight {sstr(c.weight)} of component {i} was not shown >= 0 for every parameter value "
                    f"(z3: {res.result}{', ' + res.reason if res.reason else ''})"), proof
    return None, proof


def verify_mixture(mech: Mechanism, claim, *, rlimit, start, tight: bool = True) -> Verdict:
    """ε-LDP of a mixture: every component of positive weight, each by its own verifier."""
    active = _active(mech)
    notes: list[str] = []
    why, proof = _weights_nonnegative(mech, rlimit=rlimit)
    if why is not None:
        return unknown(mech, claim, why, start, METHOD, proof=proof)
    notes.append("every weight >= 0 for every parameter value (sympy, z3)")
    tights: list[tuple[int, sp.Basic]] = []
    undecided: list[str] = []
    for i in range(len(mech.channel.components)):
        if i not in active:
            notes.append(f"{_label(mech, i)} has weight 0: it never reports and is not checked")
    for i in active:
        cmech = component_mechanism(mech, i)
        verify_fn, _ = _form(cmech)
        v = verify_fn(cmech, claim, rlimit=rlimit, start=time.perf_counter(), tight=tight)
        proof += list(v.proof)
        notes += [n if n.startswith(("∫ f(z|x) dz = 1", "validity (∫ f = 1")) else f"component {i}: {n}"
                  for n in v.notes]
        if v.status is Status.PROVED:
            notes.append(f"{_label(mech, i)}: PROVED ({v.method})")
            tights.append((i, v.tight_epsilon))
            continue
        if v.status is Status.REFUTED:
            witness = _refutation(mech, i, v, claim, rlimit=rlimit)
            if witness is not None:
                weight = _bound_at(mech, witness.params).channel.components[i].weight
                notes.append(f"{_label(mech, i)} violates the claim where its weight is {sstr(weight)} > 0 "
                             f"(the component alone: {v.witness})")
                return Verdict(Status.REFUTED, mech.name, claim, witness=witness, method=f"{METHOD}; {v.method}",
                               scope=scope_of(mech), seconds=time.perf_counter() - start, params=mech.bindings,
                               notes=tuple(notes), proof=tuple(proof))
            undecided.append(f"{_label(mech, i)} is refuted ({v.witness}) but no witness with its weight > 0 was "
                             "confirmed on the mixture")
            continue
        undecided.append(f"{_label(mech, i)}: {v.reason}")
    if undecided:
        return unknown(mech, claim, "; ".join(undecided), start, METHOD, notes, proof)
    tight_value = None
    if tight and tights and all(t is not None for _, t in tights):
        largest = _largest(tights)
        if largest is not None:
            tight_value, who = largest
            notes.append(_tight_note(mech, tight_value, who))
    return Verdict(Status.PROVED, mech.name, claim, tight_epsilon=tight_value, method=METHOD + "; z3",
                   scope=scope_of(mech), seconds=time.perf_counter() - start, params=mech.bindings,
                   notes=tuple(notes), proof=tuple(proof))


def tight_mixture(mech: Mechanism, *, rlimit=smt.DEFAULT_RLIMIT, proved: bool = True) -> TightEpsilon:
    """ε* = max over the components of positive weight of their ε*, proved for the mixture and
    attained by a witness of the attaining component where its weight is > 0 (not proved with
    ``proved=False``)."""
    values, witnesses = [], {}
    for i in _active(mech):
        cmech = component_mechanism(mech, i)
        _, tight_fn = _form(cmech)
        t = tight_fn(cmech, rlimit=rlimit, proved=proved)
        if t.value is None or t.value.has(sp.nan):
            return TightEpsilon(mech.name, sp.nan, None, None, method=f"unknown: {_label(mech, i)}: {t.method}")
        values.append((i, t.value))
        witnesses[i] = t.witness
    largest = _largest(values)
    if largest is None:
        return TightEpsilon(mech.name, sp.nan, None, None, method="unknown: the components' ε* could not be ordered")
    value, who = largest
    proof = verify_mixture(mech, value, rlimit=rlimit, start=time.perf_counter(), tight=False) if proved else None
    witness = next((w for w in (_attaining(mech, i, witnesses[i]) for i in who) if w is not None), None)
    return TightEpsilon(mech.name, value, proof, witness, method=_tight_note(mech, value, who))
