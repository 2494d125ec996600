"""One claim over its region, ready to search: the parameters and prover coordinates, the box,
the region's relations, the goals, and the exact checks of a candidate witness point.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import sympy as sp
from mpmath import iv

from ldpaudit.theorems import forms, intervals
from ldpaudit.theorems.claims import Claim, ClaimsFile, bounds_of
from ldpaudit.theorems.goals import (
    Goal,
    _difference,
    _f,
    _forms,
    _log_relaxed,
    _parts,
    _ratio,
    _simplified,
    _square_form,
    _without_min_max,
    relax,
)
from ldpaudit.theorems.limits import IMPLIED_SECONDS, _cpu_limit
from ldpaudit.theorems.result import Witness


class Problem:
    """A claims file's region and one claim, in the prover's coordinates."""

    def __init__(self, cf: ClaimsFile, claim: Claim):
        self.cf, self.claim = cf, claim
        region = cf.region
        self.thetas: dict = {}
        binds = {s: relax(b, self.thetas) for s, b in region.bindings.items()}
        coords = cf.coordinates
        self.inverse = coords.inverse if coords else {}
        self.forward = coords.forward if coords else {}

        def to_prover(e):
            e = e.xreplace(binds)
            e = relax(e, self.thetas)
            return e.xreplace(self.inverse) if self.inverse else e

        self.goals: list[Goal] = []
        for part in _parts(claim.statement):
            lhs_rhs = part
            for alt in ([part] if isinstance(part, sp.Or) else _without_min_max(lhs_rhs)):
                label = sp.sstr(alt)
                if isinstance(alt, sp.Or):  # each side simplified on its own, its strictness kept
                    sides = [_difference(a) for a in alt.args]
                    exprs = [_simplified(to_prover(g)) for g, _ in sides]
                    goal = Goal(label, sp.Max(*exprs, evaluate=False), any(st for _, st in sides))
                    goal.arg_strict = tuple(st for _, st in sides)
                    self.goals.append(goal)
                    continue
                g, strict = _difference(alt)
                g = to_prover(g)
                g = _simplified(g)
                sq = _square_form(g)
                self.goals.append(Goal(label, sq if sq is not None else g, strict))
        self.identity = all(g.expr == 0 and not g.strict for g in self.goals)
        active = set().union(*(g.expr.free_symbols for g in self.goals)) if self.goals else set()
        self.relations = []
        for rel in region.relations:
            h, strict = _difference(rel)
            h = to_prover(h)
            if h.free_symbols <= active or not self.inverse:
                if h.free_symbols <= active:  # a relation on parameters the goals no longer mention is dropped
                    self.relations.append(Goal(sp.sstr(rel), h, strict))
            else:
                self.relations.append(Goal(sp.sstr(rel), h, strict))
        self.variables, self.ranges = self._ranges(binds)
        # integer parameters that are prover variables themselves: split between integers, so a
        # narrow piece is a single integer (exact) rather than a real interval around it
        self.integer_variables = set() if self.inverse else set(region.integers) & set(self.variables)
        for s in self.integer_variables:
            a, b = _f(self.ranges[s].a), _f(self.ranges[s].b)
            a = mpmath.ceil(a) if mpmath.isfinite(a) else a
            b = mpmath.floor(b) if mpmath.isfinite(b) else b
            if a <= b:
                self.ranges[s] = self.ranges_all[s] = iv.mpf([a, b])
        if not self.inverse:
            self.dropped = [s for s in self.variables if s not in active]
            self.variables = [s for s in self.variables if s in active]
            self.ranges = {s: v for s, v in self.ranges.items() if s in active}
        else:
            self.dropped = []
        for goal in self.goals:
            goal.implied = self._implied(goal)
        # strict relations: > 0 at every point of the region, whatever a box around it reaches
        self.positive = [rel.expr for rel in self.relations if rel.strict and not rel.expr.is_number]

    def _implied(self, goal: Goal) -> list:
        """Goals q >= 0 that imply this one on the region because g = q * h symbolically, h >= 0
        a region relation (then g >= 0 wherever h >= 0), or, for an 'or' max(a, b) >= 0,
        b = q * (-a) (then b >= 0 wherever a < 0)."""
        pairs = []
        for rel in self.relations:
            if rel.strict or not goal.strict:
                pairs.append((goal.expr, rel.expr, f"{goal.label} = q * ({rel.label})", goal.strict, False))
        if isinstance(goal.expr, sp.Max):
            strict_of = dict(goal.sides())
            for a, b in itertools.permutations(goal.expr.args, 2):
                # where a's side fails (a <= 0, or a < 0 when a's side is not strict), b = q * (-a)
                # with q >= 0 gives b >= 0: enough when b's side is not strict, or when a's side is
                # not strict and q > 0 (then -a > 0)
                if strict_of[b] and strict_of[a]:
                    continue
                q_strict = strict_of[b]
                pairs.append((b, -a, "one side of the 'or' is a multiple of the other's negation", q_strict, False))
                low = None
                if b.has(sp.log):
                    with _cpu_limit(IMPLIED_SECONDS):
                        low = _log_relaxed(b)
                if low is not None:
                    pairs.append((low, -a, "one side of the 'or', its logarithms bounded below by "
                                  "log y >= 1 - 1/y, is a multiple of the other's negation", q_strict, True))
        out = []
        for g, h, why, q_strict, factored in pairs:
            if not (h.free_symbols & g.free_symbols) or sp.count_ops(g) > forms.MAX_OPS:
                continue
            with _cpu_limit(IMPLIED_SECONDS):
                q = _ratio(g, h, factored)
                if q is not None:
                    try:
                        out.append(Goal(why, q, q_strict))
                    except intervals.Unsupported:
                        pass
        return out

    def _ranges(self, binds):
        region = self.cf.region
        ranges = {}
        self.open_low = {}     # variable -> its lower range end is excluded from the region
        for s in region.free:
            lo, hi = bounds_of(s, region.relations)
            self.open_low[s] = bool(lo and lo[1]) and not self.inverse
            a = _f(intervals.compile_expr(lo[0])({}).a) if lo else -mpmath.inf
            b = _f(intervals.compile_expr(hi[0])({}).b) if hi else mpmath.inf
            ranges[s] = iv.mpf([a, b])
        for _ in range(2):  # s >= h(others), s <= h(others): the enclosure of h bounds s
            for rel in region.relations:
                lhs, rhs = (rel.lhs, rel.rhs) if isinstance(rel, sp.Lt | sp.Le) else (rel.rhs, rel.lhs)  # lhs < rhs
                for s, other, upper in ((lhs, rhs, True), (rhs, lhs, False)):
                    if s in ranges and s not in other.free_symbols and other.free_symbols <= set(ranges):
                        try:
                            h = intervals.compile_expr(other)(ranges)
                        except intervals.Unsupported:
                            continue
                        a, b = _f(ranges[s].a), _f(ranges[s].b)
                        if upper and mpmath.isfinite(_f(h.b)):
                            b = min(b, _f(h.b))
                        if not upper and mpmath.isfinite(_f(h.a)):
                            a = max(a, _f(h.a))
                        if a <= b:
                            ranges[s] = iv.mpf([a, b])
        if self.forward:
            box = {}
            for new, value in self.forward.items():
                v = intervals.compile_expr(value)(ranges)
                lo, hi = _f(v.a), _f(v.b)
                if new.is_positive:
                    lo = max(lo, 0)
                box[new] = [lo, hi]
            for rel in self.relations:  # a relation in one new coordinate tightens its range
                for form in _forms(rel.expr):
                    free = form.free_symbols
                    if len(free) == 1 and next(iter(free)) in box:
                        s = next(iter(free))
                        try:
                            sol = sp.solve_univariate_inequality(sp.Ge(form, 0), s, relational=False,
                                                                 domain=sp.Interval(0, sp.oo))
                        except (NotImplementedError, ValueError, TypeError):
                            continue
                        if isinstance(sol, sp.Interval) and sol.start.is_number and sol.end.is_number:
                            if sol.start.is_finite:
                                box[s][0] = max(box[s][0], _f(intervals.compile_expr(sol.start)({}).a))
                            if sol.end.is_finite:
                                box[s][1] = min(box[s][1], _f(intervals.compile_expr(sol.end)({}).b))
                            break
            ranges = {s: iv.mpf(v) for s, v in box.items()}
        for th in self.thetas.values():
            ranges[th] = iv.mpf([0, 1])
        self.ranges_all = dict(ranges)
        return list(ranges), ranges

    # exact checks in the original parameters

    def original_point(self, point: dict) -> list[dict]:
        """Candidate exact points of the original parameters near a prover point."""
        region = self.cf.region
        mp = {s: mpmath.mpf(v) for s, v in point.items()}
        values = {}
        for s in region.free:
            if self.inverse:
                f = intervals.compile_expr(self.inverse[s])
                v = f({k: iv.mpf(x) for k, x in mp.items()})
                x = (_f(v.a) + _f(v.b)) / 2
            else:
                x = mp[s]
            if x is None or not mpmath.isfinite(x):
                return []
            if s in region.integers:
                values[s] = sorted({int(mpmath.floor(x)), int(mpmath.ceil(x))})
            else:
                values[s] = [Fraction(float(x)).limit_denominator(10**6)]
        return [dict(zip(values, combo)) for combo in itertools.product(*values.values())]

    def exact_check(self, values: dict) -> Witness | None:
        """A witness if the point lies in the region and the claim fails there (all exact)."""
        region = self.cf.region
        env = {s: sp.Rational(v) for s, v in values.items()}
        for s, b in region.bindings.items():
            env[s] = sp.sympify(b.xreplace(env))
            if not env[s].is_Rational:
                return None
        for rel in region.relations:
            h, strict = _difference(rel)
            sg = _sign(h.xreplace(env))
            if sg is None or sg < 0 or (strict and sg == 0):
                return None
        for part in _parts(self.claim.statement):
            alts = part.args if isinstance(part, sp.Or) else (part,)
            failed = []
            for alt in alts:
                g, strict = _difference(alt)
                sg = _sign(g.xreplace(env))
                failed.append(sg is not None and (sg < 0 or (strict and sg == 0)))
            if all(failed):
                last = alts[-1]
                lhs, rhs = last.lhs.xreplace(env), last.rhs.xreplace(env)
                return Witness({str(s): str(v) for s, v in env.items()}, _show(lhs), _show(rhs),
                               _decimal(lhs), _decimal(rhs), sp.sstr(part))
        return None


def _sign(e) -> int | None:
    """Rigorous sign: outward-rounded point enclosures (80 to 1280 bits), else the verify
    stage's rational enclosures; None when neither decides."""
    e = sp.sympify(e)
    if e.is_Rational:
        return int(bool(e > 0)) - int(bool(e < 0))
    try:
        s = intervals.point_sign(e)
        if s is not None:
            return s
    except intervals.Unsupported:
        pass
    try:
        from ldpaudit.verify.exact import sign

        return sign(e, max_bits=1024)
    except (ValueError, TypeError, ArithmeticError):
        return None


def _show(e) -> str:
    text = sp.sstr(sp.nsimplify(e) if e.is_Rational else e)
    return text if len(text) <= 300 else text[:297] + "..."


def _decimal(e) -> str:
    return sp.sstr(sp.N(e, 20))
