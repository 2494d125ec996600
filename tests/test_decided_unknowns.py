"""True claims that were left UNKNOWN are decided (issue 35, item 6): each PROVED at the bound and
REFUTED just below it with a witness re-checked exactly, each within a CPU budget, and each
verdict compared with a brute-force exact maximum ratio of the materialized channel.

- O-RAPPOR at ε = log 4 (d = 4, C = 1, k = 4, h = 2): L_on = log(2)/2 against a claim log 4 (z3
  saw two unrelated constants log 2 and log 4); a fixed table whose inputs overlap (the (a, b)
  box's corner a = b = h is not realized, decided from the table);
- W-RR at ε = log 3 against log(24/5)·(1 - 10⁻⁹): sympy expanded e^claim = (24/5)^(999999999/10⁹)
  into 2^999999997 (compared as logarithms now)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import mpmath
import pytest
import sympy as sp

from ldpaudit.mechanism import load_spec, loads_spec
from ldpaudit.mechanism.params import X, Z, decide
from ldpaudit.verify import PROVED, REFUTED, verify

SPECS = Path(__file__).resolve().parents[1] / "specs"
#: the issue's goal: each decided within 10 s of CPU (far less here)
CPU_BUDGET = 10.0
ONE_MINUS = sp.Rational(999999999, 10**9)
ONE_PLUS = sp.Rational(1000000001, 10**9)


def timed_verify(mech, claim, **options):
    start = time.process_time()
    verdict = verify(mech, epsilon=claim, **options)
    assert time.process_time() - start < CPU_BUDGET
    return verdict


def brute_max_ratio(mech) -> sp.Basic:
    """max over columns and input pairs of Q(y|x)/Q(y|x'), exactly: floats at 50 digits pick the
    largest, sympy confirms it against every other ratio of the channel."""
    Q = mech.materialize().matrix
    ratios = [a / b for col in zip(*Q) for a in col for b in col]  # every entry is positive here
    with mpmath.workdps(50):
        best = max(ratios, key=lambda r: sp.N(r, 50))
    assert all(decide(r <= best) is True for r in {sp.simplify(r) for r in ratios})
    return sp.simplify(best)


def check_refutation(verdict, claim, mech):
    assert verdict.status is REFUTED
    w = verdict.witness
    assert w is not None and w.claim == claim
    Q = mech.materialize()
    j = Q.outputs.index(w.y)
    assert sp.simplify(Q.matrix[w.x][j] / Q.matrix[w.x_prime][j] - w.ratio) == 0
    assert decide(sp.log(w.ratio) > claim) is True


# --- O-RAPPOR: logs of one prime, and the table's own patterns ----------------------------------------


def test_orappor_at_log4_proved_tight_and_refuted_just_below():
    mech = load_spec(SPECS / "orappor.toml").bind(d=4, C=1, k=4, h=2, epsilon=sp.log(4))
    assert sp.simplify(brute_max_ratio(mech) - 4) == 0  # ε* = log 4 exactly: the claim is tight
    proved = timed_verify(mech, sp.log(4))
    assert proved.status is PROVED and sp.simplify(proved.tight_epsilon - sp.log(4)) == 0
    below = sp.log(4) * ONE_MINUS
    check_refutation(timed_verify(mech, below), below, mech)


def _overlap_orappor():
    sys.path.insert(0, str(Path(__file__).parent))
    from test_hashing import PERM_ORAPPOR

    text = PERM_ORAPPOR.replace("size = 4", "size = 3").replace("hashes = 1", "hashes = 2") \
        .replace("hash = [[[1, 3, 0, 2]]]\npermutation = true", "hash = [[[0, 1, 2], [1, 2, 0]]]") \
        .replace("epsilon/2", "epsilon/4")
    return loads_spec(text).bind(epsilon=1)


def test_fixed_table_overlap_decided_from_the_table_not_the_box():
    """Every pair of inputs shares one of its h = 2 bits: a = b = 1, ε* = 1/2, though the box
    0 <= a, b <= h allows 1; the claim 1/2 is PROVED (it was UNKNOWN), 1/2 - 10⁻⁹ REFUTED."""
    mech = _overlap_orappor()
    assert sp.simplify(brute_max_ratio(mech) - sp.exp(sp.Rational(1, 2))) == 0
    proved = timed_verify(mech, sp.Rational(1, 2))
    assert proved.status is PROVED and proved.tight_epsilon == sp.Rational(1, 2)
    assert "a = 1, b = 1" in proved.method
    below = sp.Rational(1, 2) * ONE_MINUS
    check_refutation(timed_verify(mech, below), below, mech)


# --- W-RR against a claim one part in 10^9 from the tight ε -----------------------------------------


def test_wrr_claim_with_long_exponent_proved_and_refuted():
    mech = load_spec(SPECS / "wrr.toml").bind(epsilon=sp.log(3))
    assert brute_max_ratio(mech) == 3
    # the case: log(24/5)·(1 - 10⁻⁹) > log 3
    claim = sp.log(sp.Rational(24, 5)) * ONE_MINUS
    proved = timed_verify(mech, claim)
    assert proved.status is PROVED and proved.tight_epsilon == sp.log(3)
    assert "log r* <=" in proved.method
    assert timed_verify(mech, sp.log(3) * ONE_PLUS).status is PROVED
    below = sp.log(3) * ONE_MINUS
    check_refutation(timed_verify(mech, below), below, mech)


def test_wrr_at_log_24_5_on_both_sides_of_one_part_in_a_billion():
    """The base 24/5 has two primes: e^claim is (24/5)^(999999999/10⁹), which sympy hangs on."""
    mech = load_spec(SPECS / "wrr.toml").bind(epsilon=sp.log(sp.Rational(24, 5)))
    assert brute_max_ratio(mech) == sp.Rational(24, 5)
    below = sp.log(sp.Rational(24, 5)) * ONE_MINUS
    refuted = timed_verify(mech, below)
    check_refutation(refuted, below, mech)
    assert str(refuted.witness).startswith("Q(y=0|x=0)/Q(y=0|x=1) = 24/5 > e^(")
    assert "≈ 4.79999999" in str(refuted.witness)
    assert timed_verify(mech, sp.log(sp.Rational(24, 5)) * ONE_PLUS).status is PROVED


# --- the Piecewise Mechanism with C inlined (no [definitions]) ---------------------------------------

PM_HEAD = (SPECS / "piecewise.toml").read_text().split("[definitions]")[0]
C = "(exp(epsilon/2) + 1)/(exp(epsilon/2) - 1)"
P = "(exp(epsilon) - exp(epsilon/2))/(2*exp(epsilon/2) + 2)"
#: PM as one density, the band written |z - (C + 1)x/2| <= (C - 1)/2 and the support |z| <= C:
#: sympy folds the support into ITE(z >= 0, z <= C, z >= -C) and simplifies C into 1/tanh(ε/4)
PM_INLINED = PM_HEAD + f'''[channel]
form = "density"
density = "{P} if abs(z - ({C} + 1)/2*x) <= ({C} - 1)/2 else ({P}/exp(epsilon) if abs(z) <= {C} else 0)"
'''


def test_pm_inlined_flattens_like_the_spec_with_definitions():
    """specs/piecewise.toml's breakpoints ±C, l(x), r(x) among the inlined density's (at ε = 1,
    x = 1/3, exactly; the kinks z = 0 and z = (C + 1)x/2 of the two |.| join them), none hyperbolic."""
    from ldpaudit.verify.exact import compare
    from sympy.functions.elementary.hyperbolic import HyperbolicFunction

    from ldpaudit.mechanism.piecewise import flattened

    mine, theirs = (loads_spec(text).channel for text in (PM_INLINED, (SPECS / "piecewise.toml").read_text()))
    points = []
    for ch in (mine, theirs):
        pd = flattened(ch.density, Z)
        assert not any(g.has(HyperbolicFunction) for g in pd.breakpoints)
        eps = next(s for s in sp.sympify(ch.density).free_symbols if s.name == "epsilon")
        points.append([g.subs({eps: 1, X: sp.Rational(1, 3)}) for g in pd.breakpoints])
    assert len(points[0]) == 6 and len(points[1]) == 4
    assert all(sum(compare(a, b) == 0 for a in points[0]) == 1 for b in points[1])
    assert sum(compare(a, 0) == 0 for a in points[0]) == 1


@pytest.mark.slow
def test_pm_inlined_refuted_below_epsilon_with_the_witness_rechecked():
    """Slow (5 s of CPU: six breakpoints' orders for the validity proof); fast twins: the
    flattening above and the hyperbolic encoding below."""
    mech = loads_spec(PM_INLINED).bind(epsilon=1)
    claim = sp.Rational(99, 100)
    refuted = timed_verify(mech, claim, tight=False)
    assert refuted.status is REFUTED
    w = refuted.witness
    f = mech.channel.density
    num, den = (f.subs({X: xv, Z: w.y}) for xv in (w.x, w.x_prime))
    assert sp.simplify(num / den - w.ratio) == 0 and decide(sp.log(w.ratio) > claim) is True


@pytest.mark.slow
def test_pm_inlined_proved_for_every_epsilon_with_tight_epsilon():
    """Was UNKNOWN "cannot encode tanh(epsilon/4) exactly" and "ε* = nan"; fast twins above."""
    mech = loads_spec(PM_INLINED)
    proved = timed_verify(mech, None)
    assert proved.status is PROVED and proved.tight_epsilon == sp.Symbol("epsilon", positive=True)
    below = verify(mech, epsilon="epsilon*99/100", tight=False)
    assert below.status is REFUTED


def test_hyperbolic_forms_are_encoded_as_exponentials():
    """sympy's simplify writes C = (e^(1/2) + 1)/(e^(1/2) - 1) as 1/tanh(1/4): signs decided exactly."""
    from ldpaudit.verify.exact import sign

    c_inlined = (sp.exp(sp.Rational(1, 2)) + 1) / (sp.exp(sp.Rational(1, 2)) - 1)
    assert sign(1 / sp.tanh(sp.Rational(1, 4)) - c_inlined) == 0
    assert sign(sp.tanh(1) - sp.Rational(3, 4)) == 1 and sign(sp.tanh(1) - sp.Rational(77, 100)) == -1


# --- real inputs: a leak at a single irrational point --------------------------------------------------

LEAK_AT_ROOT = """
[mechanism]
name = "binary RR, sharper at x^2 = 2"
claimed_epsilon = "epsilon"
[parameters.epsilon]
type = "real"
min = 0
strict_min = true
[example]
epsilon = 1
[inputs]
real = true
[channel]
form = "explicit"
outputs = [-1, 1]
entry = "(exp(2*epsilon) if y == 1 else 1)/(exp(2*epsilon) + 1) if x**2 == 2 else (exp(epsilon) if y == 1 else 1)/(exp(epsilon) + 1)"
"""


def test_real_input_leak_only_at_an_irrational_point_refuted_there():
    """Rows differ only at x = ±√2: the largest ratio is (e^(2ε) + 1)/(e^ε + 1) < e^ε, so ε holds
    and ε/2 fails, with a witness at the exact point √2 (rational candidates never hit it)."""
    from ldpaudit.mechanism.realinput import evaluate

    mech = loads_spec(LEAK_AT_ROOT)
    assert timed_verify(mech, None).status is PROVED
    half = timed_verify(mech, "epsilon/2")
    assert half.status is REFUTED
    w = half.witness
    assert sp.sqrt(2) in (abs(w.x), abs(w.x_prime))
    bound = mech.bind(dict(w.params))
    row = bound.channel.probability(w.y)
    assert sp.simplify(evaluate(row, w.x) / evaluate(row, w.x_prime) - w.ratio) == 0
    assert decide(sp.log(w.ratio) > w.claim) is True
    e = sp.E
    assert sp.simplify(w.ratio - (e**2 + 1) / (e + 1)) == 0 or sp.simplify(w.ratio - e * (e + 1) / (e**2 + 1)) == 0
