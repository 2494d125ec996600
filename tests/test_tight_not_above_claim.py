"""A PROVED verdict never stands beside a tight ε above the claim it proved (issue 35, item 8:
Laplace mean with a reversed input interval was "PROVED ε-LDP, tight ε* = 2ε"). Property tests
with Hypothesis: random rational channels and claims, and the Laplace mechanism on random input
intervals, reversed ones included (refused at load, never proved). The tight ε is compared
with the claim exactly (sympy)."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism import loads_spec
from ldpaudit.mechanism.model import ExplicitChannel, FiniteDomain, Mechanism
from ldpaudit.mechanism.params import decide
from ldpaudit.verify import PROVED, tight_epsilon, verify

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def not_above(tight, claim) -> bool:
    """tight <= claim, decided exactly (an undecidable comparison fails the test)."""
    return decide(sp.sympify(tight) <= sp.sympify(claim)) is True


@st.composite
def channels(draw):
    n, m = draw(st.integers(2, 4)), draw(st.integers(2, 5))
    rows = []
    for _ in range(n):
        weights = draw(st.lists(st.integers(1, 9), min_size=m, max_size=m))
        rows.append([sp.Rational(w, sum(weights)) for w in weights])
    return rows


@SETTINGS
@given(rows=channels(), numerator=st.integers(1, 40), denominator=st.integers(1, 10))
def test_a_proved_finite_channel_has_its_tight_epsilon_within_the_claim(rows, numerator, denominator):
    claim = sp.log(1 + sp.Rational(numerator, denominator))
    mech = Mechanism(name="random", parameters=(), inputs=FiniteDomain(sp.Integer(len(rows))),
                     channel=ExplicitChannel(tuple(range(len(rows))), tuple(range(len(rows[0]))),
                                             tuple(tuple(r) for r in rows)),
                     claimed_epsilon=claim)
    verdict = verify(mech)
    tight = tight_epsilon(mech)
    assert tight.determined
    worst = max(a / b for r1 in rows for r2 in rows for a, b in zip(r1, r2))
    assert sp.simplify(tight.value - sp.log(worst)) == 0          # the brute-force tight ε
    if verdict.status == PROVED:
        assert not_above(tight.value, claim), (tight.value, claim)
    else:
        assert not not_above(tight.value, claim), (tight.value, claim)


LAPLACE = """[mechanism]
name = "Laplace on [{low}, {high}]"
claimed_epsilon = "{claim}"

[inputs]
low = "{low}"
high = "{high}"

[channel]
form = "density"
density = "exp(-abs(z - x)/2)/4"
"""

ends = st.fractions(min_value=-3, max_value=3, max_denominator=4)


@SETTINGS
@given(low=ends, high=ends, claim=st.fractions(min_value=Fraction(1, 8), max_value=4, max_denominator=8))
def test_laplace_on_any_interval_is_refused_or_proved_within_its_tight_epsilon(low, high, claim):
    text = LAPLACE.format(low=low, high=high, claim=claim)
    if low > high:
        with pytest.raises(InvalidSpec, match=r"inputs\.low = .* is above inputs\.high = .*swap them"):
            loads_spec(text)
        return
    mech = loads_spec(text)
    tight = tight_epsilon(mech)
    assert tight.determined and sp.simplify(tight.value - sp.Rational(high - low) / 2) == 0  # |x - x'|/2 at most
    verdict = verify(mech)
    assert (verdict.status == PROVED) == (high - low <= 2 * claim), (low, high, claim, verdict.status)
    if verdict.status == PROVED:
        assert not_above(tight.value, claim)
