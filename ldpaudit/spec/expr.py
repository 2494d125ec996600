"""Safe parsing of spec-file expressions into sympy.

Spec files are untrusted input, so expression text is never handed to ``eval``,
``sympify`` or ``parse_expr`` (all of which execute code). Instead the text is
parsed by Python's ``ast`` module and every node is checked against an allow-list
before it is translated, node by node, into sympy objects.

Allowed: integer literals, declared names, ``+ - * / **``, unary minus, the
functions in ``FUNCTIONS``, comparisons, ``and``/``or``/``not``, and conditional
expressions ``a if cond else b`` (which become ``Piecewise``). Float literals are
rejected: specs are exact, write ``1/2`` instead of ``0.5``.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

import sympy as sp

from ldpaudit.errors import InvalidSpec

MAX_LENGTH = 2000
MAX_DEPTH = 40
MAX_INT_DIGITS = 60
MAX_CONSTANT_EXPONENT = 1000


def _bit(x, j):
    """The j-th bit of a non-negative integer x: floor(x / 2**j) mod 2."""
    return sp.Mod(sp.floor(x / sp.Integer(2) ** j), 2)


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


def parse_expression(
    text: str | int,
    symbols: Mapping[str, sp.Basic],
    *,
    field: str = "expression",
) -> sp.Basic:
    """Parse ``text`` into a sympy expression using only the names in ``symbols``.

    ``field`` names where the text came from, for error messages
    (e.g. ``"channel.classes[0].weight"``).
    """
    if isinstance(text, bool):
        raise InvalidSpec(f"{field} = {text!r} is a boolean; write an expression such as 'exp(epsilon)'")
    if isinstance(text, int):
        text = str(text)
    if isinstance(text, float):
        raise InvalidSpec(
            f"{field} = {text!r} is a float; specs are exact, write a fraction such as '1/2' in quotes"
        )
    if not isinstance(text, str):
        raise InvalidSpec(f"{field} = {text!r} must be a string expression, got {type(text).__name__}")
    if not text.strip():
        raise InvalidSpec(f"{field} is empty; write an expression such as 'exp(epsilon)'")
    if len(text) > MAX_LENGTH:
        raise InvalidSpec(f"{field} is {len(text)} characters long; expressions are limited to {MAX_LENGTH}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise InvalidSpec(f"{field} = {text!r} is not a valid expression: {exc.msg}") from None
    return _Translator(symbols, field, text).visit(tree.body, 0)


class _Translator:
    def __init__(self, symbols: Mapping[str, sp.Basic], field: str, text: str):
        self.symbols = symbols
        self.field = field
        self.text = text

    def fail(self, what: str) -> InvalidSpec:
        return InvalidSpec(f"{self.field} = {self.text!r}: {what}")

    def visit(self, node: ast.AST, depth: int):
        if depth > MAX_DEPTH:
            raise self.fail(f"expression is nested more than {MAX_DEPTH} levels deep")
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            raise self.fail(
                f"{type(node).__name__} is not allowed; use numbers, parameter names, "
                f"+ - * / ** %, comparisons, 'a if cond else b' and the functions {', '.join(sorted(FUNCTIONS))}"
            )
        return method(node, depth + 1)

    def visit_Constant(self, node: ast.Constant, depth: int):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float):
                raise self.fail(f"float literal {value!r} is not exact; write a fraction such as 1/2")
            raise self.fail(f"literal {value!r} is not allowed; only integers")
        if len(str(abs(value))) > MAX_INT_DIGITS:
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
        raise self.fail(f"unknown symbol {node.id!r}; declared names are {declared}")

    def visit_BinOp(self, node: ast.BinOp, depth: int):
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.fail(f"operator {type(node.op).__name__} is not allowed; use + - * / ** %")
        left = self.visit(node.left, depth)
        right = self.visit(node.right, depth)
        if isinstance(node.op, ast.Pow) and right.is_Number:
            if abs(right) > MAX_CONSTANT_EXPONENT:
                raise self.fail(f"constant exponent {right} exceeds {MAX_CONSTANT_EXPONENT}")
            if left.is_Number and left != 0 and sp.log(abs(left), 2) * abs(right) > 4096:
                raise self.fail("constant power has more than 4096 bits; simplify the number")
        return op(left, right)

    def visit_UnaryOp(self, node: ast.UnaryOp, depth: int):
        operand = self.visit(node.operand, depth)
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, ast.Not):
            return sp.Not(operand)
        raise self.fail(f"unary operator {type(node.op).__name__} is not allowed")

    def visit_Call(self, node: ast.Call, depth: int):
        if not isinstance(node.func, ast.Name):
            raise self.fail("only plain function calls such as exp(x) are allowed (no attributes)")
        name = node.func.id
        if name not in FUNCTIONS:
            raise self.fail(f"function {name!r} is not allowed; allowed: {', '.join(sorted(FUNCTIONS))}")
        if node.keywords:
            raise self.fail(f"{name}() takes no keyword arguments")
        func, arity = FUNCTIONS[name]
        if len(node.args) != arity:
            raise self.fail(f"{name}() takes {arity} argument(s), got {len(node.args)}")
        return func(*(self.visit(arg, depth) for arg in node.args))

    def visit_Compare(self, node: ast.Compare, depth: int):
        parts = []
        left = self.visit(node.left, depth)
        for op, comparator in zip(node.ops, node.comparators):
            rel = _COMPARE.get(type(op))
            right = self.visit(comparator, depth)
            if rel is None:
                raise self.fail(f"comparison {type(op).__name__} is not allowed here")
            parts.append(rel(left, right))
            left = right
        return sp.And(*parts) if len(parts) > 1 else parts[0]

    def visit_BoolOp(self, node: ast.BoolOp, depth: int):
        values = [self.visit(v, depth) for v in node.values]
        return sp.And(*values) if isinstance(node.op, ast.And) else sp.Or(*values)

    def visit_IfExp(self, node: ast.IfExp, depth: int):
        cond = self.visit(node.test, depth)
        return sp.Piecewise((self.visit(node.body, depth), cond), (self.visit(node.orelse, depth), True))


# --- conditions over concrete values (for structured channels' output classes) ------------

_CONDITION_NAMES = {"x", "y", "c", "v"}


def parse_condition(text: str, *, field: str, context: set[str]) -> ast.expr:
    """Parse an output-class condition such as ``y == x`` or ``x in y``.

    Conditions relate a concrete input and output; they are kept as a checked AST
    and evaluated by :func:`eval_condition`, never by Python's ``eval``.
    Allowed: names in ``context``, integer literals, ``== != in not in and or not``,
    and the call ``hash(c, x)`` / ``bit(x, j)`` where declared.
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidSpec(f"{field} = {text!r}; write a condition such as 'y == x' or 'x in y'")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise InvalidSpec(f"{field} = {text!r} is not a valid condition: {exc.msg}") from None

    def check(node: ast.AST) -> None:
        if isinstance(node, ast.Compare):
            for op in node.ops:
                if not isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn):
                    raise InvalidSpec(f"{field} = {text!r}: comparison {type(op).__name__} not allowed; use == != in 'not in'")
            check(node.left)
            for comp in node.comparators:
                check(comp)
        elif isinstance(node, ast.BoolOp):
            for v in node.values:
                check(v)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            check(node.operand)
        elif isinstance(node, ast.Name):
            if node.id not in context:
                raise InvalidSpec(
                    f"{field} = {text!r}: unknown name {node.id!r}; conditions may use {', '.join(sorted(context))}"
                )
        elif isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            pass
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in context:
            if node.keywords:
                raise InvalidSpec(f"{field} = {text!r}: keyword arguments are not allowed")
            for arg in node.args:
                check(arg)
        else:
            raise InvalidSpec(
                f"{field} = {text!r}: {type(node).__name__} is not allowed in a condition; "
                "use == != in 'not in' and/or/not over x, y"
            )

    check(tree.body)
    return tree.body


def eval_condition(node: ast.expr, env: Mapping[str, object]) -> object:
    """Evaluate a condition AST produced by :func:`parse_condition` on concrete values."""
    if isinstance(node, ast.Compare):
        left = eval_condition(node.left, env)
        for op, comp in zip(node.ops, node.comparators):
            right = eval_condition(comp, env)
            if isinstance(op, ast.Eq):
                ok = left == right
            elif isinstance(op, ast.NotEq):
                ok = left != right
            elif isinstance(op, ast.In):
                ok = left in right
            else:
                ok = left not in right
            if not ok:
                return False
            left = right
        return True
    if isinstance(node, ast.BoolOp):
        results = (bool(eval_condition(v, env)) for v in node.values)
        return all(results) if isinstance(node.op, ast.And) else any(results)
    if isinstance(node, ast.UnaryOp):
        return not eval_condition(node.operand, env)
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Call):
        return env[node.func.id](*(eval_condition(a, env) for a in node.args))
    raise InvalidSpec(f"cannot evaluate {ast.dump(node)}")  # unreachable after parse_condition
