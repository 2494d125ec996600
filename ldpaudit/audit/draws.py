"""Reproducible sampling for the audits: draws split into chunks, each from its own seed
``SeedSequence(audit seed, spawn_key=(phase, input index, chunk number))``, run in this process
or in a pool of local worker processes, in a fixed order, so that the same seed gives the same
draws whatever the number of workers; and the progress bar they advance.

In this process, consecutive chunks are drawn as a :class:`Block` (up to ``BLOCK_CELLS`` output
cells): an isolated randomizer draws them in one exchange with its worker, and a tally that can
count a whole block at once (``tally.block``) does, so that the cost per chunk stays small beside
the draws when each input has only a few hundred (10^5 inputs × 10^3 draws).

The engine (engine.py) runs its audits on these; the Dask cluster (cluster.py) extends
:class:`Draws` with one task per chunk. Both import this module, which imports neither.
"""
from __future__ import annotations

import itertools
import multiprocessing
import operator
import time
from typing import Iterator

import numpy as np

from ldpaudit.audit.adapters import FlatChunks, Outputs, Sampler
from ldpaudit.errors import RandomizerError

_FIRST, _SECOND, _THIRD, _FOURTH = (operator.itemgetter(i) for i in range(4))
CHUNK = 1 << 16                 # draws per task; seeds are per chunk, so results do not depend on workers
_POOL_BLOCK = 4096              # jobs handed to a local pool at once
BLOCK_CELLS = 1 << 20           # output cells (draws x columns) of the chunks drawn as one block, at most
BLOCK_JOBS = 1024               # chunks drawn as one block, at most


def chunks(n: int, first: int | None = None, size: int = CHUNK) -> list[int]:
    """Split n draws into tasks of at most ``size`` (the first of size ``first`` when given)."""
    sizes = []
    if first is not None and n > 0:
        sizes.append(min(first, n))
        n -= sizes[0]
    while n > 0:
        sizes.append(min(size, n))
        n -= sizes[-1]
    return sizes


_WORKER_SAMPLER: Sampler | None = None


def _worker_init(sampler: Sampler) -> None:
    global _WORKER_SAMPLER
    _WORKER_SAMPLER = sampler


def _worker_draw(task):
    x, n, entropy, key = task
    return _WORKER_SAMPLER.draw(x, n, np.random.SeedSequence(entropy, spawn_key=key))


def _local_draw(sampler: Sampler, task):
    x, n, entropy, key = task
    return sampler.draw(x, n, np.random.SeedSequence(entropy, spawn_key=key))


class Progress:
    """A rich progress bar that appears only once a run has lasted about a second."""

    def __init__(self, enabled, total: int = 0):
        self.callback = enabled if callable(enabled) else None
        self.enabled = bool(enabled)
        self.total = total
        self.done = 0
        self.start = time.perf_counter()
        self.bar = None
        self.task = None
        self.note = ""          # after the draws per second, e.g. " across 8 workers"

    def add_total(self, extra: int) -> None:
        self.total += extra
        if self.bar is not None:
            self.bar.update(self.task, total=self.total)

    def advance(self, n: int) -> None:
        self.done += n
        if self.callback is not None:
            self.callback(self.done, self.total)
            return
        if not self.enabled:
            return
        if self.bar is None and time.perf_counter() - self.start > 1.0:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TimeRemainingColumn

            from rich.progress import ProgressColumn
            from rich.text import Text

            note = self.note

            class Rate(ProgressColumn):
                def render(self, task):
                    speed = task.speed
                    return Text(f"{speed:,.0f} draws/s{note}" if speed else "")

            self.bar = Bar("auditing", BarColumn(), MofNCompleteColumn(), Rate(), TimeRemainingColumn(),
                           transient=True)
            self.bar.start()
            self.task = self.bar.add_task("audit", total=self.total, completed=self.done)
        elif self.bar is not None:
            self.bar.update(self.task, completed=self.done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _consecutive(inputs, start: int) -> bool:
    """Whether ``inputs`` are the integers start, start + 1, ... (not booleans), in order;
    checked in C loops (10^6 inputs: milliseconds)."""
    types = set(map(type, inputs))
    if not all(issubclass(t, (int, np.integer)) and not issubclass(t, (bool, np.bool_)) for t in types):
        return False
    return list(inputs) == list(range(start, start + len(inputs)))


class Positions:
    """Each input's position in the domain (``positions[x]``) and back (``positions.at(i)``),
    without a dict when the inputs are consecutive integers: 10^6 inputs cost nothing to keep,
    nor to send to a cluster's workers. ``inputs`` is the domain in order (a range then)."""

    def __init__(self, inputs):
        self.n = len(inputs)
        ints = self.n > 0 and all(isinstance(u, (int, np.integer)) and not isinstance(u, (bool, np.bool_))
                                  for u in (inputs[0], inputs[-1]))
        self.start = int(inputs[0]) if ints else None
        if ints and (isinstance(inputs, range) and inputs.step == 1 or _consecutive(inputs, self.start)):
            self.values = None
            self.inputs = range(self.start, self.start + self.n)
        else:
            self.values = list(inputs)
            self.position = {u: i for i, u in enumerate(self.values)}
            self.inputs = self.values

    def __getitem__(self, u) -> int:
        if self.values is not None:
            return self.position[u]
        i = int(u) - self.start
        if not 0 <= i < self.n:
            raise KeyError(u)
        return i

    def __len__(self) -> int:
        return self.n

    def at(self, i: int):
        return self.start + int(i) if self.values is None else self.values[i]

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("position", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self.values is not None:
            self.position = {u: i for i, u in enumerate(self.values)}


class ByPosition:
    """position -> input of a :class:`Positions` (``by_index[i]``), for the tallies."""

    def __init__(self, positions: Positions):
        self.positions = positions

    def __getitem__(self, i: int):
        return self.positions.at(i)


class Block:
    """Consecutive chunks drawn together: the input index, input, number of draws and Outputs
    of each (``outs[i]``, made when asked for where the sampler can)."""

    __slots__ = ("indices", "inputs", "counts", "outs", "_flat")

    def __init__(self, indices: list, inputs: list, counts: list[int], outs):
        self.indices, self.inputs, self.counts, self.outs = indices, inputs, counts, outs
        self._flat = False

    def sizes(self) -> list[int]:
        return self.counts

    def flat(self) -> np.ndarray | None:
        """The values of every chunk back to back, when all are 1-d arrays of one dtype (as an
        isolated randomizer sends them: no copy), else None."""
        if self._flat is False:
            flat = self.outs.flat if isinstance(self.outs, FlatChunks) else None
            if flat is None:
                values = [out.values if out.kind == "array" else None for out in self.outs]
                ok = all(v is not None and v.ndim == 1 and v.dtype == values[0].dtype for v in values)
                flat = (np.concatenate(values) if len(values) > 1 else values[0]) if ok else None
            self._flat = flat
        return self._flat

    def narrow(self) -> tuple[np.ndarray | None, np.dtype | None]:
        """The values of :meth:`flat` in the smaller dtype they travelled in, and the dtype they
        stand for, when an isolated randomizer sent them so (nothing widened); else (None, None)."""
        narrow = self.outs.narrow if isinstance(self.outs, FlatChunks) else None
        return (narrow, self.outs.dtype) if narrow is not None else (None, None)


class ChunkTasks:
    """The tasks (x, n, entropy, (phase, index, k)) of a block of chunks of distinct inputs of
    one phase, held as columns: the inputs, their draws and the spawn keys as an int64 table.
    An isolated randomizer reads the columns (its seeds from the key table at once,
    wire.request_seeds); the tuples are made only when a task is asked for."""

    __slots__ = ("inputs", "counts", "entropy", "phase", "indices", "_at", "_ks", "_tuples")

    def __init__(self, inputs: list, counts: list, entropy, phase: int, indices: list, at: np.ndarray,
                 ks: np.ndarray):
        self.inputs, self.counts, self.entropy, self.phase, self.indices = inputs, counts, entropy, phase, indices
        self._at, self._ks, self._tuples = at, ks, None

    def key_table(self) -> np.ndarray:
        """The spawn keys (phase, index, k), one int64 row per task."""
        table = np.empty((len(self.inputs), 3), dtype=np.int64)
        table[:, 0], table[:, 1], table[:, 2] = self.phase, self._at, self._ks
        return table

    def _list(self) -> list:
        if self._tuples is None:
            entropy, phase = self.entropy, self.phase
            self._tuples = [(x, n, entropy, (phase, index, k)) for x, n, index, k in
                            zip(self.inputs, self.counts, self.indices, self._ks.tolist())]
        return self._tuples

    def __len__(self) -> int:
        return len(self.inputs)

    def __getitem__(self, i):
        return self._list()[i]

    def __iter__(self):
        return iter(self._list())


class Draws:
    """Runs draws in the calling process or in a pool, in a fixed order, from per-chunk seeds
    keyed by (phase, input index, chunk number): the same seed gives the same draws whatever
    the number of workers."""

    def __init__(self, sampler: Sampler, seed: int, workers: int, progress: Progress):
        self.sampler = sampler
        self.entropy = np.random.SeedSequence().entropy if seed is None else int(seed)
        self.progress = progress
        self.pool = None
        self.width = 1                # the widest output seen (columns): sizes the blocks
        self.chunk_no: dict = {}      # phase -> chunks drawn so far, a list by input position
        self.digests: set = set()
        if workers > 1:
            ctx = multiprocessing.get_context("fork")
            sampler.digest = True
            self.pool = ctx.Pool(workers, initializer=_worker_init, initargs=(sampler,))

    def _counts(self, phase, size: int) -> np.ndarray:
        """The chunk numbers of a phase by input position, at least ``size`` of them."""
        counts = self.chunk_no.get(phase)
        if counts is None or counts.size < size:
            grown = np.zeros(max(size, 2 * (0 if counts is None else counts.size), 64), dtype=np.int64)
            if counts is not None:
                grown[:counts.size] = counts
            counts = self.chunk_no[phase] = grown
        return counts

    def task(self, job: tuple[int, object, int, int]) -> tuple:
        """(input, draws, entropy, spawn key) of a job (input index, input, draws, phase): the
        chunk's seed is SeedSequence(entropy, spawn_key=(phase, input index, chunk number)), the
        chunk number counting the input's earlier chunks of that phase (an int64 array by input
        position: 8 MB per phase at 10^6 inputs, where a dict of tuples took ~150 MB)."""
        index, x, n, phase = job
        counts = self._counts(phase, int(index) + 1)
        k = int(counts[index])
        counts[index] = k + 1
        return x, n, self.entropy, (phase, index, k)

    def tasks(self, jobs: list) -> list[tuple]:
        """The tasks of a list of jobs (see :meth:`task`); the chunk numbers of a block of
        distinct inputs of one phase at once."""
        if len(jobs) < 8:
            return [self.task(job) for job in jobs]
        indices = list(map(_FIRST, jobs))
        phases = set(map(_FOURTH, jobs))
        if len(phases) != 1 or len(set(indices)) != len(indices):
            return [self.task(job) for job in jobs]
        phase = phases.pop()
        at = np.asarray(indices, dtype=np.int64)
        counts = self._counts(phase, int(at.max()) + 1)
        ks = counts[at]
        counts[at] = ks + 1
        return ChunkTasks(list(map(_SECOND, jobs)), list(map(_THIRD, jobs)), self.entropy, phase, indices, at, ks)

    def draw(self, jobs) -> Iterator[tuple[int, Outputs]]:
        """jobs: (input index, input, draws, phase) chunks, a list or an iterator (read as it
        goes, so that 10^6 inputs' jobs are never listed at once); yields (input index,
        Outputs) in order."""
        if self.pool is None:
            for block in self._blocks(jobs):
                for job, out in zip(block, self._draw_block(block)):
                    yield job[0], out
            return
        jobs = iter(jobs)
        while True:
            block = list(itertools.islice(jobs, _POOL_BLOCK))
            if not block:
                return
            for (index, x, *_), out in zip(block, self.pool.imap(_worker_draw, self.tasks(block))):
                self._check_duplicate(x, out)
                self.progress.advance(out.n)
                yield index, out

    def _blocks(self, jobs) -> Iterator[list]:
        """Consecutive jobs in groups of at most BLOCK_JOBS chunks and BLOCK_CELLS output cells
        (at the widest output seen so far), read as they go: as many jobs as the first one's
        size allows, fewer when the later ones are larger."""
        jobs = iter(jobs)
        pending: list = []
        while True:
            if not pending:
                first = next(jobs, None)
                if first is None:
                    return
                pending = [first]
            width = self.width
            room = max(1, min(BLOCK_JOBS, BLOCK_CELLS // max(1, pending[0][2] * width)))
            block = pending + list(itertools.islice(jobs, max(0, room - len(pending))))
            pending = []
            if sum(map(_THIRD, block)) * width > BLOCK_CELLS and len(block) > 1:
                cells, cut = 0, 0
                for cut, job in enumerate(block):
                    cells += job[2] * width
                    if cells > BLOCK_CELLS and cut:
                        break
                else:
                    cut = len(block)
                block, pending = block[:cut], block[cut:]
            yield block

    def _draw_block(self, block: list) -> list[Outputs]:
        tasks = self.tasks(block)
        outs = self.sampler.draw_block(tasks)
        if not isinstance(outs, FlatChunks):     # else: 1-d arrays, one flat array
            for out in outs:
                if out.kind == "array" and out.values.ndim == 2 and out.values.shape[1] > self.width:
                    self.width = out.values.shape[1]
        self.progress.advance(sum(tasks.counts) if isinstance(tasks, ChunkTasks) else sum(map(_SECOND, tasks)))
        return outs

    def tally(self, jobs: list[tuple[int, object, int, int]], tally: Callable) -> Iterator[tuple[int, np.ndarray]]:
        """Like :meth:`draw`, but yields (input index, ``tally(outputs, input index)``): the
        counts of a chunk rather than its outputs (a cluster computes them on its workers). A
        tally that counts a block at once (``tally.block(Block)``, the sum of its chunks' rows)
        is given the blocks drawn in this process: one row per block, with the index of its
        last chunk."""
        count_block = getattr(tally, "block", None)
        if self.pool is not None or count_block is None:
            for i, out in self.draw(jobs):
                yield i, tally(out, i)
            return
        for block in self._blocks(jobs):
            outs = self._draw_block(block)
            yield block[-1][0], count_block(Block(list(map(_FIRST, block)), list(map(_SECOND, block)),
                                                  list(map(_THIRD, block)), outs))

    def _check_duplicate(self, x, out: Outputs) -> None:
        self._check_digest(x, out.n, repeat_digest(out))

    def _check_digest(self, x, n: int, digest: int | None) -> None:
        """Worker processes start as copies of this one: a randomizer drawing from its own
        generator (not the seeded global ``random``/``numpy.random``, nor the batch rng) then
        repeats the same draws in every worker, and the samples are no longer independent."""
        if digest is None:
            return
        if digest in self.digests:
            raise RandomizerError(
                f"randomizer returned the very same sequence of {n} outputs for input {x!r} in two "
                f"worker processes: it draws from a private generator that every worker copies; "
                f"use workers=1, or draw from the random/numpy.random module (seeded per chunk) or "
                f"from the rng passed to a batch randomizer")
        self.digests.add(digest)

    def close(self):
        if self.pool is not None:
            self.pool.close()
            self.pool.join()


def repeat_digest(out: Outputs) -> int | None:
    """The digest of a chunk's draw sequence to compare across worker processes, or None
    (none taken, or constant outputs, which repeat in any case)."""
    constant = (out.kind == "objects" and len(out.values) <= 1) or \
        (out.kind == "array" and out.n and bool((out.values == out.values[0]).all()))
    return None if constant else out.digest
