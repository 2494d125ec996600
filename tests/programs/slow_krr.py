"""A correct batch k-RR that takes a little time per call, for kill-and-resume tests."""
import time

import numpy as np


def make(d="5", epsilon="1", delay="0.02"):
    d, eps, delay = int(d), float(epsilon), float(delay)
    keep = np.exp(eps) / (np.exp(eps) + d - 1)

    def randomizer(x, n, rng):
        time.sleep(delay)
        other = rng.integers(0, d - 1, n)
        other = other + (other >= x)
        return np.where(rng.random(n) < keep, x, other)

    return randomizer


def per_call(x):
    import random
    return x if random.random() < np.e / (np.e + 4) else random.choice([v for v in range(5) if v != x])
