"""Certificates: every file in proofs/certificates/ is re-checked by z3 on its own (the z3
binary of the z3-solver package, or, without it, a fresh z3 in a subprocess that never
imports ldpaudit), is pinned to the current spec text by its SHA-256, and regenerating them
changes nothing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from ldpaudit.papers.golden import json_differences, same_toolchain
from ldpaudit.mechanism import load_spec, spec_sha256
from ldpaudit.mechanism.catalog import k_rr
from ldpaudit.verify import verify, write_certificate
from ldpaudit.verify.certificate import reproduce_certificates

ROOT = Path(__file__).resolve().parents[1]
CERTS = ROOT / "proofs" / "certificates"
SMT2 = sorted(CERTS.glob("*.smt2"))

_RECHECK = """
import sys, z3
text = open(sys.argv[1]).read()
for part in text.split("(reset)"):
    s = z3.Solver()
    s.from_string(part)
    print(s.check())
"""


def z3_binary() -> str | None:
    beside = Path(sys.executable).parent / "z3"
    if beside.exists():
        return str(beside)
    return shutil.which("z3")


def recheck(path: Path) -> list[str]:
    binary = z3_binary()
    if binary is not None:
        out = subprocess.run([binary, str(path)], capture_output=True, text=True, timeout=120)
    else:
        out = subprocess.run([sys.executable, "-c", _RECHECK, str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 or out.stdout, out.stderr
    return out.stdout.split()


def test_every_bundled_spec_has_certificates():
    from ldpaudit.mechanism import load_spec
    from ldpaudit.verify.certificate import smt_certified

    specs = sorted((ROOT / "specs").glob("*.toml"))
    stems = {p.stem for p in specs if smt_certified(load_spec(p))}
    assert stems >= {p.stem for p in specs} - {"gaussian"}  # only the density (ε, δ) claim has no SMT proof
    assert {p.stem for p in SMT2} >= stems | {f"{s}-example" for s in stems}


@pytest.mark.parametrize("path", SMT2, ids=[p.stem for p in SMT2])
def test_certificate_rechecks_with_z3_alone(path):
    meta = json.loads(path.with_suffix(".json").read_text())
    expected = [q["expected"] for q in meta["queries"]]
    assert expected and all(e == "unsat" for e in expected)
    assert recheck(path) == expected
    assert meta["verdict"] == "PROVED"
    assert meta["solver"]["name"] == "z3" and meta["solver"]["random_seed"] == 0 and meta["solver"]["version"]


@pytest.mark.parametrize("path", SMT2, ids=[p.stem for p in SMT2])
def test_certificate_is_pinned_to_the_spec_text(path):
    meta = json.loads(path.with_suffix(".json").read_text())
    spec = ROOT / meta["spec"]
    assert meta["spec_sha256"] == spec_sha256(spec), f"{spec} changed: run `ldpaudit reproduce certificates`"
    mech = load_spec(spec)
    if meta["params"]:
        mech = mech.bind(meta["params"])
    assert meta["claim"]["epsilon"] == sp.sstr(mech.claimed_epsilon)


def test_python_fallback_recheck_agrees(tmp_path):
    """Without the z3 binary: a fresh interpreter that imports only z3."""
    path = CERTS / "ksubset.smt2"
    out = subprocess.run([sys.executable, "-c", _RECHECK, str(path)], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["unsat", "unsat"]


def _queries(smt2_text: str) -> list[str]:
    return [line for line in smt2_text.splitlines() if line.startswith("; query ")]


@pytest.mark.slow
def test_regenerating_certificates_changes_nothing(tmp_path):
    """What a certificate proves is compared, never the solver's version: the JSON value by
    value (versions are metadata), the SMT-LIB queries by their description and expected answer,
    and their text to the letter only under the z3 major.minor that wrote the committed files.
    Slow (13 s): by default every committed certificate is rechecked by z3 alone and pinned to
    its spec's text (the tests above), so a spec edit without regeneration still fails."""
    written = reproduce_certificates(tmp_path)
    assert len(written) == len(list(CERTS.iterdir()))
    letter = same_toolchain(ROOT / "proofs")
    for path in written:
        committed = CERTS / path.name
        stale = f"{path.name} is stale: run `ldpaudit reproduce certificates`"
        if path.suffix == ".json":
            assert json_differences(json.loads(path.read_text()), json.loads(committed.read_text())) == [], stale
        else:
            assert _queries(path.read_text()) == _queries(committed.read_text()), stale
            if letter:
                assert path.read_text() == committed.read_text(), stale


def test_a_solver_patch_release_is_not_a_difference():
    """The failure a fresh install met: the committed files record z3 5.4.0, pip installs 5.4.1."""
    committed = json.loads((CERTS / "krr.json").read_text())
    bumped = json.loads(json.dumps(committed))
    bumped["solver"]["version"] = "5.4.1"
    bumped["ldpaudit_version"] = "9.9.9"
    assert json_differences(bumped, committed) == []
    bumped["verdict"] = "REFUTED"
    assert json_differences(bumped, committed) == ["$.verdict: generated \"REFUTED\", committed \"PROVED\""]
    bumped = json.loads(json.dumps(committed))
    bumped["tight_epsilon"] = "2*epsilon/2"  # printed differently, means the same
    assert json_differences(bumped, committed) == []
    bumped["tight_epsilon"] = "epsilon/2"
    assert json_differences(bumped, committed)


def test_refutation_certificate_rechecks(tmp_path):
    verdict = verify(k_rr(d=8, epsilon=1), epsilon="999/1000")
    paths = write_certificate(verdict, tmp_path, name="krr-refuted")
    smt2 = [p for p in paths if p.suffix == ".smt2"][0]
    meta = json.loads(smt2.with_suffix(".json").read_text())
    assert meta["verdict"] == "REFUTED" and meta["witness"]["ratio"] == "E"
    assert recheck(smt2) == ["unsat"]  # the claim at the witness contradicts the exact entries


def test_certificate_of_an_instance_records_the_binding(tmp_path):
    verdict = verify(k_rr(d=8, epsilon=sp.log(3)))
    paths = write_certificate(verdict, tmp_path, name="krr-d8", spec_path=ROOT / "specs" / "krr.toml")
    meta = json.loads(paths[-1].read_text())
    assert meta["params"] == {"d": "8", "epsilon": "log(3)"}
    assert meta["spec"] == "specs/krr.toml" and len(meta["spec_sha256"]) == 64
    assert recheck(paths[0]) == ["unsat"]


def test_decimals_agree_to_ten_significant_digits():
    """A float computed by an older sympy differs in its 12th digit: the same result."""
    a = {"l1": {"expr": "10.2226488770233/sqrt(n)"}}
    assert json_differences(a, {"l1": {"expr": "10.2226488770294/sqrt(n)"}}) == []
    assert json_differences(a, {"l1": {"expr": "10.2226481/sqrt(n)"}}) != []
