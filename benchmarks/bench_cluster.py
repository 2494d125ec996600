"""Audits on a Dask cluster (issue 13): speed-up of 2 workers over 1, per-task overhead, the
projected time of 10^9 draws on 100 workers, and the client's peak memory at 10^6 and 10^7 draws.

    python benchmarks/bench_cluster.py [--quick] [overhead] [memory] [speed] [--draws N] [--micros 50]
                                       [--repeat R] [--dask-defaults]

The cluster is a scheduler and N single-threaded worker processes, each its own process
(distributed's SubprocessCluster: what `dask scheduler` and `dask worker --nthreads 1` start by
hand), so that the CPU time of the client, of the scheduler and of every worker (with the
processes that sample the randomizer on it) is measured apart, from getrusage in each. They
run with the Dask settings the README gives for sampling workers (cluster.SAMPLING_CONFIG, as
environment variables; ``local:N`` applies the same), or with Dask's own with --dask-defaults.

speed     a per-call k-RR doing ``--micros`` µs of pure-Python arithmetic per draw (a fixed
          amount of work, calibrated here on CPU time, so that its CPU cost does not depend on
          the load, unlike a busy-wait's), ``--draws`` draws in all (2 inputs), audited on 2
          and on 1 workers, and in this process without a cluster as the baseline. Wall time and CPU time of each process; results must be
          identical. On a machine shared with other work the wall-clock speed-up says little, so
          two CPU-based figures are given beside it: the parallelism Σ worker CPU / wall (how
          many cores the workers kept busy) and the idle-machine speed-up CPU(1 worker) / the
          busiest worker's CPU with 2 (what the run takes when each worker has a core).
overhead  one-draw tasks through the same engine (ClusterDraws): per task, the wall time and
          the CPU time of the client, the scheduler and the workers.
memory    the peak resident set of a fresh client process (ru_maxrss) auditing 10^6 and 10^7
          draws on 2 workers, a discrete k-RR and a real-valued Laplace randomizer, beside the
          same audit without a cluster; the cluster's JSON result must equal the local one.

--quick   small sizes, under a minute on an idle machine: 10^5 draws for speed, 150 tasks for
          overhead, the memory figures at 10^6 and 10^7 draws (real-valued only).

One cluster serves the whole run: 2 workers, then scaled down to 1.

The load average is printed next to every figure.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def load() -> str:
    return "load average " + ", ".join(f"{v:.1f}" for v in os.getloadavg())


def _cpu() -> float:
    """CPU seconds of this process and of its children that ended (the samplers of a worker)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def start(n: int, dask_defaults: bool = False):
    """A scheduler process and ``n`` worker processes of one thread each; (client, cluster).
    They run with the settings the README gives for workers started by hand (the environment
    of cluster.sampling_environment, as ``local:N`` applies them), or with Dask's defaults."""
    import distributed
    from distributed.deploy.subprocess import SubprocessCluster

    from ldpaudit.audit.cluster import sampling_environment

    for name, value in sampling_environment().items():
        if dask_defaults:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value    # inherited by the scheduler and worker processes

    for name in ("distributed", "distributed.deploy.subprocess"):
        logging.getLogger(name).setLevel(logging.ERROR)
    cluster = SubprocessCluster(n_workers=n, worker_kwargs={"nthreads": 1})
    client = distributed.Client(cluster)
    client.wait_for_workers(n, timeout=120)
    client.run(lambda: None)
    return client, cluster


def stop(client, cluster) -> None:
    client.close()
    cluster.close()


def workers(client, cluster, n: int) -> None:
    """Scale the cluster to ``n`` workers and wait until it has them."""
    if len(client.nthreads()) == n:
        return
    cluster.scale(n)
    deadline = time.monotonic() + 120
    while len(client.nthreads()) != n:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the cluster did not reach {n} workers")
        time.sleep(0.1)
    client.run(lambda: None)


def snapshot(client) -> dict:
    """CPU seconds so far of this process (the client), the scheduler and each worker."""
    return {"client": _cpu(), "scheduler": client.run_on_scheduler(_cpu), "workers": client.run(_cpu)}


def spent(before: dict, after: dict) -> dict:
    return {"client": after["client"] - before["client"], "scheduler": after["scheduler"] - before["scheduler"],
            "workers": {w: after["workers"][w] - before["workers"].get(w, 0.0) for w in after["workers"]}}


def comparable(result) -> dict:
    out = result.to_json()
    out.pop("seconds")
    return out


# -- speed -----------------------------------------------------------------------------------

def calibrate(micros: float) -> int:
    """Loops of work_krr that take ``micros`` µs of CPU per draw in this process."""
    from cluster_randomizers import work_krr

    loops, draws = 1000, 2000
    f = work_krr(loops=str(loops))
    c0 = time.process_time()
    for _ in range(draws):
        f(0)
    per_loop = (time.process_time() - c0) / draws / loops
    return max(1, round(micros * 1e-6 / per_loop))


def speed(client, cluster, draws: int, micros: float, repeat: int = 1) -> dict:
    """The audit in this process, then on 2 and on 1 workers, ``repeat`` times in alternation:
    the CPU of this virtual machine runs at a speed that drifts by up to 20 % from one minute
    to the next (the same work measured 76 and 83 s of CPU minutes apart), so each 2-worker
    run is compared with the 1-worker run next to it and the median ratio is reported."""
    from cluster_randomizers import work_krr

    from ldpaudit.audit import audit
    from ldpaudit.audit.cluster import Connection

    loops = calibrate(micros)
    randomizer = work_krr(d="4", epsilon="1", loops=str(loops))
    kw = dict(domain=[0, 1], epsilon=1.0, samples=draws // 2, seed=0)
    t0, c0 = time.perf_counter(), time.process_time()
    baseline = comparable(audit(randomizer, **kw))
    base = {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0, "load": os.getloadavg()[0]}
    print(f"in-process, no cluster: {base['wall']:.1f} s wall, {base['cpu']:.1f} s CPU "
          f"({1e6 * base['cpu'] / draws:.1f} µs per draw, {loops} loops); {load()}", flush=True)
    pairs, same = [], True
    for r in range(repeat):
        rows = {}
        for n in (2, 1):
            workers(client, cluster, n)
            connection = Connection(client)
            load_before = os.getloadavg()[0]
            before = snapshot(client)
            t0 = time.perf_counter()
            same &= comparable(audit(randomizer, cluster=connection, **kw)) == baseline
            wall = time.perf_counter() - t0
            cpu = spent(before, snapshot(client))
            per_worker = sorted(cpu["workers"].values(), reverse=True)
            rows[n] = {"wall": wall, "workers": per_worker, "client": cpu["client"], "scheduler": cpu["scheduler"],
                       "tasks": connection.stats["chunks_submitted"], "load": (load_before, os.getloadavg()[0])}
            print(f"[{r + 1}/{repeat}] {n} worker(s): {wall:.1f} s wall; worker CPU "
                  f"{' + '.join(f'{c:.1f}' for c in per_worker)} s (Σ/wall {sum(per_worker) / wall:.2f}); client "
                  f"{cpu['client']:.2f} s, scheduler {cpu['scheduler']:.2f} s CPU; {rows[n]['tasks']} tasks; {load()}",
                  flush=True)
        one, two = rows[1], rows[2]
        pairs.append({"rows": rows, "wall_speedup": one["wall"] / two["wall"],
                      "parallelism": sum(two["workers"]) / two["wall"],
                      "idle_speedup": sum(one["workers"]) / max(two["workers"])})
        p = pairs[-1]
        print(f"[{r + 1}/{repeat}] speed-up 2 workers vs 1: wall {p['wall_speedup']:.2f}x; Σ worker CPU / wall with "
              f"2 workers {p['parallelism']:.2f} (1 worker: {sum(one['workers']) / one['wall']:.2f}); idle-machine "
              f"speed-up (1-worker CPU / busiest of 2) {p['idle_speedup']:.2f}x; cluster CPU (1 worker) / in-process "
              f"CPU {sum(one['workers']) / base['cpu']:.2f}", flush=True)
    speedups = sorted(p["wall_speedup"] for p in pairs)
    median = speedups[len(speedups) // 2] if len(speedups) % 2 else sum(speedups[len(speedups) // 2 - 1:][:2]) / 2
    print(f"wall speed-up 2 workers vs 1, {repeat} pair(s): median {median:.2f}x (all: "
          f"{', '.join(f'{v:.2f}' for v in speedups)}); identical results in every run: {same}; "
          f"{baseline['verdict']}, ε_lb {baseline['epsilon_lower_bound']:.4f}", flush=True)
    return {"baseline": base, "pairs": pairs, "same": same, "median_wall_speedup": median}


# -- per-task overhead -------------------------------------------------------------------------

def overhead(client, cluster, tasks: int, counts=(2, 1)) -> dict:
    """Per one-draw task: wall and CPU (client, scheduler, workers): the fixed cost a chunk pays."""
    from cluster_randomizers import slow_krr

    from ldpaudit.audit.adapters import Sampler
    from ldpaudit.audit.cluster import ClusterDraws
    from ldpaudit.audit.draws import Progress

    out = {}
    for n in counts:
        workers(client, cluster, n)
        engine = ClusterDraws(Sampler(slow_krr(), batch=False), 0, Progress(False), client)
        try:
            list(engine.draw([(0, 0, 1, 1)] * 20))      # warm: the samplers start on every worker
            before = snapshot(client)
            t0 = time.perf_counter()
            list(engine.draw([(0, 0, 1, 1)] * tasks))
            wall = time.perf_counter() - t0
            cpu = spent(before, snapshot(client))
        finally:
            engine.close()
        per = {"wall": wall / tasks, "client": cpu["client"] / tasks, "scheduler": cpu["scheduler"] / tasks,
               "worker": sum(cpu["workers"].values()) / tasks}
        out[n] = per
        print(f"{n} worker(s), {tasks} one-draw tasks: per task {1e3 * per['wall']:.2f} ms wall, CPU: client "
              f"{1e3 * per['client']:.2f} ms, scheduler {1e3 * per['scheduler']:.2f} ms, workers "
              f"{1e3 * per['worker']:.2f} ms; {load()}", flush=True)
    return out


def project(per_task: dict, micros: float, draws: float = 1e9, workers: int = 100) -> dict:
    """Wall time of ``draws`` draws on ``workers`` single-threaded workers: each samples its
    share and pays the per-task cost once per chunk; the client and the scheduler handle every
    task in turn, so the run takes at least tasks x either's cost per task."""
    from ldpaudit.audit.draws import CHUNK

    tasks = draws / CHUNK
    per_worker = draws * micros * 1e-6 / workers + tasks / workers * per_task["worker"]
    client, scheduler = tasks * per_task["client"], tasks * per_task["scheduler"]
    return {"tasks": tasks, "per_worker": per_worker, "client": client, "scheduler": scheduler,
            "wall": max(per_worker, client, scheduler)}


# -- client memory ---------------------------------------------------------------------------

CASES = {"discrete": "k-RR d = 4, batch (discrete)", "real": "Laplace mean, batch (real-valued)"}


def client_main(kind: str, draws: int, address: str) -> None:
    """A fresh client process: one audit, then its peak resident set (ru_maxrss) as JSON."""
    from ldpaudit.audit import audit
    from ldpaudit.mechanism.randomizers import krr, laplace_mean

    randomizer, domain = (krr(d=4, epsilon=1), [0, 1]) if kind == "discrete" else \
        (laplace_mean(M=1, epsilon=1), [-1.0, 1.0])
    kw = dict(domain=domain, epsilon=1.0, samples=draws // 2, batch=True, seed=0)
    if address != "-":
        import distributed

        client = distributed.Client(address)
        kw["cluster"] = client
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    result = comparable(audit(randomizer, **kw))
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"base": base, "peak": peak, "wall": wall, "result": result}))


def _client_run(kind: str, draws: int, address: str) -> dict:
    proc = subprocess.run([sys.executable, __file__, "_client", kind, str(draws), address], capture_output=True,
                          text=True, cwd=ROOT, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"client {kind} {draws} {address}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def memory(client, cluster, kinds, sizes, local_sizes) -> dict:
    workers(client, cluster, 2)
    address = cluster.scheduler_address
    out = {}
    for kind in kinds:
        for draws in sizes:
            remote = _client_run(kind, draws, address)
            local = _client_run(kind, draws, "-") if draws in local_sizes else None
            same = None if local is None else remote["result"] == local["result"]
            out[(kind, draws)] = (remote, local, same)
            print(f"{CASES[kind]}, {draws:.0e} draws: client peak RSS {remote['peak']:.1f} MB "
                  f"(after imports {remote['base']:.1f} MB), {remote['wall']:.1f} s; without a cluster "
                  f"{'-' if local is None else format(local['peak'], '.1f')} MB; {remote['result']['verdict']}, "
                  f"identical to local: {'-' if same is None else same}; {load()}", flush=True)
        growth = out[(kind, sizes[-1])][0]["peak"] - out[(kind, sizes[0])][0]["peak"]
        print(f"{CASES[kind]}: client peak RSS growth {sizes[0]:.0e} -> {sizes[-1]:.0e} draws: "
              f"{growth:+.1f} MB", flush=True)
    return out


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_client":
        client_main(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        return
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("parts", nargs="*", choices=["overhead", "memory", "speed", []], default=[])
    p.add_argument("--quick", action="store_true", help="small sizes: under a minute")
    p.add_argument("--draws", type=int, default=None, help="draws in all for speed (default 2e6, quick 1e5)")
    p.add_argument("--micros", type=float, default=50.0, help="µs per draw of the speed randomizer")
    p.add_argument("--repeat", type=int, default=1, help="pairs of 2-worker and 1-worker runs for speed (median)")
    p.add_argument("--dask-defaults", action="store_true",
                   help="run the scheduler and workers with Dask's default housekeeping, not the sampling settings")
    args = p.parse_args()
    parts = args.parts or ["overhead", "memory", "speed"]
    draws = args.draws or (10**5 if args.quick else 2 * 10**6)
    started = time.perf_counter()
    print(f"{os.cpu_count()} cores; {load()}; {'quick' if args.quick else 'full'} mode; Dask "
          f"{'default settings' if args.dask_defaults else 'sampling settings (cluster.SAMPLING_CONFIG)'}", flush=True)
    client, cluster = start(2, args.dask_defaults)
    print(f"cluster of 2 worker processes started in {time.perf_counter() - started:.1f} s", flush=True)
    try:
        if "memory" in parts:
            if args.quick:
                memory(client, cluster, ["real"], [10**6, 10**7], [10**6])
            else:
                memory(client, cluster, ["discrete", "real"], [10**6, 10**7], [10**6, 10**7])
        if "overhead" in parts:
            per_task = overhead(client, cluster, 150 if args.quick else 2000)[2]
            t = project(per_task, args.micros)
            print(f"projected 10^9 draws at {args.micros:g} µs on 100 workers: {t['wall']:,.0f} s = "
                  f"{t['wall'] / 60:.1f} min ({t['tasks']:,.0f} tasks; per worker {t['per_worker']:,.0f} s; client "
                  f"{t['client']:,.0f} s and scheduler {t['scheduler']:,.0f} s of CPU in all; pure sampling "
                  f"{1e9 * args.micros * 1e-6 / 100:,.0f} s)", flush=True)
        if "speed" in parts:
            speed(client, cluster, draws, args.micros, args.repeat)
    finally:
        stop(client, cluster)
    print(f"benchmark took {time.perf_counter() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
