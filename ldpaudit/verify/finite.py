"""Finite channels (explicit, structured, discrete product): ratio obligations proved by z3.

A verdict is PROVED only when z3 answers ``unsat`` to "some obligation fails"; it is
REFUTED only with a witness (x, x', y) whose ratio has been checked exactly, once with the
rigorous interval comparison of :mod:`ldpaudit.verify.exact` and once more independently with
sympy; everything else is UNKNOWN, with the reason. Numeric channels take the exact maximum
ratio in Python and let z3 confirm the per-column obligations; families (free parameters) go
to z3 whole, and a counterexample region is turned into an exact witness at a concrete point.
"""

from __future__ import annotations

import time

import sympy as sp

from ldpaudit.errors import InvalidParameter, InvalidSpec
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.verify import exact, smt
from ldpaudit.verify.claims import scope_of, unknown
from ldpaudit.verify.problem import Problem, build, entry
from ldpaudit.verify.prover import Decision, Fact, decide, dominant
from ldpaudit.verify.result import Status, TightEpsilon, Verdict, Witness
from ldpaudit.verify.smt import Unsupported
from ldpaudit.verify.witness import (
    checked_witness,
    candidate_points,
    model_text,
    proof_of,
    simplify_ratio,
    witness_proof,
)


def verify_finite(mech: Mechanism, claim, *, rlimit, start, tight: bool = True) -> Verdict:
    """ε-LDP of a finite channel through its structure (see :mod:`ldpaudit.verify.problem`)."""
    try:
        problem = build(mech)
    except Unsupported as exc:
        return unknown(mech, claim, str(exc), start)
    if problem.numeric and not claim.free_symbols:
        return _verify_numeric(problem, claim, rlimit=rlimit, start=start)
    return _verify_symbolic(problem, claim, rlimit=rlimit, start=start, tight=tight)


def tight_finite(mech: Mechanism, *, rlimit=smt.DEFAULT_RLIMIT, witness: bool = True) -> TightEpsilon:
    """ε* of a finite channel in closed form, proved, with a witness attaining it (none with
    ``witness=False``, for a caller that keeps only the value and the proof)."""
    try:
        problem = build(mech)
        value = tight_closed_form(problem, rlimit=rlimit)
    except Unsupported as exc:
        return TightEpsilon(mech.name, sp.nan, None, None, method=f"unknown: {exc}")
    attaining = _attaining_witness if witness else (lambda *args: None)
    if value == sp.oo:
        return TightEpsilon(mech.name, sp.oo, None, attaining(mech, problem, value), method=problem.method)
    proof = None
    if value != 0:
        proof = verify_finite(mech, sp.sympify(value), rlimit=rlimit, start=time.perf_counter(), tight=False)
    return TightEpsilon(mech.name, value, proof, attaining(mech, problem, value), method=problem.method)


def _tight_numeric(problem: Problem) -> sp.Basic:
    if problem.best is None:
        return sp.Integer(0)
    ratio = problem.best[1]
    if ratio == sp.oo:
        return sp.oo
    return _log(ratio)


def _log(ratio: sp.Basic) -> sp.Basic:
    value = sp.log(ratio)
    if not value.is_Atom:
        simpler = sp.simplify(sp.expand_log(value, force=True))
        if sp.count_ops(simpler) <= sp.count_ops(value):
            value = simpler
    return value


def _verify_numeric(problem: Problem, claim, *, rlimit, start, bits: int = 96) -> Verdict:
    """All parameters numeric: exact max ratio in Python, z3 confirms the column obligations."""
    mech = problem.mech
    as_log = exact.long_power(claim)
    # a claim such as log(24/5)·999999999/10^9 is compared as a logarithm, and z3 confirms the
    # columns against the exact largest ratio r* <= e^claim instead (never building e^claim)
    bound = None if as_log else sp.exp(claim)
    tight = _tight_numeric(problem)
    python_holds = True
    if problem.best is not None:
        ratio = problem.best[1]
        if ratio == sp.oo:
            python_holds = False
        else:
            c = exact.log_exceeds(ratio, claim) if as_log else exact.compare(ratio, bound)
            if c is None:
                return unknown(mech, claim, f"cannot compare the ratio {ratio} with e^{claim} exactly", start,
                                method=problem.method)
            python_holds = c <= 0
    if not python_holds:
        witness = _witness(problem, problem.best[0], claim)
        if witness is not None:
            proof = witness_proof(mech.name, witness)
            if proof and proof[0][3] == "sat":  # z3 finds the claim consistent with the witness
                return unknown(mech, claim, "z3 disagrees with the exact witness check", start, problem.method,
                                proof=proof)
            return Verdict(
                Status.REFUTED, mech.name, claim, tight_epsilon=tight, witness=witness, method=problem.method,
                scope=scope_of(mech), seconds=time.perf_counter() - start, notes=tuple(problem.notes),
                params=mech.bindings, proof=proof,
            )
        return unknown(mech, claim, "a violation was found but its witness did not re-check", start, problem.method)
    method = problem.method + "; z3 confirms"
    if as_log:
        if problem.best is None:
            bound = sp.Integer(1)
        else:
            bound = problem.best[1]
            method += f" every column within r* = {bound}, and log r* <= {claim} exactly"
    decision = decide(mech.parameters, problem.facts, bound, rlimit=rlimit, label=f"{mech.name}: {claim}-LDP", bits=bits)
    if decision.result == "unsat":
        return Verdict(
            Status.PROVED, mech.name, claim, tight_epsilon=tight, method=method,
            scope=scope_of(mech), seconds=time.perf_counter() - start, notes=tuple(problem.notes + decision.notes),
            params=mech.bindings, proof=proof_of(decision),
        )
    if decision.result == "sat" and bits < 2000:
        # Python's exact comparison says every column holds: z3's model lives in the slack of the
        # rational enclosures of e^claim; tighten them and ask again
        return _verify_numeric(problem, claim, rlimit=rlimit, start=start, bits=bits * 4)
    reason = decision.reason or "z3 found a model only inside the rational enclosures"
    return unknown(mech, claim, reason, start, problem.method, decision.notes, proof_of(decision))

def _witness(problem: Problem, tag, claim) -> Witness | None:
    """(x, x', y) for a failing tag, with its ratio computed from the channel definition and
    checked exactly (intervals) and independently (sympy)."""
    mech = problem.mech
    try:
        x, xp, y, text = problem.locate(tag)
        num = sp.sympify(entry(mech, x, y))
        den = sp.sympify(entry(mech, xp, y))
    except Unsupported:
        return None
    return checked_witness(mech, x, xp, y, num, den, claim, y_text=text)

# --- symbolic (families) ----------------------------------------------------------------------


def _verify_symbolic(problem: Problem, claim, *, rlimit, start, tight: bool) -> Verdict:
    mech = problem.mech
    bound = sp.exp(claim)
    facts = list(problem.facts)
    if not claim.is_positive:
        # equal positive entries (ratio 1) need e^claim >= 1; implied by the pairs above except
        # in all-constant columns, so state it for claims that may be <= 0 somewhere
        facts.append(Fact(sp.Integer(1), sp.Integer(1), ("claim >= 0",), where="e^claim >= 1"))
    decision = decide(mech.parameters, facts, bound, rlimit=rlimit, label=f"{mech.name}: {claim}-LDP")
    notes = tuple(problem.notes + decision.notes)
    if decision.result == "unsat":
        tight_value = None
        if tight:
            try:
                tight_value = tight_closed_form(problem, rlimit=rlimit)
            except Unsupported:
                tight_value = None
        return Verdict(
            Status.PROVED, mech.name, claim, tight_epsilon=tight_value, method=problem.method + "; z3 nonlinear real arithmetic",
            scope=scope_of(mech), seconds=time.perf_counter() - start, notes=notes, params=mech.bindings,
            proof=proof_of(decision),
        )
    if decision.result == "unknown":
        return unknown(mech, claim, decision.reason, start, problem.method, notes, proof_of(decision))
    verdict = _refute_at_points(mech, claim, decision, rlimit=rlimit)
    if verdict is None and any(p.kind == "integer" for p in mech.parameters):
        # the counterexample may live only between integers: ask again with integer sorts
        retry = decide(mech.parameters, facts, bound, rlimit=rlimit, label=f"{mech.name}: {claim}-LDP",
                       integers=True)
        if retry.result == "unsat":
            return Verdict(
                Status.PROVED, mech.name, claim, tight_epsilon=None,
                method=problem.method + "; z3 nonlinear arithmetic with integer parameters",
                scope=scope_of(mech), seconds=time.perf_counter() - start, notes=notes + tuple(retry.notes),
                params=mech.bindings, proof=proof_of(retry),
            )
        if retry.result == "sat":
            verdict = _refute_at_points(mech, claim, retry, rlimit=rlimit)
    if verdict is not None:
        return Verdict(
            Status.REFUTED, mech.name, claim, tight_epsilon=verdict.tight_epsilon, witness=verdict.witness,
            method=problem.method, scope=scope_of(mech), seconds=time.perf_counter() - start, notes=notes,
            params=mech.bindings, proof=verdict.proof,
        )
    return unknown(
        mech, claim, "z3 found a counterexample region (" + model_text(decision) + ") but no exact witness was confirmed",
        start, problem.method, notes, proof_of(decision),
    )

def _refute_at_points(mech: Mechanism, claim, decision: Decision | None, *, rlimit) -> Verdict | None:
    """An exact witness at some admissible point: points where the claim is positive first;
    where it is not, any pair of inputs sharing a positive output already refutes it."""
    later = []
    for point in candidate_points(mech, decision):
        try:
            bound_mech = mech.bind(point)
        except (InvalidParameter, InvalidSpec):
            continue
        subs = {mech.symbols[k]: v for k, v in point.items()}
        claim_at = sp.sympify(claim).xreplace(subs)
        if exact.sign(claim_at) != 1:
            later.append((bound_mech, claim_at))
            continue
        verdict = _refute_instance(bound_mech, claim_at, rlimit=rlimit)
        if verdict is not None:
            return verdict
    for bound_mech, claim_at in later:
        verdict = _refute_instance(bound_mech, claim_at, rlimit=rlimit)
        if verdict is not None:
            return verdict
    return None


def _refute_instance(bound_mech: Mechanism, claim_at, *, rlimit) -> Verdict | None:
    try:
        problem = build(bound_mech)
    except Unsupported:
        return None
    if not problem.numeric:
        return None
    verdict = _verify_numeric(problem, claim_at, rlimit=rlimit, start=time.perf_counter())
    return verdict if verdict.status is Status.REFUTED else None


# --- tight epsilon ----------------------------------------------------------------------------


def _ratio_candidates(mech: Mechanism, pairs: list[tuple[sp.Basic, sp.Basic]]):
    """Distinct ratios num/den, simplified as rational functions of u = e^(ε/L)."""
    enc = smt.Encoder(mech.parameters, [e for pair in pairs for e in pair])
    out = []
    seen = set()
    for num, den in pairs:
        if num == 0:
            continue
        if den == 0:
            r = sp.oo
        else:
            r = enc.back(sp.factor(sp.cancel(enc.poly(num) / enc.poly(den))))
        if r in seen:
            continue
        seen.add(r)
        out.append((num, den, r))
    return out


def _max_ratio(mech: Mechanism, pairs, *, rlimit) -> sp.Basic:
    """max over pairs of num/den as a closed form (proved dominant for all parameters) or Max(...)."""
    cands = _ratio_candidates(mech, pairs)
    if not cands:
        return sp.Integer(1)
    if any(r == sp.oo for *_, r in cands):
        return sp.oo
    if len(cands) == 1:
        return cands[0][2]
    point = candidate_points(mech)[0] if mech.parameters else {}
    subs = {mech.symbols[k]: v for k, v in point.items()}
    values = []
    for i, (_, _, r) in enumerate(cands):
        try:
            values.append((float(sp.N(r.xreplace(subs), 30)), i))
        except (TypeError, ValueError):
            values.append((float("-inf"), i))
    values.sort(reverse=True)
    ratios = [(n, d) for n, d, _ in cands]
    for _, i in values[:3]:
        if dominant(mech.parameters, ratios, i, rlimit=rlimit):
            return cands[i][2]
    return sp.Max(*[r for *_, r in cands])


def tight_closed_form(problem: Problem, *, rlimit=smt.DEFAULT_RLIMIT) -> sp.Basic:
    """ε* in closed form from a problem's obligations."""
    mech = problem.mech
    if problem.numeric:
        return _tight_numeric(problem)
    if problem.groups is not None:
        a = _max_ratio(mech, problem.groups[0], rlimit=rlimit)
        b = _max_ratio(mech, problem.groups[1], rlimit=rlimit)
        if sp.oo in (a, b):
            return sp.oo
        return _log_sum(a, b)
    r = _max_ratio(mech, [(f.num, f.den) for f in problem.facts], rlimit=rlimit)
    return sp.oo if r == sp.oo else _log(r)


def _log_sum(a, b):
    value = sp.log(a) + sp.log(b)
    simpler = sp.simplify(sp.expand_log(value, force=True))
    return simpler if sp.count_ops(simpler) <= sp.count_ops(value) else value


def _attaining_witness(mech: Mechanism, problem: Problem, value) -> Witness | None:
    """A triple whose ratio equals e^ε* exactly (at the example point for families, and for a
    channel of numbers whose size is a free integer parameter: a concrete output needs one)."""
    if problem.numeric and not any(p.kind == "integer" for p in mech.parameters):
        target, prob = problem, problem
    else:
        points = candidate_points(mech)
        if not points:
            return None
        point = points[0]
        try:
            bound = mech.bind(point)
            prob = build(bound)
        except (InvalidParameter, InvalidSpec, Unsupported):
            return None
        if not prob.numeric:
            return None
        target = prob
    if target.best is None:
        return None
    tag, ratio = target.best
    x, xp, y, text = target.locate(tag)
    num, den = sp.sympify(entry(target.mech, x, y)), sp.sympify(entry(target.mech, xp, y))
    at = {mech.symbols[k]: v for k, v in target.mech.bindings if k in mech.symbols}
    eps_here = sp.sympify(value).xreplace(at)
    return Witness(x, xp, y, ratio if ratio == sp.oo else simplify_ratio(num / den), num, den, eps_here,
                   params=target.mech.bindings, y_text=text, attaining=True)
