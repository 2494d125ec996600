"""No import cycles among ldpaudit's modules (issue 19).

The graph is built from the source with ``ast``, not by importing: every ``import`` and
``from ... import`` statement counts, at module level or inside a function (a function-level
import only delays a cycle to run time, it does not remove it). ``import a.b`` is an edge to
``a.b``; ``from a.b import c`` is an edge to the module ``a.b.c`` when there is one, otherwise to
``a.b``; relative imports are resolved against the importing module's package. Importing
``a.b.c`` does not add edges to the ``__init__`` of ``a`` or ``a.b`` that Python runs on the way:
only what a module names is an edge.
"""
from __future__ import annotations

import ast
import functools
import shutil
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ldpaudit"

# The mechanism package's cycle is being broken by the split of ldpaudit/mechanism/ on another
# branch (issue 19). Expected to be fixed there: delete this exception when that branch is merged.
# Only this exact cycle is exempt; a cycle with any other member, or more members, still fails.
_BEING_FIXED: set[frozenset] = set()  # known cycles still to break (none)


def modules(package: Path) -> dict[str, Path]:
    """Dotted module name -> source file, for every .py file under ``package``."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


@functools.lru_cache(maxsize=None)
def _import_statements(source: str) -> tuple[tuple[int, str | None, tuple[str, ...]], ...]:
    """(level, module, names) of every import statement in a source text, at any depth; for
    ``import a.b`` level is -1 and names are the modules. Cached by text: a copy of the package
    parses only the files that differ."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.append((-1, None, tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module, tuple(alias.name for alias in node.names)))
    return tuple(found)


def _imported(name: str, path: Path, statement, mods: dict) -> list[str]:
    """The modules one import statement of module ``name`` (file ``path``) names."""
    level, module, names = statement
    if level < 0:
        return list(names)
    if level:
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        base = package[:len(package) - (level - 1)]
        source = ".".join(base + ([module] if module else []))
    else:
        source = module
    return [f"{source}.{n}" if f"{source}.{n}" in mods else source for n in names]


def import_graph(package: Path) -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere in its source."""
    mods = modules(package)
    graph = {name: set() for name in mods}
    for name, path in mods.items():
        for statement in _import_statements(path.read_text(encoding="utf-8")):
            graph[name].update(t for t in _imported(name, path, statement, mods) if t in mods and t != name)
    return graph


def _components(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


MAX_NAMED = 20                  # elementary cycles named per component, at most


def _elementary_cycles(component: set[str], graph: dict[str, set[str]]) -> list[list[str]]:
    """The elementary cycles of a strongly connected component, each as a module list that
    starts at its alphabetically first module and returns to it, at most MAX_NAMED of them."""
    order = sorted(component)
    found = []

    def extend(path, allowed):
        for w in sorted(graph[path[-1]] & allowed):
            if len(found) >= MAX_NAMED:
                return
            if w == path[0]:
                found.append(path + [w])
            elif w not in path:
                extend(path + [w], allowed)

    for i, start in enumerate(order):
        extend([start], set(order[i:]))
    return sorted(found)


def import_cycles(package: Path) -> list[tuple[frozenset[str], list[str]]]:
    """Every group of modules that import each other (a strongly connected component of the
    import graph) with its cycles, each named ``a → b → c → a``."""
    graph = import_graph(package)
    named = []
    for component in _components(graph):
        cycles = [" → ".join(cycle) for cycle in _elementary_cycles(component, graph)]
        if len(cycles) == MAX_NAMED:
            cycles.append(f"... and maybe more among {', '.join(sorted(component))}")
        named.append((frozenset(component), cycles))
    return sorted(named, key=lambda item: item[1])


def unexpected_cycles(package: Path) -> list[str]:
    """The cycles of every component except those exempt in _BEING_FIXED."""
    return [text for members, cycles in import_cycles(package) if members not in _BEING_FIXED for text in cycles]


def test_no_import_cycles():
    cycles = unexpected_cycles(PACKAGE)
    assert not cycles, ("import cycles among ldpaudit's modules (break each by moving what both sides need "
                        "below both; an import inside a function counts too):\n  " + "\n  ".join(cycles))


def test_graph_resolves_imports_as_written():
    graph = import_graph(PACKAGE)
    # from ldpaudit.audit import bounds: the module bounds, not the package's __init__
    assert "ldpaudit.audit.bounds" in graph["ldpaudit.audit.engine"]
    assert "ldpaudit.audit" not in graph["ldpaudit.audit.engine"]
    # from ldpaudit.derive.hits import item_statistic: the module hits (item_statistic is a name in it)
    assert "ldpaudit.derive.hits" in graph["ldpaudit.derive.estimator"]
    # a function-level import is an edge: engine imports the cluster only when one is given
    assert "ldpaudit.audit.cluster" in graph["ldpaudit.audit.engine"]
    # the cycles broken in issue 19: what both sides needed now lies below both
    assert "ldpaudit.derive.hits" not in graph["ldpaudit.derive.hashed"]
    assert "ldpaudit.audit.engine" not in graph["ldpaudit.audit.cluster"]
    assert "ldpaudit.audit.floats" not in graph["ldpaudit.audit.features"]


def test_cycles_are_named_in_order():
    """A component that is not one simple cycle is named by each of its cycles."""
    graph = {"p.a": {"p.b"}, "p.b": {"p.a", "p.c"}, "p.c": {"p.b"}, "p.d": {"p.a"}}
    [component] = _components(graph)
    assert component == {"p.a", "p.b", "p.c"}
    assert _elementary_cycles(component, graph) == [["p.a", "p.b", "p.a"], ["p.b", "p.c", "p.b"]]
    ring = {"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}}
    assert _elementary_cycles(set(ring), ring) == [["p.a", "p.b", "p.c", "p.a"]]


def _copy(tmp_path: Path) -> Path:
    copy = tmp_path / "ldpaudit"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return copy


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_checker_names_a_cycle_closed_inside_a_function(tmp_path):
    copy = _copy(tmp_path)
    assert unexpected_cycles(copy) == []
    _append(copy / "errors.py", "\n\ndef _run_cli():\n    from ldpaudit.cli import main\n\n    return main()\n")
    assert unexpected_cycles(copy) == ["ldpaudit.cli → ldpaudit.errors → ldpaudit.cli"]


def test_checker_resolves_relative_imports(tmp_path):
    """``from . import events`` in ldpaudit/audit/bounds.py is an edge to the module events
    (which imports bounds); ``from ..errors import X`` in a package's __init__ is resolved from
    that package."""
    copy = _copy(tmp_path)
    _append(copy / "audit" / "bounds.py", "\n\nfrom . import events  # noqa: E402\n")
    _append(copy / "derive" / "__init__.py", "\n\nfrom ..errors import NotDerivable  # noqa: E402\n")
    graph = import_graph(copy)
    assert "ldpaudit.audit.events" in graph["ldpaudit.audit.bounds"]
    assert "ldpaudit.errors" in graph["ldpaudit.derive"]
    assert unexpected_cycles(copy) == ["ldpaudit.audit.bounds → ldpaudit.audit.events → ldpaudit.audit.bounds"]
