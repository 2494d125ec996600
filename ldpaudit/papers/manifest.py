"""``paper.toml``: a paper as data. Read with ``tomllib``; every expression goes through the spec
files' allow-list parser (:func:`ldpaudit.mechanism.expr.parse_expression`), never ``eval``::

    [paper]
    title = "My mechanism against k-RR"
    source = "A. Author, 2026"
    output = "build"                       # folder for the fragments, beside the manifest

    [mechanisms]
    mine = "mine.toml"                     # a spec file (beside the manifest) or a bundled name
    krr = { spec = "krr", let = { d = "3" } }

    [quantities]                           # named expressions over quantities
    gain = "krr.l2_worst / mine.l2_worst"

    [[table]]
    name = "risks"
    grid = { epsilon = ["1/2", "1", "2"] } # or rows = [{...}], or csv = "rows.csv"
    columns = [
      { label = "k-RR", value = "krr.l2_worst" },
      { label = "gain", value = "gain", printed = ["1.2", "1.1", "1.0"] },
    ]

    [[figure]]
    name = "risk"
    x = { epsilon = { from = "1/2", to = "4", count = 8 } }
    curves = [{ label = "mine", value = "mine.l2_worst" },
              { label = "k-RR", value = "krr.l2_worst", simulate = { n = 1000, trials = 200, seed = 1 } }]
    log_y = true                           # simulate: seeded points from the reference sampler

    [[claim]]
    label = "Theorem 1"
    file = "claims.toml"                   # a claims file for ``ldpaudit prove``

    [[derivation]]
    mechanism = "mine"

A grid may keep only the rows where a condition holds (``where = "exp(epsilon) < d"``).
Quantities are listed in :mod:`ldpaudit.papers.quantities`; the calls that solve for a variable
(``at``, ``minimizer``, ``integer_minimizer``, ``best_integer``, ``crossing``, ``switch_point``)
in :mod:`ldpaudit.papers.solve`. A printed value is a number
(text: "0.0336", agreeing to half a unit of its last digit unless ``tolerance`` or
``relative_tolerance`` says otherwise) or an expression in the row's parameters (a formula the
paper prints, agreeing to a relative 1e-12); ``known_difference`` records a difference the
paper is known to have (a misprint): it is still reported DIFFER, and does not fail the build."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import sympy as sp

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism.expr import CONSTANTS, FUNCTIONS, exact_decimal, parse_expression, shown
from ldpaudit.mechanism.loader import MAX_TOML_NESTING, toml_nesting
from ldpaudit.papers import grid as grids
from ldpaudit.papers import quantities as Q
from ldpaudit.papers import solve

MAX_MANIFEST_BYTES = 1_000_000
MAX_ITEMS = 200
MODELS = ("iid", "fixed")
_TOP = {"paper", "mechanisms", "quantities", "table", "figure", "claim", "derivation", "hook"}
_PAPER = {"title", "source", "output", "model", "note"}
_TABLE = {"name", "caption", "model", "grid", "where", "rows", "csv", "parameters", "columns", "note"}
_COLUMN = {"label", "value", "printed", "printed_column", "tolerance", "relative_tolerance", "digits",
           "known_difference", "latex"}
_FIGURE = {"name", "caption", "model", "x", "fixed", "curves", "log_x", "log_y", "y_label", "x_label"}
_CURVE = {"label", "value", "simulate"}
_CLAIM = {"label", "file", "seconds"}
_DERIVATION = {"name", "mechanism", "model", "let"}
_HOOK = {"name", "hook", "options"}
_NAME = re.compile(r"[A-Za-z_]\w*")
_ITEM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_QUANTITY = re.compile(r"\b([A-Za-z_]\w*)\.([A-Za-z_]\w*)\b")
_RESERVED = {"n", "e", "pi", "E", "oo", "p_j"}
_KNOWN_NAMES = {*Q.CALLS, *FUNCTIONS, *CONSTANTS}
_SOLVING = re.compile(r"\b(?:" + "|".join(solve.CALLS) + r")\s*\(")


@dataclass(frozen=True)
class MechanismEntry:
    name: str
    spec: str                  # as written
    target: str                # what load_family reads: a path (resolved beside the manifest) or a bundled name
    lets: dict                 # parameter -> sympy expression in the rows' parameters
    entry: dict                # the manifest text of this entry (hashed)


@dataclass(frozen=True)
class Column:
    label: str
    text: str
    expr: sp.Basic
    printed: tuple | None      # per row: (text, exact value or None, tolerance, relative) or None
    digits: int
    known_difference: str
    latex: str


@dataclass(frozen=True)
class Item:
    kind: str                  # table, figure, claim, derivation, hook
    name: str
    entry: dict                # the manifest text of this item (hashed)
    uses: frozenset            # mechanism names the item's values depend on
    files: tuple = ()          # other files it reads (CSV, claims file, spec files of a claims file)
    caption: str = ""
    model: str = "iid"
    rows: tuple = ()
    columns: tuple = ()
    curves: tuple = ()
    x: str = ""
    options: dict = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.name}"


@dataclass(frozen=True)
class Manifest:
    path: Path
    title: str
    source: str
    note: str
    output: Path
    model: str
    mechanisms: dict
    quantities: dict           # name -> text (hashed into the items that use it)
    items: tuple


def load_manifest(path: str | Path) -> Manifest:
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InvalidSpec(f"manifest {str(path)!r} does not exist; give a paper.toml file") from None
    except IsADirectoryError:
        candidate = path / "paper.toml"
        if candidate.is_file():
            return load_manifest(candidate)
        raise InvalidSpec(f"{str(path)!r} is a folder without paper.toml; give the manifest file") from None
    if len(data) > MAX_MANIFEST_BYTES:
        raise InvalidSpec(f"{path}: the manifest is {len(data):,} bytes, more than {MAX_MANIFEST_BYTES:,}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidSpec(f"{path}: not UTF-8 text ({exc.reason})") from None
    if toml_nesting(text) > MAX_TOML_NESTING:
        raise InvalidSpec(f"{path}: arrays or tables are nested more than {MAX_TOML_NESTING} levels deep")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidSpec(f"{path}: invalid TOML: {' '.join(str(exc).split())}") from None
    try:
        return _build(doc, path.resolve())
    except InvalidSpec as exc:
        raise type(exc)(f"{path}: {exc}") from None


def _build(doc: dict, path: Path) -> Manifest:
    unknown = sorted(set(doc) - _TOP)
    if unknown:
        raise InvalidSpec(f"unknown key {unknown[0]!r}; a manifest has {', '.join(sorted(_TOP))}")
    paper = _table(doc, "paper")
    _keys(paper, _PAPER, "paper")
    title = _text(paper, "title", "paper.title")
    model = _model(paper.get("model", "iid"), "paper.model")
    output = _text(paper, "output", "paper.output", "build")
    mechanisms = _mechanisms(_table(doc, "mechanisms", required=False), path.parent)
    quantities = _table(doc, "quantities", required=False)
    parser = _Parser(mechanisms, quantities)
    items = []
    for kind, builder in (("table", _table_item), ("figure", _figure_item), ("claim", _claim_item),
                          ("derivation", _derivation_item), ("hook", _hook_item)):
        raw = doc.get(kind, [])
        if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
            raise InvalidSpec(f"{kind} must be an array of tables ([[{kind}]])")
        for i, entry in enumerate(raw):
            items.append(builder(entry, f"{kind}[{i}]", parser, model, path.parent))
    if not items:
        raise InvalidSpec("the manifest builds nothing; add a [[table]], [[figure]], [[claim]] or [[derivation]]")
    if len(items) > MAX_ITEMS:
        raise InvalidSpec(f"the manifest has {len(items)} items, more than {MAX_ITEMS}; split the paper")
    seen = {}
    for item in items:
        if item.key in seen:
            raise InvalidSpec(f"two {item.kind}s are named {item.name!r}; give each a distinct name")
        seen[item.key] = item
    return Manifest(path, title, _text(paper, "source", "paper.source", ""), _text(paper, "note", "paper.note", ""),
                    path.parent / output, model, mechanisms, {k: str(v) for k, v in quantities.items()}, tuple(items))


# --- small readers -------------------------------------------------------------------------


def _table(doc: dict, key: str, *, required: bool = True) -> dict:
    value = doc.get(key)
    if value is None:
        if required:
            raise InvalidSpec(f"[{key}] is missing; a manifest opens with [paper] title = \"...\"")
        return {}
    if not isinstance(value, dict):
        raise InvalidSpec(f"{key} = {shown(value)} must be a table ([{key}])")
    return value


def _keys(entry: dict, allowed: set, where: str) -> None:
    extra = sorted(set(entry) - allowed)
    if extra:
        raise InvalidSpec(f"{where}.{extra[0]} is not a key of {where.split('[')[0]}; use {', '.join(sorted(allowed))}")


def _text(entry: dict, key: str, where: str, default: str | None = None) -> str:
    value = entry.get(key, default)
    if value is None:
        raise InvalidSpec(f"{where} is missing; write {key} = \"...\"")
    if not isinstance(value, str):
        raise InvalidSpec(f"{where} = {shown(value)} must be a string")
    return value


def _model(value, where: str) -> str:
    if value not in MODELS:
        raise InvalidSpec(f"{where} = {shown(value)} is unknown; use 'iid' (i.i.d. inputs) or 'fixed' (fixed population)")
    return value


def _item_name(entry: dict, where: str, default: str | None = None) -> str:
    name = _text(entry, "name", f"{where}.name", default)
    if not _ITEM_NAME.fullmatch(name) or len(name) > 80:
        raise InvalidSpec(f"{where}.name = {shown(name)}: use letters, digits, '_', '-' and '.' (it names files)")
    return name


def _mechanisms(table: dict, base: Path) -> dict:
    out = {}
    for name, value in table.items():
        where = f"mechanisms.{name}"
        if not _NAME.fullmatch(name) or name in _RESERVED or "__" in name:
            raise InvalidSpec(f"{where}: {name!r} is not a usable mechanism name (letters, digits, single '_')")
        lets = {}
        if isinstance(value, dict):
            _keys(value, {"spec", "let"}, where)
            lets = value.get("let", {})
            if not isinstance(lets, dict):
                raise InvalidSpec(f"{where}.let = {shown(lets)} must be a table such as {{ d = \"8\" }}")
            if "spec" not in value:
                raise InvalidSpec(f"{where}.spec is missing; write spec = \"krr\" or spec = \"mine.toml\"")
            value = value["spec"]
        if not isinstance(value, str):
            raise InvalidSpec(f"{where} = {shown(value)} must be a bundled name or a spec file path")
        target = value
        if value.endswith(".toml") or "/" in value:
            p = Path(value)
            p = p if p.is_absolute() else base / p
            if not p.is_file():
                raise InvalidSpec(f"{where}: spec file {value!r} does not exist (looked for {str(p)!r}); "
                                  "give a path relative to the manifest")
            target = str(p)
        else:
            from ldpaudit.mechanism.catalog import CATALOG

            if value not in CATALOG:
                raise InvalidSpec(f"{where} = {value!r} is neither a spec file (.toml) nor a bundled name; "
                                  f"bundled: {', '.join(CATALOG)}")
        parsed = {}
        for p_name, text in lets.items():
            if not _NAME.fullmatch(p_name):
                raise InvalidSpec(f"{where}.let: {p_name!r} is not a parameter name")
            parsed[p_name] = _let(text, f"{where}.let.{p_name}")
        entry = {"spec": value, "let": {k: str(v) for k, v in lets.items()}}
        out[name] = MechanismEntry(name, value, target, parsed, entry)
    return out


def _let(text, where: str) -> sp.Basic:
    """A binding: a number, or an expression in the rows' parameters (symbols resolved later)."""
    if isinstance(text, int) and not isinstance(text, bool):
        return sp.Integer(text)
    value = grids.number(text, where) if isinstance(text, str) and exact_decimal(text) is not None else None
    if value is not None:
        return value
    if not isinstance(text, str):
        grids.number(text, where)  # the message for floats and booleans
    names = set(_NAME.findall(text)) - set(Q.CALLS)
    symbols = {n: sp.Symbol(n, real=True) for n in names}
    return parse_expression(text, symbols, field=where)


class _Parser:
    """Expression text -> sympy, with ``M.q`` resolved to placeholder symbols ``M__q``, named
    quantities inlined, and calls of ``delta(M, ...)`` etc. allowed; the rest as in specs."""

    def __init__(self, mechanisms: dict, quantities: dict):
        self.mechanisms = mechanisms
        self.quantities_text = quantities
        self.quantities: dict = {}
        self._parsing: list = []

    def parse(self, text, where: str, parameters: set) -> tuple[sp.Basic, frozenset, frozenset]:
        """(expression, mechanisms used, named quantities used)."""
        if not isinstance(text, str):
            if isinstance(text, int) and not isinstance(text, bool):
                return sp.Integer(text), frozenset(), frozenset()
            raise InvalidSpec(f"{where} = {shown(text)} must be an expression in quotes, e.g. \"krr.l2_worst\"")
        uses, named, loose = set(), set(), set()

        def repl(m):
            mech, q = m.group(1), m.group(2)
            if mech not in self.mechanisms:
                raise InvalidSpec(f"{where} = {shown(text)}: {mech}.{q} names the mechanism {mech!r}, which "
                                  f"[mechanisms] does not declare (declared: {', '.join(self.mechanisms) or 'none'})")
            if not Q.known(q):
                raise InvalidSpec(f"{where} = {shown(text)}: unknown quantity {q!r} of {mech}; known: {Q.names()}")
            uses.add(mech)
            return f"{mech}__{q}"

        rewritten = _QUANTITY.sub(repl, text)
        symbols = {}
        for name in set(_NAME.findall(rewritten)):
            if "__" in name:
                symbols[name] = sp.Symbol(name)
            elif name in self.mechanisms:
                symbols[name] = sp.Symbol(name)
                uses.add(name)
            elif name in self.quantities_text and name not in parameters:
                expr, u, n = self.named(name, parameters)
                symbols[name] = expr
                uses |= u
                named |= n | {name}
            elif name in parameters or name == "n":
                symbols[name] = sp.Symbol(name, real=True)
            elif name not in _KNOWN_NAMES and _SOLVING.search(rewritten):
                symbols[name] = sp.Symbol(name, real=True)  # a solving call's variable, checked below
                loose.add(name)
        try:
            expr = parse_expression(rewritten, symbols, field=where, functions=Q.CALLS)
        except InvalidSpec as exc:
            raise InvalidSpec(str(exc).replace(shown(rewritten), shown(text)).replace("__", ".")) from None
        variables = {solve.variable(node) for node in expr.atoms(*solve.CALL_TYPES)}
        stray = sorted(loose - variables)
        if stray:
            raise InvalidSpec(f"{where} = {shown(text)}: unknown symbol {stray[0]!r}; a name that is neither a "
                              "parameter of the rows nor a quantity must be the variable of at(), minimizer(), "
                              "integer_minimizer(), crossing() or switch_point()")
        for name in self.mechanisms:
            s = sp.Symbol(name)
            outside = expr.xreplace({c: sp.Integer(0) for c in expr.atoms(*Q.CALL_TYPES)}) if s in expr.free_symbols else None
            if outside is not None and s in outside.free_symbols:
                raise InvalidSpec(f"{where} = {shown(text)}: the mechanism {name!r} is used as a number; write "
                                  f"{name}.l2_worst (a quantity) or delta({name}, eps)")
        return expr, frozenset(uses), frozenset(named)

    def named(self, name: str, parameters: set):
        if name in self._parsing:
            raise InvalidSpec(f"quantities.{name} refers to itself (through {' -> '.join(self._parsing)})")
        key = (name, frozenset(parameters))
        if key not in self.quantities:
            self._parsing.append(name)
            try:
                self.quantities[key] = self.parse(self.quantities_text[name], f"quantities.{name}", parameters)
            finally:
                self._parsing.pop()
        return self.quantities[key]



# --- items ---------------------------------------------------------------------------------


def _rows(entry: dict, where: str, base: Path) -> tuple[list, list, tuple]:
    """(rows of exact parameters, CSV records or [], files read)."""
    given = [k for k in ("grid", "rows", "csv") if k in entry]
    if len(given) != 1:
        raise InvalidSpec(f"{where}: give exactly one of grid, rows or csv (the table's rows)"
                          + (f"; found {', '.join(given)}" if given else ""))
    if "grid" in entry:
        return grids.grid_rows(entry["grid"], f"{where}.grid"), [], ()
    if "rows" in entry:
        return grids.explicit_rows(entry["rows"], f"{where}.rows"), [], ()
    csv_name = _text(entry, "csv", f"{where}.csv")
    p = Path(csv_name)
    p = p if p.is_absolute() else base / p
    records = grids.csv_rows(p, f"{where}.csv")
    params = entry.get("parameters")
    if not isinstance(params, list) or not params or not all(isinstance(x, str) for x in params):
        raise InvalidSpec(f"{where}.parameters must list the CSV columns that are parameters, e.g. [\"d\", \"epsilon\"]")
    for name in params:
        if name not in records[0]:
            raise InvalidSpec(f"{where}.parameters: the CSV has no column {name!r} (columns: {', '.join(records[0])})")
        if not _NAME.fullmatch(name):
            raise InvalidSpec(f"{where}.parameters: {name!r} is not a parameter name")
    rows = [{n: grids.number(r[n], f"{where}.csv row {i + 1} column {n}") for n in params}
            for i, r in enumerate(records)]
    return rows, records, (p,)


def _printed(col: dict, where: str, rows: list, records: list, parser: _Parser, params: set) -> tuple | None:
    if "printed" in col and "printed_column" in col:
        raise InvalidSpec(f"{where}: give printed or printed_column, not both")
    tol = grids.number(col["tolerance"], f"{where}.tolerance") if "tolerance" in col else None
    rel = grids.number(col["relative_tolerance"], f"{where}.relative_tolerance") if "relative_tolerance" in col else None
    for name, v in (("tolerance", tol), ("relative_tolerance", rel)):
        if v is not None and v < 0:
            raise InvalidSpec(f"{where}.{name} = {v} must be >= 0")
    if "printed_column" in col:
        name = col["printed_column"]
        if not records:
            raise InvalidSpec(f"{where}.printed_column needs the table's rows from a CSV (csv = \"...\")")
        if name not in records[0]:
            raise InvalidSpec(f"{where}.printed_column = {shown(name)}: the CSV has no such column "
                              f"(columns: {', '.join(records[0])})")
        texts = [r[name] for r in records]
    elif "printed" in col:
        texts = col["printed"]
        if isinstance(texts, (str, int, float)) and not isinstance(texts, bool):
            texts = [texts] * len(rows)
        if not isinstance(texts, list) or len(texts) != len(rows):
            n = len(texts) if isinstance(texts, list) else 1
            raise InvalidSpec(f"{where}.printed has {n} values for {len(rows)} rows; give one per row (or one for all)")
    else:
        return None
    out = []
    for i, text in enumerate(texts):
        f = f"{where}.printed[{i}]"
        if text == "" or text is None:
            out.append(None)
            continue
        if isinstance(text, (int, float)) and not isinstance(text, bool):
            value = grids.number(text, f)
            out.append((str(text), value, tol if tol is not None else sp.Integer(0), rel or sp.Integer(0)))
            continue
        if not isinstance(text, str):
            raise InvalidSpec(f"{f} = {shown(text)} must be a number in quotes or an expression")
        q = exact_decimal(text)
        if q is not None:
            value = sp.Rational(q.numerator, q.denominator)
            out.append((text, value, tol if tol is not None else _half_unit(text), rel or sp.Integer(0)))
        else:
            expr, uses, _ = parser.parse(text, f, params)
            if uses:
                raise InvalidSpec(f"{f} = {shown(text)}: a printed value is what the paper prints, in the row's "
                                  "parameters; it may not name a mechanism's quantity")
            out.append((text, expr, tol or sp.Integer(0), rel if rel is not None else sp.Rational(1, 10**12)))
    return tuple(out)


def _half_unit(text: str) -> sp.Rational:
    """Half a unit of the last digit printed: "0.0336" -> 1/20000; "3" -> 0 (an integer is exact)."""
    mantissa, _, exponent = text.strip().lower().partition("e")
    if "/" in mantissa:
        return sp.Integer(0)
    decimals = len(mantissa.partition(".")[2])
    shift = int(exponent) if exponent else 0
    if decimals == 0 and shift >= 0:
        return sp.Integer(0)
    return sp.Rational(1, 2) * sp.Integer(10) ** (shift - decimals)


def _dump(entry: dict) -> dict:
    return json.loads(json.dumps(entry, sort_keys=True, default=str))


def _table_item(entry: dict, where: str, parser: _Parser, model: str, base: Path) -> Item:
    _keys(entry, _TABLE, where)
    name = _item_name(entry, where)
    rows, records, files = _rows(entry, where, base)
    if "where" in entry:
        rows = _where(entry, rows, where)
    params = set(rows[0]) if rows else set()
    cols = entry.get("columns")
    if not isinstance(cols, list) or not cols or not all(isinstance(c, dict) for c in cols):
        raise InvalidSpec(f"{where}.columns must be an array of tables, e.g. [{{ label = \"k-RR\", value = \"krr.l2_worst\" }}]")
    columns, uses, named = [], set(), set()
    for j, col in enumerate(cols):
        f = f"{where}.columns[{j}]"
        _keys(col, _COLUMN, f)
        label = _text(col, "label", f"{f}.label")
        expr, u, n = parser.parse(col.get("value"), f"{f}.value", params) if "value" in col else (None, set(), set())
        if expr is None:
            raise InvalidSpec(f"{f}.value is missing; write value = \"krr.l2_worst\"")
        digits = col.get("digits", 6)
        if not isinstance(digits, int) or isinstance(digits, bool) or not 1 <= digits <= 30:
            raise InvalidSpec(f"{f}.digits = {shown(digits)} must be an integer from 1 to 30")
        printed = _printed(col, f, rows, records, parser, params)
        known = col.get("known_difference", "")
        if not isinstance(known, str):
            raise InvalidSpec(f"{f}.known_difference = {shown(known)} must be a sentence saying what the paper misprints")
        if known and printed is None:
            raise InvalidSpec(f"{f}.known_difference needs printed values to differ from")
        columns.append(Column(label, col["value"] if isinstance(col["value"], str) else str(col["value"]), expr,
                              printed, digits, known, _text(col, "latex", f"{f}.latex", "")))
        uses |= u
        named |= n
    quantities = {k: parser.quantities_text[k] for k in sorted(named)}
    return Item("table", name, {"table": _dump(entry), "quantities": quantities}, frozenset(uses), files,
                _text(entry, "caption", f"{where}.caption", ""), _model(entry.get("model", model), f"{where}.model"),
                tuple(rows), tuple(columns))


def _where(entry: dict, rows: list, where: str) -> list:
    """The rows of a grid where a condition on its parameters holds (decided exactly)."""
    from ldpaudit.mechanism.expr import parse_predicate

    if "grid" not in entry:
        raise InvalidSpec(f"{where}.where filters a grid; list the rows themselves instead")
    text = entry["where"]
    if not isinstance(text, str):
        raise InvalidSpec(f"{where}.where = {shown(text)} must be a condition in quotes, e.g. \"exp(epsilon) < d\"")
    symbols = {name: sp.Symbol(name, real=True) for name in rows[0]}
    condition = parse_predicate(text, symbols, field=f"{where}.where")
    kept = []
    for row in rows:
        value = condition.xreplace({symbols[k]: v for k, v in row.items()})
        if value not in (sp.true, sp.false):
            raise InvalidSpec(f"{where}.where = {shown(text)} is not decided at {row}")
        if value == sp.true:
            kept.append(row)
    if not kept:
        raise InvalidSpec(f"{where}.where = {shown(text)} holds at no row of the grid")
    return kept


def _figure_item(entry: dict, where: str, parser: _Parser, model: str, base: Path) -> Item:
    _keys(entry, _FIGURE, where)
    name = _item_name(entry, where)
    x = entry.get("x")
    if not isinstance(x, dict) or len(x) != 1:
        raise InvalidSpec(f"{where}.x must name one parameter and its values, e.g. {{ epsilon = {{ from = \"1/2\", "
                          "to = \"4\", count = 8 }} }}")
    (x_name, x_spec), = x.items()
    fixed = entry.get("fixed", {})
    if not isinstance(fixed, dict):
        raise InvalidSpec(f"{where}.fixed = {shown(fixed)} must be a table such as {{ d = 8 }}")
    points = grids.grid_rows({x_name: x_spec}, f"{where}.x", limit=2000)
    constants = {k: grids.number(v, f"{where}.fixed.{k}") for k, v in fixed.items()}
    rows = [dict(constants, **p) for p in points]
    params = set(rows[0])
    curves_raw = entry.get("curves")
    if not isinstance(curves_raw, list) or not curves_raw or not all(isinstance(c, dict) for c in curves_raw):
        raise InvalidSpec(f"{where}.curves must be an array of tables, e.g. [{{ label = \"k-RR\", value = \"krr.l2_worst\" }}]")
    curves, uses, named = [], set(), set()
    for j, c in enumerate(curves_raw):
        f = f"{where}.curves[{j}]"
        _keys(c, _CURVE, f)
        if "value" not in c:
            raise InvalidSpec(f"{f}.value is missing; write value = \"krr.l2_worst\"")
        expr, u, n = parser.parse(c["value"], f"{f}.value", params)
        simulate = None
        if "simulate" in c:
            from ldpaudit.papers import simulated

            simulate = simulated.parse(c["simulate"], f"{f}.simulate", c["value"], parser.mechanisms)
            simulated.check_size(simulate, len(rows), f"{f}.simulate")
        curves.append((_text(c, "label", f"{f}.label"), c["value"], expr, simulate))
        uses |= u
        named |= n
    for key in ("log_x", "log_y"):
        if not isinstance(entry.get(key, False), bool):
            raise InvalidSpec(f"{where}.{key} = {shown(entry[key])} must be true or false")
    options = {"log_x": entry.get("log_x", False), "log_y": entry.get("log_y", False),
               "x_label": _text(entry, "x_label", f"{where}.x_label", x_name),
               "y_label": _text(entry, "y_label", f"{where}.y_label", "")}
    quantities = {k: parser.quantities_text[k] for k in sorted(named)}
    return Item("figure", name, {"figure": _dump(entry), "quantities": quantities}, frozenset(uses), (),
                _text(entry, "caption", f"{where}.caption", ""), _model(entry.get("model", model), f"{where}.model"),
                tuple(rows), (), tuple(curves), x_name, options)


def _claim_item(entry: dict, where: str, parser: _Parser, model: str, base: Path) -> Item:
    _keys(entry, _CLAIM, where)
    label = _text(entry, "label", f"{where}.label")
    file = _text(entry, "file", f"{where}.file")
    p = Path(file)
    p = p if p.is_absolute() else base / p
    if not p.is_file():
        raise InvalidSpec(f"{where}.file = {file!r} does not exist (looked for {str(p)!r}); give a claims file "
                          "(ldpaudit prove) relative to the manifest")
    seconds = entry.get("seconds", 60)
    if isinstance(seconds, bool) or not isinstance(seconds, (int, str)) or grids.number(seconds, f"{where}.seconds") <= 0:
        raise InvalidSpec(f"{where}.seconds = {shown(seconds)} must be a positive CPU budget such as 60")
    files = [p, *_claim_spec_files(p)]
    slug = re.sub(r"[^A-Za-z0-9]+", "-", label).strip("-").lower() or "claim"
    return Item("claim", slug, {"claim": _dump(entry)}, frozenset(), tuple(files), label, model,
                options={"path": p, "seconds": float(grids.number(seconds, f"{where}.seconds"))})


def _claim_spec_files(path: Path) -> list[Path]:
    """The spec files a claims file names (hashed with it), read without building anything."""
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError):
        return []  # ldpaudit prove reports what is wrong with it, naming its keys
    out = []
    for value in (doc.get("specs") or {}).values() if isinstance(doc.get("specs"), dict) else ():
        spec = value.get("spec") if isinstance(value, dict) else value
        if isinstance(spec, str) and (spec.endswith(".toml") or "/" in spec):
            p = Path(spec)
            p = p if p.is_absolute() else path.parent / p
            if p.is_file():
                out.append(p)
    return out


def _derivation_item(entry: dict, where: str, parser: _Parser, model: str, base: Path) -> Item:
    _keys(entry, _DERIVATION, where)
    mech = _text(entry, "mechanism", f"{where}.mechanism")
    if mech not in parser.mechanisms:
        raise InvalidSpec(f"{where}.mechanism = {mech!r} is not declared under [mechanisms] "
                          f"(declared: {', '.join(parser.mechanisms) or 'none'})")
    lets = entry.get("let", {})
    if not isinstance(lets, dict):
        raise InvalidSpec(f"{where}.let = {shown(lets)} must be a table such as {{ d = 8 }}")
    values = {k: grids.number(v, f"{where}.let.{k}") for k, v in lets.items()}
    return Item("derivation", _item_name(entry, where, mech), {"derivation": _dump(entry)}, frozenset({mech}), (),
                f"Derivation of {mech}", _model(entry.get("model", model), f"{where}.model"),
                options={"mechanism": mech, "let": values})


def _hook_item(entry: dict, where: str, parser: _Parser, model: str, base: Path) -> Item:
    from ldpaudit.papers.hooks import HOOKS

    _keys(entry, _HOOK, where)
    hook = _text(entry, "hook", f"{where}.hook")
    if hook not in HOOKS:
        raise InvalidSpec(f"{where}.hook = {hook!r} is not a named hook; known: {', '.join(HOOKS) or 'none'}")
    options = entry.get("options", {})
    if not isinstance(options, dict):
        raise InvalidSpec(f"{where}.options = {shown(options)} must be a table")
    return Item("hook", _item_name(entry, where, hook), {"hook": _dump(entry)}, frozenset(), (), hook, model,
                options={"hook": hook, **options})


__all__ = ["Manifest", "Item", "Column", "MechanismEntry", "load_manifest", "MODELS"]
