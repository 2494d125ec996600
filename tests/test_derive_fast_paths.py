"""Shortcuts that keep `ldpaudit derive` within its CPU budget give the same values as the
general routes they skip: the half-normal mean by substitution equals sympy's integral, and
spec validation skips simplifying a sample-point value only when it provably still varies."""

from __future__ import annotations

import sympy as sp
import pytest

from ldpaudit.derive import risk
from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism import loads_spec
from ldpaudit.mechanism.checks import _varies

z = sp.Symbol("z", positive=True)


def test_half_normal_mean_is_sqrt_2_over_pi_as_sympy_integrates_it():
    c = risk.half_normal_mean()
    assert c == sp.sqrt(2) / sp.sqrt(sp.pi)
    density = sp.exp(-z**2 / 2) / sp.sqrt(2 * sp.pi)
    assert sp.simplify(c - 2 * sp.integrate(z * density, (z, 0, sp.oo))) == 0


@pytest.mark.parametrize("f", [
    z * sp.exp(-z**2 / 2),
    3 * z**2 * sp.exp(z**3) / sp.pi,
    sp.cos(z) * sp.exp(sp.sin(z)),
])
def test_antiderivative_by_substitution_differentiates_back(f):
    F = risk._antiderivative_by_substitution(f, z)
    assert F is not None and sp.simplify(sp.diff(F, z) - f) == 0


@pytest.mark.parametrize("f", [z**2 * sp.exp(-z**2 / 2), sp.exp(-z**2), z * sp.exp(z) * sp.exp(z**2), sp.exp(sp.Integer(2)) * z])
def test_antiderivative_by_substitution_declines_other_forms(f):
    assert risk._antiderivative_by_substitution(f, z) is None


def test_varies_only_when_two_points_differ():
    x, B = sp.Symbol("x", real=True), sp.Symbol("B", positive=True)
    assert _varies(sp.Rational(1, 2) + x * (sp.E - 1) / (2 * (sp.E + 1)))
    assert _varies(x / B)
    assert not _varies((x + 1)**2 - x**2 - 2 * x)            # the constant 1, not written as one
    assert not _varies(1 / (x - sp.Rational(2, 7)) - 1 / (x - sp.Rational(2, 7)) + x * 0)  # undefined at a point: not shown
    assert not _varies(sp.cos(x)**2 + sp.sin(x)**2)


REAL_INPUT = """
[mechanism]
name = "two-point"
claimed_epsilon = "epsilon"
[parameters.epsilon]
type = "real"
min = 0
strict_min = true
[inputs]
low = -1
high = 1
[channel]
form = "explicit"
outputs = [-1, 1]
entry = "{entry}"
"""


def test_real_input_validation_still_rejects_a_negative_probability():
    ok = loads_spec(REAL_INPUT.format(entry="1/2 + y*x*(exp(epsilon) - 1)/(2*(exp(epsilon) + 1))"))
    assert ok.name == "two-point"
    with pytest.raises(InvalidSpec, match="two-point"):  # x enters only through a constant: -1/2 + 2 at y = 1, ... < 0 at y = -1
        loads_spec(REAL_INPUT.format(entry="1/2 + y*((x + 1)**2 - x**2 - 2*x + epsilon)"))


@pytest.mark.parametrize("stem", [pytest.param("orr", marks=pytest.mark.slow), "ksubset"])
def test_printed_derivation_is_the_same_under_every_hash_seed(stem):
    """The ring fast paths (generator order, shared denominators grouped in dicts) must not
    make the printed derivation depend on the process: three hash seeds, one text."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    texts = set()
    for seed in ("0", "7", "31"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        proc = subprocess.run([sys.executable, "-m", "ldpaudit.cli", "derive", f"specs/{stem}.toml", "--no-cache", "-q"],
                              capture_output=True, text=True, env=env, cwd=root, timeout=300)
        assert proc.returncode == 0, proc.stderr
        texts.add(proc.stdout)
    assert len(texts) == 1
    assert "Worst-case" in texts.pop()


def test_a_catalog_name_builds_one_mechanism_and_parses_no_spec_file(monkeypatch):
    """`ldpaudit verify krr` costs what `verify specs/krr.toml` costs (0.65 vs 0.71 s CPU
    measured 2026-11-23): the name resolves to one constructor; no spec file is read and no
    other catalog mechanism is built (each would be validated)."""
    from ldpaudit.mechanism import core, loader

    built = []
    validate = core._validate
    monkeypatch.setattr(core, "_validate", lambda mech: built.append(mech.name) or validate(mech))
    monkeypatch.setattr(loader, "loads_spec", lambda *a, **k: pytest.fail("a spec file was parsed"))
    mech = loader.load_family("krr")
    assert mech.name == "k-RR" and built == ["k-RR"]


@pytest.mark.parametrize("name", ["krr", "oue", "ksubset", "krappor"])
@pytest.mark.parametrize("model", ["iid", "fixed"])
def test_variance_coefficients_from_the_ring_equal_polys(name, model):
    """α, β, γ of Var(p̂_j) read off the ring numerator simplify to exactly what sympy's Poly
    coefficients simplify to (krappor's e^(ε/2) takes Poly's route: None)."""
    from ldpaudit.derive.algebra import N_USERS, P_J, simplify
    from ldpaudit.derive.estimator import unbiased_estimator
    from ldpaudit.mechanism.catalog import CATALOG

    variance = risk.hit_risk(unbiased_estimator(CATALOG[name]()), model).variance * N_USERS
    fast = risk._coefficients_in(variance, P_J)
    if name == "krappor":
        assert fast is None
        return
    poly = sp.Poly(sp.expand(variance), P_J)
    assert fast is not None and len(fast) == 3
    for i, c in enumerate(fast):
        assert simplify(c / N_USERS) == simplify(poly.coeff_monomial(P_J**i) / N_USERS)
    assert risk._coefficients_in(variance * P_J**2, P_J) is None  # degree 4: Poly's route raises
