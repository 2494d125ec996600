"""The Python API and the command line give one verdict (issue 35, item 5): ``audit(...,
spec=)`` says VIOLATION when the conformance test fails, as ``ldpaudit audit --spec`` does (a
k-RR at ε = 1/2 audited against the k-RR spec at ε = 1: private, but not the spec's law), and
``load_spec`` takes the catalog names every command takes."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

import ldpaudit
from ldpaudit import cli
from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism.randomizers import krr

SAMPLES, SEED, ALPHA = 200_000, 0, 0.01


def cli_audit(target_epsilon: str) -> tuple[int, dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(["audit", "ldpaudit.mechanism.randomizers:krr", "--target-arg", "d=4", "--target-arg",
                         f"epsilon={target_epsilon}", "--batch", "--spec", "krr", "-p", "d=4", "-p", "epsilon=1",
                         "--samples", str(SAMPLES), "--seed", str(SEED), "--alpha", str(ALPHA), "--no-isolate",
                         "--json"])
    return code, json.loads(out.getvalue())


def api_audit(target_epsilon: float):
    spec = ldpaudit.load_spec("krr").bind(d=4, epsilon=1)
    return ldpaudit.audit(krr(d=4, epsilon=target_epsilon), domain=range(4), epsilon=1, samples=SAMPLES,
                          alpha=ALPHA, seed=SEED, batch=True, spec=spec)


@pytest.mark.parametrize("target_epsilon, verdict", [("1/2", "VIOLATION"), ("1", "NO_EVIDENCE")])
def test_api_and_cli_give_one_verdict_on_the_same_seed(target_epsilon, verdict):
    code, doc = cli_audit(target_epsilon)
    result = api_audit(0.5 if target_epsilon == "1/2" else 1.0)
    assert (doc["verdict"], code) == (verdict, 1 if verdict == "VIOLATION" else 0)
    assert result.verdict == doc["verdict"] == verdict
    assert result.epsilon_verdict == doc["epsilon_verdict"] == "NO_EVIDENCE"  # the ε test alone: private
    assert result.epsilon_lower_bound == doc["epsilon_lower_bound"]
    assert (result.conformance["passed"] is False) == (verdict == "VIOLATION") == doc["conformance_failed"]
    if verdict == "VIOLATION":
        assert "conformance with the spec failed; ε test: NO_EVIDENCE" in str(result)


def test_the_result_keeps_the_epsilon_test_apart():
    from ldpaudit.audit.engine import AuditResult

    plain = AuditResult("NO_EVIDENCE", 1.0, 0.1, 0.99, None, 10, 0.0, 2.0, None, "m")
    failed = AuditResult("NO_EVIDENCE", 1.0, 0.1, 0.99, None, 10, 0.0, 2.0, {"passed": False}, "m")
    assert (plain.verdict, plain.epsilon_verdict) == ("NO_EVIDENCE", "NO_EVIDENCE")
    assert (failed.verdict, failed.epsilon_verdict) == ("VIOLATION", "NO_EVIDENCE")
    assert failed.to_json()["epsilon_verdict"] == "NO_EVIDENCE"


@pytest.mark.parametrize("name, mechanism", [("krr", "k-RR"), ("ksubset", None), ("wrr", None)])
def test_load_spec_takes_catalog_names(name, mechanism):
    from ldpaudit.mechanism.loader import load_family

    loaded = ldpaudit.load_spec(name)
    assert loaded.name == load_family(name).name
    if mechanism:
        assert loaded.name == mechanism == ldpaudit.load_spec("specs/krr.toml").name


def test_load_spec_refuses_an_unknown_name_naming_the_catalog():
    with pytest.raises(InvalidSpec, match=r"neither a file nor a catalog name; .*krr"):
        ldpaudit.load_spec("no_such_mechanism")
    with pytest.raises(InvalidSpec, match=r"spec file 'no_such\.toml' does not exist"):
        ldpaudit.load_spec("no_such.toml")
