"""Per-report reference randomizers in plain Python: one report per call.

The same channels as :mod:`ldpaudit.mechanism.randomizers` (whose vectorized samplers draw n
reports at once, through argpartition of uniform keys and (n, d) bit matrices), written one
report at a time with the ``random`` module's draws, so that ``ldpaudit extract`` can read
their exact channel off the source and ``verify --from-code`` can prove them. Each is a factory
of keyword parameters returning ``report(x, rng=random)``: ``ldpaudit audit
ldpaudit.mechanism.perdraw:krr --target-arg d=8 --target-arg epsilon=1 --domain 0..7`` runs it.
Parameters are used as given (floats in the running code; exact values when extracted).
"""
from __future__ import annotations

import math
import random


def krr(*, d=8, epsilon=1.0):
    """k-RR: the input w.p. e^ε/(e^ε+d-1), else one of the d-1 other values uniformly."""

    def report(x, rng=random):
        t = math.exp(epsilon)
        if rng.random() < t / (t + d - 1):
            return x
        other = rng.randrange(d - 1)
        return other if other < x else other + 1

    return report


def rr_bit(*, bits=3, j=1, epsilon=1.0):
    """RR on bit j of the quantized input x in [0, 2^bits): the bit w.p. e^ε/(e^ε+1), else its flip."""

    def report(x, rng=random):
        bit = (x >> j) & 1
        keep = math.exp(epsilon) / (math.exp(epsilon) + 1)
        return bit if rng.random() < keep else 1 - bit

    return report


def ksubset(*, d=6, k=2, epsilon=1.0):
    """k-subset: w.p. k e^ε/(k e^ε + d - k) the input and k-1 distinct others, else k distinct
    values other than the input, uniformly (Wang et al. 2016, Algorithm 1; Ye & Barg 2017)."""

    def report(x, rng=random):
        t = math.exp(epsilon)
        others = [v for v in range(d) if v != x]
        if rng.random() < k * t / (k * t + d - k):
            return frozenset([x] + rng.sample(others, k - 1))
        return frozenset(rng.sample(others, k))

    return report


def oue(*, d=4, epsilon=1.0):
    """OUE: the input's bit is 1 w.p. 1/2, every other bit is 1 w.p. 1/(e^ε+1)."""

    def report(x, rng=random):
        q = 1 / (math.exp(epsilon) + 1)
        return tuple(int(rng.random() < (0.5 if i == x else q)) for i in range(d))

    return report


def sue(*, d=4, epsilon=1.0):
    """SUE (basic one-time RAPPOR, k-RAPPOR): each bit of the one-hot input kept w.p.
    e^(ε/2)/(e^(ε/2)+1), flipped otherwise."""

    def report(x, rng=random):
        keep = math.exp(epsilon / 2) / (math.exp(epsilon / 2) + 1)
        bits = [1 if i == x else 0 for i in range(d)]
        return tuple(b if rng.random() < keep else 1 - b for b in bits)

    return report


def rappor_permanent(*, d=4, f=0.5):
    """RAPPOR's permanent randomized response on a one-hot vector: each bit set to 1 w.p. f/2,
    to 0 w.p. f/2, kept w.p. 1 - f (Erlingsson, Pihur & Korolova 2014)."""

    def report(x, rng=random):
        out = []
        for i in range(d):
            u = rng.random()
            bit = 1 if i == x else 0
            out.append(1 if u < f / 2 else (0 if u < f else bit))
        return tuple(out)

    return report


def rappor_instantaneous(*, p=0.5, q=0.75):
    """RAPPOR's instantaneous randomized response on one memoized bit: report 1 w.p. q if the
    bit is 1, w.p. p if it is 0."""

    def report(x, rng=random):
        return int(rng.random() < (q if x == 1 else p))

    return report
