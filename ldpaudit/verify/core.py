"""verify / tight_epsilon / delta_for: the entry points, dispatching on the channel form.

A verdict is PROVED only when z3 answers ``unsat`` to "some obligation fails"; it is
REFUTED only with a witness (x, x', y) whose ratio has been checked exactly, once with the
rigorous interval comparison of :mod:`ldpaudit.verify.exact` and once more independently with
sympy; everything else is UNKNOWN, with the reason.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from fractions import Fraction

import sympy as sp

from ldpaudit.errors import InvalidParameter, InvalidSpec
from ldpaudit.spec.expr import parse_expression
from ldpaudit.spec.model import DensityChannel, Mechanism, ProductChannel, sample_points
from ldpaudit.verify import exact, smt
from ldpaudit.verify.problem import Problem, build, entry
from ldpaudit.verify.prover import Decision, Fact, decide, dominant
from ldpaudit.verify.result import Status, TightEpsilon, Verdict, Witness
from ldpaudit.verify.smt import Unsupported


# --- inputs -----------------------------------------------------------------------------------


def exact_number(value, field: str, symbols: Mapping[str, sp.Basic] | None = None) -> sp.Basic:
    """An exact sympy value from an int, Fraction, sympy expression or text ("1/2", "0.01",
    "log(3)", "epsilon - 1/1000"); decimal text is read as the exact decimal it spells."""
    if isinstance(value, bool):
        raise InvalidParameter(f"{field} = {value!r} is a boolean; give a number")
    if isinstance(value, float):
        raise InvalidParameter(
            f"{field} = {value!r} is a float, which is inexact; give an int, Fraction or text such as '1/2'"
        )
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, sp.Basic):
        if value.atoms(sp.Float):
            raise InvalidParameter(f"{field} = {value} contains a float; give an exact value")
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            return sp.Rational(Fraction(text))  # "0.01", "1/3", "5"
        except (ValueError, ZeroDivisionError):
            pass
        try:
            return parse_expression(text, dict(symbols or {}), field=field)
        except InvalidSpec as exc:
            raise InvalidParameter(str(exc)) from None
    raise InvalidParameter(f"{field} = {value!r} ({type(value).__name__}) is not a number")


def claim_of(mech: Mechanism, epsilon=None) -> sp.Basic:
    """The ε to check: the given one (exact) or the spec's claimed ε; it must be positive."""
    claim = mech.claimed_epsilon if epsilon is None else exact_number(epsilon, "epsilon", mech.symbols)
    claim = sp.sympify(claim)
    where = "mechanism.claimed_epsilon" if epsilon is None else "--epsilon"
    unknown = claim.free_symbols - set(mech.symbols.values())
    if unknown:
        raise InvalidParameter(
            f"{where} = {claim} mentions {', '.join(sorted(map(str, unknown)))}; free parameters: "
            f"{', '.join(mech.parameter_names) or '(none)'}"
        )
    if claim.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise InvalidParameter(f"{where} = {claim} is not a finite number")
    if claim.is_number:
        s = exact.sign(claim)
        if not claim.is_extended_real or s is None or s <= 0:
            raise InvalidParameter(f"{where} = {claim} is not positive; ε must be a positive expression such as 1 or log(3)")
    elif claim.is_positive is False or claim.is_nonpositive:
        raise InvalidParameter(f"{where} = {claim} is never positive; ε must be a positive expression")
    else:
        _claim_somewhere_positive(mech, claim, where)
    return claim


def _claim_somewhere_positive(mech: Mechanism, claim: sp.Basic, where: str) -> None:
    try:
        enc = smt.Encoder(mech.parameters, [claim])
        c = enc.z3(enc.poly(claim))
        out = smt.check(enc.constraints() + [c > 0], timeout_ms=5000)
    except Unsupported:
        return
    if out.result == "unsat":
        raise InvalidParameter(f"{where} = {claim} is not positive for any admissible parameters; ε must be positive")


def check_domain(mech: Mechanism) -> None:
    """Contradictory parameter ranges make every proof vacuous: refuse them."""
    if not mech.parameters:
        return
    import z3

    vars_ = {}
    for p in mech.parameters:
        vars_[p.symbol] = z3.Int(p.name) if p.kind == "integer" else z3.Real(p.name)
    constraints = []
    for p in mech.parameters:
        for bound, strict, op in ((p.lower, p.lower_strict, ">"), (p.upper, p.upper_strict, "<")):
            if bound is None:
                continue
            try:
                b = _linear_z3(bound, vars_)
            except Unsupported:
                continue
            v = vars_[p.symbol]
            constraints.append({">": v > b, ">=": v >= b, "<": v < b, "<=": v <= b}[op if strict else op + "="])
    s = smt.new_solver(5000)
    s.add(*constraints)
    if s.check() == z3.unsat:
        ranges = "; ".join(p.describe() for p in mech.parameters if p.lower is not None or p.upper is not None)
        raise InvalidSpec(
            f"parameter ranges of {mech.name!r} are contradictory ({ranges}): no admissible values; fix min/max"
        )


def _linear_z3(expr, vars_):
    import z3

    expr = sp.sympify(expr)
    if expr.is_Rational:
        return smt.rational(expr)
    if expr.is_Symbol and expr in vars_:
        return vars_[expr]
    if expr.is_Add:
        return z3.Sum([_linear_z3(a, vars_) for a in expr.args])
    if expr.is_Mul:
        return z3.Product([_linear_z3(a, vars_) for a in expr.args])
    if expr.is_Pow and expr.exp.is_Integer and expr.exp > 0:
        return _linear_z3(expr.base, vars_) ** int(expr.exp)
    raise Unsupported(str(expr))


def scope_of(mech: Mechanism) -> str:
    if not mech.parameters:
        return ""
    return "for all " + ", ".join(p.describe() for p in mech.parameters)


# --- verify -----------------------------------------------------------------------------------


def verify(
    mech: Mechanism,
    *,
    epsilon=None,
    delta=None,
    timeout_ms: int | None = smt.DEFAULT_TIMEOUT_MS,
    tight: bool = True,
) -> Verdict:
    """Prove or refute that ``mech`` is ε-LDP (or (ε, δ)-LDP with ``delta``).

    ``epsilon`` defaults to the spec's claimed ε and may be symbolic ("epsilon/2", "log(3)").
    Free parameters are universally quantified: the verdict holds for all admissible values.
    """
    start = time.perf_counter()
    claim = claim_of(mech, epsilon)
    check_domain(mech)
    if delta is not None:
        from ldpaudit.verify.delta import verify_delta

        return verify_delta(mech, claim, exact_number(delta, "delta"), timeout_ms=timeout_ms, start=start)
    ch = mech.channel
    if isinstance(ch, DensityChannel) or (isinstance(ch, ProductChannel) and ch.continuous):
        from ldpaudit.verify.density import verify_density

        return verify_density(mech, claim, timeout_ms=timeout_ms, start=start, tight=tight)
    try:
        problem = build(mech)
    except Unsupported as exc:
        return _unknown(mech, claim, str(exc), start)
    if problem.numeric and not claim.free_symbols:
        return _verify_numeric(problem, claim, timeout_ms=timeout_ms, start=start)
    return _verify_symbolic(problem, claim, timeout_ms=timeout_ms, start=start, tight=tight)


def _unknown(mech, claim, reason, start, method="", notes=(), proof=()) -> Verdict:
    return Verdict(
        Status.UNKNOWN, mech.name, claim, reason=reason, method=method, scope=scope_of(mech),
        seconds=time.perf_counter() - start, notes=tuple(notes), params=mech.bindings, proof=tuple(proof),
    )


def _proof(decision: Decision) -> tuple:
    return tuple((q.description, q.smt2, q.expected, q.result) for q in decision.queries)


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


def _verify_numeric(problem: Problem, claim, *, timeout_ms, start, bits: int = 96) -> Verdict:
    """All parameters numeric: exact max ratio in Python, z3 confirms the column obligations."""
    mech = problem.mech
    bound = sp.exp(claim)
    tight = _tight_numeric(problem)
    python_holds = True
    if problem.best is not None:
        ratio = problem.best[1]
        if ratio == sp.oo:
            python_holds = False
        else:
            c = exact.compare(ratio, bound)
            if c is None:
                return _unknown(mech, claim, f"cannot compare the ratio {ratio} with e^{claim} exactly", start,
                                method=problem.method)
            python_holds = c <= 0
    if not python_holds:
        witness = _witness(problem, problem.best[0], claim)
        if witness is not None:
            proof = witness_proof(mech.name, witness)
            if proof and proof[0][3] == "sat":  # z3 finds the claim consistent with the witness
                return _unknown(mech, claim, "z3 disagrees with the exact witness check", start, problem.method,
                                proof=proof)
            return Verdict(
                Status.REFUTED, mech.name, claim, tight_epsilon=tight, witness=witness, method=problem.method,
                scope=scope_of(mech), seconds=time.perf_counter() - start, notes=tuple(problem.notes),
                params=mech.bindings, proof=proof,
            )
        return _unknown(mech, claim, "a violation was found but its witness did not re-check", start, problem.method)
    decision = decide(mech.parameters, problem.facts, bound, timeout_ms=timeout_ms, label=f"{mech.name}: {claim}-LDP", bits=bits)
    if decision.result == "unsat":
        return Verdict(
            Status.PROVED, mech.name, claim, tight_epsilon=tight, method=problem.method + "; z3 confirms",
            scope=scope_of(mech), seconds=time.perf_counter() - start, notes=tuple(problem.notes + decision.notes),
            params=mech.bindings, proof=_proof(decision),
        )
    if decision.result == "sat" and bits < 2000:
        # Python's exact comparison says every column holds: z3's model lives in the slack of the
        # rational enclosures of e^claim; tighten them and ask again
        return _verify_numeric(problem, claim, timeout_ms=timeout_ms, start=start, bits=bits * 4)
    reason = decision.reason or "z3 found a model only inside the rational enclosures"
    return _unknown(mech, claim, reason, start, problem.method, decision.notes, _proof(decision))


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
    bound = sp.exp(claim)
    if den == 0:
        if exact.sign(num) != 1:
            return None
        ratio = sp.oo
    else:
        ratio = _simplify_ratio(num / den)
        if exact.compare(ratio, bound) != 1:
            return None
        if not sympy_exceeds(num, den, bound):
            return None
    return Witness(x, xp, y, ratio, num, den, claim, params=mech.bindings, y_text=text)


def _simplify_ratio(r):
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


def witness_proof(name: str, witness: Witness) -> tuple:
    """A query z3 must answer unsat: the claim holding at the witness contradicts the exact
    values of Q(y|x) and Q(y|x') (for a certificate of a refutation)."""
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


# --- symbolic (families) ----------------------------------------------------------------------


def _verify_symbolic(problem: Problem, claim, *, timeout_ms, start, tight: bool) -> Verdict:
    mech = problem.mech
    bound = sp.exp(claim)
    facts = list(problem.facts)
    if not claim.is_positive:
        # equal positive entries (ratio 1) need e^claim >= 1; implied by the pairs above except
        # in all-constant columns, so state it for claims that may be <= 0 somewhere
        facts.append(Fact(sp.Integer(1), sp.Integer(1), ("claim >= 0",), where="e^claim >= 1"))
    decision = decide(mech.parameters, facts, bound, timeout_ms=timeout_ms, label=f"{mech.name}: {claim}-LDP")
    notes = tuple(problem.notes + decision.notes)
    if decision.result == "unsat":
        tight_value = None
        if tight:
            try:
                tight_value = tight_closed_form(problem, timeout_ms=timeout_ms)
            except Unsupported:
                tight_value = None
        return Verdict(
            Status.PROVED, mech.name, claim, tight_epsilon=tight_value, method=problem.method + "; z3 nonlinear real arithmetic",
            scope=scope_of(mech), seconds=time.perf_counter() - start, notes=notes, params=mech.bindings,
            proof=_proof(decision),
        )
    if decision.result == "unknown":
        return _unknown(mech, claim, decision.reason, start, problem.method, notes, _proof(decision))
    verdict = _refute_at_points(mech, claim, decision, timeout_ms=timeout_ms)
    if verdict is None and any(p.kind == "integer" for p in mech.parameters):
        # the counterexample may live only between integers: ask again with integer sorts
        retry = decide(mech.parameters, facts, bound, timeout_ms=timeout_ms, label=f"{mech.name}: {claim}-LDP",
                       integers=True)
        if retry.result == "unsat":
            return Verdict(
                Status.PROVED, mech.name, claim, tight_epsilon=None,
                method=problem.method + "; z3 nonlinear arithmetic with integer parameters",
                scope=scope_of(mech), seconds=time.perf_counter() - start, notes=notes + tuple(retry.notes),
                params=mech.bindings, proof=_proof(retry),
            )
        if retry.result == "sat":
            verdict = _refute_at_points(mech, claim, retry, timeout_ms=timeout_ms)
    if verdict is not None:
        return Verdict(
            Status.REFUTED, mech.name, claim, tight_epsilon=verdict.tight_epsilon, witness=verdict.witness,
            method=problem.method, scope=scope_of(mech), seconds=time.perf_counter() - start, notes=notes,
            params=mech.bindings, proof=verdict.proof,
        )
    return _unknown(
        mech, claim, "z3 found a counterexample region (" + _model_text(decision) + ") but no exact witness was confirmed",
        start, problem.method, notes, _proof(decision),
    )


def _model_text(decision: Decision) -> str:
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


def _refute_at_points(mech: Mechanism, claim, decision: Decision | None, *, timeout_ms) -> Verdict | None:
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
        verdict = _refute_instance(bound_mech, claim_at, timeout_ms=timeout_ms)
        if verdict is not None:
            return verdict
    for bound_mech, claim_at in later:
        verdict = _refute_instance(bound_mech, claim_at, timeout_ms=timeout_ms)
        if verdict is not None:
            return verdict
    return None


def _refute_instance(bound_mech: Mechanism, claim_at, *, timeout_ms) -> Verdict | None:
    try:
        problem = build(bound_mech)
    except Unsupported:
        return None
    if not problem.numeric:
        return None
    verdict = _verify_numeric(problem, claim_at, timeout_ms=timeout_ms, start=time.perf_counter())
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


def _max_ratio(mech: Mechanism, pairs, *, timeout_ms) -> sp.Basic:
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
        if dominant(mech.parameters, ratios, i, timeout_ms=timeout_ms):
            return cands[i][2]
    return sp.Max(*[r for *_, r in cands])


def tight_closed_form(problem: Problem, *, timeout_ms=smt.DEFAULT_TIMEOUT_MS) -> sp.Basic:
    """ε* in closed form from a problem's obligations."""
    mech = problem.mech
    if problem.numeric:
        return _tight_numeric(problem)
    if problem.groups is not None:
        a = _max_ratio(mech, problem.groups[0], timeout_ms=timeout_ms)
        b = _max_ratio(mech, problem.groups[1], timeout_ms=timeout_ms)
        if sp.oo in (a, b):
            return sp.oo
        return _log_sum(a, b)
    r = _max_ratio(mech, [(f.num, f.den) for f in problem.facts], timeout_ms=timeout_ms)
    return sp.oo if r == sp.oo else _log(r)


def _log_sum(a, b):
    value = sp.log(a) + sp.log(b)
    simpler = sp.simplify(sp.expand_log(value, force=True))
    return simpler if sp.count_ops(simpler) <= sp.count_ops(value) else value


def tight_epsilon(mech: Mechanism, *, timeout_ms=smt.DEFAULT_TIMEOUT_MS) -> TightEpsilon:
    """The tightest ε in closed form, with a proof that the mechanism is ε*-LDP and a witness
    attaining it (so the claim fails for every smaller ε)."""
    ch = mech.channel
    check_domain(mech)
    if isinstance(ch, DensityChannel) or (isinstance(ch, ProductChannel) and ch.continuous):
        from ldpaudit.verify.density import tight_density

        return tight_density(mech, timeout_ms=timeout_ms)
    try:
        problem = build(mech)
        value = tight_closed_form(problem, timeout_ms=timeout_ms)
    except Unsupported as exc:
        return TightEpsilon(mech.name, sp.nan, None, None, method=f"unknown: {exc}")
    if value == sp.oo:
        return TightEpsilon(mech.name, sp.oo, None, _attaining_witness(mech, problem, value), method=problem.method)
    proof = None
    if value != 0:
        proof = verify(mech, epsilon=value, timeout_ms=timeout_ms, tight=False)
    witness = _attaining_witness(mech, problem, value)
    return TightEpsilon(mech.name, value, proof, witness, method=problem.method)


def _attaining_witness(mech: Mechanism, problem: Problem, value) -> Witness | None:
    """A triple whose ratio equals e^ε* exactly (at the example point for families)."""
    if problem.numeric:
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
    return Witness(x, xp, y, ratio if ratio == sp.oo else _simplify_ratio(num / den), num, den, eps_here,
                   params=target.mech.bindings, y_text=text)
