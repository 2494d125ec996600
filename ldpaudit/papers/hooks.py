"""The named hooks: the parts of a paper that need code of their own (Monte-Carlo experiments,
multi-round simulations), called from a manifest by name::

    [[hook]]
    hook = "wang2017_simulation"
    options = { repetitions = 100 }

A hook is ``f(*, out, stem, manifest, **options) -> (payload, files)``: it writes its files
into ``out`` and returns its values (JSON). Seeds are fixed inside each hook, so its values are
a function of its options alone."""

from __future__ import annotations

#: hook name -> "module:function" (imported only when the hook runs)
_TARGETS: dict[str, str] = {}


def _resolve(name: str):
    import importlib

    module, _, func = _TARGETS[name].partition(":")
    return getattr(importlib.import_module(module), func)


class _Hooks(dict):
    def __getitem__(self, name):
        return _resolve(name)


HOOKS = _Hooks({name: None for name in _TARGETS})

__all__ = ["HOOKS"]
