"""The isolation worker: runs an untrusted Python randomizer in its own (sandboxed) process.

It speaks the same JSON-lines protocol as any ``--command`` program (see
:mod:`ldpaudit.audit.external`): one request per line on stdin,
``{"input": X, "count": N, "seed": S}``, one reply per line on stdout,
``{"outputs": [...]}``. Extensions the auditor understands:

- ``"histogram": true`` in a request: discrete outputs come back as
  ``{"hist": {"values": [...], "counts": [...]}}`` (distinct outputs, ascending for arrays,
  in order of first appearance otherwise), which is all the auditor needs from them;
- ``{"block": {"inputs": [X, ...], "counts": [N, ...], "seeds": [S, ...]}}``: several chunks
  in one request, answered by one header line ``{"block": [descriptor, ...], "bytes": B}``
  and B bytes of raw array values (see :func:`block_reply`), written into the buffer the
  auditor shares (the memfd named by ``LDPAUDIT_PAYLOAD_FD``; the line then says
  ``"shared": true``) or following the line on stdout: numbers travel as numpy buffers in the
  smallest integer dtype that holds them, never as text, so that moving a draw costs a byte or
  two, not a JSON number;
- ``{"progress": i}`` lines during long requests, so a slow but live randomizer is not taken
  for a hung one; every line also carries ``"limit"``, the next call's time limit, and
  ``"slowest"``, the slowest call after the first;
- ``{"error": ..., "kind": ..., "call": i}`` replies naming the call (counted from 1 over
  the worker's life) that failed, and in a block ``"item"``, the chunk it was drawing;
- ``{"probe": true}`` is answered ``{"loaded": true}`` once the target has loaded (or with
  the load error), without calling it.

Seeds: a chunk's seed S seeds ``random`` and ``numpy.random`` (S mod 2^32) before it is drawn,
and a batch target gets the generator ``default_rng(S)``: one generator whose state is set to
that of ``default_rng(S)`` (computed for the whole block at once, :mod:`ldpaudit.audit.seeds`),
which costs a microsecond where creating ``default_rng(S)`` costs ten. A batch target that
never draws from ``random`` or ``numpy.random`` does not need them seeded (seeding both costs
more than drawing a thousand outputs): they are seeded only once it has drawn from them, seen
from their states (:class:`_GlobalStates`), and the chunk where it first did is drawn again
from seeded states, so its outputs are those of a worker that seeds every chunk.

Usage: ``python -m ldpaudit.audit.worker TARGET [--batch] [--arg name=value ...]
[--warmup S] [--floor S] [--factor F]``: the first call may take ``--warmup`` seconds, later
ones max(``--floor``, ``--factor`` × the slowest call after the first). The number of the
call in progress is kept in the 8-byte file named by ``LDPAUDIT_CALL_COUNTER`` so that the
auditor can name it if the process dies. Outputs are encoded with tags so that tuples, sets,
bytes, complex numbers and numpy arrays survive JSON; the auditor decodes them without
unpickling anything. This module imports only numpy and the target loader
(:mod:`ldpaudit.audit.targets`), so that it also runs under another interpreter (``--python``).
"""

from __future__ import annotations

import argparse
import base64
import collections
import ctypes
import io
import json
import mmap
import os
import random
import signal
import sys
import threading
import time

import numpy as np


class _CallTimeout(BaseException):
    """Raised by the alarm in the middle of a call that takes too long (BaseException so a
    randomizer's own ``except Exception`` cannot swallow it)."""


class Unsendable(TypeError):
    """An output that the JSON-lines encoding cannot carry."""


class _StdoutRecorder(io.TextIOBase):
    def __init__(self):
        self.text = []

    def write(self, s):
        self.text.append(s)
        return len(s)

    def writable(self):
        return True


def encode(value):
    """Tagged JSON encoding of one output (or a batch). Values of other types travel as
    stand-ins: hashable ones by type and repr (equal values, equal stand-ins), unhashable
    ones so that the auditor reports them as such."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, np.generic):
        return encode(value.item())
    if isinstance(value, bytes | bytearray):
        return {"__b__": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, complex):
        return {"__c__": [value.real, value.imag]}
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "biufc":
            arr = np.ascontiguousarray(value)
            if arr.ndim == 2 and arr.dtype.itemsize == 1 and arr.dtype.kind in "bu" and arr.size \
                    and arr.shape[1] >= 8 and int(arr.max()) <= 1:   # bit vectors travel packed, 8 per byte
                bits = np.packbits(arr.view(np.uint8), axis=1)
                return {"__nd__": arr.dtype.str, "shape": list(arr.shape), "bits": base64.b64encode(bits.tobytes()).decode()}
            return {"__nd__": arr.dtype.str, "shape": list(arr.shape), "data": base64.b64encode(arr.tobytes()).decode()}
        return {"__nda__": [encode(v) for v in value.ravel().tolist()], "shape": list(value.shape)}
    if isinstance(value, tuple):
        return {"__t__": [encode(v) for v in value]}
    if isinstance(value, list):
        return {"__l__": [encode(v) for v in value]}
    if isinstance(value, set | frozenset):
        return {"__s__": [encode(v) for v in sorted(value, key=repr)]}
    if type(value).__name__ == "Opaque" and type(value).__module__ == "ldpaudit.audit.adapters":
        return {"__o__": value.type, "repr": value.text}   # a stand-in decoded earlier (journal)
    if callable(value) or isinstance(value, type(sys)):
        raise Unsendable(f"randomizer returned {value!r:.60}, not an output; if the target is a factory, "
                         f"give its arguments with --target-arg name=value")
    name = f"{type(value).__module__}.{type(value).__qualname__}"
    try:
        hash(value)
    except TypeError:
        return {"__u__": type(value).__name__, "repr": repr(value)[:200]}
    return {"__o__": name, "repr": repr(value)}


def histogram(outputs, batch: bool):
    """``{"values": ..., "counts": ...}`` of discrete outputs when it is shorter than the
    outputs themselves, else None. Batch: 1-d integer or boolean arrays (values ascending).
    Per call: hashable outputs that the auditor would count rather than stack into an array
    (not floats, tuples or arrays), in order of first appearance. Both: tuples, lists and 1-d
    arrays of varying length (the auditor counts them as opaque values), as tuples."""
    ragged = _ragged_histogram(outputs)
    if ragged is not None:
        return ragged
    if batch:
        if not isinstance(outputs, np.ndarray) or outputs.ndim != 1 or outputs.dtype.kind not in "biu" \
                or outputs.size < 2:
            return None
        return _array_histogram(outputs, *_value_range(outputs))
    if not outputs or isinstance(outputs[0], float | np.floating | tuple | np.ndarray):
        return None
    try:
        counter = collections.Counter(outputs)
    except TypeError:
        return None
    if len(counter) > len(outputs) // 2:
        return None
    return {"values": {"__l__": [encode(v) for v in counter]},
            "counts": encode(np.fromiter(counter.values(), dtype=np.int64, count=len(counter)))}


def _value_range(arr: np.ndarray) -> tuple[int, int]:
    """(min, max) of an integer or boolean array, as Python ints."""
    if arr.dtype.kind == "b":
        arr = arr.view(np.uint8)
    return int(arr.min()), int(arr.max())


def _array_histogram(arr: np.ndarray, lo: int, hi: int):
    """The histogram of a 1-d integer or boolean array whose values lie in [lo, hi], when that
    range holds at most half as many values as the array (so that the histogram is the shorter
    message, and counting costs one pass), else None."""
    if hi - lo + 1 > arr.size // 2:
        return None
    ints = arr.view(np.uint8) if arr.dtype.kind == "b" else arr
    base = ints.dtype.type(lo)
    counts = np.bincount((ints - base).astype(np.intp, copy=False))
    values = np.flatnonzero(counts)
    counts = counts[values]
    values = (values.astype(ints.dtype) + base).astype(arr.dtype, copy=False)
    return {"values": encode(values), "counts": encode(counts.astype(np.int64))}


def _ragged_histogram(outputs):
    """The histogram of sequence outputs of varying length (as tuples), or None."""
    if not isinstance(outputs, list | tuple) or len(outputs) < 2 or \
            not isinstance(outputs[0], tuple | list | np.ndarray):
        return None
    rows = []
    lengths = set()
    for y in outputs:
        if isinstance(y, np.ndarray):
            if y.ndim != 1:
                return None
            y = tuple(y.tolist())
        elif isinstance(y, list):
            y = tuple(y)
        elif not isinstance(y, tuple):
            return None
        lengths.add(len(y))
        rows.append(y)
    if len(lengths) < 2:
        return None     # one length: the auditor stacks them into an array
    try:
        counter = collections.Counter(rows)
    except TypeError:
        return None
    if len(counter) > len(rows) // 2:
        return None
    return {"values": {"__l__": [encode(v) for v in counter]},
            "counts": encode(np.fromiter(counter.values(), dtype=np.int64, count=len(counter)))}


# -- the binary block reply ------------------------------------------------------------------

#: integer dtypes a run of values may travel in, smallest first (little-endian)
WIRE_INTS = tuple(np.dtype(t).newbyteorder("<") for t in ("u1", "i1", "u2", "i2", "u4", "i4", "u8", "i8"))
_WIRE_RANGES = tuple((w, int(np.iinfo(w).min), int(np.iinfo(w).max)) for w in WIRE_INTS)
#: dtypes of arrays that travel as raw buffers (any other array travels as tagged JSON)
RAW_DTYPES = frozenset(d.str for d in WIRE_INTS) | {np.dtype(t).newbyteorder("<").str for t in ("?", "f2", "f4", "f8")}


def wire_dtype(dtype: np.dtype, lo: int, hi: int) -> np.dtype:
    """The smallest integer dtype that holds every value in [lo, hi] and casts to ``dtype``
    without loss (``dtype`` itself for booleans and floats): uint16 for 0..65535."""
    if dtype.kind in "iu":
        for wire, low, high in _WIRE_RANGES:
            if low <= lo and hi <= high and np.can_cast(wire, dtype):
                return wire
    return dtype


def _packable(arr: np.ndarray) -> bool:
    """A 0/1 matrix of 8 columns or more, one byte per cell: it travels 8 cells per byte."""
    return arr.ndim == 2 and arr.dtype.itemsize == 1 and arr.dtype.kind in "bu" and arr.size > 0 \
        and arr.shape[1] >= 8 and int(arr.max()) <= 1


def block_reply(outputs: list, counts: list, *, histogram_asked: bool, batch: bool,
                packer: "_Packer | None" = None) -> tuple[dict, list]:
    """The header and payload (arrays with the wire dtype each travels in, sent back to back)
    that answer a block: outputs[k] drawn for a chunk of counts[k] (a :class:`_Packed` chunk
    is in ``packer``).

    The header's ``"block"`` lists descriptors covering the chunks in order:
    ``["r", dtype, wire, trailing, k]``: the next k chunks are arrays of ``dtype`` and shape
    (count, *trailing), their values sent back to back as ``wire`` (:func:`wire_dtype` of the
    run's range); ``["p", dtype, width]``: one 0/1 matrix, rows packed 8 cells per byte;
    ``["h", histogram]`` and ``["j", encoded outputs]``: one chunk as tagged JSON. ``"bytes"``
    is the payload's length."""
    descriptors, pieces, size = [], [], 0
    for segment in _segments(outputs, counts, histogram_asked, batch):
        tag = segment[0]
        if tag == "h":
            descriptors.append(["h", segment[1]])
        elif tag == "j":
            try:
                descriptors.append(["j", encode(outputs[segment[1]])])
            except Unsendable as exc:
                exc.item = segment[1]
                raise
        elif tag == "p":
            out = outputs[segment[1]]
            bits = np.packbits(out.view(np.uint8), axis=1)
            descriptors.append(["p", out.dtype.str, out.shape[1]])
            pieces.append((bits, None))
            size += bits.nbytes
        elif tag == "packed":
            _, offset, cells, chunks = segment
            wire = packer.wire if packer.wire is not None else packer.dtype.newbyteorder("<")   # only empty chunks
            descriptors.append(["r", packer.dtype.newbyteorder("<").str, wire.str, [], chunks])
            if cells:
                pieces.append((packer.values(offset, cells), wire))
            size += cells * wire.itemsize
        else:
            _, values, dtype, trailing, chunks, lo, hi = segment
            wire = wire_dtype(dtype, lo, hi)
            descriptors.append(["r", dtype.str, wire.str, list(trailing), chunks])
            pieces.append((values, wire))
            size += values.size * wire.itemsize
    return {"block": descriptors, "bytes": size}, pieces


def _segments(outputs: list, counts: list, histogram_asked: bool, batch: bool):
    """How the chunks travel, in order: ("h", histogram), ("j", k), ("p", k) for one chunk k,
    or ("r", values, dtype, trailing, chunks, lo, hi) for a run of consecutive arrays of one
    dtype and row shape, ``values`` all of them back to back. The value ranges of a run of
    1-d integer arrays are found at once."""
    k, n = 0, len(outputs)
    while k < n:
        out = outputs[k]
        if type(out) is _Packed:     # consecutive packed chunks lie back to back in the packer
            end = k + 1
            while end < n and type(outputs[end]) is _Packed:
                end += 1
            yield "packed", out.offset, outputs[end - 1].offset + outputs[end - 1].size - out.offset, end - k
            # (chunks sent as histograms were replaced by arrays in finish(): runs stop there)
            k = end
            continue
        if not (isinstance(out, np.ndarray) and out.dtype.kind in "biuf" and 1 <= out.ndim <= 2
                and out.shape[0] == counts[k] and out.dtype.newbyteorder("<").str in RAW_DTYPES):
            h = histogram(out, batch) if histogram_asked else None
            yield ("h", h) if h is not None else ("j", k)
            k += 1
            continue
        dtype = out.dtype.newbyteorder("<")
        if dtype.kind == "f" or out.ndim == 2 or out.size == 0:
            if _packable(out):
                yield "p", k
            else:
                lo, hi = _value_range(out) if dtype.kind != "f" and out.size else (0, 0)
                yield "r", out, dtype, out.shape[1:], 1, lo, hi
            k += 1
            continue
        end = k + 1     # consecutive non-empty 1-d integer arrays of this dtype: ranges at once
        while end < n and type(outputs[end]) is not _Packed and isinstance(outputs[end], np.ndarray) \
                and outputs[end].dtype == out.dtype \
                and outputs[end].ndim == 1 and outputs[end].size and outputs[end].shape[0] == counts[end]:
            end += 1
        run = outputs[k:end]
        flat = np.concatenate(run) if len(run) > 1 else out
        ints = flat.view(np.uint8) if flat.dtype.kind == "b" else flat
        sizes = np.array([a.size for a in run])
        starts = np.concatenate([[0], np.cumsum(sizes[:-1])])
        lows, highs = np.minimum.reduceat(ints, starts), np.maximum.reduceat(ints, starts)
        if histogram_asked and batch:   # chunks whose range holds at most half their draws: histograms
            spans = highs.astype(np.uint64) - lows.astype(np.uint64)    # high - low, exact modulo 2^64
            short = np.flatnonzero(spans < (sizes // 2).astype(np.uint64))
        else:
            short = np.zeros(0, dtype=np.intp)
        cut = 0
        for j in short.tolist():
            if j > cut:
                yield "r", flat[starts[cut]:starts[j]], dtype, (), j - cut, int(lows[cut:j].min()), int(highs[cut:j].max())
            yield "h", _array_histogram(run[j], int(lows[j]), int(highs[j]))
            cut = j + 1
        if cut < len(run):
            yield "r", flat[starts[cut]:], dtype, (), len(run) - cut, int(lows[cut:].min()), int(highs[cut:].max())
        k = end


def _parse_args(argv):
    p = argparse.ArgumentParser(prog="ldpaudit-worker")
    p.add_argument("target")
    p.add_argument("--batch", action="store_true")
    p.add_argument("--arg", action="append", default=[])
    p.add_argument("--warmup", type=float, default=120.0)
    p.add_argument("--floor", type=float, default=10.0)
    p.add_argument("--factor", type=float, default=50.0)
    return p.parse_args(argv)


class _Counter:
    """The number of the call in progress, in a file the auditor reads if this process dies."""

    def __init__(self):
        self.cells = [0]    # where the count goes when there is no file
        path = os.environ.get("LDPAUDIT_CALL_COUNTER")
        if path:
            try:
                with open(path, "r+b") as f:
                    self.cells = memoryview(mmap.mmap(f.fileno(), 8)).cast("q")
            except (OSError, ValueError, TypeError):
                pass


class _GlobalStates:
    """The global ``random`` and ``numpy.random`` generators' states, read in place (the
    Mersenne Twister's position and first words of each: CPython's ``_random.Random`` object
    and numpy's ``mt19937_state``), so that the worker sees whether a call drew from them for
    a fraction of a microsecond. ``usable`` is False (seed them for every chunk instead) unless
    reading them behaves as expected here: equal after seeding twice alike, different after
    another seed and after each draw."""

    def __init__(self):
        self.regions = ()
        try:
            numpy = np.random.mtrand._rand._bit_generator.ctypes.state_address
            # the position and first words of each: a draw moves the position, or regenerates
            # every word when it consumed a multiple of 624 of them
            self.regions = ((ctypes.c_char * 20).from_address(id(random._inst) + object.__basicsize__),
                            (ctypes.c_char * 16).from_address(numpy),
                            (ctypes.c_char * 4).from_address(numpy + 624 * 4))
            self.usable = self._behaves()
        except Exception:  # noqa: BLE001 - another Python or numpy: seed every chunk
            self.usable = False

    def read(self) -> tuple:
        python, numpy_words, numpy_position = self.regions
        return python.raw, numpy_words.raw, numpy_position.raw

    def _behaves(self) -> bool:
        def seeded(seed):
            random.seed(seed)
            np.random.seed(seed)
            return self.read()

        first, again, other = seeded(1), seeded(1), seeded(2)
        random.random()
        drew_random = self.read()
        seeded(2)
        np.random.random()
        drew_numpy = self.read()
        np.random.random()
        drew_again = self.read()    # the position moves within the words already generated
        return first == again and first != other and drew_random != other and drew_numpy != other \
            and drew_again != drew_numpy


class _ChunkGenerator:
    """The generator a batch target gets for a chunk of seed S: one PCG64 generator set to the
    state of ``default_rng(S)`` (:func:`ldpaudit.audit.seeds.default_rng_words`, a block at a
    time), its 32 bytes of state written in place where that behaves as expected here (else
    through its ``state`` dict); ``default_rng(S)`` itself where the computed states are not
    numpy's."""

    def __init__(self):
        from ldpaudit.audit.seeds import matches_numpy

        self.bitgen = np.random.PCG64(0)
        self.rng = np.random.Generator(self.bitgen)
        self.exact = matches_numpy()
        self.words = None
        self.in_place = None    # (the state's 32 bytes, has_uint32 and uinteger) when writing them in place works
        try:
            address = self.bitgen.ctypes.state_address
            # pcg64_state: the pointer to the 128-bit state and increment, then has_uint32 and uinteger
            state = ctypes.c_void_p.from_address(address).value
            self.in_place = (memoryview((ctypes.c_char * 32).from_address(state)).cast("B"),
                             memoryview((ctypes.c_char * 8).from_address(address + 8)).cast("B"))
            self.prepare([7, 2**40 + 3])
            self.bitgen.random_raw()
            self.rng.integers(0, 10, dtype=np.uint32)     # leaves half a 64-bit draw buffered
            if not self._behaves():
                self.in_place = None
        except Exception:  # noqa: BLE001 - another numpy: the state dict
            self.in_place = None

    def _behaves(self) -> bool:
        for i, seed in enumerate([7, 2**40 + 3]):
            self.get(i, seed)
            reference = np.random.default_rng(seed)
            if self.bitgen.state != reference.bit_generator.state or \
                    self.rng.integers(0, 2**32, size=3, dtype=np.uint32).tolist() != \
                    reference.integers(0, 2**32, size=3, dtype=np.uint32).tolist():
                return False
        return True

    def prepare(self, seeds: list) -> None:
        """Compute the states of a block's chunks."""
        if self.exact:
            from ldpaudit.audit.seeds import default_rng_words

            self.words = default_rng_words(seeds)
            self.data = self.words.tobytes()

    def get(self, item: int, seed: int) -> np.random.Generator:
        """The generator of the block's chunk ``item`` (seed ``seed``)."""
        if not self.exact:
            return np.random.default_rng(seed)
        if self.in_place is not None:
            state, flags = self.in_place
            state[:] = self.data[32 * item:32 * item + 32]
            flags[:] = _ZERO8
        else:
            w = self.words[item].tolist()
            self.bitgen.state = {"bit_generator": "PCG64", "state": {"state": w[1] << 64 | w[0], "inc": w[3] << 64 | w[2]},
                                 "has_uint32": 0, "uinteger": 0}
        return self.rng


_MINIMUM, _MAXIMUM = np.minimum.reduce, np.maximum.reduce
_ZERO8 = bytes(8)


class _Packed:
    """A chunk's values already written into the packer's buffer (elements offset..offset+size)."""

    __slots__ = ("offset", "size")

    def __init__(self, offset: int, size: int):
        self.offset, self.size = offset, size


class _Packer:
    """The 1-d integer and boolean arrays of a block, copied into one buffer of their dtype as
    each call returns them (the array is read once while in cache and freed for the
    randomizer's next call); :meth:`finish` then finds every chunk's range at once, sends as
    histograms the chunks whose range makes that the shorter message, and casts the rest to
    the smallest wire dtype that holds them in one pass: the payload."""

    def __init__(self):
        self.buffer = np.empty(0, dtype=np.int64)      # reused from block to block

    def start(self, cells: int) -> None:
        self.cells, self.dtype, self.used = cells, None, 0
        self.wire = None

    def pack(self, arr: np.ndarray):
        """Copy a 1-d integer or boolean array in, or return it as it is (another dtype than
        the block's first)."""
        dtype = arr.dtype
        if dtype is not self.dtype:
            if self.dtype is None:
                if dtype.newbyteorder("<").str not in RAW_DTYPES:
                    return arr
                self.dtype = dtype
                if self.buffer.dtype != dtype or self.buffer.size < self.cells:
                    self.buffer = np.empty(max(self.cells, arr.size), dtype=dtype)
            elif dtype != self.dtype:
                return arr
        used, size = self.used, arr.size
        if used + size > self.buffer.size:
            return arr
        self.buffer[used:used + size] = arr
        self.used = used + size
        return _Packed(used, size)

    def finish(self, outputs: list, histogram_asked: bool) -> None:
        """Replace the packed chunks whose histogram is the shorter message by their values
        (a view), and cast the others, at once, to their wire dtype."""
        flat = self.buffer[:self.used]
        if not flat.size:
            return
        ints = flat.view(np.uint8) if flat.dtype.kind == "b" else flat
        if histogram_asked and self._histograms(outputs, flat, ints):
            kept = [out for out in outputs if type(out) is _Packed and out.size]
            if not kept:
                return
            starts = np.fromiter((out.offset for out in kept), dtype=np.intp, count=len(kept))
            low, high = int(np.minimum.reduceat(ints, starts).min()), int(np.maximum.reduceat(ints, starts).max())
        else:
            low, high = int(_MINIMUM(ints)), int(_MAXIMUM(ints))
        self.wire = wire_dtype(self.dtype.newbyteorder("<"), low, high)

    def _histograms(self, outputs: list, flat: np.ndarray, ints: np.ndarray) -> bool:
        """Replace by their values (a view) the packed chunks whose range holds at most half
        their draws (their histogram is the shorter message); whether any was. A chunk whose
        first 8 values already span half its draws is not one (wide outputs: no reduction)."""
        packed = [k for k, out in enumerate(outputs) if type(out) is _Packed and out.size >= 2]
        if not packed:
            return False
        starts = np.fromiter((outputs[k].offset for k in packed), dtype=np.intp, count=len(packed))
        sizes = np.fromiter((outputs[k].size for k in packed), dtype=np.intp, count=len(packed))
        head = ints[np.minimum(starts[:, None] + np.arange(8), (starts + sizes - 1)[:, None])]
        spread = head.max(axis=1).astype(np.uint64) - head.min(axis=1).astype(np.uint64)    # exact mod 2^64
        maybe = np.flatnonzero(spread < (sizes // 2).astype(np.uint64))
        if len(maybe) > 16:     # many: every chunk's exact range at once
            spans = np.maximum.reduceat(ints, starts).astype(np.uint64) - \
                np.minimum.reduceat(ints, starts).astype(np.uint64)
            short = np.flatnonzero(spans < (sizes // 2).astype(np.uint64)).tolist()
        else:
            short = []
            for j in maybe.tolist():
                values = ints[starts[j]:starts[j] + sizes[j]]
                if int(_MAXIMUM(values)) - int(_MINIMUM(values)) + 1 <= sizes[j] // 2:
                    short.append(j)
        for j in short:
            out = outputs[packed[j]]
            outputs[packed[j]] = flat[out.offset:out.offset + out.size]
        return bool(short)

    def values(self, offset: int, size: int) -> np.ndarray:
        """Packed values (in their dtype; cast to :attr:`wire` as they are sent)."""
        return self.buffer[offset:offset + size]


class _Watchdog:
    """Interrupts a call that runs past its limit. A thread looks at the running call every
    50 ms and sends SIGALRM to the main thread when it is late, so that a call costs two clock
    reads rather than two timer system calls."""

    def __init__(self, allowed: float):
        self.started: float | None = None     # time.perf_counter() when the running call began
        self.allowed = allowed
        self.fired = False
        self.main = threading.main_thread().ident
        signal.signal(signal.SIGALRM, self._alarm)
        threading.Thread(target=self._watch, daemon=True, name="ldpaudit-watchdog").start()

    def _alarm(self, signum, frame):
        if self.fired and self.started is not None:
            raise _CallTimeout()
        self.fired = False

    def _watch(self):
        while True:
            time.sleep(0.05)
            started = self.started
            if started is not None and not self.fired and time.perf_counter() - started > self.allowed:
                self.fired = True
                signal.pthread_kill(self.main, signal.SIGALRM)


def _shared_buffer() -> np.ndarray | None:
    """The buffer the auditor shares for block payloads (``LDPAUDIT_PAYLOAD_FD``), or None."""
    fd = os.environ.get("LDPAUDIT_PAYLOAD_FD")
    if not fd:
        return None
    try:
        return np.frombuffer(mmap.mmap(int(fd), 0), dtype=np.uint8)
    except (OSError, ValueError):
        return None


def _write_all(fd: int, data) -> None:
    view = memoryview(data).cast("B")
    while view:
        view = view[os.write(fd, view):]


def main(argv=None) -> int:
    args = _parse_args(argv)
    # the protocol channel is a private copy of stdout; fd 1 now goes to stderr, so that
    # whatever the randomizer prints cannot corrupt the protocol
    channel = os.dup(1)
    os.dup2(2, 1)
    recorder = _StdoutRecorder()
    sys.stdout = recorder
    calls = 0               # calls started over the worker's life
    slowest = 0.0           # slowest call after the first
    counter = _Counter()

    def limit() -> float:
        return args.warmup if calls == 0 else max(args.floor, args.factor * slowest)

    shared = _shared_buffer()

    def send(obj, payload=()):
        """A reply line, then a block's payload: into the buffer shared with the auditor when it
        fits there (``"shared": true``), else down the pipe after the line. ``payload``: arrays,
        each cast to its wire dtype on the way: (array, wire dtype or None)."""
        obj["limit"] = limit()
        obj["slowest"] = slowest if calls > 1 else None
        if payload and shared is not None and obj.get("bytes", 0) <= shared.size:
            position = 0
            for values, wire in payload:
                flat = values.reshape(-1)
                size = flat.size * (wire or flat.dtype).itemsize
                np.copyto(shared[position:position + size].view(wire or flat.dtype), flat, casting="unsafe")
                position += size
            obj["shared"] = True
            payload = ()
        _write_all(channel, (json.dumps(obj, allow_nan=True) + "\n").encode())
        for values, wire in payload:
            _write_all(channel, np.ascontiguousarray(values.reshape(-1).astype(wire or values.dtype, copy=False)))

    from ldpaudit.audit.targets import load_target

    target_args = dict(a.split("=", 1) for a in args.arg)
    try:
        func = load_target(args.target, target_args, batch=args.batch)
    except Exception as exc:  # report any failure to load, then stop
        from ldpaudit.errors import LdpAuditError

        text = str(exc) if isinstance(exc, LdpAuditError) else f"{type(exc).__name__}: {exc}"
        send({"error": f"cannot load target {args.target!r}: {text}" if not isinstance(exc, LdpAuditError) else text,
              "kind": "load"})
        return 1

    watchdog = _Watchdog(args.warmup)
    perf = time.perf_counter
    cells = counter.cells
    generator = _ChunkGenerator() if args.batch else None
    packer = _Packer()
    pack = packer.pack
    global_states = _GlobalStates() if args.batch else None
    seed_globals = not (global_states and global_states.usable)     # before every chunk
    if not seed_globals:
        read_globals = global_states.read
        seen = read_globals()   # the global states after the last call, while they are not seeded
    batch = args.batch
    chunk_generator = generator.get if batch else None

    def finished(took: float) -> None:
        """Account for a call that took ``took`` seconds; set the next call's limit."""
        nonlocal slowest
        if calls > 1 and took > slowest:
            slowest = took
        watchdog.allowed = limit()

    def too_slow() -> str:
        if calls == 1:
            return (f"the first call took longer than the warm-up allowance of {args.warmup:g} s "
                    f"(raise it with --warmup)")
        return (f"call took longer than {limit():g} s = max({args.floor:g} s, {args.factor:g} x the slowest "
                f"call so far, {slowest:.3g} s) (raise the floor with --timeout)")

    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("probe"):  # the target has loaded (a cluster checks this before sampling)
            send({"loaded": True})
            continue
        block = request.get("block")
        if block is not None:
            inputs, counts, seeds = block["inputs"], block["counts"], block["seeds"]
        else:
            inputs, counts, seeds = [request["input"]], [request["count"]], [request["seed"]]
        item = 0
        last = perf()       # when the last line went out: a progress line every 0.5 s of a long request

        def failed(obj):
            if block is not None:
                obj["item"] = item
            send(obj)
            return 1

        try:
            seeds, counts = [int(seed) for seed in seeds], [int(count) for count in counts]
            packing = batch and block is not None
            if batch:
                generator.prepare(seeds)
                packer.start(sum(counts))
            outputs = []
            append_output = outputs.append
            for item, x in enumerate(inputs):
                if type(x) is list:
                    x = tuple(x)
                count, seed = counts[item], seeds[item]
                if seed_globals:
                    random.seed(seed)
                    np.random.seed(seed % 2**32)
                if batch:
                    while True:
                        chunk_rng = chunk_generator(item, seed)
                        calls += 1
                        cells[0] = calls
                        watchdog.started = start = perf()
                        drawn = func(x, count, chunk_rng)
                        end = perf()
                        watchdog.started = None
                        if calls <= 2 or end - start > slowest:
                            finished(end - start)
                        if seed_globals:
                            break
                        before, seen = seen, read_globals()    # nothing else draws from them between calls
                        if seen == before:
                            break
                        # it drew from random or numpy.random: seed them for this chunk and every later one
                        seed_globals = True
                        random.seed(seed)
                        np.random.seed(seed % 2**32)
                    if packing and type(drawn) is np.ndarray and drawn.ndim == 1 and drawn.shape[0] == count \
                            and drawn.dtype.kind in "biu":
                        drawn = pack(drawn)
                    append_output(drawn)
                    if packing and end - last > 0.5 and not recorder.text:
                        send({"progress": item + 1})
                        last = end
                else:
                    drawn = []
                    append = drawn.append
                    for i in range(count):
                        calls += 1
                        cells[0] = calls
                        watchdog.started = start = perf()
                        append(func(x))
                        end = perf()
                        watchdog.started = None
                        if calls <= 2 or end - start > slowest:
                            finished(end - start)
                        if recorder.text:
                            break
                        if calls == 1 or end - last > 0.5:
                            send({"progress": i + 1})
                            last = end
                    outputs.append(drawn)
                if recorder.text:
                    text = "".join(recorder.text)
                    return failed({"error": f"randomizer wrote to stdout: {text[:80]!r}", "kind": "stdout",
                                   "call": calls})
            if block is None:
                hist = histogram(outputs[0], args.batch) if request.get("histogram") else None
                send({"hist": hist} if hist is not None else {"outputs": encode(outputs[0])})
            else:
                if batch:
                    packer.finish(outputs, bool(request.get("histogram")))
                header, payload = block_reply(outputs, counts,
                                              histogram_asked=bool(request.get("histogram")), batch=args.batch,
                                              packer=packer)
                send(header, payload)
        except _CallTimeout:
            return failed({"error": too_slow(), "kind": "timeout", "call": calls})
        except MemoryError:
            watchdog.started = None
            return failed({"error": "randomizer ran out of memory (MemoryError under the worker's memory limit)",
                           "kind": "memory", "call": calls})
        except Unsendable as exc:
            item = getattr(exc, "item", item)
            return failed({"error": str(exc), "kind": "output", "call": calls})
        except Exception as exc:
            watchdog.started = None
            return failed({"error": f"randomizer raised {type(exc).__name__}: {exc}", "kind": "exception",
                           "call": calls})
    return 0


if __name__ == "__main__":
    sys.exit(main())
