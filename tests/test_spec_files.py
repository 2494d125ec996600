"""Spec files are untrusted input: every malformed spec gets InvalidSpec naming the field and
value, and no spec text is ever executed."""

import os
import textwrap

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism import dumps_spec, load_spec, loads_spec
from ldpaudit.mechanism.model import ExplicitChannel, FiniteDomain, Mechanism, Parameter

KRR = textwrap.dedent(
    """
    [mechanism]
    name = "k-RR"
    claimed_epsilon = "epsilon"

    [parameters.d]
    type = "integer"
    min = 2

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
)

EXPLICIT = textwrap.dedent(
    """
    [mechanism]
    name = "tiny"
    claimed_epsilon = "log(3)"

    [inputs]
    labels = [0, 1]

    [channel]
    form = "explicit"
    outputs = ["a", "b"]
    rows = [["3/4", "1/4"], ["1/4", "3/4"]]
    """
)

KSUBSET_SHAPE = KRR.replace('outputs = "element"\nsize = "d"', 'outputs = "subset"\nuniverse = "d"\nk = "k"')


def test_the_valid_templates_load():
    assert loads_spec(KRR).name == "k-RR"
    assert loads_spec(EXPLICIT).channel.outputs == ("a", "b")


MALFORMED = [
    ("bad toml", "[mechanism\nname = 1", r"invalid TOML"),
    ("no mechanism table", EXPLICIT.replace("[mechanism]", "[mech]"), r"unknown key 'mech' in \[spec\]"),
    ("missing claimed epsilon", EXPLICIT.replace('claimed_epsilon = "log(3)"', ""), r"missing mechanism.claimed_epsilon"),
    ("claimed epsilon not positive", EXPLICIT.replace('"log(3)"', '"-1"'), r"mechanism.claimed_epsilon = -1 must be positive"),
    ("unknown symbol", KRR.replace("exp(epsilon)/(", "exp(epsilon2)/("), r"unknown symbol 'epsilon2'; declared names are d, epsilon"),
    ("rows sum to 9/10", EXPLICIT.replace('["1/4", "3/4"]]', '["1/4", "13/20"]]'), r"row x=1 of channel 'tiny' sums to 9/10; each row must sum to 1"),
    ("negative entry", EXPLICIT.replace('["3/4", "1/4"]', '["5/4", "-1/4"]'), r"entry Q\(y=b\|x=0\) of 'tiny' = -1/4 is negative"),
    ("float literal", EXPLICIT.replace('"3/4", "1/4"', '0.75, 0.25'), r"channel.rows\[0\]\[0\] = 0.75 is a float"),
    ("float in string", EXPLICIT.replace('"3/4", "1/4"', '"0.75", "0.25"'), r"float literal 0.75 is not exact"),
    ("wrong row length", EXPLICIT.replace('["1/4", "3/4"]]', '["1/4", "1/2", "1/4"]]'), r"row x=1 of channel 'tiny' has 3 entries but there are 2 outputs"),
    ("too few rows", EXPLICIT.replace(', ["1/4", "3/4"]]', "]"), r"has 1 rows but there are 2 inputs"),
    ("unknown channel form", EXPLICIT.replace('form = "explicit"', 'form = "table"'), r"channel.form = 'table'; use one of bloom, coordinates, density, explicit, matrix, mixture, product, signs, structured"),
    ("unknown key", EXPLICIT.replace('form = "explicit"', 'form = "explicit"\ncolumns = 2'), r"unknown key 'columns' in \[channel\]"),
    ("classes do not sum to 1", KRR.replace('count = "d - 1"', 'count = "d"').replace('when = "y != x"', 'when = "y != x"'), r"rows of channel 'k-RR' sum to .*; each row must sum to 1"),
    ("wrong normalizer", KRR.replace("exp(epsilon) + d - 1)", "exp(epsilon) + d)"), r"rows of channel 'k-RR' sum to"),
    ("bad parameter type", KRR.replace('type = "integer"', 'type = "natural"'), r"parameters.d.type = 'natural'; use 'integer' or 'real'"),
    ("unknown symbol in bound", KRR.replace("min = 2", 'min = "q"'), r"parameters.d.min = 'q': unknown symbol 'q'"),
    ("bad condition", KRR.replace('when = "y == x"', 'when = "y < x"'), r"comparison Lt not allowed"),
    ("condition with unknown name", KRR.replace('when = "y == x"', 'when = "y == w"'), r"unknown name 'w'"),
    ("example k > d", KSUBSET_SHAPE, r""),  # placeholder replaced below
    ("attribute access", EXPLICIT.replace('"log(3)"', '"epsilon.real"'), r"Attribute is not allowed"),
    ("lambda", EXPLICIT.replace('"log(3)"', '"(lambda: 1)()"'), r"only plain function calls"),
    ("huge power", EXPLICIT.replace('"log(3)"', '"(10**1000)**1000"'), r"constant power has more than 65536 bits"),
    ("empty expression", EXPLICIT.replace('"log(3)"', '""'), r"mechanism.claimed_epsilon is empty"),
    ("hash value out of range", open("specs/orr.toml").read().replace("[0, 1, 2, 0, 1, 2]", "[0, 1, 7, 0, 1, 2]"), r"channel.hash\[0\]\[2\] = 7 of 'O-RR' is outside \[0, k\) = 0..2"),
    ("density not normalized", open("specs/laplace_mean.toml").read().replace("epsilon/(4*M)", "epsilon/(2*M)"), r"channel.density of 'Laplace mean' integrates to 2"),
    ("example not declared", KRR + "\n[example]\nn = 3\n", r"example.n is not a declared parameter"),
    ("contradictory bounds", KRR.replace("min = 2\n", "min = 5\nmax = 3\n", 1), r"parameters.d has contradictory bounds: 5 <= d <= 3 \(integer\) admits no integer"),
    ("no integer between bounds", KRR.replace("min = 2\n", 'min = "5/2"\nmax = "27/10"\n', 1), r"parameters.d has contradictory bounds"),
    ("denominator vanishes inside the range", EXPLICIT.replace('rows = [["3/4", "1/4"], ["1/4", "3/4"]]', 'rows = [["(exp(2*epsilon) - 4)/(2*(exp(epsilon) - 2)*(exp(epsilon) + 2))", "1/2"], ["1/2", "1/2"]]').replace("[mechanism]", "[parameters.epsilon]\ntype = \"real\"\nmin = 0\nstrict_min = true\n\n[mechanism]"), r"has a denominator that is 0 at epsilon = log\(2\)"),
]

# k > d: a k-subset spec whose example binds k out of range is caught when bound
_KS = open("specs/ksubset.toml").read()
MALFORMED[[m[0] for m in MALFORMED].index("example k > d")] = (
    "example k > d",
    _KS.replace("k = 2\n", "k = 9\n"),
    r"\[example\] is not an admissible instance: parameter k = 9 of k-subset is out of range: need k <= d - 1 = 5",
)


@pytest.mark.parametrize("name,text,message", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_specs_are_rejected_with_a_message(name, text, message):
    with pytest.raises(InvalidSpec, match=message):
        loads_spec(text, source="bad.toml")


def test_at_least_fifteen_malformed_cases():
    assert len(MALFORMED) >= 15


def test_count_mismatch_is_caught_on_materialization():
    text = KRR.replace('count = "d - 1"', 'count = "d - 2"').replace(
        'weight = "1/(exp(epsilon) + d - 1)"', 'weight = "1/(exp(epsilon) + d - 2)"'
    ).replace('"exp(epsilon)/(exp(epsilon) + d - 1)"', '"exp(epsilon)/(exp(epsilon) + d - 2)"')
    # rows sum to 1 over the declared classes but the classes do not cover all outputs
    with pytest.raises(InvalidSpec, match=r"cover d - 1 outputs but the output space has d"):
        loads_spec(text)


def test_k_greater_than_d_is_rejected_when_bound():
    mech = load_spec("specs/ksubset.toml")
    with pytest.raises(Exception, match=r"k = 9 of k-subset is out of range: need k <= d - 1 = 5"):
        mech.bind(d=6, k=9)


INJECTIONS = [
    "__import__('os').system('touch PWNED')",
    "exec(\"open('PWNED','w')\")",
    "().__class__.__base__.__subclasses__()",
    "[open('PWNED', 'w') for _ in [1]][0]",
    "exp.__globals__",
]


@pytest.mark.parametrize("payload", INJECTIONS)
def test_code_in_a_spec_is_never_executed(payload, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for field in ('claimed_epsilon = "log(3)"', 'rows = [["3/4", "1/4"], ["1/4", "3/4"]]'):
        if field.startswith("claimed"):
            text = EXPLICIT.replace(field, f"claimed_epsilon = {payload!r}".replace("\\'", "'") if '"' in payload else f'claimed_epsilon = "{payload}"')
        else:
            text = EXPLICIT.replace('"3/4", "1/4"]', f'"{payload}", "1/4"]' if '"' not in payload else f"'{payload}', \"1/4\"]", 1)
        spec = tmp_path / "evil.toml"
        spec.write_text(text)
        with pytest.raises(InvalidSpec):
            load_spec(spec)
    assert not (tmp_path / "PWNED").exists()
    assert os.listdir(tmp_path) == ["evil.toml"]


# --- round trip -------------------------------------------------------------------------------

rationals = st.fractions(min_value=0, max_value=1, max_denominator=50)


@st.composite
def explicit_channels(draw):
    n_in = draw(st.integers(1, 4))
    n_out = draw(st.integers(1, 5))
    rows = []
    for _ in range(n_in):
        weights = [sp.Integer(draw(st.integers(0, 9))) for _ in range(n_out)]
        if sum(weights) == 0:
            weights[0] = sp.Integer(1)
        total = sum(weights)
        rows.append(tuple(w / total for w in weights))
    symbolic = draw(st.booleans())
    eps = Parameter("epsilon", "real", sp.Integer(0), lower_strict=True)
    e = eps.symbol
    if symbolic and n_out >= 2:
        # a two-output randomized-response block in the first row, symbolic in epsilon
        t = sp.exp(e)
        rows[0] = (t / (t + 1), 1 / (t + 1)) + (sp.Integer(0),) * (n_out - 2)
    labels_out = draw(st.sampled_from([tuple(range(n_out)), tuple(f"y{j}" for j in range(n_out))]))
    channel = ExplicitChannel(tuple(range(n_in)), labels_out, tuple(rows))
    claimed = draw(st.sampled_from([e, sp.log(3), sp.Rational(1, 2), 2 * e]))
    params = (eps,) if (symbolic or claimed.has(e)) else ()
    if not params and claimed.has(e):
        claimed = sp.log(3)
    return Mechanism("random", params, FiniteDomain(sp.Integer(n_in)), channel, claimed)


@settings(max_examples=150, deadline=None)
@given(explicit_channels())
def test_random_explicit_channels_round_trip_through_the_writer(mech):
    text = dumps_spec(mech)
    back = loads_spec(text)
    assert back == mech
    assert dumps_spec(back) == text
