"""The JSON-lines protocol's messages, apart from the processes that speak it (external.py).

A reply's outputs are decoded without unpickling anything (:func:`decode`, the inverse of
:func:`ldpaudit.audit.replies.encode`). A block reply of the isolation worker is one header line
and the chunks' values as raw numpy buffers: :func:`block_layout` checks the header against
what was asked (how many chunks, how many draws each), the dtypes against a fixed list of
numeric ones, the payload's length against the header and the memory budget;
:func:`block_outputs` checks narrowed values against the range of the dtype they stand for
before it reads a byte as a number. :func:`request_seeds` gives the seeds of a block's requests
(:func:`first_seeds` when each task is one request).
"""

from __future__ import annotations

import base64
import json
import operator
from collections.abc import Sequence

import numpy as np

from ldpaudit.audit import seeds
from ldpaudit.audit.replies import RAW_DTYPES
from ldpaudit.errors import RandomizerError


class _LongInt(int):
    """An integer past Python's int/str conversion limit (4,300 digits): an int, printed
    through Decimal, which converts without that limit."""

    def __repr__(self):
        from decimal import Decimal

        return str(Decimal(int(self)))

    __str__ = __repr__


def _json_int(text: str) -> int:
    """A JSON integer of a reply: the limit on converting long digit strings is the
    auditor's own, not a fault of the randomizer, so a longer one is read through Decimal."""
    try:
        return int(text)
    except ValueError:
        from decimal import Decimal

        return _LongInt(Decimal(text))


def loads(line: bytes):
    """A reply line as JSON: json's own integers (parsed in C) unless one is past the int/str
    digit limit, then that reply through :func:`_json_int`. Malformed JSON raises
    ``json.JSONDecodeError`` (or ``UnicodeDecodeError``)."""
    try:
        return json.loads(line)
    except ValueError as exc:
        if isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError)):
            raise
        return json.loads(line, parse_int=_json_int)


def decode(value):
    """Inverse of :func:`ldpaudit.audit.replies.encode`; plain JSON arrays become tuples.
    Nothing is unpickled: values the encoding does not know arrive as opaque stand-ins."""
    if isinstance(value, list):
        return tuple(decode(v) for v in value)
    if isinstance(value, dict):
        if "__nd__" in value:
            dtype = np.dtype(value["__nd__"])
            if dtype.kind not in "biufc":
                raise RandomizerError(f"reply carries an array of unsupported dtype {dtype}")
            if "bits" in value:         # 0/1 matrix packed 8 cells per byte (replies.encode)
                rows, width = (int(v) for v in value["shape"])
                packed = np.frombuffer(base64.b64decode(value["bits"]), dtype=np.uint8)
                if dtype.itemsize != 1 or packed.size != rows * ((width + 7) // 8):
                    raise RandomizerError(f"reply carries a packed bit matrix of {packed.size} bytes for shape "
                                          f"({rows}, {width})")
                return np.unpackbits(packed.reshape(rows, -1), axis=1, count=width).view(dtype)
            raw = base64.b64decode(value["data"])
            return np.frombuffer(raw, dtype=dtype).reshape(value["shape"]).copy()
        if "__nda__" in value:   # an array of strings, bytes or objects
            flat = [decode(v) for v in value["__nda__"]]
            arr = np.empty(len(flat), dtype=object)
            arr[:] = flat
            return arr.reshape(value["shape"])
        if "__t__" in value:
            return tuple(decode(v) for v in value["__t__"])
        if "__l__" in value:
            return [decode(v) for v in value["__l__"]]
        if "__s__" in value:
            return frozenset(decode(v) for v in value["__s__"])
        if "__b__" in value:
            return base64.b64decode(value["__b__"])
        if "__c__" in value:
            re, im = value["__c__"]
            return complex(re, im)
        if "__o__" in value:
            from ldpaudit.audit.adapters import Opaque

            return Opaque(str(value["__o__"]), str(value.get("repr", "")))
        if "__u__" in value:
            from ldpaudit.audit.adapters import Unhashable

            return Unhashable(str(value["__u__"]), str(value.get("repr", "")))
        raise RandomizerError(f"reply output is a JSON object {json.dumps(value)[:60]}; outputs must be numbers, strings or arrays")
    return value


# -- block replies ------------------------------------------------------------------------------

class BadReply(ValueError):
    """A reply that breaks the protocol; the caller ends the program and names the input."""


def _count(value, what: str, low: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise BadReply(f"{what} is {json.dumps(value)[:40]}, not an integer >= {low}")
    return value


def _raw_dtype(text, what: str) -> np.dtype:
    """A dtype named in a block header: one of the numeric dtypes the worker sends raw (never
    an object, string or structured dtype, whatever the string says)."""
    if not isinstance(text, str) or text not in RAW_DTYPES:
        raise BadReply(f"{what} {json.dumps(text)[:40]} is not one of {', '.join(sorted(RAW_DTYPES))}")
    return np.dtype(text)


def block_layout(header, counts: Sequence[int], max_bytes: int) -> tuple[list, int]:
    """Check a block header (:func:`ldpaudit.audit.replies.block_reply`) against the request:
    its descriptors cover the ``counts`` chunks asked for, each with a numeric dtype and a wire
    dtype that can carry it, and the payload it announces is the length they need and at most
    ``max_bytes``. Returns the layout for :func:`block_outputs` and the payload's length;
    raises :class:`BadReply` naming what is wrong."""
    if not isinstance(header, dict) or not isinstance(header.get("block"), list):
        raise BadReply(f"replied {json.dumps(header)[:80]} to a block request; expected {{\"block\": [...], "
                       f"\"bytes\": n}}")
    announced = _count(header.get("bytes"), "the payload length ('bytes')")
    if announced > max_bytes:
        raise BadReply(f"announced a payload of {announced} bytes; at most {max_bytes} are accepted")
    layout, k, size = [], 0, 0
    for d in header["block"]:
        if not isinstance(d, list) or not d or d[0] not in ("r", "p", "h", "j"):
            raise BadReply(f"block descriptor {json.dumps(d)[:60]} is not ['r' | 'p' | 'h' | 'j', ...]")
        if k >= len(counts):
            raise BadReply(f"block header describes more than the {len(counts)} chunks asked for")
        tag = d[0]
        if tag == "r":
            if len(d) != 5 or not isinstance(d[3], list) or len(d[3]) > 1:
                raise BadReply(f"run descriptor {json.dumps(d)[:60]} is not ['r', dtype, wire, [] or [columns], chunks]")
            dtype, wire = _raw_dtype(d[1], "dtype"), _raw_dtype(d[2], "wire dtype")
            if dtype.kind == "f" and wire != dtype or dtype.kind != "f" and wire.kind == "f":
                raise BadReply(f"wire dtype {wire.str} cannot carry values of dtype {dtype.str}")
            trailing = tuple(_count(c, "the number of columns") for c in d[3])
            run = _count(d[4], "the number of chunks in a run", 1)
            if k + run > len(counts):
                raise BadReply(f"block header describes more than the {len(counts)} chunks asked for")
            width = trailing[0] if trailing else 1
            cells = sum(counts[k:k + run]) * width
            layout.append(("r", size, dtype, wire, trailing, k, run))
            size += cells * wire.itemsize
            k += run
        elif tag == "p":
            if len(d) != 3:
                raise BadReply(f"packed descriptor {json.dumps(d)[:60]} is not ['p', dtype, columns]")
            dtype = _raw_dtype(d[1], "dtype")
            if dtype.itemsize != 1 or dtype.kind not in "bu":
                raise BadReply(f"packed bits stand for one-byte 0/1 cells, not dtype {dtype.str}")
            width = _count(d[2], "the number of columns", 1)
            layout.append(("p", size, dtype, width, k))
            size += int(counts[k]) * ((width + 7) // 8)
            k += 1
        else:
            if len(d) != 2:
                raise BadReply(f"block descriptor {json.dumps(d)[:60]} is not ['{tag}', value]")
            layout.append((tag, d[1], k))
            k += 1
        if size > max_bytes:
            raise BadReply(f"block header describes more than {max_bytes} bytes of values")
    if k != len(counts):
        raise BadReply(f"block header describes {k} chunks; {len(counts)} were asked for")
    if size != announced:
        raise BadReply(f"announced a payload of {announced} bytes; its descriptors need {size}")
    return layout, size


def _check_range(region: np.ndarray, dtype: np.dtype, wire: np.dtype) -> None:
    """Values sent as ``wire`` must be values of ``dtype``: a boolean is the byte 0 or 1, and a
    wire that does not cast to ``dtype`` without loss carries only values inside its range."""
    if not region.size:
        return
    if wire.kind == "b":
        top = int(region.view(np.uint8).max())
        if top > 1:
            raise BadReply(f"boolean value out of range: byte {top} in a buffer of booleans")
        return
    if dtype.kind == "b":
        low, top = int(region.min()), int(region.max())
        if low < 0 or top > 1:
            raise BadReply(f"boolean value out of range: {low if low < 0 else top} sent as {wire} for dtype bool")
        return
    if np.can_cast(wire, dtype):
        return
    info = np.iinfo(dtype)
    low, top = int(region.min()), int(region.max())
    if low < info.min or top > info.max:
        raise BadReply(f"value {low if low < info.min else top} out of range of dtype {dtype} (sent as {wire})")


def block_outputs(layout: list, counts: Sequence[int], payload: np.ndarray, decode_histogram) -> list:
    """The outputs of each chunk of a block from its checked layout and payload (uint8):
    arrays (the chunks of a run are consecutive views of one array of their dtype), lists, or
    what ``decode_histogram(hist, k)`` makes of a histogram. Raises :class:`BadReply`. When
    one run of 1-d arrays holds every chunk, the result's ``flat`` is that run's array."""
    from ldpaudit.audit.adapters import FlatChunks

    if len(layout) == 1 and layout[0][0] == "r" and not layout[0][4]:    # one run of 1-d arrays
        _, offset, dtype, wire, _, _, _ = layout[0]
        region = payload[offset:].view(wire)
        _check_range(region, dtype, wire)
        if wire == dtype:
            return FlatChunks(region, list(counts))
        return FlatChunks(None, list(counts), narrow=region, dtype=dtype)    # widened when first asked for
    results: list = [None] * len(counts)
    for entry in layout:
        tag = entry[0]
        if tag == "r":
            _, offset, dtype, wire, trailing, k, run = entry
            sizes = [int(c) for c in counts[k:k + run]]
            width = trailing[0] if trailing else 1
            region = payload[offset:offset + sum(sizes) * width * wire.itemsize].view(wire)
            _check_range(region, dtype, wire)
            values = region if wire == dtype and offset % wire.itemsize == 0 else region.astype(dtype)
            start = 0
            for j, m in enumerate(sizes):
                results[k + j] = values[start:start + m * width].reshape((m, *trailing))
                start += m * width
        elif tag == "p":
            _, offset, dtype, width, k = entry
            rows = int(counts[k])
            packed = payload[offset:offset + rows * ((width + 7) // 8)].reshape(rows, (width + 7) // 8)
            results[k] = np.unpackbits(packed, axis=1, count=width).view(dtype)
        elif tag == "h":
            _, hist, k = entry
            results[k] = decode_histogram(hist, k)
        else:
            _, encoded, k = entry
            outputs = [decode(v) for v in encoded] if isinstance(encoded, list) else decode(encoded)
            if len(outputs) != counts[k]:
                raise BadReply(f"returned {len(outputs)} outputs for a request of {counts[k]}")
            results[k] = outputs
    return results


def _combine(parts: list, histogram: bool):
    """The outputs of one request from those of its chunks: an array, a list or (with
    ``histogram``) a Histogram."""
    if histogram:
        from ldpaudit.audit.adapters import Histogram

        if len(parts) == 1:
            return parts[0]
        if all(isinstance(p, Histogram) for p in parts):
            return Histogram.merge(parts)
        out = []
        for p in parts:
            out.extend(p.expand() if isinstance(p, Histogram) else list(p))
        return out
    if all(isinstance(p, np.ndarray) for p in parts):
        return np.concatenate(parts) if len(parts) > 1 else parts[0]
    return [y for p in parts for y in p]


_FIRST, _SECOND, _THIRD, _KEY = (operator.itemgetter(i) for i in range(4))


def request_seeds(tasks: Sequence[tuple], counts: list[int]) -> list[list[int]]:
    """The first ``counts[t]`` values of ``default_rng(SeedSequence(entropy, spawn_key=key))
    .integers(0, 2**63 - 1)`` of each task (x, n, entropy, key): the seeds of its requests.
    Tasks held as columns (draws.ChunkTasks: one entropy, a table of keys) are read as such."""
    key_table = getattr(tasks, "key_table", None)
    if key_table is not None and seeds.matches_numpy():
        return seeds.spawned_integers(tasks.entropy, key_table(), counts)
    if len(set(map(id, map(_THIRD, tasks)))) <= 1:     # an audit's tasks: one entropy
        groups = [(tasks[0][2], range(len(tasks)))] if tasks else []
    else:
        by_entropy: dict = {}
        for t, (_, _, entropy, _) in enumerate(tasks):
            key = int(entropy) if isinstance(entropy, (int, np.integer)) else repr(entropy)
            by_entropy.setdefault(key, (entropy, []))[1].append(t)
        groups = list(by_entropy.values())
    out: list = [None] * len(tasks)
    for entropy, ts in groups:
        keys = [tuple(tasks[t][3]) for t in ts] if not isinstance(ts, range) else list(map(_KEY, tasks))
        need = [counts[t] for t in ts] if not isinstance(ts, range) else counts
        if seeds.matches_numpy():
            drawn = seeds.spawned_integers(entropy, keys, need)
        else:
            rngs = [np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=k)) for k in keys]
            drawn = [[int(rng.integers(0, 2**63 - 1)) for _ in range(c)] for rng, c in zip(rngs, need)]
        for t, values in zip(ts, drawn):
            out[t] = values
    return out


def first_seeds(tasks: Sequence[tuple]) -> Sequence[int]:
    """The seed of each task's single request (:func:`request_seeds` with one request a task):
    a uint64 array for tasks held as columns (draws.ChunkTasks), else a list."""
    key_table = getattr(tasks, "key_table", None)
    if key_table is not None:       # (spawned_first checks its numbers against numpy's itself)
        table = key_table()
        if table.size == 0 or (table.min() >= 0 and table.max() <= 0xFFFFFFFF):
            return seeds.spawned_first(tasks.entropy, table)
    return list(map(_FIRST, request_seeds(tasks, [1] * len(tasks))))


def jsonable(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, tuple):
        return [jsonable(v) for v in x]
    return x
