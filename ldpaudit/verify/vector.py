"""Vector inputs in a box: ε-LDP reduced to a scalar or finite question, exactly.

* ``signs`` (Duchi et al.'s ℓ∞ mechanism): with a latent law affine in x, Q(s|x) is affine in
  each coordinate x_j separately, so for each output s both its largest and its smallest value
  over the box are taken at vertices. The channel is ε-LDP on the box iff the finite channel on
  the 2^d vertices is, with the same ε*: that channel is proved by the finite prover, for each
  d of the declared range. A witness is recomputed from the latent-law sum, not from the
  vertex table.
* ``coordinates`` (PM/HM in d dimensions): a report is the sampled set S (|S| = k, chosen
  independently of x) and one scalar report per sampled coordinate. Q(S, z|x)/Q(S, z|x') is
  a product of k ratios in separate variables (x_j, x'_j, z_j), whose supremum is the k-th
  power of the scalar supremum: ε* = k ε*_1. So the claim ε holds iff the scalar channel is
  (ε/k)-LDP, which the scalar prover decides; a scalar witness, repeated in k coordinates, is
  a vector witness with ratio r^k.
"""

from __future__ import annotations

import dataclasses
import functools
import time

import sympy as sp

from ldpaudit.errors import LdpAuditError, NotMaterializable
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.params import decide
from ldpaudit.mechanism.spaces import FiniteDomain
from ldpaudit.mechanism.vector import CoordinatesChannel, PerCoordinate, SignVectorChannel, sign_dimensions
from ldpaudit.verify import density, finite, mixture, piecewise, real, smt
from ldpaudit.verify.claims import scope_of, unknown
from ldpaudit.verify.result import Status, TightEpsilon, Verdict, Witness
from ldpaudit.render.text import human

SIGNS_METHOD = ("vertex reduction: Q(s|x) is multilinear in x (affine latent law), so its extremes over the box are at "
                "the 2^d vertices; the finite channel on the vertices proved by the finite prover")
COORDINATES_METHOD = ("coordinate product: a report's ratio is the product of k one-coordinate ratios in separate "
                      "variables, so ε* = k ε*_1; the coordinate channel proved at ε/k by the scalar prover")


def applies(mech: Mechanism) -> bool:
    return isinstance(mech.channel, (SignVectorChannel, CoordinatesChannel))


def verify_vector(mech: Mechanism, claim, *, rlimit, start, tight: bool = True) -> Verdict:
    if isinstance(mech.channel, SignVectorChannel):
        return _verify_signs(mech, claim, rlimit=rlimit, start=start, tight=tight)
    return _verify_coordinates(mech, claim, rlimit=rlimit, start=start, tight=tight)


def tight_vector(mech: Mechanism, *, rlimit=smt.DEFAULT_RLIMIT) -> TightEpsilon:
    if isinstance(mech.channel, SignVectorChannel):
        return _tight_signs(mech, rlimit=rlimit)
    return _tight_coordinates(mech, rlimit=rlimit)


# --- signs -----------------------------------------------------------------------------------


def _vertex_mechanisms(mech: Mechanism):
    """[(d, bound mechanism, vertex mechanism)] for every d to check, or a reason string; built
    once per mechanism in a process (the claim and ε* are each proved on them)."""
    try:
        hash(mech)
    except TypeError:  # an unhashable mechanism: nothing to remember it by
        return _vertex_mechanisms_of.__wrapped__(mech)
    return _vertex_mechanisms_of(mech)


@functools.lru_cache(maxsize=16)
def _vertex_mechanisms_of(mech: Mechanism):
    ch = mech.channel
    if not ch.affine():
        return ("the latent law is not affine in x, so the extremes of Q(s|x) need not be at the box's vertices; "
                "only affine latent laws (such as (1 + v*x)/2) are verified")
    dims = sign_dimensions(mech)
    if dims is None:
        return (f"d = {mech.inputs.dimension} is unbounded or its range exceeds the vertex reduction's limit; "
                "give parameters.d a max of at most 8 or bind it (-p d=3)")
    d_sym = sp.sympify(mech.inputs.dimension)
    out = []
    for d in dims:
        bound = mech if d_sym.is_number else mech.bind({str(d_sym): d})
        try:
            table = bound.channel.vertex_channel(bound)
        except NotMaterializable as exc:
            return str(exc)
        vm = Mechanism(
            name=f"{mech.name} on the vertices of [{bound.inputs.low}, {bound.inputs.high}]^{d}",
            parameters=bound.parameters,
            inputs=FiniteDomain(sp.Integer(len(table.inputs)), table.inputs),
            channel=table,
            claimed_epsilon=bound.claimed_epsilon,
            bindings=bound.bindings,
            example=bound.example,
            identities_proved=True,
        )
        out.append((d, bound, vm))
    return out


def _verify_signs(mech, claim, *, rlimit, start, tight) -> Verdict:
    cases = _vertex_mechanisms(mech)
    if isinstance(cases, str):
        return unknown(mech, claim, cases, start, method=SIGNS_METHOD)
    tights = []
    notes = []
    proof: list = []
    for d, bound, vm in cases:
        at = claim if not bound.bindings else claim.xreplace({mech.symbols[k]: v for k, v in bound.bindings
                                                              if k in mech.symbols})
        verdict = finite.verify_finite(vm, at, rlimit=rlimit, start=start, tight=tight)
        if verdict.status is Status.REFUTED:
            return _signs_refuted(mech, bound, verdict, claim, start)
        if verdict.status is not Status.PROVED:
            return unknown(mech, claim, f"at d = {d}: {verdict.reason}", start, method=SIGNS_METHOD)
        tights.append(verdict.tight_epsilon)
        proof += [(f"d = {d}: {q[0]}", *q[1:]) for q in verdict.proof]
        notes.append(f"d = {d}: PROVED on the {2 ** d} vertices"
                     + (f", ε* = {sp.sstr(verdict.tight_epsilon)}" if verdict.tight_epsilon is not None else ""))
    same = tights and all(t is not None and sp.simplify(t - tights[0]) == 0 for t in tights)
    return Verdict(Status.PROVED, mech.name, claim, tight_epsilon=tights[0] if same else None, method=SIGNS_METHOD,
                   scope=scope_of(mech), seconds=time.perf_counter() - start, notes=tuple(notes), params=mech.bindings,
                   proof=tuple(proof))


def _signs_refuted(mech, bound, verdict, claim, start) -> Verdict:
    """Re-check the vertex witness from the latent-law sum (independently of the vertex table)."""
    w = verdict.witness
    ch = bound.channel
    subs = {bound.symbols[k]: v for k, v in w.params if k in bound.symbols}
    num = ch.probability(w.y, w.x).xreplace(subs)
    den = ch.probability(w.y, w.x_prime).xreplace(subs)
    ratio = sp.oo if den == 0 else sp.simplify(num / den)
    claim_at = w.claim
    if not (ratio == sp.oo or decide(ratio > sp.exp(claim_at)) is True):
        return unknown(mech, claim, f"the vertex witness did not re-check from the latent-law sum (ratio {ratio})", start,
                       method=SIGNS_METHOD)
    scale = ch.scale.xreplace(subs)
    params = tuple(bound.bindings) + tuple((k, v) for k, v in w.params if k not in dict(bound.bindings))
    lifted = Witness(w.x, w.x_prime, w.y, ratio, num, den, claim_at, params=params,
                     y_text=_scaled_text(scale, w.y))
    return Verdict(Status.REFUTED, mech.name, claim, witness=lifted, tight_epsilon=verdict.tight_epsilon,
                   method=SIGNS_METHOD, scope=scope_of(mech), seconds=time.perf_counter() - start, params=mech.bindings)


def _scaled_text(scale, signs) -> str:
    """The report B·s coordinate by coordinate, ``(-B, B)`` with B's value, e written ``e``."""
    parts = [human(sp.simplify(scale * v)) for v in signs]
    return f"({parts[0]},)" if len(parts) == 1 else "(" + ", ".join(parts) + ")"


def _tuple_text(t) -> str:
    return "(" + ", ".join(sp.sstr(v) for v in t) + ")"


def _tight_signs(mech, *, rlimit) -> TightEpsilon:
    cases = _vertex_mechanisms(mech)
    if isinstance(cases, str):
        return TightEpsilon(mech.name, sp.nan, None, None, method=f"unknown: {cases}")
    best = None
    for d, bound, vm in cases:
        t = finite.tight_finite(vm, rlimit=rlimit, witness=best is None)  # the first d's witness is the one shown
        if t.value is sp.nan or t.value != t.value:
            return TightEpsilon(mech.name, sp.nan, None, None, method=f"unknown at d = {d}: {t.method}")
        if best is None:
            best = t
        elif sp.simplify(t.value - best.value) != 0:
            return TightEpsilon(mech.name, sp.nan, None, None,
                                method=f"unknown: ε* differs between dimensions (d = {d}: {sp.sstr(t.value)}); bind d")
    witness = best.witness
    if witness is not None:  # the report as it is sent, B·s, as the refutation prints it
        import dataclasses

        bound = cases[0][1]
        subs = {bound.symbols[k]: v for k, v in witness.params if k in bound.symbols}
        scale = sp.sympify(bound.channel.scale).xreplace(subs)
        if scale.is_number:
            witness = dataclasses.replace(witness, y_text=_scaled_text(scale, witness.y))
    return TightEpsilon(mech.name, best.value, best.proof, witness, method=SIGNS_METHOD)


# --- coordinates -----------------------------------------------------------------------------


def _scalar_form(sub: Mechanism):
    if mixture.applies(sub):
        return mixture.verify_mixture, mixture.tight_mixture
    if piecewise.applies(sub):
        return piecewise.verify_piecewise, piecewise.tight_piecewise
    if isinstance(sub.channel, DensityChannel):
        return density.verify_density, density.tight_density
    return real.verify_real, real.tight_real


def _verify_coordinates(mech, claim, *, rlimit, start, tight) -> Verdict:
    k = mech.channel.sampled
    pc = PerCoordinate(mech, claim)
    verify_scalar, _ = _scalar_form(pc.sub)
    verdict = verify_scalar(pc.sub, pc.scalar_claim, rlimit=rlimit, start=start, tight=tight)
    at = sp.sstr(sp.simplify(claim / k)) + (f" (written {pc.per.name})" if pc.per is not None else "")
    notes = (f"one coordinate: {verdict.status.value} at ε/k = {at}",
             *(f"one coordinate: {n}" for n in verdict.notes))
    common = dict(method=COORDINATES_METHOD, scope=scope_of(mech), params=mech.bindings, notes=notes,
                  proof=tuple((f"one coordinate at ε/k: {q[0]}", *q[1:]) for q in verdict.proof))
    tight_eps = None if verdict.tight_epsilon is None else sp.simplify(k * pc.back(verdict.tight_epsilon))
    if verdict.status is Status.PROVED:
        return Verdict(Status.PROVED, mech.name, claim, tight_epsilon=tight_eps, seconds=time.perf_counter() - start,
                       **common)
    if verdict.status is Status.REFUTED and verdict.witness is not None:
        return Verdict(Status.REFUTED, mech.name, claim, witness=_lift(mech, pc, verdict.witness, claim),
                       tight_epsilon=tight_eps, seconds=time.perf_counter() - start, **common)
    refuted = _refute_instance(mech, claim, rlimit=rlimit, start=start)
    if refuted is not None:
        return refuted
    return unknown(mech, claim, f"one coordinate at ε/k: {verdict.reason}", start, method=COORDINATES_METHOD)


def _refute_instance(mech, claim, *, rlimit, start) -> Verdict | None:
    """When the family cannot be decided at once, a refutation at one instance of the sizes
    (the example's d and k, then d = k = 2, then k = 1) still shows the claim wrong."""
    sizes = [q for q in mech.parameters if q.kind == "integer" and (
        q.symbol in sp.sympify(mech.channel.sampled).free_symbols
        or q.symbol in sp.sympify(mech.inputs.dimension).free_symbols)]
    if not sizes:
        return None
    example = dict(mech.example)
    tried = []
    for values in ({q.name: example.get(q.name) for q in sizes}, {q.name: 2 for q in sizes}, {q.name: 1 for q in sizes}):
        if None in values.values() or values in tried:
            continue
        tried.append(values)
        try:
            bound = mech.bind(values)
        except LdpAuditError:
            continue
        verdict = _verify_coordinates(bound, claim.xreplace({mech.symbols[n]: v for n, v in values.items()}),
                                      rlimit=rlimit, start=start, tight=False)
        if verdict.status is Status.REFUTED:
            return verdict
    return None


def _lift(mech, pc: PerCoordinate, w: Witness, claim) -> Witness:
    """The scalar witness in each of the k sampled coordinates: ratio r^k > e^claim."""
    ch = mech.channel
    params = pc.params(w)
    subs = {mech.symbols[n]: v for n, v in params if n in mech.symbols}
    k = sp.sympify(ch.sampled).xreplace(subs)
    scale = sp.sympify(ch.scale).xreplace(subs)
    claim_at = sp.sympify(claim).xreplace(subs)
    d = sp.sympify(mech.inputs.dimension).xreplace(subs)
    value = sp.simplify(scale * w.y)
    if k.is_Integer and d.is_Integer:
        n, m = int(k), int(d)
        x, xp = (w.x,) * m, (w.x_prime,) * m
        text = "(" + ", ".join([human(value)] * n + ["0"] * (m - n)) + f"), coordinates 1..{n} sampled"
    else:
        x, xp = w.x, w.x_prime
        text = (f"{human(value)} in each of k = {human(k)} sampled coordinates (each at x = {human(w.x)} "
                f"against {human(w.x_prime)})")
    out = w.y
    ratio = sp.oo if w.ratio == sp.oo else sp.simplify(w.ratio ** k)
    return Witness(x, xp, out, ratio, w.numerator ** k, w.denominator ** k, claim_at, params=params, y_text=text,
                   kind=w.kind)


def _tight_coordinates(mech, *, rlimit) -> TightEpsilon:
    ch = mech.channel
    pc = PerCoordinate(mech, mech.claimed_epsilon)
    _, tight_scalar = _scalar_form(pc.sub)
    t = tight_scalar(pc.sub, rlimit=rlimit)
    if t.value is sp.nan or t.value != t.value:  # the scalar search starts from its claim: try the vector's
        whole = mech.claimed_epsilon if pc.per is None else mech.claimed_epsilon.xreplace(
            {pc.param.symbol: pc.k * pc.per.symbol})
        t = tight_scalar(dataclasses.replace(pc.sub, claimed_epsilon=whole), rlimit=rlimit)
    if t.value is sp.nan or t.value != t.value:
        return TightEpsilon(mech.name, sp.nan, None, None, method=f"unknown: one coordinate: {t.method}")
    value = sp.oo if t.value == sp.oo else sp.simplify(ch.sampled * pc.back(t.value))
    witness = None if t.witness is None else _lift(mech, pc, t.witness, value)
    return TightEpsilon(mech.name, value, t.proof, witness, method=COORDINATES_METHOD)
