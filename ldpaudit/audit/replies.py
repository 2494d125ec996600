"""What the isolation worker sends back (:mod:`ldpaudit.audit.worker`): outputs as tagged JSON
(:func:`encode`), discrete outputs as histograms, and a block of chunks as one header line and
the chunks' values as raw numpy buffers (:func:`block_reply`), each run of integer values in the
smallest dtype that holds it (:func:`wire_dtype`). The :class:`_Packer` gathers a block's 1-d
integer and boolean outputs as the calls return them. The auditor's side of these messages is
:mod:`ldpaudit.audit.wire`. Like the worker, this module imports only numpy, so that it also
runs under another interpreter (``--python``; :mod:`ldpaudit.audit.interpreter` ships it).
"""

from __future__ import annotations

import base64
import collections
import sys

import numpy as np


class Unsendable(TypeError):
    """An output that the JSON-lines encoding cannot carry."""


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
    # x - lo wraps in a narrow signed dtype (127 - (-128) in int8); read as the unsigned type of
    # the same width it is the true offset, 0..hi-lo
    offsets = (ints - base).view(ints.dtype.str.replace("i", "u"))
    counts = np.bincount(offsets.astype(np.intp, copy=False))
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
                packer: _Packer | None = None) -> tuple[dict, list]:
    """The header and payload (arrays with the wire dtype each travels in, sent back to back)
    that answer a block: outputs[k] drawn for a chunk of counts[k] (``_PACKED``: its values are
    in ``packer``).

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
            chunks = segment[1]
            offset, cells = packer.take(chunks)
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
        if out is _PACKED:     # consecutive packed chunks lie back to back in the packer
            end = k + 1
            while end < n and outputs[end] is _PACKED:
                end += 1
            yield "packed", end - k     # (chunks sent as histograms were replaced by arrays in finish())
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
        while end < n and isinstance(outputs[end], np.ndarray) \
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


_MINIMUM, _MAXIMUM = np.minimum.reduce, np.maximum.reduce


class _Packed:
    """The output of a chunk whose values are in the packer (one instance, :data:`_PACKED`; the
    packer keeps the chunks' places, in order)."""

    __slots__ = ()

    def __repr__(self):
        return "<packed>"


_PACKED = _Packed()


class _Packer:
    """The 1-d integer and boolean arrays of a block, packed as each call returns them: copied
    into a small stage while in cache; every :attr:`STAGE` cells the staged chunks' ranges are
    found at once and their values cast into the block's store, in the smallest dtype that holds
    every value so far (the wire dtype, widened when a later chunk needs it), so that a block's
    values are written to memory once, two bytes each below 65536, not eight. :meth:`finish`
    sends as histograms the chunks whose range makes that the shorter message, and picks the
    wire dtype of the others from the ranges already found."""

    STAGE = 1 << 16     # cells staged (512 KiB of int64: in the L2 cache beside the randomizer's arrays)

    def __init__(self):
        self.stage = np.empty(0, dtype=np.int64)
        self.store = np.empty(0, dtype=np.uint8)      # both reused from block to block

    def start(self, cells: int) -> None:
        self.cells, self.dtype, self.used, self.wire = cells, None, 0, None
        self.staged, self.stage_sizes = 0, []     # cells and chunk sizes in the stage
        self.sizes, self.lows, self.highs = [], [], []    # of every packed chunk, a group at a time
        self.low = self.high = None                 # the range of every packed value
        self.placed, self.taken = ([], []), 0       # the places of the chunks left packed (finish)

    def pack(self, arr: np.ndarray):
        """Stage a 1-d integer or boolean array, or return it as it is (another dtype than the
        block's first)."""
        dtype = arr.dtype
        if dtype is not self.dtype:
            if self.dtype is None:
                if dtype.newbyteorder("<").str not in RAW_DTYPES:
                    return arr
                self.dtype = dtype
                if self.stage.dtype != dtype or not self.stage.size:
                    self.stage = np.empty(self.STAGE, dtype=dtype)
            elif dtype != self.dtype:
                return arr
        staged, size = self.staged, arr.size
        offset = self.used + staged
        if offset + size > self.cells:
            return arr
        if staged + size <= self.STAGE:
            self.stage[staged:staged + size] = arr
            self.staged = staged + size
            self.stage_sizes.append(size)
        else:
            self._flush()
            if size <= self.STAGE:
                self.stage[:size] = arr
                self.staged = size
                self.stage_sizes.append(size)
            else:
                self._store(arr, [size])
        return _PACKED

    def view(self) -> memoryview | None:
        """The stage as a memoryview, once the block's dtype is known: a caller may copy a chunk
        into it (the next ``count`` cells after :attr:`staged`) where the assignment succeeds,
        a 1-d array of that dtype and length and nothing else, then add ``count`` to
        :attr:`staged` and append it to :attr:`stage_sizes` (what :meth:`pack` does)."""
        return memoryview(self.stage) if self.dtype is not None else None

    def _flush(self) -> None:
        if self.stage_sizes:
            self._store(self.stage[:self.staged], self.stage_sizes)
            self.staged, self.stage_sizes = 0, []

    def _store(self, values: np.ndarray, sizes: list) -> None:
        """Find the range of each chunk of ``values`` (back to back, ``sizes`` cells each) and
        cast them into the store, widening it first when they need it."""
        sizes = np.array(sizes, dtype=np.intp)
        ints = values.view(np.uint8) if values.dtype.kind == "b" else values
        nonempty = sizes > 0
        if nonempty.all():
            lows, highs = np.minimum.reduceat(ints, np.cumsum(sizes) - sizes), np.maximum.reduceat(ints, np.cumsum(sizes) - sizes)
        else:
            lows, highs = np.zeros(len(sizes), dtype=ints.dtype), np.zeros(len(sizes), dtype=ints.dtype)
            if values.size:
                starts = (np.cumsum(sizes) - sizes)[nonempty]
                lows[nonempty], highs[nonempty] = np.minimum.reduceat(ints, starts), np.maximum.reduceat(ints, starts)
        self.sizes.append(sizes)
        self.lows.append(lows)
        self.highs.append(highs)
        if not values.size:
            return
        low, high = int(_MINIMUM(lows[nonempty])), int(_MAXIMUM(highs[nonempty]))
        if self.low is None or low < self.low or high > self.high:
            self._widen(low if self.low is None else min(low, self.low), high if self.high is None else max(high, self.high))
        used = self.used
        self.store[used:used + values.size] = values
        self.used = used + values.size

    def _widen(self, low: int, high: int) -> None:
        """Make the store hold values in [low, high] (with the values stored so far)."""
        self.low, self.high = low, high
        dtype = wire_dtype(self.dtype.newbyteorder("<"), low, high)
        if self.store.dtype == dtype and self.store.size >= self.cells:
            return
        store = self.store if self.store.dtype == dtype else None
        if store is None or store.size < self.cells:
            store = np.empty(self.cells, dtype=dtype)
            store[:self.used] = self.store[:self.used]
        self.store = store

    def finish(self, outputs: list, histogram_asked: bool) -> None:
        """Replace the packed chunks whose histogram is the shorter message by their values,
        and find the wire dtype of the others."""
        self._flush()
        if not self.sizes:
            return
        sizes = np.concatenate(self.sizes)
        offsets = np.cumsum(sizes) - sizes
        self.placed, self.taken = (offsets.tolist(), sizes.tolist()), 0
        if not self.used:
            return
        low, high = self.low, self.high
        if histogram_asked:
            lows, highs = np.concatenate(self.lows), np.concatenate(self.highs)
            spans = highs.astype(np.uint64) - lows.astype(np.uint64)    # high - low, exact modulo 2^64
            short = (sizes >= 2) & (spans < (sizes // 2).astype(np.uint64))
            if short.any():
                packed = [k for k, out in enumerate(outputs) if out is _PACKED]    # in packing order
                for j in np.flatnonzero(short).tolist():
                    outputs[packed[j]] = self.store[offsets[j]:offsets[j] + sizes[j]].astype(self.dtype)
                kept = ~short
                self.placed = (offsets[kept].tolist(), sizes[kept].tolist())
                kept &= sizes > 0
                if not kept.any():
                    return
                low, high = int(lows[kept].min()), int(highs[kept].max())
        self.wire = wire_dtype(self.dtype.newbyteorder("<"), low, high)

    def take(self, chunks: int) -> tuple[int, int]:
        """(offset, cells) in the store of the next ``chunks`` packed chunks (a run in the reply)."""
        offsets, sizes = self.placed
        first, last = self.taken, self.taken + chunks - 1
        self.taken = last + 1
        return offsets[first], offsets[last] + sizes[last] - offsets[first]

    def values(self, offset: int, size: int) -> np.ndarray:
        """Packed values (in the store's dtype; cast to :attr:`wire` as they are sent)."""
        return self.store[offset:offset + size]
