"""Start-up stays cheap: `ldpaudit --help`, `--version` and usage errors import none of the
heavy libraries (sympy, scipy, z3, matplotlib, numpy); each command imports only its own stage."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("sympy", "scipy", "z3", "matplotlib", "numpy", "rich")

_PROBE = """
import contextlib, io, json, sys
from ldpaudit.cli import main
err = io.StringIO()
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
    code = main(sys.argv[1:])
heavy = sorted({m.split('.')[0] for m in sys.modules} & set(json.loads(%r)))
print(json.dumps({"code": code, "heavy": heavy}))
"""


def _probe(*argv):
    proc = subprocess.run([sys.executable, "-c", _PROBE % json.dumps(HEAVY), *argv],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("argv,code", [
    (["--help"], 0),
    (["--version"], 0),
    (["no-such-command"], 2),
    ([], 2),
    (["--bogus"], 2),
])
def test_nothing_heavy_before_a_command_runs(argv, code):
    result = _probe(*argv)
    assert result == {"code": code, "heavy": []}


def test_a_command_imports_its_stage():
    result = _probe("show", "specs/wrr.toml")
    assert result["code"] == 0 and "sympy" in result["heavy"]
