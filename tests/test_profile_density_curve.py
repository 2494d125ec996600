"""The whole privacy profile δ(ε) of the catalog's density channels in closed form
(ldpaudit/account/density.py: profile_curve), derived from the density, against the published
formulas: the Laplace pair at distance = sensitivity, δ(ε) = max(0, 1 - e^((ε - ε0)/2)), and
Balle & Wang's Gaussian δ(ε)."""
from __future__ import annotations

import json

import mpmath
import pytest
import sympy as sp

from ldpaudit.account.density import EPSILON, profile_curve
from ldpaudit.cli import main
from ldpaudit.mechanism.loader import load_bound
from ldpaudit.verify.density_delta import density_delta


@pytest.mark.parametrize("params,eps0", [
    (["M=1", "epsilon=1"], sp.Integer(1)),
    (["M=3", "epsilon=1/2"], sp.Rational(1, 2)),
    (["M=1", "epsilon=log(3)"], sp.log(3)),
])
def test_laplace_curve_is_the_published_formula(params, eps0):
    mech = load_bound("specs/laplace_mean.toml", params)
    curve = profile_curve(mech)
    (first, second) = curve["pieces"]
    assert sp.sympify(first["epsilon_from"]) == 0 and sp.simplify(sp.sympify(first["epsilon_to"]) - eps0) == 0
    published = 1 - sp.exp((EPSILON - eps0) / 2)
    derived = sp.sympify(first["delta"], locals={"epsilon": EPSILON})
    assert sp.simplify(derived - published) == 0
    assert second["delta"] == "0" and second["epsilon_to"] is None
    assert [sp.simplify(sp.sympify(b["epsilon"]) - eps0) for b in curve["breakpoints"]] == [0]
    # both sides of the breakpoint, and the pieces against the one-ε derivation at rational points
    below = eps0 * sp.Rational(999, 1000)
    assert sp.N(derived.xreplace({EPSILON: below})) > 0
    for e in (sp.Rational(1, 7) * eps0, eps0 * sp.Rational(9, 10)):
        one = density_delta(mech, e).delta
        assert abs(sp.N(one - derived.xreplace({EPSILON: e}), 40)) < 1e-35
    for e in (eps0, eps0 * 2):
        assert density_delta(mech, e).delta == 0
    # the sample points follow the curve (0 from the breakpoint on), and start at the TV distance
    pts = curve["points"]
    assert abs(pts[0]["delta"] - float(1 - sp.exp(-eps0 / 2))) < 1e-12
    assert all(p["delta"] == 0 for p in pts if p["epsilon"] >= float(eps0))
    assert all(a["delta"] > b["delta"] for a, b in zip(pts, pts[1:]) if b["epsilon"] < float(eps0))


def test_gaussian_curve_is_balle_wang():
    mech = load_bound("specs/gaussian.toml", ["sigma=2", "epsilon=1"])
    curve = profile_curve(mech)
    (piece,) = curve["pieces"]
    assert piece["epsilon_to"] is None and curve["breakpoints"] == []
    expr = sp.sympify(piece["delta"], locals={"epsilon": EPSILON, "Phi": sp.Function("Phi")})
    f = sp.lambdify(EPSILON, expr.replace(sp.Function("Phi"), lambda a: (1 + sp.erf(a / sp.sqrt(2))) / 2),
                    modules="mpmath")
    with mpmath.workdps(30):
        for e in (0, 0.25, 1, 3):
            ref = mpmath.ncdf(mpmath.mpf(1) / 4 - 2 * mpmath.mpf(e)) - mpmath.exp(e) * mpmath.ncdf(-mpmath.mpf(1) / 4 - 2 * mpmath.mpf(e))
            assert abs(f(mpmath.mpf(e)) - ref) < mpmath.mpf(10) ** -25


def test_profile_cli_curve_json_and_plot(capsys, tmp_path):
    out = tmp_path / "laplace.png"
    code = main(["profile", "specs/laplace_mean.toml", "--json", "--plot", str(out)])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and out.stat().st_size > 1000
    assert data["delta"] == "0" and data["curve"]["pieces"][0]["delta"] == "1 - exp(epsilon/2 - 1/2)"
    assert data["curve"]["breakpoints"] == [{"epsilon": "1", "epsilon_float": 1.0}]
    # two reports: no closed form, the pessimistic bound as before (an upper bound above one report's δ)
    code = main(["profile", "specs/laplace_mean.toml", "--reports", "2", "--epsilon", "1", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["delta"] is None and data["delta_upper"] > 0 and "curve" not in data
