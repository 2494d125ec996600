"""A claim ``lhs <= rhs`` as goals ``g >= 0``: one per choice of an argument of every ``Min`` and
``Max``, bound parameters relaxed (``k = ceiling(a)`` as ``a + θ``, θ in [0, 1]), and the
equivalent forms the search may evaluate instead (square forms, logs expanded or collected,
lower bounds of log terms, cancelled ratios).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import mpmath
import sympy as sp
from mpmath import iv

from ldpaudit.theorems import forms, intervals
from ldpaudit.theorems.limits import IMPLIED_SECONDS, _cpu_limit


def _parts(rel: sp.Basic) -> list:
    return list(rel.args) if isinstance(rel, sp.And) else [rel]


def _difference(rel) -> tuple[sp.Basic, bool]:
    """(g, strict) with the relation meaning g >= 0 (g > 0 when strict); an 'or' of relations is
    the largest of their differences (strict if any is: sound, possibly stronger)."""
    if isinstance(rel, sp.Or):
        diffs = [_difference(a) for a in rel.args]
        return sp.Max(*[g for g, _ in diffs], evaluate=False), any(st for _, st in diffs)
    if isinstance(rel, sp.Le | sp.Lt):
        return rel.rhs - rel.lhs, isinstance(rel, sp.Lt)
    return rel.lhs - rel.rhs, isinstance(rel, sp.Gt)


def _without_min_max(expr: sp.Basic) -> list:
    """Every expression obtained by replacing each Min/Max by one of its arguments."""
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Min | sp.Max):
            out = []
            for arg in node.args:
                out.extend(_without_min_max(expr.xreplace({node: arg})))
            return out
    return [expr]


def relax(expr: sp.Basic, thetas: dict) -> sp.Basic:
    """ceiling(a) -> a + θ, floor(a) -> a - θ with a fresh θ in [0, 1] per distinct argument."""
    def repl(node):
        key = (type(node).__name__, node.args[0])
        if key not in thetas:
            thetas[key] = sp.Symbol(f"theta{len(thetas)}", nonnegative=True)
        th = thetas[key]
        return node.args[0] + th if isinstance(node, sp.ceiling) else node.args[0] - th

    for _ in range(20):
        found = [n for n in sp.preorder_traversal(expr) if isinstance(n, sp.ceiling | sp.floor)]
        if not found:
            return expr
        expr = expr.xreplace({found[-1]: repl(found[-1])})
    return expr


def _simplified(g: sp.Basic) -> sp.Basic:
    """g, or a simpler equal expression when sympy finds one (0 for an identity)."""
    try:
        h = sp.simplify(_log_expand(g))
    except (TypeError, ValueError, NotImplementedError, RecursionError):
        return g
    if h == 0 or len(h.free_symbols) < len(g.free_symbols):
        return h
    return g


def _has_half_powers(e) -> bool:
    return any(p.exp.is_Rational and not p.exp.is_Integer for p in e.atoms(sp.Pow))


def _square_form(g: sp.Basic) -> sp.Basic | None:
    """c - r with c > 0 constant and r with square roots: c² - r² has the same sign where
    c - r >= 0 matters (c² >= r² gives c >= |r| >= r), and no roots when r² is rational."""
    c, rest = g.as_coeff_Add()
    if not (c.is_number and c > 0) or not _has_half_powers(rest):
        return None
    factors = sp.Mul.make_args(rest)
    r2 = sp.Mul(*[f**2 for f in factors])
    r2 = sp.cancel(sp.together(sp.powsimp(sp.expand_power_base(r2, force=True), force=True)))
    if _has_half_powers(r2):
        return None
    return c**2 - r2


@functools.lru_cache(maxsize=1024)
def _log_expand(e: sp.Basic) -> sp.Basic:
    """log(a*b/c) -> log a + log b - log c and log(exp(x)) -> x (positive arguments); a pure
    function of e, kept per process (the search asks again for the goals, their forms and
    derivatives)."""
    def inner(node):
        if isinstance(node, sp.log):
            arg = sp.powsimp(sp.together(node.args[0]), force=True)
            return sp.expand_log(sp.log(sp.factor(arg)), force=True)
        return node

    return e.replace(lambda n: isinstance(n, sp.log), inner)


def _log_parts(e: sp.Basic) -> tuple[sp.Basic, dict]:
    """e = rest + sum of c * log(A) over its distinct logarithms (logs expanded first), each
    coefficient c and the rest as one cancelled fraction."""
    h = sp.expand(_log_expand(e))
    logs = sorted(h.atoms(sp.log), key=sp.default_sort_key)
    parts = {k: sp.cancel(sp.together(v)) for k, v in sp.collect(h, logs, evaluate=False).items()}
    return parts.pop(sp.S.One, sp.S.Zero), parts


def _log_collected(e: sp.Basic) -> sp.Basic:
    """e with its logarithms collected and each coefficient cancelled: terms whose poles cancel
    between them (a (t - 1) in each denominator, as in differences of mutual informations)
    become one finite coefficient."""
    if isinstance(e, sp.Max | sp.Min):
        return e.func(*[_log_collected(a) for a in e.args], evaluate=False)
    rest, parts = _log_parts(e)
    return sp.factor(rest) + sp.Add(*[sp.factor(c) * k for k, c in parts.items()])


def _log_relaxed(e: sp.Basic) -> sp.Basic | None:
    """A lower bound of e without logarithms, or None: when the logarithms of e (collected,
    :func:`_log_parts`) have rational coefficients, they are one c * log(Y) with c > 0 and Y
    the product of their arguments to the coefficients' powers over c, and log Y >= 1 - 1/Y
    (Y > 0, equality at Y = 1) bounds it below. Exact where the two sides meet to first order."""
    try:
        rest, parts = _log_parts(e)
        if not parts or rest.has(sp.log) or not all(isinstance(k, sp.log) and c.is_Rational and c != 0
                                                    for k, c in parts.items()):
            return None
        c = max(abs(v) for v in parts.values())
        y = sp.Mul(*[k.args[0] ** (v / c) for k, v in parts.items()])
        return sp.cancel(sp.together(rest + c * (1 - 1 / y)))
    except (sp.PolynomialError, ValueError, TypeError, NotImplementedError, RecursionError):
        return None


def _forms(g: sp.Basic) -> list:
    """Several expressions of the same function (their enclosures are intersected)."""
    forms = [g]
    try:
        h = _log_expand(g)
        forms.append(h)
        if not h.has(sp.log):
            forms.append(sp.cancel(sp.together(h)))
        else:
            forms.append(sp.Add(*[sp.cancel(sp.together(t)) for t in sp.Add.make_args(sp.expand(h))]))
    except (sp.PolynomialError, ValueError, TypeError):
        pass
    if g.has(sp.log):
        try:
            with _cpu_limit(IMPLIED_SECONDS):
                forms.append(_log_collected(g))
        except (sp.PolynomialError, ValueError, TypeError, NotImplementedError, RecursionError):
            pass
    out = []
    for f in forms:
        if f not in out:
            out.append(f)
    return out


@dataclass
class Goal:
    label: str
    expr: sp.Basic
    strict: bool
    compiled: list = field(default_factory=list)
    implied: list = field(default_factory=list)
    arg_strict: tuple = ()    # for an 'or' (max(h1, h2, ...)): whether each h_i must be > 0

    def sides(self) -> list:
        """(h_i, strict_i) for an 'or' max(h1, h2, ...) >= 0, else [(expr, strict)]."""
        if not isinstance(self.expr, sp.Max):
            return [(self.expr, self.strict)]
        return list(zip(self.expr.args, self.arg_strict or (self.strict,) * len(self.expr.args)))

    def __post_init__(self):
        self.compiled = []
        for f in _forms(self.expr):
            try:
                self.compiled.append(intervals.compile_expr(f))
            except intervals.Unsupported:
                continue
        if not self.compiled:
            raise intervals.Unsupported(f"cannot enclose {self.expr}")

    def enclose(self, box):
        lo, hi = -mpmath.inf, mpmath.inf
        for f in self.compiled:
            v = f(box)
            lo, hi = max(lo, _f(v.a)), min(hi, _f(v.b))
        if lo > hi:  # rounding: enclosures of one function always overlap
            lo, hi = min(lo, hi), max(lo, hi)
        return iv.mpf([lo, hi])

    def holds(self, v) -> bool:
        return v.a > 0 or (not self.strict and v.a >= 0)


def _ratio(g: sp.Basic, h: sp.Basic, factored: bool = False) -> sp.Basic | None:
    """g/h as one cancelled fraction when that is simpler than g (a common factor went away),
    logs expanded first so that log terms cancel; None otherwise."""
    try:
        num, den = sp.fraction(sp.together(_log_expand(g)))
        if num.has(sp.log):
            num = sp.expand(num)
        hn, hd = sp.fraction(sp.together(_log_expand(h)))
        q = sp.cancel(num * hd / (den * hn))
    except (sp.PolynomialError, ValueError, TypeError, NotImplementedError, RecursionError):
        return None
    qn, qd = sp.fraction(q)
    if qd.has(hn) and hn.free_symbols:
        return None
    if sp.count_ops(q) < sp.count_ops(g):
        return forms.nested(sp.factor(q))
    if factored:  # simpler once factored: a bound whose terms share the other side's factor
        f = sp.factor(q)
        return forms.nested(f) if sp.count_ops(f) < sp.count_ops(g) else None
    if _divides(hn, num):  # g vanishes where h does, and q is what is left
        return forms.nested(sp.factor(q))
    return None


def _divides(hn: sp.Basic, num: sp.Basic) -> bool:
    """h's numerator (not a constant) divides g's: g vanishes wherever h does."""
    if not hn.free_symbols:
        return False
    try:
        return sp.cancel(hn / sp.gcd(sp.expand(num), sp.expand(hn))).is_number
    except (sp.PolynomialError, ValueError, TypeError, NotImplementedError, ZeroDivisionError):
        return False


def _f(x):
    return mpmath.mpf(x)
