"""Sharper enclosures for the branch-and-bound: Taylor forms and expansions at a range end.

Naive interval evaluation loses to the dependency problem where a goal is a small difference of
large terms (Wang's ε²/8 bounds: a gap of 0.0017 at ε = 1 between terms near 1). Three standard
remedies, each rigorous given the derivatives (sympy, exact) and their interval enclosures:

* the **mean-value form** g(X) ⊂ g(c) + Σ ∂_i g(X)(X_i - c_i), c the centre of the box, whose
  overestimation shrinks quadratically with the box;
* in one variable, the **Taylor form** of order n, Σ_{j<n} g^(j)(c)(X - c)^j/j! +
  g^(n)(X)(X - c)^n/n! (Lagrange remainder), order n^th in the width;
* at an **end a of a variable's range**, where the two sides of a claim touch: the exact
  coefficients g^(j)(a) (sympy), the first m of which are 0, give
  g(a + h) = h^m [Σ_{m<=j<n} g^(j)(a) h^(j-m)/j! + g^(n)(X) h^(n-m)/n!], whose sign for h > 0
  is the sign of the bracket: a fourth-order tangency is no harder than a plain inequality.

References: R. E. Moore, R. B. Kearfott, M. J. Cloud, *Introduction to Interval Analysis* (SIAM
2009), Sect. 6.4 (mean-value and Taylor forms); K. Makino and M. Berz, *Taylor models and other
validated functional inclusion methods* (2003).
"""

from __future__ import annotations

import functools
import itertools
import math

import mpmath
import sympy as sp
from mpmath import iv

from ldpaudit.theorems import intervals

MAX_TAYLOR_ORDER = 4          # Taylor forms in one variable: orders 1..4
MAX_END_ORDER = 14            # coefficients tried at a range end before giving up
MAX_OPS = 1500                # larger expressions are not differentiated (too slow to be worth it)
SIMPLER_OPS = 400             # larger derivatives are not brought to one fraction


def _f(x):
    return mpmath.mpf(x)


def _compile(expr):
    try:
        return intervals.compile_expr(expr)
    except intervals.Unsupported:
        return None


def _small(expr) -> bool:
    return sp.count_ops(expr) <= MAX_OPS


def _simpler(e: sp.Basic) -> sp.Basic:
    """A derivative in a form that stays small: sums of exponential polynomials expanded."""
    if e.has(sp.log) or e.has(sp.Min, sp.Max, sp.floor, sp.ceiling) or sp.count_ops(e) > SIMPLER_OPS:
        return e
    try:
        num, den = sp.fraction(sp.cancel(sp.together(e)))
        return sp.expand(num) / den if den != 1 else sp.expand(num)
    except (sp.PolynomialError, ValueError, TypeError):
        return e


class Derivatives:
    """The derivatives of one expression, computed (sympy) and compiled on demand."""

    def __init__(self, expr: sp.Basic):
        self.expr = expr
        self.usable = _small(expr) and not expr.has(sp.Min, sp.Max, sp.floor, sp.ceiling)
        self._partial: dict = {}        # (symbol, order) -> expression
        self._compiled: dict = {}

    def partial(self, x, order: int) -> sp.Basic:
        if order == 0:
            return self.expr
        key = (x, order)
        if key not in self._partial:
            self._partial[key] = _simpler(sp.diff(self.partial(x, order - 1), x))
        return self._partial[key]

    def compiled(self, x, order: int):
        key = (x, order)
        if key not in self._compiled:
            self._compiled[key] = _compile(self.partial(x, order)) if order else _compile(self.expr)
        return self._compiled[key]

    # the forms

    def mean_value(self, box: dict, variables: list):
        """g(c) + Σ ∂_i g(X)(X_i - c_i) over the finite box; None when it cannot be formed."""
        if not self.usable or not all(_finite(box[s]) for s in variables):
            return None
        g = self.compiled(variables[0], 0)
        if g is None:
            return None
        centre = dict(box)
        for s in variables:
            centre[s] = iv.mpf(_mid(box[s]))
        acc = g(centre)
        for s in variables:
            if _f(box[s].a) == _f(box[s].b):
                continue
            dg = self.compiled(s, 1)
            if dg is None:
                return None
            acc = acc + dg(box) * (box[s] - centre[s])
        return None if intervals._nan(acc) else acc

    def taylor(self, box: dict, x, order: int):
        """The order-n Taylor form in the single variable x (others as intervals)."""
        if not self.usable or not _finite(box[x]):
            return None
        c = iv.mpf(_mid(box[x]))
        at = dict(box)
        at[x] = c
        h = box[x] - c
        acc = iv.mpf(0)
        for j in range(order):
            f = self.compiled(x, j)
            if f is None:
                return None
            acc = acc + f(at) * h**j / math.factorial(j)
        f = self.compiled(x, order)
        if f is None:
            return None
        acc = acc + f(box) * h**order / math.factorial(order)
        return None if intervals._nan(acc) else acc


class EndExpansion:
    """g near the end a of the range of x: the exact coefficients g^(j)(a) as expressions in the
    other variables, the first m of them identically 0, the rest compiled."""

    def __init__(self, derivs: Derivatives, x, a: sp.Rational):
        self.derivs, self.x, self.a = derivs, x, a
        self.m = None
        self.coefficients: list = []     # compiled g^(j)(a), j = m, m+1, ...
        if not derivs.usable:
            return
        for j in range(MAX_END_ORDER):
            c = derivs.partial(x, j).subs(x, a)
            if c.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
                return                   # not analytic at the end as written
            if not c.free_symbols:
                c = sp.nsimplify(c) if c.is_Rational else c
            c = sp.simplify(c) if c.free_symbols else c
            if c == 0:
                continue
            self.m = j
            break

    def bracket(self, box: dict, extra: int):
        """Σ_{m<=j<m+extra} g^(j)(a) h^(j-m)/j! + g^(m+extra)(X) h^extra/(m+extra)!, h in X - a."""
        if self.m is None:
            return None
        x, m = self.x, self.m
        h = box[x] - intervals.rational(self.a)
        if _f(h.a) < 0:
            h = iv.mpf([0, h.b])
        at = dict(box)
        at[x] = intervals.rational(self.a)
        acc = iv.mpf(0)
        for j in range(m, m + extra):
            f = self.derivs.compiled(x, j)
            if f is None:
                return None
            acc = acc + f(at) * h ** (j - m) / math.factorial(j)
        f = self.derivs.compiled(x, m + extra)
        if f is None:
            return None
        acc = acc + f(box) * h**extra / math.factorial(m + extra)
        return None if intervals._nan(acc) else acc


def _finite(v) -> bool:
    return mpmath.isfinite(_f(v.a)) and mpmath.isfinite(_f(v.b))


def _mid(v):
    return (_f(v.a) + _f(v.b)) / 2


# --- signs of factors -----------------------------------------------------------------------


def factor_sign(f: sp.Basic, box: dict, x=None) -> int | None:
    """+1 / -1 when the factor is shown > 0 / < 0 on the box, except possibly on the face where
    x is at the box's lower end (f of constant sign there and strictly monotone in x); None
    otherwise."""
    if f.is_positive:
        return 1
    if f.is_negative:
        return -1
    c = _compile(f)
    if c is None:
        return None
    v = c(box)
    if _f(v.a) > 0:
        return 1
    if _f(v.b) < 0:
        return -1
    if x is None:
        return None
    try:
        d = _compile(sp.diff(f, x))
    except (ValueError, TypeError):
        return None
    if d is None:
        return None
    dv = d(box)
    if _f(v.a) >= 0 and _f(dv.a) > 0:      # f >= 0 and increasing: f > 0 off the face
        return 1
    if _f(v.b) <= 0 and _f(dv.b) < 0:
        return -1
    a = _f(box[x].a)                       # f = (x - a)^m [bracket] with the bracket of one sign
    if not mpmath.isfinite(a) or a != float(a) or not mpmath.isfinite(_f(box[x].b)):
        return None
    expansion = EndExpansion(Derivatives(f), x, sp.Rational(float(a)))
    for extra in (1, 2):
        b = expansion.bracket(box, extra)
        if b is None:
            return None
        if _f(b.a) > 0:
            return 1
        if _f(b.b) < 0:
            return -1 if expansion.m % 2 == 0 else None
    return None


def _region_sign(f: sp.Basic, positive, box=None) -> int | None:
    """+1 / -1 when f = q * r with r an expression known > 0 on the region and q of known sign
    (a number, or a factor shown > 0 or < 0 on the box)."""
    for r in positive:
        try:
            q = sp.cancel(f / r)
        except (sp.PolynomialError, ValueError, TypeError, NotImplementedError):
            continue
        if q.is_number:
            if q != 0:
                return 1 if q > 0 else -1
            continue
        if box is not None and sp.count_ops(q) <= sp.count_ops(f):
            s = factor_sign(q, box)
            if s is not None:
                return s
    return None


def sign_form(expr: sp.Basic, box: dict, x=None, *, weak: bool = False, positive=()) -> sp.Basic | None:
    """An expression with the sign of ``expr`` on the box (off the lower face in x): the
    numerator of one fraction, with every factor of known sign (numerator or denominator)
    removed and the sign put in front; None when the denominator's sign is not shown. With
    ``weak`` (for a goal ``>= 0``) a numerator factor shown >= 0 or <= 0 is removed too, even if it
    vanishes somewhere: it cannot turn a value >= 0 negative. A factor that is a positive multiple of an
    expression in ``positive`` (a strict relation of the region, > 0 wherever the claim is
    asked) has its sign there, even where the box reaches past the region's open boundary."""
    try:
        num, den = sp.fraction(sp.together(expr))
    except (sp.PolynomialError, ValueError, TypeError):
        return None
    sign = 1
    for base, power in _factors(den):
        s = factor_sign(base, box, x)
        if s is None:
            s = _region_sign(base, positive, box)
        if s is None:
            return None
        if s < 0 and power % 2:
            sign = -sign
    kept = []
    if num.has(sp.log) and _small(num):
        num = sp.expand(num)           # logs of the same factor cancel once their coefficients are expanded
    try:
        num = sp.factor(num) if _small(num) and not num.has(sp.log) else num
    except (sp.PolynomialError, ValueError, TypeError, NotImplementedError):
        pass
    for base, power in _factors(num):
        s = factor_sign(base, box, x) if base.free_symbols else (1 if base > 0 else -1 if base < 0 else None)
        if s is None and base.free_symbols:
            s = _region_sign(base, positive, box)
        if s is None and weak and base.free_symbols:
            s = 1 if power % 2 == 0 else _weak_sign(base, box)  # an even power is >= 0 wherever it is defined
        if s is None:
            kept.append(base**power)
        elif s < 0 and power % 2:
            sign = -sign
    body = sp.Mul(*kept)
    if body.is_Add:
        body = _simpler(body)
    return sign * body


def _weak_sign(f: sp.Basic, box: dict) -> int | None:
    for c in (_compile(f), *_horner_forms(f)):
        if c is None:
            continue
        v = c(box)
        if _f(v.a) >= 0:
            return 1
        if _f(v.b) <= 0:
            return -1
    return None


@functools.lru_cache(maxsize=4096)
def _horner_forms(f: sp.Basic) -> tuple:
    """Compiled Horner forms of a small polynomial factor, one per order of its variables (at
    most 6): h*(v*(1 - w**2) + w) + w shows a sign that -h*v*w**2 + h*v + h*w + w hides."""
    gens = sorted(f.free_symbols, key=str)
    if not (f.is_Add and 1 < len(gens) <= 3 and _small(f) and f.is_polynomial(*gens)):
        return ()
    try:
        return tuple(c for c in (_compile(sp.horner(f, *order)) for order in itertools.permutations(gens))
                     if c is not None)
    except (sp.PolynomialError, ValueError, TypeError, NotImplementedError):
        return ()


def nested(e: sp.Basic) -> sp.Basic:
    """Each polynomial factor in Horner form (d + k*(e^x - 1) rather than d + k e^x - k): fewer
    occurrences of each variable, so tighter enclosures on wide and unbounded boxes."""
    out = []
    for base, power in _factors(e):
        if base.is_Add and _small(base):
            try:
                base = sp.horner(base)
            except (sp.PolynomialError, ValueError, TypeError):
                pass
        out.append((base, power))
    num = sp.Mul(*[b**p for (b, p), f in zip(out, sp.Mul.make_args(e)) if not (f.is_Pow and f.exp.is_negative)])
    den = sp.Mul(*[b**p for (b, p), f in zip(out, sp.Mul.make_args(e)) if f.is_Pow and f.exp.is_negative])
    return num / den


def _factors(e: sp.Basic) -> list:
    out = []
    for f in sp.Mul.make_args(e):
        if f.is_Pow and f.exp.is_Integer and f.exp > 0:
            out.append((f.base, int(f.exp)))
        elif f.is_Pow and f.exp.is_Integer and f.exp < 0:
            out.append((f.base, int(-f.exp)))
        else:
            out.append((f, 1))
    return out
