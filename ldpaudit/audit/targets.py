"""Targets: the randomizer a command line names, found and built without evaluating its text.

    package.module:function                     the function (a factory, with --target-arg name=value)
    path/to/file.py:function
    package.module:Class(epsilon=1, d=8).method a class built with literal arguments, then its method
    package.module:make_measurement(scale=1.0)  a factory called with literals; what it returns is
                                                called on each input (an OpenDP measurement)

The text after ``:`` is parsed with :mod:`ast` and only this shape is accepted: a dotted name,
at most one call, then dotted attributes. Every argument of the call must be a literal: a number
or an exact expression (``1``, ``-0.5``, ``1/2``, ``log(3)``, read as ``--target-arg`` values are,
by the callee's annotations when it has them: :func:`typed_target_args`), a quoted string,
``True``, ``False``, ``None``, or a tuple, list or dict of these. Nothing is evaluated as code:
a name, an attribute, a lambda or a comprehension is one line of bad input.

This module imports only the standard library (and, for exact expressions, the spec
language's parser): the isolation worker loads targets with it, also under another
interpreter (``--python``, :mod:`ldpaudit.audit.interpreter`).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import json
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ldpaudit.errors import InvalidParameter, LdpAuditError, RandomizerError

_INT = re.compile(r"[+-]?[0-9]+")
_RATIO = re.compile(r"[+-]?[0-9]+/[0-9]*[1-9][0-9]*")
_QUOTED = re.compile(r"""(["'])(.*)\1""", re.DOTALL)
_SHAPES = ("'package.module:function', 'path/to/file.py:function' or "
           "'package.module:Class(name=literal, ...).method'")
_LITERALS = ("write a number (1, 0.5, 1/2, log(3)), a quoted string, True, False, None, or a tuple, list "
             "or dict of these")


#: exact expressions of a target's arguments, resolved by the auditor for a worker shipped to an
#: interpreter without ldpaudit's spec parser (``--python``): JSON, text -> {"rational": "p/q"} or
#: {"float": nearest float}
EXACT_VARIABLE = "LDPAUDIT_EXACT_VALUES"


class _NeedsSympy(InvalidParameter):
    """An exact expression where no parser for it can be imported (a shipped worker)."""


class _Irrational:
    """An irrational value the auditor resolved exactly and sent as its nearest float: read as
    the spec parser's value is (``evalf``), and never taken for a rational."""

    is_Rational = False

    def __init__(self, value: float):
        self.value = float(value)

    def evalf(self, digits: int = 15) -> float:
        return self.value


@dataclass(frozen=True)
class TargetText:
    """A target's text, parsed: ``where`` (the module or file), ``path`` (the dotted name in it),
    ``call`` (None, or the call's positional and keyword argument nodes), ``method`` (the dotted
    attributes after the call) and ``source`` (the text after ``:``, which the nodes index)."""

    where: str
    path: tuple[str, ...]
    call: tuple[tuple[ast.expr, ...], tuple[tuple[str, ast.expr], ...]] | None
    method: tuple[str, ...]
    source: str


def split_target(target: str) -> tuple[str, str]:
    """(module or file, the expression after ``:``): the ``:`` is the last one before any ``(``,
    so that the call's arguments may hold one (a string ``'a:b'``)."""
    if not isinstance(target, str):
        raise InvalidParameter(f"target {target!r} must look like {_SHAPES}")
    paren = target.find("(")
    colon = target.rfind(":", 0, paren if paren >= 0 else len(target))
    if colon <= 0 or colon == len(target) - 1:
        raise InvalidParameter(f"target {target!r} must look like {_SHAPES}")
    return target[:colon], target[colon + 1:]


def _dotted(node: ast.expr) -> tuple[str, ...] | None:
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return (node.id, *reversed(names))


def parse_target(target: str) -> TargetText:
    """The target's text checked against the accepted shape; one line naming the target and
    the fix otherwise. Arguments are checked to be literals when the call is made
    (:func:`call_arguments`), where the callee's annotations are known."""
    where, source = split_target(target)
    text = source.strip()
    if text.isidentifier():     # the common case: no parsing needed
        return TargetText(where, (text,), None, (), source)
    try:
        body = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise InvalidParameter(f"target {target!r}: {source!r} is not Python syntax of the form NAME, "
                               f"NAME(arguments) or NAME(arguments).method; target must look like {_SHAPES}") from None
    method: list[str] = []
    node = body
    while isinstance(node, ast.Attribute):
        method.append(node.attr)
        node = node.value
    method.reverse()
    if not isinstance(node, ast.Call):
        path = _dotted(body)
        if path is None:
            raise InvalidParameter(f"target {target!r} must look like {_SHAPES}")
        return TargetText(where, path, None, (), text)
    path = _dotted(node.func)
    if path is None:
        raise InvalidParameter(f"target {target!r}: only one call is allowed, of a (dotted) name such as "
                               f"Class(epsilon=1).method; target must look like {_SHAPES}")
    for arg in node.args:
        if isinstance(arg, ast.Starred):
            raise InvalidParameter(f"target {target!r}: *{ast.get_source_segment(text, arg.value)} is not a literal "
                                   f"argument; {_LITERALS}")
    for kw in node.keywords:
        if kw.arg is None:
            raise InvalidParameter(f"target {target!r}: **{ast.get_source_segment(text, kw.value)} is not a literal "
                                   f"argument; name each argument: name=value")
    keywords = tuple((kw.arg, kw.value) for kw in node.keywords)
    return TargetText(where, path, (tuple(node.args), keywords), tuple(method), text)


def _numeric(node: ast.expr) -> bool:
    """A number or an exact expression of numbers (1, -0.5, 1/2, 2**-3, log(3)): its text is read
    by the ``--target-arg`` rules (the functions allowed are the spec language's)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, (ast.UAdd, ast.USub)) and _numeric(node.operand)
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)) and _numeric(node.left) \
            and _numeric(node.right)
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and not node.keywords and bool(node.args) \
            and all(_numeric(a) for a in node.args)
    return False


def _literal(node: ast.expr, source: str, func: Callable | None, name: str | None, where: str, target: str):
    """The value of one argument node: numbers through the ``--target-arg`` rules (by the
    annotation of ``func``'s parameter ``name``), strings, booleans and None as written,
    containers element by element; anything else is refused in one line."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes, bool)) or \
            isinstance(node, ast.Constant) and node.value is None:
        return node.value
    if _numeric(node):
        text = str(node.value) if isinstance(node, ast.Constant) and isinstance(node.value, int) \
            else ast.get_source_segment(source, node)
        return _typed(func, name, text, where, target)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [_literal(v, source, None, None, where, target) for v in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items if isinstance(node, ast.List) else set(items)
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {_literal(k, source, None, None, where, target): _literal(v, source, None, None, where, target)
                for k, v in zip(node.keys, node.values)}
    raise InvalidParameter(f"{where} is not a literal; {_LITERALS}")


def call_arguments(parsed: TargetText, callee: Callable, target: str) -> tuple[list, dict]:
    """The positional and keyword values of the target's call, each a literal, numbers typed by
    ``callee``'s annotations (positional ones by the parameter at their position)."""
    args_nodes, keyword_nodes = parsed.call
    try:
        params = [p for p in inspect.signature(callee).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    args = []
    for i, node in enumerate(args_nodes):
        name = params[i].name if i < len(params) else None
        shown = ast.get_source_segment(parsed.source, node)
        args.append(_literal(node, parsed.source, callee, name, f"target {target!r}: argument {i + 1} ({shown})",
                             target))
    kwargs = {}
    for name, node in keyword_nodes:
        shown = ast.get_source_segment(parsed.source, node)
        kwargs[name] = _literal(node, parsed.source, callee, name, f"target {target!r}: argument {name}={shown}",
                                target)
    return args, kwargs


def _annotation(func: Callable | None, name: str | None) -> str | None:
    """The name of parameter ``name``'s annotation (``int``, ``float``, ``str``, ``Fraction``,
    ``Basic``...), read without evaluating string annotations; None when unannotated."""
    if func is None or name is None:
        return None
    try:
        param = inspect.signature(func).parameters.get(name)
    except (TypeError, ValueError):
        return None
    if param is None or param.annotation is inspect.Parameter.empty:
        return None
    ann = param.annotation
    text = ann if isinstance(ann, str) else getattr(ann, "__name__", str(ann))
    return text.rsplit(".", 1)[-1].strip()


def _exact(text: str, where: str):
    """The exact value of a number's text: a Fraction for a decimal or p/q (no sympy needed),
    else the spec language's exact expression (``log(3)``)."""
    if _RATIO.fullmatch(text):
        return Fraction(text)
    try:
        from ldpaudit.mechanism.options import option_exact
    except ImportError:     # a worker shipped to another interpreter (--python) carries no parser
        option_exact = None
    if option_exact is not None:
        try:
            return option_exact(text, where)
        except ImportError:
            pass
    known = json.loads(os.environ.get(EXACT_VARIABLE) or "{}").get(text)
    if isinstance(known, dict):     # resolved by the auditor (presolved)
        return Fraction(known["rational"]) if "rational" in known else _Irrational(known["float"])
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        if re.fullmatch(r"[\w.]+", text) and not _INT.fullmatch(text):
            raise InvalidParameter(f"{where}: {text!r} is not a number; write a decimal or a fraction p/q") from None
        raise _NeedsSympy(f"{where}: the exact expression {text!r} is read with sympy, which this interpreter "
                               f"cannot import (an audit with --python reads arguments in the target's "
                               f"environment); write a decimal or a fraction p/q") from None


def _typed(func: Callable | None, name: str | None, value: str, where: str, target: str):
    """One text value as ``func``'s parameter ``name`` expects it (see :func:`typed_target_args`)."""
    kind = _annotation(func, name)
    text = value.strip()
    quoted = _QUOTED.fullmatch(text)
    label = name or "argument"
    try:
        if kind == "str" or (kind is None and quoted):
            return quoted.group(2) if quoted else value
        if kind == "bool":
            if text.lower() not in ("true", "false", "1", "0"):
                raise InvalidParameter(f"{where}: {target}'s {label} is a bool; write true or false")
            return text.lower() in ("true", "1")
        if kind == "int" or (kind is None and _INT.fullmatch(text)):
            if not _INT.fullmatch(text):
                raise InvalidParameter(f"{where}: {target}'s {label} is an int; write a whole number such as 10000")
            return int(text)
        if kind == "Fraction":
            exact = _exact(text, where)
            if not isinstance(exact, Fraction) and not getattr(exact, "is_Rational", False):
                raise InvalidParameter(f"{where}: {target}'s {label} is a Fraction; write a rational such as 1/2")
            return Fraction(str(exact))
        if kind in ("Basic", "Expr", "Rational", "Number"):
            try:
                from ldpaudit.mechanism.expr import parse_expression
            except ImportError:
                raise _NeedsSympy(f"{where}: {target}'s {label} is a sympy {kind}, read by ldpaudit's spec parser, "
                                  f"which a worker under --python does not carry; audit without --python") from None

            return parse_expression(text, {}, field=where)
        if kind == "float" or kind is None:
            try:
                exact = _exact(text, where)
            except InvalidParameter as exc:
                if kind == "float" or isinstance(exc, _NeedsSympy):
                    raise
                return value  # a word: a string, as written
            return float(exact) if isinstance(exact, Fraction) else float(exact.evalf(30))
        return value  # an annotation we do not convert to: the text, as before
    except InvalidParameter as exc:
        raise InvalidParameter(" ".join(str(exc).split())) from None


def _numeric_texts(node: ast.expr, source: str):
    """The texts of the numbers in an argument node (in containers too)."""
    if _numeric(node):
        yield ast.get_source_segment(source, node)
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for v in node.elts:
            yield from _numeric_texts(v, source)
    elif isinstance(node, ast.Dict):
        for v in [*node.keys, *node.values]:
            if v is not None:
                yield from _numeric_texts(v, source)


def presolved(target: str, target_args: dict | None = None) -> dict:
    """The exact values of the expressions in a target's call and ``--target-arg`` values that
    only the spec parser reads (``log(3)``, ``2**-3``; not integers, decimals or p/q), for a
    worker shipped where that parser is not (:data:`EXACT_VARIABLE`): text -> {"rational": "p/q"}
    or {"float": the nearest float}. Texts that are not numbers (words) are left out."""
    from ldpaudit.mechanism.options import option_exact

    parsed = parse_target(target)
    texts = [v.strip() for v in (target_args or {}).values() if isinstance(v, str)]
    if parsed.call is not None:
        nodes = [*parsed.call[0], *(node for _, node in parsed.call[1])]
        texts += [t for node in nodes for t in _numeric_texts(node, parsed.source)]
    out = {}
    for text in texts:
        if _INT.fullmatch(text) or _RATIO.fullmatch(text) or _QUOTED.fullmatch(text):
            continue
        try:
            exact = option_exact(text, "value")
        except InvalidParameter:
            continue
        if isinstance(exact, Fraction):
            continue            # a decimal: Fraction(text) reads it there
        out[text] = {"rational": str(exact)} if exact.is_Rational else {"float": float(exact.evalf(30))}
    return out


def typed_target_args(func: Callable, raw: dict, target: str = "target") -> dict:
    """``--target-arg`` values (strings from the command line) as the factory expects them:
    by its annotation when it has one (``int``, ``float``, ``str``, ``bool``, ``Fraction``, a
    sympy number for ``Basic``/``Expr``/``Rational``), else by their text: ``10000`` an int,
    ``1.5``, ``1/2``, ``log(3)`` floats, ``"abc"`` (quoted) or any other word a string. Values
    that are not strings (the Python API, a journal) pass unchanged. One line naming the argument
    when a value cannot be what the annotation asks."""
    return {name: _typed(func, name, value, f"--target-arg {name}={value}", target) if isinstance(value, str)
            else value for name, value in raw.items()}


def _import(target: str, where: str):
    """The module ``where`` names: a dotted module name, or a path to a .py file."""
    if where.endswith(".py") or "/" in where or "\\" in where:
        path = Path(where)
        if not path.is_file():
            raise InvalidParameter(f"target {target!r}: the file {where!r} does not exist; check the path")
        module_name = f"_ldpaudit_target_{abs(hash(str(path.resolve()))):x}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise InvalidParameter(f"target {target!r}: cannot import the file {where!r}; give a Python (.py) file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[module_name]
            raise RandomizerError(
                f"target {target!r}: the module {where!r} could not be imported: {type(exc).__name__}: "
                f"{_first_line(exc)}; fix the import (is every package it needs installed here?)") from exc
        return module
    try:
        return _import_module(where)
    except ImportError as exc:
        raise InvalidParameter(
            f"target {target!r}: the module {where!r} could not be imported ({_first_line(exc)}); check the "
            f"spelling, install it, or run from the directory that holds it (or set PYTHONPATH)") from exc
    except Exception as exc:
        raise RandomizerError(
            f"target {target!r}: the module {where!r} could not be imported: {type(exc).__name__}: "
            f"{_first_line(exc)}; fix the error in the module") from exc


def _import_module(where: str):
    """``importlib.import_module(where)``, looking in the working directory too, as ``python -m``
    and the isolation worker (started with ``-m``) do: the ``ldpaudit`` console script's
    ``sys.path`` starts at its own bin directory, so without this a module beside the user
    imported isolated but not with ``--no-isolate``. The working directory is added after
    the installed packages, and only when the module is found nowhere else."""
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError as exc:
        here = os.getcwd()
        if exc.name != where.partition(".")[0] or any(os.path.abspath(p or ".") == here for p in sys.path):
            raise
        if not (Path(here) / f"{exc.name}.py").is_file() and not (Path(here) / exc.name).is_dir():
            raise
        sys.path.append(here)
        importlib.invalidate_caches()
        return importlib.import_module(where)


def _methods(obj) -> str:
    names = sorted(k for k in dir(obj) if not k.startswith("_") and callable(getattr(obj, k, None)))
    return ", ".join(names[:8]) + (", ..." if len(names) > 8 else "") if names else "none"


def _attribute(obj, names: tuple[str, ...], target: str, owner: str, fix: str):
    for name in names:
        try:
            obj = getattr(obj, name)
        except AttributeError:
            raise InvalidParameter(f"target {target!r}: {owner} has no attribute {name!r} (its functions and "
                                   f"methods: {_methods(obj)}); {fix}") from None
        except Exception as exc:
            raise RandomizerError(f"target {target!r}: reading {owner}.{name} raised {type(exc).__name__}: "
                                  f"{_first_line(exc)}") from exc
        owner = f"{owner}.{name}"
    return obj


def load_target(target: str, target_args: dict | None = None, *, batch: bool | None = None) -> Callable:
    """Load ``package.module:function`` or ``path/to/file.py:function``, or build a class target
    ``package.module:Class(name=literal, ...).method`` (and ``module:factory(...)``, whose result
    is the randomizer): see the module docstring.

    With non-empty ``target_args`` the function is a factory and the randomizer is
    ``function(**target_args)``; otherwise the function itself is returned. With ``batch``
    given (True: ``f(x, n, rng)``, False: ``f(x)``) a randomizer that cannot be called that
    way (a factory given no ``--target-arg``, say) is refused here in one line, not on input 0."""
    parsed = parse_target(target)
    if parsed.call is not None and target_args:
        raise InvalidParameter(f"target {target!r} gives its arguments in its call; drop --target-arg (or name the "
                               f"function without a call and give them with --target-arg)")
    module = _import(target, parsed.where)
    head = parsed.path[0]
    try:
        func = getattr(module, head)
    except AttributeError:
        defined = sorted(k for k, v in vars(module).items() if callable(v) and not k.startswith("_")
                         and getattr(v, "__module__", None) == module.__name__)
        listed = ", ".join(defined[:8]) + (", ..." if len(defined) > 8 else "") if defined else "none"
        raise InvalidParameter(
            f"target {target!r}: the module {parsed.where!r} has no attribute {head!r} (its functions: {listed}); "
            f"fix the name after ':'") from None
    func = _attribute(func, parsed.path[1:], target, head, "fix the name after ':'")
    shown = ".".join(parsed.path)
    if not callable(func):
        raise InvalidParameter(f"target {target!r}: {shown} is a {type(func).__name__}, not a function")
    if parsed.call is not None:
        return _build(parsed, func, target, batch)
    if not target_args:
        _check_call_shape(func, target, batch, factory=False)
        return func
    target_args = typed_target_args(func, target_args, target)
    try:
        randomizer = func(**target_args)
    except LdpAuditError:
        raise
    except Exception as exc:
        raise RandomizerError(
            f"factory {target!r} raised {type(exc).__name__} with arguments {target_args!r}: {exc}") from exc
    if not callable(randomizer):
        hint = ""
        if inspect.isclass(func):
            call = ", ".join(f"{k}={v!r}" for k, v in target_args.items())
            hint = (f"; name the method to call on it in the target, e.g. '{parsed.where}:{shown}({call}).METHOD' "
                    f"(its methods: {_methods(randomizer)})")
        raise InvalidParameter(
            f"factory {target!r} returned a {type(randomizer).__name__}, not a randomizer function{hint}")
    _check_call_shape(randomizer, target, batch, factory=True)
    return randomizer


def _build(parsed: TargetText, callee: Callable, target: str, batch: bool | None) -> Callable:
    """Call the target's constructor (or factory) with its literal arguments, then take the
    method named after the call: the randomizer."""
    args, kwargs = call_arguments(parsed, callee, target)
    name = ".".join(parsed.path)
    call = parsed.source[:parsed.source.find("(")].strip() + "(" + ", ".join(
        [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]) + ")"
    try:
        made = callee(*args, **kwargs)
    except LdpAuditError:
        raise
    except Exception as exc:
        raise RandomizerError(f"target {target!r}: {call} raised {type(exc).__name__}: {_first_line(exc)}; "
                              f"fix its arguments") from exc
    kind = type(made).__name__
    randomizer = _attribute(made, parsed.method, target, kind, "fix the method's name after ')'")
    if not callable(randomizer):
        what = f"{kind}.{'.'.join(parsed.method)} is a {type(randomizer).__name__}," if parsed.method else \
            f"{name}(...) made a {kind}, which is"
        raise InvalidParameter(f"target {target!r}: {what} not callable; name the method that randomizes one input "
                               f"after the call, e.g. {name}(...).METHOD (its methods: {_methods(made)})")
    _check_call_shape(randomizer, target, batch, factory=True)
    return randomizer


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _check_call_shape(func: Callable, target: str, batch: bool | None, *, factory: bool) -> None:
    """Refuse, in one line naming the target and the fix, a randomizer whose signature cannot
    take the call the auditor makes: ``f(x)``, or ``f(x, n, rng)`` with ``--batch``."""
    if batch is None:
        return
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):  # builtins, some C callables: nothing to check
        return
    shape = "f(x, n, rng)" if batch else "f(x)"
    params = list(sig.parameters.values())
    required_kw = [p.name for p in params if p.kind is p.KEYWORD_ONLY and p.default is p.empty]
    try:
        sig.bind(*range(3 if batch else 1))
        callable_so = not required_kw
    except TypeError:
        callable_so = False
    if callable_so:
        return
    shown = ", ".join(str(p) for p in params) or "no arguments"
    if factory:
        raise InvalidParameter(
            f"factory {target!r} returned a randomizer taking ({shown}), which cannot be called as {shape}; "
            + ("drop --batch if it is f(x)" if batch else "add --batch if it is f(x, n, rng)"))
    names = [p.name for p in params if p.kind is not p.VAR_POSITIONAL and p.kind is not p.VAR_KEYWORD]
    example = " ".join(f"--target-arg {n}=VALUE" for n in names[:3]) or "--target-arg NAME=VALUE"
    other = "drop --batch if it is f(x)" if batch else "add --batch if it is f(x, n, rng)"
    raise InvalidParameter(
        f"target {target!r} takes ({shown}) and cannot be called as {shape}: if it is a factory, give its "
        f"arguments with {example}; otherwise {other}")


