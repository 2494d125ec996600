"""The values of the extraction interpreter: exact numbers, continuous draws, arrays, and the
exact decisions (signs, comparisons) that branch on them.

Numbers are sympy expressions: integers, Rationals (a float literal is its exact binary value,
``0.5`` is 1/2), symbols of the unbound parameters and ``exp``/``log``/``sqrt`` of them. A
comparison is decided exactly for every value of the free symbols (their declared
assumptions, ε > 0); what sympy cannot decide stops the extraction (``Unextractable``), never a
guess. A continuous uniform draw (``random()``) is an interval [lo, hi) of (0, 1) narrowed by
the comparisons taken on the path; its only exact use is ``u < p``.
"""
from __future__ import annotations

import contextvars
import math
from dataclasses import dataclass, field

import sympy as sp

from ldpaudit.errors import Unextractable

#: the decisions of the running extraction under its parameter ranges and the path's case splits
#: (:class:`ldpaudit.extract.assume.Decider`), consulted when sympy's sign rules cannot tell;
#: set for the duration of one extraction, None outside one
DECIDER: contextvars.ContextVar = contextvars.ContextVar("ldpaudit_extract_decider", default=None)


class Stop(Exception):
    """Internal: a construct outside the subset, raised with the node; the interpreter turns
    it into :class:`Unextractable` naming the file and line."""

    def __init__(self, construct: str, why: str = ""):
        super().__init__(construct)
        self.construct, self.why = construct, why


@dataclass(eq=False)
class Uniform:
    """One U(0, 1) draw, known on this path to lie in [lo, hi)."""

    line: int
    lo: sp.Basic = sp.S.Zero
    hi: sp.Basic = sp.S.One


@dataclass(eq=False)
class Arr:
    """A one-dimensional numpy array: its elements (numbers, booleans or Uniforms)."""

    items: list
    kind: str = "int"  # 'int', 'float', 'bool': what astype/view and outputs read

    def copy(self) -> Arr:
        return Arr(list(self.items), self.kind)


@dataclass(frozen=True, eq=False)
class Seq:
    """A sequence of symbolic length (``range(d)``, a list built by a loop over it) whose items
    are independent: ``item`` is the value at the generic index ``index`` (0 <= index <
    length), computed once on this path (:mod:`ldpaudit.extract.items`)."""

    length: sp.Basic
    index: sp.Symbol
    item: object


@dataclass(frozen=True)
class Poison:
    """A name a loop over a symbolic range assigned (after the loop it would hold the last
    item's value, which the generic reading does not have), or a list it appends to on some
    paths only (its length depends on the draws): reading it stops, saying ``why``."""

    name: str
    line: int
    why: str = "would hold the last item's value, which the generic reading does not have"


@dataclass(eq=False)
class Appending:
    """A list a loop over a symbolic range appends to, while an item runs: only ``.append()``
    is read (its length or items seen from inside an item would be the first iteration's)."""

    name: str


@dataclass(frozen=True)
class Rng:
    """A source of randomness: the ``random`` module, ``numpy.random``, a Generator, a
    ``random.Random``; ``api`` is 'python', 'legacy' or 'generator' (randint's bounds differ)."""

    api: str


@dataclass(frozen=True)
class Native:
    """A function of a known library, by qualified name (``math.exp``, ``numpy.where``)."""

    name: str


@dataclass(frozen=True)
class ModuleRef:
    name: str


@dataclass
class Closure:
    node: object  # ast.FunctionDef or ast.Lambda
    env: dict = field(default_factory=dict)


class Object:
    """A value of a class read from the source (a class, an instance, a bound method,
    ``super()``): :mod:`ldpaudit.extract.classes` reads its calls, attribute reads and attribute
    writes; the interpreter hands them over."""

    shown = "an object"

    def call(self, interp, args: list, kwargs: dict):
        raise Stop(f"a call of {self.shown}", "is not in the subset")

    def attribute(self, interp, name: str):
        raise Stop(f"the attribute .{name} of {self.shown}", "is not in the subset")

    def store(self, interp, name: str, value) -> None:
        raise Stop(f"a write to .{name} of {self.shown}", "is not in the subset")


def number(value) -> sp.Basic:
    """An exact sympy number from a Python literal (floats exactly, as their binary value)."""
    if isinstance(value, bool):
        return sp.Integer(int(value))
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise Stop(f"the float {value!r}", "not a finite number")
        return sp.Rational(*value.as_integer_ratio())
    return sp.sympify(value)


def is_num(v) -> bool:
    return isinstance(v, (bool, sp.Basic)) and not isinstance(v, sp.logic.boolalg.BooleanAtom) or isinstance(v, bool)


def as_expr(v):
    if isinstance(v, bool):
        return sp.Integer(int(v))
    if isinstance(v, sp.Basic):
        return v
    if isinstance(v, (int, float)):
        return number(v)
    if isinstance(v, Uniform):
        raise Stop("a continuous draw used in arithmetic", "only comparisons such as random() < p are exact")
    if isinstance(v, Native):
        raise Stop(f"{v.name} used as a number", "is a library value the subset does not read")
    raise Stop(f"a value of type {type(v).__name__} used as a number")


def concrete_int(v, what: str) -> int:
    """``v`` as a Python int, or Stop saying the value must be bound."""
    e = as_expr(v)
    if e.is_Integer:
        return int(e)
    if e.free_symbols:
        names = ", ".join(sorted(str(s) for s in e.free_symbols))
        if DECIDER.get() is not None and DECIDER.get().program:
            raise Stop(f"{what} = {e}", "needs a concrete integer: a loop, list, array or index over a symbolic "
                                        "number of items is not read generically (a domain 0..d-1 is read for "
                                        f"code that returns one element, k-RR's shape); bind {names} with --target-arg")
        raise Stop(f"{what} = {e}", f"needs a concrete integer: bind {names} with --target-arg")
    if e.is_integer is False or not e.is_number:
        raise Stop(f"{what} = {e}", "is not an integer")
    raise Stop(f"{what} = {e}", "is not an integer")


def _exp_free(expr):
    """``expr`` with every exp(a*s) of a positive symbol s written as (1 + t_s)^a (t_s > 0): e^s
    exceeds 1 for s > 0, which sympy's sign rules then see."""
    reps, dummies = {}, {}
    for sub in expr.atoms(sp.exp):
        arg = sub.args[0]
        coeff, rest = arg.as_coeff_Mul()
        if rest.is_Symbol and rest.is_positive and coeff.is_Rational and coeff != 0:
            t = dummies.setdefault(rest, sp.Dummy(f"t_{rest}", positive=True))
            reps[sub] = (1 + t) ** coeff
    return expr.xreplace(reps) if reps else expr


def sign(expr) -> int | None:
    """-1, 0 or 1: the sign of ``expr`` for every value of its symbols; None if undecided."""
    expr = sp.sympify(expr)
    if expr.is_zero:
        return 0
    if expr.is_positive:
        return 1
    if expr.is_negative:
        return -1
    if expr.is_number:
        try:
            from ldpaudit.mechanism.checks import is_zero

            if is_zero(expr) is True:
                return 0
        except Exception:  # noqa: BLE001 - undecided, said below
            return None
        value = expr.evalf(60)
        if value.is_Number and abs(value) > sp.Float(10) ** -40:
            return 1 if value > 0 else -1
        return None
    for form in (sp.factor(sp.cancel(sp.together(_exp_free(expr)))),):
        num, den = sp.fraction(form)
        sn, sd = _sign_product(num), _sign_product(den)
        if sn is not None and sd is not None and sd != 0:
            return sn * sd
    simple = sp.simplify(_exp_free(expr))
    if simple.is_zero:
        return 0
    if simple.is_positive:
        return 1
    if simple.is_negative:
        return -1
    return None


def _sign_product(expr) -> int | None:
    if expr.is_zero:
        return 0
    if expr.is_positive:
        return 1
    if expr.is_negative:
        return -1
    if isinstance(expr, sp.Mul):
        total = 1
        for factor in expr.args:
            s = _sign_product(factor)
            if s is None:
                return None
            total *= s
        return total
    if isinstance(expr, sp.Pow) and expr.exp.is_Integer:
        s = _sign_product(expr.base)
        if s is None:
            return None
        return s ** int(expr.exp) if s else 0
    expanded = sp.expand(expr)
    if expanded.is_positive:
        return 1
    if expanded.is_negative:
        return -1
    return None


def compare(a, op: str, b) -> bool:
    """Decide ``a op b`` for numbers exactly, for every value of the free symbols (in their
    declared ranges, through the running extraction's :data:`DECIDER`)."""
    ea, eb = as_expr(a), as_expr(b)
    s = sign(ea - eb)
    if s is None and DECIDER.get() is not None:
        return DECIDER.get().compare(ea, op, eb)
    if s is None:
        names = sorted(str(x) for x in (ea - eb).free_symbols)
        hint = f"bind {', '.join(names)} with --target-arg" if names else "the numbers are too close to compare exactly"
        raise Stop(f"the comparison {sp.sstr(ea)} {op} {sp.sstr(eb)}", f"cannot be decided exactly ({hint})")
    return {"<": s < 0, "<=": s <= 0, ">": s > 0, ">=": s >= 0, "==": s == 0, "!=": s != 0}[op]


def equal(a, b) -> bool:
    """Python ``==`` on interpreter values (numbers exactly; containers element by element)."""
    if isinstance(a, Uniform) or isinstance(b, Uniform):
        raise Stop("a continuous draw compared with ==", "the event has probability 0; compare with < or <=")
    if a is None or b is None or isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (set, frozenset)) and isinstance(b, (set, frozenset)):
        return a == b
    if isinstance(a, (bool, sp.Basic)) and isinstance(b, (bool, sp.Basic)):
        return compare(a, "==", b)
    return a == b


def truth(v) -> bool:
    if isinstance(v, bool):
        return v
    if v is None:
        return False
    if isinstance(v, sp.Basic):
        return compare(v, "!=", sp.Integer(0))
    if isinstance(v, (list, tuple, set, frozenset, dict, str, range)):
        return len(v) > 0
    if isinstance(v, Arr):
        if len(v.items) == 1:
            return truth(v.items[0])
        raise Stop("the truth value of an array", "is ambiguous (numpy raises ValueError); use .any() or .all()")
    if isinstance(v, Uniform):
        raise Stop("a continuous draw used as a condition", "compare it with a threshold: random() < p")
    return True


def plain(v, where: str):
    """An output value as a hashable Python value: ints, strings, tuples, frozensets."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, sp.Basic):
        if v.is_Integer:
            return int(v)
        if v.is_Rational:
            raise Stop(f"the output {v}", "outputs must be integers, strings or containers of them")
        raise Stop(f"the output {sp.sstr(v)}", "is not a finite label (a real or symbolic value)")
    if isinstance(v, str) or v is None:
        return v
    if isinstance(v, Arr):
        return tuple(plain(x, where) for x in v.items)
    if isinstance(v, (list, tuple)):
        return tuple(plain(x, where) for x in v)
    if isinstance(v, (set, frozenset)):
        return frozenset(plain(x, where) for x in v)
    if isinstance(v, Uniform):
        raise Stop("a continuous value returned", "the output of a continuous draw has no finite channel; use audit")
    raise Stop(f"an output of type {type(v).__name__}", f"cannot be a channel output ({where})")


def unextractable(path: str, line: int | None, stop: Stop) -> Unextractable:
    where = f"{path}:{line}" if line else path
    why = f" {stop.why}" if stop.why else ""
    return Unextractable(
        f"{where}: {stop.construct}{why}; this is outside the subset `extract` reads exactly; "
        f"test the code statistically with `ldpaudit audit`")
