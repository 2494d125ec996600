"""A check that cannot be decided is not a refusal: exit 3 (inconclusive), never 2 (bad input).

"Refuse only what is shown wrong": a row sum that sympy proves different from 1 is bad input
(exit 2, INVALID in `check`); one that sympy can neither prove nor disprove is undecided (exit 3,
UNKNOWN in `check`), and says so. sympy proves every row sum it meets in the catalog, so the
undecided case is produced by making the zero test answer "unsure", as it does on expressions
beyond its simplifiers.
"""
from __future__ import annotations

import pytest

from ldpaudit import cli
from ldpaudit.errors import InvalidSpec, Undecided
from ldpaudit.mechanism import checks
from ldpaudit.mechanism.loader import loads_spec

WRR = '''
[mechanism]
name = "W-RR"
claimed_epsilon = "epsilon"

[parameters.epsilon]
type = "real"
min = 0
strict_min = true

[example]
epsilon = "log(3)"

[inputs]
labels = [0, 1]

[channel]
form = "explicit"
outputs = [0, 1]
entry = "{keep} if y == x else 1/(exp(epsilon) + 1)"
'''
RIGHT = WRR.format(keep="exp(epsilon)/(exp(epsilon) + 1)")
WRONG = WRR.format(keep="exp(epsilon)/(exp(epsilon) + 2)")


@pytest.fixture
def unsure(monkeypatch):
    """sympy's zero test answers "unsure" for the row sums."""
    monkeypatch.setattr(checks, "is_zero", lambda expr: None)


def test_a_wrong_row_sum_is_bad_input(tmp_path, capsys):
    with pytest.raises(InvalidSpec, match=r"row x=0 of channel 'W-RR' sums to .*; each row must sum to 1 \(it is .* at epsilon=.*\)$") as info:
        loads_spec(WRONG)
    assert not isinstance(info.value, Undecided)
    path = tmp_path / "wrong.toml"
    path.write_text(WRONG)
    assert cli.main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ldpaudit: error: ") and "wrong.toml: row x=0" in err


def test_an_undecided_row_sum_is_inconclusive(unsure, tmp_path, capsys):
    with pytest.raises(Undecided, match=r"sympy could not prove it: not shown wrong, undecided"):
        loads_spec(RIGHT)
    path = tmp_path / "wrr.toml"
    path.write_text(RIGHT)
    assert cli.main(["verify", str(path)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ldpaudit: inconclusive: ") and "wrr.toml: row x=0" in err[0]


def test_check_lists_an_undecided_spec_as_unknown_and_a_wrong_one_as_invalid(unsure, tmp_path):
    from ldpaudit.check import check_one

    (tmp_path / "wrr.toml").write_text(RIGHT)
    row = check_one(tmp_path / "wrr.toml", audit_samples=100, load_seconds=None, load_memory_mb=None)
    assert row["verdict"] == "UNKNOWN" and "undecided" in row["error"]


def test_check_lists_a_wrong_spec_as_invalid(tmp_path):
    from ldpaudit.check import check_one

    (tmp_path / "wrong.toml").write_text(WRONG)
    row = check_one(tmp_path / "wrong.toml", audit_samples=100, load_seconds=None, load_memory_mb=None)
    assert row["verdict"] == "INVALID"
