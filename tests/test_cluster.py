"""Audits on a Dask cluster (issue 13): the same seed gives the same result on one process and
on a LocalCluster of 2 worker processes, also when a worker or the client is killed midway;
a randomizer the workers cannot import stops the audit before any sampling (exit 2).

One LocalCluster (2 processes, 1 thread each) is shared by the module; each audit connects
to it by address, as `ldpaudit audit --cluster tcp://...` does."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import cli_inprocess

distributed = pytest.importorskip("distributed", reason="the cluster extra (dask[distributed]) is not installed")

import dask  # noqa: E402

from ldpaudit.audit import audit  # noqa: E402
from ldpaudit.audit import cluster as cluster_module  # noqa: E402
from ldpaudit.audit.sequential import rounds_json, sequential_audit  # noqa: E402
from ldpaudit.errors import InvalidParameter, RandomizerError  # noqa: E402
from ldpaudit.mechanism import catalog  # noqa: E402

from cluster_randomizers import krr_eps15, slow_krr  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TARGET = "tests/cluster_randomizers.py:slow_krr"


@pytest.fixture(scope="module")
def cluster():
    # with the settings local:N gives its workers (cluster.SAMPLING_CONFIG): Dask's own housekeeping
    # (a profiler every 10 ms, ticks every 20 ms) would spend a tenth of a core for the module's life
    with dask.config.set(cluster_module.SAMPLING_CONFIG):     # read by the scheduler, copied to the workers
        local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                         silence_logs=40)
    with local:
        with distributed.Client(local) as client:
            yield client


def _same(a: dict, b: dict) -> dict:
    """The JSON results without the wall-clock fields."""
    a, b = dict(a), dict(b)
    for d in (a, b):
        for key in ("seconds", "timeouts", "cluster", "memory"):
            d.pop(key, None)
    assert a == b
    return a


def cli(*args, env=None, **kw):
    return subprocess.run([sys.executable, "-m", "ldpaudit.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env=env, **kw)


def test_black_box_identical_on_cluster(cluster):
    kw = dict(domain=range(4), epsilon=1.0, samples=12_000, seed=11)
    local = audit(krr_eps15, **kw).to_json()
    remote = audit(krr_eps15, cluster=cluster.scheduler.address, **kw).to_json()
    result = _same(local, remote)
    # the comparison means something: a violation with a witness and its counts
    assert result["verdict"] == "VIOLATION" and result["epsilon_lower_bound"] > 1.0
    assert result["witness"]["counts"][0] > 0 and result["samples_per_input"] == 12_000


def test_spec_guided_identical_on_cluster(cluster):
    kw = dict(domain=range(4), epsilon=1.0, samples=10_000, seed=5, spec=catalog.k_rr(d=4, epsilon=1))
    local = audit(krr_eps15, **kw).to_json()
    remote = audit(krr_eps15, cluster=cluster, **kw).to_json()
    result = _same(local, remote)
    assert result["verdict"] == "VIOLATION"
    assert result["conformance"]["passed"] is False     # k-RR at ε = 1.5 is not the spec's channel
    assert result["method"].startswith("spec-guided")


def test_sequential_identical_on_cluster(cluster):
    kw = dict(domain=range(4), epsilon=1.0, budget=40_000, seed=2)
    local, local_rounds = sequential_audit(krr_eps15, **kw)
    remote, remote_rounds = sequential_audit(krr_eps15, cluster=cluster, **kw)
    _same(local.to_json(), remote.to_json())
    assert rounds_json(local_rounds) == rounds_json(remote_rounds)
    # it stopped early, at the first look that certified the violation
    assert local.verdict == "VIOLATION" and local.samples_per_input < 40_000


def test_cli_isolated_identical_on_cluster(cluster):
    args = ["audit", TARGET, "--target-arg", "epsilon=1.5", "--domain", "0..3", "--epsilon", "1",
            "--samples", "12000", "--seed", "3", "--json"]
    # in this process (tests/cli_inprocess.py): the isolation workers are processes all the same
    local = cli_inprocess.run(*args, cwd=ROOT)
    remote = cli_inprocess.run(*args, "--cluster", cluster.scheduler.address, cwd=ROOT)
    assert local.returncode == remote.returncode == 1, remote.stderr
    a, b = json.loads(local.stdout), json.loads(remote.stdout)
    _same(a, b)
    assert b["cluster"]["workers"] == 2 and b["cluster"]["chunks_replayed"] == 0
    assert b["sandbox"]["level"] == a["sandbox"]["level"]   # confined on the workers as it is locally
    # the workers time the calls as a local run does: the same fields, the slowest call measured
    assert set(b["timeouts"]) == set(a["timeouts"])
    assert {k: v for k, v in b["timeouts"].items() if k != "slowest_call_s"} == \
        {k: v for k, v in a["timeouts"].items() if k != "slowest_call_s"}
    assert a["timeouts"]["slowest_call_s"] > 0 and b["timeouts"]["slowest_call_s"] > 0  # measured, not compared


@pytest.mark.slow
def test_feature_on_isolated_target_identical_on_cluster():
    """--feature with an isolated target: the workers compose feature ∘ randomizer as a local
    run does (the feature loaded there by name, file.py:function included)."""
    args = ["audit", TARGET, "--target-arg", "epsilon=1.5", "--domain", "0..3", "--epsilon", "1",
            "--samples", "12000", "--seed", "3", "--json", "--feature", "tests/cluster_randomizers.py:is_zero"]
    local = cli(*args)
    remote = cli(*args, "--cluster", "local:2")
    assert local.returncode == remote.returncode == 1, remote.stderr
    a, b = json.loads(local.stdout), json.loads(remote.stdout)
    result = _same(a, b)
    # the audit saw the projected outputs: only "is the report 0" tells inputs apart, so the
    # witness pair holds input 0 and its event is a set of feature values (0 or 1)
    w = result["witness"]
    assert 0 in w["pair"] and w["event"] in ("y in {0}", "y in {1}")
    assert 1.0 < result["epsilon_lower_bound"] < 1.5 and w["counts"][0] > 0
    assert b["cluster"]["workers"] == 2 and b["sandbox"]["level"] == a["sandbox"]["level"]
    assert b["timeouts"]["slowest_call_s"] > 0


@pytest.mark.slow
def test_hashed_spec_guided_audit_identical_on_cluster(cluster):
    """--hash on an isolated target: the workers project (seed, value) with the user's hash as
    a local run does; a wrong hit probability is the same VIOLATION with the same witness and
    conformance tests."""
    prog = "tests/programs/olh_hashing.py"
    args = ["audit", f"{prog}:olh_binary_p", "--batch", "--spec", "specs/olh.toml", "-p", "d=25", "-p", "g=4",
            "-p", "epsilon=1", "--samples", "20000", "--json", "--hash", f"{prog}:hash4"]
    local = cli(*args)
    remote = cli(*args, "--cluster", cluster.scheduler.address)
    assert local.returncode == remote.returncode == 1, remote.stderr
    result = _same(json.loads(local.stdout), json.loads(remote.stdout))
    assert result["verdict"] == "VIOLATION" and result["conformance_failed"]
    assert json.loads(remote.stdout)["cluster"]["workers"] == 2
    memory = json.loads(remote.stdout)["memory"]     # the workers' peak (with their sampling children) beside the client's
    assert 0 < memory["worker_peak_mb"] < memory["budget_mb"] and memory["within_budget"] is True


@pytest.mark.slow
def test_command_program_runs_on_workers(cluster):
    args = ["audit", "--command", "python3 examples/jsonlines/krr.py 4 1.5", "--domain", "0..3", "--epsilon", "1",
            "--samples", "10000", "--json"]
    local = cli(*args)
    remote = cli(*args, "--cluster", cluster.scheduler.address)
    assert local.returncode == remote.returncode == 1, remote.stderr
    _same(json.loads(local.stdout), json.loads(remote.stdout))
    missing = cli("audit", "--command", "python3 examples/jsonlines/no_such.py", "--domain", "0..3",
                  "--epsilon", "1", "--samples", "1000", "--cluster", cluster.scheduler.address)
    assert missing.returncode == 2
    assert "cannot be loaded on Dask worker tcp://" in missing.stderr and "no_such.py" in missing.stderr


def test_not_importable_on_workers_exits_2_before_sampling(cluster, tmp_path):
    # the client can import the module (PYTHONPATH), the workers cannot
    (tmp_path / "only_here.py").write_text("import random\ndef f(x):\n    return random.random() < 0.5\n")
    journal = tmp_path / "journal"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    proc = cli("audit", "only_here:f", "--domain", "0..1", "--epsilon", "1", "--samples", "1000",
               "--journal", str(journal), "--cluster", cluster.scheduler.address, env=env)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "not importable on Dask worker tcp://127.0.0.1:" in lines[0]
    assert "no module named 'only_here'" in lines[0]
    assert not (journal / "chunks").exists() or not any((journal / "chunks").iterdir())   # nothing sampled
    # the Python API, a function pickled by reference to a module the workers lack
    sys.path.insert(0, str(tmp_path))
    try:
        import only_here

        with pytest.raises(RandomizerError, match=r"no module named 'only_here' there"):
            audit(only_here.f, domain=[0, 1], epsilon=1, samples=1000, cluster=cluster)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("only_here", None)


@pytest.mark.parametrize("address, message", [
    ("local:x", r"local:N needs a number of worker processes"),
    ("local:0", r"local:N needs a number of worker processes"),
])
def test_bad_cluster_address(address, message):
    with pytest.raises(InvalidParameter, match=message):
        audit(krr_eps15, domain=[0, 1], epsilon=1, samples=1000, cluster=address)


def test_workers_and_cluster_are_exclusive():
    with pytest.raises(InvalidParameter, match=r"workers=2 and cluster=.*give one of them"):
        audit(krr_eps15, domain=[0, 1], epsilon=1, samples=1000, cluster="local:2", workers=2)


def test_no_cluster_does_not_import_dask():
    code = ("import sys; sys.path.insert(0, 'tests'); from ldpaudit.audit import audit; "
            "from cluster_randomizers import krr_eps15; "
            "audit(krr_eps15, domain=[0, 1], epsilon=1, samples=1000); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_sampling_processes_import_no_scipy():
    """A worker's sampling child and the isolation worker import numpy and ldpaudit only: scipy
    (0.4 s per worker and audit) is for the bounds, computed on the client."""
    code = ("import sys; from ldpaudit.audit.cluster import child_main; import ldpaudit.audit.worker; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'sympy', 'z3', 'dask', 'rich'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def _housekeeping(dask_worker=None, dask_scheduler=None):
    import dask

    server = dask_worker or dask_scheduler
    return (dask.config.get("distributed.worker.profile.enabled"),
            {name: pc.callback_time for name, pc in server.periodic_callbacks.items()})


def test_local_cluster_runs_with_the_sampling_settings():
    """local:N starts its scheduler and workers with SAMPLING_CONFIG: no profiler, ticks every
    second, the monitors every 5 s and 1 s (Dask's defaults: every 10 ms, 20 ms, 0.5 s, 0.1 s)."""
    client, local, own = cluster_module._connect("local:1")
    try:
        (enabled, worker), = client.run(_housekeeping).values()
        _, scheduler = client.run_on_scheduler(_housekeeping)
    finally:
        client.close()
        local.close()
    assert enabled is False and "profile" not in worker and "profile-cycle" not in worker
    assert worker["tick"] == scheduler["tick"] == 1000
    assert worker["monitor"] == scheduler["monitor"] == 5000 and worker["memory_monitor"] == 1000


def test_docs_give_the_sampling_settings():
    """The environment the docs tell users to give hand-started workers is SAMPLING_CONFIG's."""
    page = (ROOT / "docs" / "tutorials" / "audit-a-randomizer.md").read_text()
    given = dict(m.groups() for m in re.finditer(r"\b(DASK_[A-Z_]+)=(\S+)", page))
    assert given == cluster_module.sampling_environment()
    read = dask.config.collect(paths=[], env=given)     # and Dask reads each back as the setting meant
    assert {k: dask.config.get(k, config=read) for k in cluster_module.SAMPLING_CONFIG} == cluster_module.SAMPLING_CONFIG


@pytest.mark.slow
def test_client_killed_then_resumed_gives_identical_result(cluster, tmp_path):
    # 40 µs per draw so that the client can be killed midway; the draws do not depend on it,
    # so the uninterrupted reference run spends none
    common = ["--domain", "0..3", "--epsilon", "1", "--samples", "24000", "--seed", "9", "--json"]
    args = ["audit", TARGET, "--target-arg", "epsilon=1.5", "--target-arg", "micros=40", *common]
    journal = tmp_path / "journal"
    chunks = journal / "chunks"
    proc = subprocess.Popen([sys.executable, "-m", "ldpaudit.cli", *args, "--journal", str(journal),
                             "--cluster", cluster.scheduler.address], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if chunks.exists() and len(list(chunks.glob("*.json"))) >= 3:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the audit ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    stored = len(list(chunks.glob("*.json")))
    resumed = cli("audit", "--resume", str(journal), "--json", "--cluster", cluster.scheduler.address)
    assert resumed.returncode == 1, resumed.stderr
    local = cli("audit", TARGET, "--target-arg", "epsilon=1.5", *common)
    a, b = json.loads(local.stdout), json.loads(resumed.stdout)
    _same(a, b)
    replayed, submitted = b["cluster"]["chunks_replayed"], b["cluster"]["chunks_submitted"]
    assert replayed >= stored >= 3 and submitted >= 1
    # every chunk once: exploration chunks are stored as counts of distinct outputs (.json),
    # confirmation chunks as the counts of the chosen events (.tally.json)
    files = [p.name for p in chunks.iterdir() if not p.name.startswith(".")]
    assert replayed + submitted == len(files)
    assert sum(f.endswith(".tally.json") for f in files) >= 4      # one or more per input


def _kill_one_worker_at_a_third(cluster):
    """(progress callback that SIGKILLs one worker once a third of the draws are done, the
    event set when it has)."""
    victim = next(iter(cluster.run(os.getpid).values()))
    killed = threading.Event()

    def progress(done, total):
        if not killed.is_set() and done >= total // 3 and total > 0:
            os.kill(victim, signal.SIGKILL)
            killed.set()

    return progress, killed


@pytest.mark.slow
def test_worker_killed_mid_audit_gives_identical_result(cluster):
    progress, killed = _kill_one_worker_at_a_third(cluster)
    # 20 µs per draw on the cluster so that chunks are in flight when the worker dies
    kw = dict(domain=range(4), epsilon=1.0, samples=12_000, seed=4)
    remote = audit(slow_krr(d="4", epsilon="1.5", micros="20"), cluster=cluster, progress=progress, **kw).to_json()
    assert killed.is_set()
    local = audit(krr_eps15, **kw).to_json()
    result = _same(local, remote)
    assert result["verdict"] == "VIOLATION"
    cluster.wait_for_workers(2, timeout=60)     # the nanny restarts the killed worker


@pytest.mark.slow
def test_cli_local_cluster_identical_and_quiet():
    """--cluster local:2 starts its own LocalCluster: same JSON as a local run, and a failing
    randomizer still ends in one line on stderr (the workers' logs are silenced)."""
    args = ["audit", TARGET, "--target-arg", "epsilon=1.5", "--domain", "0..3", "--epsilon", "1",
            "--samples", "12000", "--seed", "3", "--json"]
    local, remote = cli(*args), cli(*args, "--cluster", "local:2")
    assert local.returncode == remote.returncode == 1, remote.stderr
    _same(json.loads(local.stdout), json.loads(remote.stdout))
    assert json.loads(remote.stdout)["cluster"]["workers"] == 2
    memory = json.loads(remote.stdout)["memory"]     # the workers' peak (with their sampling children) beside the client's
    assert 0 < memory["worker_peak_mb"] < memory["budget_mb"] and memory["within_budget"] is True
    # --no-isolate: the target is loaded by name on the workers (in a child of each)
    local_plain, plain = cli(*args, "--no-isolate"), cli(*args, "--no-isolate", "--cluster", "local:2")
    assert local_plain.returncode == plain.returncode == 1, plain.stderr
    a, b = json.loads(local_plain.stdout), json.loads(plain.stdout)
    assert "child process of each Dask worker" in b.pop("sandbox")["fallback"]
    a.pop("sandbox")
    _same(a, b)
    bad = cli("audit", TARGET, "--target-arg", "d=x", "--domain", "0..3", "--epsilon", "1", "--samples", "1000",
              "--cluster", "local:2")
    assert bad.returncode == 2
    assert len(bad.stderr.strip().splitlines()) == 1 and "cannot be loaded on Dask worker" in bad.stderr


def test_progress_shows_draws_per_second_across_workers(cluster):
    import time

    from ldpaudit.audit.adapters import Sampler
    from ldpaudit.audit.cluster import ClusterDraws
    from ldpaudit.audit.draws import Progress

    prog = Progress(True, total=10_000)
    engine = ClusterDraws(Sampler(krr_eps15, batch=False), 0, prog, cluster)
    try:
        assert prog.note == " across 2 workers"
        outs = [out for _, out in engine.draw([(0, 0, 1000, 1), (1, 1, 1000, 1)])]
        assert [o.n for o in outs] == [1000, 1000]
    finally:
        engine.close()
    time.sleep(1.05)            # the bar appears after a second
    for _ in range(3):
        prog.advance(1000)
        time.sleep(0.2)
    rate = next(c for c in prog.bar.columns if type(c).__name__ == "Rate").render(prog.bar.tasks[0])
    prog.close()
    text = str(rate)
    assert text.endswith(" draws/s across 2 workers")
    assert 1_000 < float(text.split()[0].replace(",", "")) < 100_000   # ~2000 draws in ~1 s of updates


@pytest.mark.slow
def test_wide_audit_on_the_cluster_with_a_killed_worker_is_identical(cluster):
    """A wide domain (5000 inputs: small chunks, several per task) on the cluster, one worker
    killed a third of the way: the same verdict, bound and counts as the local run."""
    from wide_randomizers import krr

    progress, killed = _kill_one_worker_at_a_third(cluster)
    kw = dict(domain=range(5000), epsilon=1.0, samples=400, seed=8, batch=True)
    remote = audit(krr(5000, 1.0), cluster=cluster, progress=progress, **kw).to_json()
    assert killed.is_set()
    local = audit(krr(5000, 1.0), **kw).to_json()
    result = _same(local, remote)
    assert "wide domain (5000 inputs" in result["method"] and result["witness"]["samples"] == [2_000_000, 2_000_000]
    cluster.wait_for_workers(2, timeout=60)


def _supervisors(cluster) -> list[int]:
    """pids of the sandbox supervisors the cluster's workers started (their descendants)."""
    from ldpaudit.audit.sandbox import descendants

    out = []
    for worker in cluster.run(os.getpid).values():
        for pid in descendants(worker):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if b"ldpaudit.audit.sandbox" in f.read():
                        out.append(pid)
            except OSError:
                pass
    return out


def test_lost_sandbox_supervisor_is_retried_and_the_result_identical(cluster):
    """kill -9 of one worker's sandbox supervisor under a healthy isolated randomizer (issue
    35.4): its chunk runs again on another worker, the result is the local run's, and the cluster
    stats count the loss; the randomizer is not blamed (that takes a second loss of one chunk).
    The randomizer sleeps 20 µs a draw on average, so that chunks are in flight when the
    supervisor dies, without busy-waiting through them."""
    from ldpaudit.audit import external

    target = str(ROOT / "tests/cluster_randomizers.py") + ":sleepy_krr"

    connection = cluster_module.Connection(cluster)
    killed = threading.Event()

    def progress(done, total):
        if not killed.is_set() and total > 0 and done >= total // 3:
            victims = _supervisors(cluster)
            if victims:
                os.kill(victims[0], signal.SIGKILL)
                killed.set()

    kw = dict(domain=range(4), epsilon=1.0, samples=12_000, seed=4, batch=True)
    args = {"d": "4", "epsilon": "1.5", "micros": "20"}
    with external.isolated(target, args) as randomizer:
        remote = audit(randomizer, cluster=connection, progress=progress, **kw).to_json()
    assert killed.is_set() and connection.stats["supervisors_lost"] == 1 and connection.stats["chunks_retried"] >= 1
    # the local run without the sleep: it spends time, never draws (the same outputs)
    with external.isolated(target, {**args, "micros": "0"}) as randomizer:
        local = audit(randomizer, **kw).to_json()
    assert _same(local, remote)["verdict"] == "VIOLATION"
