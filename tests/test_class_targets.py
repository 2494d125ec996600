"""Class targets (issue 34, item 1): a library's class or measurement factory, called as its users
call it, named on the command line as ``module:Class(literals).method``, with only literal
arguments (never evaluated as code), and one line of bad input for each way it can go wrong."""

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from ldpaudit.audit.adapters import load_target
from ldpaudit.audit.targets import parse_target, split_target
from ldpaudit.cli import main
from ldpaudit.errors import InvalidParameter, RandomizerError

DOUBLES = "tests/library_doubles.py"


def test_diffprivlib_style_class_and_method():
    randomise = load_target(f"{DOUBLES}:Laplace(epsilon=1/2, sensitivity=2).randomise", batch=False)
    owner = randomise.__self__
    assert type(owner).__name__ == "Laplace" and owner.epsilon == 0.5 and owner.sensitivity == 2.0
    np.random.seed(0)
    import random

    random.seed(0)
    draws = np.array([randomise(3.0) for _ in range(4000)])
    # Laplace(0, b = 4): mean 3, mean absolute deviation b
    assert abs(draws.mean() - 3.0) < 0.3 and 3.6 < np.abs(draws - 3.0).mean() < 4.4


def test_pure_ldp_style_client_gets_typed_positional_and_keyword_literals():
    privatise = load_target(f"{DOUBLES}:UEClient(log(3), 8, use_oue=True).privatise", batch=False)
    client = privatise.__self__
    assert client.epsilon == 1.0986122886681098 and type(client.epsilon) is float
    assert type(client.d) is int and client.d == 8 and client.use_oue is True
    assert client.p == 0.5 and math.isclose(client.q, 1 / 4)
    np.random.seed(1)
    rows = np.array([privatise(3) for _ in range(4000)])
    assert rows.shape == (4000, 8)
    assert abs(rows[:, 2].mean() - 0.5) < 0.04 and abs(rows[:, 5].mean() - 0.25) < 0.04


def test_opendp_style_measurement_is_called_on_the_input():
    meas = load_target(f"{DOUBLES}:make_randomized_response(['a', 'b', 'c'], 3/4)", batch=False)
    assert type(meas).__name__ == "Measurement"
    import random

    random.seed(2)
    out = [meas("a") for _ in range(4000)]
    assert set(out) <= {"a", "b", "c"} and abs(out.count("a") / 4000 - 0.75) < 0.03
    with pytest.raises(ValueError, match="not a member"):
        meas("z")


def test_literals_of_every_kind_reach_the_constructor(tmp_path):
    (tmp_path / "lib.py").write_text(
        "class Echo:\n"
        "    def __init__(self, *args, **kwargs):\n"
        "        self.seen = (args, kwargs)\n"
        "    def run(self, x):\n"
        "        return x\n")
    run = load_target(f"{tmp_path}/lib.py:Echo(-2, 1e-5, 'a:b', None, True, (1, 'x'), [0.5], {{'k': 2**-3}}, "
                      f"n=10_000, ratio=1/3).run", batch=False)
    args, kwargs = run.__self__.seen
    assert args == (-2, 1e-05, "a:b", None, True, (1, "x"), [0.5], {"k": 0.125})
    assert kwargs == {"n": 10000, "ratio": 1 / 3} and type(kwargs["n"]) is int
    assert split_target(f"{tmp_path}/lib.py:Echo('a:b').run") == (f"{tmp_path}/lib.py", "Echo('a:b').run")


def test_annotations_type_the_call_as_they_type_target_args(tmp_path):
    (tmp_path / "typed.py").write_text(
        "from fractions import Fraction\n"
        "class Mech:\n"
        "    def __init__(self, d: int, eps: Fraction, name: str):\n"
        "        self.args = (d, eps, name)\n"
        "    def sample(self, x):\n"
        "        return x\n")
    sample = load_target(f"{tmp_path}/typed.py:Mech(8, 1/3, name=12).sample", batch=False)
    assert sample.__self__.args == (8, Fraction(1, 3), "12")
    with pytest.raises(InvalidParameter, match=r"argument 1 \(8.5\): .*d is an int; write a whole number"):
        load_target(f"{tmp_path}/typed.py:Mech(8.5, 1/3, 'x').sample")
    with pytest.raises(InvalidParameter, match=r"argument eps=log\(3\): .*eps is a Fraction; write a rational"):
        load_target(f"{tmp_path}/typed.py:Mech(8, eps=log(3), name='x').sample")


BAD = [
    (f"{DOUBLES}:Laplace(epsilon=-1, sensitivity=1).randomise", RandomizerError,
     r"Laplace\(epsilon=-1, sensitivity=1\) raised ValueError: Epsilon must be strictly positive; fix its arguments"),
    (f"{DOUBLES}:Laplace(epsilon=1, sensitivity=1).randomize", InvalidParameter,
     r"Laplace has no attribute 'randomize' \(its functions and methods: bias, randomise\); fix the method's name"),
    (f"{DOUBLES}:Laplace(epsilon=np.pi, sensitivity=1).randomise", InvalidParameter,
     r"argument epsilon=np.pi is not a literal; write a number \(1, 0.5, 1/2, log\(3\)\)"),
    (f"{DOUBLES}:Laplace(epsilon=1, sensitivity=__import__('os').getpid()).randomise", InvalidParameter,
     r"argument sensitivity=__import__\('os'\).getpid\(\) is not a literal"),
    (f"{DOUBLES}:Laplace(epsilon=1, sensitivity=[x for x in 'ab']).randomise", InvalidParameter, r"is not a literal"),
    (f"{DOUBLES}:Laplace(epsilon=1, sensitivity=1)", InvalidParameter,
     r"Laplace\(\.\.\.\) made a Laplace, which is not callable; name the method .* \(its methods: bias, randomise\)"),
    (f"{DOUBLES}:Laplace(epsilon=1, sensitivity=1).epsilon", InvalidParameter,
     r"Laplace.epsilon is a float, not callable"),
    (f"{DOUBLES}:Laplace(**{{'epsilon': 1}}).randomise", InvalidParameter, r"name each argument: name=value"),
    (f"{DOUBLES}:Laplace(epsilon=1", InvalidParameter, r"is not Python syntax of the form NAME"),
    (f"{DOUBLES}:Laplace(epsilon=1).randomise(3)", InvalidParameter, r"only one call is allowed"),
    (f"{DOUBLES}:Nope(epsilon=1).randomise", InvalidParameter,
     r"the module 'tests/library_doubles.py' has no attribute 'Nope' \(its functions: .*make_randomized_response"),
    (f"{DOUBLES}:UEClient(epsilon=1, d=8).privatise", InvalidParameter,
     r"cannot be called as f\(x, n, rng\); drop --batch"),
]


@pytest.mark.parametrize("target, error, message", BAD)
def test_bad_class_targets_are_one_line(target, error, message):
    with pytest.raises(error, match=message) as info:
        load_target(target, batch=target.endswith("d=8).privatise"))
    assert "\n" not in str(info.value) and repr(target) in str(info.value)


def test_a_call_and_target_args_together_are_refused():
    with pytest.raises(InvalidParameter, match="gives its arguments in its call; drop --target-arg"):
        load_target(f"{DOUBLES}:Laplace(epsilon=1, sensitivity=1).randomise", {"epsilon": "2"})
    with pytest.raises(InvalidParameter, match=r"name the method to call on it in the target, e\.g\. "
                                               r"'tests/library_doubles.py:Laplace\(epsilon=1, sensitivity=1\)\.METHOD'"):
        load_target(f"{DOUBLES}:Laplace", {"epsilon": "1", "sensitivity": "1"})


def test_parse_keeps_the_shape():
    parsed = parse_target("pkg.mod:sub.Client(1, d=2).inner.privatise")
    assert parsed.where == "pkg.mod" and parsed.path == ("sub", "Client") and parsed.method == ("inner", "privatise")
    assert len(parsed.call[0]) == 1 and [k for k, _ in parsed.call[1]] == ["d"]
    assert parse_target("pkg.mod:grr").call is None


def _audit(capsys, *argv):
    code = main(["audit", *argv, "--json", "--no-progress"])
    return code, json.loads(capsys.readouterr().out)


def test_isolated_audit_of_a_measurement_both_sides_of_its_epsilon(capsys):
    # k-RR on 3 categories keeping the truth with probability 3/4: q = 1/8, true ε = ln 6
    target = f"{DOUBLES}:make_randomized_response([0, 1, 2], 3/4)"
    code, out = _audit(capsys, target, "--domain", "0..2", "--epsilon", "log(6)", "--samples", "20000", "--seed", "1")
    assert code == 0 and out["verdict"] == "NO_EVIDENCE" and 1.5 < out["epsilon_lower_bound"] <= math.log(6)
    assert out["sandbox"]["level"] != "none"
    code, out = _audit(capsys, target, "--domain", "0..2", "--epsilon", "1", "--samples", "20000", "--seed", "1")
    assert code == 1 and out["verdict"] == "VIOLATION" and 1 < out["epsilon_lower_bound"] <= math.log(6)


def test_a_constructor_that_raises_in_the_worker_is_one_line_exit_2(capsys):
    code = main(["audit", f"{DOUBLES}:Laplace(epsilon=0, sensitivity=1).randomise", "--domain", "0,1",
                 "--epsilon", "1", "--samples", "1000", "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err
    assert "Laplace(epsilon=0, sensitivity=1) raised ValueError: Epsilon must be strictly positive" in err
