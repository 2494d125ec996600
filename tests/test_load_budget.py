"""Every command loads its spec under one time and memory budget (issue 19, part 4(b)).

The issue's hostile weight ``exp(epsilon)**(d**d**d)`` used to make ``show``, ``check`` and
``derive`` burn CPU until killed (validating it at the sample point d = 3 raises e^ε to the
power 3**27). Now the power tower is refused statically (exit 2, naming the field), and what
slips past that guard (``3**3**d`` grows as fast) is stopped by the load budget (exit 3, naming
the budget and the option that raises it): one line on stderr, well within 10 s of CPU, from
every command that loads a spec."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import cli_inprocess

from ldpaudit import budget
from ldpaudit.cli import main
from ldpaudit.errors import BudgetSpent, InvalidSpec
from ldpaudit.mechanism import loader
from ldpaudit.mechanism.expr import check_budget, parse_expression
from ldpaudit.mechanism.loader import load_bound, load_budgeted, load_spec, loads_spec

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"
KRR = (SPECS / "krr.toml").read_text()
TRUTH = 'weight = "exp(epsilon)/(exp(epsilon) + d - 1)"'
#: the issue's weight, normalized so that the row-sum check is not what stops it
TOWER = 'weight = "exp(epsilon)**(d**d**d)/(exp(epsilon)**(d**d**d) + d - 1)"'
#: as explosive, with a number at the bottom of the tower: passes the static guard
# no tower (the exponent 2**d has a constant base), but sympy's identity check of the row sum runs for minutes
SLIP = 'weight = "(exp(epsilon)**(2**d) + 1)**40/((exp(epsilon)**(2**d) + 1)**40 + d - 1)"'
CPU_LIMIT = 10.0  # seconds of CPU for the whole command (the acceptance bound)


def hostile(tmp_path: Path, weight: str, name: str) -> Path:
    assert KRR.count(TRUTH) == 1
    path = tmp_path / f"{name}.toml"
    path.write_text(KRR.replace(TRUTH, weight))
    return path


def run_cli(*argvs: list[str]) -> list[tuple[subprocess.CompletedProcess, float]]:
    """``ldpaudit ARGV`` for each ARGV, each in a fresh process, all at once: each one's result
    and the CPU it used with its children (os.wait4's, per process)."""
    running = []
    for argv in argvs:
        out, err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
        proc = subprocess.Popen([sys.executable, "-m", "ldpaudit.cli", *argv], stdout=out, stderr=err, text=True,
                                cwd=ROOT)
        running.append((argv, proc, out, err))
    results = []
    deadline = time.monotonic() + 120
    for argv, proc, out, err in running:
        while (reaped := os.wait4(proc.pid, os.WNOHANG))[0] == 0:
            if time.monotonic() > deadline:
                for _, other, _, _ in running:
                    other.kill()
                pytest.fail(f"ldpaudit {' '.join(argv)} still running after 120 s")
            time.sleep(0.05)
        _, status, usage = reaped
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0), err.seek(0)
        results.append((subprocess.CompletedProcess(argv, proc.returncode, out.read(), err.read()),
                        usage.ru_utime + usage.ru_stime))
        out.close(), err.close()
    return results


def run_here(argv: list[str]) -> tuple[subprocess.CompletedProcess, float]:
    """``ldpaudit ARGV`` in this process from the checkout: its result and the CPU it used."""
    return cli_inprocess.run_with_cpu(*argv, cwd=ROOT)


def one_line(proc: subprocess.CompletedProcess, code: int) -> str:
    """Exit ``code`` with exactly one line on stderr: that line."""
    assert proc.returncode == code, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def command(name: str, path: Path, *options: str) -> list[str]:
    if name == "audit":  # the spec guides the audit of a reference k-RR
        return ["audit", "ldpaudit.mechanism.randomizers:krr", "--target-arg", "d=4", "--target-arg", "epsilon=1",
                "--batch", "--no-isolate", "--samples", "1000", "--spec", str(path), "-p", "d=4", "-p", "epsilon=1",
                *options]
    extra = {"derive": ["--no-cache"], "check": ["--audit-samples", "200"]}.get(name, [])
    return [name, str(path), *extra, *options]


# --- the case, end to end -------------------------------------------------------------


def test_the_power_tower_is_bad_input_naming_the_field_in_every_command(tmp_path):
    """``show`` as a fresh process, as a user starts it; the other commands in this process (the
    same refusal at the same place, without an interpreter's start-up each)."""
    path = hostile(tmp_path, TOWER, "tower")
    names = ["show", "check", "derive", "verify"]
    results = run_cli(command("show", path)) + [run_here(command(name, path)) for name in names[1:]]
    for name, (proc, cpu) in zip(names, results):
        line = one_line(proc, 2)
        assert line.startswith(f"ldpaudit: error: {path}: channel.classes[0].weight = 'exp(epsilon)**(d**d**d)/"), name
        assert "d**(d**d) is a power tower: its exponent raises a parameter to a parameter (d**d)" in line, name
        assert cpu < CPU_LIMIT, f"{name} used {cpu:.1f} s of CPU"


@pytest.mark.slow
def test_what_slips_past_the_guard_spends_the_load_budget_in_every_command(tmp_path):
    path = hostile(tmp_path, SLIP, "slip")
    runs = {"show": [],  # the default budget, as a user gets it
            **{name: ["--load-timeout", "1"] for name in ("check", "derive", "verify", "audit")}}
    results = run_cli(*(command(name, path, *options) for name, options in runs.items()))
    for (name, options), (proc, cpu) in zip(runs.items(), results):
        seconds = options[1] if options else f"{budget.LOAD_SECONDS:g}"
        assert one_line(proc, 3) == (
            f"ldpaudit: inconclusive: loading spec '{path}': used {seconds} s of CPU time, "
            "the CPU budget of loading; raise it with --load-timeout SECONDS"
        ), name
        assert cpu < CPU_LIMIT, f"{name} used {cpu:.1f} s of CPU"


def test_check_of_a_directory_gives_the_spent_spec_its_row_and_checks_the_others(tmp_path):
    (tmp_path / "krr.toml").write_text(KRR)
    slip = hostile(tmp_path, SLIP, "slip")
    proc, cpu = run_here(["check", str(tmp_path), "--json", "--audit-samples", "2000", "--load-timeout", "0.3",
                          "--jobs", "1"])
    line = one_line(proc, 3)  # UNKNOWN: the budget was spent, nothing was shown wrong
    rows = {Path(r["spec"]).stem: r for r in json.loads(proc.stdout)["specs"]}
    assert json.loads(proc.stdout)["verdict"] == "UNKNOWN"
    assert rows["slip"]["verdict"] == "UNKNOWN" and not rows["slip"]["ok"]
    assert rows["slip"]["error"] == (f"loading spec '{slip}': used 0.3 s of CPU time, the CPU budget "
                                     "of loading; raise it with --load-timeout SECONDS")
    assert line == f"ldpaudit: inconclusive: {rows['slip']['error']}"
    assert rows["krr"]["verdict"] == "OK" and rows["krr"]["stages"]["verify"]["verdict"] == "PROVED"
    assert rows["krr"]["example"] == {"d": "8", "epsilon": "1"}
    assert cpu < 2 * CPU_LIMIT


def _processes_mentioning(text: str) -> list[int]:
    """Live processes whose command line mentions ``text`` (a zombie's is empty)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and text.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's parent-death signal (prctl)")
def test_a_load_inside_verify_dies_with_verify(tmp_path):
    """verify's own --timeout stops its child while that child's load child is still running:
    the load child must die with it, not burn CPU as an orphan."""
    path = hostile(tmp_path, SLIP, "slip")
    [(proc, _)] = run_cli(["verify", str(path), "--timeout", "1", "--load-timeout", "60"])
    assert proc.returncode == 3 and "budget exceeded: used its 1 s of CPU time" in proc.stdout
    deadline = time.monotonic() + 10
    while (left := _processes_mentioning(str(path))) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"processes {left} still loading {path}"


# --- the budgeted loader --------------------------------------------------------------------------


def _all_fields(mech) -> dict:
    return {f.name: getattr(mech, f.name) for f in dataclasses.fields(mech)}


@pytest.mark.parametrize("path", sorted(SPECS.glob("*.toml")), ids=lambda p: p.stem)
def test_a_normal_spec_loads_identically_through_the_budget(path, monkeypatch):
    calls = []
    call = budget.call
    monkeypatch.setattr(budget, "call", lambda *a, **k: calls.append(k) or call(*a, **k))
    family, example = load_budgeted(path, example=True)
    assert [(c["seconds"], c["memory_mb"]) for c in calls] == [(budget.LOAD_SECONDS, budget.LOAD_MEMORY_MB)]
    direct = load_spec(path)
    assert family == direct and _all_fields(family) == _all_fields(direct)  # spec_path, notes too
    assert family.spec_path == str(path) and family.notes == direct.notes
    direct_example = direct.bind_example()
    assert example == direct_example and _all_fields(example) == _all_fields(direct_example)
    assert loader.dumps_spec(family) == loader.dumps_spec(direct)


def test_bindings_and_catalog_names_go_through_the_same_door():
    family, bound = load_budgeted(SPECS / "krr.toml", ["d=4", "epsilon=1/2"])
    assert family == load_spec(SPECS / "krr.toml")
    assert bound == load_bound(SPECS / "krr.toml", ["d=4", "epsilon=1/2"]) and bound.bindings[0][1] == 4
    family, same = load_budgeted("krr")  # a catalog constructor without bindings: built in-process
    assert family is same and family == load_bound("krr", None)
    assert load_budgeted("krr", ["d=3"])[1] == load_bound("krr", ["d=3"])


def test_a_bad_spec_raises_its_own_error_through_the_child(tmp_path):
    text = KRR.replace(TRUTH, 'weight = "exp(epsilon)/(exp(epsilon) + d)"')
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(InvalidSpec) as direct:
        loads_spec(text, source=str(path))
    with pytest.raises(InvalidSpec) as budgeted:
        load_budgeted(path)
    assert str(budgeted.value) == str(direct.value) and "each row must sum to 1" in str(budgeted.value)


def test_a_memory_hog_spends_the_memory_budget(monkeypatch):
    monkeypatch.setattr(loader, "_load_and_bind", lambda *a: bytearray(2**31))  # 2 GiB, in the child
    with pytest.raises(BudgetSpent) as info:
        load_budgeted(SPECS / "krr.toml", memory_mb=200)
    assert str(info.value) == (f"loading spec '{SPECS / 'krr.toml'}': needed more than 200 MiB of memory, the memory "
                               "budget of loading; raise it with --load-memory-mb MB")


def test_a_memory_error_while_loading_is_inconclusive_in_one_line(monkeypatch, capsys):
    def hog(*args):
        raise MemoryError

    monkeypatch.setattr(loader, "_load_and_bind", hog)
    assert main(["show", "specs/krr.toml", "--load-memory-mb", "300"]) == 3
    err = capsys.readouterr().err
    assert err == ("ldpaudit: inconclusive: loading spec 'specs/krr.toml': needed more than 300 MiB of memory, "
                   "the memory budget of loading; raise it with --load-memory-mb MB\n")


def _hog_inside_budget():
    """A job with a 4000 MiB budget started inside a job with a 300 MiB budget."""
    return budget.call(bytearray, 2**30, seconds=30, memory_mb=4000, label="inner")


def test_a_budget_inside_a_budget_never_gets_more_memory():
    with pytest.raises(budget.BudgetExceeded) as info:
        budget.call(_hog_inside_budget, seconds=30, memory_mb=300, label="outer")
    assert info.value.resource == "memory" and info.value.limit == 4000  # the inner job's, sent back whole
    assert budget.call(bytearray, 2**20, seconds=30, memory_mb=300) == bytearray(2**20)


@pytest.mark.parametrize("option, value, message", [
    ("--load-timeout", "0", "--load-timeout '0' must be a positive number of seconds"),
    ("--load-timeout", "soon", "--load-timeout 'soon' is not a number of seconds"),
    ("--load-memory-mb", "10", "--load-memory-mb '10' is below the 64 MiB"),
])
def test_bad_load_budgets_are_bad_input(option, value, message, capsys):
    for name in ("show", "check", "derive", "verify"):
        assert main([name, "specs/krr.toml", option, value]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


def test_verify_keeps_its_budget_module_under_the_old_name():
    from ldpaudit.verify import budget as verify_budget

    assert verify_budget.call is budget.call and verify_budget.BudgetExceeded is budget.BudgetExceeded
    assert verify_budget.DEFAULT_SECONDS == 60.0


# --- the static guard -----------------------------------------------------------------------------

SYMBOLS = {name: __import__("sympy").Symbol(name, positive=True) for name in ("d", "epsilon", "j")}


@pytest.mark.parametrize("text, tower", [
    ("d**d**d", "d**(d**d)"),
    ("exp(epsilon)**(d**d)", "(exp(epsilon))**(d**d)"),
    ("2**(epsilon*d**(j + 1))", "2**(d**(j + 1)*epsilon)"),
])
def test_a_power_tower_of_parameters_is_refused(text, tower):
    with pytest.raises(InvalidSpec) as info:
        parse_expression(text, SYMBOLS, field="channel.classes[0].weight")
    assert str(info.value).startswith(f"channel.classes[0].weight = {text!r}: {tower} is a power tower")


@pytest.mark.parametrize("text", ["d**d", "exp(epsilon)**d", "exp(epsilon*2**(-j))", "(1 + epsilon)**(d**2)",
                                  "epsilon**(d**(1/2))", "2**(2**d)"])
def test_powers_that_are_not_towers_of_parameters_still_parse(text):
    assert parse_expression(text, SYMBOLS, field="f").free_symbols


def test_the_guard_covers_expressions_built_through_the_api():
    d, eps = SYMBOLS["d"], SYMBOLS["epsilon"]
    import sympy as sp

    with pytest.raises(InvalidSpec, match=r"w = exp\(d\*\*\(d\*\*d\)\*epsilon\): d\*\*\(d\*\*d\) is a power tower"):
        check_budget(sp.exp(eps * d ** (d**d)), field="w")
    check_budget(sp.exp(eps * d**d), field="w")  # one level less: allowed
