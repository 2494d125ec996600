"""Hash families as part of a mechanism: O-RR, O-RAPPOR and local hashing (Kairouz,
Bonawitz & Ramage ICML 2016; Wang et al. USENIX Security 2017).

A hashed mechanism puts each user in one of C cohorts (uniformly) and encodes
``hash_c(x)`` instead of x. Its spec declares the cohorts C, the output alphabet k, the
number h of hashes per cohort and the hash family, which is one of

* an explicit table (closed alphabets, minimal perfect hashing): ``hash = [[...], ...]``,
  row c giving ``hash_c(x)`` for x = 0..d-1 (O-RR), or ``hash = [[[...]]]`` indexed
  [c][i][x] for the h hashes of a Bloom filter; ``permutation = true`` requires every row
  to be a permutation of 0..k-1 (then d = k);
* a named family with the reference implementation below:

  ``carter-wegman`` -- the universal family of Carter & Wegman (1979),
  ``hash_{c,i}(x) = ((a x + b) mod p) mod k`` with the Mersenne prime p = 2^31 - 1 and
  per-(cohort, hash) keys ``a = 1 + K(c, i, 0) mod (p - 1)``, ``b = K(c, i, 1) mod p``,
  where ``K(c, i, j) = splitmix64(splitmix64(splitmix64(seed) ^ c) ^ (2 i + j))`` and
  splitmix64 is Steele, Lea & Flood's 64-bit finalizer (2014). Inputs must be < p. Any two
  inputs collide in a fraction close to 1/k of the cohorts (exactly 1/k only for k = p);

  ``all-functions`` -- cohort c in [k^d] *is* the function x -> digit x of c in base k, so
  C = k^d and any two distinct inputs collide in exactly a fraction 1/k of the cohorts. This
  is the ideal universal family that the analysis of local hashing assumes (Wang et al.'s
  OLH/BLH); its reference sampler draws the d digits of c;

  ``hadamard`` -- binary Hadamard response (Cormode, Kulkarni & Srivastava, VLDB 2018; Apple's
  "HRR", 2017): cohort j in [K], K a power of two greater than d (the spec gives the smallest,
  ``2**(floor(log(d)/log(2)) + 1)``), and ``hash_j(x) = popcount((x + 1) & j) mod 2``, the
  entry of row x + 1, column j of the K × K Sylvester Hadamard matrix as a bit (0 for +1). The
  rows x + 1 of two distinct inputs are distinct and non-zero, so ``hash_j(x) xor hash_j(x') =
  popcount(((x + 1) xor (x' + 1)) & j) mod 2`` is a non-zero linear form of j over GF(2): it
  is 1 for exactly half of the K cohorts, and two inputs collide with probability exactly 1/2
  = 1/k, as with the all-functions family, in K <= 2d cohorts instead of 2^d.

Outputs are ``(c, v)`` for O-RR / local hashing (a structured channel with
:class:`~ldpaudit.mechanism.spaces.CohortSpace` outputs) and the flat tuple ``(c, b_0, ...,
b_{k-1})`` for O-RAPPOR (:class:`BloomChannel`, ``form = "bloom"``): a Bloom filter whose
"on" positions are the h hashed positions of x, then RAPPOR's independent flips (law ``on``
for a set bit, ``off`` for the others). A Bloom channel with C = 1, h = 1 and a permutation
hash is k-RAPPOR up to relabelling the outputs; that is why it is modelled as the product
form with a hashed set of "on" coordinates instead of a one-hot one (the least invasive
design: the coordinate laws, their validation and their proofs are the product form's).
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass, replace

import sympy as sp

from ldpaudit.errors import InvalidSpec, NotMaterializable
from ldpaudit.mechanism.checks import _require_nonnegative, is_zero, require_numeric_sizes
from ldpaudit.mechanism.explicit import ExplicitChannel
from ldpaudit.mechanism.expr import eval_condition
from ldpaudit.mechanism.params import _subs
from ldpaudit.mechanism.spaces import FiniteDomain

#: the Mersenne prime of the Carter-Wegman family
MERSENNE_31 = 2**31 - 1
_MASK = 2**64 - 1
FAMILIES = ("carter-wegman", "all-functions", "hadamard")
#: an explicit table or generated family is listed only up to this many hash values
MAX_TABLE_VALUES = 4_000_000


def splitmix64(z: int) -> int:
    """Steele, Lea & Flood's splitmix64 finalizer (64-bit, exact Python ints)."""
    z = (z + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def hadamard_cohorts(d) -> sp.Basic:
    """K, the smallest power of two greater than d: ``2**(floor(log2(d)) + 1)`` (an integer for
    a numeric d, the spec's expression for a symbolic one)."""
    d = sp.sympify(d)
    if d.is_Integer:
        return sp.Integer(1 << int(d).bit_length())
    return 2 ** (sp.floor(sp.log(d) / sp.log(2)) + 1)


_PARITY_BYTES = None


def parity(a):
    """popcount(a) mod 2 of a numpy unsigned array, elementwise, as uint8: ``np.bitwise_count``
    (numpy >= 2), else a 256-entry byte table over the array's bytes."""
    import numpy as np

    if not (isinstance(a, np.ndarray) and a.dtype == np.uint64):
        a = np.asarray(a, dtype=np.uint64)
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(a) & np.uint8(1)
    return _parity_by_bytes(a)


def _parity_by_bytes(a):
    """popcount(a) mod 2 through a 256-entry table of byte parities (numpy < 2)."""
    import numpy as np

    global _PARITY_BYTES
    a = np.ascontiguousarray(a, dtype=np.uint64)
    if _PARITY_BYTES is None:
        _PARITY_BYTES = np.array([bin(b).count("1") & 1 for b in range(256)], dtype=np.uint8)
    by = _PARITY_BYTES[a.view(np.uint8)].reshape(a.shape + (8,))
    return np.bitwise_xor.reduce(by, axis=-1).astype(np.uint8)


def hadamard_hash(seeds, x):
    """The Hadamard family's h(j, x) = popcount((x + 1) & j) mod 2 for an array of cohorts j
    (uint8 0/1), or for one j (an int): the hash a spec-guided audit of HR uses when the user
    gives none. Cohorts are read as unsigned 64-bit integers."""
    import numpy as np

    j = np.asarray(seeds)
    if j.dtype == np.int64:
        j = j.view(np.uint64)           # the same bits, no copy
    elif j.dtype != np.uint64:
        j = j.astype(np.uint64)
    bits = parity(j & np.uint64(int(x) + 1))
    return bits if bits.ndim else int(bits)


def carter_wegman_key(seed: int, c: int, i: int) -> tuple[int, int]:
    """(a, b) of hash i of cohort c: a in [1, p-1], b in [0, p-1]."""
    base = splitmix64(splitmix64(seed & _MASK) ^ c)
    a = 1 + splitmix64(base ^ (2 * i)) % (MERSENNE_31 - 1)
    b = splitmix64(base ^ (2 * i + 1)) % MERSENNE_31
    return a, b


@dataclass(frozen=True)
class HashFamily:
    """A named hash family (see the module docstring) with its seed."""

    name: str
    seed: int = 0

    def __post_init__(self):
        if self.name not in FAMILIES:
            raise InvalidSpec(f"channel.family = {self.name!r} is not a known hash family; use one of {', '.join(FAMILIES)}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not 0 <= self.seed < 2**64:
            raise InvalidSpec(f"channel.seed = {self.seed!r} must be an integer in 0..2**64-1")

    def value(self, c: int, i: int, x: int, k: int) -> int:
        """hash_{c,i}(x) in [0, k)."""
        if self.name == "all-functions":
            return (c // k**x) % k
        if self.name == "hadamard":
            return bin((x + 1) & c).count("1") % 2
        if not 0 <= x < MERSENNE_31:
            raise InvalidSpec(f"input {x} is outside the carter-wegman family's range 0..2**31-2")
        a, b = carter_wegman_key(self.seed, c, i)
        return ((a * x + b) % MERSENNE_31) % k

    def table(self, cohorts: int, hashes: int, d: int, k: int):
        """The values as a numpy int64 array of shape (C, h, d) (vectorized, exact)."""
        import numpy as np

        if cohorts * hashes * d > MAX_TABLE_VALUES:
            raise NotMaterializable(
                f"{self.name} family with C={cohorts}, h={hashes}, d={d} has {cohorts * hashes * d} hash values, "
                f"more than {MAX_TABLE_VALUES}")
        xs = np.arange(d, dtype=np.int64)
        if self.name == "all-functions":
            cs = np.arange(cohorts, dtype=object)
            return np.array([[[(int(c) // k**x) % k for x in range(d)]] for c in cs], dtype=np.int64)
        if self.name == "hadamard":
            js = np.arange(cohorts, dtype=np.uint64)[:, None]
            return parity(js & (xs.astype(np.uint64) + np.uint64(1))[None, :]).astype(np.int64)[:, None, :]
        if d > MERSENNE_31:
            raise NotMaterializable(f"carter-wegman hashes inputs below 2**31-1; d = {d}")
        keys = np.array([[carter_wegman_key(self.seed, c, i) for i in range(hashes)] for c in range(cohorts)],
                        dtype=np.int64).reshape(cohorts, hashes, 2)
        a, b = keys[..., 0:1], keys[..., 1:2]
        return ((a * xs + b) % MERSENNE_31) % k  # a*x < 2^62: exact in int64

    def vectorized(self):
        """The family's own hash as h(seeds, x) over an array of cohorts (the form an audit
        reads), or None where the cohorts cannot be held in 64 bits (all-functions: C = k^d)."""
        return hadamard_hash if self.name == "hadamard" else None

    def describe(self) -> str:
        return self.name + (f" (seed {self.seed})" if self.name == "carter-wegman" else "")


# --- validation of the declared hash structure ------------------------------------------------


def _int_or_none(expr):
    expr = sp.sympify(expr)
    return int(expr) if expr.is_Integer else None


def check_hash_structure(*, table, family, cohorts, k, hashes, d, permutation: bool, name: str) -> None:
    """Validate C, k, h and the hash table/family against each other; one-line InvalidSpec
    naming the field. ``table`` is indexed [c][i][x] (h hashes per cohort)."""
    C, K, H, D = (_int_or_none(v) for v in (cohorts, k, hashes, d))
    if C is not None and C < 1:
        raise InvalidSpec(f"channel.cohorts = {C} of {name!r}: a hashed mechanism needs at least 1 cohort")
    if K is not None and K < 2:
        raise InvalidSpec(f"channel.k = {K} of {name!r}: the output alphabet needs at least 2 values")
    if H is not None and H < 1:
        raise InvalidSpec(f"channel.hashes = {H} of {name!r}: give at least 1 hash per cohort")
    if H is not None and K is not None and H > K:
        raise InvalidSpec(f"channel.hashes = {H} exceeds channel.k = {K} of {name!r}: a Bloom filter of k bits "
                          "sets at most k positions; use h <= k")
    if (table is None) == (family is None):
        raise InvalidSpec(f"channel of {name!r} needs exactly one of channel.hash (a table) or channel.family")
    if table is not None:
        if K is None:
            raise InvalidSpec(f"channel.k = {k} of {name!r} is symbolic but channel.hash is a table; give k as a number")
        if C is not None and len(table) != C:
            raise InvalidSpec(f"channel.cohorts = {C} of {name!r} but channel.hash has {len(table)} rows; give one row per cohort")
        for c, rows in enumerate(table):
            if H is not None and len(rows) != H:
                raise InvalidSpec(f"channel.hash[{c}] of {name!r} has {len(rows)} hashes but channel.hashes = {H}")
            for i, row in enumerate(rows):
                where = f"channel.hash[{c}]" if len(rows) == 1 else f"channel.hash[{c}][{i}]"
                if D is not None and len(row) != D:
                    raise InvalidSpec(f"{where} of {name!r} has {len(row)} values but there are {D} inputs; "
                                      "give hash_c(x) for every input x")
                for x, v in enumerate(row):
                    if not 0 <= v < K:
                        raise InvalidSpec(f"{where}[{x}] = {v} of {name!r} is outside [0, k) = 0..{K - 1}")
                if permutation and sorted(row) != list(range(K)):
                    raise InvalidSpec(
                        f"{where} = {list(row)[:12]}{'...' if len(row) > 12 else ''} of {name!r} is not a permutation "
                        f"of 0..{K - 1}; channel.permutation = true requires a minimal perfect hash (d = k, no collisions)")
    else:
        if family.name == "all-functions":
            if H is not None and H != 1:
                raise InvalidSpec(f"channel.hashes = {H} of {name!r}: the all-functions family has one hash per cohort")
            if sp.simplify(sp.sympify(cohorts) - sp.sympify(k) ** sp.sympify(d)) != 0:
                raise InvalidSpec(f"channel.cohorts = {cohorts} of {name!r}: the all-functions family has C = k**d = "
                                  f"{sp.sympify(k) ** sp.sympify(d)} cohorts (one per function)")
        if family.name == "hadamard":
            _check_hadamard(cohorts=cohorts, k=k, H=H, d=d, D=D, name=name)
        if permutation:
            raise InvalidSpec(f"channel.permutation = true of {name!r} needs an explicit table (channel.hash); "
                              f"the {family.name} family is not a permutation")
        if D is not None and family.name == "carter-wegman" and D > MERSENNE_31:
            raise InvalidSpec(f"inputs.size = {D} of {name!r}: the carter-wegman family hashes inputs below 2**31-1")
    if permutation and D is not None and K is not None and D != K:
        raise InvalidSpec(f"channel.permutation = true of {name!r} needs d = k; inputs.size = {D}, channel.k = {K}")


def _check_hadamard(*, cohorts, k, H, d, D, name: str) -> None:
    """The Hadamard family: one bit per cohort (k = 2, h = 1) and C a power of two greater than
    d (symbolically: the spec's smallest one, 2**(floor(log(d)/log(2)) + 1))."""
    if H is not None and H != 1:
        raise InvalidSpec(f"channel.hashes = {H} of {name!r}: the hadamard family has one hash per cohort")
    if sp.sympify(k) != 2:
        raise InvalidSpec(f"channel.k = {k} of {name!r}: the hadamard family hashes to one bit; use k = 2")
    C = _int_or_none(cohorts)
    if C is not None and D is not None:
        if C & (C - 1) or C <= D:
            raise InvalidSpec(f"channel.cohorts = {C} of {name!r}: the hadamard family needs a power of two greater "
                              f"than d = {D} cohorts (the rows x + 1 <= d must be distinct and non-zero); use "
                              f"{1 << D.bit_length()}")
        return
    if sp.simplify(sp.sympify(cohorts) - hadamard_cohorts(d)) != 0:
        raise InvalidSpec(f"channel.cohorts = {cohorts} of {name!r}: the hadamard family with a symbolic d has "
                          f"K = 2**(floor(log(d)/log(2)) + 1) cohorts (the smallest power of two greater than d)")


# --- O-RAPPOR: a Bloom filter with RAPPOR's flips -------------------------------------------


@dataclass(frozen=True)
class BloomChannel:
    """O-RAPPOR: cohort c uniform in [C]; bits ``B_c(x) = {hash_{c,i}(x) : i < h}`` of a
    k-bit vector are "on"; each bit then has law ``on`` if it is in B_c(x) and ``off``
    otherwise, independently. Q((c, y) | x) = (1/C) prod_b law_b(y_b)."""

    cohorts: sp.Basic
    k: sp.Basic
    hashes: sp.Basic
    on: object  # CoordinateLaw
    off: object
    table: tuple | None = None  # [c][i][x]
    family: HashFamily | None = None
    permutation: bool = False
    form = "bloom"
    variables = frozenset()

    @property
    def continuous(self) -> bool:
        return False

    def expressions(self) -> list[sp.Basic]:
        return [self.cohorts, self.k, self.hashes, *self.on.expressions(), *self.off.expressions()]

    def substitute(self, subs) -> BloomChannel:
        return replace(self, cohorts=_subs(self.cohorts, subs), k=_subs(self.k, subs), hashes=_subs(self.hashes, subs),
                       on=self.on.substitute(subs), off=self.off.substitute(subs))

    def size_fields(self) -> list[tuple[str, sp.Basic]]:
        return [("channel.cohorts", self.cohorts), ("channel.k", self.k), ("channel.hashes", self.hashes)]

    def validate(self, mech) -> list[str]:
        return validate_bloom(mech, self)

    def materialize(self, mech, *, max_entries: int) -> ExplicitChannel:
        require_numeric_sizes(mech)
        return materialize_bloom(mech, self, max_entries)

    def values(self) -> list[int]:
        return sorted({v for v, _ in self.on.probabilities} | {v for v, _ in self.off.probabilities})

    def hash_table(self, d: int):
        """The hash values [c][i][x] as nested tuples (numeric sizes)."""
        if self.table is not None:
            return self.table
        C, K, H = int(self.cohorts), int(self.k), int(self.hashes)
        return tuple(tuple(tuple(int(v) for v in row) for row in rows) for rows in self.family.table(C, H, d, K))

    def positions(self, table, c: int, x: int) -> frozenset:
        return frozenset(rows[x] for rows in table[c])

    def describe(self) -> str:
        return (f"(c, b_0..b_{self.k - 1}): cohort c in {{0, ..., {self.cohorts - 1}}}, a {self.k}-bit Bloom filter of "
                f"{self.hashes} hash(es) ({self.family.describe() if self.family else 'table'}) with independent flips")


def validate_bloom(mech, ch: BloomChannel) -> list[str]:
    if not isinstance(mech.inputs, FiniteDomain) or mech.inputs.labels is not None:
        raise InvalidSpec(f"bloom channel {mech.name!r} needs inputs 0..d-1 (inputs.size)")
    if ch.on.probabilities is None or ch.off.probabilities is None:
        raise InvalidSpec(f"channel.on and channel.off of bloom channel {mech.name!r} must be discrete (values = ...)")
    for side, law in (("on", ch.on), ("off", ch.off)):
        for v, p in law.probabilities:
            _require_nonnegative(mech, p, f"channel.{side}.values[{v}]")
        total = sp.Add(*(p for _, p in law.probabilities))
        if is_zero(total - 1) is not True:
            raise InvalidSpec(f"channel.{side} of {mech.name!r} has probabilities summing to {sp.simplify(total)}; "
                              "they must sum to 1")
    check_hash_structure(table=ch.table, family=ch.family, cohorts=ch.cohorts, k=ch.k, hashes=ch.hashes,
                         d=mech.inputs.size, permutation=ch.permutation, name=mech.name)
    return ["each bit's law sums to 1, and the cohort is uniform, so every row sums to 1",
            f"hash structure checked: {ch.family.describe() if ch.family else 'explicit table'}"]


def materialize_bloom(mech, ch: BloomChannel, max_entries: int):
    """The explicit channel over outputs (c, b_0, ..., b_{k-1})."""
    d = int(mech.inputs.size)
    C, K = int(ch.cohorts), int(ch.k)
    values = ch.values()
    n_out = C * len(values) ** K
    if d * n_out > max_entries:
        raise NotMaterializable(f"{mech.name!r} has {d} x {n_out} = {d * n_out} entries, more than the limit "
                                f"{max_entries}; use its bloom form or pass a larger max_entries")
    table = ch.hash_table(d)
    on = {v: ch.on.probability(v) for v in values}
    off = {v: ch.off.probability(v) for v in values}
    outputs = [(c, *bits) for c in range(C) for bits in itertools.product(values, repeat=K)]
    inv_c = sp.Rational(1, C)
    matrix = []
    for x in range(d):
        row = []
        for y in outputs:
            c, bits = y[0], y[1:]
            hot = ch.positions(table, c, x)
            row.append(inv_c * sp.Mul(*[(on if b in hot else off)[v] for b, v in enumerate(bits)]))
        matrix.append(tuple(row))
    return ExplicitChannel(tuple(range(d)), tuple(outputs), tuple(matrix))


# --- the abstract class structure of cohort outputs --------------------------------------------


class _Token:
    """A value equal only to itself (an output value v that is or is not hash(c, x))."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


def cohort_literals(ch) -> list[int]:
    """Integer constants compared with c in the class conditions (cohort-specific classes)."""
    out = set()
    for cls in ch.classes:
        for node in ast.walk(cls.predicate):
            if isinstance(node, ast.Compare):
                names = [node.left, *node.comparators]
                if any(isinstance(n, ast.Name) and n.id == "c" for n in names):
                    out |= {n.value for n in names if isinstance(n, ast.Constant) and isinstance(n.value, int)}
    return sorted(out)


def cohort_class(mech, ch, cohort, hit: bool) -> int:
    """The index of the class an output (c, v) falls in for an input x, knowing only the
    cohort c (an int or an 'other cohort' token) and whether v == hash(c, x).

    Raises InvalidSpec when the conditions depend on more than that (e.g. ``v == x``): then
    the class of an output is not determined by collisions alone."""
    for cls in ch.classes:
        for node in ast.walk(cls.predicate):
            if isinstance(node, ast.Name) and node.id in ("x", "y"):
                parent_ok = False
                for call in ast.walk(cls.predicate):
                    if isinstance(call, ast.Call) and call.func.id == "hash" and node in call.args:
                        parent_ok = True
                if not parent_ok:
                    raise InvalidSpec(
                        f"class {cls.name!r} of {mech.name!r} uses {node.id} outside hash(c, x); its output classes "
                        "depend on more than hash collisions")
    v, other = _Token("v"), _Token("v'")
    env = {k: (int(val) if sp.sympify(val).is_Integer else val) for k, val in mech.bindings}
    env.update(c=cohort, v=v, x=_Token("x"), hash=lambda c, x: v if hit else other)
    env["bit"] = lambda value, j: 0
    matches = [i for i, cls in enumerate(ch.classes) if eval_condition(cls.predicate, env)]
    if len(matches) != 1:
        raise InvalidSpec(f"an output {'hitting' if hit else 'missing'} hash(c, x) in cohort {cohort!r} falls in "
                          f"{len(matches)} classes of {mech.name!r}; the class conditions must be exclusive and exhaustive")
    return matches[0]


def cohort_representatives(ch) -> list:
    """Representative cohorts: each literal compared with c, and one 'other' cohort."""
    return [*cohort_literals(ch), _Token("c*")]


__all__ = [
    "HashFamily", "FAMILIES", "BloomChannel", "splitmix64", "carter_wegman_key", "check_hash_structure",
    "validate_bloom", "materialize_bloom", "cohort_class", "cohort_representatives", "cohort_literals",
    "MERSENNE_31", "hadamard_cohorts", "hadamard_hash", "parity",
]
