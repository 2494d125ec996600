"""verify for real inputs: proofs for all x in R and all public values, refutations carrying
two real inputs that are re-checked here exactly, UNKNOWN for input functions it cannot handle."""


import pytest

import cli_inprocess
import sympy as sp

from ldpaudit.mechanism.loader import load_spec, loads_spec
from ldpaudit.mechanism.realinput import evaluate
from ldpaudit.verify import PROVED, REFUTED, UNKNOWN, tight_epsilon, verify

HEAD = """
[mechanism]
name = "{name}"
claimed_epsilon = "epsilon"
[parameters.epsilon]
type = "real"
min = 0
strict_min = true
"""

# RR1 whose weights grow with |x|: far-away inputs are reported almost truthfully
RR1_ABS = HEAD.format(name="RR1, |x|-dependent keep") + """
[parameters.j]
type = "integer"
unbounded = true
public = true
[example]
epsilon = 1
j = 0
[inputs]
real = true
[channel]
form = "structured"
outputs = "element"
size = 4
[[channel.classes]]
name = "true residue"
when = "y == floor(x / 2**j) % 4"
count = 1
weight = "(exp(epsilon) + abs(x))/(exp(epsilon) + 3 + abs(x))"
[[channel.classes]]
name = "other residue"
when = "y != floor(x / 2**j) % 4"
count = 3
weight = "1/(exp(epsilon) + 3 + abs(x))"
"""

def recheck(mech, witness) -> sp.Basic:
    """Q(y|x)/Q(y|x') recomputed from the spec with sympy rationals, independently of verify."""
    bound = mech.bind({k: v for k, v in witness.params if k in mech.parameter_names})
    for v in (witness.x, witness.x_prime):
        assert isinstance(v, sp.Rational)  # concrete real inputs, exact
    row = bound.channel.probability(witness.y)
    num, den = evaluate(row, witness.x), evaluate(row, witness.x_prime)
    assert num.is_number and den.is_number and den > 0
    claim = sp.sympify(witness.claim)
    assert sp.simplify(num / den - witness.ratio) == 0
    assert (num / den - sp.exp(claim)).evalf(50) > 0
    return num / den


@pytest.mark.parametrize("stem", ["joseph_rr1", "joseph_kvrr2", "duchi_binary_mean", "joseph_uvrr2", "joseph_kvrr2_oneround"])
def test_named_specs_are_proved_for_all_real_inputs_and_public_values(stem):
    mech = load_spec(f"specs/{stem}.toml")
    v = verify(mech)
    assert v.status is PROVED, v
    assert "all x, x'" in v.scope or stem == "joseph_uvrr2"  # densities quantify x, x' inside the query
    for p in mech.parameters:
        assert p.name in v.scope  # epsilon and the public values are quantified
    assert v.tight_epsilon == mech.claimed_epsilon
    assert all(q[3] == "unsat" for q in v.proof)


@pytest.mark.parametrize("stem", ["joseph_rr1", "joseph_kvrr2", "duchi_binary_mean"])
def test_tight_epsilon_both_sides(stem):
    mech = load_spec(f"specs/{stem}.toml")
    below = verify(mech, epsilon="epsilon - 1/1000", tight=False)
    assert below.status is REFUTED, below
    recheck(mech, below.witness)
    example = mech.bind_example()  # epsilon = 1 there
    assert verify(example, epsilon=1).status is PROVED
    below = verify(example, epsilon="999/1000")
    assert below.status is REFUTED
    recheck(example, below.witness)
    t = tight_epsilon(mech)
    assert t.value == sp.Symbol("epsilon", positive=True) and t.proof.status is PROVED
    assert t.witness is not None and sp.simplify(t.witness.ratio - sp.exp(t.witness.claim)) == 0


def test_abs_dependent_keep_probability_is_refuted_with_a_real_pair():
    mech = loads_spec(RR1_ABS)
    v = verify(mech)
    assert v.status is REFUTED, v
    assert v.exit_code == 1
    w = v.witness
    assert w.x != w.x_prime
    ratio = recheck(mech, w)
    assert ratio > 1


def test_clip_around_x_where_the_public_estimate_belongs_is_refuted():
    """UVRR2 clips x to [mu1 - r, mu1 + r]; centring the clip on x instead of the public mu1
    removes it, and Laplace noise of scale 2r/ε on an unbounded x is not ε-LDP."""
    text = open("specs/joseph_uvrr2.toml").read()
    assert verify(loads_spec(text)).status is PROVED
    mutant = loads_spec(text.replace("Max(x, mu1 - r), mu1 + r", "Max(x, x - r), x + r"))
    v = verify(mutant)
    assert v.status is REFUTED, v
    w = v.witness
    assert isinstance(w.x, sp.Rational) and isinstance(w.x_prime, sp.Rational) and isinstance(w.y, sp.Rational)
    bound = mutant.bind(dict(w.params))
    z = sp.Symbol("z", real=True)
    f = bound.channel.density.xreplace({z: w.y})
    ratio = f.xreplace({sp.Symbol("x", real=True): w.x}) / f.xreplace({sp.Symbol("x", real=True): w.x_prime})
    assert (sp.simplify(ratio) - sp.exp(w.claim)).evalf(50) > 0


def test_a_deterministic_test_of_x_before_binary_rr_stays_private():
    # KVRR2 answers RR on a test of x; any test (even of x alone) keeps it ε-LDP
    text = open("specs/joseph_kvrr2.toml").read().replace("(x - mu1)/sigma >= 0", "x**2 >= mu1").replace(
        "(x - mu1)/sigma < 0", "x**2 < mu1")
    assert verify(loads_spec(text)).status is PROVED


UNHANDLED = HEAD.format(name="floor in a weight") + """
[example]
epsilon = 1
[inputs]
real = true
[channel]
form = "explicit"
outputs = [-1, 1]
entry = "1/2 + y/(4 + 4*floor(x)**2)"
"""


def test_input_function_verify_cannot_handle_is_unknown_with_the_reason():
    v = verify(loads_spec(UNHANDLED))
    assert v.status is UNKNOWN
    assert "input function floor(x)" in v.reason and "cannot be handled" in v.reason


def _cli(*args):
    return cli_inprocess.run(*args)     # the command line in this process (tests/cli_inprocess.py)


def test_cli_exit_codes(tmp_path):
    bad = tmp_path / "unhandled.toml"
    bad.write_text(UNHANDLED)
    out = _cli("verify", str(bad))
    assert out.returncode == 3 and "cannot be handled" in out.stdout
    norange = tmp_path / "norange.toml"
    norange.write_text(RR1_ABS.replace("unbounded = true\npublic = true", "public = true"))
    out = _cli("verify", str(norange))
    assert out.returncode == 2
    assert "parameters.j is public but declares no range" in out.stderr
