"""Exact numbers for privacy accounting: the channel's entries as elements of one field.

A bound finite channel's entries are rational numbers, or rational functions with rational
coefficients of one exponential g = e^c (c rational, so g is transcendental by Lindemann:
Q(g) is the field of rational functions Q(T) evaluated at T = g, and two elements are equal
exactly when they are equal as rational functions). :class:`Field` finds c (the gcd of every
exponent, e.g. c = 1/2 for k-RAPPOR at ε = 1), writes each entry as ``num/den`` with ``num``,
``den`` polynomials in T over QQ (sympy's sparse ``PolyElement``), and decides signs by
evaluating at T = g in rigorous interval arithmetic (mpmath ``iv``), refining the precision
until the enclosure excludes 0. Entries outside such a field (sqrt(3), pi) are refused with
:class:`Unsupported`: nothing is computed in floats.

Likelihood ratios are keyed by their factorization: a rational constant over primes (by
``factorint``) times monic irreducible polynomials in T, each to an integer power. Q[T] is a
unique factorization domain, so two ratios are equal exactly when their keys are equal: the
privacy-loss atoms of a composition merge by adding exponent vectors, without cancelling
polynomials, and ties between a ratio and e^ε (when e^ε lies in the field) are decided on the
keys.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import sympy as sp
from sympy import QQ
from sympy.polys.rings import ring

from ldpaudit.errors import LdpAuditError

#: interval precisions tried in turn (bits) before a comparison is called undecided
PRECISIONS = (80, 320, 1280, 5120)
#: rational constants are factored over primes up to this size (larger: one opaque base)
FACTOR_LIMIT = 10**30


class Unsupported(LdpAuditError, ValueError):
    """The channel's numbers are not in a field this module decides exactly (the message says
    why); callers report UNKNOWN, never a value."""


class NotInField(Unsupported):
    """An entry outside Q(e^c): no exact accounting; :mod:`ldpaudit.account.discrete` can still
    bound δ from interval enclosures of the entries."""


class Field:
    """Q(g), g = e^c, holding every given sympy number (c = None: Q, every number rational)."""

    def __init__(self, numbers):
        exps = set()
        for value in numbers:
            value = sp.sympify(value)
            if value.free_symbols:
                raise Unsupported(f"the number {value} has free parameters; bind them first")
            for atom in value.atoms(sp.exp) | ({sp.E} if value.has(sp.E) else set()):
                arg = sp.Integer(1) if atom == sp.E else atom.args[0]
                if not arg.is_Rational:
                    raise NotInField(f"e^({arg}) is not e to a rational power; exact accounting needs entries in "
                                      "Q(e^c) with c rational (bind ε to a rational or to log of a rational)")
                exps.add(arg)
        self.c = None
        if exps:
            nums = [abs(int(a.p)) for a in exps if a != 0]
            dens = [int(a.q) for a in exps if a != 0]
            if nums:
                self.c = sp.Rational(math.gcd(*nums), math.lcm(*dens))
        self.R, self.T = ring("T", QQ)
        self._sym = sp.Symbol("T")
        self._cache: dict = {}
        self._g: dict[int, object] = {}

    # -- conversion --

    def convert(self, value) -> tuple:
        """``(num, den)`` polynomials in T with value = num(g)/den(g), den monic."""
        value = sp.sympify(value)
        if value.is_Rational:  # fast path: no cancel, no parsing
            return self.R(QQ(int(value.p), int(value.q))), self.R(1)
        hit = self._cache.get(value)
        if hit is not None:
            return hit
        expr = value
        if self.c is not None:
            expr = expr.replace(lambda e: e == sp.E or isinstance(e, sp.exp),
                                lambda e: self._sym ** int((sp.Integer(1) if e == sp.E else e.args[0]) / self.c))
        num, den = sp.fraction(sp.cancel(sp.together(expr)))
        try:
            pn, pd = self.R.from_expr(num), self.R.from_expr(den)
        except Exception:  # sympy raises several types for a coefficient outside QQ
            raise NotInField(f"the number {value} is not a rational function of e^{self.c or 1} with rational "
                              "coefficients; exact accounting cannot represent it") from None
        lc = pd.LC
        out = (pn.quo_ground(lc), pd.quo_ground(lc))
        self._cache[value] = out
        return out

    def constant(self, q) -> object:
        return self.R(QQ(int(Fraction(q).numerator), int(Fraction(q).denominator)))

    def to_expr(self, poly) -> sp.Basic:
        """The sympy number poly(g)."""
        expr = poly.as_expr()
        if self.c is None:
            return sp.sympify(expr)
        return sp.sympify(expr).xreplace({self._sym: sp.exp(self.c)})

    def ratio_expr(self, num, den) -> sp.Basic:
        return sp.factor(self.to_expr(num) / self.to_expr(den)) if self.c is not None else \
            sp.Rational(self.to_expr(num)) / sp.Rational(self.to_expr(den))

    # -- intervals --

    def g(self, prec: int):
        """An enclosure of g = e^c at ``prec`` bits."""
        hit = self._g.get(prec)
        if hit is None:
            mpmath.iv.prec = prec
            hit = mpmath.iv.exp(mpmath.iv.mpf(int(self.c.p)) / int(self.c.q)) if self.c is not None else mpmath.iv.mpf(1)
            self._g[prec] = hit
        return hit

    def enclose(self, poly, prec: int):
        """An interval holding poly(g) (Horner in interval arithmetic)."""
        iv = mpmath.iv
        iv.prec = prec
        g = self.g(prec)
        deg = poly.degree() if poly else 0
        acc = iv.mpf(0)
        coeffs = dict(poly.items())
        for k in range(max(deg, 0), -1, -1):
            c = coeffs.get((k,), 0)
            acc = acc * g + (iv.mpf(int(c.numerator)) / int(c.denominator) if c else 0)
        return acc


def sign_of(enclose) -> int | None:
    """The sign of a number given ``enclose(prec) -> interval``, refining the precision; None
    when every enclosure holds 0 (the caller decides exact zero by other means)."""
    for prec in PRECISIONS:
        box = enclose(prec)
        if box.a > 0:
            return 1
        if box.b < 0:
            return -1
    return None


class Bases:
    """The multiplicative basis of likelihood ratios: primes and monic irreducible polynomials
    in T, each with an enclosure of its log at a precision."""

    def __init__(self, field: Field):
        self.field = field
        self.items: list = []          # ("prime", p) or ("poly", PolyElement)
        self._index: dict = {}
        self._logs: dict = {}
        self.unique = True             # False once an opaque (unfactored) constant is a base
        self._values: dict = {}
        self._given: dict = {}         # (num, den) as given -> its canonical key
        self.memo: dict = {}           # products reused across the pairs of one channel (pld.pair_pld)
        self._fractions: dict = {}

    def _id(self, kind, value) -> int:
        tag = (kind, value if kind != "poly" else tuple(sorted(value.items())))
        found = self._index.get(tag)
        if found is None:
            found = self._index[tag] = len(self.items)
            self.items.append((kind, value))
        return found

    def _constant(self, q: Fraction, sign: int, out: dict) -> None:
        for part, s in ((q.numerator, sign), (q.denominator, -sign)):
            part = abs(part)
            if part == 1:
                continue
            if part > FACTOR_LIMIT:
                self.unique = False
                out[self._id("opaque", part)] = out.get(self._id("opaque", part), 0) + s
                continue
            for p, e in sp.factorint(part).items():
                i = self._id("prime", int(p))
                out[i] = out.get(i, 0) + s * e

    def key(self, num, den) -> tuple:
        """The exponent vector of num(g)/den(g) > 0 over the basis: a sorted tuple of (id, e)."""
        out: dict = {}
        for poly, s in ((num, 1), (den, -1)):
            content, factors = poly.factor_list()
            q = Fraction(int(content.numerator), int(content.denominator))
            for f, e in factors:
                lc = f.LC
                q *= Fraction(int(lc.numerator), int(lc.denominator)) ** e
                monic = f.quo_ground(lc)
                i = self._id("poly", monic)
                out[i] = out.get(i, 0) + s * e
            self._constant(abs(q), s, out)
        return tuple(sorted((i, e) for i, e in out.items() if e))

    def value_key(self, num, den) -> tuple:
        """The canonical key of num(g)/den(g): ("v", numerator, denominator) with the common
        factor cancelled and the denominator monic (equal numbers, equal keys)."""
        if self.field.c is None and num.is_ground and den.is_ground:  # Q: the ratio itself is the key
            a, b = (num.LC if num else QQ(0)), den.LC
            q = Fraction(int(a.numerator), int(a.denominator)) / Fraction(int(b.numerator), int(b.denominator))
            return ("q", q.numerator, q.denominator)
        given = (tuple(num.items()), tuple(den.items()))
        hit = self._given.get(given)  # the same ratio again (every pair of a k-RR has e, 1/e, 1)
        if hit is not None:
            return hit
        g = num.gcd(den)
        if g != 1:
            num, den = num.exquo(g), den.exquo(g)
        lc = den.LC
        num, den = num.quo_ground(lc), den.quo_ground(lc)
        tag = ("v", tuple(sorted(num.items())), tuple(sorted(den.items())))
        self._values.setdefault(tag, (num, den))
        self._given[given] = tag
        return tag

    def value(self, key: tuple) -> tuple:
        """``(num, den)`` with ratio(key) = num(g)/den(g)."""
        if key and key[0] == "v":
            return self._values[key]
        R = self.field.R
        if key and key[0] == "q":
            return R(QQ(key[1], key[2])), R(1)
        num, den = R(1), R(1)
        for i, e in key:
            kind, value = self.items[i]
            base = value if kind == "poly" else self.field.constant(value)
            if e > 0:
                num *= base ** e
            else:
                den *= base ** (-e)
        return num, den

    def rational(self, key: tuple):
        """The ratio as a Fraction when the field is Q (else None)."""
        if self.field.c is not None:
            return None
        if key and key[0] == "q":
            return Fraction(key[1], key[2], _normalize=False)  # keys are stored in lowest terms
        hit = self._fractions.get(key)
        if hit is None:
            num, den = self.value(key)
            a, b = num.LC if num else 0, den.LC
            hit = self._fractions[key] = Fraction(int(a.numerator), int(a.denominator)) / \
                Fraction(int(b.numerator), int(b.denominator))
        return hit

    def equal(self, k1: tuple, k2: tuple) -> bool:
        """ratio(k1) == ratio(k2), exactly (polynomial identity in T)."""
        (n1, d1), (n2, d2) = self.value(k1), self.value(k2)
        return n1 * d2 == n2 * d1

    def log(self, i: int, prec: int):
        hit = self._logs.get((i, prec))
        if hit is None:
            iv = mpmath.iv
            iv.prec = prec
            kind, value = self.items[i]
            if kind == "poly":
                box = self.field.enclose(value, prec)
                if box.a <= 0 <= box.b:
                    raise Unsupported("a factor of a likelihood ratio could not be separated from 0")
                hit = iv.log(abs(box))
            else:
                hit = iv.log(iv.mpf(int(value)))
            self._logs[(i, prec)] = hit
        return hit

    def log_ratio(self, key: tuple, prec: int):
        iv = mpmath.iv
        if key and key[0] == "q":
            iv.prec = prec
            return iv.log(iv.mpf(key[1]) / key[2])
        if key and key[0] == "v":
            hit = self._logs.get((key, prec))
            if hit is None:
                num, den = self._values[key]
                a, b = self.field.enclose(num, prec), self.field.enclose(den, prec)
                if a.a <= 0 <= a.b or b.a <= 0 <= b.b:
                    raise Unsupported("a likelihood ratio could not be separated from 0")
                hit = self._logs[(key, prec)] = iv.log(abs(a)) - iv.log(abs(b))
            return hit
        total = iv.mpf(0)
        for i, e in key:
            total += e * self.log(i, prec)
        return total

    def expr(self, key: tuple) -> sp.Basic:
        """The sympy number a key stands for."""
        if key and key[0] == "q":
            return sp.Rational(key[1], key[2])
        if key and key[0] == "v":
            num, den = self._values[key]
            return sp.factor(self.field.to_expr(num) / self.field.to_expr(den))
        out = sp.Integer(1)
        for i, e in key:
            kind, value = self.items[i]
            base = self.field.to_expr(value) if kind == "poly" else sp.Integer(value)
            out *= base ** e
        return out


def readable(value) -> str:
    """``value`` as a paper prints it: when it lies in Q(e^c), one fraction of factored
    polynomials in e (``e^5*(e - 1)*(e^4 + 31*e^3 + ...)/(e + 3)^10``; in g = e^c, named after it,
    when the field's exponent c is not 1), else sympy's text with e written ``e``. The shorter of
    the factored and the given form is kept."""
    given = _in_e(value)
    try:
        field = Field([value])
        num, den = field.convert(value)
    except (Unsupported, TypeError, ValueError):
        return given
    if field.c is None:
        return given
    t = sp.Symbol("e" if field.c == 1 else "g")
    factored = sp.factor(num.as_expr().xreplace({field._sym: t})) / sp.factor(den.as_expr().xreplace({field._sym: t}))
    text = sp.sstr(factored).replace("**", "^") + ("" if field.c == 1 else f"  (g = e^({field.c}))")
    return text if len(text) < len(given) else given


def _in_e(value) -> str:
    """sympy's text of ``value`` with e^k written ``e^k`` (sympy writes ``exp(k)`` and ``E``)."""
    from sympy.printing.str import StrPrinter

    from ldpaudit.render.text import human

    if not isinstance(value, sp.Basic):
        return human(value)

    class _E(StrPrinter):
        def _print_Exp1(self, expr):
            return "e"

        def _print_exp(self, expr):
            arg = expr.args[0]
            return f"e^{arg}" if arg.is_Integer and arg > 0 else f"e^({self._print(arg)})"

    return _E().doprint(value).replace("**", "^")


def readable_piece(a, b) -> str:
    """δ(ε) = a - e^ε b on one piece of a profile, over one factored denominator in e
    (``(e^3 - e^ε)/(e + 3)^3``); sympy's text when a or b is not in Q(e^c)."""
    from ldpaudit.render.text import human

    given = f"{human(a)} - e^ε*({human(b)})"
    try:
        field = Field([a, b])
        (na, da), (nb, db) = field.convert(a), field.convert(b)
    except (Unsupported, TypeError, ValueError):
        return given
    if field.c is None:
        return given
    den = da.lcm(db)
    t = sp.Symbol("e" if field.c == 1 else "g")
    e_eps = sp.Symbol("e^ε")

    def expr(poly):
        return poly.as_expr().xreplace({field._sym: t})

    top = sp.factor(expr(na * den.quo(da))) - e_eps * sp.factor(expr(nb * den.quo(db)))
    bottom = sp.factor(expr(den))
    bottom_text = sp.sstr(bottom) if bottom.is_Atom or bottom.is_Pow else f"({sp.sstr(bottom)})"
    text = f"({sp.sstr(top)})/{bottom_text}".replace("**", "^")
    text += "" if field.c == 1 else f"  (g = e^({field.c}))"
    return text if len(text) < len(given) else given
