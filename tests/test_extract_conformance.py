"""Issue 36, item 3: the loop closed. The spec `extract` reads off a randomizer's source is
audited against the running code (`audit --spec`): the code conforms to what its source says;
the same code run at another ε than the spec is bound to does not."""

from __future__ import annotations

import json

from ldpaudit.cli import main

TARGET = "ldpaudit/mechanism/perdraw.py:krr"


def _audit(capsys, spec, epsilon: str) -> dict:
    code = main(["audit", TARGET, "--target-arg", "d=4", "--target-arg", f"epsilon={epsilon}", "--spec", str(spec),
                 "-p", "epsilon=1", "--domain", "0..3", "--samples", "5000", "--seed", "1", "--no-isolate", "--json"])
    payload = json.loads(capsys.readouterr().out)
    return code, payload


def test_extracted_spec_conforms_to_the_running_code(tmp_path, capsys):
    spec = tmp_path / "krr.toml"
    assert main(["extract", TARGET, "--target-arg", "d=4", "--domain", "0..3", "--out", str(spec)]) == 0
    capsys.readouterr()
    code, payload = _audit(capsys, spec, "1")
    assert code == 0 and payload["verdict"] == "NO_EVIDENCE"
    assert payload["conformance"]["passed"] is True and payload["conformance"]["rejected"] == 0
    # the code run at ε = 3/2 keeps the truth w.p. 0.60, the spec at ε = 1 says e/(e + 3) = 0.475
    code, payload = _audit(capsys, spec, "1.5")
    assert payload["conformance"]["passed"] is False and payload["conformance"]["rejected"] >= 1
