"""Folding 'a if c else b' out of conditions stays within the spec budgets.

sympy folds a Piecewise out of every condition that contains one when it builds a Piecewise
(``ExprCondPair``), and the loader folds channel entries: ``f(Piecewise((a, c), (b, True)))``
becomes ``Piecewise((f(a), c), (f(b), True))`` with ``f(a)`` evaluated outside the parser's
checks. ``2**(64**(2**64 if epsilon > 10 else 1))`` is harmless unevaluated but folds into
``64**(2**64)``, a number of 2**70 bits: random expression number 1153 of
``tests/test_spec_fuzz.py``'s seed 8 grew the test process to 24 GB. And each conditional
expression inside a condition doubles the folded pieces.

The hostile cases run in a forked child with a memory and time budget (:func:`ldpaudit.budget.call`),
so a regression fails this test with ``BudgetExceeded`` instead of taking the machine down.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest
import sympy as sp

from ldpaudit import budget
from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism import loads_spec
from ldpaudit.mechanism.expr import MAX_PIECES, parse_expression, piecewise_fold

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_spec_fuzz import random_expression  # noqa: E402

D = sp.Symbol("d", integer=True, positive=True)
EPS = sp.Symbol("epsilon", positive=True)
SYMBOLS = {"d": D, "epsilon": EPS}
SPECS = Path(__file__).resolve().parent.parent / "specs"

#: expression 1153 of run_expressions(seed=8) in tests/test_spec_fuzz.py, verbatim
FUZZ_SEED_8_CASE_1153 = (
    "floor(((ceiling(binomial(epsilon, d)) if log(ceiling(d)) > (2**64 ** (2**64 if epsilon > 10 else 1)) "
    "else log((1000 / 1000))) if 1 > (10**50+1/2) else d))"
)


def cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _parse(text: str):
    return parse_expression(text, SYMBOLS, field="f")


def _refused_in_a_child(fn, *args) -> str:
    """``fn(*args)`` in a forked child with 1 GiB and 20 s: it must raise InvalidSpec, quickly.
    Returns the message."""
    start = cpu_seconds()
    with pytest.raises(InvalidSpec) as info:
        budget.call(fn, *args, seconds=20, memory_mb=1024, label="parse")
    assert cpu_seconds() - start < 3
    message = str(info.value)
    assert "\n" not in message and len(message) < 400, message
    return message


def test_the_fuzz_case_that_grew_to_24_gb_is_a_one_line_budget_refusal():
    message = _refused_in_a_child(_parse, FUZZ_SEED_8_CASE_1153)
    assert message.startswith("f = 'floor(((ceiling(binomial(epsilon, d)) if")
    assert "64**18446744073709551616 has about 110680464442257309696 bits; exact numbers are limited to 65536 bits" in message


def test_a_power_folded_out_of_a_condition_is_checked_like_a_written_one():
    folded = _refused_in_a_child(_parse, "1 if log(d) > 2**(64**(2**64 if epsilon > 10 else 1)) else 0")
    written = _refused_in_a_child(_parse, "1 if log(d) > 2**(64**(2**64)) else 0")
    assert "64**18446744073709551616 has about" in folded and "constant exponent 18446744073709551616 exceeds" in written
    # the other branch alone is fine: 2**64 is small
    assert _parse("1 if log(d) > 2**(64**(1 if epsilon > 10 else 1)) else 0") == sp.Piecewise(
        (1, sp.log(D) > 2**64), (0, True))


def test_conditional_expressions_inside_a_condition_are_bounded_in_number_of_pieces():
    # each '(d if d > i else i + 1)' with i >= 1 has two pieces; six fold into 64, seven into 128
    def text(n):
        return "1 if " + " + ".join(f"(d if d > {i} else {i + 1})" for i in range(1, n + 1)) + " > 50*epsilon else 0"

    assert 2**6 == MAX_PIECES
    start = cpu_seconds()
    assert _parse(text(6)).has(sp.ITE)
    assert cpu_seconds() - start < 5
    message = _refused_in_a_child(_parse, text(7))  # sympy alone: 75 s for 2**10 pieces, never ends for 2**12
    assert "gives more than 64 cases" in message and message.startswith("f = '1 if (d if d > 1 else 2) +")
    _refused_in_a_child(_parse, text(12))


def test_the_loader_folds_channel_entries_within_the_budgets():
    text = (SPECS / "hybrid.toml").read_text()
    entry = 'entry = "1/2 + y*x*(exp(epsilon) - 1)/(2*(exp(epsilon) + 1))"'
    assert text.count(entry) == 1
    hostile = text.replace(entry, entry[:-1] + ' + (2**(64**(2**64 if epsilon > 10 else 1)) if epsilon > 100 else 0)"')
    message = _refused_in_a_child(loads_spec, hostile)
    assert "channel.components[1].entry = " in message and "64**18446744073709551616 has about" in message
    loads_spec(text)  # the bundled spec itself still loads


@pytest.mark.parametrize("seed", range(6))
def test_the_guarded_fold_equals_sympys_on_random_conditions(seed):
    """Differential: on conditions built from the fuzz grammar, with at least one conditional
    expression inside, and within the budgets, the fold is sympy's own, piece for piece."""
    rng = random.Random(seed)
    compared = 0
    while compared < 8:
        a, b, c = (random_expression(rng, 2) for _ in range(3))
        lhs = f"({a} if {random_expression(rng, 1)} > {random_expression(rng, 1)} else {b})"
        try:
            cond = parse_expression(f"{lhs} + {c} > d", SYMBOLS, field="f", predicate=True)
        except InvalidSpec:
            continue
        if not cond.has(sp.Piecewise):
            continue
        try:
            ours = piecewise_fold(cond)
        except InvalidSpec:
            continue
        assert ours == sp.piecewise_fold(cond), (lhs, c)
        compared += 1


def test_folding_an_expression_without_a_piecewise_changes_nothing():
    expr = _parse("exp(epsilon)/(exp(epsilon) + d - 1)")
    assert piecewise_fold(expr) is expr
    pw = _parse("2*(d if d > 2 else 1) + (d if d > 2 else 3)")
    assert piecewise_fold(pw) == sp.Piecewise((3 * D, D > 2), (5, True)) == sp.piecewise_fold(pw)
