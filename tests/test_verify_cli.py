"""``ldpaudit verify``: exit codes 0 PROVED, 1 REFUTED, 3 UNKNOWN, 2 bad input; JSON output;
exact parameter values; float parameters; certificates."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from ldpaudit.cli import main
from ldpaudit.mechanism.loader import parse_assignments as parse_param_values

SPECS = Path(__file__).resolve().parents[1] / "specs"


def run(capsys, *args):
    code = main(["verify", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_proved_exits_0(capsys):
    code, out, _ = run(capsys, SPECS / "krr.toml")
    assert code == 0
    assert out.startswith("PROVED: epsilon-LDP for all 2 <= d (integer), 0 < epsilon; tight ε* = epsilon")


def test_refuted_exits_1_with_the_witness(capsys):
    code, out, _ = run(capsys, SPECS / "krr.toml", "-p", "d=8", "-p", "epsilon=1", "--epsilon", "0.999")
    assert code == 1
    assert out.startswith("REFUTED: Q(y=0|x=0)/Q(y=0|x=1) = e ≈ 2.71828 > e^(999/1000) ≈ 2.71556 at d=8, epsilon=1")


def test_unknown_exits_3(capsys):
    code, out, _ = run(capsys, SPECS / "ksubset.toml", "--timeout", "1")
    assert code in (0, 3)
    if code == 3:
        assert out.startswith("UNKNOWN:")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--epsilon", "-1"], "--epsilon = -1 is not positive"),
        (["-p", "d=1"], "parameter d = 1 of k-RR is out of range: need d >= 2"),
        (["-p", "dd=3"], "unknown parameter 'dd'"),
        (["-p", "d"], "is not name=value"),
        (["--delta", "1/10"], "needs numeric parameters"),
        (["--epsilon", "epsilon2"], "epsilon2"),
        (["--float-params", "p=abc"], "is not a float literal"),
    ],
)
def test_bad_input_exits_2_with_a_message(capsys, args, message):
    code, out, err = run(capsys, SPECS / "krr.toml", *args)
    assert code == 2
    assert message in err and not out


def test_missing_spec_exits_2(capsys):
    code, _, err = run(capsys, "no/such/spec.toml")
    assert code == 2 and "does not exist" in err


def test_json_output(capsys):
    code, out, _ = run(capsys, SPECS / "oue.toml", "--json", "--tight")
    payload = json.loads(out)
    assert code == 0 and payload["status"] == "PROVED" and payload["tight_epsilon"] == "epsilon"
    assert payload["tight"]["proof"] == "PROVED" and payload["tight"]["witness"]["ratio"] == "E"


def test_json_refutation(capsys):
    code, out, _ = run(capsys, SPECS / "laplace_mean.toml", "--epsilon", "epsilon/2", "--json")
    payload = json.loads(out)
    assert code == 1 and payload["status"] == "REFUTED"
    assert payload["witness"]["params"] == {"M": "1", "epsilon": "1"}


def test_delta(capsys):
    code, out, _ = run(capsys, SPECS / "wrr.toml", "-p", "epsilon=log(3)", "--epsilon", "log(2)", "--delta", "0.25")
    assert code == 0 and "δ(log(2)) = 1/4" in out
    code, out, _ = run(capsys, SPECS / "wrr.toml", "-p", "epsilon=log(3)", "--epsilon", "log(2)", "--delta", "0.2")
    assert code == 1 and out.startswith("REFUTED: δ(log(2)) = 1/4")


def test_float_params(capsys):
    code, out, _ = run(capsys, SPECS / "wrr.toml", "--float-params", "p=0.7310585786300049,q=0.2689414213699951",
                       "--epsilon", "1")
    assert code == 1
    assert "exceeds the claim 1 by" in out and "ulp" in out


def test_certificate_option(capsys, tmp_path):
    code, out, _ = run(capsys, SPECS / "krr.toml", "--certificate", tmp_path)
    assert code == 0
    assert (tmp_path / "krr.smt2").exists() and (tmp_path / "krr.json").exists()
    meta = json.loads((tmp_path / "krr.json").read_text())
    assert meta["verdict"] == "PROVED" and meta["spec_sha256"]


def test_param_values_are_exact():
    assert parse_param_values(["d=8", "epsilon=0.25,k=2"]) == {"d": Fraction(8), "epsilon": Fraction(1, 4), "k": Fraction(2)}
    assert parse_param_values(["epsilon=log(3)"]) == {"epsilon": "log(3)"}
