"""Simulated points beside a figure's derived curve (issue 33, item 1): the seeded ℓ2² risk of
the spec's estimator on reports of the reference sampler, within a few standard errors of the
derived worst-case risk (k-RR's and OUE's are largest at the uniform distribution), the same
on a rebuild, and malformed `simulate` tables refused in one line naming the key."""

from __future__ import annotations

import json

import pytest

from ldpaudit.cli import main

MANIFEST = '''
[paper]
title = "k-RR and OUE, simulated"
source = "test"
output = "build"
model = "iid"

[mechanisms]
krr = {{ spec = "krr", let = {{ d = "4" }} }}
oue = {{ spec = "oue", let = {{ d = "4" }} }}

[[figure]]
name = "risk"
caption = "l2 risk against epsilon, derived and simulated"
x = {{ epsilon = ["1/2", "2"] }}
curves = [{{ label = "4-RR", value = "{value}", simulate = {simulate} }},
          {{ label = "OUE", value = "oue.l2_worst", simulate = {{ n = 400, trials = 300, seed = 1 }} }}]
log_y = true
'''
GOOD = {"value": "krr.l2_worst", "simulate": "{ n = 400, trials = 300, seed = 1 }"}


def _build(tmp_path, capsys, **fields):
    (tmp_path / "paper.toml").write_text(MANIFEST.format(**{**GOOD, **fields}))
    code = main(["reproduce", str(tmp_path / "paper.toml"), "-q"])
    captured = capsys.readouterr()
    return code, captured


def test_simulated_points_estimate_the_derived_curve(tmp_path, capsys):
    code, _ = _build(tmp_path, capsys)
    assert code == 0
    curves = json.loads((tmp_path / "build" / "paper.json").read_text())["items"]["figure:risk"]["curves"]
    for c in curves:
        sim = c["simulated"]
        assert (sim["n"], sim["trials"], sim["model"], sim["inputs"]) == (400, 300, "iid", "uniform")
        for derived, mean, se in zip(c["y"], sim["y"], sim["se"]):
            assert 0 < se < 0.1 * derived and abs(mean - derived) < 3 * se, (c["label"], derived, mean, se)
    first = [c["simulated"]["y"] for c in curves]
    (tmp_path / "build").rename(tmp_path / "first")
    assert _build(tmp_path, capsys)[0] == 0                        # seeded: the same points again
    again = json.loads((tmp_path / "build" / "paper.json").read_text())["items"]["figure:risk"]["curves"]
    assert [c["simulated"]["y"] for c in again] == first


@pytest.mark.parametrize("fields, words", [
    ({"value": "krr.variance"}, "curves[0].simulate: simulated points are drawn for a curve whose value is one"),
    ({"simulate": "{ n = 400, trials = 300, sed = 1 }"}, "curves[0].simulate.sed is not a key of simulate"),
    ({"simulate": "{ trials = 300 }"}, "curves[0].simulate.n is missing"),
    ({"simulate": "{ n = 10000000, trials = 100000 }"}, "more than 200,000,000; lower n or trials"),
    ({"simulate": "{ n = 0, trials = 300 }"}, "curves[0].simulate.n = 0 must be a whole number in [1, 10000000]"),
])
def test_a_malformed_simulate_table_is_bad_input_naming_the_key(tmp_path, capsys, fields, words):
    code, captured = _build(tmp_path, capsys, **fields)
    assert code == 2 and words in captured.err and len(captured.err.strip().splitlines()) == 1
