"""Let a stage package be called as its main function: ``ldpaudit.audit(f, domain=..., ...)``
is ``ldpaudit.audit.audit(f, ...)``, while ``ldpaudit.audit.command`` and the other
submodules stay importable as usual."""

from __future__ import annotations

import sys
import types


def make_callable(module_name: str, function_name: str) -> None:
    module = sys.modules[module_name]

    class _CallablePackage(types.ModuleType):
        def __call__(self, *args, **kwargs):
            return getattr(self, function_name)(*args, **kwargs)

    _CallablePackage.__name__ = f"{module_name} (callable as {function_name})"
    module.__class__ = _CallablePackage


def lazy_names(module_name: str, api: dict[str, str]):
    """A module ``__getattr__`` (PEP 562) that imports ``api[name]`` on first use, so that a
    package's public names cost nothing until they are used."""
    import importlib

    def __getattr__(name: str):
        if name not in api:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        return getattr(importlib.import_module(api[name]), name)

    return __getattr__
