"""`ldpaudit check specs/` (the README's first command) with one process against `--jobs N`, in
the same run: wall time of each whole command (a fresh interpreter each, best of 2) and the peak
resident memory of its process tree (the largest child, from wait4), and whether the rows agree.

    python benchmarks/bench_check.py [--jobs 2]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(jobs: int) -> tuple[float, float, dict]:
    import tempfile

    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "ldpaudit", "check", "specs", "--json", "--jobs", str(jobs)],
                                cwd=ROOT, stdout=out, stderr=subprocess.DEVNULL, text=True)
        _, _, usage = os.wait4(proc.pid, 0)      # the process and the descendants it waited for
        wall = time.perf_counter() - start
        out.seek(0)
        return wall, usage.ru_maxrss / 1024, json.loads(out.read())


def rows_without_timings(payload: dict) -> list:
    rows = payload["specs"]
    for r in rows:
        for stage in r["stages"].values():
            stage.pop("seconds", None)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=2)
    jobs = parser.parse_args().jobs
    results = {}
    for n in (1, jobs):
        best = None
        for _ in range(2):
            wall, peak, payload = run(n)
            if best is None or wall < best[0]:
                best = (wall, peak, payload)
        results[n] = best
    same = rows_without_timings(results[1][2]) == rows_without_timings(results[jobs][2])
    print("| jobs | wall (best of 2) | largest process peak RSS | specs | verdict |")
    print("|---|---|---|---|---|")
    for n, (wall, peak, payload) in results.items():
        print(f"| {n} | {wall:.1f} s | {peak:.0f} MB | {len(payload['specs'])} | {payload['verdict']} |")
    print(f"\nspeed-up {results[1][0] / results[jobs][0]:.2f}x; rows identical apart from timings: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
