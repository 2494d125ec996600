"""``ldpaudit extract`` with symbolic sizes and parameter ranges (issue 36, remaining items).

``--domain 0..d-1`` reads code generic in d on one symbolic input: k-RR's reference sampler
extracts, d and ε symbolic, to the bundled spec's classes entry by entry, and OUE, SUE and
RAPPOR (loops over range(d), read on one generic index) to their product specs; the planted bug
whose "other" is drawn from all d values extracts to another channel, REFUTED with its tight ε
as a function of d. ``--assume`` gives ranges (0 < f < 1 for RAPPOR) under which comparisons
are decided exactly and which the spec declares; a comparison the ranges leave open exits 3
naming it, and both sides of a range that decides it are checked. Code whose items may depend
on each other is refused, and k-subset still needs d bound."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import sympy as sp

from ldpaudit.cli import main
from ldpaudit.errors import InvalidParameter, Unextractable
from ldpaudit.extract.assume import parse_assumptions, ranges
from ldpaudit.extract.channel import extract
from ldpaudit.extract.spec import spec_text
from ldpaudit.mechanism import load_spec, loads_spec

ROOT = Path(__file__).resolve().parents[1]
PERDRAW = str(ROOT / "ldpaudit" / "mechanism" / "perdraw.py")
PLANTED = str(ROOT / "ldpaudit" / "bench" / "planted.py")
GENERIC = str(ROOT / "tests" / "extract" / "generic.py")
D, EPS, F = sp.symbols("d epsilon f")


def _plain(expr) -> sp.Basic:
    """``expr`` with every symbol replaced by the plain symbol of its name (d, epsilon, f)."""
    expr = sp.sympify(expr)
    return expr.xreplace({s: sp.Symbol(s.name) for s in expr.free_symbols})


def _equal(a, b) -> bool:
    return sp.simplify(_plain(a) - _plain(b)) == 0


def _classes(mech) -> dict:
    return {c.condition: (_plain(c.count), _plain(c.weight)) for c in mech.channel.classes}


def test_krr_reference_extracts_generic_in_d_equal_to_the_bundled_spec():
    ex = extract(f"{PERDRAW}:krr", "0..d-1", {})
    assert ex.family is not None and [p.name for p in ex.params] == ["d", "epsilon"]
    assert ex.path_count == 3 and ex.family.cells == 3  # keep; other below x; other above x
    ours, theirs = loads_spec(spec_text(ex)), load_spec(ROOT / "specs" / "krr.toml")
    assert ours.channel.form == theirs.channel.form == "structured"
    assert _plain(ours.inputs.size) == _plain(theirs.inputs.size) == D
    mine, bundled = _classes(ours), _classes(theirs)
    assert set(mine) == set(bundled) == {"y == x", "y != x"}
    for when in bundled:  # Q(y|x) on y == x and on y != x, symbolically in d and ε
        assert _equal(mine[when][0], bundled[when][0]) and _equal(mine[when][1], bundled[when][1]), when
    assert [p.describe() for p in ours.parameters] == [p.describe() for p in theirs.parameters] == \
        ["2 <= d (integer)", "0 < epsilon"]


def test_the_generic_channel_agrees_with_the_bound_extraction_at_a_size():
    """The family at d = 3 against the channel read with d bound: the same 9 entries exactly."""
    ex = extract(f"{PERDRAW}:krr", "0..d-1", {})
    bound = extract(f"{PERDRAW}:krr", [0, 1, 2], {"d": "3"})
    fam = ex.family
    for x in range(3):
        for y in range(3):
            generic = (fam.truth if x == y else fam.other).xreplace({s: 3 for s in fam.truth.free_symbols
                                                                        if s.name == "d"})
            assert _equal(generic, bound.rows[x][y]), (x, y)


@pytest.mark.parametrize("name", ["krr_numpy", "krr_resample_equal"])
def test_other_krr_codes_extract_to_the_same_classes(name):
    """numpy's integers(0, d - 1) (upper end excluded), and an "other" drawn as one of d - 1
    values with the input swapped for d - 1 (an equality that pins the draw)."""
    ex = extract(f"{GENERIC}:{name}", "0..d-1", {})
    t = sp.exp(EPS)
    assert _equal(ex.family.truth, t / (t + D - 1)) and _equal(ex.family.other, 1 / (t + D - 1))


def _verify(capsys, *argv) -> tuple[int, dict]:
    code = main(["verify", *argv, "--json", "--tight"])
    return code, json.loads(capsys.readouterr().out)


def test_krr_from_code_is_proved_for_every_d_and_refuted_below_its_epsilon(capsys):
    target = f"{PERDRAW}:krr"
    code, out = _verify(capsys, "--from-code", target, "--domain", "0..d-1")
    assert code == 0 and out["verdict"] == "PROVED" and out["tight"]["epsilon"] == "epsilon"
    assert out["scope"] == "for all 2 <= d (integer), 0 < epsilon"
    code, out = _verify(capsys, "--from-code", target, "--domain", "0..d-1", "--epsilon", "99*epsilon/100")
    assert code == 1 and out["verdict"] == "REFUTED"


def test_other_drawn_from_all_d_values_is_refuted_with_its_tight_epsilon_in_d(capsys):
    """krr_other_from_all: Q(x|x) = (d e^ε + d - 1)/(d (e^ε + d - 1)), Q(y|x) = (d - 1)/(d (e^ε + d - 1));
    tight ε* = log(1 + d e^ε/(d - 1)), log(4 e^ε/3 + 1) at d = 4 (tests/test_extract.py)."""
    target = f"{PLANTED}:krr_other_from_all"
    ex = extract(target, "0..d-1", {})
    t = sp.exp(EPS)
    assert _equal(ex.family.truth, (D * t + D - 1) / (D * (t + D - 1)))
    assert _equal(ex.family.other, (D - 1) / (D * (t + D - 1)))
    assert not _equal(ex.family.other, 1 / (t + D - 1))  # not k-RR's channel
    code, out = _verify(capsys, "--from-code", target, "--domain", "0..d-1")
    assert code == 1 and out["verdict"] == "REFUTED"
    tight = sp.sympify(out["tight"]["epsilon"], locals={"d": D, "epsilon": EPS})
    assert _equal(tight, sp.log(1 + D * t / (D - 1)))
    assert _equal(tight.subs(D, 4), sp.log(4 * t / 3 + 1))
    assert any("line 15: randrange = r1, one of 0..d - 1" in line for line in out["from_code"]["witness_paths"])


@pytest.mark.parametrize(("name", "match"), [
    ("krr_randint_inclusive", r"planted.py.*: the output at .* lies outside the domain 0\.\.d - 1"),
    ("cyclic_shift", r"Q\(y\|x\) on y != x is (1|0) at .* but (0|1) at .*, not one class weight"),
    ("zero_kept", r"Q\(y\|x\) on y == x is .* but .*, not one class weight"),
])
def test_channels_not_of_the_element_form_are_refused_naming_why(name, match):
    target = f"{PLANTED if name.startswith('krr') else GENERIC}:{name}"
    with pytest.raises(Unextractable, match=match + r".*bind d with --target-arg"):
        extract(target, "0..d-1", {})


@pytest.mark.parametrize(("name", "spec", "assume", "epsilon"), [
    ("oue", "oue", [], None),
    ("sue", "krappor", [], None),
    ("rappor_permanent", "rappor_permanent", ["0<f<1"], "2*log((1 - f/2)/(f/2))"),
])
def test_unary_encodings_extract_generic_in_d_equal_to_their_specs(name, spec, assume, epsilon):
    """A comprehension or a for loop over range(d), read once on the generic index i: the
    product form with d coordinates, the law of bit i on i == x and on i != x equal to the
    bundled spec's, symbolically in d, ε and f."""
    ex = extract(f"{PERDRAW}:{name}", "0..d-1", {}, assume=assume)
    assert ex.family is not None and ex.family.form == "product"
    ours, theirs = loads_spec(spec_text(ex, epsilon=epsilon)), load_spec(ROOT / "specs" / f"{spec}.toml")
    assert ours.channel.form == theirs.channel.form == "product"
    assert _plain(ours.channel.coordinates) == _plain(theirs.channel.coordinates) == D
    for law in ("on", "off"):
        for bit in (0, 1):
            mine = getattr(ours.channel, law).probability(bit)
            bundled = getattr(theirs.channel, law).probability(bit)
            assert _equal(mine, bundled), (law, bit, mine, bundled)
    assert [p.describe() for p in ours.parameters] == [p.describe() for p in theirs.parameters]


def test_a_unary_encoding_written_as_a_for_loop_is_proved_for_every_d(capsys):
    ex = extract(f"{GENERIC}:unary_loop", "0..d-1", {})
    oue = extract(f"{PERDRAW}:oue", "0..d-1", {})
    assert all(_equal(a[b], c[b]) for a, c in zip(ex.family.laws, oue.family.laws) for b in (0, 1))
    code, out = _verify(capsys, "--from-code", f"{GENERIC}:unary_loop", "--domain", "0..d-1")
    assert code == 0 and out["verdict"] == "PROVED" and out["tight"]["epsilon"] == "epsilon"
    assert out["scope"] == "for all 2 <= d (integer), 0 < epsilon"
    assert "x=0: item 0 = 1 w.p. 1/2: line 62: case i1 == x; line 63: random() < 1/2" in out["from_code"]["tight_paths"]


@pytest.mark.parametrize(("name", "match"), [
    ("markov_bits", (r"generic.py:71: the loop over range\(d\) assigns prev, which is set before it: an item may read "
                    r"the items before it")),
    ("one_coin_for_all", (r"generic.py:81: a draw made before a loop over a symbolic range is compared in its items: "
                         r"shared by all of them, they would not be independent")),
    ("first_bit_fixed", (r"generic.py:88: reading out inside the loop over a symbolic range that appends to it: its "
                        r"length and items there would be the first iteration's")),
    ("random_length", (r"generic.py:101: out after the loop over a symbolic range \(line 98\) is appended to on some "
                      r"paths of an item only: its length depends on the draws")),
    ("carried_through_a_module_name", (r"generic.py:116: the loop over range\(d\) assigns PREV, which is set before "
                                      r"it: an item may read the items before it")),
    ("flips_below_input", r"the law of item i on i != x gives 1 w.p. (1/2|1/4) at .* but (1/4|1/2) at .*, not one law"),
])
def test_items_that_may_depend_on_each_other_or_on_x_are_refused(name, match):
    """The product form holds when the items are independent and each has one law on i == x and
    one on i != x; code where an item reads the one before, a draw shared by all items, the list
    being built, or a random number of items, is refused (exit 3), as is a law that depends on x."""
    with pytest.raises(Unextractable, match=match):
        extract(f"{GENERIC}:{name}", "0..d-1", {})


def test_oue_with_a_misplaced_parenthesis_is_refuted_for_every_d(capsys):
    """q = 1/e^ε + 1 > 1: every other bit is always 1, so a 0 there never comes from another
    input (ratio ∞), read generically in d."""
    ex = extract(f"{PLANTED}:oue_misplaced_parenthesis", "0..d-1", {})
    assert ex.family.form == "product" and ex.family.laws[1] == {0: 0, 1: 1}
    code = main(["verify", "--from-code", f"{PLANTED}:oue_misplaced_parenthesis", "--domain", "0..d-1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["verdict"] == "REFUTED" and out["witness"]["ratio"] == "oo"
    # --tight: ε* = ∞, its witness drawn at a concrete d (the family's own d has no output)
    code = main(["verify", "--from-code", f"{PLANTED}:oue_misplaced_parenthesis", "--domain", "0..d-1", "--json",
                 "--tight"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["tight_epsilon"] == "oo", out
    tight_witness = out["tight"]["witness"]
    assert tight_witness["ratio"] == "oo" and len(tight_witness["y"]) == int(tight_witness["params"]["d"])


def test_ksubset_still_needs_d_bound():
    """k-subset's list of the d - 1 others is a filtered comprehension: its length depends on the
    items, so d (and k, a sample size) must be bound."""
    with pytest.raises(Unextractable, match=r"perdraw.py:47: a filtered or nested comprehension over a symbolic range "
                                            r"has a length that depends on the items; bind the size"):
        extract(f"{PERDRAW}:ksubset", "0..d-1", {})


def test_a_comparison_left_open_by_the_ranges_exits_3_naming_it(capsys):
    """threshold_in_d branches on d > 5: undecided for d >= 2 (exit 3, both points named);
    decided on each side by a range, which the spec then declares."""
    target = f"{GENERIC}:threshold_in_d"
    code = main(["extract", target, "--domain", "0..d-1"])
    err = capsys.readouterr().err
    assert code == 3
    assert ("generic.py:52: the comparison d > 5 cannot be decided exactly for every value of 2 <= d (integer) "
            "(it holds at d = 6 and fails at d = 2); narrow the range with --assume or bind d with --target-arg") in err
    above = extract(target, "0..d-1", {}, assume=["d>=6"])   # d > 5: the identity
    assert (above.family.truth, above.family.other) == (1, 0)
    below = extract(target, "0..d-1", {}, assume=["d<=5"])   # uniform over the d values
    assert _equal(below.family.truth, 1 / D) and _equal(below.family.other, 1 / D)
    text = spec_text(below)
    assert "[parameters.d]\ntype = \"integer\"\nmin = 2\nmax = 5\n" in text
    assert loads_spec(text).channel.form == "structured"


def test_rappor_with_symbolic_f_extracts_under_0_lt_f_lt_1():
    """RAPPOR's permanent response (d = 2 bound): u < f/2 and then u < f are decided only when
    f < 1 (f/2 >= 1 is true at f = 2); under --assume '0<f<1' the channel equals the spec's,
    entry by entry and symbolically in f, and the spec declares the range."""
    args = {"d": "2"}
    with pytest.raises(Unextractable, match=r"perdraw.py:86: the comparison f/2 >= 1 cannot be decided exactly for "
                                            r"every value of 0 < f \(it holds at f = \d+ and fails at f = .*\); narrow "
                                            r"the range with --assume or bind f with --target-arg"):
        extract(f"{PERDRAW}:rappor_permanent", [0, 1], args)
    ex = extract(f"{PERDRAW}:rappor_permanent", [0, 1], args, assume=["0<f<1"])
    claim = "2*log((1 - f/2)/(f/2))"
    text = spec_text(ex, epsilon=claim)
    assert "[parameters.f]\ntype = \"real\"\nmin = 0\nstrict_min = true\nmax = 1\nstrict_max = true\n" in text
    ours = loads_spec(text).materialize()
    theirs = load_spec(ROOT / "specs" / "rappor_permanent.toml").bind({"d": 2}).materialize()
    assert ours.outputs == theirs.outputs
    for row_a, row_b in zip(ours.matrix, theirs.matrix):
        for a, b in zip(row_a, row_b):
            assert _equal(a, b), (a, b)
    with pytest.raises(Unextractable, match=r"perdraw.py:86: the comparison f/2 >= 1 cannot be decided"):
        extract(f"{PERDRAW}:rappor_permanent", [0, 1], args, assume=["0<f<3"])


@pytest.mark.slow
def test_rappor_with_symbolic_f_at_three_coordinates(capsys):
    code, out = _verify(capsys, "--from-code", f"{PERDRAW}:rappor_permanent", "--domain", "0..2", "--target-arg",
                        "d=3", "--assume", "0<f<1", "--epsilon", "2*log((1 - f/2)/(f/2))")
    assert code == 0 and out["verdict"] == "PROVED"


@pytest.mark.parametrize(("assume", "match"), [
    (["d == 3"], r"--assume 'd == 3': == binds a value: use --target-arg NAME=VALUE"),
    (["d + epsilon > 3"], r"--assume 'd \+ epsilon > 3': each comparison must bound one parameter"),
    (["d >= 5 and d <= 3"], r"--assume: the ranges 5 <= d <= 3 \(integer\), 0 < epsilon hold for no value"),
    (["d>=2", "d>=3"], r"--assume 'd>=3': d has two lower bounds \('d>=2' and 'd>=3'\); give one"),
    (["__import__('os')"], r"--assume = \"__import__\('os'\)\": function '__import__' is not allowed"),
    (["q > 1"], r"--assume = 'q > 1': unknown symbol 'q'"),
    (["d >= 2.5"], r"float literal 2.5 is not exact"),
    (["d > 2 or d < 1"], r"only comparisons <, <=, >, >= joined by 'and' are read"),
    (["1 < 2"], r"the comparison is always true"),
])
def test_bad_assumptions_are_one_line(assume, match):
    with pytest.raises(InvalidParameter, match=match):
        extract(f"{PERDRAW}:krr", "0..d-1", {}, assume=assume)


def test_ranges_name_other_parameters_and_reach_the_spec():
    bounds = parse_assumptions(["1 <= k <= d - 1"], ["d", "k"])
    declared, notes = ranges([("d", "integer"), ("k", "integer")], bounds, size=("d", 0))
    d, k = declared["d"], declared["k"]
    assert (d.lower, k.lower, k.upper) == (2, 1, d.symbol - 1) and notes == [
        "d >= 2: the domain 0..d - 1 holds at least two inputs"]
    assert parse_assumptions(["d >= 2"], ["epsilon"], {"d": sp.Integer(4)}) == []  # true at the bound value
    with pytest.raises(InvalidParameter, match=r"false at the values bound by --target-arg"):
        parse_assumptions(["d >= 5"], ["epsilon"], {"d": sp.Integer(4)})


@pytest.mark.parametrize(("name", "domain", "match"), [
    ("rr_bit", "0..2**bits-1", (r"--domain '0..2\*\*bits-1': a symbolic range starts at 0 and ends at a "
                                r"parameter plus a constant, e.g. 0..d-1")),
    ("krr", "1..d", r"a symbolic range starts at 0"),
    ("krr", "0..dd-1", r"--domain = 'dd-1': unknown symbol 'dd'; declared names are d, epsilon"),
    ("rappor_permanent", "0..f", r"--domain '0..f': f is not an integer parameter of rappor_permanent\(\)"),
])
def test_bad_symbolic_domains_are_refused(name, domain, match):
    """RR on a bit reads the domain 0..2^bits-1, outside the element form; it extracts with bits and
    j bound (tests/test_extract.py), symbolically in ε only."""
    with pytest.raises(InvalidParameter, match=match):
        extract(f"{PERDRAW}:{name}", domain, {})


def test_a_bound_size_makes_the_symbolic_domain_concrete():
    ex = extract(f"{PERDRAW}:krr", "0..d-1", {"d": "3"})
    assert ex.family is None and ex.inputs == [0, 1, 2]


def test_extract_cli_writes_the_generic_spec(tmp_path, capsys):
    out = tmp_path / "krr.toml"
    assert main(["extract", f"{PERDRAW}:krr", "--domain", "0..d-1", "--out", str(out)]) == 0
    assert "structured channel over d inputs and d outputs (3 paths)" in capsys.readouterr().out
    mech = load_spec(out)
    assert mech.channel.form == "structured" and [p.describe() for p in mech.parameters] == [
        "2 <= d (integer)", "0 < epsilon"]
    assert main(["extract", f"{PERDRAW}:krr", "--domain", "0..d-1", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["inputs"] == "d" and payload["ranges"] == {"d": "2 <= d (integer)", "epsilon": "0 < epsilon"}


def test_the_tight_witness_says_it_attains_and_never_that_it_exceeds(capsys):
    """ε*'s witness reaches e^ε*; printed as "ratio > e^ε*" it would be false."""
    from ldpaudit.mechanism import load_spec
    from ldpaudit.verify import tight_epsilon

    tight = tight_epsilon(load_spec(ROOT / "specs" / "krr.toml").bind({"d": 4, "epsilon": 1}))
    text = tight.witness.to_json()["text"]
    assert text == "Q(y=0|x=0)/Q(y=0|x=1) = e ≈ 2.71828, attaining e^ε* = e^1 at d=4, epsilon=1", text
    assert main(["verify", "--from-code", f"{PLANTED}:oue_misplaced_parenthesis", "--domain", "0..d-1", "--json",
                 "--tight"]) == 1
    text = json.loads(capsys.readouterr().out)["tight"]["witness"]["text"]
    assert "= oo: the denominator is 0, so no finite ε" in text and ">" not in text


def test_a_generic_product_counts_its_outputs_as_vectors(tmp_path, capsys):
    out = tmp_path / "oue.toml"
    assert main(["extract", f"{PERDRAW}:oue", "--domain", "0..d-1", "--out", str(out)]) == 0
    assert "product channel over d inputs and 2^d outputs" in capsys.readouterr().out
    assert main(["extract", f"{PERDRAW}:oue", "--domain", "0..d-1", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["inputs"] == "d" and payload["outputs"] == "2^d"
