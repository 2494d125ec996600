"""Optimal values of an integer parameter (the subset size k of k-subset).

The objective -- worst-case ℓ2² risk (minimized), worst-case ℓ1 risk (minimized) or mutual
information under the uniform prior (maximized) -- is derived from the channel with the
parameter free, relaxed to a real κ, differentiated, and the stationary point solved for
(Wang et al. Appendix C and D do this by hand: β = (εe^ε - e^ε + 1)d/(e^ε - 1)² for
information, d/(1 + e^ε) for ℓ2). The integer optimum is then found by evaluating the
exact objective at floor and ceil of the stationary point (clamped to the parameter's
range) and keeping the better one -- never by rounding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

import mpmath
import sympy as sp

from ldpaudit.derive.algebra import KAPPA, N_USERS, simplify
from ldpaudit.derive.memo import per_channel
from ldpaudit.errors import NotDerivable
from ldpaudit.errors import InvalidParameter
from ldpaudit.mechanism.core import Mechanism

TARGETS = {
    "l2": ("minimize", "worst-case ℓ2² risk"),
    "l1": ("minimize", "worst-case ℓ1 risk (large n)"),
    "mi": ("maximize", "mutual information I(X;Y) under the uniform prior"),
}


def check_target(target: str) -> str:
    if target not in TARGETS:
        raise InvalidParameter(
            f"optimization target {target!r} is unknown; choose one of {', '.join(TARGETS)} "
            "(l2: worst-case ℓ2² risk, l1: worst-case ℓ1 risk, mi: mutual information)"
        )
    return target


@dataclass(frozen=True)
class Stationary:
    """The continuous optimum of one objective: κ* solving dJ/dκ = 0."""

    parameter: str
    target: str
    model: str
    objective: sp.Basic        # J(κ), with n = 1 for risks
    derivative: sp.Basic       # numerator of dJ/dκ (its sign is the sign of dJ/dκ)
    point: sp.Basic            # κ*
    lower: sp.Basic
    upper: sp.Basic
    symbols: tuple[sp.Symbol, ...]  # the remaining free symbols (e.g. d, epsilon)


@dataclass(frozen=True)
class Optimum:
    parameter: str
    target: str
    model: str
    continuous: sp.Basic
    candidates: tuple[tuple[int, float], ...]
    value: int
    objective: sp.Basic


def objective(mech: Mechanism, target: str, model: str = "fixed") -> sp.Basic:
    """The objective as a closed form in the mechanism's free parameters (n = 1)."""
    check_target(target)
    if target == "mi":
        from ldpaudit.derive.information import mutual_information

        return mutual_information(mech).value
    from ldpaudit.derive.estimator import unbiased_estimator
    from ldpaudit.derive.risk import hit_risk

    est = unbiased_estimator(mech)
    if est.kind != "hit":
        raise NotDerivable(f"{target} objective of {mech.name!r} needs a symmetric channel")
    risk = hit_risk(est, model)
    value = risk.l2_worst if target == "l2" else risk.l1_worst
    return value.subs(N_USERS, 1)


def stationary_point(mech: Mechanism, name: str, target: str, model: str = "fixed") -> Stationary:
    """Solve dJ/dκ = 0 for the real relaxation κ of integer parameter ``name``."""
    check_target(target)
    if target == "mi":  # the information does not depend on the sampling model: derived once
        st = _stationary_point(mech, name, target, "fixed")
        return st if model == "fixed" else replace(st, model=model)
    return _stationary_point(mech, name, target, model)


@per_channel
def _stationary_point(mech: Mechanism, name: str, target: str, model: str) -> Stationary:
    param = mech.parameter(name)
    if param.kind != "integer":
        raise InvalidParameter(f"parameter {name} of {mech.name} is real; only integer parameters are optimized here")
    J = objective(mech, target, model)
    k = param.symbol
    Jk = sp.expand_log(J.xreplace({k: KAPPA}), force=True)
    dJ = sp.together(sp.diff(Jk, KAPPA))
    num, _den = sp.fraction(dJ)
    num = sp.expand(sp.expand_log(num, force=True))
    if target == "l1":
        num = sp.together(num)
    lower = param.lower if param.lower is not None else sp.Integer(0)
    upper = param.upper if param.upper is not None else sp.oo
    roots = _roots(num, KAPPA)
    good = None if roots is None else _roots_in_range([r for r in roots if not r.has(sp.I)], lower, upper, mech)
    if good is None or len(good) > 1:  # several candidates: keep sympy's solve and its order
        good = _roots_in_range([r for r in sp.solve(num, KAPPA) if not r.has(sp.I)], lower, upper, mech)
    chosen = good[0] if good else None
    if chosen is None:
        raise NotDerivable(f"no stationary point of the {target} objective lies inside {lower} <= {name} <= {upper}")
    symbols = tuple(sorted((J.free_symbols - {k}), key=str))
    return Stationary(name, target, model, Jk, simplify(num), simplify(chosen), lower, upper, symbols)


def _roots(num: sp.Basic, var: sp.Symbol) -> list[sp.Basic] | None:
    """The roots of ``num`` in ``var`` from its factors when ``num`` is a polynomial in ``var``
    whose factors have degree at most 2 in it (every objective here: the ℓ2 and information
    numerators factor over e^ε): a linear factor a·var + b gives -b/a, a quadratic one the
    quadratic formula (sympy's roots). None when that does not apply (sympy's solve decides)."""
    try:
        _, factors = sp.factor_list(num, var)
        polys = [sp.Poly(f, var) for f, _ in factors]
    except (sp.PolynomialError, NotImplementedError):
        return None
    if any(f.degree() > 2 for f in polys):
        return None
    roots = []
    for f in polys:
        if f.degree() == 0:
            continue
        if f.degree() == 1:  # a·var + b (sympy's roots_linear would run simplify on -b/a)
            a, b = f.all_coeffs()
            found = [-b / a]
        else:
            found = sp.roots(f, multiple=True)
        if len(found) != f.degree():
            return None
        roots += [r for r in found if r not in roots]
    return roots


def _roots_in_range(roots, lower, upper, mech):
    from ldpaudit.mechanism.checks import sample_points

    points = sample_points(mech, 3)
    good = []
    for r in roots:
        ok = True
        for pt in points:
            subs = {mech.symbols[n]: v for n, v in pt.items()}
            value = sp.N(r.subs(subs))
            lo = sp.N(sp.sympify(lower).subs(subs)) - 1
            hi = sp.N(sp.sympify(upper).subs(subs)) + 1
            if not (value.is_real and lo <= value <= hi):
                ok = False
                break
        if ok:
            good.append(r)
    return good


def integer_optimum(st: Stationary, values: dict[str, object]) -> Optimum:
    """Compare the exact objective at floor and ceil of κ* for numeric other parameters."""
    subs = {s: sp.sympify(values[s.name]) for s in st.symbols}
    point = float(sp.N(st.point.subs(subs), 30))
    lo = int(sp.ceiling(sp.sympify(st.lower).subs(subs)))
    hi = sp.sympify(st.upper).subs(subs)
    hi = int(sp.floor(hi)) if hi.is_finite else None
    cands = sorted({min(max(c, lo), hi if hi is not None else c) for c in (math.floor(point), math.ceil(point))})
    scored = []
    for c in cands:
        val = sp.N(st.objective.subs(subs).subs(KAPPA, c), 40)
        scored.append((c, val))
    pick = (min if TARGETS[st.target][0] == "minimize" else max)(scored, key=lambda cv: cv[1])
    return Optimum(
        st.parameter, st.target, st.model, st.point.subs(subs),
        tuple((c, float(v)) for c, v in scored), pick[0], st.objective.subs(subs).subs(KAPPA, pick[0]),
    )


def optimal_parameter(mech: Mechanism, name: str, target: str, model: str = "fixed") -> Optimum | Stationary:
    """The optimal integer value of ``name`` when every other parameter is numeric, else the
    symbolic stationary point (the optimum is then floor or ceil of it)."""
    st = stationary_point(mech, name, target, model)
    others = [p.name for p in mech.parameters if p.name != name]
    if others:
        return st
    return integer_optimum(st, {})


# --- fast evaluation for many (d, ε) rows (Wang et al. Table 1) --------------------------------


@dataclass(frozen=True)
class CompiledRule:
    """κ*(d, ε) and J(κ, d, ε) compiled to mpmath functions, from one symbolic derivation."""

    stationary: Stationary
    point: object
    objective: object
    names: tuple[str, ...]

    def optimum(self, **values) -> tuple[int, float]:
        args = [values[n] for n in self.names]
        mpmath.mp.dps = 30
        point = float(self.point(*args))
        lo = int(sp.ceiling(sp.sympify(self.stationary.lower).subs({s: values[s.name] for s in self.stationary.symbols})))
        hi = sp.sympify(self.stationary.upper).subs({s: values[s.name] for s in self.stationary.symbols})
        hi = int(hi) if hi.is_finite else None
        cands = sorted({min(max(c, lo), hi if hi is not None else c) for c in (math.floor(point), math.ceil(point))})
        scored = [(c, self.objective(c, *args)) for c in cands]
        pick = (min if TARGETS[self.stationary.target][0] == "minimize" else max)(scored, key=lambda cv: cv[1])
        return pick[0], point


@lru_cache(maxsize=16)
def compiled_rule(family_key: str, name: str, target: str, model: str = "fixed") -> CompiledRule:
    """Compile the stationary point and objective of a catalog family (by spec stem)."""
    from ldpaudit.mechanism.catalog import CATALOG

    mech = CATALOG[family_key]()
    st = stationary_point(mech, name, target, model)
    syms = st.symbols
    point = sp.lambdify(syms, st.point, "mpmath")
    obj = sp.lambdify((KAPPA, *syms), st.objective, "mpmath")

    def objective_fn(k, *args):
        mpmath.mp.dps = 30
        return obj(mpmath.mpf(k), *[mpmath.mpf(a) for a in args])

    def point_fn(*args):
        mpmath.mp.dps = 30
        return point(*[mpmath.mpf(a) for a in args])

    return CompiledRule(st, point_fn, objective_fn, tuple(s.name for s in syms))
