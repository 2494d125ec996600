"""Ye & Barg, "Optimal Schemes for Discrete Distribution Estimation under Locally
Differential Privacy" (arXiv 1702.00610, seed document 000): in the medium-privacy regime
3.8 < ε < ln(d/9) the k-subset scheme's worst-case ℓ2² risk is at most 50% of the better of
k-RR and k-RAPPOR, and its ℓ1 risk at most 70%.

All risks are the derived worst cases under the i.i.d. model (the paper's), k-subset at its
derived optimal integer k (floor or ceil of the stationary point, whichever is better, for
each loss). Numbers are evaluated by mpmath and rounded once: the same bits on every CPU."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import sympy as sp

from ldpaudit.derive import N_USERS, compiled_rule, hit_risk, unbiased_estimator
from ldpaudit.portable import exact_function, exact_log
from ldpaudit.report.documents import Document, fmt, save_png, write_outputs
from ldpaudit.mechanism.catalog import k_rappor, k_rr, k_subset

DS = (500, 1000, 2000, 5000, 10_000, 100_000)
POINTS_PER_D = 6
EXAMPLE = (1000, 4)


@lru_cache(maxsize=1)
def _functions():
    """Worst-case ℓ2² and ℓ1 risks (n = 1) of the three schemes, derived (evaluated by mpmath)."""
    out = {}
    for name, mech in (("k-RR", k_rr()), ("k-RAPPOR", k_rappor()), ("k-subset", k_subset())):
        S = mech.symbols
        risk = hit_risk(unbiased_estimator(mech), "iid")
        args = [S["d"], S.get("k", sp.Symbol("k_unused")), S["epsilon"]]
        out[name] = {
            "l2": exact_function(args, risk.l2_worst.subs(N_USERS, 1)),
            "l1": exact_function(args, risk.l1_worst.subs(N_USERS, 1)),
            "l2_expr": risk.l2_worst, "l1_expr": risk.l1_worst,
        }
    return out


def ratios(d: int, epsilon: float) -> dict:
    f = _functions()
    eps = sp.Rational(str(epsilon)) if not isinstance(epsilon, sp.Basic) else epsilon
    out = {"d": d, "epsilon": float(epsilon)}
    for loss in ("l2", "l1"):
        k, point = compiled_rule("ksubset", "k", loss).optimum(d=d, epsilon=eps)
        ss = f["k-subset"][loss](d, k, float(epsilon))
        rr = f["k-RR"][loss](d, 1, float(epsilon))
        rap = f["k-RAPPOR"][loss](d, 1, float(epsilon))
        out[loss] = {"k": k, "stationary": point, "k-subset": ss, "k-RR": rr, "k-RAPPOR": rap,
                     "ratio": ss / min(rr, rap), "better": "k-RR" if rr < rap else "k-RAPPOR"}
    return out


def grid() -> list[dict]:
    rows = []
    for d in DS:
        hi = exact_log(Fraction(d, 9))
        for i in range(1, POINTS_PER_D + 1):
            eps = round(3.8 + (hi - 3.8) * i / (POINTS_PER_D + 1), 4)
            rows.append(ratios(d, eps))
    return rows


def reproduce(out_dir) -> tuple[list, dict]:
    out_dir = Path(out_dir) / "yebarg2017"
    rows = grid()
    example = ratios(*EXAMPLE)
    max_l2 = max(r["l2"]["ratio"] for r in rows)
    max_l1 = max(r["l1"]["ratio"] for r in rows)
    f = _functions()
    doc = Document("Ye & Barg (2017): k-subset against k-RR and k-RAPPOR in the medium-privacy regime")
    doc.para("Source: M. Ye and A. Barg, \"Optimal Schemes for Discrete Distribution Estimation under Locally "
             "Differential Privacy\" (seed document 000), abstract and Proposition III.5: for 3.8 < ε < ln(d/9) the "
             "k-subset scheme's worst-case ℓ2² risk is at most 50% of the better of k-RR and k-RAPPOR, and its "
             "ℓ1 risk at most 70%.")
    doc.para("Risks are derived under the i.i.d. model (the paper's) from the catalog channels: the worst case over "
             "the simplex is at the uniform p for all three schemes (concave and symmetric). The derived worst-case "
             "ℓ2² risk of k-subset is")
    doc.equation(r"\sup_p \mathbb{E}\|\hat p - p\|_2^2 = " + sp.latex(f["k-subset"]["l2_expr"]))
    doc.para("and k is the better of floor and ceil of the derived stationary point d/(e^ε + 1) for each loss "
             "(compared exactly, not rounded). The ratio is the k-subset risk over the smaller of the k-RR and "
             "k-RAPPOR risks (n cancels).")
    doc.para(f"Example d = {EXAMPLE[0]}, ε = {EXAMPLE[1]}: ℓ2² ratio {fmt(example['l2']['ratio'], 3)} "
             f"(k = {example['l2']['k']}), ℓ1 ratio {fmt(example['l1']['ratio'], 3)} (k = {example['l1']['k']}).")
    doc.table(["d", "ε", "k (ℓ2)", "ℓ2² ratio", "better of RR/RAPPOR (ℓ2)", "k (ℓ1)", "ℓ1 ratio", "better (ℓ1)"],
              [[r["d"], fmt(r["epsilon"], 5), r["l2"]["k"], fmt(r["l2"]["ratio"], 4), r["l2"]["better"], r["l1"]["k"],
                fmt(r["l1"]["ratio"], 4), r["l1"]["better"]] for r in rows],
              caption="Grid: for each d, six ε evenly inside (3.8, ln(d/9))")
    doc.para(f"Over the grid the largest ℓ2² ratio is {fmt(max_l2, 4)} ({'≤' if max_l2 <= 0.5 else '>'} 0.5) and the "
             f"largest ℓ1 ratio is {fmt(max_l1, 4)} ({'≤' if max_l1 <= 0.7 else '>'} 0.7): the paper's claim "
             f"{'holds' if max_l2 <= 0.5 and max_l1 <= 0.7 else 'does not hold'} on every grid point.")
    png = _plot(rows, out_dir / "ratios.png")
    doc.figure("ratios.png", "Ratio of the k-subset worst-case risk to the better of k-RR and k-RAPPOR")
    gaps = optimality_gaps()
    _gap_section(doc, gaps)
    gap_png = _plot_gaps(gaps, out_dir / "gaps.png")
    doc.figure("gaps.png", "Derived worst-case risk over the rate of Ye & Barg's lower bound (Thm IV.1), e^ε < d")
    payload = {"paper": "Ye & Barg 2017", "sampling_model": "iid", "example": example, "max_l2_ratio": max_l2,
               "max_l1_ratio": max_l1, "rows": rows, "optimality_gaps": gaps}
    return write_outputs(out_dir, "ratios", doc, payload) + [png, gap_png], payload


#: the published lower bound, a reference input (not derived here): Ye & Barg, arXiv 1702.00610,
#: Theorem IV.1, for e^ε < d (their k): r^{ℓ2²} ≳ d e^ε/(n (e^ε - 1)²) and r^{ℓ1} ≳ d e^{ε/2}/((e^ε - 1) √n),
#: order bounds (≳: up to a constant factor independent of d, ε and n, for large n)
LOWER_BOUND_SOURCE = ("M. Ye and A. Barg, Optimal Schemes for Discrete Distribution Estimation under Locally "
                      "Differential Privacy, arXiv 1702.00610 / IEEE Trans. Inf. Theory 2018, Theorem IV.1 (e^ε < d)")
GAP_DS = (10, 100, 1000, 10_000)
GAP_EPSILONS = (sp.Rational(1, 2), sp.Integer(1), sp.Integer(2), sp.Integer(3), sp.Integer(4), sp.Integer(5))


def lower_bound_rate(d, epsilon, loss: str, n=1):
    """The rate of Ye & Barg's Thm IV.1 (constant 1), at n users: a published reference curve."""
    t = sp.exp(epsilon)
    if loss == "l2":
        return d * t / (n * (t - 1) ** 2)
    return d * sp.sqrt(t) / ((t - 1) * sp.sqrt(n))


def optimality_gaps() -> list[dict]:
    """Derived worst-case risk (n = 1; the ratios do not depend on n: ℓ2² scales as 1/n, ℓ1 as
    1/√n in both) of each catalog mechanism over the lower bound's rate, where e^ε < d."""
    f = _functions()
    out = []
    for d in GAP_DS:
        for eps in GAP_EPSILONS:
            if sp.exp(eps) >= d:                   # ε rational: decided exactly
                continue
            row = {"d": d, "epsilon": float(eps)}
            for loss in ("l2", "l1"):
                rate = float(lower_bound_rate(d, eps, loss))
                k, _ = compiled_rule("ksubset", "k", loss).optimum(d=d, epsilon=eps)
                risks = {"k-RR": f["k-RR"][loss](d, 1, float(eps)), "k-RAPPOR": f["k-RAPPOR"][loss](d, 1, float(eps)),
                         "k-subset": f["k-subset"][loss](d, k, float(eps))}
                row[loss] = {"lower_bound_rate": rate, "k": k,
                             **{f"{name} / bound": risk / rate for name, risk in risks.items()}}
            out.append(row)
    return out


def _gap_section(doc: Document, gaps: list[dict]) -> None:
    doc.heading("Optimality gaps: risk over the minimax lower bound")
    doc.para(f"Reference input (stated, not derived): {LOWER_BOUND_SOURCE}. For e^ε < d the ε-LDP minimax risks are "
             "at least of the order")
    doc.equation(r"r^{\ell_2^2}_{\varepsilon,d} \gtrsim \frac{d\,e^{\varepsilon}}{n\,(e^{\varepsilon}-1)^2},\qquad "
                 r"r^{\ell_1}_{\varepsilon,d} \gtrsim \frac{d\,e^{\varepsilon/2}}{(e^{\varepsilon}-1)\sqrt{n}}")
    doc.para("The theorem is an order bound: its constant factor is not given in our copy of the paper (the seed's "
             "formulas were lost in extraction), so the curves are drawn with constant 1 and the table gives risk / rate. "
             "A mechanism is order-optimal where this ratio stays bounded; the ratio is not a proved gap to the "
             "minimax risk. The risks are the derived worst cases (i.i.d. model) of the catalog channels, k-subset at "
             "its derived optimal k for each loss.")
    doc.table(["d", "ε", "ℓ2² k-RR", "ℓ2² k-RAPPOR", "ℓ2² k-subset", "ℓ1 k-RR", "ℓ1 k-RAPPOR", "ℓ1 k-subset"],
              [[g["d"], fmt(g["epsilon"], 3)] + [fmt(g[loss][f"{m} / bound"], 3) for loss in ("l2", "l1")
                                                 for m in ("k-RR", "k-RAPPOR", "k-subset")] for g in gaps],
              caption="Derived worst-case risk / lower-bound rate (n cancels), at every grid point with e^ε < d")
    l2 = [g["l2"]["k-subset / bound"] for g in gaps]
    l1 = [g["l1"]["k-subset / bound"] for g in gaps]
    doc.para(f"Over the grid the k-subset ratio stays within [{fmt(min(l2), 3)}, {fmt(max(l2), 3)}] for ℓ2² and "
             f"[{fmt(min(l1), 3)}, {fmt(max(l1), 3)}] for ℓ1, while k-RR's grows with d at small ε and k-RAPPOR's grows "
             "with ε: the order-optimality the paper claims for its scheme when e^ε < d.")


def _plot_gaps(gaps, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, loss in ((axes[0], "l2"), (axes[1], "l1")):
        for d in GAP_DS:
            pts = [g for g in gaps if g["d"] == d]
            for name, style in (("k-RR", ":"), ("k-RAPPOR", "--"), ("k-subset", "-")):
                ax.plot([g["epsilon"] for g in pts], [g[loss][f"{name} / bound"] for g in pts], style, marker="o",
                        markersize=3, label=f"{name}, d = {d}" if loss == "l1" else None)
        ax.set_yscale("log")
        ax.set_xlabel("ε")
        ax.set_title("ℓ2²" if loss == "l2" else "ℓ1")
    axes[0].set_ylabel("worst-case risk / Ye & Barg rate")
    axes[1].legend(fontsize=6, ncol=2)
    fig.suptitle("Optimality gaps against Ye & Barg Thm IV.1 (rate, constant 1), e^ε < d")
    return save_png(fig, path)


def _plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, loss, bound in ((axes[0], "l2", 0.5), (axes[1], "l1", 0.7)):
        for d in DS:
            pts = [r for r in rows if r["d"] == d]
            ax.plot([r["epsilon"] for r in pts], [r[loss]["ratio"] for r in pts], "o-", label=f"d = {d}", markersize=3)
        ax.axhline(bound, color="k", linestyle="--", linewidth=0.8)
        ax.set_xlabel("ε")
        ax.set_title("ℓ2² ratio" if loss == "l2" else "ℓ1 ratio")
    axes[0].set_ylabel("k-subset / min(k-RR, k-RAPPOR)")
    axes[1].legend(fontsize=8)
    fig.suptitle("Ye & Barg: medium-privacy regime 3.8 < ε < ln(d/9), i.i.d. worst case")
    return save_png(fig, path)


__all__ = ["reproduce", "ratios", "grid", "optimality_gaps", "lower_bound_rate"]
