"""The default suite's twin of tests/test_noisy_neighbours.py (a slow test): the same answers
beside CPU hogs as on a quiet machine, and under another Python hash seed, for four bundled specs
of different forms (a finite channel, a piecewise density, a density on the real line with |.|,
a hashed channel): `check` of one of them, `verify --tight --json` of all four, and `amplify` at
n = 10^4. Budgets count the job's own work, so only timings may differ."""

from __future__ import annotations

import pytest

from test_noisy_neighbours import _answers, _jobs, _parsed, beside_hogs

SPECS = ["specs/krr.toml", "specs/square_wave.toml", "specs/joseph_uvrr2.toml", "specs/olh.toml"]
CHECK = ("specs/square_wave.toml",)
AMPLIFY = ["amplify", "krr", "-p", "d=8", "-p", "epsilon=1", "--n", "10000", "--delta", "1e-6", "--json"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    quiet = _parsed(_answers(_jobs(tmp_path_factory.mktemp("quiet"), "0", SPECS, AMPLIFY, CHECK)))
    noisy = _parsed(beside_hogs(1, lambda: _answers(_jobs(tmp_path_factory.mktemp("noisy"), "1", SPECS, AMPLIFY,
                                                         CHECK))))
    return quiet, noisy


def test_the_same_answers_beside_cpu_hogs_and_under_another_hash_seed(runs):
    quiet, noisy = runs
    code, rows = noisy["check"]
    assert code == 0 and rows["summary"] == {"OK": 1}
    assert quiet["check"] == noisy["check"]
    assert set(noisy["verify"]) == set(SPECS)
    for spec in SPECS:
        assert noisy["verify"][spec] == quiet["verify"][spec], spec
        assert noisy["verify"][spec][0] == 0, spec
    assert quiet["amplify"] == noisy["amplify"] and noisy["amplify"][0] == 0
