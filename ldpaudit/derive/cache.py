"""The cache of rendered derivations (:mod:`ldpaudit.cache`, namespace ``derive``): deriving a
mechanism twice costs a lookup. Entries are the rendered text (reading one executes nothing)."""

from __future__ import annotations

from ldpaudit import cache as _cache
from ldpaudit.cache import cache_dir, key

__all__ = ["cache_dir", "get", "key", "put"]


def get(k: str) -> str | None:
    return _cache.get_text("derive", k)


def put(k: str, text: str) -> None:
    _cache.put_text("derive", k, text)
