"""Resumable audits: a journal directory of completed draws.

The auditor draws in chunks, each from its own seed (the audit seed plus the chunk's phase,
input and number), so a chunk's outputs do not depend on anything else that happened in the
run. The journal stores each completed chunk as one file, written atomically (temporary file
+ rename), together with the audit's arguments. A resumed audit replays the stored chunks
instead of drawing them again and draws only the rest: no sample is lost or counted twice,
and the result is exactly that of an uninterrupted run with the same seed, wherever the
previous run was killed.

Layout: ``args.json`` (the command line to resume with), ``chunks/<key>.npz`` or
``chunks/<key>.json`` (the outputs of one chunk), ``chunks/<key>.tally.json`` (a
confirmation chunk's event counts, from a cluster), ``result.json`` (written at the end).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ldpaudit.audit.adapters import Histogram
from ldpaudit.audit.external import decode
from ldpaudit.audit.worker import encode
from ldpaudit.errors import InvalidParameter


def atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


class Journal:
    """A directory holding an audit's arguments and its completed chunks."""

    def __init__(self, directory: str | Path):
        self.dir = Path(directory)
        self.chunks = self.dir / "chunks"

    @property
    def args_path(self) -> Path:
        return self.dir / "args.json"

    def write_args(self, args: dict) -> None:
        if self.args_path.exists():
            old = json.loads(self.args_path.read_text())
            if old != args:
                raise InvalidParameter(
                    f"journal {str(self.dir)!r} belongs to a different audit (its args.json differs); "
                    "resume it with --resume, or choose an empty directory"
                )
            return
        atomic_write(self.args_path, json.dumps(args, indent=2, sort_keys=True).encode())

    def read_args(self) -> dict:
        if not self.args_path.exists():
            raise InvalidParameter(f"--resume {str(self.dir)!r}: no args.json there; is it a journal directory?")
        return json.loads(self.args_path.read_text())

    def write_result(self, payload: dict) -> None:
        atomic_write(self.dir / "result.json", json.dumps(payload, indent=2, sort_keys=True).encode())

    def completed(self) -> int:
        return sum(1 for p in self.chunks.glob("*") if not p.name.startswith(".")) if self.chunks.exists() else 0

    # -- chunks --

    @staticmethod
    def key(x, n: int, seed_seq: np.random.SeedSequence) -> str:
        text = json.dumps([repr(x), int(n), str(seed_seq.entropy), list(map(int, seed_seq.spawn_key))])
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def has(self, key: str) -> bool:
        return any((self.chunks / f"{key}{ext}").exists() for ext in (".npz", ".json"))

    def load(self, key: str):
        npz, js = self.chunks / f"{key}.npz", self.chunks / f"{key}.json"
        if npz.exists():
            with np.load(npz, allow_pickle=False) as data:
                if "hist_values" in data:
                    return Histogram(data["hist_values"], data["hist_counts"], int(data["hist_counts"].sum()))
                if "packed" in data:
                    shape = tuple(data["shape"])
                    flat = np.unpackbits(data["packed"], count=int(np.prod(shape)))
                    return flat.reshape(shape).astype(data["dtype"].item())
                return data["values"]
        if js.exists():
            stored = json.loads(js.read_text())
            if isinstance(stored, dict):  # a histogram of non-numeric outputs
                counts = np.array(stored["counts"], dtype=np.int64)
                return Histogram([decode(v) for v in stored["values"]], counts, int(counts.sum()))
            return [decode(v) for v in stored]
        return None

    def has_tally(self, key: str) -> bool:
        return (self.chunks / f"{key}.tally.json").exists()

    def store_tally(self, key: str, counts) -> None:
        """The confirmation counts of one chunk (a cluster computes them where the chunk is
        drawn): a resumed audit with the same arguments counts the same events."""
        atomic_write(self.chunks / f"{key}.tally.json", json.dumps([int(c) for c in counts]).encode())

    def load_tally(self, key: str) -> np.ndarray:
        return np.array(json.loads((self.chunks / f"{key}.tally.json").read_text()), dtype=np.int64)

    def store(self, key: str, outputs) -> None:
        if isinstance(outputs, Histogram):
            if isinstance(outputs.values, np.ndarray):
                buffer = io.BytesIO()
                np.savez(buffer, hist_values=outputs.values, hist_counts=outputs.counts)
                atomic_write(self.chunks / f"{key}.npz", buffer.getvalue())
            else:
                payload = {"values": [encode(v) for v in outputs.values], "counts": outputs.counts.tolist()}
                atomic_write(self.chunks / f"{key}.json", json.dumps(payload).encode())
            return
        if isinstance(outputs, np.ndarray) and outputs.dtype.kind in "biuf":
            buffer = io.BytesIO()
            if outputs.dtype.kind in "bu" and outputs.size and outputs.max() <= 1 and outputs.min() >= 0:
                np.savez(buffer, packed=np.packbits(outputs.astype(np.uint8).ravel()),
                         shape=np.array(outputs.shape), dtype=np.array(outputs.dtype.str))
            else:
                np.savez(buffer, values=outputs)
            atomic_write(self.chunks / f"{key}.npz", buffer.getvalue())
        else:
            items = list(outputs)
            atomic_write(self.chunks / f"{key}.json", json.dumps([encode(y) for y in items]).encode())


def journaled(randomizer: Callable, journal: Journal, *, batch: bool) -> Callable:
    """Wrap a randomizer as a batch randomizer that replays chunks stored in ``journal`` and
    stores every chunk it draws. Per-call randomizers are seeded from the chunk's seed exactly
    as the auditor seeds them, so replayed and fresh chunks are interchangeable."""

    def draw(x, n, rng: np.random.Generator):
        seed_seq = rng.bit_generator.seed_seq
        key = Journal.key(x, n, seed_seq)
        stored = journal.load(key)
        if stored is not None:
            return stored
        keyed = getattr(randomizer, "draw_block", None) if batch else None
        if keyed is not None:
            # an isolated randomizer: seeded from the chunk's key as without a journal, and
            # its histogram of discrete outputs stored as such
            outputs = keyed([(x, n, seed_seq.entropy, tuple(seed_seq.spawn_key))], histogram=True)[0]
        elif batch:
            counts = getattr(randomizer, "draw_counts", None)
            outputs = counts(x, n, rng) if counts is not None else randomizer(x, n, rng)
        else:
            py_state, np_state = random.getstate(), np.random.get_state()
            words = seed_seq.generate_state(4, dtype=np.uint32)
            random.seed(int.from_bytes(words.tobytes(), "little"))
            np.random.seed(words)
            try:
                outputs = [randomizer(x) for _ in range(n)]
            finally:
                random.setstate(py_state)
                np.random.set_state(np_state)
        journal.store(key, outputs)
        return outputs

    draw.__name__ = getattr(randomizer, "__name__", "randomizer")
    return draw
