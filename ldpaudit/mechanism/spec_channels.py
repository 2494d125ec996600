"""The ``[channel]`` table of a spec file, one reader per form: explicit matrices (inline or
from a matrix file), structured classes, Bloom filters and hash declarations, products of
coordinate laws, densities, mixtures, sign vectors and the real-input forms. Every expression
goes through :mod:`ldpaudit.mechanism.expr`; nothing is evaluated as Python.
"""

from __future__ import annotations

from pathlib import Path

import sympy as sp

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.explicit import ExplicitChannel
from ldpaudit.mechanism.expr import (
    fold,
    parse_expression,
    parse_predicate,
    shown,
    substitute,
)
from ldpaudit.mechanism.params import X, Y, Z
from ldpaudit.mechanism.product import CoordinateLaw, ProductChannel
from ldpaudit.mechanism.realinput import RealInputChannel
from ldpaudit.mechanism.spaces import BoxDomain, CohortSpace, ElementSpace, FiniteDomain, IntervalDomain, SubsetSpace
from ldpaudit.mechanism.spec_tables import (
    _CHANNEL,
    _COMPONENT,
    _COORDINATE,
    _LAW,
    MAX_EXPLICIT_ENTRIES,
    MAX_LABEL,
    MAX_LABELS,
    _check_labels,
    _class_tables,
    _no_unknown,
    _text,
)
from ldpaudit.mechanism.structured import OutputClass, StructuredChannel
from ldpaudit.mechanism.vector import CoordinatesChannel, SignVectorChannel, T, V


def _channel(doc, symbols, inputs, definitions=None, base: Path | None = None):
    raw = doc.get("channel")
    if not isinstance(raw, dict):
        raise InvalidSpec("missing [channel] table")
    form = raw.get("form")
    if not isinstance(form, str) or form not in _CHANNEL:
        raise InvalidSpec(f"channel.form = {shown(form)}; use one of {', '.join(sorted(_CHANNEL))} (a string)")
    if isinstance(inputs, BoxDomain) != (form in ("signs", "coordinates")):
        raise InvalidSpec(f"channel.form = {shown(form)} with {'vector' if isinstance(inputs, BoxDomain) else 'scalar'} inputs; "
                          + ("vector inputs (inputs.dimension) are reported by form \"signs\" or \"coordinates\""
                             if isinstance(inputs, BoxDomain) else
                             "forms \"signs\" and \"coordinates\" need vector inputs: set inputs.dimension, low and high"))
    _no_unknown(raw, "channel", _CHANNEL[form])
    if form == "matrix":
        return _matrix_file(raw, inputs, base)
    if form == "signs":
        return _signs(raw, symbols, definitions or {})
    if form == "coordinates":
        return _coordinates(raw, symbols, definitions or {}, inputs)
    if form in ("explicit", "structured") and isinstance(inputs, IntervalDomain):
        return _real_explicit(raw, symbols) if form == "explicit" else _real_structured(raw, symbols)
    if form == "explicit":
        return _explicit(raw, symbols, inputs)
    if form == "structured":
        return _structured(raw, symbols)
    if form == "bloom":
        return _bloom(raw, symbols)
    if form == "product":
        laws = []
        for side in ("on", "off"):
            lt = raw.get(side)
            if not isinstance(lt, dict):
                raise InvalidSpec(f"missing [channel.{side}] table (the law of a coordinate that {'is' if side == 'on' else 'is not'} the input)")
            _no_unknown(lt, f"channel.{side}", _LAW)
            laws.append(_law(lt, symbols, f"channel.{side}"))
        if "coordinates" not in raw:
            raise InvalidSpec("missing channel.coordinates (the number of coordinates, e.g. \"d\")")
        coords = parse_expression(raw["coordinates"], symbols, field="channel.coordinates")
        return ProductChannel(coords, laws[0], laws[1])
    if form == "mixture":
        return _mixture(raw, symbols, definitions or {})
    if "density" not in raw:
        raise InvalidSpec("missing channel.density (a density in z given the input x)")
    density = parse_expression(raw["density"], dict(symbols, **(definitions or {}), x=X, z=Z), field="channel.density")
    return DensityChannel(density)


#: the largest weight file a spec may point at
MAX_MATRIX_FILE_BYTES = 2 * 2**30


def _matrix_file(raw, inputs, base: Path | None):
    """``form = "matrix"``, ``file = "weights.npy"`` (or ``.csv``): a weight matrix beside the
    spec (a relative path inside the spec's folder; no pickles), rows = inputs."""
    from ldpaudit.mechanism.matrix import load_weights, matrix_channel

    name = raw.get("file")
    if not isinstance(name, str) or not name:
        raise InvalidSpec("missing channel.file: the weight matrix beside the spec, e.g. file = \"weights.npy\" (or .csv)")
    rel = Path(name)
    if rel.is_absolute() or ".." in rel.parts or rel.suffix not in (".npy", ".csv"):
        raise InvalidSpec(f"channel.file = {shown(name)} must be a .npy or .csv path inside the spec's folder "
                          "(relative, without ..)")
    if base is None:
        raise InvalidSpec(f"channel.file = {shown(name)} is relative to a spec file; load the spec from its file")
    path = base / rel
    if not path.is_file():
        raise InvalidSpec(f"channel.file = {shown(name)}: no such file beside the spec ({path})")
    if path.stat().st_size > MAX_MATRIX_FILE_BYTES:
        raise InvalidSpec(f"channel.file = {shown(name)} is {path.stat().st_size:,} bytes; the limit is "
                          f"{MAX_MATRIX_FILE_BYTES:,}")
    if not isinstance(inputs, FiniteDomain):
        raise InvalidSpec("a matrix channel needs a finite input domain: inputs.size (the number of rows) or labels")
    weights = load_weights(path, field="channel.file")
    labels = inputs.labels
    rows = len(weights)
    if (labels is not None and len(labels) != rows) or (labels is None and inputs.size != rows):
        given = f"inputs.labels has {len(labels)}" if labels is not None else f"inputs.size = {inputs.size}"
        raise InvalidSpec(f"{given} but channel.file has {rows} rows; give one row per input")
    return matrix_channel(weights, inputs=labels)


def _signs(raw, symbols, definitions) -> SignVectorChannel:
    """Duchi et al.'s ℓ∞ form: ``latent`` P(v_j | x_j) in v, x; ``entry`` P(s | v) in t = <s, v>."""
    for var in ("t", "v"):
        if var in symbols or var in definitions:
            raise InvalidSpec(f"a parameter or definition is named {var}, which channel.form = \"signs\" reserves "
                              "(v the latent sign, t = <s, v>); rename it")
    for key in ("latent", "entry", "scale"):
        if key not in raw:
            raise InvalidSpec(f"missing channel.{key} of the signs form ({_SIGNS_FIELDS[key]})")
    scope = dict(symbols, **definitions)
    return SignVectorChannel(
        latent=parse_expression(raw["latent"], dict(scope, x=X, v=V), field="channel.latent"),
        entry=fold(parse_expression(raw["entry"], dict(scope, t=T), field="channel.entry"), field="channel.entry"),
        scale=parse_expression(raw["scale"], scope, field="channel.scale"),
    )


_SIGNS_FIELDS = {
    "latent": "P(v_j | x_j) for the latent sign v_j in {-1, 1}, e.g. \"(1 + v*x)/2\"",
    "entry": "P(s | v) for a sign vector s with t = <s, v>, e.g. \"pi/N if t > 0 else (1 - pi)/N\"",
    "scale": "the report is scale * s, e.g. \"B\"",
}


def _coordinates(raw, symbols, definitions, inputs: BoxDomain) -> CoordinatesChannel:
    """k of d coordinates, each through the scalar channel [channel.coordinate] times ``scale``."""
    t = raw.get("coordinate")
    if not isinstance(t, dict):
        raise InvalidSpec("missing [channel.coordinate] table: the channel of one coordinate, written as a "
                          "one-dimensional spec's [channel] (form = \"density\" with density, or \"explicit\" with outputs and entry)")
    _no_unknown(t, "channel.coordinate", _COORDINATE)
    form = t.get("form")
    if form == "density":
        if "density" not in t:
            raise InvalidSpec("missing channel.coordinate.density (a density in z given the coordinate x)")
        coordinate = DensityChannel(parse_expression(t["density"], dict(symbols, **definitions, x=X, z=Z),
                                                     field="channel.coordinate.density"))
    elif form == "explicit":
        coordinate = _real_explicit(t, dict(symbols, **definitions), where="channel.coordinate")
    elif form == "mixture":
        coordinate = _mixture(t, symbols, definitions, where="channel.coordinate")
    else:
        raise InvalidSpec(f"channel.coordinate.form = {shown(form)}; use \"density\", \"explicit\" or \"mixture\"")
    scope = dict(symbols, **definitions)
    return CoordinatesChannel(
        coordinate=coordinate,
        sampled=parse_expression(raw["sampled"], scope, field="channel.sampled") if "sampled" in raw else inputs.dimension,
        scale=parse_expression(raw.get("scale", 1), scope, field="channel.scale"),
    )
def _mixture(raw, symbols, definitions, where: str = "channel"):
    """``[[channel.components]]``: a weight each, and a density (in z and x) or atoms (outputs,
    entry = Q(y|x), at = the position of label y); [definitions] are available in all of them."""
    from ldpaudit.mechanism.mixture import Component, MixtureChannel

    tables = raw.get("components")
    if not isinstance(tables, list) or not tables:
        raise InvalidSpec(f"missing [[{where}.components]]: list the mixture's components (weight, and density or "
                          "outputs/entry/at)")
    names = dict(symbols, **definitions)
    components = []
    table = where
    for i, ct in enumerate(tables):
        where = f"{table}.components[{i}]"
        if not isinstance(ct, dict):
            raise InvalidSpec(f"{where} must be a table")
        _no_unknown(ct, where, _COMPONENT)
        if "weight" not in ct:
            raise InvalidSpec(f"missing {where}.weight (the probability of reporting with this component, e.g. \"beta\")")
        weight = parse_expression(ct["weight"], dict(names, x=X, y=Y, z=Z), field=f"{where}.weight")
        atoms = sorted(set(ct) & {"outputs", "entry", "at"})
        if "density" in ct:
            if atoms:
                raise InvalidSpec(f"{where} has both density and {atoms[0]}; a component is a density or atoms, "
                                  "not both (split it into two components)")
            density = parse_expression(ct["density"], dict(names, x=X, z=Z), field=f"{where}.density")
            components.append(Component(weight, density=density))
            continue
        missing = [k for k in ("outputs", "entry", "at") if k not in ct]
        if missing:
            raise InvalidSpec(f"missing {where}.{missing[0]}: a component needs a density, or outputs, entry "
                              "(Q(y|x)) and at (the position of label y)")
        outputs = ct["outputs"]
        _check_labels(outputs, f"{where}.outputs")
        if any(not isinstance(y, int) for y in outputs):
            raise InvalidSpec(f"{where}.outputs must be integers (y in {where}.entry and .at is a number)")
        entry = parse_expression(ct["entry"], dict(names, x=X, y=Y), field=f"{where}.entry")
        at = parse_expression(ct["at"], dict(names, y=Y), field=f"{where}.at")
        components.append(Component(weight, outputs=tuple(outputs), entry=fold(entry, field=f"{where}.entry"), at=at))
    return MixtureChannel(tuple(components))


def _law(t, symbols, where):
    if ("values" in t) == ("density" in t):
        raise InvalidSpec(f"{where} needs exactly one of values (a table value -> probability) or density")
    if "density" in t:
        return CoordinateLaw(density=parse_expression(t["density"], dict(symbols, z=Z), field=f"{where}.density"))
    values = t["values"]
    if not isinstance(values, dict) or not values:
        raise InvalidSpec(f"{where}.values must be a table such as {{ \"0\" = \"1/2\", \"1\" = \"1/2\" }}")
    probs = []
    for key, expr in values.items():
        try:
            if len(key) > 20:
                raise ValueError(key)
            value = int(key)
        except ValueError:
            raise InvalidSpec(f"{where}.values has key {shown(key)}; coordinate values must be integers") from None
        probs.append((value, parse_expression(expr, symbols, field=f"{where}.values.{key}")))
    return CoordinateLaw(probabilities=tuple(sorted(probs, key=lambda vp: vp[0])))


def _explicit(raw, symbols, inputs):
    if not isinstance(inputs, FiniteDomain):
        raise InvalidSpec("an explicit channel needs a finite input domain (inputs.size or inputs.labels)")
    outputs = raw.get("outputs")
    _check_labels(outputs, "channel.outputs")
    if inputs.labels is not None:
        in_labels = inputs.labels
    else:
        if not inputs.size.is_Integer or inputs.size < 1:
            raise InvalidSpec(f"inputs.size = {shown(inputs.size)} must be a positive integer for an explicit channel")
        if int(inputs.size) * len(outputs) > MAX_EXPLICIT_ENTRIES:
            raise InvalidSpec(
                f"inputs.size = {shown(inputs.size)} gives an explicit channel of {int(inputs.size)} x {len(outputs)} "
                f"entries; the limit is {MAX_EXPLICIT_ENTRIES} (use a structured or product channel)"
            )
        in_labels = tuple(range(int(inputs.size)))
    if ("rows" in raw) == ("entry" in raw):
        raise InvalidSpec("an explicit channel needs exactly one of channel.rows or channel.entry")
    if "rows" in raw:
        rows = raw["rows"]
        if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
            raise InvalidSpec("channel.rows must be a list of rows, each a list of expressions")
        if sum(len(r) for r in rows) > MAX_EXPLICIT_ENTRIES:
            raise InvalidSpec(f"channel.rows has more than {MAX_EXPLICIT_ENTRIES} entries; use a structured or product channel")
        matrix = tuple(
            tuple(parse_expression(e, symbols, field=f"channel.rows[{i}][{j}]") for j, e in enumerate(row))
            for i, row in enumerate(rows)
        )
    else:
        xs, ys = sp.Dummy("x"), sp.Dummy("y")
        entry = parse_expression(raw["entry"], dict(symbols, x=xs, y=ys), field="channel.entry")
        for label in (*in_labels, *outputs):
            if not isinstance(label, int):
                raise InvalidSpec(f"channel.entry needs integer labels; got {shown(label)}")
        if len(in_labels) * len(outputs) > MAX_EXPLICIT_ENTRIES:
            raise InvalidSpec(
                f"channel.entry over {len(in_labels)} x {len(outputs)} labels; the limit is {MAX_EXPLICIT_ENTRIES} entries"
            )
        matrix = tuple(
            tuple(
                fold(
                    substitute(entry, {xs: sp.Integer(x), ys: sp.Integer(y)}, field="channel.entry", error=InvalidSpec),
                    field=f"channel.entry at x={x}, y={y}",
                )
                for y in outputs
            )
            for x in in_labels
        )
    return ExplicitChannel(tuple(in_labels), tuple(outputs), matrix)


def _real_explicit(raw, symbols, where: str = "channel") -> RealInputChannel:
    """Real inputs, finite outputs: ``entry`` is Q(y|x), an expression in x and y."""
    outputs = raw.get("outputs")
    _check_labels(outputs, f"{where}.outputs")
    if any(not isinstance(y, int) for y in outputs):
        raise InvalidSpec(f"{where}.outputs of a real-input channel must be integers (y in {where}.entry is a number)")
    if "entry" not in raw:
        raise InvalidSpec(f"an explicit channel with real inputs needs {where}.entry (Q(y|x) as an expression in x and y); "
                          "channel.rows lists finite inputs")
    entry = parse_expression(raw["entry"], dict(symbols, x=X, y=Y), field=f"{where}.entry")
    return RealInputChannel(tuple(outputs), fold(entry, field=f"{where}.entry"), "explicit")


def _real_structured(raw, symbols) -> RealInputChannel:
    """Real inputs, outputs 0..size-1 in classes whose conditions may use functions of x."""
    if raw.get("outputs") != "element":
        raise InvalidSpec(
            f"channel.outputs = {raw.get('outputs')!r}; a structured channel with real inputs needs outputs = \"element\""
        )
    size = parse_expression(raw.get("size"), symbols, field="channel.size")
    if not (size.is_Integer and size >= 1):
        raise InvalidSpec(f"channel.size = {size}; with real inputs the number of outputs must be a positive integer")
    xy = dict(symbols, x=X, y=Y)
    classes = []
    pieces = []
    for i, ct in _class_tables(raw):
        when = _text(ct, "when", f"channel.classes[{i}]")
        relation = parse_predicate(when, xy, field=f"channel.classes[{i}].when")
        if not isinstance(relation, sp.logic.boolalg.Boolean) or isinstance(relation, sp.Symbol):
            raise InvalidSpec(f"channel.classes[{i}].when = {when!r} is not a condition; write e.g. 'y == floor(x) % 4'")
        weight = parse_expression(ct["weight"], dict(symbols, x=X), field=f"channel.classes[{i}].weight")
        count = parse_expression(ct["count"], symbols, field=f"channel.classes[{i}].count")
        classes.append(OutputClass(str(ct.get("name", f"class{i}")), when, count, weight, relation=relation))
        pieces.append((weight, relation))
    entry = sp.Piecewise(*pieces, (sp.Integer(0), True))
    return RealInputChannel(tuple(range(int(size))), entry, "structured", tuple(classes))


def _hash_declaration(raw, *, depth: int):
    """(table, family, permutation) from channel.hash / channel.family / channel.seed /
    channel.permutation; a table has ``depth`` levels ([c][x], or [c][i][x] for Bloom filters,
    where [c][x] also reads as one hash per cohort)."""
    from ldpaudit.mechanism.hashing import HashFamily

    permutation = raw.get("permutation", False)
    if not isinstance(permutation, bool):
        raise InvalidSpec(f"channel.permutation = {shown(permutation)} must be true or false")
    if ("hash" in raw) == ("family" in raw):
        raise InvalidSpec("give exactly one of channel.hash (an explicit table) or channel.family (a named hash family)")
    if "family" in raw:
        name = raw["family"]
        if not isinstance(name, str):
            raise InvalidSpec(f"channel.family = {shown(name)} must be a string such as \"carter-wegman\"")
        seed = raw.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise InvalidSpec(f"channel.seed = {shown(seed)} must be an integer")
        return None, HashFamily(name, seed), permutation
    if "seed" in raw:
        raise InvalidSpec("channel.seed applies to a named channel.family, not to an explicit channel.hash table")
    table = raw["hash"]
    if not isinstance(table, list) or not table or not all(isinstance(r, list) and r for r in table):
        raise InvalidSpec("channel.hash must be a non-empty list of rows; row c maps each input x to a value in [k]")
    three = depth == 3 and all(isinstance(r[0], list) for r in table)
    rows3 = table if three else [[r] for r in table]
    count = 0
    for c, rows in enumerate(rows3):
        if not isinstance(rows, list) or not rows:
            raise InvalidSpec(f"channel.hash[{c}] must be a non-empty list of hash rows")
        for i, row in enumerate(rows):
            where = f"channel.hash[{c}][{i}]" if three else f"channel.hash[{c}]"
            if not isinstance(row, list) or not row:
                raise InvalidSpec(f"{where} must be a non-empty list of integers")
            for x, value in enumerate(row):
                if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_LABEL:
                    raise InvalidSpec(f"{where}[{x}] = {shown(value)} must be a non-negative 64-bit integer")
            count += len(row)
            if count > MAX_LABELS * 10:
                raise InvalidSpec(f"channel.hash has more than {MAX_LABELS * 10} values; use a named channel.family")
    if depth == 2:
        return tuple(tuple(r) for r in table), None, permutation
    return tuple(tuple(tuple(r) for r in rows) for rows in rows3), None, permutation


def _bloom(raw, symbols):
    """O-RAPPOR: cohorts, a k-bit Bloom filter of h hashes, then per-bit laws on/off."""
    from ldpaudit.mechanism.hashing import BloomChannel

    for key in ("k", "on", "off"):
        if key not in raw:
            raise InvalidSpec(f"missing channel.{key} of the bloom channel")
    table, family, permutation = _hash_declaration(raw, depth=3)
    if table is None and "cohorts" not in raw:
        raise InvalidSpec("missing channel.cohorts (the number of cohorts C) for a named hash family")
    cohorts = parse_expression(raw["cohorts"], symbols, field="channel.cohorts") if "cohorts" in raw else sp.Integer(len(table))
    hashes = parse_expression(raw.get("hashes", 1), symbols, field="channel.hashes")
    laws = []
    for side in ("on", "off"):
        lt = raw[side]
        if not isinstance(lt, dict):
            raise InvalidSpec(f"channel.{side} must be a table with values = {{ \"0\" = ..., \"1\" = ... }}")
        _no_unknown(lt, f"channel.{side}", {"values"})
        laws.append(_law(lt, symbols, f"channel.{side}"))
    return BloomChannel(cohorts, parse_expression(raw["k"], symbols, field="channel.k"), hashes, laws[0], laws[1],
                        table=table, family=family, permutation=permutation)


def _structured(raw, symbols):
    kind = raw.get("outputs")
    if kind == "element":
        space = ElementSpace(parse_expression(raw.get("size"), symbols, field="channel.size"))
    elif kind == "subset":
        space = SubsetSpace(
            parse_expression(raw.get("universe"), symbols, field="channel.universe"),
            parse_expression(raw.get("k"), symbols, field="channel.k"),
        )
    elif kind == "cohort":
        table, family, permutation = _hash_declaration(raw, depth=2)
        if table is None and "cohorts" not in raw:
            raise InvalidSpec("missing channel.cohorts (the number of cohorts C) for a named hash family")
        cohorts = parse_expression(raw["cohorts"], symbols, field="channel.cohorts") if "cohorts" in raw else None
        space = CohortSpace(table, parse_expression(raw.get("k"), symbols, field="channel.k"), cohorts=cohorts,
                            family=family, permutation=permutation)
    else:
        raise InvalidSpec(f"channel.outputs = {shown(kind)}; a structured channel's outputs are 'element', 'subset' or 'cohort'")
    classes = []
    for i, ct in _class_tables(raw):
        classes.append(
            OutputClass(
                name=_text(ct, "name", f"channel.classes[{i}]", required=False, default=f"class{i}"),
                condition=_text(ct, "when", f"channel.classes[{i}]"),
                count=parse_expression(ct["count"], symbols, field=f"channel.classes[{i}].count"),
                weight=parse_expression(ct["weight"], symbols, field=f"channel.classes[{i}].weight"),
            )
        )
    return StructuredChannel(space, tuple(classes))
