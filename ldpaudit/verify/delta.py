"""(ε, δ): the exact δ(ε) of a finite channel and the check of a claimed pair.

δ(ε) = max over x != x' of sum_y max(0, Q(y|x) - e^ε Q(y|x')) is the smallest δ for which the
channel is (ε, δ)-LDP (the sum is attained by the event S = {y : Q(y|x) > e^ε Q(y|x')}).
Every membership test and every comparison between pairs is exact: rational entries and a
rational e^ε use fractions; otherwise e^ε (and irrational entries) are enclosed between
rationals and refined until the decision is certain. z3 then confirms a claimed δ on the
full sum-of-max encoding when the channel is small enough.
"""

from __future__ import annotations

import time
from fractions import Fraction

import sympy as sp
import z3

from ldpaudit.errors import InvalidParameter, NotMaterializable
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.verify import exact, smt
from ldpaudit.verify.claims import exact_number, scope_of
from ldpaudit.verify.result import DeltaResult, Status, Verdict, Witness
from ldpaudit.verify.smt import Unsupported

#: z3 re-checks a claimed δ on the full encoding up to this many (x, x', y) terms
Z3_DELTA_TERMS = 20_000


def _matrix(mech: Mechanism):
    if mech.parameters:
        raise InvalidParameter(
            f"δ(ε) needs numeric parameters; bind {', '.join(mech.parameter_names)} "
            f"(e.g. -p {mech.parameter_names[0]}=...)"
        )
    try:
        return mech.materialize()
    except NotMaterializable as exc:
        raise InvalidParameter(f"δ(ε) needs a finite channel: {exc}") from None


def delta_for(mech: Mechanism, epsilon) -> DeltaResult:
    """The exact δ(ε) of a numeric finite mechanism."""
    eps = exact_number(epsilon, "epsilon", mech.symbols)
    ch = _matrix(mech)
    return _delta(mech, ch, eps)


def _delta(mech: Mechanism, ch, eps) -> DeltaResult:
    bound = sp.exp(eps)
    rational = bound.is_Rational and all(e.is_Rational for row in ch.matrix for e in row)
    if rational:
        return _delta_rational(mech, ch, eps, Fraction(int(bound.p), int(bound.q)))
    return _delta_exact(mech, ch, eps, bound)


def _delta_rational(mech, ch, eps, c: Fraction) -> DeltaResult:
    rows = [[Fraction(int(e.p), int(e.q)) for e in row] for row in ch.matrix]
    best, best_pair, best_event = Fraction(0), None, ()
    for i, a in enumerate(rows):
        for k, b in enumerate(rows):
            if i == k:
                continue
            total = Fraction(0)
            event = []
            for j, (qa, qb) in enumerate(zip(a, b)):
                gap = qa - c * qb
                if gap > 0:
                    total += gap
                    event.append(ch.outputs[j])
            if best_pair is None or total > best:
                best, best_pair, best_event = total, (ch.inputs[i], ch.inputs[k]), tuple(event)
    return DeltaResult(mech.name, eps, sp.Rational(best.numerator, best.denominator), best_pair, best_event)


def _delta_exact(mech, ch, eps, bound) -> DeltaResult:
    best, best_pair, best_event = sp.Integer(0), None, ()
    for i, a in enumerate(ch.matrix):
        for k, b in enumerate(ch.matrix):
            if i == k:
                continue
            terms, event = [], []
            for j, (qa, qb) in enumerate(zip(a, b)):
                gap = qa - bound * qb
                s = exact.sign(gap)
                if s is None:
                    raise Unsupported(f"cannot decide the sign of Q(y={ch.outputs[j]}|x={ch.inputs[i]}) - e^ε Q(...|x={ch.inputs[k]})")
                if s > 0:
                    terms.append(gap)
                    event.append(ch.outputs[j])
            total = sp.Add(*terms)
            if best_pair is None:
                better = True
            else:
                c = exact.compare(total, best)
                if c is None:
                    raise Unsupported("cannot compare two pairs' δ exactly")
                better = c > 0
            if better:
                best, best_pair, best_event = total, (ch.inputs[i], ch.inputs[k]), tuple(event)
    simpler = sp.simplify(best)
    if sp.count_ops(simpler) <= sp.count_ops(best):
        best = simpler
    return DeltaResult(mech.name, eps, best, best_pair, best_event)


def verify_delta(mech: Mechanism, eps, delta, *, rlimit, start) -> Verdict:
    if exact.sign(delta) is None or exact.sign(delta) < 0 or exact.compare(delta, 1) == 1:
        raise InvalidParameter(f"--delta = {delta} must be a number in [0, 1]")
    ch = _matrix(mech)
    try:
        result = _delta(mech, ch, eps)
    except Unsupported as exc:
        return Verdict(Status.UNKNOWN, mech.name, eps, delta=delta, reason=str(exc), scope=scope_of(mech),
                       seconds=time.perf_counter() - start, params=mech.bindings)
    method = "exact δ(ε) = max over pairs of sum_y max(0, Q(y|x) - e^ε Q(y|x'))"
    c = exact.compare(result.delta, delta)
    if c is None:
        return Verdict(Status.UNKNOWN, mech.name, eps, delta=delta, exact_delta=result.delta,
                       reason="cannot compare δ(ε) with the claimed δ exactly", method=method,
                       seconds=time.perf_counter() - start, params=mech.bindings)
    if c > 0:
        x, xp = result.pair
        i, k = ch.inputs.index(x), ch.inputs.index(xp)
        cols = [ch.outputs.index(y) for y in result.event]
        a = sp.Add(*[ch.matrix[i][j] for j in cols])
        b = sp.Add(*[ch.matrix[k][j] for j in cols])
        # independent re-check with sympy: Q(S|x) - e^ε Q(S|x') > δ
        if sp.Gt(a - sp.exp(eps) * b, delta) is not sp.true:
            return Verdict(Status.UNKNOWN, mech.name, eps, delta=delta, exact_delta=result.delta,
                           reason="the violating event did not re-check", method=method,
                           seconds=time.perf_counter() - start, params=mech.bindings)
        witness = Witness(x, xp, result.event, sp.oo if b == 0 else a / b, a, b, eps, params=mech.bindings)
        return Verdict(Status.REFUTED, mech.name, eps, delta=delta, exact_delta=result.delta, witness=witness,
                       method=method, scope=scope_of(mech), seconds=time.perf_counter() - start, params=mech.bindings)
    proof = ()
    notes = []
    if len(ch.inputs) ** 2 * len(ch.outputs) <= Z3_DELTA_TERMS:
        outcome, proof = _z3_confirm(mech, ch, eps, delta)
        if outcome == "sat":
            outcome, proof = _z3_confirm(mech, ch, eps, delta, bits=1024)
        if outcome != "unsat":
            return Verdict(Status.UNKNOWN, mech.name, eps, delta=delta, exact_delta=result.delta,
                           reason=f"z3 did not confirm ({outcome})", method=method,
                           seconds=time.perf_counter() - start, params=mech.bindings, proof=proof)
        method += "; z3 confirms on the full sum-of-max encoding"
    else:
        notes.append("channel too large for the z3 cross-check; exact rational arithmetic only")
    return Verdict(Status.PROVED, mech.name, eps, delta=delta, exact_delta=result.delta, method=method,
                   scope=scope_of(mech), seconds=time.perf_counter() - start, params=mech.bindings,
                   notes=tuple(notes), proof=proof)


def _z3_confirm(mech, ch, eps, delta, bits: int = 96):
    bound = sp.exp(eps)
    exprs = [e for row in ch.matrix for e in row] + [bound, delta]
    enc = smt.Encoder((), exprs, bits=bits)
    c = enc.z3(enc.poly(bound))
    dz = enc.z3(enc.poly(delta))
    rows = [[enc.z3(enc.poly(e)) for e in row] for row in ch.matrix]
    over = []
    for i, a in enumerate(rows):
        for k, b in enumerate(rows):
            if i != k:
                over.append(z3.Sum([z3.If(qa > c * qb, qa - c * qb, 0) for qa, qb in zip(a, b)]) > dz)
    assertions = enc.constraints() + [z3.Or(over)]
    out = smt.check(assertions, comment=f"{mech.name}: some pair has sum_y max(0, Q(y|x) - e^{eps} Q(y|x')) > {delta}")
    return out.result, (("no pair exceeds δ", out.smt2, "unsat", out.result),)
