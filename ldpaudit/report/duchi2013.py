"""Duchi, Jordan & Wainwright (2013), as summarized in the blog post of seed document 001:
the bounded-mean Laplace mechanism's estimator variance V(X)/n + 8M²/(nε²), and the ℓ2 rate
of multivariate randomized response (k-RAPPOR with α = ε), E‖θ̂ - θ‖² ≤ (d/n)(s+1)²/(s-1)²
= O(d/(nα²)). Both are derived from the catalog channels; the blog's expressions are
transcribed here only to compare against."""

from __future__ import annotations

from pathlib import Path

import sympy as sp

from ldpaudit.derive import N_USERS, hit_risk, mean_estimation, unbiased_estimator
from ldpaudit.derive.algebra import leading_power, leading_term_at_zero, simplify
from ldpaudit.derive.continuous import VX
from ldpaudit.report.documents import Document, write_outputs
from ldpaudit.mechanism.catalog import k_rappor, laplace_mean


def reproduce(out_dir) -> tuple[list, dict]:
    out_dir = Path(out_dir) / "duchi2013"
    lap = laplace_mean()
    M, eps = lap.symbols["M"], lap.symbols["epsilon"]
    me = mean_estimation(lap)
    n = N_USERS
    blog_variance = VX / n + 8 * M**2 / (n * eps**2)           # the blog's printed result
    agrees = simplify(me.variance_iid - blog_variance) == 0
    rap = k_rappor()
    d, e = rap.symbols["d"], rap.symbols["epsilon"]
    s = sp.exp(e / 2)
    risk_iid = hit_risk(unbiased_estimator(rap), "iid").l2_worst
    risk_fixed = hit_risk(unbiased_estimator(rap), "fixed").l2_worst
    blog_bound = d / n * (s + 1) ** 2 / (s - 1) ** 2          # the blog's printed bound
    gap = simplify(blog_bound - risk_iid)
    gap_num, _ = sp.fraction(sp.factor(gap))
    proof = _positive_by_shift(gap_num, d, e)
    grid_ok = all(float(gap.subs({d: dv, e: ev, n: 1})) >= 0 for dv in (2, 3, 10, 100, 10**4)
                  for ev in (0.01, 0.5, 1, 3, 8))
    small = leading_term_at_zero(risk_iid, e)
    c, a = leading_power(small, d)
    doc = Document("Duchi, Jordan & Wainwright (2013): Laplace mean and multivariate randomized response, derived")
    doc.para("Source: the blog post \"Statistical Minimax Rates Under Privacy\" summarizing Duchi, Jordan & "
             "Wainwright, \"Local privacy and statistical minimax rates\" (seed document 001).")
    doc.heading("Bounded mean with Laplace noise")
    doc.para("The catalog channel reports z = x + W with density below, x in [-M, M]. Substituting z = x + w shows a "
             "location family; integrating w and w² against the density (split at 0) gives the noise moments:")
    doc.equation(r"f(x + w \mid x) = " + sp.latex(me.shifted_density) + r",\quad \mathbb{E}W = " + sp.latex(me.noise_mean)
                 + r",\quad \operatorname{Var} W = " + sp.latex(me.noise_variance))
    doc.para("so the mean of the reports is unbiased for the mean μ of the inputs, and by the law of total variance "
             "(i.i.d. inputs with variance V(X)):")
    doc.equation(r"\operatorname{Var}\hat\mu = " + sp.latex(me.variance_iid))
    doc.para(f"The blog prints V(X)/n + 8M²/(nε²): {'the derivation agrees' if agrees else 'the derivation DISAGREES'}. "
             "Under the fixed-population model only the noise remains, Var μ̂ = " + sp.sstr(me.variance_fixed) +
             "; the worst case over inputs in [-M, M] (V(X) ≤ M², two-point law at ±M) is "
             + sp.sstr(me.l2_worst_iid) + ".")
    doc.heading("Multivariate randomized response (k-RAPPOR)")
    doc.para("Each bit of the one-hot input is kept with probability e^(α/2)/(1 + e^(α/2)) (α = ε). The derived "
             "worst-case ℓ2² risk of the unbiased estimator, i.i.d. model (uniform p) and fixed population:")
    doc.equation(r"\sup_p \mathbb{E}\|\hat\theta-\theta\|_2^2 = " + sp.latex(risk_iid) + r"\quad\text{(i.i.d.)},\qquad "
                 + sp.latex(risk_fixed) + r"\quad\text{(fixed)}")
    doc.para("The blog states the bound (d/n)(s+1)²/(s-1)² with s = e^(α/2). The derived risk is below it: the "
             "difference bound − risk is")
    doc.equation(sp.latex(sp.factor(gap)))
    doc.para(f"Its numerator is positive for d ≥ 2 and ε > 0: written in d = 2 + δ and s = e^(ε/2) = 1 + τ it expands to "
             f"{sp.sstr(proof[1])}, "
             f"{'a polynomial with only positive coefficients in δ ≥ 0, τ > 0' if proof[0] else 'which has a negative coefficient (no proof)'}"
             f" (also checked on a grid: {'non-negative everywhere' if grid_ok else 'NEGATIVE somewhere'}). "
             f"As α → 0 the derived risk behaves like {sp.sstr(small)}, i.e. {sp.sstr(c * d**a)} for large d: the "
             "rate d/(nα²) of the minimax theorem.")
    payload = {"laplace_mean": {"noise_variance": sp.sstr(me.noise_variance), "variance_iid": sp.sstr(me.variance_iid),
                                "variance_fixed": sp.sstr(me.variance_fixed), "worst_iid": sp.sstr(me.l2_worst_iid),
                                "blog": sp.sstr(blog_variance), "agrees": agrees},
               "multivariate_rr": {"l2_worst_iid": sp.sstr(risk_iid), "l2_fixed": sp.sstr(risk_fixed),
                                   "blog_bound": sp.sstr(blog_bound), "bound_minus_risk": sp.sstr(sp.factor(gap)),
                                   "bound_holds_on_grid": grid_ok, "bound_proved": proof[0], "small_epsilon": sp.sstr(small),
                                   "small_epsilon_large_d": sp.sstr(c * d**a)}}
    return write_outputs(out_dir, "duchi2013", doc, payload), payload


def _positive_by_shift(expr, d, e):
    """(True, poly) when expr, written in d = 2 + δ, e^(ε/2) = 1 + τ, has only positive coefficients."""
    from ldpaudit.derive.algebra import to_exp_base

    delta, tau = sp.symbols("delta tau", positive=True)
    expr_u, back = to_exp_base(expr)
    u = next(iter(back)) if back else None
    shifted = expr_u.xreplace({d: 2 + delta})
    if u is not None:
        # back maps u -> exp(ε/L); k-RAPPOR's expressions use L = 2, i.e. u = s
        shifted = shifted.xreplace({u: 1 + tau})
    poly = sp.Poly(sp.expand(shifted), delta, tau)
    return all(c > 0 for c in poly.coeffs()), poly.as_expr()
