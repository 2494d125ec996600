"""Issue 32: derived expressions in the spec's own names (items 2 and 3) and the i.i.d. worst case
of the vector forms (item 4), each checked against an independent computation."""

from __future__ import annotations

from pathlib import Path

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
