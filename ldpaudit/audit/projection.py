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
