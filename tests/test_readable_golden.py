"""Issue 32's acceptance: every bundled density, vector and Gaussian spec read through ``show``,
``verify --tight`` and ``derive`` as a person reads them, 80 columns wide: no ``nan``, no sympy
``E`` for Euler's number, no ``Abs(`` of a quantity whose sign the declared ranges decide, no line
over 80 columns, and ``show`` in the user's own definition names.

The fast twin runs the mixture, vector and real-input specs through ``show`` (the single densities'
``show`` has its fast test in test_readable_output.py), Square Wave through ``verify --tight`` and
``derive`` and the signs form through ``derive``; ``-m slow`` runs every spec through all three."""

from __future__ import annotations

import re
import tomllib
import unicodedata
from pathlib import Path

import pytest

from ldpaudit.cli import main

SPECS = Path(__file__).resolve().parents[1] / "specs"
#: the bundled specs whose inputs are real numbers or vectors (forms density, signs, mixture,
#: coordinates; and the two-point real-input mean)
READABLE = ["piecewise", "square_wave", "gaussian", "laplace_mean", "joseph_uvrr2", "duchi_binary_mean",
            "hybrid", "duchi_multidim", "piecewise_multidim", "hybrid_multidim"]
FAST = {"show": ["joseph_uvrr2", "duchi_binary_mean", "hybrid", "duchi_multidim", "piecewise_multidim",
                 "hybrid_multidim"],
        "verify": ["square_wave"], "derive": ["square_wave", "duchi_multidim"]}

#: Euler's number as sympy prints it (``E``, ``2*E``, ``E**x``), not the expectation ``E[z | x]``,
#: ``E|μ̂ - μ|``, ``E(μ̂ - μ)²`` or ``E Var(...)`` of the prose
EULER = re.compile(r"(?<![\w.])E(?=\*|\)|/|,| [-+*/] |$)|[*/^]E(?![\w\[|(])")


def _columns(line: str) -> int:
    return sum(0 if unicodedata.combining(ch) else 1 for ch in line)


def _unwrapped(text: str) -> str:
    """Continuation lines joined to their line, so that a check reads each statement whole."""
    return re.sub(r"\n {4,}(?=\S)", " ", text)


def _run(capsys, monkeypatch, *argv) -> tuple[int, str, str]:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LDPAUDIT_CACHE_DIR", "off")
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _declared_signs(stem: str) -> bool:
    """Whether every parameter's range decides its sign (all bundled real specs declare one)."""
    doc = tomllib.loads((SPECS / f"{stem}.toml").read_text())
    return all("min" in p or "max" in p for p in doc.get("parameters", {}).values() if not p.get("unbounded"))


def check_readable(text: str, stem: str) -> None:
    assert text.strip(), stem
    for line in text.splitlines():
        assert _columns(line) <= 80, (stem, line)
    whole = _unwrapped(text)
    assert not re.search(r"\bnan\b|\binf\b|\bzoo\b", whole), (stem, whole)
    assert not EULER.search(whole), (stem, EULER.search(whole), whole)
    if _declared_signs(stem):
        # an absolute value is allowed only of something signed by nothing declared (x, z, w)
        for m in re.finditer(r"Abs\(([^()]*)\)", whole):
            assert re.search(r"\b[xzwt]\b", m.group(1)), (stem, m.group(0), whole)
        assert "Abs(exp(" not in whole and "Abs(-exp(" not in whole, (stem, whole)


def _definition_names(stem: str) -> list[str]:
    return list(tomllib.loads((SPECS / f"{stem}.toml").read_text()).get("definitions", {}))


@pytest.mark.parametrize("stem", FAST["show"])
def test_show_reads_as_math_in_the_users_names(stem, capsys, monkeypatch):
    _show(stem, capsys, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("stem", [s for s in READABLE if s not in FAST["show"]])
def test_show_reads_as_math_in_the_users_names_every_spec(stem, capsys, monkeypatch):
    _show(stem, capsys, monkeypatch)


def _show(stem, capsys, monkeypatch):
    code, out, err = _run(capsys, monkeypatch, "show", str(SPECS / f"{stem}.toml"))
    assert code == 0, err
    check_readable(out, stem)
    assert "Piecewise(" not in out, out
    text = out.split("\n  LaTeX:")[0]
    for name in _definition_names(stem):
        assert re.search(rf"^\s+{re.escape(name)} = ", text, re.M), (name, text)
        assert re.search(rf"(?<![\w^]){re.escape(name)}(?![\w(])", text.split(f"{name} = ")[0]), (name, text)


def _verify_tight(stem, capsys, monkeypatch):
    code, out, err = _run(capsys, monkeypatch, "verify", str(SPECS / f"{stem}.toml"), "--tight")
    assert code == 0, (out, err)
    check_readable(out, stem)
    assert out.startswith("PROVED") and "tightest: ε* = " in out


def _derive(stem, capsys, monkeypatch):
    code, out, err = _run(capsys, monkeypatch, "derive", str(SPECS / f"{stem}.toml"), "--no-cache")
    assert code == 0, err
    check_readable(out, stem)
    assert "exp(" not in out, out   # e^epsilon, as a paper prints it
    whole = _unwrapped(out)
    if stem == "square_wave":   # q substituted back where shorter, and said what it is
        assert "E[z | x] = q*(4*b*x*e^epsilon - 4*b*x + 2*b + 1)/2 where q = 1/(2*b*e^epsilon + 1)" in whole, whole
    if stem == "duchi_multidim":   # the i.i.d. model's worst case, derived (E[t_j² | x] does not depend on x)
        assert "so under the i.i.d. model Var t_j = V(X_j) + E Var(t_j | X_j) = E[t_j² | x = μ_j] - μ_j²" in whole
        assert "given the inputs" not in whole


@pytest.mark.parametrize("stem", FAST["verify"])
def test_verify_tight_reads_as_math(stem, capsys, monkeypatch):
    _verify_tight(stem, capsys, monkeypatch)


@pytest.mark.parametrize("stem", FAST["derive"])
def test_derive_reads_as_math(stem, capsys, monkeypatch):
    _derive(stem, capsys, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("stem", [s for s in READABLE if s not in FAST["verify"]])
def test_verify_tight_reads_as_math_every_spec(stem, capsys, monkeypatch):
    _verify_tight(stem, capsys, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("stem", [s for s in READABLE if s not in FAST["derive"]])
def test_derive_reads_as_math_every_spec(stem, capsys, monkeypatch):
    _derive(stem, capsys, monkeypatch)
