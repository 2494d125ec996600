"""(ε, δ) for continuous outputs (issue 23, item 5): δ(ε) derived from the density, the smallest σ
for (ε, δ), and the classical Gaussian calibration shown to exceed its δ for some ε > 1."""

import math
from pathlib import Path

import mpmath
import pytest
import sympy as sp

import cli_inprocess

from ldpaudit.errors import InvalidParameter
from ldpaudit.mechanism import load_spec, loads_spec
from ldpaudit.verify import Status, verify
from ldpaudit.verify.density_delta import density_delta, numeric, smallest

SPECS = Path(__file__).resolve().parent.parent / "specs"


@pytest.fixture(scope="module")
def gaussian():
    return load_spec(SPECS / "gaussian.toml")


def balle_wang(sigma: float, eps: float, shift: float = 1.0) -> mpmath.mpf:
    """Φ(Δ/(2σ) - εσ/Δ) - e^ε Φ(-Δ/(2σ) - εσ/Δ), evaluated independently with mpmath."""
    with mpmath.workdps(50):
        s, e = mpmath.mpf(sigma), mpmath.mpf(eps)
        return mpmath.ncdf(shift / (2 * s) - e * s / shift) - mpmath.exp(e) * mpmath.ncdf(-shift / (2 * s) - e * s / shift)


def test_gaussian_delta_is_derived_in_closed_form(gaussian):
    sigma, eps = gaussian.symbols["sigma"], gaussian.symbols["epsilon"]
    dd = density_delta(gaussian, eps)
    from ldpaudit.mechanism.expr import Phi

    published = Phi(1 / (2 * sigma) - eps * sigma) - sp.exp(eps) * Phi(-1 / (2 * sigma) - eps * sigma)
    assert sp.simplify((dd.delta - published).rewrite(sp.erfc)) == 0
    for s, e in [(1, 1), (2, sp.Rational(1, 2)), (sp.Rational(1, 2), 3), (sp.Rational(4845, 1000), 1), (3, 2)]:
        value = numeric(dd.delta.subs({sigma: s, eps: e}))
        assert abs(value - balle_wang(float(s), float(e))) < 1e-12


def test_laplace_delta_below_its_epsilon_and_zero_at_it():
    lap = load_spec(SPECS / "laplace_mean.toml").bind(M=1, epsilon=1)
    # scale b = 2, inputs ±1: at ε' = 1/2 the event z > 1/2 gives 1 - e^(-1/4) (by hand)
    assert sp.simplify(density_delta(lap, sp.Rational(1, 2)).delta - (1 - sp.exp(sp.Rational(-1, 4)))) == 0
    assert density_delta(lap, 1).delta == 0


def test_verify_delta_on_both_sides_of_the_classical_calibration(gaussian):
    delta = sp.Rational(1, 10**5)

    def classical(e):
        return sp.sqrt(2 * sp.log(sp.Rational(5, 4) / delta)) / e

    ok = verify(gaussian.bind(sigma=classical(1), epsilon=1), delta=delta)
    assert ok.status is Status.PROVED
    bad = verify(gaussian.bind(sigma=classical(sp.Rational(421, 50)), epsilon=sp.Rational(421, 50)), delta=delta)
    assert bad.status is Status.REFUTED
    # independently: the true δ at ε = 8.42 with the classical σ exceeds 1e-5
    e = 8.42
    assert balle_wang(math.sqrt(2 * math.log(1.25e5)) / e, e) > 1e-5
    assert balle_wang(math.sqrt(2 * math.log(1.25e5)) / 8.4, 8.4) < 1e-5


def test_smallest_sigma_matches_an_independent_bisection(gaussian):
    cal = smallest(gaussian.bind(epsilon=1), "sigma", 1, sp.Rational(1, 10**5), digits=10)
    lo, hi = 1.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if balle_wang(mid, 1) > 1e-5 else (lo, mid)
    assert abs(float(cal.above) - hi) < 1e-8
    assert 3.7306 < float(cal.above) < 3.7307  # the analytic Gaussian mechanism's σ at (1, 1e-5)


def test_delta_refuses_what_it_cannot_derive():
    text = (SPECS / "piecewise.toml").read_text()
    pm = loads_spec(text).bind(epsilon=1)
    with pytest.raises(InvalidParameter, match="not a location family"):
        density_delta(pm, 1)


def _cli(*args):
    return cli_inprocess.run(*args)     # the command line in this process (tests/cli_inprocess.py)


def test_cli_calibrate_and_its_bad_input():
    proc = _cli("verify", str(SPECS / "gaussian.toml"), "-p", "epsilon=1", "--delta", "1/100000", "--calibrate", "sigma")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("smallest sigma with δ(1) <= 1/100000: 3.7306316")
    proc = _cli("verify", str(SPECS / "gaussian.toml"), "-p", "epsilon=1", "--calibrate", "sigma")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "--calibrate sigma needs --delta" in proc.stderr


def test_a_delta_it_cannot_derive_is_unknown_not_bad_input():
    proc = _cli("verify", str(SPECS / "piecewise.toml"), "-p", "epsilon=1", "--delta", "1/10")
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout.startswith("UNKNOWN") and "could not derive δ(ε)" in proc.stdout and "not a location family" in proc.stdout


@pytest.mark.parametrize("spec, params", [("gaussian.toml", ["-p", "sigma=1", "-p", "epsilon=1"]),
                                          ("krr.toml", ["-p", "d=3", "-p", "epsilon=1"])])
@pytest.mark.parametrize("delta", ["2", "1", "-1/10"])
def test_a_delta_outside_zero_one_is_bad_input(spec, params, delta):
    proc = _cli("verify", str(SPECS / spec), *params, f"--delta={delta}")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and f"delta = {delta}" in proc.stderr and "[0, 1)" in proc.stderr
