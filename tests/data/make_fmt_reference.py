"""Regenerate tests/data/fmt_reference.json: Apple's reference implementation of the numerical
shuffling bound of Feldman, McMillan & Talwar ("Hiding among the clones", FOCS 2021),
``computeamplification.py``, on a grid of (ε0, n, δ).

The file ships inside the PyPI package ldp-hierarchical-mechanism (its header: "FROM:
https://github.com/apple/ml-shuffling-amplification"). The package's ``__init__`` imports
pure-ldp and statsmodels, which fail with current scipy, so the wheel is downloaded without
dependencies and that one file is loaded by path. Nothing of it is copied into ldpaudit.

    python tests/data/make_fmt_reference.py            # downloads the wheel with pip
    python tests/data/make_fmt_reference.py WHEEL.whl  # or uses a wheel at hand

For each point the reference's upper bound (``upperbound=True``) and lower bound
(``upperbound=False``) are recorded, with ``num_iterations`` = 20 and ``step`` = 100. The
reference needs n > step (for n <= step its loop over C never runs and it returns ε ~ 0), so
the grid starts at n = 1000.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

PACKAGE = "ldp-hierarchical-mechanism"
VERSION = "0.1.3"
MEMBER = "hierarchical_mechanism_LDP/computeamplification.py"
GRID = [(eps0, n, delta) for eps0 in (0.5, 1.0, 2.0, 3.0, 4.0)
        for n in (1_000, 10_000, 100_000) for delta in (1e-6, 1e-8)]
ITERATIONS, STEP = 20, 100
OUT = Path(__file__).with_name("fmt_reference.json")


def download(where: Path) -> Path:
    """The wheel, by pip (no dependencies: only one file of it is used)."""
    subprocess.run([sys.executable, "-m", "pip", "download", f"{PACKAGE}=={VERSION}", "--no-deps",
                    "--only-binary", ":all:", "-d", str(where), "-q"], check=True, timeout=300)
    return next(where.glob("*.whl"))


def load_reference(wheel: Path, where: Path):
    """(module, sha256 of the wheel, sha256 of computeamplification.py)."""
    with zipfile.ZipFile(wheel) as zf:
        source = zf.read(MEMBER)
    path = where / "computeamplification.py"
    path.write_bytes(source)
    spec = importlib.util.spec_from_file_location("computeamplification", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, hashlib.sha256(wheel.read_bytes()).hexdigest(), hashlib.sha256(source).hexdigest()


def reference_points(module, grid=GRID) -> list[dict]:
    points = []
    for eps0, n, delta in grid:
        t = time.perf_counter()
        upper = module.numericalanalysis(n, eps0, delta, ITERATIONS, STEP, True)
        seconds = time.perf_counter() - t
        lower = module.numericalanalysis(n, eps0, delta, ITERATIONS, STEP, False)
        points.append({"epsilon0": eps0, "n": n, "delta": delta, "epsilon_reference": upper,
                       "epsilon_reference_lower": lower, "reference_seconds": round(seconds, 4)})
    return points


def main(argv: list[str]) -> None:
    import numpy
    import scipy

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        wheel = Path(argv[0]) if argv else download(tmp)
        module, wheel_sha, file_sha = load_reference(wheel, tmp)
        points = reference_points(module)
    OUT.write_text(json.dumps({
        "source": f"{PACKAGE} {VERSION} (PyPI), {MEMBER}: Apple's ml-shuffling-amplification",
        "wheel": wheel.name, "wheel_sha256": wheel_sha, "file_sha256": file_sha,
        "call": f"numericalanalysis(n, epsilon0, delta, num_iterations={ITERATIONS}, step={STEP}, upperbound=True/False)",
        "resolution": "the reference's bisection stops at 2^-20 of its starting upper end",
        "scipy": scipy.__version__, "numpy": numpy.__version__, "python": sys.version.split()[0],
        "generated_by": "python tests/data/make_fmt_reference.py",
        "points": points,
    }, indent=1) + "\n")
    print(f"{len(points)} points -> {OUT}")


if __name__ == "__main__":
    main(sys.argv[1:])
