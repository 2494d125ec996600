"""Witnesses and where to look for them: the exact re-checks of a refutation, the query that
certifies it, the parameter points worth trying, and the queries of a decision as proof steps.

Shared by every channel form; imports only the layers below (spec, smt, prover, result).
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from ldpaudit.mechanism.checks import sample_points
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.verify import exact, smt
from ldpaudit.verify.prover import Decision
from ldpaudit.verify.result import Witness
from ldpaudit.verify.smt import Unsupported


def proof_of(decision: Decision) -> tuple:
    return tuple((q.description, q.smt2, q.expected, q.result) for q in decision.queries)


def simplify_ratio(r):
    if r.is_Rational:
        return r
    s = sp.simplify(r)
    return s if sp.count_ops(s) <= sp.count_ops(r) else r


def sympy_exceeds(num, den, bound) -> bool:
    """Independent re-check with sympy's own arithmetic: num > bound * den."""
    diff = num - bound * den
    try:
        verdict = sp.Gt(diff, 0)
        if verdict in (sp.true, sp.false):
            return bool(verdict)
        return bool(sp.simplify(diff).is_positive)
    except TypeError:
        return False


def sympy_log_exceeds(ratio, claim) -> bool:
    """Independent re-check with sympy's own evaluation: log(ratio) > claim."""
    try:
        return sp.Gt(sp.log(ratio) - claim, 0) == sp.true
    except TypeError:
        return False


def instances(mech: Mechanism, claim, points):
    """``(bound mechanism, claim at that point)`` for each admissible candidate point where the
    claim is positive: the instances a refutation searches for an exact witness."""
    from ldpaudit.errors import InvalidParameter, InvalidSpec

    for point in points:
        try:
            bound = mech.bind(point) if point else mech
        except (InvalidParameter, InvalidSpec):
            continue
        claim_at = sp.sympify(claim).xreplace({mech.symbols[k]: v for k, v in point.items()})
        if exact.sign(claim_at) == 1:
            yield bound, claim_at


def checked_witness(mech: Mechanism, x, xp, y, num, den, claim, *, y_text: str = "") -> Witness | None:
    """The witness (x, x', y) with Q(y|x) = num and Q(y|x') = den, or None unless its ratio
    exceeds e^claim both by the rigorous interval comparison and, independently, by sympy
    (a zero denominator under a positive numerator is an infinite ratio)."""
    num, den = sp.sympify(num), sp.sympify(den)
    if den == 0:
        if exact.sign(num) != 1:
            return None
        ratio = sp.oo
    elif exact.long_power(claim):  # e^claim is never built (exact.long_power): compared as logarithms
        ratio = simplify_ratio(num / den)
        if exact.log_exceeds(ratio, claim) != 1 or not sympy_log_exceeds(ratio, claim):
            return None
    else:
        bound = sp.exp(claim)
        ratio = simplify_ratio(num / den)
        if exact.compare(ratio, bound) != 1 or not sympy_exceeds(num, den, bound):
            return None
    return Witness(x, xp, y, ratio, num, den, claim, params=mech.bindings, y_text=y_text)


def witness_proof(name: str, witness: Witness) -> tuple:
    """A query z3 must answer unsat: the claim holding at the witness contradicts the exact
    values of Q(y|x) and Q(y|x') (for a certificate of a refutation)."""
    if exact.long_power(witness.claim):
        return _log_witness_proof(name, witness)
    bound = sp.exp(witness.claim)
    if witness.ratio != sp.oo:  # the ratio, simplified (constants such as 1/sqrt(2 pi) cancel)
        num_e, den_e = witness.ratio, sp.Integer(1)
    else:
        num_e, den_e = witness.numerator, witness.denominator
    out = None
    for bits in (96, 384, 1536, 6144):  # tighten the enclosures until z3 sees the gap
        try:
            enc = smt.Encoder((), [num_e, den_e, bound], bits=bits)
            num, den, c = (enc.z3(enc.poly(e)) for e in (num_e, den_e, bound))
            assertions = enc.constraints() + [num <= c * den]
            comment = f"{name}: the claim at the witness {witness}\n{enc.legend()}"
            out = smt.check(assertions, comment=comment)
        except Unsupported:
            return ()
        if out.result != "sat":
            break
    return (("the claim holds at the witness", out.smt2, "unsat", out.result),)


def _log_witness_proof(name: str, witness: Witness) -> tuple:
    """:func:`witness_proof` for a claim compared as a logarithm: log(ratio) <= claim must be unsat."""
    if witness.ratio == sp.oo:
        return ()
    log_ratio = sp.expand_log(sp.log(witness.ratio), force=True)
    out = None
    for bits in (96, 384, 1536, 6144):
        try:
            enc = smt.Encoder((), [log_ratio, witness.claim], bits=bits)
            lhs, rhs = (enc.z3(enc.poly(e)) for e in (log_ratio, witness.claim))
            out = smt.check(enc.constraints() + [lhs <= rhs],
                            comment=f"{name}: the claim at the witness {witness}, as logarithms\n{enc.legend()}")
        except Unsupported:
            return ()
        if out.result != "sat":
            break
    return (("the claim holds at the witness", out.smt2, "unsat", out.result),)


def model_text(decision: Decision) -> str:
    parts = []
    for name, (kind, v, L) in decision.model_params.items():
        if kind == "exp":
            parts.append(f"{name} ≈ {float(L * sp.log(sp.Rational(v.numerator, v.denominator))):.6g}")
        else:
            parts.append(f"{name} ≈ {float(v):.6g}")
    return ", ".join(parts) or "no parameters"


def candidate_points(mech: Mechanism, decision: Decision | None = None) -> list[dict]:
    """Parameter bindings at which to look for an exact witness: the spec's example, the point
    z3's model suggests, then a few admissible sample points."""
    points = []
    example = dict(mech.example)
    if set(example) >= set(mech.parameter_names):
        points.append({k: example[k] for k in mech.parameter_names})
    if decision is not None and decision.model_params:
        # the point z3's model suggests, rounded coarsely first so witnesses stay readable
        for level in (1, 10, 1000, 10**40):
            point = {}
            for p in mech.parameters:
                entry_ = decision.model_params.get(p.name)
                if entry_ is None:
                    point[p.name] = example.get(p.name)
                    continue
                point[p.name] = _rounded(p, entry_, level)
            if all(v is not None for v in point.values()):
                points.append(point)
    points += sample_points(mech)
    unique = []
    for p in points:
        if p not in unique:
            unique.append(p)
    return unique


def _rounded(p, entry_, level: int) -> sp.Basic:
    import math

    import mpmath

    kind, v, L = entry_
    with mpmath.workdps(60):
        exact_value = mpmath.mpf(v.numerator) / v.denominator
        if kind == "exp":
            exact_value = L * mpmath.log(exact_value) if exact_value > 0 else mpmath.mpf(1)
        value = Fraction(str(mpmath.nstr(exact_value, 50)))
    if p.kind == "integer":
        low = int(p.lower) if p.lower is not None and p.lower.is_Integer else None
        r = round(value)
        return sp.Integer(max(r, low) if low is not None else r)
    if level == 1:
        return sp.Integer(math.ceil(value) if value > 0 else math.floor(value))
    return sp.Rational(value.limit_denominator(level))
