"""Randomizers in other processes: isolated Python targets and programs in any language.

Both speak one JSON-lines protocol over the program's stdin/stdout. The auditor writes one
request per line and the program answers each with one line::

    -> {"input": 3, "count": 1000, "seed": 12345}
    <- {"outputs": [0, 3, 3, 1, ...]}

``outputs`` holds ``count`` outputs, each any JSON value: a number, a string, or an array
(read as a tuple, e.g. a bit vector or a (cohort, value) pair). ``seed`` is an integer in
[0, 2^63 - 2] (``integers(0, 2**63 - 1)`` of the chunk's generator, below); a program seeds its
generator with it so that runs are reproducible: ``random.Random(seed)`` and
``numpy.random.default_rng(seed)`` take it whole, a generator of 32-bit seeds (numpy's
``RandomState``, which refuses seeds of 2^32 and more) takes ``seed % 2**32``, as the isolation
worker seeds ``numpy.random``. Optional lines the auditor understands:
``{"progress": i}`` (still working) and ``{"error": "...", "call": i}`` (the program reports a
failure). A reply that is not JSON, has the wrong count, or never comes, and a program that
exits or is killed, all raise :class:`~ldpaudit.errors.RandomizerError` naming the input and
the call (the request number of a program, the call of the function for a Python target).

The isolation worker (:mod:`ldpaudit.audit.worker`) is asked for many chunks at once
(``{"block": {"inputs": [...], "counts": [...], "seeds": "..."}}``, the seeds as little-endian
uint64 in base64) and answers with one
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
import json
import os
import select
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence

import numpy as np

from ldpaudit.audit.process import (  # noqa: F401 - also importable from here, as before the split
    DEFAULT_MEMORY_MB,
    DEFAULT_TIMEOUT,
    DEFAULT_WARMUP,
    GRACE,
    TIMEOUT_FACTOR,
    SupervisedProgram,
    TimeoutPolicy,
    _signal_text,
)
from ldpaudit.audit.wire import (
    _FIRST,
    _SECOND,
    _THIRD,
    BadReply,
    _combine,
    block_layout,
    block_outputs,
    decode,
    first_seeds,
    jsonable,
    loads,
    request_seeds,
)
from ldpaudit.errors import RandomizerError

MAX_LINE_BYTES = 1 << 30
#: bytes a reply's payload may have at most (and at most the worker's memory limit)
MAX_PAYLOAD_BYTES = 1 << 30


class ExternalRandomizer(SupervisedProgram):
    """A randomizer behind the JSON-lines protocol, callable as a batch randomizer
    ``f(x, n, rng) -> n outputs``; :meth:`draw_counts` asks for a histogram instead, where the
    program can give one (the isolation worker does for discrete outputs). Use as a context
    manager, or call :meth:`close`."""

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
                reply = loads(line)
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
        request = {"input": jsonable(x), "count": count, "seed": seed}
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

    def _block(self, chunks: list[tuple], histogram: bool, columns: tuple | None = None) -> list:
        """Many chunks (x, count, seed) in one request to the isolation worker (or their
        ``columns``: inputs, counts, seeds); their values come back as raw buffers, checked
        (:func:`block_layout`) before they are read."""
        if columns is None:
            columns = list(map(_FIRST, chunks)), list(map(_SECOND, chunks)), list(map(_THIRD, chunks))
        inputs, counts, chunk_seeds = columns
        words = np.asarray(chunk_seeds, dtype=np.uint64).astype("<u8", copy=False)
        request = {"block": {"inputs": [x if type(x) is int else jsonable(x) for x in inputs], "counts": counts,
                             "seeds": base64.b64encode(words.tobytes()).decode()}}
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
            raise self._fail(x, f"{exc} (a block of {len(inputs)} chunks)") from None
        if shared:      # copied out first: the worker may write the buffer at any time
            payload = np.frombuffer(self._shared, dtype=np.uint8, count=size).copy()
        else:
            payload = self._read_payload(x, size)

        def hist(value, k):
            return self._histogram(inputs[k], value, counts[k])

        try:
            outputs = block_outputs(layout, counts, payload, hist)
        except BadReply as exc:
            raise self._fail(x, f"{exc} (a block of {len(inputs)} chunks)") from None
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
        columns = getattr(tasks, "counts", None)    # tasks held as columns (draws.ChunkTasks)
        ns = columns if columns is not None else list(map(_SECOND, tasks))
        single = bool(ns) and 0 < min(ns) and max(ns) <= self.chunk     # one request per task (the auditor's)
        histogram = histogram and self.worker
        if single and self.worker:
            inputs = tasks.inputs if columns is not None else list(map(_FIRST, tasks))
            return self._block([], histogram, (inputs, ns, first_seeds(tasks)))
        if single:
            chunk_seeds = first_seeds(tasks)
            chunk_seeds = chunk_seeds.tolist() if isinstance(chunk_seeds, np.ndarray) else chunk_seeds
            return self._exchange(list(zip(map(_FIRST, tasks), ns, chunk_seeds)), histogram)
        sizes = [self._sizes(n) for n in ns]
        task_seeds = request_seeds(tasks, list(map(len, sizes)))
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
    python: str | None = None,
    max_processes: int | None = None,
) -> ExternalRandomizer:
    """Run the Python target ``package.module:function`` or ``path/to/file.py:function`` in a
    sandboxed worker process under the timeout policy (``warmup`` for the first call, then
    max(``timeout``, 50 × the slowest call)) and a memory limit. The result is a batch
    randomizer ``f(x, n, rng)`` whatever the target's own form. ``python``: the interpreter of
    another virtual environment that runs the worker (``--python``; :mod:`ldpaudit.audit.interpreter`),
    so that the target's library loads there only. ``max_processes``: the sandbox's cap on the
    target's processes and threads (default sandbox.MAX_PROCESSES)."""
    policy = TimeoutPolicy(warmup=float(warmup), floor=float(timeout))
    if python is not None:
        from ldpaudit.audit.interpreter import check_python

        python = check_python(python)
    argv = [python or sys.executable, "-m", "ldpaudit.audit.worker", target, "--warmup", str(policy.warmup),
            "--floor", str(policy.floor), "--factor", str(policy.factor)]
    if batch:
        argv.append("--batch")
    for key, value in (target_args or {}).items():
        argv += ["--arg", f"{key}={value}"]
    env = dict(os.environ)
    env.setdefault("PYTHONHASHSEED", "0")   # set and str outputs iterate alike in every worker
    if python is not None:      # the shipped worker has no spec parser: exact arguments resolved here
        from ldpaudit.audit.targets import EXACT_VARIABLE, presolved

        env[EXACT_VARIABLE] = json.dumps(presolved(target, target_args))
    return ExternalRandomizer(
        argv,
        policy=policy,
        memory_mb=memory_mb,
        chunk=chunk or (1_000_000 if batch else 20_000),
        name=target,
        env=env,
        sandbox=sandbox,
        worker=True,
        python=python,
        max_processes=max_processes,
    )


def command(cmd: str | Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, warmup: float = DEFAULT_WARMUP,
            memory_mb: int | None = DEFAULT_MEMORY_MB, chunk: int = 100_000, sandbox: bool = True,
            max_processes: int | None = None) -> ExternalRandomizer:
    """A randomizer program in any language, speaking the JSON-lines protocol, sandboxed; its
    first request may take ``warmup`` seconds, later ones max(``timeout``, 50 × the slowest)."""
    argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
    return ExternalRandomizer(argv, policy=TimeoutPolicy(warmup=float(warmup), floor=float(timeout)),
                              memory_mb=memory_mb, chunk=chunk, sandbox=sandbox, max_processes=max_processes)
