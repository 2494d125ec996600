"""Notebook displays (issue 22.1): what Jupyter shows for a mechanism, a derivation, a verdict,
a tight ε* and an audit result holds the real values, escapes spec text, and embeds a PNG."""

from __future__ import annotations

import base64
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import sympy as sp

import ldpaudit
from ldpaudit.audit.engine import AuditResult
from ldpaudit.derive import N_USERS as n
from ldpaudit.derive.algebra import F_J
from ldpaudit.mechanism import loads_spec, randomizers
from ldpaudit.audit.report import audit_plot_png

SPECS = Path(__file__).resolve().parents[1] / "specs"
PNG = b"\x89PNG\r\n\x1a\n"

THREE_ROWS = textwrap.dedent(
    """
    [mechanism]
    name = "three rows"
    claimed_epsilon = "1"

    [inputs]
    labels = [0, 1, 2]

    [channel]
    form = "explicit"
    outputs = ["a", "b"]
    rows = [["1/2", "1/2"], ["1/2", "1/2"], ["1/10", "9/10"]]
    """
)


def _latex(expr) -> str:
    return sp.latex(expr, ln_notation=True)


def test_ksubset_derivation_latex_has_the_estimator_and_the_worst_case_risk():
    mech = ldpaudit.load_spec(SPECS / "ksubset.toml")
    S = mech.symbols
    d, k, t = S["d"], S["k"], sp.exp(S["epsilon"])
    g = k * t / (k * t + d - k)                                        # P(T_j = 1 | x = j)
    h = g * (k - 1) / (d - 1) + ((d - k) / (k * t + d - k)) * k / (d - 1)  # P(T_j = 1 | x != j)
    dv = ldpaudit.derive(mech)
    estimator, risk = dv.results["estimator"], dv.results["l2_worst"]
    assert sp.simplify(estimator - (F_J - h) / (g - h)) == 0
    # i.i.d.: the fixed-population risk (independent of p) plus the multinomial term, largest at uniform p
    fixed = (g * (1 - g) + (d - 1) * h * (1 - h)) / (n * (g - h) ** 2)
    assert sp.simplify(risk - fixed - (1 - 1 / d) / n) == 0
    tex = dv._repr_latex_()
    assert rf"\hat p_j &= {_latex(estimator)}" in tex
    assert rf"\sup_p \mathbb{{E}}\|\hat p - p\|_2^2 &= {_latex(risk)}" in tex
    assert r"\documentclass" not in tex  # a fragment for a notebook, not a document
    md = dv._repr_markdown_()
    titles = re.findall(r"^## (\d+)\. (.+)$", md, flags=re.M)
    assert [int(i) for i, _ in titles] == list(range(1, len(dv.steps) + 1))
    assert [title for _, title in titles] == [s.title for s in dv.steps]
    assert f"$$\\hat p_j = {_latex(estimator)}$$" in md


def test_mechanism_markdown_shows_parameters_domain_claim_and_the_channel_formulas():
    mech = ldpaudit.load_spec(SPECS / "krr.toml")
    md = mech._repr_markdown_()
    assert md.startswith("**k-RR**")
    assert "| parameters | 2 &lt;= d (integer), 0 &lt; epsilon |" in md
    assert "| inputs | x in {0, ..., d - 1} |" in md
    assert r"$\varepsilon = \epsilon$" in md
    weights = [c.weight for c in mech.channel.classes]
    assert len(weights) == 2
    for w in weights:
        assert f"$$Q(y \\mid x) = {sp.latex(w)}" in md
    bound = mech.bind(d=5)._repr_markdown_()
    assert "$d = 5$" in bound and "$d = 5$" not in md


def test_mechanism_markdown_escapes_spec_text():
    mech = loads_spec(THREE_ROWS.replace('name = "three rows"', 'name = "<img src=x onerror=alert(1)>|*"'))
    md = mech._repr_markdown_()
    assert "<img" not in md
    assert r"**&lt;img src=x onerror=alert(1)&gt;\|\***" in md


def test_refuted_verdict_markdown_names_the_witness():
    v = ldpaudit.verify(loads_spec(THREE_ROWS))
    assert v.status.value == "REFUTED"
    w = v.witness
    assert (w.x_prime, w.y, w.ratio) == (2, "a", 5) and w.x in (0, 1)
    md = v._repr_markdown_()
    assert md.startswith("**REFUTED**: 1-LDP")
    assert f"| witness | x = ${w.x}$, x' = $2$, y = $\\text{{a}}$ |" in md
    assert r"\mid x'=2)} = 5 > e^{1}$" in md


def test_proved_verdict_and_tight_epsilon_show_the_tight_value():
    mech = ldpaudit.load_spec(SPECS / "krr.toml").bind(d=4, epsilon=sp.log(3))
    v = ldpaudit.verify(mech)
    md = v._repr_markdown_()
    assert md.startswith("**PROVED**") and "witness" not in md
    assert rf"| tight ε* | $\varepsilon^* = {_latex(sp.log(3))}$ |" in md
    te = ldpaudit.tight_epsilon(mech)
    assert te.value == sp.log(3)
    assert te._repr_latex_() == rf"$\varepsilon^* = {_latex(sp.log(3))}$"
    assert r"\frac{Q(y=0 \mid x=0)}{Q(y=0 \mid x'=1)} = 3$" in te._repr_markdown_()


def _buggy_krr(x, n, rng):
    """k-RR on 4 inputs that keeps x with the probability of 2ε instead of ε (ε = 1)."""
    keep = np.exp(2.0) / (np.exp(2.0) + 3)
    other = rng.integers(0, 3, size=n)
    other += other >= x
    return np.where(rng.random(n) < keep, x, other)


def test_audit_display_shows_verdict_bound_witness_and_plot():
    bad = ldpaudit.audit(_buggy_krr, domain=range(4), epsilon=1, batch=True, samples=100_000, seed=3)
    assert bad.verdict == "VIOLATION" and 1.5 < bad.epsilon_lower_bound < 2.0
    md = bad._repr_markdown_()
    assert md.startswith(f"**VIOLATION**: certified ε ≥ {bad.epsilon_lower_bound:.4f} exceeds the claimed ε = 1")
    x, x2 = bad.witness["pair"]
    assert f"| witness pair | x = {x!r}, x' = {x2!r} |" in md
    png = audit_plot_png(bad)
    assert png.startswith(PNG) and len(png) > 5_000
    page = bad._repr_html_()
    embedded = re.search(r"data:image/png;base64,([A-Za-z0-9+/=]+)", page)
    assert embedded and base64.b64decode(embedded.group(1)).startswith(PNG)
    assert "<b>VIOLATION</b>" in page

    good = ldpaudit.audit(randomizers.krr(d=4, epsilon=1), domain=range(4), epsilon=1, batch=True,
                          samples=100_000, seed=3)
    assert good.verdict == "NO_EVIDENCE" and good.epsilon_lower_bound <= 1
    assert good._repr_markdown_().startswith(f"**NO\\_EVIDENCE**: certified ε ≥ {good.epsilon_lower_bound:.4f} "
                                             "does not exceed the claimed ε = 1")


def test_audit_display_without_witness_has_no_plot():
    r = AuditResult("NO_EVIDENCE", 1.0, 0.0, 0.95, None, 1000, 0.1, 3.2, None, "method text")
    assert audit_plot_png(r) is None
    assert "data:image/png" not in r._repr_html_()
    assert "| witness | none: no event certified a positive privacy loss |" in r._repr_markdown_()


def test_displays_are_imported_only_when_shown():
    code = ("import sys, ldpaudit.mechanism.core, ldpaudit.verify.result, ldpaudit.audit.engine, "
            "ldpaudit.derive.derivation\n"
            "print(sorted(m for m in ('ldpaudit.render.notebook', 'ldpaudit.derive.render', "
            "'ldpaudit.audit.report', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == "[]"
