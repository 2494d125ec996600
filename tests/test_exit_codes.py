"""One exit-code contract for every command: 0 ok, 1 refuted/violation, 2 bad input,
3 unknown, 4 internal error. An internal error is injected into every command and must come
out as exit 4 with one line on stderr, never as 1 (a verdict) and never as a traceback,
unless --debug asks for it."""

from __future__ import annotations

import importlib

import pytest

from ldpaudit import cli

KRR = "specs/krr.toml"

#: command -> (argv, how to inject a fault deep in what that command runs)
COMMANDS = {
    "check": (["check", KRR], ("ldpaudit.mechanism.core", "_validate")),
    "show": (["show", KRR], ("ldpaudit.mechanism.core", "_validate")),
    "verify": (["verify", KRR], ("ldpaudit.mechanism.core", "_validate")),
    "derive": (["derive", KRR], ("ldpaudit.mechanism.core", "_validate")),
    "reproduce": (["reproduce", "duchi2013", "--out", "{tmp}"], ("ldpaudit.papers.golden", "write_toolchain")),
    "simulate": (["simulate", "kv2", "--n", "1000", "--trials", "2"], ("ldpaudit.protocol.command", "run")),
    "bench": (["bench", "--only", "rr-8bit-coin", "--quick"], ("ldpaudit.bench.runner", "score")),
    "new": (["new", "{tmp}/new.toml", "--from", "krr"], ("ldpaudit.mechanism.loader", "dumps_spec")),
    "optimize": (["optimize", "-p", "d=3", "-p", "epsilon=1"], ("ldpaudit.extremal.staircase", "solve_float")),
    "profile": (["profile", KRR], ("ldpaudit.account.pld", "pair_pld")),
    "amplify": (["amplify", KRR, "-p", "d=3", "-p", "epsilon=1", "--n", "100", "--delta", "1e-6"],
                ("ldpaudit.account.shuffle", "channel_facts")),
    "prove": (["prove", "proofs/theorems/wang_ibeta.toml"], ("ldpaudit.theorems.prover", "prove_file")),
    "extract": (["extract", "ldpaudit/mechanism/perdraw.py:krr", "--target-arg", "d=3", "--domain", "0..2"],
                ("ldpaudit.extract.spec", "choose_form")),
    "audit-estimator": (["audit-estimator", "ldpaudit.mechanism.randomizers:oue", "--batch", "--target-arg", "d=4",
                         "--target-arg", "epsilon=1", "estimator_servers:oue_as_sue_server", "--server-arg", "d=4",
                         "--server-arg", "epsilon=1", "--spec", "oue", "-p", "d=4", "-p", "epsilon=1", "--n", "50",
                         "--trials", "10"],
                        ("ldpaudit.audit.estimator", "estimator_audit")),
    "audit": (
        ["audit", "ldpaudit.mechanism.randomizers:reference_for", "--no-isolate", "--domain", "0..1", "--epsilon", "1"],
        ("ldpaudit.audit.command", "run"),
    ),
}


def _boom(*args, **kwargs):
    raise ZeroDivisionError("injected fault")


def _inject(monkeypatch, where):
    module, name = where
    monkeypatch.setattr(importlib.import_module(module), name, _boom)


def _argv(command, tmp_path):
    return [a.replace("{tmp}", str(tmp_path)) for a in COMMANDS[command][0]]


def test_every_command_is_covered():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    assert set(sub.choices) == set(COMMANDS), "add the new command to COMMANDS with a fault to inject"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_internal_error_exits_4_in_one_line(command, monkeypatch, capsys, tmp_path):
    _inject(monkeypatch, COMMANDS[command][1])
    code = cli.main(_argv(command, tmp_path))
    err = capsys.readouterr().err
    assert code == 4
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"ldpaudit: internal error in '{command}': ZeroDivisionError: injected fault")
    assert "--debug" in lines[0] and "not a verdict" in lines[0]
    assert "Traceback" not in err


def test_debug_shows_the_traceback(monkeypatch, capsys):
    _inject(monkeypatch, COMMANDS["verify"][1])
    assert cli.main(["verify", KRR, "--debug"]) == 4
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "_boom" in err
    assert err.strip().splitlines()[-1].startswith("ldpaudit: internal error in 'verify'")


@pytest.mark.parametrize("exc", [RecursionError("deep"), MemoryError(), KeyError("k"), TypeError("t")])
def test_any_exception_type_is_internal(exc, monkeypatch, capsys):
    def raise_it(*a, **k):
        raise exc

    # after loading: a MemoryError while loading is the load budget's (exit 3, tests/test_load_budget.py)
    monkeypatch.setattr(importlib.import_module("ldpaudit.mechanism.command"), "show_payload", raise_it)
    assert cli.main(["show", KRR]) == 4
    assert capsys.readouterr().err.count("\n") == 1


def test_the_contract_itself(capsys):
    assert cli.main(["verify", KRR]) == 0                                   # proved
    assert cli.main(["verify", KRR, "--epsilon", "epsilon - 1/1000"]) == 1  # refuted
    assert cli.main(["verify", "no/such/spec.toml"]) == 2                   # bad input
    assert cli.main(["verify", KRR, "--bogus-flag"]) == 2                   # usage error
    assert cli.main(["--version"]) == 0
    out = capsys.readouterr()
    assert "PROVED" in out.out and "REFUTED" in out.out


def test_check_on_an_invalid_spec_is_bad_input_not_a_refutation(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('[mechanism]\nname = "x"\nclaimed_epsilon = "1"\n')
    assert cli.main(["check", str(bad)]) == 2


def test_help_states_the_contract(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for code, meaning in cli.EXIT_STATUS.items():
        assert f"{code} {meaning}" in " ".join(out.split())


def test_a_closed_output_stops_the_command_with_141_never_0(monkeypatch):
    """`ldpaudit ... | head`: the reader goes away before the answer is written. The command
    stops quietly, and its status says it did not finish (128 + SIGPIPE), not "proved"."""
    import io
    import os
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)                                   # the reader is gone
    stream = io.TextIOWrapper(os.fdopen(write_end, "wb", buffering=0), write_through=True)
    monkeypatch.setattr(sys, "stdout", stream)
    try:
        assert cli.main(["show", "specs/krr.toml"]) == cli.EXIT_PIPE_CLOSED == 141
    finally:
        monkeypatch.undo()
        stream.close()
