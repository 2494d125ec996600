"""Deciding a claim over a whole region: rigorous interval branch-and-bound.

The claim ``lhs <= rhs`` becomes goals ``g >= 0`` (``g = rhs - lhs``), one per way of
choosing an argument of every ``Min``/``Max`` (proving all of them proves the claim, since a
minimum is one of its arguments). A bound parameter ``k = ceiling(a)`` is relaxed to
``k = a + θ`` with θ in [0, 1] (a claim proved for every θ holds at the integer); integer
parameters are relaxed to reals (the same argument). Optional prover coordinates (a change
of variables declared in the claims file, checked to be inverse to each other) make an
unbounded region compact: Ye & Barg's region ``3.8 < ε < ln(d/9)`` over all d becomes the
box ``q = e^(-ε/2) in (0, e^-1.9)``, ``s = e^ε/d in (0, 1/9)``.

The box is split until on every piece either the region's relations are shown false (the
piece is outside) or every goal's enclosure is >= 0 (mpmath interval arithmetic, outward
rounding). One-dimensional claims that touch an end of their range with equality (Wang's
I ≤ ε²/8 at ε → 0, where the two sides agree to fourth order) use a monotonicity argument:
the limit of g at the end is computed symbolically and shown to be 0 exactly, and g' (as the
numerator of a single fraction, when its denominator is shown positive) is proved >= 0 on the
piece by the same procedure, recursively. An unbounded piece [X, ∞) is decided by
evaluating g with e^ε replaced by an independent w in [0, e^-X] (sound: a box containing the
curve), or by g(X) >= 0 and g' >= 0 on [X, ∞).

A refutation is only ever a point of the original parameters (integers rounded, reals
rational) at which the region's relations and the negated claim are checked exactly, the
binding computed exactly. Everything the procedure cannot close within its budget is
reported as UNKNOWN with the pieces that are left.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import sympy as sp
from mpmath import iv

from ldpaudit.theorems import forms, intervals
from ldpaudit.theorems.claims import Claim, ClaimsFile, bounds_of

PROVED, REFUTED, UNKNOWN = "PROVED", "REFUTED", "UNKNOWN"
MAX_EXACT_CHECKS = 400
MAX_DERIVATIVE_DEPTH = 6
MAX_SUB_BOXES = 400
MAX_TAIL_DEPTH = 3
REFINE_LEVEL = 3
IMPLIED_SECONDS = 5.0
WIDEN = 8                       # a piece at most 8 of its widths from a range end is widened to reach it
SMEAR_AFTER = 16                # bisection by relative width first: the smear rule needs derivatives
SCAN_POINTS = 256
MAX_SCAN_CHECKS = 24


@dataclass(frozen=True)
class Witness:
    point: dict               # parameter name -> exact value (text)
    lhs: str                  # exact expression of each side at the point
    rhs: str
    lhs_value: str            # decimals (20 digits)
    rhs_value: str
    part: str                 # which inequality of the statement fails


@dataclass(frozen=True)
class ClaimResult:
    name: str
    statement: str
    status: str
    reason: str
    seconds: float
    boxes: int
    witness: Witness | None = None
    left: tuple = ()
    note: str = ""
    method: str = ""

    @property
    def exit_code(self) -> int:
        return {PROVED: 0, REFUTED: 1}.get(self.status, 3)

    def as_dict(self) -> dict:
        out = {"name": self.name, "statement": self.statement, "status": self.status, "reason": self.reason,
               "seconds": round(self.seconds, 3), "boxes": self.boxes, "method": self.method}
        if self.witness is not None:
            out["witness"] = self.witness.__dict__
        if self.left:
            out["left"] = list(self.left)
        if self.note:
            out["note"] = self.note
        return out


# --- preparing goals ------------------------------------------------------------------------


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


def _log_expand(e: sp.Basic) -> sp.Basic:
    """log(a*b/c) -> log a + log b - log c and log(exp(x)) -> x (positive arguments)."""
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


# --- the problem in prover coordinates ------------------------------------------------------


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


# --- the search -----------------------------------------------------------------------------


class _OutOfTime(Exception):
    pass


class _cpu_limit:
    """Interrupt a sympy call (limit, simplify) that outlives the claim's CPU budget: a
    profiling timer (SIGPROF) in the main thread; elsewhere no limit is set."""

    def __init__(self, seconds: float):
        self.seconds = max(seconds, 0.01)

    def __enter__(self):
        import signal
        import threading

        self.active = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
        if self.active:
            def fire(signum, frame):
                raise _OutOfTime()

            # nested in another limit: never outlive it, and hand back what is left of it on exit
            self.outer = signal.getitimer(signal.ITIMER_PROF)[0]
            self.start = time.process_time()
            self.old = signal.signal(signal.SIGPROF, fire)
            signal.setitimer(signal.ITIMER_PROF, min(self.seconds, self.outer) if self.outer > 0 else self.seconds)
        return self

    def __exit__(self, *exc):
        if self.active:
            import signal

            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, self.old)
            if self.outer > 0:
                signal.setitimer(signal.ITIMER_PROF, max(self.outer - (time.process_time() - self.start), 0.001))
        return exc[0] is _OutOfTime


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


def _f(x):
    return mpmath.mpf(x)


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


def prove_claim(cf: ClaimsFile, claim: Claim, *, seconds: float = 60.0) -> ClaimResult:
    start = time.process_time()
    try:
        problem = Problem(cf, claim)
    except intervals.Unsupported as exc:
        return ClaimResult(claim.name, claim.text, UNKNOWN, f"cannot enclose the claim: {exc}",
                           time.process_time() - start, 0, note=claim.note)
    if problem.identity:
        return ClaimResult(claim.name, claim.text, PROVED, "both sides are the same function (sympy simplifies the "
                           "difference to 0)", time.process_time() - start, 0, note=claim.note,
                           method="symbolic identity")
    search = Search(problem, seconds=seconds)
    status, reason, witness, left = search.run()
    methods = ["interval branch-and-bound (mpmath iv, outward rounding)"]
    if problem.thetas:
        methods.append("floor/ceiling relaxed to a + θ, θ in [0, 1]")
    if cf.coordinates:
        methods.append("coordinates " + ", ".join(f"{s} = {v}" for s, v in cf.coordinates.forward.items()))
    methods.extend(sorted(search.methods))
    shown_left = tuple(f"{describe_box(b, problem)}: {why}" for b, why in left[:8])
    if len(left) > 8:
        shown_left += (f"... and {len(left) - 8} more",)
    return ClaimResult(claim.name, claim.text, status, reason, time.process_time() - start, search.boxes, witness,
                       shown_left, claim.note, "; ".join(methods))


def prove_file(cf: ClaimsFile, *, seconds: float = 60.0) -> list[ClaimResult]:
    return [prove_claim(cf, c, seconds=seconds) for c in cf.claims]
