"""Find and parse a target's source without importing it.

``package.module:function`` is looked up on ``sys.path`` by walking the directories
(``package/module.py`` or ``package/module/__init__.py``): ``importlib.util.find_spec`` of a
dotted name imports the parent packages, which would run their code. ``path/to/file.py:function``
is read as written. The file is parsed with :mod:`ast`; nothing in it is executed. The target
names a function at the module's top level: a randomizer ``f(x, ...)`` or a factory (a function
returning a function it defines), read through its ``return``.
"""
from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

from ldpaudit.errors import InvalidParameter

#: the largest source file read (bytes)
MAX_SOURCE_BYTES = 2_000_000
#: default work budget of one extraction (statements, expressions and draw outcomes)
DEFAULT_STEPS = 5_000_000


@dataclass(frozen=True)
class Source:
    """A parsed module and the function the target names."""

    target: str
    path: Path
    tree: ast.Module
    function: ast.FunctionDef

    @property
    def shown_path(self) -> str:
        try:
            return str(self.path.resolve().relative_to(Path.cwd().resolve()))
        except ValueError:
            return str(self.path)


def _split(target: str) -> tuple[str, str]:
    if not isinstance(target, str) or ":" not in target:
        raise InvalidParameter(
            f"target {target!r} must look like 'package.module:function' or 'path/to/file.py:function'")
    where, _, name = target.rpartition(":")
    if not where or not name.isidentifier():
        raise InvalidParameter(
            f"target {target!r} must look like 'package.module:function' or 'path/to/file.py:function'")
    return where, name


def locate(target: str) -> tuple[Path, str]:
    """The file holding the target and the function's name, found without importing."""
    where, name = _split(target)
    if where.endswith(".py") or "/" in where or "\\" in where:
        path = Path(where)
        if not path.is_file():
            raise InvalidParameter(f"target {target!r}: the file {where!r} does not exist; check the path")
        return path, name
    parts = where.split(".")
    if not all(p.isidentifier() for p in parts):
        raise InvalidParameter(f"target {target!r}: {where!r} is not a dotted module name such as package.module")
    for base in _roots(parts[0]):
        stem = base.joinpath(*parts)
        for candidate in (stem.with_suffix(".py"), stem / "__init__.py"):
            if candidate.is_file():
                return candidate, name
    raise InvalidParameter(
        f"target {target!r}: no source file for module {where!r} on sys.path (looked for "
        f"{'/'.join(parts)}.py and {'/'.join(parts)}/__init__.py); give path/to/file.py:{name}")


def _roots(top: str) -> list[Path]:
    """Directories that may hold the top-level package ``top``: the entries of sys.path,
    where the import system's finders place it (an editable install's finder), and the working
    directory: finding a top-level name runs nothing, unlike ``find_spec`` of a dotted name,
    which imports parents."""
    roots = [Path(entry or ".") for entry in sys.path]
    try:
        import importlib.util

        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        roots += [Path(location).parent for location in spec.submodule_search_locations or []]
        if spec.origin and spec.origin.endswith(".py"):
            origin = Path(spec.origin)
            roots.append(origin.parent.parent if origin.name == "__init__.py" else origin.parent)
    # last, the working directory, as ``python -m`` and audit's targets look there (the console
    # script's sys.path starts at its bin directory instead)
    roots.append(Path.cwd())
    return [r for r in roots if r.is_dir()]  # zip files and eggs are not read


def read_source(target: str) -> Source:
    path, name = locate(target)
    try:
        size = path.stat().st_size
        if size > MAX_SOURCE_BYTES:
            raise InvalidParameter(f"target {target!r}: {path} is {size} bytes; the limit is {MAX_SOURCE_BYTES}")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidParameter(f"target {target!r}: cannot read {path}: {exc}") from None
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        raise InvalidParameter(f"target {target!r}: {path}:{exc.lineno}: syntax error: {exc.msg}") from None
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    if name not in functions:
        async_ = any(isinstance(n, ast.AsyncFunctionDef) and n.name == name for n in tree.body)
        listed = ", ".join(sorted(f for f in functions if not f.startswith("_"))[:8]) or "none"
        kind = "an async function (not supported)" if async_ else "not a top-level function"
        raise InvalidParameter(f"target {target!r}: {name!r} is {kind} in {path} (its functions: {listed}); "
                               "fix the name after ':'")
    return Source(target, path, tree, functions[name])
