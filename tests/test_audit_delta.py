"""(ε, δ) audits: ``audit(..., delta=D)`` / ``ldpaudit audit --delta D`` (issue 23, item 6).

An (ε, δ)-LDP randomizer has P(S|x) <= e^ε P(S|x') + δ for every event S, so the certified
bound is ε_lb(δ) = ln((CP_lower(P(S|x)) − δ)/CP_upper(P(S|x'))) and a VIOLATION is
CP_lower − e^ε CP_upper > δ. Targets (delta_randomizers.py): the Gaussian mechanism x + N(0, σ²)
on [0, 1] with the analytic calibration for (ε, δ) = (1, 10^-5) (σ ≈ 3.73), a third of that σ
(true δ(1) ≈ 0.064), and the Laplace mechanism (pure ε = 1). Each audit fixes its seed, α and
the draws per input. The false-alarm rate over 200 seeds per target is the slow test at the end.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

import delta_randomizers as D
from ldpaudit.audit import audit, bounds
from ldpaudit.audit.sequential import sequential_audit
from ldpaudit.cli import main
from ldpaudit.errors import InvalidParameter
from ldpaudit.mechanism import catalog as C

ALPHA = 0.01
N = 10**5


def _audit(f, delta, *, seed=0, samples=N, alpha=ALPHA, **kw):
    return audit(f, domain=D.DOMAIN, epsilon=D.EPSILON, delta=delta, samples=samples, alpha=alpha, seed=seed,
                 batch=True, **kw)


def _true_epsilon(sigma: float, delta: float) -> float:
    """The exact ε at which x + N(0, σ²) (Δ = 1) has δ(ε) = δ."""
    return optimize.brentq(lambda e: D.gaussian_delta(sigma, e) - delta, 0.0, 50.0, xtol=1e-12)


# -- the planted targets ----------------------------------------------------------------------

@pytest.mark.parametrize("sigma, eps", [(0.5, 1.0), (1.2, 0.3), (3.0, 1.0), (3.7306, 2.0)])
def test_gaussian_delta_is_the_hockey_stick_divergence(sigma, eps):
    """Balle & Wang's closed form equals ∫ max(0, f_1(y) − e^ε f_0(y)) dy numerically."""
    def gap(y):
        return max(0.0, stats.norm.pdf(y, 1.0, sigma) - math.exp(eps) * stats.norm.pdf(y, 0.0, sigma))

    boundary = 0.5 + eps * sigma**2       # f_1 > e^ε f_0 exactly for y above it
    numeric, _ = integrate.quad(gap, boundary, boundary + 40 * sigma, epsabs=1e-14, epsrel=1e-12)
    assert D.gaussian_delta(sigma, eps) == pytest.approx(numeric, rel=1e-8, abs=1e-15)


def test_calibration_of_the_planted_targets():
    assert D.gaussian_delta(D.SIGMA_CORRECT, 1.0) <= 1e-5
    assert D.gaussian_delta(D.SIGMA_CORRECT * (1 - 1e-9), 1.0) > 1e-5          # the smallest such σ
    assert D.SIGMA_CORRECT == pytest.approx(3.7306, abs=1e-4)
    assert D.gaussian_delta(D.SIGMA_UNDERSIZED, 1.0) == pytest.approx(0.06434, abs=1e-5)   # 6,400 x the claim


# -- exact bounds at δ ------------------------------------------------------------------------

def test_epsilon_lower_bound_subtracts_delta():
    lb0, p_low, q_up = bounds.epsilon_lower_bound(3000, 10_000, 500, 10_000, 0.001)
    lb, p_low2, q_up2 = bounds.epsilon_lower_bound(3000, 10_000, 500, 10_000, 0.001, 0.05)
    assert (p_low2, q_up2) == (p_low, q_up)
    assert p_low == pytest.approx(stats.beta.ppf(0.001, 3000, 7001), rel=1e-9)
    assert lb0 == pytest.approx(math.log(p_low / q_up), rel=1e-12)
    assert lb == pytest.approx(math.log((p_low - 0.05) / q_up), rel=1e-12)
    # a lower bound on P(S|x) at or below δ certifies nothing
    assert bounds.epsilon_lower_bound(30, 10_000, 0, 10_000, 0.001, 0.01)[0] == -math.inf
    assert bounds.epsilon_lower_bound(300, 10_000, 0, 10_000, 0.001, 0.01)[0] > 0


def test_detectable_epsilon_at_delta_closed_form():
    """n hits under x and none under x': CP_lower = α'^(1/n), CP_upper = 1 − α'^(1/n)."""
    n, a = 75_000, 0.001
    r = a ** (1 / n)
    assert bounds.detectable_epsilon(n, a, 1e-5) == pytest.approx(math.log((r - 1e-5) / (1 - r)), rel=1e-9)
    assert bounds.detectable_epsilon(n, a, 0.5) == pytest.approx(math.log((r - 0.5) / (1 - r)), rel=1e-9)
    assert bounds.detectable_epsilon(n, a, 0.5) < bounds.detectable_epsilon(n, a)
    assert bounds.detectable_epsilon(100, 0.4, 0.999) == 0.0


# -- audits -----------------------------------------------------------------------------------

def test_undersized_gaussian_is_flagged_at_1e5_draws():
    r = _audit(D.gaussian_undersized, D.DELTA)
    assert r.verdict == "VIOLATION" and r.delta == D.DELTA
    # the certified bound beats the claim and is below the randomizer's true ε at that δ (3.41)
    assert D.EPSILON < r.epsilon_lower_bound <= _true_epsilon(D.SIGMA_UNDERSIZED, D.DELTA)
    w = r.witness
    assert sorted(w["pair"]) == [0.0, 1.0]
    assert w["delta"] == D.DELTA and w["delta_lower_bound"] > D.DELTA
    assert w["delta_lower_bound"] == pytest.approx(w["p_lower"] - math.e * w["q_upper"], rel=1e-12)
    assert r.epsilon_lower_bound == pytest.approx(math.log((w["p_lower"] - D.DELTA) / w["q_upper"]), rel=1e-12)
    # the witness's bounds come from its counts at α/(2k)
    k = w["candidates_confirmed"]
    assert w["p_lower"] == pytest.approx(bounds.cp_lower(w["counts"][0], w["samples"][0], ALPHA / (2 * k)), rel=1e-12)
    assert w["q_upper"] == pytest.approx(bounds.cp_upper(w["counts"][1], w["samples"][1], ALPHA / (2 * k)), rel=1e-12)
    assert r.detectable_epsilon > r.epsilon_lower_bound
    assert "(ε, δ)-LDP" in r.method and "δ = 1e-05" in r.method


@pytest.mark.parametrize("target", ["gaussian_correct", "laplace_correct"])
def test_correct_gaussian_and_laplace_are_left_alone(target):
    r = _audit(getattr(D, target), D.DELTA)
    assert r.verdict == "NO_EVIDENCE"
    assert 0 < r.epsilon_lower_bound <= D.EPSILON
    if target == "laplace_correct":   # tight at ε = 1: the audit comes close to the claim
        assert r.epsilon_lower_bound > 0.8


def test_delta_decides_both_sides():
    """The undersized Gaussian is (1, 0.064)-LDP and no better. Claimed δ = 0.03 is refuted,
    which needs events ranked by (p − δ)/q: the pure ratio p/q picks far tails with P(S|x)
    below δ. Claimed δ = 0.1 holds and is not flagged, which needs δ subtracted in the bound:
    the same audit at δ = 0 certifies ε >= 1.7."""
    refuted = _audit(D.gaussian_undersized, 0.03)
    assert refuted.verdict == "VIOLATION" and refuted.witness["family"] == "threshold"
    assert refuted.witness["p_lower"] > 0.1       # a tail of real mass, not the farthest bin
    assert 1.0 < refuted.epsilon_lower_bound <= _true_epsilon(D.SIGMA_UNDERSIZED, 0.03)
    held = _audit(D.gaussian_undersized, 0.1)
    assert held.verdict == "NO_EVIDENCE" and held.epsilon_lower_bound <= _true_epsilon(D.SIGMA_UNDERSIZED, 0.1)
    pure = _audit(D.gaussian_undersized, 0.0)
    assert pure.verdict == "VIOLATION" and pure.epsilon_lower_bound > 1.7


def test_float_leak_is_flagged_at_delta():
    """Unsnapped x + Laplace: outputs under x = 0 that are impossible under x' = 1 (the
    round-trip event, half the mass) violate (ε, δ)-LDP for every δ below that mass; the float
    candidates are re-ranked at δ and still win."""
    import blindspot_randomizers as B

    r = audit(B.naive_float_laplace(epsilon=1), domain=[0.0, 1.0], epsilon=1, delta=0.2, samples=N, alpha=ALPHA,
              seed=0, batch=True)
    assert r.verdict == "VIOLATION" and r.epsilon_lower_bound > 5
    w = r.witness
    assert w["family"] == "float" and w["counts"][1] == 0 and w["delta_lower_bound"] > 0.2


def test_delta_zero_is_the_pure_audit():
    a = _audit(D.laplace_correct, 0.0, samples=20_000, seed=3).to_json()
    b = audit(D.laplace_correct, domain=D.DOMAIN, epsilon=1, samples=20_000, alpha=ALPHA, seed=3, batch=True).to_json()
    a.pop("seconds"), b.pop("seconds")
    assert a == b and a["delta"] == 0.0


def test_sequential_delta_audit_stops_early():
    result, rounds = sequential_audit(D.gaussian_undersized, domain=D.DOMAIN, epsilon=1, delta=D.DELTA, budget=N,
                                      alpha=ALPHA, seed=1, batch=True)
    assert result.verdict == "VIOLATION" and result.delta == D.DELTA
    assert result.samples_per_input < N and rounds[-1].verdict == "VIOLATION"
    assert all(r.verdict == "NO_EVIDENCE" for r in rounds[:-1])


@pytest.mark.parametrize("delta, match", [
    (1.0, r"delta=1\.0 must be in \[0, 1\)"),
    (-1e-6, r"delta=-1e-06 must be in \[0, 1\)"),
    (float("nan"), r"delta=nan must be in \[0, 1\)"),
    ("tiny", r"delta='tiny' is not a number"),
    (True, r"delta=True is not a number"),
])
def test_bad_delta(delta, match):
    with pytest.raises(InvalidParameter, match=match):
        _audit(D.laplace_correct, delta, samples=1000)


def test_delta_with_a_spec_is_refused():
    with pytest.raises(InvalidParameter, match=r"\(ε, δ\) audits are black-box only"):
        audit(D.laplace_correct, domain=[0, 1], epsilon=1, delta=1e-5, samples=1000,
              spec=C.k_rr(d=2, epsilon=1), batch=True)


# -- the command line -------------------------------------------------------------------------

TARGET = "tests/delta_randomizers.py:gaussian_undersized"
CLI = ["audit", TARGET, "--batch", "--no-isolate", "--domain", "[0.0, 0.5, 1.0]", "--epsilon", "1",
       "--samples", str(N), "--alpha", str(ALPHA)]


def test_cli_json_fields(capsys):
    assert main([*CLI, "--delta", "1e-5", "--json"]) == 1
    p = json.loads(capsys.readouterr().out)
    assert p["verdict"] == "VIOLATION" and p["delta"] == 1e-5 and p["epsilon_claimed"] == 1.0
    assert p["epsilon_lower_bound"] > 1
    w = p["witness"]
    assert w["event"].startswith("y in ") and w["p_lower"] - math.e * w["q_upper"] > 1e-5
    assert w["delta_lower_bound"] == pytest.approx(w["p_lower"] - math.e * w["q_upper"])
    assert p["detectable_epsilon_max"] == p["detectable_epsilon"] > p["epsilon_lower_bound"]
    # the largest ε certifiable at δ from the confirmation draws, at the witness's α/(2k)
    n_confirm = w["samples"][0]
    alpha_each = ALPHA / (2 * w["candidates_confirmed"])
    assert p["detectable_epsilon_max"] == pytest.approx(bounds.detectable_epsilon(n_confirm, alpha_each, 1e-5))
    assert "Bonferroni" in p["false_alarm_control"] and "(ε, 1e-05)-LDP" in p["false_alarm_control"]
    assert "fresh confirmation draws" in p["false_alarm_control"]


def test_cli_text_states_delta_and_the_detectable_range(capsys):
    assert main([*CLI, "--delta", "1/10**5", "-q"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("VIOLATION: certified ε >= ") and "at δ = 1e-05 (claimed 1)" in out
    assert "this run could certify ε in [0, " in out and "P(S|x) - e^ε P(S|x') >= " in out


def test_cli_without_delta_is_unchanged(capsys):
    assert main([*CLI[:-4], "--samples", "20000", "--json"]) == 1     # σ/3 is not pure 1-LDP either
    p = json.loads(capsys.readouterr().out)
    assert p["delta"] == 0.0 and "delta" not in p["witness"]
    assert "ε-LDP at the claimed ε" in p["false_alarm_control"]


def test_cli_until_confident_and_resume_keep_delta(capsys, tmp_path):
    journal = tmp_path / "journal"
    argv = [*CLI, "--delta", "1e-5", "--until-confident", "--seed", "4", "--json"]
    assert main([*argv, "--journal", str(journal)]) == 1
    first = json.loads(capsys.readouterr().out)
    assert first["delta"] == 1e-5 and first["rounds"][-1]["verdict"] == "VIOLATION"
    assert first["samples_per_input"] < N and "alpha spending" in first["false_alarm_control"]
    assert main(["audit", "--resume", str(journal), "--json"]) == 1     # --delta comes back from the journal
    resumed = json.loads(capsys.readouterr().out)
    for key in ("delta", "epsilon_lower_bound", "witness", "samples_per_input", "detectable_epsilon_max"):
        assert resumed[key] == first[key], key


@pytest.mark.parametrize("value, words", [
    ("1", "--delta 1: δ must be in [0, 1)"),
    ("1.5", "--delta 1.5: δ must be in [0, 1)"),
    ("-0.01", "--delta -0.01: δ must be in [0, 1)"),
    ("delta", "--delta"),
])
def test_cli_bad_delta_is_one_line(capsys, value, words):
    assert main([*CLI, f"--delta={value}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ldpaudit: error: ") and words in err[0], err


def test_cli_delta_with_spec_is_one_line(capsys):
    assert main(["audit", "ldpaudit.mechanism.randomizers:krr", "--target-arg", "d=4", "--target-arg", "epsilon=1",
                 "--batch", "--no-isolate", "--spec", "krr", "-p", "d=4", "-p", "epsilon=1", "--delta", "1e-5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--delta 1e-5 with --spec krr" in err[0] and "drop --spec" in err[0]


# -- false alarms (slow) ----------------------------------------------------------------------

FA_ALPHA = 0.05
FA_SEEDS = 200
FA_CASES = [
    ("Gaussian (1, 1e-5)", D.gaussian_correct, 1e-5, 100_000),
    ("Gaussian (1, 1e-2)", D.gaussian(D.analytic_sigma(1.0, 1e-2)), 1e-2, 100_000),
    ("Laplace ε = 1", D.laplace_correct, 1e-5, 100_000),
]


@pytest.mark.slow
@pytest.mark.parametrize("name, f, delta, n", FA_CASES, ids=[c[0] for c in FA_CASES])
def test_false_alarms_at_most_alpha(name, f, delta, n):
    """200 seeded audits of a correct randomizer at α = 0.05: under a true rate of α the number
    of VIOLATIONs is Binomial(200, 0.05), mean 10; more than 19 (P < 0.005 at rate α) fails."""
    flagged, ratios = [], []
    for seed in range(FA_SEEDS):
        r = _audit(f, delta, seed=5000 + seed, samples=n, alpha=FA_ALPHA)
        ratios.append(r.epsilon_lower_bound)
        if r.verdict == "VIOLATION":
            flagged.append((seed, r.epsilon_lower_bound))
    limit = int(stats.binom.isf(0.005, FA_SEEDS, FA_ALPHA))
    assert limit == 19
    print(f"{name}: {len(flagged)}/{FA_SEEDS} flagged at α = {FA_ALPHA}; mean ε_lb {np.mean(ratios):.3f}, "
          f"max {np.max(ratios):.3f}")
    assert len(flagged) <= limit, flagged
    assert np.mean(ratios) > 0.2      # not trivially weak
