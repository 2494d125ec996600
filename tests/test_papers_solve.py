"""The manifest's solving calls (ldpaudit/papers/solve.py): at(), minimizer(),
integer_minimizer(), crossing() and switch_point() give the values derived by hand or by brute
force, both sides of each; a name that is no row parameter, quantity or call variable exits 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sympy as sp

from ldpaudit.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _build(tmp_path: Path, body: str) -> dict:
    (tmp_path / "paper.toml").write_text(
        f'[paper]\ntitle = "solve"\noutput = "build"\nmodel = "fixed"\n\n[mechanisms]\n'
        f'olh = {{ spec = "{ROOT / "specs" / "olh.toml"}", let = {{ p_j = "0" }} }}\n'
        f'pm = "{ROOT / "specs" / "piecewise.toml"}"\n'
        f'duchi = {{ spec = "{ROOT / "specs" / "duchi_binary_mean.toml"}", let = {{ B = 1 }} }}\n\n' + body,
        encoding="utf-8")
    assert main(["reproduce", str(tmp_path / "paper.toml"), "-q"]) == 0
    out = {}
    for path in (tmp_path / "build").glob("table-*.json"):
        table = json.loads(path.read_text(encoding="utf-8"))
        out[table["name"]] = [{c["label"]: c for c in row["cells"]} for row in table["rows"]]
    return out


def test_minimizer_and_integer_minimizer_of_olh(tmp_path):
    """Var* = (g + e^ε - 1)²/((g - 1)(e^ε - 1)²) is least at g = e^ε + 1 (Wang et al.), and the
    best integer g is the one a scan of g = 2..40 finds."""
    rows = _build(tmp_path, """
[[table]]
name = "olh"
grid = { epsilon = ["1/2", "2", "3"] }
columns = [
  { label = "g*", value = "minimizer(olh.variance, g)", printed = "exp(epsilon) + 1", relative_tolerance = "1/10000000000000000000000000" },
  { label = "g", value = "integer_minimizer(olh.variance, g)" },
  { label = "at 4", value = "at(olh.variance, g, 4)" },
]
""")["olh"]
    for eps, row in zip((sp.Rational(1, 2), sp.Integer(2), sp.Integer(3)), rows):
        assert row["g*"]["verdict"] == "AGREE"
        t = sp.exp(eps)
        var = lambda g: (g + t - 1) ** 2 / ((g - 1) * (t - 1) ** 2)  # noqa: E731
        best = min(range(2, 41), key=lambda g: sp.N(var(g), 40))
        assert int(row["g"]["exact"]) == best and best in (sp.floor(t + 1), sp.ceiling(t + 1))
        assert row["at 4"]["value"] == pytest.approx(float(var(4)), rel=1e-14)
    assert [int(r["g"]["exact"]) for r in rows] == [3, 8, 21]


def test_crossing_of_pm_and_duchi_is_exact(tmp_path):
    """PM's worst case 4s/(3(s-1)²), s = e^(ε/2), equals Duchi's ((e^ε+1)/(e^ε-1))² at
    ε* = 2 arccosh((1 + √7)/3) ≈ 1.2898 and nowhere else; a certified minimizer of a
    transcendental objective agrees with a fine grid."""
    rows = _build(tmp_path, """
[[table]]
name = "cross"
rows = [{ n = 1 }]
columns = [
  { label = "eps*", value = "crossing(pm.l2_worst, duchi.l2_worst, epsilon)", printed = "1.2898" },
  { label = "lambda*", value = "minimizer(epsilon*(pm.l2_worst + 1), epsilon)" },
]
""")["cross"]
    star = float(sp.N(2 * sp.acosh((1 + sp.sqrt(7)) / 3), 30))
    assert rows[0]["eps*"]["value"] == pytest.approx(star, rel=1e-15)
    assert rows[0]["eps*"]["verdict"] == "AGREE"
    h = lambda lam: lam * (4 * sp.exp(lam / 2) / (3 * (sp.exp(lam / 2) - 1) ** 2) + 1)  # noqa: E731
    lam = rows[0]["lambda*"]["value"]
    grid = [lam * (1 + k / 1000) for k in range(-50, 51)]
    values = [float(h(x)) for x in grid]
    assert values.index(min(values)) == 50 and 1 < lam < 4


def test_crossing_that_does_not_cross_exits_2(tmp_path, capsys):
    (tmp_path / "paper.toml").write_text(
        f'[paper]\ntitle = "t"\nmodel = "fixed"\n[mechanisms]\npm = "{ROOT / "specs" / "piecewise.toml"}"\n'
        '[[table]]\nname = "t"\nrows = [{ n = 1 }]\n'
        'columns = [{ label = "x", value = "crossing(pm.l2_worst, 2*pm.l2_worst, epsilon)" }]\n', encoding="utf-8")
    assert main(["reproduce", str(tmp_path / "paper.toml"), "-q"]) == 2
    assert "cross at 0 points" in capsys.readouterr().err


def test_a_stray_name_exits_2_naming_it(tmp_path, capsys):
    (tmp_path / "paper.toml").write_text(
        f'[paper]\ntitle = "t"\n[mechanisms]\npm = "{ROOT / "specs" / "piecewise.toml"}"\n'
        '[[table]]\nname = "t"\nrows = [{ n = 1 }]\n'
        'columns = [{ label = "x", value = "at(pm.l2_worst, epsilon, 1) + gamma" }]\n', encoding="utf-8")
    assert main(["reproduce", str(tmp_path / "paper.toml"), "-q"]) == 2
    err = capsys.readouterr().err
    assert "table[0].columns[0].value" in err and "unknown symbol 'gamma'" in err
