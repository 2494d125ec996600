"""z3 verification of the catalog: proofs for all ε (and all d, k), tight ε, both sides of
every bound, mutants refuted with witnesses that are re-checked here independently (by
materializing the channel or evaluating the density at the witness and comparing with mpmath
at 50 digits), (ε, δ), float parameters and bad input."""

from __future__ import annotations

import math
from pathlib import Path

import mpmath
import pytest
import sympy as sp

from ldpaudit.errors import InvalidParameter, InvalidSpec
from ldpaudit.mechanism import CATALOG, load_spec, loads_spec
from ldpaudit.mechanism.catalog import k_rappor, k_rr, k_subset, laplace_histogram, laplace_mean, o_rr, oue, rr_bit, wrr
from ldpaudit.mechanism.model import X, Z, DensityChannel, ExplicitChannel, FiniteDomain, Mechanism, Parameter, ProductChannel
from ldpaudit.verify import (
    PROVED,
    REFUTED,
    UNKNOWN,
    delta_for,
    summary,
    tight_epsilon,
    verify,
    verify_float_params,
)
from ldpaudit.verify import smt

SPECS = Path(__file__).resolve().parents[1] / "specs"
STEMS = sorted(CATALOG)
EPS = sp.Symbol("epsilon", positive=True)
mpmath.mp.dps = 50


def num(x) -> mpmath.mpf:
    return mpmath.mpf(sp.N(sp.sympify(x), 60))


# --- independent re-check of a witness ---------------------------------------------------------


def check_witness(original: Mechanism, verdict, claim=None):
    """The witness's ratio, recomputed from the channel at the witness's parameters, exceeds
    e^claim (compared in 50-digit arithmetic) and equals the reported ratio."""
    w = verdict.witness
    assert w is not None, verdict
    assert w.x != w.x_prime
    params = dict(w.params)
    unbound = {k: v for k, v in params.items() if k in original.parameter_names}
    mech = original.bind(unbound) if unbound else original
    claim = sp.sympify(verdict.claim if claim is None else claim)
    claim_at = claim.xreplace({original.symbols[k]: v for k, v in unbound.items() if k in original.symbols})
    assert w.claim == claim_at or sp.simplify(w.claim - claim_at) == 0
    ch = mech.channel
    if isinstance(ch, DensityChannel):
        q1 = ch.density.xreplace({X: w.x, Z: w.y})
        q2 = ch.density.xreplace({X: w.x_prime, Z: w.y})
    elif isinstance(ch, ProductChannel) and ch.continuous:
        z1, z2 = w.y
        q1 = ch.on.density.xreplace({Z: z1}) * ch.off.density.xreplace({Z: z2})
        q2 = ch.off.density.xreplace({Z: z1}) * ch.on.density.xreplace({Z: z2})
    else:
        m = mech.materialize()
        q1 = m.matrix[m.inputs.index(w.x)][m.outputs.index(w.y)]
        q2 = m.matrix[m.inputs.index(w.x_prime)][m.outputs.index(w.y)]
    assert sp.simplify(q1 - w.numerator) == 0 and sp.simplify(q2 - w.denominator) == 0
    if q2 == 0:
        assert w.ratio == sp.oo and num(q1) > 0
        return
    assert sp.simplify(q1 / q2 - w.ratio) == 0
    assert num(q1) / num(q2) > mpmath.exp(num(claim_at)) * (1 + mpmath.mpf(10) ** -40)


# --- the catalog ---------------------------------------------------------------------------------


@pytest.mark.parametrize("stem", STEMS)
def test_catalog_is_proved_for_all_parameters(stem):
    mech = load_spec(SPECS / f"{stem}.toml")
    v = verify(mech)
    assert v.status is PROVED, v
    assert v.passed and v.exit_code == 0
    for p in mech.parameters:  # universally quantified, not an instance
        assert p.name in v.scope
    assert v.proof and all(q[2] == "unsat" == q[3] for q in v.proof)


@pytest.mark.parametrize("stem", STEMS)
def test_catalog_constructors_agree_with_specs(stem):
    v = verify(CATALOG[stem]())
    assert v.status is PROVED, v


@pytest.mark.parametrize("stem", STEMS)
def test_tight_epsilon_is_the_nominal_epsilon_and_is_attained(stem):
    mech = load_spec(SPECS / f"{stem}.toml")
    tight = tight_epsilon(mech)
    assert sp.simplify(tight.value - mech.claimed_epsilon) == 0, tight
    assert tight.proof is not None and tight.proof.status is PROVED
    w = tight.witness
    assert w is not None
    # attained: the ratio is exactly e^(ε*) at the witness's parameters
    at = {mech.symbols[k]: v for k, v in w.params if k in mech.symbols}
    assert sp.simplify(w.ratio - sp.exp(tight.value.xreplace(at))) == 0


@pytest.mark.parametrize("stem", STEMS)
def test_refuted_at_tight_epsilon_minus_one_thousandth(stem):
    mech = load_spec(SPECS / f"{stem}.toml")
    claim = mech.claimed_epsilon - sp.Rational(1, 1000)
    v = verify(mech, epsilon=claim)
    assert v.status is REFUTED, v
    assert v.exit_code == 1
    check_witness(mech, v, claim)


@pytest.mark.parametrize("stem", STEMS)
def test_example_instances_both_sides(stem):
    mech = load_spec(SPECS / f"{stem}.toml").bind_example()
    nominal = mech.claimed_epsilon
    assert verify(mech).status is PROVED
    assert sp.simplify(tight_epsilon(mech).value - nominal) == 0
    v = verify(mech, epsilon=nominal - sp.Rational(1, 1000))
    assert v.status is REFUTED, v
    check_witness(mech, v)


def test_rr_with_tight_log9_both_sides():
    """OpenDP's check(1, log(9.0)) / not check(1, log(8.999)), exactly."""
    rr = wrr(epsilon=sp.log(9))
    assert verify(rr, epsilon=sp.log(9)).status is PROVED
    v = verify(rr, epsilon="log(8999/1000)")
    assert v.status is REFUTED
    assert v.witness.ratio == 9
    assert str(v).startswith("REFUTED: Q(y=0|x=0)/Q(y=0|x=1) = 9 > e^(log(8999/1000))")


def test_verdict_prints_like_a_hand_check():
    m = Mechanism(
        "toy", (), FiniteDomain(sp.Integer(3), (0, 1, 2)),
        ExplicitChannel((0, 1, 2), (0, 1), ((sp.Rational(1, 4), sp.Rational(3, 4)), (sp.Rational(7, 10), sp.Rational(3, 10)),
                                             (sp.Rational(1, 5), sp.Rational(4, 5)))),
        sp.Integer(1),
    )
    v = verify(m)
    assert str(v) == "REFUTED: Q(y=0|x=1)/Q(y=0|x=2) = 7/2 > e^1"
    assert v.tight_epsilon == sp.log(sp.Rational(7, 2))
    assert verify(m, epsilon="log(7/2)").status is PROVED


def test_claims_negative_somewhere_are_refuted_where_they_are_negative():
    """A constant channel is 0-LDP, but no channel is (-δ)-LDP: epsilon - 1/1000 fails for
    small ε even though every column is constant."""
    eps = Parameter("epsilon", "real", sp.Integer(0), lower_strict=True)
    half = sp.Rational(1, 2)
    mech = Mechanism("constant", (eps,), FiniteDomain(sp.Integer(2), (0, 1)),
                     ExplicitChannel((0, 1), (0, 1), ((half, half), (half, half))), eps.symbol)
    assert verify(mech).status is PROVED
    v = verify(mech, epsilon="epsilon - 1/1000")
    assert v.status is REFUTED and v.witness.ratio == 1
    check_witness(mech, v)


def test_integer_parameters_are_integers_when_it_matters():
    """Relaxing n to a real finds a 'counterexample' at n = 3/2 (where Q(0|1) = 0); no
    integer point has one, and z3 proves the claim again with n integer."""
    n = Parameter("n", "integer", sp.Integer(1), sp.Integer(2))
    a = (3 + 4 * (n.symbol - 1) * (2 - n.symbol)) / 4
    mech = Mechanism("parity", (n,), FiniteDomain(sp.Integer(2), (0, 1)),
                     ExplicitChannel((0, 1), (0, 1), ((a, 1 - a), (1 - a, a))), sp.log(3))
    v = verify(mech)
    assert v.status is PROVED and "integer parameters" in v.method
    v = verify(mech, epsilon="log(2)")
    assert v.status is REFUTED and str(v.witness) == "Q(y=0|x=0)/Q(y=0|x=1) = 3 > e^(log(2)) = 2 at n=2"


def test_large_families_are_fast_and_exact():
    """k-subset at d = 1000 is decided through its classes, never its C(1000, 269) outputs."""
    v = verify(k_subset(d=1000, k=269))
    assert v.status is PROVED and v.tight_epsilon == EPS
    v = verify(k_rappor(d=64, epsilon=1), epsilon="999/1000")
    assert v.status is REFUTED
    assert v.witness.ratio == sp.E and len(v.witness.y) == 64


def test_k_rappor_budget_adds_up():
    """formulas.md: flipping with 1/(1+t) instead of 1/(1+s) is 2ε-LDP."""
    tight = tight_epsilon(_krappor_full_eps())
    assert sp.simplify(tight.value - 2 * EPS) == 0
    assert verify(_krappor_full_eps(), epsilon="2*epsilon").status is PROVED


def test_summary_is_short():
    # speed is measured by benchmarks/bench_verify.py, not asserted here (wall time on a shared
    # machine is not a property of the code)
    for stem in STEMS:
        text = summary(load_spec(SPECS / f"{stem}.toml"))
        assert text.startswith("PROVED ε*=epsilon (all "), text
        assert "\n" not in text and len(text) < 80


# --- mutants -------------------------------------------------------------------------------------


def _spec(stem: str, *replacements: tuple[str, str]) -> Mechanism:
    text = (SPECS / f"{stem}.toml").read_text()
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new)
    return loads_spec(text, source=f"<mutant of {stem}>")


def _krappor_full_eps():
    return _spec("krappor", ('"1/(1 + exp(epsilon/2))"', '"1/(1 + exp(epsilon))"'),
                 ('"exp(epsilon/2)/(1 + exp(epsilon/2))"', '"exp(epsilon)/(1 + exp(epsilon))"'))


MUTANTS = {
    # the normalizer uses d instead of d - 1; the other outputs absorb the rest so rows still
    # sum to 1; refuted for small ε (ε < ln(d/(d-1))), which only z3's model point reaches
    "krr: normalizer d instead of d-1": lambda: _spec(
        "krr",
        ('"exp(epsilon)/(exp(epsilon) + d - 1)"', '"exp(epsilon)/(exp(epsilon) + d)"'),
        ('"1/(exp(epsilon) + d - 1)"', '"d/((exp(epsilon) + d)*(d - 1))"'),
    ),
    "krappor: e^eps instead of e^(eps/2) (really 2 eps)": _krappor_full_eps,
    "oue: q = 1/e^(eps+1)": lambda: _spec(
        "oue",
        ('"exp(epsilon)/(exp(epsilon) + 1)", "1" = "1/(exp(epsilon) + 1)"',
         '"1 - exp(-epsilon - 1)", "1" = "exp(-epsilon - 1)"'),
    ),
    "ksubset: wrong inclusion probability (e^(2 eps) weights)": lambda: _spec(
        "ksubset",
        ('"exp(epsilon)/(binomial(d - 1, k - 1)*exp(epsilon) + binomial(d - 1, k))"',
         '"exp(2*epsilon)/(binomial(d - 1, k - 1)*exp(2*epsilon) + binomial(d - 1, k))"'),
        ('"1/(binomial(d - 1, k - 1)*exp(epsilon) + binomial(d - 1, k))"',
         '"1/(binomial(d - 1, k - 1)*exp(2*epsilon) + binomial(d - 1, k))"'),
    ),
    "wrr: an entry that is 0 for one input only (eps = oo)": lambda: _spec(
        "wrr",
        ('entry = "exp(epsilon)/(exp(epsilon) + 1) if y == x else 1/(exp(epsilon) + 1)"',
         'entry = "(exp(epsilon)/(exp(epsilon) + 1) if y == 0 else 1/(exp(epsilon) + 1)) if x == 0 else (0 if y == 0 else 1)"'),
    ),
    "orr: hash hit weight with e^(2 eps)": lambda: _spec(
        "orr",
        ('"exp(epsilon)/(3*(exp(epsilon) + 3 - 1))"', '"exp(2*epsilon)/(3*(exp(2*epsilon) + 3 - 1))"'),
        ('"1/(3*(exp(epsilon) + 3 - 1))"', '"1/(3*(exp(2*epsilon) + 3 - 1))"'),
    ),
    "rr_bit: off-by-one exponent e^(eps+1)": lambda: _spec(
        "rr_bit",
        ('"exp(epsilon)/(exp(epsilon) + 1)"', '"exp(epsilon + 1)/(exp(epsilon + 1) + 1)"'),
        ('"1/(exp(epsilon) + 1)"', '"1/(exp(epsilon + 1) + 1)"'),
    ),
    "laplace_mean: scale M/eps instead of 2M/eps": lambda: _spec(
        "laplace_mean",
        ('"epsilon/(4*M)*exp(-epsilon*abs(z - x)/(2*M))"', '"epsilon/(2*M)*exp(-epsilon*abs(z - x)/M)"'),
    ),
    "laplace_histogram: scale 1/eps instead of 2/eps": lambda: _spec(
        "laplace_histogram",
        ('"epsilon/4*exp(-epsilon*abs(z - 1)/2)"', '"epsilon/2*exp(-epsilon*abs(z - 1))"'),
        ('"epsilon/4*exp(-epsilon*abs(z)/2)"', '"epsilon/2*exp(-epsilon*abs(z))"'),
    ),
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutants_are_refuted_with_a_correct_witness(name):
    mech = MUTANTS[name]()
    v = verify(mech)
    assert v.status is REFUTED, v
    check_witness(mech, v)


@pytest.mark.parametrize(
    "name, tight",
    [
        ("krappor: e^eps instead of e^(eps/2) (really 2 eps)", 2 * EPS),
        ("ksubset: wrong inclusion probability (e^(2 eps) weights)", 2 * EPS),
        ("orr: hash hit weight with e^(2 eps)", 2 * EPS),
        ("rr_bit: off-by-one exponent e^(eps+1)", EPS + 1),
        ("laplace_mean: scale M/eps instead of 2M/eps", 2 * EPS),
        ("laplace_histogram: scale 1/eps instead of 2/eps", 2 * EPS),
        ("wrr: an entry that is 0 for one input only (eps = oo)", sp.oo),
    ],
)
def test_mutants_tight_epsilon(name, tight):
    got = tight_epsilon(MUTANTS[name]())
    assert got.value == tight or sp.simplify(got.value - tight) == 0, got


def test_oue_mutant_tight_epsilon_is_log_of_e_to_eps_plus_one_minus_one():
    got = tight_epsilon(MUTANTS["oue: q = 1/e^(eps+1)"]())
    expected = sp.log(sp.exp(EPS + 1) - 1)
    for e in (sp.Rational(1, 2), 1, 3):
        assert abs(num(got.value.subs(EPS, e)) - num(expected.subs(EPS, e))) < mpmath.mpf(10) ** -40


# --- (ε, δ) -------------------------------------------------------------------------------------


def test_delta_of_randomized_response_exactly():
    rr = wrr(epsilon=sp.log(3))  # Q = [[3/4, 1/4], [1/4, 3/4]]
    d = delta_for(rr, "log(2)")
    assert d.delta == sp.Rational(1, 4) and d.pair == (0, 1) and d.event == (0,)
    assert verify(rr, epsilon="log(2)", delta="1/4").status is PROVED
    v = verify(rr, epsilon="log(2)", delta="0.249")
    assert v.status is REFUTED and v.exact_delta == sp.Rational(1, 4)
    assert delta_for(rr, "log(3)").delta == 0


def test_delta_with_transcendental_bound():
    mech = k_rr(d=4, epsilon=1)
    d = delta_for(mech, "1/2")
    t = sp.E
    expected = (t - sp.exp(sp.Rational(1, 2))) / (t + 3)  # y = x: Q(x|x) - e^(1/2) Q(x|x')
    assert sp.simplify(d.delta - expected) == 0
    assert verify(mech, epsilon="1/2", delta=sp.nsimplify("0.1871")).status is PROVED
    assert verify(mech, epsilon="1/2", delta="0.187").status is REFUTED


def test_delta_needs_numeric_parameters():
    with pytest.raises(InvalidParameter, match=r"δ\(ε\) needs numeric parameters; bind d, epsilon"):
        verify(k_rr(), delta="1/10")


# --- float parameters -----------------------------------------------------------------------------


def test_float_parameters_of_rr_exceed_by_a_fraction_of_an_ulp():
    e = math.e
    report = verify_float_params(wrr(), {"p": e / (1 + e), "q": 1 / (1 + e)}, epsilon=1)
    assert report.verdict.status is REFUTED
    assert report.exact[0][1] == sp.Rational(6584790284608189, 9007199254740992)
    assert report.epsilon == sp.log(sp.Rational(6584790284608189, 2422408970132803))
    assert 0 < report.ulps < 1
    assert abs(report.ulps - float((num(report.epsilon) - 1) / mpmath.mpf(math.ulp(1.0)))) < 1e-9


def test_float_parameters_keep_else_uniform():
    e = math.e
    report = verify_float_params(k_rr(d=8), {"p": e / (e + 7)}, epsilon=1)
    assert report.verdict.status is PROVED and report.excess < 0
    assert any("uniform" in n for n in report.notes)


def test_float_parameters_of_a_spec_with_named_probability():
    text = """
[mechanism]
name = "RR(p)"
claimed_epsilon = "log(p/(1 - p))"
[parameters.p]
type = "real"
min = "1/2"
max = 1
strict_max = true
[inputs]
labels = [0, 1]
[channel]
form = "explicit"
outputs = [0, 1]
entry = "p if y == x else 1 - p"
"""
    mech = loads_spec(text)
    report = verify_float_params(mech, {"p": 0.75}, epsilon="log(3)")
    assert report.verdict.status is PROVED and report.excess == 0 and report.ulps == 0
    report = verify_float_params(mech, {"p": 0.7310585786300049}, epsilon=1)
    assert report.verdict.status is REFUTED and 0 < report.ulps < 1


# --- bad input ------------------------------------------------------------------------------------


NO_EXAMPLE = """
[mechanism]
name = "k-RR"
claimed_epsilon = "epsilon"
[parameters.d]
type = "integer"
min = {dmin}
max = {dmax}
[parameters.epsilon]
type = "real"
min = 0
strict_min = true
[inputs]
size = "d"
[channel]
form = "structured"
outputs = "element"
size = "d"
[[channel.classes]]
name = "truth"
when = "y == x"
count = 1
weight = "exp(epsilon)/(exp(epsilon) + d - 1)"
[[channel.classes]]
name = "other"
when = "y != x"
count = "d - 1"
weight = "1/(exp(epsilon) + d - 1)"
"""


def test_contradictory_numeric_bounds_are_refused_by_the_model():
    with pytest.raises(InvalidSpec, match=r"parameters.d has contradictory bounds: 5 <= d <= 3"):
        loads_spec(NO_EXAMPLE.format(dmin=5, dmax=3))


def test_contradictory_symbolic_bounds_are_refused_by_verify():
    mech = loads_spec(NO_EXAMPLE.format(dmin='"d + 1"', dmax=9))  # d >= d + 1: only z3 sees it
    with pytest.raises(InvalidSpec, match="parameter ranges of 'k-RR' are contradictory .*no admissible values; fix min/max"):
        verify(mech)


def test_contradictory_integer_bounds_without_an_integer_between():
    p = Parameter("n", "integer", sp.Rational(5, 2), sp.Rational(14, 5))
    with pytest.raises(InvalidSpec, match="contradictory"):
        Mechanism("toy", (p,), FiniteDomain(sp.Integer(2), (0, 1)),
                  ExplicitChannel((0, 1), (0, 1), ((sp.Rational(1, 2),) * 2,) * 2), sp.Integer(1))


@pytest.mark.parametrize(
    "claim, message",
    [
        ("-1", r"--epsilon = -1 is not positive"),
        ("0", r"--epsilon = 0 is not positive"),
        ("-epsilon", r"--epsilon = -epsilon is never positive"),
        ("epsilon - epsilon", r"--epsilon = 0 is not positive"),
        ("log(1/2)", r"is not positive"),
        ("-epsilon - d", r"is never positive"),
        ("eps", r"unknown symbol 'eps'|mentions eps"),
        (1.5, r"is a float, which is inexact"),
    ],
)
def test_claims_that_are_not_positive_expressions(claim, message):
    with pytest.raises(InvalidParameter, match=message):
        verify(k_rr(), epsilon=claim)


def test_claim_positive_nowhere_is_refused():
    with pytest.raises(InvalidParameter, match="not positive for any admissible parameters"):
        verify(k_rr(), epsilon="1 - d + epsilon/(epsilon + 1)")


def test_symbolic_denominator_that_can_vanish():
    text = """
[mechanism]
name = "fragile"
claimed_epsilon = "epsilon"
[parameters.epsilon]
type = "real"
min = 0
strict_min = true
[parameters.d]
type = "integer"
min = 2
[inputs]
labels = [0, 1]
[channel]
form = "explicit"
outputs = [0, 1]
rows = [["(exp(2*epsilon) - d**2)/(2*(exp(epsilon) - d)*(exp(epsilon) + d))", "1/2"], ["1/2", "1/2"]]
"""
    mech = loads_spec(text)  # vanishes at epsilon = log(d): two parameters, so only z3 sees it
    with pytest.raises(InvalidSpec, match=r"the denominator .* can be 0 \(at .*\); restrict the parameter ranges"):
        verify(mech)


# --- UNKNOWN is never a pass ----------------------------------------------------------------------


@pytest.mark.parametrize("stem", ["ksubset", "laplace_mean", "oue"])
def test_a_spent_z3_budget_is_unknown(stem):
    # one z3 resource unit: every query stops at once, the same way on any machine
    v = verify(load_spec(SPECS / f"{stem}.toml"), rlimit=1)
    assert v.status is UNKNOWN and not v.passed and v.exit_code == 3
    assert "resource limit exceeded" in v.reason


def test_z3_unknown_maps_to_unknown(monkeypatch):
    real = smt.check

    def unknown(assertions, **kw):
        out = real(assertions, **kw)
        out.result, out.model, out.reason = "unknown", None, "incomplete (forced by the test)"
        return out

    monkeypatch.setattr(smt, "check", unknown)
    for mech in (k_rr(), wrr(epsilon=sp.log(3)), laplace_mean(), k_rr(d=3, epsilon=1)):
        v = verify(mech)
        assert v.status is UNKNOWN and not v.passed and "forced by the test" in v.reason, v


def test_unknown_with_a_known_violation_is_still_refuted_by_its_witness(monkeypatch):
    """A REFUTED verdict rests on the exactly re-checked witness, not on z3's answer."""
    real = smt.check

    def unknown(assertions, **kw):
        out = real(assertions, **kw)
        out.result, out.model, out.reason = "unknown", None, "forced"
        return out

    monkeypatch.setattr(smt, "check", unknown)
    v = verify(k_rr(d=3, epsilon=1), epsilon="1/2")
    assert v.status is REFUTED
    check_witness(k_rr(d=3, epsilon=1), v)
