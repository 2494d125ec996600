"""`ldpaudit bench --servers` (issue 34, item 5): the server-side bugs of the public suite, each
audited by audit-estimator against the spec's derived estimator beside its correct counterpart:
clip-and-normalize (multi-freq-ldpy, ldp-toolbox) and OUE decoded as SUE are VIOLATIONs, the
spec's own estimator on the same reports is not."""

from __future__ import annotations

import json

import numpy as np

from ldpaudit.bench import servers
from ldpaudit.cli import main


def test_every_server_bug_is_caught_and_no_counterpart(capsys):
    assert main(["bench", "--servers", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    rows = {r["bug"]: r for r in payload["servers"]}
    assert set(rows) == {"clip-normalize", "oue-decoded-as-sue"}
    assert all(r["verdict"] == "VIOLATION" and r["counterpart_verdict"] == "NO_EVIDENCE" for r in rows.values())
    assert rows["oue-decoded-as-sue"]["biased_coordinates"] == 24        # every coordinate, every distribution


def test_clip_normalize_is_what_the_libraries_do():
    assert np.allclose(servers.clip_normalize([0.5, -0.25, 0.5, 0.0]), [0.5, 0.0, 0.5, 0.0])
    assert np.isnan(servers.clip_normalize([-0.1, 0.0])).all()   # ldp-toolbox's 0/0 when every estimate is <= 0


def test_unknown_server_bug_is_bad_input(capsys):
    assert main(["bench", "--servers", "--only", "float-laplace"]) == 2
    assert "is not a server bug" in capsys.readouterr().err
