"""The rows of a table or the points of a figure: lists, ranges, logarithmic ranges, explicit
rows and the rows of a CSV file, counted before they are built (a grid of 10^9 rows is refused
by its size, not by the memory it would take).

Every value is exact: integers, and decimals or fractions written as text ("0.1", "1/2"), read
by :func:`ldpaudit.mechanism.expr.exact_decimal`; a logarithmic range's points are the exact
powers of its ratio (``{ from = 1, to = 1000, count = 4, log = true }``: 1, 10, 100, 1000)."""

from __future__ import annotations

import csv
import io
import itertools
import re
from pathlib import Path

import sympy as sp

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism.expr import BudgetExceeded, exact_decimal, shown

#: rows of one table (or points of one figure); a grid's size is the product of its lists' lengths
MAX_ROWS = 10_000
MAX_CSV_BYTES = 1_000_000
_NAME = re.compile(r"[A-Za-z_]\w*")
_RANGE = {"from", "to", "step", "count", "log"}


def number(value, field: str) -> sp.Basic:
    """An exact number from TOML: an integer, decimal/fraction text, or a constant expression
    ("log(3)", parsed by the spec files' allow-list); a float is refused."""
    if isinstance(value, bool):
        raise InvalidSpec(f"{field} = {value!r} is a boolean; write a number such as 2 or \"0.5\"")
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, float):
        raise InvalidSpec(f"{field} = {value!r} is a float, which is not exact; write it in quotes, \"{value!r}\"")
    if isinstance(value, str):
        try:
            q = exact_decimal(value)
        except BudgetExceeded as exc:
            raise InvalidSpec(f"{field}: {exc}") from None
        if q is not None:
            return sp.Rational(q.numerator, q.denominator)
        from ldpaudit.mechanism.expr import parse_expression

        expr = parse_expression(value, {}, field=field)  # a constant such as log(3): the allow-list parser
        if expr.is_number and expr.is_extended_real:
            return expr
    raise InvalidSpec(f"{field} = {shown(value)} is not a number; write an integer, decimal text such as \"0.5\" "
                      "or a constant expression such as \"log(3)\"")


def _count(spec: dict, field: str) -> int:
    """How many points a range gives, computed from its ends before any point is built."""
    extra = sorted(set(spec) - _RANGE)
    if extra:
        raise InvalidSpec(f"{field}.{extra[0]} is not a range key; a range has from, to and step, or count (log = true)")
    for key in ("from", "to"):
        if key not in spec:
            raise InvalidSpec(f"{field}.{key} is missing; a range is {{ from = 1, to = 10, step = 1 }}")
    lo, hi = number(spec["from"], f"{field}.from"), number(spec["to"], f"{field}.to")
    if hi < lo:
        raise InvalidSpec(f"{field}: to = {hi} is below from = {lo}; write the smaller end first")
    if spec.get("log"):
        if "count" not in spec:
            raise InvalidSpec(f"{field}: a logarithmic range needs count (the number of points), e.g. count = 5")
        if lo <= 0:
            raise InvalidSpec(f"{field}.from = {lo}: a logarithmic range starts above 0")
    if "count" in spec:
        count = spec["count"]
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise InvalidSpec(f"{field}.count = {shown(count)} must be a positive integer")
        if count == 1 and lo != hi:
            raise InvalidSpec(f"{field}.count = 1 needs from = to; give at least 2 points between {lo} and {hi}")
        return count
    if "step" not in spec:
        raise InvalidSpec(f"{field}: give step (an arithmetic range) or count (points), e.g. step = \"1/2\"")
    step = number(spec["step"], f"{field}.step")
    if step <= 0:
        raise InvalidSpec(f"{field}.step = {step} must be positive")
    return int(sp.floor((hi - lo) / step)) + 1


def _points(spec: dict, field: str, count: int) -> list:
    lo, hi = number(spec["from"], f"{field}.from"), number(spec["to"], f"{field}.to")
    if count == 1:
        return [lo]
    if spec.get("log"):
        ratio = hi / lo
        return [sp.nsimplify(lo * ratio ** sp.Rational(i, count - 1)) for i in range(count)]
    if "count" in spec:
        return [lo + (hi - lo) * sp.Rational(i, count - 1) for i in range(count)]
    step = number(spec["step"], f"{field}.step")
    return [lo + step * i for i in range(count)]


def axis(name: str, spec, field: str) -> tuple[int, object]:
    """(number of values, a function that lists them) for one parameter of a grid."""
    if not _NAME.fullmatch(name):
        raise InvalidSpec(f"{field}: {name!r} is not a parameter name")
    if isinstance(spec, list):
        if not spec:
            raise InvalidSpec(f"{field} is an empty list; give at least one value")
        return len(spec), lambda: [number(v, f"{field}[{i}]") for i, v in enumerate(spec)]
    if isinstance(spec, dict):
        n = _count(spec, field)
        return n, lambda: _points(spec, field, n)
    return 1, lambda: [number(spec, field)]


def grid_rows(grid: dict, field: str, limit: int = MAX_ROWS) -> list[dict]:
    """The product of the grid's axes, in the order written (the last axis varies fastest)."""
    if not isinstance(grid, dict) or not grid:
        raise InvalidSpec(f"{field} must be a table of parameters, e.g. {{ d = [2, 4], epsilon = \"1\" }}")
    axes = [(name, *axis(name, spec, f"{field}.{name}")) for name, spec in grid.items()]
    total = 1
    for name, n, _ in axes:
        total *= n
        if total > limit:
            raise InvalidSpec(f"{field} has more than {limit:,} rows (the product of its axes' lengths reaches "
                              f"{total:,} at {name}); use fewer or coarser values, or split the table")
    values = [(name, listing()) for name, _, listing in axes]
    return [dict(zip([n for n, _ in values], combo)) for combo in itertools.product(*(v for _, v in values))]


def explicit_rows(rows, field: str, limit: int = MAX_ROWS) -> list[dict]:
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise InvalidSpec(f"{field} must be an array of tables, e.g. [{{ d = 2, epsilon = \"0.1\" }}]")
    if len(rows) > limit:
        raise InvalidSpec(f"{field} has {len(rows):,} rows, more than {limit:,}; split the table")
    out = []
    for i, row in enumerate(rows):
        for name in row:
            if not _NAME.fullmatch(name):
                raise InvalidSpec(f"{field}[{i}]: {name!r} is not a parameter name")
        out.append({name: number(v, f"{field}[{i}].{name}") for name, v in row.items()})
    return out


def csv_rows(path: Path, field: str, limit: int = MAX_ROWS) -> list[dict[str, str]]:
    """The records of a CSV file with a header line (lines starting with # are comments), each
    column as text: a table takes its parameters from some columns and printed values from others."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InvalidSpec(f"{field} = {str(path)!r} does not exist; give a CSV file beside the manifest") from None
    if len(data) > MAX_CSV_BYTES:
        raise InvalidSpec(f"{field} = {str(path)!r} is {len(data):,} bytes, more than {MAX_CSV_BYTES:,}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidSpec(f"{field} = {str(path)!r} is not UTF-8 text") from None
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if len(lines) - 1 > limit:
        raise InvalidSpec(f"{field} = {str(path)!r} has {len(lines) - 1:,} rows, more than {limit:,}; split the table")
    reader = csv.DictReader(io.StringIO("\n".join(lines)))
    records = [{k.strip(): (v or "").strip() for k, v in r.items() if k is not None} for r in reader]
    if not records:
        raise InvalidSpec(f"{field} = {str(path)!r} has no rows under its header line")
    return records


__all__ = ["MAX_ROWS", "number", "grid_rows", "explicit_rows", "csv_rows"]
