"""The derivation cache: a second `ldpaudit derive` of the same spec is a lookup with the same
text; any change to the spec's bytes, the bindings or the options derives afresh; a cache
directory that others can write to is never read."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ldpaudit.cli import main
from ldpaudit.derive import cache

ROOT = Path(__file__).resolve().parents[1]


def _derive(capsys, *argv) -> str:
    assert main(["derive", *argv]) == 0
    return capsys.readouterr().out


def test_second_derive_is_served_from_the_cache(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LDPAUDIT_CACHE_DIR", str(tmp_path / "cache"))
    spec = tmp_path / "wrr.toml"
    shutil.copy(ROOT / "specs" / "wrr.toml", spec)
    first = _derive(capsys, str(spec), "--format", "json")
    entries = list((tmp_path / "cache" / "derive").iterdir())
    assert len(entries) == 1 and entries[0].read_text() == first
    # a planted entry proves the second call reads the cache instead of deriving
    entries[0].write_text("from the cache\n")
    assert _derive(capsys, str(spec), "--format", "json") == "from the cache\n"
    assert _derive(capsys, str(spec), "--format", "json", "--no-cache") == first
    # other bindings, options or spec bytes are other keys
    _derive(capsys, str(spec), "--format", "md")
    _derive(capsys, str(spec), "--format", "json", "-p", "epsilon=1")
    spec.write_text(spec.read_text() + "\n# edited\n")
    assert _derive(capsys, str(spec), "--format", "json") == first
    assert len(list((tmp_path / "cache" / "derive").iterdir())) == 4


def test_a_shared_writable_cache_directory_is_ignored(tmp_path, monkeypatch, capsys):
    shared = tmp_path / "shared"
    (shared / "derive").mkdir(parents=True)
    os.chmod(shared / "derive", 0o777)
    monkeypatch.setenv("LDPAUDIT_CACHE_DIR", str(shared))
    key = cache.key("anything")
    (shared / "derive" / f"{key}.txt").write_text("planted by someone else")
    assert cache.get(key) is None
    _derive(capsys, "wrr", "--format", "json")
    assert [p.name for p in (shared / "derive").iterdir()] == [f"{key}.txt"]
