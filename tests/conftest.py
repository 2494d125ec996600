"""Suite-wide settings: every test session starts with an empty derivation cache of its own,
so no test is answered by an entry left behind by an earlier run."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_derivation_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("LDPAUDIT_CACHE_DIR", str(tmp_path_factory.mktemp("ldpaudit-cache")))
    yield
    mp.undo()
