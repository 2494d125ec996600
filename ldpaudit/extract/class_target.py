"""The target of ``extract`` that names a class's method: ``module:Class(args).method``.

The text after ``:`` is parsed as ``audit`` parses its class targets
(:func:`ldpaudit.audit.targets.parse_target`): one class, called once, then one method
(``__call__`` when none is named); ``module:Class.method`` gives every constructor parameter by its
own name. An argument is a literal (a number read as ``--target-arg`` reads it, a quoted string,
``True``, ``False``, ``None``: bound) or a bare name (a spec parameter, symbolic). The constructor's
parameters the call does not give are the spec's too, like a function's: numeric defaults are the
example, others are bound to their default, ``--target-arg`` binds any. The class and its bases
are read by :mod:`ldpaudit.extract.classes`; the instance is built once, then the method is the
randomizer :mod:`ldpaudit.extract.channel` runs on every path.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

import sympy as sp

from ldpaudit.errors import InvalidParameter, Unextractable
from ldpaudit.extract.classes import (
    ClassInfo,
    ClassValue,
    Entry,
    Instance,
    LazyClass,
    Reader,
    fresh,
    method_kind,
)
from ldpaudit.extract.methods import Raised
from ldpaudit.extract.paths import Path
from ldpaudit.extract.source import Source, locate
from ldpaudit.extract.symbolic import Stop, unextractable


@dataclass(eq=False)
class ClassTarget:
    """A class target read: the method (the :class:`Source`'s function), the constructor's
    parameters as a signature for the spec (:func:`ldpaudit.extract.channel._parameters`), and
    how the target gives each constructor parameter: ('param', spec name), ('text', a number's
    text, read as ``--target-arg`` reads it) or ('value', a string, bool or None)."""

    target: str
    reader: Reader
    info: ClassInfo
    owner: ClassInfo
    method: ast.FunctionDef
    static: bool
    source: Source
    signature: ast.FunctionDef
    given: dict
    instance: Instance | None = None

    @property
    def name(self) -> str:
        return f"{self.info.name}.{self.method.name}"

    @property
    def skipped(self) -> int:
        """Parameters of the method before its own keyword ones: self (unless static), the input."""
        return 1 if self.static else 2

    def build(self, interp, kwargs: dict, literals: dict) -> Entry:
        """Run ``__init__`` once (drawing nothing) on the spec's values; the target method on
        the instance it leaves."""
        interp.globals.update({k: v for k, v in self.reader.main.names(interp, {}).items()
                               if isinstance(v, LazyClass)})
        self.reader.main.globals = interp.globals
        args = {p: literals[p] if kind != "param" else kwargs[v] for p, (kind, v) in self.given.items()
                if kind != "param" or v in kwargs}  # a default that is an expression: __init__'s own
        path = Path([])
        file = self.info.module.shown
        try:
            instance = interp.call_on(path, ClassValue(self.info), [], args)
        except Raised as exc:
            raise InvalidParameter(f"target {self.target!r}: {self.info.name}(...) raises {exc.text} at "
                                   f"{getattr(exc, 'file', None) or file}:{exc.line} with these arguments; fix the "
                                   "target's arguments or --target-arg") from None
        if path.sizes or path.draws:
            line = path.events[0][0] if path.events else self.info.node.lineno
            file = next((owner.module.shown for owner, node in self.reader.ran.values()
                         if node.lineno <= line <= getattr(node, "end_lineno", node.lineno)), file)
            raise Unextractable(f"{file}:{line}: building {self.info.name} draws a random value once, shared by every "
                                "report; this is outside the subset `extract` reads exactly; test the code "
                                "statistically with `ldpaudit audit`")
        instance.initial = fresh(instance.state)
        self.instance = instance
        return Entry(instance, self.owner, self.method, self.static)

    def finish(self) -> list[str]:
        """After every path: refuse state that carries from one call to the next; notes on the
        rest (the attributes ``__init__`` set, scratch attributes a call writes)."""
        reader = self.reader
        for name, (file, line) in sorted(reader.captured.items()):
            raise unextractable(file, line, Stop(
                f"{self.name} changes {name}, a container the function defined here captured and every call reads:",
                "the next call starts from another state, so a stateful client is not one fixed channel"))
        carried = sorted((site, name) for name, site in reader.changes.items() if name in reader.read_first)
        if carried:
            (file, line), name = carried[0]
            rfile, rline = reader.read_first[name]
            raise unextractable(file, line, Stop(
                f"{self.name} changes self.{name}, which a call reads before writing it ({rfile}:{rline}):",
                "the next call starts from another state, so a stateful client is not one fixed channel"))
        notes = []
        for name, value in (self.instance.initial or {}).items():
            if isinstance(value, sp.Basic) and name in self.instance.origin and len(notes) < 12:
                file, line = self.instance.origin[name]
                notes.append(f"self.{name} = {sp.sstr(value)} (set at {file}:{line})")
        for name, (file, line) in sorted(reader.changes.items()):
            notes.append(f"{self.name} writes self.{name} ({file}:{line}) and never reads it before: each call has "
                         "the same channel")
        return notes

    def helpers(self) -> list[tuple[str, int, int]]:
        """The other methods run (the constructor's and the helpers'), where they are."""
        out = []
        for (cls, name, shown), (owner, node) in self.reader.ran.items():
            if node is not self.method:
                label = f"{cls}.{name}" + ("" if owner.module.main else f" in {shown}")
                out.append((label, node.lineno, getattr(node, "end_lineno", node.lineno)))
        return out


def is_class_target(target) -> bool:
    """Whether a target names a class's method (``module:Class(args).method``,
    ``module:Class.method``) rather than a function."""
    from ldpaudit.audit.targets import split_target

    try:
        _, text = split_target(target)
    except InvalidParameter:
        return False
    return not text.strip().isidentifier()


def read_class_target(target: str) -> ClassTarget:
    """The class, its method and its constructor's parameters, read statically."""
    from ldpaudit.audit.targets import parse_target

    parsed = parse_target(target)
    where = f"target {target!r}"
    shapes = "module:Class(args).method (args literals or names of symbolic parameters) or module:Class.method"
    if parsed.call is None:
        if len(parsed.path) != 2:
            raise InvalidParameter(f"{where} must look like module:function, {shapes}")
        class_name, method_name = parsed.path
    else:
        if len(parsed.path) != 1 or len(parsed.method) > 1:
            raise InvalidParameter(f"{where}: one class, called once, then one method: {shapes}")
        class_name, method_name = parsed.path[0], (parsed.method or ("__call__",))[0]
    try:
        path, _ = locate(f"{parsed.where}:{class_name}")
    except InvalidParameter as exc:  # said of the whole target
        raise InvalidParameter(str(exc).replace(repr(f"{parsed.where}:{class_name}"), repr(target), 1)) from None
    reader = Reader()
    try:
        module = reader.module(path)
    except Stop as stop:
        raise InvalidParameter(f"{where}: {stop.construct} {stop.why}") from None
    try:
        hit = reader.bind(module, class_name)
    except Stop as stop:
        raise unextractable(*stop.where, stop) from None
    if hit is None or hit[0] != "class":
        if class_name in module.defs:
            raise InvalidParameter(f"{where}: {class_name} is a function of {path}; name it alone "
                                   f"({parsed.where}:{class_name}) and bind its parameters with --target-arg")
        listed = ", ".join(sorted(module.classes)[:8]) or "none"
        raise InvalidParameter(f"{where}: no class {class_name!r} in {path} (its classes: {listed}); fix the name "
                               "after ':'")
    info = hit[1]
    found = info.find(method_name)
    if found is None or not isinstance(found[1], ast.FunctionDef):
        names = sorted({n for c in info.mro for n, m in c.members.items()
                        if isinstance(m, ast.FunctionDef) and not n.startswith("__")})
        raise InvalidParameter(f"{where}: {class_name} has no method {method_name!r} (its methods: "
                               f"{', '.join(names[:10]) or 'none'}); fix the name after the call")
    owner, node = found
    reader.main = owner.module  # the method's module: the file and lines the spec names
    kind = method_kind(node)
    if kind not in ("method", "static"):
        raise unextractable(owner.module.shown, node.lineno, Stop(f"the {kind} {owner.name}.{method_name}",
                                                                  "only plain methods and static methods are read"))
    static = kind == "static"
    if len(node.args.posonlyargs + node.args.args) < (1 if static else 2):
        raise InvalidParameter(f"{where}: {class_name}.{method_name}() takes no input (the randomizer's input is its "
                               "first parameter after self)")
    signature, given = _signature(parsed, info, info.find("__init__"), where)
    source = Source(target, owner.module.path, owner.module.tree, node)
    return ClassTarget(target, reader, info, owner, node, static, source, signature, given)


def _signature(parsed, info: ClassInfo, init, where: str):
    """The spec's parameters as a function signature (keyword-only, with the constructor's
    defaults and annotations), and how the target gives each constructor parameter."""
    names, defaults, annotations, positional = [], {}, {}, []
    if init is not None:
        owner, node = init
        a = node.args
        if a.vararg or a.kwarg:
            raise unextractable(owner.module.shown, node.lineno, Stop(f"the *args/**kwargs of {owner.name}.__init__",
                                                                      "are not read; name its parameters"))
        ordered = a.posonlyargs + a.args
        defaults = dict(zip([p.arg for p in ordered][len(ordered) - len(a.defaults):], a.defaults))
        defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
        positional = [p.arg for p in ordered[1:]]
        names = positional + [p.arg for p in a.kwonlyargs]
        annotations = {p.arg: p.annotation for p in ordered[1:] + a.kwonlyargs}
    given: dict = {}
    if parsed.call is not None:
        arg_nodes, keyword_nodes = parsed.call
        if len(arg_nodes) > len(positional):
            raise InvalidParameter(f"{where}: {info.name}() takes {len(positional)} positional arguments "
                                   f"({', '.join(positional) or 'none'}); the target gives {len(arg_nodes)}")
        for name, node in list(zip(positional, arg_nodes)) + list(keyword_nodes):
            if name not in names:
                raise InvalidParameter(f"{where}: {info.name}() has no parameter {name!r} (its parameters: "
                                       f"{', '.join(names) or 'none'})")
            if name in given:
                raise InvalidParameter(f"{where}: {info.name}() is given {name} twice")
            given[name] = _argument(node, parsed.source, where, name)
    spec, kw_defaults, seen = [], [], {}
    for name in names:
        if name in given and given[name][0] != "param":
            continue
        if name not in given and parsed.call is not None and name not in defaults:
            raise InvalidParameter(f"{where}: {info.name}() needs {name}: give it in the target, a value ({name}=1) "
                                   f"or a name for a symbolic parameter ({name}); what is no literal (a function, an "
                                   "object) cannot be given: audit the class instead (ldpaudit audit)")
        spec_name = given.setdefault(name, ("param", name))[1]
        if spec_name in seen:
            raise InvalidParameter(f"{where}: the name {spec_name} stands for both {seen[spec_name]} and {name} of "
                                   f"{info.name}(); give each its own name")
        seen[spec_name] = name
        spec.append(ast.arg(arg=spec_name, annotation=annotations.get(name)))
        kw_defaults.append(defaults.get(name))
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=spec, kw_defaults=kw_defaults, kwarg=None,
                         defaults=[])
    line = init[1].lineno if init is not None else info.node.lineno
    signature = ast.FunctionDef(name=info.name, args=args, body=[ast.Pass()], decorator_list=[], returns=None,
                                lineno=line, col_offset=0)
    return signature, given


def _argument(node, source: str, where: str, name: str):
    from ldpaudit.audit.targets import _numeric

    if isinstance(node, ast.Name):
        return "param", node.id
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (bool, str))):
        return "value", node.value
    if _numeric(node):
        return "text", ast.get_source_segment(source, node) or ast.unparse(node)
    raise InvalidParameter(f"{where}: the argument {name}={ast.unparse(node)} is neither a literal nor a parameter's "
                           "name; write a number (1, 1/2, log(3)), a quoted string, True, False, None, or a bare name "
                           "for a symbolic parameter (epsilon)")


__all__ = ["ClassTarget", "is_class_target", "read_class_target"]
