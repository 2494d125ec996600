"""Typed --target-arg values (issue 21, item 6): a factory receives ints, floats and strings as the
command line means them, or as its annotations ask, and a value that cannot be what an annotation
asks is one line of bad input before anything is sampled."""

import sys
from fractions import Fraction

import pytest

import cli_inprocess
import sympy as sp

from ldpaudit.audit.adapters import typed_target_args
from ldpaudit.errors import InvalidParameter


def plain(d, eps, name, flag, ratio):
    return None


def annotated(d: int, eps: float, name: str, exact: Fraction, flag: bool, expr: "sp.Basic"):
    return None


def test_unannotated_values_are_read_by_their_text():
    got = typed_target_args(plain, {"d": "10000", "eps": "log(3)", "name": "sha256", "flag": "'10'", "ratio": "1/2"})
    assert got == {"d": 10000, "eps": pytest.approx(1.0986122886681098, abs=0), "name": "sha256", "flag": "10",
                   "ratio": 0.5}
    assert type(got["d"]) is int and type(got["eps"]) is float and got["eps"] == float(sp.log(3).evalf(30))
    assert typed_target_args(plain, {"d": 7, "eps": 1.5}) == {"d": 7, "eps": 1.5}  # the API passes values through


def test_annotations_decide():
    got = typed_target_args(annotated, {"d": "12", "eps": "1", "name": "12", "exact": "1/3", "flag": "true",
                                        "expr": "log(3)"})
    assert got["d"] == 12 and type(got["d"]) is int
    assert got["eps"] == 1.0 and type(got["eps"]) is float
    assert got["name"] == "12" and got["exact"] == Fraction(1, 3) and got["flag"] is True
    assert got["expr"] == sp.log(3)


@pytest.mark.parametrize("name, value, message", [
    ("d", "1.5", "d is an int; write a whole number"),
    ("eps", "lots", "unknown name"),
    ("exact", "log(3)", "exact is a Fraction; write a rational"),
    ("flag", "maybe", "flag is a bool; write true or false"),
])
def test_a_value_an_annotation_refuses_is_one_line(name, value, message):
    with pytest.raises(InvalidParameter, match=message) as info:
        typed_target_args(annotated, {name: value}, "t.py:annotated")
    assert "\n" not in str(info.value) and f"--target-arg {name}={value}" in str(info.value)


def test_the_cli_gives_the_factory_an_int(tmp_path):
    (tmp_path / "big.py").write_text(
        "import numpy as np\n"
        "def krr(d, eps):\n"
        "    assert type(d) is int and type(eps) is float, (d, eps)\n"
        "    keep = np.exp(eps) / (np.exp(eps) + d - 1)\n"
        "    def sample(x, n, rng):\n"
        "        other = (x + rng.integers(1, d, size=n)) % d\n"
        "        return np.where(rng.random(n) < keep, x, other)\n"
        "    return sample\n")
    run = cli_inprocess.run("audit", "big.py:krr", "--target-arg", "d=6", "--target-arg", "eps=log(3)", "--batch",
                            "--domain", "0..5", "--epsilon", "log(3)", "--samples", "5000", "--no-progress",
                            cwd=tmp_path)
    assert run.returncode == 0 and run.stdout.startswith("NO_EVIDENCE"), run.stderr


def test_a_module_in_the_working_directory_imports_with_and_without_isolation(tmp_path, monkeypatch, capsys):
    """The console script's sys.path starts at its bin directory, not the working directory;
    the isolated worker (``python -m``) looks there, so --no-isolate must too: the same target,
    the same exit code either way. A module that is nowhere is still one line of bad input."""
    import os

    from ldpaudit.cli import main

    (tmp_path / "cwd_only_randomizer.py").write_text(
        "import random\n\ndef rr(x):\n    return x if random.random() < 3 / 4 else 1 - x\n")
    monkeypatch.chdir(tmp_path)
    here = str(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if os.path.abspath(p or ".") != here])
    monkeypatch.delitem(sys.modules, "cwd_only_randomizer", raising=False)
    argv = ["audit", "cwd_only_randomizer:rr", "--domain", "0..1", "--epsilon", "log(3)", "--samples", "2000",
            "--seed", "1"]
    assert main([*argv, "--no-isolate"]) == 0, capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr()
    assert main(["audit", "nowhere_randomizer:rr", "--domain", "0..1", "--epsilon", "1", "--no-isolate"]) == 2
    assert "module 'nowhere_randomizer' could not be imported" in capsys.readouterr().err
