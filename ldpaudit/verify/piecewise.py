"""Piecewise densities: validity and ε-LDP proved over every order of the breakpoints.

A density such as the Piecewise mechanism's (p on a band [l(x), r(x)], p/e^ε elsewhere on
[-C, C]) or Square Wave's is one elementary expression between consecutive breakpoints in z
(:mod:`ldpaudit.mechanism.piecewise`). Two questions are decided here, for every input x of
the domain and every admissible parameter value:

* **validity**: ∫ f(z|x) dz = 1 and f >= 0. The breakpoints' order depends on x and the
  parameters; z3 finds every strict order that can occur (pruning prefixes that cannot), and
  on each the mass is an exact sympy integral, proved equal to 1 (identically, or by z3 on
  that order's region) and every cell's value proved non-negative. Ties between breakpoints
  (x at an end of the domain) only shrink a cell to length 0: the mass is continuous in x and
  the parameters, so it is 1 there too.
* **ε-LDP**: f(z|x) <= e^ε f(z|x') for all x, x' and almost every z, decided as one z3 query
  per pair of branches (the branch that gives f(z|x), the branch that gives f(z|x')), with z
  kept off every breakpoint so that a counterexample holds on a whole open interval of z
  (values on single points do not change a distribution).

The tight ε* comes from the ratios of branch values that do not depend on z or x (the
piecewise-constant densities of PM, Square Wave, the staircase): the largest ratio that some
pair of branches attains, proved to bound every pair.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import time

import sympy as sp
import z3

from ldpaudit.errors import InvalidParameter, InvalidSpec
from ldpaudit.mechanism.checks import is_zero
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.params import X, Z, Parameter
from ldpaudit.mechanism.piecewise import NotPiecewiseLinear, flattened
from ldpaudit.verify import exact, smt
from ldpaudit.verify.claims import scope_of, unknown
from ldpaudit.verify.prover import Query
from ldpaudit.verify.result import Status, TightEpsilon, Verdict, Witness
from ldpaudit.verify.smt import Encoder, Unsupported
from ldpaudit.render.text import human, sstr
from ldpaudit.verify.witness import candidate_points, checked_witness

METHOD = ("piecewise density: one z3 query per pair of branches, z off every breakpoint "
          "(f(z|x) <= e^ε f(z|x') for all x, x' and almost every z)")


def applies(mech: Mechanism) -> bool:
    ch = mech.channel
    if not isinstance(ch, DensityChannel):
        return False
    d = ch.density
    return d.has(sp.Piecewise) or any(a.has(Z) for a in d.atoms(sp.Max, sp.Min))


class _Setup:
    def __init__(self, mech: Mechanism):
        self.mech = mech
        dom = mech.inputs
        try:
            self.pd = flattened(mech.channel.density, Z)
        except NotPiecewiseLinear as exc:
            raise Unsupported(str(exc)) from None
        self.xa = Parameter("xa", "real", dom.low, dom.high)
        self.xb = Parameter("xb", "real", dom.low, dom.high)
        self.z = Parameter("z0", "real")
        self.parameters = tuple(mech.parameters) + (self.xa, self.xb, self.z)

    def side(self, expr: sp.Basic, x: Parameter) -> sp.Basic:
        return sp.sympify(expr).xreplace({X: x.symbol, Z: self.z.symbol})

    def encoder(self, extra=()) -> Encoder:
        exprs = [self.side(b.value, x) for b in self.pd.branches for x in (self.xa, self.xb)]
        exprs += [self.side(g, x) for g in self.pd.breakpoints for x in (self.xa, self.xb)]
        exprs += list(extra)
        for p in self.mech.parameters:
            exprs += [b for b in (p.lower, p.upper) if b is not None]
        return Encoder(self.parameters, exprs)

    # -- z3 terms ---------------------------------------------------------------------------

    def atom_terms(self, enc: Encoder, x: Parameter) -> dict:
        out = {}
        for s, a in self.pd.atoms.items():
            g = self.side(self.pd.breakpoints[a.index], x)
            out[s] = rel(enc, self.z.symbol - g, a.op)
        return out

    def branch_conditions(self, enc: Encoder, x: Parameter) -> list:
        """The condition under which branch i gives the value: its own, and no earlier one's."""
        terms = self.atom_terms(enc, x)
        out, earlier = [], []
        for b in self.pd.branches:
            own = boolean(b.condition, terms)
            out.append(z3.And(own, *[z3.Not(e) for e in earlier]) if earlier else own)
            earlier.append(own)
        return out

    def off_breakpoints(self, enc: Encoder, *xs: Parameter) -> list:
        return [rel(enc, self.z.symbol - self.side(g, x), "!=") for x in xs for g in self.pd.breakpoints]

    def density_at(self, x, z, subs: dict) -> sp.Basic:
        return _evaluate(self.mech.channel.density.xreplace(subs).xreplace({X: x, Z: z}))


def rel(enc: Encoder, expr: sp.Basic, op: str, *, minus: tuple = ()):
    """``expr - prod(minus) op 0`` exactly: with the difference n/q (q != 0), its sign is the sign
    of n·q. The factors of ``minus`` are encoded one by one (e^claim times a density value would
    otherwise merge into exponentials the encoder was not built with)."""
    poly = enc.poly(expr)
    if minus:
        poly = poly - sp.Mul(*[enc.poly(f) for f in minus])
    n, q, nq = _cleared(poly)
    if op in ("==", "!="):
        return smt._cmp(enc.z3(n), op, 0)
    if q.is_Rational:
        return smt._cmp(enc.z3(n), op if q > 0 else {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op], 0)
    return smt._cmp(enc.z3(nq), op, 0)


@functools.lru_cache(maxsize=4096)
def _cleared(poly: sp.Basic) -> tuple[sp.Basic, sp.Basic, sp.Basic | None]:
    """The numerator n and denominator q of ``poly`` over a common denominator, expanded, and
    n·q expanded when q is not a number. A pure function of ``poly``, asked for again and again:
    every query of one proof compares z with the same breakpoints (half of a proof's CPU
    was spent here, on the same relations)."""
    n, q = smt.fraction(poly)
    n, q = sp.expand(n), sp.expand(q)
    return n, q, None if q.is_Rational else sp.expand(n * q)


def boolean(cond, terms: dict):
    if cond is sp.true:
        return z3.BoolVal(True)
    if cond is sp.false:
        return z3.BoolVal(False)
    if cond.is_Symbol:
        return terms[cond]
    if isinstance(cond, sp.And):
        return z3.And([boolean(a, terms) for a in cond.args])
    if isinstance(cond, sp.Or):
        return z3.Or([boolean(a, terms) for a in cond.args])
    if isinstance(cond, sp.Not):
        return z3.Not(boolean(cond.args[0], terms))
    raise Unsupported(f"cannot encode the condition {cond}")


def _evaluate(expr: sp.Basic) -> sp.Basic:
    """A Piecewise at numbers, its conditions decided exactly."""
    if isinstance(expr, sp.Piecewise):
        for value, cond in expr.args:
            truth = _truth(cond)
            if truth:
                return _evaluate(value)
        return sp.Integer(0)
    return expr


def _truth(cond) -> bool:
    if cond in (True, sp.true):
        return True
    if cond in (False, sp.false):
        return False
    if isinstance(cond, sp.And):
        return all(_truth(a) for a in cond.args)
    if isinstance(cond, sp.Or):
        return any(_truth(a) for a in cond.args)
    if isinstance(cond, sp.Not):
        return not _truth(cond.args[0])
    if isinstance(cond, sp.core.relational.Relational):
        s = exact.sign(sp.sympify(cond.lhs - cond.rhs))
        if s is None:
            raise Unsupported(f"cannot decide {cond} exactly")
        return {"<": s < 0, "<=": s <= 0, ">": s > 0, ">=": s >= 0, "==": s == 0, "!=": s != 0}[cond.rel_op]
    raise Unsupported(f"cannot decide {cond}")


def _model_number(model, enc: Encoder, p: Parameter) -> sp.Basic | None:
    v = smt.model_value(model, enc.var(p.symbol))
    return None if v is None else sp.Rational(v.numerator, v.denominator)


# --- validity: mass 1 and non-negative, over every order of the breakpoints --------------------


class Validity:
    """What was shown about ∫ f = 1 and f >= 0: ``proved`` (with the orders), or the reason it
    could not be decided; a density shown wrong raises :class:`InvalidSpec` instead."""

    def __init__(self, proved: bool, orders: list, reason: str = "", queries=()):
        self.proved, self.orders, self.reason, self.queries = proved, orders, reason, list(queries)

    def __str__(self) -> str:
        if self.proved:
            return (f"∫ f(z|x) dz = 1 and f >= 0 proved for every x and parameter value, over the "
                    f"{len(self.orders)} order(s) of the breakpoints in z that occur")
        return f"validity (∫ f = 1, f >= 0) {self.reason}" if self.reason.startswith("not proved") else f"validity (∫ f = 1, f >= 0) not proved: {self.reason}"


def feasible_orders(setup: _Setup, enc: Encoder, *, rlimit) -> tuple[list[tuple[int, ...]], list[Query]]:
    """Every strict order of the breakpoints (at one input xa) that some admissible x and
    parameter value realize; z3 prunes a prefix as soon as it cannot occur."""
    gs = [setup.side(g, setup.xa) for g in setup.pd.breakpoints]
    m = len(gs)
    less = {}
    for i, j in itertools.permutations(range(m), 2):
        less[i, j] = rel(enc, gs[j] - gs[i], ">")
    domain = enc.constraints()
    queries: list[Query] = []
    out: list[tuple[int, ...]] = []

    def extend(prefix: tuple[int, ...]):
        if len(prefix) == m:
            out.append(prefix)
            return
        for k in range(m):
            if k in prefix:
                continue
            chain = prefix + (k,)
            constraints = [less[a, b] for a, b in zip(chain, chain[1:])]
            res = smt.check(domain + constraints, rlimit=rlimit,
                            comment=f"can the breakpoints lie in the order {chain}?")
            if res.result == "unsat":  # part of the proof: no x and parameter value puts them in this order
                queries.append(Query(f"the breakpoints never lie in the order {chain}", res.smt2, "unsat", res.result))
            else:  # sat, or unknown: kept (each kept order must then be proved)
                extend(chain)

    extend(())
    return out, queries


def validity(mech: Mechanism, *, rlimit=smt.DEFAULT_RLIMIT) -> Validity:
    """∫ f = 1 and f >= 0 over every order of the breakpoints (see :class:`Validity`); proved once
    per mechanism in a process (``verify --tight`` proves the claim and ε*, each with it)."""
    return _once(_validity, mech, rlimit)


def _once(func, mech: Mechanism, rlimit):
    """``func(mech, rlimit)``, remembered: a pure function of its arguments (an exception, which
    names what was shown wrong, is raised again each time)."""
    try:
        hash(mech)
    except TypeError:
        return func.__wrapped__(mech, rlimit)
    return func(mech, rlimit)


@functools.lru_cache(maxsize=32)
def _validity(mech: Mechanism, rlimit) -> Validity:
    try:
        setup = _Setup(mech)
        enc = setup.encoder()
        orders, queries = feasible_orders(setup, enc, rlimit=rlimit)
    except (Unsupported, NotPiecewiseLinear) as exc:
        return Validity(False, [], str(exc))
    pd = setup.pd
    for order in orders:
        try:
            mass = pd.integral(order)
        except NotPiecewiseLinear as exc:
            return Validity(False, orders, str(exc), queries)
        if is_zero(sp.sympify(mass) - 1) is not True:
            mass_a = setup.side(mass, setup.xa)
            try:
                enc2 = setup.encoder([mass_a])
                region2 = [rel(enc2, setup.side(pd.breakpoints[b] - pd.breakpoints[a], setup.xa), ">")
                           for a, b in zip(order, order[1:])]
                res = smt.check(enc2.constraints() + region2 + [rel(enc2, mass_a - 1, "!=")] + enc2.constraints(),
                                rlimit=rlimit, comment=f"mass != 1 on the order {order}")
            except Unsupported as exc:
                return Validity(False, orders, f"the mass on the order {order} is {mass}, which z3 cannot encode ({exc})",
                                queries)
            queries.append(Query(f"mass = 1 on the order {order}", res.smt2, "unsat", res.result))
            if res.result == "sat":
                _refute_mass(setup, enc2, res.model)
                return Validity(False, orders, f"not proved for every parameter value: with the breakpoints in the "
                                f"order {_order_text(pd, order, setup.mech)} the mass is not identically 1, and z3 could not rule "
                                "that order out (at the point it proposed the exact mass is 1, so nothing is shown "
                                "wrong); the loader checked the density at exact points", queries)
            if res.result == "unknown":
                return Validity(False, orders, f"z3 could not decide that the mass {sstr(mass)} equals 1 on the order "
                                f"{order}: {res.reason}", queries)
        ends = pd.cell_ends(order)
        for value, (lo, hi) in zip(pd.cell_values(order), ends):
            if value == 0 or (value.is_number and value.is_nonnegative):
                continue
            v = setup.side(value, setup.xa)
            enc3 = setup.encoder([v])
            zc = [rel(enc3, setup.z.symbol - setup.side(lo, setup.xa), ">")] if lo != -sp.oo else []
            zc += [rel(enc3, setup.z.symbol - setup.side(hi, setup.xa), "<")] if hi != sp.oo else []
            region3 = [rel(enc3, setup.side(pd.breakpoints[b] - pd.breakpoints[a], setup.xa), ">")
                       for a, b in zip(order, order[1:])]
            res = smt.check(enc3.constraints() + region3 + zc + [rel(enc3, v, "<")] + enc3.constraints(),
                            rlimit=rlimit, comment=f"negative density on a cell of the order {order}")
            queries.append(Query(f"f >= 0 on ({lo}, {hi}) of the order {order}", res.smt2, "unsat", res.result))
            if res.result == "sat":
                _refute_negative(setup, enc3, res.model, value)
            if res.result != "unsat":
                return Validity(False, orders, f"could not prove {sstr(value)} >= 0 for z in ({sstr(lo)}, {sstr(hi)}) "
                                f"({res.reason or 'z3 found a point that was not confirmed exactly'})", queries)
    if not orders:
        return Validity(False, [], "no order of the breakpoints is realizable (is the input domain empty?)", queries)
    return Validity(True, orders, queries=queries)


def _order_text(pd, order, mech) -> str:
    """An order of the breakpoints as people read it, in the spec's names where they are its own
    condition sides: ``x - b < -b < x + b < 1 + b``."""
    from ldpaudit.mechanism.names import breakpoint_texts

    return " < ".join(breakpoint_texts(mech, [pd.breakpoints[i] for i in order]))


def _point(setup: _Setup, enc: Encoder, model) -> dict:
    """An exact parameter point (and x) near z3's model: rationals; ε from its u = e^(ε/L)."""
    from ldpaudit.verify.prover import _param_values, _pretty_value

    values = _param_values(enc, model)
    subs = {}
    for p in setup.mech.parameters:
        if p.name in values:
            subs[p.symbol] = _pretty_value(values[p.name])
    x = _model_number(model, enc, setup.xa)
    return {**subs, X: x if x is not None else sp.Integer(0)}


def _refute_mass(setup: _Setup, enc: Encoder, model) -> None:
    subs = _point(setup, enc, model)
    mass = setup.pd.mass_at(subs)
    if exact.compare(mass, sp.Integer(1)) not in (0, None):
        raise InvalidSpec(f"channel.density of {setup.mech.name!r} integrates to {sstr(sp.nsimplify(sp.simplify(mass)))} "
                          f"over z at {_point_text(subs)}; a density must integrate to 1")


def _refute_negative(setup: _Setup, enc: Encoder, model, value) -> None:
    subs = _point(setup, enc, model)
    z = _model_number(model, enc, setup.z)
    if z is None:
        return
    v = setup.density_at(subs[X], z, {k: w for k, w in subs.items() if k != X})
    if exact.sign(v) == -1:
        raise InvalidSpec(f"channel.density of {setup.mech.name!r} is {sstr(sp.simplify(v))} < 0 at z = {sstr(z)}, "
                          f"{_point_text(subs)}; a density must be non-negative")


def _point_text(subs: dict) -> str:
    return ", ".join(f"{k} = {sstr(v)}" for k, v in subs.items())


# --- ε-LDP -----------------------------------------------------------------------------------


def _pairs(setup: _Setup):
    n = len(setup.pd.branches)
    for i, j in itertools.product(range(n), repeat=2):
        if setup.pd.branches[i].value != 0:
            yield i, j


def violation_query(setup: _Setup, claim_exp: sp.Basic, i: int, j: int, *, rlimit):
    """z3's answer to "branch i at x exceeds e^claim times branch j at x'", and its encoder;
    asked once per mechanism, claim and pair in a process (ε* is proved by the queries that
    found it, and a mixture's proof repeats its components')."""
    try:
        hash((setup.mech, claim_exp))
    except TypeError:
        return _violation_query(setup, claim_exp, i, j, rlimit)
    return _violation_query_once(setup.mech, claim_exp, i, j, rlimit)


@functools.lru_cache(maxsize=256)
def _violation_query_once(mech: Mechanism, claim_exp: sp.Basic, i: int, j: int, rlimit):
    return _violation_query(_Setup(mech), claim_exp, i, j, rlimit)


def _violation_query(setup: _Setup, claim_exp: sp.Basic, i: int, j: int, rlimit):
    pd = setup.pd
    vi = setup.side(pd.branches[i].value, setup.xa)
    vj = setup.side(pd.branches[j].value, setup.xb)
    enc = setup.encoder([claim_exp, vi, vj])
    ca = setup.branch_conditions(enc, setup.xa)[i]
    cb = setup.branch_conditions(enc, setup.xb)[j]
    exceed = rel(enc, vi, ">", minus=(claim_exp, vj))
    body = [ca, cb, exceed] + setup.off_breakpoints(enc, setup.xa, setup.xb)
    res = smt.check(enc.constraints() + body + enc.constraints(), rlimit=rlimit,
                    comment=f"{setup.mech.name}: branch {i} at x exceeds e^claim times branch {j} at x'")
    return res, enc


def verify_piecewise(mech: Mechanism, claim, *, rlimit, start, tight: bool = True) -> Verdict:
    try:
        setup = _Setup(mech)
    except Unsupported as exc:
        return unknown(mech, claim, str(exc), start, METHOD)
    valid = validity(mech, rlimit=rlimit)  # raises InvalidSpec when shown wrong
    claim_exp = sp.exp(claim)
    proof = [(q.description, q.smt2, q.expected, q.result) for q in valid.queries]
    for i, j in _pairs(setup):
        try:
            res, enc = violation_query(setup, claim_exp, i, j, rlimit=rlimit)
        except Unsupported as exc:
            return unknown(mech, claim, f"not encodable exactly: {exc}", start, METHOD, notes=(str(valid),))
        proof.append((f"branch {i} at x <= e^claim branch {j} at x'", res.smt2, "unsat", res.result))
        if res.result == "unknown":
            return unknown(mech, claim, f"z3 could not decide branch {i} against branch {j}: {res.reason}", start,
                           METHOD, notes=(str(valid),), proof=proof)
        if res.result == "sat":
            witness = _witness(setup, enc, res.model, claim, i, j, rlimit=rlimit)
            if witness is None:
                return unknown(mech, claim, "z3 found a counterexample but no exact witness was confirmed", start,
                               METHOD, notes=(str(valid),), proof=proof)
            return Verdict(Status.REFUTED, mech.name, claim, witness=witness, method=METHOD, scope=scope_of(mech),
                           seconds=time.perf_counter() - start, params=mech.bindings, notes=(str(valid),),
                           proof=tuple(proof))
    tight_value = None
    if tight:
        try:
            tight_value = _tight(setup, rlimit=rlimit)[0]
        except Unsupported:
            tight_value = None
    return Verdict(Status.PROVED, mech.name, claim, tight_epsilon=tight_value, method=METHOD + "; z3",
                   scope=scope_of(mech), seconds=time.perf_counter() - start, params=mech.bindings,
                   notes=(str(valid),), proof=tuple(proof))


def _witness(setup: _Setup, enc: Encoder, model, claim, i, j, *, rlimit) -> Witness | None:
    """An exact witness (x, x', z) from z3's model: at the model's own point when the mechanism
    is numeric, else at nearby exact parameter values (re-asked of z3 with them bound)."""
    mech = setup.mech
    if not mech.parameters:
        return _checked(setup, model, enc, claim)
    from ldpaudit.verify.prover import Decision, _param_values

    decision = Decision("sat", model_params=_param_values(enc, model))
    for point in candidate_points(mech, decision):
        try:
            bound = mech.bind(point)
        except (InvalidParameter, InvalidSpec):
            continue
        claim_at = sp.sympify(claim).xreplace({mech.symbols[k]: v for k, v in point.items()})
        if exact.sign(claim_at) != 1:
            continue
        try:
            bsetup = _Setup(bound)
            res, benc = violation_query(bsetup, sp.exp(claim_at), i, j, rlimit=rlimit)
        except Unsupported:
            continue
        if res.result == "sat":
            w = _checked(bsetup, res.model, benc, claim_at)
            if w is not None:
                return w
    return None


def _checked(setup: _Setup, model, enc: Encoder, claim) -> Witness | None:
    """The model's (x, x', z), rounded to the simplest rationals that still violate the claim
    (the violation holds on an open set, so coarse values usually do), re-checked exactly."""
    from fractions import Fraction

    values = [_model_number(model, enc, p) for p in (setup.xa, setup.xb, setup.z)]
    if any(v is None for v in values):
        return None
    simple = _simple_witness(setup, claim, extra_inputs=values[:2])
    if simple is not None:
        return simple
    for level in (1, 2, 4, 10, 100, 1000, 10**6, None):
        point = values if level is None else [
            sp.Rational(*(lambda q: (q.numerator, q.denominator))(Fraction(v.p, v.q).limit_denominator(level)))
            for v in values]
        if not all(setup.mech.inputs.contains(v) for v in point[:2]):
            continue
        w = _exact_witness(setup, *point, claim)
        if w is not None:
            return w
    return None


def _simple_witness(setup: _Setup, claim, *, extra_inputs=()) -> Witness | None:
    """A readable witness: inputs at the ends, middle and thirds of the domain (and z3's,
    rounded), z at the middle of each interval between their breakpoints."""
    from fractions import Fraction

    from ldpaudit.mechanism.piecewise import sample_inputs

    dom = setup.mech.inputs
    inputs = list(sample_inputs(dom.low, dom.high))
    for v in extra_inputs:
        q = Fraction(v.p, v.q).limit_denominator(100)
        r = sp.Rational(q.numerator, q.denominator)
        if r not in inputs and dom.contains(r):
            inputs.append(r)
    for xa, xb in itertools.permutations(inputs, 2):
        try:
            pts = sorted({g.xreplace({X: x})
                          for g in setup.pd.breakpoints for x in (xa, xb)}, key=lambda v: sp.N(v, 30))
        except TypeError:
            return None
        zs = [_short_between(a, b) for a, b in zip(pts, pts[1:])] + [_short_between(pts[0] - 2, pts[0]),
                                                                      _short_between(pts[-1], pts[-1] + 2)]
        for z in zs:
            w = _exact_witness(setup, xa, xb, z, claim)
            if w is not None:
                return w
    return None


def _short_between(a: sp.Basic, b: sp.Basic) -> sp.Basic:
    """The rational with the smallest denominator strictly inside (a, b) (a < b numbers)."""
    from fractions import Fraction

    lo, hi = Fraction(str(sp.N(a, 40))), Fraction(str(sp.N(b, 40)))
    if not lo < hi:
        return sp.Rational(lo.numerator, lo.denominator)
    den = 1
    while True:
        import math

        n = math.floor(lo * den) + 1
        if Fraction(n, den) < hi:
            return sp.Rational(n, den)
        den += 1 if den < 64 else den


def _exact_witness(setup: _Setup, xa, xb, z, claim) -> Witness | None:
    try:
        num = setup.density_at(xa, z, {})
        den = setup.density_at(xb, z, {})
    except Unsupported:
        return None
    w = checked_witness(setup.mech, xa, xb, z, num, den, claim)
    return None if w is None else dataclasses.replace(w, kind="f")


# --- tight ε ----------------------------------------------------------------------------------


def _tight(setup: _Setup, *, rlimit) -> tuple[sp.Basic, tuple[int, int]]:
    """ε* and the pair of branches attaining it; found once per mechanism in a process."""
    return _once(_tight_of, setup.mech, rlimit)


@functools.lru_cache(maxsize=32)
def _tight_of(mech: Mechanism, rlimit) -> tuple[sp.Basic, tuple[int, int]]:
    setup = _Setup(mech)
    pd = setup.pd
    values = [b.value for b in pd.branches]
    if any(v.has(Z) or v.has(X) for v in values if v != 0):
        raise Unsupported("a branch value depends on z or x (only piecewise-constant densities get ε* here)")
    mech = setup.mech
    points = candidate_points(mech) if mech.parameters else [{}]
    subs = {mech.symbols[k]: v for k, v in points[0].items()}
    cands = []
    for i, j in _pairs(setup):
        if values[j] == 0:
            cands.append((float("inf"), sp.oo, (i, j)))
            continue
        r = sp.simplify(values[i] / values[j])
        cands.append((float(sp.N(r.xreplace(subs), 30)), r, (i, j)))
    cands.sort(key=lambda c: -c[0])
    for _, r, (i, j) in cands:
        enc = setup.encoder()
        ca = setup.branch_conditions(enc, setup.xa)[i]
        cb = setup.branch_conditions(enc, setup.xb)[j]
        res = smt.check(enc.constraints() + [ca, cb] + setup.off_breakpoints(enc, setup.xa, setup.xb),
                        rlimit=rlimit, comment=f"branches {i} at x and {j} at x' overlap in z")
        if res.result == "unsat":
            continue  # never attained together
        if res.result == "unknown" or r == sp.oo:
            raise Unsupported("could not decide which ratio of branch values is attained")
        eps = sp.simplify(sp.log(r))
        # the attained ratio must bound every pair of branches everywhere: the LDP query at e^ε* = r
        answers = {violation_query(setup, r, a, b, rlimit=rlimit)[0].result for a, b in _pairs(setup)}
        if answers != {"unsat"}:
            how = "z3 gave up" if "unknown" in answers else "z3 could not rule out a point of its encoding"
            raise Unsupported(f"could not prove that the largest attained ratio of branch values, "
                              f"{human(r)}, bounds every pair of branches ({how})")
        return eps, (i, j)
    raise Unsupported("no pair of branches overlaps")


def tight_piecewise(mech: Mechanism, *, rlimit=smt.DEFAULT_RLIMIT, proved: bool = True) -> TightEpsilon:
    try:
        setup = _Setup(mech)
        value, (i, j) = _tight(setup, rlimit=rlimit)
    except Unsupported as exc:
        return TightEpsilon(mech.name, sp.nan, None, None, method=f"unknown: {exc}")
    proof = verify_piecewise(mech, value, rlimit=rlimit, start=time.perf_counter(), tight=False) if proved else None
    witness = None
    point = candidate_points(mech)[0] if mech.parameters else {}
    try:
        bound = mech.bind(point) if point else mech
        bsetup = _Setup(bound)
        enc = bsetup.encoder()
        ca = bsetup.branch_conditions(enc, bsetup.xa)[i]
        cb = bsetup.branch_conditions(enc, bsetup.xb)[j]
        res = smt.check(enc.constraints() + [ca, cb] + bsetup.off_breakpoints(enc, bsetup.xa, bsetup.xb),
                        rlimit=rlimit)
        if res.result == "sat":
            xa, xb, z = (_model_number(res.model, enc, p) for p in (bsetup.xa, bsetup.xb, bsetup.z))
            num, den = bsetup.density_at(xa, z, {}), bsetup.density_at(xb, z, {})
            ratio = sp.simplify(num / den)
            claim_at = sp.sympify(value).xreplace({mech.symbols[k]: v for k, v in point.items()})
            if exact.compare(ratio, sp.exp(claim_at)) == 0:
                witness = Witness(xa, xb, z, ratio, num, den, claim_at, params=bound.bindings, kind="f")
    except (Unsupported, InvalidParameter, InvalidSpec):
        witness = None
    return TightEpsilon(mech.name, value, proof, witness,
                        method="largest ratio of branch values attained by two overlapping branches, proved to bound all")
