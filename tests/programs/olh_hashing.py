"""OLH implementations and their hash functions, for the spec-guided hash audit
(``ldpaudit audit TARGET --spec specs/olh.toml --hash this.py:hash4``)."""
import hashlib
import math

import numpy as np

D, EPS = 25, 1.0
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def _mix(seed, x, g):
    with np.errstate(over="ignore"):
        z = np.asarray(seed).astype(np.uint64) ^ (np.asarray(x).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        z = z ^ (z >> np.uint64(31))
    return (z % np.uint64(g)).astype(np.int64)


def hash4(seed, x):
    """The implementation's hash into g = 4 buckets (vectorized over seeds)."""
    return _mix(seed, x, 4)


def hash3(seed, x):
    return _mix(seed, x, 3)


def hash4_scalar(seed, x):
    """A hash that only takes Python ints (BLAKE2b of the pair): called once per seed."""
    if not isinstance(seed, int):
        raise TypeError("one seed at a time")
    return int.from_bytes(hashlib.blake2b(f"{seed}:{x}".encode(), digest_size=8).digest(), "little") % 4


def hash4_tuple(seed, x):
    """Python's tuple hash: not a universal family (x = 0 and x = 3 collide too rarely)."""
    return hash((int(seed), x, 12345)) % 4


def _olh(hash_function, g, g_perturb):
    p = math.exp(EPS) / (math.exp(EPS) + g_perturb - 1)

    def sample(x, n, rng):
        seed = rng.integers(0, 2**63 - 1, size=n, dtype=np.int64)
        h = hash_function(seed, x)
        other = rng.integers(0, g - 1, size=n)
        return np.stack([seed, np.where(rng.random(n) < p, h, other + (other >= h))], axis=1)

    return sample


olh_ok = _olh(hash4, 4, 4)             # correct OLH, g = 4
olh_seed_ignored = _olh(lambda seed, x: hash4(np.zeros_like(seed), x), 4, 4)  # reports its seed, hashes with seed 0
olh_binary_p = _olh(hash4, 4, 2)       # hit probability of g = 2 while hashing into 4 buckets
olh_g3 = _olh(hash3, 3, 3)             # a correct OLH for g = 3, audited against g = 4


def _olh_scalar(hash_function):
    p = math.exp(EPS) / (math.exp(EPS) + 3)

    def sample(x, n, rng):
        seed = rng.integers(0, 2**62, size=n)
        out = []
        for s, u, o in zip(seed.tolist(), rng.random(n).tolist(), rng.integers(0, 3, size=n).tolist()):
            h = hash_function(s, x)
            out.append((s, h if u < p else o + (o >= h)))
        return out

    return sample


olh_scalar = _olh_scalar(hash4_scalar)
olh_tuple_hash = _olh_scalar(hash4_tuple)
