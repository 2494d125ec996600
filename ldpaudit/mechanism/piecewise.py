"""Piecewise densities in z: branches, breakpoints, and the cells between them.

A density written the way the papers write it — the Piecewise mechanism's
``p if l <= z <= r else (p/exp(epsilon) if -C <= z <= C else 0)``, Square Wave's
``|z - x| <= b``, a clip with ``Max``/``Min`` — is, for fixed x and parameters, one
elementary expression on each open interval between consecutive *breakpoints*: the points
g_k(x, θ) where some condition ``a z + c ⋚ 0`` (a != 0) changes its truth value. Which
expression holds on which interval depends only on the *order* of the breakpoints, so a
question "for every x and θ" splits into finitely many cases, one per order that can occur
(Wang et al.'s own proofs split the same way, on where the band [l(x), r(x)] lies).

This module is the sympy half, with no solver: it flattens the expression into branches over
conditions on z, lists the breakpoints, and for a given strict order gives the expression on
every cell and the exact integrals over them (mass, moments). Which orders occur, and that an
identity holds on each, is decided by the caller (:mod:`ldpaudit.verify.piecewise` with z3);
at a numeric point the order is computed here exactly, which is what loading checks.

Density values on a single point do not matter (a density is defined almost everywhere):
cells are open intervals, and conditions with ``==`` hold on no cell.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import sympy as sp
from sympy.functions.elementary.hyperbolic import HyperbolicFunction

from ldpaudit.errors import InvalidSpec, Undecided
from ldpaudit.mechanism.expr import piecewise_fold

#: most breakpoints of one density (orders grow as m!; the caller prunes infeasible prefixes)
MAX_BREAKPOINTS = 12
#: most branches after flattening nested conditionals
MAX_BRANCHES = 64
#: most orders of tied breakpoints tried for a mass formula that is identically 1
MAX_TIED_ORDERS = 24

_OPS = {"<": sp.Lt, "<=": sp.Le, ">": sp.Gt, ">=": sp.Ge}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


class NotPiecewiseLinear(Exception):
    """The density's conditions are not of the form a z + c ⋚ 0 with a known-sign a (the caller
    reports why it cannot decide, never that the density is wrong)."""


@dataclass(frozen=True)
class Atom:
    """The condition ``z op breakpoints[index]`` (op one of < <= > >= == !=)."""

    index: int
    op: str

    def on_cell(self, position: int, cell: int) -> bool:
        """Truth on the open cell ``cell`` (cell j lies between the breakpoints at positions j-1
        and j of the order) of a breakpoint sitting at ``position`` in that order."""
        left_of_breakpoint = position >= cell
        return {"<": left_of_breakpoint, "<=": left_of_breakpoint, ">": not left_of_breakpoint,
                ">=": not left_of_breakpoint, "==": False, "!=": True}[self.op]


@dataclass(frozen=True)
class Branch:
    value: sp.Basic   # elementary in z: no Piecewise, and no Abs/Max/Min of z
    condition: sp.Basic   # a Boolean over the atom symbols of the density


class PiecewiseDensity:
    """The flattened form of a density ``expr`` in ``z``: ``branches`` (the first whose condition
    holds gives the value) over conditions on the ``breakpoints``."""

    def __init__(self, expr: sp.Basic, z: sp.Symbol, *, where: str = "channel.density"):
        self.expr = sp.sympify(expr)
        self.z = z
        self.where = where
        self.breakpoints: list[sp.Basic] = []
        self._atoms: dict[tuple[int, str], sp.Symbol] = {}
        self.branches = self._flatten(self._unfold(self.expr))
        if len(self.breakpoints) > MAX_BREAKPOINTS:
            raise InvalidSpec(f"{where}: {len(self.breakpoints)} breakpoints in z; at most {MAX_BREAKPOINTS} are "
                              "supported (split the mechanism or simplify its conditions)")

    # -- flattening ----------------------------------------------------------------------------

    def _unfold(self, expr: sp.Basic) -> sp.Basic:
        """Abs/Max/Min of an argument that mentions z become Piecewise (their kinks are breakpoints);
        those inside a condition are left to :meth:`_condition` (sympy would fold |u| <= C into an
        ITE and simplify it: seconds of sympy for PM's inlined C, and hyperbolic forms)."""
        z = self.z
        if isinstance(expr, sp.logic.boolalg.Boolean) or not expr.has(z) or not expr.args:
            return expr
        args = [self._unfold(a) for a in expr.args]
        if isinstance(expr, (sp.Abs, sp.Max, sp.Min)):
            e = expr.func(*args)
            out = e.rewrite(sp.Piecewise)
            return out if out.has(sp.Piecewise) else _as_piecewise(e)
        return expr.func(*args) if args != list(expr.args) else expr

    def _flatten(self, expr: sp.Basic) -> list[Branch]:
        folded = piecewise_fold(expr, guarded=False)  # sympy's fold; its ITE conditions simplified faster
        pairs = folded.args if isinstance(folded, sp.Piecewise) else ((folded, sp.true),)
        out: list[Branch] = []
        for value, cond in pairs:
            if value.has(sp.Piecewise):
                inner = self._flatten(value)
                cond_atoms = self._condition(cond)
                out += [Branch(b.value, sp.And(cond_atoms, b.condition)) for b in inner]
            else:
                out.append(Branch(value, self._condition(cond)))
            if len(out) > MAX_BRANCHES:
                raise InvalidSpec(f"{self.where}: more than {MAX_BRANCHES} branches after flattening the conditions")
        return out

    def _condition(self, cond) -> sp.Basic:
        """A condition as a Boolean over atom symbols (relations of z with a breakpoint)."""
        if cond is sp.true or cond is sp.false or cond in (True, False):
            return sp.true if cond in (True, sp.true) else sp.false
        if isinstance(cond, sp.And):
            return sp.And(*[self._condition(a) for a in cond.args])
        if isinstance(cond, sp.Or):
            return sp.Or(*[self._condition(a) for a in cond.args])
        if isinstance(cond, sp.Not):
            return sp.Not(self._condition(cond.args[0]))
        if isinstance(cond, sp.ITE):  # sympy's fold of |z| <= C: ITE(z >= 0, z <= C, z >= -C)
            c, a, b = (self._condition(arg) for arg in cond.args)
            return sp.Or(sp.And(c, a), sp.And(sp.Not(c), b))
        if isinstance(cond, sp.core.relational.Relational):
            h = sp.sympify(cond.lhs - cond.rhs)
            op = cond.rel_op
            if not h.has(self.z):
                raise NotPiecewiseLinear(f"the condition {cond} does not mention z (conditions on the parameters "
                                         "or on x alone are not supported inside a density)")
            kinks = [e for e in h.atoms(sp.Abs, sp.Max, sp.Min) if e.has(self.z)]
            if kinks:
                return self._split_kink(h, op, kinks[0])
            h = self._unfold(h)
            if h.has(sp.Piecewise):  # the relation on each branch of its left side
                folded = piecewise_fold(h, guarded=False)
                terms, seen = [], []
                for value, c in folded.args:
                    here = sp.And(self._condition(c), *[sp.Not(s) for s in seen])
                    terms.append(sp.And(here, self._condition(sp.core.relational.Relational(value, 0, op))))
                    seen.append(self._condition(c))
                return sp.Or(*terms)
            return self._atom(h, op, cond)
        raise NotPiecewiseLinear(f"cannot read the condition {cond} as relations of z")

    def _split_kink(self, h: sp.Basic, op: str, kink: sp.Basic) -> sp.Basic:
        """``h op 0`` where h holds |u| (or max, min) of z: the relation on each side of the kink,
        u >= 0 with u and u < 0 with -u (|z - x| <= b is two linear relations), without folding
        h whole (sympy's fold simplifies every relation it builds, seconds for PM's inlined C)."""
        terms, seen = [], []
        for value, c in _as_piecewise(kink).args:
            here = sp.And(self._condition(c), *[sp.Not(s) for s in seen])
            terms.append(sp.And(here, self._condition(sp.core.relational.Relational(h.xreplace({kink: value}), 0, op))))
            seen.append(self._condition(c))
        return sp.Or(*terms)

    def _atom(self, h: sp.Basic, op: str, shown) -> sp.Basic:
        z = self.z
        if h.has(HyperbolicFunction):  # sympy may fold (e^a + 1)/(e^a - 1) into 1/tanh(a/2)
            h = h.rewrite(sp.exp)
        expanded = sp.expand(h)
        poly = sp.Poly(expanded, z) if expanded.is_polynomial(z) else None
        if poly is None or poly.degree() != 1:
            raise NotPiecewiseLinear(f"the condition {shown} is not linear in z")
        a, c = poly.all_coeffs()
        sign = _known_sign(a)
        if sign is None:
            raise NotPiecewiseLinear(f"the sign of {a}, the coefficient of z in the condition {shown}, is not known")
        g = sp.cancel(sp.together(-c / a))
        if sign < 0:
            op = _FLIP[op]
        index = self._breakpoint_index(g)
        key = (index, op)
        if key not in self._atoms:
            self._atoms[key] = sp.Symbol(f"_atom{len(self._atoms)}")
        return self._atoms[key]

    def _breakpoint_index(self, g: sp.Basic) -> int:
        for i, h in enumerate(self.breakpoints):
            if g == h or sp.expand(g - h) == 0:
                return i
        self.breakpoints.append(g)
        return len(self.breakpoints) - 1

    @cached_property
    def atoms(self) -> dict[sp.Symbol, Atom]:
        return {s: Atom(i, op) for (i, op), s in self._atoms.items()}

    # -- cells of one order --------------------------------------------------------------------

    def cell_values(self, order: Sequence[int]) -> list[sp.Basic]:
        """The density on each of the len(order)+1 open cells of a strict order (a permutation of
        the breakpoint indices, smallest first)."""
        position = {k: p for p, k in enumerate(order)}
        out = []
        for cell in range(len(order) + 1):
            truth = {s: sp.true if a.on_cell(position[a.index], cell) else sp.false for s, a in self.atoms.items()}
            for b in self.branches:
                if b.condition.xreplace(truth) is sp.true:
                    out.append(b.value)
                    break
            else:
                out.append(sp.Integer(0))  # no branch holds: sympy's Piecewise is undefined there; read as 0
        return out

    def cell_ends(self, order: Sequence[int]) -> list[tuple[sp.Basic, sp.Basic]]:
        pts = [-sp.oo] + [self.breakpoints[k] for k in order] + [sp.oo]
        return list(zip(pts[:-1], pts[1:]))

    def integral(self, order: Sequence[int], weight: sp.Basic = sp.Integer(1)) -> sp.Basic:
        """∫ weight(z) f(z) dz, exactly, on the region where the breakpoints lie in ``order``."""
        cache = self.__dict__.setdefault("_integrals", {})  # the mass per order: asked at load and in proofs
        key = (tuple(order), weight)
        if key not in cache:
            total = sp.Integer(0)
            for value, (lo, hi) in zip(self.cell_values(order), self.cell_ends(order)):
                if value == 0:
                    continue
                total += integrate_cell(weight * value, self.z, lo, hi)
            cache[key] = total
        return cache[key]

    # -- a numeric point -------------------------------------------------------------------------

    def order_at(self, subs: Mapping) -> tuple[list[int], list[sp.Basic]]:
        """The order of the breakpoints at a point where they are numbers (ties kept adjacent; a
        tie only makes a cell of length 0), and their values."""
        values = [sp.sympify(g).xreplace(subs) for g in self.breakpoints]
        for g, v in zip(self.breakpoints, values):
            if not v.is_number or v.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
                raise InvalidSpec(f"{self.where}: the breakpoint z = {g} is {v} at {_point_text(subs)}")
        keyed = [(self._key(v), k) for k, v in enumerate(values)]
        order = [k for _, k in sorted(keyed)]
        return order, values

    def _key(self, v: sp.Basic) -> sp.Basic:
        """:func:`_sort_key` of a breakpoint's value, remembered (the same values recur at every
        input of a parameter point)."""
        keys = self.__dict__.setdefault("_keys", {})
        if v not in keys:
            keys[v] = _sort_key(v)
        return keys[v]

    def _gap_sign(self, lo: sp.Basic, hi: sp.Basic) -> int:
        """The exact sign of hi - lo for two breakpoint values: read off their 30-digit sort keys
        when these differ by far more than their error, else :func:`_sign`."""
        a, b = self._key(lo), self._key(hi)
        gap = b - a
        if gap.is_Rational:
            return int(gap.p > 0) - int(gap.p < 0)
        if abs(gap) > _SEPARATED * max(1, abs(a), abs(b)):
            return 1 if gap > 0 else -1
        return _sign(hi - lo)

    def mass_at(self, subs: Mapping, at: tuple | None = None) -> sp.Basic:
        """The exact mass at a point (``at``: its :meth:`order_at`, when already computed)."""
        order, values = self.order_at(subs) if at is None else at
        order = tuple(order)
        known = self.__dict__.setdefault("_one", {})
        if known.get(order):  # the order's own mass formula is identically 1
            return sp.Integer(1)
        tied = self._tied_orders(order, values)
        if any(known.get(o) for o in tied) or self._mass_is_one(order) or any(self._mass_is_one(o) for o in tied):
            return sp.Integer(1)
        return self._at(subs, order, values, sp.Integer(1))

    def _tied_orders(self, order: Sequence[int], values: Sequence[sp.Basic]) -> list[tuple[int, ...]]:
        """The other orders of breakpoints that are exactly equal at this point (x at an end of
        its interval puts a breakpoint on another). Every one of them has the same cells of
        positive length here (a tie only makes a cell of length 0), so the mass here is the mass
        formula of any of them: one that is identically 1 shows the mass is 1."""
        groups, run = [], [order[0]] if order else []
        try:
            for a, b in zip(order, order[1:]):
                if self._gap_sign(values[a], values[b]) == 0:
                    run.append(b)
                else:
                    groups.append(run)
                    run = [b]
        except Undecided:
            return []
        groups.append(run)
        if all(len(g) == 1 for g in groups) or math.prod(math.factorial(len(g)) for g in groups) > MAX_TIED_ORDERS:
            return []
        orders = (tuple(k for g in choice for k in g)
                  for choice in itertools.product(*(itertools.permutations(g) for g in groups)))
        return [o for o in orders if o != tuple(order)]

    def _mass_is_one(self, order: tuple[int, ...]) -> bool:
        """Is the mass formula of ``order`` identically 1 (as a rational function of the
        parameters, x and each w_p = e^(p/L))?"""
        cache = self.__dict__.setdefault("_one", {})
        if order not in cache:
            cells = [(v, lo, hi) for v, (lo, hi) in zip(self.cell_values(order), self.cell_ends(order)) if v != 0]
            decided = None if self.__dict__.get("_integrals", {}).get((order, 1)) is not None else _cells_sum_to_one(
                cells, self.z)
            if decided is not None:
                cache[order] = decided
                return decided
            try:
                d = self.integral(order) - 1
                w, _ = in_exp_base(d)
                cache[order] = rational_function_is_zero(w)
            except NotPiecewiseLinear:
                cache[order] = False
        return cache[order]

    def _at(self, subs, order, values, weight) -> sp.Basic:
        cells = self.cell_values(order)
        pts = [-sp.oo] + [values[k] for k in order] + [sp.oo]
        total = sp.Integer(0)
        for value, lo, hi in zip(cells, pts[:-1], pts[1:]):
            value = sp.sympify(value).xreplace(subs)
            if value == 0 or (lo.is_finite and hi.is_finite and self._gap_sign(lo, hi) <= 0):
                continue
            total += integrate_cell(weight * value, self.z, lo, hi)
        return total

    def negative_at(self, subs: Mapping, at: tuple | None = None, signs: dict | None = None
                    ) -> tuple[sp.Basic, sp.Basic] | None:
        """A point z (inside a cell of positive length) where the density is negative, with the
        value there, checked at every cell's midpoint (and far out on the unbounded cells).
        ``signs`` remembers the signs of values already seen (cells, and the inputs of one
        parameter point, share values that depend on neither z nor x)."""
        order, values = self.order_at(subs) if at is None else at
        cells = self.cell_values(order)
        signs = {} if signs is None else signs
        pts = [None] + [values[k] for k in order] + [None]
        for value, lo, hi in zip(cells, pts[:-1], pts[1:]):
            if lo is None and hi is None:
                zs = [sp.Integer(0)]
            elif lo is None:
                zs = [hi - 1]
            elif hi is None:
                zs = [lo + 1]
            else:
                if self._gap_sign(lo, hi) <= 0:
                    continue
                zs = [(lo + hi) / 2]
            here = sp.sympify(value).xreplace(subs)
            for zv in zs:
                v = here.xreplace({self.z: zv})
                if v.is_number:
                    if v not in signs:
                        signs[v] = _sign(v)
                    if signs[v] < 0:
                        return zv, v
        return None


@functools.lru_cache(maxsize=64)
def _as_piecewise(e: sp.Basic) -> sp.Basic:
    """|u|, max(a, b), min(a, b) as Piecewise when sympy's own rewrite declines (it wants u known
    real, and an argument such as (e^(ε/2) + 1)/(e^(ε/2) - 1)·x - z is not, at ε = 0): the values
    of a density are real wherever it is defined, which loading checks."""
    if isinstance(e, sp.Abs):
        u = e.args[0]
        return sp.Piecewise((u, u >= 0), (-u, True))
    pick = sp.Ge if isinstance(e, sp.Max) else sp.Le
    out = e.args[-1]
    for a in reversed(e.args[:-1]):
        rest = [b for b in e.args if b is not a]
        out = sp.Piecewise((a, sp.And(*[pick(a, b) for b in rest])), (out, True))
    return out


@functools.lru_cache(maxsize=64)
def flattened(expr: sp.Basic, z: sp.Symbol, where: str = "channel.density") -> PiecewiseDensity:
    """``PiecewiseDensity(expr, z)``, built once per density in a process: a proof asks for it in
    every part (validity, the LDP queries, ε*, the witness) and on the instances it binds. A
    pure function of its arguments; the instance's own memory (mass formulas per order) is
    shared with it."""
    return PiecewiseDensity(expr, z, where=where)


def integrate_cell(expr: sp.Basic, z: sp.Symbol, lo: sp.Basic, hi: sp.Basic) -> sp.Basic:
    """∫_lo^hi expr dz exactly: polynomials in z by their antiderivative (the piecewise-constant
    and piecewise-polynomial densities of the papers), anything else by sympy."""
    expr = sp.expand(expr)
    if expr.is_polynomial(z) and lo.is_finite is not False and hi.is_finite is not False:
        poly = sp.Poly(expr, z)
        anti = sum(c * z ** (k + 1) / (k + 1) for (k,), c in poly.terms())
        return sp.sympify(anti).xreplace({z: hi}) - sp.sympify(anti).xreplace({z: lo})
    part = sp.integrate(expr, (z, lo, hi))
    if part.has(sp.Integral):
        raise NotPiecewiseLinear(f"sympy could not integrate {expr} over z in ({lo}, {hi})")
    return part


def orders(count: int) -> itertools.permutations:
    return itertools.permutations(range(count))


def _known_sign(a: sp.Basic) -> int | None:
    if a.is_positive:
        return 1
    if a.is_negative:
        return -1
    if a.is_number:
        v = sp.N(a, 30)
        if v > 0:
            return 1
        if v < 0:
            return -1
        return None
    cancelled = sp.cancel(sp.together(a))  # 2e^(ε/2)/(e^(ε/2) - 1) - 2/(e^(ε/2) - 1) is 2
    if cancelled != a:
        return _known_sign(cancelled)
    return None


#: two 30-digit sort keys this far apart (relative) are two different numbers in that order
_SEPARATED = sp.Float("1e-20", 30)


def _sort_key(v: sp.Basic) -> sp.Basic:
    """A sort key for a real number: itself when rational, else 60 significant digits (two
    breakpoints that close are tied or ordered either way: only a cell of length < 1e-50 moves)."""
    v = sp.sympify(v)
    return v if v.is_Rational else sp.N(v, 30)


def _sign(v: sp.Basic) -> int:
    """The exact sign of a real number (a value within 1e-50 of 0 is settled by an exact zero test)."""
    v = sp.sympify(v)
    if v.is_Rational:
        return int(sp.sign(v))
    n = sp.N(v, 15)
    if abs(n) > 1e-8:
        return 1 if n > 0 else -1
    n = sp.N(v, 60)
    if abs(n) > sp.Float("1e-50", 60):
        return 1 if n > 0 else -1
    if _is_zero(v):
        return 0
    raise Undecided(f"cannot decide the sign of {v} exactly (it is within 1e-50 of 0)")


def _is_zero(v: sp.Basic) -> bool:
    decided = _zero_in_e(v)
    if decided is not None:
        return decided
    for simplify in (lambda e: sp.cancel(sp.together(e)), lambda e: sp.cancel(sp.together(e.rewrite(sp.exp))), sp.simplify):
        if simplify(v) == 0:
            return True
    return False


def in_exp_base(expr: sp.Basic) -> tuple[sp.Basic, dict]:
    """``expr`` with each e^(c p) (p a symbol, c rational) written as w_p^(c L), one positive
    w_p = e^(p/L) per symbol (so e^ε and e^(ε/2) cancel against each other), and the map back."""
    coeffs: dict = {}
    for e in expr.atoms(sp.exp):
        arg = sp.expand(e.args[0])
        if len(arg.free_symbols) == 1:
            (p,) = arg.free_symbols
            c = arg / p
            if c.is_Rational:
                coeffs.setdefault(p, []).append((e, c))
    subs, back = {}, {}
    for p, pairs in coeffs.items():
        L = sp.ilcm(1, *[c.q for _, c in pairs])
        w = sp.Dummy(f"w_{p}", positive=True)
        back[w] = sp.exp(p / L)
        for e, c in pairs:
            subs[e] = w ** int(c * L)
    return expr.xreplace(subs), back


def _zero_in_e(v: sp.Basic) -> bool | None:
    """Exact zero test of a number built from rationals and e^q (q rational) by + - * / and
    integer powers: with w = e^(1/L) (L the lcm of the q's denominators) it is a rational
    function of w with rational coefficients, and since w is transcendental (Lindemann) the
    number is 0 exactly when that function cancels to 0. None when other constants occur."""
    v = sp.sympify(v)
    qs = []
    for e in v.atoms(sp.exp):
        if not e.args[0].is_Rational:
            return None
        qs.append(e.args[0])
    L = sp.ilcm(1, *[q.q for q in qs]) if qs else 1
    w = sp.Dummy("w", positive=True)
    table = {e: w ** int(e.args[0] * L) for e in v.atoms(sp.exp)}
    table[sp.E] = w**L
    u = v.xreplace(table)
    if u.free_symbols - {w} or u.atoms(sp.Function) or any(a.is_Pow and not a.exp.is_Integer for a in u.atoms(sp.Pow)):
        return None
    return rational_function_is_zero(u)


def _cells_sum_to_one(cells: Sequence[tuple], z: sp.Symbol) -> bool | None:
    """For values constant in z on finite cells: is Σ value·(hi - lo) identically 1? Summed in
    sympy's field of rational functions (with :func:`in_exp_base`'s w_p for e^(c p)), which decides
    what ``rational_function_is_zero`` decides of the integral minus 1 without building the
    integral's expression. None when a cell is unbounded or its value depends on z."""
    from sympy.polys.fields import sfield

    if not cells or any(v.has(z) or lo == -sp.oo or hi == sp.oo for v, lo, hi in cells):
        return None
    parts = _exps_as_powers(sp.Tuple(*[e for cell in cells for e in cell]))
    try:
        field, elements = sfield(list(parts))
    except Exception:  # no generators, or sympy cannot build the field: the integral decides
        return None
    if field.domain not in (sp.ZZ, sp.QQ):
        return None
    total = -field.one
    for v, lo, hi in zip(elements[0::3], elements[1::3], elements[2::3]):
        total += v * (hi - lo)
    return not total


def _exps_as_powers(expr: sp.Basic) -> sp.Basic:
    """``expr`` with its exponentials e^a grouped by a up to a rational factor (e^(ε/(2k)) and
    e^(ε/k); e, e^(1/2) and e^(-1)), each group's written as powers of one positive variable
    w = e^(b/L) (b the group's first argument, L the lcm of the factors' denominators), as
    :func:`in_exp_base` does for one parameter and :func:`_zero_in_e` for numbers. An identity of
    the result in the w as variables holds at their values, so a rational function that is 0
    this way is 0 (one that is not is only "not shown")."""
    args = [e.args[0] for e in expr.atoms(sp.exp)] + ([sp.Integer(1)] if expr.has(sp.E) else [])
    groups: list[tuple[sp.Basic, list]] = []
    for a in args:
        for base, members in groups:
            r = sp.cancel(a / base)
            if r.is_Rational:
                members.append((a, r))
                break
        else:
            groups.append((a, [(a, sp.Integer(1))]))
    table = {}
    for _, members in groups:
        L = sp.ilcm(1, *[r.q for _, r in members])
        w = sp.Dummy("w", positive=True)
        for a, r in members:
            table[sp.exp(a)] = w ** int(r * L)
    return expr.xreplace(table)


def rational_function_is_zero(expr: sp.Basic) -> bool:
    """Is ``expr`` 0 as a rational function of its symbols and other atoms (e^x, e^(1/2), ...)
    taken as independent variables? The answer of ``cancel(together(expr)) == 0``, computed in
    sympy's field of rational functions over the rationals (several times faster)."""
    from sympy.polys.fields import sfield

    try:
        field, f = sfield(expr)
    except Exception:  # no generators, or sympy cannot build the field: cancel decides
        field = None
    if field is not None and field.domain in (sp.ZZ, sp.QQ):
        return not f
    return sp.cancel(sp.together(expr)) == 0


def _approx(value: sp.Basic) -> str:
    return "" if value.is_Rational else f" ≈ {sp.N(value, 6)}"


def _point_text(subs: Mapping) -> str:
    return ", ".join(f"{k} = {v}" for k, v in subs.items()) or "the example"


# -- load-time checks at exact points ---------------------------------------------------------


def is_piecewise_in(expr: sp.Basic, z: sp.Symbol) -> bool:
    """Does the density branch on z (a conditional, or Max/Min of z) rather than being one
    elementary expression (the Laplace family, handled by integrating over the real line)?"""
    return expr.has(sp.Piecewise) or any(a.has(z) for a in expr.atoms(sp.Max, sp.Min))


def check_at_points(name: str, density: sp.Basic, z: sp.Symbol, x: sp.Symbol, low, high,
                    points: Sequence[Mapping], *, where: str = "channel.density") -> list[str]:
    """Load-time check of a piecewise density: at every parameter point (symbol -> exact value)
    and at the ends, middle and thirds of the input interval [low, high] there, the exact mass
    is 1 and no cell has a negative value.

    Refuses (InvalidSpec, naming the value and the point) what it shows wrong; what holds is
    stated as checked at those points, not proved: ``ldpaudit verify`` proves it for every x
    and parameter value (:mod:`ldpaudit.verify.piecewise`)."""
    try:
        pd = flattened(sp.sympify(density), z, where)
    except NotPiecewiseLinear as exc:
        return [f"{where}: validity not checked ({exc})"]
    checked = 0
    for params in points:
        ends = [None if e is None else sp.sympify(e).xreplace(params) for e in (low, high)]
        inputs = sample_inputs(*ends)
        _decide_interior_order(pd, {**params, x: sp.sympify(inputs[len(inputs) // 2])})
        signs: dict = {}
        for xv in inputs:
            if not xv.is_number:
                continue
            subs = {**params, x: sp.sympify(xv)}
            shown = _point_text({**{k: v for k, v in params.items()}, x: xv})
            try:
                at = pd.order_at(subs)
                mass = pd.mass_at(subs, at)
                negative = pd.negative_at(subs, at, signs)
            except NotPiecewiseLinear as exc:
                return [f"{where}: validity not checked at {shown} ({exc})"]
            if not _is_zero(mass - 1):
                value = sp.nsimplify(sp.simplify(mass)) if not sp.simplify(mass).is_Rational else sp.simplify(mass)
                raise InvalidSpec(f"{where} of {name!r} integrates to {value}{_approx(value)} over z at {shown}; a density must "
                                  "integrate to 1 (check its pieces and their heights)")
            if negative is not None:
                zv, v = negative
                raise InvalidSpec(f"{where} of {name!r} is {sp.simplify(v)} < 0 at z = {zv}, {shown}; a density "
                                  "must be non-negative")
            checked += 1
    return [f"{where} integrates to 1 and is non-negative at {checked} exact points (inputs x parameter samples; "
            f"{len(pd.breakpoints)} breakpoints in z); `ldpaudit verify` proves it for every x and parameter value"]


def _decide_interior_order(pd: PiecewiseDensity, subs: Mapping) -> None:
    """Decide first whether the mass formula of the breakpoints' order at an interior input is
    identically 1: at the ends of the input interval breakpoints tie, and a tie is then settled
    by that formula, not by the other orders of the tied breakpoints (which hold only at the tie).
    Only the order of the work changes: what this finds wrong is found again at its point."""
    try:
        order, _ = pd.order_at(subs)
        pd._mass_is_one(tuple(order))
    except (InvalidSpec, NotPiecewiseLinear, Undecided, TypeError, ValueError):
        pass


def sample_inputs(low, high) -> list[sp.Basic]:
    """Exact inputs to check: the ends of the interval, its midpoint and two interior thirds."""
    if low is None or high is None:
        base = low if low is not None else (high - 2 if high is not None else sp.Integer(-1))
        return [base, base + sp.Rational(1, 3), base + 1, base + 2]
    low, high = sp.sympify(low), sp.sympify(high)
    return [low, low + (high - low) / 3, (low + high) / 2, low + 2 * (high - low) / 3, high]
