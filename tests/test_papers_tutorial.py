"""The tutorial paper (examples/paper, docs/tutorials/your-own-paper.md) compiles as LaTeX with
its built fragments, where a TeX engine is installed; tests/test_docs.py builds and rebuilds it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = next((shutil.which(e) for e in ("pdflatex", "lualatex", "xelatex") if shutil.which(e)), None)


@pytest.mark.skipif(ENGINE is None, reason="no TeX engine (pdflatex, lualatex or xelatex) is installed")
def test_tutorial_fragments_compile(tmp_path):
    from ldpaudit.papers.command import build_manifest

    folder = tmp_path / "paper"
    shutil.copytree(ROOT / "examples" / "paper", folder, ignore=shutil.ignore_patterns("build"))
    assert build_manifest(folder / "paper.toml").exit_code == 0
    run = subprocess.run([ENGINE, "-interaction=nonstopmode", "-halt-on-error", "main.tex"], cwd=folder,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:]
    assert (folder / "main.pdf").stat().st_size > 10_000
