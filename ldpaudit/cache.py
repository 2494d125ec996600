"""A private on-disk cache of results that are pure functions of their inputs, so that doing the
same work twice costs a lookup.

Every answer ldpaudit gives is a function of its inputs alone (budgets count work, not the
clock): the spec's bytes, the bound parameters, the options, ldpaudit's own code and the
versions of the libraries it computes with. A key hashes all of them (the code by the content of
every ``ldpaudit`` source file), so an edit anywhere invalidates every entry.

Entries live in namespaces (``derive``: rendered derivations; ``check``: rows of ``ldpaudit
check`` as JSON; ``load``: validated mechanisms). Text entries execute nothing when read. A
``load`` entry is a pickle, which would run code when read: it is written and read only in a
directory that this user owns and that no one else may write to (the same trust as the user's
own files), and never in any other. The directory is ``$LDPAUDIT_CACHE_DIR`` or
``$XDG_CACHE_HOME/ldpaudit`` (default ``~/.cache/ldpaudit``), created private to the user;
``LDPAUDIT_CACHE_DIR=off`` turns the cache off.

Below every stage: it imports nothing of ldpaudit.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
import sys
import tempfile
from importlib import metadata
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent

#: the libraries whose versions are part of every key (a patch release may change a last digit)
LIBRARIES = ("sympy", "numpy", "scipy", "z3-solver", "mpmath")


def cache_dir() -> Path | None:
    """The cache directory, or None when the cache is off."""
    base = os.environ.get("LDPAUDIT_CACHE_DIR")
    if base:
        return None if base.lower() in ("off", "0", "none", "no") else Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "ldpaudit"


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """The digest of ldpaudit's source files and the versions of what it computes with."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(_PACKAGE)).encode())
        digest.update(path.read_bytes())
    digest.update(sys.version.encode())
    for name in LIBRARIES:
        try:
            digest.update(f"{name}={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name}=absent".encode())
    return digest.hexdigest()


def key(*parts: str | bytes) -> str:
    """The key of a result computed from ``parts`` by this code with these libraries."""
    digest = hashlib.sha256()
    for part in (code_digest(), *parts):
        digest.update(part if isinstance(part, bytes) else part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


def _usable(directory: Path) -> bool:
    """The directory exists (made private if new), belongs to this user and only they may write it."""
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = directory.stat()
    except OSError:
        return False
    owned = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    return owned and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _entry(namespace: str, k: str, suffix: str) -> Path | None:
    base = cache_dir()
    if base is None:
        return None
    directory = base / namespace
    if not (_usable(base) and _usable(directory)):
        return None
    return directory / f"{k}{suffix}"


def get_bytes(namespace: str, k: str, suffix: str = ".bin") -> bytes | None:
    path = _entry(namespace, k, suffix)
    if path is None:
        return None
    try:
        info = path.stat()
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            return None
        return path.read_bytes()
    except OSError:
        return None


def put_bytes(namespace: str, k: str, data: bytes, suffix: str = ".bin") -> None:
    path = _entry(namespace, k, suffix)
    if path is None:
        return
    try:  # atomic: a concurrent reader sees the whole entry or none
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        pass


def get_text(namespace: str, k: str) -> str | None:
    data = get_bytes(namespace, k, ".txt")
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def put_text(namespace: str, k: str, text: str) -> None:
    put_bytes(namespace, k, text.encode("utf-8"), ".txt")
