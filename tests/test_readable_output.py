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


@pytest.mark.parametrize("spec", ["piecewise.toml", "square_wave.toml", "gaussian.toml", "laplace_mean.toml",
                                  "hybrid.toml", "piecewise_multidim.toml", "duchi_multidim.toml"])
def test_show_fits_80_columns_and_reads_as_math(spec, capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)   # a pipe: 80 columns
    code, out, _ = _run(capsys, "show", str(SPECS / spec))
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 80, out
    for bad in ("nan", "E*"):
        assert bad not in out, (bad, out)
    if spec in ("piecewise.toml", "square_wave.toml", "gaussian.toml", "laplace_mean.toml"):  # one density
        assert "Piecewise(" not in out and "Abs(" not in out


def test_show_prints_a_density_piece_by_piece_in_the_specs_own_names(capsys):
    code, out, _ = _run(capsys, "show", str(SPECS / "piecewise.toml"))
    assert code == 0
    lines = [line.strip() for line in out.splitlines()]
    i = lines.index("f(z|x) = p                if l <= z <= r")
    assert lines[i + 1:i + 8] == ["p*e^(-epsilon)   else if -C <= z <= C", "0                otherwise", "where",
                                  "C = (e^(epsilon/2) + 1)/(e^(epsilon/2) - 1)",
                                  "p = (-e^(epsilon/2) + e^epsilon)/(2*e^(epsilon/2) + 2)",
                                  "l = -C/2 + x*(C/2 + 1/2) + 1/2", "r = C + l - 1"]
    code, out, _ = _run(capsys, "show", str(SPECS / "square_wave.toml"))
    assert "f(z|x) = p   if |x - z| <= b" in out and "q   else if -b <= z <= b + 1" in out


def test_show_states_the_whole_claim_and_no_dangling_colon(tmp_path, capsys):
    code, out, _ = _run(capsys, "show", str(SPECS / "gaussian.toml"))
    assert "  claimed: (epsilon, 1/100000)-LDP" in out
    text = (SPECS / "krr.toml").read_text()
    text = "\n".join(line for line in text.splitlines() if not line.startswith("description"))
    (tmp_path / "mine.toml").write_text(text.replace('name = "k-RR"', 'name = "PM (mine)"'))
    code, out, _ = _run(capsys, "show", str(tmp_path / "mine.toml"))
    assert code == 0 and out.splitlines()[0] == "PM (mine)"


def test_a_vector_witness_prints_the_report_as_sent_in_the_refutation_and_the_tight_witness(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")
    code, out, _ = _run(capsys, "verify", str(SPECS / "duchi_multidim.toml"), "-p", "d=2", "--epsilon", "epsilon*9/10")
    assert code == 1
    y = "y=(2*(1 + e)/(1 - e), 2*(1 + e)/(1 - e))"
    assert out.startswith(f"REFUTED: Q({y}|x=(-1, -1))/Q({y}|x=(1, 1)) = e")
    code, out, _ = _run(capsys, "verify", str(SPECS / "duchi_multidim.toml"), "-p", "d=2", "--tight")
    assert code == 0 and f"tightest: ε* = epsilon, attained by Q({y}|x=(-1, -1))" in out
    assert ")*(" not in out


def test_no_absolute_value_whose_sign_the_declared_range_decides():
    import sympy as sp

    from ldpaudit.derive.algebra import without_abs

    e = sp.Symbol("epsilon", positive=True)
    b = sp.Symbol("b", positive=True)
    assert without_abs(1 / sp.Abs(sp.exp(e) - 1)) == 1 / (sp.exp(e) - 1)
    assert without_abs(sp.Abs(sp.exp(-e) - 1)) == 1 - sp.exp(-e)
    assert without_abs(sp.Abs(sp.exp(e) - b)) == sp.Abs(sp.exp(e) - b)        # undecided: kept
    x = sp.Symbol("x", real=True)
    assert without_abs(sp.Abs(x)) == sp.Abs(x)


@pytest.mark.parametrize("spec", ["duchi_binary_mean.toml", "square_wave.toml", "piecewise.toml"])
def test_derive_prints_no_abs_of_a_positive_quantity(spec, capsys):
    code, out, _ = _run(capsys, "derive", str(SPECS / spec))
    assert code == 0 and "Abs(exp(epsilon) - 1)" not in out and "nan" not in out
