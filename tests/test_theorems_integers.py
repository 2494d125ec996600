"""Integer parameters are split between integers: a claim that holds at every integer but not
between them (here (2d - 7)² ≥ 1, false for 3 < d < 4) is PROVED, where the relaxation of d to
the reals leaves the pieces around d = 3.5 undecided; the same claim with a bound that fails at
an integer is REFUTED there, with the witness recomputed exactly."""
from __future__ import annotations

from fractions import Fraction

from ldpaudit.theorems.claims import loads_claims
from ldpaudit.theorems.prover import PROVED, REFUTED, prove_file

CLAIMS = """
title = "between integers"
source = "test"

[specs]
krr = "krr"

[region]
parameters = {{ d = "integer", epsilon = "real" }}
where = ["d >= 2", "d <= 40", "epsilon >= 1", "epsilon <= 2"]

[[claim]]
name = "gap"
statement = "(2*d - 7)**2 * epsilon >= {bound}*epsilon"
"""


def test_a_claim_true_at_every_integer_is_proved():
    [result] = prove_file(loads_claims(CLAIMS.format(bound=1)), seconds=20)
    assert result.status == PROVED, result.reason


def test_a_bound_that_fails_at_an_integer_is_refuted_there():
    [result] = prove_file(loads_claims(CLAIMS.format(bound=2)), seconds=20)
    assert result.status == REFUTED
    d = int(result.witness.point["d"])
    eps = Fraction(result.witness.point["epsilon"])
    assert d in (3, 4) and 1 <= eps <= 2 and (2 * d - 7) ** 2 * eps < 2 * eps
