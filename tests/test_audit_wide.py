"""Wide domains (audit/wide.py): relations pooled over every input carry the bound, the
per-pair search runs on a subsample, memory stays linear in d."""
import base64
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from ldpaudit.audit import audit
from ldpaudit.audit import wide
from ldpaudit.audit.external import decode
from ldpaudit.audit.worker import encode

sys.path.insert(0, str(Path(__file__).parent))
import wide_randomizers as wr  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def oracle_bound(p, q, n, alpha):
    """The bound an auditor that knew the event in advance certifies from n trials a side,
    at the expected counts: ln(CP_lower(p)/CP_upper(q)) at α/2 each."""
    a, b = round(p * n), round(q * n)
    lo = stats.beta.ppf(alpha / 2, a, n - a + 1)
    hi = stats.beta.ppf(1 - alpha / 2, b + 1, n - b)
    return math.log(lo / hi)


def test_krr_over_5000_inputs_is_audited_wide_near_the_statistical_limit():
    d, n, eps = 5000, 2000, 1.0
    r = audit(wr.krr(d, eps), domain=range(d), epsilon=eps, samples=n, batch=True, alpha=0.01, seed=3)
    assert r.verdict == "NO_EVIDENCE"
    assert "wide domain (5000 inputs" in r.method
    assert r.witness["event"].startswith("S_x = {y == x}") and r.witness["samples"] == [d * n, d * n]
    p = math.exp(eps) / (math.exp(eps) + d - 1)
    limit = oracle_bound(p, p / math.exp(eps), d * n, 0.01)
    assert 0.85 * limit < r.epsilon_lower_bound <= eps          # ε_lb/ε: 0.9 here, the limit 0.93
    assert r.outputs["shape"] == "scalar"


def test_a_wide_krr_at_a_larger_epsilon_than_claimed_is_a_violation():
    d = 5000
    r = audit(wr.krr(d, 1.6), domain=range(d), epsilon=1.0, samples=2000, batch=True, alpha=0.01, seed=4)
    assert r.verdict == "VIOLATION" and r.epsilon_lower_bound > 1.3
    assert r.witness["family"] == "pooled"
    # the witness recomputed from its counts: CP bounds at α/(2k) give the reported bound
    a, b = r.witness["counts"]
    na, nb = r.witness["samples"]
    assert r.witness["p_lower"] < a / na and r.witness["q_upper"] > b / nb
    assert math.isclose(r.epsilon_lower_bound, math.log(r.witness["p_lower"] / r.witness["q_upper"]))


def test_a_flaw_of_one_input_is_found_by_the_subsample_search():
    d = 5000
    r = audit(wr.krr_leaky_zero(d, 1.0), domain=range(d), epsilon=1.0, samples=2000, batch=True, alpha=0.01,
              seed=5)
    assert r.verdict == "VIOLATION"
    assert 0 in r.witness["pair"] and r.witness["family"] != "pooled"


@pytest.mark.parametrize("keep, verdict", [(0.5, "NO_EVIDENCE"), (0.8, "VIOLATION")])
def test_bit_vectors_under_a_small_budget_pool_the_tight_relation(keep, verdict):
    # d = 200 bits under 16 MiB: the per-pair search would not fit (ε_lb 0.97 and 2.36 here; 0.99
    # and 2.37 at d = 400, 2000 draws and 64 MiB, with 8 times the draws of d-bit rows)
    d, eps = 200, 1.0
    r = audit(wr.oue(d, eps, keep), domain=range(d), epsilon=eps, samples=1000, batch=True, alpha=0.01,
              seed=6, memory_mb=16)
    assert "wide domain (200 inputs" in r.method and r.outputs["shape"] == "vector"
    assert r.verdict == verdict
    # OUE's tight event: P(y[x]=1, y[x']=0 | x) / P(same | x') = e^ε exactly
    assert r.witness["event"].startswith("S_x = {y[x] = 1 and y[x'] != 1}")
    if verdict == "NO_EVIDENCE":
        assert 0.8 < r.epsilon_lower_bound <= eps
    else:   # keep = 0.8: the ratio is 0.8·e^ε/(e^ε + 1) / (0.2/(e^ε + 1)) = 4e^ε
        assert r.epsilon_lower_bound > 1.9


def test_the_same_budget_keeps_small_domains_on_the_per_pair_search():
    r = audit(wr.krr(50, 1.0), domain=range(50), epsilon=1.0, samples=2000, batch=True, alpha=0.01, seed=7)
    assert "wide domain" not in r.method


def test_packed_bit_matrices_travel_exactly():
    rng = np.random.default_rng(0)
    for dt, width in ((np.uint8, 2001), (np.bool_, 9), (np.uint8, 8)):
        a = (rng.random((37, width)) < 0.3).astype(dt)
        e = encode(a)
        assert "bits" in e and len(base64.b64decode(e["bits"])) == 37 * ((width + 7) // 8)
        b = decode(e)
        assert b.dtype == a.dtype and np.array_equal(a, b)
    wide_values = np.arange(20, dtype=np.uint8).reshape(2, 10)          # not 0/1: raw bytes
    assert "data" in encode(wide_values) and np.array_equal(decode(encode(wide_values)), wide_values)


def test_relations_follow_the_output_shape():
    ring = wide.Ring(list(range(10)))
    assert ring.values is None and ring.pred(0) == 9 and ring.succ(9) == 0
    named = dict(wide.relations(wide.Shape("vector", 10, {0: 90, 1: 10}), ring))
    assert set(named) == {"y[x] = 0", "y[x] = 0 and y[x'] != 0", "y[x] = 1", "y[x] = 1 and y[x'] != 1"}
    ev = named["y[x] = 1 and y[x'] != 1"]
    from ldpaudit.audit.adapters import Outputs
    y = np.zeros((4, 10), np.uint8)
    y[:3, 2] = 1
    y[0, 3] = 1                     # next(2) = 3 is also set in the first row: not in S_2
    out = Outputs("array", y, None, 4)
    assert ev.hits(out, 2, 0) == 2 and ev.hits(out, 3, 1) == 2 and ev.hits(out, 3, 0) == 1
    assert dict(wide.relations(wide.Shape("vector", 7, {0: 1, 1: 1}), ring)) == {}   # columns ≠ inputs


def test_the_cli_reports_its_peak_memory_within_the_budget(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ldpaudit", "audit", "wide_randomizers:krr", "--no-isolate",
                           "--target-arg", "d=5000", "--target-arg", "eps=1", "--batch", "--domain", "0..4999",
                           "--epsilon", "1", "--samples", "400", "--json", "--memory-mb", "1024"],
                          capture_output=True, text=True, cwd=Path(__file__).parent, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    mem = out["memory"]
    assert mem["budget_mb"] == 1024 and 0 < mem["peak_mb"] < 1024 and mem["within_budget"] is True
    assert out["witness"]["event"].startswith("S_x = {y == x}")


def test_d_10000_audit_completes_under_a_3_gb_address_space_limit():
    """The issue's memory test: the d = 10^4 k-RR audit (10^4 draws per input, 10^8 draws) under
    ulimit -v 3 GB (RLIMIT_AS in the child), with ε_lb/ε >= 0.9."""
    code = ("import resource, sys, json; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30)); "
            f"sys.path.insert(0, {str(Path(__file__).parent)!r}); import wide_randomizers as wr; "
            "from ldpaudit.audit import audit; "
            "r = audit(wr.krr(10000, 1.0), domain=range(10000), epsilon=1.0, samples=10000, batch=True, "
            "alpha=0.01, seed=1); print(json.dumps([r.verdict, r.epsilon_lower_bound]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    verdict, lb = json.loads(proc.stdout)
    assert verdict == "NO_EVIDENCE" and 0.9 <= lb <= 1.0


@pytest.mark.slow
def test_wide_false_alarm_rate_is_at_most_alpha():
    """100 seeded audits of a correct k-RR over 5000 inputs at α = 0.1: flagged at most 17 times
    (the 0.99 quantile of Bin(100, 0.1) is 18)."""
    flagged = sum(audit(wr.krr(5000, 1.0), domain=range(5000), epsilon=1.0, samples=200, batch=True,
                        alpha=0.1, seed=s).verdict == "VIOLATION" for s in range(100))
    assert flagged <= 17


# -- local hashing over a wide domain (guided_wide.hashed_wide_audit) ------------------------------

PROGRAMS = Path(__file__).parent / "programs"


def _olh_family(**params):
    from ldpaudit.mechanism.loader import load_family

    return load_family(ROOT / "specs" / "olh.toml").bind(params)


def test_hash_rates_are_free_of_the_domain_size():
    from ldpaudit.audit.guided import hash_rates

    p, q, k = hash_rates(_olh_family(g=4, epsilon=1))          # d left free: C = 4^d cancels
    e = math.e
    assert k == 4 and p == pytest.approx(e / (e + 3), rel=1e-15) and q == pytest.approx(1 / (e + 3), rel=1e-15)
    with pytest.raises(Exception, match="depend on g"):
        hash_rates(_olh_family(epsilon=1))


@pytest.mark.parametrize("target, verdict", [("olh_ok", "NO_EVIDENCE"), ("olh_binary_p", "VIOLATION")])
def test_spec_guided_local_hashing_over_a_wide_domain(target, verdict):
    sys.path.insert(0, str(PROGRAMS))
    import olh_hashing as H
    from ldpaudit.audit.projection import hash_support

    d = 1000
    r = audit(getattr(H, target), domain=range(d), epsilon=1, samples=100, alpha=0.01, seed=2, batch=True,
              spec=_olh_family(g=4, epsilon=1), feature=hash_support(H.hash4, range(d)))
    assert r.verdict == verdict and "wide domain (1000 inputs" in r.method
    assert r.witness["event"].startswith("S_x = {value == h(seed, x) and value != h(seed, x')}")
    e = math.e
    assert r.witness["p_spec"] == pytest.approx(0.75 * e / (e + 3)) and r.witness["q_spec"] == pytest.approx(0.75 / (e + 3))
    if verdict == "NO_EVIDENCE":
        assert r.conformance["passed"] and 0.9 <= r.epsilon_lower_bound <= 1.0
    else:   # hit probability e/(e+1) while hashing into 4 values: the ratio is 3e, and conformance fails
        assert not r.conformance["passed"] and r.epsilon_lower_bound > 1.9


@pytest.mark.slow   # 3.3·10^6 draws through the CLI (8 s); the Python API path above runs by default
def test_cli_hash_audit_at_a_domain_too_large_to_bind_exactly():
    """d = 33,000: C = 4^d has 66,000 bits, beyond the exact-size limit; the audit binds every
    parameter but d, reads --domain from it, and counts only the pooled event."""
    proc = subprocess.run([sys.executable, "-m", "ldpaudit", "audit", "olh_hashing.py:olh_ok", "--batch", "--spec",
                           str(ROOT / "specs" / "olh.toml"), "-p", "d=33000", "-p", "g=4", "-p", "epsilon=1",
                           "--samples", "100", "--hash", "olh_hashing.py:hash4", "--json", "--no-isolate"],
                          capture_output=True, text=True, cwd=PROGRAMS, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["verdict"] == "NO_EVIDENCE" and out["conformance"]["passed"] and out["epsilon_lower_bound"] > 0.9
    assert out["witness"]["samples"] == [3_300_000, 3_300_000] and out["memory"]["peak_mb"] < 1024


def test_wide_audits_stop_early_and_do_not_depend_on_workers():
    from ldpaudit.audit.sequential import sequential_audit

    r, rounds = sequential_audit(wr.krr(5000, 1.6), domain=range(5000), epsilon=1.0, budget=4000, batch=True,
                                 alpha=0.01, seed=2)
    assert r.verdict == "VIOLATION" and len(rounds) == 1 and r.samples_per_input < 4000   # stopped at the first look
    kw = dict(domain=range(5000), epsilon=1.0, samples=1000, batch=True, alpha=0.01, seed=2)
    one, two = audit(wr.krr(5000, 1.0), **kw), audit(wr.krr(5000, 1.0), workers=2, **kw)
    assert (one.epsilon_lower_bound, one.witness["counts"]) == (two.epsilon_lower_bound, two.witness["counts"])


def test_a_spec_guided_audit_over_a_wide_domain_runs_the_wide_black_box_audit_and_says_so():
    from ldpaudit.mechanism.loader import load_bound

    d = 5000
    spec = load_bound(ROOT / "specs" / "krr.toml", [f"d={d}", "epsilon=1"])
    r = audit(wr.krr(d, 1.6), domain=range(d), epsilon=1.0, samples=2000, batch=True, alpha=0.01, seed=1, spec=spec)
    assert r.verdict == "VIOLATION" and r.witness["family"] == "pooled" and r.conformance is None
    assert r.method.startswith(f"spec-guided audits over more than {wide.GUIDED_INPUTS} inputs run as wide black-box")


def test_spec_guided_audits_pool_y_equals_x_with_the_specs_exact_probabilities():
    """k-RR over 100 inputs with its spec: no pair event certifies much at 2000 draws per input
    (ε_lb was 0 at 200 inputs), the pooled relation with p̄, q̄ from the spec does, and
    conformance still runs."""
    from ldpaudit.mechanism.loader import load_bound

    d = 100
    spec = load_bound(ROOT / "specs" / "krr.toml", [f"d={d}", "epsilon=1"])
    ok = audit(wr.krr(d, 1.0), domain=range(d), epsilon=1.0, samples=2000, batch=True, alpha=0.01, seed=1, spec=spec)
    # the oracle limit at 2·10^5 trials a side is 0.91; the per-pair events alone certify about 0.6
    assert ok.verdict == "NO_EVIDENCE" and ok.conformance["passed"] and ok.epsilon_lower_bound > 0.8
    e = math.e
    assert ok.witness["p_spec"] == pytest.approx(e / (e + d - 1)) and ok.witness["q_spec"] == pytest.approx(1 / (e + d - 1))
    bad = audit(wr.krr(d, 1.3), domain=range(d), epsilon=1.0, samples=2000, batch=True, alpha=0.01, seed=1, spec=spec)
    assert bad.verdict == "VIOLATION" and not bad.conformance["passed"] and bad.witness["family"] == "pooled"


@pytest.mark.parametrize("keep, verdict", [(0.5, "NO_EVIDENCE"), (0.8, "VIOLATION")])
def test_spec_guided_unary_encoding_over_a_wide_domain_uses_the_specs_exact_pooled_event(keep, verdict):
    from ldpaudit.mechanism.loader import load_bound

    d = 300     # more than wide.GUIDED_INPUTS (ε_lb 0.98 and 2.36, as at d = 1000 with 11 times the bits drawn)
    assert d > wide.GUIDED_INPUTS
    spec = load_bound(ROOT / "specs" / "oue.toml", [f"d={d}", "epsilon=1"])
    r = audit(wr.oue(d, 1.0, keep), domain=range(d), epsilon=1.0, samples=300, batch=True, alpha=0.01, seed=1,
              spec=spec)
    e = math.e
    assert r.verdict == verdict and r.method.startswith("spec-guided, wide domain (300 inputs")
    assert r.witness["p_spec"] == pytest.approx(0.5 * e / (e + 1)) and r.witness["q_spec"] == pytest.approx(0.5 / (e + 1))
    assert r.conformance["passed"] is (verdict == "NO_EVIDENCE")
    if verdict == "NO_EVIDENCE":
        assert 0.9 < r.epsilon_lower_bound <= 1.0
    with pytest.raises(Exception, match="give --domain 0..299"):
        audit(wr.oue(d, 1.0), domain=range(1, d + 1), epsilon=1.0, samples=300, batch=True, spec=spec)


@pytest.mark.parametrize("value", ["0", "-3", "2GB"])
def test_a_bad_memory_budget_is_one_line_exit_2(value):
    proc = subprocess.run([sys.executable, "-m", "ldpaudit", "audit", "wide_randomizers:krr", "--no-isolate",
                           "--target-arg", "d=10", "--target-arg", "eps=1", "--batch", "--domain", "0..9",
                           "--epsilon", "1", "--memory-mb", value], capture_output=True, text=True,
                          cwd=Path(__file__).parent, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and f"--memory-mb {value!r}" in proc.stderr
    with pytest.raises(Exception, match="memory_mb=0 must be a positive number of MiB"):
        audit(wr.krr(10, 1.0), domain=range(10), epsilon=1.0, samples=200, batch=True, memory_mb=0)


@pytest.mark.slow   # 10^8 draws over 10^6 inputs: about 50 s
def test_d_1000000_black_box_audit_completes_under_a_640_mb_address_space_limit():
    """Black-box k-RR over 10^6 inputs, 100 draws per input, under ulimit -v 640 MB (RLIMIT_AS
    in the child): the per-input bookkeeping (positions, chunk numbers, confirmation jobs) is
    arithmetic or generated as drawn, not dicts and lists of 10^6 tuples. Measured: peak
    address space 389 MB (resident 175 MB); 859 MB (resident 640 MB) before."""
    code = ("import resource, sys, json; resource.setrlimit(resource.RLIMIT_AS, (640 << 20, 640 << 20)); "
            f"sys.path[:0] = [{str(ROOT)!r}, {str(Path(__file__).parent)!r}]; import wide_randomizers as wr; "
            "from ldpaudit.audit import audit; "
            "r = audit(wr.krr(10**6, 1.0), domain=range(10**6), epsilon=1.0, samples=100, batch=True, "
            "alpha=0.01, seed=1); print(json.dumps([r.verdict, r.epsilon_lower_bound, r.witness['samples']]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=1200, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    verdict, lb, samples = json.loads(proc.stdout)
    p = math.e / (math.e + 10**6 - 1)
    assert verdict == "NO_EVIDENCE" and samples == [10**8, 10**8]
    assert 0.8 * oracle_bound(p, p / math.e, 10**8, 0.01) < lb <= 1.0     # the limit is 0.59 at 10^8 trials
