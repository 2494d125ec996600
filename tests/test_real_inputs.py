"""Real-valued inputs with finite outputs: spec syntax, public parameters, validation, samplers."""

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism.loader import dumps_spec, load_spec, loads_spec
from ldpaudit.mechanism.model import X, IntervalDomain, RealInputChannel
from ldpaudit.mechanism.randomizers import reference_for
from ldpaudit.mechanism.realinput import abstract, evaluate

HEAD = """
[mechanism]
name = "t"
claimed_epsilon = "epsilon"
[parameters.epsilon]
type = "real"
min = 0
strict_min = true
"""

BIT_RR = HEAD + """
[parameters.sigma]
type = "real"
min = 0
strict_min = true
public = true
[parameters.j]
type = "integer"
min = 0
max = 60
public = true
[example]
epsilon = 1
sigma = 2
j = 1
[inputs]
real = true
[channel]
form = "structured"
outputs = "element"
size = 2
[[channel.classes]]
name = "true bit"
when = "y == bit(floor(x/sigma), j)"
count = 1
weight = "exp(epsilon)/(exp(epsilon) + 1)"
[[channel.classes]]
name = "flipped bit"
when = "y != bit(floor(x/sigma), j)"
count = 1
weight = "1/(exp(epsilon) + 1)"
"""


def q(mech, y, x):
    """Q(y|x) of a bound real-input mechanism, exactly."""
    return evaluate(mech.channel.probability(y), sp.nsimplify(x))


def test_bit_of_a_floor_is_twos_complement():
    mech = loads_spec(BIT_RR).bind(epsilon=1, sigma=2, j=1)
    keep, flip = sp.E / (sp.E + 1), 1 / (sp.E + 1)
    # floor(x/2) for x = 5: 2 = 0b10 -> bit 1 is 1; x = -3: floor(-3/2) = -2 = ...110 -> bit 1 is 1;
    # x = -5: floor(-5/2) = -3 = ...101 -> bit 1 is 0
    for x, bit in ((5, 1), (Fraction(-3), 1), (-5, 0), (0, 0), (Fraction(13, 2), 1)):
        n = sp.floor(sp.nsimplify(x) / 2)
        assert int(sp.floor(n / 2) % 2) == bit
        assert q(mech, bit, x) == keep
        assert q(mech, 1 - bit, x) == flip


def test_real_inputs_syntax_and_show_public():
    mech = loads_spec(BIT_RR)
    assert isinstance(mech.channel, RealInputChannel) and mech.channel.layout == "structured"
    assert mech.inputs == IntervalDomain(None, None) and mech.inputs.describe() == "R"
    assert [p.name for p in mech.parameters if p.public] == ["sigma", "j"]
    assert "(public)" in mech.parameter("j").describe()
    assert any("for every x" in n for n in mech.notes)
    assert loads_spec(dumps_spec(mech)) == mech


@pytest.mark.parametrize("inputs, text", [
    ('low = "0"', "[0, oo)"), ('high = "3"', "(-oo, 3]"), ('low = "-1"\nhigh = "1"', "[-1, 1]"),
])
def test_half_lines_and_intervals(inputs, text):
    spec = BIT_RR.replace("real = true", inputs)
    mech = loads_spec(spec)
    assert mech.inputs.describe() == text
    assert loads_spec(dumps_spec(mech)) == mech


@pytest.mark.parametrize("change, match", [
    (("min = 0\nmax = 60\npublic = true", "public = true"), r"parameters\.j is public but declares no range; give min and/or max, or unbounded = true"),
    (("min = 0\nmax = 60\npublic = true", "min = 0\nunbounded = true"), r"parameters\.j declares unbounded = true and a min/max"),
    (("public = true\n[parameters.j]", "public = 1\n[parameters.j]"), r"parameters\.sigma\.public = 1 must be true or false"),
    (("real = true", "real = true\nsize = 3"), r"inputs\.size with real inputs"),
    (("real = true", "real = false"), r"inputs\.real = False"),
    (('count = 1\nweight = "1/', 'count = 2\nweight = "1/'), r"declares count 2 but 1 outputs satisfy"),
    (('weight = "1/(exp(epsilon) + 1)"', 'weight = "1/(exp(epsilon) + 2)"'), r"sums to"),
    (('when = "y != bit(floor(x/sigma), j)"', 'when = "floor(x)"'), r"(is not|which is not) a condition"),
    (('outputs = "element"', 'outputs = "subset"'), r"needs outputs = \"element\""),
    (('size = 2', 'size = "j"'), r"number of outputs must be a positive integer"),
])
def test_bad_real_specs(change, match):
    old, new = change
    assert old in BIT_RR
    with pytest.raises(InvalidSpec, match=match):
        loads_spec(BIT_RR.replace(old, new, 1))


def test_explicit_real_needs_entry():
    spec = HEAD + '[inputs]\nreal = true\n[channel]\nform = "explicit"\noutputs = [0, 1]\nrows = [["1/2", "1/2"]]\n'
    with pytest.raises(InvalidSpec, match=r"needs channel\.entry"):
        loads_spec(spec)


def test_abstraction_finds_the_input_functions():
    rr1 = load_spec("specs/joseph_rr1.toml")
    ab = abstract([rr1.channel.probability(y) for y in range(4)])
    assert [f.kind for f in ab.features] == ["residue"] and ab.features[0].values == (0, 1, 2, 3)
    assert not ab.residual and ab.case_count == 4
    kv = load_spec("specs/joseph_kvrr2.toml")
    ab = abstract([kv.channel.probability(y) for y in (-1, 1)])
    assert [f.kind for f in ab.features] == ["comparison"]  # x >= mu1 and x < mu1 are one function
    duchi = load_spec("specs/duchi_binary_mean.toml")
    ab = abstract([duchi.channel.probability(y) for y in (-1, 1)])
    assert ab.features == () and ab.residual


def _rows(mech, xs):
    return {x: [float(q(mech, y, x)) for y in mech.channel.outputs] for x in xs}


@pytest.mark.parametrize("stem, xs", [
    ("joseph_rr1", [0, 5, Fraction(-3, 2), 13]),
    ("joseph_kvrr2", [Fraction(5, 2), 0, 100]),
    ("duchi_binary_mean", [-1, 0, Fraction(1, 3), 1]),
    ("joseph_kvrr2_oneround", [0, Fraction(1, 5), Fraction(21, 10), Fraction(22, 10), -7]),
])
def test_reference_samplers_match_the_channel(stem, xs):
    mech = load_spec(f"specs/{stem}.toml").bind_example()
    sample = reference_for(mech)
    outputs = list(mech.channel.outputs)
    n = 40_000
    rng = np.random.default_rng(7)
    for x, row in _rows(mech, xs).items():
        draws = sample(float(x), n, rng)
        for y, p in zip(outputs, row):
            freq = np.mean(draws == y)
            # 5 standard errors: a false alarm has probability < 1e-6 per cell
            assert abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-12, (stem, x, y, freq, p)


def test_sampler_residue_is_exact_for_negative_inputs():
    sample = reference_for(load_spec("specs/joseph_rr1.toml").bind(epsilon=50, s=1, j=0))
    # floor(-0.5) = -1 and -1 mod 4 = 3; with e^50 the true residue is reported essentially always
    assert set(sample(-0.5, 100, np.random.default_rng(0))) == {3}


def test_uvrr2_sampler_clips_around_the_public_estimate():
    sample = reference_for(load_spec("specs/joseph_uvrr2.toml").bind_example())  # mu1 = 3, r = 2, ε = 1
    rng = np.random.default_rng(3)
    n = 200_000
    scale = 4.0  # 2r/ε
    for x, centre in ((100.0, 5.0), (-7.0, 1.0), (2.5, 2.5)):
        z = sample(x, n, rng)
        # Laplace(centre, 4): mean centre (sd 4*sqrt(2)), median absolute deviation from centre 4*ln 2
        assert abs(z.mean() - centre) < 5 * scale * np.sqrt(2) / np.sqrt(n)
        assert abs(np.median(np.abs(z - centre)) - scale * np.log(2)) < 0.05


# -- inputs for the quick audit of `ldpaudit check` ---------------------------------------------

def test_evaluate_keeps_an_exact_rational_exact():
    """The double nearest -59/5 is below it; nsimplify would have rounded it back to -59/5."""
    below = sp.Rational(*Fraction(-11.8).as_integer_ratio())
    assert below < sp.Rational(-59, 5)
    assert evaluate(X - sp.Rational(-59, 5), below) == below + sp.Rational(59, 5) != 0
    assert evaluate(X - sp.Rational(-59, 5), sp.Rational(-59, 5)) == 0


@pytest.mark.parametrize("stem", ["joseph_rr1", "joseph_kvrr2", "duchi_binary_mean", "joseph_kvrr2_oneround"])
def test_audit_inputs_are_distinct_rows_at_the_doubles_the_randomizer_receives(stem):
    """Each chosen input is a distinct row Q(.|x) evaluated at the exact value of float(x), and
    the reference randomizer, which receives that double, reports the row's likeliest output."""
    from ldpaudit.mechanism.realinput import audit_inputs

    mech = load_spec(f"specs/{stem}.toml").bind_example()
    rows = [mech.channel.probability(y) for y in mech.channel.outputs]
    xs = audit_inputs(mech)
    keys = [tuple(evaluate(r, sp.Rational(*Fraction(x).as_integer_ratio())) for r in rows) for x in xs]
    assert len(set(keys)) == len(xs) >= 2
    if stem == "duchi_binary_mean":
        return
    sample = reference_for(mech)
    for x, key in zip(xs, keys):
        likeliest = mech.channel.outputs[max(range(len(key)), key=lambda i: float(key[i]))]
        draws = sample(x, 2000, np.random.default_rng(1))
        assert np.bincount(np.searchsorted(mech.channel.outputs, draws)).argmax() == \
            list(mech.channel.outputs).index(likeliest), (stem, x)


def test_check_audits_the_witness_pair_of_the_one_round_grid_randomizer():
    """The two inputs picked by class alone fell on one side of the grid in floats (ε_lb 0.000);
    verify's witness pair (x = 0, x' = 1/5) is on both sides, so the audit certifies most of ε = 1."""
    from ldpaudit.check import _audit_stage, _witness_inputs
    from ldpaudit.mechanism.realinput import audit_inputs

    mech = load_spec("specs/joseph_kvrr2_oneround.toml").bind_example()
    assert _witness_inputs(mech) == (0, sp.Rational(1, 5))
    assert audit_inputs(mech, extra=_witness_inputs(mech))[:2] == [0.0, 0.2]
    out = _audit_stage(mech, samples=20_000)
    assert out["verdict"] == "NO_EVIDENCE"
    assert 0.8 < out["epsilon_lower_bound"] <= 1.0


def test_the_one_round_grid_spec_is_one_file_shipped_with_the_package():
    from pathlib import Path

    from ldpaudit.protocol import joseph

    shipped = Path(joseph.__file__).parent / "specs" / "joseph_kvrr2_oneround.toml"
    assert joseph.GRID_SIGN.spec == shipped and shipped.is_file() and not shipped.is_symlink()
    assert Path("specs/joseph_kvrr2_oneround.toml").resolve() == shipped.resolve()
    assert not (shipped.parent / "joseph_kvrr2_grid.toml").exists()
    assert joseph.GRID_SIGN.mechanism().name == load_spec("specs/joseph_kvrr2_oneround.toml").name
