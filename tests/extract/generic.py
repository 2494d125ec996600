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


def unary_loop(x, *, d=4, epsilon=1.0):
    """OUE written as a for loop appending one bit per index (the product form)."""
    q = 1 / (math.exp(epsilon) + 1)
    out = []
    for i in range(d):
        p = 0.5 if i == x else q
        out.append(1 if random.random() < p else 0)
    return tuple(out)


def markov_bits(x, *, d=4, epsilon=1.0):
    """Each bit copies the one before w.p. 3/4: the bits are not independent."""
    prev = 1 if x == 0 else 0
    out = []
    for i in range(d):
        bit = prev if random.random() < 0.75 else 1 - prev
        out.append(bit)
        prev = bit
    return tuple(out)


def one_coin_for_all(x, *, d=4, epsilon=1.0):
    """One uniform draw compared in every bit: the bits are not independent."""
    u = random.random()
    return tuple(int(u < (0.75 if i == x else 0.25)) for i in range(d))


def first_bit_fixed(x, *, d=4, epsilon=1.0):
    """The first bit is always 1 (it reads the list's length inside the loop)."""
    out = []
    for i in range(d):
        if len(out) == 0:
            out.append(1)
        else:
            out.append(int(random.random() < 0.5))
    return tuple(out)


def random_length(x, *, d=4, epsilon=1.0):
    """Appends only on some draws: the report's length is random."""
    out = []
    for i in range(d):
        if random.random() < 0.5:
            out.append(int(i == x))
    return len(out)


def flips_below_input(x, *, d=4, epsilon=1.0):
    """Bit i is flipped w.p. 1/4 when i < x, w.p. 1/2 otherwise: not one law for the others."""
    return tuple(int(random.random() < (0.25 if i < x else 0.5)) for i in range(d))


PREV = 0


def carried_through_a_module_name(x, *, d=4, epsilon=1.0):
    """Bit i > 0 copies bit i - 1 through a local that shadows the module's PREV: a Markov chain,
    refused (not read as PREV = 0 in every item)."""
    out = []
    for i in range(d):
        if i > 0:
            bit = PREV  # noqa: F823 - the item before, set by the last iteration
        else:
            bit = int(random.random() < 0.5)
        out.append(bit)
        PREV = bit  # noqa: F841 - a local that shadows the module's name, read by the next iteration
    return tuple(out)
