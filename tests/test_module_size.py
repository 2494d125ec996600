"""No module of ldpaudit is over 800 lines (issue 33.5): a module that grows past it is split
the way verify/ is, one module per channel form or per rule, with its public names still
importable from where they were."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ldpaudit"
MAX_LINES = 800

#: module (relative to ldpaudit/) -> why it may still be longer, while it is being split
_BEING_SPLIT: dict[str, str] = {}


def long_modules(package: Path, limit: int = MAX_LINES) -> dict[str, int]:
    """Module path (relative to ``package``) -> its number of lines, for every module over ``limit``."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        with path.open("rb") as f:
            lines = sum(1 for _ in f)
        if lines > limit:
            found[path.relative_to(package).as_posix()] = lines
    return found


def test_no_module_is_over_800_lines():
    over = {name: n for name, n in long_modules(PACKAGE).items() if name not in _BEING_SPLIT}
    assert not over, ("modules over 800 lines (split them one module per form or per rule, keeping their public "
                      "names importable from the same place): "
                      + ", ".join(f"{name} ({n} lines)" for name, n in over.items()))


def test_exemptions_are_still_needed():
    long = long_modules(PACKAGE)
    assert all(reason.strip() for reason in _BEING_SPLIT.values())
    assert [name for name in _BEING_SPLIT if name not in long] == [], "split already: delete the exemption"


def test_a_long_module_is_named_with_its_length(tmp_path):
    (tmp_path / "stage").mkdir()
    (tmp_path / "stage" / "long.py").write_text("x = 1\n" * 801, encoding="utf-8")
    (tmp_path / "stage" / "short.py").write_text("x = 1\n" * 800, encoding="utf-8")
    assert long_modules(tmp_path) == {"stage/long.py": 801}
