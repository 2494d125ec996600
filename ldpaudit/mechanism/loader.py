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

This module loads, caches and builds; the tables and their keys are read in
:mod:`ldpaudit.mechanism.spec_tables`, the ``[channel]`` table per form in
:mod:`ldpaudit.mechanism.spec_channels`, and :func:`dumps_spec` writes a spec back
(:mod:`ldpaudit.mechanism.spec_writer`).
"""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

from ldpaudit import budget
from ldpaudit.errors import BudgetSpent, InvalidParameter, InvalidSpec, NotMaterializable, refused
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.expr import BudgetExceeded, exact_decimal, parse_expression, shown
from ldpaudit.mechanism.params import Parameter
from ldpaudit.mechanism.spec_channels import _channel
from ldpaudit.mechanism.spec_tables import (
    _CHANNEL,
    _DEFINITION_FORMS,
    _INPUTS,
    _MECHANISM,
    _PARAMETER,
    _TOP,
    MAX_NAME,
    _bound,
    _definitions,
    _inputs,
    _no_unknown,
    _number,
    _table,
    _text,
    _with_path,
)

# defined in the modules split from this one, and importable from here as before
from ldpaudit.mechanism.spec_channels import MAX_MATRIX_FILE_BYTES  # noqa: F401
from ldpaudit.mechanism.spec_tables import MAX_EXPLICIT_ENTRIES, MAX_LABEL, MAX_LABELS  # noqa: F401
from ldpaudit.mechanism.spec_writer import dumps_spec  # noqa: F401

MAX_SPEC_BYTES = 1_000_000
MAX_TOML_NESTING = 32  # arrays and tables inside each other ([[[...]]], {a = {b = ...}}, a.b.c...)


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
