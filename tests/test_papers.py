"""Paper manifests (ldpaudit/papers): a printed value off by more than its tolerance is DIFFER
with both values and --check exits 1; malformed manifests exit 2 naming the key; rebuilding
after changing one spec rebuilds exactly the items that use it; values checked exactly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import sympy as sp

from ldpaudit.cli import main

ROOT = Path(__file__).resolve().parents[1]
KRR = (ROOT / "specs" / "krr.toml").read_text(encoding="utf-8")

#: k-RR (a, b: copies of specs/krr.toml) at d = 2, ε = ln 3: Q = 3/4 on the diagonal, worst-case ℓ2² risk (d-1)(d+e^ε-1)²/(d(e^ε-1)²) = 2
#: exactly, δ(ln 2) = 3/4 - 2·1/4 = 1/4 exactly
PAPER = """
[paper]
title = "Toy"
output = "build"

[mechanisms]
a = "a.toml"
b = "b.toml"

[quantities]
ratio = "a.l2_worst / b.l2_worst"

[[table]]
name = "exact"
grid = {{ d = 2, epsilon = "log(3)" }}
columns = [
  {{ label = "risk", value = "a.l2_worst", printed = "{printed}"{tolerance} }},
  {{ label = "delta", value = "delta(a, log(2))", printed = "1/4" }},
]

[[table]]
name = "a_only"
grid = {{ d = [2, 4], epsilon = ["1/2", "1"] }}
columns = [{{ label = "a", value = "a.l2_worst" }}]

[[figure]]
name = "b_only"
x = {{ epsilon = {{ from = "1/2", to = "2", count = 4 }} }}
fixed = {{ d = 4 }}
curves = [{{ label = "b", value = "b.l2_worst" }}]
log_y = true

[[table]]
name = "both"
grid = {{ d = 3, epsilon = "1" }}
columns = [{{ label = "ratio", value = "ratio" }}, {{ label = "b", value = "b.mutual_information", digits = 4 }}]
"""


def _paper(folder: Path, printed: str = "2", tolerance: str = "", *, small: bool = False) -> Path:
    (folder / "a.toml").write_text(KRR, encoding="utf-8")
    (folder / "b.toml").write_text(KRR, encoding="utf-8")
    path = folder / "paper.toml"
    path.write_text(_text(printed, tolerance, small=small), encoding="utf-8")
    return path


def _text(printed: str, tolerance: str = "", *, small: bool = False) -> str:
    """The toy paper; ``small``: its first table alone (one row, two printed values)."""
    text = PAPER.format(printed=printed, tolerance=tolerance)
    return text[:text.index('[[table]]\nname = "a_only"')] if small else text


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["reproduce", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One build of the toy paper (every later test copies it instead of deriving again)."""
    from ldpaudit.papers.command import build_manifest

    folder = tmp_path_factory.mktemp("paper")
    path = _paper(folder)
    lines = []
    result = build_manifest(path, progress=lines.append)
    return folder, result, lines


def test_build_writes_fragments_report_and_exact_values(built):
    folder, result, lines = built
    out = folder / "build"
    assert result.exit_code == 0 and result.verdict == "OK"
    assert lines == ["[1/4] table:exact: built (1 row; 2 AGREE, 0 DIFFER)", "[2/4] table:a_only: built (4 rows)",
                     "[3/4] table:both: built (1 row)", "[4/4] figure:b_only: built"]
    for name in ("table-exact.tex", "table-a_only.tex", "figure-b_only.pdf", "figure-b_only.png",
                 "figure-b_only.tex", "report.md", "paper.json"):
        assert (out / name).stat().st_size > 0, name
    exact = json.loads((out / "table-exact.json").read_text())
    risk, delta = exact["rows"][0]["cells"]
    assert risk["exact"] == "2" and risk["verdict"] == "AGREE"
    assert delta["exact"] == "1/4" and delta["verdict"] == "AGREE"
    assert exact["rows"][0]["parameters"] == {"d": "2", "epsilon": "log(3)"}
    # a_only: brute force against the closed form of k-RR's worst-case ℓ2² risk (n = 1)
    rows = json.loads((out / "table-a_only.json").read_text())["rows"]
    for row in rows:
        d, eps = sp.Integer(row["parameters"]["d"]), sp.Rational(row["parameters"]["epsilon"])
        t = sp.exp(eps)
        assert row["cells"][0]["value"] == pytest.approx(float((d - 1) * (d + t - 1) ** 2 / (d * (t - 1) ** 2)), rel=1e-14)
    both = json.loads((out / "table-both.json").read_text())["rows"][0]["cells"]
    assert both[0]["exact"] == "1"        # a and b have the same channel
    assert "\\begin{tabular}{rrrrrr}" in (out / "table-exact.tex").read_text()
    assert "- AGREE [d = 2, epsilon = log(3)] risk: derived 2, paper 2" in (out / "report.md").read_text()


def test_printed_value_both_sides_of_its_tolerance(tmp_path, capsys):
    """Derived 2: printed 2.01 with tolerance 1/100 AGREEs (|gap| = tolerance, exactly), with
    tolerance 99/10000 DIFFERs; printed 2.01 with its default tolerance (half a unit of the last
    printed digit, 0.005) DIFFERs with both numbers, and --check exits 1."""
    path = _paper(tmp_path, "2.01", ', tolerance = "1/100"', small=True)
    code, out, _ = _run(capsys, path, "-q")
    assert code == 0 and "DIFFER" not in out
    path.write_text(_text("2.01", ', tolerance = "99/10000"', small=True), encoding="utf-8")
    code, out, _ = _run(capsys, path, "-q")
    assert code == 1
    assert "DIFFER exact [d = 2, epsilon = log(3)] risk: derived 2, paper 2.01" in out
    path.write_text(_text("2.01", small=True), encoding="utf-8")
    code, out, _ = _run(capsys, path, "-q", "--check")
    assert code == 1 and "DIFFER exact [d = 2, epsilon = log(3)] risk: derived 2, paper 2.01" in out
    path.write_text(_text("2.00", small=True), encoding="utf-8")
    code, out, _ = _run(capsys, path, "-q")
    assert code == 0 and "DIFFER" not in out


def test_check_compares_with_the_committed_build(tmp_path, capsys):
    path = _paper(tmp_path, small=True)
    assert _run(capsys, path, "-q")[0] == 0
    code, out, _ = _run(capsys, path, "--check", "-q")
    assert code == 0 and "check: 0 difference(s)" in out
    committed = tmp_path / "build" / "table-exact.json"
    data = json.loads(committed.read_text())
    data["rows"][0]["cells"][1]["value"] *= 1.001
    committed.write_text(json.dumps(data))
    (tmp_path / "build" / "paper.json").unlink()
    code, out, _ = _run(capsys, path, "--check", "--json", "-q")
    payload = json.loads(out)
    assert code == 1 and payload["verdict"] == "REFUTED" and payload["command"] == "reproduce"
    assert payload["differences"] == ["paper.json: built but not committed",
                                      "table-exact.json: $.rows[0].cells[1].value: generated 0.25, committed 0.25025"]


def test_changing_one_spec_rebuilds_only_the_items_that_use_it(built, tmp_path):
    from ldpaudit.papers.command import build_manifest

    folder = tmp_path / "paper"
    shutil.copytree(built[0], folder)
    again = build_manifest(folder / "paper.toml")
    assert again.rebuilt == []
    # a constant of b's channel: e^ε -> 2e^ε on the diagonal (so b is (ε + ln 2)-LDP)
    b = folder / "b.toml"
    b.write_text(KRR.replace('weight = "exp(epsilon)/(exp(epsilon) + d - 1)"',
                             'weight = "2*exp(epsilon)/(2*exp(epsilon) + d - 1)"')
                 .replace('weight = "1/(exp(epsilon) + d - 1)"', 'weight = "1/(2*exp(epsilon) + d - 1)"'))
    lines = []
    changed = build_manifest(folder / "paper.toml", progress=lines.append)
    assert changed.rebuilt == ["table:both", "figure:b_only"]
    assert sum("built" in line and "up to date" not in line for line in lines) == 2
    old = json.loads((built[0] / "build" / "figure-b_only.json").read_text())["curves"][0]["y"]
    new = json.loads((folder / "build" / "figure-b_only.json").read_text())["curves"][0]["y"]
    assert all(n < o for n, o in zip(new, old))     # a larger ε: a smaller risk at every point
    # the manifest entry of one item: only that item
    text = (folder / "paper.toml").read_text().replace('label = "a", value', 'label = "a (renamed)", value')
    (folder / "paper.toml").write_text(text)
    assert build_manifest(folder / "paper.toml").rebuilt == ["table:a_only"]


BAD = [
    ('value = "a.l2_worst"', 'value = "a.l3_worst"', "table[0].columns[0].value", "unknown quantity 'l3_worst'"),
    ('b = "b.toml"', 'b = "missing.toml"', "mechanisms.b", "does not exist"),
    ('grid = { d = [2, 4], epsilon = ["1/2", "1"] }',
     'grid = { d = { from = 1, to = 1000, step = 1 }, k = { from = 1, to = 1000, step = 1 }, '
     'epsilon = { from = 1, to = 1000, step = 1 } }', "table[1].grid", "more than 10,000 rows"),
    ('value = "ratio"', 'value = "open(ratio)"', "table[2].columns[0].value", "function 'open' is not allowed"),
    ('value = "ratio"', "value = \"__import__('os')\"", "table[2].columns[0].value", "not allowed"),
    ('value = "ratio"', 'value = "a.__class__"', "table[2].columns[0].value", "unknown quantity '__class__'"),
    ('value = "ratio"', 'value = "c.l2_worst"', "table[2].columns[0].value", "'c', which [mechanisms] does not declare"),
    ('value = "ratio"', 'value = "ratio", printed = [0.5]', "table[2].columns[0].printed[0]", "is a float"),
    ('title = "Toy"', 'title = "Toy"\ncolour = "red"', "paper.colour", "not a key of paper"),
    ('ratio = "a.l2_worst / b.l2_worst"', 'ratio = "ratio + 1"', "quantities.ratio", "refers to itself"),
]


@pytest.mark.parametrize("old,new,key,why", BAD, ids=[b[2] + ":" + b[3][:20] for b in BAD])
def test_malformed_manifest_exits_2_naming_the_key(tmp_path, capsys, old, new, key, why):
    path = _paper(tmp_path)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    code, out, err = _run(capsys, path)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and key in lines[0] and why in lines[0], lines
    assert not (tmp_path / "build").exists()       # refused before anything is built


def test_unknown_name_is_bad_input(capsys):
    code, _, err = _run(capsys, "wang2099")
    assert code == 2 and "not a known paper nor a manifest" in err


def test_pytest_helper_passes_a_reproduced_paper_and_fails_a_stale_one(tmp_path):
    from ldpaudit.papers.command import build_manifest
    from ldpaudit.pytest_plugin import assert_paper_reproduces

    path = _paper(tmp_path, small=True)
    build_manifest(path)
    assert_paper_reproduces(path)
    (tmp_path / "build" / "table-exact.json").unlink()
    with pytest.raises(pytest.fail.Exception, match="table-exact.json: built but not committed"):
        assert_paper_reproduces(path)
