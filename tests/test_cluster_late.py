"""Workers that join a Dask cluster after an audit started (issue 13): each probes itself on its
first task. One that cannot import the randomizer stops the audit with the start-up probe's
one-line message naming it (exit 2), having drawn nothing; one that can samples its share and
the result is the local run's.

Each test starts a LocalCluster of one worker process and adds a second while the audit runs
(LocalCluster.scale). Whether a worker can import the target is set by the PYTHONPATH of this
process when the worker is spawned: worker processes inherit it (and so do the processes that
sample the randomizer on them)."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed", reason="the cluster extra (dask[distributed]) is not installed")

from ldpaudit.audit import audit  # noqa: E402
from ldpaudit.audit.cluster import Connection  # noqa: E402

from cluster_randomizers import krr_eps15, sleepy_krr  # noqa: E402
from test_cluster import _same  # noqa: E402  (the JSON results without the wall-clock fields)

ROOT = Path(__file__).resolve().parents[1]
#: k-RR at ε = 1.5 on 0..3 that takes 150 µs a draw on average, asleep: the audit runs long
#: enough for a worker to join without burning a core meanwhile
MODULE = '''
from cluster_randomizers import sleepy_krr

krr = sleepy_krr(d="4", epsilon="1.5", micros="150")
'''


def _one_worker_cluster():
    return distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                                    silence_logs=40)


def test_late_worker_that_cannot_import_the_target_exits_2(tmp_path, monkeypatch):
    (tmp_path / "late_target.py").write_text(MODULE)
    # the first worker (and the client) can import late_target; the worker added later cannot
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), str(ROOT / "tests")]))
    journal = tmp_path / "journal"
    with _one_worker_cluster() as local, distributed.Client(local) as client:
        first = set(client.nthreads())
        # an isolated target given by module name: imported in the isolation worker of each
        # Dask worker, from that worker's PYTHONPATH
        proc = subprocess.Popen([sys.executable, "-m", "ldpaudit.cli", "audit", "late_target:krr", "--domain", "0..3",
                                 "--epsilon", "1", "--samples", "40000", "--seed", "1", "--journal", str(journal),
                                 "--cluster", local.scheduler_address], cwd=ROOT, env=dict(os.environ),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None and not any((journal / "chunks").glob("*.json")):
            time.sleep(0.05)
        assert proc.poll() is None, f"the audit ended before a worker could join: {proc.communicate()}"
        monkeypatch.setenv("PYTHONPATH", str(ROOT / "tests"))
        local.scale(2)
        client.wait_for_workers(2, timeout=60)
        late = set(client.nthreads()) - first
        stored = len(list((journal / "chunks").glob("*.json")))
        _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    (address,) = late
    assert f"not importable on Dask worker {address}" in lines[0]
    assert "no module named 'late_target'" in lines[0]
    # the run stopped at the late worker's first task: the first worker had not finished the audit
    assert 1 <= stored <= len(list((journal / "chunks").glob("*.json"))) < 16


def test_late_worker_that_can_import_the_target_samples_its_share(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "tests"))
    kw = dict(domain=range(4), epsilon=1.0, samples=40_000, seed=6)
    joined = []
    with _one_worker_cluster() as local, distributed.Client(local) as client:
        first = set(client.nthreads())

        def progress(done, total):
            if not joined:      # after the first chunk: a second worker joins and is waited for
                local.scale(2)
                client.wait_for_workers(2, timeout=60)
                joined.extend(set(client.nthreads()) - first)

        connection = Connection(client)
        with distributed.get_task_stream(client) as stream:
            remote = audit(sleepy_krr(d="4", epsilon="1.5", micros="20"), cluster=connection, progress=progress,
                           **kw).to_json()
        sampled_on = {t["worker"] for t in stream.data if str(t["key"]).startswith("ldpaudit-")
                      and "probe" not in str(t["key"])}
    assert len(joined) == 1
    assert joined[0] in sampled_on and first <= sampled_on     # both workers drew chunks
    assert connection.stats["workers"] == 2 and connection.stats["threads"] == 2
    local_result = audit(krr_eps15, **kw).to_json()
    result = _same(local_result, remote)
    assert result["verdict"] == "VIOLATION" and result["witness"]["counts"][0] > 0
