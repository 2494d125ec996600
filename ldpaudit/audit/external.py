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
exits, all raise :class:`~ldpaudit.errors.RandomizerError` naming the input.

The program runs with resource limits (address space, CPU time) set before it starts, and a
per-request deadline enforced here, so a randomizer that hangs, crashes or exhausts memory
ends the audit with a clear error and never takes the auditor down.
"""

from __future__ import annotations

import base64
import json
import os
import resource
import select
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence

import numpy as np

from ldpaudit.errors import RandomizerError

DEFAULT_TIMEOUT = 10.0
DEFAULT_MEMORY_MB = 2048
#: extra seconds allowed for the first reply, while the program starts and loads its code
STARTUP_ALLOWANCE = 30.0
MAX_LINE_BYTES = 1 << 30


def decode(value):
    """Inverse of :func:`ldpaudit.audit.worker.encode`; plain JSON arrays become tuples."""
    if isinstance(value, list):
        return tuple(decode(v) for v in value)
    if isinstance(value, dict):
        if "__nd__" in value:
            dtype = np.dtype(value["__nd__"])
            if dtype.kind not in "biuf":
                raise RandomizerError(f"reply carries an array of unsupported dtype {dtype}")
            raw = base64.b64decode(value["data"])
            return np.frombuffer(raw, dtype=dtype).reshape(value["shape"]).copy()
        if "__t__" in value:
            return tuple(decode(v) for v in value["__t__"])
        if "__l__" in value:
            return [decode(v) for v in value["__l__"]]
        if "__s__" in value:
            return frozenset(decode(v) for v in value["__s__"])
        raise RandomizerError(f"reply output is a JSON object {json.dumps(value)[:60]}; outputs must be numbers, strings or arrays")
    return value


def _limits(memory_mb: int | None):
    def apply():  # runs in the child between fork and exec
        os.setsid()
        if memory_mb:
            limit = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


class ExternalRandomizer:
    """A randomizer behind the JSON-lines protocol, callable as a batch randomizer
    ``f(x, n, rng) -> n outputs``. Use as a context manager, or call :meth:`close`."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        memory_mb: int | None = DEFAULT_MEMORY_MB,
        chunk: int = 100_000,
        name: str | None = None,
        env: dict | None = None,
        startup_timeout: float = STARTUP_ALLOWANCE,
    ):
        if not argv:
            raise RandomizerError("empty command; give a program to run, e.g. --command 'python3 my_randomizer.py'")
        self.argv = list(argv)
        self.name = name or " ".join(shlex.quote(a) for a in self.argv)
        self.timeout = float(timeout)
        self.memory_mb = memory_mb
        self.chunk = int(chunk)
        self.env = env
        self.startup_timeout = float(startup_timeout)
        self.proc: subprocess.Popen | None = None
        self._buffer = b""
        self.calls = 0

    # -- process management --

    def _start(self):
        env = dict(os.environ if self.env is None else self.env)
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        env.setdefault("OMP_NUM_THREADS", "1")
        try:
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                preexec_fn=_limits(self.memory_mb),
                env=env,
            )
        except OSError as exc:
            raise RandomizerError(f"cannot start {self.name!r}: {exc.strerror or exc}") from None
        os.set_blocking(self.proc.stdout.fileno(), False)
        os.set_blocking(self.proc.stderr.fileno(), False)
        self._buffer = b""

    def close(self):
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self._kill(proc)
        for stream in (proc.stdout, proc.stderr):
            stream.close()

    @staticmethod
    def _kill(proc):
        try:
            os.killpg(proc.pid, 9)
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

    def _stderr_tail(self) -> str:
        try:
            data = self.proc.stderr.read() or b""
        except (OSError, ValueError):
            data = b""
        text = data.decode(errors="replace").strip()
        return f"; its stderr ends: {text[-300:]!r}" if text else ""

    def _fail(self, x, what: str) -> RandomizerError:
        tail = self._stderr_tail() if self.proc else ""
        if self.proc is not None:
            self._kill(self.proc)
            self.close()
        return RandomizerError(f"randomizer {self.name!r} on input {x!r}: {what}{tail}")

    # -- protocol --

    def _readline(self, x, deadline: float) -> bytes:
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                waited = self.timeout + (self.startup_timeout if self.calls == 0 else 0)
                raise self._fail(x, f"no reply within {waited:g} s (timed out; the program was killed)")
            ready, _, _ = select.select([fd], [], [], min(remaining, 0.5))
            if not ready:
                continue
            try:
                data = os.read(fd, 1 << 20)
            except BlockingIOError:
                continue
            if not data:
                code = self.proc.poll()
                if code is None:
                    try:
                        code = self.proc.wait(timeout=1)
                    except subprocess.TimeoutExpired:
                        code = "unknown"
                how = f"killed by signal {-code}" if isinstance(code, int) and code < 0 else f"exited with code {code}"
                raise self._fail(x, f"the program {how} before replying")
            self._buffer += data
            if len(self._buffer) > MAX_LINE_BYTES:
                raise self._fail(x, f"reply line longer than {MAX_LINE_BYTES} bytes")
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _request(self, x, count: int, seed: int) -> list | np.ndarray:
        allowance = 0.0
        if self.proc is None or self.proc.poll() is not None:
            self._start()
            allowance = self.startup_timeout
        payload = json.dumps({"input": _jsonable(x), "count": count, "seed": seed}) + "\n"
        try:
            self.proc.stdin.write(payload.encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._fail(x, "the program closed its input (it exited?)") from None
        deadline = time.monotonic() + self.timeout + allowance
        while True:
            line = self._readline(x, deadline)
            if not line.strip():
                continue
            try:
                reply = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise self._fail(x, f"replied with something that is not JSON: {line[:80].decode(errors='replace')!r}") from None
            if not isinstance(reply, dict):
                raise self._fail(x, f"replied {line[:80].decode(errors='replace')!r}; expected an object {{\"outputs\": [...]}}")
            if "progress" in reply and len(reply) == 1:
                deadline = time.monotonic() + self.timeout
                continue
            if "error" in reply:
                call = reply.get("call")
                where = f" (call {self.calls + int(call) + 1})" if isinstance(call, int) else ""
                kind = reply.get("kind")
                text = str(reply["error"])
                if kind == "timeout":
                    text = f"timed out: {text}"
                raise self._fail(x, f"{text}{where}")
            if "outputs" not in reply:
                raise self._fail(x, f"reply has no 'outputs' field: {line[:80].decode(errors='replace')!r}")
            outputs = decode(reply["outputs"]) if not isinstance(reply["outputs"], list) else [decode(v) for v in reply["outputs"]]
            got = len(outputs)
            if got != count:
                raise self._fail(x, f"returned {got} outputs for a request of {count}")
            self.calls += count
            return outputs

    def __call__(self, x, n: int, rng: np.random.Generator):
        parts = []
        remaining = int(n)
        while remaining > 0:
            count = min(self.chunk, remaining)
            seed = int(rng.integers(0, 2**63 - 1))
            parts.append(self._request(x, count, seed))
            remaining -= count
        if all(isinstance(p, np.ndarray) for p in parts):
            return np.concatenate(parts) if len(parts) > 1 else parts[0]
        return [y for p in parts for y in p]


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
    memory_mb: int | None = DEFAULT_MEMORY_MB,
    chunk: int | None = None,
) -> ExternalRandomizer:
    """Run the Python target ``package.module:function`` or ``path/to/file.py:function`` in a
    worker subprocess with a per-call timeout and a memory limit. The result is a batch
    randomizer ``f(x, n, rng)`` whatever the target's own form."""
    argv = [sys.executable, "-m", "ldpaudit.audit.worker", target, "--call-timeout", str(timeout)]
    if batch:
        argv.append("--batch")
    for key, value in (target_args or {}).items():
        argv += ["--arg", f"{key}={value}"]
    return ExternalRandomizer(
        argv,
        timeout=timeout + 5,
        memory_mb=memory_mb,
        chunk=chunk or (1_000_000 if batch else 20_000),
        name=target,
    )


def command(cmd: str | Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, memory_mb: int | None = DEFAULT_MEMORY_MB,
            chunk: int = 100_000, startup_timeout: float = STARTUP_ALLOWANCE) -> ExternalRandomizer:
    """A randomizer program in any language, speaking the JSON-lines protocol."""
    argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
    return ExternalRandomizer(argv, timeout=timeout, memory_mb=memory_mb, chunk=chunk, startup_timeout=startup_timeout)
