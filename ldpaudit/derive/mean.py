"""Mean estimators for channels with a real input and finitely many outputs.

When every Q(y|x) is affine in x, E[g(Y) | x] = Σ_y g(y) Q(y|x) is affine in x for every
report map g, and g is an unbiased estimator of x exactly when the constant term is 0 and the
coefficient of x is 1: two linear equations in the unknowns g(y), solved by sympy (unique for
two outputs; with more outputs the minimum-norm solution Σ g(y)² is taken, stated in the
result). The per-user variance Var(g(Y) | x) = Σ_y g(y)² Q(y|x) - x² follows; the mean of n
reports then has variance (1/n²) Σ_i Var(g(Y)|x_i) (fixed inputs) or adds Var(X)/n (i.i.d.).

Duchi, Jordan & Wainwright's ±B mechanism (x in [-B, B], report ±B' with probability
1/2 ± x (e^ε - 1)/(2B(e^ε + 1))) is the motivating case: the derived g is ±B(e^ε + 1)/(e^ε - 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ldpaudit.derive.algebra import N_USERS, simplify
from ldpaudit.errors import NotDerivable
from ldpaudit.mechanism.params import X


@dataclass(frozen=True)
class LinearMeanEstimator:
    """g(y) per output, E[g(Y)|x] (= x, proved), Var(g(Y)|x), and the variance of the mean of n reports."""

    mechanism: str
    outputs: tuple
    estimator: tuple[sp.Basic, ...]
    expectation: sp.Basic
    variance: sp.Basic
    mean_variance_fixed: sp.Basic      # Var of (1/n)Σ g(Y_i) when every x_i = x
    worst_variance: sp.Basic           # max over the input interval (attained at an endpoint or the vertex)
    minimum_norm: bool                 # more outputs than equations: the minimum-norm solution was taken

    def as_dict(self) -> dict:
        return {"mechanism": self.mechanism, "estimator": {str(y): sp.sstr(g) for y, g in zip(self.outputs, self.estimator)},
                "expectation": sp.sstr(self.expectation), "variance": sp.sstr(self.variance),
                "mean_variance_fixed": sp.sstr(self.mean_variance_fixed), "worst_variance": sp.sstr(self.worst_variance),
                "minimum_norm": self.minimum_norm}


def solve_linear_estimator(outputs, probabilities, x: sp.Symbol = X, *, name: str = "channel",
                           interval: tuple | None = None) -> LinearMeanEstimator:
    """Derive the unbiased report map g from the channel's output probabilities (exprs in x)."""
    probs = [sp.sympify(p) for p in probabilities]
    if any(p.has(sp.Piecewise, sp.floor, sp.ceiling, sp.Mod) for p in probs):
        raise NotDerivable(f"{name}: Q(y|x) is a step function of x (a threshold or a bit of x), so no report map "
                           "makes E[g(Y)|x] = x; the protocols' aggregators estimate the mean (ldpaudit.protocol)")
    if len(probs) != len(outputs) or len(probs) < 2:
        raise NotDerivable(f"{name}: need at least two outputs with one probability each; got {len(outputs)} outputs")
    if simplify(sp.Add(*probs) - 1) != 0:
        raise NotDerivable(f"{name}: the output probabilities sum to {sp.sstr(simplify(sp.Add(*probs)))}, not 1")
    coeffs = []
    for y, p in zip(outputs, probs):
        poly = sp.Poly(sp.expand(p), x) if p.has(x) else sp.Poly(p, x)
        if poly.degree() > 1 or any(c.has(x) for c in poly.all_coeffs()):
            raise NotDerivable(f"{name}: Q(y={y}|x) = {sp.sstr(p)} is not affine in x, so no report map makes "
                               f"E[g(Y)|x] linear in x")
        a1 = poly.coeff_monomial(x)
        a0 = poly.coeff_monomial(1)
        coeffs.append((a0, a1))
    g = sp.symbols(f"g0:{len(outputs)}", real=True)
    equations = [sp.Eq(sp.Add(*[gi * a0 for gi, (a0, _) in zip(g, coeffs)]), 0),
                 sp.Eq(sp.Add(*[gi * a1 for gi, (_, a1) in zip(g, coeffs)]), 1)]
    minimum_norm = len(outputs) > 2
    if minimum_norm:
        A = sp.Matrix([[a0 for a0, _ in coeffs], [a1 for _, a1 in coeffs]])
        b = sp.Matrix([0, 1])
        gram = A * A.T
        if simplify(gram.det()) == 0:
            raise NotDerivable(f"{name}: no report map is unbiased (the channel does not depend on x)")
        solution = list(A.T * gram.inv() * b)
    else:
        sol = sp.solve(equations, g, dict=True)
        if not sol:
            raise NotDerivable(f"{name}: no report map is unbiased (the channel does not depend on x)")
        solution = [sol[0][gi] for gi in g]
    solution = [simplify(s) for s in solution]
    expectation = simplify(sp.Add(*[s * p for s, p in zip(solution, probs)]))
    if simplify(expectation - x) != 0:
        raise NotDerivable(f"{name}: the solved map has E[g(Y)|x] = {sp.sstr(expectation)}, not x")
    variance = simplify(sp.Add(*[s**2 * p for s, p in zip(solution, probs)]) - x**2)
    worst = variance
    if interval is not None:
        lo, hi = interval
        candidates = [variance.subs(x, lo), variance.subs(x, hi)]
        vertex = sp.solve(sp.diff(variance, x), x)
        candidates += [variance.subs(x, v) for v in vertex if v.is_real is not False]
        worst = simplify(sp.Max(*candidates)) if len(candidates) > 1 else candidates[0]
    return LinearMeanEstimator(name, tuple(outputs), tuple(solution), expectation, variance,
                               simplify(variance / N_USERS), worst, minimum_norm)


def mean_estimator(mech) -> LinearMeanEstimator:
    """The unbiased linear mean estimator of a real-input, finite-output mechanism."""
    outputs, probs, x, interval = channel_in_x(mech)
    return solve_linear_estimator(outputs, probs, x, name=mech.name, interval=interval)


def channel_in_x(mech):
    """(outputs, [Q(y|x) for y], x symbol, (low, high) or None) of a real-input channel."""
    ch = mech.channel
    inputs = mech.inputs
    interval = (inputs.low, inputs.high) if hasattr(inputs, "low") and inputs.low is not None else None
    if callable(getattr(ch, "probability", None)) and getattr(ch, "outputs", None) is not None:
        return tuple(ch.outputs), [ch.probability(y) for y in ch.outputs], X, interval
    rows = getattr(ch, "matrix", None)
    if rows is not None and len(rows) == 1:
        return tuple(ch.outputs), list(rows[0]), X, interval
    raise NotDerivable(f"{mech.name}: the mean estimator needs a real input x and an explicit channel of finitely "
                       f"many outputs whose entries are expressions in x; got a {ch.form} channel")
