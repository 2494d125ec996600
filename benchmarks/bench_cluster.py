"""Audits on a Dask cluster (issue 13): speed-up of 2 workers over 1, per-task overhead, the
projected time of 10^9 draws on 100 workers, and the client's memory from 10^6 to 10^7 draws.

    python benchmarks/bench_cluster.py [speed] [overhead] [memory] [--draws 2000000] [--micros 50]

speed     a per-call k-RR spending ``--micros`` µs per draw (busy-wait), ``--draws`` draws in
          all (2 inputs), audited on a LocalCluster of 1 and of 2 worker processes
          (processes=True, threads_per_worker=1), and in this process as the baseline; wall
          and CPU seconds (CPU of the worker processes and their children, from getrusage)
          and the results, which must be identical.
overhead  2,000 one-draw tasks through the same engine: the cost of one task on a worker
          (submit, run, return, journal-free bookkeeping) and on the client.
memory    peak traced allocations and resident-set growth of the client for 10^6 and 10^7
          draws on 2 workers, beside the same audit without a cluster: a discrete k-RR and a
          real-valued Laplace randomizer (the worst case: exploration chunks travel as arrays).

The machine is shared: the load average is printed next to every figure.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import threading
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import distributed  # noqa: E402
import numpy as np  # noqa: E402

from ldpaudit.audit import audit  # noqa: E402
from ldpaudit.audit.adapters import Sampler  # noqa: E402
from ldpaudit.audit.cluster import ClusterDraws  # noqa: E402
from ldpaudit.audit.engine import CHUNK, Progress  # noqa: E402


def load() -> str:
    return "load average " + ", ".join(f"{v:.1f}" for v in os.getloadavg())


def start(n: int) -> distributed.Client:
    cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                                       silence_logs=40)
    return distributed.Client(cluster)


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def workers_cpu(client) -> float:
    return sum(client.run(_cpu).values())


def comparable(result) -> dict:
    out = result.to_json()
    out.pop("seconds")
    return out


def speed(draws: int, micros: float) -> dict:
    from cluster_randomizers import slow_krr

    randomizer = slow_krr(d="4", epsilon="1", micros=str(micros))
    kw = dict(domain=[0, 1], epsilon=1.0, samples=draws // 2, seed=0)
    rows = {}
    results = {}
    for label, n in (("2 workers", 2), ("1 worker", 1)):
        client = start(n)
        try:
            client.run(lambda: None)
            before, load_before = workers_cpu(client), os.getloadavg()[0]
            t0 = time.perf_counter()
            result = audit(randomizer, cluster=client, **kw)
            wall = time.perf_counter() - t0
            cpu = workers_cpu(client) - before
        finally:
            cluster = client.cluster
            client.close()
            cluster.close()
        rows[label] = (wall, cpu, load_before, os.getloadavg()[0])
        results[label] = comparable(result)
        print(f"{label}: {wall:.1f} s wall, {cpu:.1f} s CPU in the workers; {load()}", flush=True)
    t0, c0 = time.perf_counter(), time.process_time()
    results["in-process"] = comparable(audit(randomizer, **kw))
    rows["in-process (no cluster)"] = (time.perf_counter() - t0, time.process_time() - c0, None, os.getloadavg()[0])
    print(f"in-process: {rows['in-process (no cluster)'][0]:.1f} s wall; {load()}", flush=True)
    same = results["1 worker"] == results["2 workers"] == results["in-process"]
    speedup = rows["1 worker"][0] / rows["2 workers"][0]
    cpu_ratio = rows["2 workers"][1] / rows["1 worker"][1]
    print(f"speed-up 2 workers vs 1: {speedup:.2f}x (CPU 2 workers / 1 worker: {cpu_ratio:.2f}); "
          f"identical results: {same}; verdict {results['1 worker']['verdict']}, "
          f"ε_lb {results['1 worker']['epsilon_lower_bound']:.4f}")
    return {"rows": rows, "speedup": speedup, "same": same}


def overhead(tasks: int = 2000) -> dict:
    """Seconds per one-draw task: the fixed cost that a chunk of CHUNK draws pays once."""
    from cluster_randomizers import slow_krr

    out = {}
    for n in (1, 2):
        client = start(n)
        try:
            engine = ClusterDraws(Sampler(slow_krr(), batch=False), 0, Progress(False), client)
            try:
                list(engine.draw([(0, 0, 1, 1)] * 50))      # warm: the samplers start on every worker
                before = workers_cpu(client)
                t0, c0 = time.perf_counter(), time.process_time()
                list(engine.draw([(0, 0, 1, 1)] * tasks))
                wall, client_cpu = time.perf_counter() - t0, time.process_time() - c0
                worker_cpu = workers_cpu(client) - before
            finally:
                engine.close()
        finally:
            cluster = client.cluster
            client.close()
            cluster.close()
        out[n] = (wall / tasks, client_cpu / tasks, worker_cpu / tasks)
        print(f"{n} worker(s): {1e3 * wall / tasks:.2f} ms wall per task ({tasks} tasks), client CPU "
              f"{1e3 * client_cpu / tasks:.2f} ms/task, worker CPU {1e3 * worker_cpu / tasks:.2f} ms/task; {load()}",
              flush=True)
    return out


def project(per_task_worker: float, per_task_client: float, micros: float, draws: float = 1e9,
            workers: int = 100) -> float:
    """Wall time of ``draws`` draws on ``workers`` single-threaded workers: each worker samples
    its share and pays the per-task cost once per chunk; the client handles every result in
    turn, so the run takes at least tasks x the client's cost per task."""
    tasks = draws / CHUNK
    per_worker = draws * micros * 1e-6 / workers + tasks / workers * per_task_worker
    return max(per_worker, tasks * per_task_client)


def _peak(run) -> tuple[float, float, float, object]:
    """(peak traced MB, peak resident-set growth MB, seconds, result) of run() in this process."""
    import psutil

    proc = psutil.Process()
    base_rss = proc.memory_info().rss
    peak_rss = [base_rss]
    stop = threading.Event()

    def watch():
        while not stop.is_set():
            peak_rss[0] = max(peak_rss[0], proc.memory_info().rss)
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        result = run()
    finally:
        wall = time.perf_counter() - t0
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        stop.set()
        watcher.join()
    return peak / 2**20, (peak_rss[0] - base_rss) / 2**20, wall, result


def memory() -> dict:
    """The client's memory for 10^6 and 10^7 draws (2 inputs) on 2 workers, beside the same
    audit without a cluster: a discrete randomizer (outputs come back as counts) and a
    real-valued one (exploration chunks come back as arrays; exploration stops growing at
    2 x 2^19 draws per input, shown by a third size)."""
    from ldpaudit.spec.randomizers import krr, laplace_mean

    cases = [("k-RR d=4, batch (discrete)", krr(d=4, epsilon=1), [0, 1], (10**6, 10**7)),
             ("Laplace mean, batch (real)", laplace_mean(M=1, epsilon=1), [-1.0, 1.0], (10**6, 10**7, 3 * 10**7))]
    client = start(2)
    out = {}
    try:
        for label, randomizer, domain, sizes in cases:
            for draws in sizes:
                kw = dict(domain=domain, epsilon=1.0, samples=draws // 2, batch=True, seed=0)
                traced, rss, wall, result = _peak(lambda: audit(randomizer, cluster=client, **kw))
                local = _peak(lambda: audit(randomizer, **kw))[0] if draws <= 10**7 else None
                out[(label, draws)] = (traced, rss, wall, local)
                print(f"{label}, {draws:.0e} draws: client peak traced {traced:.1f} MB (without a cluster: "
                      f"{'-' if local is None else f'{local:.1f} MB'}), resident-set growth {rss:.1f} MB, "
                      f"{wall:.1f} s, {result.verdict}; {load()}", flush=True)
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("parts", nargs="*", default=["overhead", "memory", "speed"])
    p.add_argument("--draws", type=int, default=2 * 10**6)
    p.add_argument("--micros", type=float, default=50.0)
    args = p.parse_args()
    print(f"{os.cpu_count()} cores; {load()}")
    cost = None
    if "overhead" in args.parts:
        cost = overhead()
        worker_task = cost[1][0]            # one worker: wall per task = its whole cost per task
        client_task = cost[2][1]            # the client's CPU per result
        t = project(worker_task, client_task, args.micros)
        print(f"projected 10^9 draws at {args.micros:g} µs on 100 workers: {t:,.0f} s = {t / 60:.1f} min "
              f"({1e9 / CHUNK:,.0f} tasks of {CHUNK} draws; per task {1e3 * worker_task:.2f} ms on a worker, "
              f"{1e3 * client_task:.2f} ms on the client; pure sampling alone: {1e9 * args.micros * 1e-6 / 100:,.0f} s)")
    if "memory" in args.parts:
        memory()
    if "speed" in args.parts:
        speed(args.draws, args.micros)


if __name__ == "__main__":
    main()
