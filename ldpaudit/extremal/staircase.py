"""Optimal ε-LDP mechanisms for sublinear utilities, by a linear program over staircase
patterns, with a certificate checked in exact and interval arithmetic.

Kairouz, Oh & Viswanath, "Extremal mechanisms for local differential privacy" (JMLR 2016,
Theorem 2 and Section 3.1): when the utility of a mechanism Q on d inputs is a sum over its
outputs U(Q) = Σ_y μ(Q_y) of a sublinear μ (positively homogeneous and convex; mutual information
under a fixed prior is one), some optimal ε-LDP mechanism has every output column proportional to a
staircase pattern S ∈ {1, e^ε}^d, and the optimum is the linear program

    maximize Σ_j μ(S_j) θ_j   subject to   Σ_j S_j θ_j = 1 (each input's row sums to 1),  θ ≥ 0

over the 2^d patterns; the optimal mechanism has the columns θ_j S_j with θ_j > 0.

How the optimum is proved (:func:`certify`): a float LP (HiGHS) only finds the support and a dual
guess. Then, with t = e^ε an indeterminate,
* primal: the weights on the support solve S_P θ = 1 exactly in Q(t) (a rational function of t
  each; the identity S_P θ = 1 is checked exactly, so it holds at t = e^ε), and each weight's sign
  at t = e^ε is decided from an enclosure of e^ε (a zero polynomial is an exact 0). So θ is
  feasible and the enclosure of its utility Σ μ_j θ_j gives a proved lower bound L;
* dual: a rational vector y (the float dual refined at high precision, then raised by a proved
  margin) with S_j·y ≥ μ(S_j) for every one of the 2^d patterns, checked with enclosures of the
  logarithms in μ. By weak duality every feasible θ has Σ μ_j θ_j ≤ Σ_j θ_j S_j·y = Σ_x y_x, so
  the exact rational U = Σ_x y_x is a proved upper bound.
The optimum lies in [L, U]; the report gives both ends and the width. A check that cannot decide
(a sign not separated from 0 at the largest precision) is UNKNOWN, never a pass.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

from ldpaudit.errors import InvalidParameter, LdpAuditError
from ldpaudit.extremal import enclosure as enc

#: objective name -> what it maximizes. The f-divergences are between the output laws P0·Q and P1·Q
#: of two input distributions (--prior P0, --alternative P1): the utility of a mechanism for telling
#: the two hypotheses apart. Each is Σ_y m1_y f(m0_y/m1_y) with f convex, a perspective, so sublinear
#: in the column Q_y: the staircase theorem applies to all of them.
OBJECTIVES = {"mi": "mutual information I(X;Y) (nats, X drawn from the prior)",
              "kl": "KL divergence D(P0·Q || P1·Q) (nats)",
              "tv": "total variation distance TV(P0·Q, P1·Q)",
              "chi2": "χ² divergence χ²(P0·Q || P1·Q)",
              "hellinger": "squared Hellinger distance H²(P0·Q, P1·Q) = ½ Σ_y (√(P0·Q)_y - √(P1·Q)_y)²"}
#: the objectives that compare two input distributions
DIVERGENCES = ("kl", "tv", "chi2", "hellinger")
#: 2^d patterns: d = 16 is 65,536 columns; past that the LP is not attempted
MAX_D = 16
#: the largest ε the float search of the LP resolves: past e^34 ≈ 5.8e14, 1 and e^ε in one
#: pattern column lose their float precision and HiGHS reports a model error
MAX_EPSILON = 34
T = sp.Symbol("t", positive=True)


@dataclass(frozen=True)
class Problem:
    """The staircase LP of one objective at one (d, ε, prior)."""

    d: int
    epsilon: sp.Basic                 # exact
    prior: tuple[Fraction, ...]       # exact, sums to 1 (P0 for a divergence)
    objective: str = "mi"
    alternative: tuple[Fraction, ...] | None = None   # P1, for a divergence only

    @property
    def uniform(self) -> bool:
        return len(set(self.prior)) == 1

    @property
    def t(self) -> sp.Basic:
        return sp.exp(self.epsilon)

    def describe(self) -> str:
        prior = "uniform" if self.uniform else "(" + ", ".join(str(p) for p in self.prior) + ")"
        text = f"{self.objective} at d = {self.d}, ε = {sp.sstr(self.epsilon)}, prior {prior}"
        if self.alternative is not None:
            text += " against (" + ", ".join(str(p) for p in self.alternative) + ")"
        return text


def problem(d, epsilon, *, prior="uniform", objective: str = "mi", alternative=None) -> Problem:
    """Validate the inputs of the LP; bad input raises :class:`InvalidParameter` naming it."""
    if objective not in OBJECTIVES:
        raise InvalidParameter(f"--objective {objective!r} is unknown; objectives: {', '.join(OBJECTIVES)}")
    try:
        d_int = int(sp.Integer(d)) if not isinstance(d, bool) else None
    except (TypeError, ValueError):
        d_int = None
    if d_int is None or sp.sympify(d) != d_int:
        raise InvalidParameter(f"d = {d!r} is not an integer; give the number of inputs, e.g. -p d=6")
    if d_int < 2:
        raise InvalidParameter(f"d = {d_int} must be at least 2 (a mechanism on one input reveals nothing)")
    if d_int > MAX_D:
        raise InvalidParameter(f"d = {d_int} gives 2^{d_int} staircase patterns; the LP is limited to d <= {MAX_D}")
    eps = sp.sympify(epsilon)
    if not eps.is_real or eps.free_symbols:
        raise InvalidParameter(f"epsilon = {sp.sstr(eps)} is not a real number; give e.g. -p epsilon=1 or epsilon=log(3)")
    positive = _decide_positive(eps)
    if positive is not True:
        raise InvalidParameter(f"epsilon = {sp.sstr(eps)} must be positive (ε = 0 allows only constant mechanisms)")
    if _decide_positive(eps - MAX_EPSILON) is not False:
        shown = sp.sstr(eps) if len(sp.sstr(eps)) <= 60 else sp.sstr(eps)[:60] + "..."
        raise InvalidParameter(f"epsilon = {shown} is above {MAX_EPSILON}: the LP is searched in floats, where a "
                               f"pattern's entries 1 and e^ε stop fitting one float's precision (e^34 ≈ 5.8e14); "
                               f"give -p epsilon={MAX_EPSILON} or less")
    weights = _distribution(prior, d_int, "--prior")
    other = None
    if objective in DIVERGENCES:
        if alternative is None:
            raise InvalidParameter(f"--alternative is missing: --objective {objective} compares the output laws of two "
                                   f"input distributions; give the second, e.g. --alternative uniform or d weights")
        other = _distribution(alternative, d_int, "--alternative")
        if other == weights:
            raise InvalidParameter(f"--alternative equals --prior: every mechanism has {objective} 0 between them; "
                                   "give two different distributions")
    elif alternative is not None:
        raise InvalidParameter(f"--alternative is for the divergences ({', '.join(DIVERGENCES)}), not --objective "
                               f"{objective}; drop it")
    return Problem(d_int, eps, weights, objective, other)


def _distribution(value, d: int, option: str) -> tuple[Fraction, ...]:
    """``uniform`` or d exact non-negative weights summing to 1; bad input names ``option``."""
    if isinstance(value, str) and value == "uniform":
        return (Fraction(1, d),) * d
    weights = tuple(_fraction(p, option.lstrip("-")) for p in value)
    if len(weights) != d:
        raise InvalidParameter(f"{option} has {len(weights)} weights; d = {d} needs {d}")
    if any(w < 0 for w in weights):
        raise InvalidParameter(f"{option} weight {min(weights)} is negative; weights are probabilities")
    if sum(weights) != 1:
        raise InvalidParameter(f"{option} weights sum to {sum(weights)}; they must sum to 1")
    return weights


def _fraction(value, name) -> Fraction:
    if isinstance(value, Fraction):
        return value
    v = sp.sympify(value)
    if not v.is_Rational:
        raise InvalidParameter(f"{name} weight {sp.sstr(v)} is not an exact rational; write e.g. 1/3")
    return Fraction(int(v.p), int(v.q))


def _decide_positive(eps: sp.Basic) -> bool | None:
    if eps.is_positive is not None:
        return bool(eps.is_positive)
    with enc.precision(enc.DEFAULT_BITS):
        s = enc.sign(enc.enclose(eps))
    return None if s is None else s > 0


# --- the patterns and their utility ---------------------------------------------------------


def _subset_sums(weights, d):
    """For every pattern (bit x set = entry e^ε for input x): the mass ``weights`` put on its
    e^ε entries, exact (Fractions); a subset sum over the lowest set bit."""
    n = 1 << d
    exact = [Fraction(0)] * n
    for mask in range(1, n):
        low = mask & -mask
        exact[mask] = exact[mask ^ low] + weights[low.bit_length() - 1]
    return exact


def _mass_tables(problem: Problem):
    """Each pattern's key for μ: the prior mass of its e^ε entries (mutual information), or the
    pair of masses (P0, P1) of its e^ε entries (a divergence). Patterns with equal keys have equal μ."""
    first = _subset_sums(problem.prior, problem.d)
    if problem.alternative is None:
        return first
    return list(zip(first, _subset_sums(problem.alternative, problem.d)))


def _mu(objective: str, key, t, eps, num, log, sqrt):
    """μ(S) of a pattern S from its key, in any arithmetic: ``num`` turns an exact Fraction into
    the arithmetic's number, ``log``/``sqrt`` are its functions (numpy, mpmath mp, mpmath iv).

    An entry of S is e^ε on the inputs of mass a (under P0; b under P1) and 1 on the rest, so
    m0 = P0·S = a e^ε + 1 - a and m1 = b e^ε + 1 - b. Mutual information: Σ_x P_x S_x ln(S_x/m0)
    = a e^ε (ε - ln m0) - (1 - a) ln m0. Divergences: :func:`divergence_term`."""
    if objective == "mi":
        a = key
        m0 = num(a) * t + num(1 - a)
        log_m = log(m0)
        return num(a) * t * (eps - log_m) - num(1 - a) * log_m
    a, b = key
    return divergence_term(objective, num(a) * t + num(1 - a), num(b) * t + num(1 - b), log, sqrt)


def divergence_term(objective: str, m0, m1, log, sqrt):
    """One output's term m1 f(m0/m1) of a divergence objective, in any arithmetic:
    f(u) = u ln u (KL), |u - 1|/2 (TV), (u - 1)² (χ²), (√u - 1)²/2 (squared Hellinger)."""
    if objective == "kl":
        return m0 * (log(m0) - log(m1))
    if objective == "tv":
        return abs(m0 - m1) / 2
    if objective == "chi2":
        return (m0 - m1) ** 2 / m1
    if objective == "hellinger":
        return (sqrt(m0) - sqrt(m1)) ** 2 / 2
    raise ValueError(objective)


def utility_enclosure(problem: Problem, key, t, eps):
    """An enclosure of μ(S) for a pattern with this key (see :func:`_mass_tables`, :func:`_mu`)."""
    return _mu(problem.objective, key, t, eps, enc.exact, enc.iv.log, enc.iv.sqrt)


def _utility_float(problem: Problem, keys, t: float, eps: float):
    """μ of every pattern in float64 (numpy arrays through :func:`_mu`), for the LP search only."""
    import numpy as np

    if problem.alternative is None:
        key = np.asarray(keys, dtype=float)
    else:
        key = (np.asarray([k[0] for k in keys], dtype=float), np.asarray([k[1] for k in keys], dtype=float))
    from ldpaudit import portable

    # portable.log: numpy's vectorized log differs in the last bit between CPUs, and so would the
    # LP's input, its dual and the certificate projected from it
    return _mu(problem.objective, key, t, eps, lambda v: v, portable.log, np.sqrt)


# --- result -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """One output of the optimal mechanism: Q(y|x) = θ·(e^ε if x in ``high`` else 1)."""

    pattern: int                      # bitmask of the inputs with entry e^ε
    weight: sp.Basic                  # θ, exact, in exp(ε)

    def entry(self, x: int, t) -> sp.Basic:
        return self.weight * (t if self.pattern >> x & 1 else 1)


@dataclass(frozen=True)
class Optimum:
    """A certified optimum: PROVED with lower <= optimum <= upper, or UNKNOWN with a reason."""

    problem: Problem
    status: str                       # "PROVED" | "UNKNOWN"
    lower: Fraction | None = None
    upper: Fraction | None = None
    columns: tuple[Column, ...] = ()
    dual: tuple[Fraction, ...] = ()
    float_value: float | None = None
    reason: str = ""
    seconds: dict = field(default_factory=dict, compare=False)
    bits: int = enc.DEFAULT_BITS

    @property
    def width(self) -> Fraction | None:
        return None if self.lower is None else self.upper - self.lower

    @property
    def value(self) -> float | None:
        return None if self.lower is None else float((self.lower + self.upper) / 2)

    def channel_matrix(self) -> list[list[sp.Basic]]:
        t = self.problem.t
        return [[c.entry(x, t) for c in self.columns] for x in range(self.problem.d)]


# --- the float LP -----------------------------------------------------------------------------


@dataclass(frozen=True)
class FloatSolution:
    value: float
    theta: object                     # numpy array over all patterns
    dual: object                      # numpy array, one per input
    utilities: object
    matrix: object


def solve_float(problem: Problem) -> FloatSolution:
    """The LP in float64 with HiGHS (scipy): the search only, nothing is concluded from it."""
    import numpy as np
    from scipy.optimize import linprog

    d = problem.d
    t = float(sp.N(problem.t, 30))
    eps = float(sp.N(problem.epsilon, 30))
    c = _utility_float(problem, _mass_tables(problem), t, eps)
    masks = np.arange(1 << d)
    S = np.where((masks[None, :] >> np.arange(d)[:, None]) & 1, t, 1.0)
    res = linprog(-c, A_eq=S, b_eq=np.ones(d), bounds=(0, None), method="highs")
    if res.status != 0:
        raise LdpAuditError(f"the float LP for {problem.describe()} failed: {res.message}")
    return FloatSolution(-res.fun, res.x, -np.asarray(res.eqlin.marginals), c, S)


# --- exact primal -----------------------------------------------------------------------------


def _field(problem: Problem):
    """Q when e^ε is rational (ε = log of a rational), else Q(t) with t an indeterminate."""
    from sympy.polys.domains import QQ

    t = problem.t
    if t.is_Rational:
        return QQ, QQ.convert(t)
    K = QQ.frac_field(T)
    return K, K.convert(T)


def exact_weights(problem: Problem, patterns) -> list | None:
    """The weights θ on ``patterns`` with Σ θ_j S_j = 1 exactly (in Q(t) or Q), or None when the
    patterns admit no such solution. Normal equations, then the identity itself is checked."""
    from sympy.polys.matrices import DomainMatrix

    K, t = _field(problem)
    d = problem.d
    S = DomainMatrix([[t if p >> x & 1 else K.one for p in patterns] for x in range(d)], (d, len(patterns)), K)
    ones = DomainMatrix([[K.one] for _ in range(d)], (d, 1), K)
    St = S.transpose()
    try:
        theta = (St * S).lu_solve(St * ones)
    except Exception:  # singular normal equations: the patterns are linearly dependent
        return None
    if S * theta != ones:
        return None
    return [theta[i, 0].element for i in range(len(patterns))]


def _weight_enclosure(K, value, t_iv):
    """An enclosure of an element of Q or Q(t) at t = e^ε; None when it is exactly 0."""
    from sympy.polys.domains import QQ

    if K == QQ:
        q = Fraction(int(value.numerator), int(value.denominator)) if hasattr(value, "numerator") else Fraction(str(value))
        return None if q == 0 else enc.exact(q)
    num, den = K.numer(value), K.denom(value)
    if not num:
        return None
    return _poly_at(num, t_iv) / _poly_at(den, t_iv)


def _poly_at(poly, t_iv):
    terms = dict(poly.terms())                      # (degree,) -> rational coefficient
    top = max(deg for (deg,) in terms)
    total = enc.iv.mpf(0)
    for deg in range(top, -1, -1):                   # Horner
        coeff = terms.get((deg,), 0)
        total = total * t_iv + enc.exact(Fraction(int(coeff.numerator), int(coeff.denominator)) if coeff else Fraction(0))
    return total


def _weight_expr(K, value, problem: Problem) -> sp.Basic:
    expr = K.to_sympy(value)
    return sp.factor(expr.subs(T, problem.t)) if expr.free_symbols else expr


# --- the certificate ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DualCheck:
    ok: bool
    worst_pattern: int                # the pattern of least slack S_j·y - μ_j
    worst_slack_lower: Fraction       # proved lower end of that slack
    undecided: int = 0                # patterns whose slack's enclosure contains 0


def _constants(problem: Problem):
    eps = enc.enclose(problem.epsilon)
    t = enc.exact(Fraction(int(problem.t.p), int(problem.t.q))) if problem.t.is_Rational else enc.iv.exp(eps)
    return eps, t


def check_dual(problem: Problem, y) -> DualCheck:
    """Is S_j·y >= μ(S_j) for every pattern j? ``y`` exact rationals, μ enclosed; at the current
    precision. Then Σ y is a proved upper bound on the optimum (weak duality)."""
    d = problem.d
    y = [Fraction(v) for v in y]
    eps, t = _constants(problem)
    masses = _mass_tables(problem)
    utilities: dict = {}
    total = sum(y)
    high = [Fraction(0)] * (1 << d)          # Σ of y over the e^ε entries of each pattern
    worst, worst_lower, undecided, ok = 0, None, 0, True
    for mask in range(1 << d):
        if mask:
            low = mask & -mask
            high[mask] = high[mask ^ low] + y[low.bit_length() - 1]
        mu = utilities.get(masses[mask])
        if mu is None:
            mu = utilities[masses[mask]] = utility_enclosure(problem, masses[mask], t, eps)
        slack = enc.exact(total - high[mask]) + enc.exact(high[mask]) * t - mu
        lo = enc.lower(slack)
        if worst_lower is None or lo < worst_lower:
            worst, worst_lower = mask, lo
        if lo < 0:
            ok = False
            if enc.upper(slack) >= 0:
                undecided += 1
    return DualCheck(ok, worst, worst_lower, undecided)


def _to_fraction(x) -> Fraction:
    from mpmath.libmp import to_rational

    if hasattr(x, "_mpf_"):
        return Fraction(*to_rational(x._mpf_))
    return Fraction(x)


def _refine_dual(problem: Problem, sol: FloatSolution, bits: int) -> list[Fraction]:
    """The float dual, refined at high precision so that every pattern of zero reduced cost is
    tight to many more digits: re-solved on d linearly independent such patterns when there are d
    (the same vertex), else projected onto their affine subspace (a degenerate LP, e.g. two outputs
    on ten inputs: the other coordinates keep the float dual's slack). The float dual itself when
    the solve fails."""
    import numpy as np
    from mpmath import mp

    d = problem.d
    from ldpaudit import portable

    # the same order on every CPU: reduced costs summed in a fixed order (not BLAS), ties (many,
    # by symmetry) kept in index order by a stable sort (numpy's default sort is vectorized and
    # orders equal keys differently on AVX-512)
    reduced = portable.matmul(sol.matrix.T, np.asarray(sol.dual)[:, None])[:, 0] - sol.utilities
    scale = max(1.0, float(np.max(np.abs(sol.utilities))))
    active = [int(j) for j in np.argsort(reduced, kind="stable") if reduced[j] <= 1e-9 * scale]
    active.sort(key=lambda j: -sol.theta[j])          # the support first
    chosen, basis = [], np.zeros((0, d))
    for j in active:
        row = sol.matrix[:, j]
        trial = np.vstack([basis, row])
        if np.linalg.matrix_rank(trial, tol=1e-9) > len(chosen):
            chosen.append(j)
            basis = trial
        if len(chosen) == d:
            break
    if not chosen:
        return [Fraction(float(v)) for v in sol.dual]
    masses = _mass_tables(problem)
    old = mp.prec
    mp.prec = bits
    try:
        t = mp.exp(mp.mpf(_mp_value(problem.epsilon)))
        eps = mp.log(t)
        A = mp.matrix([[t if (j >> x) & 1 else mp.mpf(1) for x in range(d)] for j in chosen])
        b = mp.matrix([_mu(problem.objective, masses[j], t, eps, _mp_fraction, mp.log, mp.sqrt) for j in chosen])
        if len(chosen) == d:
            y = mp.lu_solve(A, b)
        else:                                         # y0 + A^T (A A^T)^-1 (b - A y0)
            y0 = mp.matrix([mp.mpf(float(v)) for v in sol.dual])
            y = y0 + A.T * mp.lu_solve(A * A.T, b - A * y0)
        return [_to_fraction(y[i]) for i in range(d)]
    except ZeroDivisionError:
        return [Fraction(float(v)) for v in sol.dual]
    finally:
        mp.prec = old


def _mp_value(expr: sp.Basic):
    from mpmath import mp

    return mp.mpf(str(sp.N(expr, int(mp.prec * 0.302) + 10)))


def _mp_fraction(q: Fraction):
    from mpmath import mp

    return mp.mpf(q.numerator) / q.denominator


def certify(problem: Problem, *, bits: int = enc.DEFAULT_BITS) -> Optimum:
    """Solve the LP in floats, then prove the optimum to within the reported [lower, upper]."""
    clock = {}
    start = time.perf_counter()
    sol = solve_float(problem)
    clock["float_lp"] = time.perf_counter() - start
    support = [int(j) for j in range(len(sol.theta)) if sol.theta[j] > 1e-9 * max(1.0, float(sol.theta.max()))]
    start = time.perf_counter()
    K, _ = _field(problem)
    weights = exact_weights(problem, support)
    clock["exact_primal"] = time.perf_counter() - start
    if weights is None:
        return Optimum(problem, "UNKNOWN", float_value=sol.value, seconds=clock,
                       reason=f"the float LP's support ({len(support)} patterns) has no exact solution of S θ = 1")
    start = time.perf_counter()
    while True:
        with enc.precision(bits):
            outcome = _certify_at(problem, sol, support, K, weights, bits)
        if outcome is not None or bits >= enc.MAX_BITS:
            break
        bits *= 2
    clock["certificate"] = time.perf_counter() - start
    if outcome is None or isinstance(outcome, str):
        return Optimum(problem, "UNKNOWN", float_value=sol.value, seconds=clock, bits=bits,
                       reason=outcome or f"a sign stayed undecided at {bits} bits")
    lower, upper, columns, dual = outcome
    return Optimum(problem, "PROVED", lower, upper, columns, dual, sol.value, seconds=clock, bits=bits)


def _certify_at(problem, sol, support, K, weights, bits):
    """One attempt at ``bits``: None to retry at a higher precision, a str for UNKNOWN."""
    eps, t = _constants(problem)
    masses = _mass_tables(problem)
    value = enc.iv.mpf(0)
    columns = []
    for pattern, w in zip(support, weights):
        w_iv = _weight_enclosure(K, w, t)
        if w_iv is None:
            continue                                    # exactly 0: not an output
        s = enc.sign(w_iv)
        if s is None:
            return None
        if s < 0:
            return (f"the exact weight of pattern {pattern:0{problem.d}b} is negative at e^ε: the float LP's "
                    "support is not a feasible basis")
        value = value + w_iv * utility_enclosure(problem, masses[pattern], t, eps)
        columns.append(Column(pattern, _weight_expr(K, w, problem)))
    y = _refine_dual(problem, sol, bits)
    first = check_dual(problem, y)
    if not first.ok:
        # raise every y_x by the same margin: each pattern's S_j·1 >= d, so slack grows >= d·margin
        margin = -first.worst_slack_lower / problem.d * 2 + Fraction(1, 2**(bits // 2))
        y = [v + margin for v in y]
    check = check_dual(problem, y)
    if not check.ok:
        return None
    return enc.lower(value), sum(y), tuple(columns), tuple(y)


def recheck(opt: Optimum) -> list[str]:
    """Re-check a PROVED optimum from its parts alone (the mechanism's weights, the dual vector
    and the two ends): rows sum to 1 exactly, weights positive, S_j·y >= μ(S_j) on every
    pattern, lower <= the mechanism's utility and upper = Σ y. Returns the failures (empty: ok)."""
    p = opt.problem
    failures = []
    t = p.t
    for x in range(p.d):
        total = sp.Add(*(c.entry(x, t) for c in opt.columns))
        if sp.simplify(total - 1) != 0:
            failures.append(f"row x = {x} sums to {sp.sstr(sp.simplify(total))}, not 1")
    with enc.precision(opt.bits):
        eps, t_iv = _constants(p)
        masses = _mass_tables(p)
        value = enc.iv.mpf(0)
        for c in opt.columns:
            w = enc.enclose(c.weight)
            if enc.sign(w) != 1:
                failures.append(f"weight of pattern {pattern_text(c.pattern, p.d)} is not proved positive")
            value = value + w * utility_enclosure(p, masses[c.pattern], t_iv, eps)
        if enc.upper(value) < opt.lower:
            failures.append(f"the mechanism's utility is below the stated lower end {float(opt.lower)!r}")
        if sum(opt.dual) != opt.upper:
            failures.append("the stated upper end is not the sum of the dual vector")
        check = check_dual(p, opt.dual)
        if not check.ok:
            failures.append(f"dual infeasible at pattern {pattern_text(check.worst_pattern, p.d)}: "
                            f"S·y - μ >= {float(check.worst_slack_lower):.3g} is all that is proved")
    return failures


# --- the mechanism as a spec -------------------------------------------------------------------


def mechanism(opt: Optimum):
    """The certified optimal mechanism as a numeric explicit channel (inputs 0..d-1, outputs
    0..m-1: output j is the j-th pattern of the support)."""
    from ldpaudit.mechanism.core import Mechanism
    from ldpaudit.mechanism.explicit import ExplicitChannel
    from ldpaudit.mechanism.spaces import FiniteDomain

    p = opt.problem
    matrix = tuple(tuple(row) for row in opt.channel_matrix())
    channel = ExplicitChannel(tuple(range(p.d)), tuple(range(len(opt.columns))), matrix)
    name = f"{p.objective.upper() if p.objective != 'hellinger' else 'Hellinger'}-optimal staircase " \
           f"(d = {p.d}, ε = {sp.sstr(p.epsilon)})"
    source = ("ldpaudit optimize: Kairouz, Oh & Viswanath (JMLR 2016) staircase LP, certified optimum in "
              f"[{float(opt.lower):.15g}, {float(opt.upper):.15g}]")
    laws = f"prior {'uniform' if p.uniform else list(map(str, p.prior))}"
    if p.alternative is not None:
        laws = f"P0 = {'uniform' if p.uniform else list(map(str, p.prior))}, P1 = {list(map(str, p.alternative))}"
    return Mechanism(name, (), FiniteDomain(sp.Integer(p.d)), channel, p.epsilon,
                     description=f"optimal ε-LDP mechanism for {OBJECTIVES[p.objective]}, {laws}",
                     source=source)


def pattern_text(pattern: int, d: int) -> str:
    """A pattern as people read it: one letter per input, t for e^ε, 1 for 1."""
    return "".join("t" if pattern >> x & 1 else "1" for x in range(d))


__all__ = ["OBJECTIVES", "DIVERGENCES", "divergence_term", "Problem", "problem", "Optimum", "Column", "certify", "check_dual", "solve_float",
           "exact_weights", "mechanism", "recheck", "pattern_text", "utility_enclosure"]
