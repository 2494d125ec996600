"""Randomizers for the cluster tests and benchmark: per-call k-RR in plain Python that spends
a given number of microseconds per draw (busy-waiting, as real per-report clients do), so
that chunks take long enough to kill a worker or a client in the middle of an audit."""
from __future__ import annotations

import math
import random
import time


def slow_krr(*, d="4", epsilon="1", micros="0"):
    """Per-call k-RR at ``epsilon`` on 0..d-1, ``micros`` µs of busy work per draw."""
    d, epsilon, spend = int(d), float(epsilon), float(micros) * 1e-6
    keep = math.exp(epsilon) / (math.exp(epsilon) + d - 1)

    def sample(x):
        if spend:
            end = time.perf_counter() + spend
            while time.perf_counter() < end:
                pass
        if random.random() < keep:
            return x
        y = random.randrange(d - 1)
        return y + (y >= x)

    return sample


def sleepy_krr(*, d="4", epsilon="1", micros="0"):
    """:func:`slow_krr` (the same draws) spending ``micros`` µs per draw on average asleep, not
    busy: 1 ms of sleep every 1000/``micros`` draws. Chunks take as long, so a cluster worker can
    be lost or join while they run, without burning a core meanwhile."""
    d, epsilon = int(d), float(epsilon)
    keep = math.exp(epsilon) / (math.exp(epsilon) + d - 1)
    every = max(1, round(1000 / float(micros))) if float(micros) else 0
    calls = 0

    def sample(x):
        nonlocal calls
        calls += 1
        if every and calls % every == 0:
            time.sleep(0.001)
        if random.random() < keep:
            return x
        y = random.randrange(d - 1)
        return y + (y >= x)

    return sample


krr_eps15 = slow_krr(d="4", epsilon="1.5")      # audited at a claimed ε = 1: a violation


def is_zero(y):
    """A feature (--feature): whether a k-RR report is 0, a post-processing of the report."""
    return int(y == 0)


def work_krr(*, d="4", epsilon="1", loops="0"):
    """Per-call k-RR at ``epsilon`` on 0..d-1 that does ``loops`` iterations of arithmetic per
    draw: a fixed amount of CPU work, so that its CPU time (unlike a busy-wait's) does not
    depend on how busy the machine is (benchmarks/bench_cluster.py calibrates ``loops``)."""
    d, epsilon, loops = int(d), float(epsilon), int(loops)
    keep = math.exp(epsilon) / (math.exp(epsilon) + d - 1)

    def sample(x):
        acc = 0
        for i in range(loops):
            acc = (acc + i * i) % 1000003
        if random.random() < keep:
            return x
        y = random.randrange(d - 1)
        return y + (y >= x) + 0 * acc

    return sample
