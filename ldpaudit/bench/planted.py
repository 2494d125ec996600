"""Randomizers with planted bugs, written as ordinary Python, for ``verify --from-code``.
Each is read by ``ldpaudit extract`` (never run) and is a real bug class found in LDP code;
``ldpaudit bench --from-code`` proves them wrong (the last few leave the subset: exit 3)."""
import math
import random

import numpy as np


def krr_other_from_all(x, *, d=4, epsilon=1.0):
    """k-RR whose "other" is drawn from all d values (x itself included)."""
    t = math.exp(epsilon)
    if random.random() < t / (t + d - 1):
        return x
    return random.randrange(d)


def krr_randint_inclusive(x, *, d=4, epsilon=1.0):
    """k-RR drawing one of the d - 1 others with randint(0, d - 1), as if the upper bound were
    excluded (numpy's randint); Python's randint includes it, so the report can be d."""
    t = math.exp(epsilon)
    if random.random() < t / (t + d - 1):
        return x
    y = random.randint(0, d - 1)
    return y if y < x else y + 1


def two_reports_eps_not_halved(x, *, epsilon=1.0):
    """Two binary RR reports of the same bit, each with the whole ε (the budget is not split)."""
    keep = math.exp(epsilon) / (math.exp(epsilon) + 1)
    first = x if random.random() < keep else 1 - x
    second = x if random.random() < keep else 1 - x
    return (first, second)


def oue_misplaced_parenthesis(x, *, d=3, epsilon=1.0):
    """OUE with q = 1/(e^ε + 1) written 1 / math.exp(epsilon) + 1: q > 1, so every other bit
    is always 1 and a 0 there never comes from another input."""
    q = 1 / math.exp(epsilon) + 1
    return tuple(int(random.random() < (0.5 if i == x else q)) for i in range(d))


def ksubset_with_replacement(x, *, d=4, k=2, epsilon=1.0):
    """k-subset whose other elements are drawn with replacement (a set of fewer than k items)."""
    t = math.exp(epsilon)
    others = [v for v in range(d) if v != x]
    if random.random() < k * t / (k * t + d - k):
        return frozenset([x] + [random.choice(others) for _ in range(k - 1)])
    return frozenset(random.choice(others) for _ in range(k))


def laplace_mean(x, *, epsilon=1.0):
    rng = np.random.default_rng()
    return x + rng.laplace(0, 1 / epsilon)


def hashed(x, *, g=4, epsilon=1.0):
    seed = random.randrange(1000)
    return (seed, hash((seed, x)) % g)


def rejection_sampling(x, *, d=4, epsilon=1.0):
    t = math.exp(epsilon)
    if random.random() < t / (t + d - 1):
        return x
    while True:
        y = random.randrange(d)
        if y != x:
            return y
