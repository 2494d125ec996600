"""Audit findings apart (issue 32.3): a float64 Laplace sampler's encoding leak and its law are two
findings, each with its bound, in the API result, the JSON and the text, with the exit status of
the worse; a claim above what the draws can certify is INCONCLUSIVE with the draws that would
test it. Fixed seeds; α = 0.05; 10^5 draws per input."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from ldpaudit import cli
from ldpaudit.audit import audit
from ldpaudit.audit.bounds import detectable_epsilon
from ldpaudit.audit.findings import MAX_DRAWS, draws_needed

sys.path.insert(0, str(Path(__file__).parent))
import blindspot_randomizers as B  # noqa: E402

ALPHA = 0.05

NAIVE = '''
import numpy as np
def laplace(x, n, rng):
    return float(x) + rng.laplace(scale=1.0, size=n)
def integer_laplace(x, n, rng):
    return float(x) + np.round(rng.laplace(scale=1.0, size=n))
def gaussian(x, n, rng):      # the classical Gaussian for (1, 1e-5): sigma = sqrt(2 ln(1.25/1e-5))
    return np.round(float(x) + rng.normal(scale=float(np.sqrt(2 * np.log(1.25e5))), size=n), 6)
'''


def test_float64_laplace_reports_the_encoding_and_the_law_apart():
    r = audit(B.naive_float_laplace(epsilon=1), domain=[0.0, 1.0], epsilon=1, samples=100_000, alpha=ALPHA, seed=0,
              batch=True)
    assert r.verdict == "VIOLATION"     # the worse of the two findings
    encoding, law = r.findings
    assert encoding["finding"] == "float encoding" and encoding["verdict"] == "VIOLATION"
    assert encoding["epsilon_lower_bound"] > 5 and encoding["witness"]["counts"][1] == 0
    assert encoding["witness"]["family"] == "float" and "ε = ∞" in encoding["statement"]
    assert encoding["epsilon_lower_bound"] == r.epsilon_lower_bound
    # the law of x + Laplace(1) is 1-DP: certified close to 1 and not above it
    assert law["finding"] == "law" and law["verdict"] == "NO_EVIDENCE"
    assert 0.8 < law["epsilon_lower_bound"] <= 1 and law["witness"]["family"] != "float"
    text = str(r)
    assert "finding (float encoding): VIOLATION" in text and "finding (law): NO_EVIDENCE" in text
    assert json.loads(json.dumps(r.to_json()))["findings"][1]["verdict"] == "NO_EVIDENCE"


def test_float_safe_laplace_has_no_findings_to_tell_apart():
    r = audit(B.integer_laplace(epsilon=1), domain=[0.0, 1.0], epsilon=1, samples=100_000, alpha=ALPHA, seed=0,
              batch=True)
    assert r.verdict == "NO_EVIDENCE" and r.findings is None and r.cannot_test is None


def _cli(capsys, tmp_path, func, *args):
    prog = tmp_path / "samplers.py"
    prog.write_text(NAIVE)
    code = cli.main(["audit", f"{prog}:{func}", "--domain", "0,1", "--samples", "100000", "--batch", "--seed", "0",
                     "--alpha", str(ALPHA), "--no-isolate", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_findings_in_text_and_json_exit_of_the_worse(capsys, tmp_path):
    code, out, _ = _cli(capsys, tmp_path, "laplace", "--epsilon", "1")
    head = " ".join(out.split("certified ε >=")[0].split())
    assert code == 1 and head.startswith("VIOLATION (float encoding: VIOLATION, ε >= ")
    assert "law: NO_EVIDENCE, ε >= 0.9" in head
    assert "finding (law): NO_EVIDENCE" in " ".join(out.split())
    code, out, _ = _cli(capsys, tmp_path, "laplace", "--epsilon", "1", "--json")
    payload = json.loads(out)
    assert code == 1 and [f["finding"] for f in payload["findings"]] == ["float encoding", "law"]
    assert [f["verdict"] for f in payload["findings"]] == ["VIOLATION", "NO_EVIDENCE"]


def test_claim_above_what_the_draws_can_certify_is_inconclusive(capsys, tmp_path):
    """A classical Gaussian claiming (20, 10^-3): no event can certify more than ~9.6 with 75,000
    confirmation draws, so NO_EVIDENCE would say nothing; the same run at ε = 1/2 can and does."""
    code, out, _ = _cli(capsys, tmp_path, "gaussian", "--epsilon", "20", "--delta", "0.001", "--json")
    payload = json.loads(out)
    assert code == 3 and payload["verdict"] == "INCONCLUSIVE"
    why = payload["cannot_test"]
    assert why["detectable_epsilon"] < 20 and why["draws_needed"] > why["confirmation_draws"]
    assert "cannot test the claim" in why["reason"] and "ldpaudit verify" in why["reason"]
    code, out, _ = _cli(capsys, tmp_path, "gaussian", "--epsilon", "1/2", "--delta", "0.001", "--json")
    payload = json.loads(out)
    assert code == 0 and payload["verdict"] == "NO_EVIDENCE" and payload["cannot_test"] is None


@pytest.mark.parametrize("epsilon, delta", [(1.0, 0.0), (20.0, 0.0), (20.0, 1e-3), (9.0, 0.5)])
def test_draws_needed_is_the_first_n_that_can_certify_the_claim(epsilon, delta):
    alpha_each = ALPHA / 6
    n = draws_needed(epsilon, alpha_each, delta)
    assert detectable_epsilon(n, alpha_each, delta) > epsilon >= detectable_epsilon(n - 1, alpha_each, delta)
    # about ln(1/α') e^ε/(1 - δ): the bound of n hits against none
    assert 0.5 < n / (math.log(1 / alpha_each) * math.exp(epsilon) / (1 - delta)) < 2


def test_draws_needed_none_beyond_any_practical_audit():
    assert draws_needed(50.0, ALPHA / 6) is None and detectable_epsilon(MAX_DRAWS, ALPHA / 6) <= 50
