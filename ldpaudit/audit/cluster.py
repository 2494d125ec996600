"""Sampling on a Dask cluster (``dask.distributed``), behind the same engine as local audits.

The auditor's work is chunks of draws, each from its own seed
``SeedSequence(audit seed, spawn_key=(phase, input index, chunk number))`` (draws.Draws.tasks);
here each chunk is one Dask task. A task samples its chunk on a worker, in the same isolated
worker process as a local audit (external.py) when the randomizer is one (a Python function
runs in a single-threaded child of the worker), and sends back counts: a confirmation chunk
the counts of the chosen events (engine.Tally, computed on the worker), an exploration chunk
its validated outputs (adapters.Outputs: discrete outputs as distinct values and counts; real
values as the chunk's array, exploration being capped at 2 x 2^19 draws per input). The
client consumes the results in chunk order, at most a few tasks per worker thread ahead, so
its memory does not grow with the number of draws, and the counts it adds up are those of a
local run: the same seed gives the same verdict, bound and witness on one process, N local
workers or a cluster.

- Where: ``cluster="tcp://host:8786"`` (a running scheduler), ``"local:N"`` (a LocalCluster
  of N single-threaded worker processes, for one machine) or a ``distributed.Client``.
- Probe: before any sampling, one task per worker loads the randomizer there (for an isolated
  target: starts its isolation worker and waits for the target to load, without calling it;
  for a ``--command`` program: finds the program). A worker that cannot is named in a
  one-line RandomizerError (exit 2). A worker that joins later probes itself on its first
  task of the audit (once per worker process) and fails it with the same message, before
  drawing; the number of tasks in flight follows the threads the cluster has.
- Each task also sends back the slowest randomizer call its worker has timed (the
  ``timeouts`` entry of the JSON, as a local run reports it). A ``--feature`` projection of
  an isolated target is rebuilt on the workers around their isolation worker.
- Journal: a chunk is written to the journal when its result arrives (journal.py: its
  outputs' counts, or a confirmation chunk's event counts); a resumed audit replays the stored
  chunks and submits only the missing ones. Every chunk has one task, keyed by
  (audit, phase, input, chunk number), whose result is taken once: a task that Dask re-runs
  after losing its worker replaces its result, it cannot add to it. A chunk whose sandbox
  supervisor is lost under a live worker runs once more elsewhere (cluster_retry.py).

Dask is imported only here, and this module only when ``cluster`` is given.
"""

from __future__ import annotations

import collections
import logging
import os
import re
import shutil
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field

import numpy as np

from ldpaudit.audit.adapters import Histogram, Outputs, Sampler, _outputs_from_batch, check_output_space, load_target
from ldpaudit.audit.cluster_retry import SupervisorLost, retry_lost, supervisor_lost
from ldpaudit.audit.draws import CHUNK, Draws, Progress, repeat_digest
from ldpaudit.errors import InvalidParameter, LdpAuditError, RandomizerError

#: tasks in flight per worker thread: enough to keep every thread busy while results travel
TASKS_PER_THREAD = 2
#: a counting task carries consecutive chunks up to about this many seconds of sampling (as
#: measured on the workers so far), at most MAX_GROUP_DRAWS draws: Dask's cost per task (about
#: 27 ms wall, 15 ms CPU in all, benchmarks/README.md) then stays small beside the draws
TASK_SECONDS = 0.5
MAX_GROUP_DRAWS = 64 * CHUNK
CONNECT_TIMEOUT = 10.0          # seconds to reach a scheduler
WORKERS_TIMEOUT = 60.0          # seconds to wait for a first worker to join
IDLE_CLOSE = 600.0              # a worker closes samplers unused this long (their client died)
WORKERS_LOOK = 1.0              # seconds between looks at the cluster's threads (late workers)

#: Dask settings for processes that only sample: a Dask worker's own housekeeping competes with
#: its sampling child for the core. With Dask's defaults an idle worker, its nanny and the
#: scheduler spend 13.7 % of a core (benchmarks/README.md, Cluster): the statistical profiler
#: walks the worker's threads every 10 ms (ours wait on a pipe to the sampling child, so the
#: profile says nothing), every event loop ticks every 20 ms, the system monitor polls psutil
#: every 0.5 s and the memory monitor every 0.1 s. ``local:N`` starts its workers with these;
#: for workers started by hand, set them as the environment variables of
#: :func:`sampling_environment` (README: On a Dask cluster). Only the dashboard's diagnostics
#: coarsen; scheduling and the results do not change.
SAMPLING_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}


def sampling_environment() -> dict[str, str]:
    """SAMPLING_CONFIG as the environment variables ``dask scheduler`` / ``dask worker`` read."""
    return {"DASK_" + key.upper().replace(".", "__").replace("-", "_"): str(value)
            for key, value in SAMPLING_CONFIG.items()}


@dataclass
class Connection:
    """Where to sample (``address``: a scheduler address, ``"local:N"`` or a
    ``distributed.Client``) and, for the CLI, the journal to record chunks in. After the
    audit, ``stats`` says how many chunks were submitted and replayed, on how many workers."""

    address: object
    journal: object = None
    stats: dict = field(default_factory=dict)


# -- what the workers run ------------------------------------------------------------------

@dataclass(frozen=True)
class Recipe:
    """How a worker builds the sampler: ``kind`` "external" (an isolated target or a
    ``--command`` program, started on the worker; ``payload`` its settings) or "pickled" (a
    Python function, cloudpickled; it must be importable there or defined in ``__main__``)."""

    token: str
    kind: str
    payload: object
    name: str
    batch: bool
    output_space: bytes | None
    digest: bool


_SAMPLERS: dict = {}            # on a worker: (recipe token, thread) -> (Sampler or _Child, last use)


def _build(recipe: Recipe):
    import cloudpickle

    space = cloudpickle.loads(recipe.output_space) if recipe.output_space is not None else None
    if recipe.kind == "external":
        from ldpaudit.audit.external import ExternalRandomizer, TimeoutPolicy

        p = dict(recipe.payload)
        argv = list(p["argv"])
        if p["worker"]:     # ldpaudit's isolation worker: this machine's Python
            argv[0] = sys.executable
        env = dict(os.environ)
        if p["hashseed"] is not None:
            env["PYTHONHASHSEED"] = p["hashseed"]
        randomizer = ExternalRandomizer(argv, policy=TimeoutPolicy(*p["policy"]), memory_mb=p["memory_mb"],
                                        chunk=p["chunk"], name=recipe.name, env=env, sandbox=p["sandbox"],
                                        worker=p["worker"])
        if p.get("feature") is not None:    # --feature: the same composition as projection.project
            from ldpaudit.audit.projection import project

            try:
                feature = cloudpickle.loads(p["feature"])
            except BaseException:
                randomizer.close()
                raise
            randomizer = project(randomizer, feature, batch=True)
        return Sampler(randomizer, batch=True, output_space=space, digest=recipe.digest)
    return Sampler(cloudpickle.loads(recipe.payload), batch=recipe.batch, output_space=space, digest=recipe.digest)


class _Child:
    """A Python function's sampler in a single-threaded child process of the Dask worker: a
    per-call randomizer draws from the process-wide ``random``/``numpy.random`` (seeded per
    chunk), and a Dask worker's own threads draw from ``random`` too (timer jitter, peer
    choice), which would change the draws. The pipe carries pickles between this process and
    its own child only."""

    def __init__(self, recipe: Recipe):
        import subprocess

        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)  # where the worker finds modules
        self.proc = subprocess.Popen([sys.executable, "-c", "from ldpaudit.audit.cluster import child_main; child_main()"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.randomizer = self
        try:
            self._ask(recipe)
        except BaseException:
            self.close()
            raise

    def _ask(self, message):
        import pickle

        try:
            pickle.dump(message, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.proc.stdin.flush()
            status, value = pickle.load(self.proc.stdout)
        except (OSError, EOFError, pickle.UnpicklingError):
            code = self.proc.poll()
            self.close()
            raise RandomizerError(f"the process sampling the randomizer on this worker ended (exit status {code})") \
                from None
        if status == "error":
            raise value
        return value

    def draw(self, x, n: int, seed: np.random.SeedSequence) -> Outputs:
        return self._ask(("draw", x, n, seed.entropy, tuple(seed.spawn_key)))

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except Exception:
                self.proc.kill()
                self.proc.wait()


def child_main() -> None:
    """The loop of :class:`_Child`: a recipe, then draw requests, one pickle each way."""
    import pickle

    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)           # what the randomizer prints goes to stderr, not into the pipe
    requests = sys.stdin.buffer

    def reply(status, value):
        try:
            data = pickle.dumps((status, value), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            data = pickle.dumps(("error", RandomizerError(f"cannot send back {type(value).__name__}: {exc}")))
        channel.write(data)
        channel.flush()

    try:
        sampler = _build(pickle.load(requests))
    except EOFError:
        return
    except Exception as exc:
        reply("error", exc if isinstance(exc, (ModuleNotFoundError, LdpAuditError)) else
              RandomizerError(f"{type(exc).__name__}: {exc}"))
        return
    reply("ok", None)
    while True:
        try:
            _, x, n, entropy, spawn_key = pickle.load(requests)
        except EOFError:
            return
        try:
            reply("ok", sampler.draw(x, n, np.random.SeedSequence(entropy, spawn_key=spawn_key)))
        except LdpAuditError as exc:
            reply("error", exc)
        except Exception as exc:
            reply("error", RandomizerError(f"{type(exc).__name__}: {exc}"))


def _unprojected(randomizer):
    """The randomizer under a --feature projection (projection.project), or itself."""
    return getattr(randomizer, "parts", (randomizer,))[0]


def _sampler(recipe: Recipe):
    key = (recipe.token, threading.get_ident())
    now = time.monotonic()
    entry = _SAMPLERS.get(key)
    if entry is None:
        for old in [k for k, (_, used) in list(_SAMPLERS.items()) if now - used > IDLE_CLOSE]:
            _close(_SAMPLERS.pop(old, (None, 0))[0])     # left by a client that died
            _PROBED.pop(old[0], None)
        entry = (_build(recipe) if recipe.kind == "external" else _Child(recipe), now)
    _SAMPLERS[key] = (entry[0], now)
    return entry[0]


def _close(sampler) -> None:
    close = getattr(getattr(sampler, "randomizer", None), "close", None)
    if close is not None:
        close()


_PROBED: dict = {}              # on a worker: recipe token -> this process's probe result


def _checked(recipe: Recipe):
    """The sampler of this worker thread, after this worker process passed the probe: the
    first task of an audit on a worker that joined after the start-up probe (or that Dask
    restarted) probes it here, and a worker that cannot load the randomizer fails every task
    of the audit with the start-up probe's one-line message, before drawing anything."""
    found = _PROBED.get(recipe.token)
    if found is None:
        found = _PROBED[recipe.token] = probe(recipe)
    if found["error"] is not None:
        try:
            from distributed import get_worker

            worker = get_worker()
            address, name = worker.address, worker.name
        except (ImportError, ValueError):   # not in a Dask worker (a direct call)
            address, name = f"pid {os.getpid()}", None
        raise RandomizerError(unfit_message(recipe.name, address, name, found))
    return _sampler(recipe)


def unfit_message(randomizer: str, address: str, name, found: dict) -> str:
    """The one line naming the worker that cannot load the randomizer, and why."""
    label = address if name is None or str(name) == address else f"{address} ({name})"
    module = found.get("module")
    if module:
        text = (f"randomizer {randomizer!r} is not importable on Dask worker {label}: no module "
                f"named {module!r} there; install it on every worker (the same Python environment) "
                f"or put its directory on the workers' PYTHONPATH")
    else:
        text = (f"randomizer {randomizer!r} cannot be loaded on Dask worker {label}: "
                f"{_one_line(found['error'], 400)}")
    return _one_line(text, 600)


def _draw(recipe: Recipe, x, n: int, entropy: int, spawn_key: tuple) -> tuple[Outputs, float | None]:
    """One chunk drawn from its seed, exactly as a local audit does, and the slowest call of
    the randomizer on this worker so far (an isolated target or a program; None otherwise).
    A lost sandbox supervisor drops this thread's sampler (the next task starts a new one) and
    raises :class:`SupervisorLost`."""
    sampler = _checked(recipe)
    try:
        out = sampler.draw(x, n, np.random.SeedSequence(entropy, spawn_key=spawn_key))
    except RandomizerError as exc:
        inner = _unprojected(getattr(sampler, "randomizer", None))
        if not supervisor_lost(inner):
            raise
        _close(_SAMPLERS.pop((recipe.token, threading.get_ident()), (sampler, 0))[0])
        try:
            from distributed import get_worker

            worker = get_worker().address
        except (ImportError, ValueError):
            worker = f"pid {os.getpid()}"
        raise SupervisorLost(str(exc), worker) from None
    return out, getattr(_unprojected(sampler.randomizer), "slowest", None)


def sample_chunk(recipe: Recipe, x, n: int, entropy: int, spawn_key: tuple) -> tuple[Outputs, float | None]:
    """The exploration task: (the chunk's outputs, the slowest call so far)."""
    return _draw(recipe, x, n, entropy, spawn_key)


_TALLIES: dict = {}             # on a worker: (recipe token, hash of the pickled tally) -> engine.Tally


def tally_chunk(recipe: Recipe, blob: bytes, x, n: int, entropy: int, spawn_key: tuple, index: int):
    """The confirmation task: draw one chunk and return (draws, its counts, the digest to
    compare across workers or None, the slowest call so far); the outputs stay on the worker."""
    import cloudpickle

    out, slowest = _draw(recipe, x, n, entropy, spawn_key)
    key = (recipe.token, hash(blob))
    tally = _TALLIES.get(key)
    if tally is None:
        for old in [k for k in list(_TALLIES) if k[0] == recipe.token]:
            _TALLIES.pop(old, None)     # an earlier phase of the same audit
        tally = _TALLIES[key] = cloudpickle.loads(blob)
    return out.n, tally(out, index), repeat_digest(out), slowest


def tally_chunks(recipe: Recipe, blob: bytes, tasks: list, indexes: list) -> tuple[list, float]:
    """Consecutive confirmation chunks in one task, each drawn from its own seed as alone:
    (the results of tally_chunk, in order; the seconds they took here)."""
    start = time.perf_counter()
    return [tally_chunk(recipe, blob, *task, index) for task, index in zip(tasks, indexes)], \
        time.perf_counter() - start


def probe(recipe: Recipe) -> dict:
    """The probe task: can this worker build the sampler (and load the target)? Nothing is
    drawn. Returns {"error": None or a one-line reason, "module": the missing module or None,
    "sandbox": how an isolated target is confined here}, remembered for this audit's tasks."""
    found = _PROBED[recipe.token] = _probe_here(recipe)
    return found


def _probe_here(recipe: Recipe) -> dict:
    out = {"error": None, "module": None, "sandbox": None}
    try:
        sampler = _sampler(recipe)
    except ModuleNotFoundError as exc:
        return {**out, "error": f"{type(exc).__name__}: {exc}", "module": exc.name}
    except Exception as exc:
        text = f"{type(exc).__name__}: {exc}"
        return {**out, "error": text, "module": _missing_module(text)}
    randomizer = _unprojected(sampler.randomizer)
    if recipe.kind == "external":
        if randomizer.worker:
            error = randomizer.load_error()
            if error is not None:
                release(recipe.token)
                return {**out, "error": error, "module": _missing_module(error)}
            out["sandbox"] = randomizer.describe()["sandbox"]
        else:
            program = randomizer.argv[0]
            if shutil.which(program) is None:
                return {**out, "error": f"program {program!r} is not found (PATH or path on this worker)"}
            missing = [a for a in recipe.payload["files"] if not os.path.isfile(a)]
            if missing:
                return {**out, "error": f"file {missing[0]!r} of the command does not exist here "
                                        f"(working directory {os.getcwd()!r})"}
    return out


def release(token: str) -> float:
    """Close this worker's samplers of one audit (their isolation workers end); returns the
    peak resident set size, in MiB, of this worker process and of the children it has waited
    for (its sampling children, just closed)."""
    import resource

    for key in [k for k in list(_SAMPLERS) if k[0] == token]:
        _close(_SAMPLERS.pop(key, (None, 0))[0])
    for key in [k for k in list(_TALLIES) if k[0] == token]:
        _TALLIES.pop(key, None)
    _PROBED.pop(token, None)
    from ldpaudit.budget import own_peak_mb

    own = own_peak_mb()
    if own is None:
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return max(own, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)


def _missing_module(text: str) -> str | None:
    m = re.search(r"No module named '([^']+)'", text)
    return m.group(1) if m else None


# -- the client ------------------------------------------------------------------------------

def recipe_of(sampler: Sampler, token: str) -> Recipe:
    """What the workers need to rebuild ``sampler``."""
    import cloudpickle

    from ldpaudit.audit.external import ExternalRandomizer

    r = sampler.randomizer
    space = cloudpickle.dumps(sampler.output_space) if sampler.output_space is not None else None
    feature = None
    if isinstance(_unprojected(r), ExternalRandomizer) and _unprojected(r) is not r:
        r, feature = r.parts
        try:
            feature = cloudpickle.dumps(feature)
        except Exception as exc:
            raise InvalidParameter(f"feature {_name(feature)!r} cannot be sent to a cluster: {type(exc).__name__}: "
                                   f"{exc}; define it at module level in an importable module") from None
    if isinstance(r, ExternalRandomizer):
        # files the command names (that exist here, or look like a path to a script)
        files = [] if r.worker else [a for a in r.argv[1:]
                                     if os.path.isfile(a) or (os.sep in a and os.path.splitext(a)[1])]
        payload = {"argv": r.argv, "policy": (r.policy.warmup, r.policy.floor, r.policy.factor),
                   "memory_mb": r.memory_mb, "chunk": r.chunk, "sandbox": r.sandbox, "worker": r.worker,
                   "hashseed": (r.env or {}).get("PYTHONHASHSEED"), "files": files, "feature": feature}
        return Recipe(token, "external", payload, r.name, True, space, False)
    try:
        payload = cloudpickle.dumps(r)
    except Exception as exc:
        raise InvalidParameter(f"randomizer {_name(r)!r} cannot be sent to a cluster: {type(exc).__name__}: "
                               f"{exc}; define it at module level in an importable module") from None
    # the same private generator copied into every worker repeats its draws: compare digests
    return Recipe(token, "pickled", payload, _name(r), sampler.batch, space, True)


def _name(randomizer) -> str:
    return getattr(randomizer, "__qualname__", None) or getattr(randomizer, "__name__", None) or repr(randomizer)


def absolute_target(target: str) -> str:
    """``file.py:function`` with the file's absolute path (workers start elsewhere); a class
    target's call may hold a ':' of its own (targets.split_target)."""
    from ldpaudit.audit.targets import split_target

    where, name = split_target(target)
    if (where.endswith(".py") or os.sep in where) and os.path.isfile(where):
        return f"{os.path.abspath(where)}:{name}"
    return target


class TargetFunction:
    """A ``module:function`` / ``file.py:function`` target loaded in this process and again,
    by name, wherever it is unpickled (on a worker), instead of being pickled by value."""

    def __init__(self, target: str, target_args: dict | None = None):
        self.target, self.target_args = absolute_target(target), dict(target_args or {})
        self.func = load_target(self.target, self.target_args)
        self.__name__ = self.__qualname__ = self.target

    def __call__(self, *args):
        return self.func(*args)

    def __reduce__(self):
        return TargetFunction, (self.target, self.target_args)


def _connect(address):
    """(client, cluster we started or None, whether we own the client)."""
    try:
        import distributed
    except ImportError:
        raise InvalidParameter("cluster: dask.distributed is not installed; pip install 'ldpaudit[cluster]'") from None
    if isinstance(address, distributed.Client):
        return address, None, False
    if not isinstance(address, str) or not address.strip():
        raise InvalidParameter(f"cluster={address!r}: give a scheduler address (tcp://host:8786), local:N or a "
                               f"distributed.Client")
    address = address.strip()
    if address.startswith("local:"):
        text = address.partition(":")[2]
        if not text.isdigit() or not 1 <= int(text) <= 512:
            raise InvalidParameter(f"--cluster {address!r}: local:N needs a number of worker processes N "
                                   f"between 1 and 512, e.g. local:4")
        import dask

        with dask.config.set(SAMPLING_CONFIG):  # read by the scheduler and copied to the workers here
            cluster = distributed.LocalCluster(n_workers=int(text), threads_per_worker=1, processes=True,
                                               dashboard_address=":0", silence_logs=logging.CRITICAL)
        try:
            return distributed.Client(cluster), cluster, True
        except BaseException:
            cluster.close()
            raise
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise InvalidParameter(f"--cluster {address!r}: no Dask scheduler answers there ({type(exc).__name__}: "
                               f"{str(exc).splitlines()[0] if str(exc) else ''}); start one with `dask scheduler` "
                               f"and workers with `dask worker {address}`") from None
    try:
        client.wait_for_workers(1, timeout=WORKERS_TIMEOUT)
    except (TimeoutError, OSError):
        client.close()
        raise InvalidParameter(f"--cluster {address!r}: the scheduler has no workers after {WORKERS_TIMEOUT:g} s; "
                               f"start some with `dask worker {address}`") from None
    return client, None, True


def _workers(client) -> dict:
    try:
        info = client.scheduler_info(n_workers=-1)
    except TypeError:   # dask before 2025: every worker by default
        info = client.scheduler_info()
    return info["workers"]


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


class ClusterDraws(Draws):
    """draws.Draws with every chunk sampled by a Dask task (see the module docstring)."""

    def __init__(self, sampler: Sampler, seed, progress: Progress, cluster):
        super().__init__(sampler, seed, 1, progress)
        self.connection = cluster if isinstance(cluster, Connection) else Connection(cluster)
        self.journal = self.connection.journal
        self.token = uuid.uuid4().hex[:16]
        self.recipe = recipe_of(sampler, self.token)
        self.client, self.local_cluster, self.own_client = _connect(self.connection.address)
        self.futures: collections.deque = collections.deque()
        self._calls: dict = {}                  # task key -> (function, arguments), to submit it again
        self.submitted = self.replayed = 0
        self.slowest: float | None = None      # the slowest randomizer call any worker reported
        self.per_draw: float | None = None     # seconds per draw of the counting tasks so far
        self.started = time.perf_counter()
        try:
            self.workers = self._probe()
        except BaseException:
            self.close()
            raise
        threads = sum(int(w.get("nthreads", 1)) for w in self.workers.values())
        self.window = max(2, TASKS_PER_THREAD * threads)
        self.next_look = time.monotonic() + WORKERS_LOOK
        progress.note = f" across {len(self.workers)} worker{'s' if len(self.workers) != 1 else ''}"
        self.connection.stats.update(address=self._address(), workers=len(self.workers), threads=threads)

    def _address(self) -> str:
        address = self.connection.address
        if isinstance(address, str):
            return address
        return str(getattr(getattr(self.client, "scheduler", None), "address", address))

    def _probe(self) -> dict:
        """One probe task per worker; a worker that cannot load the randomizer stops the audit."""
        workers = _workers(self.client)
        futures = {addr: self.client.submit(probe, self.recipe, workers=[addr], allow_other_workers=False,
                                            pure=False, key=f"ldpaudit-probe-{self.token}-{i}")
                   for i, addr in enumerate(workers)}
        wait = float(self.recipe.payload["policy"][0]) + 60 if self.recipe.kind == "external" else 120.0
        for addr, future in futures.items():
            try:
                found = future.result(timeout=wait)
            except LdpAuditError:
                raise
            except Exception as exc:    # the task itself could not be unpickled or run there
                missing = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
                found = {"error": f"{type(exc).__name__}: {exc}", "module": missing}
            if found["error"] is not None:
                raise RandomizerError(unfit_message(self.recipe.name, addr, workers[addr].get("name"), found))
            if found.get("sandbox"):
                self.connection.stats["sandbox"] = found["sandbox"]
        return workers

    def _follow_workers(self) -> None:
        """Every WORKERS_LOOK seconds, size the window to the threads the cluster has now:
        workers that join later (adaptive clusters, job queues) get tasks too; each probes
        itself on its first task (_checked)."""
        now = time.monotonic()
        if now < self.next_look:
            return
        self.next_look = now + WORKERS_LOOK
        try:
            nthreads = self.client.nthreads()
        except Exception:   # the scheduler is gone: the next result says so
            return
        self.window = max(2, TASKS_PER_THREAD * sum(nthreads.values()))
        stats = self.connection.stats     # the most workers and threads seen during the audit
        stats["workers"] = max(stats.get("workers", 0), len(nthreads))
        stats["threads"] = max(stats.get("threads", 0), sum(nthreads.values()))

    def _key(self, task) -> str | None:
        if self.journal is None:
            return None
        x, n, entropy, spawn_key = task
        return self.journal.key(x, n, np.random.SeedSequence(entropy, spawn_key=spawn_key))

    def draw(self, jobs):
        """Yields (input index, Outputs) in job order, like Draws.draw."""
        for index, _, out in self._results(jobs, None):
            yield index, out

    def tally(self, jobs, tally):
        """Yields (input index, counts) in job order, the counts computed by ``tally`` on the
        worker that drew the chunk (engine.Tally: confirmation sends back counts only)."""
        import cloudpickle

        for c in getattr(tally, "chosen", ()):
            c.event.description     # resolved here: the function describing it holds the exploration sample
        try:
            blob = cloudpickle.dumps(tally)
        except Exception:   # something in the events cannot travel: count here
            yield from super().tally(jobs, tally)
            return
        shipped = self.client.scatter(blob, broadcast=True)     # once per worker, not per task
        try:
            for index, _, row in self._results(jobs, (shipped, tally)):
                yield index, row
        finally:
            shipped.release()

    def _results(self, jobs, tally):
        """(input index, draws, Outputs or tally row) of every job, in job order: replayed
        from the journal, or computed by a task, at most ``window`` tasks ahead. Counting
        tasks carry consecutive chunks, about ``TASK_SECONDS`` of sampling (10^9 draws: a few
        hundred tasks, not 15,000), so
        that the scheduler's cost per task stays small beside the draws; each chunk keeps its
        own seed and journal entry, so the counts are those of one task per chunk."""
        queue = collections.deque()     # ([(input index, task, journal key)], future or None: replay)
        source = ((job, self.task(job)) for job in jobs)     # lazy: jobs may be an iterator
        pending = None                  # an item read ahead that did not fit in the last group
        in_flight = 0

        def stored(key) -> bool:
            return key is not None and (self.journal.has(key) or (tally is not None and self.journal.has_tally(key)))

        def take():
            nonlocal pending
            item, pending = (pending, None) if pending is not None else (next(source, None), None)
            return item

        def fill():
            nonlocal in_flight, pending
            self._follow_workers()
            while in_flight < self.window:
                item = take()
                if item is None:
                    return
                (index, *_), task = item
                key = self._key(task)
                if stored(key):
                    queue.append(([(index, task, key)], None))
                    continue
                phase, i, k = task[3]
                name = f"ldpaudit-{self.token}-{phase}-{i}-{k}"
                if tally is None:
                    call = (sample_chunk, (self.recipe, *task))
                    future = self.client.submit(call[0], *call[1], pure=False, key=name)
                    group = [(index, task, key)]
                else:
                    group, draws = [(index, task, key)], task[1]
                    limit = self._group_draws()
                    while draws < limit:
                        nxt = take()
                        if nxt is None:
                            break
                        (index2, *_), task2 = nxt
                        key2 = self._key(task2)
                        if stored(key2) or draws + task2[1] > limit:
                            pending = nxt
                            break
                        group.append((index2, task2, key2))
                        draws += task2[1]
                    call = (tally_chunks, (self.recipe, tally[0], [t for _, t, _ in group], [ix for ix, _, _ in group]))
                    future = self.client.submit(call[0], *call[1], pure=False, key=f"{name}-tally-{len(group)}")
                self._calls[future.key] = call     # to submit again if its sandbox supervisor is lost
                self.futures.append(future)
                queue.append((group, future))
                in_flight += 1
                self.submitted += len(group)

        fill()
        while queue:
            group, future = queue.popleft()
            if future is None:
                (index, task, key), = group
                x, n = task[0], task[1]
                results = [(index, n, self._replay(x, n, key, index, tally))]
                self.replayed += 1
            else:
                try:
                    value = self._result(future, group)
                except LdpAuditError:
                    raise
                except Exception as exc:    # KilledWorker, a lost scheduler, a cancelled task
                    index, task, _ = group[0]
                    raise RandomizerError(_one_line(
                        f"the Dask cluster failed to sample chunk {task[3]} of input {task[0]!r}: "
                        f"{type(exc).__name__}: {exc}; with --journal DIR, --resume DIR continues", 600)) from exc
                self.futures.remove(future)
                self._calls.pop(future.key, None)
                future.release()
                in_flight -= 1
                if tally is not None:
                    values, seconds = value
                    self._timed(sum(t[1] for _, t, _ in group), seconds)
                else:
                    values = [value]
                results = []
                for (index, task, key), result in zip(group, values):
                    x, n = task[0], task[1]
                    if result[-1] is not None:     # the slowest call on that worker so far
                        self.slowest = max(self.slowest or 0.0, float(result[-1]))
                    if tally is None:
                        result = result[0]
                        if key is not None:
                            self._record(key, result)
                        if self.recipe.digest:
                            self._check_duplicate(x, result)
                    else:
                        n, result, digest, _ = result
                        if key is not None:
                            self.journal.store_tally(key, result)
                        if self.recipe.digest:
                            self._check_digest(x, n, digest)
                    results.append((index, n, result))
            fill()
            for index, n, result in results:
                self.progress.advance(n)
                yield index, n, result

    def _result(self, future, group):
        """The future's value; a chunk whose sandbox supervisor was lost is run once more
        (cluster_retry.py)."""
        return retry_lost(self.client, future, group, self._calls[future.key], self.connection.stats,
                          lambda: _workers(self.client))

    def _timed(self, draws: int, seconds: float) -> None:
        rate = seconds / max(1, draws)
        self.per_draw = rate if self.per_draw is None else 0.5 * (self.per_draw + rate)

    def _group_draws(self) -> int:
        """Draws one counting task may carry: one chunk until a task has been timed, then
        about TASK_SECONDS of sampling."""
        if not self.per_draw:
            return CHUNK
        return int(min(MAX_GROUP_DRAWS, max(CHUNK, TASK_SECONDS / self.per_draw)))

    def _record(self, key: str, out: Outputs) -> None:
        """Discrete outputs as their distinct values and counts, like an isolated local run."""
        self.journal.store(key, Histogram(out.values, out.counts, out.n) if out.kind == "objects" else out.values)

    def _replay(self, x, n: int, key: str, index: int, tally):
        if tally is not None and self.journal.has_tally(key):
            return self.journal.load_tally(key)
        out = _outputs_from_batch(x, self.journal.load(key), n)
        if self.sampler.output_space is not None:
            check_output_space(x, out, self.sampler.output_space)
        return out if tally is None else tally[1](out, index)

    def close(self):
        futures, self.futures = list(self.futures), collections.deque()
        seconds = time.perf_counter() - self.started
        self.connection.stats.update(chunks_submitted=self.submitted, chunks_replayed=self.replayed,
                                     seconds=seconds, slowest_call_s=self.slowest)
        client = getattr(self, "client", None)
        if client is None:
            return
        try:
            if futures:
                client.cancel(futures)
            peaks = client.run(release, self.token)
            if peaks:
                self.connection.stats["worker_peak_mb"] = round(max(float(v) for v in peaks.values()), 1)
        except Exception:
            pass    # a scheduler that is gone has nothing left to release
        finally:
            if self.own_client:
                client.close()
            if self.local_cluster is not None:
                self.local_cluster.close()
            self.client = None
