"""Randomizers with leaks the auditor used to miss (issue 12), and their correct twins.

Batch samplers f(x, n, rng). Each docstring states the leak and the true ε it yields."""
from __future__ import annotations

import math

import numpy as np

from ldpaudit.spec import randomizers as R


def krr_rare_error(*, d=4, epsilon=1.0, p_bad=2e-4, p_good=4e-5, bad=0, error=-1):
    """k-RR that also emits ``error`` with probability p_bad under input ``bad`` and p_good
    under the others: true ε >= ln(p_bad/p_good) (ln 5 for the defaults); the twin with
    p_bad == p_good is ε-LDP (the error output does not depend on x)."""
    base = R.krr(d=d, epsilon=epsilon)

    def sample(x, n, rng):
        y = np.asarray(base(x, n, rng))
        pe = p_bad if x == bad else p_good
        return np.where(rng.random(n) < pe, error, y)

    return sample


def oue_rare_marker(*, d=4, epsilon=1.0, p_bad=2e-4, p_good=4e-5, bad=0):
    """OUE whose report is replaced by the marker vector (2, ..., 2) with probability p_bad
    under input ``bad`` and p_good under the others (true ε >= ln 5 for the defaults)."""
    base = R.oue(d=d, epsilon=epsilon)

    def sample(x, n, rng):
        y = np.asarray(base(x, n, rng)).copy()
        pe = p_bad if x == bad else p_good
        y[rng.random(n) < pe] = 2
        return y

    return sample


def unary_true_bit_bug(*, d, epsilon, kind="oue"):
    """pure-LDP 1.1.2-style unary encoding: the true bit is kept with probability p + (1-p)q
    instead of p (it is set, then perturbed like the other bits and OR-ed back), other bits
    are 1 with probability q. kind 'sue' (symmetric, k-RAPPOR: p = e^(ε/2)/(1+e^(ε/2)),
    q = 1-p) or 'oue' (p = 1/2, q = 1/(e^ε+1)). True ε: ln(p'(1-q)/(q(1-p'))), p' = p+(1-p)q,
    a little above ε; the output law differs from the spec's in the true bit only."""
    p, q = unary_probabilities(kind, epsilon)
    keep = p + (1 - p) * q

    def sample(x, n, rng):
        y = (rng.random((n, d)) < q).astype(np.int8)
        y[:, x] = rng.random(n) < keep
        return y

    return sample


def unary_probabilities(kind, epsilon):
    if kind == "sue":
        p = math.exp(epsilon / 2) / (1 + math.exp(epsilon / 2))
        return p, 1 - p
    return 0.5, 1 / (math.exp(epsilon) + 1)


def unary_true_bit_bug_true_epsilon(epsilon, kind="oue") -> float:
    p, q = unary_probabilities(kind, epsilon)
    keep = p + (1 - p) * q
    return math.log(keep * (1 - q) / (q * (1 - keep)))
