"""A sandbox for untrusted randomizers, built from what Linux offers without root.

The auditor never starts a randomizer itself. It starts a *supervisor* (this module, run as
``python -m ldpaudit.audit.sandbox``) in a new session; the supervisor confines itself and
starts the randomizer as its child (or grandchild), in a session of its own::

    auditor ──pipes──> supervisor (new session) ──> [namespace init] ──> randomizer (new session, confined)

Layers, each used when the machine allows it (:func:`probe` finds out once per process):

- **signals** (seccomp filter, any unprivileged process): the randomizer may signal its own
  process group only; ``kill``/``tgkill``/... aimed at any other process (its parent, the
  auditor found through ``/proc``, ``kill(-1)``), and ``ptrace``/``process_vm_writev``, end
  it with SIGSYS, which the auditor reports as the randomizer's failure.
- **namespaces** (``unshare(2)`` of a user, network and mount namespace, as util-linux
  ``unshare --user --net --mount`` does): no network at all (a fresh network namespace whose
  only interface, loopback, is down), and every mount read-only except the scratch directory
  and a private ``/dev/shm``.
- **process tree**: nothing the randomizer starts outlives it. In a PID namespace of its own
  (``unshare --pid``, with the user namespace) the randomizer's parent is the namespace's init,
  a fork of the supervisor that reaps orphans; when the randomizer exits, init exits and the
  kernel kills every process left in the namespace (children that called ``setsid`` or
  double-forked included). Without one, the supervisor is a child subreaper
  (``PR_SET_CHILD_SUBREAPER``): orphans of the randomizer become its children, and when the
  randomizer exits it SIGKILLs every descendant it finds in ``/proc`` until none is left. The
  supervisor ends the tree the same way when the auditor asks (SIGTERM) or is gone (the
  status pipe has no reader any more: the auditor exited, was interrupted or killed).
- **process cap**: at most :data:`MAX_PROCESSES` tasks (``--max-processes``): RLIMIT_NPROC in
  the randomizer's user namespace, which counts that namespace's tasks only (fork fails beyond
  it; it does not bind uid 0), and in every case the supervisor's count of the tree every
  :data:`COUNT_INTERVAL` s, which ends the tree at the cap and reports "the randomizer exceeded
  N processes" (a fork bomb starves the machine otherwise: nothing else bounds it but pid_max).
- **always**: the supervisor in between (a randomizer killing its parent kills only the
  supervisor, and with it itself: the parent-death signal), ``HOME``, ``TMPDIR`` and the XDG
  directories in a scratch directory removed after the audit, address-space and core limits.

Without namespaces (e.g. unprivileged user namespaces disabled, as on some distributions) the
fallback is stated: network allowed, files writable wherever the user can write, only
``HOME``/``TMPDIR`` redirected, the process tree collected by the subreaper.
:func:`confinement` gives the JSON entry the audit report carries.

Besides stdin, stdout and stderr the randomizer keeps only the descriptors named by
``--pass-fd`` (the isolation worker's payload buffer, a memfd the auditor maps read-only).

Status channel: the supervisor writes JSON lines to the file descriptor the auditor passes
(``--status-fd``): ``{"sandbox": {...}}`` (what was achieved), ``{"pid": n}`` (as the
auditor's ``/proc`` numbers it), then ``{"exit": code}`` or ``{"signal": n}`` when the
randomizer ends, or ``{"error": text}``.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import resource
import select
import signal
import sys
import time

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNET = 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_NOATIME, _MS_NODIRATIME, _MS_BIND = 32, 1024, 2048, 4096
_MS_REC, _MS_PRIVATE, _MS_RELATIME, _MS_STRICTATIME = 16384, 1 << 18, 1 << 21, 1 << 24
_LOCKED_FLAGS = {"nosuid": _MS_NOSUID, "nodev": _MS_NODEV, "noexec": _MS_NOEXEC, "noatime": _MS_NOATIME,
                 "nodiratime": _MS_NODIRATIME, "relatime": _MS_RELATIME, "strictatime": _MS_STRICTATIME}
_PR_SET_PDEATHSIG, _PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP = 1, 24, 38, 22
_PR_SET_CHILD_SUBREAPER = 36
#: set (to anything) to make :func:`probe` report no PID namespace, so the subreaper fallback runs (tests)
NO_PID_NAMESPACE_VARIABLE = "LDPAUDIT_TEST_NO_PID_NAMESPACE"
_SECCOMP_MODE_FILTER = 2
_RET_ALLOW, _RET_KILL_PROCESS = 0x7FFF0000, 0x80000000

# (audit arch, {name: number}) of the syscalls that reach other processes
_ARCH = {
    "x86_64": (0xC000003E, {"kill": 62, "tkill": 200, "tgkill": 234, "rt_sigqueueinfo": 129,
                            "rt_tgsigqueueinfo": 297, "ptrace": 101, "process_vm_writev": 311,
                            "pidfd_send_signal": 424}),
    "aarch64": (0xC00000B7, {"kill": 129, "tkill": 130, "tgkill": 131, "rt_sigqueueinfo": 138,
                             "rt_tgsigqueueinfo": 240, "ptrace": 117, "process_vm_writev": 271,
                             "pidfd_send_signal": 424}),
}

_libc = None


def _c():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
        _libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    return _libc


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


# -- seccomp: no signals or tracing aimed at other processes ---------------------------------

class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06


def _seccomp_program(own_pid: int) -> list[tuple[int, int, int, int]]:
    """BPF: kill the process on a signal/trace syscall aimed at any process but its own
    group; allow everything else. Signal 0 (an existence probe) is always allowed."""
    arch, nr = _ARCH[platform.machine()]
    own = own_pid & 0xFFFFFFFF
    neg = (-own_pid) & 0xFFFFFFFF
    prog: list = []     # entries: (code, jt, jf, k) with jt/jf either ints or labels

    def arg(i):     # low 32 bits of argument i (pid_t and int arguments live there)
        return (_LD_W_ABS, 0, 0, 16 + 8 * i)

    prog += [(_LD_W_ABS, 0, 0, 4), (_JEQ_K, 1, 0, arch), (_RET_K, 0, 0, _RET_KILL_PROCESS),
             (_LD_W_ABS, 0, 0, 0)]
    if platform.machine() == "x86_64":
        prog += [(_JGE_K, "kill", 0, 0x40000000)]      # x32 syscalls
    checks = {  # syscall -> (pid argument or None, signal argument or None)
        "kill": (0, 1), "tkill": (None, 1), "tgkill": (0, 2), "rt_sigqueueinfo": (0, 1),
        "rt_tgsigqueueinfo": (0, 2), "ptrace": (None, None), "process_vm_writev": (None, None),
        "pidfd_send_signal": (None, None),
    }
    for name in checks:
        prog.append((_JEQ_K, f"check_{name}", 0, nr[name]))
    prog.append((_RET_K, 0, 0, _RET_ALLOW))
    labels = {}
    for name, (pid_arg, sig_arg) in checks.items():
        labels[f"check_{name}"] = len(prog)
        if sig_arg is not None:
            prog += [arg(sig_arg), (_JEQ_K, "allow", 0, 0)]
        if pid_arg is not None:
            prog += [arg(pid_arg), (_JEQ_K, "allow", 0, own)]
            if name == "kill":
                prog += [(_JEQ_K, "allow", 0, 0), (_JEQ_K, "allow", 0, neg)]
        prog.append((_RET_K, 0, 0, _RET_KILL_PROCESS))
    labels["allow"] = len(prog)
    prog.append((_RET_K, 0, 0, _RET_ALLOW))
    labels["kill"] = len(prog)
    prog.append((_RET_K, 0, 0, _RET_KILL_PROCESS))
    out = []
    for i, (code, jt, jf, k) in enumerate(prog):
        jt = labels[jt] - i - 1 if isinstance(jt, str) else jt
        jf = labels[jf] - i - 1 if isinstance(jf, str) else jf
        assert 0 <= jt < 256 and 0 <= jf < 256
        out.append((code, jt, jf, k))
    return out


def install_seccomp() -> None:
    """Confine the calling process (and its future children) as described above."""
    libc = _c()
    prog = _seccomp_program(os.getpid())
    filters = (_SockFilter * len(prog))(*[_SockFilter(*ins) for ins in prog])
    fprog = _SockFprog(len(prog), filters)
    _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(NO_NEW_PRIVS)")
    _check(libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0), "seccomp")


# -- namespaces ----------------------------------------------------------------------------

def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _unescape(path: str) -> str:
    return path.encode().decode("unicode_escape") if "\\" in path else path


def _mounts() -> list[tuple[str, int]]:
    """(mount point, flags that a remount must keep) of every mount, parents first."""
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            point, options = _unescape(fields[4]), fields[5].split(",")
            out.append((point, sum(_LOCKED_FLAGS.get(o, 0) for o in options)))
    out.sort(key=lambda m: m[0].count("/"))
    return out


def enter_namespaces(scratch: str) -> dict:
    """Move the calling (single-threaded) process into new user, network and mount
    namespaces; make every mount read-only except ``scratch`` and a private /dev/shm.
    Returns what was achieved; raises OSError if the namespaces cannot be created."""
    libc = _c()
    uid, gid = os.getuid(), os.getgid()
    _check(libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNET | _CLONE_NEWNS), "unshare(user, net, mount)")
    # from here on the network is gone whatever happens; the files may stay writable
    try:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
        _check(libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "make mounts private")
        root = os.path.realpath(scratch).encode()
        _check(libc.mount(root, root, None, _MS_BIND | _MS_REC, None), "bind the scratch directory")
    except OSError as exc:
        return {"filesystem": f"unrestricted (only HOME and TMPDIR point at the scratch directory; {exc})",
                "dev_shm": "shared"}
    failed = []
    for point, keep in _mounts():
        if point == root.decode() or point.startswith(root.decode() + "/"):
            continue
        if libc.mount(None, point.encode(), None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | keep, None) != 0 \
                and os.path.exists(point):
            failed.append(point)
    shm = "private tmpfs"
    if os.path.isdir("/dev/shm"):
        if libc.mount(b"tmpfs", b"/dev/shm", b"tmpfs", _MS_NOSUID | _MS_NODEV, b"size=256m") != 0:
            shm = "read-only"
    filesystem = "read-only except the scratch directory" if not failed else \
        f"read-only except the scratch directory; could not remount {len(failed)} mount(s) ({', '.join(failed[:3])})"
    return {"filesystem": filesystem, "dev_shm": shm}


def enter_pid_namespace() -> None:
    """Make the calling process's next child the init (PID 1) of a new PID namespace (the
    caller itself stays where it is); call after :func:`enter_namespaces`, whose user namespace
    gives the right to. Raises OSError if the machine does not allow it."""
    _check(_c().unshare(_CLONE_NEWPID), "unshare(pid)")


# -- the process tree ------------------------------------------------------------------------

def _stat(pid: str) -> tuple[int, str] | None:
    """(parent pid, state letter) of a process, as ``/proc`` numbers them, or None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rpartition(b")")[2].split()
        return int(fields[1]), fields[0].decode()
    except (OSError, IndexError, ValueError):
        return None


def descendants(root: int) -> list[int]:
    """Every live (not zombie) descendant of ``root``, found by walking ``/proc``."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            found = _stat(entry)
            if found is not None and found[1] not in "ZX":
                children.setdefault(found[0], []).append(int(entry))
    out, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            out.append(child)
            todo.append(child)
    return out


def _reap() -> None:
    """Collect every child of this process that has ended."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


#: the most tasks (processes and threads) a randomizer may have at once, its own included (--max-processes)
MAX_PROCESSES = 1024
#: seconds between two counts of the randomizer's tasks by the supervisor
COUNT_INTERVAL = 0.1


def tasks_below(root: int, proc: int | None = None) -> int:
    """Tasks (threads of live processes) of every descendant of ``root``, in one walk of ``/proc``
    (what RLIMIT_NPROC counts); ``proc``: a directory descriptor of the ``/proc`` that numbers
    ``root`` (the supervisor's, opened before the namespace init mounts its own over it)."""
    children: dict[int, list[tuple[int, int]]] = {}
    for entry in os.listdir("/proc" if proc is None else proc):
        if not entry.isdigit():
            continue
        try:
            fd = os.open(f"/proc/{entry}/stat" if proc is None else f"{entry}/stat", os.O_RDONLY, dir_fd=proc)
            try:
                fields = os.read(fd, 4096).rpartition(b")")[2].split()
            finally:
                os.close(fd)
            if fields[0] in (b"Z", b"X"):
                continue
            children.setdefault(int(fields[1]), []).append((int(entry), int(fields[17])))
        except (OSError, IndexError, ValueError):
            continue
    count, todo = 0, [root]
    while todo:
        for child, threads in children.get(todo.pop(), ()):
            count += threads
            todo.append(child)
    return count


def process_cap(limit: int, in_user_namespace: bool, outer_uid: int) -> dict:
    """The ``process_cap`` of the ``sandbox`` entry: how the randomizer's task count is held
    to ``limit``. RLIMIT_NPROC set in a user namespace of its own counts the namespace's tasks
    only (Linux >= 5.14: ucounts per namespace), and binds no process of uid 0; the supervisor's
    count every :data:`COUNT_INTERVAL` s ends the tree at the limit in every case."""
    count = f"the supervisor counts its tasks every {COUNT_INTERVAL:g} s and ends the tree at {limit}"
    if in_user_namespace and outer_uid != 0:
        how = f"RLIMIT_NPROC = {limit} in its user namespace (fork fails beyond it); {count}"
    else:
        why = "uid 0: RLIMIT_NPROC does not bind root" if in_user_namespace else "no user namespace to count in"
        how = f"{count} ({why})"
    return {"limit": limit, "enforced_by": how}


def end_descendants(limit: float = 10.0) -> int:
    """SIGKILL every descendant of this process until none is left, reaping those that become
    its children (it is a subreaper: a dying process's children are handed to it). A process
    that forks between the walk and the kill leaves its child to the next round. Returns how
    many processes were killed; gives up after ``limit`` seconds (a process stuck in the kernel)."""
    me, killed = os.getpid(), set()
    end = time.monotonic() + limit
    while True:
        _reap()
        alive = descendants(me)
        if not alive or time.monotonic() > end:
            return len(killed)
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except OSError:
                pass
        time.sleep(0.002)


def _outer_pid(inner: int, host_proc: int) -> int | None:
    """The pid, as the parent namespace numbers it, of the calling namespace init's child whose
    pid in its own namespace is ``inner``; ``host_proc``: a directory descriptor of the parent
    namespace's ``/proc``."""
    try:
        me = os.readlink("self", dir_fd=host_proc)
        entries = os.listdir(host_proc)
    except OSError:
        return None

    def opener(path, flags):
        return os.open(path, flags, dir_fd=host_proc)

    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"{entry}/status", opener=opener) as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
        except OSError:
            continue
        nspid = fields.get("NSpid", "").split()
        if fields.get("PPid", "").strip() == me and nspid[-1:] == [str(inner)]:
            return int(entry)
    return None


# -- probing -------------------------------------------------------------------------------

_PROBED: dict | None = None


def probe() -> dict:
    """What this machine allows, found once per process by trying it in a forked child:
    ``{"namespaces": bool, "seccomp": bool, "pid_namespace": bool, "namespace_error": str | None,
    ...}``. A PID namespace is tried only inside the user namespace, and reported missing when
    ``LDPAUDIT_TEST_NO_PID_NAMESPACE`` is set (to test the subreaper fallback)."""
    global _PROBED
    if _PROBED is not None:
        return _PROBED
    result = {"namespaces": False, "seccomp": False, "pid_namespace": False, "namespace_error": None,
              "seccomp_error": None, "pid_namespace_error": None}
    if sys.platform != "linux":
        result["namespace_error"] = result["seccomp_error"] = f"not Linux ({sys.platform})"
        result["pid_namespace_error"] = "no namespaces"
        _PROBED = result
        return result
    no_pid = bool(os.environ.get(NO_PID_NAMESPACE_VARIABLE))
    if platform.machine() not in _ARCH:
        result["seccomp_error"] = f"no seccomp filter for {platform.machine()}"
    _c()
    import tempfile

    scratch = tempfile.mkdtemp(prefix="ldpaudit-probe-")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: try, report, leave
        report = {}
        try:
            os.close(read)
            try:
                if platform.machine() in _ARCH:
                    install_seccomp()
                report["seccomp"] = True
            except OSError as exc:
                report["seccomp_error"] = str(exc)
            try:
                enter_namespaces(scratch)
                report["namespaces"] = True
            except OSError as exc:
                report["namespace_error"] = report["pid_namespace_error"] = str(exc)
            if report.get("namespaces") and no_pid:
                report["pid_namespace_error"] = f"disabled by {NO_PID_NAMESPACE_VARIABLE}"
            elif report.get("namespaces"):
                report.update(_probe_pid_namespace())
            os.write(write, json.dumps(report).encode())
        finally:
            os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 4096):
        data += chunk
    os.close(read)
    os.waitpid(pid, 0)
    os.rmdir(scratch)
    try:
        result.update(json.loads(data or b"{}"))
    except ValueError:
        result["namespace_error"] = "the probe process died"
    _PROBED = result
    return result


def _probe_pid_namespace() -> dict:
    """In the probe's child, inside its user namespace: can it start the init of a new PID
    namespace?"""
    try:
        enter_pid_namespace()
        pid = os.fork()
    except OSError as exc:
        return {"pid_namespace_error": str(exc)}
    if pid == 0:
        os._exit(0 if os.getpid() == 1 else 1)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return {"pid_namespace_error": "the first child after unshare(pid) was not PID 1"}
    return {"pid_namespace": True}


def unconfined() -> dict:
    """The ``sandbox`` entry of an audit whose randomizer ran inside the auditor's process."""
    return {"level": "none", "network": "allowed", "filesystem": "unrestricted", "signals": "unrestricted",
            "process_tree": "none",
            "fallback": "the randomizer ran inside the auditor's process (--no-isolate, or the Python API with a "
                        "function); processes it starts are the auditor's children and may outlive the audit; "
                        "use the CLI's default isolation or ldpaudit.audit.external.isolated"}


# -- the supervisor ------------------------------------------------------------------------

#: ``process_tree`` of the ``sandbox`` entry -> how the randomizer's processes are ended
PROCESS_TREE = {
    "pid-namespace": "the randomizer runs in a PID namespace of its own under an init that reaps orphans; when it "
                     "exits, a call fails, or the audit ends (the auditor exits, is interrupted or killed), init "
                     "exits and the kernel kills every process left in the namespace",
    "subreaper": "the supervisor is a child subreaper: the randomizer's orphans (after setsid or a double fork "
                 "too) become its children; when the randomizer exits, a call fails, or the audit ends (the "
                 "auditor exits, is interrupted or killed) it SIGKILLs every descendant it finds in /proc until "
                 "none is left",
    "process-group": "only the randomizer's process group is killed when it ends; children that left the group "
                     "(setsid) may outlive the audit",
}


def confinement(ns: dict | None, seccomp: bool, why_not: str = "", process_tree: str = "subreaper",
                why_not_pid: str = "", proc_error: str = "", cap: dict | None = None) -> dict:
    """The ``sandbox`` entry for a randomizer confined by namespaces (``ns``: what
    :func:`enter_namespaces` achieved, or None) and/or the seccomp filter, whose processes are
    contained by ``process_tree`` (a key of :data:`PROCESS_TREE`; ``why_not_pid``: why not in
    a PID namespace; ``proc_error``: why the PID namespace has no ``/proc`` of its own)."""
    achieved = {"processes": "supervisor between auditor and randomizer; each in its own session; "
                             + PROCESS_TREE[process_tree],
                "process_tree": process_tree,
                "process_cap": cap,
                "scratch": "HOME, TMPDIR and XDG directories in a private directory, removed after the audit"}
    fallback = []
    if process_tree == "pid-namespace" and not proc_error:
        achieved["processes"] += "; its /proc shows the namespace's processes only"
    elif process_tree == "pid-namespace":
        fallback.append(f"no /proc of the PID namespace's own ({proc_error}): /proc/<pid> of a pid the "
                        f"randomizer sees names another process")
    if ns is not None:
        achieved.update(level="namespaces+seccomp" if seccomp else "namespaces", network="blocked",
                        filesystem=ns["filesystem"])
        if process_tree != "pid-namespace":
            fallback.append(f"no PID namespace ({why_not_pid or 'not requested'})")
    else:
        fallback.append(f"no namespaces ({why_not or 'not requested'})")
        achieved.update(level="session+seccomp" if seccomp else "session", network="allowed",
                        filesystem="unrestricted (only HOME and TMPDIR point at the scratch directory)")
    if process_tree == "process-group":
        fallback.append(f"no subreaper ({why_not_pid})")
    if seccomp:
        achieved["signals"] = ("seccomp: signals or tracing aimed at any process outside the randomizer's own "
                               "group end it with SIGSYS")
    else:
        achieved["signals"] = ("parent-only: a randomizer that kills its parent kills the supervisor; one that "
                               "finds the auditor's pid can still signal it")
        fallback.append("no seccomp filter")
    achieved["fallback"] = "; ".join(fallback) if fallback else None
    return achieved


def _target_setup(memory_mb: int | None, seccomp: bool, drop_caps: bool, max_processes: int | None = None):
    parent = os.getpid()

    def setup():  # runs in the randomizer's process between fork and exec
        if sys.platform == "linux":
            _c().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:  # the supervisor died before the line above
                os._exit(1)
        if memory_mb:
            limit = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if max_processes and drop_caps:   # in a user namespace: counts the namespace's tasks only
            resource.setrlimit(resource.RLIMIT_NPROC, (max_processes, max_processes))
        if drop_caps:  # a uid-0 randomizer must not regain the namespace's capabilities at exec
            for cap in range(64):
                if _c().prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                    break
        if seccomp:
            install_seccomp()

    return setup


def _start(argv, env, memory_mb, seccomp, drop_caps, tell, pass_fds=(), max_processes=None):
    """Start the randomizer as a child of the calling process, in a session of its own, with
    stdin, stdout, stderr and ``pass_fds`` (the auditor's shared payload buffer) open."""
    import subprocess

    try:
        return subprocess.Popen(argv, stdin=0, stdout=1, stderr=2, env=env, start_new_session=True,
                                pass_fds=tuple(pass_fds),
                                preexec_fn=_target_setup(memory_mb, seccomp, drop_caps, max_processes))
    except (OSError, subprocess.SubprocessError) as exc:
        tell({"error": f"cannot start {argv[0]!r}: {getattr(exc, 'strerror', None) or exc}"})
        return None


def _ended(status: int) -> dict:
    code = os.waitstatus_to_exitcode(status)
    return {"signal": -code} if code < 0 else {"exit": code}


def _detach_stdio() -> None:
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)  # the pipes to the auditor now belong to the randomizer alone
    os.close(devnull)


def _mount_proc() -> str:
    """Mount a /proc of the calling process's PID namespace over /proc (read-only, like every
    other mount); '' if done, else why not."""
    flags = _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    if _c().mount(b"proc", b"/proc", b"proc", flags, None) != 0:
        return f"mount proc: {os.strerror(ctypes.get_errno())}"
    return ""


def _namespace_init(argv, env, memory_mb, seccomp, tell, supervisor: int, confine, pass_fds=(),
                    max_processes=None) -> None:
    """PID 1 of the randomizer's PID namespace (a fork of the supervisor): mount the
    namespace's /proc, report the ``sandbox`` entry (``confine(proc_error)``), start the
    randomizer, reap every process handed to it, report how the randomizer ended, exit; the
    kernel then kills whatever is left in the namespace. Never returns."""
    try:
        _c().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        parent = _stat("self")
        if parent is None or parent[0] != supervisor:   # the supervisor died before the line above
            os._exit(1)
        signal.set_wakeup_fd(-1)    # the supervisor's, inherited by the fork
        for signum in (signal.SIGTERM, signal.SIGCHLD, signal.SIGINT):
            signal.signal(signum, signal.SIG_DFL)   # PID 1 ignores default-action signals from inside
        host_proc = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY)   # the auditor's view, to name pids to it
        tell({"sandbox": confine(_mount_proc())})
        proc = _start(argv, env, memory_mb, seccomp, True, tell, pass_fds, max_processes)
        if proc is None:
            os._exit(0)
        outer = _outer_pid(proc.pid, host_proc)
        os.close(host_proc)
        if outer is not None:
            tell({"pid": outer})
        _detach_stdio()
        while True:
            pid, status = os.waitpid(-1, 0)
            if pid == proc.pid:
                proc.returncode = os.waitstatus_to_exitcode(status)
                tell(_ended(status))
                os._exit(0)
    except BaseException as exc:  # noqa: BLE001 - reported; this process must never return into the supervisor
        tell({"error": f"the sandbox's namespace init failed: {type(exc).__name__}: {exc}"})
        os._exit(0)
    finally:
        os._exit(1)


class _Watch:
    """Reaps the supervisor's children and notices when the randomizer must end: the auditor
    asks (SIGTERM) or is gone (the status pipe has no reader any more: it exited, was
    interrupted or killed). Set up before the randomizer starts, so no SIGTERM is missed."""

    def __init__(self, status_fd: int):
        self.status_fd = status_fd
        self.wake_r, wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        self.asked: list = []
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        signal.signal(signal.SIGTERM, lambda signum, frame: self.asked.append(signum))

    def wait(self, child: int, stop, over_cap=None) -> int:
        """Reap children until ``child`` ends and return its wait status; call ``stop()`` once
        when the randomizer must end: asked, or ``over_cap()`` (called every COUNT_INTERVAL s)
        says why (the randomizer holds too many processes)."""
        poller = select.poll()
        poller.register(self.wake_r, select.POLLIN)
        poller.register(self.status_fd, 0)   # POLLERR once the reading end is closed
        stopped = False
        while True:
            while True:
                try:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    pid = 0
                if pid == child:
                    return status
                if pid == 0:
                    break
            if over_cap is not None and not stopped and over_cap():
                self.asked.append("process cap")
            if self.asked and not stopped:
                stop()
                stopped = True
            for fd, event in poller.poll(1000 if over_cap is None or stopped else int(COUNT_INTERVAL * 1000)):
                if fd == self.wake_r:
                    try:
                        os.read(self.wake_r, 4096)
                    except BlockingIOError:
                        pass
                elif event & (select.POLLERR | select.POLLHUP):
                    poller.unregister(self.status_fd)
                    self.asked.append("auditor gone")


def supervise(argv: list[str], *, scratch: str, status_fd: int, memory_mb: int | None, use_namespaces: bool,
              use_seccomp: bool, use_pid_namespace: bool = False, why_not: str = "", why_not_pid: str = "",
              pass_fds=(), max_processes: int = MAX_PROCESSES) -> int:
    status = os.fdopen(status_fd, "w", buffering=1)
    outer_uid = os.getuid()

    def tell(obj):
        try:
            status.write(json.dumps(obj) + "\n")
            status.flush()
        except OSError:
            pass

    ns = None
    if use_namespaces:
        try:
            ns = enter_namespaces(scratch)
        except OSError as exc:
            why_not = str(exc)
    tree = "subreaper"
    if ns is not None and use_pid_namespace:
        try:
            enter_pid_namespace()
            tree = "pid-namespace"
        except OSError as exc:
            why_not_pid = str(exc)
    if tree == "subreaper" and _c().prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        tree, why_not_pid = "process-group", f"prctl(CHILD_SUBREAPER): {os.strerror(ctypes.get_errno())}"
    cap = process_cap(max_processes, ns is not None, outer_uid)
    if tree != "pid-namespace":     # in a PID namespace its init says it, with how /proc went
        tell({"sandbox": confinement(ns, use_seccomp, why_not, tree, why_not_pid, cap=cap)})

    host_proc = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY)   # this side's numbering, kept under init's mount

    def over_cap(root: int):
        def check() -> bool:
            if tasks_below(root, host_proc) < max_processes:
                return False
            tell({"error": f"the randomizer exceeded {max_processes} processes (the sandbox's cap; its process "
                           f"tree was ended)"})
            return True
        return check

    env = dict(os.environ)
    for key, sub in (("HOME", "home"), ("TMPDIR", "tmp"), ("XDG_CACHE_HOME", "cache"),
                     ("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data")):
        path = os.path.join(scratch, sub)
        os.makedirs(path, exist_ok=True)
        env[key] = path

    watch = _Watch(status_fd)
    if tree == "pid-namespace":
        supervisor = os.getpid()
        init = os.fork()
        if init == 0:
            _namespace_init(argv, env, memory_mb, use_seccomp, tell, supervisor,
                            lambda proc_error: confinement(ns, use_seccomp, why_not, tree, "", proc_error, cap=cap),
                            pass_fds, max_processes)
        _detach_stdio()
        ended = watch.wait(init, lambda: os.kill(init, signal.SIGKILL), over_cap(init))
        if os.waitstatus_to_exitcode(ended) != 0:   # init was killed before it could report
            tell({"signal": int(signal.SIGKILL)})
        return 0

    proc = _start(argv, env, memory_mb, use_seccomp, ns is not None, tell, pass_fds, max_processes)
    if proc is None:
        return 127
    tell({"pid": proc.pid})
    _detach_stdio()

    def stop():
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass

    def stop_tree():    # the randomizer's group, then every descendant once (reaped by the wait, not here)
        stop()
        if tree == "subreaper":
            for pid in descendants(os.getpid()):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass

    ended = watch.wait(proc.pid, stop_tree, over_cap(os.getpid()))
    proc.returncode = os.waitstatus_to_exitcode(ended)
    tell(_ended(ended))
    if tree == "subreaper":
        end_descendants()
    return 0


def main(argv=None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m ldpaudit.audit.sandbox",
                                description="run PROGRAM confined (see the module docstring); --probe: "
                                            "print what this machine allows")
    p.add_argument("--probe", action="store_true")
    p.add_argument("--scratch")
    p.add_argument("--status-fd", type=int)
    p.add_argument("--memory-mb", type=int, default=0)
    p.add_argument("--namespaces", action="store_true")
    p.add_argument("--seccomp", action="store_true")
    p.add_argument("--pid-namespace", action="store_true")
    p.add_argument("--why-not", default="", help="why namespaces are not used (for the report)")
    p.add_argument("--why-not-pid", default="", help="why no PID namespace is used (for the report)")
    p.add_argument("--pass-fd", type=int, action="append", default=[], help="a descriptor the program keeps open")
    p.add_argument("--max-processes", type=int, default=MAX_PROCESSES,
                   help="the most tasks (processes and threads) the program may hold at once")
    p.add_argument("program", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    if args.probe:
        print(json.dumps(probe(), indent=2))
        return 0
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    return supervise(program, scratch=args.scratch, status_fd=args.status_fd, memory_mb=args.memory_mb or None,
                     use_namespaces=args.namespaces, use_seccomp=args.seccomp,
                     use_pid_namespace=args.pid_namespace, why_not=args.why_not, why_not_pid=args.why_not_pid,
                     pass_fds=args.pass_fd, max_processes=args.max_processes)


if __name__ == "__main__":
    sys.exit(main())
