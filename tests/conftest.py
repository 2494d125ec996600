"""Suite-wide settings: every test starts with an empty result cache of its own (derivations,
loads, check rows, command outputs), so no test is answered by an entry another test left
behind, whatever it monkeypatched, and no test depends on the order the tests run in."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_result_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("LDPAUDIT_CACHE_DIR", str(tmp_path_factory.mktemp("ldpaudit-cache")))
    yield
