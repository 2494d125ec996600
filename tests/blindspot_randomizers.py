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
