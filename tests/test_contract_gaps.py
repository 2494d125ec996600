"""The smaller contract gaps of issue 35, item 7: a claim's denominator that vanishes only
outside the declared range is not refused (and one that vanishes inside still is); a real-input
entry negative for part of the declared range is refused at load; ``--epsilon`` may mention a
parameter bound with ``-p``; a claimed ε whose parameter has no lower bound is refused at load.
Each from the command line: exit status, one line on stderr, one JSON object with --json."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from ldpaudit import cli
from ldpaudit.schema import VERDICTS

SPECS = Path(__file__).resolve().parents[1] / "specs"
KRR = (SPECS / "krr.toml").read_text()
DUCHI = (SPECS / "duchi_binary_mean.toml").read_text()

#: a claim e^ε (1 + 1/(3 - e^ε)) >= e^ε whose denominator vanishes at ε = log 3
CLAIM = "log(exp(epsilon)*(1 + 1/(3 - exp(epsilon))))"


def run(argv) -> SimpleNamespace:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(a) for a in argv])
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def both(argv) -> tuple[SimpleNamespace, dict]:
    """The run without --json (its stderr) and with it (its one JSON object); same exit status."""
    plain, js = run(argv), run([*argv, "--json"])
    assert plain.returncode == js.returncode
    doc = json.loads(js.stdout)
    assert doc["command"] == argv[0] and VERDICTS[doc["verdict"]] == js.returncode
    return plain, doc


def one_line(proc) -> str:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def krr_with(tmp_path, *, upper: str | None = None, strict_upper: bool = False, claim: str = "epsilon",
             lower: bool = True) -> Path:
    text = KRR.replace('claimed_epsilon = "epsilon"', f'claimed_epsilon = "{claim}"').replace(
        "epsilon = 1\n", 'epsilon = "1/2"\n')
    bounds = ('min = 0\nstrict_min = true\n' if lower else "") + (f'max = "{upper}"\n' if upper else "") + \
        ("strict_max = true\n" if strict_upper else "")
    text = text.replace("min = 0\nstrict_min = true\n", bounds)
    path = tmp_path / "krr_variant.toml"
    path.write_text(text)
    return path


# --- a denominator vanishing only outside the declared range ------------------------------------

@pytest.mark.parametrize("upper, strict", [("log(2)", False), ("log(3)/2", False), ("log(3)", True), ("1", False)])
def test_a_denominator_vanishing_outside_the_range_is_not_refused(tmp_path, upper, strict):
    spec = krr_with(tmp_path, upper=upper, strict_upper=strict, claim=CLAIM)
    plain, doc = both(["verify", spec])
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.startswith("PROVED") and doc["verdict"] == "PROVED"


def test_a_denominator_vanishing_inside_the_range_is_still_refused(tmp_path):
    spec = krr_with(tmp_path, upper="log(3)", claim=CLAIM)   # ε = log 3 is admissible: 3 - e^ε = 0 there
    plain, doc = both(["verify", spec])
    assert plain.returncode == 2
    line = one_line(plain)
    assert "the denominator 3 - exp(epsilon) can be 0 (at epsilon = log(3)" in line
    assert doc["verdict"] == "INVALID" and "can be 0" in doc["error"]["message"]


def test_a_bound_mapped_onto_e_to_the_parameter_keeps_refutations(tmp_path):
    # ε <= log 2 mapped exactly onto e^ε <= 2: the claim ε - 1/1000 is still refuted, ε + 1/1000 proved
    spec = krr_with(tmp_path, upper="log(2)")
    low, high = run(["verify", spec, "--epsilon", "epsilon - 1/1000"]), run(["verify", spec, "--epsilon",
                                                                              "epsilon + 1/1000"])
    assert (low.returncode, high.returncode) == (1, 0), (low.stdout, high.stdout)


# --- a real-input entry negative for part of the declared range ---------------------------------

def test_a_real_input_entry_negative_on_part_of_the_range_is_refused_at_load(tmp_path):
    # Duchi's 1/2 + y x (e^ε - 1)/(2B(e^ε + 1)) on [-2B, 2B]: negative at x = ±2B once e^ε > 3
    spec = tmp_path / "duchi_wide.toml"
    spec.write_text(DUCHI.replace('low = "-B"', 'low = "-2*B"').replace('high = "B"', 'high = "2*B"'))
    for command in ("show", "verify"):
        plain, doc = both([command, spec])
        assert plain.returncode == 2
        line = one_line(plain)
        assert re.search(r"Q\(y=-?1\|x=-?2\*B\) of the real-input channel", line), line
        assert "negative or undefined" in line
        assert doc["verdict"] == "INVALID" and doc["error"]["kind"] == "bad input"


def test_the_declared_duchi_range_still_loads_and_proves():
    proc = run(["verify", SPECS / "duchi_binary_mean.toml"])
    assert proc.returncode == 0 and proc.stdout.startswith("PROVED")


# --- --epsilon mentioning a parameter bound with -p ---------------------------------------------

def test_epsilon_may_mention_a_parameter_bound_with_p():
    common = ["verify", "krr", "-p", "d=4", "-p", "epsilon=1"]
    below, doc_below = both([*common, "--epsilon", "epsilon - 1/1000"])
    above, doc_above = both([*common, "--epsilon", "epsilon + 1/1000"])
    assert (below.returncode, doc_below["verdict"]) == (1, "REFUTED")
    assert "> e^(999/1000)" in below.stdout
    assert (above.returncode, doc_above["verdict"]) == (0, "PROVED")
    by_value = run([*common, "--epsilon", "log(d)"])  # d = 4 bound: log 4 > 1
    assert by_value.returncode == 0 and by_value.stdout.startswith("PROVED: log(4)-LDP")


def test_an_unknown_name_in_epsilon_lists_the_bound_ones_too():
    proc = run(["verify", "krr", "-p", "d=4", "-p", "epsilon=1", "--epsilon", "eps"])
    assert proc.returncode == 2
    assert "unknown symbol 'eps'; declared names are d, epsilon" in one_line(proc)


# --- a claimed ε whose parameter has no lower bound ---------------------------------------------

@pytest.mark.parametrize("command", ["show", "verify", "derive"])
def test_a_claim_over_an_epsilon_without_lower_bound_is_refused_at_load(tmp_path, command):
    spec = krr_with(tmp_path, lower=False)
    plain, doc = both([command, spec])
    assert plain.returncode == 2
    line = one_line(plain)
    assert "mechanism.claimed_epsilon = epsilon is -1" in line
    assert "parameters.epsilon has no lower bound; add min = 0 with strict_min = true" in line
    assert doc["verdict"] == "INVALID"


def test_a_claim_positive_everywhere_needs_no_lower_bound(tmp_path):
    # e^ε - 1 + 1 = e^ε > 0 for every real ε: nothing to refuse (the channel is k-RR at ε)
    spec = krr_with(tmp_path, lower=False, claim="exp(epsilon)")
    proc = run(["show", spec])
    assert proc.returncode == 0, proc.stderr
