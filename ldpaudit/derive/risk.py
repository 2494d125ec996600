"""Variances, ℓ2² and ℓ1 risks, their worst cases over the simplex, and effective sample
sizes, under either sampling model.

Sampling models (the result always says which one it uses):

* ``iid`` (Kairouz et al., Ye & Barg): each user's input is drawn from p, so a user's
  statistic T_j is a draw from the mixture p_j·law(T | x=j) + (1-p_j)·law(T | x≠j) and
  Var F_j = n (E[T_j²] - E[T_j]²).
* ``fixed`` (Wang et al.): n p_j users hold j and only the randomizer is random, so
  Var F_j = n p_j Var(T | x=j) + n (1-p_j) Var(T | x≠j).

Per-coordinate variances are quadratics α + β p_j + γ p_j²; the total ℓ2² risk is
dα + β + γ Σ p_j², and since 1/d ≤ Σ p_j² ≤ 1 on the simplex (Cauchy-Schwarz), its
supremum is at the uniform p when γ ≤ 0. The large-n ℓ1 risk is Σ_j E|N(0, Var_j)| =
Σ_j sqrt(2 Var_j/π) (the half-normal mean, integrated here), a symmetric sum of concave
functions when γ ≤ 0, hence maximal at the uniform p as well (Jensen).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import sympy as sp
from sympy.polys.matrices import DomainMatrix

from ldpaudit.derive.algebra import (
    factor_cancelled,
    F_J,
    N_USERS,
    P_J,
    numeric,
    positive_sqrt,
    simplify,
)
from ldpaudit.errors import NotDerivable
from ldpaudit.derive.estimator import HitEstimator, MatrixEstimator
from ldpaudit.derive.statistic import ItemStatistic
from ldpaudit.errors import InvalidParameter

MODELS = ("iid", "fixed")
MODEL_NAMES = {
    "iid": "i.i.d. inputs (each user's input drawn from p; Kairouz et al., Ye & Barg)",
    "fixed": "fixed population (n p_j users hold j; only the randomizer is random; Wang et al.)",
}
MODEL_SHORT = {"iid": "i.i.d. model", "fixed": "fixed-population model"}
#: Σ_j p_j², the only way the total ℓ2² risk depends on p
S2 = sp.Symbol("S_2", positive=True)


def check_model(model: str) -> str:
    if model not in MODELS:
        raise InvalidParameter(f"sampling model {model!r} is unknown; use 'iid' or 'fixed'")
    return model


@lru_cache(maxsize=1)
def half_normal_mean() -> sp.Basic:
    """E|N(0, σ²)| / σ, by integrating |z| against the normal density: sqrt(2/π)."""
    z = sp.Symbol("z", positive=True)
    density = sp.exp(-z**2 / 2) / sp.sqrt(2 * sp.pi)
    # an antiderivative (by substitution, else heuristic Risch), checked by differentiating it,
    # then F(oo) - F(0); sympy's definite integrator is the fallback
    antiderivative = _antiderivative_by_substitution(z * density, z)
    if antiderivative is None:
        from sympy.integrals.heurisch import heurisch

        antiderivative = heurisch(z * density, z)
    if antiderivative is not None and sp.diff(antiderivative, z) - z * density == 0:
        at_infinity = antiderivative.subs(z, sp.oo)
        if not at_infinity.is_finite:
            at_infinity = sp.limit(antiderivative, z, sp.oo)
        return 2 * (at_infinity - antiderivative.subs(z, 0))
    return sp.simplify(2 * sp.integrate(z * density, (z, 0, sp.oo)))


def _antiderivative_by_substitution(f: sp.Basic, z: sp.Symbol) -> sp.Basic | None:
    """c·e^(g(z)) when ``f`` = c·g'(z)·e^(g(z)) with c free of z (the substitution t = g(z),
    ∫ e^t dt = e^t); None when ``f`` does not have that form."""
    exponentials = [a for a in f.atoms(sp.exp) if a.has(z)]
    if len(exponentials) != 1:
        return None
    (e,) = exponentials
    slope = sp.diff(e.args[0], z)
    if slope == 0:
        return None
    c = sp.cancel(f / (e * slope))
    return None if c.has(z) else c * e


@dataclass(frozen=True)
class Risk:
    """Variance and risks of an unbiased estimator under one sampling model."""

    model: str
    variance: sp.Basic                      # Var(p̂_j) (hit: in p_j; matrix: in p_0..p_{d-1}, per j below)
    total: sp.Basic                         # Σ_j Var(p̂_j) (hit: in S_2 = Σ p_j²; matrix: in the p_i)
    l2_worst: sp.Basic
    l2_argmax: str
    l2_reason: str
    l1_worst: sp.Basic
    l1_argmax: str
    l1_reason: str
    per_user_variance: sp.Basic | None = None   # Var(T_j) for one user (hit estimators)
    coefficients: tuple | None = None           # (α, β, γ)
    variances: tuple = field(default=())         # matrix estimators: Var(p̂_j) for each j
    exact_l1: bool = True


def _per_user_variance(stat: ItemStatistic, model: str) -> sp.Basic:
    if model == "iid":
        second = P_J * stat.g2 + (1 - P_J) * stat.h2
        first = P_J * stat.g + (1 - P_J) * stat.h
        return second - first**2
    return P_J * (stat.g2 - stat.g**2) + (1 - P_J) * (stat.h2 - stat.h**2)


def hit_risk(est: HitEstimator, model: str, d: sp.Basic | None = None) -> Risk:
    check_model(model)
    try:
        hash((est, d))
    except TypeError:  # an unhashable estimator: derive without the memory
        return _hit_risk.__wrapped__(est, model, d)
    return _hit_risk(est, model, d)


@lru_cache(maxsize=64)
def _hit_risk(est: HitEstimator, model: str, d: sp.Basic | None) -> Risk:
    stat = est.stat
    d = stat.domain_size if d is None else d
    n = N_USERS
    slope = simplify(sp.diff(est.expression, F_J))          # p̂_j = slope·f_j + const
    per_user = _per_user_variance(stat, model)
    variance = simplify(slope**2 * per_user / n)             # Var f_j = Var(T_j)/n
    coefficients = _coefficients_in(variance * n, P_J)
    if coefficients is None:
        poly = sp.Poly(sp.expand(variance * n), P_J)
        if poly.degree() > 2:
            raise NotDerivable(f"Var(p̂_j) = {variance} is not quadratic in p_j")
        coefficients = [poly.coeff_monomial(P_J**i) for i in range(3)]
    alpha, beta, gamma = (simplify(c / n) for c in coefficients)
    total = simplify(d * alpha + beta) + gamma * S2
    sign = _sign(gamma)
    if sign == 0:
        l2 = simplify(d * alpha + beta)
        arg, why = "every p", "Σ_j Var(p̂_j) = dα + β does not depend on p (γ = 0)"
    elif sign < 0:
        l2 = simplify(d * alpha + beta + gamma / d)
        arg = f"uniform p_j = 1/{d}"
        why = "γ < 0 and Σ_j p_j² ≥ 1/d with equality only at the uniform p (Cauchy-Schwarz)"
    else:
        l2 = simplify(d * alpha + beta + gamma)
        arg, why = "a point mass p = e_j", "γ > 0 and Σ_j p_j² ≤ 1 with equality at the vertices"
    c = half_normal_mean()
    if sign is not None and sign <= 0:
        l1 = d * c * positive_sqrt(variance.subs(P_J, 1 / d))
        l1_arg = f"uniform p_j = 1/{d}"
        l1_why = ("Σ_j sqrt(2 Var(p̂_j)/π) is a symmetric sum of concave functions of p_j (sqrt of a concave "
                  "non-negative quadratic), so by Jensen its maximum over the simplex is at the uniform p")
        exact = True
    else:
        l1 = d * c * positive_sqrt(variance.subs(P_J, 1 / d))
        l1_arg, l1_why, exact = "uniform p (not proved maximal)", "γ > 0: concavity argument does not apply", False
    return Risk(model, variance, total, l2, arg, why, l1, l1_arg, l1_why, per_user, (alpha, beta, gamma),
                exact_l1=exact)


def _coefficients_in(expr: sp.Basic, var: sp.Symbol) -> list[sp.Basic] | None:
    """The coefficients of var^0, var^1, var^2 in ``expr``, a rational function whose
    denominator is free of ``var``, read off its numerator in the polynomial ring (sympy's
    Poly would first build a coefficient domain with e^ε as a generator). Each is the same
    function as Poly's coefficient, and :func:`simplify` is canonical on such functions when
    every exponential is an integer power of one e^a (the same u either way): then the
    simplified coefficients are identical. None otherwise, or when the degree exceeds 2."""
    from ldpaudit.derive.algebra import _fraction, to_exp_base

    expr_u, back = to_exp_base(expr)
    if back and next(iter(back.values())).as_base_exp()[1].as_coeff_Mul()[0] != 1:
        return None  # u = e^(a/L), L > 1: a coefficient with only even powers of u would simplify over u²
    fraction = _fraction(expr_u)
    if fraction is None:
        return None
    ring, (N, D) = fraction
    if var not in ring.symbols:
        return [expr, sp.Integer(0), sp.Integer(0)]
    i = ring.symbols.index(var)
    if D.degree(i) > 0 or N.degree(i) > 2:
        return None
    parts = [ring.zero, ring.zero, ring.zero]
    for monom, c in N.iterterms():
        parts[monom[i]] += ring({monom[:i] + (0,) + monom[i + 1:]: c})
    den = D.as_expr()
    out = [part.as_expr() / den for part in parts]
    return [c.xreplace(back) for c in out] if back else out


def _sign(expr: sp.Basic) -> int | None:
    expr = simplify(expr)
    if expr == 0:
        return 0
    if expr.is_negative:
        return -1
    if expr.is_positive:
        return 1
    value = numeric(expr.subs({s: 3 for s in expr.free_symbols}))
    if value is None:
        return None
    return 0 if value == 0 else (1 if value > 0 else -1)


# --- explicit channels ------------------------------------------------------------------------


def matrix_risk(est: MatrixEstimator, model: str) -> Risk:
    """Variances of p̂ = m̂R from the covariance of the output frequencies m̂:
    iid: Cov = (diag m - mᵀm)/n; fixed: Cov = (diag m - Σ_x p_x Q_xᵀQ_x)/n. With m = pQ,
    R_jᵀ diag(m) R_j = Σ_x p_x S[x, j] for S = Q·(R∘R), and m R_j = Σ_x p_x P[x, j] for P = QR,
    so Var p̂_j = (Σ_x p_x S[x,j] - (Σ_x p_x P[x,j])²)/n (iid) or (Σ_x p_x S[x,j] - Σ_x p_x P[x,j]²)/n
    (fixed). Products are computed exactly over u = e^(ε/L)."""
    check_model(model)
    n = N_USERS
    p = est.p
    d = len(p)
    back = est.back
    Ru = est.Ru
    K = Ru.domain
    Qk = DomainMatrix.from_Matrix(est.Qu).convert_to(K)
    S, P = _products(Qk, Ru)
    # n·Var p̂_j as polynomials in p over the exact field K of the channel's entries
    unit = [tuple(int(i == x) for i in range(d)) for x in range(d)]

    def linear(coefficients):  # Σ_x c_x p_x
        return sp.Poly.from_dict(dict(zip(unit, coefficients)), *p, domain=K)

    variance_polys = []
    for j in range(d):
        first = linear([S[x][j] for x in range(d)])
        if model == "iid":
            second = linear([P[x][j] for x in range(d)]) ** 2
        else:
            second = linear([P[x][j] ** 2 for x in range(d)])
        variance_polys.append(first - second)
    variances_u = [v.as_expr() / n for v in variance_polys]
    total_poly = sum(variance_polys[1:], variance_polys[0])
    total_u = total_poly.as_expr() / n
    uniform = {pi: sp.Rational(1, d) for pi in p}

    def out(e):
        e = factor_cancelled(e)
        return e.xreplace(back) if back else e

    def out_poly(v):  # out(v.as_expr()/n), from v with its denominators cleared first
        e = factor_cancelled(_cleared(v, K) / n, together=False)
        return e.xreplace(back) if back else e

    variances = tuple(out_poly(v) for v in variance_polys)
    total = out_poly(total_poly)
    # the total is quadratic in p: its Hessian and its gradient at the uniform p, exactly in K
    coeff = {m: c for m, c in total_poly.terms()}

    def second_derivative(i, j):
        mono = tuple((i == t) + (j == t) for t in range(d))
        return coeff.get(mono, K.zero) * (2 if i == j else 1)

    diag = second_derivative(0, 0)
    diag_h = sp.cancel(K.to_sympy(diag) / n)
    isotropic = all(second_derivative(i, j) == (diag if i == j else K.zero) for i in range(d) for j in range(d))
    at_uniform = [K.convert(sp.Rational(1, d))] * d
    gradient = [total_poly.diff(pi) for pi in p]
    grad_k = [g.eval(dict(zip(p, at_uniform))) if not g.is_zero else K.zero for g in gradient]
    grad_k = [g.LC() if isinstance(g, sp.Poly) else g for g in grad_k]
    equal_grad = all(g == grad_k[0] for g in grad_k[1:])
    sign = _sign(out(diag_h)) if isotropic else None
    if isotropic and sign is not None and sign <= 0 and equal_grad:
        l2 = out(total_u.subs(uniform))
        if sign < 0:
            arg = "uniform p"
            why = (f"the total risk is a concave quadratic in p (Hessian {sp.sstr(out(diag_h))}·I) whose gradient at "
                   "the uniform p is parallel to (1, ..., 1): the KKT conditions hold there, so it is the maximum")
        else:
            arg = "every p (the risk is constant on the simplex)"
            why = "the total risk is linear in p with equal coefficients, i.e. constant on the simplex"
    elif isotropic and sign is not None and sign <= 0 and not (total.free_symbols - set(p) - {n}):
        point = _maximize_quadratic(total, p, out(diag_h))
        l2 = simplify(total.subs(point))
        arg = "p = (" + ", ".join(sp.sstr(point[pi]) for pi in p) + ")"
        why = ("the total risk is a concave quadratic in p; its maximum over the simplex is the Euclidean "
               "projection of the unconstrained maximizer onto the simplex (exact)")
    elif isotropic and sign == 0:
        values = [out(total_u.subs({q: int(q == pi) for q in p})) for pi in p]
        distinct = []
        for v in values:
            if not any(simplify(v - w) == 0 for w in distinct):
                distinct.append(v)
        l2 = sp.Max(*distinct)
        arg = "a point mass on the input with the largest risk coefficient"
        why = ("the total risk is linear in p (zero Hessian), so its maximum over the simplex is at a vertex: "
               "the largest of the point-mass risks")
    else:
        why = "the worst case of this explicit channel's risk needs numeric parameters (bind them with -p)"
        return Risk(model, variances[0], total, None, "", why, None, "", why, variances=variances, exact_l1=False)
    c = half_normal_mean()
    l1_grad = []
    for pi in p:
        g = sum((sp.diff(v, pi) / sp.sqrt(v) for v in variances_u), sp.Integer(0)).subs(uniform)
        l1_grad.append(g)
    if all(_numerically_equal(g, l1_grad[0], back) for g in l1_grad[1:]):
        l1 = simplify(sum((c * positive_sqrt(out(v.subs(uniform))) for v in variances_u), sp.Integer(0)))
        l1_arg = "uniform p"
        l1_why = ("Σ_j sqrt(2 Var(p̂_j)/π) is concave in p (each Var(p̂_j) is a concave quadratic) and its "
                  "gradient at the uniform p is parallel to (1, ..., 1), so the uniform p maximizes it")
        exact = True
    elif not (total.free_symbols - set(p) - {n}):
        l1_expr = sum((c * sp.sqrt(v) for v in variances), sp.Integer(0))
        l1n, point = _maximize_numeric(l1_expr.subs(n, 1), p)
        l1 = l1n / sp.sqrt(n)
        l1_arg = "p ≈ (" + ", ".join(f"{v:.4g}" for v in point) + ")"
        l1_why = "concave maximization over the simplex, solved numerically (SLSQP)"
        exact = False
    else:
        l1, l1_arg, exact = None, "", False
        l1_why = "the worst-case ℓ1 risk of this explicit channel needs numeric parameters (bind them with -p)"
    return Risk(model, variances[0], total, l2, arg, why, l1, l1_arg, l1_why, variances=variances, exact_l1=exact)


def _products(Qk: DomainMatrix, Ru: DomainMatrix) -> tuple[list, list]:
    """S = Q·(R∘R) and P = QR as lists of field elements. Over a field of rational functions
    both are formed over the polynomial ring from Q = Q'/a and R = R'/b (one gcd per entry at
    the end instead of one per operation): S = Q'(R'∘R')/(a b²), P = Q'R'/(a b)."""
    K = Ru.domain
    if getattr(K, "is_FractionField", False):
        ring = K.get_ring()
        a, Qp = Qk.clear_denoms()
        b, Rp = Ru.clear_denoms()
        Qp, Rp = Qp.convert_to(ring), Rp.convert_to(ring)
        a, b = (K.convert_from(getattr(v, "element", v), ring) if not K.of_type(getattr(v, "element", v))
                else getattr(v, "element", v) for v in (a, b))
        squares = DomainMatrix([[e * e for e in row] for row in Rp.to_list()], Rp.shape, ring)
        S = (Qp * squares).convert_to(K).mul(K.one / (a * b * b)).to_list()
        P = (Qp * Rp).convert_to(K).mul(K.one / (a * b)).to_list()
        return S, P
    Rl, Ql = Ru.to_list(), Qk.to_list()
    d, k = len(Ql), len(Rl)
    S = [[sum((Ql[x][y] * Rl[y][j] ** 2 for y in range(k)), K.zero) for j in range(d)] for x in range(d)]
    P = [[sum((Ql[x][y] * Rl[y][j] for y in range(k)), K.zero) for j in range(d)] for x in range(d)]
    return S, P


def _cleared(v: sp.Poly, K) -> sp.Basic:
    """A polynomial over a field of fractions as one fraction numerator/denominator."""
    if not getattr(K, "is_FractionField", False):
        return v.as_expr()
    den, cleared = v.clear_denoms()
    return cleared.as_expr() / K.to_sympy(K.convert(den)) if den != 1 else cleared.as_expr()


def _numerically_equal(a, b, back) -> bool:
    """Equal as functions: exactly when sympy can tell, else at three sample points."""
    diff = a - b
    try:
        if sp.cancel(sp.together(diff)) == 0:
            return True
    except (TypeError, sp.PolynomialError):
        pass
    syms = sorted(diff.free_symbols, key=str)
    for value in (sp.Rational(3, 2), sp.Rational(7, 3), 5):
        v = sp.N(diff.subs({s: value for s in syms}), 30)
        if v.has(sp.nan, sp.zoo, sp.oo, -sp.oo):  # a sample point outside the domain (e.g. p = q): not shown equal
            return False
        if abs(v) > 1e-20:
            return False
    return True


def project_to_simplex(v: list) -> list:
    """Euclidean projection onto the probability simplex (exact for exact inputs)."""
    u = sorted(v, key=lambda e: float(e), reverse=True)
    total, theta = sp.Integer(0), sp.Integer(0)
    for i, ui in enumerate(u, start=1):
        total += ui
        t = (total - 1) / i
        if float(ui - t) > 0:
            theta = t
    return [sp.Max(e - theta, 0) for e in v]


def _maximize_quadratic(total, p, diag_h):
    total = total.subs(N_USERS, 1)
    diag_h = sp.sympify(diag_h).subs(N_USERS, 1)
    if diag_h == 0:
        best = max(range(len(p)), key=lambda i: float(total.subs({q: int(q == p[i]) for q in p})))
        return {q: sp.Integer(int(q == p[best])) for q in p}
    # total = c + b·p + (diag_h/2)||p||²: maximize <=> project -b/diag_h onto the simplex
    zero = {q: 0 for q in p}
    b = [sp.diff(total, q).subs(zero) for q in p]
    target = [-bi / diag_h for bi in b]
    proj = project_to_simplex(target)
    return {q: simplify(v) for q, v in zip(p, proj)}


def _maximize_numeric(expr, p):
    import numpy as np
    from scipy.optimize import minimize

    f = sp.lambdify([p], -expr, "numpy")
    d = len(p)
    best = None
    starts = [np.full(d, 1 / d)] + [np.eye(d)[i] * 0.9 + 0.1 / d for i in range(d)]
    for x0 in starts:
        res = minimize(lambda v: f(np.clip(v, 0, 1)), x0, method="SLSQP", bounds=[(0, 1)] * d,
                       constraints=[{"type": "eq", "fun": lambda v: v.sum() - 1}])
        if best is None or res.fun < best.fun:
            best = res
    # SLSQP stops at a relative tolerance of about 1e-6: the maximum is given to 6 significant
    # digits (its 12th digit moves with the algebraic form of the objective and the scipy release),
    # and coordinates at the bound come back as round-off (1e-16 with one scipy, 0 with another)
    return sp.Float(f"{-best.fun:.6g}", 6), [0.0 if abs(v) < 1e-9 else float(v) for v in best.x]


# --- effective samples and asymptotics --------------------------------------------------------


def direct_statistic(d: sp.Basic) -> ItemStatistic:
    """The non-private baseline: the identity channel, T_j = 1{x = j} (g = 1, h = 0)."""
    one, zero = sp.Integer(1), sp.Integer(0)
    return ItemStatistic("1{x = j}", one, zero, one, zero, "identity", domain_size=d)


def nonprivate_l2(d: sp.Basic) -> sp.Basic:
    """Worst-case ℓ2² risk of the empirical estimator on direct i.i.d. observations."""
    from ldpaudit.derive.estimator import hit_estimator

    return hit_risk(hit_estimator(direct_statistic(d)), "iid").l2_worst


def nonprivate_l1(d: sp.Basic) -> sp.Basic:
    from ldpaudit.derive.estimator import hit_estimator

    return hit_risk(hit_estimator(direct_statistic(d)), "iid").l1_worst


def effective_samples(l2_worst_iid: sp.Basic, d: sp.Basic) -> sp.Basic:
    """n_eff: the number of direct (non-private) i.i.d. samples with the same worst-case ℓ2²
    risk, n_eff = n · R_direct(n) / R_private(n) (Kairouz et al.)."""
    return simplify(N_USERS * nonprivate_l2(d) / l2_worst_iid)


def estimator_risk(mech, model: str = "iid") -> Risk:
    """Variance and worst-case risks of the mechanism's unbiased estimator under ``model``."""
    from ldpaudit.derive.estimator import unbiased_estimator

    est = unbiased_estimator(mech)
    return hit_risk(est, model) if est.kind == "hit" else matrix_risk(est, model)
