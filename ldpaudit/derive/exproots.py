"""Exact signs and roots of an expression in e^(ε/L) over ε > 0.

Every variance of an ε-LDP mechanism derived so far is a rational function of s = e^(ε/L)
(L the least common denominator of the exponents: PM's are in e^(ε/2), Duchi's in e^ε = s²).
ε > 0 is s > 1, so "where does A(ε) exceed B(ε)" is the sign of one rational function of s on
(1, ∞): its numerator and denominator have finitely many real roots there, each an algebraic
number (sympy's ``CRootOf``, an exact root of an irreducible integer polynomial with an
isolating interval), and the sign between two of them is read off at a rational point, exactly.
A root s* gives ε = L ln s*; its enclosure comes from the rational isolating interval of s*.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from ldpaudit.derive.algebra import to_exp_base
from ldpaudit.errors import NotDerivable

#: s = e^(ε/L), the variable every expression here is written in
S = sp.Symbol("s", positive=True)


@dataclass(frozen=True)
class ExpForm:
    """``expr`` = ``rational`` with s = e^(ε/``scale``)."""

    rational: sp.Basic
    scale: sp.Integer


def exp_form(expr: sp.Basic, eps: sp.Symbol, scale: int | None = None) -> ExpForm:
    """``expr`` as a rational function of s = e^(ε/L) (L = ``scale``, or the least that
    works); NotDerivable when ε occurs outside an exponential or the exponentials are not
    powers of one e^(ε/L)."""
    expr = sp.sympify(expr)
    rewritten, back = to_exp_base(expr)
    if not back:
        if expr.has(eps):
            raise NotDerivable(f"{sp.sstr(expr)} is not a rational function of e^({eps}/L)")
        return ExpForm(sp.cancel(expr), sp.Integer(scale or 1))
    ((u, value),) = back.items()
    own = sp.simplify(eps / value.args[0])
    if not own.is_Integer or own <= 0:
        raise NotDerivable(f"{sp.sstr(expr)}: the exponentials are in {sp.sstr(value)}, not in e^({eps}/L)")
    scale = sp.Integer(scale or own)
    if scale % own:
        raise NotDerivable(f"{sp.sstr(expr)} is in e^({eps}/{own}), not a power of e^({eps}/{scale})")
    rational = rewritten.xreplace({u: S ** (scale // own)})
    if rational.free_symbols - {S}:
        raise NotDerivable(f"{sp.sstr(expr)} depends on {eps} or other symbols outside e^({eps}/{own}); "
                           "its sign is not decided here")
    return ExpForm(sp.cancel(sp.together(rational)), scale)


@dataclass(frozen=True)
class ExactRoot:
    """ε = scale·ln(s*) where s* > 1 (``root``, a ``CRootOf`` or a rational) is a real root of the
    irreducible integer polynomial ``polynomial`` in s; ``s_interval`` is a rational interval
    holding s* and no other root, ``epsilon_interval`` the ε it gives (ln is increasing)."""

    polynomial: sp.Poly
    root: sp.Basic                        # CRootOf
    scale: sp.Integer
    s_interval: tuple[sp.Rational, sp.Rational]

    @property
    def epsilon(self) -> sp.Basic:
        """ε exactly: scale·ln(s*), s* in radicals when :func:`radicals` finds them."""
        closed = radicals(self)
        return self.scale * sp.log(self.root if closed is None else closed)

    @property
    def epsilon_interval(self) -> tuple[str, str]:
        """[scale·ln a, scale·ln b] for the rational isolating interval [a, b] of s*, printed to
        :data:`DIGITS` digits rounded outward (computed to 60 digits, so the rounding is safe)."""
        lo, hi = self.s_interval
        return _decimal(self.scale * sp.log(lo), "down"), _decimal(self.scale * sp.log(hi), "up")

    def value(self, digits: int = 20) -> sp.Float:
        return sp.N(self.scale * sp.log(self.root), digits)

    def as_dict(self) -> dict:
        lo, hi = self.s_interval
        out = {"polynomial_in_s": sp.sstr(self.polynomial.as_expr()), "s": sp.sstr(self.root),
               "s_interval": [sp.sstr(lo), sp.sstr(hi)], "epsilon": sp.sstr(self.epsilon),
               "epsilon_float": float(self.value()), "epsilon_enclosure": list(self.epsilon_interval),
               "epsilon_scale": int(self.scale)}
        closed = radicals(self)
        if closed is not None:
            out["s_radicals"] = sp.sstr(closed)
        return out


def _decimal(value: sp.Basic, direction: str) -> str:
    from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

    exact = Decimal(str(sp.N(value, 60)))
    quantum = Decimal(1).scaleb(exact.adjusted() - DIGITS + 1)
    return str(exact.quantize(quantum, rounding=ROUND_FLOOR if direction == "down" else ROUND_CEILING))


@dataclass(frozen=True)
class SignRegions:
    """The sign of ``expr`` on ε > 0: ``signs[i]`` on the open interval between ``roots[i-1]``
    and ``roots[i]`` (roots of the numerator or denominator with s > 1, increasing;
    before the first root for i = 0, after the last for i = len(roots))."""

    expr: sp.Basic
    form: ExpForm
    roots: tuple[ExactRoot, ...]
    signs: tuple[int, ...]
    test_points: tuple[sp.Rational, ...]  # a rational s inside each interval, where the sign was read

    @property
    def constant_sign(self) -> int | None:
        return self.signs[0] if len(set(self.signs)) == 1 else None


def _roots_above_one(poly: sp.Poly, scale) -> list[ExactRoot]:
    """The distinct real roots s* > 1 of ``poly``, one :class:`ExactRoot` each. Whether a root
    exceeds 1 is read from a rational isolating interval (refined until it lies on one side
    of 1; an irreducible factor of degree ≥ 2 has no rational root), never from a float."""
    out = []
    if poly.degree() <= 0:
        return out
    _, factors = poly.factor_list()
    for factor, _mult in factors:
        factor = sp.Poly(factor.as_expr(), S, domain="ZZ")
        if factor.degree() <= 0:
            continue
        if factor.degree() == 1:
            c1, c0 = factor.all_coeffs()
            r = sp.Rational(-c0, c1)
            if r > 1:
                out.append(ExactRoot(factor, r, sp.Integer(scale), (r, r)))
            continue
        roots = factor.real_roots(multiple=True)
        for root, ((a, b), _) in zip(roots, factor.intervals()):
            a, b = sp.Rational(a), sp.Rational(b)
            while a <= 1 <= b:
                a, b = (sp.Rational(v) for v in factor.refine_root(a, b, eps=(b - a) / 1000))
            if a > 1:
                out.append(_exact_root(factor, root, scale, a, b))
    return out


#: width of the isolating interval of s*, relative: far below the 25 digits ε is given to
_WIDTH = sp.Rational(1, 10**32)
#: digits of the ε enclosure (lower end rounded down, upper end up)
DIGITS = 25


def _exact_root(factor: sp.Poly, root, scale, a, b) -> ExactRoot:
    a, b = (sp.Rational(v) for v in factor.refine_root(a, b, eps=_WIDTH))
    return ExactRoot(factor, root, sp.Integer(scale), (a, b))


def radicals(root: ExactRoot) -> sp.Basic | None:
    """s* in radicals when its polynomial has degree ≤ 4 and sympy's formula gives it: the
    candidate must have the polynomial as its minimal polynomial and lie in s*'s isolating
    interval (so it is s*, not another root). None otherwise."""
    if root.root.is_Rational:
        return root.root
    return _radicals(root.polynomial.as_expr(), *root.s_interval)


@lru_cache(maxsize=64)
def _radicals(polynomial: sp.Basic, a: sp.Rational, b: sp.Rational) -> sp.Basic | None:
    poly = sp.Poly(polynomial, S)
    if poly.degree() > 4:
        return None
    monic = poly.monic()
    for candidate in sp.roots(polynomial, S, filter="R") or ():
        value = sp.N(candidate, 60)
        if not value.is_real:  # Cardano's form of a real root: a rounding-level imaginary part
            value = sp.re(value) if abs(sp.im(value)) < sp.Float(10) ** -50 else None
        if value is not None and a <= value <= b and sp.Poly(sp.minimal_polynomial(candidate, S), S).monic() == monic:
            return candidate
    return None


def sign_regions(expr: sp.Basic, eps: sp.Symbol, scale: int | None = None) -> SignRegions:
    """The sign of ``expr`` for every ε > 0, exactly (see the module doc); 0 when it is
    identically zero."""
    form = exp_form(expr, eps, scale)
    if form.rational == 0:
        return SignRegions(sp.sympify(expr), form, (), (0,), (sp.Integer(2),))
    num, den = sp.fraction(sp.factor(form.rational))
    roots = _roots_above_one(sp.Poly(num, S), form.scale) + _roots_above_one(sp.Poly(den, S), form.scale)
    unique: list[ExactRoot] = []
    for r in sorted(roots, key=lambda r: r.s_interval[0]):
        if not any(r.root == u.root for u in unique):
            unique.append(r)
    points = gap_points([r.s_interval for r in unique])
    signs = []
    for q in points:
        value = form.rational.xreplace({S: q})
        if value == 0:
            raise NotDerivable(f"{sp.sstr(expr)}: a test point landed on a root (s = {q}); please report")
        signs.append(1 if value > 0 else -1)
    return SignRegions(sp.sympify(expr), form, tuple(unique), tuple(signs), tuple(points))


def gap_points(intervals: list[tuple]) -> list[sp.Rational]:
    """A rational s in each gap: (1, first root), between consecutive roots, beyond the last.
    The isolating intervals are disjoint, so the midpoint between one's right end and the
    next's left end separates the two roots."""
    if not intervals:
        return [sp.Integer(2)]
    points = [(1 + intervals[0][0]) / 2]
    for (_, b), (a, _) in zip(intervals, intervals[1:]):
        points.append((b + a) / 2)
    points.append(intervals[-1][1] + 1)
    return points


def crossings(a: sp.Basic, b: sp.Basic, eps: sp.Symbol, scale: int | None = None) -> SignRegions:
    """Where a(ε) - b(ε) changes sign on ε > 0: the sign regions of the difference."""
    return sign_regions(sp.together(a - b), eps, scale)


def polynomial_of_square(poly: sp.Poly) -> sp.Poly:
    """The integer polynomial whose roots are the squares of ``poly``'s roots (a resultant):
    the equation for e^(2ε/L) = s² when ``poly`` is the equation for s."""
    u = sp.Symbol("u")
    res = sp.resultant(poly.as_expr(), u - S**2, S)
    out = sp.Poly(res, u)
    _, factors = out.factor_list()
    return out if len(factors) != 1 else sp.Poly(factors[0][0].as_expr(), u)
