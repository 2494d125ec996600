"""Checks every channel form shares: exact zero tests, admissible sample points of the free
parameters, non-negativity of probabilities, and the size guards of materialization.

They take the mechanism under validation as a plain value (its ``name``, ``parameters``,
``symbols``, ``inputs``, ``channel``) and import no channel form."""

from __future__ import annotations

import math

import sympy as sp

from ldpaudit.errors import InvalidSpec, NotMaterializable, Undecided
from ldpaudit.mechanism.expr import shown, substitute
from ldpaudit.mechanism.params import _decided, _subs, decide
from ldpaudit.mechanism.spaces import FiniteDomain


def is_zero(expr) -> bool | None:
    """True when sympy proves ``expr == 0``, False when it proves otherwise, None if unsure."""
    expr = sp.sympify(expr)
    if expr == 0:
        return True
    if expr.is_number:
        if expr.is_Rational:
            return False
        if sp.cancel(sp.together(expr)) == 0:
            return True
        nz = sp.simplify(expr)
        if nz == 0:
            return True
        return None if nz.is_zero is None else bool(nz.is_zero)
    if expr.has(sp.exp) and _exp_identity(expr):
        return True
    # combsimp proves the binomial identities of subset channels in milliseconds; simplify takes 0.2 s
    for simplifier in (sp.cancel, sp.combsimp, sp.simplify, lambda e: sp.simplify(sp.gammasimp(e)),
                       lambda e: sp.simplify(sp.expand_func(e))):
        try:
            if simplifier(expr) == 0:
                return True
        except (TypeError, ValueError, NotImplementedError):
            continue
    return None


def _exp_identity(expr: sp.Basic) -> bool:
    """True when ``expr`` is identically 0 as a rational function of its symbols and u, where
    every exponential is a power of one u = exp(t/L) (exp(ε), exp(2ε), exp(ε/2): u^2L, u^4L,
    u^L): an identity in u as an independent variable holds in particular at u = exp(t/L).
    Square Wave's mass with b written as the paper's function of ε is 1 this way, where
    ``simplify`` gives up."""
    args = [e.args[0] for e in expr.atoms(sp.exp)]
    base = args[0]
    ratios = []
    for a in args:
        r = sp.cancel(a / base)
        if not r.is_Rational:
            return False
        ratios.append(r)
    lcm = math.lcm(*[int(r.q) for r in ratios])
    u = sp.Dummy("u", positive=True)
    replaced = expr.xreplace({sp.exp(a): u ** int(r * lcm) for a, r in zip(args, ratios)})
    if replaced.has(sp.exp):
        return False
    try:
        return sp.cancel(sp.together(replaced)) == 0
    except (TypeError, ValueError, NotImplementedError, sp.PolynomialError):
        return False


#: what a sum that sympy can neither prove 1 nor show different from 1 adds to its message
UNDECIDED_SUM = " (sympy could not prove it: not shown wrong, undecided; write it so that it simplifies to 1)"


def require_sum_one(mech, total, message) -> None:
    """``total`` (a row sum, a sum of weights) must be exactly 1 for every admissible parameter.
    Raises InvalidSpec(``message`` + where it is not 1) when sympy shows it different from 1,
    symbolically or at a sample point of the parameters, and Undecided(``message`` + why) when it
    can do neither: refuse only what is shown wrong. ``message`` is a function returning the
    text, called only on failure (the text simplifies the sum, which costs)."""
    verdict = is_zero(total - 1)
    if verdict is True:
        return
    message = message()
    if verdict is False:
        raise InvalidSpec(message)
    for point in sample_points(mech):
        value = sp.simplify(sp.sympify(total).xreplace({mech.symbols[k]: v for k, v in point.items()}))
        if value.is_number and is_zero(value - 1) is False:
            at = ", ".join(f"{k}={v}" for k, v in point.items() if mech.symbols[k] in sp.sympify(total).free_symbols)
            raise InvalidSpec(f"{message} (it is {value} at {at})" if at else f"{message} (it is {value})")
    raise Undecided(message + UNDECIDED_SUM)


def sample_points(mech, count: int = 6) -> list[dict]:
    """A few admissible numeric assignments of the free parameters (for spot checks)."""
    points = []
    candidates = {
        "integer": [2, 3, 5, 8, 13, 40],
        "real": [sp.Rational(1, 3), sp.Rational(1, 2), 1, 2, sp.Rational(7, 2), 5],
    }
    params = mech.parameters
    for i in range(count):
        point = {}
        undefined = False
        for p in params:
            options = candidates[p.kind]
            subs = {mech.symbols[k]: v for k, v in point.items()}
            chosen = None
            for j in range(len(options)):
                value = sp.sympify(options[(i + j) % len(options)])
                lo = None if p.lower is None else _subs(p.lower, subs)
                hi = None if p.upper is None else _subs(p.upper, subs)
                if any(b is not None and b.is_number and (b.has(sp.zoo, sp.nan) or b.is_extended_real is False)
                       for b in (lo, hi)):
                    undefined = True  # a bound such as 1/(d - 2) at d = 2: no admissible value here
                    break
                # a candidate is admissible when it is shown within its bounds
                if lo is not None and lo.is_number and decide(value > lo if p.lower_strict else value >= lo) is not True:
                    continue
                if hi is not None and hi.is_number and decide(value < hi if p.upper_strict else value <= hi) is not True:
                    continue
                chosen = value
                break
            if undefined:
                break
            if chosen is None:
                lo = _subs(p.lower, subs) if p.lower is not None else sp.Integer(0)
                hi = None if p.upper is None else _subs(p.upper, subs)
                if p.kind == "real" and hi is not None and hi.is_number and lo.is_number:
                    chosen = _simple_between(lo, hi)  # both ends bound it: a short rational inside
                else:
                    chosen = sp.ceiling(lo) + (1 if p.lower_strict else 0) if p.kind == "integer" else lo + 1
            point[p.name] = chosen
        if not undefined and point not in points:
            points.append(point)
    return points


def _simple_between(lo: sp.Basic, hi: sp.Basic) -> sp.Basic:
    """A rational strictly between two numbers lo < hi with a small denominator."""
    from fractions import Fraction

    a, b = Fraction(str(sp.N(lo, 30))), Fraction(str(sp.N(hi, 30)))
    mid = (a + b) / 2
    for den in (1, 2, 3, 4, 5, 8, 10, 16, 20, 50, 100, 1000, 10**6):
        q = mid.limit_denominator(den)
        if a < q < b:
            return sp.Rational(q.numerator, q.denominator)
    return sp.Rational(mid.numerator, mid.denominator)


def _vanishing_denominator(mech, expr) -> str | None:
    """For an expression in one real parameter, a point of its admissible range where a
    denominator is 0 (sympy solveset), or None."""
    free = expr.free_symbols
    if len(free) != 1:
        return None
    (sym,) = free
    param = next((p for p in mech.parameters if p.symbol == sym), None)
    if param is None or param.kind != "real":
        return None
    low = param.lower if param.lower is not None and param.lower.is_number else -sp.oo
    high = param.upper if param.upper is not None and param.upper.is_number else sp.oo
    domain = sp.Interval(low, high, param.lower_strict or low == -sp.oo, param.upper_strict or high == sp.oo)
    _, den = sp.fraction(sp.together(expr))
    for factor in sp.Mul.make_args(sp.factor(den)):
        if factor.is_number or factor.is_positive:
            continue
        try:
            zeros = sp.solveset(factor, sym, domain)
        except (NotImplementedError, ValueError, TypeError):
            continue
        if isinstance(zeros, sp.FiniteSet) and zeros:
            try:
                return f"{sym} = {shown(sorted(zeros, key=lambda v: float(v))[0])}"
            except (TypeError, ValueError, OverflowError):
                return f"{sym} = {shown(next(iter(zeros)))}"
    return None


def _require_nonnegative(mech, expr, where: str) -> None:
    expr = sp.sympify(expr)
    if expr.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
        raise InvalidSpec(f"{where} of {mech.name!r} = {expr} is not finite")
    if expr.is_number:
        if expr.is_Rational:
            if expr < 0:
                raise InvalidSpec(f"{where} of {mech.name!r} = {expr} is negative; probabilities must be >= 0")
            return
        if not expr.is_extended_real:
            raise InvalidSpec(f"{where} of {mech.name!r} = {shown(expr)} is not a real number")
        if expr.is_nonnegative:
            return
        if _decided(expr < 0, where, expr):
            raise InvalidSpec(f"{where} of {mech.name!r} = {expr} is negative; probabilities must be >= 0")
        return
    if expr.is_nonnegative:
        return
    vanishing = _vanishing_denominator(mech, expr)
    if vanishing is not None:
        raise InvalidSpec(f"{where} of {mech.name!r} = {expr} has a denominator that is 0 at {vanishing}; "
                          "rewrite it so that it is defined on the whole parameter range")
    for point in sample_points(mech):
        try:  # under the spec budgets: g**d at d = 2**64 is not computed; nothing is decided at that point
            value = substitute(expr, {mech.symbols[k]: v for k, v in point.items()}, field=where)
        except InvalidSpec:
            continue
        if not value.is_number and _varies(value):
            continue  # still a function of the input (x): no simplification makes it a number to check
        try:
            value = sp.simplify(value) if not value.is_number else value
            negative = value.is_number and (
                value.has(sp.nan, sp.zoo) or value.is_extended_real is False or _decided(value < 0, where, value))
        except (OverflowError, RecursionError):  # e^(10^100) at a sample point: nothing decided there
            continue
        if negative:
            pretty = ", ".join(f"{k}={v}" for k, v in point.items())
            raise InvalidSpec(f"{where} of {mech.name!r} = {expr} is {value} (negative or undefined) at {pretty}")


def _varies(expr) -> bool:
    """True when ``expr`` takes two different finite values at two points of its free symbols,
    so it is not a constant function and no simplification turns it into a number. False
    means only "not shown" (a value undefined there, or equal values)."""
    symbols = sorted(expr.free_symbols, key=str)
    values = []
    for start in (sp.Rational(2, 7), sp.Rational(13, 11)):
        try:
            value = complex(sp.N(expr.xreplace({s: start + i for i, s in enumerate(symbols)}), 30))
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            return False
        if not (math.isfinite(value.real) and math.isfinite(value.imag)):
            return False
        values.append(value)
    return abs(values[0] - values[1]) > 1e-9 * max(1.0, abs(values[0]))


# --- materialization guards ------------------------------------------------------------------


def require_numeric_sizes(mech) -> None:
    """Materialization needs every size (inputs, outputs, coordinates) to be a number."""
    exprs = [mech.inputs.size] if isinstance(mech.inputs, FiniteDomain) else []
    exprs += [e for _, e in mech.channel.size_fields()]
    if mech.parameters and any(
        s in sp.sympify(e).free_symbols for e in exprs for s in mech.symbols.values()
    ):
        raise NotMaterializable(
            f"{mech.name!r} has symbolic sizes; bind {', '.join(mech.parameter_names)} first (e.g. mech.bind(d=4))"
        )


def check_materialized_size(mech, n_in, n_out, max_entries) -> None:
    if n_in * n_out > max_entries:
        raise NotMaterializable(
            f"{mech.name!r} has {n_in} x {n_out} = {n_in * n_out} entries, more than the limit {max_entries}; "
            "use its structured form or pass a larger max_entries"
        )
