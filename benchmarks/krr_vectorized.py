"""A vectorized k-RR that imports only numpy: the target of bench_isolation.py."""
import numpy as np


def make(d="25", epsilon="1"):
    d, eps = int(d), float(epsilon)
    keep = np.exp(eps) / (np.exp(eps) + d - 1)

    def randomizer(x, n, rng):
        other = rng.integers(0, d - 1, size=n)
        other += other >= x
        return np.where(rng.random(n) < keep, x, other)

    return randomizer
