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


def per_call(x):
    """The same k-RR (d = 25, ε = 1), one output per call (for the per-call figures)."""
    import math
    import random

    keep = math.e / (math.e + 24)
    if random.random() < keep:
        return x
    y = random.randrange(24)
    return y + (y >= x)
