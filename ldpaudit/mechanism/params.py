"""Parameters of a mechanism family: named sympy symbols with assumptions and range
constraints, the model's variables x, y, z and size limits, exact parameter values, range
checks on bindings and substitution under the spec budgets.

The bottom of the mechanism model: it imports only :mod:`ldpaudit.mechanism.expr`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction

import sympy as sp

from ldpaudit.errors import InvalidParameter, InvalidSpec, Undecided
from ldpaudit.mechanism.expr import MAX_INTEGER_PART_BITS, check_budget, parse_expression, shown, substitute

#: the input variable of density and real-input channels, the output variable of densities,
#: and the (integer) output variable of real-input channels
X = sp.Symbol("x", real=True)
Z = sp.Symbol("z", real=True)
Y = sp.Symbol("y", integer=True)

#: materialization refuses channels with more entries than this
MAX_MATERIALIZED_ENTRIES = 2_000_000

#: numeric sizes (inputs, outputs, coordinates) are at most this: 64-bit domains, and no
#: number whose enumeration, sampling or printing could not finish
MAX_SIZE = 2**64


@dataclass(frozen=True)
class Parameter:
    """A named mechanism parameter: ``kind`` is "integer" or "real"; bounds are inclusive
    unless the matching ``*_strict`` flag is set, and may refer to other parameters."""

    name: str
    kind: str = "real"
    lower: sp.Basic | None = None
    upper: sp.Basic | None = None
    lower_strict: bool = False
    upper_strict: bool = False
    description: str = ""
    #: set by the analyst (a bit index, a round-1 estimate), not by the privacy budget; verify
    #: quantifies it universally like every other parameter, so it must declare its range
    public: bool = False
    #: an explicit "all values" range (a public parameter must say so rather than omit min/max)
    unbounded: bool = False

    def __post_init__(self):
        if not self.name.isidentifier() or self.name in ("x", "y", "z", "c", "v"):
            raise InvalidSpec(f"parameter name {shown(self.name)} is not allowed; use an identifier other than x, y, z, c, v")
        if self.kind not in ("integer", "real"):
            raise InvalidSpec(f"parameters.{self.name}.type = {shown(self.kind)}; use 'integer' or 'real'")
        if self.unbounded and (self.lower is not None or self.upper is not None):
            raise InvalidSpec(
                f"parameters.{self.name} declares unbounded = true and a min/max; keep one of them"
            )
        if self.public and self.lower is None and self.upper is None and not self.unbounded:
            raise InvalidSpec(
                f"parameters.{self.name} is public but declares no range; give min and/or max, "
                f"or unbounded = true for all {'integers' if self.kind == 'integer' else 'real values'}"
            )

    @property
    def symbol(self) -> sp.Symbol:
        assumptions = {"integer": True} if self.kind == "integer" else {"real": True}
        low = self.lower
        if low is not None and low.is_number:  # a sign that cannot be decided exactly gives no assumption
            if decide(low > 0) or (low == 0 and self.lower_strict):
                assumptions["positive"] = True
            elif decide(low >= 0):
                assumptions["nonnegative"] = True
        return sp.Symbol(self.name, **assumptions)

    def constraints(self, symbols: Mapping[str, sp.Basic] | None = None) -> list[sp.Basic]:
        """The range constraints as sympy relations (bounds may mention other symbols)."""
        s = self.symbol
        out = []
        if self.lower is not None:
            out.append(sp.Gt(s, self.lower, evaluate=False) if self.lower_strict else sp.Ge(s, self.lower, evaluate=False))
        if self.upper is not None:
            out.append(sp.Lt(s, self.upper, evaluate=False) if self.upper_strict else sp.Le(s, self.upper, evaluate=False))
        return out

    def describe(self) -> str:
        parts = []
        if self.lower is not None:
            parts.append(f"{self.lower} {'<' if self.lower_strict else '<='} ")
        parts.append(self.name)
        if self.upper is not None:
            parts.append(f" {'<' if self.upper_strict else '<='} {self.upper}")
        if self.unbounded:
            parts.append(" in Z" if self.kind == "integer" else " in R")
        text = "".join(parts) + (" (integer)" if self.kind == "integer" and not self.unbounded else "")
        return text + (" (public)" if self.public else "")


def integer(name: str, *, lower=None, upper=None, description: str = "") -> Parameter:
    return Parameter(name, "integer", _opt(lower), _opt(upper), description=description)


def positive(name: str, *, description: str = "") -> Parameter:
    return Parameter(name, "real", sp.Integer(0), None, lower_strict=True, description=description)


def _opt(value):
    return None if value is None else sp.sympify(value) if not isinstance(value, sp.Basic) else value


def symbols_for(parameters: Iterable[Parameter]) -> dict[str, sp.Symbol]:
    return {p.name: p.symbol for p in parameters}


def parse_in(mech_params: Iterable[Parameter], text, *, field: str, extra: Mapping[str, sp.Basic] | None = None):
    """Parse an expression over the given parameters (and extra names such as x, z)."""
    names = symbols_for(mech_params)
    if extra:
        names.update(extra)
    return parse_expression(text, names, field=field)


# --- values of parameters --------------------------------------------------------------------


def _subs(expr, subs):
    """``expr`` with parameter values substituted, under the spec budgets (a binding such as
    d = 10**9, k = 10**8 in binomial(d, k) is refused before sympy evaluates it)."""
    if not subs or expr is None:
        return expr
    if all(isinstance(k, sp.Symbol) for k in subs):
        return substitute(expr, subs, field="expression", error=InvalidParameter)
    return expr.subs(subs)


#: digits of a numerical evaluation that sympy certifies (evalf strict), tried in turn
_CERTIFIED_DIGITS = (30, 120, 400)

_OUTCOME = {"<": lambda s: s < 0, "<=": lambda s: s <= 0, ">": lambda s: s > 0, ">=": lambda s: s >= 0,
            "==": lambda s: s == 0, "!=": lambda s: s != 0}


def sign(value) -> int | None:
    """The sign (-1, 0, 1) of a real number, decided exactly, or None: sympy's assumptions,
    then the same after cancelling (1/2 - (u - 1)/(2 (u + 1)) is 1/(u + 1) > 0 for u = e^(10^100),
    which no numerical evaluation resolves), then a numerical value that sympy certifies to
    all its digits (evalf strict), at increasing precision."""
    from sympy.core.evalf import PrecisionExhausted

    value = sp.sympify(value)
    if value.is_Rational:
        return (value > 0) - (value < 0)
    for form in (value, sp.cancel(sp.together(value))):
        if form.is_zero:
            return 0
        if form.is_positive:
            return 1
        if form.is_negative:
            return -1
    for digits in _CERTIFIED_DIGITS:
        try:
            approx = value.evalf(digits, strict=True)
        except (PrecisionExhausted, ValueError, TypeError, ArithmeticError):
            continue
        if approx.is_Number and approx != 0:
            return 1 if approx > 0 else -1
    return None


def decide(relation) -> bool | None:
    """The truth of a comparison of real numbers, decided exactly (:func:`sign` of lhs - rhs
    when sympy's own ``bool`` cannot tell), or None."""
    try:
        return bool(relation)
    except TypeError:
        pass
    if not isinstance(relation, sp.core.relational.Relational) or relation.rel_op not in _OUTCOME:
        return None
    s = sign(relation.lhs - relation.rhs)
    return None if s is None else _OUTCOME[relation.rel_op](s)


def _decided(relation, where: str, value) -> bool:
    """:func:`decide`, or InvalidSpec naming ``where`` when nothing decides it exactly."""
    outcome = decide(relation)
    if outcome is None:
        raise Undecided(f"{where} = {shown(value)}: cannot decide the comparison {shown(relation)} exactly; "
                          "give a value farther from it")
    return outcome


def _exact_value(name: str, value, symbols) -> sp.Basic:
    if isinstance(value, bool):
        raise InvalidParameter(f"parameter {name} = {value!r} is a boolean; give a number")
    if isinstance(value, float):
        raise InvalidParameter(
            f"parameter {name} = {value!r} is a float, which is inexact; give an int, a Fraction, "
            f"sympy.Rational or a string such as '1/2' or 'log(3)'"
        )
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, str):
        expr = parse_expression(value, {}, field=f"parameter {name}")
    elif isinstance(value, sp.Basic):
        expr = value
    else:
        raise InvalidParameter(f"parameter {name} = {value!r} ({type(value).__name__}) is not a number")
    if isinstance(expr, sp.Float) or expr.atoms(sp.Float):
        raise InvalidParameter(f"parameter {name} = {shown(value)} contains a float; give an exact value such as Rational(1, 2)")
    check_budget(expr, field=f"parameter {name}", error=InvalidParameter)
    if expr.free_symbols:
        raise InvalidParameter(f"parameter {name} = {value!r} is not a number (mentions {sorted(map(str, expr.free_symbols))})")
    if not expr.is_real or not expr.is_finite:
        raise InvalidParameter(f"parameter {name} = {value!r} is not a finite real number")
    return expr


def _check_range(mech_name, p: Parameter, value, subs):
    if p.kind == "integer" and not value.is_Integer:
        raise InvalidParameter(f"parameter {p.name} = {shown(value)} of {mech_name} must be an integer")
    for bound, strict, side in ((p.lower, p.lower_strict, 1), (p.upper, p.upper_strict, -1)):
        if bound is None:
            continue
        b = _subs(bound, subs)
        if not b.is_number:
            continue  # depends on a parameter that is still free; checked when it is bound
        if b.has(sp.zoo, sp.nan) or b.is_extended_real is False:
            raise InvalidParameter(
                f"parameter {p.name} = {shown(value)} of {mech_name}: its bound {shown(bound)} is {shown(b)}, not a real number, "
                "at these parameter values"
            )
        ok = decide((value > b if strict else value >= b) if side == 1 else (value < b if strict else value <= b))
        if ok is None:
            raise Undecided(
                f"parameter {p.name} = {shown(value)} of {mech_name}: cannot decide whether it is within its bound "
                f"{shown(bound)} = {shown(b)}; give a value farther from the bound"
            )
        if not ok:
            rel = (">" if strict else ">=") if side == 1 else ("<" if strict else "<=")
            raise InvalidParameter(
                f"parameter {p.name} = {shown(value)} of {mech_name} is out of range: need {p.name} {rel} {shown(bound)}"
                + (f" = {shown(b)}" if b != bound else "")
            )


def _transfer_bounds(p: Parameter, value, subs, remaining: list[Parameter]) -> list[Parameter]:
    """Binding ``k = 3`` where ``k <= d - 1`` and d stays free leaves the constraint ``d >= 4``:
    move it onto d's bounds (for bounds linear in one free parameter), so that sample points
    and later bindings respect it."""
    by_symbol = {q.symbol: i for i, q in enumerate(remaining)}
    for bound, strict, is_lower in ((p.lower, p.lower_strict, True), (p.upper, p.upper_strict, False)):
        if bound is None:
            continue
        b = _subs(bound, subs)
        free = b.free_symbols
        if len(free) != 1 or next(iter(free)) not in by_symbol:
            continue
        (s,) = free
        try:
            poly = sp.Poly(b, s)
        except sp.PolynomialError:
            continue
        if poly.degree() != 1 or not all(c.is_number for c in poly.all_coeffs()):
            continue
        a, c = poly.all_coeffs()
        limit = (value - c) / a
        # value >= a*s + c (p's lower bound) gives s <= limit when a > 0; p's upper bound the reverse
        positive = decide(a > 0)
        if positive is None:
            continue
        s_is_lower = (not is_lower) == positive
        q = remaining[by_symbol[s]]
        old = q.lower if s_is_lower else q.upper
        old_strict = q.lower_strict if s_is_lower else q.upper_strict
        if old is not None:
            if not old.is_number:
                continue
            tighter = decide(limit > old if s_is_lower else limit < old)
            if tighter is None:
                continue
            if not tighter:
                if limit == old:
                    strict = strict or old_strict
                else:
                    continue
        new = replace(q, lower=limit, lower_strict=strict) if s_is_lower else replace(q, upper=limit, upper_strict=strict)
        if new.symbol == q.symbol:  # the symbol's assumptions depend on its bounds: keep them unchanged
            remaining = remaining[: by_symbol[s]] + [new] + remaining[by_symbol[s] + 1 :]
    return remaining


def _check_bounds_consistent(p: Parameter) -> None:
    """Numeric bounds must leave room for a value (an integer, for integer parameters)."""
    low, high = p.lower, p.upper
    for which, bound in (("min", low), ("max", high)):
        if bound is None:
            continue
        if bound.has(sp.zoo, sp.nan, sp.I) or (bound.is_number and bound.is_extended_real is False):
            raise InvalidSpec(f"parameters.{p.name}.{which} = {shown(bound)} is not a real number")
        if not isinstance(bound, sp.Expr):
            raise InvalidSpec(f"parameters.{p.name}.{which} = {shown(bound)} is not a number")
        if p.kind == "integer" and bound.is_number and not bound.is_Rational and bound.is_finite:
            m = abs(bound).evalf(15)
            if not m.is_Float or m > 2**MAX_INTEGER_PART_BITS:
                raise InvalidSpec(
                    f"parameters.{p.name}.{which} = {shown(bound)} is too large for the bound of an integer "
                    f"parameter; irrational bounds are limited to 2^{MAX_INTEGER_PART_BITS}"
                )
    if low is None or high is None or not (low.is_number and high.is_number):
        return
    where = f"parameters.{p.name}"
    empty = _decided(low > high, where, p.describe()) or (low == high and (p.lower_strict or p.upper_strict))
    if p.kind == "integer" and not empty:
        first = sp.floor(low) + 1 if p.lower_strict or not low.is_integer else low
        last = sp.ceiling(high) - 1 if p.upper_strict or not high.is_integer else high
        empty = _decided(first > last, where, p.describe())
    if empty:
        raise InvalidSpec(
            f"parameters.{p.name} has contradictory bounds: {p.describe()} admits no "
            f"{'integer' if p.kind == 'integer' else 'value'}; fix min/max"
        )
