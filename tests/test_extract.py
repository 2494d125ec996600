"""``ldpaudit extract`` and ``verify --from-code`` (issue 36): channels read off the source.

The reference randomizers of ``ldpaudit/mechanism/perdraw.py`` extract to the bundled specs'
channels, entry by entry and exactly (symbolic in ε); planted bugs in ordinary Python are
REFUTED with the tight ε and the source lines of the witness's paths; code outside the subset
ends in exit 3 naming the line and the construct; the target is never imported or run."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import sympy as sp

from ldpaudit.cli import main
from ldpaudit.errors import InvalidParameter, Unextractable
from ldpaudit.extract.channel import extract
from ldpaudit.extract.spec import spec_text
from ldpaudit.mechanism import load_spec, loads_spec

ROOT = Path(__file__).resolve().parents[1]
PERDRAW = str(ROOT / "ldpaudit" / "mechanism" / "perdraw.py")
PLANTED = str(ROOT / "ldpaudit" / "bench" / "planted.py")


def _matrix(mech) -> dict:
    """(x, y) -> Q(y|x) of a finite mechanism, symbols replaced by plain ones of the same name."""
    ch = mech.materialize()
    by_name = {}
    for row in ch.matrix:
        for e in row:
            by_name.update({s: sp.Symbol(s.name, positive=True) for s in e.free_symbols})
    return {(x, y if not isinstance(y, frozenset) else tuple(sorted(y))): e.xreplace(by_name)
            for x, row in zip(ch.inputs, ch.matrix) for y, e in zip(ch.outputs, row)}


def _extracted(name: str, domain, args: dict, epsilon=None):
    ex = extract(f"{PERDRAW}:{name}", list(domain), args)
    return ex, loads_spec(spec_text(ex, epsilon=epsilon))


@pytest.mark.parametrize(("name", "domain", "args", "spec", "bind", "form", "epsilon"), [
    ("krr", range(4), {"d": "4"}, "krr", {"d": 4}, "structured", None),
    ("rr_bit", range(8), {"bits": "3", "j": "1"}, "rr_bit", {"bits": 3, "j": 1}, "explicit", None),
    pytest.param("ksubset", range(5), {"d": "5", "k": "2"}, "ksubset", {"d": 5, "k": 2}, "structured", None,
                 marks=pytest.mark.slow),
    ("ksubset", range(3), {"d": "3", "k": "1"}, "ksubset", {"d": 3, "k": 1}, "structured", None),  # fast twin
    ("oue", range(3), {"d": "3"}, "oue", {"d": 3}, "product", None),
    pytest.param("sue", range(3), {"d": "3"}, "krappor", {"d": 3}, "product", None, marks=pytest.mark.slow),
    ("sue", range(2), {"d": "2"}, "krappor", {"d": 2}, "product", None),  # fast twin
    pytest.param("rappor_permanent", range(3), {"d": "3", "f": "1/2"}, "rappor_permanent", {"d": 3, "f": "1/2"},
                 "product", "2*log(3)", marks=pytest.mark.slow),
    ("rappor_instantaneous", range(2), {"p": "1/4", "q": "1/2"}, "rappor_instantaneous", {"p": "1/4", "q": "1/2"},
     "explicit", "log(3)"),
    pytest.param("rappor_instantaneous", range(2), {"p": "1/4", "q": "3/4"}, "rappor_instantaneous",
                 {"p": "1/4", "q": "3/4"}, "structured", "log(9)", marks=pytest.mark.slow),  # p + q = 1: k-RR shaped
])
def test_reference_randomizers_extract_to_their_specs(name, domain, args, spec, bind, form, epsilon):
    ex, mech = _extracted(name, domain, args, epsilon)
    assert mech.channel.form == form
    ours, theirs = _matrix(mech), _matrix(load_spec(ROOT / "specs" / f"{spec}.toml").bind(bind))
    support = {k for k, v in theirs.items() if v != 0}
    assert {k for k, v in ours.items() if v != 0} == support
    for key in support:
        assert sp.simplify(ours[key] - theirs[key]) == 0, (key, ours[key], theirs[key])
    assert [p.name for p in ex.params] == (["epsilon"] if epsilon is None else [])


def test_krr_rows_are_exact_in_epsilon_at_several_d():
    """k-RR's two weights at d = 2..5, against e^ε/(e^ε+d-1) and 1/(e^ε+d-1) by hand."""
    t = sp.exp(sp.Symbol("epsilon", positive=True))
    for d in (2, 4):
        ex = extract(f"{PERDRAW}:krr", list(range(d)), {"d": str(d)})
        eps = ex.params[0].symbol
        tt = t.xreplace({sp.Symbol("epsilon", positive=True): eps})
        for x in range(d):
            for y in range(d):
                want = tt / (tt + d - 1) if x == y else 1 / (tt + d - 1)
                assert sp.simplify(ex.rows[x][y] - want) == 0
        assert ex.path_count == d * d  # keep, or one of d-1 others: d paths per input


def _verify_json(capsys, *argv) -> tuple[int, dict]:
    code = main(["verify", *argv, "--json", "--tight"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("name", "argv", "tight", "line"), [
    ("krr_other_from_all", ["--domain", "0..3", "--target-arg", "d=4"], "log(4*exp(epsilon)/3 + 1)", 15),
    pytest.param("krr_randint_inclusive", ["--domain", "0..3", "--target-arg", "d=4"], "epsilon + log(4/3)", 24,
                 marks=pytest.mark.slow),
    ("krr_randint_inclusive", ["--domain", "0..1", "--target-arg", "d=2"], "epsilon + log(2)", 24),  # fast twin
    ("two_reports_eps_not_halved", ["--domain", "0..1"], "2*epsilon", 32),
    ("oue_misplaced_parenthesis", ["--domain", "0..2", "--target-arg", "d=3"], None, 40),
    pytest.param("ksubset_with_replacement", ["--domain", "0..3", "--target-arg", "d=4", "--target-arg", "k=2"], None,
                 49, marks=pytest.mark.slow),
    ("ksubset_with_replacement", ["--domain", "0..2", "--target-arg", "d=3", "--target-arg", "k=2"], None, 49),
])
def test_planted_bugs_are_refuted_with_tight_epsilon_and_source_line(capsys, name, argv, tight, line):
    code, out = _verify_json(capsys, "--from-code", f"{PLANTED}:{name}", *argv)
    assert code == 1 and out["verdict"] == "REFUTED"
    if tight is None:  # an output one input never gives: no finite ε
        assert out["tight"]["epsilon"] == "oo"
    else:
        assert sp.simplify(sp.sympify(out["tight"]["epsilon"]) - sp.sympify(tight)) == 0
    shown = " ".join(out["from_code"]["witness_paths"])
    assert f"line {line}:" in shown
    assert out["from_code"]["function"] == name


def test_reference_krr_is_proved_and_refuted_below_its_epsilon(capsys):
    target = f"{PERDRAW}:krr"
    code, out = _verify_json(capsys, "--from-code", target, "--domain", "0..3", "--target-arg", "d=4")
    assert code == 0 and out["verdict"] == "PROVED" and out["tight"]["epsilon"] == "epsilon"
    code = main(["verify", "--from-code", target, "--domain", "0..3", "--target-arg", "d=4",
                 "--target-arg", "epsilon=log(9)", "--epsilon", "2.19"])  # ln 9 = 2.1972...
    assert code == 1
    assert "REFUTED" in capsys.readouterr().out


@pytest.mark.parametrize(("name", "args", "line", "construct"), [
    ("laplace_mean", "", 54, "laplace() is a draw from a continuous"),
    ("hashed", "", 59, "hash() is a hash"),
    ("rejection_sampling", "d", 66, "an unbounded while loop"),
])
def test_outside_the_subset_exits_3_naming_line_and_construct(capsys, name, args, line, construct):
    code = main(["extract", f"{PLANTED}:{name}", "--domain", "0..1", *(["--target-arg", "d=4"] if "d" in args else [])])
    err = capsys.readouterr().err
    assert code == 3
    assert f"planted.py:{line}: " in err and construct in err and "ldpaudit audit" in err


def test_extraction_never_runs_the_target(tmp_path, monkeypatch, capsys):
    mark = tmp_path / "ran.txt"
    monkeypatch.setenv("LDPAUDIT_EXTRACT_MARK", str(mark))
    code = main(["extract", str(ROOT / "tests" / "extract" / "side_effects.py") + ":rr", "--domain", "0..1"])
    assert code == 3  # the body's open() is I/O: outside the subset, and never called
    assert "side_effects.py:11:" in capsys.readouterr().err
    assert not mark.exists()


def test_module_targets_are_found_without_importing(monkeypatch):
    import sys

    monkeypatch.delitem(sys.modules, "ldpaudit.mechanism.perdraw", raising=False)
    ex = extract("ldpaudit.mechanism.perdraw:rr_bit", [0, 1, 2, 3], {"bits": "2", "j": "0"})
    assert "ldpaudit.mechanism.perdraw" not in sys.modules
    assert ex.rows[1][1] == ex.rows[0][0] and ex.rows[1][0] == ex.rows[0][1]


@pytest.mark.parametrize(("target", "args", "domain", "match"), [
    (f"{PERDRAW}:krr", {"dd": "4"}, [0, 1], r"--target-arg dd: krr\(\) has no parameter 'dd' \(its parameters: d, epsilon\)"),
    (f"{PERDRAW}:nope", {}, [0, 1], r"'nope' is not a top-level function"),
    ("no_such_module_36:f", {}, [0, 1], r"no source file for module 'no_such_module_36'"),
    (f"{PERDRAW}:krr", {"d": "x/y"}, [0, 1], r"--target-arg d=x/y"),
])
def test_bad_input_is_one_line(target, args, domain, match):
    with pytest.raises(InvalidParameter, match=match):
        extract(target, domain, args)


def test_unbound_size_asks_for_a_binding():
    """d left symbolic on a concrete domain is only known to be a positive integer (its default
    is an int; the domain 0, 1, 2 says nothing of d): keep w.p. e^ε/(e^ε+d-1) is certain at
    d = 1, so the branch is not decided for every d. The message names the comparison, a point
    where it holds and one where it fails, a range that decides it (tried exactly) and the
    binding. Assuming d >= 2 decides the branch, but the draw randrange(d - 1) then has a
    symbolic size, which a list of inputs cannot hold: bind d, or read the code generically over
    the domain 0..d-1, where d >= 2 is the domain's own rule (tests/test_extract_symbolic.py)."""
    with pytest.raises(Unextractable, match=r"perdraw.py:22: the comparison exp\(epsilon\)/\(d \+ exp\(epsilon\) - 1\) "
                                            r">= 1 cannot be decided exactly for every value of 1 <= d \(integer\), "
                                            r"0 < epsilon \(it holds at d = 1, .* and fails at d = 2, .*\); narrow the "
                                            r"range with --assume \(e.g. --assume 'd>=2'\) or bind d, epsilon with "
                                            r"--target-arg"):
        extract(f"{PERDRAW}:krr", [0, 1, 2], {})
    with pytest.raises(Unextractable, match=r"perdraw.py:24: randrange bound = d - 1 needs a concrete integer: bind "
                                            r"d with --target-arg, or give the domain as 0..d-1"):
        extract(f"{PERDRAW}:krr", [0, 1, 2], {}, assume=["d>=2"])


def test_extract_writes_a_spec_that_loads(tmp_path, capsys):
    out = tmp_path / "oue.toml"
    code = main(["extract", f"{PERDRAW}:oue", "--target-arg", "d=3", "--domain", "0..2", "--out", str(out)])
    assert code == 0 and "product channel over 3 inputs and 8 outputs" in capsys.readouterr().out
    text = out.read_text()
    assert "function oue (lines" in text and "read, never run" in text
    mech = load_spec(out)
    assert mech.channel.form == "product" and [p.name for p in mech.parameters] == ["epsilon"]
    assert main(["extract", f"{PERDRAW}:oue", "--target-arg", "d=3", "--domain", "0..2", "--out", str(out)]) == 2


def test_a_module_in_the_working_directory_is_found_as_audit_finds_it(tmp_path, monkeypatch, capsys):
    """The console script's sys.path starts at its bin directory; audit looks in the working
    directory too (as ``python -m`` does), so extract does."""
    import os
    import sys

    (tmp_path / "cwd_only_client.py").write_text(
        "import random\n\ndef rr(x, p=3/4):\n    return x if random.random() < p else 1 - x\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if os.path.abspath(p or ".") != str(tmp_path)])
    assert main(["extract", "cwd_only_client:rr", "--domain", "0..1", "--epsilon", "log(3)"]) == 0
    assert "function rr" in capsys.readouterr().out
