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
