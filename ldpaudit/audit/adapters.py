"""Adapters between black-box randomizers and the auditor.

A randomizer is either per-call, ``f(x) -> y``, or batch, ``f(x, n, rng) -> n outputs`` (an
array of shape (n,) or (n, m), or a sequence of n outputs). Outputs may be numbers, tuples,
lists and 1-d arrays (of one length, or of varying length: read as tuples), sets/frozensets,
pairs or any hashable value. ``draw`` returns them once, validated, as an ``Outputs``: either a
numeric array or the distinct hashable values with their counts. Anything unusable (an
exception, None, NaN, an unhashable value, a change of type, a value outside the declared
output space) raises RandomizerError naming the input and the value. ``as_sets`` reads every
output as the set of its elements (``audit(..., as_set=True)``).
"""
from __future__ import annotations

import collections
import math
import numbers
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ldpaudit.audit.targets import load_target, typed_target_args  # noqa: F401 - the loaders' public home before targets.py
from ldpaudit.errors import InvalidParameter, LdpAuditError, RandomizerError


@dataclass(frozen=True)
class Outputs:
    """Validated outputs of one batch of draws for one input.

    kind 'array': ``values`` is a numeric ndarray of shape (n,) or (n, m) and ``counts`` None.
    kind 'objects': ``values`` is a list of distinct hashable outputs, ``counts`` their
    multiplicities (an int64 array); used for per-call randomizers with non-float outputs.
    """

    kind: str
    values: Any
    counts: np.ndarray | None
    n: int
    digest: int | None = None       # hash of the raw draw sequence (only when asked for)


class FlatChunks:
    """The outputs of consecutive chunks as slices of one 1-d array ``flat`` (``sizes[i]``
    values each), made when asked for: a block's tally reads ``flat`` and only the few chunks
    it counts one by one (``make(array, size)`` turns a slice into what the caller wants).
    ``narrow``: the same values in a smaller dtype, when they came so (an isolated worker's
    wire dtype); ``flat`` is then made from it when first asked for."""

    def __init__(self, flat, sizes: list[int], make=None, *, narrow: np.ndarray | None = None, dtype=None):
        self._flat, self.sizes, self.make = flat, sizes, make
        self.narrow, self.dtype = narrow, dtype
        self._offsets = None

    @property
    def flat(self) -> np.ndarray:
        if self._flat is None:
            self._flat = self.narrow.astype(self.dtype)
        return self._flat

    @property
    def offsets(self) -> list[int]:
        if self._offsets is None:
            self._offsets = np.concatenate([[0], np.cumsum(self.sizes)]).tolist()
        return self._offsets

    def __len__(self) -> int:
        return len(self.sizes)

    def __getitem__(self, i: int):
        lo, hi = self.offsets[i], self.offsets[i + 1]
        # one chunk of narrow values is widened on its own, not the whole block
        a = self.narrow[lo:hi].astype(self.dtype) if self._flat is None else self._flat[lo:hi]
        return a if self.make is None else self.make(a, self.sizes[i])

    def __iter__(self):
        return (self[i] for i in range(len(self.sizes)))


@dataclass(frozen=True)
class Histogram:
    """n discrete outputs as their distinct values and multiplicities: what an isolated
    worker sends back instead of the outputs themselves when the auditor only counts them.
    ``values`` is an ndarray (ascending) or a list (in order of first appearance)."""

    values: Any
    counts: np.ndarray
    n: int

    @staticmethod
    def merge(parts: list[Histogram]) -> Histogram:
        merged: dict = {}
        for p in parts:
            for v, c in zip(p.values.tolist() if isinstance(p.values, np.ndarray) else p.values, p.counts.tolist()):
                merged[v] = merged.get(v, 0) + c
        keys = list(merged)
        if all(isinstance(p.values, np.ndarray) for p in parts):
            order = np.argsort(np.array(keys), kind="stable")
            keys = [keys[i] for i in order]
            values = np.array(keys, dtype=parts[0].values.dtype)
        else:
            values = keys
        return Histogram(values, np.array([merged[k] for k in keys], dtype=np.int64), sum(p.n for p in parts))

    def expand(self) -> list:
        values = self.values.tolist() if isinstance(self.values, np.ndarray) else self.values
        return [v for v, c in zip(values, self.counts.tolist()) for _ in range(c)]


@dataclass(frozen=True)
class Opaque:
    """Stand-in for an output of a type the isolation protocol does not carry (a frozen
    dataclass, an enum, a Fraction...): equal outputs have equal stand-ins (type and repr)."""

    type: str
    text: str

    def __repr__(self) -> str:
        return self.text


class Unhashable:
    """Stand-in for an unhashable output (a dict...) sent back by an isolated worker."""

    def __init__(self, type_name: str, text: str):
        self.type_name, self.text = type_name, text

    __hash__ = None

    def __eq__(self, other):
        return self is other

    def __repr__(self) -> str:
        return self.text


def _describe(y) -> str:
    text = repr(y)
    return text if len(text) <= 80 else text[:77] + "..."


def _type_name(y) -> str:
    return y.type_name if isinstance(y, Unhashable) else type(y).__name__


def _unhashable_error(x, y) -> RandomizerError:
    return RandomizerError(
        f"randomizer returned a {_type_name(y)} for input {x!r}; outputs must be hashable "
        f"(convert to a tuple)")


def _is_nan(y) -> bool:
    return isinstance(y, (float, np.floating)) and not math.isfinite(y)


def _kind_of(y) -> str:
    """Coarse output type used to demand that a randomizer returns one kind of value."""
    if isinstance(y, (bool, np.bool_, numbers.Integral)):
        return "integer"
    if isinstance(y, numbers.Real):
        return "real"
    if isinstance(y, (tuple, list, np.ndarray)):
        return "tuple"
    if isinstance(y, (set, frozenset)):
        return "set"
    return _type_name(y)


def _canonical_object(x, y):
    """Hashable canonical form of one per-call output (numpy arrays and lists -> tuples, sets
    -> frozensets); raise on None, NaN and unhashable values."""
    if y is None:
        raise RandomizerError(f"randomizer returned None for input {x!r}; it must return an output")
    if isinstance(y, list):
        y = tuple(y)
    elif isinstance(y, np.ndarray):
        if y.ndim != 1:
            raise RandomizerError(
                f"randomizer returned an array of shape {y.shape} for input {x!r}; per-call outputs "
                f"must be scalars, tuples or 1-d arrays")
        y = tuple(y.tolist())
    elif isinstance(y, set):
        y = frozenset(y)
    elif isinstance(y, np.generic):
        y = y.item()
    if _is_nan(y):
        raise RandomizerError(f"randomizer returned {y!r} for input {x!r}; outputs must be finite")
    if isinstance(y, tuple):
        for v in y:
            if v is None or _is_nan(v):
                raise RandomizerError(
                    f"randomizer returned {_describe(y)} for input {x!r}; its elements must be "
                    f"finite values, not {v!r}")
    try:
        hash(y)
    except TypeError:
        raise _unhashable_error(x, y) from None
    return y


def _check_one_kind(x, ys) -> None:
    kinds = {}
    for y in ys:
        kinds.setdefault(_kind_of(y), y)
    if len(kinds) > 1:
        (k1, y1), (k2, y2) = list(kinds.items())[:2]
        raise RandomizerError(
            f"randomizer returned {_describe(y2)} ({k2}) for input {x!r} after {_describe(y1)} "
            f"({k1}); outputs must all be of one kind")


def _outputs_from_list(x, ys: list) -> Outputs:
    """Validate and canonicalize a list of outputs for input x."""
    n = len(ys)
    if n == 0:
        return Outputs("array", np.zeros(0), None, 0)
    first = ys[0]
    if isinstance(first, (float, np.floating)) and not isinstance(first, bool):
        try:
            arr = np.asarray(ys)
        except (TypeError, ValueError):
            arr = None
        if arr is not None and arr.dtype.kind == "f" and arr.ndim == 1:
            _check_finite(x, arr)
            return Outputs("array", arr.astype(float, copy=False), None, n)
        # Mixed types: fall through to find the culprit.
        for y in ys:
            if not isinstance(y, (numbers.Real, np.floating)) or isinstance(y, (bool, np.bool_)):
                if y is None:
                    raise RandomizerError(f"randomizer returned None for input {x!r}; it must return an output")
                raise RandomizerError(
                    f"randomizer returned {_describe(y)} ({_type_name(y)}) for input {x!r} after "
                    f"{_describe(first)} (float); outputs must all be of one kind")
    if isinstance(first, (tuple, list)) or \
            (isinstance(first, np.ndarray) and first.ndim == 1):
        # Numeric vectors of one length: one array, checked at once (varying lengths: below).
        try:
            arr = np.array(ys)
        except (TypeError, ValueError):
            arr = None
        if arr is not None and arr.ndim == 2 and arr.dtype.kind in "biuf" and arr.shape[1] > 0:
            _check_finite(x, arr)
            return Outputs("array", arr, None, n)
    try:
        counts = collections.Counter(ys)
    except TypeError:
        bad = next(y for y in ys if not _hashable(y))
        if isinstance(bad, (np.ndarray, set, list)):
            try:    # vectors as tuples, validated below once per distinct value
                counts = collections.Counter(map(_sequence_key, ys))
            except TypeError:
                counts = collections.Counter(_canonical_object(x, y) for y in ys)
        else:
            raise _unhashable_error(x, bad) from None
    return _outputs_from_counts(x, counts.items(), n)


def _sequence_key(y):
    """A 1-d array or a list as a tuple (anything else as it is), before validation."""
    if type(y) is np.ndarray and y.ndim == 1:
        return tuple(y.tolist())
    if type(y) is list:
        return tuple(y)
    return y


def _outputs_from_counts(x, items, n: int) -> Outputs:
    """Validate and canonicalize distinct outputs with their multiplicities."""
    merged: dict = {}
    for y, c in items:
        key = _canonical_object(x, y)
        merged[key] = merged.get(key, 0) + c
    _check_one_kind(x, merged)
    values = list(merged)
    return Outputs("objects", values, np.fromiter(merged.values(), dtype=np.int64, count=len(values)), n)


def as_sets(x, out: Outputs) -> Outputs:
    """The outputs of input x read as sets (``as_set``): each tuple, vector or set output
    becomes the frozenset of its elements, the same outputs in another order merge. This is
    post-processing, so an event on the sets is an event on the outputs. An output repeating
    an element is refused (the set would drop the repeat, which may be what leaks)."""
    if out.n == 0:
        return out
    if out.kind == "array":
        if out.values.ndim != 2:
            raise RandomizerError(
                f"randomizer returned {_describe(out.values[0].item())} for input {x!r}, a number; as_set "
                f"(--as-set) reads each output as a set of elements: drop it for number outputs")
        rows, counts = np.unique(out.values, axis=0, return_counts=True)
        items = zip((tuple(r) for r in rows.tolist()), counts.tolist())
    else:
        items = zip(out.values, out.counts.tolist())
    merged: dict = {}
    for y, c in items:
        if isinstance(y, tuple):
            s = frozenset(y)
            if len(s) != len(y):
                seen = set()
                twice = next(v for v in y if v in seen or seen.add(v))
                raise RandomizerError(
                    f"randomizer returned {_describe(y)} for input {x!r}, which repeats {twice!r}; as_set "
                    f"(--as-set) reads each output as a set, which would drop the repeat: audit without it")
        elif isinstance(y, frozenset):
            s = y
        else:
            raise RandomizerError(
                f"randomizer returned {_describe(y)} ({_type_name(y)}) for input {x!r}; as_set (--as-set) reads "
                f"each output as a set of elements: it needs tuples, lists, arrays or sets")
        merged[s] = merged.get(s, 0) + c
    values = list(merged)
    return Outputs("objects", values, np.fromiter(merged.values(), dtype=np.int64, count=len(values)), out.n,
                   out.digest)


def _hashable(y) -> bool:
    try:
        hash(y)
    except TypeError:
        return False
    return True


def _check_finite(x, arr: np.ndarray) -> None:
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            idx = np.argwhere(bad)[0]
            row = arr[idx[0]]
            value = row.tolist() if arr.ndim > 1 else float(row)
            raise RandomizerError(
                f"randomizer returned {_describe(value)} for input {x!r}; outputs must be finite "
                f"(no NaN or infinity)")


def _outputs_from_histogram(x, h: Histogram, n: int) -> Outputs:
    if h.n != n:
        raise RandomizerError(f"batch randomizer returned {h.n} outputs for input {x!r} when asked for {n}")
    if isinstance(h.values, np.ndarray):  # distinct numbers, ascending: as np.unique gives them
        if h.values.dtype.kind == "f":
            _check_finite(x, h.values)
        return Outputs("objects", h.values.tolist(), np.asarray(h.counts, dtype=np.int64), n)
    return _outputs_from_counts(x, zip(h.values, h.counts.tolist()), n)


def _outputs_from_batch(x, y, n: int) -> Outputs:
    """Validate the return value of a batch randomizer f(x, n, rng)."""
    if isinstance(y, Histogram):
        return _outputs_from_histogram(x, y, n)
    if y is None:
        raise RandomizerError(f"batch randomizer returned None for input {x!r}; it must return {n} outputs")
    if isinstance(y, np.ndarray):
        arr = y
    elif isinstance(y, (list, tuple)):
        if len(y) != n:
            raise RandomizerError(
                f"batch randomizer returned {len(y)} outputs for input {x!r} when asked for {n}")
        return _outputs_from_list(x, list(y))
    else:
        raise RandomizerError(
            f"batch randomizer returned a {_type_name(y)} for input {x!r}; it must return an array "
            f"or a list of {n} outputs")
    if arr.ndim == 0 or arr.ndim > 2 or arr.shape[0] != n:
        raise RandomizerError(
            f"batch randomizer returned an array of shape {arr.shape} for input {x!r} when asked for "
            f"{n} outputs; expected shape ({n},) or ({n}, m)")
    if arr.dtype.kind == "O":
        return _outputs_from_list(x, list(arr) if arr.ndim == 1 else [tuple(r) for r in arr])
    if arr.dtype.kind not in "biuf":
        if arr.ndim == 1:
            return _outputs_from_list(x, arr.tolist())
        raise RandomizerError(
            f"batch randomizer returned an array of dtype {arr.dtype} for input {x!r}; "
            f"multi-column outputs must be numeric")
    _check_finite(x, arr)
    return Outputs("array", arr, None, n)


class Sampler:
    """Draws validated outputs from a randomizer, reproducibly from a SeedSequence.

    Per-call randomizers cannot be handed an rng, so the global ``random`` and
    ``numpy.random`` states are seeded from the SeedSequence for the duration of each draw and
    restored afterwards; a randomizer with its own private generator is sampled as is."""

    def __init__(self, randomizer: Callable, *, batch: bool, output_space=None, digest: bool = False):
        if not callable(randomizer):
            raise InvalidParameter(f"randomizer {randomizer!r} is not callable")
        self.randomizer = randomizer
        self.batch = bool(batch)
        self.output_space = output_space
        self.digest = digest

    def draw(self, x, n: int, seed: np.random.SeedSequence) -> Outputs:
        if self.batch:
            keyed = getattr(self.randomizer, "draw_block", None)
            try:
                if keyed is not None:   # an isolated randomizer: seeded from the chunk's key (external.py)
                    y = keyed([(x, n, seed.entropy, tuple(seed.spawn_key))], histogram=not self.digest)[0]
                else:
                    rng = np.random.default_rng(seed)
                    # an isolated randomizer can send counts instead of outputs (not when the raw
                    # sequence is needed for the digest)
                    counts = None if self.digest else getattr(self.randomizer, "draw_counts", None)
                    y = counts(x, n, rng) if counts is not None else self.randomizer(x, n, rng)
            except LdpAuditError:
                raise
            except Exception as exc:
                raise RandomizerError(
                    f"randomizer raised {type(exc).__name__} for input {x!r}: {exc}") from exc
            return self._batch_outputs(x, y, n)
        else:
            py_state, np_state = random.getstate(), np.random.get_state()
            words = seed.generate_state(4, dtype=np.uint32)
            random.seed(int.from_bytes(words.tobytes(), "little"))
            np.random.seed(words)
            f = self.randomizer
            try:
                ys = [f(x) for _ in range(n)]
            except LdpAuditError:
                raise
            except Exception as exc:
                raise RandomizerError(
                    f"randomizer raised {type(exc).__name__} for input {x!r}: {exc}") from exc
            finally:
                random.setstate(py_state)
                np.random.set_state(np_state)
            out = _outputs_from_list(x, ys)
            if self.digest:
                try:
                    out = replace(out, digest=hash(tuple(ys)))
                except TypeError:
                    pass
        if self.output_space is not None:
            check_output_space(x, out, self.output_space)
        return out

    def _batch_outputs(self, x, y, n: int) -> Outputs:
        out = _outputs_from_batch(x, y, n)
        if self.digest and isinstance(y, np.ndarray) and y.dtype.kind in "biuf":
            out = replace(out, digest=hash(y.tobytes()))
        if self.output_space is not None:
            check_output_space(x, out, self.output_space)
        return out

    def draw_block(self, tasks: list[tuple]) -> list[Outputs]:
        """The Outputs of several chunks (x, n, entropy, spawn key), each what :meth:`draw`
        gives with ``SeedSequence(entropy, spawn_key=key)``: one exchange with an isolated
        randomizer (its ``draw_block``), else one chunk after another."""
        keyed = getattr(self.randomizer, "draw_block", None) if self.batch else None
        if keyed is None:
            return [self.draw(x, n, np.random.SeedSequence(entropy, spawn_key=key)) for x, n, entropy, key in tasks]
        try:
            ys = keyed(tasks, histogram=not self.digest)
        except LdpAuditError:
            raise
        except Exception as exc:
            raise RandomizerError(
                f"randomizer raised {type(exc).__name__} for input {tasks[0][0]!r}: {exc}") from exc
        if not self.digest and self.output_space is None and isinstance(ys, FlatChunks):
            kind = (ys.dtype if ys.narrow is not None else ys.flat.dtype).kind
            if kind in "biu" or kind == "f" and np.isfinite(ys.flat).all():
                # each chunk a 1-d numeric array of its n values (the transport checked the
                # lengths): what _outputs_from_batch gives, made when asked for
                return FlatChunks(ys._flat, ys.sizes, _array_outputs, narrow=ys.narrow, dtype=ys.dtype)
        return [self._batch_outputs(x, y, n) for (x, n, _, _), y in zip(tasks, ys)]


def _array_outputs(values: np.ndarray, n: int) -> Outputs:
    return Outputs("array", values, None, n)


def _space_repr(space) -> str:
    text = repr(space)
    return text if len(text) <= 60 else text[:57] + "..."


def check_output_space(x, out: Outputs, space) -> None:
    """Raise RandomizerError if an output of input x lies outside ``space`` (a container, or a
    predicate called on each distinct output)."""
    if out.kind == "array" and out.values.ndim == 1 and isinstance(space, range) and space.step == 1:
        arr = out.values
        if arr.size:
            bad = (arr < space.start) | (arr >= space.stop) | (arr != np.round(arr))
            if bad.any():
                raise RandomizerError(
                    f"randomizer returned {arr[np.argmax(bad)].item()!r} for input {x!r}, outside the "
                    f"declared output space {_space_repr(space)}")
        return
    if out.kind == "array":
        if out.values.ndim == 1:
            distinct = np.unique(out.values).tolist()
        else:
            distinct = [tuple(r) for r in np.unique(out.values, axis=0).tolist()]
    else:
        distinct = out.values
    contains = space if callable(space) and not hasattr(space, "__contains__") else space.__contains__
    for y in distinct:
        if not contains(y):
            raise RandomizerError(
                f"randomizer returned {_describe(y)} for input {x!r}, outside the declared output "
                f"space {_space_repr(space)}")
