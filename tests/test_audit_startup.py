"""What an audit costs before it samples: ``ldpaudit audit ... --epsilon 1`` imports neither
sympy nor z3 (a plain decimal needs no exact-expression parser, and ``ldpaudit.mechanism`` imports
its submodules on first use); ``--epsilon "log(3)"`` does need sympy and still works."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_PROBE = """
import contextlib, io, json, sys
from ldpaudit.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:])
loaded = sorted({m.split('.')[0] for m in sys.modules} & {"sympy", "z3", "matplotlib", "rich", "numpy"})
print(json.dumps({"code": code, "loaded": loaded, "verdict": json.loads(out.getvalue())["verdict"]}))
"""

AUDIT = ["audit", "benchmarks/krr_vectorized.py:make", "--batch", "--target-arg", "d=4", "--target-arg", "epsilon=1",
         "--domain", "0..3", "--samples", "20000", "--no-isolate", "--json"]


def _probe(*argv):
    proc = subprocess.run([sys.executable, "-c", _PROBE, *argv], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_an_audit_with_a_decimal_epsilon_imports_no_sympy():
    result = _probe(*AUDIT, "--epsilon", "1")
    assert result["code"] == 0 and result["verdict"] == "NO_EVIDENCE"
    assert result["loaded"] == ["numpy"]


def test_an_exact_expression_still_takes_the_parser():
    result = _probe(*AUDIT, "--epsilon", "log(3)")
    assert result["code"] == 0 and result["verdict"] == "NO_EVIDENCE"
    assert "sympy" in result["loaded"] and "z3" not in result["loaded"]


def test_the_spec_package_names_resolve_on_first_use():
    proc = subprocess.run([sys.executable, "-c", (
        "import sys, ldpaudit.mechanism as s\n"
        "assert 'sympy' not in sys.modules\n"
        "from ldpaudit.mechanism import Mechanism, k_rr, load_spec, options\n"
        "import ldpaudit.mechanism.model as facade\n"
        "assert s.core.Mechanism is Mechanism is facade.Mechanism and k_rr(d=3).inputs.size == 3\n"
        "assert all(getattr(facade, n) is getattr(s, n) for n in s.__all__ if hasattr(facade, n))\n"
        "assert sorted(s.__all__) == sorted(set(s.__all__))\n"
        "try:\n    s.no_such_name\nexcept AttributeError as exc:\n    print(exc)\n")],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "has no attribute 'no_such_name'" in proc.stdout
