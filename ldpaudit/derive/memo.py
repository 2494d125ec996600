"""Per-process memory of derivation stages, so that one ``derive`` does each stage once.

A full derivation reaches the same stage from several places (the optimal-k step and the
mutual-information step both need the k-subset information and its stationary point; the
effective sample size needs the i.i.d. risk the variance step already has). A stage is a pure
function of what the derivation reads from a mechanism -- its free parameters, its input
domain and its channel -- and of its other arguments, so its value is kept under that key.
Names, descriptions and sources are not part of the key: a spec file and the catalog
constructor of the same channel share their stages. Exceptions are not kept (they name the
mechanism). The memory is bounded (least recently used entries are dropped).
"""

from __future__ import annotations

import functools
from collections import OrderedDict

MAX_ENTRIES = 128


def channel_key(mech) -> tuple:
    """What a derivation stage reads from ``mech``."""
    return (type(mech.channel).__name__, mech.parameters, mech.inputs, mech.channel)


def per_channel(func):
    """Memoize ``func(mech, *args, **kwargs)`` on :func:`channel_key` and the other arguments."""
    memory: OrderedDict = OrderedDict()

    @functools.wraps(func)
    def wrapper(mech, *args, **kwargs):
        try:
            key = (channel_key(mech), args, tuple(sorted(kwargs.items())))
            hash(key)
        except (TypeError, AttributeError):  # an unhashable channel: no memory
            return func(mech, *args, **kwargs)
        if key in memory:
            memory.move_to_end(key)
            return memory[key]
        value = func(mech, *args, **kwargs)
        memory[key] = value
        if len(memory) > MAX_ENTRIES:
            memory.popitem(last=False)
        return value

    wrapper.cache_clear = memory.clear
    return wrapper
