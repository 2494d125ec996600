"""Real inputs, finite outputs: ε-LDP for every pair of real inputs and every public value.

The claim is Q(y|x) <= e^ε Q(y|x') for all x, x' in the input domain (an interval, a half-line
or all of R), every output y and every admissible parameter, public ones included. Inputs are
handled without sampling:

1. the input functions that take finitely many values — comparisons (``x >= mu1``), residues
   (``floor(x/(s*2^j)) % 4``) and bits (``bit(floor(x/sigma), j)``, a residue mod 2) — are
   replaced by stand-ins ranging over their values (:mod:`ldpaudit.mechanism.realinput`). Every x
   produces one combination of values, so the combinations over-approximate the rows the
   channel can show, and a proof over all combinations is a proof for all x;
2. what is left of x (a weight linear in x, ``abs(x)``, ``Max``/``Min`` clipping) stays as two
   real variables x, x' ranging over the domain;
3. the obligations — for each output y and each ordered pair of distinct values of column y —
   go to z3 with every parameter universally quantified (:func:`ldpaudit.verify.prover.decide`).

``unsat`` is PROVED. A counterexample becomes a REFUTED verdict only with two concrete
rational inputs and parameter values at which the ratio is computed again from the channel's
own definition, exactly (interval arithmetic, then sympy). An input function outside 1-2
(``floor(x)`` in a weight, ``exp(-x^2)``) is UNKNOWN with its name, never PROVED.
"""

from __future__ import annotations

import time

import sympy as sp
from sympy.functions.elementary.piecewise import ExprCondPair

from ldpaudit.errors import InvalidParameter, InvalidSpec
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.params import X, Parameter
from ldpaudit.mechanism.realinput import RealInputChannel
from ldpaudit.mechanism.realinput import MAX_CASES, Abstraction, abstract, evaluate, representative_inputs
from ldpaudit.verify import exact, smt
from ldpaudit.verify.claims import scope_of, unknown
from ldpaudit.verify.prover import Decision, Fact, decide, dominant
from ldpaudit.verify.result import Status, TightEpsilon, Verdict, Witness
from ldpaudit.verify.smt import Unsupported
from ldpaudit.verify.witness import candidate_points, instances, model_text, proof_of, simplify_ratio, sympy_exceeds

#: names of the two inputs in z3 queries (when x is left after the case split)
XA, XB = "xa", "xb"


def applies(mech: Mechanism) -> bool:
    return isinstance(mech.channel, RealInputChannel)


# --- the obligations ------------------------------------------------------------------------


class _Setup:
    """The case split of a real-input mechanism: per output, the distinct values its entry
    takes over the combinations of input-function values."""

    def __init__(self, mech: Mechanism):
        ch = mech.channel
        self.mech = mech
        self.outputs = ch.outputs
        self.rows = [ch.probability(y) for y in ch.outputs]
        self.ab: Abstraction = abstract(self.rows)
        if self.ab.case_count > MAX_CASES:
            raise Unsupported(
                f"the input functions take {self.ab.case_count} combinations of values, more than {MAX_CASES}"
            )
        cases = list(self.ab.cases())
        self.columns: list[list[sp.Basic]] = []
        for i in range(len(self.outputs)):
            seen = []
            for case in cases:
                v = self.ab.at(self.ab.expressions[i], case)
                if v not in seen:
                    seen.append(v)
            self.columns.append(seen)
        bad = _unsupported(self.columns, self.outputs)
        if bad is not None:
            raise Unsupported(bad)
        self.residual = self.ab.residual
        dom = mech.inputs
        self.xa = Parameter(XA, "real", dom.low, dom.high)
        self.xb = Parameter(XB, "real", dom.low, dom.high)

    @property
    def parameters(self) -> tuple[Parameter, ...]:
        extra = (self.xa, self.xb) if self.residual else ()
        return tuple(self.mech.parameters) + extra

    def facts(self) -> list[Fact]:
        """One obligation per ordered pair of values within a column (the same pair in several
        columns is one obligation)."""
        out: dict = {}
        for y, column in zip(self.outputs, self.columns):
            for a in column:
                for b in column:
                    if a == 0 or (a == b and not a.has(X)):
                        continue
                    num = a.xreplace({X: self.xa.symbol})
                    den = b.xreplace({X: self.xb.symbol})
                    out.setdefault((num, den), Fact(num, den, (y, a, b), where=f"Q(y={y}|x)"))
        return list(out.values())

    def method(self) -> str:
        what = "; ".join(f.describe() for f in self.ab.features)
        parts = [f"real inputs: case split over {what}" if what else "real inputs"]
        if self.residual:
            parts.append("x, x' kept as reals over the domain")
        return ", ".join(parts)

    def notes(self) -> list[str]:
        out = []
        if self.ab.features:
            out.append(
                "x enters through " + "; ".join(f.describe() for f in self.ab.features)
                + ": every combination of their values is covered, a superset of what real inputs produce"
            )
        if self.residual:
            out.append(f"x and x' range over {self.mech.inputs.describe()} in the z3 query")
        return out


_RATIONAL_TYPES = (sp.Add, sp.Mul, sp.Abs, sp.Max, sp.Min)


def _unsupported(columns, outputs) -> str | None:
    """Why a case's entry still depends on x in a way z3 cannot take exactly, or None."""
    for y, column in zip(outputs, columns):
        for sub in (s for e in column for s in sp.preorder_traversal(e)):
            if not isinstance(sub, sp.Basic) or not sub.has(X) or sub.is_Symbol:
                continue
            if isinstance(sub, _RATIONAL_TYPES + (sp.Piecewise, ExprCondPair, sp.logic.boolalg.Boolean)):
                continue
            if sub.is_Pow and sub.exp.is_Integer:
                continue
            return (
                f"input function {sp.sstr(sub)} in Q(y={y}|x) cannot be handled: it is neither a comparison, a "
                "residue floor(...) % m or bit(...) (finitely many values, case split) nor a rational function of x "
                "with abs/Max/Min (kept as a real in z3)"
            )
    return None


# --- verify -----------------------------------------------------------------------------------


def verify_real(mech: Mechanism, claim, *, rlimit, start, tight: bool = True) -> Verdict:
    """ε-LDP of a real-input channel for all x, x' in its domain and all parameter values."""
    try:
        setup = _Setup(mech)
    except Unsupported as exc:
        return unknown(mech, claim, str(exc), start, method="real inputs")
    facts = setup.facts()
    if not sp.sympify(claim).is_positive:
        facts.append(Fact(sp.Integer(1), sp.Integer(1), ("claim >= 0",), where="e^claim >= 1"))
    label = f"{mech.name}: {sp.sstr(claim)}-LDP for all real inputs"
    decision = decide(setup.parameters, facts, sp.exp(claim), rlimit=rlimit, label=label)
    notes = tuple(setup.notes() + decision.notes)
    method = setup.method()
    if decision.result == "unsat":
        tight_value = None
        if tight:
            try:
                tight_value, tnote = _tight_value(setup, claim, rlimit=rlimit)
                notes += (tnote,) if tnote else ()
            except (Unsupported, InvalidParameter, InvalidSpec):
                tight_value = None
        return Verdict(
            Status.PROVED, mech.name, claim, tight_epsilon=tight_value, method=method + "; z3 for all parameters",
            scope=_scope(mech), seconds=time.perf_counter() - start, notes=notes, params=mech.bindings,
            proof=proof_of(decision),
        )
    if decision.result == "unknown":
        return unknown(mech, claim, decision.reason, start, method, notes, proof_of(decision))
    witness = _refute(mech, claim, decision)
    if witness is not None:
        return Verdict(
            Status.REFUTED, mech.name, claim, witness=witness, method=method, scope=_scope(mech),
            seconds=time.perf_counter() - start, notes=notes, params=mech.bindings, proof=proof_of(decision),
        )
    return unknown(
        mech, claim,
        "z3 found a violating combination of input-function values (" + model_text(decision)
        + ") but no pair of real inputs realizing it was confirmed exactly",
        start, method, notes, proof_of(decision),
    )


def _scope(mech: Mechanism) -> str:
    base = scope_of(mech)
    where = f"all x, x' in {mech.inputs.describe()}"
    return f"{base}, {where}" if base else f"for {where}"


# --- witnesses --------------------------------------------------------------------------------


def _model_inputs(decision: Decision | None) -> list:
    if decision is None:
        return []
    out = []
    for name in (XA, XB):
        entry = decision.model_params.get(name)
        if entry is not None and entry[0] == "value":
            v = entry[1]
            out += [sp.Rational(v.numerator, v.denominator), sp.Rational(round(v))]
    return out


def best_witness(bound: Mechanism, claim_at, *, extra=()) -> Witness | None:
    """At numeric parameters: the pair of representative inputs with the largest ratio in some
    column, if it exceeds e^claim — checked exactly twice (intervals, then sympy)."""
    ch = bound.channel
    rows = [ch.probability(y) for y in ch.outputs]
    xs = sorted(representative_inputs(bound.inputs, rows, extra=extra), key=abs)  # small inputs win ties
    limit = sp.exp(claim_at)
    best = None
    for y, row in zip(ch.outputs, rows):
        values = [(evaluate(row, x), x) for x in xs]
        values = [(v, x) for v, x in values if v.is_number]
        if not values:
            continue
        hi = max(values, key=lambda vx: float(vx[0]))
        lo = min(values, key=lambda vx: float(vx[0]))
        # float order is a hint; the exact comparisons below decide
        num, den = hi[0], lo[0]
        if exact.sign(num) != 1:
            continue
        if den == 0:
            ratio = sp.oo
        else:
            ratio = simplify_ratio(num / den)
            if exact.compare(ratio, limit) != 1 or not sympy_exceeds(num, den, limit):
                continue
        if best is None or ratio == sp.oo or (best.ratio != sp.oo and exact.compare(ratio, best.ratio) == 1):
            best = Witness(hi[1], lo[1], y, ratio, num, den, claim_at, params=bound.bindings)
    return best


def _refute(mech: Mechanism, claim, decision: Decision) -> Witness | None:
    extra = _model_inputs(decision)
    for bound, claim_at in instances(mech, claim, candidate_points(mech, decision)[:8]):
        witness = best_witness(bound, claim_at, extra=extra)
        if witness is not None:
            return witness
    return None


# --- tight epsilon ----------------------------------------------------------------------------


def _tight_value(setup: _Setup, claim, *, rlimit) -> tuple[sp.Basic | None, str]:
    """ε* in closed form: the largest ratio between values of one column, proved to dominate
    the others for all parameters, and attained by real inputs at the example point."""
    mech = setup.mech
    if setup.residual:
        candidate = sp.sympify(claim)
    else:
        ratios = []
        for column in setup.columns:
            for a in column:
                for b in column:
                    if a != 0 and a != b and b != 0:
                        ratios.append((a, b))
        if not ratios:
            return sp.Integer(0), "every output has the same probability for all x"
        enc = smt.Encoder(mech.parameters, [e for pair in ratios for e in pair])
        simplified = [enc.back(sp.factor(sp.cancel(enc.poly(a) / enc.poly(b)))) for a, b in ratios]
        chosen = None
        order = sorted(range(len(ratios)), key=lambda i: -_float_at_example(mech, simplified[i]))
        for i in order[:3]:
            if dominant(mech.parameters, ratios, i, rlimit=rlimit):
                chosen = simplified[i]
                break
        if chosen is None:
            return None, ""
        candidate = _log(chosen)
    point = candidate_points(mech)[0] if mech.parameters else {}
    bound = mech.bind(point) if point else mech
    at = sp.sympify(candidate).xreplace({mech.symbols[k]: v for k, v in point.items()})
    witness = _attaining(bound, at)
    if witness is None:
        return None, ""
    where = ", ".join(f"{k}={sp.sstr(v)}" for k, v in point.items())
    how = "dominant ratio proved for all parameters" if not setup.residual else "the proved claim"
    return candidate, (f"tight ε* = {sp.sstr(candidate)} ({how}); attained by x={witness[0]}, x'={witness[1]}, "
                       f"y={witness[2]}" + (f" at {where}" if where else ""))


def _float_at_example(mech, expr) -> float:
    point = candidate_points(mech)[0] if mech.parameters else {}
    try:
        return float(sp.N(sp.sympify(expr).xreplace({mech.symbols[k]: v for k, v in point.items()}), 30))
    except (TypeError, ValueError):
        return float("-inf")


def _log(ratio):
    value = sp.log(ratio)
    simpler = sp.simplify(sp.expand_log(value, force=True))
    return simpler if sp.count_ops(simpler) <= sp.count_ops(value) else value


def _attaining(bound: Mechanism, eps_at) -> tuple | None:
    """Inputs x, x' and an output y whose ratio is exactly e^eps_at (numeric parameters)."""
    ch = bound.channel
    rows = [ch.probability(y) for y in ch.outputs]
    xs = sorted(representative_inputs(bound.inputs, rows), key=abs)
    target = sp.exp(eps_at)
    for y, row in zip(ch.outputs, rows):
        values = [(evaluate(row, x), x) for x in xs]
        hi = max(values, key=lambda vx: float(vx[0]))
        lo = min(values, key=lambda vx: float(vx[0]))
        if lo[0] != 0 and sp.simplify(hi[0] / lo[0] - target) == 0:
            return hi[1], lo[1], y
    return None


def tight_real(mech: Mechanism, *, rlimit=smt.DEFAULT_RLIMIT, proved: bool = True) -> TightEpsilon:
    """ε* of a real-input channel: proved for all inputs and parameters, attained at the example."""
    try:
        setup = _Setup(mech)
    except Unsupported as exc:
        return TightEpsilon(mech.name, sp.nan, None, None, method=f"unknown: {exc}")
    claim = mech.claimed_epsilon
    value, _ = (None, "")
    try:
        value, _ = _tight_value(setup, claim, rlimit=rlimit)
    except (Unsupported, InvalidParameter, InvalidSpec):
        value = None
    if value is None:
        return TightEpsilon(mech.name, sp.nan, None, None, method="unknown: no closed form attained at the example")
    proof = verify_real(mech, sp.sympify(value), rlimit=rlimit, start=time.perf_counter(), tight=False) if proved else None
    point = candidate_points(mech)[0] if mech.parameters else {}
    bound = mech.bind(point) if point else mech
    at = sp.sympify(value).xreplace({mech.symbols[k]: v for k, v in point.items()})
    hit = _attaining(bound, at)
    witness = None
    if hit is not None:
        x, xp, y = hit
        num, den = evaluate(bound.channel.probability(y), x), evaluate(bound.channel.probability(y), xp)
        witness = Witness(x, xp, y, simplify_ratio(num / den), num, den, at, params=bound.bindings)
    return TightEpsilon(mech.name, value, proof, witness, method=setup.method())
