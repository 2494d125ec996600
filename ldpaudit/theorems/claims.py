"""Claims files: inequalities between derived quantities over a region of the parameters.

A claims file is TOML, read with ``tomllib``; every expression in it goes through the spec
files' allow-list parser (:func:`ldpaudit.mechanism.expr.parse_expression`), never ``eval``::

    title = "Ye & Barg (2017), Proposition III.5"
    source = "M. Ye and A. Barg, arXiv 1702.00610, Prop. III.5"
    model = "iid"                          # sampling model of the risks (iid or fixed)

    [specs]                                # names used below -> catalog name or spec file
    ksubset = "ksubset"
    krr = "krr"

    [region]
    parameters = { d = "integer", epsilon = "real" }
    where = ["d >= 2", "19/5 < epsilon < log(d/9)"]
    let = { k = "ceiling(d/(exp(epsilon) + 1))" }

    [coordinates]                          # optional change of variables for the prover
    q = "exp(-epsilon/2)"
    s = "exp(epsilon)/d"
    [coordinates.inverse]
    epsilon = "-2*log(q)"
    d = "1/(s*q**2)"

    [[claim]]
    name = "l2"
    statement = "ksubset.l2_worst / Min(krr.l2_worst, krappor.l2_worst) <= 1/2"

A statement may use ``diff(expr, x)``, the derivative in a region parameter x (unimodality:
``diff(ss.mutual_information, k) >= 0``).

``spec.result`` names a result of :func:`ldpaudit.derive.derive` on that spec (``l2_worst``,
``l1_worst``, ``mutual_information``, ``variance``, ...), with the spec's parameters read as the
region's parameters of the same name; risks are per user (n = 1) unless the region declares n.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import sympy as sp

from ldpaudit.errors import InvalidSpec, LdpAuditError, NotDerivable, refused
from ldpaudit.mechanism.expr import parse_expression, parse_predicate, shown

MAX_CLAIMS_BYTES = 100_000
KINDS = ("integer", "real")
_NAME = re.compile(r"\b([A-Za-z_]\w*)\.([A-Za-z_]\w*)\b")
_TOP = {"title", "source", "model", "specs", "region", "coordinates", "claim", "note"}


@dataclass(frozen=True)
class Region:
    """Parameters (name -> symbol), which are integers, the relations that cut the region out,
    and the bound parameters (symbol -> expression in the free ones)."""

    symbols: dict
    integers: frozenset
    relations: tuple
    bindings: dict
    texts: tuple = ()

    @property
    def free(self) -> list:
        return [s for s in self.symbols.values() if s not in self.bindings]


@dataclass(frozen=True)
class Claim:
    name: str
    text: str                 # the statement as written
    statement: sp.Basic       # a relational (or And of them) in the region's symbols, names resolved
    field: str
    note: str = ""


@dataclass(frozen=True)
class Coordinates:
    """Prover coordinates: new symbol -> its value in the region's parameters, and back."""

    forward: dict
    inverse: dict


@dataclass(frozen=True)
class ClaimsFile:
    path: str
    title: str
    source: str
    model: str
    region: Region
    claims: tuple
    coordinates: Coordinates | None = None
    specs: dict = field(default_factory=dict)
    note: str = ""


def load_claims(path) -> ClaimsFile:
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InvalidSpec(f"claims file {str(path)!r} does not exist") from None
    except IsADirectoryError:
        raise InvalidSpec(f"claims path {str(path)!r} is a directory; give a .toml file") from None
    return loads_claims(data, source=str(path))


def loads_claims(text, *, source: str = "<claims>") -> ClaimsFile:
    if isinstance(text, str):
        text = text.encode("utf-8", errors="replace")
    if len(text) > MAX_CLAIMS_BYTES:
        raise InvalidSpec(f"{source}: claims file is {len(text)} bytes, more than the limit {MAX_CLAIMS_BYTES}")
    try:
        doc = tomllib.loads(text.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InvalidSpec(f"{source}: not UTF-8 text ({exc.reason})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InvalidSpec(f"{source}: invalid TOML: {' '.join(str(exc).split())}") from None
    except RecursionError:
        raise InvalidSpec(f"{source}: tables or arrays are nested too deeply") from None
    base = Path(source).parent if source != "<claims>" else Path(".")
    try:
        return _build(doc, source, base)
    except LdpAuditError as exc:
        msg = str(exc)
        raise InvalidSpec(msg if msg.startswith(source) else f"{source}: {msg}") from None


def _text(doc, key, field, default=None) -> str:
    value = doc.get(key, default)
    if value is None:
        raise InvalidSpec(f"{field} is missing; write it as a string")
    if not isinstance(value, str):
        raise InvalidSpec(f"{field} = {shown(value)} must be a string")
    return value


def _table(doc, key, field) -> dict:
    value = doc.get(key, {})
    if not isinstance(value, dict):
        raise InvalidSpec(f"{field} = {shown(value)} must be a table")
    return value


def _build(doc: dict, source: str, base: Path) -> ClaimsFile:
    unknown = sorted(set(doc) - _TOP)
    if unknown:
        raise InvalidSpec(f"unknown key {unknown[0]!r}; a claims file has {', '.join(sorted(_TOP))}")
    title = _text(doc, "title", "title", Path(source).stem)
    model = _text(doc, "model", "model", "iid")
    if model not in ("iid", "fixed"):
        raise InvalidSpec(f"model = {model!r} is unknown; use 'iid' (i.i.d. inputs) or 'fixed' (fixed population)")
    region = _region(_table(doc, "region", "region"))
    specs = _specs(_table(doc, "specs", "specs"), base)
    _check_bound_values(region, specs)
    coords = _coordinates(_table(doc, "coordinates", "coordinates"), region)
    raw = doc.get("claim")
    if raw is None:
        raise InvalidSpec("no [[claim]]; write at least one, e.g. statement = \"krr.l2_worst <= krappor.l2_worst\"")
    if not isinstance(raw, list) or not all(isinstance(c, dict) for c in raw):
        raise InvalidSpec("claim must be an array of tables ([[claim]])")
    resolver = _Resolver(specs, region, model)
    claims = []
    for i, c in enumerate(raw):
        f = f"claim[{i}]"
        extra = sorted(set(c) - {"name", "statement", "note"})
        if extra:
            raise InvalidSpec(f"{f}.{extra[0]} is not a claim key; a claim has name, statement, note")
        name = _text(c, "name", f"{f}.name", f"claim {i + 1}")
        text = _text(c, "statement", f"{f}.statement")
        claims.append(Claim(name, text, resolver.statement(text, f"{f}.statement"), f"{f}.statement",
                            _text(c, "note", f"{f}.note", "")))
    return ClaimsFile(source, title, _text(doc, "source", "source", ""), model, region, tuple(claims), coords, specs,
                      _text(doc, "note", "note", ""))


def _region(table: dict) -> Region:
    extra = sorted(set(table) - {"parameters", "where", "let"})
    if extra:
        raise InvalidSpec(f"region.{extra[0]} is not a region key; use parameters, where, let")
    params = table.get("parameters")
    if not isinstance(params, dict) or not params:
        raise InvalidSpec("region.parameters is missing; declare them, e.g. { d = \"integer\", epsilon = \"real\" }")
    symbols, integers = {}, set()
    for name, kind in params.items():
        if not re.fullmatch(r"[A-Za-z_]\w*", name) or name in ("e", "pi", "E", "oo"):
            raise InvalidSpec(f"region.parameters.{name}: not a usable parameter name")
        if kind not in KINDS:
            raise InvalidSpec(f"region.parameters.{name} = {shown(kind)}; use \"integer\" or \"real\"")
        symbols[name] = sp.Symbol(name, integer=True) if kind == "integer" else sp.Symbol(name, real=True)
        if kind == "integer":
            integers.add(symbols[name])
    lets = table.get("let", {})
    if not isinstance(lets, dict):
        raise InvalidSpec(f"region.let = {shown(lets)} must be a table such as {{ k = \"floor(d/2)\" }}")
    bindings = {}
    for name, text in lets.items():
        if name not in symbols:
            raise InvalidSpec(f"region.let.{name}: {name!r} is not a declared parameter; declare it in region.parameters")
        bindings[symbols[name]] = parse_expression(text, {k: v for k, v in symbols.items() if k != name},
                                                   field=f"region.let.{name}")
        if symbols[name] in bindings[symbols[name]].free_symbols:
            raise InvalidSpec(f"region.let.{name} refers to {name} itself")
    for s, b in list(bindings.items()):  # a binding may use another: substitute until none is left
        for _ in range(len(bindings)):
            b = b.xreplace({t: v for t, v in bindings.items() if t != s})
        if set(bindings) & b.free_symbols:
            raise InvalidSpec(f"region.let.{s} depends on itself through other bindings")
        bindings[s] = b
    where = table.get("where", [])
    if isinstance(where, str):
        where = [where]
    if not isinstance(where, list):
        raise InvalidSpec(f"region.where = {shown(where)} must be a list of relations such as \"d >= 2\"")
    relations, texts = [], []
    for i, text in enumerate(where):
        f = f"region.where[{i}]"
        rel = parse_predicate(text, symbols, field=f)
        parts = rel.args if isinstance(rel, sp.And) else (rel,)
        for p in parts:
            if p is sp.false:
                raise InvalidSpec(f"{f} = {shown(text)} is never true: the region is empty")
            if p is sp.true:
                continue
            if not isinstance(p, sp.Lt | sp.Le | sp.Gt | sp.Ge):
                raise InvalidSpec(f"{f} = {shown(text)}: use <, <=, >, >= (and chains of them), not {type(p).__name__}")
            relations.append(p)
        texts.append(text)
    _check_bounds(symbols, relations)
    return Region(symbols, frozenset(integers), tuple(relations), bindings, tuple(texts))


def _check_bounds(symbols, relations) -> None:
    """Constant bounds that contradict each other (d >= 5, d <= 3) are an empty region."""
    for s in symbols.values():
        lo, hi = bounds_of(s, relations)
        if lo is not None and hi is not None and (lo[0] > hi[0] or (lo[0] == hi[0] and (lo[1] or hi[1]))):
            raise InvalidSpec(f"region.where: {s} > {lo[0]} and {s} < {hi[0]} cannot both hold: the region is empty")


def bounds_of(s, relations):
    """The tightest constant (lower, upper) bounds of ``s`` in the relations: (value, strict) or None."""
    lo = hi = None
    for r in relations:
        a, b = (r.lhs, r.rhs) if isinstance(r, sp.Lt | sp.Le) else (r.rhs, r.lhs)  # a < b
        strict = isinstance(r, sp.Lt | sp.Gt)
        if a == s and b.is_number and b.is_real:
            if hi is None or b < hi[0] or (b == hi[0] and strict):
                hi = (b, strict)
        elif b == s and a.is_number and a.is_real:
            if lo is None or a > lo[0] or (a == lo[0] and strict):
                lo = (a, strict)
    return lo, hi


def _specs(table: dict, base: Path) -> dict:
    from ldpaudit.mechanism.loader import load_family

    out = {}
    for name, where in table.items():
        lets = {}
        if isinstance(where, dict):
            extra = sorted(set(where) - {"spec", "let"})
            if extra or "spec" not in where:
                raise InvalidSpec(f"specs.{name} must be a catalog name, a spec file, or {{ spec = ..., let = {{ k = \"2\" }} }}")
            lets = where.get("let", {})
            if not isinstance(lets, dict):
                raise InvalidSpec(f"specs.{name}.let = {shown(lets)} must be a table such as {{ k = \"2\" }}")
            where = where["spec"]
        if not isinstance(where, str):
            raise InvalidSpec(f"specs.{name} = {shown(where)} must be a catalog name or a spec file path")
        target = where
        if where.endswith(".toml") or "/" in where:
            p = Path(where)
            target = str(p if p.is_absolute() or p.exists() else base / p)
        try:
            mech = load_family(target)
        except InvalidSpec as exc:
            raise refused(exc, f"specs.{name}: {exc}") from None
        for p, text in lets.items():
            if p not in mech.symbols:
                raise InvalidSpec(f"specs.{name}.let.{p}: {mech.name!r} has no parameter {p!r} "
                                  f"(its parameters: {', '.join(mech.parameter_names)})")
        out[name] = (mech, dict(lets))
    return out


def _check_bound_values(region: Region, specs: dict) -> None:
    """A number bound to a spec's parameter (``region.let`` or ``specs.NAME.let``) lies in the
    range the spec declares for it: d = -5 for k-subset (d >= 2) is refused here, not left to
    the prover, which would search a region where the spec means nothing."""
    from ldpaudit.errors import InvalidParameter

    for name, (mech, lets) in specs.items():
        values, where = {}, {}
        for p in mech.parameters:
            if p.name in lets:
                value, field = parse_expression(lets[p.name], region.symbols, field=f"specs.{name}.let.{p.name}") \
                    if isinstance(lets[p.name], str) else sp.sympify(lets[p.name]), f"specs.{name}.let.{p.name}"
            elif p.name in region.symbols and region.symbols[p.name] in region.bindings:
                value, field = region.bindings[region.symbols[p.name]], f"region.let.{p.name}"
            else:
                continue
            if value.is_number:
                values[p.name], where[p.name] = value, field
        for p_name, value in values.items():
            try:
                mech.bind({p_name: value})
            except InvalidParameter as exc:
                raise InvalidSpec(f"{where[p_name]} = {shown(sp.sstr(value))}: {exc}; specs.{name} declares no "
                                  f"such instance") from None


def _coordinates(table: dict, region: Region) -> Coordinates | None:
    if not table:
        return None
    inverse_text = table.get("inverse")
    if not isinstance(inverse_text, dict):
        raise InvalidSpec("coordinates.inverse is missing; give each free parameter in the new coordinates")
    new = {}
    for name, text in table.items():
        if name == "inverse":
            continue
        if name in region.symbols:
            raise InvalidSpec(f"coordinates.{name}: the name is already a region parameter; choose another")
        new[name] = sp.Symbol(name, positive=True)
    forward = {new[n]: parse_expression(t, region.symbols, field=f"coordinates.{n}")
               for n, t in table.items() if n != "inverse"}
    inverse = {}
    for name, text in inverse_text.items():
        if name not in region.symbols or region.symbols[name] in region.bindings:
            raise InvalidSpec(f"coordinates.inverse.{name}: not a free region parameter")
        inverse[region.symbols[name]] = parse_expression(text, new, field=f"coordinates.inverse.{name}")
    missing = [s for s in region.free if s not in inverse]
    if missing:
        raise InvalidSpec(f"coordinates.inverse does not give {missing[0]}; every free parameter needs its inverse")
    for sym, value in forward.items():  # the two maps must be inverse to each other
        back = sp.simplify(sp.expand_log(value.xreplace(inverse), force=True) - sym)
        if back != 0:
            raise InvalidSpec(f"coordinates.{sym} = {value} composed with coordinates.inverse gives "
                              f"{sp.simplify(back + sym)}, not {sym}: the inverse is wrong")
    return Coordinates(forward, inverse)


class Diff(sp.Function):
    """``diff(expr, x)`` in a claim statement: the derivative of a derived quantity in one region
    parameter, taken by sympy once the names are resolved (claims files only, never specs)."""

    nargs = 2


class _Resolver:
    """Statement text -> sympy, with ``spec.result`` replaced by the derived expression."""

    def __init__(self, specs: dict, region: Region, model: str):
        self.specs, self.region, self.model = specs, region, model
        self.cache = {}
        for name, (_, lets) in specs.items():
            for p, t in lets.items():
                parse_expression(t, region.symbols, field=f"specs.{name}.let.{p}")

    def statement(self, text: str, field: str) -> sp.Basic:
        names = {}

        def repl(m):
            key = f"{m.group(1)}__{m.group(2)}"
            names[key] = (m.group(1), m.group(2))
            return key

        if not isinstance(text, str):
            raise InvalidSpec(f"{field} = {shown(text)} must be a string")
        rewritten = _NAME.sub(repl, text)
        symbols = dict(self.region.symbols)
        for key in names:
            symbols[key] = sp.Symbol(key)
        try:
            rel = parse_predicate(rewritten, symbols, field=field, functions={"diff": (Diff, 2)})
        except InvalidSpec as exc:
            raise InvalidSpec(str(exc).replace("__", ".")) from None
        parts = rel.args if isinstance(rel, sp.And) else (rel,)
        for p in parts:
            alts = p.args if isinstance(p, sp.Or) else (p,)
            if any(isinstance(a, sp.Eq | sp.Ne) for a in alts):
                raise InvalidSpec(f"{field} = {shown(text)} is an equation, not an inequality; write it with <, <=, > or >=")
            if not all(isinstance(a, sp.Lt | sp.Le | sp.Gt | sp.Ge) for a in alts):
                raise InvalidSpec(f"{field} = {shown(text)} is not an inequality; write 'a <= b' (and 'and' of such)")
        subs = {symbols[key]: self.value(spec, result, field) for key, (spec, result) in names.items()}
        rel = rel.xreplace(subs)
        for node in sorted(rel.atoms(Diff), key=lambda n: -sp.count_ops(n)):
            var = node.args[1]
            if not (var.is_Symbol and var in self.region.symbols.values()):
                raise InvalidSpec(f"{field} = {shown(text)}: diff(expression, x) needs a region parameter as x, "
                                  f"not {shown(str(var), 30)}")
        rel = rel.replace(lambda n: isinstance(n, Diff), lambda n: sp.diff(n.args[0], n.args[1]))
        if rel in (sp.true, sp.false):
            raise InvalidSpec(f"{field} = {shown(text)} does not depend on the parameters (it is {rel})")
        return rel

    def value(self, spec: str, result: str, field: str) -> sp.Basic:
        if spec not in self.specs:
            raise InvalidSpec(f"{field}: {spec}.{result} names the spec {spec!r}, which [specs] does not declare "
                              f"(declared: {', '.join(self.specs) or 'none'})")
        if (spec, result) in self.cache:
            return self.cache[spec, result]
        from ldpaudit.derive import N_USERS, derive

        mech, lets = self.specs[spec]
        try:
            results = derive(mech, model=self.model).results
        except NotDerivable as exc:
            raise InvalidSpec(f"{field}: {spec} cannot be derived: {exc}") from None
        usable = sorted(k for k, v in results.items() if isinstance(v, sp.Expr) and not isinstance(v, sp.Eq))
        if result not in usable:
            raise InvalidSpec(f"{field}: {spec}.{result} is not a derived result of {spec}; "
                              f"available: {', '.join(usable)}")
        expr = results[result]
        fixed = {mech.symbols[p]: parse_expression(t, self.region.symbols, field=f"specs.{spec}.let.{p}")
                 for p, t in lets.items()}
        expr = expr.xreplace(fixed)
        by_name = {s.name: s for s in expr.free_symbols}
        subs = {}
        for name, s in by_name.items():
            if name in self.region.symbols:
                subs[s] = self.region.symbols[name]
            elif s == N_USERS:
                subs[s] = sp.Integer(1)
            else:
                raise InvalidSpec(f"{field}: {spec}.{result} depends on {name}, which region.parameters does not declare")
        value = expr.xreplace(subs)
        self.cache[spec, result] = value
        return value
