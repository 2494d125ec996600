"""numpy's seeding for many chunks at once: the numbers ``np.random.default_rng(seed)`` and
``np.random.SeedSequence(entropy, spawn_key=key)`` produce, computed on arrays.

An isolated randomizer's chunk (external.py) draws its seed S as
``default_rng(SeedSequence(entropy, spawn_key=key)).integers(0, 2**63 - 1)`` on the auditor's
side and runs with ``default_rng(S)`` in the worker. Each costs 10-20 µs of numpy objects (a
SeedSequence, a BitGenerator with its lock and capsule), as much as drawing a thousand k-RR
outputs, so at 10^5 inputs of 10^3 draws the seeding alone would cost more than the draws.
The same numbers come here from the same algorithms run over a block of chunks at once:

- SeedSequence's hash (Melissa O'Neill's ``seed_seq`` alternative, as in numpy's
  ``random/bit_generator.pyx``): hashmix/mix over uint32 words, then ``generate_state``;
- PCG64's seeding and XSL-RR output (``pcg64_set_seed``, ``pcg_setseq_128_srandom_r``), in
  Python's integers (128-bit arithmetic);
- ``Generator.integers(0, 2**63 - 1)``: Lemire's bounded integers (``bounded_lemire_uint64``).

:func:`matches_numpy` compares them with numpy once per process (:func:`spawned_first`, the
auditor's seeds, on the first table of each shape it is given); the callers use numpy's own
objects when they differ (another numpy), so the draws never depend on this module being right.
This module imports only numpy.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = np.uint32(0xCA01F9DD), np.uint32(0x4973F715)
_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1
_PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645
_POOL = 4
#: ``integers(0, 2**63 - 1)``: Lemire's method on the inclusive range [0, 2^63 - 2]
_RANGE = (1 << 63) - 1
_THRESHOLD = (_M64 - (_RANGE - 1)) % _RANGE


def uint32_words(value) -> list[int]:
    """numpy's ``_coerce_to_uint32_array`` of an int or a sequence of ints: each int as its
    32-bit words, lowest first (0 as one word)."""
    if type(value) is int and 0 <= value <= _M32:
        return [value]
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if value < 0:
            raise ValueError("expected non-negative integer")
        words = [value & _M32]
        value >>= 32
        while value:
            words.append(value & _M32)
            value >>= 32
        return words
    words = list(value)
    if all(type(v) is int and 0 <= v <= _M32 for v in words):
        return words
    return [w for item in value for w in uint32_words(item)]


def _consts(first: int, mult: int, n: int) -> np.ndarray:
    """The first n + 1 hash constants of a SeedSequence stage (each the last times ``mult``, mod
    2^32): hashmix call k xors with constant k and multiplies by constant k + 1."""
    out = [first]
    for _ in range(n):
        out.append((out[-1] * mult) & _M32)
    return np.array(out, dtype=np.uint32)


_MAX_ENTROPY = 64       # words of assembled entropy whose hash constants are tabled
#: SeedSequence's hashmix constants in call order: 4 pool words, 12 cross mixes, 4 per further word
_HASH_A = _consts(_INIT_A, _MULT_A, _POOL + _POOL * (_POOL - 1) + _POOL * (_MAX_ENTROPY - _POOL))
_HASH_B = _consts(_INIT_B, _MULT_B, 2 * _POOL)
_S16 = np.uint32(16)


def _hashmix(values: np.ndarray, k: int, consts: np.ndarray = _HASH_A) -> np.ndarray:
    """hashmix calls k, k + 1, ... of rows of ``values`` (an (m, rows) array, one call a row):
    (value xor constant k) times constant k + 1, then xor its high half into its low half."""
    m = len(values)
    values = (values ^ consts[k:k + m, None]) * consts[k + 1:k + m + 1, None]
    return values ^ (values >> _S16)


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    result = _MIX_L * x - _MIX_R * y
    return result ^ (result >> _S16)


_OTHERS = [[d for d in range(_POOL) if d != s] for s in range(_POOL)]


def _pools(entropy: np.ndarray) -> np.ndarray:
    """SeedSequence's pool (4 uint32 rows) of each row of ``entropy`` (rows of equal length):
    the calls of ``mix_entropy`` in its order, those that do not depend on each other at once
    (a source word mixed into the three other pool words; a further word into all four)."""
    rows, length = entropy.shape
    if length > _MAX_ENTROPY:
        raise ValueError(f"more than {_MAX_ENTROPY} words of entropy")
    words = np.zeros((_POOL, rows), dtype=np.uint32)
    words[:min(length, _POOL)] = entropy[:, :_POOL].T
    mixer = _hashmix(words, 0)
    k = _POOL
    for src in range(_POOL):
        others = _OTHERS[src]
        mixer[others] = _mix(mixer[others], _hashmix(np.broadcast_to(mixer[src], (_POOL - 1, rows)), k))
        k += _POOL - 1
    for src in range(_POOL, length):
        mixer = _mix(mixer, _hashmix(np.broadcast_to(entropy[:, src], (_POOL, rows)), k))
        k += _POOL
    return mixer


def _generate_state64(mixer: np.ndarray) -> list[np.ndarray]:
    """``generate_state(4, np.uint64)`` of each pool: four uint64 columns."""
    words = _hashmix(mixer[[0, 1, 2, 3, 0, 1, 2, 3]], 0, _HASH_B).astype(np.uint64)
    return list(words[0::2] | (words[1::2] << np.uint64(32)))


# -- 128-bit arithmetic on (high, low) pairs of uint64 arrays ----------------------------------

_LOW32 = np.uint64(_M32)
_S32, _S63, _S58, _ONE = np.uint64(32), np.uint64(63), np.uint64(58), np.uint64(1)
_MULT_HIGH, _MULT_LOW = _PCG_MULT >> 64, _PCG_MULT & _M64


def _mul_high(a: np.ndarray, b: int) -> np.ndarray:
    """The high 64 bits of the 128-bit products a * b (b a 64-bit constant)."""
    b0, b1 = np.uint64(b & _M32), np.uint64(b >> 32)
    a0, a1 = a & _LOW32, a >> _S32
    p01, p10 = a0 * b1, a1 * b0
    mid = ((a0 * b0) >> _S32) + (p01 & _LOW32) + (p10 & _LOW32)
    return a1 * b1 + (p01 >> _S32) + (p10 >> _S32) + (mid >> _S32)


def _step(high, low, inc_high, inc_low):
    """PCG64's step: state * multiplier + increment (mod 2^128), on (high, low) arrays."""
    new_low = low * np.uint64(_MULT_LOW)
    new_high = _mul_high(low, _MULT_LOW) + low * np.uint64(_MULT_HIGH) + high * np.uint64(_MULT_LOW)
    out_low = new_low + inc_low
    return new_high + inc_high + (out_low < new_low).astype(np.uint64), out_low


def _pcg64(words: list[np.ndarray]) -> tuple:
    """((state high, low), (increment high, low)) of ``PCG64`` seeded with
    ``generate_state(4, np.uint64)`` = words: ``pcg64_set_seed`` (seed = words 0-1, sequence =
    words 2-3), then ``srandom``: state = 0, inc = 2 * sequence + 1, step, state += seed, step."""
    inc_high = (words[2] << _ONE) | (words[3] >> _S63)
    inc_low = (words[3] << _ONE) | _ONE
    low = inc_low + words[1]                               # the first step from 0 gives inc
    high = inc_high + words[0] + (low < inc_low).astype(np.uint64)
    return _step(high, low, inc_high, inc_low), (inc_high, inc_low)


def _xsl_rr(high: np.ndarray, low: np.ndarray) -> np.ndarray:
    """PCG64's output of each state: (high xor low) rotated right by the top 6 bits."""
    value, rot = high ^ low, high >> _S58
    return (value >> rot) | (value << ((np.uint64(64) - rot) & np.uint64(63)))


def _pcg64_of(table: np.ndarray) -> tuple:
    """The seeded PCG64 of each row of assembled SeedSequence entropy (uint32)."""
    return _pcg64(_generate_state64(_pools(table)))


def _join(high: np.ndarray, low: np.ndarray) -> list[int]:
    return [h << 64 | l for h, l in zip(high.tolist(), low.tolist())]


def default_rng_words(seeds: Sequence[int]) -> np.ndarray:
    """The PCG64 state of ``np.random.default_rng(seed)`` for each seed (an int below 2^64:
    one 32-bit word of entropy, or two), as rows of uint64 (state low, state high, increment
    low, increment high): the layout of numpy's ``pcg64_random_t`` in memory."""
    values = np.asarray(seeds, dtype=np.uint64).reshape(-1)
    out = np.empty((len(values), 4), dtype=np.uint64)
    short = values <= _LOW32
    for rows, columns in ((np.flatnonzero(short), 1), (np.flatnonzero(~short), 2)):
        if not len(rows):
            continue
        v = values[rows]
        table = (v & _LOW32)[:, None] if columns == 1 else np.stack([v & _LOW32, v >> _S32], axis=1)
        (high, low), (inc_high, inc_low) = _pcg64_of(table.astype(np.uint32))
        out[rows] = np.stack([low, high, inc_low, inc_high], axis=1)
    return out


def default_rng_states(seeds: Sequence[int]) -> list[tuple[int, int]]:
    """The PCG64 (state, increment) of ``np.random.default_rng(seed)`` for each seed."""
    words = default_rng_words(seeds)
    return list(zip(_join(words[:, 1], words[:, 0]), _join(words[:, 3], words[:, 2])))


def spawned_integers(entropy, keys: Sequence[tuple], counts: Sequence[int]) -> list[list[int]]:
    """For each spawn key, the first ``counts[i]`` values of
    ``default_rng(SeedSequence(entropy, spawn_key=key)).integers(0, 2**63 - 1)``, drawn one
    at a time."""
    run = uint32_words(entropy)
    padded = run + [0] * (_POOL - len(run))     # a spawn key pads the entropy to the pool size
    out: list = [None] * len(keys)
    groups: dict = {}
    table = None
    try:        # the auditor's keys: (phase, input, chunk), small ints, all of one length
        table = np.array(keys, dtype=np.int64)
    except (OverflowError, TypeError, ValueError):
        pass
    if table is not None and table.ndim == 2 and (table.size == 0 or (table.min() >= 0 and table.max() <= _M32)):
        groups[table.shape[1]] = (range(len(keys)), table)
    else:
        for i, key in enumerate(keys):
            spawn = uint32_words(key)
            group = groups.setdefault(len(spawn), ([], []))
            group[0].append(i)
            group[1].append(spawn)
    for length, (rows, spawns) in groups.items():
        prefix = padded if length else run
        table = np.empty((len(rows), len(prefix) + length), dtype=np.uint32)
        table[:, :len(prefix)] = prefix
        if length:
            table[:, len(prefix):] = spawns
        (high, low), inc = _pcg64_of(table)
        need = counts if isinstance(rows, range) else [counts[i] for i in rows]
        most = max(need, default=0)
        drawn: list = [[] for _ in rows] if most != 1 or min(need) != 1 else None
        for j in range(most):
            high, low = _step(high, low, *inc)
            value = _xsl_rr(high, low)
            if (value * np.uint64(_RANGE) < np.uint64(_THRESHOLD)).any():
                return _spawned_integers_slowly(entropy, keys, counts)  # Lemire's rejection: p = 2^-62
            draws = _mul_high(value, _RANGE).tolist()
            if drawn is None:           # one value per key, the auditor's usual case
                drawn = [[v] for v in draws]
                break
            for r, m in enumerate(need):
                if m > j:
                    drawn[r].append(draws[r])
        for i, values in zip(rows, drawn or [[] for _ in rows]):
            out[i] = values
    return out


#: (entropy words, key words) -> whether :func:`spawned_first` gives numpy's numbers for tables of that shape
_FIRST_AGREES: dict = {}


def spawned_first(entropy, table: np.ndarray) -> np.ndarray:
    """The first value of ``default_rng(SeedSequence(entropy, spawn_key=key)).integers(0, 2**63 - 1)``
    for each row of ``table``, spawn keys of equal length whose values fit 32 bits (the auditor's
    (phase, input, chunk)), as a uint64 array: :func:`spawned_integers` without a list per key.
    The first table of each shape (entropy words, key words) is checked against numpy's own
    objects on its first and last keys, once per process: where they differ (another numpy),
    numpy's objects give every value."""
    run = uint32_words(entropy)
    if not len(table):
        return np.zeros(0, dtype=np.uint64)
    prefix = run + [0] * (_POOL - len(run)) if table.shape[1] else run
    full = np.empty((len(table), len(prefix) + table.shape[1]), dtype=np.uint32)
    full[:, :len(prefix)] = prefix
    full[:, len(prefix):] = table
    (high, low), inc = _pcg64_of(full)
    value = _xsl_rr(*_step(high, low, *inc))
    shape = (len(run), table.shape[1])
    if shape not in _FIRST_AGREES:
        ends = table[[0, -1]]
        _FIRST_AGREES[shape] = _mul_high(value[[0, -1]], _RANGE).tolist() == [
            v for v, in _spawned_integers_slowly(entropy, ends, [1, 1])]
    if not _FIRST_AGREES[shape] or (value * np.uint64(_RANGE) < np.uint64(_THRESHOLD)).any():
        # numpy's numbers differ here, or Lemire's rejection (p = 2^-62): numpy's objects
        return np.array([v for v, in _spawned_integers_slowly(entropy, table, [1] * len(table))], dtype=np.uint64)
    return _mul_high(value, _RANGE)


def _spawned_integers_slowly(entropy, keys, counts) -> list[list[int]]:
    if isinstance(keys, np.ndarray):    # a table of keys, one per row
        keys = [tuple(row) for row in keys.tolist()]
    rngs = [np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=k)) for k in keys]
    return [[int(rng.integers(0, 2**63 - 1)) for _ in range(c)] for rng, c in zip(rngs, counts)]


_MATCHES: bool | None = None


def matches_numpy() -> bool:
    """Whether this module gives numpy's numbers (checked once per process on a few seeds and
    keys, including the entropy and key lengths the audits use)."""
    global _MATCHES
    if _MATCHES is None:
        try:
            seeds = [0, 1, 2**32 - 1, 2**32, 2**63 - 2, 123456789123456789]
            ours = default_rng_states(seeds)
            theirs = [np.random.default_rng(s).bit_generator.state["state"] for s in seeds]
            same = ours == [(t["state"], t["inc"]) for t in theirs]
            for entropy in (0, 7, 2**100 + 3, [1, 2]):
                keys = [(), (5, 0, 0), (6, 99999, 3, 1), (1, 2**40)]
                ours_int = spawned_integers(entropy, keys, [3] * len(keys))
                rngs = [np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=k)) for k in keys]
                theirs_int = [[int(rng.integers(0, 2**63 - 1)) for _ in range(3)] for rng in rngs]
                same = same and ours_int == theirs_int
            _MATCHES = bool(same)
        except Exception:  # noqa: BLE001 - any surprise means: use numpy's objects
            _MATCHES = False
    return _MATCHES
