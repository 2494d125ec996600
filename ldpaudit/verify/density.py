"""Continuous outputs: densities f(z|x) on an interval of inputs, and products of densities.

ε-LDP of a density channel is ln f(z|x) - ln f(z|x') <= ε for every real z and every x, x'
in the input interval. Taking logs turns the Laplace family into linear arithmetic with
absolute values (times the parameters ε and 1/M, so nonlinear when those stay symbolic):
terms of ln f free of x cancel and the rest goes to z3.

A product of densities (the Laplace histogram) changes two coordinates when x changes, so
its budget is sup_z [ln on(z) - ln off(z)] + sup_z [ln off(z) - ln on(z)], proved as one
obligation in two free outputs z1, z2.

The tight ε is found among the vertices of the piecewise-linear log-ratio (inputs at the
interval's ends, z where an absolute value changes slope), proved to bound it everywhere,
and attained at that vertex.
"""

from __future__ import annotations

import itertools
import time

import sympy as sp

from ldpaudit.errors import InvalidParameter, InvalidSpec
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.params import X, Z, Parameter
from ldpaudit.mechanism.product import ProductChannel
from ldpaudit.verify import exact, smt
from ldpaudit.verify.claims import scope_of, unknown
from ldpaudit.verify.prover import Fact, decide
from ldpaudit.verify.result import Status, TightEpsilon, Verdict, Witness
from ldpaudit.verify.smt import Unsupported
from ldpaudit.render.text import sstr
from ldpaudit.verify.witness import candidate_points, instances, proof_of, sympy_exceeds, witness_proof

X1 = Parameter("x1", "real")
Z1 = Parameter("z1", "real")
Z2 = Parameter("z2", "real")


def _log_density(f: sp.Basic) -> sp.Basic:
    return sp.expand(sp.expand_log(sp.log(f), force=True))


def _dependent(expr: sp.Basic, var: sp.Symbol) -> sp.Basic:
    """The terms of a sum that mention ``var`` (the others cancel in a difference)."""
    return sp.Add(*[t for t in sp.Add.make_args(expr) if t.has(var)])


class _Setup:
    """The log-ratio Δ as an expression in the mechanism's parameters plus free outputs/inputs."""

    def __init__(self, mech: Mechanism):
        self.mech = mech
        ch = mech.channel
        if isinstance(ch, DensityChannel):
            dom = mech.inputs
            self.product = False
            self.xa = Parameter("xa", "real", dom.low, dom.high)
            self.xb = Parameter("xb", "real", dom.low, dom.high)
            self.z = Parameter("z0", "real")
            logf = _dependent(_log_density(ch.density), X)
            if logf == 0:
                self.delta = sp.Integer(0)
            else:
                za = {X: self.xa.symbol, Z: self.z.symbol}
                zb = {X: self.xb.symbol, Z: self.z.symbol}
                self.delta = logf.xreplace(za) - logf.xreplace(zb)
            self.extra = (self.xa, self.xb, self.z)
            self.density = ch.density
        elif isinstance(ch, ProductChannel) and ch.continuous:
            self.product = True
            g = _log_density(ch.on.density) - _log_density(ch.off.density)
            g = sp.expand(g)
            self.g = g
            self.z1, self.z2 = Z1, Z2
            self.delta = g.xreplace({Z: Z1.symbol}) - g.xreplace({Z: Z2.symbol})
            self.extra = (Z1, Z2)
        else:
            raise Unsupported("not a continuous channel")
        if self.delta.has(sp.log) and any(a.args[0].free_symbols & {p.symbol for p in self.extra} for a in self.delta.atoms(sp.log)):
            raise Unsupported("the log-density ratio is not piecewise polynomial in z and x")
        self.parameters = tuple(mech.parameters) + tuple(self.extra)

    def value(self, point: dict) -> sp.Basic:
        return self.delta.xreplace({p.symbol: v for p, v in point.items()})

    # the ratio computed straight from the densities, for the independent re-check
    def ratio(self, point: dict) -> tuple[sp.Basic, sp.Basic]:
        ch = self.mech.channel
        if not self.product:
            z = point[self.z]
            num = self.density.xreplace({X: point[self.xa], Z: z})
            den = self.density.xreplace({X: point[self.xb], Z: z})
            return num, den
        z1, z2 = point[self.z1], point[self.z2]
        num = ch.on.density.xreplace({Z: z1}) * ch.off.density.xreplace({Z: z2})
        den = ch.off.density.xreplace({Z: z1}) * ch.on.density.xreplace({Z: z2})
        return num, den

    def witness(self, point: dict, claim) -> Witness | None:
        num, den = self.ratio(point)
        if den == 0:
            return None
        ratio = sp.simplify(sp.powsimp(num / den, force=True))
        if exact.compare(ratio, sp.exp(claim)) != 1:
            return None
        if not sympy_exceeds(ratio, sp.Integer(1), sp.exp(claim)):  # independent re-check
            return None
        if self.product:
            inputs = self.mech.inputs.enumerate()
            x, xp = inputs[0], inputs[1]
            y = (point[self.z1], point[self.z2])
            text = f"({sstr(y[0])}, {sstr(y[1])}, any values in the other coordinates)"
        else:
            x, xp, y, text = point[self.xa], point[self.xb], point[self.z], ""
        return Witness(x, xp, y, ratio, num, den, claim, params=self.mech.bindings, y_text=text, kind="f")


def _model_point(setup: _Setup, decision) -> dict | None:
    enc = getattr(decision, "encoder", None)
    if enc is None or not decision.model_params:
        return None
    point = {}
    for p in setup.extra:
        entry = decision.model_params.get(p.name)
        point[p] = sp.Integer(0) if entry is None else sp.Rational(entry[1].numerator, entry[1].denominator)
    return point


def verify_density(mech: Mechanism, claim, *, rlimit, start, tight: bool = True) -> Verdict:
    try:
        setup = _Setup(mech)
    except Unsupported as exc:
        return unknown(mech, claim, str(exc), start)
    method = (
        "product of densities: sup of the two changed coordinates' log-ratios, linear arithmetic with |.|"
        if setup.product
        else "density: ln f(z|x) - ln f(z|x') <= ε for all z and x, x' in the input interval (arithmetic with |.|)"
    )
    decision = decide(setup.parameters, [Fact(setup.delta, claim, "density", scaled=False, where="channel.density")],
                      None, rlimit=rlimit, label=f"{mech.name}: {claim}-LDP")
    proof = proof_of(decision)
    if decision.result == "unsat":
        tight_value = None
        if tight:
            try:
                tight_value = _tight_value(setup, rlimit=rlimit)[0]
            except Unsupported:
                tight_value = None
        return Verdict(Status.PROVED, mech.name, claim, tight_epsilon=tight_value, method=method + "; z3",
                       scope=scope_of(mech), seconds=time.perf_counter() - start, params=mech.bindings,
                       notes=tuple(decision.notes), proof=proof)
    if decision.result == "unknown":
        return unknown(mech, claim, decision.reason, start, method, proof=proof)
    witness = None
    if not mech.parameters:
        point = _model_point(setup, decision)
        if point is not None:
            witness = setup.witness(point, claim)
    else:
        witness = _refute_family(mech, claim, decision, rlimit=rlimit)
    if witness is None:
        return unknown(mech, claim, "z3 found a counterexample but no exact witness was confirmed", start, method, proof=proof)
    return Verdict(Status.REFUTED, mech.name, claim, witness=witness, method=method, scope=scope_of(mech),
                   seconds=time.perf_counter() - start, params=mech.bindings, proof=witness_proof(mech.name, witness))


def _refute_family(mech: Mechanism, claim, decision, *, rlimit) -> Witness | None:
    for bound, claim_at in instances(mech, claim, candidate_points(mech, decision)):
        verdict = verify_density(bound, claim_at, rlimit=rlimit, start=time.perf_counter(), tight=False)
        if verdict.status is Status.REFUTED:
            return verdict.witness
    return None


# --- tight ε ----------------------------------------------------------------------------------


def _kinks(expr: sp.Basic, var: sp.Symbol) -> list[sp.Basic]:
    """Where an absolute value in expr changes slope, as a function of the other symbols."""
    out = []
    for a in sorted(expr.atoms(sp.Abs), key=sp.default_sort_key):   # a set: its order changes with the hash seed
        arg = a.args[0]
        if arg.has(var) and sp.degree(arg, var) == 1:
            out += sp.solve(arg, var)
    return out


def _vertices(setup: _Setup) -> list[dict]:
    mech = setup.mech
    if setup.product:
        zs = _kinks(setup.g, Z) or [sp.Integer(0)]
        return [{setup.z1: a, setup.z2: b} for a, b in itertools.product(zs, repeat=2)]
    dom = mech.inputs
    ends = [e for e in (dom.low, dom.high) if e is not None]
    if len(ends) < 2:  # a half-line or R: the input's kinks are where a clip Max/Min of x bends
        ends += [b for a in sorted(setup.density.atoms(sp.Max, sp.Min), key=sp.default_sort_key) if a.has(X)
                 for b in a.args if not b.has(X)]
        ends = list(dict.fromkeys(ends)) or [sp.Integer(0)]
    out = []
    for xa, xb in itertools.product(ends, repeat=2):
        d = setup.value({setup.xa: xa, setup.xb: xb})
        zs = _kinks(d, setup.z.symbol) or [sp.Integer(0)]
        for z in list(zs) + ends:
            out.append({setup.xa: xa, setup.xb: xb, setup.z: z})
    return out


def _tight_value(setup: _Setup, *, rlimit) -> tuple[sp.Basic, dict]:
    mech = setup.mech
    points = candidate_points(mech) if mech.parameters else [{}]
    subs = {mech.symbols[k]: v for k, v in points[0].items()}
    cands = []
    for vertex in _vertices(setup):
        value = sp.simplify(setup.value(vertex))
        try:
            numeric = float(sp.N(value.xreplace(subs), 30))
        except (TypeError, ValueError):
            continue
        cands.append((numeric, value, vertex))
    cands.sort(key=lambda c: -c[0])
    seen = set()
    for _, value, vertex in cands:
        if value in seen:
            continue
        seen.add(value)
        decision = decide(setup.parameters, [Fact(setup.delta, value, "tight", scaled=False)], None,
                          rlimit=rlimit, label="tight epsilon")
        if decision.result == "unsat":
            return value, vertex
        if len(seen) >= 4:
            break
    growth = _unbounded_growth(setup, subs)
    if growth:
        raise _Unbounded(growth)
    raise Unsupported("the supremum of the log-ratio is not attained at a vertex")


class _Unbounded(Exception):
    """ε* = ∞: the log-ratio grows without bound in z (the message says how)."""


def _unbounded_growth(setup: _Setup, subs: dict) -> str:
    """Why sup ln f(z|x)/f(z|x') = ∞ when the log-ratio of a density on all of ℝ is a polynomial
    in z whose leading coefficient is non-zero at the ends of the input interval ("" otherwise)."""
    if setup.product:
        return ""
    z = setup.z.symbol
    d = sp.expand(setup.delta)
    if d.has(sp.Abs, sp.Piecewise, sp.Max, sp.Min, sp.sign) or not d.is_polynomial(z):
        return ""
    poly = sp.Poly(d, z)
    if poly.degree() < 1:
        return ""
    dom = setup.mech.inputs
    ends = {setup.xa.symbol: dom.high, setup.xb.symbol: dom.low}
    lead = sp.simplify(poly.LC().xreplace(ends).xreplace(subs))
    if not lead.is_number or lead == 0:
        return ""
    names = {setup.xa.symbol: sp.Symbol("x"), setup.xb.symbol: sp.Symbol("x'"), z: sp.Symbol("z")}
    shown = sstr(sp.factor(d).xreplace(names))
    return (f"the log-ratio ln f(z|x)/f(z|x') = {shown} is a polynomial of degree {poly.degree()} in z, "
            f"unbounded as z → {'+∞' if lead > 0 or poly.degree() % 2 == 0 else '-∞'} (x, x' the ends of the inputs)")


def tight_density(mech: Mechanism, *, rlimit=smt.DEFAULT_RLIMIT, proved: bool = True) -> TightEpsilon:
    try:
        setup = _Setup(mech)
        value, vertex = _tight_value(setup, rlimit=rlimit)
    except Unsupported as exc:
        return TightEpsilon(mech.name, sp.nan, None, None, method=f"unknown: {exc}")
    except _Unbounded as exc:
        return TightEpsilon(mech.name, sp.oo, None, None, method=f"no finite ε: {exc}")
    proof = None
    if value != 0 and proved:
        proof = verify_density(mech, sp.sympify(value), rlimit=rlimit, start=time.perf_counter(), tight=False)
    witness = None
    point = candidate_points(mech)[0] if mech.parameters else {}
    try:
        bound = mech.bind(point) if point else mech
        bsetup = _Setup(bound)
        subs = {mech.symbols[k]: v for k, v in point.items()}
        bvertex = {p2: vertex[p1].xreplace(subs) for p1, p2 in zip(setup.extra, bsetup.extra)}
        num, den = bsetup.ratio(bvertex)
        ratio = sp.simplify(sp.powsimp(num / den, force=True))
        inputs = None
        if bsetup.product:
            inputs = bound.inputs.enumerate()
            x, xp, y = inputs[0], inputs[1], (bvertex[bsetup.z1], bvertex[bsetup.z2])
            text = f"({sstr(y[0])}, {sstr(y[1])}, any values in the other coordinates)"
        else:
            x, xp, y, text = bvertex[bsetup.xa], bvertex[bsetup.xb], bvertex[bsetup.z], ""
        witness = Witness(x, xp, y, ratio, num, den, value.xreplace(subs), params=bound.bindings, y_text=text, kind="f")
    except (Unsupported, InvalidParameter, InvalidSpec, KeyError):
        witness = None
    return TightEpsilon(mech.name, value, proof, witness,
                        method="vertex of the piecewise-linear log-ratio, proved to bound it everywhere")
