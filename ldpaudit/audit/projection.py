"""User projections: ``audit(..., feature=f)`` / ``--feature module:func``.

A feature maps each output to what the user knows matters, e.g. for local hashing (OLH, BLH)
the report ``(seed, value)`` to the vector of inputs it supports,
``tuple(int(h(seed, v) == value) for v in domain)``: the 63-bit seed makes almost every raw
output distinct, while the projected outputs are unary vectors the auditor's pooled relation
events read directly.

Validity: the audit runs on feature ∘ randomizer. A feature that depends on the output only
(never on the input) is post-processing, so feature ∘ randomizer is ε-LDP whenever the
randomizer is; every certified lower bound on the projected mechanism's ε is a lower bound on
the randomizer's. A feature takes the randomizer's calling convention: ``feature(y)`` per
output for per-call randomizers, ``feature(outputs)`` on the whole batch (returning n
projected outputs) for batch ones, so it can be vectorized.
"""
from __future__ import annotations

from typing import Callable

from ldpaudit.errors import InvalidParameter, LdpAuditError, RandomizerError


def project(randomizer: Callable, feature: Callable, *, batch: bool) -> Callable:
    """The randomizer followed by the feature, with the same calling convention."""
    if not callable(feature):
        raise InvalidParameter(f"feature={feature!r} is not callable; give a function of one output "
                               f"(or of a batch of outputs with batch=True)")
    name = getattr(feature, "__name__", repr(feature))

    def apply(x, y):
        try:
            return feature(y)
        except LdpAuditError:
            raise
        except Exception as exc:
            raise RandomizerError(f"feature {name} raised {type(exc).__name__} on an output of input {x!r}: "
                                  f"{exc}") from exc

    if batch:
        def projected(x, n, rng):
            return apply(x, randomizer(x, n, rng))
    else:
        def projected(x):
            return apply(x, randomizer(x))

    projected.__name__ = f"{name}∘{getattr(randomizer, '__name__', 'randomizer')}"
    projected.parts = (randomizer, feature)     # a cluster rebuilds the composition on its workers
    close = getattr(randomizer, "close", None)
    if close is not None:
        projected.close = close
    return projected


def per_output(feature: Callable) -> Callable:
    """A batch feature applying a per-output ``feature`` to each output of a batch (for a
    per-call randomizer that the CLI runs batched, isolated or journaled)."""
    def batched(outputs):
        import numpy as np

        if isinstance(outputs, np.ndarray):
            items = outputs.tolist() if outputs.ndim == 1 else [tuple(r) for r in outputs.tolist()]
        else:
            items = list(outputs)
        return [feature(y) for y in items]

    batched.__name__ = getattr(feature, "__name__", "feature")
    return batched


def hash_support(hash_function: Callable, domain) -> Callable:
    """The projection of local hashing: each output ``(seed, value)`` to the 0/1 row
    ``[value == h(seed, x) for x in domain]`` of the inputs it supports, for a batch of outputs
    (an (n, 2) array or n pairs), returning an (n, len(domain)) int8 matrix.

    ``h(seed, x)`` is the user's hash (the function their randomizer hashes with). It is first
    called with the whole array of seeds and one input (vectorized); if that raises or does
    not return one integer per seed, once per seed. With a spec of the local-hashing form
    (a cohort channel of the all-functions family, e.g. specs/olh.toml) the spec-guided audit
    reads these rows: the exact probabilities of hits, collisions and misses come from the
    spec, only the hash comes from the user. ``.per_output`` is the same projection of one
    output, for per-call randomizers."""
    import numpy as np

    if not callable(hash_function):
        raise InvalidParameter(f"hash={hash_function!r} is not callable; give a function h(seed, x) -> value")
    xs = list(domain)
    name = getattr(hash_function, "__name__", repr(hash_function))

    def support(outputs):
        seeds, values = seeds_and_values(outputs)
        out = np.empty((len(seeds), len(xs)), dtype=np.int8)
        for j, x in enumerate(xs):
            out[:, j] = hash_column(hash_function, seeds, x) == values
        return out

    def support_one(y):
        return tuple(support(np.array([y], dtype=object))[0].tolist())

    support.__name__ = f"support[{name}]"
    support_one.__name__ = support.__name__
    support.per_output = support_one
    support.hash_support = True
    support_one.hash_support = True
    support.hash_function = support_one.hash_function = hash_function   # wide domains read (seed, value) directly
    return support


def seeds_and_values(outputs):
    """The seeds and values of a batch of (seed, value) outputs, as two integer arrays."""
    import numpy as np

    pairs = outputs if isinstance(outputs, np.ndarray) else np.array(list(outputs), dtype=object)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        first = outputs[0] if len(outputs) else None
        raise RandomizerError(f"randomizer returned {first!r}; with a hash projection every output must be "
                              f"a pair (seed, value)")
    if pairs.dtype == object:
        try:
            pairs = pairs.astype(np.int64)
        except (TypeError, ValueError, OverflowError):
            pairs = np.array([(int(s), int(v)) for s, v in pairs.tolist()], dtype=np.uint64)
    return pairs[:, 0], pairs[:, 1]


def hash_column(hash_function: Callable, seeds, x):
    """h(seed, x) for every seed of an array: one vectorized call if the hash takes the array
    (and returns one integer per seed), else one call per seed."""
    import numpy as np

    try:
        out = np.asarray(hash_function(seeds, x))
        if out.shape == seeds.shape and out.dtype.kind in "iu":
            return out
    except LdpAuditError:
        raise
    except Exception:  # noqa: BLE001 - not vectorized: call it once per seed below
        pass
    name = getattr(hash_function, "__name__", None) or repr(hash_function)
    values = np.empty(len(seeds), dtype=np.int64)
    for r, s in enumerate(seeds.tolist()):
        try:
            v = hash_function(s, x)
        except Exception as exc:
            raise RandomizerError(f"hash function {name} raised {type(exc).__name__} on seed {s!r}, input "
                                  f"{x!r}: {exc}") from exc
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise RandomizerError(f"hash function {name} returned {v!r} for seed {s!r}, input {x!r}; "
                                  f"it must return an integer hash value")
        values[r] = v
    return values
