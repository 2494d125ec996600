"""Specs are untrusted input with budgets (issue 10, item 2).

Each class of hostile spec that used to end in a traceback or burn CPU without limit is
refused with one InvalidSpec line naming the field, the value and the limit, within a CPU
budget. The CLI turns every refusal into exit status 2."""

import contextlib
import math
import os
from pathlib import Path

import pytest

import cli_inprocess

from ldpaudit.errors import InvalidParameter, InvalidSpec, LdpAuditError
from ldpaudit.mechanism import loads_spec
from ldpaudit.mechanism.expr import MAX_INT_BITS, exact_decimal, parse_expression
from ldpaudit.mechanism.loader import load_bound


def cpu_seconds() -> float:
    """CPU of this process and of its finished children: commands load specs in a forked child."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


SPECS = Path(__file__).resolve().parent.parent / "specs"
KRR = (SPECS / "krr.toml").read_text()
KSUBSET = (SPECS / "ksubset.toml").read_text()
CPU_BUDGET = 5.0  # seconds of CPU per hostile spec (the acceptance bound)


def edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


@contextlib.contextmanager
def cpu_budget(seconds: float = CPU_BUDGET):
    start = cpu_seconds()
    yield
    used = cpu_seconds() - start
    assert used < seconds, f"used {used:.2f} s of CPU, budget {seconds} s"


def refused(text: str, match: str) -> str:
    """Load ``text``; it must be refused with InvalidSpec matching ``match``, in one line,
    within the CPU budget. Returns the message."""
    with cpu_budget(), pytest.raises(InvalidSpec, match=match) as info:
        loads_spec(text, source="hostile.toml")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("hostile.toml: ")
    return message


D_MIN = '[parameters.d]\ntype = "integer"\nmin = 2\n'


# --- the five traceback classes --------------------------------------------------------------


def test_toml_arrays_nested_2000_deep_are_refused_before_tomllib_recurses():
    text = KRR + "\n[extra]\nx = " + "[" * 2000 + "]" * 2000 + "\n"
    refused(text, r"arrays or tables are nested 33\+ levels deep; the limit is 32")


def test_nested_inline_tables_and_dotted_keys_are_bounded_too():
    inline = KRR.replace('[mechanism]\n', '[mechanism]\nsource = ' + "{a = " * 100 + "1" + "}" * 100 + "\n", 1)
    refused(inline, r"nested 33\+ levels deep; the limit is 32")
    dotted = KRR + "\n[" + ".".join(["t"] * 200) + "]\nx = 1\n"
    refused(dotted, r"nested \d+ levels deep; the limit is 32")


def test_brackets_inside_strings_and_comments_do_not_count_as_nesting():
    text = edit(KRR, 'description = "k-ary', 'description = "' + "[" * 100 + ' k-ary')
    text = text + "# " + "{" * 100 + "\n"
    assert loads_spec(text).name == "k-RR"


@pytest.mark.parametrize(
    "bound,message",
    [
        ("1/0", r"parameters\.d\.min = '1/0': 1 / 0 is undefined \(a division by zero"),
        ("log(0)", r"parameters\.d\.min = 'log\(0\)': log\(0\) is undefined"),
        ("(-1)**(1/2)", r"parameters\.d\.min = '\(-1\)\*\*\(1/2\)': \(-1\) \*\* \(1 / 2\) = I is not a real number"),
        ("oo - oo", r"oo - oo is undefined"),
        ("sqrt(-2)", r"sqrt\(-2\) = sqrt\(2\)\*I is not a real number"),
    ],
)
def test_bounds_that_cannot_be_real_are_refused_at_the_field(bound, message):
    refused(edit(KRR, D_MIN, f'[parameters.d]\ntype = "integer"\nmin = "{bound}"\n'), message)


def test_values_that_cannot_be_real_are_refused_in_every_expression_field():
    refused(edit(KRR, 'weight = "1/(exp(epsilon) + d - 1)"', 'weight = "1/(exp(epsilon) + d - 1) + log(0)"'),
            r"channel\.classes\[1\]\.weight = .*log\(0\) is undefined")
    refused(edit(KRR, 'claimed_epsilon = "epsilon"', 'claimed_epsilon = "log(-1)"'),
            r"mechanism\.claimed_epsilon = 'log\(-1\)': log\(-1\) = I\*pi is not a real number")
    refused(edit(KRR, "d = 8\n", 'd = "8 + 0/0"\n'), r"example\.d = '8 \+ 0/0': 0 / 0 is undefined")


def test_a_table_where_a_string_is_expected_is_a_type_error_message_not_a_crash():
    refused(edit(KRR, 'form = "structured"', "form = { a = 1 }"),
            r"channel\.form = \{'a': 1\}; use one of bloom, coordinates, density, explicit, matrix, mixture, product, signs, structured \(a string\)")
    refused(edit(KRR, 'outputs = "element"', "outputs = [1, 2]"), r"channel\.outputs = \[1, 2\]; a structured")
    refused(edit(KRR, 'size = "d"\n\n[channel]', "size = { a = 1 }\n\n[channel]"),
            r"inputs\.size = \{'a': 1\} must be a string expression such as 'exp\(epsilon\)', got a table")
    refused(edit(KRR, 'name = "truth"', "name = 3"), r"channel\.classes\[0\]\.name = 3 must be a string")
    refused(edit(KRR, 'type = "integer"', "type = [1]"), r"parameters\.d\.type = \[1\] must be a string")
    refused(edit(KRR, 'when = "y == x"', "when = { a = 1 }"), r"channel\.classes\[0\]\.when = \{'a': 1\} must be a string")


def test_modulo_by_zero_is_refused_at_the_field():
    refused(edit(KRR, 'claimed_epsilon = "epsilon"', 'claimed_epsilon = "d % 0"'),
            r"mechanism\.claimed_epsilon = 'd % 0': d % 0 is a modulo by zero")


# --- the three CPU hogs, in the claim, in a weight and in a size ------------------------------

HOGS = [
    ("bit(10**100, 10**100)", r"bit index is limited to 65536"),
    ("binomial(10**9, 10**8)", r"binomial\(1000000000, 100000000\) has about 4\.69e\+08 bits; exact numbers are limited to 65536 bits"),
    ("exp(exp(exp(exp(99))))", r"exp\(exp\(99\)\): the argument is about 2\^143; exp arguments are limited to \|a\| <= 100000"),
    ("10**10**10", r"constant exponent 10000000000 exceeds 1000"),
]
FIELDS = {
    "claim": (lambda e: edit(KRR, 'claimed_epsilon = "epsilon"', f'claimed_epsilon = "{e}"'), r"mechanism\.claimed_epsilon"),
    "weight": (lambda e: edit(KRR, 'weight = "1/(exp(epsilon) + d - 1)"', f'weight = "1/(exp(epsilon) + d - 1) + {e}"'),
               r"channel\.classes\[1\]\.weight"),
    "size": (lambda e: edit(KRR, 'size = "d"\n\n[[', f'size = "{e}"\n\n[['), r"channel\.size"),
    "example": (lambda e: edit(KRR, "d = 8\n", f'd = "{e}"\n'), r"example\.d"),
}


@pytest.mark.parametrize("where", sorted(FIELDS))
@pytest.mark.parametrize("hog,limit", HOGS, ids=[h for h, _ in HOGS])
def test_cpu_hogs_are_refused_quickly_naming_field_value_and_limit(hog, limit, where):
    build, field = FIELDS[where]
    message = refused(build(hog), f"{field} = .*{limit}")
    assert hog[:20] in message


def test_a_size_of_10_to_the_30_is_refused_with_the_size_limit():
    refused(edit(KRR, '[inputs]\nsize = "d"', '[inputs]\nsize = "10**30"'),
            r"inputs\.size = 1000000000000000000000000000000 of 'k-RR' exceeds the size limit 2\*\*64")
    refused(edit(KRR, "d = 8\n", 'd = "10**30"\n'),
            r"\[example\] is not an admissible instance: inputs\.size = 10000000000.* exceeds the size limit 2\*\*64")


def test_the_integer_part_of_a_huge_irrational_number_is_refused():
    refused(edit(KRR, 'claimed_epsilon = "epsilon"', 'claimed_epsilon = "epsilon + floor(exp(1000))"'),
            r"floor of exp\(1000\): the number is about 2\^1\.44e\+03; the integer part of an irrational number "
            r"is computed only up to 2\^60")
    refused(edit(KRR, D_MIN, '[parameters.d]\ntype = "integer"\nmin = "exp(1000)"\n'),
            r"parameters\.d\.min = exp\(1000\) is too large for the bound of an integer parameter")


def test_fractional_powers_and_huge_integer_literals_are_bounded():
    big = str(2**4000 + 1)
    with cpu_budget(), pytest.raises(InvalidSpec, match=r"integer literal has more than 60 digits"):
        parse_expression(f"{big}**(1/2)", {})
    with cpu_budget(), pytest.raises(InvalidSpec, match=r"fractional power of a number of 4001 bits is too costly; the limit is 2048 bits"):
        parse_expression("((2**1000)**4 + 1)**(1/2)", {})
    toml_int = edit(KRR, "count = 1\n", f"count = {10**70}\n")
    refused(toml_int, r"channel\.classes\[0\]\.count = an integer of 71 digits: integer literals are limited to 60 digits")
    # inside the budget: exact, and the same number Python computes
    assert parse_expression("(2**1000 + 1)**2", {}) == (2**1000 + 1) ** 2
    assert parse_expression("binomial(60, 30)", {}) == 118264581564861424
    assert parse_expression("bit(13, 2)", {}) == 1 and parse_expression("bit(13, 1)", {}) == 0


def test_budgets_are_not_a_blanket_refusal_of_large_but_cheap_values():
    # 2**(MAX_INT_BITS - 1) has MAX_INT_BITS bits: accepted, exactly; one more factor of 2 is refused
    assert MAX_INT_BITS == 65536
    assert parse_expression("((2**1000)**65) * 2**535", {}) == 2**65535
    with pytest.raises(InvalidSpec, match=f"limited to {MAX_INT_BITS} bits|more than {MAX_INT_BITS} bits"):
        parse_expression("((2**1000)**65) * 2**536", {})
    assert str(parse_expression("exp(exp(11))", {})) == "exp(exp(11))"  # e**11 < 10**5
    with pytest.raises(InvalidSpec, match="exp arguments are limited"):
        parse_expression("exp(exp(12))", {})  # e**12 > 10**5


def test_a_condition_is_not_a_number_and_a_number_is_not_a_condition():
    with pytest.raises(InvalidSpec, match=r"this is a condition \(true or false\), not a number"):
        loads_spec(edit(KRR, 'claimed_epsilon = "epsilon"', 'claimed_epsilon = "epsilon > 1"'))
    with pytest.raises(InvalidSpec, match=r"d is a number, not a condition; write a comparison such as d > 2"):
        loads_spec(edit(KRR, 'claimed_epsilon = "epsilon"', 'claimed_epsilon = "1 if d else epsilon"'))


def test_a_condition_that_does_not_apply_to_the_outputs_is_invalid_spec_not_a_type_error():
    # refused at load, on the [example] instance's outputs (it used to wait for materialize)
    with pytest.raises(InvalidSpec, match=r"condition 'x in y' cannot be evaluated at x=0, y=0: TypeError"):
        loads_spec(edit(edit(KRR, 'when = "y == x"', 'when = "x in y"'), 'when = "y != x"', 'when = "x not in y"'))


# --- bindings: -p values and verify --epsilon go through the same budgets ---------------------


@pytest.mark.parametrize(
    "spec,params,error,message",
    [
        ("krr", ["d=10**100"], InvalidSpec, r"inputs\.size = an integer of 101 digits of 'k-RR' exceeds the size limit 2\*\*64"),
        ("krr", ["epsilon=exp(exp(99))"], InvalidSpec, r"parameter epsilon = 'exp\(exp\(99\)\)': exp\(exp\(99\)\): the argument is about 2\^143"),
        ("krr", ["epsilon=10**100"], InvalidParameter, r"exp\(an integer of 101 digits\): the argument is about 2\^332; exp arguments are limited"),
        ("krr", ["d=1e100000000"], InvalidParameter, r"-p 'd': '1e100000000' has more than 300 digits"),
        ("ksubset", ["d=10**9", "k=10**8"], InvalidParameter,
         r"binomial\(d - 1, k - 1\) at 'd=1000000000, k=100000000': binomial\(999999999, 99999999\) has about 4\.69e\+08 bits"),
        ("ksubset", ["d=200000", "k=100000"], InvalidParameter, r"binomial\(199999, 99999\) has about 2e\+05 bits; exact numbers are limited to 65536"),
        ("rr_bit", ["bits=10**6"], InvalidParameter, r"2\*\*1000000 has about 1000000 bits; exact numbers are limited to 65536 bits"),
        ("krr", ["d=1/0"], InvalidSpec, r"parameter d = '1/0': 1 / 0 is undefined"),
    ],
)
def test_parameter_bindings_are_refused_quickly(spec, params, error, message):
    with cpu_budget(), pytest.raises(error, match=message) as info:
        load_bound(SPECS / f"{spec}.toml", params)
    assert "\n" not in str(info.value)


def test_large_sizes_within_the_budget_bind_quickly_and_exactly():
    with cpu_budget():
        mech = load_bound(SPECS / "ksubset.toml", ["d=20000"])  # k free: identities are the family's
    assert dict(mech.bindings)["d"] == 20000
    with cpu_budget():
        mech = load_bound(SPECS / "ksubset.toml", ["d=1000000", "k=3"])
    counts = [c.count for c in mech.channel.classes]
    assert counts == [math.comb(999_999, 2), math.comb(999_999, 3)]  # binomial(d-1, k-1), binomial(d-1, k)


def test_exact_decimal_is_exact_and_bounded():
    from fractions import Fraction

    assert exact_decimal("0.25") == Fraction(1, 4)
    assert exact_decimal("1e-3") == Fraction(1, 1000)
    assert exact_decimal("3/4") == Fraction(3, 4)
    assert exact_decimal("log(3)") is None and exact_decimal("1/0") is None
    with pytest.raises(InvalidSpec, match="more than 300 digits"):
        exact_decimal("1e100000000")


@pytest.fixture(scope="module", autouse=True)
def _stage_modules_imported():
    """Import every stage's command module once, so CPU budgets time the work, not imports."""
    from ldpaudit.cli import build_parser

    build_parser()


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    proc = cli_inprocess.run(*argv)     # in this process (tests/cli_inprocess.py)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize(
    "argv,message",
    [
        (["show", str(SPECS / "krr.toml"), "-p", "d=10**100"], "exceeds the size limit 2**64"),
        (["show", str(SPECS / "krr.toml"), "-p", "epsilon=exp(exp(99))"], "exp arguments are limited to |a| <= 100000"),
        (["verify", str(SPECS / "krr.toml"), "--epsilon", "exp(exp(99))"], "exp arguments are limited to |a| <= 100000"),
        (["verify", str(SPECS / "krr.toml"), "--epsilon", "1e100000000"], "has more than 300 digits"),
        (["verify", str(SPECS / "krr.toml"), "-p", "d=10**100"], "exceeds the size limit 2**64"),
    ],
)
def test_cli_refuses_hostile_bindings_with_exit_2_and_one_line(argv, message):
    with cpu_budget():
        code, _, err = run_cli(argv)
    assert code == 2
    assert err.startswith("ldpaudit: error: ") and err.count("\n") == 1
    assert message in err


def test_cli_check_on_a_hostile_spec_exits_2(tmp_path):
    path = tmp_path / "hog.toml"
    path.write_text(edit(KRR, 'claimed_epsilon = "epsilon"', 'claimed_epsilon = "binomial(10**9, 10**8)"'))
    with cpu_budget():
        code, out, _ = run_cli(["check", str(path), "--json"])
    assert code == 2
    assert "has about 4.69e+08 bits" in out


def test_every_rejection_is_an_ldpaudit_error_with_a_short_value():
    long_expr = "d + " * 400 + "d"
    with pytest.raises(LdpAuditError) as info:
        loads_spec(edit(KRR, 'claimed_epsilon = "epsilon"', f'claimed_epsilon = "{long_expr}"'))
    message = str(info.value)
    assert "nested more than 40 levels" in message
    assert len(message) < 300  # the 1,600-character value is shortened


def test_binding_a_parameter_moves_its_dependent_bound_onto_the_free_one():
    # k <= d - 1: binding k = 3 leaves d >= 4 (it used to be checked at d = 2 and fail)
    mech = load_bound(SPECS / "ksubset.toml", ["k=3"])
    d = mech.parameter("d")
    assert (d.lower, d.lower_strict, d.upper) == (4, False, None)
    assert mech.bind(d=4).channel.classes[0].count == 3  # binomial(3, 2)
    with pytest.raises(InvalidParameter, match=r"parameter d = 3 of k-subset is out of range: need d >= 4"):
        mech.bind(d=3)
    bits = load_bound(SPECS / "rr_bit.toml", ["j=5"]).parameter("bits")
    assert bits.lower == 6


def test_long_names_and_unencodable_text_are_refused_in_one_short_line():
    message = refused(edit(KRR, 'name = "k-RR"', 'name = "' + "k" * 5000 + '"'),
                      r"mechanism\.name = 'kkkk.*\.\.\. is 5000 characters long; the limit is 200")
    assert len(message) < 200
    refused(edit(KRR, "[parameters.d]", '[parameters."d d"]'), r"parameter name 'd d' is not allowed")
    with pytest.raises(InvalidSpec, match="invalid TOML"):
        loads_spec(KRR + "\ud800 = 1\n", source="hostile.toml")  # a lone surrogate: not UTF-8 text


def test_a_negative_base_to_an_irrational_power_is_not_real():
    with pytest.raises(InvalidSpec, match=r"\(1/3 - pi\)\*\*\(2\*\*E\) is not a real number \(a negative base"):
        parse_expression("(1/3 - pi)**(2**exp(1))", {})
    with pytest.raises(InvalidSpec, match=r"\(-8\) \*\* \(1 / 3\) = 2\*\(-1\)\*\*\(1/3\) is not a real number"):
        parse_expression("(-8)**(1/3)", {})
    assert parse_expression("(-2)**3", {}) == -8 and parse_expression("(1/3 - pi)**2", {}).is_positive
