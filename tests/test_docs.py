"""The documentation site (docs/, mkdocs.yml) builds and its examples run.

* ``mkdocs build --strict`` into a temporary directory: a broken link or anchor, a page missing
  from the nav, a snippet naming a file that is gone or a docstring mkdocstrings cannot render
  fails the suite. The CLI reference page is generated from the real argument parser at build
  time; the built page is checked to list every subcommand and option.
* Every example on the pages is executed, from the repository root: each ```python block as a
  script in the test's process (it must not raise or exit non-zero), and each ```console block
  line by line: ``$ ldpaudit ...`` is run, the lines after it are output it must print, and a
  trailing ``# exit N`` is the exit status it must end with (0 when absent). The commands in SLOW
  run only with -m slow, each with its reason.
  ```bash blocks are illustrations that need what the repository has not (your randomizer, a
  cluster) and are not run. Paths under /tmp/ldpaudit-docs- are written to a temporary
  directory instead.
* The README stays one screen: at most 8,000 characters, starting with the two commands.
"""

from __future__ import annotations

import html
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_hooks" not in p.parts)
TMP_PREFIX = "/tmp/ldpaudit-docs-"

#: console commands of the docs that are not run here, with the reason
SLOW = {
    "ldpaudit reproduce joseph2018 --out /tmp/ldpaudit-docs-proofs":
        "about 35 s (simulates the four protocols); tests/test_joseph2018.py runs it",
    "ldpaudit reproduce localhashing --out /tmp/ldpaudit-docs-proofs":
        "about 7 s; tests/test_reproduce.py regenerates it and diffs it with proofs/ (-m slow), and the "
        "default suite reproduces gaussian through the same command (tests/test_vocabulary.py)",
}

README_HEAD = (
    "# ldpaudit\n"
    "\n"
    "    python -m pip install -e . && ldpaudit check specs/\n"
    "    python -m pip install -e '.[test]' && python -m pytest\n"
)

FENCE = re.compile(r"^```(\w[\w-]*)[^\n]*\n(.*?)^```\s*$", re.M | re.S)


def _blocks(language: str) -> list[tuple[str, int, str]]:
    """(page, line, body) of every fenced block of this language on the pages."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            if m.group(1) == language:
                found.append((str(page.relative_to(ROOT)), text.count("\n", 0, m.start()) + 1, m.group(2)))
    return found


def _commands() -> list[tuple[str, int, str, list[str]]]:
    """(page, line, command, expected output lines) of every ``$`` line in a console block."""
    found = []
    for page, line, body in _blocks("console"):
        current = None
        for i, text in enumerate(body.splitlines()):
            if text.startswith("$ "):
                current = (page, line + 1 + i, text[2:].strip(), [])
                found.append(current)
            elif text.strip():
                assert current is not None, f"{page}:{line}: output before any $ command"
                current[3].append(text.strip())
    return found


def _env(tmp_path: Path) -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT), LDPAUDIT_CACHE_DIR=str(tmp_path / "cache"),
                NO_MKDOCS_2_WARNING="1", PYTHONHASHSEED="0")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                           cwd=ROOT, capture_output=True, text=True, timeout=300, env=_env(out))
    assert build.returncode == 0, build.stderr[-3000:]
    return out


def test_site_builds_strict_with_every_page(site):
    for page in PAGES:
        rel = page.relative_to(DOCS)
        built = site / (rel.parent if rel.name == "index.md" else rel.with_suffix("")) / "index.html"
        assert built.exists(), f"{page} was not built"
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    for name in ("load_spec", "tight_epsilon", "delta_for", "assert_ldp", "sequential_audit", "InvalidSpec"):
        assert re.search(rf'id="ldpaudit\.[\w.]*{name}"', api), name     # rendered from the docstrings


def test_cli_reference_is_generated_from_the_parser(site):
    import argparse

    from ldpaudit.cli import COMMANDS, build_parser

    page = html.unescape(re.sub(r"<[^>]+>", "", (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")))
    assert "ldpaudit-cli-reference" not in page           # the marker was replaced
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == set(COMMANDS)
    for name, child in sub.choices.items():
        assert f"ldpaudit {name}" in page and f"usage: ldpaudit {name}" in page, name
        for action in child._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            for option in action.option_strings:
                assert option in page, f"{name} {option}"
            if action.help and action.help != argparse.SUPPRESS and "%(" not in action.help:
                assert " ".join(action.help.split()) in " ".join(page.split()), f"{name}: {action.help}"


PYTHON = _blocks("python")


@pytest.mark.parametrize("page,line,body", PYTHON, ids=[f"{p}:{n}" for p, n, _ in PYTHON])
def test_python_example_runs(page, line, body, tmp_path, monkeypatch, capsys):
    """Run as a script (``__name__ == "__main__"``, from the repository's root) in this process,
    so the examples share one import of sympy and z3 instead of paying for it each; an example's
    ``subprocess.run`` of ldpaudit runs in this process too."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("LDPAUDIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(ROOT))
    monkeypatch.setattr(subprocess, "run", _ldpaudit_in_process(subprocess.run))
    try:
        exec(compile(body, f"{page}:{line}", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
    except SystemExit as exc:
        assert exc.code in (None, 0), f"{page}:{line}: exit {exc.code}\n{capsys.readouterr().err[-3000:]}"


def _ldpaudit_in_process(real_run):
    """``subprocess.run`` for an example: ``[python, -m, ldpaudit or ldpaudit.cli, ...]`` with its
    output captured as text runs through ``ldpaudit.cli.main`` here (tests/cli_inprocess.py), any
    other command as it would."""
    from cli_inprocess import run as run_in_process

    def run(argv, *args, **kwargs):
        if (not args and isinstance(argv, list) and argv[:2] == [sys.executable, "-m"]
                and argv[2] in ("ldpaudit", "ldpaudit.cli") and set(kwargs) == {"capture_output", "text"}
                and kwargs["capture_output"] and kwargs["text"]):
            done = run_in_process(*argv[3:])
            return subprocess.CompletedProcess(argv, done.returncode, done.stdout, done.stderr)
        return real_run(argv, *args, **kwargs)

    return run


COMMANDS_RUN = [c if c[2] not in SLOW else pytest.param(*c, marks=pytest.mark.slow) for c in _commands()]


@pytest.mark.parametrize("page,line,command,expected", COMMANDS_RUN,
                         ids=[f"{p}:{n}" for p, n, _, _ in _commands()])
def test_console_example_runs(page, line, command, expected, tmp_path, monkeypatch, capsys):
    """Run in this process through ``ldpaudit.cli.main`` (what the ``ldpaudit`` script calls),
    so the commands share one import of sympy and z3 instead of paying for it each."""
    from ldpaudit import cli

    argv = shlex.split(command.replace(TMP_PREFIX, f"{tmp_path}/"), comments=True)
    comment = re.search(r"#\s*exit\s+(\d+)\s*$", command)
    want = int(comment.group(1)) if comment else 0
    monkeypatch.chdir(ROOT)
    while argv and re.fullmatch(r"[A-Z_]+=.*", argv[0]):     # NAME=value before the command
        name, _, value = argv.pop(0).partition("=")
        monkeypatch.setenv(name, value)
        if name == "PYTHONPATH":        # what a new interpreter would put on sys.path
            for entry in reversed(value.split(os.pathsep)):
                monkeypatch.syspath_prepend(str(ROOT / entry))
    assert argv[0] == "ldpaudit", f"{page}:{line}: only ldpaudit commands are run: {command}"
    monkeypatch.setenv("LDPAUDIT_CACHE_DIR", str(tmp_path / "cache"))
    code = cli.main(argv[1:])
    out, err = capsys.readouterr()
    assert code == want, f"{page}:{line}: {command}\n{out[-2000:]}\n{err[-2000:]}"
    # what the terminal shows, both streams; the command wraps its lines (80 columns here)
    flat = " ".join((out + "\n" + err).split())
    for text in expected:
        assert _shows(flat, " ".join(text.split())), \
            f"{page}:{line}: {command}: the page shows {text!r}; got\n{out[-2000:]}\n{err[-2000:]}"


def _shows(flat: str, text: str) -> bool:
    """Whether ``text`` is in ``flat``, where "..." on the page stands for text left out: its
    pieces appear in order."""
    at = 0
    for piece in (p.strip() for p in text.split("...")):
        if piece:
            found = flat.find(piece, at)
            if found < 0:
                return False
            at = found + len(piece)
    return True


def test_examples_are_found_and_skips_are_listed():
    commands = {c for _, _, c, _ in _commands()}
    assert len(_blocks("python")) >= 8 and len(commands) >= 25
    assert set(SLOW) <= commands, "a skipped command is no longer in the docs: drop it from SLOW"


def test_readme_is_one_screen_and_starts_with_the_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme) <= 8000, len(readme)
    assert readme.startswith(README_HEAD)
    assert "mkdocs serve" in readme and "docs/" in readme
