"""The isolation worker: runs an untrusted Python randomizer in its own (sandboxed) process.

It speaks the same JSON-lines protocol as any ``--command`` program (see
:mod:`ldpaudit.audit.external`): one request per line on stdin,
``{"input": X, "count": N, "seed": S}``, one reply per line on stdout,
``{"outputs": [...]}``. Extensions the auditor understands:

- ``"histogram": true`` in a request: discrete outputs come back as
  ``{"hist": {"values": [...], "counts": [...]}}`` (distinct outputs, ascending for arrays,
  in order of first appearance otherwise), which is all the auditor needs from them;
- ``{"progress": i}`` lines during long requests, so a slow but live randomizer is not taken
  for a hung one; every line also carries ``"limit"``, the next call's time limit, and
  ``"slowest"``, the slowest call after the first;
- ``{"error": ..., "kind": ..., "call": i}`` replies naming the call (counted from 1 over
  the worker's life) that failed;
- ``{"probe": true}`` is answered ``{"loaded": true}`` once the target has loaded (or with
  the load error), without calling it.

Usage: ``python -m ldpaudit.audit.worker TARGET [--batch] [--arg name=value ...]
[--warmup S] [--floor S] [--factor F]``: the first call may take ``--warmup`` seconds, later
ones max(``--floor``, ``--factor`` × the slowest call after the first). The number of the
call in progress is kept in the 8-byte file named by ``LDPAUDIT_CALL_COUNTER`` so that the
auditor can name it if the process dies. Outputs are encoded with tags so that tuples, sets,
bytes, complex numbers and numpy arrays survive JSON; the auditor decodes them without
unpickling anything. This module imports only numpy and the target loader.
"""

from __future__ import annotations

import argparse
import base64
import collections
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
        if outputs.dtype.kind == "b" or (outputs.min() >= 0 and outputs.max() < (1 << 16)):
            counts = np.bincount(outputs.astype(np.intp, copy=False))
            values = np.flatnonzero(counts)
            counts = counts[values]
            values = values.astype(outputs.dtype)
        else:
            values, counts = np.unique(outputs, return_counts=True)
        if len(values) > outputs.size // 2:
            return None
        return {"values": encode(values), "counts": encode(counts.astype(np.int64))}
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


def main(argv=None) -> int:
    args = _parse_args(argv)
    # the protocol channel is a private copy of stdout; fd 1 now goes to stderr, so that
    # whatever the randomizer prints cannot corrupt the protocol
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    recorder = _StdoutRecorder()
    sys.stdout = recorder
    calls = 0               # calls started over the worker's life
    slowest = 0.0           # slowest call after the first
    counter = _Counter()

    def limit() -> float:
        return args.warmup if calls == 0 else max(args.floor, args.factor * slowest)

    def send(obj):
        obj["limit"] = limit()
        obj["slowest"] = slowest if calls > 1 else None
        channel.write(json.dumps(obj, allow_nan=True) + "\n")
        channel.flush()

    from ldpaudit.audit.adapters import load_target

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
        x, count, seed = request["input"], int(request["count"]), int(request["seed"])
        if isinstance(x, list):
            x = tuple(x)
        random.seed(seed)
        np.random.seed(seed % 2**32)
        try:
            if args.batch:
                calls += 1
                cells[0] = calls
                watchdog.started = start = perf()
                outputs = func(x, count, np.random.default_rng(seed))
                watchdog.started = None
                finished(perf() - start)
            else:
                outputs = []
                append = outputs.append
                last = perf()
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
            if recorder.text:
                text = "".join(recorder.text)
                send({"error": f"randomizer wrote to stdout: {text[:80]!r}", "kind": "stdout", "call": calls})
                return 1
            hist = histogram(outputs, args.batch) if request.get("histogram") else None
            send({"hist": hist} if hist is not None else {"outputs": encode(outputs)})
        except _CallTimeout:
            send({"error": too_slow(), "kind": "timeout", "call": calls})
            return 1
        except MemoryError:
            watchdog.started = None
            send({"error": "randomizer ran out of memory (MemoryError under the worker's memory limit)",
                  "kind": "memory", "call": calls})
            return 1
        except Unsendable as exc:
            send({"error": str(exc), "kind": "output", "call": calls})
            return 1
        except Exception as exc:
            watchdog.started = None
            send({"error": f"randomizer raised {type(exc).__name__}: {exc}", "kind": "exception", "call": calls})
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
