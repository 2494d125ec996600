"""Servers (frequency estimators) for the audit-estimator tests: the spec's own estimator, and
two planted faults (normalization onto the simplex; OUE reports decoded as k-RAPPOR/SUE).

A server takes the list of n reports and returns one estimate per input 0..d-1. The correct
one is built from the spec's derived estimator p̂_j = const + slope·f_j (its exact
coefficients, as floats), f_j the frequency of the spec's statistic: y = j for k-RR, bit j
for the unary encodings."""
from __future__ import annotations

import math

import numpy as np


from ldpaudit.bench.servers import oue_as_sue_server, spec_server  # noqa: F401  (the suite's servers)


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


def count_server(spec: str, **params):
    """The spec's estimator returning estimated counts (n·p̂_j), as pure-ldp's servers do."""
    inner = spec_server(spec, **params)
    return lambda reports: len(reports) * inner(reports)


def short_server(reports):
    """One estimate too few (d = 4)."""
    return [0.25, 0.25, 0.25]


def nan_server(reports):
    return [0.5, float("nan"), 0.25, 0.25]
