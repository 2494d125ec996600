"""The interval branch-and-bound over a claim's box: split until every piece is outside the
region or every goal's enclosure is >= 0 (mpmath interval arithmetic, outward rounding), with
the monotonicity argument at range ends, unbounded pieces, and exact witness checks.
"""

from __future__ import annotations

import time
from fractions import Fraction

import mpmath
import sympy as sp
from mpmath import iv

from ldpaudit.theorems import forms, intervals
from ldpaudit.theorems.goals import Goal, _f, _log_expand
from ldpaudit.theorems.limits import _cpu_limit, _OutOfTime
from ldpaudit.theorems.problem import Problem
from ldpaudit.theorems.result import PROVED, REFUTED, UNKNOWN, Witness

MAX_EXACT_CHECKS = 400
MAX_DERIVATIVE_DEPTH = 6
MAX_SUB_BOXES = 400
MAX_TAIL_DEPTH = 3
REFINE_LEVEL = 3

WIDEN = 8                       # a piece at most 8 of its widths from a range end is widened to reach it
SMEAR_AFTER = 16                # bisection by relative width first: the smear rule needs derivatives
SCAN_POINTS = 256
MAX_SCAN_CHECKS = 24


class Search:
    def __init__(self, problem: Problem, *, seconds: float = 60.0, max_boxes: int = 200_000):
        self.p = problem
        self.deadline = time.process_time() + seconds
        self.max_boxes = max_boxes
        self.boxes = 0
        self.exact_checks = 0
        self.methods: set = set()
        self._derivatives: dict = {}

    def _scan(self, root) -> Witness | None:
        """Candidates at quasi-random points of the box (Halton sequence): a search, not a proof;
        a candidate counts only after the exact check."""
        names = [s for s in self.p.variables if mpmath.isfinite(_f(root[s].a)) and mpmath.isfinite(_f(root[s].b))]
        if len(names) != len(self.p.variables):
            return None
        primes = [2, 3, 5, 7, 11, 13, 17, 19][: len(names)]
        for i in range(1, SCAN_POINTS + 1):
            box = {}
            for s, b in zip(names, primes):
                f, x, n = 1.0, 0.0, i
                while n:
                    f /= b
                    x += f * (n % b)
                    n //= b
                lo, hi = _f(root[s].a), _f(root[s].b)
                box[s] = iv.mpf(lo + (hi - lo) * mpmath.mpf(x))
            if self.exact_checks >= MAX_SCAN_CHECKS:
                return None
            w = self._witness(box, list(range(len(self.p.goals))))
            if w is not None:
                return w
        return None

    def run(self) -> tuple[str, str, Witness | None, list]:
        p = self.p
        root = dict(p.ranges)
        w = self._scan(root)
        if w is not None:
            return REFUTED, f"fails at {w.point}", w, []
        stack = [(root, list(range(len(p.goals))), 0)]
        left = []
        inside_any = False
        while stack:
            box, pending, level = stack.pop()
            self.boxes += 1
            if time.process_time() > self.deadline or self.boxes > self.max_boxes:
                left.append((box, "budget spent"))
                left.extend((b, "budget spent") for b, _, _ in stack)
                break
            inside = True
            outside = False
            for rel in p.relations:
                v = rel.enclose(box)
                if v.b < 0 or (rel.strict and v.b <= 0):
                    outside = True
                    break
                if not rel.holds(v):
                    inside = False
            if outside:
                continue
            inside_any = True
            still = []
            for i in pending:
                goal = p.goals[i]
                v = goal.enclose(box)
                if goal.holds(v):
                    continue
                still.append(i)
            if not still:
                continue
            w = self._witness(box, still)
            if w is not None:
                return REFUTED, f"fails at {w.point}", w, []
            still = [i for i in still if not self._by_relation(p.goals[i], box)]
            if level >= REFINE_LEVEL and still:  # plain bisection first: cheap, and enough for most pieces
                still = [i for i in still if not self._decide(p.goals[i], box)]
            if not still:
                continue
            var = self._smear_variable(box, [p.goals[i] for i in still]) or self._split_variable(box)
            if var is None:
                left.append((box, "enclosure of " + p.goals[still[0]].label + " still contains negative values "
                             "on a piece too small to split"))
                continue
            for child in _split(box, var, integer=var in p.integer_variables):
                stack.append((child, still, level + 1))
        if not inside_any:
            return "EMPTY", "the region is empty: every piece of the range violates a relation", None, []
        if left:
            return UNKNOWN, f"{len(left)} piece(s) of the region left undecided", None, left
        return PROVED, "every piece of the region decided", None, []

    def _smear_variable(self, box, goals):
        """The variable with the largest smear |dg/dx_i (X)| * width_i for the most promising
        alternative of the first goal (Kearfott's smear rule); None when the derivatives are not
        available, a side is unbounded or every smear is 0."""
        if self.boxes < SMEAR_AFTER or not all(mpmath.isfinite(_f(box[s].a)) and mpmath.isfinite(_f(box[s].b))
                                               for s in self.p.variables):
            return None
        alts = _alternatives(goals[0])
        if len(alts) > 1:
            alts = sorted(alts, key=lambda g: -_f(g.enclose(box).a))
        derivs = self._derivs(alts[0])
        if derivs is None:
            return None
        best, top = None, mpmath.mpf(0)
        for s in self.p.variables:
            if s not in alts[0].expr.free_symbols:
                continue
            f = derivs.compiled(s, 1)
            if f is None:
                return None
            dv = f(box)
            size = max(abs(_f(dv.a)), abs(_f(dv.b))) * (_f(box[s].b) - _f(box[s].a))
            if not mpmath.isfinite(size):
                return None
            if size > top:
                best, top = s, size
        if best is not None and _f(box[best].b) - _f(box[best].a) <= mpmath.mpf(2) ** -40 * max(1, abs(_f(box[best].a))):
            return None
        return best

    def _split_variable(self, box, reference=None):
        """The variable whose side is widest relative to its side in the reference box (the
        region's range, or the piece a sub-proof started from)."""
        reference = reference or self.p.ranges
        best, width = None, 0
        for s in self.p.variables:
            a, b = _f(box[s].a), _f(box[s].b)
            if not mpmath.isfinite(b) or not mpmath.isfinite(a):
                return s
            sa, sb = _f(reference[s].a), _f(reference[s].b)
            full = (sb - sa) if mpmath.isfinite(sb - sa) else max(abs(b), 1)
            rel = (b - a) / full if full else 0
            if rel > width:
                best, width = s, rel
        return best if width > mpmath.mpf(2) ** -40 else None

    def _witness(self, box, still) -> Witness | None:
        if self.exact_checks >= MAX_EXACT_CHECKS:
            return None
        center = {s: _mid(v) for s, v in box.items()}
        point = {s: iv.mpf(x) for s, x in center.items()}
        if not any(self.p.goals[i].enclose(point).b < 0 for i in still):
            return None
        for cand in self.p.original_point(center):
            self.exact_checks += 1
            w = None
            with _cpu_limit(min(5.0, max(self.deadline - time.process_time(), 0.01))):
                w = self.p.exact_check(cand)
            if w is not None:
                return w
        return None

    # methods beyond the plain enclosure: Taylor forms, the ends of the range, the unbounded tail

    def _decide(self, goal: Goal, box, depth: int = 0) -> bool:
        """The goal holds on the whole box, shown without splitting it (may recurse into a
        derivative, which is then proved by its own branch-and-bound). A piece near the finite
        lower end a of a variable's range is widened to reach a: an end method proved on the
        wider piece holds on this one."""
        if self._by_relation(goal, box, refine=True):
            return True
        alternatives = _alternatives(goal)
        if any(self._refined(alt, box) for alt in alternatives):
            return True
        # each q of goal.implied is sufficient too (q >= 0 on the box gives the goal there): the
        # methods below (factor signs, ends of the range) may show it where its enclosure cannot
        alternatives = [q for q in goal.implied if q not in alternatives] + alternatives  # the simpler first
        if not all(mpmath.isfinite(_f(box[s].b)) for s in self.p.variables):
            touching = [s for s in self.p.variables
                        if mpmath.isfinite(_f(self.p.ranges[s].a)) and _f(box[s].a) == _f(self.p.ranges[s].a)]
            for alt in alternatives:
                if any(self._signed_factors(alt, box, x) for x in [None] + touching[:1]):
                    return self._via(alt, goal)
        if depth > MAX_DERIVATIVE_DEPTH or time.process_time() > self.deadline:
            return False
        for alt in alternatives:
            for x in self.p.variables:
                v, full = box[x], self.p.ranges_all.get(x, box[x])
                if not mpmath.isfinite(_f(v.b)) and mpmath.isfinite(_f(v.a)) and len(self.p.variables) == 1:
                    if self._tail(alt, box, x, depth):
                        return self._via(alt, goal)
                    continue
                a, b = _f(v.a), _f(v.b)
                if not (mpmath.isfinite(_f(full.a)) and mpmath.isfinite(b)) or a - _f(full.a) > WIDEN * (b - a):
                    continue
                end = _exact_end(_f(full.a))
                if end is None or (alt.strict and not self.p.open_low.get(x, False)):
                    continue  # a strict goal is 0 on the face of a closed end: only an open end will do
                wide = dict(box)
                wide[x] = iv.mpf([full.a, v.b])
                if self._signed_factors(alt, wide, x):
                    return self._via(alt, goal)
                if self._end_expansion(alt, wide, x, end):
                    return self._via(alt, goal)
                if self._monotone(alt, wide, x, end, depth):
                    return self._via(alt, goal)
        return False

    def _via(self, alt: Goal, goal: Goal) -> bool:
        if any(alt is q for q in goal.implied):
            self.methods.add(f"a sufficient goal q >= 0: {alt.label}")
        return True

    def _by_relation(self, goal: Goal, box, refine: bool = False) -> bool:
        for q in goal.implied:
            if q.holds(q.enclose(box)) or (refine and self._refined(q, box)):
                self.methods.add("the goal is q * h for a relation h >= 0 of the region (or the negated other "
                                 "side of its 'or'), q shown >= 0")
                return True
        return False

    def _refined(self, goal: Goal, box) -> bool:
        """Mean-value form (any number of variables), then Taylor forms of rising order in each
        variable; the derivatives are computed once per goal, within the claim's budget."""
        variables = [s for s in self.p.variables if s in goal.expr.free_symbols]
        if not variables or not all(mpmath.isfinite(_f(box[s].a)) and mpmath.isfinite(_f(box[s].b)) for s in variables):
            return False
        derivs = self._derivs(goal)
        if derivs is None:
            return False
        try:
            with _cpu_limit(max(self.deadline - time.process_time(), 0.01)):
                v = derivs.mean_value(box, variables)
                if v is not None and goal.holds(v):
                    self.methods.add("mean-value form g(c) + g'(X)(X - c)")
                    return True
                if len(variables) == 1:
                    for order in range(2, forms.MAX_TAYLOR_ORDER + 1):
                        v = derivs.taylor(box, variables[0], order)
                        if v is not None and goal.holds(v):
                            self.methods.add("Taylor forms of order 2 to 4 (Lagrange remainder)")
                            return True
        except _OutOfTime:
            return False
        return False

    def _derivs(self, goal: Goal):
        key = goal.expr
        if key not in self._derivatives:
            self._derivatives[key] = forms.Derivatives(goal.expr)
        d = self._derivatives[key]
        return d if d.usable else None

    def _signed_factors(self, goal: Goal, box, x) -> bool:
        """The goal as one fraction whose factors all have a known sign off the face x = a (a
        factor such as x or (e^x - 1)^2 is >= 0 and vanishes only there); a strict goal needs
        every factor's sign on the whole box."""
        key = ("signed", goal.expr, x, _box_key(box))
        if key not in self._derivatives:
            self._derivatives[key] = False
            with _cpu_limit(max(self.deadline - time.process_time(), 0.01)):
                form = forms.sign_form(goal.expr, box, None if goal.strict else x, weak=not goal.strict,
                                       positive=self.p.positive)
                if form is not None and form.is_number:
                    self._derivatives[key] = bool(form > 0)
        if self._derivatives[key]:
            self.methods.add("every factor of the goal has a known sign")
        return self._derivatives[key]

    def _end_expansion(self, goal: Goal, box, x, end) -> bool:
        """g = (x - a)^m [bracket] near the range end a, the bracket enclosed >= 0 (> 0)."""
        key = ("end", goal.expr, x, end)
        if key not in self._derivatives:
            self._derivatives[key] = None
            derivs = self._derivs(goal)
            if derivs is not None:
                with _cpu_limit(max(self.deadline - time.process_time(), 0.01)):
                    self._derivatives[key] = forms.EndExpansion(derivs, x, end)
        exp = self._derivatives[key]
        if exp is None or exp.m is None:
            return False
        try:
            with _cpu_limit(max(self.deadline - time.process_time(), 0.01)):
                for extra in (1, 2, 3):
                    b = exp.bracket(box, extra)
                    if b is None:
                        return False
                    if b.a > 0 or (b.a >= 0 and not goal.strict and exp.m > 0) or (b.a >= 0 and exp.m == 0 and goal.holds(b)):
                        self.methods.add(f"expansion at the end of the range ({x} -> {end}: exact coefficients, "
                                         "Lagrange remainder)")
                        return True
        except _OutOfTime:
            return False
        return False

    def _monotone(self, goal: Goal, box, x, end, depth: int) -> bool:
        """g -> 0 as x -> a (sympy's limit, exact) and dg/dx >= 0 (> 0 for a strict goal) on the
        box off the face x = a: then g >= 0 (> 0) on the box."""
        key = ("d", goal.expr, x, end, _box_key(box))
        if key not in self._derivatives:
            self._derivatives[key] = None
            with _cpu_limit(max(self.deadline - time.process_time(), 0.01)):
                self._derivatives[key] = self._end_derivative(goal, x, end, box)
        dgoal = self._derivatives[key]
        if dgoal is None:
            return False
        done = ("proved", goal.expr, x, _box_key(box))
        if done not in self._derivatives:
            self._derivatives[done] = self._prove_sub(dgoal, box, depth + 1)
        if self._derivatives[done]:
            self.methods.add("monotonicity from the end of the range (the limit there is >= 0, the derivative's "
                             "numerator is >= 0)")
        return self._derivatives[done]

    def _end_derivative(self, goal: Goal, x, end, box) -> Goal | None:
        """dg/dx in sign form (numerator of one fraction, factors of known sign removed) as a
        goal, when the limit L of g at the end (sympy, exact; a function of the other variables)
        is shown >= 0 on the box (then g >= L >= 0 wherever dg/dx >= 0), else None."""
        lkey = ("limit", goal.expr, x, end)
        if lkey not in self._derivatives:
            self._derivatives[lkey] = None
            try:
                limit = sp.simplify(sp.limit(goal.expr, x, end, "+"))
                if limit.is_finite is not False and not limit.has(sp.oo, -sp.oo, sp.zoo, sp.nan, sp.Limit):
                    self._derivatives[lkey] = (limit, None if limit == 0 else intervals.compile_expr(limit))
            except (NotImplementedError, ValueError, TypeError, intervals.Unsupported):
                pass
        if self._derivatives[lkey] is None:
            return None
        limit, enclose_limit = self._derivatives[lkey]
        if enclose_limit is not None and not _f(enclose_limit(box).a) >= 0:
            return None
        deriv = forms.sign_form(sp.diff(_log_expand(goal.expr), x), box, x)
        if deriv is None:
            return None
        try:
            return Goal(f"d/d{x} of {goal.label}", deriv, goal.strict)
        except intervals.Unsupported:
            return None

    def _tail(self, goal: Goal, box, x, depth) -> bool:
        """The unbounded piece [X, oo): e^x decoupled as w in [0, e^-X], or g(X) >= 0 and
        g' >= 0 on [X, oo), recursively (the symbolic work is cached per expression and X)."""
        v = box[x]
        X = _f(v.a)
        w = sp.Symbol("w_tail", positive=True)
        tbox = {x: v, w: iv.mpf([0, iv.exp(-iv.mpf(X)).b])}
        key = ("tail", goal.expr, str(X))
        if key not in self._derivatives:
            self._derivatives[key] = []
            with _cpu_limit(max(self.deadline - time.process_time(), 0.01)):
                for decoupled in _decouple(goal.expr, x, w, box):
                    try:
                        self._derivatives[key].append(Goal(goal.label, decoupled, goal.strict))
                    except intervals.Unsupported:
                        continue
        for g in self._derivatives[key]:
            if g.holds(g.enclose(tbox)):
                self.methods.add("unbounded end: e^x replaced by an independent w in [0, e^-X]")
                return True
        at = goal.enclose({x: iv.mpf(X)})
        if not goal.holds(at) or depth >= MAX_TAIL_DEPTH:
            return False
        dkey = ("tail'", goal.expr, str(X))
        if dkey not in self._derivatives:
            self._derivatives[dkey] = []
            with _cpu_limit(max(self.deadline - time.process_time(), 0.01)):
                raw = sp.diff(goal.expr, x)
                form = forms.sign_form(raw, box)
                for deriv in ([form] if form is not None else []) + [raw]:
                    try:
                        self._derivatives[dkey].append(Goal(f"d/d{x} of {goal.label}", deriv, False))
                    except intervals.Unsupported:
                        continue
        for dgoal in self._derivatives[dkey]:
            if self._tail(dgoal, box, x, depth + 1):
                self.methods.add("unbounded end: g(X) >= 0 and g' >= 0 on [X, oo)")
                return True
        return False

    def _prove_sub(self, goal: Goal, box, depth: int) -> bool:
        """goal >= 0 (> 0 off the lower faces at the range ends) on the box, by its own
        branch-and-bound with the same methods."""
        stack = [box]
        count = 0
        while stack:
            b = stack.pop()
            count += 1
            self.boxes += 1
            if count > MAX_SUB_BOXES or time.process_time() > self.deadline:
                return False
            if goal.holds(goal.enclose(b)) or self._decide(goal, b, depth):
                continue
            centre = {s: iv.mpf(_mid(v)) for s, v in b.items()}
            if _f(goal.enclose(centre).b) < 0:   # false at a point: no use splitting further
                return False
            var = self._smear_variable(b, [goal]) or self._split_variable(b, box)
            if var is None:
                return False
            stack.extend(_split(b, var))
        return True


def _alternatives(goal: Goal) -> list:
    """The goal, or for max(h1, h2, ...) >= 0 each h_i (one of them >= 0 on the box suffices)."""
    if isinstance(goal.expr, sp.Max):
        out = []
        for a, strict in goal.sides():
            try:
                out.append(Goal(goal.label, a, strict))
            except intervals.Unsupported:
                continue
        return out
    return [goal]


def _exact_end(a) -> sp.Rational | None:
    if a != float(a):
        return None
    return sp.Rational(Fraction(float(a)))


def _box_key(box) -> tuple:
    return tuple(sorted((str(s), str(_f(v.a)), str(_f(v.b))) for s, v in box.items()))


def _decouple(expr: sp.Basic, x, w, box=None) -> list:
    """``expr`` with e^(c x) written (1/w)^c, w = e^(-x) taken as a variable of its own: a few
    equal forms (terms cancelled one by one before or after expanding, one fraction). Logs are
    split into logs of factors made positive on the box (log(1/w - 1) = log(1 - w) + x)."""
    if not expr.has(sp.exp):
        return []
    e = expr.replace(lambda n: isinstance(n, sp.exp) and n.args[0].has(x),
                     lambda n: (1 / w) ** sp.cancel(n.args[0] / x) if sp.cancel(n.args[0] / x).is_number else n)
    if e.has(sp.exp):
        return []
    tbox = None
    if box is not None:
        tbox = {x: box[x], w: iv.mpf([0, iv.exp(-iv.mpf(box[x].a)).b])}
    e = e.replace(lambda n: isinstance(n, sp.log), lambda n: _split_log(n.args[0], tbox))
    e = e.xreplace({sp.log(w): -x})
    out = []
    for variant in (lambda: sp.Add(*[sp.factor(sp.together(t)) for t in sp.Add.make_args(e)]),
                    lambda: sp.Add(*[sp.factor(sp.together(t)) for t in sp.Add.make_args(sp.expand(e))]),
                    lambda: sp.cancel(sp.together(e)) if not e.has(sp.log) else None):
        try:
            f = variant()
        except (sp.PolynomialError, ValueError, TypeError):
            continue
        if f is not None and f not in out:
            out.append(f)
    return out


def _split_log(arg: sp.Basic, box) -> sp.Basic:
    """log(arg) as a sum of ± logs of factors each shown positive on the box (a factor shown
    negative is negated; the signs must multiply to +1), else log(arg) unchanged."""
    try:
        num, den = sp.fraction(sp.factor(sp.together(arg)))
    except (sp.PolynomialError, ValueError, TypeError):
        return sp.log(arg)
    total, flips = sp.Integer(0), 0
    for part, sign in ((num, 1), (den, -1)):
        for base, power in forms._factors(part):
            if base.is_number:
                if not base.is_positive:
                    if base.is_negative and power % 2:
                        flips += 1
                        base = -base
                    else:
                        return sp.log(arg)
                total += sign * power * sp.log(base)
                continue
            s = forms.factor_sign(base, box) if box is not None else None
            if s is None:
                return sp.log(arg)
            if s < 0:
                base = -base
                flips += power % 2
            total += sign * power * sp.log(base)
    if flips % 2:
        return sp.log(arg)
    return total


#: a non-negative range [a, b] with b > WIDE * max(a, 1) is split at sqrt(max(a, 1) b), not (a + b)/2
WIDE = 2**10


def _mid(v):
    a, b = _f(v.a), _f(v.b)
    if not mpmath.isfinite(a):
        return b - 1 if mpmath.isfinite(b) else mpmath.mpf(0)
    if not mpmath.isfinite(b):
        return max(2 * a, a + 1)
    if a >= 0 and b > WIDE * max(a, 1):  # a range over many orders of magnitude: split geometrically
        return mpmath.sqrt(max(a, 1) * b)
    return (a + b) / 2


def _split(box, var, integer: bool = False):
    """Two halves of ``box`` along ``var``; an integer variable is split between two integers
    (the reals strictly between them are not in the region), so its pieces shrink to single
    integers; a side with no integer left is dropped."""
    v = box[var]
    m = _mid(v)
    left, right = dict(box), dict(box)
    if integer and mpmath.isfinite(_f(v.a)) and mpmath.isfinite(_f(v.b)):
        a, b = mpmath.ceil(_f(v.a)), mpmath.floor(_f(v.b))
        if a >= b:
            left[var] = iv.mpf([a, a])
            return [left] if a == b else []
        m = mpmath.floor((a + b) / 2)
        left[var] = iv.mpf([a, m])
        right[var] = iv.mpf([m + 1, b])
        return [right, left]
    left[var] = iv.mpf([v.a, m])
    right[var] = iv.mpf([m, v.b])
    return [right, left]


def describe_box(box, problem: Problem) -> str:
    return ", ".join(f"{s} in [{mpmath.nstr(_f(v.a), 8)}, {mpmath.nstr(_f(v.b), 8)}]" for s, v in box.items())
