"""Hostile and extreme input to simulate, profile, amplify, optimize, new and prove (issue 35,
items 1 and 8): each ends in exit 2 with one line on stderr naming the option (and with
--json one JSON object), or in a correct result. Inputs that would allocate gigabytes or run
for minutes if a check regressed run in a forked child capped at 4 GiB of address space (beyond
what this process maps) and 60 CPU seconds, so a regression fails the test instead of starving
the machine."""

from __future__ import annotations

import importlib
import json
import math
from pathlib import Path

import pytest

import cli_inprocess

from ldpaudit.schema import VERDICTS

SPECS = Path(__file__).resolve().parents[1] / "specs"
CAP_BYTES, CAP_CPU = 4 * 2**30, 60


def run(argv):
    return cli_inprocess.run(*argv)     # in this process (tests/cli_inprocess.py)


def run_capped(argv):
    """``ldpaudit ARGV`` run as in :func:`run`, but in a forked child under the caps: the job
    runner's own (ldpaudit.budget.call: CPU seconds of the child and its descendants, new address
    space), so a regression raises BudgetExceeded and fails the test, never starves the machine;
    a fork of this process, not a new interpreter, so the imports are shared."""
    from ldpaudit import budget

    return budget.call(run, argv, seconds=CAP_CPU, memory_mb=CAP_BYTES >> 20, label="capped command")


def refused(proc, command: str, *words: str, json_out: bool = True) -> str:
    """Exit 2, one line on stderr holding ``words``, and (``json_out``) one JSON object INVALID."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ldpaudit: error:"), proc.stderr[-2000:]
    for w in words:
        assert w in lines[0], (w, lines[0])
    if json_out:
        doc = json.loads(proc.stdout)
        assert (doc["command"], doc["verdict"]) == (command, "INVALID")
        assert doc["error"]["message"] in lines[0]
    return lines[0]


def answered(proc, command: str) -> dict:
    """Exit 0 with one JSON object OK/PROVED and nothing on stderr."""
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(proc.stdout)
    assert doc["command"] == command and VERDICTS[doc["verdict"]] == 0
    return doc


# --- item 1: simulate ----------------------------------------------------------------------------

def test_simulate_a_huge_n_is_refused_naming_it():
    refused(run(["simulate", "kv2", "--n", 10**20, "--trials", 1, "--json"]), "simulate", "--n", "2^62")


@pytest.mark.parametrize("epsilon", ["710", "800", "1000000"])
def test_simulate_a_huge_epsilon_is_computed_stably(epsilon):
    doc = answered(run(["simulate", "kv2", "--n", 1000, "--epsilon", epsilon, "--trials", 2, "--json"]), "simulate")
    row = doc["results"][0]
    assert row["constants"]["epsilon"] == float(epsilon)
    assert all(math.isfinite(row[k]) for k in ("mean_abs_error", "quantile", "quantile_low", "quantile_high"))
    # at ε this large randomized response keeps every value: the same estimates at 710 and 10^6
    same = run(["simulate", "kv2", "--n", 1000, "--epsilon", "710", "--trials", 2, "--json"])
    assert json.loads(same.stdout)["results"][0]["mean_abs_error"] == row["mean_abs_error"]


@pytest.mark.parametrize("protocol", ["kv1", "uv2", "uv1", "laplace"])
def test_simulate_every_protocol_takes_a_huge_epsilon(protocol):
    answered(run(["simulate", protocol, "--n", 1000, "--epsilon", 800, "--trials", 2, "--json"]), "simulate")


def test_simulate_a_negative_seed_is_refused_naming_it():
    refused(run(["simulate", "kv2", "--n", 1000, "--trials", 2, "--seed", -1, "--json"]), "simulate", "--seed",
            "non-negative")


def test_simulate_per_user_draws_beyond_the_memory_budget_are_refused_before_allocating():
    line = refused(run_capped(["simulate", "kv1", "--n", 10**9, "--trials", 2, "--method", "users", "--json"]),
                   "simulate", "--n", "--memory-mb", "--method auto")
    assert "GiB" in line
    refused(run_capped(["simulate", "laplace", "--n", 10**9, "--trials", 2, "--json"]), "simulate", "--memory-mb")


def test_simulate_too_many_trials_are_refused_before_allocating():
    refused(run_capped(["simulate", "kv2", "--n", 1000, "--trials", 10**12, "--json"]), "simulate", "--trials",
            "--memory-mb")


@pytest.mark.parametrize("option, value", [("--sigma", "nan"), ("--R", "inf"), ("--beta", "2"), ("--mu", "nan")])
def test_simulate_non_finite_or_out_of_range_values_are_refused(option, value):
    refused(run(["simulate", "kv2", "--n", 1000, "--trials", 2, option, value, "--json"]), "simulate", option)


def test_simulate_api_checks_seed_and_n():
    from ldpaudit.errors import InvalidParameter
    from ldpaudit.protocol.command import constants_for
    from ldpaudit.protocol.joseph import PROTOCOLS
    from ldpaudit.protocol.simulate import simulate

    consts = constants_for("kv2", n=1000, epsilon=1.0, sigma=1.0, R=1000.0)
    with pytest.raises(InvalidParameter, match=r"seed \(--seed\) -1 is not a non-negative integer"):
        simulate(PROTOCOLS["kv2"](), constants=consts, trials=2, seed=-1)
    with pytest.raises(InvalidParameter, match=r"n \(--n\) .* is above 2\^62"):
        simulate(PROTOCOLS["kv2"](), constants={**consts, "n": 10**20}, trials=1)


# --- item 8: profile ---------------------------------------------------------------------------

def test_profile_a_billion_reports_is_refused_without_planning_them():
    refused(run_capped(["profile", "krr", "-p", "d=4", "-p", "epsilon=1", "--reports", 10**9, "--json"]), "profile",
            "--reports", "10,000,000")


@pytest.mark.parametrize("command, extra", [("profile", []), ("amplify", ["--n", 100, "--delta", "1e-6"])])
@pytest.mark.parametrize("spec", ["krr", "oue"])
def test_a_billion_inputs_are_refused_not_listed(command, extra, spec):
    refused(run_capped([command, spec, "-p", "d=1000000000", "-p", "epsilon=1", *extra, "--json"]), command,
            "1000000000")


# --- item 8: amplify ---------------------------------------------------------------------------

AMPLIFY = ["amplify", "krr", "-p", "d=3", "-p", "epsilon=1", "--delta", "1e-6"]


@pytest.mark.parametrize("n", [10**20, 10**399])
def test_amplify_a_huge_n_is_refused_naming_it(n):
    line = refused(run_capped([*AMPLIFY, "--n", n, "--json"]), "amplify", "--n", "10^9")
    assert len(line) < 400


def test_amplify_too_many_samples_are_refused_before_allocating():
    refused(run_capped([*AMPLIFY, "--n", 5, "--samples", 10**12, "--json"]), "amplify", "--samples", "GiB")


def test_amplify_a_negative_seed_is_refused_naming_it():
    refused(run([*AMPLIFY, "--n", 5, "--seed", -1, "--json"]), "amplify", "--seed")


def test_amplify_exact_refusal_names_options_that_exist():
    line = refused(run([*AMPLIFY, "--n", 100, "--exact", "--json"]), "amplify", "--exact", "--n 21 or less")
    assert "--exact-n" not in line


@pytest.mark.parametrize("spec, params", [("laplace_mean", ["M=1"]), ("krr", ["d=3"])])
def test_amplify_a_huge_local_epsilon_is_bounded_by_itself(spec, params):
    doc = answered(run(["amplify", spec, *(a for p in params for a in ("-p", p)), "-p", "epsilon=1000",
                        "--n", 100, "--delta", "1e-6", "--json"]), "amplify")
    assert 1000 <= doc["epsilon_upper"] <= 1000 * (1 + 1e-12)
    assert doc["epsilon_lower"] <= doc["epsilon_upper"]


def test_amplify_at_the_largest_n_still_answers_small_epsilon_exactly_as_before():
    doc = answered(run([*AMPLIFY, "--n", 100, "--json"]), "amplify")
    assert 0 < doc["epsilon_upper"] < 1


# --- item 8: optimize ------------------------------------------------------------------------

@pytest.mark.parametrize("epsilon", ["1000000", "exp(exp(10))", "1000"])
def test_optimize_a_huge_epsilon_is_refused_naming_it(epsilon):
    refused(run(["optimize", "-p", "d=4", "-p", f"epsilon={epsilon}", "--json"]), "optimize", "epsilon",
            "-p epsilon=34 or less")


def _no_solving(monkeypatch):
    def solve(*args, **kwargs):
        raise AssertionError("the LP was solved before --out was checked")

    monkeypatch.setattr(importlib.import_module("ldpaudit.extremal.staircase"), "certify", solve)


def test_optimize_out_to_a_missing_directory_is_refused_before_computing(monkeypatch, tmp_path):
    _no_solving(monkeypatch)
    target = tmp_path / "missing" / "x.toml"
    refused(run(["optimize", "-p", "d=4", "-p", "epsilon=1", "--out", target, "--json"]), "optimize", "--out",
            "does not exist")
    assert not target.parent.exists()


def test_optimize_out_never_overwrites_silently(monkeypatch, tmp_path):
    target = tmp_path / "x.toml"
    target.write_text("# mine\n")
    with monkeypatch.context() as m:
        _no_solving(m)
        refused(run(["optimize", "-p", "d=3", "-p", "epsilon=1", "--out", target, "--json"]), "optimize", "--out",
                "exists", "--force")
    assert target.read_text() == "# mine\n"
    doc = answered(run(["optimize", "-p", "d=3", "-p", "epsilon=1", "--out", target, "--force", "--json"]), "optimize")
    assert doc["spec"] == str(target) and "[mechanism]" in target.read_text()


# --- item 8: new --------------------------------------------------------------------------------

@pytest.mark.parametrize("path, words", [
    ("/proc/self/x.toml", ("'/proc/self/x.toml'",)),
    ("/tmp/" + "a" * 5000 + ".toml", ("too long a path", "5010 characters")),
    ("{tmp}/a_file/x.toml", ("is a file, not a directory",)),
])
def test_new_refuses_a_path_it_cannot_write_in_one_line(path, words, tmp_path):
    (tmp_path / "a_file").write_text("")
    line = refused(run(["new", path.replace("{tmp}", str(tmp_path))]), "new", *words, json_out=False)
    assert len(line) < 400


def test_new_still_creates_missing_directories(tmp_path):
    target = tmp_path / "a" / "b" / "x.toml"
    proc = run(["new", target])
    assert proc.returncode == 0 and target.is_file()
    refused(run(["new", target]), "new", "exists", json_out=False)


# --- item 8: prove -------------------------------------------------------------------------------

@pytest.mark.parametrize("seconds", ["nan", "inf", "-1", "0"])
def test_prove_a_non_finite_budget_is_refused(seconds):
    refused(run(["prove", "proofs/theorems/wang_i1.toml", "--seconds", seconds, "--json"]), "prove", "--seconds")


@pytest.mark.parametrize("binding, words", [('d = "-5", k = "1"', ("region.let.d", "d = -5", "need d >= 2")),
                                            ('d = "2", k = "-1"', ("region.let.k", "k = -1", "need k >= 1"))])
def test_prove_a_binding_outside_the_spec_range_is_refused(tmp_path, binding, words):
    text = Path("proofs/theorems/wang_i1.toml").read_text().replace('d = "2", k = "1"', binding)
    claims = tmp_path / "claims.toml"
    claims.write_text(text)
    refused(run(["prove", claims, "--json"]), "prove", *words)


# --- item 8: specs that would state false things ---------------------------------------------------

def test_a_reversed_input_interval_is_refused_at_load(tmp_path):
    spec = tmp_path / "laplace_reversed.toml"
    spec.write_text((SPECS / "laplace_mean.toml").read_text().replace('low = "-M"', 'low = "2*M"')
                    .replace('high = "M"', 'high = "-2*M"'))
    for command in ("show", "verify"):
        refused(run([command, spec, "--json"]), command, "inputs.low = 2*M is above inputs.high = -2*M",
                "swap them")


def test_a_zero_scale_is_refused_at_load(tmp_path):
    spec = tmp_path / "piecewise_zero.toml"
    spec.write_text((SPECS / "piecewise_multidim.toml").read_text().replace('scale = "d/k"', 'scale = "0"'))
    for command in ("show", "verify"):
        refused(run([command, spec, "--json"]), command, "channel.scale = 0", "non-zero scale")
