"""Vectorized randomizers over wide domains for tests/test_audit_wide.py (importable by name,
so that isolated and CLI audits load them too)."""
import numpy as np


def krr(d, eps):
    """k-RR over 0..d-1 at ε = eps (batch)."""
    d, eps = int(d), float(eps)
    keep = np.exp(eps) / (np.exp(eps) + d - 1)

    def randomizer(x, n, rng):
        other = rng.integers(0, d - 1, size=n)
        other += other >= x
        return np.where(rng.random(n) < keep, x, other)

    return randomizer


def krr_leaky_zero(d, eps):
    """k-RR at ε, except that input 0 always reports 0 with probability 1/2 (a flaw of one input
    that no relation pooled over all inputs can see)."""
    base = krr(d, eps)

    def randomizer(x, n, rng):
        y = base(x, n, rng)
        if x == 0:
            y = np.where(rng.random(n) < 0.5, 0, y)
        return y

    return randomizer


def oue(d, eps, keep=0.5):
    """Optimized unary encoding over 0..d-1 as an (n, d) uint8 matrix: bit x is 1 with
    probability ``keep`` (1/2 for OUE), every other bit with 1/(e^ε + 1)."""
    d, eps, keep = int(d), float(eps), float(keep)
    q = 1.0 / (np.exp(eps) + 1)

    def randomizer(x, n, rng):
        y = (rng.random((n, d)) < q).astype(np.uint8)
        y[:, x] = rng.random(n) < keep
        return y

    return randomizer


def _parity(a):
    """popcount(a) mod 2 of a uint64 array: np.bitwise_count (numpy >= 2), else a byte table."""
    if hasattr(np, "bitwise_count"):
        return (np.bitwise_count(a) & 1).astype(np.int64)
    table = np.array([bin(b).count("1") & 1 for b in range(256)], dtype=np.uint8)
    return np.bitwise_xor.reduce(table[a.view(np.uint8)].reshape(a.shape + (8,)), axis=-1).astype(np.int64)


def hr(d, eps, keep=None, columns: str = "uniform"):
    """Binary Hadamard response over 0..d-1 (batch): j uniform in [K], K the smallest power of two
    > d, and b = popcount((x + 1) & j) mod 2 kept with probability ``keep`` (e^ε/(e^ε + 1) by
    default), as an (n, 2) int64 array of (j, b). Planted flaws: ``keep`` too high; ``columns =
    "even"`` draws only even j (bit 0 of j cleared: a j distribution that is not uniform);
    ``columns = "redraw"`` draws j again once when H[x + 1, j] is -1 (bit 1), so that j depends
    on x: (j, 0) with H[x + 1, j] = +1 = -H[x' + 1, j] has ratio 3e^ε."""
    d, eps = int(d), float(eps)
    K = 1 << d.bit_length()
    keep = np.exp(eps) / (np.exp(eps) + 1) if keep is None else float(keep)

    def randomizer(x, n, rng):
        j = rng.integers(0, K, size=n, dtype=np.int64)
        if columns == "even":
            j &= ~1
        h = _parity(j.astype(np.uint64) & np.uint64(int(x) + 1))
        if columns == "redraw":
            again = rng.integers(0, K, size=n, dtype=np.int64)
            j = np.where(h == 1, again, j)
            h = _parity(j.astype(np.uint64) & np.uint64(int(x) + 1))
        b = np.where(rng.random(n) < keep, h, 1 - h)
        return np.stack([j, b], axis=1)

    return randomizer


def hr_hash(seeds, x):
    """HR's hash as an implementation would write it: the bit of H[x + 1, j] (vectorized)."""
    return _parity(np.asarray(seeds).astype(np.uint64) & np.uint64(int(x) + 1))
