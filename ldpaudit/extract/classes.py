"""Class targets: ``module:Class(args).method``, read off the source like a function, never run.

``Class(args)`` is built by executing ``Class.__init__`` symbolically, once and drawing nothing:
the instance's attributes become exact expressions of the constructor's parameters (pure-ldp's
``p = e^ε/(e^ε + d - 1)``). The method then runs on every path with ``self.attr`` read from them,
``self.helper(...)`` calling the class's other methods along its MRO (``super()`` included), and
attribute writes kept on the path: each path starts from the state ``__init__`` left.

Classes are found without importing anything: the module's ``class`` statements, and its imports
followed to other files (absolute ones on ``sys.path``, relative ones from the file's directory),
so a base class in another module of the same library is read too. In the target, an argument
is a literal (bound) or a bare name (a spec parameter, symbolic); the constructor's parameters
not given are the spec's, like a function's (defaults are the example, ``--target-arg`` binds).

Refused, naming the file, the line and the construct (exit 3): a base class whose source is not
found or that is a builtin type; class decorators, metaclasses, ``__getattr__``/``__setattr__``/
``__new__``; properties, class methods and other decorated methods; code in a class body; writes
to a class or to an object made before the call; a constructor that draws. And state that carries
across calls: a method that changes an attribute (``self.count += 1``, ``self.seen.append(x)``)
that a call reads before writing it. The next call then starts from another state, so the client
is not one fixed channel. Attributes a call writes before it reads them are scratch, and allowed.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path as FilePath

import sympy as sp

from ldpaudit.extract import natives
from ldpaudit.extract.exact import same
from ldpaudit.extract.interpreter import BUILTINS
from ldpaudit.extract.methods import Raised
from ldpaudit.extract.source import MAX_SOURCE_BYTES
from ldpaudit.extract.symbolic import Arr, Closure, Native, Object, Stop

#: modules whose names are library functions the subset reads or refuses by name, never classes
LIBRARIES = {"random", "math", "numpy", "scipy", "numba", "builtins", "abc", "typing", "numbers", "itertools",
             "functools", "collections", "copy", "sys", "os"}
#: dunder methods that make attribute access or construction dynamic
DYNAMIC = {"__getattr__", "__getattribute__", "__setattr__", "__delattr__", "__new__", "__init_subclass__",
           "__class_getitem__", "__set_name__"}
#: methods of containers that change them (a change made in place to an attribute)
MUTATING = {"append", "extend", "insert", "pop", "remove", "sort", "reverse", "add", "discard", "update", "clear",
            "fill", "setdefault", "popitem", "shuffle"}
#: how deep imports and aliases are followed to a class
MAX_HOPS = 16


def _shown(path: FilePath) -> str:
    try:
        return str(path.resolve().relative_to(FilePath.cwd().resolve()))
    except ValueError:
        return str(path)


def _stop(file: str, line: int, construct: str, why: str) -> Stop:
    """A refusal that names its own file and line (code of another module than the target's)."""
    stop = Stop(construct, why)
    stop.where = (file, line)
    return stop


class ModuleScope:
    """A module read for its classes and for the names its methods use."""

    def __init__(self, reader: Reader, path: FilePath, tree: ast.Module):
        self.reader, self.path, self.tree, self.shown = reader, path, tree, _shown(path)
        self.defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        self.classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        assigned: dict[str, list] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                assigned.setdefault(node.targets[0].id, []).append(node.value)
        self.constants = {k: v[0] for k, v in assigned.items() if len(v) == 1}
        self.globals: dict | None = None
        self.star = None

    @property
    def main(self) -> bool:
        return self is self.reader.main

    def names(self, interp, env: dict) -> dict:
        """The module's imports in ``env``, each class it defines or imports from a readable
        module a class value (resolved when used)."""
        for node in self.tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                try:
                    interp._import(node, env)
                except Stop:
                    self.star = node  # `from m import *`: the names it hides stay undefined
                    continue
                if isinstance(node, ast.ImportFrom) and (node.level or node.module.split(".")[0] not in LIBRARIES):
                    for alias in node.names:
                        name = alias.asname or alias.name
                        env[name] = LazyClass(self, name, env.get(name))
        for name in self.classes:
            env[name] = LazyClass(self, name, None)
        return env

    def lookup(self, interp, name: str):
        """A name read by code of this module (the interpreter's lookup, in this module)."""
        if self.globals is None:
            self.globals = self.names(interp, {})
        if name in self.globals:
            return self.globals[name]
        if name in self.defs:
            return Closure(self.defs[name], {"__module__": self})
        if name in self.constants:
            node = self.constants.pop(name)  # evaluated once: no cycle
            try:
                return interp.eval(node, {"__module__": self})
            finally:
                self.constants[name] = node
        if name in BUILTINS or name in natives.HASHES or name in natives.IO:
            return Native(f"builtins.{name}")
        hidden = "" if self.star is None else (f" (line {self.star.lineno}: `from {self.star.module} import *` hides "
                                                "which names it brings, and is not read)")
        raise Stop(f"the name {name!r}", f"is not defined in the function, its module ({self.shown}) or the subset's "
                                         f"builtins{hidden}")


@dataclass(eq=False)
class ClassInfo:
    """A class statement read statically: its bases, its MRO and its members (methods and
    class-level values), and the class-level values evaluated so far."""

    name: str
    node: ast.ClassDef
    module: ModuleScope
    bases: list = field(default_factory=list)
    mro: list = field(default_factory=list)
    members: dict = field(default_factory=dict)
    values: dict = field(default_factory=dict)

    def find(self, name: str, after: ClassInfo | None = None):
        """(owner, member node) of ``name`` along the MRO (after ``after``, for super()), or None."""
        chain = self.mro[self.mro.index(after) + 1:] if after is not None else self.mro
        for info in chain:
            if name in info.members:
                return info, info.members[name]
        return None

    def value(self, interp, name: str, node):
        """A class-level value (evaluated once, in the class's module)."""
        if name not in self.values:
            self.values[name] = interp.eval(node, {} if self.module.main else {"__module__": self.module})
        return self.values[name]


class Reader:
    """The modules and classes of one extraction, the methods run, and the state of the
    target's instance across the calls of its method."""

    def __init__(self):
        self.modules: dict = {}
        self.infos: dict = {}
        self.main: ModuleScope | None = None
        self.where: list[ModuleScope] = []
        self.ran: dict = {}
        self.calling = False
        self.read_first: dict = {}     # attribute -> (file, line) of a read before any write in a call
        self.changes: dict = {}        # attribute -> (file, line) where a call changed it
        self.captured: dict = {}       # a container a function on the instance captured, changed by a call

    # -- reading modules and classes --

    def module(self, path: FilePath) -> ModuleScope:
        key = path.resolve()
        if key not in self.modules:
            if path.stat().st_size > MAX_SOURCE_BYTES:
                raise Stop(f"the module {_shown(path)}", f"is larger than {MAX_SOURCE_BYTES} bytes")
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            except (OSError, UnicodeDecodeError, SyntaxError) as exc:
                raise Stop(f"the module {_shown(path)}", f"cannot be read ({exc})") from None
            self.modules[key] = ModuleScope(self, path, tree)
        return self.modules[key]

    def module_at(self, module: ModuleScope, level: int, dotted: str | None) -> ModuleScope | None:
        """The module an import names, found without importing: relative to the importing
        file's directory, or on sys.path."""
        from ldpaudit.extract.source import _roots

        parts = dotted.split(".") if dotted else []
        if level:
            base = module.path.parent
            for _ in range(level - 1):
                base = base.parent
            bases = [base]
        else:
            if not parts or parts[0] in LIBRARIES:
                return None
            bases = _roots(parts[0])
        for base in bases:
            stem = base.joinpath(*parts)
            for candidate in ((stem.with_suffix(".py"),) if parts else ()) + (stem / "__init__.py",):
                if candidate.is_file():
                    return self.module(candidate)
        return None

    def bind(self, module: ModuleScope, name: str, hops: int = 0):
        """What ``name`` is at the top level of ``module``: ('class', ClassInfo), ('module',
        ModuleScope), ('function', Closure), or None (nothing of a readable module)."""
        if hops > MAX_HOPS:
            return None
        found = None
        for node in module.tree.body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                found = ("classdef", node)
            elif isinstance(node, ast.FunctionDef) and node.name == name:
                found = ("def", node)
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if (alias.asname or alias.name) == name:
                        found = ("from", node, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if (alias.asname or alias.name.split(".")[0]) == name:
                        found = ("import", alias.name if alias.asname else alias.name.split(".")[0])
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                found = ("alias", node.value)
        if found is None:
            return None
        if found[0] == "classdef":
            return "class", self.info(module, found[1])
        if found[0] == "def":
            return "function", Closure(found[1], {} if module.main else {"__module__": module})
        if found[0] == "from":
            node, original = found[1], found[2]
            source = self.module_at(module, node.level, node.module)
            hit = self.bind(source, original, hops + 1) if source is not None else None
            if hit is not None:
                return hit
            sub = self.module_at(module, node.level, f"{node.module}.{original}" if node.module else original)
            return None if sub is None else ("module", sub)
        if found[0] == "import":
            sub = self.module_at(module, 0, found[1])
            return None if sub is None else ("module", sub)
        return self.resolve(module, found[1], hops + 1)

    def resolve(self, module: ModuleScope, expr, hops: int = 0):
        """What a dotted expression names (a base class ``pkg.mod.Base``), as :meth:`bind`."""
        if isinstance(expr, ast.Name):
            return self.bind(module, expr.id, hops)
        if isinstance(expr, ast.Attribute):
            head = self.resolve(module, expr.value, hops + 1)
            if head is not None and head[0] == "module":
                hit = self.bind(head[1], expr.attr, hops + 1)
                if hit is not None:
                    return hit
                sub = self.module_at(head[1], 1, expr.attr) if head[1].path.name == "__init__.py" else None
                return None if sub is None else ("module", sub)
        return None

    def info(self, module: ModuleScope, node: ast.ClassDef) -> ClassInfo:
        key = id(node)
        if key in self.infos:
            return self.infos[key]
        where = module.shown
        if node.decorator_list:
            dec = node.decorator_list[0]
            raise _stop(where, dec.lineno, f"the class decorator @{ast.unparse(dec)} of {node.name}",
                        "may generate or replace its methods (a dataclass's __init__); not read")
        if node.keywords:
            raise _stop(where, node.lineno, f"class {node.name}({ast.unparse(node.keywords[0])})",
                        "a metaclass or class keyword may change how its instances behave; not read")
        info = ClassInfo(node.name, node, module)
        self.infos[key] = info
        for base in node.bases:
            text = ast.unparse(base)
            if text in ("object", "ABC", "abc.ABC"):
                continue
            hit = self.resolve(module, base)
            if hit is None or hit[0] != "class":
                why = ("is a builtin type or a class of another library, whose methods are not read"
                       if isinstance(base, ast.Name) and (base.id in dir(__builtins__) or base.id[:1].islower())
                       else "is not a class whose source is found on sys.path (put its package on PYTHONPATH)")
                raise _stop(where, base.lineno, f"the base class {text} of {node.name}", why)
            info.bases.append(hit[1])
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef):
                if stmt.name in DYNAMIC:
                    raise _stop(where, stmt.lineno, f"{node.name}.{stmt.name}", "makes attribute access or "
                                "construction dynamic; not read")
                info.members[stmt.name] = stmt
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                info.members[stmt.targets[0].id] = stmt
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                if stmt.value is not None:
                    info.members[stmt.target.id] = stmt
            elif isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
                continue
            else:
                raise _stop(where, stmt.lineno, f"the statement {ast.unparse(stmt).splitlines()[0][:50]} in the "
                                                f"body of class {node.name}", "runs when the class is made; not read")
        info.mro = _c3(info, where)
        return info

    # -- running methods --

    def run(self, interp, owner: ClassInfo, node: ast.FunctionDef, instance, args: list, kwargs: dict):
        """Call the method ``node`` of ``owner`` (on ``instance``; None for a static method) in
        the owner's module; a refusal inside it names that module's file and line."""
        env = {} if owner.module.main else {"__module__": owner.module}
        if instance is not None:
            env["super"] = Super(owner, instance)
            args = [instance, *args]
        self.ran.setdefault((owner.name, node.name, owner.module.shown), (owner, node))
        self.where.append(owner.module)
        try:
            return interp.call(Closure(node, env), args, kwargs)
        except Stop as stop:
            if getattr(stop, "where", None) is None:
                stop.where = (owner.module.shown, interp.line)
            raise
        except Raised as exc:
            if getattr(exc, "file", None) is None:
                exc.file, exc.line = owner.module.shown, exc.line or interp.line
            raise
        finally:
            self.where.pop()

    def member(self, interp, owner: ClassInfo, name: str, node, instance):
        """An attribute found on a class: a method bound to ``instance``, or a class-level value."""
        if isinstance(node, ast.FunctionDef):
            kind = _method_kind(node)
            if kind not in ("method", "static"):
                raise _stop(owner.module.shown, node.lineno, f"the {kind} {owner.name}.{name}",
                            "runs code on access or binds the class; only plain methods and static methods are read")
            return BoundMethod(owner, node, None if kind == "static" else instance)
        return owner.value(interp, name, node.value)

    @property
    def current_file(self) -> str:
        return self.where[-1].shown if self.where else self.main.shown

    def record(self, instance: Instance, writes: dict) -> None:
        """After a call: each attribute whose value is not the one ``__init__`` left, and where."""
        for name in set(instance.state) | set(instance.initial):
            if name in instance.initial and name in instance.state and \
                    _unchanged(instance.state[name], instance.initial[name]):
                continue
            self.changes.setdefault(name, writes.get(name) or self.mutation_site(instance.info, name))

    def mutation_site(self, info: ClassInfo, name: str) -> tuple[str, int]:
        """Where a method changes ``self.name`` in place (``self.name.append(...)``,
        ``self.name[i] = ...``), found in the source; else the class statement's line."""
        for owner in info.mro:
            for node in ast.walk(owner.node):
                target = None
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING:
                    target = node.func.value
                elif isinstance(node, (ast.Assign, ast.AugAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    target = next((t.value for t in targets if isinstance(t, ast.Subscript)), None)
                    if target is None and isinstance(node, ast.AugAssign):
                        target = node.target
                if isinstance(target, ast.Attribute) and target.attr == name and isinstance(target.value, ast.Name) \
                        and target.value.id == "self":
                    return owner.module.shown, node.lineno
        return info.module.shown, info.node.lineno


class LazyClass(Object):
    """A name of a module that may be a class of a readable module (found when used); else the
    library value it was imported as (``fallback``), read as the interpreter reads it."""

    def __init__(self, module: ModuleScope, name: str, fallback):
        self.module, self.text, self.fallback = module, name, fallback
        self.shown = f"the class {name}"

    def _target(self):
        return _value(self.module.reader.bind(self.module, self.text))

    def call(self, interp, args, kwargs):
        target = self._target()
        if target is None:
            if self.fallback is None:
                raise Stop(f"{self.text}()", "is not a class or function the subset reads")
            return interp.call(self.fallback, args, kwargs)
        return interp.call(target, args, kwargs)

    def attribute(self, interp, name):
        target = self._target()
        if target is None:
            if self.fallback is None:
                raise Stop(f"{self.text}.{name}", "is not read")
            return interp._attribute(self.fallback, name)
        return interp._attribute(target, name)

    def store(self, interp, name, value):
        raise Stop(f"a write to {self.text}.{name}", "changes a class: its state is shared by every instance and "
                                                     "carries across calls")


class ModuleValue(Object):
    """A module of the library imported by name (``from pkg import mod``): its classes and
    functions are read in it."""

    def __init__(self, scope: ModuleScope):
        self.scope = scope
        self.shown = f"the module {scope.shown}"

    def attribute(self, interp, name):
        value = _value(self.scope.reader.bind(self.scope, name))
        return value if value is not None else self.scope.lookup(interp, name)


class ClassValue(Object):
    """A class: calling it builds an instance (its ``__init__`` run symbolically)."""

    def __init__(self, info: ClassInfo):
        self.info = info
        self.shown = f"the class {info.name}"

    def call(self, interp, args, kwargs):
        reader = self.info.module.reader
        instance = Instance(self.info, born_in_call=reader.calling)
        found = self.info.find("__init__")
        if found is None:
            if args or kwargs:
                raise Raised(interp.line, f"TypeError: {self.info.name}() takes no arguments")
            return instance
        owner, node = found
        if not isinstance(node, ast.FunctionDef) or _method_kind(node) != "method":
            raise _stop(owner.module.shown, node.lineno, f"{owner.name}.__init__", "is not a plain method; not read")
        if reader.run(interp, owner, node, instance, list(args), dict(kwargs)) is not None:
            raise Raised(interp.line, "TypeError: __init__() should return None")
        return instance

    def attribute(self, interp, name):
        found = self.info.find(name)
        if found is None:
            raise Raised(interp.line, f"AttributeError: type object {self.info.name!r} has no attribute {name!r}")
        owner, node = found
        if isinstance(node, ast.FunctionDef):  # Base.method(self, ...): a function taking the instance first
            kind = _method_kind(node)
            if kind not in ("method", "static"):
                raise _stop(owner.module.shown, node.lineno, f"the {kind} {owner.name}.{name}", "is not read")
            return BoundMethod(owner, node, None, unbound=kind == "method")
        value = owner.value(interp, name, node.value)
        if isinstance(value, (list, dict, set, Arr)):
            raise Stop(f"{self.info.name}.{name}, a container of the class", "is shared by every instance: its "
                                                                               "changes carry across calls; not read")
        return value

    def store(self, interp, name, value):
        raise Stop(f"a write to {self.info.name}.{name}", "changes the class: its state is shared by every instance "
                                                          "and carries across calls")


class Instance(Object):
    """An instance: its attributes (``state``), the state ``__init__`` left (``initial``, each
    call of the target method starts from it), where each attribute was set, and during a call
    what the call read before writing and where it wrote."""

    def __init__(self, info: ClassInfo, *, born_in_call: bool = False):
        self.info, self.born_in_call = info, born_in_call
        self.state: dict = {}
        self.initial: dict | None = None
        self.origin: dict = {}
        self.reading: set | None = None
        self.writes: dict = {}
        self.shown = f"an instance of {info.name}"

    def attribute(self, interp, name):
        reader = self.info.module.reader
        if name in self.state:
            value = self.state[name]
            if self.reading is not None and name not in self.writes and name not in self.reading:
                self.reading.add(name)
                reader.read_first.setdefault(name, (reader.current_file, interp.line))
                if name in self.origin and isinstance(value, sp.Basic) and not value.is_Integer:
                    file, line = self.origin[name]
                    interp.path.events.append((interp.line, f"self.{name} = {sp.sstr(value)}, set at {file}:{line}"))
            if interp.item_mode is not None and isinstance(value, (list, set, dict, Arr)):
                interp.item_mode.before[id(value)] = value  # made before the item: an item may not change it
            return value
        if name.startswith("__") and name.endswith("__"):
            raise Stop(f"self.{name}", "reflection on an instance is not read")
        found = self.info.find(name)
        if found is None:
            raise Raised(interp.line, f"AttributeError: {self.info.name!r} object has no attribute {name!r}")
        owner, node = found
        value = reader.member(interp, owner, name, node, self)
        if isinstance(value, BoundMethod):
            return value
        self.state[name] = _fresh(value, {})  # a class-level value read through the instance: part of its state
        if self.initial is not None:
            self.initial[name] = _fresh(value, {})
        self.origin.setdefault(name, (owner.module.shown, node.lineno))
        return self.attribute(interp, name)

    def store(self, interp, name, value):
        reader = self.info.module.reader
        found = self.info.find(name)
        if found is not None and isinstance(found[1], ast.FunctionDef):
            raise Stop(f"self.{name} = ...", f"replaces the method {found[0].name}.{name} on the instance; not read")
        if name.startswith("__") and name.endswith("__"):
            raise Stop(f"self.{name} = ...", "reflection on an instance is not read")
        if interp.item_mode is not None:
            raise Stop(f"a write to self.{name} inside a loop over a symbolic range", "would change what the next "
                                                                                     "items see")
        if reader.calling and self.reading is None and not self.born_in_call:
            raise Stop(f"a write to .{name} of {self.shown} made before the call", "changes state that the next "
                                                                                   "call sees; not read")
        self.state[name] = value
        where = (reader.current_file, interp.line)
        if self.reading is None:
            self.origin[name] = where
        else:
            self.writes[name] = where

    def clone(self, memo: dict) -> Instance:
        other = Instance(self.info)
        memo[id(self)] = other
        other.state = {k: _fresh(v, memo) for k, v in self.state.items()}
        other.origin = self.origin
        return other


class BoundMethod(Object):
    """A method of a class, bound to an instance (None: a static method, or a function read off
    the class, ``Base.method(self, ...)``, when ``unbound``)."""

    def __init__(self, owner: ClassInfo, node: ast.FunctionDef, instance, *, unbound: bool = False):
        self.owner, self.node, self.instance, self.unbound = owner, node, instance, unbound
        self.shown = f"the method {owner.name}.{node.name}"

    def call(self, interp, args, kwargs):
        instance, args = self.instance, list(args)
        if self.unbound:
            if not args or not isinstance(args[0], Instance):
                raise Stop(f"{self.owner.name}.{self.node.name}() without an instance", "is not read")
            instance, args = args[0], args[1:]
        return self.owner.module.reader.run(interp, self.owner, self.node, instance, args, kwargs)


class Super(Object):
    """``super`` inside a method of ``owner``: ``super()`` (or ``super(Class, self)``) looks
    the next classes of the instance's MRO up."""

    shown = "super"

    def __init__(self, owner: ClassInfo, instance: Instance):
        self.owner, self.instance = owner, instance

    def call(self, interp, args, kwargs):
        if not args:
            return SuperProxy(self.owner, self.instance)
        if len(args) == 2 and isinstance(args[0], (ClassValue, LazyClass)) and isinstance(args[1], Instance):
            cls = args[0] if isinstance(args[0], ClassValue) else args[0]._target()
            if isinstance(cls, ClassValue):
                return SuperProxy(cls.info, args[1])
        raise Stop("super() with these arguments", "only super() and super(Class, self) are read")


class SuperProxy(Object):
    def __init__(self, after: ClassInfo, instance: Instance):
        self.after, self.instance = after, instance
        self.shown = f"super() of {after.name}"

    def attribute(self, interp, name):
        mro = self.instance.info.mro
        found = self.instance.info.find(name, after=self.after) if self.after in mro else None
        if found is None:
            if name == "__init__":  # object.__init__
                return _ObjectInit()
            raise Raised(interp.line, f"AttributeError: 'super' object has no attribute {name!r}")
        owner, node = found
        return self.instance.info.module.reader.member(interp, owner, name, node, self.instance)


class _ObjectInit(Object):
    shown = "object.__init__"

    def call(self, interp, args, kwargs):
        if args or kwargs:
            raise Raised(interp.line, "TypeError: object.__init__() takes exactly one argument")


class Entry(Object):
    """The target method on the built instance: every call (one path) starts from the state
    ``__init__`` left; what it changes and what it reads first are recorded."""

    def __init__(self, instance: Instance, owner: ClassInfo, node: ast.FunctionDef, static: bool):
        self.instance, self.owner, self.node, self.static = instance, owner, node, static
        self.shown = f"{owner.name}.{node.name}"
        #: containers that functions kept on the instance captured (a lambda made in __init__
        #: over a list): (scope, name, the value __init__ left, the function)
        self.captured = [(env, name, fresh(value), closure) for closure in _closures(instance.initial)
                         for env in _scopes(closure.env) for name, value in env.items()
                         if name not in ("__outer__", "__module__") and isinstance(value, (list, dict, set, Arr))]

    def call(self, interp, args, kwargs):
        inst, reader = self.instance, self.owner.module.reader
        memo: dict = {}
        inst.state = {k: _fresh(v, memo) for k, v in (inst.initial or {}).items()}
        for env, name, value, _ in self.captured:
            env[name] = fresh(value)
        inst.reading, inst.writes = set(), {}
        reader.calling = True
        try:
            return reader.run(interp, self.owner, self.node, None if self.static else inst, args, kwargs)
        finally:
            reader.calling = False
            reader.record(inst, inst.writes)
            inst.reading = None
            for env, name, value, closure in self.captured:
                if not _unchanged(env[name], value):  # a function on the instance reads it in every call
                    where = next((e["__module__"].shown for e in _scopes(closure.env) if "__module__" in e),
                                 reader.main.shown)
                    reader.captured.setdefault(name, (where, closure.node.lineno))


def _closures(value, seen=None) -> list:
    """The functions reachable from a value (an instance's state): lambdas and nested functions."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return []
    seen.add(id(value))
    if isinstance(value, Closure):
        return [value]
    if isinstance(value, dict):
        items = list(value.values())
    elif isinstance(value, (list, tuple, set)):
        items = list(value)
    elif isinstance(value, Arr):
        items = value.items
    elif isinstance(value, Instance):
        items = list(value.state.values())
    else:
        return []
    return [c for v in items for c in _closures(v, seen)]


def _scopes(env: dict) -> list:
    out = []
    while env is not None:
        out.append(env)
        env = env.get("__outer__")
    return out


def _value(hit):
    """The interpreter value of what :meth:`Reader.bind` found (None for nothing)."""
    if hit is None:
        return None
    return {"class": ClassValue, "module": ModuleValue, "function": lambda closure: closure}[hit[0]](hit[1])


def _method_kind(node: ast.FunctionDef) -> str:
    names = [ast.unparse(d) for d in node.decorator_list]
    if not names:
        return "method"
    if names == ["staticmethod"]:
        return "static"
    first = names[0]
    return {"property": "property", "classmethod": "class method"}.get(first, f"decorated method (@{first})")


def _c3(info: ClassInfo, where: str) -> list:
    """The method resolution order (C3 linearization, as Python computes it)."""
    seqs = [list(b.mro) for b in info.bases] + [list(info.bases)]
    out = [info]
    while True:
        seqs = [s for s in seqs if s]
        if not seqs:
            return out
        head = next((s[0] for s in seqs if not any(s[0] in t[1:] for t in seqs)), None)
        if head is None:
            raise _stop(where, info.node.lineno, f"the bases of {info.name}", "have no consistent method resolution "
                                                                               "order (Python raises TypeError)")
        out.append(head)
        seqs = [t[1:] if t[0] is head else t for t in seqs]


def _fresh(v, memo: dict):
    """A copy of a value whose containers (and instances) are new: one path's changes do not
    reach the next path; shared references stay shared."""
    if id(v) in memo:
        return memo[id(v)]
    if isinstance(v, list):
        out = memo[id(v)] = []
        out.extend(_fresh(x, memo) for x in v)
        return out
    if isinstance(v, Arr):
        out = memo[id(v)] = Arr([], v.kind)
        out.items.extend(_fresh(x, memo) for x in v.items)
        return out
    if isinstance(v, dict):
        out = memo[id(v)] = {}
        out.update({k: _fresh(x, memo) for k, x in v.items()})
        return out
    if isinstance(v, set):
        return set(v)
    if isinstance(v, tuple):
        return tuple(_fresh(x, memo) for x in v)
    if isinstance(v, Instance):
        return v.clone(memo)
    return v


def _unchanged(a, b) -> bool:
    """Whether a value a call leaves equals the one before it (exactly; unsure counts as changed)."""
    if a is b:
        return True
    if isinstance(a, (bool, str)) or isinstance(b, (bool, str)) or a is None or b is None:
        return type(a) is type(b) and a == b
    if isinstance(a, sp.Basic) and isinstance(b, sp.Basic):
        try:
            return same(a, b)
        except Exception:  # noqa: BLE001 - undecided: counted as changed
            return False
    if isinstance(a, (list, tuple)) and type(a) is type(b):
        return len(a) == len(b) and all(_unchanged(x, y) for x, y in zip(a, b))
    if isinstance(a, Arr) and isinstance(b, Arr):
        return a.kind == b.kind and len(a.items) == len(b.items) and all(map(_unchanged, a.items, b.items))
    if isinstance(a, (set, frozenset)) and type(a) is type(b):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_unchanged(a[k], b[k]) for k in a)
    if isinstance(a, Instance) and isinstance(b, Instance):
        return a.info is b.info and a.state.keys() == b.state.keys() and \
            all(_unchanged(a.state[k], b.state[k]) for k in a.state)
    if isinstance(a, Closure) and isinstance(b, Closure):
        return a.node is b.node and a.env is b.env
    return False


def method_kind(node: ast.FunctionDef) -> str:
    """'method', 'static', or what decorates it (a property, a class method...)."""
    return _method_kind(node)


def fresh(value):
    """A copy of a value whose containers and instances are new (see :func:`_fresh`)."""
    return _fresh(value, {})


__all__ = ["ClassInfo", "ClassValue", "Entry", "Instance", "LazyClass", "Reader"]
