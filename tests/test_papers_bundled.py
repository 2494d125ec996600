"""The manifests bundled with ldpaudit (ldpaudit/papers/manifests/NAME/paper.toml) build in an
installed copy too, where the repository's specs/ folder does not exist: each of their
mechanisms is a catalog name or a spec file beside the manifest (a link to specs/ in the
repository, a plain file in the installed package), which the package-data globs of
pyproject.toml ship (issue 33.5)."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import pytest

from ldpaudit.mechanism.catalog import CATALOG
from ldpaudit.papers.bundled import MANIFESTS
from ldpaudit.papers.manifest import load_manifest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "ldpaudit"
BUNDLED = sorted(p.parent.name for p in MANIFESTS.glob("*/paper.toml"))


def shipped(path: Path) -> bool:
    """Whether a file under ldpaudit/ matches one of the package-data globs of pyproject.toml."""
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    parts = path.relative_to(PACKAGE).parts  # a glob's * stops at a /, as setuptools' does
    return any(len(parts) == len(g.split("/")) and all(map(fnmatch.fnmatchcase, parts, g.split("/")))
               for g in globs["ldpaudit"])


def test_the_papers_are_bundled():
    assert {"kairouz2016", "localhashing", "wang2017", "wang2019", "yebarg2017"} <= set(BUNDLED)


def problems(folder: Path) -> list[str]:
    """What a manifest folder reaches that an installed ldpaudit would not ship."""
    found = [] if shipped(folder / "paper.toml") else [f"{folder / 'paper.toml'} is not package data"]
    for mech in load_manifest(folder / "paper.toml").mechanisms.values():
        if mech.spec in CATALOG:
            continue
        written = Path(mech.spec)
        if written.is_absolute() or ".." in written.parts:
            found.append(f"mechanisms.{mech.name} = {mech.spec!r} reaches outside the manifest's folder")
        elif not (folder / written).is_file() or not shipped(folder / written):
            found.append(f"mechanisms.{mech.name} = {mech.spec!r} is not package data beside the manifest")
    return found


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_manifest_needs_no_source_checkout(name):
    assert problems(MANIFESTS / name) == [], ("use a catalog name, or link the spec beside the manifest "
                                              "(ldpaudit/papers/manifests/wang2019/piecewise.toml)")


def test_a_path_into_the_repository_is_caught(tmp_path, monkeypatch):
    """A manifest that reaches the repository's specs/ by a relative path (the old form of the
    wang2019 entries) and one with a spec in a subfolder (not matched by the package-data globs) are both named."""
    package = tmp_path / "ldpaudit"
    folder = package / "papers" / "manifests" / "toy"
    folder.mkdir(parents=True)
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "krr.toml").write_text((ROOT / "specs" / "krr.toml").read_text(encoding="utf-8"))
    (folder / "extra").mkdir()
    (folder / "extra" / "krr.toml").write_text((ROOT / "specs" / "krr.toml").read_text(encoding="utf-8"))
    (folder / "paper.toml").write_text('[paper]\ntitle = "Toy"\noutput = "build"\n\n[mechanisms]\n'
                                       'a = "../../../../specs/krr.toml"\nb = "extra/krr.toml"\nc = "krr"\n'
                                       '\n[[derivation]]\nmechanism = "c"\n')
    monkeypatch.setitem(globals(), "PACKAGE", package)
    assert problems(folder) == [
        "mechanisms.a = '../../../../specs/krr.toml' reaches outside the manifest's folder",
        "mechanisms.b = 'extra/krr.toml' is not package data beside the manifest",
    ]
