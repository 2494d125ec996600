"""Every command with ``--json`` prints exactly one JSON object on stdout whatever its exit
status (issue 35, item 2): bad input, a usage error, an internal error and an interruption
each come out as the shared keys (``schema_version``, ``command``, ``verdict``) and ``error``
(kind, message, exception), beside the one line on stderr. And the auditor's own JSON-lines
parser reads a 5,001-digit integer instead of blaming the randomizer for Python's limit."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import sys
from types import SimpleNamespace

import pytest

from ldpaudit import cli
from ldpaudit.schema import SCHEMA_VERSION, VERDICTS


def run(argv) -> SimpleNamespace:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(a) for a in argv])
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def one_object(proc, command: str) -> dict:
    """stdout is exactly one JSON object with the shared keys, its verdict the exit status's."""
    doc = json.loads(proc.stdout)  # raises on 0 bytes or on two objects
    assert isinstance(doc, dict)
    assert list(doc)[:3] == ["schema_version", "command", "verdict"]
    assert doc["schema_version"] == SCHEMA_VERSION and doc["command"] == command
    assert VERDICTS[doc["verdict"]] == proc.returncode, (doc, proc.stderr)
    return doc


def one_line(proc) -> str:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


RAISING = "def rand(x):\n    raise RuntimeError('boom')\n"

#: command -> (argv with bad input, words of the one-line message)
BAD_INPUT = {
    "check": (["check", "no_such_spec.toml"], "does not exist"),
    "show": (["show", "no_such_spec.toml"], "does not exist"),
    "derive": (["derive", "no_such_spec.toml"], "does not exist"),
    "verify": (["verify", "krr", "-p", "d=1"], "d = 1"),
    "audit": (["audit", "{tmp}/raising.py:rand", "--no-isolate", "--domain", "0..1", "--epsilon", "1",
               "--samples", "1000"], "boom"),
    "reproduce": (["reproduce", "no_such_paper"], "no_such_paper"),
    "simulate": (["simulate", "kv2", "--n", str(10**20), "--trials", "1"], "--n"),
    "profile": (["profile", "krr", "-p", "d=1"], "d = 1"),
    "bench": (["bench", "--only", "no-such-bug"], "no-such-bug"),
    "optimize": (["optimize", "-p", "d=1", "-p", "epsilon=1"], "d = 1"),
    "amplify": (["amplify", "krr", "-p", "d=1", "-p", "epsilon=1", "--n", "100", "--delta", "1e-6"], "d = 1"),
    "prove": (["prove", "no_such_claims.toml"], "does not exist"),
    "extract": (["extract", "no_such_dir/randomizer.py:rand", "--domain", "0..1"], "does not exist"),
    "audit-estimator": (["audit-estimator", "ldpaudit.mechanism.randomizers:oue", "estimator_servers:short_server",
                         "--spec", "oue", "-p", "d=4", "-p", "epsilon=1", "--n", "50", "--trials", "10"], "--target-arg d=VALUE"),
}


def test_every_json_command_is_covered():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    with_json = {name for name, p in sub.choices.items() if any("--json" in a.option_strings for a in p._actions)}
    assert with_json == set(BAD_INPUT)


@pytest.mark.parametrize("command", sorted(BAD_INPUT))
def test_bad_input_is_one_json_object(command, tmp_path):
    (tmp_path / "raising.py").write_text(RAISING)
    argv, words = BAD_INPUT[command]
    proc = run([a.replace("{tmp}", str(tmp_path)) for a in argv] + ["--json"])
    assert proc.returncode == 2, proc.stderr
    line = one_line(proc)
    assert line.startswith("ldpaudit: error:") and words in line
    doc = one_object(proc, command)
    assert doc["verdict"] == "INVALID"
    assert doc["error"]["kind"] in ("bad input", "usage")
    assert words in doc["error"]["message"] and doc["error"]["message"] in line


@pytest.mark.parametrize("argv", [["verify", "--json"], ["verify", "krr", "--no-such-option", "--json"],
                                  ["simulate", "kv2", "--seed", "-1", "--json"],
                                  ["derive", "no_such_spec.toml", "--format", "json"]])
def test_usage_errors_are_one_json_object(argv):
    proc = run(argv)
    assert proc.returncode == 2
    line = one_line(proc)
    doc = one_object(proc, argv[0])
    assert doc["verdict"] == "INVALID" and doc["error"]["message"] in line


def test_no_json_without_the_flag():
    proc = run(["verify", "no_such_spec.toml"])
    assert proc.returncode == 2 and proc.stdout == ""


def test_audit_command_option_does_not_rename_the_command():
    # audit's own --command (a JSON-lines program) shares argparse's dest with the subcommand
    proc = run(["audit", "--command", "/nonexistent/program", "--domain", "0..1", "--epsilon", "1", "--json"])
    assert proc.returncode == 2
    one_line(proc)
    assert one_object(proc, "audit")["error"]["exception"] == "RandomizerError"


def _boom(*args, **kwargs):
    raise ZeroDivisionError("injected fault")


def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


@pytest.mark.parametrize("argv, where", [
    (["verify", "krr"], ("ldpaudit.mechanism.core", "_validate")),
    (["show", "krr"], ("ldpaudit.mechanism.core", "_validate")),
    (["derive", "krr", "--no-cache"], ("ldpaudit.mechanism.core", "_validate")),
    (["optimize", "-p", "d=3", "-p", "epsilon=1"], ("ldpaudit.extremal.staircase", "solve_float")),
    (["profile", "krr"], ("ldpaudit.account.pld", "pair_pld")),
])
def test_an_internal_error_is_one_json_object(argv, where, monkeypatch):
    monkeypatch.setattr(importlib.import_module(where[0]), where[1], _boom)
    proc = run([*argv, "--json"])
    assert proc.returncode == 4
    assert "not a verdict" in one_line(proc)
    doc = one_object(proc, argv[0])
    assert doc["verdict"] == "INTERNAL_ERROR"
    assert doc["error"] == {"kind": "internal error", "message": "ZeroDivisionError: injected fault",
                            "exception": "ZeroDivisionError"}


def test_an_interruption_is_one_json_object(monkeypatch):
    monkeypatch.setattr(importlib.import_module("ldpaudit.mechanism.core"), "_validate", _interrupt)
    proc = run(["verify", "krr", "--json"])
    assert proc.returncode == 130
    assert one_line(proc) == "ldpaudit: interrupted"
    assert one_object(proc, "verify")["verdict"] == "INTERRUPTED"


def test_a_command_that_printed_its_object_gets_no_second_one(monkeypatch):
    def prints_then_fails(args):
        print(json.dumps({"schema_version": SCHEMA_VERSION, "command": "show", "verdict": "OK"}))
        raise ZeroDivisionError("after printing")

    monkeypatch.setattr(importlib.import_module("ldpaudit.mechanism.command"), "cmd_show", prints_then_fails)
    proc = run(["show", "krr", "--json"])
    assert proc.returncode == 4
    assert json.loads(proc.stdout)["verdict"] == "OK"  # one object: the command's own


def test_stdout_is_restored_after_a_json_run():
    before = sys.stdout
    run(["verify", "no_such_spec.toml", "--json"])
    assert sys.stdout is before


# --- the auditor's JSON-lines parser and Python's 4,300-digit limit ----------------------------

BIG = "1" + "0" * 5000

PROGRAM = """import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if "count" not in request:
        print(json.dumps({"ok": True}), flush=True)
        continue
    out = %s
    print('{"outputs": [' + ",".join([out] * request["count"]) + ']}', flush=True)
"""


@pytest.mark.parametrize("output, verdict", [(repr(BIG), "NO_EVIDENCE"),
                                             (f"{BIG!r} if request['input'] == 0 else '1'", "VIOLATION")])
def test_a_5001_digit_integer_is_read_not_blamed_on_the_randomizer(output, verdict, tmp_path):
    program = tmp_path / "big.py"
    program.write_text(PROGRAM % output)
    proc = run(["audit", "--command", f"{sys.executable} {program}", "--domain", "0..1", "--epsilon", "1",
                "--samples", "400", "--json"])
    assert "4300" not in proc.stderr and "randomizer raised" not in proc.stderr, proc.stderr
    doc = one_object(proc, "audit")
    assert doc["verdict"] == verdict, (doc, proc.stderr)
    if verdict == "VIOLATION":
        assert BIG in json.dumps(doc["witness"]) or "1" in json.dumps(doc["witness"])
