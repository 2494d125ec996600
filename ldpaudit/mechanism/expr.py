"""Safe parsing of spec-file expressions into sympy.

Spec files are untrusted input, so expression text is never handed to ``eval``,
``sympify`` or ``parse_expr`` (all of which execute code). Instead the text is
parsed by Python's ``ast`` module and every node is checked against an allow-list
before it is translated, node by node, into sympy objects.

Allowed: integer literals, declared names, ``+ - * / **``, unary minus, the
functions in ``FUNCTIONS``, comparisons, ``and``/``or``/``not``, and conditional
expressions ``a if cond else b`` (which become ``Piecewise``). Float literals are
rejected: specs are exact, write ``1/2`` instead of ``0.5``.

Spec text is also bounded in cost: every operation whose evaluation could burn CPU or
memory (powers, ``exp`` of a number, ``binomial``, ``floor``, ``%``, ``bit``) is checked
*before* sympy evaluates it, against the limits below; substituting parameter values
(:func:`substitute`) goes through the same checks. Values that cannot be real (``1/0``,
``log(0)``, ``(-1)**(1/2)``) are refused at the sub-expression that produced them.

The parts: this module parses expressions and predicates (:func:`parse_expression`,
:func:`parse_predicate`); :mod:`~ldpaudit.mechanism.expr_budget` holds the limits and the checks
made before sympy evaluates, :mod:`~ldpaudit.mechanism.expr_fold` keeps piecewise expressions
small and substitutes values, and :mod:`~ldpaudit.mechanism.conditions` reads the classes'
``when`` conditions. The names they define stay importable from here.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from fractions import Fraction

import sympy as sp

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism.expr_budget import (
    MAX_CONSTANT_EXPONENT,
    MAX_DEPTH,
    MAX_INT_BITS,
    MAX_INT_DIGITS,
    MAX_LENGTH,
    BudgetExceeded,
    _bit,
    _cut,
    _log2_size,
    apply_guarded,
    shown,
)
from ldpaudit.mechanism.expr_fold import piecewise_fold

# defined in the modules split from this one, and importable from here as before
from ldpaudit.mechanism.conditions import eval_condition, parse_condition  # noqa: E402, F401
from ldpaudit.mechanism.expr_budget import MAX_INTEGER_PART_BITS, MAX_PIECES, check_budget  # noqa: E402, F401
from ldpaudit.mechanism.expr_fold import fold, simplified_inequality, simplify_cnf, substitute  # noqa: E402, F401


class Phi(sp.Function):
    """The standard normal CDF Φ(a) = erfc(-a/√2)/2 (printed as Φ; evaluated through erfc)."""

    nargs = 1

    @classmethod
    def eval(cls, a):
        if a is sp.oo:
            return sp.Integer(1)
        if a is -sp.oo:
            return sp.Integer(0)
        if a == 0:
            return sp.Rational(1, 2)
        return None

    def _eval_rewrite_as_erfc(self, a, **kwargs):
        return sp.erfc(-a / sp.sqrt(2)) / 2

    def _eval_evalf(self, prec):
        return self.rewrite(sp.erfc)._eval_evalf(prec)

    def _sympystr(self, printer):
        return f"Phi({printer._print(self.args[0])})"

    def _latex(self, printer):
        return rf"\Phi\left({printer._print(self.args[0])}\right)"


FUNCTIONS = {
    "exp": (sp.exp, 1),
    "log": (sp.log, 1),
    "sqrt": (sp.sqrt, 1),
    "abs": (sp.Abs, 1),
    "Abs": (sp.Abs, 1),
    "binomial": (sp.binomial, 2),
    "floor": (sp.floor, 1),
    "ceiling": (sp.ceiling, 1),
    "Max": (sp.Max, 2),
    "Min": (sp.Min, 2),
    "bit": (_bit, 2),
    "Phi": (Phi, 1),
    "erf": (sp.erf, 1),
    "erfc": (sp.erfc, 1),
}
CONSTANTS = {"pi": sp.pi, "E": sp.E, "oo": sp.oo}

_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a**b,
    ast.Mod: lambda a, b: sp.Mod(a, b),
}
_COMPARE = {
    ast.Eq: sp.Eq,
    ast.NotEq: sp.Ne,
    ast.Lt: sp.Lt,
    ast.LtE: sp.Le,
    ast.Gt: sp.Gt,
    ast.GtE: sp.Ge,
}

_DECIMAL = re.compile(r"[+-]?(\d[\d_]*)?(\.\d*)?([eE][+-]?\d+)?")


def exact_decimal(text: str) -> Fraction | None:
    """``Fraction(text)`` for number text ("8", "1/2", "0.25", "1e-3"), within the budgets;
    None when the text is not a plain number (then it goes to the expression parser).

    ``Fraction("1e999999999")`` alone would compute a billion-digit integer."""
    text = text.strip()
    if not text or len(text) > MAX_LENGTH:
        return None
    num, slash, den = text.partition("/")
    parts = (num, den) if slash else (num,)
    for part in parts:
        m = _DECIMAL.fullmatch(part.strip())
        if m is None:
            return None
        digits = len(re.sub(r"\D", "", (m.group(1) or "") + (m.group(2) or "")))
        exponent = abs(int(m.group(3)[1:])) if m.group(3) else 0
        if digits + exponent > MAX_INT_DIGITS * 5:
            raise BudgetExceeded(
                f"{shown(text)} has more than {MAX_INT_DIGITS * 5} digits (with its exponent); "
                "write a smaller number or an expression such as 10**100"
            )
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None


def parse_expression(
    text: str | int,
    symbols: Mapping[str, sp.Basic],
    *,
    field: str = "expression",
    predicate: bool = False,
    functions: Mapping | None = None,
) -> sp.Basic:
    """Parse ``text`` into a sympy expression using only the names in ``symbols`` (a condition
    instead of a number with ``predicate=True``; see :func:`parse_predicate`).

    ``field`` names where the text came from, for error messages
    (e.g. ``"channel.classes[0].weight"``). The result is a real-valued expression (not a
    condition) within the budgets above; anything else is :class:`InvalidSpec`. ``functions``
    adds names to the allow-list for one caller (the claims files' ``diff``; specs never do).
    """
    if text is None:
        raise InvalidSpec(f"{field} is missing; write an expression such as 'exp(epsilon)'")
    if isinstance(text, bool):
        raise InvalidSpec(f"{field} = {text!r} is a boolean; write an expression such as 'exp(epsilon)'")
    if isinstance(text, int):
        if abs(text).bit_length() > MAX_INT_DIGITS * 10 // 3 + 1 or len(str(abs(text))) > MAX_INT_DIGITS:
            raise InvalidSpec(f"{field} = {shown(text)}: integer literals are limited to {MAX_INT_DIGITS} digits")
        text = str(text)
    if isinstance(text, float):
        raise InvalidSpec(
            f"{field} = {text!r} is a float; specs are exact, write a fraction such as '1/2' in quotes"
        )
    if not isinstance(text, str):
        raise InvalidSpec(
            f"{field} = {shown(text)} must be a string expression such as 'exp(epsilon)', got {_kind(text)}"
        )
    if not text.strip():
        raise InvalidSpec(f"{field} is empty; write an expression such as 'exp(epsilon)'")
    if len(text) > MAX_LENGTH:
        raise InvalidSpec(
            f"{field} = {shown(text)} is {len(text)} characters long; expressions are limited to {MAX_LENGTH}"
        )
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise InvalidSpec(f"{field} = {shown(text)} is not a valid expression: {exc.msg}") from None
    except (RecursionError, MemoryError, ValueError):
        raise InvalidSpec(f"{field} = {shown(text)} is nested too deeply to parse; the limit is {MAX_DEPTH} levels") from None
    translator = _Translator(symbols, field, text, functions)
    value = translator.visit(tree.body, 0)
    if predicate:
        if isinstance(value, sp.Expr):
            raise translator.fail("this is a number, which is not a condition; write a comparison such as 'y == floor(x)'")
        return value
    if not isinstance(value, sp.Expr):
        raise translator.fail("this is a condition (true or false), not a number; use it in 'a if condition else b'")
    return value


def parse_predicate(text, symbols: Mapping[str, sp.Basic], *, field: str = "condition",
                    functions: Mapping | None = None) -> sp.Basic:
    """Parse a condition (a comparison, or and/or/not of comparisons) into a sympy boolean, under
    the same allow-list and budgets as :func:`parse_expression`."""
    return parse_expression(text, symbols, field=field, predicate=True, functions=functions)


def _kind(value) -> str:
    return {dict: "a table", list: "an array", str: "a string"}.get(type(value), type(value).__name__)


class _Translator:
    def __init__(self, symbols: Mapping[str, sp.Basic], field: str, text: str, functions: Mapping | None = None):
        self.symbols = symbols
        self.functions = {**FUNCTIONS, **functions} if functions else FUNCTIONS
        self.field = field
        self.text = text

    def fail(self, what: str) -> InvalidSpec:
        return InvalidSpec(f"{self.field} = {shown(self.text)}: {what}")

    def visit(self, node: ast.AST, depth: int):
        if depth > MAX_DEPTH:
            raise self.fail(f"expression is nested more than {MAX_DEPTH} levels deep")
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            raise self.fail(
                f"{type(node).__name__} is not allowed; use numbers, parameter names, "
                f"+ - * / ** %, comparisons, 'a if cond else b' and the functions {', '.join(sorted(FUNCTIONS))}"
            )
        value = method(node, depth + 1)
        if not isinstance(node, ast.Name | ast.Constant):
            self.check_real(value, node)
        return value

    def check_real(self, value, node: ast.AST) -> None:
        """Refuse, at the sub-expression that produced it, a value that cannot be real."""
        part = _cut(ast.unparse(node), 40)
        if value.has(sp.zoo, sp.nan):
            raise self.fail(f"{part} is undefined (a division by zero, log(0) or oo - oo); the value must be a real number")
        if value.has(sp.I) or (value.is_number and value.is_extended_real is False):
            raise self.fail(f"{part} = {shown(value, 40)} is not a real number")

    def condition(self, value, node: ast.AST):
        if isinstance(value, sp.Expr):
            raise self.fail(f"{_cut(ast.unparse(node), 40)} is a number, not a condition; write a comparison such as d > 2")
        return value

    def apply(self, func, args, node: ast.AST):
        """``func(*args)`` within the budgets; errors name the sub-expression and the limit."""
        try:
            return apply_guarded(func, args)
        except BudgetExceeded as exc:
            raise self.fail(str(exc)) from None

    def visit_Constant(self, node: ast.Constant, depth: int):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float):
                raise self.fail(f"float literal {_cut(ast.unparse(node), 30)} is not exact; write a fraction such as 1/2")
            raise self.fail(f"literal {shown(value, 30)} is not allowed; only integers")
        if abs(value).bit_length() > MAX_INT_DIGITS * 10 // 3 + 1 or len(str(abs(value))) > MAX_INT_DIGITS:
            raise self.fail(f"integer literal has more than {MAX_INT_DIGITS} digits")
        return sp.Integer(value)

    def visit_Name(self, node: ast.Name, depth: int):
        if node.id in self.symbols:
            return self.symbols[node.id]
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        if node.id in ("True", "False"):
            return sp.true if node.id == "True" else sp.false
        declared = ", ".join(sorted(self.symbols)) or "(none)"
        raise self.fail(f"unknown symbol {shown(node.id, 30)}; declared names are {_cut(declared, 120)}")

    def visit_BinOp(self, node: ast.BinOp, depth: int):
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.fail(f"operator {type(node.op).__name__} is not allowed; use + - * / ** %")
        left = self.visit(node.left, depth)
        right = self.visit(node.right, depth)
        if isinstance(node.op, ast.Pow) and right.is_Number:
            if abs(right) > MAX_CONSTANT_EXPONENT:
                raise self.fail(f"constant exponent {shown(right, 30)} exceeds {MAX_CONSTANT_EXPONENT}")
            if left.is_Rational and left != 0 and _log2_size(left) * abs(right) > MAX_INT_BITS:
                raise self.fail(f"constant power has more than {MAX_INT_BITS} bits; simplify the number")
        if isinstance(node.op, ast.Pow):
            return self.apply(sp.Pow, (left, right), node)
        if isinstance(node.op, ast.Mod):
            return self.apply(sp.Mod, (left, right), node)
        return self.apply(op, (left, right), node)

    def visit_UnaryOp(self, node: ast.UnaryOp, depth: int):
        operand = self.visit(node.operand, depth)
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, ast.Not):
            return self.apply(sp.Not, (self.condition(operand, node.operand),), node)
        raise self.fail(f"unary operator {type(node.op).__name__} is not allowed")

    def visit_Call(self, node: ast.Call, depth: int):
        if not isinstance(node.func, ast.Name):
            raise self.fail("only plain function calls such as exp(x) are allowed (no attributes)")
        name = node.func.id
        if name not in self.functions:
            raise self.fail(f"function {shown(name, 30)} is not allowed; allowed: {', '.join(sorted(self.functions))}")
        if node.keywords:
            raise self.fail(f"{name}() takes no keyword arguments")
        func, arity = self.functions[name]
        if len(node.args) != arity:
            raise self.fail(f"{name}() takes {arity} argument(s), got {len(node.args)}")
        args = tuple(self.visit(arg, depth) for arg in node.args)
        return self.apply(func, args, node)

    def visit_Compare(self, node: ast.Compare, depth: int):
        parts = []
        left = self.visit(node.left, depth)
        for op, comparator in zip(node.ops, node.comparators):
            rel = _COMPARE.get(type(op))
            right = self.visit(comparator, depth)
            if rel is None:
                raise self.fail(f"comparison {type(op).__name__} is not allowed here")
            parts.append(self.apply(rel, (left, right), node))
            left = right
        return self.apply(sp.And, tuple(parts), node) if len(parts) > 1 else parts[0]

    def visit_BoolOp(self, node: ast.BoolOp, depth: int):
        values = tuple(self.condition(self.visit(v, depth), v) for v in node.values)
        return self.apply(sp.And if isinstance(node.op, ast.And) else sp.Or, values, node)

    def visit_IfExp(self, node: ast.IfExp, depth: int):
        cond = self.condition(self.visit(node.test, depth), node.test)
        body, orelse = self.visit(node.body, depth), self.visit(node.orelse, depth)
        if cond.has(sp.Piecewise):  # sympy would fold it, unguarded, as it builds the Piecewise
            cond = self.apply(_folded_condition, (cond,), node)
        return self.apply(lambda *a: sp.Piecewise((a[0], a[1]), (a[2], True)), (body, cond, orelse), node)


def _folded_condition(cond: sp.Basic) -> sp.Basic:
    """What sympy's ExprCondPair makes of a condition containing a Piecewise (the Piecewise
    folded out of it and rewritten as ITE), within the budgets."""
    folded = piecewise_fold(cond)
    return _as_ite(folded) if isinstance(folded, sp.Piecewise) else folded


def _as_ite(pw: sp.Piecewise) -> sp.Basic:
    """``pw.rewrite(ITE)`` for a Piecewise of conditions that ends in ``(b, True)``.

    sympy's rewrite also stops early where the conditions so far cover every real value of
    their variable, found by solving each condition as an inequality (``as_set``): unbounded
    work (``binomial(1, d) < 2**64`` factors a polynomial for minutes). Here only conditions
    ``symbol <op> number`` are solved; other conditions are kept, which gives the same truth
    values."""
    from sympy.core.relational import _canonical

    args = [list(a) for a in pw.args]
    covered: dict = {}
    i, c = 0, sp.false
    for i, (b, c) in enumerate(args):
        if c == True:  # noqa: E712
            break
        for part in c.args if isinstance(c, sp.Or) else [c]:
            if not (isinstance(part, sp.core.relational.Relational) and part.lhs.is_Symbol and part.rhs.is_Rational):
                continue
            x = part.lhs
            covered[x] = covered.get(x, sp.S.EmptySet).union(part.as_set())
            if covered[x] in (sp.S.UniversalSet, sp.S.Reals):
                c = args[i][1] = sp.true
                break
        if c == True:  # noqa: E712
            break
    if c != True:  # noqa: E712
        raise BudgetExceeded("a condition's cases do not end in a default case")  # the parser always writes one
    last = args[i][0]
    for a, cond in reversed(args[:i]):
        last = sp.ITE(cond, a, last)
    return _canonical(last)
