"""The isolation worker: runs an untrusted Python randomizer in its own (sandboxed) process.

It speaks the same JSON-lines protocol as any ``--command`` program (see
:mod:`ldpaudit.audit.external`): one request per line on stdin,
``{"input": X, "count": N, "seed": S}``, one reply per line on stdout,
``{"outputs": [...]}``. Extensions the auditor understands:

- ``"histogram": true`` in a request: discrete outputs come back as
  ``{"hist": {"values": [...], "counts": [...]}}`` (distinct outputs, ascending for arrays,
  in order of first appearance otherwise), which is all the auditor needs from them;
- ``{"block": {"inputs": [X, ...], "counts": [N, ...], "seeds": "..."}}``: several chunks in
  one request (their seeds as little-endian uint64 in base64, or a list [S, ...]), answered by
  one header line ``{"block": [descriptor, ...], "bytes": B}`` and B bytes of raw array values
  (see :func:`block_reply`), written into the buffer the auditor shares (the memfd named by
  ``LDPAUDIT_PAYLOAD_FD``; the line then says ``"shared": true``) or following the line on
  stdout: numbers travel as numpy buffers in the smallest integer dtype that holds them, never
  as text, so that moving a draw costs a byte or two, not a JSON number;
- ``{"progress": i}`` lines during long requests, so a slow but live randomizer is not taken
  for a hung one; every line also carries ``"limit"``, the next call's time limit, and
  ``"slowest"``, the slowest call after the first;
- ``{"error": ..., "kind": ..., "call": i}`` replies naming the call (counted from 1 over
  the worker's life) that failed, and in a block ``"item"``, the chunk it was drawing;
- ``{"probe": true}`` is answered ``{"loaded": true}`` once the target has loaded (or with
  the load error), without calling it.

Seeds: a chunk's seed S seeds ``random`` and ``numpy.random`` (S mod 2^32) before it is drawn,
and a batch target gets the generator ``default_rng(S)``: one generator whose state is set to
that of ``default_rng(S)`` (computed for the whole block at once, :mod:`ldpaudit.audit.seeds`),
which costs a microsecond where creating ``default_rng(S)`` costs ten. A batch target that
never draws from ``random`` or ``numpy.random`` does not need them seeded (seeding both costs
more than drawing a thousand outputs): they are seeded only once it has drawn from them, seen
from their states (:class:`_GlobalStates`), and the chunk where it first did is drawn again
from seeded states, so its outputs are those of a worker that seeds every chunk.

Usage: ``python -m ldpaudit.audit.worker TARGET [--batch] [--arg name=value ...]
[--warmup S] [--floor S] [--factor F]``: the first call may take ``--warmup`` seconds, later
ones max(``--floor``, ``--factor`` × the slowest call after the first). The number of the
call in progress is kept in the 8-byte file named by ``LDPAUDIT_CALL_COUNTER`` so that the
auditor can name it if the process dies. Outputs are encoded with tags so that tuples, sets,
bytes, complex numbers and numpy arrays survive JSON (:mod:`ldpaudit.audit.replies`); the
auditor decodes them without unpickling anything. This module imports only numpy, the replies'
encoding, the seeding arithmetic (:mod:`ldpaudit.audit.seeds`) and the target loader
(:mod:`ldpaudit.audit.targets`), so that it also runs under another interpreter (``--python``).
"""

from __future__ import annotations

import argparse
import base64
import ctypes
import io
import json
import mmap
import os
import random
import signal
import sys
import threading
import time

import numpy as np

from ldpaudit.audit.replies import (  # noqa: F401 - importable from here, as before the split
    _PACKED,
    RAW_DTYPES,
    WIRE_INTS,
    Unsendable,
    _Packer,
    block_reply,
    encode,
    histogram,
    wire_dtype,
)


class _CallTimeout(BaseException):
    """Raised by the alarm in the middle of a call that takes too long (BaseException so a
    randomizer's own ``except Exception`` cannot swallow it)."""


class _StdoutRecorder(io.TextIOBase):
    def __init__(self):
        self.text = []

    def write(self, s):
        self.text.append(s)
        return len(s)

    def writable(self):
        return True


def _block_seeds(seeds, n: int) -> tuple[list[int], np.ndarray | None]:
    """A block request's chunk seeds, as ints and (when they came so) as the uint64 array the
    auditor sends: ``"seeds"`` is their little-endian bytes in base64, or a JSON list."""
    if isinstance(seeds, str):
        words = np.frombuffer(base64.b64decode(seeds, validate=True), dtype="<u8")
        if len(words) != n:
            raise ValueError(f"{len(words)} seeds for {n} inputs")
        return words.tolist(), words
    seeds = [int(seed) for seed in seeds]
    if len(seeds) != n:
        raise ValueError(f"{len(seeds)} seeds for {n} inputs")
    return seeds, None


def _parse_args(argv):
    p = argparse.ArgumentParser(prog="ldpaudit-worker")
    p.add_argument("target")
    p.add_argument("--batch", action="store_true")
    p.add_argument("--arg", action="append", default=[])
    p.add_argument("--warmup", type=float, default=120.0)
    p.add_argument("--floor", type=float, default=10.0)
    p.add_argument("--factor", type=float, default=50.0)
    return p.parse_args(argv)


class _Counter:
    """The number of the call in progress, in a file the auditor reads if this process dies."""

    def __init__(self):
        self.cells = [0]    # where the count goes when there is no file
        path = os.environ.get("LDPAUDIT_CALL_COUNTER")
        if path:
            try:
                with open(path, "r+b") as f:
                    self.cells = memoryview(mmap.mmap(f.fileno(), 8)).cast("q")
            except (OSError, ValueError, TypeError):
                pass


class _GlobalStates:
    """The global ``random`` and ``numpy.random`` generators' states, read in place (the
    Mersenne Twister's position and first words of each: CPython's ``_random.Random`` object
    and numpy's ``mt19937_state``), so that the worker sees whether a call drew from them for
    a fraction of a microsecond. ``usable`` is False (seed them for every chunk instead) unless
    reading them behaves as expected here: equal after seeding twice alike, different after
    another seed and after each draw."""

    def __init__(self):
        self.regions = ()
        try:
            numpy = np.random.mtrand._rand._bit_generator.ctypes.state_address
            # the position and first words of each: a draw moves the position, or regenerates
            # every word when it consumed a multiple of 624 of them
            self.regions = ((ctypes.c_char * 20).from_address(id(random._inst) + object.__basicsize__),
                            (ctypes.c_char * 16).from_address(numpy),
                            (ctypes.c_char * 4).from_address(numpy + 624 * 4))
            self.usable = self._behaves()
        except Exception:  # noqa: BLE001 - another Python or numpy: seed every chunk
            self.usable = False

    def read(self) -> tuple:
        python, numpy_words, numpy_position = self.regions
        return python.raw, numpy_words.raw, numpy_position.raw

    def _behaves(self) -> bool:
        def seeded(seed):
            random.seed(seed)
            np.random.seed(seed)
            return self.read()

        first, again, other = seeded(1), seeded(1), seeded(2)
        random.random()
        drew_random = self.read()
        seeded(2)
        np.random.random()
        drew_numpy = self.read()
        np.random.random()
        drew_again = self.read()    # the position moves within the words already generated
        return first == again and first != other and drew_random != other and drew_numpy != other \
            and drew_again != drew_numpy


class _ChunkGenerator:
    """The generator a batch target gets for a chunk of seed S: one PCG64 generator set to the
    state of ``default_rng(S)`` (:func:`ldpaudit.audit.seeds.default_rng_words`, a block at a
    time), its 32 bytes of state written in place where that behaves as expected here (else
    through its ``state`` dict); ``default_rng(S)`` itself where the computed states are not
    numpy's."""

    def __init__(self):
        from ldpaudit.audit.seeds import matches_numpy

        self.bitgen = np.random.PCG64(0)
        self.rng = np.random.Generator(self.bitgen)
        self.exact = matches_numpy()
        self.words = None
        self.in_place = None    # (the state's 32 bytes, has_uint32 and uinteger) when writing them in place works
        try:
            address = self.bitgen.ctypes.state_address
            # pcg64_state: the pointer to the 128-bit state and increment, then has_uint32 and uinteger
            state = ctypes.c_void_p.from_address(address).value
            self.in_place = (memoryview((ctypes.c_char * 32).from_address(state)).cast("B"),
                             memoryview((ctypes.c_char * 8).from_address(address + 8)).cast("B"))
            self.prepare([7, 2**40 + 3])
            self.bitgen.random_raw()
            self.rng.integers(0, 10, dtype=np.uint32)     # leaves half a 64-bit draw buffered
            if not self._behaves():
                self.in_place = None
        except Exception:  # noqa: BLE001 - another numpy: the state dict
            self.in_place = None

    def _behaves(self) -> bool:
        for i, seed in enumerate([7, 2**40 + 3]):
            self.get(i, seed)
            reference = np.random.default_rng(seed)
            if self.bitgen.state != reference.bit_generator.state or \
                    self.rng.integers(0, 2**32, size=3, dtype=np.uint32).tolist() != \
                    reference.integers(0, 2**32, size=3, dtype=np.uint32).tolist():
                return False
        return True

    def prepare(self, seeds) -> None:
        """Compute the states of a block's chunks (``seeds``: ints, or a uint64 array)."""
        if self.exact:
            from ldpaudit.audit.seeds import default_rng_words

            self.words = default_rng_words(seeds)
            self.data = self.words.tobytes()

    def get(self, item: int, seed: int) -> np.random.Generator:
        """The generator of the block's chunk ``item`` (seed ``seed``)."""
        if not self.exact:
            return np.random.default_rng(seed)
        if self.in_place is not None:
            state, flags = self.in_place
            state[:] = self.data[32 * item:32 * item + 32]
            flags[:] = _ZERO8
        else:
            w = self.words[item].tolist()
            self.bitgen.state = {"bit_generator": "PCG64", "state": {"state": w[1] << 64 | w[0], "inc": w[3] << 64 | w[2]},
                                 "has_uint32": 0, "uinteger": 0}
        return self.rng


_ZERO8 = bytes(8)


class _Watchdog:
    """Interrupts a call that runs past its limit. A thread looks at the running call every
    50 ms and sends SIGALRM to the main thread when it is late, so that a call costs two clock
    reads rather than two timer system calls."""

    def __init__(self, allowed: float):
        self.started: float | None = None     # time.perf_counter() when the running call began
        self.allowed = allowed
        self.fired = False
        self.main = threading.main_thread().ident
        signal.signal(signal.SIGALRM, self._alarm)
        threading.Thread(target=self._watch, daemon=True, name="ldpaudit-watchdog").start()

    def _alarm(self, signum, frame):
        if self.fired and self.started is not None:
            raise _CallTimeout()
        self.fired = False

    def _watch(self):
        while True:
            time.sleep(0.05)
            started = self.started
            if started is not None and not self.fired and time.perf_counter() - started > self.allowed:
                self.fired = True
                signal.pthread_kill(self.main, signal.SIGALRM)


def _shared_buffer() -> np.ndarray | None:
    """The buffer the auditor shares for block payloads (``LDPAUDIT_PAYLOAD_FD``), or None."""
    fd = os.environ.get("LDPAUDIT_PAYLOAD_FD")
    if not fd:
        return None
    try:
        return np.frombuffer(mmap.mmap(int(fd), 0), dtype=np.uint8)
    except (OSError, ValueError):
        return None


def _write_all(fd: int, data) -> None:
    view = memoryview(data).cast("B")
    while view:
        view = view[os.write(fd, view):]


def main(argv=None) -> int:
    args = _parse_args(argv)
    # the protocol channel is a private copy of stdout; fd 1 now goes to stderr, so that
    # whatever the randomizer prints cannot corrupt the protocol
    channel = os.dup(1)
    os.dup2(2, 1)
    recorder = _StdoutRecorder()
    sys.stdout = recorder
    calls = 0               # calls started over the worker's life
    slowest = 0.0           # slowest call after the first
    counter = _Counter()

    def limit() -> float:
        return args.warmup if calls == 0 else max(args.floor, args.factor * slowest)

    shared = _shared_buffer()

    def send(obj, payload=()):
        """A reply line, then a block's payload: into the buffer shared with the auditor when it
        fits there (``"shared": true``), else down the pipe after the line. ``payload``: arrays,
        each cast to its wire dtype on the way: (array, wire dtype or None)."""
        obj["limit"] = limit()
        obj["slowest"] = slowest if calls > 1 else None
        if payload and shared is not None and obj.get("bytes", 0) <= shared.size:
            position = 0
            for values, wire in payload:
                flat = values.reshape(-1)
                size = flat.size * (wire or flat.dtype).itemsize
                np.copyto(shared[position:position + size].view(wire or flat.dtype), flat, casting="unsafe")
                position += size
            obj["shared"] = True
            payload = ()
        _write_all(channel, (json.dumps(obj, allow_nan=True) + "\n").encode())
        for values, wire in payload:
            _write_all(channel, np.ascontiguousarray(values.reshape(-1).astype(wire or values.dtype, copy=False)))

    from ldpaudit.audit.targets import load_target

    target_args = dict(a.split("=", 1) for a in args.arg)
    try:
        func = load_target(args.target, target_args, batch=args.batch)
    except Exception as exc:  # report any failure to load, then stop
        from ldpaudit.errors import LdpAuditError

        text = str(exc) if isinstance(exc, LdpAuditError) else f"{type(exc).__name__}: {exc}"
        send({"error": f"cannot load target {args.target!r}: {text}" if not isinstance(exc, LdpAuditError) else text,
              "kind": "load"})
        return 1

    watchdog = _Watchdog(args.warmup)
    perf = time.perf_counter
    cells = counter.cells
    generator = _ChunkGenerator() if args.batch else None
    packer = _Packer()
    pack = packer.pack
    global_states = _GlobalStates() if args.batch else None
    seed_globals = not (global_states and global_states.usable)     # before every chunk
    if not seed_globals:
        python_state, numpy_words, numpy_position = global_states.regions
        # the global states after the last call, while they are not seeded
        seen_python, seen_words, seen_position = global_states.read()
    batch = args.batch
    chunk_generator = generator.get if batch else None
    # the chunk's generator state written in place (the common case: _ChunkGenerator.get inlined)
    state, flags = generator.in_place if batch and generator.exact and generator.in_place else (None, None)
    ndarray = np.ndarray

    def finished(took: float) -> None:
        """Account for a call that took ``took`` seconds; set the next call's limit."""
        nonlocal slowest
        if calls > 1 and took > slowest:
            slowest = took
        watchdog.allowed = limit()

    def too_slow() -> str:
        if calls == 1:
            return (f"the first call took longer than the warm-up allowance of {args.warmup:g} s "
                    f"(raise it with --warmup)")
        return (f"call took longer than {limit():g} s = max({args.floor:g} s, {args.factor:g} x the slowest "
                f"call so far, {slowest:.3g} s) (raise the floor with --timeout)")

    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("probe"):  # the target has loaded (a cluster checks this before sampling)
            send({"loaded": True})
            continue
        block = request.get("block")
        if block is not None:
            inputs, counts = block["inputs"], block["counts"]
            try:
                seeds, seed_words = _block_seeds(block["seeds"], len(inputs))
            except (TypeError, ValueError) as exc:
                send({"error": f"malformed block request: {exc}", "kind": "request"})
                return 1
        else:
            inputs, counts, seeds, seed_words = [request["input"]], [request["count"]], [int(request["seed"])], None
        item = 0
        last = perf()       # when the last line went out: a progress line every 0.5 s of a long request

        def failed(obj):
            if block is not None:
                obj["item"] = item
            send(obj)
            return 1

        try:
            counts = [int(count) for count in counts]
            packing = batch and block is not None
            if batch:
                generator.prepare(seed_words if seed_words is not None else seeds)
                packer.start(sum(counts))
                data = memoryview(generator.data) if state is not None else None
                rng = generator.rng
            stage = None        # the packer's stage, once the block's first chunk has set its dtype
            outputs = []
            append_output = outputs.append
            for item in range(len(inputs)):
                x = inputs[item]
                if type(x) is list:
                    x = tuple(x)
                count = counts[item]
                if seed_globals:
                    seed = seeds[item]
                    random.seed(seed)
                    np.random.seed(seed % 2**32)
                if batch:
                    while True:
                        if state is not None:
                            state[:] = data[32 * item:32 * item + 32]
                            flags[:] = _ZERO8
                            chunk_rng = rng
                        else:
                            chunk_rng = chunk_generator(item, seeds[item])
                        calls += 1
                        cells[0] = calls
                        watchdog.started = start = perf()
                        drawn = func(x, count, chunk_rng)
                        end = perf()
                        watchdog.started = None
                        if calls <= 2 or end - start > slowest:
                            finished(end - start)
                        # nothing else draws from the global generators between calls
                        if seed_globals or python_state.raw == seen_python and numpy_words.raw == seen_words \
                                and numpy_position.raw == seen_position:
                            break
                        # it drew from random or numpy.random: seed them for this chunk and every later one
                        seed_globals = True
                        seed = seeds[item]
                        random.seed(seed)
                        np.random.seed(seed % 2**32)
                    if packing and type(drawn) is ndarray:
                        staged = packer.staged
                        try:    # a 1-d array of the block's dtype and `count` values fits this view, nothing else
                            stage[staged:staged + count] = drawn
                        except (TypeError, ValueError):     # (TypeError: no stage yet) the packer decides
                            if drawn.ndim == 1 and drawn.shape[0] == count and drawn.dtype.kind in "biu":
                                drawn = pack(drawn)
                                stage = packer.view()
                        else:
                            packer.staged = staged + count
                            packer.stage_sizes.append(count)
                            drawn = _PACKED
                    append_output(drawn)
                    if packing and end - last > 0.5 and not recorder.text:
                        send({"progress": item + 1})
                        last = end
                else:
                    drawn = []
                    append = drawn.append
                    for i in range(count):
                        calls += 1
                        cells[0] = calls
                        watchdog.started = start = perf()
                        append(func(x))
                        end = perf()
                        watchdog.started = None
                        if calls <= 2 or end - start > slowest:
                            finished(end - start)
                        if recorder.text:
                            break
                        if calls == 1 or end - last > 0.5:
                            send({"progress": i + 1})
                            last = end
                    outputs.append(drawn)
                if recorder.text:
                    text = "".join(recorder.text)
                    return failed({"error": f"randomizer wrote to stdout: {text[:80]!r}", "kind": "stdout",
                                   "call": calls})
            if block is None:
                hist = histogram(outputs[0], args.batch) if request.get("histogram") else None
                send({"hist": hist} if hist is not None else {"outputs": encode(outputs[0])})
            else:
                if batch:
                    packer.finish(outputs, bool(request.get("histogram")))
                header, payload = block_reply(outputs, counts,
                                              histogram_asked=bool(request.get("histogram")), batch=args.batch,
                                              packer=packer)
                send(header, payload)
        except _CallTimeout:
            return failed({"error": too_slow(), "kind": "timeout", "call": calls})
        except MemoryError:
            watchdog.started = None
            return failed({"error": "randomizer ran out of memory (MemoryError under the worker's memory limit)",
                           "kind": "memory", "call": calls})
        except Unsendable as exc:
            item = getattr(exc, "item", item)
            return failed({"error": str(exc), "kind": "output", "call": calls})
        except Exception as exc:
            watchdog.started = None
            return failed({"error": f"randomizer raised {type(exc).__name__}: {exc}", "kind": "exception",
                           "call": calls})
    return 0


if __name__ == "__main__":
    sys.exit(main())
