"""The subset interpreter: runs a randomizer's ``ast`` on one input along one path of its draws.

Statements: assignments (names, tuples, subscripts, augmented), ``if``/``elif``/``else``,
``for`` over a finite iterable (``range`` of a bound value, lists, arrays, ``enumerate``,
``zip``), ``break``/``continue``, ``return``, ``raise``/``assert`` (a path that raises is
recorded), nested functions and lambdas (closures), imports of ``random``, ``math``,
``numpy``. Expressions: arithmetic, comparisons, boolean operators, conditional expressions,
comprehensions, calls of the module's own functions, of :mod:`ldpaudit.extract.natives` and of
the draws (:mod:`ldpaudit.extract.draws`). Classes, instances and their methods are values
(:class:`~ldpaudit.extract.symbolic.Object`) whose calls, attribute reads and writes
:mod:`ldpaudit.extract.classes` reads; code of another module finds its names through the
``__module__`` of its scopes. Anything else (``while``, ``try``, ``with``, attributes of other
objects, globals written) raises :class:`~ldpaudit.errors.Unextractable` naming the file, the
line and the construct. Nothing is executed: the target module is never imported.
"""
from __future__ import annotations

import ast
import operator

import sympy as sp

from ldpaudit.extract import items as generic_items
from ldpaudit.extract import natives
from ldpaudit.extract.draws import SEEDING, Draws
from ldpaudit.extract.methods import (
    Raised,
    array_method,
    index_of,
    list_method,
    positions,
    set_method,
)
from ldpaudit.extract.paths import Path, Steps  # importable from here as before
from ldpaudit.extract.symbolic import (
    Appending,
    Arr,
    Closure,
    ModuleRef,
    Native,
    Object,
    Poison,
    Rng,
    Seq,
    Stop,
    Uniform,
    as_expr,
    compare,
    concrete_int,
    equal,
    number,
    truth,
    unextractable,
)

#: parameter names read as the source of randomness
RNG_NAMES = {"rng", "random_state", "generator", "gen", "prng", "random_generator"}
#: the deepest call chain of the module's own functions
MAX_DEPTH = 64
#: builtins the subset reads (the rest are refused by name)
BUILTINS = {n.split(".", 1)[1] for n in natives.FUNCTIONS if n.startswith("builtins.")} | {
    "str", "dict", "ValueError", "TypeError", "AssertionError", "Exception"}


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Pow: operator.pow}
_CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


class Interpreter:
    """Evaluates the module's functions along one :class:`Path` at a time."""

    def __init__(self, source, steps: Steps, decider=None):
        self.source, self.file, self.steps = source, source.shown_path, steps
        tree = source.tree
        self.defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        self.globals: dict = {}
        assigned: dict[str, list] = {}
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self._import(node, self.globals)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                assigned.setdefault(node.targets[0].id, []).append(node.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                assigned.setdefault(node.target.id, []).append(node.value)
        #: module constants: names assigned once at the top level, evaluated when read
        self.constants = {k: v[0] for k, v in assigned.items() if len(v) == 1}
        self.path: Path | None = None
        self.line = source.function.lineno
        self.depth = 0
        #: the decisions under the parameter ranges (:mod:`ldpaudit.extract.assume`); with a
        #: symbolic input it splits paths on comparisons of the input and draws of symbolic size
        self.decider = decider
        generic = decider is not None and bool(decider.program)
        self.draws = Draws(self._choose, steps, self._draw_variable if generic else None)
        if generic:
            decider.split = self._split
        #: inside one item of a loop over a symbolic range (:mod:`ldpaudit.extract.items`)
        self.item_mode = None

    # -- running --

    def fail(self, stop: Stop):
        file, line = getattr(stop, "where", None) or (self.file, self.line)  # a method of another module
        return unextractable(file, line, stop)

    def _choose(self, options):
        self.steps.spend(1)
        if self.item_mode is None:
            self.path.shared.append(self.line)
        return self.path.choose(options, self.line)

    def _split(self, a, op: str, b) -> bool:
        """Both cases of a comparison of the symbolic input or draws: a choice of probability 1
        each, the case taken kept as a condition of the path."""
        relation = {"<": sp.Lt, "<=": sp.Le, ">": sp.Gt, ">=": sp.Ge, "==": sp.Eq, "!=": sp.Ne}[op](a, b)
        text = f"{sp.sstr(a)} {op} {sp.sstr(b)}"
        self.steps.spend(1)
        taken = self.path.choose([(sp.S.One, True, f"case {text}"), (sp.S.One, False, f"case not {text}")], self.line)
        self.path.conditions.append(relation if taken else relation.negated)
        return taken

    def _draw_variable(self, lo, hi, what: str):
        """A uniform draw over lo..hi-1 of symbolic size: a variable r of the path, with
        probability 1/(hi - lo) for each of its values."""
        if not compare(hi - lo, ">=", 1):
            raise Raised(self.line, f"ValueError: {what} over an empty range")
        r = sp.Symbol(f"r{len(self.path.draws) + 1}", integer=True)
        self.steps.spend(1)
        if self.item_mode is None:
            self.path.shared.append(self.line)
        self.path.draws.append((r, lo, hi, self.line))
        self.path.factors.append(1 / (hi - lo))
        self.path.events.append((self.line, f"{what} = {r}, one of {sp.sstr(lo)}..{sp.sstr(hi - 1)}"))
        return r

    def call_on(self, path: Path, func, args: list, kwargs: dict):
        """Call ``func`` on this path; Raised when the path raises."""
        self.path, self.depth = path, 0
        if self.decider is not None:
            self.decider.path = path
        try:
            return self.call(func, args, kwargs)
        except Stop as stop:
            raise self.fail(stop) from None
        except RecursionError:
            raise self.fail(Stop("a call chain deeper than Python's stack")) from None

    # -- module scope --

    def _import(self, node, env: dict) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    env[alias.asname] = ModuleRef(alias.name)
                else:
                    head = alias.name.split(".")[0]
                    env[head] = ModuleRef(head)
        else:
            if node.level:
                for alias in node.names:
                    env[alias.asname or alias.name] = ModuleRef(f"<relative>.{alias.name}")
                return
            for alias in node.names:
                if alias.name == "*":
                    raise Stop(f"from {node.module} import *", "hides which names the module uses")
                env[alias.asname or alias.name] = self._attribute(ModuleRef(node.module), alias.name)

    def lookup(self, name: str, env: dict):
        if name in env:
            return env[name]
        if name in self.globals:
            return self.globals[name]
        if name in self.defs:
            return Closure(self.defs[name], {})
        if name in self.constants:
            node = self.constants.pop(name)  # evaluated once: no cycle
            try:
                value = self.eval(node, {})
            finally:
                self.constants[name] = node
            if isinstance(value, (Uniform, Rng)):
                raise Stop(f"the module-level value {name}", "is a draw made once at import")
            return value
        if name in BUILTINS or name in natives.HASHES or name in natives.IO:
            return Native(f"builtins.{name}")  # a hash or I/O is refused by name when called
        raise Stop(f"the name {name!r}", "is not defined in the function, its module or the subset's builtins")

    # -- calls --

    def call(self, func, args: list, kwargs: dict):
        self.steps.spend(1)
        if isinstance(func, Closure):
            return self._call_closure(func, args, kwargs)
        if isinstance(func, Native):
            return self._call_native(func.name, args, kwargs)
        if isinstance(func, Object):
            return func.call(self, args, kwargs)
        if isinstance(func, tuple) and func and func[0] == "method":
            return self._call_method(func[1], func[2], args, kwargs)
        raise Stop(f"a call of a {type(func).__name__}", "is not a function of the module or the subset")

    def _call_closure(self, func: Closure, args: list, kwargs: dict):
        node = func.node
        if self.depth >= MAX_DEPTH:
            raise Stop(f"recursion through {getattr(node, 'name', 'lambda')}()", f"deeper than {MAX_DEPTH} calls")
        env = dict(self.bind_arguments(node, args, kwargs, func.env))
        env["__outer__"] = func.env
        saved = self.line
        self.depth += 1
        if isinstance(node, ast.Lambda):
            value = self.eval(node.body, env)
        else:
            try:
                self.exec_block(node.body, env)
                value = None
            except _Return as ret:
                value = ret.value
        self.depth -= 1
        self.line = saved  # on a Stop the line stays where it stopped
        return value

    def bind_arguments(self, node, args: list, kwargs: dict, outer: dict) -> dict:
        a = node.args
        if a.vararg or a.kwarg:
            raise Stop(f"the *args/**kwargs of {getattr(node, 'name', 'lambda')}()", "are not read")
        positional = [p.arg for p in a.posonlyargs + a.args]
        env: dict = {}
        if len(args) > len(positional):
            raise Stop(f"{len(args)} arguments to {getattr(node, 'name', 'lambda')}()", "more than it takes")
        for name, value in zip(positional, args):
            env[name] = value
        defaults = dict(zip(positional[len(positional) - len(a.defaults):], a.defaults))
        defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
        for name, value in kwargs.items():
            if name not in positional and name not in [p.arg for p in a.kwonlyargs]:
                raise Stop(f"the keyword {name}= to {getattr(node, 'name', 'lambda')}()", "is not one of its parameters")
            env[name] = value
        for name in positional + [p.arg for p in a.kwonlyargs]:
            if name not in env:
                if name not in defaults:
                    raise Stop(f"{getattr(node, 'name', 'lambda')}() called without {name}", "raises TypeError")
                env[name] = self.eval(defaults[name], {"__outer__": outer})
        return env

    def _call_native(self, name: str, args: list, kwargs: dict):
        if name in natives.FUNCTIONS:
            try:
                return natives.FUNCTIONS[name](*args, **kwargs)
            except TypeError as exc:
                raise Stop(f"{name.split('builtins.')[-1]}() with these arguments", f"({exc})") from None
        head, _, tail = name.rpartition(".")
        if self.item_mode is not None and tail == "shuffle" and args:
            self.item_mode.mutate(args[0], "shuffle", args)
        if head == "random":
            if tail == "Random":
                return self._seeded(args, kwargs, "python", "random.Random")
            if tail in SEEDING:
                raise Stop(f"random.{tail}()", "seeds or replaces the generator inside the randomizer")
            return self.draws.call("python", tail, list(args), dict(kwargs))
        if head == "numpy.random":
            if tail in ("default_rng", "Generator"):
                return self._seeded(args, kwargs, "generator", f"numpy.random.{tail}")
            if tail == "RandomState":
                return self._seeded(args, kwargs, "legacy", "numpy.random.RandomState")
            if tail in SEEDING:
                raise Stop(f"numpy.random.{tail}()", "seeds the generator inside the randomizer")
            return self.draws.call("legacy", tail, list(args), dict(kwargs))
        if name in natives.TYPES:
            raise Stop(f"{name}()", "is not read as a conversion here")
        natives.refuse(name)

    def _seeded(self, args, kwargs, api: str, what: str):
        seeds = [v for v in list(args) + list(kwargs.values()) if v is not None]
        if seeds:
            raise Stop(f"{what}({', '.join(map(str, seeds))})", "seeds the generator inside the randomizer: every "
                                                                "call draws the same values")
        return Rng(api)

    def _call_method(self, obj, name: str, args: list, kwargs: dict):
        if isinstance(obj, Rng):
            if name in SEEDING or name in ("spawn", "jumped", "bit_generator", "getstate"):
                raise Stop(f"rng.{name}()", "reseeds or inspects the generator")
            api = obj.api
            if self.item_mode is not None and name == "shuffle" and args:
                self.item_mode.mutate(args[0], "shuffle", args)
            if api == "unknown" and name == "randint":
                raise Stop("rng.randint()", "includes its upper bound for random.Random and excludes it for numpy: "
                                            "annotate rng (rng: random.Random or rng: numpy.random.Generator)")
            return self.draws.call("legacy" if api == "unknown" else api, name, list(args), dict(kwargs))
        if self.item_mode is not None and isinstance(obj, (list, Arr, set, Appending)) and \
                self.item_mode.mutate(obj, name, args):
            return None  # an item's append, read by the loop over the symbolic range
        if isinstance(obj, list):
            return list_method(obj, name, args)
        if isinstance(obj, Arr):
            return array_method(obj, name, args, kwargs)
        if isinstance(obj, set):
            return set_method(obj, name, args)
        raise Stop(f".{name}() of a {type(obj).__name__}", "is not in the subset")

    def _attribute(self, obj, name: str):
        if isinstance(obj, Object):
            return obj.attribute(self, name)
        if isinstance(obj, ModuleRef):
            qual = f"{obj.name}.{name}"
            if qual in natives.CONSTANTS:
                return natives.CONSTANTS[qual]
            if qual in ("numpy.random", "scipy.special"):
                return ModuleRef(qual)
            return Native(qual)
        if isinstance(obj, (Rng, list, Arr, set, Appending)):
            if isinstance(obj, Arr) and name in ("size", "shape", "T", "dtype", "ndim"):
                return {"size": sp.Integer(len(obj.items)), "shape": (sp.Integer(len(obj.items)),),
                        "T": obj, "dtype": Native(f"numpy.{obj.kind}"), "ndim": sp.Integer(1)}[name]
            return ("method", obj, name)
        if isinstance(obj, Native) and obj.name == "numpy.random":
            return Native(f"numpy.random.{name}")
        raise Stop(f"the attribute .{name} of a {type(obj).__name__}", "is not in the subset")

    # -- statements --

    def exec_block(self, body: list, env: dict) -> None:
        for stmt in body:
            self.exec(stmt, env)

    def exec(self, node, env: dict) -> None:
        self.steps.spend(1)
        self.line = node.lineno
        self.path.lines.add(node.lineno)
        method = getattr(self, "_s_" + type(node).__name__, None)
        if method is None:
            raise Stop(_statement_name(node), _STATEMENT_WHY.get(type(node).__name__, "is not in the subset"))
        method(node, env)

    def _s_Expr(self, node, env):
        if isinstance(node.value, ast.Constant):
            return  # a docstring
        self.eval(node.value, env)

    def _s_Pass(self, node, env):
        return

    def _s_Return(self, node, env):
        raise _Return(None if node.value is None else self.eval(node.value, env))

    def _s_Break(self, node, env):
        raise _Break()

    def _s_Continue(self, node, env):
        raise _Continue()

    def _s_Raise(self, node, env):
        text = ast.unparse(node.exc) if node.exc is not None else "raise"
        raise Raised(node.lineno, text[:80])

    def _s_Assert(self, node, env):
        if not truth(self.eval(node.test, env)):
            raise Raised(node.lineno, f"AssertionError: {ast.unparse(node.test)[:60]}")

    def _s_Import(self, node, env):
        self._import(node, env)

    _s_ImportFrom = _s_Import

    def _s_FunctionDef(self, node, env):
        if node.decorator_list:
            raise Stop(f"the decorated function {node.name}", "decorators are not read")
        env[node.name] = Closure(node, env)

    def _s_If(self, node, env):
        self.exec_block(node.body if truth(self.eval(node.test, env)) else node.orelse, env)

    def _s_For(self, node, env):
        value = self.eval(node.iter, env)
        if isinstance(value, Seq):
            return generic_items.for_loop(self, node, env, value, (_Break, _Continue, _Return))
        items = natives._iter(value)
        self.steps.spend(len(items))
        for item in items:
            self.assign(node.target, item, env)
            try:
                self.exec_block(node.body, env)
            except _Break:
                return
            except _Continue:
                continue
        self.exec_block(node.orelse, env)

    def _s_Assign(self, node, env):
        value = self.eval(node.value, env)
        for target in node.targets:
            self.assign(target, value, env)

    def _s_AnnAssign(self, node, env):
        if node.value is not None:
            self.assign(node.target, self.eval(node.value, env), env)

    def _s_AugAssign(self, node, env):
        current = self.eval(_load(node.target), env)
        value = self.eval(node.value, env)
        if isinstance(current, list) and isinstance(node.op, ast.Add):
            if self.item_mode is not None:
                self.item_mode.mutate(current, "extend", [value])
            current.extend(natives._iter(value))
            return
        self.assign(node.target, self.binop(node.op, current, value), env)

    def assign(self, target, value, env: dict) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = natives._iter(value) if not isinstance(value, tuple) else list(value)
            if len(items) != len(target.elts) or any(isinstance(e, ast.Starred) for e in target.elts):
                raise Stop(f"unpacking {len(items)} values into {len(target.elts)} names", "raises ValueError")
            for t, v in zip(target.elts, items):
                self.assign(t, v, env)
        elif isinstance(target, ast.Subscript):
            self.store_item(self.eval(target.value, env), target.slice, value, env)
        elif isinstance(target, ast.Attribute) and isinstance(obj := self.eval(target.value, env), Object):
            obj.store(self, target.attr, value)
        else:
            raise Stop(f"assignment to {ast.unparse(target)}", "only names, tuples and items are assigned")

    def store_item(self, obj, index_node, value, env) -> None:
        if self.item_mode is not None:
            self.item_mode.mutate(obj, "item assignment", [value])
        if isinstance(obj, Arr):
            items = obj.items
            convert = (lambda v: truth(v) if not isinstance(v, Uniform) else v) if obj.kind == "bool" else \
                (lambda v: sp.Integer(int(v)) if isinstance(v, bool) else v)
            if isinstance(index_node, ast.Slice):
                sl = self._slice(index_node, env)
                span = range(*sl.indices(len(items)))
                values = natives._iter(value) if isinstance(value, (Arr, list, tuple)) else [value] * len(span)
                if len(values) != len(span):
                    raise Stop(f"assigning {len(values)} values to a slice of {len(span)}", "raises ValueError")
                for i, v in zip(span, values):
                    items[i] = convert(v)
                return
            index = self.eval(index_node, env)
            if isinstance(index, Arr):  # a boolean mask or integer positions
                places = positions(index, len(items))
                values = natives._iter(value) if isinstance(value, (Arr, list, tuple)) else [value] * len(places)
                for i, v in zip(places, values):
                    items[i] = convert(v)
                return
            items[index_of(index, len(items))] = convert(value)
        elif isinstance(obj, list):
            if isinstance(index_node, ast.Slice):
                obj[self._slice(index_node, env)] = natives._iter(value)
                return
            obj[index_of(self.eval(index_node, env), len(obj))] = value
        else:
            raise Stop(f"item assignment on a {type(obj).__name__}", "is not in the subset")

    # -- expressions --

    def eval(self, node, env: dict):
        self.steps.spend(1)
        method = getattr(self, "_e_" + type(node).__name__, None)
        if method is None:
            raise Stop(f"the expression {ast.unparse(node)[:60]}", "is not in the subset")
        return method(node, env)

    def _e_Constant(self, node, env):
        v = node.value
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, (int, float)):
            return number(v)
        raise Stop(f"the constant {v!r}", "is not in the subset")

    def _e_Name(self, node, env):
        scope, module = env, None
        while scope is not None:
            if node.id in scope:
                if isinstance(scope[node.id], Poison):
                    raise Stop(f"{node.id} after the loop over a symbolic range (line {scope[node.id].line})",
                               scope[node.id].why)
                return scope[node.id]
            module = module or scope.get("__module__")  # code of another module (a base class's method)
            scope = scope.get("__outer__")
        return self.lookup(node.id, {}) if module is None else module.lookup(self, node.id)

    def _e_Attribute(self, node, env):
        return self._attribute(self.eval(node.value, env), node.attr)

    def _e_Tuple(self, node, env):
        return tuple(self.eval(e, env) for e in node.elts)

    def _e_List(self, node, env):
        return [self.eval(e, env) for e in node.elts]

    def _e_Set(self, node, env):
        return {natives._hashable(self.eval(e, env)) for e in node.elts}

    def _e_IfExp(self, node, env):
        return self.eval(node.body if truth(self.eval(node.test, env)) else node.orelse, env)

    def _e_BoolOp(self, node, env):
        value = None
        for operand in node.values:
            value = self.eval(operand, env)
            if isinstance(node.op, ast.And) and not truth(value):
                return value
            if isinstance(node.op, ast.Or) and truth(value):
                return value
        return value

    def _e_UnaryOp(self, node, env):
        v = self.eval(node.operand, env)
        if isinstance(node.op, ast.Not):
            return not truth(v)
        if isinstance(v, Arr):
            return Arr([self._unary(node.op, x) for x in v.items], v.kind)
        return self._unary(node.op, v)

    def _unary(self, op, v):
        if isinstance(op, ast.Invert):
            if isinstance(v, bool):
                return not v
            return -concrete_int(v, "~ operand") - 1
        if isinstance(op, ast.Not):
            return not truth(v)
        e = as_expr(v)
        return -e if isinstance(op, ast.USub) else e

    def _e_BinOp(self, node, env):
        return self.binop(node.op, self.eval(node.left, env), self.eval(node.right, env))

    def binop(self, op, a, b):
        if isinstance(a, Arr) or isinstance(b, Arr):
            n = len(a.items) if isinstance(a, Arr) else len(b.items)
            if isinstance(a, Arr) and isinstance(b, Arr) and len(a.items) != len(b.items):
                raise Stop(f"arrays of lengths {len(a.items)} and {len(b.items)}", "do not broadcast")
            xs = a.items if isinstance(a, Arr) else [a] * n
            ys = b.items if isinstance(b, Arr) else [b] * n
            out = [self.binop(op, x, y) for x, y in zip(xs, ys)]
            kind = "bool" if all(isinstance(v, bool) for v in out) else "int"
            return Arr(out, kind)
        if isinstance(a, (list, tuple, str)) or isinstance(b, (list, tuple, str)):
            if isinstance(op, ast.Add) and type(a) is type(b):
                return a + b
            if isinstance(op, ast.Mult):
                seq, k = (a, b) if isinstance(a, (list, tuple, str)) else (b, a)
                return seq * concrete_int(k, "repetition count")
            raise Stop(f"{type(a).__name__} {type(op).__name__} {type(b).__name__}", "is not in the subset")
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and isinstance(a, bool) and isinstance(b, bool):
            return {ast.BitAnd: a and b, ast.BitOr: a or b, ast.BitXor: a != b}[type(op)]
        x, y = as_expr(a), as_expr(b)
        if type(op) in _BINOPS:
            return _BINOPS[type(op)](x, y)
        if isinstance(op, (ast.Div, ast.FloorDiv, ast.Mod)):
            if compare(y, "==", 0):
                raise Raised(self.line, "ZeroDivisionError")
            if isinstance(op, ast.Div):
                return x / y
            if isinstance(op, ast.FloorDiv):
                return sp.floor(x / y)
            return x - y * sp.floor(x / y)
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)):
            i, j = concrete_int(x, "bit operand"), concrete_int(y, "bit operand")
            f = {ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
                 ast.LShift: operator.lshift, ast.RShift: operator.rshift}[type(op)]
            return sp.Integer(f(i, j))
        raise Stop(f"the operator {type(op).__name__}", "is not in the subset")

    def _e_Compare(self, node, env):
        left = self.eval(node.left, env)
        for op, right_node in zip(node.ops, node.comparators):
            right = self.eval(right_node, env)
            if not _chain_true(result := self.compare(op, left, right)):
                return result
            left = right
        return result

    def compare(self, op, a, b):
        if isinstance(op, (ast.Is, ast.IsNot)):
            same = a is b or (a is None and b is None) or (isinstance(a, bool) and a is b)
            return same if isinstance(op, ast.Is) else not same
        if isinstance(op, (ast.In, ast.NotIn)):
            items = natives._iter(b) if not isinstance(b, (set, frozenset)) else list(b)
            found = any(equal(a, item) for item in items)
            return found if isinstance(op, ast.In) else not found
        rel = _CMP[type(op)]
        if isinstance(a, Arr) or isinstance(b, Arr):
            n = len(a.items) if isinstance(a, Arr) else len(b.items)
            xs = a.items if isinstance(a, Arr) else [a] * n
            ys = b.items if isinstance(b, Arr) else [b] * n
            return Arr([self.compare(op, x, y) for x, y in zip(xs, ys)], "bool")
        if isinstance(a, Uniform) or isinstance(b, Uniform):
            if isinstance(a, Uniform) and isinstance(b, Uniform):
                raise Stop("two continuous draws compared", "only a draw against a threshold is read")
            if rel in ("==", "!="):
                raise Stop("a continuous draw compared with ==", "the event has probability 0")
            u, c, rel = (a, b, rel) if isinstance(a, Uniform) else (b, a, _FLIP[rel])
            below = self.uniform_below(u, c)
            return below if rel in ("<", "<=") else not below
        if rel in ("==", "!="):
            same = equal(a, b)
            return same if rel == "==" else not same
        return compare(a, rel, b)

    def uniform_below(self, u: Uniform, c) -> bool:
        """Whether the draw u lies below c: a branch with probability (c - lo)/(hi - lo)."""
        c = as_expr(c)
        if compare(c, "<=", u.lo):
            return False
        if compare(c, ">=", u.hi):
            return True
        if self.item_mode is not None and self.item_mode.shared(u):
            raise Stop("a draw made before a loop over a symbolic range", "is compared in its items: shared by all "
                       "of them, they would not be independent")
        p = (c - u.lo) / (u.hi - u.lo)
        text = sp.sstr(c)
        below = self._choose([(p, True, f"random() < {text}"), (1 - p, False, f"random() >= {text}")])
        if below:
            u.hi = c
        else:
            u.lo = c
        return below

    def _e_Call(self, node, env):
        func = self.eval(node.func, env)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(natives._iter(self.eval(a.value, env)))
            else:
                args.append(self.eval(a, env))
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise Stop(f"**{ast.unparse(kw.value)}", "keyword unpacking is not read")
            kwargs[kw.arg] = self.eval(kw.value, env)
        self.line = getattr(node, "lineno", self.line)
        return self.call(func, args, kwargs)

    def _e_Subscript(self, node, env):
        obj = self.eval(node.value, env)
        if isinstance(node.slice, ast.Slice):
            sl = self._slice(node.slice, env)
            if isinstance(obj, Arr):
                return Arr(obj.items[sl], obj.kind)
            if isinstance(obj, (list, tuple, str)):
                return obj[sl]
            raise Stop(f"slicing a {type(obj).__name__}")
        index = self.eval(node.slice, env)
        if isinstance(obj, Arr):
            if isinstance(index, Arr):
                return Arr([obj.items[i] for i in positions(index, len(obj.items))], obj.kind)
            if isinstance(index, tuple):
                raise Stop(f"the index {ast.unparse(node.slice)}", "only one-dimensional arrays are read")
            return obj.items[index_of(index, len(obj.items))]
        if isinstance(obj, (list, tuple, str)):
            return obj[index_of(index, len(obj))]
        if isinstance(obj, dict):
            for k, v in obj.items():
                if equal(k, index):
                    return v
            raise Raised(self.line, f"KeyError: {index}")
        raise Stop(f"indexing a {type(obj).__name__}", "is not in the subset")

    def _slice(self, node: ast.Slice, env) -> slice:
        parts = [None if p is None else concrete_int(self.eval(p, env), "slice bound")
                 for p in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def _e_Lambda(self, node, env):
        return Closure(node, env)

    def _e_Dict(self, node, env):
        if any(k is None for k in node.keys):
            raise Stop("dict unpacking", "is not read")
        return {natives._hashable(self.eval(k, env)): self.eval(v, env) for k, v in zip(node.keys, node.values)}

    def _comprehension(self, node, env, emit, first=None):
        def loop(generators, scope):
            if not generators:
                emit(scope)
                return
            gen = generators[0]
            if gen.is_async:
                raise Stop("an async comprehension")
            items = natives._iter(first if gen is node.generators[0] and first is not None else self.eval(gen.iter, scope))
            self.steps.spend(len(items))
            for item in items:
                inner = {"__outer__": scope}
                self.assign(gen.target, item, inner)
                if all(truth(self.eval(c, inner)) for c in gen.ifs):
                    loop(generators[1:], inner)
        loop(node.generators, {"__outer__": env})

    def _e_ListComp(self, node, env):
        first = self.eval(node.generators[0].iter, {"__outer__": env})  # in the enclosing scope, as Python does
        if isinstance(first, Seq):
            return generic_items.comprehension(self, node, env, first)
        out = []
        self._comprehension(node, env, lambda scope: out.append(self.eval(node.elt, scope)), first)
        return out

    _e_GeneratorExp = _e_ListComp

    def _e_SetComp(self, node, env):
        out = set()
        self._comprehension(node, env, lambda scope: out.add(natives._hashable(self.eval(node.elt, scope))))
        return out

    def _e_DictComp(self, node, env):
        out = {}
        self._comprehension(node, env, lambda scope: out.__setitem__(
            natives._hashable(self.eval(node.key, scope)), self.eval(node.value, scope)))
        return out

    def _e_JoinedStr(self, node, env):
        raise Stop("an f-string", "outputs must be numbers or containers of them")


def _chain_true(result) -> bool:
    return result is True or (not isinstance(result, Arr) and bool(result))


def _load(target):
    """An assignment target read as an expression (for ``x += 1``)."""
    node = ast.fix_missing_locations(ast.parse(ast.unparse(target), mode="eval").body)
    return ast.copy_location(node, target) if hasattr(target, "lineno") else node


_STATEMENT_WHY = {
    "While": "has no bound on its number of iterations that extraction can read (rewrite it as a for loop over "
             "range(...), or audit the code)",
    "Try": "may catch an exception raised on some paths; extraction reads no exception handling",
    "With": "enters a context manager (I/O or state)",
    "Global": "writes module state",
    "Nonlocal": "writes an enclosing function's state",
    "Delete": "is not in the subset",
    "ClassDef": "defines a class",
    "AsyncFunctionDef": "is async",
    "Match": "is not in the subset",
}


def _statement_name(node) -> str:
    text = ast.unparse(node).splitlines()[0] if hasattr(ast, "unparse") else type(node).__name__
    kind = {"While": "an unbounded while loop", "Try": "a try statement", "With": "a with statement"}.get(
        type(node).__name__, f"the statement {type(node).__name__}")
    return f"{kind} ({text[:50]})"
