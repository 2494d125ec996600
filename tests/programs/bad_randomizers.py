"""Misbehaving randomizers for the isolation tests (loaded by path by the worker)."""
import os
import random
import time


def sleeps_forever(x):
    time.sleep(10_000)


def exits(x):
    os._exit(3)


def eats_memory(x):
    hog = []
    while True:
        hog.append(bytearray(50 * 1024 * 1024))


def prints(x):
    print("debug: x =", x)
    return x


def fine(x):
    return x if random.random() < 0.75 else 1 - x


def fine_batch(x, n, rng):
    import numpy as np
    keep = rng.random(n) < 0.75
    return np.where(keep, x, 1 - x)


def returns_list(x):
    return [x]


def returns_dict(x):
    return {x: 1}
