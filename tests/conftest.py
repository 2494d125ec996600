"""Suite-wide settings: every test starts with an empty result cache of its own (derivations,
loads, check rows, command outputs), so no test is answered by an entry another test left
behind, whatever it monkeypatched, and no test depends on the order the tests run in.

Output is laid out 1000 columns wide unless a test sets its own width: a command's text wraps at
80 columns in a pipe, and where it wraps depends on the length of the checkout's path (a spec's
path is part of the text), so an assertion on a phrase must not depend on where the suite runs.
The tests of wrapping set $COLUMNS themselves."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_result_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("LDPAUDIT_CACHE_DIR", str(tmp_path_factory.mktemp("ldpaudit-cache")))
    monkeypatch.setenv("COLUMNS", "1000")
    yield
