"""The command line as a user runs it: exit codes, one-line errors, stable JSON."""

import json
from pathlib import Path

import pytest

import cli_inprocess

from ldpaudit.cli import main
from ldpaudit.schema import SCHEMA_VERSION


def run(*args):
    return cli_inprocess.run(*args)     # the command line in this process (tests/cli_inprocess.py)


def test_show_json_has_a_stable_schema(capsys):
    assert main(["show", "specs/krr.toml", "-p", "d=3", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert set(payload) == {
        "schema_version", "command", "verdict", "mechanism", "description", "source", "spec", "parameters", "bindings", "inputs",
        "claimed_epsilon", "claimed_epsilon_latex", "channel", "validation",
    }
    assert payload["mechanism"] == "k-RR"
    assert payload["bindings"] == {"d": "3"}
    assert [p["name"] for p in payload["parameters"]] == ["epsilon"]
    classes = payload["channel"]["classes"]
    assert [c["when"] for c in classes] == ["y == x", "y != x"]
    assert classes[0]["weight"] == "exp(epsilon)/(exp(epsilon) + 2)"
    assert classes[1]["count"] == "2"


def test_show_text_pretty_prints_the_channel(capsys):
    assert main(["show", "specs/wrr.toml", "-p", "epsilon=log(3)"]) == 0
    out = capsys.readouterr().out
    assert "W-RR" in out and "3/4" in out and "\\left[\\begin{matrix}" in out


def test_check_exit_status_follows_the_worst_stage(tmp_path, capsys):
    """A spec whose claim is false makes `check` exit 1 (a refutation), not 0 or 2."""
    spec = (Path("specs") / "krr.toml").read_text().replace('claimed_epsilon = "epsilon"', 'claimed_epsilon = "epsilon/2"')
    (tmp_path / "halved.toml").write_text(spec)
    assert main(["check", str(tmp_path / "halved.toml"), "--json", "--audit-samples", "2000"]) == 1
    row = json.loads(capsys.readouterr().out)["specs"][0]
    assert row["verdict"] == "REFUTED" and row["stages"]["verify"]["witness"]["x"] != row["stages"]["verify"]["witness"]["x_prime"]


def test_check_reports_an_invalid_spec_as_bad_input(tmp_path, capsys):
    (tmp_path / "bad.toml").write_text('[mechanism]\nname = "x"\n')
    assert main(["check", str(tmp_path), "--json"]) == 2  # bad input, not a refutation
    row = json.loads(capsys.readouterr().out)["specs"][0]
    assert row["ok"] is False and "claimed_epsilon" in row["error"]


@pytest.mark.parametrize(
    "args,message",
    [
        (["show", "specs/missing.toml"], "spec file 'specs/missing.toml' does not exist"),
        (["show", "specs/ksubset.toml", "-p", "d=5", "-p", "k=7"], "parameter k = 7 of k-subset is out of range: need k <= d - 1 = 4"),
        (["show", "specs/krr.toml", "-p", "d"], "-p 'd' is not name=value"),
        (["show", "specs/krr.toml", "-p", "q=1"], "unknown parameter 'q' for k-RR"),
        (["show", "specs/krr.toml", "-p", "epsilon=__import__('os')"], "not allowed"),
        (["check", "nowhere/"], "spec 'nowhere/' does not exist"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_no_traceback(args, message):
    proc = run(*args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_check_jobs_gives_the_sequential_rows_in_file_order(tmp_path, capsys):
    import shutil

    for name in ("krr.toml", "wrr.toml", "oue.toml"):
        shutil.copy(Path(__file__).resolve().parents[1] / "specs" / name, tmp_path / name)

    def rows(jobs):
        assert main(["check", str(tmp_path), "--json", "--audit-samples", "500", "--jobs", jobs]) == 0
        out = json.loads(capsys.readouterr().out)["specs"]
        for r in out:                                    # timings are the only thing allowed to differ
            for stage in r["stages"].values():
                stage.pop("seconds", None)
        return out

    sequential, parallel = rows("1"), rows("3")
    assert [r["spec"] for r in parallel] == sorted(str(p) for p in tmp_path.glob("*.toml"))
    assert parallel == sequential
    assert main(["check", str(tmp_path), "--jobs", "0"]) == 2
    assert "--jobs '0' is not a whole number >= 1" in capsys.readouterr().err


def test_a_second_check_of_unchanged_specs_is_served_from_the_cache(tmp_path, monkeypatch, capsys):
    """Rows are functions of the spec's bytes (budgets count work): the second check reads them
    back (the summary says how many), an edited spec is checked afresh, and a row that spent a
    budget is never kept."""
    monkeypatch.setenv("LDPAUDIT_CACHE_DIR", str(tmp_path / "cache"))
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "krr.toml").write_text((Path("specs") / "krr.toml").read_text())
    argv = ["check", str(specs), "--json", "--audit-samples", "2000", "--jobs", "1"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["cached"] == 0 and first["summary"] == {"OK": 1}
    [entry] = (tmp_path / "cache" / "check").iterdir()
    assert json.loads(entry.read_text()) == first["specs"][0]
    assert main(argv) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["cached"] == 1 and second["specs"] == first["specs"]
    assert main(argv[:2] + ["--audit-samples", "2000", "--jobs", "1"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("1 spec: 1 OK (1 unchanged since an earlier check: from the cache)")
    # a planted row proves the lookup; an edit to the spec is another key
    row = json.loads(entry.read_text())
    entry.write_text(json.dumps({**row, "mechanism": "from the cache"}))
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["specs"][0]["mechanism"] == "from the cache"
    (specs / "krr.toml").write_text((specs / "krr.toml").read_text() + "\n# edited\n")
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["cached"] == 0


def test_check_summary_counts_each_status(tmp_path, capsys):
    (tmp_path / "krr.toml").write_text((Path("specs") / "krr.toml").read_text())
    (tmp_path / "halved.toml").write_text((Path("specs") / "krr.toml").read_text().replace(
        'claimed_epsilon = "epsilon"', 'claimed_epsilon = "epsilon/2"'))
    (tmp_path / "bad.toml").write_text('[mechanism]\nname = "x"\n')
    assert main(["check", str(tmp_path), "--audit-samples", "2000", "--jobs", "1"]) == 2
    assert capsys.readouterr().out.rstrip().splitlines()[-1] == "3 specs: 1 INVALID, 1 REFUTED, 1 OK"


def test_a_validated_load_is_read_back_without_loading_again(tmp_path, monkeypatch):
    from ldpaudit import budget
    from ldpaudit.mechanism.loader import load_budgeted

    monkeypatch.setenv("LDPAUDIT_CACHE_DIR", str(tmp_path / "cache"))
    family, mech = load_budgeted("specs/square_wave.toml", ["epsilon=1", "b=1/2"])

    def no_work(*args, **kwargs):
        raise AssertionError("loaded again")

    monkeypatch.setattr(budget, "call", no_work)
    again_family, again = load_budgeted("specs/square_wave.toml", ["epsilon=1", "b=1/2"])
    assert again == mech and again_family == family and again.spec_path == mech.spec_path
    with pytest.raises(AssertionError, match="loaded again"):
        load_budgeted("specs/square_wave.toml", ["epsilon=2", "b=1/2"])  # other bindings: another key


def test_check_refutes_a_false_epsilon_delta_claim_by_its_delta(tmp_path, capsys):
    """A Gaussian claiming δ = 10^-10 at the example's σ: the row's reason is the excess
    δ(1) ≈ 4.11e-8 > 10^-10 (what refutes an (ε, δ) claim), not a probability ratio."""
    spec = (Path("specs") / "gaussian.toml").read_text().replace('claimed_delta = "1/100000"',
                                                                'claimed_delta = "1/10000000000"')
    (tmp_path / "g.toml").write_text(spec)
    assert main(["check", str(tmp_path / "g.toml"), "--json", "--audit-samples", "2000", "--jobs", "1"]) == 1
    row = json.loads(capsys.readouterr().out)["specs"][0]
    verify = row["stages"]["verify"]
    assert verify["verdict"] == "REFUTED"
    assert verify["text"] == "REFUTED: δ(1) ≈ 4.11369e-8 > δ = 1/10000000000 (pair x=1, x'=0)"
    assert "Phi" in verify["exact_delta"]


def test_show_and_verify_outputs_are_read_back_for_the_same_bytes(tmp_path, monkeypatch, capsys):
    """A second show/verify of the same command line on the same spec bytes prints the same
    text from the cache (a planted entry proves the lookup); an edited spec, a certificate
    (it writes files) and an inconclusive verdict are never answered from it."""
    monkeypatch.setenv("LDPAUDIT_CACHE_DIR", str(tmp_path / "cache"))
    spec = tmp_path / "krr.toml"
    spec.write_text((Path("specs") / "krr.toml").read_text())
    for argv in (["show", str(spec)], ["verify", str(spec), "--tight"], ["verify", str(spec), "--epsilon", "1/2", "-p", "d=4"]):
        code = main(argv)
        first = capsys.readouterr().out
        assert main(argv) == code and capsys.readouterr().out == first
    entries = sorted((tmp_path / "cache" / "output").iterdir())
    assert len(entries) == 3
    refuted = [e for e in entries if e.read_text().startswith("1\n")]
    assert len(refuted) == 1 and "REFUTED" in refuted[0].read_text()
    refuted[0].write_text("1\nplanted\n")
    assert main(["verify", str(spec), "--epsilon", "1/2", "-p", "d=4"]) == 1 and capsys.readouterr().out == "planted\n"
    spec.write_text(spec.read_text() + "\n# edited\n")
    assert main(["verify", str(spec), "--epsilon", "1/2", "-p", "d=4"]) == 1
    assert capsys.readouterr().out.startswith("REFUTED: ")
    assert main(["verify", str(spec), "--certificate", str(tmp_path / "cert")]) == 0
    assert any((tmp_path / "cert").iterdir())
    assert main(["verify", str(spec), "--rlimit", "1"]) == 3   # UNKNOWN: not kept
    assert len(list((tmp_path / "cache" / "output").iterdir())) == 4
