"""Output a person can read and trust (issue 32): statements that looked false, each with the
spec written the way a user writes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ldpaudit.cli import main

SPECS = Path(__file__).resolve().parents[1] / "specs"


def _run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_fixed_dimension_signs_spec_says_at_which_d_it_sums_to_1(tmp_path, capsys):
    text = (SPECS / "duchi_multidim.toml").read_text()
    for old, new in [('[parameters.d]\ntype = "integer"\nmin = 1\nmax = 6\ndescription = "dimension of the input"\n\n', ""),
                     ("epsilon = 1\nd = 3\n", "epsilon = 1\n"), ('dimension = "d"', "dimension = 2"),
                     ('half = "2**(d - 1)"', 'half = "2"'),
                     ('B = "(exp(epsilon) + 1)/(exp(epsilon) - 1)*2**(d - 1)/binomial(d - 1, floor(d/2))"',
                      'B = "2*(exp(epsilon) + 1)/(exp(epsilon) - 1)"')]:
        assert old in text
        text = text.replace(old, new)
    (tmp_path / "duchi2.toml").write_text(text)
    code, out, _ = _run(capsys, "show", str(tmp_path / "duchi2.toml"))
    assert code == 0 and "P(s | v) sums to 1 over the sign vectors at d = 2: exact sums" in out
    assert "for every d in its range" not in out
    code, out, _ = _run(capsys, "show", str(SPECS / "duchi_multidim.toml"))
    assert "P(s | v) sums to 1 over the sign vectors for every d in its range" in out   # d in 1..6


def test_a_negative_real_input_entry_names_its_point_and_value(tmp_path, capsys):
    """No parameters: the message has no dangling "at"; the value is simplified, with its decimal."""
    (tmp_path / "neg.toml").write_text('[mechanism]\nname = "broken binary mean"\nclaimed_epsilon = "2"\n\n'
                                       "[inputs]\nlow = -1\nhigh = 1\n\n"
                                       '[channel]\nform = "explicit"\noutputs = [-1, 1]\n'
                                       'entry = "1/2 + y*(1 - abs(x))*(exp(2) - 1)/(exp(2) + 1)"\n')
    code, out, err = _run(capsys, "show", str(tmp_path / "neg.toml"))
    assert code == 2 and not out
    assert err.strip().endswith("Q(y=-1|x=-1/4) of 'broken binary mean' = (5 - exp(2))/(4*(1 + exp(2))) ≈ -0.0712 "
                                "is not a probability (it must lie in [0, 1])")
    assert " at is " not in err
