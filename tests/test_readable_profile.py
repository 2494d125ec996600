"""`profile` prints δ(ε) as a paper would (issue 32, item 2): one fraction of factored polynomials
in e, the curve's pieces over one denominator, and the composition theorems said to be vacuous
when they are; each printed formula is checked against a brute-force δ(ε)."""

from __future__ import annotations

import itertools
from pathlib import Path

import sympy as sp

from ldpaudit.cli import main

SPECS = Path(__file__).resolve().parents[1] / "specs"


def _krr_delta(d: int, eps1, reports: int, eps):
    """δ(ε) of K reports of k-RR by enumeration: Σ_y max(0, P(y|0) - e^ε P(y|1))."""
    keep = sp.exp(eps1) / (sp.exp(eps1) + d - 1)
    other = 1 / (sp.exp(eps1) + d - 1)
    total = 0
    for ys in itertools.product(range(d), repeat=reports):
        p = sp.Mul(*[keep if y == 0 else other for y in ys])
        q = sp.Mul(*[keep if y == 1 else other for y in ys])
        diff = p - sp.exp(eps) * q
        if sp.N(diff, 30) > 0:
            total += diff
    return total


def _parse(text: str):
    return sp.sympify(text.replace("^", "**"), locals={"e": sp.E})


def test_delta_is_one_factored_fraction_in_e(capsys):
    assert main(["profile", str(SPECS / "krr.toml"), "-p", "d=4", "-p", "epsilon=1", "--reports", "3",
                 "--epsilon", "1", "--curve"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("δ(1) = "))
    formula = line.split("=", 1)[1].split("≈")[0].strip()
    assert formula == "e*(e - 1)*(e + 7)/(e + 3)^3"
    assert sp.simplify(_parse(formula) - _krr_delta(4, 1, 3, 1)) == 0
    assert "E" not in out.replace("EXACT", "")
    # the pieces: δ(ε) on [2, 3) is (e^3 - e^ε)/(e + 3)^3, equal to the brute force at ε = 5/2
    piece = next(ln for ln in out.splitlines() if ln.strip().startswith("ε in [2, 3): "))
    formula = piece.split("δ(ε) = ", 1)[1].strip()
    assert formula == "(e^3 - e^ε)/(e + 3)^3"
    half = sp.Rational(5, 2)
    value = sp.sympify(formula.replace("e^ε", f"exp({half})").replace("^", "**"), locals={"e": sp.E})
    assert sp.simplify(value - _krr_delta(4, 1, 3, half)) == 0


def test_half_exponents_are_named_g(capsys):
    assert main(["profile", str(SPECS / "krr.toml"), "-p", "d=4", "-p", "epsilon=1/2", "--reports", "3",
                 "--epsilon", "1"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("δ(1) = "))
    formula, named = line.split("=", 1)[1].split("≈")[0].strip().split("  ")
    assert formula == "g^2*(g - 1)/(g + 3)^3" and named == "(g = e^(1/2))"
    g = sp.exp(sp.Rational(1, 2))
    assert sp.simplify(sp.sympify(formula.replace("^", "**"), locals={"g": g}) - _krr_delta(4, sp.Rational(1, 2), 3, 1)) == 0


def test_composition_theorems_say_when_they_are_vacuous(capsys):
    assert main(["profile", str(SPECS / "krr.toml"), "-p", "d=4", "-p", "epsilon=1", "--reports", "10",
                 "--epsilon", "5"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "basic K·δ1(ε/K) = 1 (vacuous)" in out
    assert "advanced (Dwork, Rothblum & Vadhan) δ <= 1 (vacuous)" in out
    assert "δ(5) = e^5*(e - 1)*(e^4 + 31*e^3 + 436*e^2 + 2791*e + 4521)/(e + 3)^10 ≈ 0.109197" in out
    assert main(["profile", str(SPECS / "krr.toml"), "-p", "d=4", "-p", "epsilon=1/2", "--reports", "3",
                 "--epsilon", "1"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "basic K·δ1(ε/K) = 0.163341;" in out      # not vacuous: no mark
