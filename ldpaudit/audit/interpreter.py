"""``--python PATH``: the isolation worker run by another interpreter (another virtual environment).

A library often pins what ldpaudit's environment cannot hold (diffprivlib 0.6.6 does not import
with scikit-learn 1.9; pure-ldp needs xxhash < 4). With ``--python`` the sandboxed worker runs
under that environment's interpreter, so the library loads there and never in ldpaudit's process.
The worker is *shipped*: the few modules it imports (:data:`SHIPPED`: the worker, its replies'
encoding, the target loader, the seeding arithmetic, the errors; the standard library and numpy
only) are copied into the sandbox's scratch directory, and a bootstrap puts them first on the
interpreter's path and takes ldpaudit's own directory off it, so nothing else of ldpaudit's
environment is importable there. The other environment needs numpy (any version; the seeds are numpy's own where its
algorithms differ from :mod:`ldpaudit.audit.seeds`) and Python 3.10 or later; without them the
worker says so as a load error (one line, exit 2).

Target arguments are read there too, by the same rules and the target's annotations: integers,
decimals and fractions p/q need nothing more; an exact expression such as ``log(3)`` is resolved
by the auditor, which has the spec parser, and sent along (as a rational, or an irrational's
nearest float: :func:`ldpaudit.audit.targets.presolved`), so that it reads there as it reads here.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ldpaudit.errors import InvalidParameter

#: the package's root directory (the one that holds ``ldpaudit/``)
PACKAGE_ROOT = Path(__file__).resolve().parents[2]
#: the modules the isolation worker imports, relative to the package root (the packages
#: themselves are shipped as empty ones: their public API is not the worker's)
SHIPPED = (
    "ldpaudit/errors.py",
    "ldpaudit/audit/replies.py",
    "ldpaudit/audit/seeds.py",
    "ldpaudit/audit/targets.py",
    "ldpaudit/audit/worker.py",
)
_PACKAGES = ("ldpaudit/__init__.py", "ldpaudit/audit/__init__.py")

#: run as ``python -c BOOTSTRAP SHIPPED_DIR PACKAGE_ROOT worker-arguments...``
BOOTSTRAP = r"""
import sys
shipped, dropped = sys.argv[1], sys.argv[2]
del sys.argv[1:3]
sys.path[:] = [shipped] + [p for p in sys.path if p != dropped and p != shipped]


def elsewhere(finder):     # a finder that would load ldpaudit from outside the shipped copy (an editable install)
    try:
        return finder.find_spec("ldpaudit", None) is not None
    except Exception:
        return False


import importlib.machinery
keep = (importlib.machinery.BuiltinImporter, importlib.machinery.FrozenImporter, importlib.machinery.PathFinder)
sys.meta_path[:] = [f for f in sys.meta_path if f in keep or not elsewhere(f)]


def refuse(text):
    import json
    sys.stdout.write(json.dumps({"error": text, "kind": "load"}) + "\n")
    sys.stdout.flush()
    sys.exit(1)


if sys.version_info < (3, 10):
    refuse("--python %s is Python %d.%d; the isolation worker needs Python 3.10 or later" % (
        sys.executable, sys.version_info[0], sys.version_info[1]))
try:
    import numpy
except Exception as exc:
    refuse("--python %s cannot import numpy (%s: %s); the isolation worker needs numpy in the target's "
           "environment: install it there (pip install numpy)" % (sys.executable, type(exc).__name__, exc))
import runpy
runpy.run_module("ldpaudit.audit.worker", run_name="__main__", alter_sys=True)
"""


def check_python(path: str) -> str:
    """``--python PATH`` as an absolute path to an executable file (symlinks kept: a virtual
    environment's ``bin/python`` is a link whose location makes it that environment's); one
    line naming the option, the value and the fix otherwise."""
    text = str(path).strip()
    found = shutil.which(text) if os.sep not in text else text
    if not found or not os.path.isfile(found):
        raise InvalidParameter(f"--python {text}: no such interpreter; give the python of the target's virtual "
                               f"environment, e.g. --python /path/to/venv/bin/python")
    if not os.access(found, os.X_OK):
        raise InvalidParameter(f"--python {text}: the file is not executable; give the python of the target's "
                               f"virtual environment, e.g. --python /path/to/venv/bin/python")
    return os.path.abspath(found)


def ship(directory: str) -> str:
    """Copy the worker's modules (:data:`SHIPPED`) under ``directory``; the directory to put
    first on the other interpreter's path."""
    for name in _PACKAGES:
        package = Path(directory, name)
        package.parent.mkdir(parents=True, exist_ok=True)
        package.write_text('"""ldpaudit\'s isolation worker, shipped to another interpreter (--python)."""\n')
    for name in SHIPPED:
        shutil.copyfile(PACKAGE_ROOT / name, Path(directory, name))
    return directory


def worker_argv(python: str, shipped: str, worker_args: list[str]) -> list[str]:
    """The command that runs the shipped worker under ``python`` with ``worker_args``."""
    return [python, "-c", BOOTSTRAP, shipped, str(PACKAGE_ROOT), *worker_args]
