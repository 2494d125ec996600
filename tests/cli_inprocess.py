"""``ldpaudit`` command lines run in the test's own process through ``ldpaudit.cli.main`` (what
the console script calls), answered as ``subprocess.run(..., capture_output=True, text=True)``
answers: a test of a command's output and exit status then shares the worker's one import of
sympy, z3 and numpy instead of paying about a second of CPU for a new interpreter. A test of what
only a separate process shows (a signal, the interpreter's exit, its environment or resource
limits, a kill mid-run) starts one."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess


def run(*args: str, env: dict | None = None, cwd=None) -> subprocess.CompletedProcess:
    """``ldpaudit ARGS`` with ``env`` (variables set for the command, then restored) from ``cwd``."""
    from ldpaudit.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved, here = {k: os.environ.get(k) for k in env or {}}, os.getcwd()
    try:
        os.environ.update({k: str(v) for k, v in (env or {}).items()})
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([str(a) for a in args])
            except SystemExit as exc:      # argparse's usage errors (2), --help (0)
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        os.chdir(here)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return subprocess.CompletedProcess(["ldpaudit", *args], code, out.getvalue(), err.getvalue())


def run_with_cpu(*args: str, env: dict | None = None, cwd=None) -> tuple[subprocess.CompletedProcess, float]:
    """:func:`run`, and the CPU seconds the command used (not the wall time): this process's and
    that of the children it waited for (the load, verify and derive jobs run in forked children)."""
    import resource

    def cpu() -> float:
        return sum(u.ru_utime + u.ru_stime for u in map(resource.getrusage, (resource.RUSAGE_SELF,
                                                                             resource.RUSAGE_CHILDREN)))

    before = cpu()
    proc = run(*args, env=env, cwd=cwd)
    return proc, cpu() - before
