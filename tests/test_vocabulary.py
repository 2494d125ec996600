"""One vocabulary across commands: every ``--json`` carries ``schema_version``, ``command`` and
a ``verdict`` from :data:`ldpaudit.schema.VERDICTS` whose exit status is the process's; catalog
names work wherever a spec path does; every ε option takes exact expressions; the target
messages name the target and the fix (issue 11)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

import cli_inprocess

from ldpaudit.errors import InvalidParameter
from ldpaudit.schema import SCHEMA_VERSION, VERDICTS

KRR_TARGET = ["ldpaudit.mechanism.randomizers:krr", "--target-arg", "d=4", "--target-arg", "epsilon=1", "--batch"]

#: command -> argv (each with --json), run as a fresh process like a CI job would
RUNS = {
    "check": ["check", "specs/krr.toml", "--audit-samples", "2000"],
    "show": ["show", "specs/krr.toml"],
    "derive": ["derive", "specs/krr.toml", "--no-cache"],
    "verify": ["verify", "specs/krr.toml"],
    "audit": ["audit", *KRR_TARGET, "--domain", "0..3", "--epsilon", "1", "--samples", "20000"],
    "reproduce": ["reproduce", "gaussian", "--out", "{tmp}"],      # the quickest of the papers
    "simulate": ["simulate", "kv2", "--n", "1000", "--trials", "3"],
}


def _run(argv, tmp_path=None):
    """Run ``ldpaudit ARGV`` in this process (tests/cli_inprocess.py: exit code, stdout, stderr)."""
    return cli_inprocess.run(*(a.replace("{tmp}", str(tmp_path)) for a in argv))


def _one_line_error(proc) -> str:
    """Exit 2 (bad input) with exactly one line on stderr: that line."""
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def _run_process(argv):
    return subprocess.run([sys.executable, "-m", "ldpaudit.cli", *argv], capture_output=True, text=True, timeout=300)


def _payload(proc):
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("command", sorted(RUNS))
def test_every_command_speaks_one_schema(command, tmp_path):
    proc = _run([*RUNS[command], "--json"], tmp_path)
    payload = _payload(proc)
    assert payload["schema_version"] == SCHEMA_VERSION
    assert payload["command"] == command
    assert payload["verdict"] in VERDICTS, payload["verdict"]
    assert VERDICTS[payload["verdict"]] == proc.returncode, (payload["verdict"], proc.returncode, proc.stderr)
    assert proc.stderr.count("\r") == 0  # no progress line off a terminal


def test_verify_json_keeps_status_and_agrees_with_verdict():
    for spec, verdict, code in (("krr", "PROVED", 0),):
        proc = _run(["verify", spec, "--json"])
        payload = _payload(proc)
        assert (payload["verdict"], payload["status"], proc.returncode) == (verdict, verdict, code)
    # both sides of the bound: k-RR at d = 4, ε = 1 against the claims ln 3 (> 1) and 1/2 (< 1)
    above = _run(["verify", "krr", "-p", "d=4", "-p", "epsilon=1", "--epsilon", "log(3)", "--json"])
    below = _run(["verify", "krr", "-p", "d=4", "-p", "epsilon=1", "--epsilon", "1/2", "--json"])
    assert (_payload(above)["verdict"], above.returncode) == ("PROVED", 0)
    assert (_payload(below)["verdict"], below.returncode) == ("REFUTED", 1)


def test_verify_accepts_a_catalog_name_like_the_file():
    proc = _run_process(["verify", "krr", "--json"])  # a real process: its exit status is the verdict's
    assert proc.returncode == 0, proc.stderr
    by_name = _payload(proc)
    by_file = _payload(_run(["verify", "specs/krr.toml", "--json"]))
    assert by_name["verdict"] == by_file["verdict"] == "PROVED"
    assert by_name["mechanism"] == by_file["mechanism"] == "k-RR"


def test_an_unknown_spec_name_is_bad_input_naming_the_catalog():
    proc = _run(["verify", "no_such_spec"])
    assert proc.returncode == 2
    assert "neither a file nor a catalog name" in proc.stderr and "krr" in proc.stderr


def test_one_resolver_for_every_command():
    from ldpaudit.mechanism.loader import load_bound, load_budgeted, load_family, resolve_spec

    assert resolve_spec("krr") == "krr"
    assert str(resolve_spec("specs/krr.toml")) == "specs/krr.toml"
    assert load_budgeted("krr")[0].name == load_family("krr").name == "k-RR"
    assert load_bound("krr", ["d=4"]).parameter_names == ("epsilon",) or "epsilon" in load_bound("krr", ["d=4"]).parameter_names


def test_audit_takes_an_exact_epsilon_and_a_catalog_spec():
    # the reference k-RR at ε = 1 claimed at ln 3 > 1: no evidence; at 1/2 < 1: a violation
    common = [*KRR_TARGET, "--spec", "krr", "-p", "d=4", "-p", "epsilon=1", "--samples", "20000", "--json"]
    ok = _run(["audit", *common, "--epsilon", "log(3)"])
    payload = _payload(ok)
    assert ok.returncode == 0, ok.stderr
    assert payload["verdict"] == "NO_EVIDENCE"
    assert math.isclose(payload["epsilon_claimed"], math.log(3), rel_tol=1e-15)
    assert payload["epsilon_claimed_exact"] == "log(3)"
    assert payload["alpha"] == 0.01 and payload["confidence"] == 0.99
    assert payload["conformance"]["passed"] is True
    bad = _run(["audit", *common, "--epsilon", "1/2"])
    assert (_payload(bad)["verdict"], bad.returncode) == ("VIOLATION", 1)


@pytest.fixture(scope="module")
def audit_with_report(tmp_path_factory):
    """One audit of the reference k-RR against its spec at the default α, with --report: its
    output (what the same audit prints without --report, and the report's path) and the folder."""
    out = tmp_path_factory.mktemp("report")
    cache = tmp_path_factory.mktemp("ldpaudit-cache")  # made before the tests' own (conftest.py)
    proc = cli_inprocess.run("audit", *KRR_TARGET, "--domain", "0..3", "--epsilon", "1", "--samples", "20000",
                             "--spec", "krr", "-p", "d=4", "-p", "epsilon=1", "--report", str(out),
                             env={"LDPAUDIT_CACHE_DIR": str(cache), "COLUMNS": "1000"})
    return proc, out


def test_audit_default_alpha_is_stated_in_the_verdict_line(audit_with_report):
    proc, _ = audit_with_report
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first.startswith("NO_EVIDENCE:") and "confidence 0.99" in first and "α = 0.01" in first
    # the conformance result is a table, not a raw dict
    assert "conformance with the spec" in proc.stdout and "{'passed'" not in proc.stdout
    assert '"passed"' not in proc.stdout


def test_conformance_is_a_markdown_table_in_the_report(audit_with_report):
    proc, out = audit_with_report
    assert proc.returncode == 0, proc.stderr
    md = (out / "report.md").read_text()
    section = md.split("## Conformance with the spec", 1)[1].split("##", 1)[0]
    assert "| result | passed |" in section and "| family-wise α | 0.01 |" in section
    assert "```json" not in section


@pytest.mark.parametrize("text, value", [("1", 1.0), ("0.5", 0.5), ("1/3", 1 / 3), ("log(3)", math.log(3)),
                                         ("exp(1)/2", math.e / 2), ("2*log(2)", 2 * math.log(2))])
def test_exact_options_parse_to_the_nearest_float(text, value):
    from ldpaudit.mechanism.options import option_float

    assert option_float(text, "--epsilon") == value


@pytest.mark.parametrize("text, words", [
    ("eps", "unknown name 'eps'"),
    ('__import__("os").system("true")', "are allowed"),
    ('__import__("os")', "'__import__' is not allowed"),
    ("-1", "must be positive"),
    ("log(0)", "--epsilon"),
    ("1..2", "not a valid expression"),
])
def test_bad_exact_options_are_one_line_messages(text, words):
    from ldpaudit.mechanism.options import option_float

    with pytest.raises(InvalidParameter, match=None) as info:
        option_float(text, "--epsilon")
    message = str(info.value)
    assert words in message and "\n" not in message


def test_simulate_takes_an_exact_epsilon():
    exact = _payload(_run(["simulate", "kv2", "--n", "1000", "--trials", "3", "--epsilon", "log(3)", "--json"]))
    decimal = _payload(_run(["simulate", "kv2", "--n", "1000", "--trials", "3", "--epsilon", repr(math.log(3)), "--json"]))
    assert exact["results"][0]["constants"]["epsilon"] == math.log(3)
    assert exact["results"] == decimal["results"]  # same seed, same float: the same simulation
    bad = _run(["simulate", "kv2", "--epsilon", "eps"])
    assert bad.returncode == 2 and "--epsilon" in bad.stderr


# --- messages: one line naming the target and the fix ---------------------------------------

GOOD = "def rand(x):\n    return x\n\n\ndef helper(x):\n    return x\n"
BROKEN = "import no_such_module_for_ldpaudit_tests\n\n\ndef rand(x):\n    return x\n"


@pytest.mark.parametrize("isolate", ["--isolate", "--no-isolate"])
def test_a_factory_without_target_args_says_so(isolate):
    for batch, other in (([], "add --batch"), (["--batch"], "drop --batch")):
        proc = _run(["audit", "ldpaudit.mechanism.randomizers:krr", *batch, "--domain", "0..3", "--epsilon", "1",
                     "--samples", "1000", isolate])
        lines = [_one_line_error(proc)]
        assert "'ldpaudit.mechanism.randomizers:krr'" in lines[0]
        assert "--target-arg d=VALUE --target-arg epsilon=VALUE" in lines[0] and other in lines[0]
        assert "positional argument" not in lines[0] and "on input" not in lines[0]


@pytest.mark.parametrize("isolate", ["--isolate", "--no-isolate"])
def test_an_import_error_names_the_module(isolate, tmp_path):
    target = tmp_path / "broken.py"
    target.write_text(BROKEN)
    proc = _run(["audit", f"{target}:rand", "--domain", "0..3", "--epsilon", "1", "--samples", "1000", isolate])
    lines = [_one_line_error(proc)]
    assert f"the module '{target}' could not be imported" in lines[0]
    assert "No module named 'no_such_module_for_ldpaudit_tests'" in lines[0]
    assert "on input" not in lines[0]
    missing = _run(["audit", "no_such_package_zz:rand", "--domain", "0..3", "--epsilon", "1", isolate])
    assert missing.returncode == 2
    assert "the module 'no_such_package_zz' could not be imported" in missing.stderr
    assert "PYTHONPATH" in missing.stderr and "on input" not in missing.stderr


@pytest.mark.parametrize("isolate", ["--isolate", "--no-isolate"])
def test_a_missing_attribute_lists_what_is_there(isolate, tmp_path):
    target = tmp_path / "good.py"
    target.write_text(GOOD)
    proc = _run(["audit", f"{target}:rnad", "--domain", "0..3", "--epsilon", "1", "--samples", "1000", isolate])
    lines = [_one_line_error(proc)]
    assert f"has no attribute 'rnad' (its functions: helper, rand); fix the name after ':'" in lines[0]
    assert "on input" not in lines[0]


def test_load_target_checks_the_call_shape_only_when_told():
    from ldpaudit.audit.adapters import load_target
    from ldpaudit.mechanism.randomizers import krr

    assert load_target("ldpaudit.mechanism.randomizers:krr") is krr  # the API: no shape to check against
    with pytest.raises(InvalidParameter, match=r"cannot be called as f\(x, n, rng\)"):
        load_target("ldpaudit.mechanism.randomizers:krr", batch=True)
    sampler = load_target("ldpaudit.mechanism.randomizers:krr", {"d": "4", "epsilon": "1"}, batch=True)
    with pytest.raises(InvalidParameter, match=r"returned a randomizer taking \(x, n, rng\), which cannot be called as f\(x\); add --batch"):
        load_target("ldpaudit.mechanism.randomizers:krr", {"d": "4", "epsilon": "1"}, batch=False)
    assert callable(sampler)
