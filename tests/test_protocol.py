"""Protocols: privacy composition, bad input, exact count laws against per-user sampling, the
aggregators on exact frequencies, seeded simulation, and auditing a real-input KVRR2."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import cli_inprocess
import sympy as sp

from ldpaudit.errors import InvalidParameter, InvalidSpec
from ldpaudit.protocol import Custom, Gaussian, Protocol, Randomizer, Round, privacy_report, run, simulate, summarize
from ldpaudit.protocol import joseph
from ldpaudit.protocol.aggregate import debias_rr, inverse_normal_estimate, median_search
from ldpaudit.mechanism import load_spec

ROOT = Path(__file__).resolve().parents[1]


def _krr_sampler(x, rng, *, epsilon, d):
    t = np.exp(epsilon)
    keep = rng.random(x.shape) < t / (t + d - 1)
    other = rng.integers(0, d - 1, size=x.shape)
    other = other + (other >= x)
    return np.where(keep, x, other)


KRR = Randomizer("k-RR", _krr_sampler, spec=ROOT / "specs" / "krr.toml", outputs=(0, 1, 2, 3))
BIND = {"epsilon": lambda epsilon: epsilon, "d": 4}


def _freq(stat, ctx):
    return {"f": debias_rr(stat[:, 0, :], ctx.constants["epsilon"])[:, 0]}


def _freq2(stat, ctx):
    return {"g": debias_rr(stat[:, 0, :], ctx.constants["epsilon"])[:, 0]}


def test_user_answering_twice_is_reported_at_two_epsilon():
    twice = Protocol("twice", (
        Round("a", KRR, _freq, produces=("f",), share="1/2", bind=BIND),
        Round("b", KRR, _freq2, produces=("g",), share="1/2", users_from="a", bind=BIND),
    ), output="g")
    report = privacy_report(twice)
    eps = sp.Symbol("epsilon", positive=True)
    assert report.status == "PROVED"
    assert sp.simplify(report.epsilon - 2 * eps) == 0
    assert report.witness == ("a", "b") and report.sequential is False
    assert [r.status for r in report.rounds] == ["PROVED", "PROVED"]
    assert "basic composition" in report.summary()


def test_one_message_per_user_is_reported_at_epsilon():
    once = Protocol("once", (
        Round("a", KRR, _freq, produces=("f",), share="1/2", bind=BIND),
        Round("b", KRR, _freq2, produces=("g",), share="1/2", bind=BIND),
    ), output="g")
    report = privacy_report(once)
    assert report.status == "PROVED" and report.sequential
    assert sp.simplify(report.epsilon - sp.Symbol("epsilon", positive=True)) == 0
    assert once.interaction_rounds == 1


def test_reused_users_see_the_same_inputs():
    """users_from reuses the very inputs: with ε huge both rounds report x exactly."""
    twice = Protocol("twice", (
        Round("a", KRR, lambda s, c: {"f": s[:, 0, 0]}, produces=("f",), share=1, bind=BIND),
        Round("b", KRR, lambda s, c: {"g": s[:, 0, 0]}, produces=("g",), share="1/2", users_from="a", bind=BIND),
    ), output="g")
    pop = Custom(lambda shape, rng: np.tile(np.arange(4), (shape[0], shape[1] // 4 + 1))[:, : shape[1]], 0)
    est = run(twice, {"n": 400, "epsilon": 60.0}, pop, trials=3, seed=0)
    assert (est == 50).all()          # the first 200 users: 50 of each value, reported exactly


@pytest.mark.parametrize("rounds, exc, match", [
    ((Round("r2", KRR, _freq2, produces=("g",), share="1/2", bind={**BIND, "d": lambda mu0: 4}),),
     InvalidSpec, r"round 'r2' binds 'd' from 'mu0', which is neither a protocol constant \(n, epsilon\) nor an estimate of an earlier round \(estimates so far: \(none\)\)"),
    ((Round("a", KRR, _freq, produces=("f",), share="3/2", bind=BIND),),
     InvalidParameter, r"round 'a' share = 3/2 is above 1"),
    ((Round("a", KRR, _freq, produces=("f",), share="3/4", bind=BIND),
      Round("b", KRR, _freq2, produces=("g",), share="1/2", bind=BIND)),
     InvalidParameter, r"round shares sum to 5/4 > 1 \(a: 3/4, b: 1/2\)"),
    ((Round("a", KRR, _freq, produces=("f",), bind=BIND),),
     InvalidParameter, r"round 'a' needs exactly one of share="),
    ((Round("a", KRR, _freq, produces=("f",), share="1/2", bind=BIND),
      Round("b", KRR, _freq2, produces=("g",), share="1/2", users_from="c", bind=BIND)),
     InvalidSpec, r"round 'b' users_from = 'c' is not an earlier round"),
])
def test_bad_protocols(rounds, exc, match):
    out = rounds[-1].produces[0]
    with pytest.raises(exc, match=match) as info:
        Protocol("bad", rounds, output=out)
    assert "\n" not in str(info.value)


def test_public_parameter_left_unbound():
    kvrr2 = Randomizer("KVRR2", joseph.sample_kvrr2, outputs=(-1, 1), public=("mu1", "sigma"))
    first = Round("a", KRR, lambda s, c: {"mu1": s[:, 0, 0]}, produces=("mu1",), share="1/2", bind=BIND)
    with pytest.raises(InvalidParameter, match=r"public parameter 'sigma' of randomizer 'KVRR2' in round 'b' is not bound"):
        Protocol("p", (first, Round("b", kvrr2, _freq2, produces=("g",), share="1/2",
                                    bind={"epsilon": 1, "mu1": lambda mu1: mu1})), output="g")


def test_output_must_be_produced():
    with pytest.raises(InvalidSpec, match=r"output = 'mu_hat' is not produced by any round; estimates: f"):
        Protocol("p", (Round("a", KRR, _freq, produces=("f",), share=1, bind=BIND),), output="mu_hat")


def test_bad_run_arguments():
    proto = joseph.kv_two_round()
    with pytest.raises(InvalidParameter, match=r"needs constants sigma, R"):
        run(proto, {"n": 1000, "epsilon": 1}, Gaussian(0, 1), trials=2)
    with pytest.raises(InvalidParameter, match=r"round 'RR1' has 5 users for 8 subgroups at n=10; increase n"):
        run(proto, {"n": 10, "epsilon": 1, "sigma": 1, "R": 100}, Gaussian(0, 1), trials=2)


# --- exact laws against per-user sampling ----------------------------------------------------------

def _law_vs_users(randomizer, params, sizes, trials=300, seed=3, pop=Gaussian(2.3, 1.0)):
    rng = np.random.default_rng(seed)
    S = len(sizes)
    per_group = {k: np.broadcast_to(np.asarray(v, dtype=float), (trials, S)) for k, v in params.items()}
    law = randomizer.law(pop, sizes, rng, trials, **per_group)
    labels = np.repeat(np.arange(S), sizes)
    x = pop.draw((trials, int(sizes.sum())), rng)
    reports = randomizer.sample(x, rng, **{k: v[:, labels] for k, v in per_group.items()})
    users = np.stack([np.stack([(reports[:, labels == s] == y).sum(axis=1) for y in randomizer.outputs], -1)
                      for s in range(S)], 1)
    diff = law.mean(axis=0) - users.mean(axis=0)
    se = np.sqrt(law.var(axis=0, ddof=1) / trials + users.var(axis=0, ddof=1) / trials) + 1e-9
    return np.abs(diff / se)


def test_rr1_law_matches_per_user_sampling():
    z = _law_vs_users(joseph.RR1, {"epsilon": 1.0, "s": 1.0, "j": np.arange(4)}, np.full(4, 2000))
    assert z.max() < 4.5          # 16 cells, 300 trials each side, seeded


def test_rr1_law_catches_a_shifted_quantization():
    """The same comparison flags a law that quantizes at the wrong offset (a planted fault)."""
    def wrong(population, sizes, rng, trials, **kw):
        return joseph.law_rr1(Gaussian(population.mu + 0.5, population.sigma), sizes, rng, trials, **kw)
    bad = Randomizer("bad", joseph.sample_rr1, outputs=(0, 1, 2, 3), law=wrong)
    assert _law_vs_users(bad, {"epsilon": 1.0, "s": 1.0, "j": np.arange(4)}, np.full(4, 2000)).max() > 10


def test_sign_laws_match_per_user_sampling():
    z = _law_vs_users(joseph.KVRR2, {"epsilon": 0.7, "mu1": 1.9, "sigma": 1.0}, np.array([3000]))
    assert z.max() < 4.5
    z = _law_vs_users(joseph.GRID_SIGN, {"epsilon": 1.0, "g": np.arange(5) / 5, "rho": 3, "sigma": 1.0},
                      np.full(5, 1500))
    assert z.max() < 4.5


def test_law_and_user_simulations_agree_in_error():
    proto = joseph.kv_two_round()
    c = {"n": 20_000, "epsilon": 1.0, "sigma": 1.0, "R": 100.0}
    a = run(proto, c, Gaussian(33.3, 1.0), trials=300, seed=1, method="law") - 33.3
    b = run(proto, c, Gaussian(33.3, 1.0), trials=300, seed=2, method="users") - 33.3
    from scipy.stats import ks_2samp

    assert ks_2samp(np.abs(a), np.abs(b)).pvalue > 0.001


# --- aggregators ------------------------------------------------------------------------------------

@pytest.mark.parametrize("mu", [-87.3, -4.0, 0.0, 0.49, 1.0, 31.999, 32.0, 250.5, 511.0])
def test_median_search_on_exact_frequencies(mu):
    """With exact residue frequencies (no noise) EstMean1 lands within one block width σ of μ,
    at block boundaries too; levels from joseph.kv_levels(R=600, σ=1)."""
    L = joseph.kv_levels(600, 1.0)
    freq = np.array([joseph._block_masses(mu, 1.0, 2.0**j, 0.0, 4) for j in range(L)])
    est = median_search(freq[None], 1.0)[0]
    assert abs(est - mu) <= 1.0


def test_inverse_normal_estimate_is_exact_on_exact_fraction():
    from scipy.special import ndtr

    mu, c, sigma = 3.7, 3.1, 2.0
    assert inverse_normal_estimate(c, ndtr((mu - c) / sigma), sigma, 10**9) == pytest.approx(mu, abs=1e-9)


def test_debias_rr_inverts_the_channel():
    t = math.e
    p, q = t / (t + 3), 1 / (t + 3)
    f = np.array([0.1, 0.2, 0.3, 0.4])
    expected_counts = (q + (p - q) * f) * 1000
    assert np.allclose(debias_rr(expected_counts, 1.0), f)


# --- simulation ------------------------------------------------------------------------------------

def test_simulation_is_seeded():
    proto = joseph.uv_two_round()
    c = {"n": 8000, "epsilon": 1.0, "sigma_min": 0.5, "sigma_max": 4.0, "R": 50.0}
    a = run(proto, c, Gaussian(10.0, 1.0), trials=20, seed=5)
    assert np.array_equal(a, run(proto, c, Gaussian(10.0, 1.0), trials=20, seed=5))
    assert not np.array_equal(a, run(proto, c, Gaussian(10.0, 1.0), trials=20, seed=6))


def test_kv2_error_shrinks_like_one_over_root_n():
    proto = joseph.kv_two_round()
    q = [simulate(proto, constants={"n": n, "epsilon": 1.0, "sigma": 1.0, "R": 1000.0}, mu=333.3, trials=300,
                  seed=9)["quantile"] for n in (10_000, 160_000)]
    assert 2.8 < q[0] / q[1] < 5.7         # 16x the users: 4x less error, up to Monte-Carlo noise


def test_user_supplied_population():
    proto = joseph.kv_two_round()
    pop = Custom(lambda shape, rng: 5.0 + rng.standard_normal(shape), 5.0)
    r = simulate(proto, constants={"n": 20_000, "epsilon": 1.0, "sigma": 1.0, "R": 100.0}, population=pop,
                 trials=30, seed=0, method="users")
    assert r["mu"] == 5.0 and r["quantile"] < 0.3


def test_quantile_interval_covers_the_true_quantile():
    """Order-statistic CI for the 95% quantile of |N(0,1)| (1.95996), 200 seeded replications of
    400 draws: coverage at least 90% (nominal 95%)."""
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(200):
        s = summarize(rng.standard_normal(400), beta=0.05)
        covered += s.quantile_low <= 1.959964 <= s.quantile_high
    assert covered >= 180


def test_simulate_cli_json():
    out = cli_inprocess.run("simulate", "kv2", "--n", "20000", "--n", "40000", "--R", "100", "--trials", "20", "--json",
                            cwd=ROOT)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert [r["constants"]["n"] for r in payload["results"]] == [20000, 40000]
    assert all(0 < r["quantile_low"] <= r["quantile"] <= r["quantile_high"] for r in payload["results"])
    bad = cli_inprocess.run("simulate", "uv1", "--n", "100", cwd=ROOT)
    assert bad.returncode == 2 and "increase n" in bad.stderr and bad.stderr.count("\n") == 1


# --- auditing a real-input KVRR2 ------------------------------------------------------------------

def _kvrr2_impl(mu1=0.3, epsilon=1.0, boost=0.0):
    """Someone else's KVRR2: sign of x - mu1 through binary RR; ``boost`` raises the keep
    probability to e^(ε+boost)/(e^(ε+boost)+1) (a planted fault)."""
    t = math.exp(epsilon + boost)
    keep = t / (t + 1)

    def sample(x, n, rng):
        s = 1 if x >= mu1 else -1
        return np.where(rng.random(n) < keep, s, -s)

    return sample


def test_audit_kvrr2_over_real_inputs():
    from ldpaudit.audit import audit
    from ldpaudit.audit.command import parse_domain

    domain = parse_domain("-2..2:9")
    assert domain == [-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0]
    good = audit(_kvrr2_impl(), domain=domain, epsilon=1.0, samples=100_000, alpha=0.05, seed=0, batch=True)
    assert good.verdict == "NO_EVIDENCE"
    bad = audit(_kvrr2_impl(boost=0.5), domain=domain, epsilon=1.0, samples=100_000, alpha=0.05, seed=0, batch=True)
    assert bad.verdict == "VIOLATION" and bad.epsilon_lower_bound > 1.0
    pair = bad.witness["pair"] if isinstance(bad.witness, dict) else bad.witness.pair
    assert (pair[0] >= 0.3) != (pair[1] >= 0.3)          # the witness straddles the threshold mu1


@pytest.mark.parametrize("text, match", [
    ("-1..1:1", r"the count must be at least 2"),
    ("1..-1:5", r"need finite low < high"),
    ("a..1:5", r"low..high:count needs two numbers"),
    ("0..1:x", r"the count after ':' must be an integer"),
    ("0.5..2", r"for real inputs give a count of evenly spaced points"),
])
def test_real_domain_bad_input(text, match):
    from ldpaudit.audit.command import parse_domain

    with pytest.raises(InvalidParameter, match=match):
        parse_domain(text)
