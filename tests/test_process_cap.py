"""A fork bomb is capped (issue 35.3): a randomizer that starts processes without bound ends the
audit with exit 2 and one line, "the randomizer exceeded N processes", and none of its processes
remains, with a PID namespace and with the subreaper fallback.

Safe on a shared machine: the cap is set low (``--max-processes 64``) and the bomb is bounded (at
most 160 children, each ``sleep 30``, so a regression cannot starve the machine: it would time
out instead), a non-root test process also
holds the CLI under RLIMIT_NPROC, every process carries a marker, and teardown SIGKILLs, by pid,
whatever still carries it.
"""
import json
import os
import resource
import signal
import subprocess
import sys
import time
import uuid

import pytest

from ldpaudit.audit import sandbox

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="counts processes through /proc")
FOUND = sandbox.probe()
#: the cap under test, and the bomb's own bound: above the cap, far below what would hurt the machine
CAP = 64
MOST_CHILDREN = 160

BOMB = f'''
import os


def bomb(x):
    """Start sleepers until fork fails or {MOST_CHILDREN} are running, then keep going slowly."""
    import time
    for _ in range({MOST_CHILDREN}):
        try:
            if os.fork() == 0:
                try:
                    os.execvp("sleep", ["sleep", "30"])
                finally:
                    os._exit(1)
        except OSError:
            time.sleep(0.01)
    time.sleep(30)
    return x
'''

METHODS = [
    pytest.param("pid-namespace", marks=pytest.mark.skipif(
        not FOUND.get("pid_namespace"), reason=f"no PID namespace here: {FOUND.get('pid_namespace_error')}")),
    "subreaper",
]


def _marked(marker: bytes) -> list[int]:
    """Live processes whose environment holds the marker."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                if f.read().rpartition(b") ")[2][:1] in (b"Z", b"X"):
                    continue
            with open(f"/proc/{entry}/environ", "rb") as f:
                if marker in f.read():
                    out.append(int(entry))
        except OSError:
            continue
    return out


def _outer_cap():
    """RLIMIT_NPROC for the CLI and everything under it: the user's processes now plus 1,000
    (it does not bind uid 0, for which the bomb's own bound holds)."""
    if os.getuid() != 0:
        mine = sum(1 for e in os.listdir("/proc") if e.isdigit() and os.stat(f"/proc/{e}").st_uid == os.getuid())
        resource.setrlimit(resource.RLIMIT_NPROC, (mine + 1000, mine + 1000))


@pytest.mark.parametrize("method", METHODS)
def test_fork_bomb_ends_in_exit_2_naming_the_cap_and_leaves_nothing(tmp_path, method):
    path = tmp_path / "bomb.py"
    path.write_text(BOMB)
    marker = uuid.uuid4().hex
    env = dict(os.environ, LDPAUDIT_TEST_MARKER=marker)
    if method == "subreaper":
        env[sandbox.NO_PID_NAMESPACE_VARIABLE] = "1"
    cmd = [sys.executable, "-m", "ldpaudit.cli", "audit", f"{path}:bomb", "--domain", "0,1", "--epsilon", "1",
           "--samples", "200", "--timeout", "20", "--max-processes", str(CAP), "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, preexec_fn=_outer_cap)
    try:
        stdout, stderr = proc.communicate(timeout=30)
        ended = time.monotonic()
        left = _marked(marker.encode())
        while left and time.monotonic() < ended + 2.0:
            time.sleep(0.05)
            left = _marked(marker.encode())
    finally:
        proc.kill()
        for _ in range(5):
            for pid in _marked(marker.encode()):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.05)
        proc.wait()
    lines = stderr.decode().strip().splitlines()
    assert proc.returncode == 2, stderr
    assert len(lines) == 1 and f"exceeded {CAP} processes" in lines[0]
    payload = json.loads(stdout)
    assert payload["verdict"] == "INVALID" and payload["error"]["exception"] == "RandomizerError"
    assert f"the randomizer exceeded {CAP} processes" in payload["error"]["message"]
    assert left == []


def test_max_processes_must_be_a_positive_integer(capsys):
    from ldpaudit import cli

    assert cli.main(["audit", "x.py:f", "--domain", "0,1", "--epsilon", "1", "--max-processes", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--max-processes '0' is not a positive integer" in err[0]


def test_the_sandbox_entry_says_how_the_cap_is_held():
    as_user = sandbox.process_cap(256, True, 1000)
    assert as_user["limit"] == 256 and as_user["enforced_by"].startswith("RLIMIT_NPROC = 256 in its user namespace")
    as_root = sandbox.process_cap(256, True, 0)
    assert "RLIMIT_NPROC does not bind root" in as_root["enforced_by"] and "ends the tree at 256" in as_root["enforced_by"]
    entry = sandbox.confinement({"filesystem": "read-only"}, True, cap=as_user)
    assert entry["process_cap"] == as_user


def test_tasks_below_counts_threads_of_descendants():
    child = subprocess.Popen([sys.executable, "-c", "import threading, time\n"
                              "[threading.Thread(target=time.sleep, args=(5,), daemon=True).start() for _ in range(3)]\n"
                              "print(flush=True); time.sleep(5)"], stdout=subprocess.PIPE)
    try:
        child.stdout.readline()
        assert sandbox.tasks_below(os.getpid()) >= 4     # the child's main thread and its three threads
        assert sandbox.tasks_below(child.pid) == 0
    finally:
        child.kill()
        child.wait()
