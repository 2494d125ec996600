"""The tables of a spec file and their allowed keys, read with one-line errors that name the
key: text, numbers, bounds, the input domain, labels and the definitions a channel refers to.
Shared by the loader (:mod:`ldpaudit.mechanism.loader`) and the channel readers
(:mod:`ldpaudit.mechanism.spec_channels`).
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.expr import (
    CONSTANTS,
    FUNCTIONS,
    parse_expression,
    shown,
)
from ldpaudit.mechanism.params import X, Z
from ldpaudit.mechanism.spaces import BoxDomain, FiniteDomain, IntervalDomain

MAX_LABEL = 2**63  # integer labels and hash values are 64-bit
MAX_NAME = 200  # characters of mechanism.name (it appears in every message)
MAX_LABELS = 100_000  # inputs.labels, channel.outputs
MAX_EXPLICIT_ENTRIES = 4096  # cells of an explicit channel generated from channel.entry

_TOP = {"mechanism", "parameters", "example", "inputs", "channel", "definitions"}
_MECHANISM = {"name", "claimed_epsilon", "claimed_delta", "description", "source"}
_PARAMETER = {"type", "min", "max", "strict_min", "strict_max", "description", "public", "unbounded"}
_INPUTS = {"size", "labels", "low", "high", "real", "dimension"}
_CHANNEL = {
    "explicit": {"form", "outputs", "rows", "entry"},
    "structured": {"form", "outputs", "size", "universe", "k", "hash", "classes", "cohorts", "family", "seed",
                   "permutation"},
    "product": {"form", "coordinates", "on", "off"},
    "bloom": {"form", "cohorts", "k", "hashes", "hash", "family", "seed", "permutation", "on", "off"},
    "density": {"form", "density"},
    "signs": {"form", "latent", "entry", "scale"},
    "coordinates": {"form", "sampled", "scale", "coordinate"},
    "mixture": {"form", "components"},
    "matrix": {"form", "file"},
}
#: the channel forms whose expressions may use [definitions]
_DEFINITION_FORMS = {"density", "signs", "coordinates", "mixture"}
_COORDINATE = {"form", "density", "outputs", "entry", "components"}
_COMPONENT = {"weight", "density", "outputs", "entry", "at"}
_CLASS = {"name", "when", "count", "weight"}
_LAW = {"values", "density"}


def _with_path(mech: Mechanism, source: str) -> Mechanism:
    object.__setattr__(mech, "spec_path", source)
    return mech


def _table(doc, key, where, allowed, *, required=True) -> dict:
    value = doc.get(key)
    if value is None:
        if required:
            raise InvalidSpec(f"missing [{where}] table")
        return {}
    if not isinstance(value, dict):
        raise InvalidSpec(f"{where} must be a table, got {type(value).__name__}")
    _no_unknown(value, where, allowed)
    return value


def _class_tables(raw: dict):
    """``(i, table)`` for each ``[[channel.classes]]`` entry, checked to be a table with
    ``when``, ``count`` and ``weight`` and no unknown keys."""
    classes_t = raw.get("classes")
    if not isinstance(classes_t, list) or not classes_t:
        raise InvalidSpec("missing [[channel.classes]]: declare the output classes (when, count, weight)")
    for i, ct in enumerate(classes_t):
        if not isinstance(ct, dict):
            raise InvalidSpec(f"channel.classes[{i}] must be a table")
        _no_unknown(ct, f"channel.classes[{i}]", _CLASS)
        for key in ("when", "count", "weight"):
            if key not in ct:
                raise InvalidSpec(f"missing channel.classes[{i}].{key}")
        yield i, ct


def _no_unknown(table: Mapping, where: str, allowed: set) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise InvalidSpec(f"unknown key {shown(unknown[0])} in [{where}]; allowed keys: {', '.join(sorted(allowed))}")


def _text(table, key, where, *, required=True, default=""):
    value = table.get(key)
    if value is None:
        if required:
            raise InvalidSpec(f"missing {where}.{key}")
        return default
    if not isinstance(value, str):
        raise InvalidSpec(f"{where}.{key} = {shown(value)} must be a string")
    return value


def _number(value, field):
    if isinstance(value, bool) or isinstance(value, float):
        raise InvalidSpec(f"{field} = {shown(value)} must be an integer or an exact expression string such as \"1/2\"")
    expr = parse_expression(value, {}, field=field)
    return expr


def _bound(table, key, where, symbols):
    if key not in table:
        return None
    return parse_expression(table[key], symbols, field=f"{where}.{key}")


def _inputs(t: dict, symbols) -> FiniteDomain | IntervalDomain | BoxDomain:
    if "dimension" in t:
        return _box(t, symbols)
    real = t.get("real")
    if real is not None and real is not True:
        raise InvalidSpec(f"inputs.real = {real!r}; write real = true for real inputs (or leave it out)")
    if real or "low" in t or "high" in t:
        finite = sorted(set(t) & {"size", "labels"})
        if finite:
            raise InvalidSpec(f"inputs.{finite[0]} with real inputs (low/high/real); a domain is either finite or real")
        low = parse_expression(t["low"], symbols, field="inputs.low") if "low" in t else None
        high = parse_expression(t["high"], symbols, field="inputs.high") if "high" in t else None
        return IntervalDomain(low, high)
    if "labels" in t:
        labels = t["labels"]
        _check_labels(labels, "inputs.labels")
        return FiniteDomain(sp.Integer(len(labels)), tuple(labels))
    if "size" in t:
        return FiniteDomain(parse_expression(t["size"], symbols, field="inputs.size"))
    raise InvalidSpec("inputs needs size (inputs 0..size-1), labels, or low and high")


def _box(t: dict, symbols) -> BoxDomain:
    """Vector inputs: ``dimension`` (a positive integer or an integer parameter) with both ends."""
    dim = parse_expression(t["dimension"], symbols, field="inputs.dimension")
    if dim.is_number and not (dim.is_Integer and dim >= 1):
        raise InvalidSpec(f"inputs.dimension = {shown(dim)} must be a whole number >= 1 (coordinates of the input)")
    if not dim.is_number and not (dim.is_Symbol and dim.is_integer):
        raise InvalidSpec(f"inputs.dimension = {shown(dim)} must be a number or an integer parameter such as \"d\"")
    missing = [end for end in ("low", "high") if end not in t]
    if missing:
        raise InvalidSpec(f"inputs.dimension = {shown(t['dimension'])} declares vector inputs, but inputs.{missing[0]} is "
                          "missing; vector inputs need both bounds: set inputs.low and inputs.high (the box [low, high]^d), "
                          "e.g. low = -1, high = 1")
    extra = sorted(set(t) & {"size", "labels", "real"})
    if extra:
        raise InvalidSpec(f"inputs.{extra[0]} with inputs.dimension; vector inputs are the box [low, high]^dimension")
    low = parse_expression(t["low"], symbols, field="inputs.low")
    high = parse_expression(t["high"], symbols, field="inputs.high")
    return BoxDomain(dim, low, high)


def _check_labels(labels, field):
    if not isinstance(labels, list) or not labels:
        raise InvalidSpec(f"{field} = {shown(labels)} must be a non-empty list")
    if len(labels) > MAX_LABELS:
        raise InvalidSpec(f"{field} has {len(labels)} labels; the limit is {MAX_LABELS}")
    for item in labels:
        if isinstance(item, bool) or not isinstance(item, int | str):
            raise InvalidSpec(f"{field} contains {shown(item)}; labels must be integers or strings")
        if isinstance(item, int) and not -MAX_LABEL <= item < MAX_LABEL:
            raise InvalidSpec(f"{field} contains {shown(item)}; integer labels are limited to 64 bits")
        if isinstance(item, str) and len(item) > 200:
            raise InvalidSpec(f"{field} contains {shown(item)}; labels are limited to 200 characters")
    if len(set(labels)) != len(labels):
        raise InvalidSpec(f"{field} repeats a label")


def _definitions(doc, symbols) -> dict[str, sp.Basic]:
    """``[definitions]``: named sub-expressions (C, p, l, r of the Piecewise mechanism), each in
    the parameters, x, z and the definitions above it, parsed by the same allow-list parser and
    substituted where they are used (never evaluated as code)."""
    raw = doc.get("definitions", {})
    if not isinstance(raw, dict):
        raise InvalidSpec("[definitions] must be a table of named expressions such as C = \"(exp(epsilon/2)+1)/(exp(epsilon/2)-1)\"")
    out: dict[str, sp.Basic] = {}
    reserved = set(symbols) | {"x", "y", "z", "c", "v"} | set(FUNCTIONS) | set(CONSTANTS)
    for name, text in raw.items():
        if not name.isidentifier() or len(name) > 64 or name in reserved:
            raise InvalidSpec(f"definitions.{name if name.isidentifier() and len(name) <= 64 else shown(name, 40)}: the name is taken or not an identifier; use a new "
                              f"identifier other than x, y, z, the parameters ({', '.join(symbols) or 'none'}) and function names")
        if not isinstance(text, (str, int)) or isinstance(text, bool):
            raise InvalidSpec(f"definitions.{name} = {shown(text)} must be an expression in quotes")
        out[name] = parse_expression(text, dict(symbols, **out, x=X, z=Z), field=f"definitions.{name}")
    return out
