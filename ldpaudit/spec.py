"""Deprecated alias of :mod:`ldpaudit.mechanism` (the package was named ``spec`` until 0.1).

``import ldpaudit.spec`` and ``from ldpaudit.spec.loader import load_spec`` keep working and warn
once with a :class:`DeprecationWarning`; every submodule ``ldpaudit.spec.X`` *is* the module
``ldpaudit.mechanism.X`` (the same object in :data:`sys.modules`), so state and monkeypatches
are shared. Nothing inside ldpaudit imports this module."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

_OLD, _NEW = __name__, "ldpaudit.mechanism"

warnings.warn(
    f"{_OLD} was renamed {_NEW}; import {_NEW} instead ({_OLD} will be removed in a later release)",
    DeprecationWarning, stacklevel=2)

#: a package path, so that ``ldpaudit.spec.X`` is looked up (by the finder below)
__path__: list[str] = []


class _AliasLoader(importlib.abc.Loader):
    def create_module(self, spec):
        return importlib.import_module(_NEW + spec.name[len(_OLD):])

    def exec_module(self, module):  # the module is the new one, already executed
        pass


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_OLD + "."):
            return None
        if importlib.util.find_spec(_NEW + fullname[len(_OLD):]) is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader())


if not any(isinstance(finder, _AliasFinder) for finder in sys.meta_path):
    sys.meta_path.insert(0, _AliasFinder())


def __getattr__(name: str):
    return getattr(importlib.import_module(_NEW), name)


def __dir__():
    return sorted(set(globals()) | set(dir(importlib.import_module(_NEW))))
