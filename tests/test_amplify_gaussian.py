"""Shuffling the Gaussian mechanism (ldpaudit/account/gaussian_shuffle.py) against independent
computations: Balle & Wang's published δ(ε) evaluated with mpmath (one report, and the sum of n
reports, i.e. the central Gaussian mechanism with noise σ√n), the truncation facts recomputed
from the normal tail, and the clone bound recomputed at the reported point."""
from __future__ import annotations

import functools
import json
import math

import mpmath
import pytest

from ldpaudit.account import gaussian_shuffle as G
from ldpaudit.account.shuffle import clone_epsilon
from ldpaudit.cli import main
from ldpaudit.mechanism.loader import load_bound

SIGMA_TEXT = "sqrt(2*log(125000))"   # the spec's example: σ ≈ 4.845


@pytest.fixture(scope="module")
def gaussian():
    return load_bound("specs/gaussian.toml", [f"sigma={SIGMA_TEXT}", "epsilon=1"])


@functools.lru_cache(maxsize=None)
def amplified(n: int, delta: float = 1e-6):
    return G.gaussian_amplify(load_bound("specs/gaussian.toml", [f"sigma={SIGMA_TEXT}", "epsilon=1"]), n, delta)


@pytest.fixture(scope="module")
def sigma():
    with mpmath.workdps(50):
        return mpmath.sqrt(2 * mpmath.log(125000))


def balle_wang(sigma, eps, shift=1) -> mpmath.mpf:
    """δ(ε) = Φ(Δ/(2σ) - εσ/Δ) - e^ε Φ(-Δ/(2σ) - εσ/Δ) (Balle & Wang 2018, Thm 8)."""
    with mpmath.workdps(50):
        a, b = shift / (2 * sigma), mpmath.mpf(eps) * sigma / shift
        return mpmath.ncdf(a - b) - mpmath.exp(eps) * mpmath.ncdf(-a - b)


def epsilon_at(sigma, delta, shift=1) -> float:
    """The ε with Balle-Wang δ(ε) = δ, by bisection (independent of the module)."""
    lo, hi = mpmath.mpf(0), mpmath.mpf(50)
    with mpmath.workdps(50):
        for _ in range(200):
            mid = (lo + hi) / 2
            if balle_wang(sigma, mid, shift) > delta:
                lo = mid
            else:
                hi = mid
    return float(lo)


def test_derived_profile_is_balle_wang(gaussian, sigma):
    """δ_r(ε) derived from the density equals the published formula with noise σ·r."""
    der = G._Derived(gaussian)
    for eps in (0.01, 0.3, 1.0, 2.5):
        for c in (1, 7, 10**6):
            ours = der.delta(eps, c)
            with mpmath.workdps(50):
                ref = balle_wang(sigma * mpmath.sqrt(c), eps)
            assert abs(ours - ref) <= mpmath.mpf(10) ** -40 * max(1, abs(ref)), (eps, c)


def test_one_user_is_the_report_itself(gaussian, sigma):
    r = G.gaussian_amplify(gaussian, 1, 1e-6)
    truth = epsilon_at(sigma, mpmath.mpf(1e-6))
    assert r.epsilon_lower <= truth <= r.epsilon_upper
    assert r.epsilon_upper - r.epsilon_lower < 1e-11
    assert abs(r.epsilon_upper - 0.8628865739) < 1e-9
    # both sides of the bound: δ at the upper end is <= δ, at the lower end above it
    assert balle_wang(sigma, r.epsilon_upper) <= 1e-6 < balle_wang(sigma, r.epsilon_lower)


@pytest.mark.parametrize("n", [2, 10, 1000, 10**5])
def test_bounds_bracket_and_sum_is_the_central_gaussian(gaussian, sigma, n):
    delta = 1e-6
    r = amplified(n)
    with mpmath.workdps(50):
        central = epsilon_at(sigma * mpmath.sqrt(n), mpmath.mpf(delta))
    # the lower bound from the sum is the central Gaussian mechanism's exact ε (noise σ√n)
    assert abs(r.epsilon_sum_lower - central) <= 1e-9 * central + 1e-15
    assert r.epsilon_sum_lower <= central
    assert r.epsilon_lower >= r.epsilon_sum_lower and r.epsilon_lower >= r.epsilon_count_lower
    # the upper bound is never below the central Gaussian-sum value, nor the count bound
    assert r.epsilon_upper >= r.epsilon_lower >= central * (1 - 1e-9)
    assert r.epsilon_upper <= r.epsilon_local
    assert r.epsilon_generic is None and any("epsilon_generic is not defined" in note for note in r.notes)


def test_upper_bound_decreases_in_n(gaussian):
    uppers = [amplified(n).epsilon_upper for n in (2, 10, 1000, 10**4, 10**5)]
    assert uppers[0] >= uppers[1] > uppers[2] > uppers[3] > uppers[4]
    # amplification: well below one report's ε (0.8629) from n = 1000 on
    assert uppers[2] < 0.4 and uppers[4] < 0.05


def test_truncation_facts_recomputed(gaussian, sigma):
    n, delta = 1000, 1e-6
    r = amplified(n)
    tr = r.truncation
    T = mpmath.mpf(tr["T"])
    with mpmath.workdps(50):
        tail = lambda u: mpmath.ncdf(-u / sigma)  # noqa: E731
        inside = (1 + 2 * T) / (2 * sigma**2)
        atom = mpmath.log(tail(T) / tail(T + 1))
        tau = 2 * tail(T)
        tv = 1 - (1 - tau) ** n
    assert tr["epsilon0"] >= max(inside, atom) and tr["epsilon0"] <= float(max(inside, atom)) * (1 + 1e-12)
    assert tr["tau"] >= tau and tr["tv"] >= tv
    assert tr["tv_term"] >= (1 + mpmath.exp(tr["epsilon0"])) * tv
    assert tr["tv_term"] + tr["delta_clone"] <= delta
    assert tr["epsilon"] == clone_epsilon(tr["epsilon0"], n, tr["delta_clone"], math.exp(-tr["epsilon0"]))
    assert r.epsilon_truncated == tr["epsilon"]
    assert r.epsilon_upper == min(r.epsilon_truncated, r.epsilon_blanket, r.epsilon_local)


def test_count_lower_bound_is_below_one_report_at_two_users(gaussian):
    r = amplified(2)
    assert 0 < r.epsilon_count_lower <= r.epsilon_local
    assert r.count_witness["threshold"] >= 1


def test_cli_gaussian_json_and_bad_input(capsys):
    code = main(["amplify", "specs/gaussian.toml", "-p", f"sigma={SIGMA_TEXT}", "-p", "epsilon=1", "--n", "1000",
                 "--delta", "1e-6", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["command"] == "amplify" and data["verdict"] == "OK"
    assert data["epsilon_generic"] is None
    # the privacy blanket is the best upper bound here, well inside the truncation bound
    assert data["epsilon_upper"] == data["epsilon_blanket"] < data["epsilon_truncated"] / 5
    assert 0.02 < data["epsilon_lower"] < data["epsilon_upper"] < 0.4
    assert data["blanket"]["epsilon_end"] <= data["epsilon_blanket"]
    code = main(["amplify", "specs/gaussian.toml", "-p", "sigma=2", "-p", "epsilon=1", "--n", "5", "--delta", "1e-6",
                 "--samples", "100"])
    err = capsys.readouterr().err
    assert code == 2 and "--samples" in err and err.count("\n") == 1
