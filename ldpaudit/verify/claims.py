"""What is claimed, and for which parameters: exact numbers, the claim ε, the parameter domain.

The bottom of the verify package's own layers: every channel form (finite, density, δ) and
the dispatcher import from here; nothing here imports them.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from fractions import Fraction

import sympy as sp

from ldpaudit.errors import InvalidParameter, InvalidSpec
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.expr import exact_decimal, parse_expression
from ldpaudit.verify import exact, smt
from ldpaudit.verify.result import Status, Verdict
from ldpaudit.verify.smt import Unsupported


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
            number = exact_decimal(text)  # "0.01", "1/3", "5", within the spec budgets
        except InvalidSpec as exc:
            raise InvalidParameter(f"{field}: {exc}") from None
        if number is not None:
            return sp.Rational(number)
        try:
            return parse_expression(text, dict(symbols or {}), field=field)
        except InvalidSpec as exc:
            raise InvalidParameter(str(exc)) from None
    raise InvalidParameter(f"{field} = {value!r} ({type(value).__name__}) is not a number")


def claim_of(mech: Mechanism, epsilon=None) -> sp.Basic:
    """The ε to check: the given one (exact) or the spec's claimed ε; it must be positive. The
    given one may mention the free parameters and those bound with ``-p`` (their values)."""
    if epsilon is None:
        claim = mech.claimed_epsilon
    else:
        bound = {name: value for name, value in mech.bindings if name not in mech.symbols}
        names = {**{name: sp.Symbol(name) for name in bound}, **mech.symbols}
        claim = exact_number(epsilon, "epsilon", names)
        if bound and isinstance(claim, sp.Basic):
            claim = claim.xreplace({names[name]: sp.sympify(value) for name, value in bound.items()})
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
        out = smt.check(enc.constraints() + [c > 0], rlimit=smt.QUICK_RLIMIT)
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
    s = smt.new_solver(smt.QUICK_RLIMIT)
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


def unknown(mech: Mechanism, claim, reason: str, start: float, method: str = "", notes=(), proof=()) -> Verdict:
    """An UNKNOWN verdict with its reason (never a pass)."""
    return Verdict(
        Status.UNKNOWN, mech.name, claim, reason=reason, method=method, scope=scope_of(mech),
        seconds=time.perf_counter() - start, notes=tuple(notes), params=mech.bindings, proof=tuple(proof),
    )
