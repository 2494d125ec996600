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

Every program runs in the sandbox of :mod:`ldpaudit.audit.sandbox` (a supervisor between
it and the auditor; no signals to other processes, no network and read-only files where the
machine allows), with an address-space limit, under the timeout policy of
:class:`TimeoutPolicy`: a warm-up allowance for the first call, then a limit derived from the
calls seen so far.
"""

from __future__ import annotations

import base64
import json
import mmap
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

from ldpaudit.errors import RandomizerError

#: the floor of the per-call timeout (``--timeout``)
DEFAULT_TIMEOUT = 10.0
#: the first call's allowance (``--warmup``): imports, JIT compilation, loading models
DEFAULT_WARMUP = 120.0
#: later calls may take this many times the slowest call seen after the first
TIMEOUT_FACTOR = 50.0
DEFAULT_MEMORY_MB = 2048
MAX_LINE_BYTES = 1 << 30
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

        status_r, status_w = os.pipe()
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
                pass_fds=(status_w,),
                preexec_fn=None if self.sandbox else sandbox._target_setup(self.memory_mb, False, False),
            )
        except OSError as exc:
            os.close(status_r)
            raise RandomizerError(f"cannot start {self.name!r}: {exc.strerror or exc}") from None
        finally:
            os.close(status_w)
        if not self.sandbox:
            os.close(status_r)
            status_r = None
            self.sandbox_info = sandbox.unconfined()
        else:
            os.set_blocking(status_r, False)
        self._status_fd = status_r
        os.set_blocking(self.proc.stdout.fileno(), False)
        os.set_blocking(self.proc.stderr.fileno(), False)
        self._buffer = b""
        self._stderr = b""
        self._first_done = False
        self._worker_limit = None

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

    def _request(self, x, count: int, seed: int, histogram: bool = False):
        if self.proc is None:
            self._start()
        elif self.proc.poll() is not None:  # the supervisor is gone: the program died between requests
            raise self._ended(x)
        request = {"input": _jsonable(x), "count": count, "seed": seed}
        if histogram:
            request["histogram"] = True
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._ended(x) from None
        started = time.monotonic()
        limit = self._line_limit()
        deadline = started + limit
        while True:
            line = self._readline(x, deadline, limit)
            if not line.strip():
                continue
            try:
                reply = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise self._fail(x, f"replied with something that is not JSON: {line[:80].decode(errors='replace')!r}") from None
            if not isinstance(reply, dict):
                raise self._fail(x, f"replied {line[:80].decode(errors='replace')!r}; expected an object {{\"outputs\": [...]}}")
            if self.worker:
                self._note_worker(reply)
            if "progress" in reply and "outputs" not in reply and "hist" not in reply:
                limit = self._line_limit()
                deadline = time.monotonic() + limit
                continue
            if "error" in reply and reply.get("kind") == "load" and self.worker:  # no input involved
                raise self._fail(x, str(reply["error"]), on_input=False)
            if "error" in reply:
                call = reply.get("call")
                if self.worker and isinstance(call, int):
                    where = f" (call {call})"
                else:
                    where = f" (request {self.requests + 1})"
                text = str(reply["error"])
                if reply.get("kind") == "timeout":
                    text = f"timed out: {text}"
                raise self._fail(x, f"{text}{where}")
            if "hist" in reply:
                outputs = self._histogram(x, reply, count)
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

    def _note_worker(self, reply: dict) -> None:
        if isinstance(reply.get("limit"), (int, float)):
            self._worker_limit = float(reply["limit"])
        if isinstance(reply.get("slowest"), (int, float)):
            self.slowest = float(reply["slowest"])

    def _histogram(self, x, reply: dict, count: int):
        from ldpaudit.audit.adapters import Histogram

        hist = reply["hist"]
        values, counts = decode(hist["values"]), decode(hist["counts"])
        counts = np.asarray(counts, dtype=np.int64)
        if not isinstance(values, np.ndarray):
            values = list(values)
        if len(values) != len(counts) or int(counts.sum()) != count or (counts.size and counts.min() < 1):
            raise self._fail(x, f"sent a histogram of {int(counts.sum())} outputs for a request of {count}")
        return Histogram(values, counts, count)

    def _draw(self, x, n: int, rng: np.random.Generator, histogram: bool):
        parts = []
        remaining = int(n)
        while remaining > 0:
            count = min(self.chunk, remaining)
            seed = int(rng.integers(0, 2**63 - 1))
            parts.append(self._request(x, count, seed, histogram))
            remaining -= count
        return parts

    def __call__(self, x, n: int, rng: np.random.Generator):
        parts = self._draw(x, n, rng, False)
        if all(isinstance(p, np.ndarray) for p in parts):
            return np.concatenate(parts) if len(parts) > 1 else parts[0]
        return [y for p in parts for y in p]

    def draw_counts(self, x, n: int, rng: np.random.Generator):
        """Like calling the randomizer, but the worker may answer with a histogram
        (:class:`~ldpaudit.audit.adapters.Histogram`) of discrete outputs; the draws are
        the same as those of ``self(x, n, rng)`` with the same ``rng``."""
        from ldpaudit.audit.adapters import Histogram

        parts = self._draw(x, n, rng, self.worker)
        if len(parts) == 1:
            return parts[0]
        if all(isinstance(p, Histogram) for p in parts):
            return Histogram.merge(parts)
        out = []
        for p in parts:
            out.extend(p.expand() if isinstance(p, Histogram) else list(p))
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
