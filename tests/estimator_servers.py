"""Servers (frequency estimators) for the audit-estimator tests: the spec's own estimator, and
two planted faults (normalization onto the simplex; OUE reports decoded as k-RAPPOR/SUE).

A server takes the list of n reports and returns one estimate per input 0..d-1. The correct
one is built from the spec's derived estimator p̂_j = const + slope·f_j (its exact
coefficients, as floats), f_j the frequency of the spec's statistic: y = j for k-RR, bit j
for the unary encodings."""
from __future__ import annotations

import math

import numpy as np


def _frequencies(reports, d: int, kind: str) -> np.ndarray:
    y = np.asarray(reports)
    if kind == "element":
        return np.bincount(y.astype(np.int64), minlength=d)[:d] / len(y)
    return y.astype(float).mean(axis=0)


def spec_server(spec: str, **params):
    """The spec's own estimator (ldpaudit.derive), applied to reports of its reference sampler."""
    import sympy as sp

    from ldpaudit.audit.estimator import spec_estimator
    from ldpaudit.derive.algebra import F_J
    from ldpaudit.derive.estimator import unbiased_estimator
    from ldpaudit.mechanism.loader import load_budgeted

    _, mech = load_budgeted(spec, [f"{k}={v}" for k, v in params.items()])
    est = unbiased_estimator(mech)
    slope = float(sp.N(sp.diff(est.expression, F_J), 30))
    const = float(sp.N(est.expression.xreplace({F_J: 0}), 30))
    kind = "element" if est.stat.statistic == "1{y = j}" else "unary"
    d = int(params["d"])
    assert spec_estimator(mech).kind == "hit"

    def server(reports):
        return const + slope * _frequencies(reports, d, kind)

    return server


def project_to_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection onto the probability simplex (Duchi et al. 2008)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1
    rho = np.nonzero(u - css / np.arange(1, len(v) + 1) > 0)[0][-1]
    return np.maximum(v - css[rho] / (rho + 1), 0.0)


def normalizing_server(spec: str, **params):
    """The spec's estimator, then projected onto the simplex (a common 'consistency' step)."""
    inner = spec_server(spec, **params)
    return lambda reports: project_to_simplex(inner(reports))


def oue_as_sue_server(*, d, epsilon):
    """Decodes unary reports with SUE's (k-RAPPOR's) p = e^(ε/2)/(1 + e^(ε/2)), q = 1 - p instead
    of OUE's p = 1/2, q = 1/(e^ε + 1)."""
    s = math.exp(float(epsilon) / 2)
    p, q = s / (1 + s), 1 / (1 + s)

    def server(reports):
        return (_frequencies(reports, int(d), "unary") - q) / (p - q)

    return server


def count_server(spec: str, **params):
    """The spec's estimator returning estimated counts (n·p̂_j), as pure-ldp's servers do."""
    inner = spec_server(spec, **params)
    return lambda reports: len(reports) * inner(reports)


def short_server(reports):
    """One estimate too few (d = 4)."""
    return [0.25, 0.25, 0.25]


def nan_server(reports):
    return [0.5, float("nan"), 0.25, 0.25]
