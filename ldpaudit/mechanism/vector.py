"""Vector inputs: x in the box [low, high]^d, reported through one of two channel forms.

``signs`` (Duchi, Jordan & Wainwright's ℓ∞ mechanism): a latent sign vector v in {-1, 1}^d
with independent coordinates, P(v_j | x_j) = ``latent`` (an expression in v and x), then a sign
vector s in {-1, 1}^d with probability ``entry`` (an expression in t = <s, v> and the
parameters); the report is ``scale`` * s. So

    Q(s | x) = sum over v of prod_j L(v_j | x_j) * G(<s, v>).

When L is affine in x, Q(s | x) is affine in each x_j separately (multilinear), so over the box
its largest and smallest values for each s are taken at vertices: the channel is ε-LDP on the
whole box iff its restriction to the 2^d vertices is, with the same ε*. :meth:`vertex_channel`
is that finite channel; ``ldpaudit verify`` proves it.

``coordinates`` (Wang et al.'s PM and HM in d dimensions): k of the d coordinates, chosen
uniformly and independently of x, are each reported through one scalar channel (a density in
z, or finitely many outputs y, written as in a one-dimensional spec) and multiplied by
``scale``; the others are reported as 0. The ratio of two reports is a product of k
one-coordinate ratios in separate variables, so ε* = k ε*_1 exactly, ε*_1 the scalar channel's.
"""

from __future__ import annotations

import copy
import itertools
import math
from dataclasses import dataclass, replace

import sympy as sp

from ldpaudit.errors import InvalidSpec, NotMaterializable
from ldpaudit.mechanism.checks import _require_nonnegative, require_sum_one
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.explicit import ExplicitChannel
from ldpaudit.render.text import for_people
from ldpaudit.mechanism.params import Parameter, X, Z, _subs
from ldpaudit.mechanism.spaces import BoxDomain, IntervalDomain, _concrete_int

#: the latent sign of one coordinate, and t = <s, v>, in a ``signs`` channel
V = sp.Symbol("v", integer=True)
T = sp.Symbol("t", integer=True)

#: the vertex reduction enumerates 2^d vertices and 2^d sign vectors: up to d = MAX_SIGN_DIMENSION
MAX_SIGN_DIMENSION = 8
#: the row sums of a signs channel are checked as sums over t in -d..d up to this d
MAX_SUM_DIMENSION = 1000
#: audit inputs are vectors of d coordinates: up to this d
MAX_AUDIT_DIMENSION = 100_000


@dataclass(frozen=True)
class SignVectorChannel:
    """``latent`` = P(v_j | x_j) in :data:`V` and :data:`X`; ``entry`` = P(s | v) in :data:`T`
    (= <s, v>); the report is ``scale`` * s. Outputs are sign vectors s (tuples of ±1)."""

    latent: sp.Basic
    entry: sp.Basic
    scale: sp.Basic
    form = "signs"
    variables = frozenset({X, V, T})

    def expressions(self) -> list[sp.Basic]:
        return [self.latent, self.entry, self.scale]

    def substitute(self, subs) -> SignVectorChannel:
        return replace(self, latent=_subs(self.latent, subs), entry=_subs(self.entry, subs), scale=_subs(self.scale, subs))

    def size_fields(self) -> list:
        return []

    def validate(self, mech) -> list[str]:
        return _validate_signs(mech, self)

    def materialize(self, mech, *, max_entries: int) -> ExplicitChannel:
        raise NotMaterializable(
            f"{mech.name!r} has real vector inputs; it has no finite channel matrix (verify reduces it to the "
            "vertices of the box: SignVectorChannel.vertex_channel)")

    def describe_fields(self) -> dict:
        return {"latent": str(self.latent), "entry": str(self.entry), "scale": str(self.scale),
                "latex": {"latent": sp.latex(self.latent), "entry": sp.latex(self.entry), "scale": sp.latex(self.scale)}}

    def show_lines(self) -> list[str]:
        return [f"latent sign v_j in {{-1, 1}} of each coordinate: P(v_j = v | x_j = x) = {for_people(self.latent)}",
                f"sign vector s in {{-1, 1}}^d with t = <s, v>: P(s | v) = {for_people(self.entry)}",
                f"report: {for_people(self.scale)} * s"]

    def latex_lines(self) -> list[str]:
        return [f"P(v_j \\mid x_j) = {sp.latex(self.latent)}", f"P(s \\mid v) = {sp.latex(self.entry)}",
                f"z = {sp.latex(self.scale)}\\, s"]

    def latent_law(self, v: int, x) -> sp.Basic:
        """P(v_j = v | x_j = x)."""
        return _subs(self.latent, {V: sp.Integer(v), X: sp.sympify(x)})

    def given_latent(self, t: int) -> sp.Basic:
        """P(s | v) for <s, v> = t."""
        return _subs(self.entry, {T: sp.Integer(t)})

    def affine(self) -> bool:
        """Whether the latent law is affine in x (so Q(s|x) is multilinear on the box)."""
        for v in (-1, 1):
            law = sp.expand(_subs(self.latent, {V: sp.Integer(v)}))
            if law.has(X) and not (law.is_polynomial(X) and sp.degree(law, X) <= 1):
                return False
        return True

    def probability(self, s: tuple, x: tuple) -> sp.Basic:
        """Q(s | x) exactly, by the distribution of t = <s, v>: coordinate j contributes +1 with
        probability L(s_j | x_j) (v_j = s_j), else -1."""
        return _mix(self, [self.latent_law(sj, xj) for sj, xj in zip(s, x)])

    def vertex_channel(self, mech) -> ExplicitChannel:
        """The channel restricted to the vertices of the box: rows are vertices (tuples of the
        box's ends), columns sign vectors. Equal (s, u) agreement counts share one entry."""
        box = mech.inputs
        d = _concrete_int(box.dimension, "inputs.dimension")
        if d > MAX_SIGN_DIMENSION:
            raise NotMaterializable(f"inputs.dimension = {d}: the vertex reduction enumerates 4^d (vertex, output) "
                                    f"pairs and stops at d = {MAX_SIGN_DIMENSION}")
        ends = (box.low, box.high)
        agree = {(v, e): self.latent_law(v, e) for v in (-1, 1) for e in ends}
        cache: dict = {}
        signs = list(itertools.product((-1, 1), repeat=d))
        vertices = [tuple(ends[(1 + c) // 2] for c in code) for code in signs]
        rows = []
        for u in vertices:
            row = []
            for s in signs:
                key = tuple(sorted((sj, uj == box.high) for sj, uj in zip(s, u)))
                if key not in cache:
                    cache[key] = _mix(self, [agree[(sj, uj)] for sj, uj in zip(s, u)])
                row.append(cache[key])
            rows.append(tuple(row))
        return ExplicitChannel(tuple(vertices), tuple(signs), tuple(rows))


def _mix(ch: SignVectorChannel, agree: list) -> sp.Basic:
    """sum_t P(<s, v> = t) G(t) where coordinate j agrees (+1) with probability agree[j]."""
    dist = {0: sp.Integer(1)}
    for a in agree:
        nxt: dict = {}
        for t, p in dist.items():
            for step, q in ((1, a), (-1, 1 - a)):
                if q != 0:
                    nxt[t + step] = nxt.get(t + step, 0) + p * q
        dist = nxt
    return sp.Add(*(sp.expand(p) * ch.given_latent(t) for t, p in sorted(dist.items()) if p != 0))


def box_audit_inputs(box: BoxDomain) -> list[tuple]:
    """Vector inputs for a black-box audit: every vertex of a box with at most 8 of them (where a
    multilinear channel takes its extremes), else the two opposite corners and the centre.
    Coordinates are exact (int or Fraction)."""
    from fractions import Fraction

    def exact(v):
        v = sp.sympify(v)
        return int(v) if v.is_Integer else Fraction(str(v))

    d = _concrete_int(box.dimension, "inputs.dimension")
    if d > MAX_AUDIT_DIMENSION:
        raise NotMaterializable(f"inputs.dimension = {d}: an audit input is a vector of d coordinates, and d is above "
                                f"{MAX_AUDIT_DIMENSION:,}; bind a smaller d to audit")
    if d <= 3:
        return [tuple(exact(c) for c in v) for v in box.vertices()]
    low, high = exact(box.low), exact(box.high)
    return [(low,) * d, (high,) * d, ((low + high) / 2,) * d]


def sign_dimensions(mech) -> list[int] | None:
    """The dimensions a ``signs`` channel must be checked at: the number, or every value of an
    integer parameter d with a finite declared range of at most MAX_SIGN_DIMENSION; None when
    the range is unbounded or too large."""
    d = sp.sympify(mech.inputs.dimension)
    if d.is_number:
        return [int(d)]
    if not d.is_Symbol:
        return None
    p = next((p for p in mech.parameters if p.symbol == d), None)
    if p is None or p.upper is None or not sp.sympify(p.upper).is_number:
        return None
    lo = 1 if p.lower is None or not sp.sympify(p.lower).is_number else max(1, math.ceil(p.lower))
    hi = math.floor(p.upper)
    if hi > MAX_SIGN_DIMENSION:
        return None
    return list(range(lo, hi + 1))


def _require_nonzero_scale(mech, scale) -> None:
    """channel.scale multiplies every report: 0 (shown at the expression or at an admissible
    sample point) makes the output a constant, which no spec of a mechanism means."""
    from ldpaudit.mechanism.checks import sample_points
    from ldpaudit.mechanism.params import decide

    scale = sp.sympify(scale)
    points = [{}] if scale.is_number else sample_points(mech)
    for point in points:
        value = _subs(scale, {mech.symbols[k]: v for k, v in point.items()}) if point else scale
        if not value.is_number:
            continue
        if value.has(sp.nan, sp.zoo, sp.oo, -sp.oo) or value.is_extended_real is False or decide(sp.Eq(value, 0)):
            at = f" at {', '.join(f'{k}={v}' for k, v in point.items())}" if point else ""
            raise InvalidSpec(f"channel.scale = {scale} of {mech.name!r} is {value}{at}: every report would be the "
                              f"constant 0 (or undefined); give a non-zero scale such as \"d/k\"")


def _validate_signs(mech, ch: SignVectorChannel) -> list[str]:
    box = mech.inputs
    if not isinstance(box, BoxDomain):
        raise InvalidSpec(f"channel.form = \"signs\" of {mech.name!r} needs vector inputs: set inputs.dimension, "
                          "inputs.low and inputs.high")
    _require_nonzero_scale(mech, ch.scale)
    latent = ch.latent_law(1, X) + ch.latent_law(-1, X)
    require_sum_one(mech, latent, lambda: f"channel.latent of {mech.name!r}: P(v=1|x) + P(v=-1|x) = "
                                          f"{sp.simplify(latent)}, not 1")
    for v in (-1, 1):
        for end in (box.low, box.high):
            _require_nonnegative(mech, ch.latent_law(v, end), f"channel.latent P(v={v}|x={end})")
    notes = []
    if ch.affine():
        notes.append("latent law affine in x: non-negative on the box (checked at both ends)")
    else:
        notes.append("latent law not affine in x: checked at the box's ends only; verify needs an affine law")
    dims = sign_dimensions(mech)
    where = f"at d = {dims[0]}" if dims is not None and len(dims) == 1 else "for every d in its range"
    if dims is None:
        example = dict(mech.example).get(str(box.dimension))
        dims = [int(example)] if example is not None else []
        where = f"at the example d = {example} only (d's range is unbounded or above {MAX_SIGN_DIMENSION})"
    d_sym = sp.sympify(box.dimension)
    if any(d > MAX_SUM_DIMENSION for d in dims):
        notes.append(f"P(s | v) not summed at d = {max(dims)} (above {MAX_SUM_DIMENSION}); verify enumerates d <= "
                     f"{MAX_SIGN_DIMENSION} only")
        dims = [d for d in dims if d <= MAX_SUM_DIMENSION]
        where = "at the dimensions up to " + str(MAX_SUM_DIMENSION)
    for d in dims:
        at = {} if d_sym.is_number else {d_sym: sp.Integer(d)}
        total = sp.Integer(0)
        for t in range(-d, d + 1, 2):
            g = _subs(ch.given_latent(t), at)
            _require_nonnegative(mech, g, f"channel.entry at t = {t} (d = {d})")
            total += math.comb(d, (d + t) // 2) * g
        require_sum_one(mech, total, lambda: f"channel.entry of {mech.name!r} sums to {sp.simplify(total)} over the "
                                             f"2^{d} sign vectors at d = {d}; P(s | v) must sum to 1")
    if dims:
        notes.append(f"P(s | v) sums to 1 over the sign vectors {where}: exact sums, sympy")
    return notes




@dataclass(frozen=True)
class CoordinatesChannel:
    """k of the d coordinates sampled (``sampled`` = k), each reported through ``coordinate``
    (a DensityChannel in x, z or a RealInputChannel in x, y) times ``scale``, the rest as 0."""

    coordinate: object
    sampled: sp.Basic
    scale: sp.Basic
    form = "coordinates"

    @property
    def variables(self) -> frozenset:
        return frozenset(self.coordinate.variables)

    @property
    def continuous(self) -> bool:
        return Z in self.variables

    def expressions(self) -> list[sp.Basic]:
        return [*self.coordinate.expressions(), self.sampled, self.scale]

    def substitute(self, subs) -> CoordinatesChannel:
        return replace(self, coordinate=self.coordinate.substitute(subs), sampled=_subs(self.sampled, subs),
                       scale=_subs(self.scale, subs))

    def size_fields(self) -> list:
        return [("channel.sampled", self.sampled)]

    def _law_text(self, latex: bool = False) -> str:
        c = self.coordinate
        show = sp.latex if latex else for_people
        if getattr(c, "form", None) == "mixture":
            return "; ".join(f"w = {show(m.weight)}: " + (f"density {show(m.density)}" if m.kind == "density" else
                             f"atoms at {show(m.at)}, Q(y|x) = {show(m.entry)}") for m in c.components)
        return show(c.density) if isinstance(c, DensityChannel) else show(c.entry)

    def describe_fields(self) -> dict:
        c = self.coordinate
        if getattr(c, "form", None) == "mixture":
            law = {"mixture": [{"weight": str(m.weight), "kind": m.kind,
                                **({"density": str(m.density)} if m.kind == "density" else
                                   {"outputs": [str(y) for y in m.outputs], "entry": str(m.entry), "at": str(m.at)})}
                               for m in c.components]}
        else:
            law = ({"density": str(c.density)} if isinstance(c, DensityChannel)
                   else {"outputs": [str(y) for y in c.outputs], "entry": str(c.entry)})
        return {"sampled": str(self.sampled), "scale": str(self.scale), "coordinate": law,
                "latex": self._law_text(latex=True)}

    def show_lines(self) -> list[str]:
        c = self.coordinate
        what = (f"f(z|x) = {self._law_text()}" if isinstance(c, DensityChannel) else
                f"the mixture {self._law_text()}" if getattr(c, "form", None) == "mixture" else
                f"Q(y|x) = {self._law_text()}, y in {{{', '.join(map(str, c.outputs))}}}")
        return [f"{for_people(self.sampled)} of the d coordinates sampled uniformly; the others reported as 0",
                f"each sampled coordinate x_j reported as {for_people(self.scale)} * (z with {what})"]

    def latex_lines(self) -> list[str]:
        kind = ("f(z \\mid x)" if isinstance(self.coordinate, DensityChannel) else
                "\\text{mixture}" if getattr(self.coordinate, "form", None) == "mixture" else "Q(y \\mid x)")
        return [f"{kind} = {self._law_text(latex=True)}", f"t_j = {sp.latex(self.scale)}\\, z_j"]

    def validate(self, mech) -> list[str]:
        return _validate_coordinates(mech, self)

    def materialize(self, mech, *, max_entries: int) -> ExplicitChannel:
        raise NotMaterializable(f"{mech.name!r} has real vector inputs; it has no finite channel matrix")


def coordinate_mechanism(mech, claim=None):
    """One coordinate of a ``coordinates`` channel as a scalar Mechanism on [low, high] (same
    parameters), claiming ``claim`` (default: the vector claim divided by k)."""
    from ldpaudit.mechanism.core import Mechanism

    ch = mech.channel
    return Mechanism(
        name=f"{mech.name} (one coordinate)",
        parameters=mech.parameters,
        inputs=mech.inputs.interval,
        channel=ch.coordinate,
        claimed_epsilon=mech.claimed_epsilon / ch.sampled if claim is None else claim,
        bindings=mech.bindings,
        example=mech.example,
        identities_proved=mech.identities_proved,
    )


def _validate_coordinates(mech, ch: CoordinatesChannel) -> list[str]:
    box = mech.inputs
    if not isinstance(box, BoxDomain):
        raise InvalidSpec(f"channel.form = \"coordinates\" of {mech.name!r} needs vector inputs: set inputs.dimension, "
                          "inputs.low and inputs.high")
    _require_nonzero_scale(mech, ch.scale)
    k, d = sp.sympify(ch.sampled), sp.sympify(box.dimension)
    if k.is_number and (not k.is_Integer or k < 1):
        raise InvalidSpec(f"channel.sampled = {k} of {mech.name!r} must be a whole number >= 1 (coordinates per report)")
    if k.is_number and d.is_number and k > d:
        raise InvalidSpec(f"channel.sampled = {k} of {mech.name!r} exceeds inputs.dimension = {d}; sample at most d")
    if not k.is_number and k != d:
        p = next((p for p in mech.parameters if p.symbol == k), None)
        if p is None or p.kind != "integer" or p.lower is None or not (sp.sympify(p.lower).is_number and p.lower >= 1) \
                or p.upper is None or sp.simplify(p.upper - d) != 0 and not (
                    sp.sympify(p.upper).is_number and d.is_number and p.upper <= d):
            raise InvalidSpec(f"channel.sampled = {k} of {mech.name!r} must be a number or an integer parameter "
                              "declared with min = 1 and max = the dimension (e.g. max = \"d\")")
    notes = coordinate_mechanism(mech).notes
    return [f"one coordinate: {n}" for n in notes]


def _coordinate_as_scalar(mech, **fields):
    """The coordinate channel of ``mech`` as a scalar Mechanism (what :func:`coordinate_mechanism`
    builds, with ``fields``), not validated a second time: the vector mechanism's validation
    validated its coordinate mechanism (:func:`_validate_coordinates`), and a scalar claim or
    ε = k ε₁ (every admissible ε₁, k give an admissible ε) changes no channel it checked. The copy
    keeps the vector mechanism's notes, which say so. Validating it again cost each derivation and
    proof of hybrid_multidim 0.1-0.3 s of CPU (as a mixture's components, see
    :func:`ldpaudit.mechanism.mixture.component_mechanism`)."""
    part = copy.copy(mech)  # a copy without __init__, so without __post_init__'s validation
    values = dict(name=f"{mech.name} (one coordinate)", inputs=mech.inputs.interval, bindings=mech.bindings,
                  description="", source="", claimed_delta=None, spec_path=None,
                  identities_proved=mech.identities_proved, **fields)
    for name, value in values.items():
        object.__setattr__(part, name, value)
    return part


class PerCoordinate:
    """The coordinate channel as a scalar mechanism claiming ε/k. When k is free and the claim
    is a parameter P > 0 with no upper bound, P = k P_1 with a fresh P_1 > 0 (``per``): the
    scalar prover then sees exp(P_1) rather than exp(P/k), over the same instances (every
    P_1 > 0 is P/k for some admissible P and k)."""

    def __init__(self, mech, claim):
        self.mech, self.claim = mech, claim
        self.k = sp.sympify(mech.channel.sampled)
        self.param = self.per = None
        p = next((q for q in mech.parameters if q.symbol == claim), None)
        others = [q for q in mech.parameters if q is not p]
        if (not self.k.is_number and p is not None and p.kind == "real" and p.upper is None and p.lower == 0
                and p.lower_strict and not any(b is not None and b.has(p.symbol) for q in others for b in (q.lower, q.upper))):
            self.param = p
            self.per = Parameter(f"{p.name}_per_coordinate", "real", sp.Integer(0), None, lower_strict=True,
                                 description=f"{p.name}/{self.k}")
            example = dict(mech.example)
            if p.name in example and str(self.k) in example:
                example[self.per.name] = example.pop(p.name) / example[str(self.k)]
            subs = {p.symbol: self.k * self.per.symbol}
            self.sub = _coordinate_as_scalar(mech, parameters=(*others, self.per),
                                             channel=mech.channel.coordinate.substitute(subs),
                                             claimed_epsilon=self.per.symbol, example=tuple(example.items()))
            self.scalar_claim = self.per.symbol
        else:
            self.scalar_claim = sp.simplify(claim / self.k)
            self.sub = _coordinate_as_scalar(mech, parameters=mech.parameters, channel=mech.channel.coordinate,
                                             claimed_epsilon=self.scalar_claim, example=mech.example)

    def back(self, value):
        """A value in the scalar mechanism's parameters, in the vector mechanism's."""
        if self.per is None or value is None:
            return value
        return sp.sympify(value).xreplace({self.per.symbol: self.param.symbol / self.k})

    def params(self, w) -> tuple:
        """The witness's parameter values for the vector mechanism (P = k P_1, with the k and d
        of the example when the scalar witness leaves them free)."""
        if self.per is None:
            return w.params
        values = dict(w.params)
        per = values.pop(self.per.name, None)
        example = dict(self.mech.example)
        for q in self.mech.parameters:
            if q.name not in values and q is not self.param and q.name in example and (
                    q.symbol in self.k.free_symbols or q.symbol in sp.sympify(self.mech.inputs.dimension).free_symbols):
                values[q.name] = example[q.name]
        if per is not None:
            k = self.k.xreplace({self.mech.symbols[n]: v for n, v in values.items() if n in self.mech.symbols})
            values[self.param.name] = sp.simplify(k * per)
        return tuple(values.items())
