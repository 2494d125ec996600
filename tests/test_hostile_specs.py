"""Hostile specs that used to get through (issue 19.4 a, c): output classes whose conditions
overlap, leave outputs out, or disagree with their counts are refused at load (not only once
the sizes are bound), and a huge bound is decided exactly or refused, never an internal error:
exit 2 with one line on stderr from `show`, `check` and `derive` alike, in seconds of CPU."""

from __future__ import annotations

import contextlib
import io
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sympy as sp

from ldpaudit import cli
from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism import loads_spec
from ldpaudit.mechanism.params import decide, sign

SPECS = Path(__file__).resolve().parents[1] / "specs"
KRR = (SPECS / "krr.toml").read_text()
KSUBSET = (SPECS / "ksubset.toml").read_text()
OLH = (SPECS / "olh.toml").read_text()
RR_BIT = (SPECS / "rr_bit.toml").read_text()
DUCHI = (SPECS / "duchi_binary_mean.toml").read_text()

COMMANDS = ("show", "check", "derive")
CPU_SECONDS = 10


def edit(text: str, *pairs: tuple[str, str]) -> str:
    for old, new in pairs:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


TRUTH = ('when = "y == x"\ncount = 1\nweight = "exp(epsilon)/(exp(epsilon) + d - 1)"')
OTHER = ('when = "y != x"\ncount = "d - 1"\nweight = "1/(exp(epsilon) + d - 1)"')

#: name -> (spec text, words the one line must contain: the class, its field, the value, the fix)
HOSTILE = {
    # the case: count = 1 on `y != x`, weights swapped too so rows still sum to 1 and the
    # counts still add up to d (it was shown and checked as "validated" before)
    "count disagrees with its condition": (
        edit(KRR, (TRUTH, TRUTH.replace("count = 1", 'count = "d - 1"').replace("exp(epsilon)/", "1/")),
             (OTHER, OTHER.replace('count = "d - 1"', "count = 1").replace('"1/', '"exp(epsilon)/'))),
        ["channel.classes[0] ('truth').count = d - 1", "when = 'y == x'", "(1, not 7, at d=8, epsilon=1)",
         'set count = "1"']),
    "count alone changed": (  # the row sums say it first
        edit(KRR, (OTHER, OTHER.replace('count = "d - 1"', "count = 1"))),
        ["rows of channel 'k-RR' sum to (exp(epsilon) + 1)/(d + exp(epsilon) - 1)", "each row must sum to 1"]),
    "overlapping conditions": (
        edit(KRR, ('when = "y != x"', 'when = "y != x or y == x"')),
        ["channel.classes[1] ('other').when = 'y != x or y == x' overlaps channel.classes[0] ('truth')",
         "every output with y == x satisfies both", "make the conditions exclusive"]),
    "overlap seen only on the example": (  # a literal: no symbolic output types, the enumeration finds it
        edit(KRR, ('when = "y != x"', 'when = "y != x or y == 0"')),
        ["channel.classes[1] ('other').when = 'y != x or y == 0' overlaps", "output y=0 for input x=0",
         "at the [example] instance d=8, epsilon=1", "make the conditions exclusive"]),
    "an output in no class": (
        edit(KRR, ('when = "y != x"', 'when = "y != x and y != 7"')),
        ["output y=7 for input x=0", "satisfies no channel.classes[].when", "add a class"]),
    "subset conditions swapped": (
        edit(KSUBSET, ('when = "x in y"', 'when = "x not in y"'),
             ('when = "x not in y"\ncount = "binomial(d - 1, k)"', 'when = "x in y"\ncount = "binomial(d - 1, k)"')),
        ["channel.classes[0] ('contains input').count = binomial(d - 1, k - 1)", "when = 'x not in y'",
         "(10, not 5, at d=6, k=2, epsilon=1)", 'set count = "binomial(d - 1, k)"']),
    "hash classes swapped": (
        edit(OLH, ('when = "v == hash(c, x)"', 'when = "v != hash(c, x)"'),
             ('when = "v != hash(c, x)"\ncount = "g**d*(g - 1)"', 'when = "v == hash(c, x)"\ncount = "g**d*(g - 1)"')),
        ["channel.classes[0] ('hash hit').count = g**d", "when = 'v != hash(c, x)'", 'set count = "g**d*(g - 1)"']),
    "a parameter in the condition": (  # bit(x, j): checked on the example instance only
        edit(RR_BIT, ('when = "y != bit(x, j)"', 'when = "y != bit(x, j) or y == 0"')),
        ["channel.classes[1] ('flipped bit').when = 'y != bit(x, j) or y == 0' overlaps",
         "at the [example] instance bits=3, j=1, epsilon=1"]),
    # a bound of 10**100 on ε: sample points at ε = 10**100 + 1 put exp(10**100 + 1) in the rows;
    # their signs are decided exactly (it used to be exit 4, "cannot determine truth value of
    # Relational"), and the [example] ε = 1 is then refused as outside the range
    "a huge bound": (
        edit(DUCHI, ('[parameters.epsilon]\ntype = "real"\nmin = 0', '[parameters.epsilon]\ntype = "real"\nmin = "10**100"')),
        ["[example] is not an admissible instance", "parameter epsilon = 1", "out of range"]),
    # both bounds huge: a real-input row at a sample point is then e^(10^100)-sized, which sympy's
    # simplify overflowed on (exit 4); that point decides nothing and the example is refused
    "two huge bounds": (
        edit(DUCHI, ('[parameters.epsilon]\ntype = "real"\nmin = 0', '[parameters.epsilon]\ntype = "real"\nmin = "10**100"'),
             ('[parameters.B]\ntype = "real"\nmin = 0', '[parameters.B]\ntype = "real"\nmin = "10**100"')),
        ["[example] is not an admissible instance", "parameter B = 1", "out of range"]),
}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cli(argv: list[str]) -> tuple[int, str, str, float]:
    """``ldpaudit ARGV`` through the CLI's own main, in this process: exit code, stdout, stderr,
    and the CPU seconds of this process and of the children it waited for (the spec loads in one)."""
    out, err = io.StringIO(), io.StringIO()
    start, children = time.process_time(), _children_cpu()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue(), time.process_time() - start + _children_cpu() - children


@pytest.fixture(scope="module", autouse=True)
def _commands_imported():
    cli.build_parser()  # import every stage once, so the CPU budget times the work, not imports


def _case_command_pairs():
    """Every (case, command) pair; the default run takes one command per case, in turn (each
    command meets a third of the cases: they all refuse the spec in the one budgeted loader), and
    -m slow every other pair."""
    for i, case in enumerate(HOSTILE):
        for j, command in enumerate(COMMANDS):
            marks = () if j == i % len(COMMANDS) else (pytest.mark.slow,)
            yield pytest.param(case, command, id=f"{case}-{command}", marks=marks)


@pytest.mark.parametrize("case, command", list(_case_command_pairs()))
def test_hostile_spec_is_bad_input_with_one_line(case, command, tmp_path):
    text, words = HOSTILE[case]
    path = tmp_path / "hostile.toml"
    path.write_text(text)
    code, _, err, cpu = _cli([command, str(path)])
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ldpaudit: error: "), err
    for w in words:
        assert w in lines[0], (w, lines[0])
    assert cpu < CPU_SECONDS


def test_a_hostile_spec_as_a_real_process(tmp_path):
    """The same contract from a fresh process, as a user runs it (exit status, one line)."""
    text, words = HOSTILE["count disagrees with its condition"]
    path = tmp_path / "hostile.toml"
    path.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "ldpaudit.cli", "check", str(path)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and words[0] in lines[0], proc.stderr


@pytest.mark.parametrize("spec", sorted(p.name for p in SPECS.glob("*.toml")))
def test_every_bundled_spec_passes_the_class_checks(spec):
    mech = loads_spec((SPECS / spec).read_text())
    if mech.channel.form == "structured":
        assert any("checked on the example instance" in n for n in mech.notes), mech.notes


def test_the_class_structure_is_proved_for_every_parameter_value():
    mech = loads_spec(KRR)
    assert any("for every parameter value" in n for n in mech.notes)
    # a literal in a condition: only the example instance is checked
    literal = loads_spec(edit(KRR, ('when = "y == x"', 'when = "y == x or (y == x and x == 0)"')))
    assert not any("for every parameter value" in n for n in literal.notes)
    assert any("checked on the example instance (64 input-output pairs)" in n for n in literal.notes)


def test_a_count_wrong_only_away_from_the_example_is_refused_at_a_sample_point():
    """Counts "d - 7" and 7 for d >= 8: right at the example d = 8 (1 and 7), and the rows sum to
    1 and the counts add up to d for every d, but at d = 13 six outputs are not y == x."""
    text = edit(KRR, ('type = "integer"\nmin = 2', 'type = "integer"\nmin = 8'),
                (TRUTH, 'when = "y == x"\ncount = "d - 7"\nweight = "exp(epsilon)/((d - 7)*(exp(epsilon) + d - 1))"'),
                (OTHER, 'when = "y != x"\ncount = 7\nweight = "(d - 1)/(7*(exp(epsilon) + d - 1))"'))
    with pytest.raises(InvalidSpec, match=r"channel.classes\[0\] \('truth'\).count = d - 7 of 'k-RR', but 1 of the outputs "
                       r"satisfy when = 'y == x' for every input \(1, not 6, at d=13, "):
        loads_spec(text)


def test_the_example_instance_is_enumerated_within_the_cap(monkeypatch):
    from ldpaudit.mechanism import structured

    text = HOSTILE["overlap seen only on the example"][0]
    monkeypatch.setattr(structured, "MAX_CLASS_CHECKS", 7)  # fewer than one input's 8 outputs: not listed
    assert "class conditions not listed on the example instance: 8 outputs per input, more than 7" in loads_spec(text).notes
    monkeypatch.setattr(structured, "MAX_CLASS_CHECKS", 16)  # two inputs (x = 0 and x = 7): x = 0 overlaps
    with pytest.raises(InvalidSpec, match="output y=0 for input x=0 satisfies both"):
        loads_spec(text)
    assert ("class conditions and counts checked on the example instance (16 input-output pairs, 2 of its 8 inputs "
            "spread from both ends)") in loads_spec(KRR).notes


def test_signs_are_decided_exactly_where_floats_cannot():
    u = sp.exp(sp.Integer(10) ** 100 + 1)
    tiny = sp.Rational(1, 2) - (u - 1) / (2 * (u + 1))  # = 1/(u + 1) > 0, far below any float
    with pytest.raises(TypeError):
        bool(tiny < 0)
    assert sign(tiny) == 1 and sign(-tiny) == -1
    assert decide(tiny < 0) is False and decide(tiny > 0) is True and decide(-tiny >= 0) is False
    close = sp.log(10**100 + 1) - sp.log(10**100) - sp.Rational(1, 10**100)  # -5e-201: certified digits
    assert sign(close) == -1 and decide(close < 0) is True
    undecided = sp.log(u + 1) - sp.log(u) - 1 / u  # about -1/(2 u^2): neither cancelling nor evaluation
    assert sign(undecided) is None and decide(undecided < 0) is None
