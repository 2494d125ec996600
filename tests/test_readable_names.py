"""Issue 32: derived expressions in the spec's own names (items 2 and 3) and the i.i.d. worst case
of the vector forms (item 4), each checked against an independent computation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sympy as sp

from ldpaudit.mechanism.loader import load_spec

SPECS = Path(__file__).resolve().parents[1] / "specs"
EPS, B, X = sp.Symbol("epsilon", positive=True), sp.Symbol("b", positive=True), sp.Symbol("x", real=True)


def _square_wave_with_b_of_epsilon(tmp_path) -> Path:
    """Square Wave written the paper's way: b a function of ε (SIGMOD 2020), p and q in b."""
    text = (SPECS / "square_wave.toml").read_text()
    start, end = text.index("[parameters.b]"), text.index("[example]")
    text = text[:start] + text[end:]
    text = text.replace('b = "1/2"\n', "").replace(
        "[definitions]\n",
        '[definitions]\nb = "(epsilon*exp(epsilon) - exp(epsilon) + 1)/(2*exp(epsilon)*(exp(epsilon) - 1 - epsilon))"\n')
    path = tmp_path / "sw_paper.toml"
    path.write_text(text)
    return path


def test_a_derived_expression_in_the_specs_names_equals_it_exactly():
    from ldpaudit.derive.names import in_names, spec_names

    mech = load_spec(SPECS / "square_wave.toml")
    names = spec_names(mech)
    eps, b = (mech.symbols[k] for k in ("epsilon", "b"))
    x = next(s for s in [sp.Symbol("x", real=True)])
    w = 2 * b * sp.exp(eps) + 1
    derived = sp.expand((4 * b * x * sp.exp(eps) - 4 * b * x + 2 * b + 1)) / (2 * sp.expand(w))   # E[z | x]
    named, used = in_names(derived, names)
    q = sp.Symbol("q", real=True)
    assert used == [q] and named.has(q) and len(str(named)) < len(str(derived))
    assert sp.simplify(named.xreplace({q: 1 / w}) - derived) == 0
    unrelated = sp.exp(eps) / (sp.exp(eps) - 1) + b   # nothing of p, q in it: printed as derived
    assert in_names(unrelated, names) == (unrelated, [])


def test_breakpoints_print_in_the_specs_own_names(tmp_path):
    from ldpaudit.mechanism.names import breakpoint_texts
    from ldpaudit.mechanism.params import Z
    from ldpaudit.mechanism.piecewise import PiecewiseDensity

    mech = load_spec(_square_wave_with_b_of_epsilon(tmp_path))
    pd = PiecewiseDensity(mech.channel.density, Z)
    texts = breakpoint_texts(mech, pd.breakpoints)
    assert {"-b", "-b + x", "b + x", "b + 1"} <= set(texts), texts
    assert max(map(len, texts)) <= len("-b + x"), texts
    # each named side is the breakpoint it replaces: b substituted back gives it exactly
    eps = mech.symbols["epsilon"]
    b = (eps * sp.exp(eps) - sp.exp(eps) + 1) / (2 * sp.exp(eps) * (sp.exp(eps) - 1 - eps))
    sides = {"-b": -b, "-b + x": X - b, "b + x": X + b, "b + 1": 1 + b}
    for text, point in zip(texts, pd.breakpoints):
        if text in sides:
            assert sp.simplify(point.xreplace({sp.Symbol("x", real=True): X}) - sides[text]) == 0, text


def test_the_iid_worst_case_of_a_coordinates_form_adds_sup_v_as_the_densities_do():
    """Piecewise d-dim: E[t_j² | x] is quadratic in x, so the i.i.d. worst case is the bound
    (sup V(X_j) + sup_x Var(t_j | x))/n with sup V(X_j) = (1 - (-1))²/4 = 1, one more 1/n than
    the worst case given the inputs."""
    from ldpaudit.derive.derivation import derive

    mech = load_spec(SPECS / "piecewise_multidim.toml")
    iid, fixed = derive(mech, model="iid"), derive(mech, model="fixed")
    n = next(s for s in iid.results["l2_worst"].free_symbols if s.name == "n")
    assert sp.simplify(iid.results["l2_worst"] - fixed.results["l2_worst"] - 1 / n) == 0
    rel = {e.lhs: e.relation for s in iid.steps for e in s.equations}
    assert rel["sup E(μ̂_j - μ_j)²"] == "≤"
    assert {e.lhs: e.relation for s in fixed.steps for e in s.equations}["sup E(μ̂_j - μ_j)²"] == "="


# --- Square Wave with b(ε): derived again with b kept as its name (issue 32) -------------------

def _b_of(eps):
    from mpmath import exp, mp, mpf

    mp.dps = 30
    eps = mpf(eps)
    return (eps * exp(eps) - exp(eps) + 1) / (2 * exp(eps) * (exp(eps) - 1 - eps))


def _report_variance_by_quadrature(eps, x):
    """Var(g(Z) | x) of Square Wave by numerical integration of its density (Li et al., SIGMOD
    2020: p = e^ε/(2b e^ε + 1) on |z - x| <= b, q = 1/(2b e^ε + 1) elsewhere on [-b, 1 + b]),
    g the affine map that makes E[g(Z) | x] = x; nothing of ldpaudit's derivation used."""
    from mpmath import exp, mp, mpf, quad

    mp.dps = 30
    eps, b = mpf(eps), _b_of(eps)
    p, q = exp(eps) / (2 * b * exp(eps) + 1), 1 / (2 * b * exp(eps) + 1)

    def moment(k, at):
        f = lambda z: z**k * (p if abs(z - at) <= b else q)   # noqa: E731
        return quad(f, [-b, at - b, at + b, 1 + b])

    slope = moment(1, mpf(1)) - moment(1, mpf(0))   # E[z | x] is affine in x
    x = mpf(x)
    return (moment(2, x) - moment(1, x) ** 2) / slope**2


def _parse_printed(text: str, **values):
    """A printed expression (``e^epsilon``, ``e^(2*epsilon)``, ``**``) read by the spec parser."""
    import re

    from ldpaudit.mechanism.expr import parse_expression

    text = re.sub(r"e\^\(", "exp(", text)
    text = re.sub(r"e\^(\w+)", r"exp(\1)", text)
    scope = {k: sp.Symbol(k, real=True) for k in ("epsilon", "b", "q", "x", "n")}
    return parse_expression(text, scope, field="printed").xreplace(
        {scope[k]: v for k, v in values.items()})


def _equation(out: str, lhs: str) -> tuple[str, str]:
    """``(right-hand side, where text)`` of the printed equation ``lhs``, continuations joined."""
    lines = out.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(f"     {lhs} "))
    rhs = [re.split(r" [=≤≈] ", lines[i][len(lhs) + 5:], maxsplit=1)[1]]
    where = []
    for line in lines[i + 1:]:
        if line.startswith("         where "):
            where.append(line.strip()[len("where "):])
        elif line.startswith("             ") and where:
            where.append(line.strip())
        elif line.startswith("         ") and not where:
            rhs.append(line.strip())
        else:
            break
    return " ".join(rhs), " ".join(where)


@pytest.fixture(scope="module")
def square_wave_paper_derived(tmp_path_factory):
    """``(spec path, ldpaudit derive's text)`` of Square Wave with b(ε), 80 columns, no cache."""
    import contextlib
    import io

    from ldpaudit.cli import main

    path = _square_wave_with_b_of_epsilon(tmp_path_factory.mktemp("sw"))
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(out):
        mp.setenv("COLUMNS", "80")
        mp.setenv("LDPAUDIT_CACHE_DIR", "off")
        assert main(["derive", str(path), "--no-cache"]) == 0
    return path, out.getvalue()


def test_square_wave_with_b_of_epsilon_derives_in_b_within_80_columns(square_wave_paper_derived):
    import unicodedata

    _, out = square_wave_paper_derived
    for line in out.splitlines():
        assert sum(0 if unicodedata.combining(ch) else 1 for ch in line) <= 80, line
    assert "exp(" not in out and "where b = " in out
    rhs, _ = _equation(out, "sup_x Var(g(Z) | x)")
    assert re.search(r"\bb\b", rhs) and "e^epsilon" in rhs, rhs
    assert len(rhs) < 150, rhs   # not the 600 characters of b inlined: two lines
    step = out.split("4. Variance")[1].split("5. ")[0]   # b defined under the variance, once
    assert step.count("where b = (epsilon*e^epsilon - e^epsilon + 1)/") == 1, step
    for lhs in ("Var(g(Z) | x)", "sup E(μ̂ - μ)²", "sup E|μ̂ - μ|"):
        assert re.search(r"\bb\b", _equation(out, lhs)[0]), lhs


@pytest.mark.parametrize("eps", [sp.Rational(1, 2), 2])
def test_square_wave_printed_variance_equals_quadrature(square_wave_paper_derived, eps):
    """The printed sup_x Var(g(Z) | x) and sup E(μ̂ - μ)², with the printed b, against the
    variance integrated numerically from the density at x = 0 and x = 1 (the worst inputs)."""
    from mpmath import mpf

    _, out = square_wave_paper_derived
    b_text = _equation(out, "Var(g(Z) | x)")[1].split(" = ", 1)[1]
    b = _parse_printed(b_text, epsilon=eps)
    eps_mp = mpf(int(sp.Rational(eps).p)) / int(sp.Rational(eps).q)
    assert abs(sp.N(b, 30) - _b_of(eps_mp)) < 1e-20
    worst = _parse_printed(_equation(out, "sup_x Var(g(Z) | x)")[0], epsilon=eps, b=b)
    expected = max(_report_variance_by_quadrature(eps_mp, x) for x in (0, 1))
    assert abs(float(sp.N(worst, 30)) - float(expected)) < 1e-9 * float(expected)
    risk = _parse_printed(_equation(out, "sup E(μ̂ - μ)²")[0], epsilon=eps, b=b, n=1)
    assert abs(float(sp.N(risk, 30)) - (float(expected) + 0.25)) < 1e-9 * float(expected)
    # Var(g(Z) | x) printed as a function of x, at an interior point
    inner = _parse_printed(_equation(out, "Var(g(Z) | x)")[0], epsilon=eps, b=b, x=sp.Rational(1, 3))
    assert abs(float(sp.N(inner, 30)) - float(_report_variance_by_quadrature(eps_mp, mpf(1) / 3))) < 1e-9


def test_a_form_not_shown_equal_is_printed_as_derived(square_wave_paper_derived):
    """A kept form is printed only when proved equal to the derived expression: tampered (the
    kept derivation's variance doubled), it is refused and the equation printed as derived."""
    from dataclasses import replace

    from ldpaudit.derive.derivation import Derivation, Equation, Step
    from ldpaudit.derive.kept import kept_derivation, kept_forms, proved_equal

    path, _ = square_wave_paper_derived
    mech = load_spec(path)
    again, values = kept_derivation(mech, "iid")
    lhs = "sup_x Var(g(Z) | x)"
    step = next(s for s in again.steps if any(e.lhs == lhs for e in s.equations))
    kept = next(e.expr for e in step.equations if e.lhs == lhs)
    assert kept.has(*values)
    inlined = sp.factor(sp.cancel(kept.xreplace(values)))   # b inlined: what derive derives
    dv = Derivation("sw", "density", (), ("epsilon",), "iid", (Step(step.title, "", (Equation(lhs, lhs, inlined),)),))
    assert inlined in kept_forms(dv, (again, values), mech)
    doubled = tuple(replace(s, equations=tuple(replace(e, expr=2 * e.expr) for e in s.equations)) for s in again.steps)
    assert kept_forms(dv, (replace(again, steps=doubled), values), mech) == {}
    # square roots: the square alone does not decide, the sign is compared too
    eps = sp.Symbol("epsilon", positive=True)
    assert proved_equal(sp.sqrt(eps) * sp.sqrt(eps + 1), sp.sqrt(eps**2 + eps))
    assert not proved_equal(-sp.sqrt(eps) * sp.sqrt(eps + 1), sp.sqrt(eps**2 + eps))
    assert not proved_equal(sp.exp(eps) / (sp.exp(eps) + 1), 1 - 1 / sp.exp(eps))


# --- show's LaTeX of mixture and vector channels, piece by piece in the spec's names -----------

def _show_latex(stem, capsys, monkeypatch) -> list[str]:
    from ldpaudit.cli import main

    monkeypatch.setenv("COLUMNS", "200")   # one LaTeX line a printed line: nothing wrapped
    monkeypatch.setenv("LDPAUDIT_CACHE_DIR", "off")
    assert main(["show", str(SPECS / f"{stem}.toml")]) == 0
    out = capsys.readouterr().out
    latex = out.split("\n  LaTeX:\n")[1].split("\n  validated:")[0]
    return [line.strip() for line in latex.splitlines()]


def _balanced(line: str) -> bool:
    depth = 0
    for ch in line.replace(r"\{", "").replace(r"\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def test_show_latex_of_a_mixture_is_piece_by_piece_in_the_users_names(capsys, monkeypatch):
    lines = _show_latex("hybrid", capsys, monkeypatch)
    assert lines[:6] == [
        r"\varepsilon = \epsilon",
        r"w_{0} = \beta:\quad f(z \mid x) = \begin{cases}",
        r"p & \text{if } l \le z \le r \\",
        r"p e^{- \epsilon} & \text{else if } - C \le z \le C \\",
        r"0 & \text{otherwise}",
        r"\end{cases}"], lines
    assert lines[6].startswith(r"w_{1} = 1 - \beta:\quad Q(y \mid x) = ") and lines[6].endswith(
        r"\text{ at } z = B y,\ y \in \{-1, 1\}"), lines[6]
    assert [line.split(" = ")[0] for line in lines[7:]] == ["C", "p", "l", "r", "B"], lines
    assert lines[9] == r"l = - \frac{C}{2} + x \left(\frac{C}{2} + \frac{1}{2}\right) + \frac{1}{2}"
    assert all(_balanced(line) for line in lines), lines
    assert max(map(len, lines)) < 160, lines   # not one inlined expression of 900 characters


def test_show_latex_of_a_vector_channel_is_piece_by_piece_in_the_users_names(capsys, monkeypatch):
    lines = _show_latex("duchi_multidim", capsys, monkeypatch)
    cases = lines.index(r"P(s \mid v) = \begin{cases}")
    assert lines[cases + 1:cases + 5] == [
        r"\frac{\mathit{keep}}{\mathit{half}} & \text{if } t > 0 \\",
        r"\frac{1 - \mathit{keep}}{\mathit{half}} & \text{else if } t < 0 \\",
        r"\frac{1}{2 \mathit{half}} & \text{otherwise}",
        r"\end{cases}"], lines
    assert r"z = B\, s" in lines and r"\mathit{keep} = \frac{e^{\epsilon}}{e^{\epsilon} + 1}" in lines
    assert r"\mathit{half} = 2^{d - 1}" in lines and any(line.startswith("B = ") for line in lines)
    assert all(_balanced(line) for line in lines), lines
    # the coordinates form: the sampled coordinate's law, its density piece by piece
    lines = _show_latex("piecewise_multidim", capsys, monkeypatch)
    assert lines[1].startswith(r"t_j = \frac{d}{k}\, z_j \text{ on } k \text{ of the } d"), lines
    assert r"p e^{- e_{1}} & \text{else if } - C \le z \le C \\" in lines
    assert [line.split(" = ")[0] for line in lines[-5:]] == ["e_{1}", "C", "p", "l", "r"], lines
