"""A terminal a person reads (issue 22, item 4): `check` fits the terminal's width with the claimed ε
as a number, e is printed as e, and `ldpaudit new` starts a valid spec without overwriting."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import cli_inprocess
import sympy as sp

from ldpaudit.cli import main
from ldpaudit.mechanism import load_spec

SPECS = Path(__file__).resolve().parent.parent / "specs"


def run(*argv, columns: int, cwd=None) -> subprocess.CompletedProcess:
    """In this process (tests/cli_inprocess.py), output to a pipe ``columns`` wide."""
    return cli_inprocess.run(*argv, env={"COLUMNS": columns}, cwd=cwd)


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    folder = tmp_path_factory.mktemp("three")
    for name in ("krr", "orr", "piecewise_multidim"):  # a long hash table, a long density, a vector form
        shutil.copy(SPECS / f"{name}.toml", folder)
    return folder


def test_check_fits_80_columns_with_numeric_claims(three):
    proc = run("check", str(three), "--audit-samples", "2000", columns=80)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) >= 15 and max(map(len, lines)) <= 80, max(lines, key=len)
    heads = [ln for ln in lines if ln.startswith("OK  ")]
    assert len(heads) == 3
    assert all("claimed ε = " in h for h in heads)
    claims = [h.split("claimed ε = ")[1].split()[0] for h in heads]
    assert all(c.replace(".", "", 1).isdigit() for c in claims), claims  # numbers, not `epsilon`
    wide = run("check", str(three), "--audit-samples", "2000", columns=200)
    assert wide.returncode == 0 and "┃ mechanism" in wide.stdout and max(map(len, wide.stdout.splitlines())) <= 200


def test_check_json_carries_the_claimed_value(three, capsys):
    assert main(["check", str(three / "krr.toml"), "--json", "--audit-samples", "2000"]) == 0
    row = json.loads(capsys.readouterr().out)["specs"][0]
    assert row["claimed_epsilon"] == "epsilon" and row["claimed_value"] == "1"


def test_e_is_printed_as_e_for_people_and_as_E_for_machines():
    from ldpaudit.verify import verify

    mech = load_spec(SPECS / "krr.toml").bind(d=3)
    v = verify(mech, epsilon="epsilon/2")
    assert v.status.value == "REFUTED"
    text = str(v)
    assert "E" not in text.replace("REFUTED", "") and "e" in text
    as_json = v.to_json()["witness"]
    back = sp.sympify(as_json["ratio"])  # machine fields stay sympy's text, read back exactly
    assert sp.simplify(back - v.witness.ratio) == 0
    from ldpaudit.render.text import human

    assert human(sp.E / (sp.E + 2)) == "e/(2 + e)" and human(sp.exp(2)) == "exp(2)"


def test_new_starts_a_valid_spec_and_never_overwrites(tmp_path):
    target = tmp_path / "specs" / "my_rr.toml"
    proc = run("new", str(target), "--from", "krr", "--name", "My RR", columns=80)
    assert proc.returncode == 0 and f"wrote {target}" in " ".join(proc.stdout.split())  # wrapped at 80
    mech = load_spec(target)
    assert mech.name == "My RR" and mech.parameter_names == ("d", "epsilon")
    text = target.read_text()
    assert text.startswith("# My RR: started from krr by `ldpaudit new`.")
    again = run("new", str(target), "--from", "oue", columns=80)
    assert again.returncode == 2 and "exists" in again.stderr and target.read_text() == text
    copy = tmp_path / "pm.toml"
    assert run("new", str(copy), "--from", str(SPECS / "piecewise.toml"), columns=80).returncode == 0
    assert load_spec(copy).name == "pm"
    bad = run("new", str(tmp_path / "x.toml"), "--from", "nothing", columns=80)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "catalog name" in bad.stderr
    assert not (tmp_path / "x.toml").exists()
