"""Reading and writing spec files (TOML).

A spec file declares one mechanism family::

    [mechanism]
    name = "k-RR"
    claimed_epsilon = "epsilon"

    [parameters.d]
    type = "integer"
    min = 2
    [parameters.epsilon]
    type = "real"
    min = 0
    strict_min = true

    [example]            # numeric values used by `ldpaudit check`
    d = 8
    epsilon = 1

    [inputs]
    size = "d"           # inputs 0..d-1; or labels = [...]; or low/high for an interval

    [channel]
    form = "structured"  # or "explicit", "product", "density", "mixture"
    outputs = "element"
    size = "d"
    [[channel.classes]]
    name = "keep"
    when = "y == x"
    count = 1
    weight = "exp(epsilon)/(exp(epsilon) + d - 1)"

Every expression goes through the allow-list parser in :mod:`ldpaudit.mechanism.expr`;
nothing in the file is ever evaluated as Python. Commands load a spec with
:func:`load_budgeted`: the parse, the validation and the binding run in a forked child under
a CPU-time and memory budget (:mod:`ldpaudit.budget`), since the per-operation budgets of
``expr`` cannot bound everything validation does with an expression.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping
from pathlib import Path

import sympy as sp

from ldpaudit import budget
from ldpaudit.errors import BudgetSpent, InvalidParameter, InvalidSpec, NotMaterializable, refused
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.explicit import ExplicitChannel
from ldpaudit.mechanism.expr import (
    CONSTANTS, FUNCTIONS, BudgetExceeded, exact_decimal, fold, parse_expression, parse_predicate, shown, substitute,
)
from ldpaudit.mechanism.params import X, Y, Z, Parameter
from ldpaudit.mechanism.product import CoordinateLaw, ProductChannel
from ldpaudit.mechanism.realinput import RealInputChannel
from ldpaudit.mechanism.spaces import BoxDomain, CohortSpace, ElementSpace, FiniteDomain, IntervalDomain, SubsetSpace
from ldpaudit.mechanism.structured import OutputClass, StructuredChannel
from ldpaudit.mechanism.vector import CoordinatesChannel, SignVectorChannel, T, V

MAX_SPEC_BYTES = 1_000_000
MAX_TOML_NESTING = 32  # arrays and tables inside each other ([[[...]]], {a = {b = ...}}, a.b.c...)
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


def load_spec(path: str | Path) -> Mechanism:
    """Read a spec file and return its validated :class:`Mechanism`; a bundled catalog name
    (``krr``, ``ksubset``, ...) works as it does for every command (:func:`resolve_spec`)."""
    where = resolve_spec(path)
    if not isinstance(where, Path):
        from ldpaudit.mechanism.catalog import CATALOG

        return CATALOG[where]()
    path = where
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InvalidSpec(f"spec file {str(path)!r} does not exist") from None
    except IsADirectoryError:
        raise InvalidSpec(f"spec path {str(path)!r} is a directory; give a .toml file") from None
    return loads_spec(data, source=str(path))


def loads_spec(text: str | bytes, *, source: str = "<spec>") -> Mechanism:
    """Parse spec text (TOML) into a validated :class:`Mechanism`."""
    if isinstance(text, str):
        text = text.encode("utf-8", errors="replace")
    if len(text) > MAX_SPEC_BYTES:
        raise InvalidSpec(f"{source}: spec is {len(text)} bytes, more than the limit {MAX_SPEC_BYTES}")
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidSpec(f"{source}: not UTF-8 text ({exc.reason})") from None
    depth = toml_nesting(decoded)
    if depth > MAX_TOML_NESTING:
        raise InvalidSpec(
            f"{source}: arrays or tables are nested {depth}+ levels deep; the limit is {MAX_TOML_NESTING}"
        )
    try:
        doc = tomllib.loads(decoded)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidSpec(f"{source}: invalid TOML: {' '.join(str(exc).split())}") from None
    except (RecursionError, MemoryError):
        raise InvalidSpec(f"{source}: arrays or tables are nested too deeply; the limit is {MAX_TOML_NESTING}") from None
    depth = _data_depth(doc)
    if depth > MAX_TOML_NESTING:
        raise InvalidSpec(f"{source}: tables or arrays are nested {depth} levels deep; the limit is {MAX_TOML_NESTING}")
    base = Path(source).parent if source != "<spec>" and Path(source).is_file() else None
    try:
        mech = _build(doc, base)
    except (InvalidSpec, InvalidParameter, NotMaterializable) as exc:
        raise refused(exc, f"{source}: {exc}") from None
    if mech.example:
        try:
            mech.bind_example()
        except (InvalidSpec, InvalidParameter) as exc:
            raise refused(exc, f"{source}: [example] is not an admissible instance: {exc}") from None
    return _with_path(mech, source)


def toml_nesting(text: str, limit: int = MAX_TOML_NESTING) -> int:
    """The deepest nesting of ``[``/``{`` in TOML text outside strings and comments, counted
    only up to ``limit + 1`` (tomllib recurses once per level: 2,000 levels overflow the stack)."""
    depth = deepest = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif ch in "\"'":
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                if ch == '"' and text[j] == "\\":
                    j += 1
                elif len(quote) == 1 and text[j] == "\n":
                    break
                j += 1
            i = j + len(quote) - 1
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
        elif ch in "]}":
            depth = max(0, depth - 1)
        i += 1
    return deepest


def _data_depth(doc) -> int:
    """Nesting depth of parsed TOML data (dotted keys nest tables without brackets)."""
    deepest = 0
    stack = [(doc, 0)]
    while stack:
        value, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_TOML_NESTING:
            break
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return deepest


def parse_assignments(items: list[str] | None) -> dict[str, object]:
    """Command-line ``-p`` values: ``["d=8", "epsilon=1/2,k=2"]`` -> ``{"d": Fraction(8), ...}``.

    Numbers ("8", "1/2", "0.25") become exact Fractions (decimal text is read as the exact
    decimal); anything else ("log(3)") stays text for the safe parser in ``Mechanism.bind``."""
    out: dict[str, object] = {}
    for item in items or []:
        for part in item.split(","):
            name, sep, value = part.partition("=")
            name, value = name.strip(), value.strip()
            if not sep or not name or not value:
                raise InvalidParameter(f"-p {shown(part)} is not name=value; write e.g. -p d=8 -p epsilon=1/2")
            try:
                number = exact_decimal(value)
            except BudgetExceeded as exc:
                raise InvalidParameter(f"-p {shown(name, 30)}: {exc}") from None
            out[name] = value if number is None else number
    return out


def resolve_spec(spec: str | Path) -> Path | str:
    """What a command's SPEC argument names: a spec file (a :class:`Path`) or a bundled catalog
    name (``krr``, ``ksubset``, ... the keys of :data:`ldpaudit.mechanism.catalog.CATALOG`, a
    ``str``). The one resolver every command uses; a file wins over a catalog name."""
    path = Path(spec)
    if path.exists() or path.suffix == ".toml" or "/" in str(spec):
        return path
    from ldpaudit.mechanism.catalog import CATALOG

    if str(spec) in CATALOG:
        return str(spec)
    raise InvalidSpec(
        f"spec {str(spec)!r} is neither a file nor a catalog name; give a .toml path or one of {', '.join(CATALOG)}"
    )


def load_family(spec: str | Path) -> Mechanism:
    """A spec file, or a bundled catalog mechanism by its spec stem (``krr``, ``ksubset``, ...)."""
    where = resolve_spec(spec)
    if isinstance(where, Path):
        return load_spec(where)
    from ldpaudit.mechanism.catalog import CATALOG

    return CATALOG[where]()


def load_bound(spec: str | Path, params: list[str] | None) -> Mechanism:
    """Load a spec (file or catalog name) and bind the ``-p name=value`` parameters exactly."""
    return load_family(spec).bind(parse_assignments(params))


def load_budgeted(
    spec: str | Path,
    params: list[str] | None = None,
    *,
    example: bool = False,
    seconds: float | None = budget.LOAD_SECONDS,
    memory_mb: int | None = budget.LOAD_MEMORY_MB,
) -> tuple[Mechanism, Mechanism]:
    """``(family, instance)`` for a command's SPEC argument: the spec file or catalog name
    loaded as by :func:`load_family`, and the family bound to the ``-p name=value`` ``params``
    (to its ``[example]`` with ``example=True``; the family itself with neither).

    Loading, validating and binding a spec file (or binding a catalog mechanism) run in a
    forked child with at most ``seconds`` of CPU time and ``memory_mb`` MiB of new memory: a
    spec whose validation never ends (``exp(epsilon)**(3**3**d)`` at a sample point) ends in
    :class:`~ldpaudit.errors.BudgetSpent` naming the budget and the option that raises it
    (``--load-timeout``, ``--load-memory-mb``, :func:`ldpaudit.mechanism.options.add_load_budget`).
    A bad spec raises its :class:`InvalidSpec` as without the budget. The mechanisms come back
    pickled (a few KiB); fork and pickle cost a command about 20 ms of CPU per spec."""
    where = resolve_spec(spec)
    values = parse_assignments(params)
    if isinstance(where, str) and not values and not example:
        family = load_family(where)  # a catalog constructor: trusted code, nothing to bound
        return family, family
    key = _load_key(where, values, example)
    if key is not None:
        hit = _cached_load(key)
        if hit is not None:
            return hit
    # sympy's Add and Mul import these on first use (about 35 ms): once here, before the fork,
    # instead of in the child and again when the result is unpickled
    import sympy.sets.setexpr  # noqa: F401
    import sympy.tensor.tensor  # noqa: F401

    try:
        loaded = budget.call(_load_and_bind, where, values, example, seconds=seconds, memory_mb=memory_mb,
                             label="spec loading")
    except budget.BudgetExceeded as exc:
        if exc.resource == "memory":
            spent = (f"needed more than {exc.limit} MiB of memory, the memory budget of loading; "
                     "raise it with --load-memory-mb MB")
        elif exc.resource == "wall":
            spent = str(exc)
        else:
            spent = (f"used {exc.limit:g} s of CPU time, the CPU budget of loading; "
                     "raise it with --load-timeout SECONDS")
        raise BudgetSpent(f"loading spec {str(spec)!r}: {spent}") from None
    if key is not None:
        _cache_load(key, loaded)
    return loaded


def _load_key(where: Path | str, values: dict, example: bool) -> str | None:
    """The load cache's key (:mod:`ldpaudit.cache`, namespace ``load``): the spec's path (the
    mechanism records it) and bytes (or the catalog name), the bindings and whether the example was bound. A validated load is a
    function of these and of ldpaudit's code alone, so a second load of the same bytes is a
    lookup (about 20 ms instead of up to a second of sympy work)."""
    from ldpaudit import cache

    if cache.cache_dir() is None:
        return None
    try:
        source = where.read_bytes() if isinstance(where, Path) else f"catalog:{where}".encode()
    except OSError:
        return None  # the loader itself reports the unreadable file
    bindings = repr(sorted((k, str(v)) for k, v in values.items()))
    return cache.key(b"load", str(where), source, bindings, "example" if example else "")


def _cached_load(key: str):
    import pickle

    from ldpaudit import cache

    data = cache.get_bytes("load", key)  # only from a private directory of this user's (see ldpaudit.cache)
    if data is None:
        return None
    try:
        family, mech = pickle.loads(data)
    except Exception:  # a truncated or stale entry: load afresh
        return None
    return family, mech


def _cache_load(key: str, loaded) -> None:
    import pickle

    from ldpaudit import cache

    try:
        data = pickle.dumps(loaded)
    except Exception:
        return
    cache.put_bytes("load", key, data)


def _load_and_bind(where: Path | str, values: dict, example: bool) -> tuple[Mechanism, Mechanism]:
    family = load_family(where)
    if example:
        return family, family.bind_example()
    return family, (family.bind(values) if values else family)


def spec_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


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


def _build(doc: dict, base: Path | None = None) -> Mechanism:
    _no_unknown(doc, "spec", _TOP)
    mech_t = _table(doc, "mechanism", "mechanism", _MECHANISM)
    name = _text(mech_t, "name", "mechanism")
    if len(name) > MAX_NAME:
        raise InvalidSpec(f"mechanism.name = {shown(name)} is {len(name)} characters long; the limit is {MAX_NAME}")
    if "claimed_epsilon" not in mech_t:
        raise InvalidSpec("missing mechanism.claimed_epsilon; state the ε the mechanism claims, e.g. \"epsilon\"")

    params_t = doc.get("parameters", {})
    if not isinstance(params_t, dict):
        raise InvalidSpec("[parameters] must be a table of parameter tables")
    # names first, so bounds may refer to any parameter
    names = list(params_t)
    for pname in names:
        if not pname.isidentifier() or len(pname) > 64:
            raise InvalidSpec(f"parameter name {shown(pname)} is not allowed; use an identifier of at most 64 characters")
        if not isinstance(params_t[pname], dict):
            raise InvalidSpec(f"parameters.{pname} must be a table such as {{ type = \"integer\", min = 2 }}")
        _no_unknown(params_t[pname], f"parameters.{pname}", _PARAMETER)
        for key in ("type", "description"):
            if key in params_t[pname] and not isinstance(params_t[pname][key], str):
                raise InvalidSpec(f"parameters.{pname}.{key} = {shown(params_t[pname][key])} must be a string")
    provisional = {}
    for pname in names:
        kind = params_t[pname].get("type", "real")
        provisional[pname] = Parameter(pname, kind).symbol
    parameters = []
    for pname in names:
        pt = params_t[pname]
        lower = _bound(pt, "min", f"parameters.{pname}", provisional)
        upper = _bound(pt, "max", f"parameters.{pname}", provisional)
        for flag in ("strict_min", "strict_max", "public", "unbounded"):
            if flag in pt and not isinstance(pt[flag], bool):
                raise InvalidSpec(f"parameters.{pname}.{flag} = {shown(pt[flag])} must be true or false")
        parameters.append(
            Parameter(
                pname,
                pt.get("type", "real"),
                lower,
                upper,
                lower_strict=pt.get("strict_min", False),
                upper_strict=pt.get("strict_max", False),
                description=str(pt.get("description", "")),
                public=pt.get("public", False),
                unbounded=pt.get("unbounded", False),
            )
        )
    # re-parse bounds with the final symbols (assumptions depend on the bounds)
    symbols = {p.name: p.symbol for p in parameters}
    remap = {provisional[n]: symbols[n] for n in names}
    parameters = [
        Parameter(
            p.name, p.kind,
            None if p.lower is None else p.lower.xreplace(remap),
            None if p.upper is None else p.upper.xreplace(remap),
            p.lower_strict, p.upper_strict, p.description, public=p.public, unbounded=p.unbounded,
        )
        for p in parameters
    ]

    claimed = parse_expression(mech_t["claimed_epsilon"], symbols, field="mechanism.claimed_epsilon")
    inputs = _inputs(_table(doc, "inputs", "inputs", _INPUTS), symbols)
    definitions = _definitions(doc, symbols)
    form = doc["channel"].get("form") if isinstance(doc.get("channel"), dict) else None
    if definitions and isinstance(form, str) and form in _CHANNEL and form not in _DEFINITION_FORMS:
        raise InvalidSpec(f"[definitions] are read by {', '.join(sorted(_DEFINITION_FORMS))} channels only; write the expressions inline in "
                          f"channel.form = {shown(doc.get('channel', {}).get('form') if isinstance(doc.get('channel'), dict) else None)}")
    channel = _channel(doc, symbols, inputs, definitions, base)

    example_t = doc.get("example", {})
    if not isinstance(example_t, dict):
        raise InvalidSpec("[example] must be a table of parameter values")
    example = []
    for key, value in example_t.items():
        if key not in symbols:
            raise InvalidSpec(f"example.{key if len(key) <= 40 else shown(key, 40)} is not a declared parameter; declared: {', '.join(symbols)}")
        example.append((key, _number(value, f"example.{key}")))

    return Mechanism(
        name=name,
        parameters=tuple(parameters),
        inputs=inputs,
        channel=channel,
        claimed_epsilon=claimed,
        claimed_delta=(parse_expression(mech_t["claimed_delta"], symbols, field="mechanism.claimed_delta")
                       if "claimed_delta" in mech_t else None),
        description=_text(mech_t, "description", "mechanism", required=False),
        source=_text(mech_t, "source", "mechanism", required=False),
        example=tuple(example),
    )


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


# --- writing ---------------------------------------------------------------------------------


class _SpecPrinter(sp.printing.str.StrPrinter):
    """sympy's text, except for the forms the spec parser spells differently:
    ``a if c else b`` for Piecewise, ``%`` for Mod, ``and``/``or``/``not``."""

    def _print_Piecewise(self, expr):
        *pieces, (last, cond) = expr.args
        text = f"({self._print(last)})" if cond is sp.true else f"({self._print(last)}) if ({self._print(cond)}) else 0"
        for value, c in reversed(pieces):
            text = f"({self._print(value)}) if ({self._print(c)}) else {text}"
        return f"({text})"

    def _print_Mod(self, expr):
        return f"(({self._print(expr.args[0])}) % ({self._print(expr.args[1])}))"

    def _print_And(self, expr):
        return "(" + " and ".join(f"({self._print(a)})" for a in expr.args) + ")"

    def _print_Or(self, expr):
        return "(" + " or ".join(f"({self._print(a)})" for a in expr.args) + ")"

    def _print_Not(self, expr):
        return f"(not ({self._print(expr.args[0])}))"

    def _print_Relational(self, expr):
        return f"(({self._print(expr.lhs)}) {expr.rel_op} ({self._print(expr.rhs)}))"


def _expr_text(expr, field: str, symbols: Mapping[str, sp.Basic]) -> str:
    """Print an expression so that the safe parser reads back exactly the same expression."""
    text = _SpecPrinter().doprint(expr) if expr.has(sp.Piecewise, sp.Mod) or isinstance(expr, sp.logic.boolalg.Boolean) else sp.sstr(expr)
    back = parse_expression(text, symbols, field=field)
    if isinstance(expr, sp.logic.boolalg.Boolean) or expr.has(sp.Piecewise):
        same = back == expr or sp.piecewise_fold(back) == sp.piecewise_fold(expr) or _equivalent(back, expr)
    else:
        same = back == expr or sp.simplify(back - expr) == 0
    if not same:
        raise InvalidSpec(f"{field} = {expr} cannot be written as spec text that reads back unchanged")
    return text


def _equivalent(a, b) -> bool:
    """Structural equality up to sympy's rewriting of what the parser reads back: values equal
    when their difference simplifies to 0, a relation equal to the same relation written from
    the other side (z <= r and r >= z), And/Or arguments in any order."""
    if a == b:
        return True
    if isinstance(a, sp.Piecewise) and isinstance(b, sp.Piecewise):
        return len(a.args) == len(b.args) and all(
            _equivalent(va, vb) and _equivalent(ca, cb) for (va, ca), (vb, cb) in zip(a.args, b.args))
    if isinstance(a, (sp.And, sp.Or)) and type(a) is type(b):
        rest = list(b.args)
        for x in a.args:
            match = next((y for y in rest if _equivalent(x, y)), None)
            if match is None:
                return False
            rest.remove(match)
        return not rest
    if isinstance(a, sp.Not) and isinstance(b, sp.Not):
        return _equivalent(a.args[0], b.args[0])
    if isinstance(a, sp.core.relational.Relational) and isinstance(b, sp.core.relational.Relational):
        flip = {">": "<", ">=": "<=", "<": "<", "<=": "<=", "==": "==", "!=": "!="}

        def canonical(r):
            return (flip[r.rel_op], r.rhs - r.lhs) if r.rel_op in (">", ">=") else (r.rel_op, r.lhs - r.rhs)

        (oa, da), (ob, db) = canonical(a), canonical(b)
        return oa == ob and (sp.simplify(da - db) == 0 or (oa in ("==", "!=") and sp.simplify(da + db) == 0))
    if isinstance(a, sp.logic.boolalg.Boolean) or isinstance(b, sp.logic.boolalg.Boolean):
        return False
    if a.has(sp.Piecewise) or b.has(sp.Piecewise):
        return False
    return sp.simplify(a - b) == 0


def _condition_text(c: OutputClass, symbols) -> str:
    """A real-input class condition: as written when it still reads back (nothing bound)."""
    try:
        if parse_predicate(c.condition, symbols, field="when") == c.relation:
            return c.condition
    except InvalidSpec:
        pass
    return _expr_text(c.relation, "when", symbols)


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _label(value) -> str:
    return str(value) if isinstance(value, int) else _q(str(value))


def _hash_lines(table, family, permutation, depth: int = 2) -> list[str]:
    def nested(v):
        return "[" + ", ".join(nested(e) for e in v) + "]" if isinstance(v, tuple) else str(v)

    lines = [f"hash = {nested(table)}"] if table is not None else [f"family = {_q(family.name)}", f"seed = {family.seed}"]
    return lines + (["permutation = true"] if permutation else [])


def _component_lines(ch, syms, table: str) -> list[str]:
    """The ``[[TABLE.components]]`` of a mixture channel as spec text."""
    lines = []
    for i, c in enumerate(ch.components):
        where = f"{table}.components[{i}]"
        lines += ["", f"[[{table}.components]]", f"weight = {_q(_expr_text(c.weight, where + '.weight', syms))}"]
        if c.density is not None:
            lines.append(f"density = {_q(_expr_text(c.density, where + '.density', dict(syms, x=X, z=Z)))}")
        else:
            lines += ["outputs = [" + ", ".join(_label(v) for v in c.outputs) + "]",
                      f"entry = {_q(_expr_text(c.entry, where + '.entry', dict(syms, x=X, y=Y)))}",
                      f"at = {_q(_expr_text(c.at, where + '.at', dict(syms, y=Y)))}"]
    return lines


def dumps_spec(mech: Mechanism) -> str:
    """Write a mechanism as spec text that :func:`loads_spec` reads back to an equal mechanism."""
    syms = mech.symbols
    lines = ["[mechanism]", f"name = {_q(mech.name)}", f"claimed_epsilon = {_q(_expr_text(mech.claimed_epsilon, 'claimed_epsilon', syms))}"]
    if mech.claimed_delta is not None:
        lines.append(f"claimed_delta = {_q(_expr_text(mech.claimed_delta, 'claimed_delta', syms))}")
    if mech.description:
        lines.append(f"description = {_q(mech.description)}")
    if mech.source:
        lines.append(f"source = {_q(mech.source)}")
    for p in mech.parameters:
        lines += ["", f"[parameters.{p.name}]", f"type = {_q(p.kind)}"]
        if p.lower is not None:
            lines.append(f"min = {_q(_expr_text(p.lower, p.name, syms))}")
        if p.upper is not None:
            lines.append(f"max = {_q(_expr_text(p.upper, p.name, syms))}")
        if p.lower_strict:
            lines.append("strict_min = true")
        if p.upper_strict:
            lines.append("strict_max = true")
        if p.public:
            lines.append("public = true")
        if p.unbounded:
            lines.append("unbounded = true")
        if p.description:
            lines.append(f"description = {_q(p.description)}")
    if mech.example:
        lines += ["", "[example]"] + [f"{k} = {_q(sp.sstr(v))}" for k, v in mech.example]
    lines += ["", "[inputs]"]
    dom = mech.inputs
    if isinstance(dom, BoxDomain):
        lines += [f"dimension = {_q(_expr_text(dom.dimension, 'inputs.dimension', syms))}",
                  f"low = {_q(_expr_text(dom.low, 'inputs.low', syms))}",
                  f"high = {_q(_expr_text(dom.high, 'inputs.high', syms))}"]
    elif isinstance(dom, IntervalDomain):
        if dom.low is None and dom.high is None:
            lines.append("real = true")
        if dom.low is not None:
            lines.append(f"low = {_q(_expr_text(dom.low, 'inputs.low', syms))}")
        if dom.high is not None:
            lines.append(f"high = {_q(_expr_text(dom.high, 'inputs.high', syms))}")
    elif dom.labels is not None:
        lines.append("labels = [" + ", ".join(_label(v) for v in dom.labels) + "]")
    else:
        lines.append(f"size = {_q(_expr_text(dom.size, 'inputs.size', syms))}")
    ch = mech.channel
    lines += ["", "[channel]", f"form = {_q(ch.layout if isinstance(ch, RealInputChannel) else ch.form)}"]
    if isinstance(ch, ExplicitChannel):
        lines.append("outputs = [" + ", ".join(_label(v) for v in ch.outputs) + "]")
        lines.append("rows = [")
        for i, row in enumerate(ch.matrix):
            lines.append("  [" + ", ".join(_q(_expr_text(e, f"rows[{i}]", syms)) for e in row) + "],")
        lines.append("]")
    elif isinstance(ch, StructuredChannel):
        out = ch.outputs
        lines.append(f"outputs = {_q(out.kind)}")
        if isinstance(out, ElementSpace):
            lines.append(f"size = {_q(_expr_text(out.size, 'size', syms))}")
        elif isinstance(out, SubsetSpace):
            lines += [f"universe = {_q(_expr_text(out.universe, 'universe', syms))}", f"k = {_q(_expr_text(out.k, 'k', syms))}"]
        else:
            lines.append(f"k = {_q(_expr_text(out.k, 'k', syms))}")
            if out.cohorts is not None:
                lines.append(f"cohorts = {_q(_expr_text(out.cohorts, 'cohorts', syms))}")
            lines += _hash_lines(out.hash_table, out.family, out.permutation)
        for c in ch.classes:
            lines += [
                "",
                "[[channel.classes]]",
                f"name = {_q(c.name)}",
                f"when = {_q(c.condition)}",
                f"count = {_q(_expr_text(c.count, 'count', syms))}",
                f"weight = {_q(_expr_text(c.weight, 'weight', syms))}",
            ]
    elif isinstance(ch, RealInputChannel) and ch.layout == "structured":
        xy = dict(syms, x=X, y=Y)
        lines += ['outputs = "element"', f"size = {len(ch.outputs)}"]
        for c in ch.classes:
            lines += [
                "",
                "[[channel.classes]]",
                f"name = {_q(c.name)}",
                f"when = {_q(_condition_text(c, xy))}",
                f"count = {_q(_expr_text(c.count, 'count', syms))}",
                f"weight = {_q(_expr_text(c.weight, 'weight', dict(syms, x=X)))}",
            ]
    elif isinstance(ch, RealInputChannel):
        lines.append("outputs = [" + ", ".join(_label(v) for v in ch.outputs) + "]")
        lines.append(f"entry = {_q(_expr_text(ch.entry, 'entry', dict(syms, x=X, y=Y)))}")
    elif getattr(ch, "form", None) == "bloom":
        lines += [f"cohorts = {_q(_expr_text(ch.cohorts, 'cohorts', syms))}", f"k = {_q(_expr_text(ch.k, 'k', syms))}",
                  f"hashes = {_q(_expr_text(ch.hashes, 'hashes', syms))}"]
        lines += _hash_lines(ch.table, ch.family, ch.permutation, depth=3)
        for side, law in (("on", ch.on), ("off", ch.off)):
            lines += ["", f"[channel.{side}]", "values = { " + ", ".join(
                f"{_q(str(v))} = {_q(_expr_text(p, side, syms))}" for v, p in law.probabilities) + " }"]
    elif isinstance(ch, ProductChannel):
        lines.append(f"coordinates = {_q(_expr_text(ch.coordinates, 'coordinates', syms))}")
        for side, law in (("on", ch.on), ("off", ch.off)):
            lines += ["", f"[channel.{side}]"]
            if law.density is not None:
                lines.append(f"density = {_q(_expr_text(law.density, side, dict(syms, z=Z)))}")
            else:
                lines.append(
                    "values = { "
                    + ", ".join(f"{_q(str(v))} = {_q(_expr_text(p, side, syms))}" for v, p in law.probabilities)
                    + " }"
                )
    elif isinstance(ch, SignVectorChannel):
        lines += [f"latent = {_q(_expr_text(ch.latent, 'latent', dict(syms, x=X, v=V)))}",
                  f"entry = {_q(_expr_text(ch.entry, 'entry', dict(syms, t=T)))}",
                  f"scale = {_q(_expr_text(ch.scale, 'scale', syms))}"]
    elif isinstance(ch, CoordinatesChannel):
        lines += [f"sampled = {_q(_expr_text(ch.sampled, 'sampled', syms))}",
                  f"scale = {_q(_expr_text(ch.scale, 'scale', syms))}", "", "[channel.coordinate]"]
        c = ch.coordinate
        if isinstance(c, DensityChannel):
            lines += ['form = "density"', f"density = {_q(_expr_text(c.density, 'density', dict(syms, x=X, z=Z)))}"]
        elif getattr(c, "form", None) == "mixture":
            lines.append('form = "mixture"')
            lines += _component_lines(c, syms, "channel.coordinate")
        else:
            lines += ['form = "explicit"', "outputs = [" + ", ".join(_label(v) for v in c.outputs) + "]",
                      f"entry = {_q(_expr_text(c.entry, 'entry', dict(syms, x=X, y=Y)))}"]
    elif getattr(ch, "form", None) == "mixture":
        lines += _component_lines(ch, syms, "channel")
    elif getattr(ch, "form", None) == "matrix":
        raise InvalidSpec(f"{mech.name!r} is a matrix channel: its weights live in a file (channel.file); "
                          "save them with numpy.save and point the spec at it")
    else:
        lines.append(f"density = {_q(_expr_text(ch.density, 'density', dict(syms, x=X, z=Z)))}")
    return "\n".join(lines) + "\n"
