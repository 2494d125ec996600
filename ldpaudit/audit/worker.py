"""The isolation worker: runs an untrusted Python randomizer in its own process.

It speaks the same JSON-lines protocol as any ``--command`` program (see
:mod:`ldpaudit.audit.external`): one request per line on stdin,
``{"input": X, "count": N, "seed": S}``, one reply per line on stdout,
``{"outputs": [...]}``. Extensions the auditor understands: ``{"progress": i}`` lines
during long requests (so a slow but live randomizer is not taken for a hung one), and
``{"error": ..., "kind": ..., "call": i}`` replies that say which call failed.

Usage: ``python -m ldpaudit.audit.worker TARGET [--batch] [--arg name=value ...]
[--call-timeout SECONDS]``. Outputs are encoded with tags so tuples, sets and numpy arrays
survive JSON; the parent decodes them without unpickling anything.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import random
import signal
import sys
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
    """Tagged JSON encoding of one output (or a batch)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise Unsendable(f"numpy array of dtype {value.dtype} is not a supported output")
        arr = np.ascontiguousarray(value)
        return {"__nd__": arr.dtype.str, "shape": list(arr.shape), "data": base64.b64encode(arr.tobytes()).decode()}
    if isinstance(value, tuple):
        return {"__t__": [encode(v) for v in value]}
    if isinstance(value, list):
        return {"__l__": [encode(v) for v in value]}
    if isinstance(value, set | frozenset):
        return {"__s__": [encode(v) for v in sorted(value, key=repr)]}
    raise Unsendable(f"output of type {type(value).__name__} cannot be sent back ({value!r:.60})")


def _parse_args(argv):
    p = argparse.ArgumentParser(prog="ldpaudit-worker")
    p.add_argument("target")
    p.add_argument("--batch", action="store_true")
    p.add_argument("--arg", action="append", default=[])
    p.add_argument("--call-timeout", type=float, default=0.0)
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = _parse_args(argv)
    # the protocol channel is a private copy of stdout; fd 1 now goes to stderr, so that
    # whatever the randomizer prints cannot corrupt the protocol
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    recorder = _StdoutRecorder()
    sys.stdout = recorder

    def send(obj):
        channel.write(json.dumps(obj, allow_nan=True) + "\n")
        channel.flush()

    from ldpaudit.audit.adapters import load_target

    target_args = dict(a.split("=", 1) for a in args.arg)
    try:
        func = load_target(args.target, target_args)
    except Exception as exc:  # report any failure to load, then stop
        send({"error": f"cannot load target {args.target!r}: {type(exc).__name__}: {exc}", "kind": "load"})
        return 1

    def on_alarm(signum, frame):
        raise _CallTimeout()

    signal.signal(signal.SIGALRM, on_alarm)
    timeout = args.call_timeout

    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        x, count, seed = request["input"], int(request["count"]), int(request["seed"])
        if isinstance(x, list):
            x = tuple(x)
        random.seed(seed)
        np.random.seed(seed % 2**32)
        call = 0
        try:
            if args.batch:
                if timeout:
                    signal.setitimer(signal.ITIMER_REAL, timeout)
                outputs = func(x, count, np.random.default_rng(seed))
                signal.setitimer(signal.ITIMER_REAL, 0)
            else:
                outputs = []
                last = time.monotonic()
                for call in range(count):
                    if timeout:
                        signal.setitimer(signal.ITIMER_REAL, timeout)
                    outputs.append(func(x))
                    if timeout:
                        signal.setitimer(signal.ITIMER_REAL, 0)
                    if recorder.text:
                        break
                    now = time.monotonic()
                    if now - last > 0.5:
                        send({"progress": call + 1})
                        last = now
            if recorder.text:
                text = "".join(recorder.text)
                send({"error": f"randomizer wrote to stdout: {text[:80]!r}", "kind": "stdout", "call": call})
                return 1
            send({"outputs": encode(outputs)})
        except _CallTimeout:
            send({"error": f"call took longer than {timeout:g} s", "kind": "timeout", "call": call})
            return 1
        except MemoryError:
            signal.setitimer(signal.ITIMER_REAL, 0)
            send({"error": "randomizer ran out of memory (MemoryError under the worker's memory limit)", "kind": "memory", "call": call})
            return 1
        except Unsendable as exc:
            send({"error": str(exc), "kind": "output", "call": call})
            return 1
        except Exception as exc:
            signal.setitimer(signal.ITIMER_REAL, 0)
            send({"error": f"randomizer raised {type(exc).__name__}: {exc}", "kind": "exception", "call": call})
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
