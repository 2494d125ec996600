"""Test doubles of LDP libraries' calling conventions (issue 34): what a class target builds.

- diffprivlib: a mechanism class configured by keyword-only constructor arguments, randomizing
  one value per call of its ``randomise`` method (``Laplace(epsilon=1, sensitivity=1).randomise``);
- pure-ldp: a client class ``UEClient(epsilon, d, use_oue=False)`` whose ``privatise`` takes an
  input counted from 1 (pure-ldp's items are 1..d) and returns a 0/1 vector of length d;
- OpenDP: a factory ``make_randomized_response(categories, prob)`` returning a measurement
  object, called on the input (``meas(x)``), that fails on a value outside its categories.

Each draws from ``numpy.random`` or ``random`` as the library does (the auditor seeds them).
"""

from __future__ import annotations

import math
import random

import numpy as np


class Laplace:
    """diffprivlib.mechanisms.Laplace's convention: keyword-only, validated at construction."""

    def __init__(self, *, epsilon, delta=0.0, sensitivity, random_state=None):
        if not epsilon > 0:
            raise ValueError("Epsilon must be strictly positive")
        if sensitivity < 0:
            raise ValueError("Sensitivity must be non-negative")
        self.epsilon, self.delta, self.sensitivity = float(epsilon), float(delta), float(sensitivity)

    def bias(self, value):
        return 0.0

    def randomise(self, value):
        scale = self.sensitivity / self.epsilon
        u = random.random() - 0.5
        return value - scale * math.copysign(1.0, u) * math.log(1 - 2 * abs(u))


class UEClient:
    """pure_ldp.frequency_oracles.UEClient's convention: items 1..d, a length-d 0/1 vector."""

    def __init__(self, epsilon, d, use_oue=False, index_mapper=None):
        self.epsilon, self.d, self.use_oue = epsilon, d, use_oue
        e = math.exp(epsilon)
        self.p = 1 / 2 if use_oue else math.exp(epsilon / 2) / (math.exp(epsilon / 2) + 1)
        self.q = 1 / (e + 1) if use_oue else 1 - self.p

    def _perturb(self, index):
        bits = (np.random.random(self.d) < self.q).astype(np.int8)
        bits[index] = int(np.random.random() < self.p)
        return bits

    def privatise(self, data):
        if not 1 <= data <= self.d:
            raise IndexError(f"item {data} is not in 1..{self.d}")
        return self._perturb(data - 1)


class Measurement:
    """An OpenDP-style measurement: an object called on the input."""

    def __init__(self, function, input_check):
        self._function, self._check = function, input_check

    def __call__(self, arg):
        if not self._check(arg):
            raise ValueError(f"input {arg!r} is not a member of the input domain")
        return self._function(arg)


def make_randomized_response(categories, prob):
    """k-RR over ``categories``: the truth with probability ``prob``, else another category
    uniformly (OpenDP's make_randomized_response)."""
    categories = list(categories)
    if not 0 <= prob <= 1:
        raise ValueError("probability must be within [0, 1]")
    k = len(categories)

    def respond(x):
        if random.random() < prob:
            return x
        others = [c for c in categories if c != x]
        return others[random.randrange(k - 1)]

    return Measurement(respond, lambda x: x in categories)
