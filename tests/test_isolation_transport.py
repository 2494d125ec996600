"""The isolation worker's binary transport (issue 31, item 7): chunks travel in blocks as raw
numpy buffers in the smallest dtype that holds them; the auditor checks every header against
what it asked and refuses a hostile worker's reply before reading it; the draws are exactly
those of the JSON protocol before it (the same seeds, the same generators); and blocks are
counted exactly as chunk by chunk."""

import base64
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldpaudit.audit import draws, seeds
from ldpaudit.audit.adapters import Outputs
from ldpaudit.audit.external import BadReply, ExternalRandomizer, block_layout, block_outputs, isolated
from ldpaudit.audit.worker import _Packer, block_reply, wire_dtype
from ldpaudit.errors import RandomizerError

sys.path.insert(0, str(Path(__file__).parent))
import wide_randomizers  # noqa: E402

HOSTILE = "tests/programs/hostile_worker.py"
MiB = 1 << 20


def _exchange(outputs, counts, *, histogram=False, pack=True):
    """What the auditor reads from a worker that drew ``outputs``: the worker's reply, its header
    through JSON, checked and decoded as external.py does."""
    packer = _Packer()
    packer.start(sum(counts))
    sent = [packer.pack(o) if pack and isinstance(o, np.ndarray) and o.ndim == 1 and o.dtype.kind in "biu"
            else o for o in outputs]
    packer.finish(sent, histogram)
    header, pieces = block_reply(sent, counts, histogram_asked=histogram, batch=True, packer=packer)
    payload = np.frombuffer(b"".join(a.reshape(-1).astype(wire or a.dtype).tobytes() for a, wire in pieces),
                            dtype=np.uint8)
    header = json.loads(json.dumps(header))
    layout, size = block_layout(header, counts, 64 * MiB)
    assert size == payload.size == header["bytes"]
    return header, list(block_outputs(layout, counts, payload, lambda hist, k: ("hist", hist)))


@pytest.mark.parametrize("dtype,lo,hi,wire", [
    ("i8", 0, 255, "u1"), ("i8", 0, 256, "u2"), ("i8", -1, 127, "i1"), ("i8", -128, 127, "i1"),
    ("i8", -129, 0, "i2"), ("i8", 0, 65535, "u2"), ("i8", 0, 65536, "u4"), ("i8", -32769, 0, "i4"),
    ("i8", 0, 2**32 - 1, "u4"), ("i8", 0, 2**32, "i8"), ("i8", -2**63, 2**63 - 1, "i8"),
    ("u8", 0, 2**64 - 1, "u8"), ("u8", 0, 2**32, "u8"), ("u2", 0, 255, "u1"), ("i4", 0, 2**31 - 1, "i4"),
    ("i1", 0, 100, "i1"), ("?", 0, 1, "?"), ("f4", -1, 1, "f4"),
])
def test_the_wire_dtype_is_the_smallest_that_holds_the_values_and_casts_back(dtype, lo, hi, wire):
    chosen = wire_dtype(np.dtype(dtype).newbyteorder("<"), lo, hi)
    assert chosen == np.dtype(wire)
    assert np.can_cast(chosen, np.dtype(dtype))      # an honest worker never needs a range check


BOUNDARY_ARRAYS = [
    np.array([0, 255, 7], dtype=np.int64), np.array([0, 256, 7], dtype=np.int64),
    np.array([-1, 127, 0], dtype=np.int64), np.array([-129, 0, 5], dtype=np.int64),
    np.array([0, 65535, 1], dtype=np.int64), np.array([0, 65536, 1], dtype=np.int64),
    np.array([0, 2**32 - 1, 3], dtype=np.int64), np.array([0, 2**32, 3], dtype=np.int64),
    np.array([-2**63, 2**63 - 1, 0], dtype=np.int64), np.array([0, 2**64 - 1, 9], dtype=np.uint64),
    np.array([-2**31, 2**31 - 1, 0], dtype=np.int32), np.array([0, 255, 17], dtype=np.uint8),
    np.array([True, False, True]), np.array([np.inf, -0.0, np.nan], dtype=np.float64),
    np.array([np.float32(1) / 3, -np.inf, 1e-45], dtype=np.float32), np.array([65504, 2**-24, -0.0], dtype=np.float16),
    np.array([], dtype=np.int64)[:0],
]


@pytest.mark.parametrize("pack", [True, False])
@pytest.mark.parametrize("values", BOUNDARY_ARRAYS, ids=lambda a: f"{a.dtype}{a.tolist()[:2]}")
def test_the_transport_round_trips_values_exactly_at_the_dtype_boundaries(values, pack):
    counts = [values.size]
    header, (out,) = _exchange([values], counts, pack=pack)
    assert out.dtype == values.dtype and out.tobytes() == values.tobytes()      # bit for bit (NaN, -0.0)
    if values.dtype.kind in "iu" and values.size:
        wire = np.dtype(header["block"][0][2])
        assert wire == wire_dtype(values.dtype, int(values.min()), int(values.max()))
        assert wire.itemsize <= values.dtype.itemsize


def test_a_block_of_mixed_outputs_round_trips_chunk_by_chunk():
    rng = np.random.default_rng(4)
    outputs = [rng.integers(0, 1000, 50), np.zeros(0, dtype=np.int64), rng.integers(0, 3, 50),
               rng.integers(-10**12, 10**12, 50), (rng.random((50, 9)) < 0.5).astype(np.uint8),
               rng.laplace(size=(50, 2)), [(1, 2)] * 50, rng.integers(0, 1000, 50).astype(np.int32)]
    counts = [50, 0, 50, 50, 50, 50, 50, 50]
    header, got = _exchange(outputs, counts, histogram=True)
    tags = [d[0] for d in header["block"]]
    assert tags == ["r", "h", "r", "p", "r", "j", "r"]      # int32 after the packed int64s: a run of its own
    assert got[2][0] == "hist"                            # 3 values in 50 draws: the histogram is shorter
    for k in (0, 1, 3, 4, 5, 7):
        assert got[k].dtype == outputs[k].dtype and np.array_equal(got[k], outputs[k])
    assert got[6] == [(1, 2)] * 50
    assert np.dtype(header["block"][0][2]) == np.dtype("<i8")   # the int64 run spans ±10^12


GOOD = {"block": [["r", "<i8", "<u2", [], 2]], "bytes": 8}


@pytest.mark.parametrize("header,match", [
    ([1, 2], r"replied \[1, 2\] to a block request"),
    ({"outputs": [1, 2]}, r"replied .* to a block request"),
    ({**GOOD, "bytes": -1}, r"payload length \('bytes'\) is -1, not an integer >= 0"),
    ({**GOOD, "bytes": True}, r"payload length \('bytes'\) is true"),
    ({**GOOD, "bytes": 6}, r"announced a payload of 6 bytes; its descriptors need 8"),
    ({**GOOD, "bytes": 1 << 40}, r"announced a payload of 1099511627776 bytes; at most 67108864 are accepted"),
    ({"block": [["r", "|O", "|O", [], 2]], "bytes": 16}, r'dtype "\|O" is not one of'),
    ({"block": [["r", "[('a', 'O')]", "|u1", [], 2]], "bytes": 4}, r"dtype .* is not one of"),
    ({"block": [["r", "<i8", "<f8", [], 2]], "bytes": 32}, r"wire dtype <f8 cannot carry values of dtype <i8"),
    ({"block": [["r", "<f4", "<u2", [], 2]], "bytes": 8}, r"wire dtype <u2 cannot carry values of dtype <f4"),
    ({"block": [["r", "<i8", "<u2", [], 1]], "bytes": 4}, r"describes 1 chunks; 2 were asked for"),
    ({"block": [["r", "<i8", "<u2", [], 3]], "bytes": 12}, r"describes more than the 2 chunks asked for"),
    ({"block": [["r", "<i8", "<u2", [[1]], 2]], "bytes": 8}, r"the number of columns is \[1\]"),
    ({"block": [["r", "<i8", "<u2", [2, 2], 2]], "bytes": 8}, r"is not \['r', dtype, wire, \[\] or \[columns\], chunks\]"),
    ({"block": [["r", "<i8", "<u2", [1 << 40], 2]], "bytes": 8}, r"describes more than 67108864 bytes"),
    ({"block": [["p", "<i8", 8], ["p", "<i8", 8]], "bytes": 4}, r"packed bits stand for one-byte 0/1 cells"),
    ({"block": [["x", 1], ["x", 1]], "bytes": 0}, r"is not \['r' \| 'p' \| 'h' \| 'j', \.\.\.\]"),
])
def test_a_malformed_block_header_is_refused_before_anything_is_read(header, match):
    with pytest.raises(BadReply, match=match):
        block_layout(header, [2, 2], 64 * MiB)


@pytest.mark.parametrize("dtype,wire,values,match", [
    ("|i1", "<i2", [1, 300], r"value 300 out of range of dtype int8 \(sent as int16\)"),
    ("<u2", "<i2", [-5, 1], r"value -5 out of range of dtype uint16 \(sent as int16\)"),
    ("<i4", "<u4", [1, 2**31], r"value 2147483648 out of range of dtype int32 \(sent as uint32\)"),
    ("|b1", "|b1", [1, 2], r"boolean value out of range: byte 2 in a buffer of booleans"),
    ("|b1", "|u1", [0, 5], r"boolean value out of range: 5 sent as uint8 for dtype bool"),
    ("<i8", "|b1", [0, 7], r"boolean value out of range: byte 7"),
])
def test_values_outside_the_range_of_their_dtype_are_refused(dtype, wire, values, match):
    payload = np.array(values, dtype=np.int64).astype(np.dtype(wire) if wire != "|b1" else np.uint8).view(np.uint8)
    layout, _ = block_layout({"block": [["r", dtype, wire, [], 2]], "bytes": payload.size}, [1, 1], MiB)
    with pytest.raises(BadReply, match=match):
        block_outputs(layout, [1, 1], payload, None)
    fine = np.array([0, 1], dtype=np.int64).astype(np.dtype(wire) if wire != "|b1" else np.uint8).view(np.uint8)
    assert [v.tolist() for v in block_outputs(layout, [1, 1], fine, None)] == [[0], [1]]   # in range: accepted


@pytest.mark.parametrize("target,match", [
    ("out_of_range", r"value 300 out of range of dtype int8 \(sent as int16\)"),
    ("negative_for_unsigned", r"value -5 out of range of dtype uint16"),
    ("boolean_byte", r"boolean value out of range: byte 2"),
    ("object_dtype", r'dtype "\|O" is not one of'),
    ("float_wire", r"wire dtype <f8 cannot carry values of dtype <i8"),
    ("oversized", r"announced a payload of 1099511627776 bytes; at most 268435456 are accepted"),
    ("wrong_length", r"announced a payload of 8 bytes; its descriptors need 6"),
    ("too_few_chunks", r"block header describes 2 chunks; 3 were asked for"),
    ("short_payload", r"closed its output after 2 of the 6 bytes it announced"),
    ("shared_oversized", r"says its payload of 33554430 bytes is in the shared buffer \(16777216 bytes\)"),
    ("not_a_header", r"replied .*outputs.* to a block request"),
])
def test_a_hostile_worker_is_refused_and_stopped(target, match, monkeypatch):
    """The randomizer runs in the worker's process and rewrites its replies; the auditor names
    the input and what is wrong, ends the program, and carries on with a fresh one. (A short
    payload only exists on the pipe: the shared buffer always holds the bytes announced.)"""
    if target == "short_payload":
        monkeypatch.setattr(ExternalRandomizer, "_shared_buffer", lambda self: None)
    start = time.monotonic()
    with isolated(f"{HOSTILE}:{target}", batch=True, memory_mb=256) as randomizer:
        with pytest.raises(RandomizerError, match=rf"^randomizer '{HOSTILE}:{target}' on input 0: {match}"):
            randomizer.draw_block([(x, 1, 5, (1, x, 0)) for x in range(3)])
        assert randomizer.proc is None      # the program was ended
    assert time.monotonic() - start < 30
    with isolated("tests/programs/bad_randomizers.py:fine_batch", batch=True) as good:
        assert len(good(1, 1000, np.random.default_rng(0))) == 1000


def test_the_cli_reports_a_hostile_reply_as_an_error_not_a_verdict():
    """Exit 2 with one line on stderr, as for any reply that breaks the protocol (never 0 or 1,
    which are verdicts)."""
    base = [sys.executable, "-m", "ldpaudit", "audit", "--domain", "0..3", "--epsilon", "1", "--samples", "2000"]
    hostile = subprocess.run(base + [f"{HOSTILE}:out_of_range", "--batch"], capture_output=True, text=True, timeout=300)
    garbage = subprocess.run(base + ["--command", "sh -c 'read l; echo garbage'"], capture_output=True, text=True,
                             timeout=300)
    assert hostile.returncode == garbage.returncode == 2, hostile.stderr
    assert hostile.stdout == "" and hostile.stderr.count("\n") == 1
    assert "value 300 out of range of dtype int8 (sent as int16)" in hostile.stderr


def _old_protocol(f, x, n, entropy, key):
    """What the JSON protocol drew: the chunk's seed S = default_rng(SeedSequence(entropy, key))
    .integers(0, 2**63 - 1), then f(x, n, default_rng(S)) in the worker."""
    s = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=key)).integers(0, 2**63 - 1)
    return f(x, n, np.random.default_rng(s))


def test_isolated_draws_are_exactly_those_of_the_json_protocol():
    sys.path.insert(0, "tests")
    import wide_randomizers as wr

    f = wr.krr(70_000, 1.0)
    tasks = [(x, 500 + x % 3, 2**100 + 7, (6, x, x % 2)) for x in range(0, 70_000, 97)]
    with isolated("tests/wide_randomizers.py:krr", {"d": "70000", "eps": "1"}, batch=True) as randomizer:
        got = randomizer.draw_block(tasks, histogram=True)
        for (x, n, entropy, key), out in zip(tasks, got):
            assert out.dtype == np.int64 and np.array_equal(out, _old_protocol(f, x, n, entropy, key))
        rng = np.random.default_rng(np.random.SeedSequence(9, spawn_key=(3, 1, 0)))   # the rng path too
        assert np.array_equal(randomizer(5, 400, rng), _old_protocol(f, 5, 400, 9, (3, 1, 0)))
    small = isolated("tests/wide_randomizers.py:krr", {"d": "70000", "eps": "1"}, batch=True, chunk=150)
    with small:     # requests split in chunks of 150: seeds drawn one after another from the chunk's rng
        out = small.draw_block([(4, 400, 9, (3, 1, 0))])[0]
    rng = np.random.default_rng(np.random.SeedSequence(9, spawn_key=(3, 1, 0)))
    expected = [f(4, m, np.random.default_rng(rng.integers(0, 2**63 - 1))) for m in (150, 150, 100)]
    assert np.array_equal(out, np.concatenate(expected))


def _eager(f, x, n, seed):
    """A chunk drawn by a worker that seeds random and numpy.random before every chunk."""
    import random

    random.seed(seed)
    np.random.seed(seed % 2**32)
    return f(x, n, np.random.default_rng(seed))


@pytest.mark.parametrize("target", ["krr_global", "krr_global_late"])
def test_a_batch_target_drawing_from_the_global_generators_gets_them_seeded(target):
    """The worker seeds random and numpy.random only once a target has drawn from them, and
    draws that chunk again: every chunk is what a worker seeding every chunk gives."""
    sys.path.insert(0, "tests/programs")
    import hostile_worker

    f = getattr(hostile_worker, target)
    tasks = [(x % 10, 200, 5, (2, x, 0)) for x in range(40)]
    with isolated(f"{HOSTILE}:{target}", batch=True) as randomizer:
        first = randomizer.draw_block(tasks)
        again = randomizer.draw_block(tasks)
    for (x, n, entropy, key), a, b in zip(tasks, first, again):
        s = int(np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=key)).integers(0, 2**63 - 1))
        expected = _eager(f, x, n, s)
        assert np.array_equal(a, expected) and np.array_equal(b, expected)


def test_a_histogram_chunk_in_a_block_keeps_the_others_raw():
    with isolated(f"{HOSTILE}:boundary", batch=True) as randomizer:
        tasks = [(x, 12, 1, (1, x, 0)) for x in range(15)]
        hist = randomizer.draw_block(tasks, histogram=True)
        raw = randomizer.draw_block(tasks, histogram=False)
    sys.path.insert(0, "tests/programs")
    import hostile_worker

    for x, (h, r) in enumerate(zip(hist, raw)):
        expected = hostile_worker.boundary(x, 12, None)
        assert r.dtype == expected.dtype and r.tobytes() == expected.tobytes()
        if x == 11:         # booleans: 2 values in 12 draws, the histogram is shorter
            assert h.counts.tolist() == [6, 6] and h.values.tolist() == [False, True]
        else:
            assert h.dtype == expected.dtype and h.tobytes() == expected.tobytes()


# -- the auditor's side: seeds and block tallies ------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(entropy=st.one_of(st.integers(0, 2**130), st.lists(st.integers(0, 2**40), min_size=1, max_size=3)),
       keys=st.lists(st.lists(st.integers(0, 2**34), max_size=4).map(tuple), min_size=1, max_size=6),
       count=st.integers(0, 3))
def test_block_seeds_are_numpys(entropy, keys, count):
    assert seeds.matches_numpy()
    expected = [[int(v) for v in np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=k))
                 .integers(0, 2**63 - 1, size=count)] for k in keys]
    assert seeds.spawned_integers(entropy, keys, [count] * len(keys)) == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=8))
def test_worker_generator_states_are_numpys(values):
    words = seeds.default_rng_words(values)
    for s, (state_lo, state_hi, inc_lo, inc_hi) in zip(values, words.tolist()):
        state = np.random.default_rng(s).bit_generator.state["state"]
        assert (state["state"], state["inc"]) == (state_hi << 64 | state_lo, inc_hi << 64 | inc_lo)


def _chunked_tally(tally, block):
    return sum(tally(out, i) for i, out in zip(block.indices, block.outs))


@pytest.mark.parametrize("dtype", ["int64", "int16", "uint8", "float32", "bool"])
def test_a_block_is_counted_exactly_as_its_chunks(dtype):
    from ldpaudit.audit import wide
    from ldpaudit.audit.adapters import FlatChunks
    from ldpaudit.audit.engine import Tally

    rng = np.random.default_rng(1)
    d = 300 if dtype != "uint8" else 200
    ring = wide.Ring(range(d))
    inputs = list(range(d))
    sizes = [int(m) for m in rng.integers(0, 40, d)] if dtype != "int16" else [25] * d
    # y = x, y = x - 1 (x's predecessor on the ring: counted under role 1) or anything else
    values = [np.where(rng.random(m) < 0.5, rng.integers(0, d + 300, m), x - rng.integers(0, 2, m)).astype(dtype)
              for x, m in zip(range(d), sizes)]
    if dtype == "bool":
        values = [v.astype(bool) for v in values]
    if dtype == "float32":      # near 2^24, where a float32 and the int it is compared with round
        values = [(v.astype(np.float64) + 2**24 - 150).astype(np.float32) for v in values]
        ring = wide.Ring(range(2**24 - 150, 2**24 - 150 + d))
        inputs = list(ring.inputs)
    for equal_event in (wide.WideRelation("equal", ring),):
        chosen = wide.fixed_candidates([("y == x", equal_event)], ring)
        tally = Tally(chosen, draws.ByPosition(draws.Positions(inputs)), lambda out, u: out, None)
        outs = [Outputs("array", v, None, len(v)) for v in values]
        block = draws.Block(list(range(d)), inputs, sizes, outs)
        assert tally.block(block).tolist() == _chunked_tally(tally, block).tolist()
        if dtype in ("int64", "int16"):     # the same values sent narrow: compared in the wire dtype
            flat = np.concatenate(values)
            narrow = FlatChunks(None, sizes, narrow=flat.astype(np.uint16), dtype=flat.dtype)
            assert tally.block(draws.Block(list(range(d)), inputs, sizes, narrow)).tolist() == \
                _chunked_tally(tally, block).tolist()
        assert sum(tally.block(block)) > 0


@pytest.mark.slow
def test_a_wide_audit_is_the_same_drawn_in_blocks_or_chunk_by_chunk(monkeypatch):
    """Blocks are a transport: the per-chunk seeds and counts, hence the result, do not move."""
    from ldpaudit.audit import audit

    sys.path.insert(0, "tests")
    import wide_randomizers as wr

    kw = dict(domain=range(5000), epsilon=1.0, samples=1000, batch=True, alpha=0.01, seed=3)
    with isolated("tests/wide_randomizers.py:krr", {"d": "5000", "eps": "1.2"}, batch=True) as randomizer:
        blocks = audit(randomizer, **kw)
        monkeypatch.setattr(draws, "BLOCK_JOBS", 1)
        one_by_one = audit(randomizer, **kw)
    in_process = [audit(wr.krr(5000, 1.2), **kw)]
    monkeypatch.setattr(draws, "BLOCK_JOBS", 1024)
    in_process.append(audit(wr.krr(5000, 1.2), **kw, workers=2))      # a pool: chunk by chunk
    for a, b in ((blocks, one_by_one), tuple(in_process)):
        assert (a.verdict, a.epsilon_lower_bound, a.witness) == (b.verdict, b.epsilon_lower_bound, b.witness)
    assert blocks.verdict == "VIOLATION"


def _worker_reply(block: dict) -> tuple[dict, bytes]:
    """The reply line and payload of a plain (unsandboxed) worker to one block request."""
    request = json.dumps({"block": block}) + "\n"
    proc = subprocess.run([sys.executable, "-m", "ldpaudit.audit.worker", "tests/wide_randomizers.py:krr", "--batch",
                           "--arg", "d=50", "--arg", "eps=1"], input=request.encode(), capture_output=True, timeout=120)
    line, _, payload = proc.stdout.partition(b"\n")
    return json.loads(line), payload


def test_block_seeds_travel_as_uint64_bytes_and_draw_what_a_list_of_seeds_draws():
    chunk_seeds = [0, 1, 2**32, 2**63 - 2, 123456789123456789]
    words = np.array(chunk_seeds, dtype="<u8")
    block = {"inputs": [0, 1, 2, 3, 49], "counts": [40, 40, 1, 0, 40]}
    header, payload = _worker_reply({**block, "seeds": base64.b64encode(words.tobytes()).decode()})
    listed, payload_listed = _worker_reply({**block, "seeds": chunk_seeds})
    assert header["block"] == listed["block"] and payload == payload_listed and len(payload) == header["bytes"]
    layout, _ = block_layout(header, block["counts"], MiB)
    got = block_outputs(layout, block["counts"], np.frombuffer(payload, dtype=np.uint8), None)
    f = wide_randomizers.krr(50, 1)
    assert [y.tolist() for y in got] == [f(x, n, np.random.default_rng(s)).tolist()
                                         for x, n, s in zip(block["inputs"], block["counts"], chunk_seeds)]


@pytest.mark.parametrize("chunk_seeds,match", [
    ("AAAAAAAAAAA=", r"1 seeds for 2 inputs"),
    ("AAAAAAAAAAAAAAAA", r"buffer size must be a multiple"),      # 12 bytes
    ("not base64", r"malformed block request"),
    ([1, 2, 3], r"3 seeds for 2 inputs"),
])
def test_a_block_request_with_malformed_seeds_is_refused_as_such(chunk_seeds, match):
    header, _ = _worker_reply({"inputs": [0, 1], "counts": [5, 5], "seeds": chunk_seeds})
    assert header["kind"] == "request" and re.search(match, header["error"]), header


def test_a_narrow_signed_chunk_spanning_its_dtype_is_counted_not_blamed():
    """int8 outputs from -128 to 127 (x - lo wraps in int8): the histogram is exact, where it
    used to fail in bincount and read as an exception of the randomizer."""
    import collections

    import numpy as np

    from ldpaudit.audit.replies import _array_histogram
    from ldpaudit.audit.wire import decode

    for dtype in (np.int8, np.int16):
        lo = int(np.iinfo(dtype).min)
        values = np.arange(lo, lo + 256).astype(dtype).repeat(3)
        reply = _array_histogram(values, lo, lo + 255)
        got = dict(zip(decode(reply["values"]), (int(c) for c in decode(reply["counts"]))))
        assert got == dict(collections.Counter(values.tolist())), dtype
