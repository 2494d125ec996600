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
