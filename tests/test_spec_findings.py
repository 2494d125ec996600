"""Spec-guided audits tell the same story as black-box ones (issue 32): a float64 Laplace sampler
audited with --spec reports the float encoding leak and the law apart (findings.py, through the
float pilot of guided_floats.py), with the exit status of the worse; a float-safe or
integer-valued one gets no leak finding; a claim above what the draws can certify is INCONCLUSIVE
with `cannot_test`, in the black-box audit's words. Fixed seeds; α = 0.05; 2,000 to 20,000
draws per input (the whole file: about 7 s of CPU, start-up included)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from ldpaudit import cli
from ldpaudit.audit import audit
from ldpaudit.audit.bounds import detectable_epsilon
from ldpaudit.audit.findings import cannot_test, draws_needed
from ldpaudit.mechanism import catalog
from ldpaudit.mechanism import randomizers as R
from ldpaudit.mechanism.loader import load_bound

sys.path.insert(0, str(Path(__file__).parent))
import blindspot_randomizers as B  # noqa: E402
import wide_randomizers as WR  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ALPHA = 0.05
DOMAIN = [-0.5, 0.5]
SAMPLES = 20_000

SAMPLERS = '''
import numpy as np
def laplace(x, n, rng):         # diffprivlib's way: x + numpy's Laplace, in float64
    return float(x) + rng.laplace(scale=1.0, size=n)
def krr(x, n, rng):             # k-RR over {0, 1} at the epsilon of the environment's claim
    import os
    t = np.exp(float(os.environ["KRR_EPSILON"]))
    return np.where(rng.random(n) < t / (t + 1), x, 1 - x).astype(np.int64)
'''


def _laplace_spec():
    return catalog.laplace_mean(M="1/2", epsilon=1)       # x + Laplace(1) on [-1/2, 1/2]


def _guided(f, samples=SAMPLES, seed=0):
    return audit(f, domain=DOMAIN, epsilon=1, samples=samples, alpha=ALPHA, seed=seed, batch=True,
                 spec=_laplace_spec())


# -- (A) the float encoding tests in --spec mode ------------------------------------------------

def test_float64_laplace_with_a_spec_reports_the_encoding_and_the_law_apart():
    r = _guided(B.naive_float_laplace(epsilon=1))
    assert r.verdict == "VIOLATION" and r.epsilon_verdict == "VIOLATION"   # the worse of the two
    encoding, law = r.findings
    assert encoding["finding"] == "float encoding" and encoding["verdict"] == "VIOLATION"
    assert encoding["witness"]["family"] == "float" and encoding["witness"]["counts"][1] == 0
    assert encoding["epsilon_lower_bound"] > 5 and "ε = ∞" in encoding["statement"]
    assert encoding["epsilon_lower_bound"] == r.epsilon_lower_bound
    # the law of x + Laplace(1) is the spec's and is 1-DP: certified close to 1, not above it
    assert law["finding"] == "law" and law["verdict"] == "NO_EVIDENCE"
    assert 0.7 < law["epsilon_lower_bound"] <= 1 and law["witness"]["family"] == "spec"
    assert "the spec's exact events" in law["statement"]
    assert r.conformance["passed"] and r.cannot_test is None
    # the pilot's draws are part of the budget; the witness is not given the spec's probabilities
    assert r.samples_per_input == SAMPLES and encoding["witness"]["samples"][0] < SAMPLES
    assert "p_spec" not in r.witness and "float pilot" in r.method
    assert r.outputs["precision"][0]["format"] == "float64"
    text = str(r)
    assert "finding (float encoding): VIOLATION" in text and "finding (law): NO_EVIDENCE" in text


def test_both_modes_give_the_same_headline_on_the_same_code():
    black = audit(B.naive_float_laplace(epsilon=1), domain=DOMAIN, epsilon=1, samples=SAMPLES, alpha=ALPHA, seed=0,
                  batch=True)
    guided = _guided(B.naive_float_laplace(epsilon=1))
    assert black.verdict == guided.verdict == "VIOLATION"
    assert [f["verdict"] for f in black.findings] == [f["verdict"] for f in guided.findings]


def test_the_float_event_is_no_conformance_test():
    """The spec's law says nothing about bit patterns: the leaky sampler's conformance tests are
    the float-safe one's (same number), and both pass."""
    leaky, safe = _guided(B.naive_float_laplace(epsilon=1)), _guided(R.laplace_mean(M=0.5, epsilon=1))
    assert leaky.conformance["tests"] == safe.conformance["tests"]
    assert leaky.conformance["passed"] and safe.conformance["passed"]


def test_snapped_laplace_with_a_spec_gets_no_leak_finding():
    """The bundled sampler rounds to a grid 2^20 times finer than its scale, the same for every
    input: the float pilot runs, finds nothing above the law, and confirms only the spec's events."""
    r = _guided(R.laplace_mean(M=0.5, epsilon=1))
    assert r.verdict == "NO_EVIDENCE" and r.findings is None and r.cannot_test is None
    assert 0.7 < r.epsilon_lower_bound <= 1 and r.witness["family"] == "spec"
    assert r.outputs["precision"] and "not confirmed" in r.method and "float encoding" not in str(r)


def test_integer_valued_outputs_get_no_float_tests():
    """x + round(Laplace(1000)) at integer inputs: integer-valued, so no float features (and the
    rank half of the pilot is not drawn); the law is the spec's up to the rounding."""
    spec = catalog.laplace_mean(M=500, epsilon=1)

    def rounded(x, n, rng):
        return float(x) + np.round(rng.laplace(scale=1000.0, size=n))

    r = audit(rounded, domain=[-500, 500], epsilon=1, samples=SAMPLES, alpha=ALPHA, seed=0, batch=True, spec=spec)
    assert r.verdict == "NO_EVIDENCE" and r.findings is None
    assert r.outputs["precision"] is None and "no float-encoding tests" in r.outputs["read_as"]
    assert "integer-valued" in r.method and "float encoding" not in str(r)


def test_vector_outputs_of_a_continuous_product_spec_get_the_float_tests_too():
    """One-hot plus float64 Laplace noise per coordinate against specs/laplace_histogram.toml: the
    leak of coordinate x (1 + L, on a coarser grid than the others' L) apart from the law; the
    bundled sampler (snapped to a float32 grid) gets no finding."""
    spec = catalog.laplace_histogram(K=4, epsilon=1)
    leaky = audit(B.naive_float_unary_laplace(d=4, epsilon=1), domain=range(4), epsilon=1, samples=10_000,
                  alpha=ALPHA, seed=0, batch=True, spec=spec)
    assert leaky.verdict == "VIOLATION" and [f["verdict"] for f in leaky.findings] == ["VIOLATION", "NO_EVIDENCE"]
    assert "y[" in leaky.findings[0]["statement"] and leaky.conformance["passed"]
    assert leaky.outputs["shape"] == "vector" and len(leaky.outputs["precision"]) == 4
    safe = audit(R.laplace_histogram(K=4, epsilon=1), domain=range(4), epsilon=1, samples=10_000, alpha=ALPHA,
                 seed=0, batch=True, spec=spec)
    assert safe.verdict == "NO_EVIDENCE" and safe.findings is None


def _cli(capsys, tmp_path, func, *args, monkeypatch=None, epsilon=None):
    prog = tmp_path / "samplers.py"
    prog.write_text(SAMPLERS)
    if epsilon is not None:
        monkeypatch.setenv("KRR_EPSILON", str(epsilon))
    code = cli.main(["audit", f"{prog}:{func}", "--batch", "--seed", "0", "--alpha", str(ALPHA), "--no-isolate",
                     "--no-progress", *args])
    out = capsys.readouterr()
    return code, out.out


def _laplace_args(samples=SAMPLES):
    return ["--spec", str(ROOT / "specs" / "laplace_mean.toml"), "-p", "M=1/2", "-p", "epsilon=1",
            "--domain=-0.5,0.5", "--samples", str(samples)]


def test_cli_spec_findings_in_text_and_json_exit_of_the_worse(capsys, tmp_path):
    code, out = _cli(capsys, tmp_path, "laplace", *_laplace_args())
    flat = " ".join(out.split())
    assert code == 1 and flat.startswith("VIOLATION (float encoding: VIOLATION, ε >= ")
    assert "; law: NO_EVIDENCE, ε >= 0.9" in flat.split("certified ε >=")[0]
    assert "finding (float encoding): VIOLATION" in flat and "finding (law): NO_EVIDENCE" in flat
    code, out = _cli(capsys, tmp_path, "laplace", *_laplace_args(), "--json")
    payload = json.loads(out)
    assert code == 1 and payload["verdict"] == "VIOLATION" and payload["conformance_failed"] is False
    assert [f["finding"] for f in payload["findings"]] == ["float encoding", "law"]
    assert [f["verdict"] for f in payload["findings"]] == ["VIOLATION", "NO_EVIDENCE"]
    assert payload["cannot_test"] is None


def test_cli_snapped_with_spec_exit_0_no_findings(capsys, tmp_path):
    prog = tmp_path / "snapped.py"
    prog.write_text("from ldpaudit.mechanism import randomizers as R\nsample = R.laplace_mean(M=0.5, epsilon=1)\n")
    code = cli.main(["audit", f"{prog}:sample", "--batch", "--seed", "0", "--alpha", str(ALPHA), "--no-isolate",
                     "--no-progress", "--json", *_laplace_args()])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["verdict"] == "NO_EVIDENCE" and payload["findings"] is None


# -- (B) cannot_test in --spec mode -----------------------------------------------------------

def _krr_args(epsilon, *rest):
    return ["--spec", str(ROOT / "specs" / "krr.toml"), "-p", "d=2", "-p", f"epsilon={epsilon}", "--samples", "2000",
            "--json", *rest]


def test_spec_guided_claim_above_what_the_draws_can_certify_is_inconclusive(capsys, tmp_path, monkeypatch):
    """2-RR at ε = 20 against its own spec: 2,000 draws per input certify at most ~6.7, so
    NO_EVIDENCE would say nothing; the same audit of 2-RR at ε = 2 can test its claim."""
    code, out = _cli(capsys, tmp_path, "krr", *_krr_args(20), monkeypatch=monkeypatch, epsilon=20)
    payload = json.loads(out)
    assert code == 3 and payload["verdict"] == "INCONCLUSIVE" and payload["method"].startswith("spec-guided")
    why = payload["cannot_test"]
    assert why["detectable_epsilon"] < 20 and why["confirmation_draws"] == 2000
    assert why["draws_needed"] > 2000
    assert why["reason"].startswith("this audit cannot test the claim: with 2,000 confirmation draws per input")
    assert "ldpaudit verify" in why["reason"]
    code, out = _cli(capsys, tmp_path, "krr", *_krr_args(2), monkeypatch=monkeypatch, epsilon=2)
    payload = json.loads(out)
    assert code == 0 and payload["verdict"] == "NO_EVIDENCE" and payload["cannot_test"] is None


def test_spec_guided_cannot_test_in_the_text(capsys, tmp_path, monkeypatch):
    code, out = _cli(capsys, tmp_path, "krr", *_krr_args(20)[:-1], monkeypatch=monkeypatch, epsilon=20)
    flat = " ".join(out.split())
    assert code == 3 and flat.startswith("INCONCLUSIVE") and "this audit cannot test the claim" in flat


def test_spec_guided_violation_is_never_inconclusive():
    """A claim the draws cannot reach is still a VIOLATION when the bound exceeds it: 2-RR at
    ε = 20 claimed at ε = 1 by its spec's events."""
    spec = catalog.k_rr(d=2, epsilon=1)

    def leaky(x, n, rng):
        return np.where(rng.random(n) < 1 - 1e-9, x, 1 - x)

    r = audit(leaky, domain=[0, 1], epsilon=1, samples=2000, alpha=ALPHA, seed=0, batch=True, spec=spec)
    assert r.verdict == "VIOLATION" and r.cannot_test is None


def test_wide_spec_guided_cannot_test_counts_the_pooled_trials():
    """OUE over 300 inputs (the spec's event pooled over every input): 200 draws per input are
    60,000 trials, which certify at most ~9.7; the draws it would need are per input."""
    d = 300
    spec = load_bound(ROOT / "specs" / "oue.toml", [f"d={d}", "epsilon=20"])
    r = audit(WR.oue(d, 20.0), domain=range(d), epsilon=20, samples=200, batch=True, alpha=ALPHA, seed=1, spec=spec)
    assert r.verdict == "INCONCLUSIVE" and r.method.startswith("spec-guided, wide domain")
    why = r.cannot_test
    assert why["detectable_epsilon"] == r.detectable_epsilon < 20 and "pooled over 300 inputs" in why["reason"]
    alpha_each = ALPHA / 2
    assert why["draws_needed"] == -(-draws_needed(20, alpha_each) // d)
    assert detectable_epsilon(why["draws_needed"] * d, alpha_each) > 20


@pytest.mark.parametrize("per_draw", [1, 7, 300])
def test_cannot_test_per_draw_is_the_first_n_whose_pooled_trials_can_certify(per_draw):
    alpha_each = ALPHA / 4
    n = cannot_test(20.0, 9.0, 100, alpha_each, per_draw=per_draw)["draws_needed"]
    assert detectable_epsilon(n * per_draw, alpha_each) > 20 >= detectable_epsilon((n - 1) * per_draw, alpha_each)
    assert cannot_test(5.0, 9.0, 100, alpha_each, per_draw=per_draw) is None
