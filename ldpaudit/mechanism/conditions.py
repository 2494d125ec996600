"""The ``when`` conditions of a structured channel's classes (``y == x``, ``x in y``,
``bit(y, x) == 1``): parsed by the same allow-list rules as expressions and evaluated on
concrete inputs and outputs without ``eval``.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism.expr_budget import MAX_DEPTH, MAX_LENGTH, SHOWN_CHARS, _cut, shown

_CONDITION_NAMES = {"x", "y", "c", "v"}


def parse_condition(text: str, *, field: str, context: set[str]) -> ast.expr:
    """Parse an output-class condition such as ``y == x`` or ``x in y``.

    Conditions relate a concrete input and output; they are kept as a checked AST
    and evaluated by :func:`eval_condition`, never by Python's ``eval``.
    Allowed: names in ``context``, integer literals, ``== != in not in and or not``,
    and the call ``hash(c, x)`` / ``bit(x, j)`` where declared.
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidSpec(f"{field} = {shown(text)}; write a condition such as 'y == x' or 'x in y'")
    if len(text) > MAX_LENGTH:
        raise InvalidSpec(f"{field} = {shown(text)} is {len(text)} characters long; conditions are limited to {MAX_LENGTH}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise InvalidSpec(f"{field} = {shown(text)} is not a valid condition: {exc.msg}") from None
    except (RecursionError, MemoryError, ValueError):
        raise InvalidSpec(f"{field} = {shown(text)} is nested too deeply to parse; the limit is {MAX_DEPTH} levels") from None
    text = _cut(text, SHOWN_CHARS)
    depths = {tree.body: 0}

    def check(node: ast.AST) -> None:
        depth = depths.pop(node, 0)
        if depth > MAX_DEPTH:
            raise InvalidSpec(f"{field} = {text!r}: condition is nested more than {MAX_DEPTH} levels deep")
        for child in ast.iter_child_nodes(node):
            depths[child] = depth + 1
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
            if abs(node.value).bit_length() > 64:
                raise InvalidSpec(f"{field} = {text!r}: integers in conditions are limited to 64 bits")
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
    """Evaluate a condition AST produced by :func:`parse_condition` on concrete values.

    A condition that does not apply to the values (``x in y`` for integer outputs, a hash
    row too short for x) is :class:`InvalidSpec`, not a Python error."""
    try:
        return _eval_condition(node, env)
    except (TypeError, ValueError, IndexError, KeyError, ArithmeticError) as exc:
        where = ", ".join(f"{k}={shown(env[k], 30)}" for k in ("x", "y", "c", "v") if k in env)
        raise InvalidSpec(
            f"condition {shown(ast.unparse(node))} cannot be evaluated at {where}: "
            f"{type(exc).__name__}: {shown(str(exc), 80)[1:-1]}"
        ) from None


def _eval_condition(node: ast.expr, env: Mapping[str, object]) -> object:
    if isinstance(node, ast.Compare):
        left = _eval_condition(node.left, env)
        for op, comp in zip(node.ops, node.comparators):
            right = _eval_condition(comp, env)
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
        results = (bool(_eval_condition(v, env)) for v in node.values)
        return all(results) if isinstance(node.op, ast.And) else any(results)
    if isinstance(node, ast.UnaryOp):
        return not _eval_condition(node.operand, env)
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Call):
        return env[node.func.id](*(_eval_condition(a, env) for a in node.args))
    raise InvalidSpec(f"cannot evaluate {ast.dump(node)}")  # unreachable after parse_condition
