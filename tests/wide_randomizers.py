"""Vectorized randomizers over wide domains for tests/test_audit_wide.py (importable by name,
so that isolated and CLI audits load them too)."""
import numpy as np


def krr(d, eps):
    """k-RR over 0..d-1 at ε = eps (batch)."""
    d, eps = int(d), float(eps)
    keep = np.exp(eps) / (np.exp(eps) + d - 1)

    def randomizer(x, n, rng):
        other = rng.integers(0, d - 1, size=n)
        other += other >= x
        return np.where(rng.random(n) < keep, x, other)

    return randomizer


def krr_leaky_zero(d, eps):
    """k-RR at ε, except that input 0 always reports 0 with probability 1/2 (a flaw of one input
    that no relation pooled over all inputs can see)."""
    base = krr(d, eps)

    def randomizer(x, n, rng):
        y = base(x, n, rng)
        if x == 0:
            y = np.where(rng.random(n) < 0.5, 0, y)
        return y

    return randomizer


def oue(d, eps, keep=0.5):
    """Optimized unary encoding over 0..d-1 as an (n, d) uint8 matrix: bit x is 1 with
    probability ``keep`` (1/2 for OUE), every other bit with 1/(e^ε + 1)."""
    d, eps, keep = int(d), float(eps), float(keep)
    q = 1.0 / (np.exp(eps) + 1)

    def randomizer(x, n, rng):
        y = (rng.random((n, d)) < q).astype(np.uint8)
        y[:, x] = rng.random(n) < keep
        return y

    return randomizer
