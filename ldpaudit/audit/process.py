"""A program in a sandboxed process: started, watched, stopped, and how it ended, said.

:class:`SupervisedProgram` holds what every randomizer in another process needs apart from the
protocol it speaks (external.py): the sandbox supervisor between it and the auditor
(:mod:`ldpaudit.audit.sandbox`), the status lines the supervisor reports, the buffer shared with
the isolation worker, the stderr kept for error messages, ending the process tree, and the
timeout policy (:class:`TimeoutPolicy`). A program run by another interpreter (``--python``)
gets ldpaudit's isolation worker shipped to it (:mod:`ldpaudit.audit.interpreter`).
"""

from __future__ import annotations

import fcntl
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

from ldpaudit.errors import RandomizerError

#: the floor of the per-call timeout (``--timeout``)
DEFAULT_TIMEOUT = 10.0
#: the first call's allowance (``--warmup``): imports, JIT compilation, loading models
DEFAULT_WARMUP = 120.0
#: later calls may take this many times the slowest call seen after the first
TIMEOUT_FACTOR = 50.0
DEFAULT_MEMORY_MB = 2048
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


class SupervisedProgram:
    """A program in a sandboxed process (``sandbox=False``: a plain child process), started on
    first use or by :meth:`start`; :class:`~ldpaudit.audit.external.ExternalRandomizer` speaks
    the protocol with it. Use as a context manager, or call :meth:`close`."""

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
        python: str | None = None,
        max_processes: int | None = None,
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
        self.python = python        # --python: the worker runs shipped to this interpreter (interpreter.py)
        self.max_processes = max_processes  # the sandbox's process cap (None: sandbox.MAX_PROCESSES)
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
            if self.max_processes is not None:
                argv += ["--max-processes", str(int(self.max_processes))]
            if shared_fd is not None:
                argv += ["--pass-fd", str(shared_fd)]
            argv += ["--", *self._program()]
        else:
            argv = self._program()
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

    def _program(self) -> list[str]:
        """The program's command: ``argv``, or for a worker run by another interpreter
        (``python``) the bootstrap of the worker shipped into the scratch directory."""
        if self.python is None:
            return self.argv
        from ldpaudit.audit import interpreter

        shipped = interpreter.ship(os.path.join(self._scratch, "ldpaudit-worker"))
        return interpreter.worker_argv(self.python, shipped, self.argv[3:])    # argv: python -m worker ARGS

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
                cap = sandbox.process_cap(self.max_processes or sandbox.MAX_PROCESSES, ns is not None, os.getuid())
                info = sandbox.confinement(ns, found["seccomp"], found["namespace_error"] or "",
                                           "pid-namespace" if found.get("pid_namespace") else "subreaper",
                                           found.get("pid_namespace_error") or "", cap=cap)
            else:
                info = sandbox.unconfined()
        described = {"sandbox": info, "timeouts": self.policy.to_json(self.slowest)}
        if self.python is not None:
            from ldpaudit.audit.interpreter import SHIPPED

            described["interpreter"] = {"python": self.python, "shipped": list(SHIPPED),
                                        "rule": "the isolation worker ran under this interpreter with only these "
                                                "modules of ldpaudit; the target loaded there, never in the auditor"}
        return described

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
