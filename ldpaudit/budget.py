"""Run one job (loading a spec, a verification) inside a CPU-time and memory budget.

z3's own limits bound one query, not the exact arithmetic around it, the sympy work before
it or the number of queries; a hostile or just very large spec or claim can take minutes and
gigabytes before z3 is asked anything (validating ``exp(epsilon)**(3**3**d)`` alone never
ends). :func:`call` runs the whole job in a forked child process with an address-space limit
(``RLIMIT_AS``) and stops it when it has spent its budget of **CPU seconds** (the child's own
and its descendants'), so the caller always gets an answer: the job's result, the job's
exception, or :class:`BudgetExceeded` (which the verifier reports as UNKNOWN and the spec
loader as an exhausted budget, never as a verdict).

The budget counts the job's own work, not the clock: a busy machine slows a job down but does
not change what it finishes, so the same spec gets the same answer on a quiet or a loaded
machine. A wall-clock guard remains only against a job that is stuck or starved: it fires at
:data:`WALL_GUARD` times the CPU budget (at least :data:`WALL_GUARD_MIN` seconds) and then says
that the machine was too busy, not that the job was too hard (``resource == "wall"``).

Below every stage (the loader in ``mechanism`` uses it as well as ``verify``); it imports
nothing of ldpaudit. POSIX only (``os.fork``); elsewhere the job runs in-process with no bound.
CPU time is read from ``/proc`` on Linux; elsewhere ``RLIMIT_CPU`` (whole seconds) bounds it.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import sys
import time
import traceback
from collections.abc import Callable

#: default CPU budget of one ``ldpaudit verify`` command, in CPU seconds
DEFAULT_SECONDS = 60.0
#: default memory the job may map beyond what the process holds when it starts, in MiB
DEFAULT_MEMORY_MB = 2048
#: default CPU budget of loading one spec (parse, validate, bind) in every command, in CPU
#: seconds: the slowest bundled spec loads in well under 1 s; ``--load-timeout`` raises it
LOAD_SECONDS = 5.0
#: the wall-clock guard against a stuck or starved job: this many times its CPU budget ...
WALL_GUARD = 10.0
#: ... and never less than this many seconds (a tiny CPU budget on a busy machine)
WALL_GUARD_MIN = 30.0
#: how often the parent reads the job's CPU time, in seconds (an upper bound on the overshoot)
_POLL = 0.05
#: default memory budget of loading one spec, in MiB; ``--load-memory-mb`` raises it
LOAD_MEMORY_MB = 2048

_PR_SET_PDEATHSIG = 1  # prctl(2) option: the signal a child gets when its parent dies


class BudgetExceeded(Exception):
    """The job ran out of time or memory; ``str()`` says which and how to raise the budget.

    ``resource`` is ``"time"`` or ``"memory"``, ``limit`` the budget that was spent (seconds
    or MiB), so a caller can say which of its own options raises it."""

    def __init__(self, message: str, *, resource: str = "time", limit: float | None = None):
        super().__init__(message)
        self.resource = resource
        self.limit = limit

    def __reduce__(self):
        return (_budget_exceeded, (str(self), self.resource, self.limit))


def _budget_exceeded(message, resource, limit):
    return BudgetExceeded(message, resource=resource, limit=limit)


def supported() -> bool:
    return hasattr(os, "fork")


def _address_space_now() -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _limit_memory(memory_mb: int | None) -> None:
    if not memory_mb:
        return
    import resource

    base = _address_space_now() or 0
    limit = base + memory_mb * 1024 * 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:  # a job inside another's budget never gets more than it
        limit = min(limit, soft)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _die_with_parent(parent: int) -> None:
    """Linux: have the kernel SIGKILL this child when the process that forked it dies, however
    it dies (killed at its own budget's deadline, interrupted, killed by anyone): a budget
    inside a budget (the loader's, inside verify's) never outlives it, burning CPU as an orphan."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(70)


def _child(write_fd: int, fn: Callable, args, kwargs, memory_mb: int | None, label: str) -> None:
    try:
        _limit_memory(memory_mb)
        message = ("ok", fn(*args, **kwargs))
    except MemoryError:
        message = ("memory", "")
    except BaseException as exc:  # the parent re-raises it
        message = ("error", exc, traceback.format_exc())
    try:
        data = pickle.dumps(message)
    except Exception as exc:  # an unpicklable result or exception
        if isinstance(exc, MemoryError):
            data = pickle.dumps(("memory", ""))
        else:
            what = type(message[1]).__name__
            data = pickle.dumps(("error", RuntimeError(f"the {label}'s {what} could not be sent back: {exc}"), ""))
    with os.fdopen(write_fd, "wb") as out:
        out.write(data)


def call(fn: Callable, *args, seconds: float | None, memory_mb: int | None = DEFAULT_MEMORY_MB,
         label: str = "verification", **kwargs):
    """``fn(*args, **kwargs)`` in a forked child with at most ``seconds`` of CPU time (its own and
    its descendants') and ``memory_mb`` MiB of new address space; its result, or its exception
    re-raised here, or :class:`BudgetExceeded`. ``label`` names the job in messages."""
    if not supported():
        return fn(*args, **kwargs)
    read_fd, write_fd = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        status = 0
        try:
            os.close(read_fd)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            _die_with_parent(parent)
            _limit_cpu(seconds)
            _child(write_fd, fn, args, kwargs, memory_mb, label)
        except BaseException:
            status = 70
        finally:
            os._exit(status)
    os.close(write_fd)
    clock = _JobClock(pid, seconds)
    chunks = []
    finished = False
    spent = None
    try:
        while True:
            ready, _, _ = select.select([read_fd], [], [], clock.wait())
            if ready:
                chunk = os.read(read_fd, 1 << 20)
                if not chunk:
                    finished = True
                    break
                chunks.append(chunk)
            spent = clock.spent()
            if spent:
                break
    finally:
        os.close(read_fd)
        if not finished:
            _kill(pid)
    _, status = os.waitpid(pid, 0)
    if not finished:
        raise clock.exceeded(spent)
    if not chunks:
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == getattr(signal, "SIGXCPU", None):
            raise clock.exceeded("cpu")
        raise _death(status, memory_mb, label)
    message = pickle.loads(b"".join(chunks))
    if message[0] == "ok":
        return message[1]
    if message[0] == "memory":
        raise BudgetExceeded(f"budget exceeded: more than {memory_mb} MiB of memory (raise the memory limit)",
                             resource="memory", limit=memory_mb)
    exc, trace = message[1], message[2]
    if trace and hasattr(exc, "add_note"):
        exc.add_note(f"in the {label} process:\n" + trace)
    raise exc


def _limit_cpu(seconds: float | None) -> None:
    """The kernel's own backstop (whole seconds; the parent's reading of /proc stops the job
    first on Linux): SIGXCPU a little after the budget, SIGKILL a second later."""
    if seconds is None:
        return
    import math
    import resource

    soft = math.ceil(seconds) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1 if hard == resource.RLIM_INFINITY else hard))


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> float | None:
    """CPU seconds spent so far by process ``pid`` and its descendants (live ones from /proc,
    finished ones through the kernel's count of reaped children); None without /proc."""
    total = 0.0
    todo = [pid]
    seen = set()
    first = True
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            with open(f"/proc/{p}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            # after the name: state(0) ... utime(11) stime(12) cutime(13) cstime(14)
            total += sum(int(v) for v in fields[11:15]) / _TICKS
        except (OSError, IndexError, ValueError):
            if first:
                return None
            continue
        finally:
            first = False
        try:
            with open(f"/proc/{p}/task/{p}/children", "rb") as fh:
                todo.extend(int(c) for c in fh.read().split())
        except (OSError, ValueError):
            pass
    return total


class _JobClock:
    """The budget of one job: its CPU seconds (read from /proc) and the far wall-clock guard."""

    def __init__(self, pid: int, seconds: float | None):
        self.pid, self.seconds = pid, seconds
        self.started = time.monotonic()
        self.guard = None if seconds is None else max(WALL_GUARD * seconds, WALL_GUARD_MIN)
        self.cpu = 0.0

    def wait(self) -> float | None:
        return None if self.seconds is None else _POLL

    def spent(self) -> str | None:
        """``"cpu"`` or ``"wall"`` once the job has used up its budget, else None."""
        if self.seconds is None:
            return None
        cpu = cpu_seconds(self.pid)
        if cpu is not None:
            self.cpu = max(self.cpu, cpu)
            if cpu >= self.seconds:
                return "cpu"
        if time.monotonic() - self.started >= self.guard:
            return "wall"
        return None

    def exceeded(self, kind: str) -> BudgetExceeded:
        if kind == "wall":
            wall = time.monotonic() - self.started
            return BudgetExceeded(
                f"stopped by the wall-clock guard: {wall:.0f} s of wall time passed while the job used only "
                f"{self.cpu:.1f} of its {self.seconds:g} CPU seconds; the machine is too busy (or the job is "
                "stuck waiting): run it again when the machine is quieter",
                resource="wall", limit=self.guard)
        return BudgetExceeded(f"budget exceeded: used its {self.seconds:g} s of CPU time (raise the timeout)",
                              resource="time", limit=self.seconds)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _death(status: int, memory_mb: int | None, label: str) -> Exception:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        if memory_mb and sig in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS, signal.SIGKILL):
            return BudgetExceeded(
                f"budget exceeded: the {label} process was killed by {name}, most likely out of memory "
                f"(limit {memory_mb} MiB; raise the memory limit)",
                resource="memory", limit=memory_mb,
            )
        return RuntimeError(f"the {label} process was killed by {name}")
    return RuntimeError(f"the {label} process exited with status {os.WEXITSTATUS(status)} and no result")


def own_peak_mb() -> float | None:
    """This process's peak resident set (MiB) from Linux's VmHWM, the high-water mark of its own
    address space; None elsewhere. ru_maxrss is not used where VmHWM exists: Linux carries the
    launching process's peak across fork/vfork and exec into it, so a small auditor started from
    a large process (a notebook, a test runner) would report that process's peak."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None
