"""Spec-guided audits of local hashing that need only the implementation's hash function:
outputs (seed, value) are projected with the user's hash to value == h(seed, x), and the
frequencies are tested against the probabilities the OLH spec gives (p = e^ε/(e^ε+g-1) for a
hit, q = 1/(e^ε+g-1) for one other value, collisions 1/g) — derived from the spec's classes."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import cli_inprocess

from ldpaudit import cli
from ldpaudit.audit import audit
from ldpaudit.audit.guided import Plan
from ldpaudit.audit.projection import hash_support
from ldpaudit.errors import InvalidParameter, RandomizerError
from ldpaudit.mechanism.loader import load_bound

sys.path.insert(0, str(Path(__file__).parent / "programs"))
import olh_hashing as H  # noqa: E402

PROG = Path(__file__).parent / "programs" / "olh_hashing.py"
D = 25
ALPHA = 0.01


def _spec(d=D, g=4, epsilon="1"):
    return load_bound("specs/olh.toml", [f"d={d}", f"g={g}", f"epsilon={epsilon}"])


def _audit(randomizer, hash_function, *, samples=20_000, seed=0, g=4):
    return audit(randomizer, domain=range(D), epsilon=1, samples=samples, alpha=ALPHA, seed=seed, batch=True,
                 spec=_spec(g=g), feature=hash_support(hash_function, range(D)))


@pytest.mark.parametrize("d, g, epsilon, eps", [(25, 4, "1", 1.0), (20, 8, "2", 2.0), (25, 2, "1/2", 0.5)])
def test_the_hit_and_miss_rates_come_from_the_spec(d, g, epsilon, eps):
    e = math.exp(eps)
    plan = Plan(_spec(d=d, g=g, epsilon=epsilon), list(range(d)), supports=True)
    assert plan.p_hit == pytest.approx(e / (e + g - 1), rel=1e-15)
    assert plan.q_miss == pytest.approx(1 / (e + g - 1), rel=1e-15)
    assert plan.kappa == 1 / g
    cells = plan._hashed_cells()
    assert sum(cells.values()) == pytest.approx(1.0, abs=1e-15)
    # the other inputs' hit rate is 1/g whatever p is (ideal universal family)
    assert cells[(1, 1)] + cells[(0, 1)] == pytest.approx(1 / g, rel=1e-14)


def test_a_correct_olh_passes():
    r = _audit(H.olh_ok, H.hash4)
    assert r.verdict == "NO_EVIDENCE" and r.conformance["passed"], r.conformance
    assert 0.9 <= r.epsilon_lower_bound <= 1.0
    assert r.conformance["tests"] >= 50


def test_a_wrong_hit_probability_is_flagged():
    """p computed for g = 2 (e/(e+1)) while hashing into 4 buckets: true ε = ln(3e) = 2.10."""
    r = _audit(H.olh_binary_p, H.hash4)
    assert r.verdict == "VIOLATION" and 1.9 < r.epsilon_lower_bound <= 1 + math.log(3)
    d = r.conformance["discrepancy"]
    assert not r.conformance["passed"] and "h(seed" in d["event"]
    assert d["observed_frequency"] == pytest.approx(math.e / (math.e + 1), abs=0.02)
    assert d["expected_probability"] == pytest.approx(math.e / (math.e + 3), rel=1e-12)


def test_a_wrong_g_is_flagged_by_conformance():
    """A correct OLH for g = 3 (its own hash into 3 buckets) audited against the spec at g = 4:
    still ε-LDP, so no ε violation, but the other inputs are supported 1/3 of the time, not the
    spec's 1/g = 1/4 (and the hit rate is e/(e+2), not e/(e+3))."""
    r = _audit(H.olh_g3, H.hash3)
    assert (r.verdict, r.epsilon_verdict) == ("VIOLATION", "NO_EVIDENCE") and not r.conformance["passed"]
    d = r.conformance["discrepancy"]
    assert "v == h(seed, j) for j != " in d["event"] and d["expected_probability"] == pytest.approx(1 / 4, rel=1e-12)
    assert d["observed_frequency"] == pytest.approx(1 / 3, abs=0.005)


def test_an_olh_that_ignores_its_seed_is_flagged_by_conformance():
    """Hashing with a fixed seed while reporting a fresh one: still ε-LDP (k-RR on h_0(x)), so no
    ε violation, but the reported value equals h(seed, x) only 1/4 of the time, not p = e/(e+3)."""
    r = _audit(H.olh_seed_ignored, H.hash4)
    assert (r.verdict, r.epsilon_verdict) == ("VIOLATION", "NO_EVIDENCE") and not r.conformance["passed"]
    d = r.conformance["discrepancy"]
    assert "h(seed" in d["event"]
    assert d["observed_frequency"] == pytest.approx(1 / 4, abs=0.02)
    assert d["expected_probability"] == pytest.approx(math.e / (math.e + 3), rel=1e-12)


def test_a_hash_that_is_not_the_implementations_is_flagged():
    r = _audit(H.olh_ok, H.hash3)
    assert not r.conformance["passed"]


@pytest.mark.slow
def test_no_false_alarms_on_a_correct_olh_over_seeds():
    alarms = sum(not _audit(H.olh_ok, H.hash4, seed=s).conformance["passed"] for s in range(1, 21))
    assert alarms <= 2          # P(Binomial(20, 0.01) > 2) = 0.001


def test_a_per_seed_hash_is_called_once_per_seed():
    r = audit(H.olh_scalar, domain=range(D), epsilon=1, samples=1000, alpha=ALPHA, seed=0, batch=True,
              spec=_spec(), feature=hash_support(H.hash4_scalar, range(D)))
    assert r.conformance["passed"] and r.verdict == "NO_EVIDENCE"


def test_a_hash_that_is_not_universal_is_flagged():
    """OLH's analysis assumes two inputs collide with probability 1/g; Python's tuple hash mod 4
    does not give that, and the spec's collision cells show it."""
    r = audit(H.olh_tuple_hash, domain=range(D), epsilon=1, samples=1000, alpha=ALPHA, seed=0, batch=True,
              spec=_spec(), feature=hash_support(H.hash4_tuple, range(D)))
    assert not r.conformance["passed"] and "h(seed" in r.conformance["discrepancy"]["event"]


def test_without_the_hash_the_spec_says_what_to_give():
    with pytest.raises(InvalidParameter, match="give the hash function"):
        audit(H.olh_ok, domain=range(D), epsilon=1, samples=1000, batch=True, spec=_spec())


def test_hash_errors_are_one_line():
    def broken(seed, x):
        raise KeyError("boom")

    with pytest.raises(RandomizerError, match="hash function broken raised KeyError on seed"):
        _audit(H.olh_ok, broken, samples=1000)
    with pytest.raises(RandomizerError, match="must return an integer"):
        _audit(H.olh_ok, lambda s, x: "a", samples=1000)
    with pytest.raises(InvalidParameter, match="local-hashing spec"):
        audit(H.olh_ok, domain=range(4), epsilon=1, samples=1000, batch=True, spec=load_bound("specs/krr.toml", ["d=4", "epsilon=1"]),
              feature=hash_support(H.hash4, range(4)))


def _cli(*extra, target="olh_ok"):
    cmd = [sys.executable, "-m", "ldpaudit.cli", "audit", f"{PROG}:{target}", "--batch", "--spec", "specs/olh.toml",
           "-p", f"d={D}", "-p", "g=4", "-p", "epsilon=1", "--samples", "20000", "--json", *extra]
    return cli_inprocess.run(*cmd[3:])     # in this process (tests/cli_inprocess.py)


def test_cli_spec_guided_hash_audit():
    ok = _cli("--hash", f"{PROG}:hash4")
    assert ok.returncode == 0, ok.stderr
    out = json.loads(ok.stdout)
    assert out["verdict"] == "NO_EVIDENCE" and out["conformance"]["passed"] and out["epsilon_lower_bound"] > 0.9
    bad = _cli("--hash", f"{PROG}:hash4", target="olh_binary_p")
    assert bad.returncode == 1, bad.stderr
    out = json.loads(bad.stdout)
    assert out["verdict"] == "VIOLATION" and out["conformance_failed"]


@pytest.mark.parametrize("value, message", [
    ("no_such_module_xyz:h", "--hash no_such_module_xyz:h: "),
    (f"{PROG}:no_such_function", "no_such_function"),
    ("nocolon", "--hash nocolon: "),
])
def test_cli_missing_hash_function_is_one_line(value, message, capsys):
    code = cli.main(["audit", f"{PROG}:olh_ok", "--batch", "--no-isolate", "--spec", "specs/olh.toml", "-p", "d=4",
                     "-p", "g=4", "-p", "epsilon=1", "--samples", "1000", "--hash", value])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and message in err[0], err


def test_cli_hash_and_feature_together_is_bad_input(capsys):
    code = cli.main(["audit", f"{PROG}:olh_ok", "--batch", "--no-isolate", "--domain", "0..3", "--epsilon", "1",
                     "--hash", f"{PROG}:hash4", "--feature", f"{PROG}:hash4"])
    assert code == 2 and "not both" in capsys.readouterr().err
