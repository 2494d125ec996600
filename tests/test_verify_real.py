"""verify for real inputs: proofs for all x in R and all public values, refutations carrying
two real inputs that are re-checked here exactly, UNKNOWN for input functions it cannot handle."""

import subprocess
import sys

import pytest
import sympy as sp

from ldpaudit.spec.loader import load_spec, loads_spec
from ldpaudit.spec.realinput import evaluate
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

# KVRR2 whose randomization strength is chosen by a test: on the public estimate (private)
# or, in the mutant, on x where the public estimate belongs (not private)
KVRR2_GATED = HEAD.format(name="KVRR2, gated by {test}") + """
[parameters.mu1]
type = "real"
unbounded = true
public = true
[parameters.R]
type = "real"
min = 0
strict_min = true
public = true
[example]
epsilon = 1
mu1 = 0
R = 10
[inputs]
real = true
[channel]
form = "explicit"
outputs = [-1, 1]
entry = "(exp(E)/(exp(E) + 1) if (y == 1) == (x >= mu1) else 1/(exp(E) + 1)) if {test} else (exp(E/2)/(exp(E/2) + 1) if (y == 1) == (x >= mu1) else 1/(exp(E/2) + 1))"
"""


def gated(test: str) -> str:
    spec = KVRR2_GATED.replace("{test}", test)
    return spec.replace("(y == 1) == (x >= mu1)", "(y == 1 and x >= mu1) or (y == -1 and x < mu1)").replace("E", "epsilon")


def recheck(mech, witness) -> sp.Basic:
    """Q(y|x)/Q(y|x') recomputed from the spec with sympy rationals, independently of verify."""
    bound = mech.bind(dict(witness.params))
    for v in (witness.x, witness.x_prime):
        assert isinstance(v, sp.Rational)  # concrete real inputs, exact
    row = bound.channel.probability(witness.y)
    num, den = evaluate(row, witness.x), evaluate(row, witness.x_prime)
    assert num.is_number and den.is_number and den > 0
    claim = sp.sympify(witness.claim)
    assert sp.simplify(num / den - witness.ratio) == 0
    assert (num / den - sp.exp(claim)).evalf(50) > 0
    return num / den


@pytest.mark.parametrize("stem", ["joseph_rr1", "joseph_kvrr2", "duchi_binary_mean"])
def test_named_specs_are_proved_for_all_real_inputs_and_public_values(stem):
    mech = load_spec(f"specs/{stem}.toml")
    v = verify(mech)
    assert v.status is PROVED, v
    assert "all x, x'" in v.scope
    for p in mech.parameters:
        assert p.name in v.scope  # epsilon and the public values are quantified
    assert v.tight_epsilon == mech.claimed_epsilon
    assert all(q[3] == "unsat" for q in v.proof)


@pytest.mark.parametrize("stem", ["joseph_rr1", "joseph_kvrr2", "duchi_binary_mean"])
def test_tight_epsilon_both_sides(stem):
    mech = load_spec(f"specs/{stem}.toml")
    below = verify(mech, epsilon="epsilon*999/1000", tight=False)
    assert below.status is REFUTED, below
    recheck(mech, below.witness)
    t = tight_epsilon(mech)
    assert t.value == sp.Symbol("epsilon", positive=True) and t.proof.status is PROVED
    assert t.witness is not None and sp.simplify(t.witness.ratio - sp.exp(t.witness.claim)) == 0


def test_abs_dependent_keep_probability_is_refuted_with_a_real_pair():
    mech = loads_spec(RR1_ABS)
    v = verify(mech)
    assert v.status is REFUTED, v
    w = v.witness
    assert w.x != w.x_prime
    ratio = recheck(mech, w)
    assert ratio > 1


def test_gate_on_the_public_estimate_is_private_but_on_x_is_not():
    private = loads_spec(gated("abs(mu1) <= R"))
    assert verify(private).status is PROVED
    mutant = loads_spec(gated("abs(x) <= R"))
    v = verify(mutant)
    assert v.status is REFUTED, v
    w = v.witness
    # the two inputs sit on different sides of the gate |x| <= R
    R = dict(w.params)["R"]
    assert (abs(w.x) <= R) != (abs(w.x_prime) <= R)
    recheck(mutant, w)


def test_threshold_on_x_instead_of_the_public_estimate_breaks_the_proof_only_when_probabilities_depend_on_it():
    # a deterministic test of x followed by binary RR stays ε-LDP whatever the test is
    spec = load_spec("specs/joseph_kvrr2.toml")
    assert verify(spec).status is PROVED


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
    return subprocess.run([sys.executable, "-m", "ldpaudit.cli", *args], capture_output=True, text=True, timeout=300)


def test_cli_exit_codes(tmp_path):
    bad = tmp_path / "unhandled.toml"
    bad.write_text(UNHANDLED)
    out = _cli("verify", str(bad))
    assert out.returncode == 3 and "cannot be handled" in out.stdout
    mutant = tmp_path / "abs.toml"
    mutant.write_text(RR1_ABS)
    out = _cli("verify", str(mutant))
    assert out.returncode == 1 and "REFUTED" in out.stdout
    norange = tmp_path / "norange.toml"
    norange.write_text(RR1_ABS.replace("unbounded = true\npublic = true", "public = true"))
    out = _cli("verify", str(norange))
    assert out.returncode == 2
    assert "parameters.j is public but declares no range" in out.stderr
