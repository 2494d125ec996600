"""Shuffling amplification at n = 10^6 (issue 18 item 3): the generic clone bound of Feldman,
McMillan & Talwar for one (ε0, δ), against the obvious baseline measured in the same run,
Apple's reference implementation (``computeamplification.py`` from the PyPI package
ldp-hierarchical-mechanism 0.1.3, downloaded by pip without dependencies; skipped with a note
when pip cannot reach the registry), then the whole ``amplify`` of a spec (every bound).
Records wall and CPU seconds and peak memory (tracemalloc for Python allocations, ru_maxrss for
the process). Last, the whole command ``ldpaudit amplify specs/krr.toml -p d=8 -p epsilon=1
--n 1000000 --delta 1e-8 --json`` in a fresh process, against the same command at the commit
before the split-off blanket (``BASELINE``, extracted with git archive) in the same run: wall,
CPU and peak RSS of each child (os.wait4), best of three, and the answers.

    PYTHONPATH=. python benchmarks/bench_amplify.py
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the commit before the amplify speed-up (three-class blanket with a 2 s time budget)
BASELINE = "3d224cd"
COMMAND = ["amplify", "specs/krr.toml", "-p", "d=8", "-p", "epsilon=1", "--n", "1000000", "--delta", "1e-8", "--json"]


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _timed(fn, *args, traced: bool = True, **kwargs):
    """(value, wall s, CPU s, peak traced MB): timed untraced (tracemalloc slows Python code
    several-fold), then run again under tracemalloc for the peak when ``traced``."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn(*args, **kwargs)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = float("nan")
    if traced:
        tracemalloc.start()
        fn(*args, **kwargs)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return value, wall, cpu, peak


def _reference(tmp: Path):
    sys.path.insert(0, str(ROOT / "tests" / "data"))
    try:
        import make_fmt_reference as maker
    finally:
        sys.path.pop(0)
    wheel = maker.download(tmp)
    module, _, file_sha = maker.load_reference(wheel, tmp)
    return module, file_sha


def main() -> None:
    from ldpaudit.account.amplify import amplify
    from ldpaudit.account.shuffle import generic_epsilon
    from ldpaudit.mechanism.loader import load_bound

    n, eps0, delta = 10**6, 1.0, 1e-8
    generic_epsilon(eps0, 1000, delta)  # imports and first-call set-up out of the timing
    ours, wall, cpu, peak = _timed(generic_epsilon, eps0, n, delta)
    print(f"generic FMT bound, eps0 = {eps0}, n = {n:,}, delta = {delta:g}: eps = {ours:.9f}; "
          f"{wall:.2f} s wall, {cpu:.2f} s CPU, peak {peak:.1f} MB traced, RSS {_rss_mb():.0f} MB")
    with tempfile.TemporaryDirectory() as tmp:
        try:
            module, sha = _reference(Path(tmp))
        except Exception as exc:  # noqa: BLE001 - the baseline is optional: say why it is missing
            print(f"reference not run: {type(exc).__name__}: {exc}")
            module = None
        if module is not None:
            for iterations in (10, 20):
                ref, rwall, rcpu, _ = _timed(module.numericalanalysis, n, eps0, delta, iterations, 100, True,
                                             traced=False)
                print(f"reference computeamplification.py (sha256 {sha[:12]}..., num_iterations={iterations}, "
                      f"step=100): eps = {ref:.9f}; {rwall:.2f} s wall, {rcpu:.2f} s CPU; "
                      f"time ratio reference/ours {rwall / wall:.1f}x; eps ratio ours/reference {ours / ref:.4f}")
    for params in (("d=2", "epsilon=1"), ("d=8", "epsilon=1")):
        mech = load_bound("krr", list(params))
        result, wall, cpu, peak = _timed(amplify, mech, n, delta, traced=False)
        parts = ", ".join(f"{k} {v:.2f} s" for k, v in result.seconds.items())
        print(f"amplify krr {' '.join(params)} at n = {n:,}: upper {result.epsilon_upper:.6f} (generic "
              f"{result.epsilon_generic:.6f}, channel clone {result.epsilon_channel:.6f}, blanket "
              f"{result.epsilon_blanket:.6f}), lower {result.epsilon_lower:.6f}; {wall:.2f} s wall, {cpu:.2f} s CPU "
              f"({parts}), RSS {_rss_mb():.0f} MB")


def _command(checkout: Path) -> tuple[dict, float, float, float]:
    """(JSON, wall s, CPU s, peak RSS MB) of ``python -m ldpaudit COMMAND`` run in ``checkout``."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    wall = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "ldpaudit", *COMMAND], cwd=checkout, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - wall
    proc.returncode = os.waitstatus_to_exitcode(status)
    return json.loads(out), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def whole_command() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "baseline"
        base.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", BASELINE], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        runs = {"baseline": base, "this code": ROOT}
        best = {}
        for _ in range(3):
            for label, checkout in runs.items():
                data, wall, cpu, rss = _command(checkout)
                if label not in best or wall < best[label][1]:
                    best[label] = (data, wall, cpu, rss)
        print(f"whole command: ldpaudit {' '.join(COMMAND)} (best of 3, fresh process each)")
        for label, (data, wall, cpu, rss) in best.items():
            stopped = any("stopped" in note for note in data["notes"])
            print(f"  {label}: {wall:.2f} s wall, {cpu:.2f} s CPU, peak RSS {rss:.0f} MB; epsilon_upper "
                  f"{data['epsilon_upper']:.7f}, epsilon_blanket {data['epsilon_blanket']:.7f}, generic "
                  f"{data['epsilon_generic']:.9f}{' (blanket stopped at its time budget)' if stopped else ''}")
        (_, w0, c0, _), (_, w1, c1, _) = best["baseline"], best["this code"]
        print(f"  ratio baseline/this code: wall {w0 / w1:.2f}x, CPU {c0 / c1:.2f}x")


if __name__ == "__main__":
    if "--command-only" not in sys.argv:
        main()
    whole_command()
