"""``ldpaudit bench``: the public suite of real LDP bugs. A quick run flags every bug at the
sample size it reports, with ε_lb below the true ε; the true ε agrees with ``ldpaudit verify``
and with independent closed forms; no correct counterpart is flagged; a missed bug is exit 1;
an unknown ``--only`` name is exit 2 in one line."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from ldpaudit import cli
from ldpaudit.bench import runner, suite
from ldpaudit.schema import SCHEMA_VERSION

E = math.e


def _ue_ratio(p, q):
    return math.log(p * (1 - q) / (q * (1 - p)))


_SUE_P, _SUE_Q = math.exp(0.5) / (1 + math.exp(0.5)), 1 / (1 + math.exp(0.5))
_OUE_Q = 1 / (E + 1)
_KRR_KEEP = E / (E + 3)


def _rsfd(amp, k=(8, 2, 2)):
    """RS+FD[GRR], x and x' differing in attribute 0: (Σ a_i + (e^ε' - 1) a_0) / Σ a_i, a_i = k_i/(e^ε' + k_i - 1)."""
    a = [ki / (amp + ki - 1) for ki in k]
    return math.log(1 + (amp - 1) * a[0] / sum(a))

#: bug key -> its true ε, computed here from the bug's description (not from the spec text)
REFERENCE = {
    "pure-ldp-sue": _ue_ratio(_SUE_P + (1 - _SUE_P) * _SUE_Q, _SUE_Q),
    "pure-ldp-oue": _ue_ratio(0.5 + 0.5 * _OUE_Q, _OUE_Q),
    "rappor-never-clears": math.inf,
    "oue-wrong-q": math.log(2 * E - 1),
    "krappor-full-epsilon": 2.0,
    "opendp-rr-bool-2022": 1 + math.log(2 + E),
    "rr-8bit-coin": math.log(47 / 17),            # P(u < p) = ceil(256 e/(1+e))/256 = 188/256
    "krr-uniform-fallback": math.log(1 + 4 * E / 3),
    "krr-error-output": math.log(5),
    "subset-order": math.inf,
    "hadamard-type": math.inf,
    "float-laplace": math.inf,
    "unary-float-laplace": math.inf,
    "geometric-rounding": 25 / 24,                # 1/b for round(Laplace(b)), b = 24/25
    "olh-binary-p": math.log(3 * E),              # p/((1-p)/(g-1)), p = e/(e+1), g = 4
    "rsfd-unequal-domains": _rsfd(3 * E - 2),     # e^ε' = d(e^ε - 1) + 1, d = 3
}


def test_rsfd_amplification_is_tight_on_equal_domains_only():
    """The reference formula itself: ε exactly when the domains are equal, more when they are not."""
    for k in ((2, 2, 2), (8, 8, 8)):
        assert _rsfd(3 * E - 2, k) == pytest.approx(1.0, rel=1e-12)
    assert _rsfd(3 * E - 2, (8, 2, 2)) > 1.3


def test_rsfd_counterpart_is_private_by_verify(tmp_path, capsys):
    bug = next(b for b in suite.bugs() if b.key == "rsfd-unequal-domains")
    path = tmp_path / "fixed.toml"
    path.write_text(bug.fixed_spec)
    assert cli.main(["verify", str(path), "--tight", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "PROVED" and out["tight_epsilon"] == "log(957067/352125)"
    assert math.log(957067 / 352125) == pytest.approx(_rsfd(4.512), rel=1e-12) and 0.9998 < _rsfd(4.512) < 1


@pytest.fixture(scope="module")
def quick():
    proc = subprocess.run([sys.executable, "-m", "ldpaudit.cli", "bench", "--quick", "--json"],
                          capture_output=True, text=True, timeout=300)
    return proc


@pytest.mark.slow
def test_quick_run_flags_every_bug_and_no_counterpart(quick):
    assert quick.returncode == 0, quick.stderr
    out = json.loads(quick.stdout)
    assert out["command"] == "bench" and out["verdict"] == "OK" and out["schema_version"] == SCHEMA_VERSION
    keys = [b["key"] for b in out["bugs"]]
    assert keys == [b.key for b in suite.bugs()] and len(keys) >= 15
    assert out["missed"] == [] and out["counterparts_flagged"] == []
    m = runner.counterpart_audits(suite.bugs())
    for bug in out["bugs"]:
        assert bug["flagged"] and bug["ok"], bug["key"]
        bb, sp = bug["blackbox"], bug["spec"]
        assert bb["flagged_at"] is not None or (sp and sp["flagged_at"] is not None), bug["key"]
        assert not bug["counterpart"]["flagged"], bug["key"]
        assert bug["counterpart"]["samples"] == 10**5
        assert bug["counterpart"]["alpha"] == pytest.approx(0.05 / m)
        assert bug["counterpart"]["epsilon_lower_bound"] <= 1.0
        true = math.inf if bug["true_epsilon_infinite"] else bug["true_epsilon"]
        assert true == pytest.approx(REFERENCE[bug["key"]], rel=1e-9), bug["key"]
        if bb["flagged_at"] is not None:
            # a certified lower bound: above the claim, below the truth
            assert 1.0 < bb["epsilon_lower_bound"] <= true, bug["key"]


@pytest.mark.slow
def test_quick_run_detection_sizes(quick):
    """The sizes the README table states (seed 0, α = 0.05), so a regression shows."""
    bugs = {b["key"]: b for b in json.loads(quick.stdout)["bugs"]}
    assert bugs["pure-ldp-sue"]["blackbox"]["flagged_at"] == 10**3
    assert bugs["float-laplace"]["blackbox"]["flagged_at"] == 10**3
    assert bugs["krr-error-output"]["blackbox"]["flagged_at"] == 10**6
    assert bugs["rr-8bit-coin"]["spec"]["flagged_at"] == 10**5
    assert bugs["olh-binary-p"]["blackbox"]["feature"] is True
    # LDP-Auditor's fixed event cannot see order, types or doubles
    for key in ("subset-order", "float-laplace", "krr-error-output"):
        assert bugs[key]["baseline"]["flagged_at"] is None, key
    assert bugs["opendp-rr-bool-2022"]["baseline"]["flagged_at"] == 10**3
    assert bugs["rsfd-unequal-domains"]["blackbox"]["flagged_at"] == 10**4
    assert bugs["rsfd-unequal-domains"]["baseline"]["flagged_at"] is None


@pytest.mark.parametrize("bug", [b for b in suite.bugs() if b.true_spec is not None], ids=lambda b: b.key)
def test_true_epsilon_is_what_verify_says(bug, tmp_path, capsys):
    path = tmp_path / f"{bug.key}.toml"
    path.write_text(bug.true_spec)
    code = cli.main(["verify", str(path), "--tight", "--json"])
    out = json.loads(capsys.readouterr().out)
    value, text = runner.true_epsilon(bug)
    assert code == 1 and out["verdict"] == "REFUTED"     # every bug breaks its claim of ε = 1
    assert text.startswith(out["tight_epsilon"] + " ")
    assert value == pytest.approx(REFERENCE[bug.key], rel=1e-9)


def test_a_missed_bug_is_exit_1(monkeypatch, capsys):
    """A 'bug' that is in fact the correct k-RR cannot be flagged: the suite's verdict fails."""
    real = suite.bugs()
    krr = next(b for b in real if b.key == "krr-uniform-fallback")
    fake = suite.Bug("not-a-bug", "correct k-RR posing as a bug", "test", krr.fixed, krr.fixed, krr.domain, "grr",
                     true_value=1.0, true_note="1")
    monkeypatch.setattr(suite, "bugs", lambda: real + [fake])
    monkeypatch.setattr(runner, "GRID", (10**3, 10**4))
    code = cli.main(["bench", "--only", "not-a-bug", "--quick", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["verdict"] == "REFUTED"
    assert out["missed"] == ["not-a-bug"] and out["bugs"][0]["blackbox"]["flagged_at"] is None


def test_a_flagged_counterpart_is_exit_1(monkeypatch, capsys):
    """A 'counterpart' that is the bug itself is flagged: the suite's verdict fails."""
    real = suite.bugs()
    opendp = next(b for b in real if b.key == "opendp-rr-bool-2022")
    twin = suite.Bug("twin", "bug as its own counterpart", "test", opendp.buggy, opendp.buggy, [0, 1], "grr",
                     true_value=math.inf, true_note="test")
    monkeypatch.setattr(suite, "bugs", lambda: real + [twin])
    code = cli.main(["bench", "--only", "twin", "--quick"])
    out = capsys.readouterr().out
    assert code == 1 and out.strip().endswith("REFUTED")
    assert "| bug as its own counterpart | ∞ | 10^3" in out and "| YES (10^5) |" in out


def test_only_runs_the_named_bugs(capsys):
    code = cli.main(["bench", "--only", "opendp-rr-bool-2022", "--only", "rr-8bit-coin", "--quick", "--json",
                     "--seed", "3"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["seed"] == 3
    assert [b["key"] for b in out["bugs"]] == ["opendp-rr-bool-2022", "rr-8bit-coin"]


def test_unknown_only_name_is_bad_input_in_one_line(capsys):
    assert cli.main(["bench", "--only", "no-such-bug"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "'no-such-bug'" in err[0] and "valid names: pure-ldp-sue, " in err[0] and "olh-binary-p" in err[0]


def test_bench_help_imports_nothing_heavy():
    probe = ("import sys, contextlib, io\nfrom ldpaudit.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n    code = main(['bench', '--help'])\n"
             "print(code, sorted({m.split('.')[0] for m in sys.modules} & "
             "{'sympy', 'scipy', 'z3', 'matplotlib', 'numpy', 'rich'}))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "0 []", proc.stderr
