"""Randomizers in other processes: isolated Python targets and programs in any language.

Both speak one JSON-lines protocol over the program's stdin/stdout. The auditor writes one
request per line and the program answers each with one line::

    -> {"input": 3, "count": 1000, "seed": 12345}
    <- {"outputs": [0, 3, 3, 1, ...]}

``outputs`` holds ``count`` outputs, each any JSON value: a number, a string, or an array
(read as a tuple, e.g. a bit vector or a (cohort, value) pair). Use ``seed`` to seed the
program's generator so that runs are reproducible. Optional lines the auditor understands:
``{"progress": i}`` (still working) and ``{"error": "...", "call": i}`` (the program reports a
failure). A reply that is not JSON, has the wrong count, or never comes, and a program that
exits or is killed, all raise :class:`~ldpaudit.errors.RandomizerError` naming the input and
the call (the request number of a program, the call of the function for a Python target).

The isolation worker (:mod:`ldpaudit.audit.worker`) is asked for many chunks at once
(``{"block": {"inputs": [...], "counts": [...], "seeds": [...]}}``) and answers with one
header line and the chunks' values as raw numpy buffers in the smallest integer dtype that
holds them, written into a buffer shared with the auditor (a memfd sealed against resizing,
mapped read-only here) or, when it does not fit, down the pipe after the line. The auditor
checks the header against what it asked (how many chunks, how many draws each), the dtypes
against a fixed list of numeric ones, the payload's length against the header and the memory
budget, copies the bytes out of the shared buffer, and checks narrowed values against the range
of the dtype they stand for, before it reads a byte as a number. A chunk's seed is
``default_rng(SeedSequence(entropy, spawn_key=key)).integers(0, 2**63 - 1)`` however it
travels (computed for a whole block at once, :mod:`ldpaudit.audit.seeds`), so a chunk draws the
same outputs in a block, alone, or on a cluster.

Every program runs in the sandbox of :mod:`ldpaudit.audit.sandbox` (a supervisor between
it and the auditor; no signals to other processes, no network and read-only files where the
machine allows), with an address-space limit, under the timeout policy of
:class:`TimeoutPolicy`: a warm-up allowance for the first call, then a limit derived from the
calls seen so far.
"""

from __future__ import annotations

import base64
import fcntl
import json
import mmap
import operator
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ldpaudit.audit import seeds
from ldpaudit.audit.worker import RAW_DTYPES
from ldpaudit.errors import RandomizerError

#: the floor of the per-call timeout (``--timeout``)
DEFAULT_TIMEOUT = 10.0
#: the first call's allowance (``--warmup``): imports, JIT compilation, loading models
DEFAULT_WARMUP = 120.0
#: later calls may take this many times the slowest call seen after the first
TIMEOUT_FACTOR = 50.0
DEFAULT_MEMORY_MB = 2048
MAX_LINE_BYTES = 1 << 30
#: bytes a reply's payload may have at most (and at most the worker's memory limit)
MAX_PAYLOAD_BYTES = 1 << 30
#: capacity asked for the pipe the replies come through (Linux; 64 KiB by default)
PIPE_BYTES = 1 << 20
#: bytes of the buffer shared with the isolation worker for block payloads (Linux memfd)
SHARED_BYTES = 1 << 24
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
STDERR_KEPT = 8192
#: extra seconds the auditor waits beyond the worker's own per-call limit before killing it
GRACE = 5.0
#: seconds a sandbox supervisor gets to end the randomizer's process tree before it is SIGKILLed
STOP_WAIT = 10.0
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


@dataclass(frozen=True)
class TimeoutPolicy:
    """First call: ``warmup`` seconds; later calls: max(``floor``, ``factor`` × the slowest
    call observed after the first). A call of a Python target is one call of the function;
    a call of a ``--command`` program is one request."""

    warmup: float = DEFAULT_WARMUP
    floor: float = DEFAULT_TIMEOUT
    factor: float = TIMEOUT_FACTOR

    def limit(self, first: bool, slowest: float) -> float:
        return self.warmup if first else max(self.floor, self.factor * slowest)

    def rule(self) -> str:
        return (f"first call: {self.warmup:g} s (warm-up: imports, JIT compilation); later calls: "
                f"max({self.floor:g} s, {self.factor:g} x the slowest call after the first)")

    def to_json(self, slowest: float | None = None) -> dict:
        return {"first_call_s": self.warmup, "floor_s": self.floor, "factor": self.factor,
                "rule": self.rule(), "slowest_call_s": slowest}


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


def decode(value):
    """Inverse of :func:`ldpaudit.audit.worker.encode`; plain JSON arrays become tuples.
    Nothing is unpickled: values the encoding does not know arrive as opaque stand-ins."""
    if isinstance(value, list):
        return tuple(decode(v) for v in value)
    if isinstance(value, dict):
        if "__nd__" in value:
            dtype = np.dtype(value["__nd__"])
            if dtype.kind not in "biufc":
                raise RandomizerError(f"reply carries an array of unsupported dtype {dtype}")
            if "bits" in value:         # 0/1 matrix packed 8 cells per byte (worker.encode)
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
    """Check a block header (:func:`ldpaudit.audit.worker.block_reply`) against the request:
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

_SIGNAL_NOTES = {
    signal.SIGSYS: "the sandbox stopped it: it tried to signal or trace another process (its parent? the auditor?)",
    signal.SIGKILL: "killed by itself, another process, a resource limit or the out-of-memory killer",
    signal.SIGSEGV: "a segmentation fault",
    signal.SIGABRT: "it aborted",
    signal.SIGBUS: "a bus error",
}


def _signal_text(n: int) -> str:
    try:
        sig = signal.Signals(n)
    except ValueError:
        return f"killed by signal {n}"
    note = _SIGNAL_NOTES.get(sig)
    return f"killed by signal {n} ({sig.name}{': ' + note if note else ''})"


class ExternalRandomizer:
    """A randomizer behind the JSON-lines protocol, callable as a batch randomizer
    ``f(x, n, rng) -> n outputs``; :meth:`draw_counts` asks for a histogram instead, where the
    program can give one (the isolation worker does for discrete outputs). Use as a context
    manager, or call :meth:`close`."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        policy: TimeoutPolicy = TimeoutPolicy(),
        memory_mb: int | None = DEFAULT_MEMORY_MB,
        chunk: int = 100_000,
        name: str | None = None,
        env: dict | None = None,
        sandbox: bool = True,
        worker: bool = False,
    ):
        if not argv:
            raise RandomizerError("empty command; give a program to run, e.g. --command 'python3 my_randomizer.py'")
        self.argv = list(argv)
        self.name = name or " ".join(shlex.quote(a) for a in self.argv)
        self.policy = policy
        self.memory_mb = memory_mb
        self.chunk = int(chunk)
        self.env = env
        self.sandbox = sandbox
        self.worker = worker        # the program is ldpaudit's isolation worker (it enforces per-call limits)
        self.proc: subprocess.Popen | None = None
        self._buffer = b""
        self._stderr = b""
        self._status_fd: int | None = None
        self._status_buffer = b""
        self._scratch: str | None = None
        self._counter: mmap.mmap | None = None
        self._shared: mmap.mmap | None = None    # the worker's block payloads (read-only here)
        self.status: dict = {}
        self.sandbox_info: dict | None = None
        self.target_pid: int | None = None
        self.requests = 0           # requests answered
        self.slowest: float | None = None   # slowest call after the first, seconds
        self._first_done = False
        self._worker_limit: float | None = None

    # -- process management --

    def start(self) -> None:
        """Start the program now (it loads while the caller does other work); otherwise it
        starts at the first request. Not before forking workers: each must start its own."""
        if self.proc is None:
            self._start()

    def _start(self):
        env = dict(os.environ if self.env is None else self.env)
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        env.setdefault("OMP_NUM_THREADS", "1")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
        self._scratch = tempfile.mkdtemp(prefix="ldpaudit-sandbox-")
        counter_path = os.path.join(self._scratch, "calls")
        with open(counter_path, "wb") as f:
            f.write(bytes(8))
        with open(counter_path, "r+b") as f:
            self._counter = mmap.mmap(f.fileno(), 8)
        env["LDPAUDIT_CALL_COUNTER"] = counter_path
        from ldpaudit.audit import sandbox

        shared_fd = self._shared_buffer() if self.worker else None
        if shared_fd is not None:
            env["LDPAUDIT_PAYLOAD_FD"] = str(shared_fd)
        status_r, status_w = os.pipe()
        passed = (status_w,) if shared_fd is None else (status_w, shared_fd)
        if self.sandbox:
            found = sandbox.probe()
            # -S: the supervisor needs only the standard library and ldpaudit (on PYTHONPATH)
            argv = [sys.executable, "-S", "-m", "ldpaudit.audit.sandbox", "--scratch", self._scratch,
                    "--status-fd", str(status_w), "--memory-mb", str(self.memory_mb or 0)]
            if found["namespaces"]:
                argv.append("--namespaces")
            else:
                argv += ["--why-not", str(found["namespace_error"])]
            if found.get("pid_namespace"):
                argv.append("--pid-namespace")
            else:
                argv += ["--why-not-pid", str(found.get("pid_namespace_error") or "not probed")]
            if found["seccomp"]:
                argv.append("--seccomp")
            if shared_fd is not None:
                argv += ["--pass-fd", str(shared_fd)]
            argv += ["--", *self.argv]
        else:
            argv = self.argv
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                start_new_session=True,
                pass_fds=passed,
                preexec_fn=None if self.sandbox else sandbox._target_setup(self.memory_mb, False, False),
            )
        except OSError as exc:
            os.close(status_r)
            raise RandomizerError(f"cannot start {self.name!r}: {exc.strerror or exc}") from None
        finally:
            os.close(status_w)
            if shared_fd is not None:
                os.close(shared_fd)     # the worker has its own; this side keeps its mapping
        if not self.sandbox:
            os.close(status_r)
            status_r = None
            self.sandbox_info = sandbox.unconfined()
        else:
            os.set_blocking(status_r, False)
        self._status_fd = status_r
        try:    # fewer wake-ups per block reply; the kernel may refuse (pipe-max-size), which costs only speed
            fcntl.fcntl(self.proc.stdout.fileno(), _F_SETPIPE_SZ, PIPE_BYTES)
        except OSError:
            pass
        os.set_blocking(self.proc.stdout.fileno(), False)
        os.set_blocking(self.proc.stderr.fileno(), False)
        self._buffer = b""
        self._stderr = b""
        self._first_done = False
        self._worker_limit = None

    def _shared_buffer(self) -> int | None:
        """A buffer shared with the isolation worker for block payloads, sparing the pipe's copies:
        a memfd sealed against resizing (the worker cannot shrink it under this side's mapping)
        and mapped read-only here; None where the system has none. Its descriptor, for the worker."""
        if not hasattr(os, "memfd_create") or not hasattr(fcntl, "F_ADD_SEALS"):
            return None
        fd = None
        try:
            fd = os.memfd_create("ldpaudit-payload", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
            os.ftruncate(fd, SHARED_BYTES)
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
            self._shared = mmap.mmap(fd, SHARED_BYTES, prot=mmap.PROT_READ)
            return fd
        except (OSError, ValueError):
            if fd is not None:
                os.close(fd)
            return None

    def _read_status(self, wait: float = 0.0) -> None:
        """Take in the supervisor's status lines; with ``wait``, until it closes the channel
        (it has reported the end of the program) or ``wait`` seconds pass."""
        fd = self._status_fd
        if fd is None:
            return
        end = time.monotonic() + wait
        while True:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                data = None
            if data == b"":
                os.close(fd)
                self._status_fd = None
            elif data:
                self._status_buffer += data
            while b"\n" in self._status_buffer:
                line, _, self._status_buffer = self._status_buffer.partition(b"\n")
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if "sandbox" in msg:
                    self.sandbox_info = msg["sandbox"]
                if "pid" in msg:
                    self.target_pid = int(msg["pid"])
                self.status.update(msg)
            if self._status_fd is None or time.monotonic() >= end:
                return
            if data is None:
                select.select([fd], [], [], max(0.0, min(0.1, end - time.monotonic())))

    def close(self):
        proc, self.proc = self.proc, None
        if proc is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                self._kill(proc)
            self._read_status()
            self._kill_target()
            for stream in (proc.stdout, proc.stderr):
                stream.close()
        if self._status_fd is not None:
            os.close(self._status_fd)
            self._status_fd = None
        if self._counter is not None:
            self._counter.close()
            self._counter = None
        if self._shared is not None:
            self._shared.close()
            self._shared = None
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def _kill_target(self):
        if self.target_pid is not None and "exit" not in self.status and "signal" not in self.status:
            try:
                os.killpg(self.target_pid, signal.SIGKILL)
            except OSError:
                pass
        self.target_pid = None

    def _kill(self, proc):
        """End the program. A sandbox supervisor is asked first (SIGTERM): it kills the
        randomizer's whole process tree before it exits, which it cannot do once SIGKILLed."""
        if self.sandbox:
            try:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=STOP_WAIT)
                return
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()
        proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def describe(self) -> dict:
        """The ``sandbox`` and ``timeouts`` entries of an audit's JSON."""
        self._read_status()
        info = self.sandbox_info
        if info is None:  # the program ran in forked worker processes (or not at all): as probed
            from ldpaudit.audit import sandbox

            if self.sandbox:
                found = sandbox.probe()
                ns = {"filesystem": "read-only except the scratch directory"} if found["namespaces"] else None
                info = sandbox.confinement(ns, found["seccomp"], found["namespace_error"] or "",
                                           "pid-namespace" if found.get("pid_namespace") else "subreaper",
                                           found.get("pid_namespace_error") or "")
            else:
                info = sandbox.unconfined()
        return {"sandbox": info, "timeouts": self.policy.to_json(self.slowest)}

    def _drain_stderr(self) -> None:
        """Keep the last few KB of what the program writes to stderr (read as it comes, so
        that a chatty program never blocks on a full pipe)."""
        for _ in range(16):  # at most 1 MB at a time
            try:
                data = os.read(self.proc.stderr.fileno(), 65536)
            except (BlockingIOError, OSError, ValueError):
                return
            if not data:
                return
            self._stderr = (self._stderr + data)[-STDERR_KEPT:]

    def _stderr_tail(self) -> str:
        self._drain_stderr()
        text = self._stderr.decode(errors="replace").strip()
        return f"; its stderr ends: {text[-300:]!r}" if text else ""

    def _fail(self, x, what: str, *, on_input: bool = True) -> RandomizerError:
        tail = self._stderr_tail() if self.proc else ""
        if self.proc is not None:
            self._kill(self.proc)
            self._read_status(wait=1.0)
            self._kill_target()
            self.close()
        if not on_input:
            return RandomizerError(f"{what}{tail}")
        return RandomizerError(f"randomizer {self.name!r} on input {x!r}: {what}{tail}")

    def _call_in_progress(self) -> str:
        if self.worker and self._counter is not None:
            call = int.from_bytes(self._counter[:8], "little")
            if call:
                return f" (call {call})"
        return f" (request {self.requests + 1})"

    def _ended(self, x) -> RandomizerError:
        """The program's stdout closed: say how it ended, from the supervisor's report."""
        loaded = self._load_error()
        if loaded is not None:  # the worker could not load the target and said why before exiting
            return self._fail(x, loaded, on_input=False)
        if self.proc is not None:
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        self._read_status(wait=2.0)
        where = self._call_in_progress()
        st = self.status
        if "error" in st:
            return self._fail(x, str(st["error"]))
        if "signal" in st:
            how = "was " + _signal_text(int(st["signal"]))
        elif "exit" in st:
            how = f"exited with code {st['exit']}"
        elif not self.sandbox and self.proc is not None and self.proc.poll() is not None:
            code = self.proc.returncode
            how = "was " + _signal_text(-code) if code < 0 else f"exited with code {code}"
        else:
            how = "lost its sandbox supervisor (did the randomizer kill its parent?)"
            if where.startswith(" (call"):
                where = where.replace(" (call", " (at or before call")
        return self._fail(x, f"the program {how} before replying{where}")

    def load_error(self) -> str | None:
        """Start the isolation worker and wait until its target has loaded, without calling
        it: None if it loaded, else the loader's message (a cluster's probe, cluster.py)."""
        self.start()
        try:
            self.proc.stdin.write(b'{"probe": true}\n')
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass    # it exited after writing its load error: read that below
        wait = self.policy.warmup + GRACE
        try:
            line = self._readline("(none: load check)", time.monotonic() + wait, wait)
            reply = json.loads(line)
        except RandomizerError as exc:
            return str(exc)
        except ValueError:
            reply = {"error": f"replied {line[:80]!r} to a load check"}
        if isinstance(reply, dict) and reply.get("loaded"):
            self._note_worker(reply)
            return None
        self.close()
        return str(reply.get("error") if isinstance(reply, dict) else reply)

    def _load_error(self) -> str | None:
        """The worker's ``{"error": ..., "kind": "load"}`` line, if it wrote one before exiting
        (a request sent after it exited meets a closed pipe before its reply is read)."""
        if not self.worker or self.proc is None or self.proc.stdout is None:
            return None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + 2.0
        while b"\n" not in self._buffer and time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if fd not in ready:
                continue
            try:
                data = os.read(fd, 1 << 20)
            except (BlockingIOError, OSError):
                break
            if not data:
                break
            self._buffer += data
        for line in self._buffer.split(b"\n"):
            try:
                reply = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue
            if isinstance(reply, dict) and reply.get("kind") == "load" and "error" in reply:
                return str(reply["error"])
        return None

    # -- protocol --

    def _line_limit(self) -> float:
        """Seconds to wait for the next line."""
        if self.worker:  # the worker enforces the policy itself; this is the backstop
            if self._worker_limit is not None:
                return self._worker_limit + 0.5 + GRACE
            return self.policy.warmup + GRACE
        return self.policy.limit(not self._first_done, self.slowest or 0.0)

    def _readline(self, x, deadline: float, waited: float) -> bytes:
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._fail(x, f"no reply within {waited:g} s (timed out; the program was killed)"
                                    f"{self._call_in_progress()}")
            err = self.proc.stderr.fileno()
            ready, _, _ = select.select([fd, err], [], [], min(remaining, 0.5))
            if err in ready:
                self._drain_stderr()
            if fd not in ready:
                continue
            try:
                data = os.read(fd, 1 << 20)
            except BlockingIOError:
                continue
            if not data:
                raise self._ended(x)
            self._buffer += data
            if len(self._buffer) > MAX_LINE_BYTES:
                raise self._fail(x, f"reply line longer than {MAX_LINE_BYTES} bytes")
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _send(self, x, request: dict) -> None:
        if self.proc is None:
            self._start()
        elif self.proc.poll() is not None:  # the supervisor is gone: the program died between requests
            raise self._ended(x)
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._ended(x) from None

    def _reply(self, x, inputs: Sequence | None = None) -> tuple[dict, bytes]:
        """The next reply that is not a progress line, and its line; an error reply raises,
        naming the input (for a block: ``inputs[item]``) and the call."""
        limit = self._line_limit()
        deadline = time.monotonic() + limit
        while True:
            line = self._readline(x, deadline, limit)
            if not line.strip():
                continue
            try:
                reply = json.loads(line, parse_int=_json_int)
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise self._fail(x, f"replied with something that is not JSON: {line[:80].decode(errors='replace')!r}") from None
            if not isinstance(reply, dict):
                raise self._fail(x, f"replied {line[:80].decode(errors='replace')!r}; expected an object {{\"outputs\": [...]}}")
            if self.worker:
                self._note_worker(reply)
            if "progress" in reply and "outputs" not in reply and "hist" not in reply and "block" not in reply:
                limit = self._line_limit()
                deadline = time.monotonic() + limit
                continue
            if "error" in reply and reply.get("kind") == "load" and self.worker:  # no input involved
                raise self._fail(x, str(reply["error"]), on_input=False)
            if "error" in reply:
                call, item = reply.get("call"), reply.get("item")
                if inputs is not None and isinstance(item, int) and not isinstance(item, bool) \
                        and 0 <= item < len(inputs):
                    x = inputs[item]
                if self.worker and isinstance(call, int):
                    where = f" (call {call})"
                else:
                    where = f" (request {self.requests + 1})"
                text = str(reply["error"])
                if reply.get("kind") == "timeout":
                    text = f"timed out: {text}"
                raise self._fail(x, f"{text}{where}")
            return reply, line

    def _request(self, x, count: int, seed: int, histogram: bool = False):
        """One chunk through the plain JSON-lines protocol (``--command`` programs)."""
        request = {"input": _jsonable(x), "count": count, "seed": seed}
        if histogram:
            request["histogram"] = True
        self._send(x, request)
        started = time.monotonic()
        reply, line = self._reply(x)
        if "hist" in reply:
            outputs = self._histogram(x, reply["hist"], count)
        elif "outputs" in reply:
            outputs = decode(reply["outputs"]) if not isinstance(reply["outputs"], list) \
                else [decode(v) for v in reply["outputs"]]
            if len(outputs) != count:
                raise self._fail(x, f"returned {len(outputs)} outputs for a request of {count}")
        else:
            raise self._fail(x, f"reply has no 'outputs' field: {line[:80].decode(errors='replace')!r}")
        if not self.worker:
            took = time.monotonic() - started
            if self._first_done:
                self.slowest = max(self.slowest or 0.0, took)
            self._first_done = True
        self.requests += 1
        return outputs

    def _block(self, chunks: list[tuple], histogram: bool) -> list:
        """Many chunks (x, count, seed) in one request to the isolation worker; their values
        come back as raw buffers, checked (:func:`block_layout`) before they are read."""
        inputs = list(map(_FIRST, chunks))
        counts = list(map(_SECOND, chunks))
        request = {"block": {"inputs": [x if type(x) is int else _jsonable(x) for x in inputs], "counts": counts,
                             "seeds": list(map(_THIRD, chunks))}}
        if histogram:
            request["histogram"] = True
        x = inputs[0]
        self._send(x, request)
        reply, _ = self._reply(x, inputs)
        max_bytes = MAX_PAYLOAD_BYTES if not self.memory_mb else min(MAX_PAYLOAD_BYTES, self.memory_mb << 20)
        try:
            layout, size = block_layout(reply, counts, max_bytes)
            shared = reply.get("shared", False)
            if shared is not False and (shared is not True or self._shared is None or size > len(self._shared)):
                raise BadReply(f"says its payload of {size} bytes is in the shared buffer "
                               f"({'none' if self._shared is None else len(self._shared)} bytes)")
        except BadReply as exc:
            raise self._fail(x, f"{exc} (a block of {len(chunks)} chunks)") from None
        if shared:      # copied out first: the worker may write the buffer at any time
            payload = np.frombuffer(self._shared, dtype=np.uint8, count=size).copy()
        else:
            payload = self._read_payload(x, size)

        def hist(value, k):
            return self._histogram(inputs[k], value, counts[k])

        try:
            outputs = block_outputs(layout, counts, payload, hist)
        except BadReply as exc:
            raise self._fail(x, f"{exc} (a block of {len(chunks)} chunks)") from None
        self.requests += 1
        return outputs

    def _read_payload(self, x, size: int) -> np.ndarray:
        """The ``size`` bytes that follow a block header, read straight into an array."""
        payload = np.empty(size, dtype=np.uint8)
        head = self._buffer[:size]
        payload[:len(head)] = np.frombuffer(head, dtype=np.uint8)
        self._buffer = self._buffer[len(head):]
        got = len(head)
        view = memoryview(payload)
        fd, err = self.proc.stdout.fileno(), self.proc.stderr.fileno()
        limit = self._line_limit()
        deadline = time.monotonic() + limit
        while got < size:
            try:
                n = os.readv(fd, [view[got:]])
            except BlockingIOError:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise self._fail(x, f"sent {got} of the {size} bytes it announced, then nothing for "
                                        f"{limit:g} s (timed out; the program was killed)") from None
                ready, _, _ = select.select([fd, err], [], [], min(remaining, 0.5))
                if err in ready:
                    self._drain_stderr()
                continue
            if not n:
                raise self._fail(x, f"closed its output after {got} of the {size} bytes it announced")
            got += n
            deadline = time.monotonic() + limit
        return payload

    def _exchange(self, chunks: list[tuple], histogram: bool) -> list:
        """The outputs of each chunk (x, count, seed): a block for the isolation worker, one
        request after another for a program."""
        if self.worker:
            return self._block(chunks, histogram)
        return [self._request(x, count, seed, histogram) for x, count, seed in chunks]

    def _note_worker(self, reply: dict) -> None:
        if isinstance(reply.get("limit"), (int, float)):
            self._worker_limit = float(reply["limit"])
        if isinstance(reply.get("slowest"), (int, float)):
            self.slowest = float(reply["slowest"])

    def _histogram(self, x, hist, count: int):
        from ldpaudit.audit.adapters import Histogram

        if not isinstance(hist, dict) or "values" not in hist or "counts" not in hist:
            raise self._fail(x, f"sent a histogram {json.dumps(hist)[:60]} without values and counts")
        values, counts = decode(hist["values"]), decode(hist["counts"])
        counts = np.asarray(counts, dtype=np.int64)
        if not isinstance(values, np.ndarray):
            values = list(values)
        if len(values) != len(counts) or int(counts.sum()) != count or (counts.size and counts.min() < 1):
            raise self._fail(x, f"sent a histogram of {int(counts.sum())} outputs for a request of {count}")
        return Histogram(values, counts, count)

    def _sizes(self, n: int) -> list[int]:
        n = int(n)
        if 0 < n <= self.chunk:
            return [n]
        return [min(self.chunk, n - lo) for lo in range(0, n, self.chunk)] or [0]

    def _draw(self, x, n: int, rng: np.random.Generator, histogram: bool):
        sizes = self._sizes(n)
        seeds = [int(rng.integers(0, 2**63 - 1)) for _ in sizes]
        return _combine(self._exchange([(x, m, s) for m, s in zip(sizes, seeds)], histogram), histogram)

    def __call__(self, x, n: int, rng: np.random.Generator):
        return self._draw(x, n, rng, False)

    def draw_counts(self, x, n: int, rng: np.random.Generator):
        """Like calling the randomizer, but the worker may answer with a histogram
        (:class:`~ldpaudit.audit.adapters.Histogram`) of discrete outputs; the draws are
        the same as those of ``self(x, n, rng)`` with the same ``rng``."""
        return self._draw(x, n, rng, self.worker)

    def draw_block(self, tasks: Sequence[tuple], *, histogram: bool = False) -> list:
        """The outputs of each task (x, n, entropy, spawn key) — the auditor's chunks
        (draws.py) — in one exchange with the isolation worker: the same outputs as
        ``self(x, n, np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=key)))``,
        with the seeds computed for the whole block at once. ``histogram``: as :meth:`draw_counts`."""
        ns = list(map(_SECOND, tasks))
        single = bool(ns) and 0 < min(ns) and max(ns) <= self.chunk     # one request per task (the auditor's)
        sizes = [[n] for n in ns] if single else [self._sizes(n) for n in ns]
        task_seeds = _task_seeds(tasks, [1] * len(tasks) if single else list(map(len, sizes)))
        histogram = histogram and self.worker
        if single:
            return self._exchange(list(zip(map(_FIRST, tasks), ns, map(_FIRST, task_seeds))), histogram)
        chunks, owner = [], []
        for t, (x, _, _, _) in enumerate(tasks):
            for m, seed in zip(sizes[t], task_seeds[t]):
                chunks.append((x, m, seed))
                owner.append(t)
        outputs = self._exchange(chunks, histogram)
        parts: list = [[] for _ in tasks]
        for t, out in zip(owner, outputs):
            parts[t].append(out)
        return [_combine(p, histogram) for p in parts]


def _task_seeds(tasks: Sequence[tuple], counts: list[int]) -> list[list[int]]:
    """The first ``counts[t]`` values of ``default_rng(SeedSequence(entropy, spawn_key=key))
    .integers(0, 2**63 - 1)`` of each task (x, n, entropy, key): the seeds of its requests."""
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


def _jsonable(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, tuple):
        return [_jsonable(v) for v in x]
    return x


def isolated(
    target: str,
    target_args: dict | None = None,
    *,
    batch: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
    warmup: float = DEFAULT_WARMUP,
    memory_mb: int | None = DEFAULT_MEMORY_MB,
    chunk: int | None = None,
    sandbox: bool = True,
) -> ExternalRandomizer:
    """Run the Python target ``package.module:function`` or ``path/to/file.py:function`` in a
    sandboxed worker process under the timeout policy (``warmup`` for the first call, then
    max(``timeout``, 50 × the slowest call)) and a memory limit. The result is a batch
    randomizer ``f(x, n, rng)`` whatever the target's own form."""
    policy = TimeoutPolicy(warmup=float(warmup), floor=float(timeout))
    argv = [sys.executable, "-m", "ldpaudit.audit.worker", target, "--warmup", str(policy.warmup),
            "--floor", str(policy.floor), "--factor", str(policy.factor)]
    if batch:
        argv.append("--batch")
    for key, value in (target_args or {}).items():
        argv += ["--arg", f"{key}={value}"]
    env = dict(os.environ)
    env.setdefault("PYTHONHASHSEED", "0")   # set and str outputs iterate alike in every worker
    return ExternalRandomizer(
        argv,
        policy=policy,
        memory_mb=memory_mb,
        chunk=chunk or (1_000_000 if batch else 20_000),
        name=target,
        env=env,
        sandbox=sandbox,
        worker=True,
    )


def command(cmd: str | Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, warmup: float = DEFAULT_WARMUP,
            memory_mb: int | None = DEFAULT_MEMORY_MB, chunk: int = 100_000, sandbox: bool = True) -> ExternalRandomizer:
    """A randomizer program in any language, speaking the JSON-lines protocol, sandboxed; its
    first request may take ``warmup`` seconds, later ones max(``timeout``, 50 × the slowest)."""
    argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
    return ExternalRandomizer(argv, policy=TimeoutPolicy(warmup=float(warmup), floor=float(timeout)),
                              memory_mb=memory_mb, chunk=chunk, sandbox=sandbox)
