"""A child process that runs this machine as a plainer CPU, for the tests that results do not
depend on the CPU (tests/test_portable.py, tests/test_cpu_independence.py)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
X86 = platform.machine().lower() in ("x86_64", "amd64")


def dispatched_features() -> list[str]:
    """numpy's SIMD targets beyond its baseline that this CPU has (what NPY_DISABLE_CPU_FEATURES
    can switch off: X86_V3, X86_V4, AVX512_ICL, ... on numpy 2.4; ASIMDHP, SVE, ... on ARM)."""
    from numpy._core import _multiarray_umath as umath

    baseline = set(umath.__cpu_baseline__)
    return [f for f in umath.__cpu_dispatch__ if f not in baseline and umath.__cpu_features__.get(f)]


def other_cpu_env() -> dict:
    """The environment of a process on a plainer CPU: numpy's dispatched SIMD targets off
    (NPY_DISABLE_CPU_FEATURES: numpy's own exp, log, power, sin take their baseline paths),
    glibc's AVX2/FMA/AVX-512 variants of exp, log, pow, sin off (GLIBC_TUNABLES), OpenBLAS on its
    oldest x86-64 kernels (OPENBLAS_CORETYPE)."""
    env = dict(os.environ)
    features = dispatched_features()
    if features:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(features)
    if X86:
        env["GLIBC_TUNABLES"] = "glibc.cpu.hwcaps=-AVX2,-FMA,-AVX512F"
        env["OPENBLAS_CORETYPE"] = "Prescott"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def run(args: list[str], *, plain: bool, timeout: int = 900) -> subprocess.CompletedProcess:
    """``python args...`` here or on the plainer CPU; fails the test on a non-zero exit."""
    out = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=timeout,
                         env=other_cpu_env() if plain else None)
    assert out.returncode == 0, out.stderr[-2000:]
    return out
