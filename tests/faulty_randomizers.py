"""Planted faults: randomizers that claim ε but leak more (or do not match their spec).

Each factory takes keyword-only parameters like the reference samplers and documents the
fault and the true ε it yields, so a test can check the auditor flags it. Batch samplers
have the signature f(x, n, rng); the ``_per_call`` ones are f(x) and use the global
``random`` module, which the auditor seeds.
"""
from __future__ import annotations

import math
import random

import numpy as np

from ldpaudit.mechanism import randomizers as R


def krr_normalizer_d(*, d, epsilon):
    """k-RR whose fallback draws uniformly from all d values (normalizer d instead of d-1), so
    y = x also happens in the fallback: true ratio 1 + t d/(d-1) > t."""
    t = math.exp(epsilon)
    keep = t / (t + d - 1)

    def sample(x, n, rng):
        return np.where(rng.random(n) < keep, x, rng.integers(0, d, size=n))

    return sample


def krr_normalizer_d_true_epsilon(d, epsilon) -> float:
    t = math.exp(epsilon)
    keep = t / (t + d - 1)
    return math.log((keep + (1 - keep) / d) / ((1 - keep) / d))


def krappor_epsilon_not_half(*, d, epsilon):
    """k-RAPPOR flipping bits with 1/(1+e^ε) instead of 1/(1+e^(ε/2)): 2ε-LDP."""
    return R.krappor(d=d, epsilon=2 * epsilon)


def krr_one_bad_input(*, d, epsilon, bad=3):
    """k-RR that is correct for every input but ``bad``, which keeps itself w.p. t²/(t²+d-1)."""
    good = R.krr(d=d, epsilon=epsilon)
    wrong = R.krr(d=d, epsilon=2 * epsilon)

    def sample(x, n, rng):
        return wrong(x, n, rng) if x == bad else good(x, n, rng)

    return sample


def krr_rare_leak(*, d, epsilon, leak=2e-3):
    """k-RR that w.p. ``leak`` outputs the debug code d + x, which names the input: ε = ∞."""
    good = R.krr(d=d, epsilon=epsilon)

    def sample(x, n, rng):
        y = good(x, n, rng)
        return np.where(rng.random(n) < leak, d + x, y)

    return sample


def wrr_float_typo(*, epsilon):
    """Binary RR with e typed as 2.81828: true ε = ε ln 2.81828 (1.036 at ε = 1)."""
    t = 2.81828 ** epsilon
    keep = t / (t + 1)

    def sample(x, n, rng):
        return np.where(rng.random(n) < keep, x, 1 - x)

    return sample


def ksubset_wrong_inclusion(*, d, k, epsilon):
    """k-subset including x w.p. t/(t+1) (the binary RR probability) instead of kt/(kt+d-k):
    the pattern {x in y, x' not in y} has ratio (t (d-k))/k > t whenever k < d/2."""
    t = math.exp(epsilon)
    include = t / (t + 1)

    def sample(x, n, rng):
        keys = rng.random((n, d))
        keys[:, x] = np.where(rng.random(n) < include, -1.0, 2.0)
        chosen = np.argpartition(keys, k - 1, axis=1)[:, :k]
        out = np.zeros((n, d), dtype=bool)
        np.put_along_axis(out, chosen, True, axis=1)
        return out

    return sample


def ksubset_wrong_inclusion_true_epsilon(d, k, epsilon) -> float:
    t = math.exp(epsilon)
    g = t / (t + 1)
    return math.log(g * (d - k) / ((1 - g) * k))


def ksubset_ordered_tuple_per_call(*, d, k, epsilon):
    """Per-call k-subset returning the subset as a tuple with x first when it is included
    (the others sorted): the first position names the input (ε = ∞)."""
    t = math.exp(epsilon)
    include = k * t / (k * t + d - k)

    def sample(x):
        others = [j for j in range(d) if j != x]
        if random.random() < include:
            return (x, *sorted(random.sample(others, k - 1)))
        return tuple(sorted(random.sample(others, k)))

    return sample


def krr_per_call(*, d, epsilon):
    """A correct per-call k-RR in plain Python."""
    t = math.exp(epsilon)
    keep = t / (t + d - 1)

    def sample(x):
        if random.random() < keep:
            return x
        y = random.randrange(d - 1)
        return y + (y >= x)

    return sample


def laplace_mean_half_scale(*, M, epsilon):
    """Laplace mean with scale M/ε instead of 2M/ε (sensitivity of [-M, M] is 2M): 2ε-LDP."""
    return R.laplace_mean(M=M, epsilon=2 * epsilon)


def krr_private_but_mismatched(*, d, epsilon):
    """k-RR at ε/2: private at the claimed ε, but not the channel its spec declares."""
    return R.krr(d=d, epsilon=epsilon / 2)


def oue_swapped_halves(*, d, epsilon):
    """OUE with the probabilities swapped: bit x is 1 w.p. 1/(t+1) and the others w.p. 1/2.
    Its largest ratio, of {y_x = 0, y_x' = 1}, is (t/(t+1))/(1/(t+1)) = t: private at ε, but
    not the channel OUE's spec declares."""
    q = 1.0 / (math.exp(epsilon) + 1.0)

    def sample(x, n, rng):
        u = rng.random((n, d))
        y = (u < 0.5).view(np.uint8)
        y[:, x] = u[:, x] < q
        return y

    return sample
