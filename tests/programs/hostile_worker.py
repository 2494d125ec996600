"""Batch randomizers that take over the isolation worker's replies. They run inside the worker's
process, so they can: each replaces the worker's ``block_reply`` (its ``__main__``) with one
that breaks the binary protocol in one way, then returns honest outputs. The auditor must
refuse every such reply before it reads a byte of the payload as a number."""
import os
import sys
import threading

import numpy as np


def _take_over(reply):
    sys.modules["__main__"].block_reply = reply


def _honest(x, n):
    return np.full(n, x, dtype=np.int64)


def _run(counts, descriptor, payload, announced=None, **header):
    payload = np.ascontiguousarray(payload)
    return {"block": descriptor, "bytes": payload.nbytes if announced is None else announced, **header}, \
        [(payload, None)]


def out_of_range(x, n, rng):
    """int8 outputs sent as int16, one of them 300."""
    def reply(outputs, counts, **_):
        values = np.zeros(sum(counts), dtype="<i2")
        values[-1] = 300
        return _run(counts, [["r", "|i1", "<i2", [], len(counts)]], values)
    _take_over(reply)
    return _honest(x, n)


def negative_for_unsigned(x, n, rng):
    """uint16 outputs sent as int16, one of them -5."""
    def reply(outputs, counts, **_):
        values = np.ones(sum(counts), dtype="<i2")
        values[0] = -5
        return _run(counts, [["r", "<u2", "<i2", [], len(counts)]], values)
    _take_over(reply)
    return _honest(x, n)


def boolean_byte(x, n, rng):
    """Booleans whose byte is 2."""
    def reply(outputs, counts, **_):
        values = np.ones(sum(counts), dtype=np.uint8)
        values[1] = 2
        return _run(counts, [["r", "|b1", "|b1", [], len(counts)]], values)
    _take_over(reply)
    return _honest(x, n)


def object_dtype(x, n, rng):
    """Pointers: an object array."""
    def reply(outputs, counts, **_):
        return _run(counts, [["r", "|O", "|O", [], len(counts)]], np.zeros(8 * sum(counts), dtype=np.uint8))
    _take_over(reply)
    return _honest(x, n)


def float_wire(x, n, rng):
    """Integer outputs sent as floats."""
    def reply(outputs, counts, **_):
        return _run(counts, [["r", "<i8", "<f8", [], len(counts)]], np.zeros(sum(counts), dtype="<f8"))
    _take_over(reply)
    return _honest(x, n)


def oversized(x, n, rng):
    """Announces a terabyte."""
    def reply(outputs, counts, **_):
        return _run(counts, [["r", "<i8", "<i8", [1 << 30], len(counts)]], np.zeros(8, dtype=np.uint8),
                    announced=1 << 40)
    _take_over(reply)
    return _honest(x, n)


def wrong_length(x, n, rng):
    """Announces more bytes than its descriptors need."""
    def reply(outputs, counts, **_):
        values = np.zeros(sum(counts), dtype="<u2")
        return _run(counts, [["r", "<i8", "<u2", [], len(counts)]], values, announced=values.nbytes + 2)
    _take_over(reply)
    return _honest(x, n)


def too_few_chunks(x, n, rng):
    """Describes one chunk fewer than were asked for."""
    def reply(outputs, counts, **_):
        values = np.zeros(sum(counts[1:]), dtype="<u2")
        return _run(counts, [["r", "<i8", "<u2", [], len(counts) - 1]], values)
    _take_over(reply)
    return _honest(x, n)


def short_payload(x, n, rng):
    """Sends half the bytes it announces, then exits."""
    def reply(outputs, counts, **_):
        values = np.zeros(sum(counts), dtype="<u2")
        threading.Timer(1.0, os._exit, [0]).start()
        return {"block": [["r", "<i8", "<u2", [], len(counts)]], "bytes": values.nbytes}, \
            [(values[:len(values) // 2], None)]
    _take_over(reply)
    return _honest(x, n)


def shared_oversized(x, n, rng):
    """Says that 32 MiB of values are in the 16 MiB buffer shared with the auditor."""
    def reply(outputs, counts, **_):
        width = (1 << 25) // sum(counts)
        return _run(counts, [["r", "<i8", "|u1", [width], len(counts)]], np.zeros(8, dtype=np.uint8),
                    announced=width * sum(counts), shared=True)
    _take_over(reply)
    return _honest(x, n)


def not_a_header(x, n, rng):
    """Answers a block with the plain protocol's reply."""
    def reply(outputs, counts, **_):
        return {"outputs": [1, 2, 3]}, []
    _take_over(reply)
    return _honest(x, n)


# -- honest batch randomizers for the transport tests ----------------------------------------

BOUNDARIES = {  # input -> values of one dtype at the edges of the wire dtypes
    0: np.array([0, 255], dtype=np.int64),                       # uint8
    1: np.array([0, 256], dtype=np.int64),                       # uint16
    2: np.array([-1, 127], dtype=np.int64),                      # int8
    3: np.array([-129, 0], dtype=np.int64),                      # int16
    4: np.array([0, 65535], dtype=np.int64),                     # uint16
    5: np.array([0, 65536], dtype=np.int64),                     # uint32
    6: np.array([0, 2**32 - 1], dtype=np.int64),                 # uint32
    7: np.array([0, 2**32], dtype=np.int64),                     # int64
    8: np.array([-2**63, 2**63 - 1], dtype=np.int64),            # int64
    9: np.array([0, 2**64 - 1], dtype=np.uint64),                # uint64
    10: np.array([-2**31, 2**31 - 1], dtype=np.int32),           # int32
    11: np.array([True, False]),                                 # bool
    12: np.array([np.inf, -0.0, np.nan, 1e-310], dtype=np.float64),
    13: np.array([np.float32(1) / 3, -np.inf], dtype=np.float32),
    14: np.array([65504, 2**-24], dtype=np.float16),
}


def boundary(x, n, rng):
    """n outputs cycling through BOUNDARIES[x] (n a multiple of its length)."""
    values = BOUNDARIES[x]
    return np.tile(values, n // len(values))


def krr_global(x, n, rng):
    """k-RR over 0..9 at ε = 1 drawn from numpy.random's global state (not the rng given),
    and for input 3 also from random's."""
    import random

    keep = np.exp(1.0) / (np.exp(1.0) + 9)
    other = np.random.randint(0, 9, size=n)
    other += other >= x
    y = np.where(np.random.random(n) < keep, x, other)
    if x == 3:
        y[0] = random.randrange(10)
    return y


def krr_global_late(x, n, rng):
    """k-RR over 0..9 from the rng given, except input 7, drawn from numpy.random's global
    state: the worker first sees the globals used at input 7."""
    if x == 7:
        return krr_global(x, n, None)
    keep = np.exp(1.0) / (np.exp(1.0) + 9)
    other = rng.integers(0, 9, size=n)
    other += other >= x
    return np.where(rng.random(n) < keep, x, other)
