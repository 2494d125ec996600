"""The channel builder: every path of the randomizer on every input, merged into exact rows.

For each input of ``--domain`` the paths of the draws are enumerated depth-first (each path
replayed from the start with its choices, so nothing is copied); a path's probability is the
product of its branches' probabilities; paths ending in the same output are summed. Each row
must be shown to sum to 1 exactly (:func:`~ldpaudit.mechanism.checks.is_zero`), else the
extraction stops, inconclusive. A path that raises stops it too (all paths of an input
raising: the input is outside the randomizer's domain, bad input).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

import sympy as sp

from ldpaudit.errors import InvalidParameter, Undecided, Unextractable
from ldpaudit.extract.assume import Decider, consistent, parse_assumptions, ranges
from ldpaudit.extract.class_target import is_class_target, read_class_target
from ldpaudit.extract.exact import tidy as _tidy
from ldpaudit.extract.family import (
    Family,
    SymbolicDomain,
    input_symbol,
    parse_domain_text,
    run_family,
)
from ldpaudit.extract.interpreter import RNG_NAMES, Interpreter, Path, Raised, Steps
from ldpaudit.extract.source import DEFAULT_STEPS, Source, read_source
from ldpaudit.extract.symbolic import (
    DECIDER,
    Closure,
    ModuleRef,
    Rng,
    Stop,
    number,
    plain,
)
from ldpaudit.mechanism.params import Parameter

#: paths kept per (input, output) to show on a witness
SHOWN_PATHS = 3


@dataclass(frozen=True)
class Param:
    """A keyword parameter of the randomizer (or of its factory)."""

    name: str
    kind: str              # 'real' or 'integer'
    symbol: sp.Symbol
    example: object = None  # the default, exact; None without one (or outside the range)
    declared: Parameter | None = None  # the range: defaults and --assume (the spec's declaration)


@dataclass
class Extraction:
    """The exact channel read off the source: rows[x][y] = Q(y | x)."""

    source: Source
    function: str
    inputs: list
    outputs: list
    rows: dict
    params: list[Param]
    bound: list[tuple[str, object, str]]   # (name, value, how: '--target-arg' or 'default')
    lines: tuple[int, int]
    helpers: list[tuple[str, int, int]]
    paths: dict = field(default_factory=dict)   # (x, y) -> [(probability, events)]
    path_count: int = 0
    steps: int = 0
    notes: list = field(default_factory=list)
    #: with a symbolic domain (0..d-1): the channel as one weight for y == x and one for y != x
    family: Family | None = None

    @property
    def epsilon_param(self) -> Param | None:
        return next((p for p in self.params if _is_epsilon(p.name)), None)


def _is_epsilon(name: str) -> bool:
    low = name.lower()
    return low in ("eps", "epsilon", "e") or low.startswith(("eps_", "epsilon_")) or low.endswith("_epsilon")


def parse_target_arg(text: str, where: str):
    """A ``--target-arg`` value, read by the allow-list literal parser: true/false, an integer,
    a quoted string, or an exact number (1/2, log(3), 0.1 = 1/10)."""
    from ldpaudit.mechanism.options import option_exact

    raw = text.strip()
    if raw.lower() in ("true", "false"):
        return raw.lower() == "true"
    if raw.lower() == "none":
        return None
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[1:-1]
    try:
        return sp.Integer(int(raw))
    except ValueError:
        pass
    value = option_exact(raw, where)
    return sp.Rational(value.numerator, value.denominator) if hasattr(value, "numerator") and not isinstance(
        value, sp.Basic) else value


def _factory_inner(fn: ast.FunctionDef) -> bool:
    """Whether ``fn`` is a factory: it returns a function it defines (or a lambda)."""
    inner = {n.name for n in fn.body if isinstance(n, ast.FunctionDef)}
    returned = [n.value for n in fn.body if isinstance(n, ast.Return) and n.value is not None]
    return any(isinstance(v, ast.Lambda) or (isinstance(v, ast.Name) and v.id in inner) for v in returned)


def _literal_default(node):
    """A parameter's default if it is a literal (number, bool, string, None); else a marker."""
    try:
        return ("literal", ast.literal_eval(node))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return ("expression", node)


def _parameters(fn: ast.FunctionDef, skip_first: bool, raw_args: dict, where: str, assume=(), domain=None,
                given: dict | None = None):
    """The spec parameters (with their ranges), bound values and call arguments of ``fn``'s
    parameters (all but the input), the domain (a list, or a :class:`SymbolicDomain` when
    ``domain`` is text naming parameters) and notes on the ranges. ``given``: how a class
    target gives its constructor's parameters (a literal there cannot be bound again)."""
    a = fn.args
    if a.vararg or a.kwarg:
        raise InvalidParameter(f"{where}: *args/**kwargs of {fn.name}() are not read; name its parameters")
    positional = a.posonlyargs + a.args
    defaults = dict(zip([p.arg for p in positional[len(positional) - len(a.defaults):]], a.defaults))
    defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    names = [p.arg for p in positional][1 if skip_first else 0:] + [p.arg for p in a.kwonlyargs]
    unknown = sorted(set(raw_args) - set(names))
    fixed = [n for n in unknown if given and given.get(n, ("param",))[0] != "param"]
    if fixed:
        raise InvalidParameter(f"--target-arg {fixed[0]}: the target gives {fixed[0]} a value already "
                               f"({fixed[0]}={given[fixed[0]][1]}); change it there or name a parameter instead")
    if unknown:
        raise InvalidParameter(f"--target-arg {unknown[0]}: {fn.name}() has no parameter {unknown[0]!r} "
                               f"(its parameters: {', '.join(names) or 'none'})")
    params, bound, kwargs, pending = [], [], {}, []
    for name in names:
        if name in raw_args:
            value = parse_target_arg(raw_args[name], f"--target-arg {name}={raw_args[name]}")
            kwargs[name] = value
            bound.append((name, value, "--target-arg"))
            continue
        if name in RNG_NAMES:
            annotation = next((p.annotation for p in positional + a.kwonlyargs if p.arg == name), None)
            kwargs[name] = Rng(_rng_api(annotation, defaults.get(name)))
            continue
        kind, default = _literal_default(defaults[name]) if name in defaults else ("none", None)
        if kind == "expression":
            continue  # evaluated by the interpreter (a module, a constant)
        if kind == "literal" and (default is None or isinstance(default, (bool, str))):
            kwargs[name] = default
            bound.append((name, default, "default"))
            continue
        if kind == "literal" and not isinstance(default, (int, float)):
            raise InvalidParameter(f"{where}: parameter {name} of {fn.name}() defaults to {default!r}; bind it "
                                   f"with --target-arg {name}=VALUE")
        annotation = next((p.annotation for p in positional + a.kwonlyargs if p.arg == name), None)
        typed = annotation is not None and ast.unparse(annotation) in ("int", "numbers.Integral")
        integer = (isinstance(default, int) or (kind == "none" and typed)) and not _is_epsilon(name)
        pending.append((name, "integer" if integer else "real", None if kind == "none" else number(default)))
    values = {name: value for name, value, how in bound if isinstance(value, sp.Basic)}
    names = [name for name, _, _ in pending]
    size = None
    if isinstance(domain, str):
        domain = parse_domain_text(domain, names, values)
        if isinstance(domain, SymbolicDomain):
            at = next((i for i, (n, _, _) in enumerate(pending) if n == domain.name), None)
            if at is not None and pending[at][2] is None and _no_default(a, domain.name):
                pending[at] = (domain.name, "integer", None)  # no default to tell: the domain's size is an integer
            kind = None if at is None else pending[at][1]
            if kind != "integer":
                raise InvalidParameter(f"--domain {domain.text!r}: {domain.name} is not an integer parameter of "
                                       f"{fn.name}() (its default is not an int); give a concrete range")
            size = (domain.name, domain.offset)
    bounds = parse_assumptions(assume, names, values)
    declared, notes = ranges([(n, k) for n, k, _ in pending], bounds, size=size)
    if bounds:  # the defaults (>= 1, > 0, d >= 2) always hold somewhere
        consistent(list(declared.values()))
    examples = {n: e for n, _, e in pending if e is not None}
    for name, kind, example in pending:
        p = declared[name]
        if example is not None and not _within(p, example, examples, declared):
            example = None
        params.append(Param(name, kind, p.symbol, example, p))
        kwargs[name] = p.symbol
    return params, bound, kwargs, domain, notes


def _no_default(a: ast.arguments, name: str) -> bool:
    """Whether the parameter ``name`` of a signature has no default (nothing tells its type)."""
    positional = a.posonlyargs + a.args
    with_default = [p.arg for p in positional[len(positional) - len(a.defaults):]] if a.defaults else []
    with_default += [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
    return name not in with_default


def _within(p: Parameter, value, examples: dict, declared: dict) -> bool:
    """Whether a default lies in the declared range (at the other defaults): it is the spec's
    example only then."""
    subs = {declared[n].symbol: v for n, v in examples.items() if n in declared}
    for bound, strict, below in ((p.lower, p.lower_strict, False), (p.upper, p.upper_strict, True)):
        if bound is None:
            continue
        gap = sp.sympify(bound).xreplace(subs) - value if below else value - sp.sympify(bound).xreplace(subs)
        ok = gap.is_positive if strict else gap.is_nonnegative
        if ok is not True:
            return False
    return p.kind != "integer" or bool(sp.sympify(value).is_Integer)


def _rng_api(annotation, default) -> str:
    text = ast.unparse(annotation) if annotation is not None else ""
    if "Random" in text and "RandomState" not in text:
        return "python"
    if "RandomState" in text:
        return "legacy"
    if "Generator" in text:
        return "generator"
    if default is not None and isinstance(default, ast.Name) and default.id == "random":
        return "python"
    return "unknown"


def _input_value(x):
    if isinstance(x, bool):
        return x
    if isinstance(x, (int, float)):
        return number(x)
    if isinstance(x, tuple):
        return tuple(_input_value(v) for v in x)
    return x


def extract(target: str, domain, target_args: dict | None = None, *, max_steps: int = DEFAULT_STEPS,
            assume=()) -> Extraction:
    """Read the exact channel of ``target`` (``module:function`` or ``file.py:function``) on
    the inputs ``domain``: a list, or text ``0..d-1`` naming a symbolic integer parameter (the
    channel generic in d, :mod:`ldpaudit.extract.family`). ``assume``: ``--assume`` ranges such
    as ``d>=2``, ``0<f<1``. Raises Unextractable (exit 3) outside the subset or when a comparison
    is not decided, InvalidParameter (exit 2) for a bad target, argument, range or domain."""
    where = f"target {target!r}"
    plan = read_class_target(target) if is_class_target(target) else None
    if plan is None:
        src = read_source(target)
        fn = signature = src.function
        notes = _decorators(src, fn)
        factory = _factory_inner(fn)
    else:
        src, fn, signature, notes, factory = plan.source, plan.source.function, plan.signature, [], False
    params, bound, kwargs, domain, range_notes = _parameters(signature, plan is None and not factory,
                                                             dict(target_args or {}), where, assume, domain,
                                                             given=None if plan is None else plan.given)
    literals = {} if plan is None else _literals(plan, where, bound)
    notes += range_notes
    declared = [p.declared for p in params]
    generic = isinstance(domain, SymbolicDomain)
    if generic:
        size = domain.size(next(p.symbol for p in params if p.name == domain.name))
        x, x_range = input_symbol(size)
        decider = Decider(declared, program={x: x_range})
    else:
        decider = Decider(declared)
    steps = Steps(max_steps)
    token = DECIDER.set(decider)
    try:
        interp = Interpreter(src, steps, decider)
        if plan is None:
            randomizer, call_kwargs = _randomizer(src, fn, interp, factory, kwargs, where)
        else:
            randomizer, call_kwargs = plan.build(interp, kwargs, literals), _inner_kwargs(fn, plan.skipped)
        if generic:
            family, total = run_family(src, interp, randomizer, call_kwargs, x, size, declared)
            rows, paths = {}, {}
        else:
            family = None
            rows, paths, total = _rows(src, fn, interp, randomizer, call_kwargs, domain)
        if plan is not None:
            notes += plan.finish()
    finally:
        DECIDER.reset(token)
    outputs = _sorted_outputs({y for row in rows.values() for y in row})
    free = set().union(*(p.free_symbols for row in rows.values() for p in row.values())) if rows else set()
    if family is not None:
        free = set().union(*(sp.sympify(e).free_symbols for e in family.expressions()))
    used = [p for p in params if p.symbol in free or _is_epsilon(p.name)]  # ε stays: the claim names it
    for p in params:
        if p not in used:
            bound.append((p.name, p.example, "unused"))
    helpers = _helpers(src, fn) if plan is None else plan.helpers()
    end = getattr(fn, "end_lineno", fn.lineno)
    return Extraction(src, fn.name if plan is None else plan.name, [] if generic else list(domain), outputs, rows,
                      used, bound, (fn.lineno, end), helpers, paths, total, steps.used, notes, family)


def _literals(plan, where: str, bound: list) -> dict:
    """The constructor's arguments the class target gives as literals, read as ``--target-arg``
    reads its values (recorded as bound by the target)."""
    out = {}
    for name, (kind, value) in plan.given.items():
        if kind == "param":
            continue
        out[name] = parse_target_arg(value, f"{where}: argument {name}={value}") if kind == "text" else value
        bound.append((name, out[name], "target"))
    return out


def _randomizer(src: Source, fn: ast.FunctionDef, interp: Interpreter, factory: bool, kwargs: dict, where: str):
    """The randomizer to call and its own arguments (a factory is called once, drawing nothing)."""
    if not factory:
        return Closure(fn, {}), kwargs
    path = Path([])
    try:
        randomizer = interp.call_on(path, Closure(fn, {}), [], kwargs)
    except Raised as exc:
        raise InvalidParameter(f"{where}: the factory raises {exc.text} at line {exc.line} with these "
                               "arguments; fix --target-arg") from None
    if path.sizes:
        line = path.events[0][0]
        raise Unextractable(f"{src.shown_path}:{line}: the factory {fn.name}() draws a random value once, "
                            "shared by every report; this is outside the subset `extract` reads exactly; "
                            "test the code statistically with `ldpaudit audit`")
    if not isinstance(randomizer, Closure):
        raise InvalidParameter(f"{where}: the factory {fn.name}() does not return a function")
    return randomizer, _inner_kwargs(randomizer.node)


def _rows(src: Source, fn: ast.FunctionDef, interp: Interpreter, randomizer, call_kwargs: dict, domain: list):
    """Every path on every input of a concrete domain: the rows, the paths shown, the count."""
    rows, paths, total = {}, {}, 0
    for x in domain:
        row, raised = {}, []
        value = _input_value(x)
        prefix: list[int] | None = []
        count = 0
        while prefix is not None:
            path = Path(prefix)
            try:
                out = interp.call_on(path, randomizer, [value], dict(call_kwargs))
                y = plain(out, "the randomizer's return value")
            except Raised as exc:
                raised.append((exc, path))
            except Stop as stop:
                raise interp.fail(stop) from None
            else:
                p = path.probability
                row[y] = row.get(y, sp.Integer(0)) + p
                shown = paths.setdefault((x, y), [])
                if len(shown) < SHOWN_PATHS:
                    shown.append((p, tuple(path.events)))
            count += 1
            prefix = path.next_prefix()
        total += count
        if raised:
            _raise_for(src, x, raised, count)
        rows[x] = {y: _tidy(p) for y, p in row.items()}
        _check_row(src, fn.name, x, rows[x])
    return rows, paths, total


#: decorators that compile the same Python code (numba's draws follow numpy's distributions)
SAME_SEMANTICS = {"jit", "njit", "numba.jit", "numba.njit"}


def _decorators(src: Source, fn: ast.FunctionDef) -> list[str]:
    notes = []
    for dec in fn.decorator_list:
        name = ast.unparse(dec.func if isinstance(dec, ast.Call) else dec)
        if name not in SAME_SEMANTICS:
            raise Unextractable(f"{src.shown_path}:{dec.lineno}: the decorator @{name} may change what "
                                f"{fn.name}() does; this is outside the subset `extract` reads exactly; test the "
                                "code statistically with `ldpaudit audit`")
        notes.append(f"@{ast.unparse(dec)} read as the Python it compiles (numba draws from numpy's distributions)")
    return notes


def _inner_kwargs(node, skipped: int = 1) -> dict:
    """The randomizer's own parameters beyond the input (and self, for a method: ``skipped``):
    rng-like ones get a generator, the others their defaults (evaluated by the interpreter)."""
    a = node.args
    out = {}
    for p in (a.posonlyargs + a.args)[skipped:] + a.kwonlyargs:
        if p.arg in RNG_NAMES:
            default = dict(zip([q.arg for q in (a.posonlyargs + a.args)][-len(a.defaults):], a.defaults)).get(p.arg) \
                if a.defaults else None
            out[p.arg] = Rng(_rng_api(p.annotation, default))
    return out


def _raise_for(src: Source, x, raised: list, count: int) -> None:
    exc, path = raised[0]
    line = exc.line or (path.events[-1][0] if path.events else src.function.lineno)
    file = getattr(exc, "file", None) or src.shown_path  # raised in a method of another module
    if len(raised) == count:
        raise InvalidParameter(f"--domain: input {x!r} makes {src.function.name}() raise {exc.text} "
                               f"({file}:{line}); give inputs the randomizer accepts")
    p = sp.simplify(path.probability)
    raise Unextractable(f"{file}:{line}: input {x!r} raises {exc.text} on a path of probability {p} "
                        "(not every draw ends in an output); this is outside the subset `extract` reads exactly; "
                        "test the code statistically with `ldpaudit audit`")


def _check_row(src: Source, name: str, x, row: dict) -> None:
    from ldpaudit.mechanism.checks import is_zero

    total = sp.Add(*row.values())
    shown = is_zero(total - 1)
    if shown is True:
        return
    text = sp.sstr(sp.simplify(total))
    verdict = "is not 1" if shown is False else "could not be shown to be 1"
    raise Undecided(f"{src.shown_path}: the row of input x={x!r} of {name}() sums to {text}, which {verdict} "
                    "exactly; no channel is emitted (audit the code instead)")


def _sorted_outputs(outputs: set) -> list:
    def key(y):
        if isinstance(y, int):
            return (0, y, "")
        if isinstance(y, tuple):
            return (1, len(y), repr(y))
        if isinstance(y, frozenset):
            return (2, len(y), repr(sorted(y)))
        return (3, 0, repr(y))
    return sorted(outputs, key=key)


def _helpers(src: Source, fn: ast.FunctionDef) -> list[tuple[str, int, int]]:
    """The module's functions ``fn`` calls by name (transitively): where the channel comes from."""
    defs = {n.name: n for n in src.tree.body if isinstance(n, ast.FunctionDef)}
    seen, todo = set(), [fn]
    while todo:
        node = todo.pop()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id in defs and sub.id not in seen and sub.id != fn.name:
                seen.add(sub.id)
                todo.append(defs[sub.id])
    return [(n, defs[n].lineno, getattr(defs[n], "end_lineno", defs[n].lineno)) for n in sorted(seen)]


__all__ = ["DEFAULT_STEPS", "Extraction", "ModuleRef", "Param", "extract", "parse_target_arg"]
