"""Real inputs with finitely many outputs: how Q(y|x) depends on x.

A real-input channel's entries see x only through *input functions*. Those that take finitely
many values are the heart of the Joseph et al. randomizers: a residue ``floor(x/2^j) % 4``,
a bit ``bit(floor(x/sigma), j)`` (= ``floor(floor(x/sigma)/2^j) % 2``), a comparison
``x >= mu1``. :func:`abstract` replaces each of them by a stand-in symbol with its finite set
of values, so Q(y|x) becomes G_y(v) over finitely many cases v, plus whatever rational
dependence on x is left (``abs(x)`` in a weight). A statement proved for every case v is
proved for every x (the cases over-approximate the values x can produce); the cases are also
how validation proves rows sum to 1 and class counts hold for every x.

:func:`representative_inputs` gives exact rational inputs at which the input functions take
each of their values (boundaries of comparisons, one point per residue) for spot checks,
witness search and audits.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

import sympy as sp

from ldpaudit.errors import InvalidSpec, NotMaterializable
from ldpaudit.mechanism.checks import _require_nonnegative, is_zero, sample_points
from ldpaudit.mechanism.params import X, Y, _decided, _subs
from ldpaudit.mechanism.spaces import IntervalDomain, _subs_domain

#: at most this many combinations of feature values are enumerated
MAX_CASES = 4096


@dataclass(frozen=True)
class RealInputChannel:
    """Finitely many outputs from a real input: ``entry`` is Q(y|x) as an expression in
    :data:`X` and :data:`Y` (a ``Piecewise`` over class conditions for a structured spec),
    ``outputs`` the output labels (integers).

    Written in a spec as ``form = "explicit"`` with ``outputs = [...]`` and ``entry``, or as
    ``form = "structured"`` with ``outputs = "element"`` and classes whose conditions may use
    functions of x (floor, ``%``, comparisons with parameters, Max/Min, abs, ``bit``);
    ``layout`` records which, and ``classes`` keeps the structured classes (their
    ``relation`` is the condition as a sympy boolean)."""

    outputs: tuple
    entry: sp.Basic
    layout: str = "explicit"
    classes: tuple = ()  # of ldpaudit.mechanism.structured.OutputClass
    form = "real-input"
    variables = frozenset({X, Y})

    def probability(self, y) -> sp.Basic:
        """Q(y|x) for one output label, as an expression in :data:`X` and the parameters."""
        return _subs(self.entry, {Y: sp.Integer(y)})

    def expressions(self) -> list[sp.Basic]:
        return [self.entry] + [e for c in self.classes for e in (c.count, c.weight)]

    def substitute(self, subs) -> RealInputChannel:
        return replace(self, entry=_subs(self.entry, subs), classes=tuple(c.substitute(subs) for c in self.classes))

    def size_fields(self) -> list:
        return []

    def validate(self, mech) -> list[str]:
        return _validate_real_input(mech, self)

    def materialize(self, mech, *, max_entries: int):
        raise NotMaterializable(f"{mech.name!r} has real inputs; it has no finite channel matrix")


@dataclass(frozen=True)
class Feature:
    """An input function with finitely many values: ``expr`` (in x and the parameters) is
    replaced by ``symbol``; ``values`` are the values it can take (True/False for a
    comparison, 0..m-1 for a residue mod m)."""

    expr: sp.Basic
    symbol: sp.Symbol
    values: tuple
    kind: str  # 'comparison' | 'residue'

    def describe(self) -> str:
        if self.kind == "comparison":
            return f"[{sp.sstr(self.expr)}] in {{true, false}}"
        return f"{sp.sstr(self.expr)} in {{{', '.join(map(str, self.values))}}}"


@dataclass(frozen=True)
class Abstraction:
    """Expressions with their finite input functions replaced by stand-ins."""

    expressions: tuple[sp.Basic, ...]
    features: tuple[Feature, ...]

    @property
    def residual(self) -> bool:
        """Whether x is still present after the replacement (e.g. abs(x) in a weight)."""
        return any(e.has(X) for e in self.expressions)

    def cases(self) -> Iterable[dict]:
        """Every combination of feature values, as substitutions."""
        symbols = [f.symbol for f in self.features]
        for values in itertools.product(*(f.values for f in self.features)):
            yield dict(zip(symbols, values))

    @property
    def case_count(self) -> int:
        n = 1
        for f in self.features:
            n *= len(f.values)
        return n

    def at(self, expr: sp.Basic, case: Mapping) -> sp.Basic:
        """An abstracted expression at one combination of feature values."""
        return sp.piecewise_fold(expr.xreplace(dict(case))) if case else expr


def _integer_valued(expr: sp.Basic) -> bool:
    return expr.is_integer is True


def abstract(expressions: Iterable[sp.Basic]) -> Abstraction:
    """Replace the finite-valued input functions in ``expressions`` (shared across them, so
    one combination of values is one x) by stand-in symbols."""
    found: dict[sp.Basic, Feature] = {}

    def feature(expr, kind, values):
        hit = found.get(expr)
        if hit is None:
            sym = sp.Symbol(f"_f{len(found)}", integer=True) if kind == "residue" else sp.Symbol(f"_b{len(found)}")
            hit = Feature(expr, sym, values, kind)
            found[expr] = hit
        return hit.symbol

    def walk(e):
        if not e.has(X) or e.is_Atom:
            return e
        if isinstance(e, sp.Mod):
            a, m = e.args
            if m.is_Integer and 0 < m <= 64 and _integer_valued(a):
                return feature(e, "residue", tuple(range(int(m))))
        if isinstance(e, sp.core.relational.Relational) and not e.has(Y):
            lhs, rhs = walk(e.lhs), walk(e.rhs)
            if not (lhs - rhs).has(X):  # a comparison among residues and parameters
                return e.func(lhs, rhs)
            key, negated = _canonical(e)
            sym = feature(key, "comparison", (sp.true, sp.false))
            return sp.Not(sym) if negated else sym
        if isinstance(e, sp.Piecewise):
            return sp.Piecewise(*[(walk(v), walk(c)) for v, c in e.args])
        return e.func(*[walk(a) for a in e.args])

    out = tuple(walk(sp.sympify(e)) for e in expressions)
    return Abstraction(out, tuple(found.values()))


def _canonical(rel) -> tuple[sp.Basic, bool]:
    """A comparison as ``d >= 0`` or ``d == 0`` (and whether it is negated), so that
    ``x < mu1`` and ``x >= mu1`` are one input function."""
    d = rel.lhs - rel.rhs
    op = rel.rel_op
    if op in (">=", "<"):
        return sp.GreaterThan(d, 0, evaluate=False), op == "<"
    if op in ("<=", ">"):
        return sp.GreaterThan(-d, 0, evaluate=False), op == ">"
    return sp.Eq(d, 0, evaluate=False), op == "!="


def representative_inputs(domain, expressions: Iterable[sp.Basic], params: Mapping[sp.Symbol, sp.Basic] | None = None,
                          *, extra: Iterable = ()) -> list[sp.Rational]:
    """Exact rational inputs where the input functions of ``expressions`` (parameters bound
    by ``params``) take their different values: both sides of every comparison boundary, a
    point in every residue class, plus 0, ±1, ±1000 and the domain's ends; sorted, inside the
    domain."""
    subs = dict(params or {})
    points: set = {sp.Integer(0), sp.Integer(1), sp.Integer(-1), sp.Integer(1000), sp.Integer(-1000),
                   sp.Integer(10**6), sp.Integer(-(10**6))}
    points |= {sp.nsimplify(v) for v in extra}
    exprs = [sp.sympify(e).xreplace(subs) for e in expressions]
    ab = abstract(exprs)
    for f in ab.features:
        points |= _boundary_points(f)
    if isinstance(domain, IntervalDomain):
        for end in (domain.low, domain.high):
            if end is not None:
                end = sp.sympify(end).xreplace(subs)
                if end.is_Rational:
                    points.add(end)
        if domain.bounded and domain.low.xreplace(subs).is_Rational and domain.high.xreplace(subs).is_Rational:
            lo, hi = domain.low.xreplace(subs), domain.high.xreplace(subs)
            points |= {lo + (hi - lo) * sp.Rational(k, 8) for k in range(9)}
        points = {p for p in points if _exact_real(p) and domain.contains(p)}
    else:
        points = {p for p in points if _exact_real(p)}
    return sorted(points)


def _exact_real(p: sp.Basic) -> bool:
    """A rational, or an exact real number such as e or √2 (where a comparison changes value)."""
    return bool(p.is_Rational or (p.is_number and p.is_real and p.is_finite))


def evaluate(expr: sp.Basic, x) -> sp.Basic:
    """An expression in x (parameters already bound) at an exact input value (a sympy
    Rational or an int is used as it is: nsimplify would round -3321404725185741/2^48, the
    double nearest -59/5, to -59/5, across the boundary the double is on)."""
    value = sp.Integer(x) if isinstance(x, int) else x if isinstance(x, sp.Rational) else sp.nsimplify(x)
    out = sp.sympify(expr).xreplace({X: value})
    if isinstance(out, sp.Piecewise) or out.has(sp.Piecewise):
        out = sp.piecewise_fold(out).doit()
    return out


def _linear(expr) -> tuple[sp.Basic, sp.Basic] | None:
    """expr = a*x + b with numeric a != 0, b, or None."""
    expr = sp.expand(expr)
    if not expr.is_polynomial(X) or sp.degree(expr, X) != 1:
        return None
    a, b = expr.coeff(X, 1), expr.coeff(X, 0)
    if a.is_number and b.is_number and a != 0:
        return a, b
    return None


def _boundary_points(f: Feature) -> set:
    """Inputs near where a feature changes value (numeric parameters only)."""
    out: set = set()
    e = f.expr
    if f.kind == "comparison":
        h = e.lhs - e.rhs
        for t in (_real_roots(h) if not h.has(sp.floor, sp.ceiling, sp.Mod) else ()):
            if t.is_Rational:
                out |= {t, t + 1, t - 1, t + sp.Rational(1, 2), t - sp.Rational(1, 2), t + sp.Rational(1, 1000),
                        t - sp.Rational(1, 1000)}
            else:  # x == e^ε, x^2 == 2: the exact point itself, and rationals on either side
                near = sp.Rational(round(float(t) * 1000), 1000)
                out |= {t, near - sp.Rational(1, 1000), near + sp.Rational(1, 1000), near - 1, near + 1}
        inner = [g for g in e.atoms(sp.floor, sp.ceiling)]
        for g in inner:
            out |= _floor_points(g.args[0], range(-3, 4))
        return out
    # residue: Mod(floor(g(x)), m) (also nested floors, as bit() produces)
    m = int(e.args[1])
    floors = sorted(e.atoms(sp.floor), key=sp.count_ops)
    if floors:
        out |= _floor_points(floors[0].args[0], range(-m - 2, 2 * m + 2))
    return out


#: the highest degree in x of a comparison whose real roots are computed exactly
MAX_ROOT_DEGREE = 4


def _real_roots(h: sp.Basic) -> list[sp.Basic]:
    """The real x with h(x) = 0, exactly, for h linear in x with numeric coefficients (-b/a, e^ε
    included) or a polynomial of low degree with rational coefficients (x^2 - 2: ±√2)."""
    lin = _linear(h)
    if lin is not None:
        a, b = lin
        t = -b / a
        return [t] if t.is_Rational or (t.is_number and t.is_real) else []
    expanded = sp.expand(h)
    if not expanded.is_polynomial(X) or expanded.free_symbols - {X}:
        return []
    poly = sp.Poly(expanded, X)
    if not 1 <= poly.degree() <= MAX_ROOT_DEGREE or not poly.domain.is_QQ and not poly.domain.is_ZZ:
        return []
    return list(dict.fromkeys(poly.real_roots()))


def _floor_points(arg, ks) -> set:
    lin = _linear(arg)
    if lin is None:
        return set()
    a, b = lin
    out = set()
    for k in ks:
        for shift in (0, sp.Rational(1, 2)):
            t = (k + shift - b) / a
            if t.is_Rational:
                out.add(t)
    return out


def density_inputs(mech, *, interior: int = 3) -> list[float] | None:
    """Inputs for a spec-guided audit of a density channel on a bounded interval [low, high]
    (ends numbers once the parameters are bound): both ends, where the bands of the Piecewise
    mechanism and Square Wave lie farthest apart, and ``interior`` evenly spaced points
    between them; None for any other channel or domain."""
    dom = mech.inputs
    if getattr(mech.channel, "form", None) != "density" or not isinstance(dom, IntervalDomain) or not dom.bounded:
        return None
    low, high = sp.sympify(dom.low), sp.sympify(dom.high)
    if not (low.is_number and high.is_number):
        return None
    points = [low + (high - low) * sp.Rational(k, interior + 1) for k in range(interior + 2)]
    return list(dict.fromkeys(float(v) for v in points))


def audit_inputs(mech, *, limit: int = 6, extra: Iterable = ()) -> list[float]:
    """A few real inputs for a black-box audit of a bound real-input mechanism: ``extra`` first
    (e.g. the witness pair of verify's tightest ε), then one per distinct row Q(.|x) among the
    representative inputs (so every class is exercised), then the extremes; for a density
    channel on a bounded interval, its two ends.

    An input is passed to the randomizer as a double, so its row is evaluated at the exact
    value of that double: a representative on a class boundary (x = -59/5 next to a grid
    point) whose double falls on the other side is not counted as a new class."""
    from fractions import Fraction

    dom = mech.inputs
    ch = mech.channel
    first = [float(v) for v in extra]
    if not isinstance(ch, RealInputChannel):
        if not dom.bounded:
            rest = [float(v) for v in representative_inputs(dom, ch.expressions())[::3]]
        else:
            rest = [float(dom.low), float(dom.high)]
        return list(dict.fromkeys(first + rest))[:max(limit, len(first))]
    rows = [ch.probability(y) for y in ch.outputs]
    chosen: dict = {}
    for x in [*first, *representative_inputs(dom, rows)]:
        exact = sp.Rational(*Fraction(float(x)).as_integer_ratio())
        key = tuple(evaluate(r, exact) for r in rows)
        chosen.setdefault(key, float(x))
    kept = [x for x in chosen.values() if x in first]
    others = sorted(x for x in chosen.values() if x not in first)
    room = max(limit - len(kept), 0)
    if len(others) > room:  # keep both extremes and spread the rest
        others = sorted({others[round(i * (len(others) - 1) / max(room - 1, 1))] for i in range(room)}) if room else []
    return sorted(kept + others)


# --- validation ------------------------------------------------------------------------------


def _validate_real_input(mech, ch: RealInputChannel) -> list[str]:
    """Rows of a real-input channel: non-negative and summing to 1 for every x, proved by a
    case split over the values of its input functions where possible, and always checked
    exactly at representative inputs and sample parameters; structured class counts too."""
    if not isinstance(mech.inputs, IntervalDomain):
        raise InvalidSpec(f"channel of {mech.name!r} has real inputs but [inputs] is finite; use low/high or real = true")
    if not ch.outputs or len(set(ch.outputs)) != len(ch.outputs):
        raise InvalidSpec(f"channel.outputs of {mech.name!r} must be non-empty and without repeats")
    for i, c in enumerate(ch.classes):
        if not (c.count.is_Integer and c.count >= 0):
            raise InvalidSpec(
                f"channel.classes[{i}].count of {mech.name!r} = {c.count}; with real inputs a class count must be "
                "a non-negative integer (the number of outputs in the class for every x)"
            )
    rows = [ch.probability(y) for y in ch.outputs]
    relations = [c.relation.xreplace({Y: sp.Integer(y)}) for c in ch.classes for y in ch.outputs]
    ab = abstract(rows + relations)
    notes = []
    proved = False
    if ab.case_count <= MAX_CASES:
        n = len(rows)
        proved = True
        seen = set()
        for case in ab.cases():
            values = [ab.at(e, case) for e in ab.expressions[:n]]
            for y, v in zip(ch.outputs, values):
                if v not in seen:
                    seen.add(v)
                    _require_nonnegative(mech, v, f"Q(y={y}|x) of the real-input channel")
            if is_zero(sp.Add(*values) - 1) is not True:
                proved = False
            if ch.classes:
                rel = ab.expressions[n:]
                for i, c in enumerate(ch.classes):
                    hits = [ab.at(r, case) for r in rel[i * n:(i + 1) * n]]
                    if any(h not in (sp.true, sp.false) for h in hits) or sum(h is sp.true for h in hits) != int(c.count):
                        proved = False
        if proved:
            what = ", ".join(f.describe() for f in ab.features) or "no input function"
            scope = "every x" + (" (x enters only through " + what + ")" if ab.features and not ab.residual else "")
            notes.append(f"rows sum to 1{' and class counts hold' if ch.classes else ''} for {scope}: case split, sympy")
    _require_nonnegative_at_ends(mech, ch, rows)
    checked = _spot_check_real_input(mech, ch, rows)
    notes.append(f"rows checked exactly at {checked} (input, parameter) points")
    if not proved:
        notes.append("row sums not proved symbolically for every x; spot checks only")
    return notes


#: at most this many rows are checked at the ends of the input interval
MAX_END_ROWS = 64


def _require_nonnegative_at_ends(mech, ch: RealInputChannel, rows) -> None:
    """Each row at both ends of the input interval, as a function of the parameters, checked
    over the parameter range (sample points spread over it): an entry affine in x (Duchi's
    1/2 + y x (e^ε - 1)/(2B(e^ε + 1)) on [-2B, 2B]) is smallest at an end, and an end is a
    declared input, so a negative value found there is a shown fault, whatever ε it needs."""
    dom = mech.inputs
    for end in (dom.low, dom.high):
        if end is None:
            continue
        for y, row in list(zip(ch.outputs, rows))[:MAX_END_ROWS]:
            _require_nonnegative(mech, _subs(row, {X: end}), f"Q(y={y}|x={end}) of the real-input channel")


def _value_text(v: sp.Basic) -> str:
    """An entry's value for a message: simplified, e written ``e``, with its decimal value."""
    from ldpaudit.render.text import for_people

    if not v.is_number or v.has(sp.nan, sp.zoo):
        return str(v)
    shown = for_people(sp.simplify(v)) if v.has(sp.E, sp.exp) else str(sp.simplify(v))
    return shown if v.is_Rational else f"{shown} ≈ {float(sp.N(v, 20)):.4g}"


def _spot_check_real_input(mech, ch: RealInputChannel, rows) -> int:
    count = 0
    for point in sample_points(mech, count=3):
        subs = {mech.symbols[k]: v for k, v in point.items()}
        bound_rows = [r.xreplace(subs) for r in rows]
        xs = representative_inputs(_subs_domain(mech.inputs, subs), bound_rows)
        if len(xs) > 14:  # keep the spread: both far ends and an even selection between
            step = (len(xs) - 1) / 13
            xs = sorted({xs[round(i * step)] for i in range(14)})
        pretty = ", ".join(f"{k}={v}" for k, v in point.items())
        at = f" at {pretty}" if pretty else ""
        # the inputs of one point share a few values (k-RR's two): each is decided once
        probability: dict = {}
        sums_to_one: dict = {}
        relations = [[c.relation.xreplace(subs).xreplace({Y: sp.Integer(y)}) for y in ch.outputs] for c in ch.classes]
        for x in xs:
            values = [evaluate(r, x) for r in bound_rows]
            for y, v in zip(ch.outputs, values):
                if v not in probability:
                    probability[v] = not v.is_number or v.has(sp.nan, sp.zoo) or _decided(
                        v < 0, f"Q(y={y}|x={x}) of {mech.name!r}{at}", v)
                if probability[v]:
                    raise InvalidSpec(f"Q(y={y}|x={x}) of {mech.name!r} = {_value_text(v)}{at} is not a probability "
                                      "(it must lie in [0, 1])")
            total = sp.Add(*values)
            if total not in sums_to_one:
                sums_to_one[total] = is_zero(total - 1) is True
            if not sums_to_one[total]:
                raise InvalidSpec(
                    f"row x={x} of channel {mech.name!r} sums to {sp.nsimplify(total)}{at}; each row must sum to 1"
                )
            for i, c in enumerate(ch.classes):
                hits = sum(evaluate(rel, x) is sp.true for rel in relations[i])
                if hits != int(c.count):
                    raise InvalidSpec(
                        f"channel.classes[{i}] ({c.name!r}) of {mech.name!r} declares count {c.count} but {hits} outputs "
                        f"satisfy {c.condition!r} for input x={x} at {pretty}"
                    )
            count += 1
    return count
