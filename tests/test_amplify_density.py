"""Shuffling pure ε0-LDP density channels (ldpaudit/account/density_shuffle.py): ε0 proved by
verify, the generic bound equal to a finite channel's with the same ε0 (it depends on ε0
alone), the count lower bound recomputed from the Laplace tail in closed form, bad input."""
from __future__ import annotations

import json
import math

import mpmath
import pytest

from ldpaudit.account import density_shuffle as D
from ldpaudit.account.amplify import amplify
from ldpaudit.account.shuffle import count_epsilon
from ldpaudit.cli import main
from ldpaudit.mechanism.loader import load_bound


@pytest.fixture(scope="module")
def laplace():
    return D.density_amplify(load_bound("specs/laplace_mean.toml", ["M=1", "epsilon=1"]), 10_000, 1e-6)


def test_generic_bound_is_the_finite_channels_with_the_same_epsilon0(laplace):
    rr = amplify(load_bound("specs/krr.toml", ["d=2", "epsilon=1"]), 10_000, 1e-6, blanket=False)
    assert laplace.epsilon0_exact == "1" and laplace.epsilon0 >= 1 and laplace.epsilon0 - 1 < 1e-15
    assert laplace.epsilon_generic == rr.epsilon_generic
    assert laplace.epsilon_upper == min(laplace.epsilon_generic, laplace.epsilon_local) < 0.06


def test_count_lower_bound_recomputed_from_the_laplace_tail(laplace):
    """Laplace(x, b = 2) on [-1, 1]: P(Z > t | x) = e^{-(t - x)/2}/2 for t >= x."""
    w = laplace.count_witness
    t = w["threshold"]
    x0, x1 = (1, -1) if w["target"] == "high" else (-1, 1)
    with mpmath.workdps(40):
        tail = lambda x: mpmath.exp(-(mpmath.mpf(t) - x) / 2) / 2 if t >= x else 1 - mpmath.exp((mpmath.mpf(t) - x) / 2) / 2  # noqa: E731
        q0, q1 = float(tail(x0)), float(tail(x1))
    assert math.isclose(w["q_target"], q0, rel_tol=1e-12) and math.isclose(w["q_others"], q1, rel_tol=1e-12)
    assert laplace.epsilon_lower == count_epsilon(q0, q1, 10_000, 1e-6)
    assert 0.01 < laplace.epsilon_lower < laplace.epsilon_upper


@pytest.mark.parametrize("spec,params", [pytest.param("piecewise", ["epsilon=1"], marks=pytest.mark.slow),
                                         ("square_wave", ["epsilon=1", "b=1/2"])])
def test_piecewise_densities(spec, params, capsys):
    code = main(["amplify", f"specs/{spec}.toml", *sum((["-p", p] for p in params), []), "--n", "1000",
                 "--delta", "1e-6", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["kind"] == "density" and data["epsilon0_exact"] == "1"
    assert 0 < data["epsilon_lower"] < data["epsilon_upper"] == data["epsilon_generic"] < 1
    assert data["epsilon_blanket"] is None and any("blanket" in n for n in data["notes"])


def test_bad_input(capsys):
    code = main(["amplify", "specs/laplace_mean.toml", "-p", "M=1", "-p", "epsilon=1", "--n", "1",
                 "--delta", "1e-6"])
    err = capsys.readouterr().err
    assert code == 2 and "--n" in err and err.count("\n") == 1
    code = main(["amplify", "specs/laplace_mean.toml", "-p", "M=1", "-p", "epsilon=1", "--n", "100",
                 "--delta", "1e-6", "--exact"])
    err = capsys.readouterr().err
    assert code == 2 and "--exact" in err and err.count("\n") == 1
    code = main(["amplify", "specs/laplace_mean.toml", "-p", "epsilon=1", "--n", "100", "--delta", "1e-6"])
    err = capsys.readouterr().err
    assert code == 2 and "M" in err and err.count("\n") == 1
