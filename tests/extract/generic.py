"""Randomizers generic in their domain size d, read by ``ldpaudit extract --domain 0..d-1``
(tests/test_extract_symbolic.py): some have k-RR's structured form, some do not, and the
extraction must tell which without guessing. Never imported or run by the tests."""
import math
import random

import numpy as np


def krr_numpy(x, *, d=5, epsilon=1.0, rng: np.random.Generator = None):
    """k-RR with numpy's Generator: integers(0, d - 1) excludes its upper end."""
    t = math.exp(epsilon)
    if rng.random() < t / (t + d - 1):
        return x
    y = int(rng.integers(0, d - 1))
    return y + 1 if y >= x else y


def krr_resample_equal(x, *, d=5, epsilon=1.0):
    """k-RR written as a uniform draw over all d values, the input swapped for d - 1: the
    same channel through another arithmetic."""
    t = math.exp(epsilon)
    if random.random() < t / (t + d - 1):
        return x
    y = random.randrange(d - 1)
    if y == x:
        return d - 1
    return y


def cyclic_shift(x, *, d=4):
    """Deterministic: x + 1, wrapping at d - 1. Not k-RR shaped (y != x is 1 for one y, 0 for
    the others)."""
    if x < d - 1:
        return x + 1
    return 0


def zero_kept(x, *, d=4, epsilon=1.0):
    """Input 0 always reported as is, the others through k-RR: Q(x|x) depends on x."""
    if x == 0:
        return 0
    t = math.exp(epsilon)
    if random.random() < t / (t + d - 1):
        return x
    y = random.randrange(d - 1)
    return y if y < x else y + 1


def threshold_in_d(x, *, d=4, epsilon=1.0):
    """Branches on the size itself: only a range of d decides it."""
    if d > 5:
        return x
    return random.randrange(d)
