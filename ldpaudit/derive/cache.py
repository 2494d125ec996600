"""A cache of rendered derivations, so that deriving a mechanism twice costs a lookup.

A derivation is a pure function of the mechanism's text, the bound parameters, the options,
ldpaudit's own code and the sympy version. The key hashes all of them (the code by the content
of every ``ldpaudit`` source file), so an edit anywhere invalidates the cache. Entries are the
rendered text (never pickles: reading the cache executes nothing). The directory is
``$LDPAUDIT_CACHE_DIR`` or ``$XDG_CACHE_HOME/ldpaudit`` (default ``~/.cache/ldpaudit``), created
private to the user; a directory that others may write to is not used.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from importlib import metadata
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]


def cache_dir() -> Path:
    base = os.environ.get("LDPAUDIT_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "ldpaudit"


def _code_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(_PACKAGE)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def key(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in (_code_digest(), metadata.version("sympy"), *parts):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


def _usable(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = directory.stat()
    except OSError:
        return False
    owned = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    return owned and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def get(k: str) -> str | None:
    path = cache_dir() / "derive" / f"{k}.txt"
    if not _usable(path.parent):
        return None
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def put(k: str, text: str) -> None:
    directory = cache_dir() / "derive"
    if not _usable(directory):
        return
    try:  # atomic: a concurrent reader sees the whole entry or none
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, directory / f"{k}.txt")
    except OSError:
        pass
