"""The auditor's blind spots (issue 12): rare outputs, pooled events, float-level leaks,
user projections. Every audit fixes its seed and states α and the samples per input; each
planted leak must be flagged and its correct twin left alone. The many-seed runs are slow.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import cli_inprocess

import blindspot_randomizers as B
from ldpaudit.audit import audit
from ldpaudit.audit import bounds
from ldpaudit.audit.rare import could_certify

ALPHA = 0.05
N_RARE = 2_000_000


# -- rare outputs -------------------------------------------------------------------------

def test_could_certify_is_the_bound_of_scaled_counts():
    """Exploration 100 of 5·10^5 under x and 20 under x', confirmation 1.5·10^6: the score is
    the Clopper-Pearson bound of 300 vs 60 hits."""
    got = could_certify(100, 500_000, 20, 500_000, 1_500_000, 0.01)
    want = math.log(bounds.cp_lower(300, 1_500_000, 0.01) / bounds.cp_upper(60, 1_500_000, 0.01))
    assert got == pytest.approx(want, rel=1e-9)
    # x' pooled over 3 inputs: 60 hits in 1.5·10^6 trials become 180 in 4.5·10^6.
    pooled = could_certify(100, 500_000, 60, 1_500_000, 1_500_000, 0.01, 4_500_000)
    assert pooled == pytest.approx(math.log(bounds.cp_lower(300, 1_500_000, 0.01)
                                            / bounds.cp_upper(180, 4_500_000, 0.01)), rel=1e-9)
    assert pooled > got


RARE_LEAKS = [
    ("k-RR + error 2e-4 vs 4e-5", B.krr_rare_error(), math.log(5)),
    ("k-RR + error only under x=0", B.krr_rare_error(p_bad=1e-4, p_good=0.0), math.inf),
    ("OUE + marker 2e-4 vs 4e-5", B.oue_rare_marker(), math.log(5)),
]
RARE_TWINS = [
    ("k-RR + error 1e-4 everywhere", B.krr_rare_error(p_bad=1e-4, p_good=1e-4)),
    ("OUE + marker 1e-4 everywhere", B.oue_rare_marker(p_bad=1e-4, p_good=1e-4)),
]


@pytest.mark.parametrize("name, f, true_eps", RARE_LEAKS[:2], ids=[c[0] for c in RARE_LEAKS[:2]])
def test_rare_output_leak_is_flagged(name, f, true_eps):
    """d = 4, ε = 1, 2·10^6 draws per input, α = 0.05: the error output alone certifies ε > 1."""
    r = audit(f, domain=range(4), epsilon=1, samples=N_RARE, alpha=ALPHA, seed=0, batch=True)
    assert r.verdict == "VIOLATION", r
    assert 1 < r.epsilon_lower_bound <= true_eps
    assert r.witness["event"] == "y in {-1}" and r.witness["pair"][0] == 0
    assert r.witness["family"] == "rare"


def test_rare_output_twin_is_not_flagged():
    name, f = RARE_TWINS[0]
    r = audit(f, domain=range(4), epsilon=1, samples=N_RARE, alpha=ALPHA, seed=0, batch=True)
    assert r.verdict == "NO_EVIDENCE", r
    assert r.epsilon_lower_bound > 0.95      # the k-RR part is still measured near its tight ε


@pytest.mark.slow
@pytest.mark.parametrize("name, f, true_eps", RARE_LEAKS, ids=[c[0] for c in RARE_LEAKS])
def test_rare_output_leak_power_over_seeds(name, f, true_eps):
    """20 seeds at 2·10^6 draws per input, α = 0.05: flagged at least 19 times."""
    flagged = sum(audit(f, domain=range(4), epsilon=1, samples=N_RARE, alpha=ALPHA, seed=100 + s,
                        batch=True).verdict == "VIOLATION" for s in range(20))
    assert flagged >= 19


@pytest.mark.slow
@pytest.mark.parametrize("name, f", RARE_TWINS, ids=[c[0] for c in RARE_TWINS])
def test_rare_output_twin_false_alarms_over_seeds(name, f):
    """20 seeds of the correct twin at α = 0.05: at most 3 VIOLATIONs (P = 0.016 of more
    under a false-alarm rate of exactly α)."""
    flagged = sum(audit(f, domain=range(4), epsilon=1, samples=N_RARE, alpha=ALPHA, seed=200 + s,
                        batch=True).verdict == "VIOLATION" for s in range(20))
    assert flagged <= 3


# -- pooled events ------------------------------------------------------------------------

def _poisson_binomial_pmf(ps):
    pmf = np.array([1.0])
    for p in ps:
        pmf = np.convolve(pmf, [1 - p, p])
    return pmf


@pytest.mark.parametrize("ps", [
    [0.02] * 10 + [0.3] * 10 + [0.9] * 10,
    list(np.linspace(0.0, 0.2, 40)),
    [0.5] * 5 + [0.0] * 20,
])
def test_clopper_pearson_covers_the_mean_of_unequal_bernoullis(ps):
    """The pooled certificate's premise (pool.py, Hoeffding 1956): one-sided CP bounds on a sum
    of independent Bernoulli(p_i) fail to cover the mean p̄ with probability at most α'.
    Checked exactly on the Poisson-binomial law."""
    n, mean = len(ps), float(np.mean(ps))
    pmf = _poisson_binomial_pmf(ps)
    s = np.arange(n + 1)
    for alpha in (0.2, 0.05, 0.001):
        upper_fails = pmf[bounds.cp_upper(s, n, alpha) < mean].sum()
        lower_fails = pmf[bounds.cp_lower(s, n, alpha) > mean].sum()
        assert upper_fails <= alpha + 1e-12 and lower_fails <= alpha + 1e-12


def test_pooled_relation_event_lifts_krr_with_many_inputs():
    """k-RR d = 200, ε = 1, 2·10^4 draws per input, α = 0.005: the pooled event y == x uses
    every draw and certifies >= 0.9 ε (one pair alone has too few draws)."""
    from ldpaudit.mechanism import randomizers as R

    r = audit(R.krr(d=200, epsilon=1), domain=range(200), epsilon=1, samples=20_000, alpha=0.005,
              seed=3, batch=True)
    assert r.verdict == "NO_EVIDENCE"
    assert 0.9 <= r.epsilon_lower_bound <= 1.0, r
    assert r.witness["family"] == "pooled" and "y == x" in r.witness["event"]
    n_x, n_y = r.witness["samples"]            # pooled: 200 inputs' confirmation draws a side
    assert n_x == n_y and n_x >= 200 * r.samples_per_input // 2


def test_pooled_relation_event_on_unary_vectors():
    """OUE d = 30, ε = 1, 2·10^4 draws per input: the pooled cell {y[x] = 1, y[x'] = 0} has
    ratio exactly e^ε; the faulty k-RAPPOR at ε/2 flips (2ε-LDP) is flagged. (ε_lb 0.975-0.986
    and 1.976-1.983 over seeds 4-6; at 4·10^4 draws, 0.984-0.986 and 1.93-1.99.)"""
    from ldpaudit.mechanism import randomizers as R

    ok = audit(R.oue(d=30, epsilon=1), domain=range(30), epsilon=1, samples=20_000, alpha=0.005, seed=4, batch=True)
    assert ok.verdict == "NO_EVIDENCE" and ok.epsilon_lower_bound >= 0.9, ok
    bad = audit(R.krappor(d=30, epsilon=2), domain=range(30), epsilon=1, samples=20_000, alpha=0.005, seed=4,
                batch=True)
    assert bad.verdict == "VIOLATION" and bad.epsilon_lower_bound > 1.5, bad


@pytest.mark.slow
def test_pooled_krr_d1000():
    """The issue's case: k-RR d = 1000, ε = 1, 10^5 draws per input: ε_lb/ε >= 0.9 (the time is
    measured by benchmarks/bench_blindspots.py)."""
    from ldpaudit.mechanism import randomizers as R

    r = audit(R.krr(d=1000, epsilon=1), domain=range(1000), epsilon=1, samples=100_000, alpha=0.005,
              seed=0, batch=True)
    assert r.verdict == "NO_EVIDENCE" and r.epsilon_lower_bound >= 0.9


def _unary_spec(kind, d, eps):
    from fractions import Fraction

    from ldpaudit.mechanism import catalog as C

    return (C.k_rappor if kind == "sue" else C.oue)(d=d, epsilon=str(Fraction(eps)))


UE_CASES = [(kind, eps) for kind in ("sue", "oue") for eps in (0.25, 1, 4)]


@pytest.mark.parametrize("kind, eps", UE_CASES, ids=[f"{k}-eps{e}" for k, e in UE_CASES])
def test_unary_true_bit_bug_fails_conformance_at_3000_draws(kind, eps):
    """pure-LDP 1.1.2-style unary encoding, d = 25, 3,000 draws per input, α = 0.05: the pooled
    test of y[x] = 1 over all inputs rejects the spec; the correct randomizer passes."""
    from ldpaudit.mechanism import randomizers as R

    spec = _unary_spec(kind, 25, eps)
    bad = audit(B.unary_true_bit_bug(d=25, epsilon=eps, kind=kind), domain=range(25), epsilon=eps,
                samples=3000, alpha=ALPHA, seed=0, batch=True, spec=spec)
    assert not bad.conformance["passed"]
    assert bad.conformance["discrepancy"]["event"] == "y[x] = 1 under every x (pooled)"
    p, q = B.unary_probabilities(kind, eps)
    assert bad.conformance["discrepancy"]["expected_probability"] == pytest.approx(p)
    ref = (R.krappor if kind == "sue" else R.oue)(d=25, epsilon=eps)
    good = audit(ref, domain=range(25), epsilon=eps, samples=3000, alpha=ALPHA, seed=0, batch=True, spec=spec)
    assert good.conformance["passed"] and good.verdict == "NO_EVIDENCE"


@pytest.mark.slow
@pytest.mark.parametrize("kind, eps", UE_CASES, ids=[f"{k}-eps{e}" for k, e in UE_CASES])
def test_unary_conformance_power_and_false_alarms_over_seeds(kind, eps):
    """20 seeds at 3,000 draws per input, α = 0.05: the bug is rejected at least 19 times; the
    correct randomizer fails conformance or is flagged at most 3 times (P = 0.016 of more at
    rate α)."""
    from ldpaudit.mechanism import randomizers as R

    spec = _unary_spec(kind, 25, eps)
    ref = (R.krappor if kind == "sue" else R.oue)(d=25, epsilon=eps)
    bug = B.unary_true_bit_bug(d=25, epsilon=eps, kind=kind)
    caught = alarms = 0
    for s in range(20):
        r = audit(bug, domain=range(25), epsilon=eps, samples=3000, alpha=ALPHA, seed=300 + s, batch=True, spec=spec)
        caught += not r.conformance["passed"]
        g = audit(ref, domain=range(25), epsilon=eps, samples=3000, alpha=ALPHA, seed=300 + s, batch=True, spec=spec)
        alarms += (not g.conformance["passed"]) or g.verdict == "VIOLATION"
    assert caught >= 19 and alarms <= 3


# -- float-level leaks ------------------------------------------------------------------------

FLOAT_LEAKS = [
    ("naive Laplace", B.naive_float_laplace(epsilon=1), [0.0, 1.0]),
    ("naive unary Laplace d=4", B.naive_float_unary_laplace(d=4, epsilon=1), list(range(4))),
]
FLOAT_SAFE = [
    ("integer Laplace", B.integer_laplace(epsilon=1), [0.0, 1.0]),
    ("snapping Laplace", B.snapping_laplace(epsilon=1), [0.0, 1.0]),
    ("discrete Laplace", B.discrete_laplace(epsilon=1), [0, 1]),
]


def test_roundtrip_event_is_impossible_under_the_offset_input():
    """The arithmetic behind the float event, checked directly: outputs 1 + L of x' = 1 always
    round-trip through y - 1, outputs L of x = 0 often do not."""
    rng = np.random.default_rng(0)
    noise = rng.laplace(scale=1.0, size=10**6)
    y1 = 1.0 + noise
    assert np.count_nonzero((y1 - 1.0) + 1.0 != y1) == 0
    y0 = 0.0 + noise
    assert np.count_nonzero((y0 - 1.0) + 1.0 != y0) > 10**5


@pytest.mark.parametrize("name, f, domain", FLOAT_LEAKS, ids=[c[0] for c in FLOAT_LEAKS])
def test_naive_float_laplace_is_flagged(name, f, domain):
    """ε = 1, 10^5 draws per input, α = 0.05: the round-trip event certifies ε >> 1, and the
    witness shows two outputs a person can recompute."""
    r = audit(f, domain=domain, epsilon=1, samples=100_000, alpha=ALPHA, seed=0, batch=True)
    assert r.verdict == "VIOLATION" and r.epsilon_lower_bound > 5, r
    w = r.witness
    assert w["family"] == "float" and "float64" in w["event"] and w["counts"][1] == 0
    x, xp = w["pair"]
    assert f"under x = {x!r}" in w["example"] and f"under x' = {xp!r}" in w["example"]


@pytest.mark.parametrize("name, f, domain", FLOAT_SAFE, ids=[c[0] for c in FLOAT_SAFE])
def test_float_safe_laplace_is_not_flagged(name, f, domain):
    r = audit(f, domain=domain, epsilon=1, samples=100_000, alpha=ALPHA, seed=0, batch=True)
    assert r.verdict == "NO_EVIDENCE" and r.epsilon_lower_bound > 0.8, r


def test_reference_laplace_samplers_are_float_safe():
    """The bundled Laplace samplers round to a grid 2^20 times finer than their scale, so the
    doubles add nothing."""
    from ldpaudit.mechanism import randomizers as R

    for f in (R.laplace_mean(M=1, epsilon=1), R.joseph_uvrr2(epsilon=1, mu1=0, r=1)):
        r = audit(f, domain=[-1.0, 1.0], epsilon=1, samples=100_000, alpha=ALPHA, seed=0, batch=True)
        assert r.verdict == "NO_EVIDENCE" and r.epsilon_lower_bound > 0.8, r


@pytest.mark.slow
@pytest.mark.parametrize("name, f, domain", FLOAT_SAFE + [
    ("reference Laplace mean", None, [-1.0, 1.0]), ("reference Laplace histogram", None, list(range(4)))],
    ids=[c[0] for c in FLOAT_SAFE] + ["laplace_mean", "laplace_histogram"])
def test_float_safe_false_alarms_over_seeds(name, f, domain):
    """20 seeds at 10^6 draws per input, α = 0.05: at most 3 VIOLATIONs (P = 0.016 of more at
    rate α)."""
    from ldpaudit.mechanism import randomizers as R

    if f is None:
        f = R.laplace_mean(M=0.5, epsilon=1) if len(domain) == 2 else R.laplace_histogram(K=4, epsilon=1)
        domain = [-0.5, 0.5] if len(domain) == 2 else domain
    flagged = sum(audit(f, domain=domain, epsilon=1, samples=10**6, alpha=ALPHA, seed=400 + s,
                        batch=True).verdict == "VIOLATION" for s in range(20))
    assert flagged <= 3


@pytest.mark.slow
@pytest.mark.parametrize("name, f, domain", FLOAT_LEAKS, ids=[c[0] for c in FLOAT_LEAKS])
def test_naive_float_laplace_power_over_seeds(name, f, domain):
    flagged = sum(audit(f, domain=domain, epsilon=1, samples=10**6, alpha=ALPHA, seed=500 + s,
                        batch=True).verdict == "VIOLATION" for s in range(5))
    assert flagged == 5


# -- projections (--feature) ------------------------------------------------------------------

def test_olh_needs_the_projection():
    """OLH d = 10, ε = 1, 5·10^4 draws per input, α = 0.05: the raw (seed, value) outputs
    certify nothing; projected to the inputs each report supports, the pooled event
    {y[x] = 1, y[x'] = 0} has ratio exactly e^ε and certifies >= 0.85 ε."""
    f = B.olh(d=10, epsilon=1, g=3)
    raw = audit(f, domain=range(10), epsilon=1, samples=50_000, alpha=ALPHA, seed=0, batch=True)
    assert raw.epsilon_lower_bound < 0.2
    r = audit(f, domain=range(10), epsilon=1, samples=50_000, alpha=ALPHA, seed=0, batch=True,
              feature=B.olh_support(d=10, g=3))
    assert r.verdict == "NO_EVIDENCE" and 0.85 <= r.epsilon_lower_bound <= 1.0, r


def test_olh_with_wrong_g_is_flagged_through_the_projection():
    """Perturbation probability computed for g = 2 while hashing into g = 3: true ε = 1.70."""
    true_eps = B.olh_true_epsilon(epsilon=1, g=3, g_perturb=2)
    assert true_eps == pytest.approx(math.log(math.e / (math.e + 1) * 2 / (1 / (math.e + 1))))
    r = audit(B.olh(d=10, epsilon=1, g=3, g_perturb=2), domain=range(10), epsilon=1, samples=50_000,
              alpha=ALPHA, seed=0, batch=True, feature=B.olh_support(d=10, g=3))
    assert r.verdict == "VIOLATION" and 1 < r.epsilon_lower_bound <= true_eps, r


def test_feature_errors_name_the_feature():
    from ldpaudit.errors import InvalidParameter, RandomizerError

    def broken(outputs):
        raise KeyError("no hash")

    with pytest.raises(RandomizerError, match="feature broken raised KeyError on an output of input 0"):
        audit(B.olh(d=4, epsilon=1), domain=range(4), epsilon=1, samples=1000, batch=True, feature=broken)
    with pytest.raises(InvalidParameter, match="feature=3 is not callable"):
        audit(B.olh(d=4, epsilon=1), domain=range(4), epsilon=1, samples=1000, batch=True, feature=3)


def test_feature_flag_on_the_command_line(tmp_path):
    """``--feature file.py:func`` with a per-call target, isolated (batched internally): the
    per-output feature still sees one output at a time."""
    import json
    import subprocess
    import sys
    import textwrap

    prog = tmp_path / "olh_target.py"
    prog.write_text(textwrap.dedent('''
        import math, random
        G, EPS = 3, 1.0
        def h(seed, v):
            return (seed * 2654435761 + v * 40503) % 1000003 % G
        def olh(x):
            seed = random.getrandbits(62)
            hx = h(seed, x)
            if random.random() < math.exp(EPS) / (math.exp(EPS) + G - 1):
                return (seed, hx)
            other = random.randrange(G - 1)
            return (seed, other + (other >= hx))
        def support(y):
            seed, value = y
            return tuple(int(h(seed, v) == value) for v in range(6))
    '''))
    cmd = [sys.executable, "-m", "ldpaudit.cli", "audit", f"{prog}:olh", "--domain", "0..5", "--epsilon", "1",
           "--samples", "10000", "--alpha", "0.05", "--json", "--feature", f"{prog}:support"]   # ε_lb 0.81
    out = cli_inprocess.run(*cmd[3:])     # in this process (tests/cli_inprocess.py)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["verdict"] == "NO_EVIDENCE" and payload["epsilon_lower_bound"] > 0.6


@pytest.mark.slow
def test_olh_d25_with_feature():
    """The issue's case: OLH d = 25, ε = 1, 10^6 draws per input with the projection: ε_lb/ε >=
    0.9; the wrong-g OLH is flagged."""
    g = 4
    r = audit(B.olh(d=25, epsilon=1, g=g), domain=range(25), epsilon=1, samples=10**6, alpha=0.005, seed=0,
              batch=True, feature=B.olh_support(d=25, g=g))
    assert r.verdict == "NO_EVIDENCE" and r.epsilon_lower_bound >= 0.9
    bad = audit(B.olh(d=25, epsilon=1, g=g, g_perturb=2), domain=range(25), epsilon=1, samples=10**5,
                alpha=0.005, seed=0, batch=True, feature=B.olh_support(d=25, g=g))
    assert bad.verdict == "VIOLATION"
