"""Wang, Blocki, Li & Jha (USENIX Security 2017), local hashing: OLH's variance
4e^ε/(n(e^ε - 1)²) at the optimal g = e^ε + 1, and BLH's (e^ε + 1)²/(n(e^ε - 1)²), derived
from the channels of ``specs/olh.toml`` and ``specs/blh.toml``.

Wang et al. approximate the variance of a frequency estimate by its value for a rare item
(the term that does not vanish as p_j -> 0, which dominates for large domains): under the
fixed-population model Var(p̂_j) = [p_j g(1-g) + (1 - p_j) h(1-h)] / (n (g-h)²), and at
p_j = 0 it is h(1-h)/(n(g-h)²). Everything below is derived from the channel's class weights
and its hash family (collision rate 1/g): g and h, the variance, its stationary point in the
hash range, and the value there. The published formulas are typed in only to compare with."""

from __future__ import annotations

from pathlib import Path

import sympy as sp

from ldpaudit.derive import N_USERS, hit_risk, unbiased_estimator
from ldpaudit.derive.algebra import P_J, simplify
from ldpaudit.report.documents import Document, write_outputs

SPECS = Path(__file__).resolve().parents[2] / "specs"

#: Wang et al. 2017, Section 4.4 (OLH) and 4.3 (BLH): Var* of the frequency estimate
PUBLISHED = {"OLH": "4*exp(eps)/(n*(exp(eps) - 1)**2)", "BLH": "(exp(eps) + 1)**2/(n*(exp(eps) - 1)**2)"}


def _published(name: str, eps) -> sp.Basic:
    e = sp.Symbol("eps", positive=True)
    expr = sp.sympify(PUBLISHED[name], locals={"eps": e, "n": N_USERS, "exp": sp.exp})
    return expr.xreplace({e: eps})


def derive_olh() -> dict:
    from ldpaudit.mechanism import load_spec

    mech = load_spec(SPECS / "olh.toml")
    S = mech.symbols
    g_sym, eps = S["g"], S["epsilon"]
    est = unbiased_estimator(mech)
    risk = hit_risk(est, "fixed")
    var_rare = simplify(risk.variance.subs(P_J, 0))
    kappa = sp.Symbol("kappa", positive=True)
    objective = var_rare.subs(g_sym, kappa)
    numerator = sp.factor(sp.numer(sp.together(sp.diff(objective, kappa))))
    roots = [r for r in sp.solve(numerator, kappa) if (r - 1).is_positive is not False]
    stationary = [simplify(r) for r in roots if sp.simplify(r.subs(eps, 1)) > 1]
    g_star = stationary[0]
    second = simplify(sp.diff(objective, kappa, 2).subs(kappa, g_star))
    at_opt = simplify(objective.subs(kappa, g_star))
    published = _published("OLH", eps)
    return {
        "mechanism": mech, "g": est.stat.g, "h": est.stat.h, "variance": risk.variance, "variance_rare": var_rare,
        "derivative_numerator": numerator, "g_star": g_star, "second_derivative": second,
        "second_positive": bool(sp.simplify(second).is_positive) or _positive_on_grid(second, eps),
        "variance_at_optimum": at_opt, "published": published,
        "agrees": simplify(at_opt - published) == 0,
        "g_star_agrees": simplify(g_star - (sp.exp(eps) + 1)) == 0,
        "eps": eps, "g_sym": g_sym,
    }


def _positive_on_grid(expr, eps) -> bool:
    return all(sp.N(expr.subs(eps, v)) > 0 for v in (sp.Rational(1, 10), sp.Rational(1, 2), 1, 2, 5))


def derive_blh() -> dict:
    from ldpaudit.mechanism import load_spec

    mech = load_spec(SPECS / "blh.toml")
    eps = mech.symbols["epsilon"]
    est = unbiased_estimator(mech)
    risk = hit_risk(est, "fixed")
    var_rare = simplify(risk.variance.subs(P_J, 0))
    published = _published("BLH", eps)
    return {"mechanism": mech, "g": est.stat.g, "h": est.stat.h, "variance": risk.variance, "variance_rare": var_rare,
            "published": published, "agrees": simplify(var_rare - published) == 0, "eps": eps}


def integer_g_table(olh: dict) -> list[dict]:
    """The integer hash range: the better of floor and ceil of e^ε + 1 by the exact variance."""
    rows = []
    eps, g_sym = olh["eps"], olh["g_sym"]
    for e in (sp.Rational(1, 2), 1, 2, 3, 4, 5):
        star = sp.exp(e) + 1
        cands = sorted({max(2, int(sp.floor(star))), max(2, int(sp.ceiling(star)))})
        values = {c: olh["variance_rare"].subs({g_sym: c, eps: e}) for c in cands}
        best = min(cands, key=lambda c: float(sp.N(values[c] * N_USERS)))
        ideal = olh["published"].subs(eps, e)
        rows.append({"epsilon": str(e), "g_real": float(sp.N(star)), "g_integer": best,
                     "n_var_integer": float(sp.N(values[best] * N_USERS)), "n_var_ideal": float(sp.N(ideal * N_USERS)),
                     "ratio": float(sp.N(values[best] / ideal))})
    return rows


def reproduce(out_dir) -> tuple[list, dict]:
    out = Path(out_dir) / "localhashing"
    olh, blh = derive_olh(), derive_blh()
    doc = Document("Wang et al. (USENIX Security 2017): local hashing (OLH, BLH), derived from the channels")
    doc.para("Source: Wang, Blocki, Li & Jha, \"Locally Differentially Private Protocols for Frequency Estimation\", "
             "Sections 4.3-4.4. The channels are specs/olh.toml and specs/blh.toml: a user's cohort is a uniformly "
             "drawn function H: [d] -> [g] (the all-functions family, C = g^d, so two distinct inputs collide with "
             "probability exactly 1/g), and the report is (H, g-ary randomized response of H(x)). The item statistic "
             "is the support T_j = 1{v = H(j)}; its hit rates come from the class weights and the collision rate. "
             "Sampling model: fixed population (Wang et al.'s).")
    doc.heading("OLH: hit rates and variance")
    doc.table(["quantity", "derived"], [["P(T_j = 1 | x = j)", olh["g"]], ["P(T_j = 1 | x ≠ j)", olh["h"]],
                                        ["Var(p̂_j)", olh["variance"]],
                                        ["Var(p̂_j) at p_j = 0 (Wang et al.'s Var*)", olh["variance_rare"]]])
    doc.heading("OLH: the optimal hash range")
    doc.para("Relax the hash range g to a real κ > 1 and differentiate Var* in κ; the numerator of the derivative, "
             "its root above 1 and the second derivative there:")
    doc.table(["quantity", "derived"], [["numerator of dVar*/dκ", olh["derivative_numerator"]], ["κ*", olh["g_star"]],
                                        ["d²Var*/dκ² at κ*", olh["second_derivative"]],
                                        ["Var* at κ*", olh["variance_at_optimum"]],
                                        ["Wang et al. print", olh["published"]]])
    doc.para(f"κ* = e^ε + 1: {'reproduced' if olh['g_star_agrees'] else '**not reproduced**'}; the second "
             f"derivative is {'positive (a minimum)' if olh['second_positive'] else '**not positive**'}; "
             f"Var* at κ* equals 4e^ε/(n(e^ε - 1)²): {'yes (symbolic difference 0)' if olh['agrees'] else '**no**'}.")
    doc.heading("OLH with an integer hash range")
    rows = integer_g_table(olh)
    doc.table(["ε", "e^ε + 1", "best integer g", "n·Var* (integer g)", "n·4e^ε/(e^ε - 1)²", "ratio"],
              [[r["epsilon"], f"{r['g_real']:.4f}", r["g_integer"], f"{r['n_var_integer']:.5g}",
                f"{r['n_var_ideal']:.5g}", f"{r['ratio']:.4f}"] for r in rows])
    doc.heading("BLH")
    doc.table(["quantity", "derived"], [["P(T_j = 1 | x = j)", blh["g"]], ["P(T_j = 1 | x ≠ j)", blh["h"]], ["Var* (p_j = 0)", blh["variance_rare"]],
                                        ["Wang et al. print", blh["published"]]])
    doc.para(f"BLH's Var* equals (e^ε + 1)²/(n(e^ε - 1)²): {'yes' if blh['agrees'] else '**no**'}. OLH at its optimum "
             "is never worse: the ratio BLH/OLH is (e^ε + 1)²/(4e^ε) >= 1, with equality only as ε -> 0.")
    payload = {
        "paper": "Wang, Blocki, Li & Jha, USENIX Security 2017", "sampling_model": "fixed",
        "olh": {"g": sp.sstr(olh["g"]), "h": sp.sstr(olh["h"]), "variance": sp.sstr(olh["variance"]),
                "variance_rare": sp.sstr(olh["variance_rare"]), "g_star": sp.sstr(olh["g_star"]),
                "g_star_agrees": olh["g_star_agrees"], "minimum": olh["second_positive"],
                "variance_at_optimum": sp.sstr(olh["variance_at_optimum"]), "published": sp.sstr(olh["published"]),
                "agrees": olh["agrees"], "integer_g": rows},
        "blh": {"g": sp.sstr(blh["g"]), "h": sp.sstr(blh["h"]), "variance_rare": sp.sstr(blh["variance_rare"]),
                "published": sp.sstr(blh["published"]), "agrees": blh["agrees"]},
    }
    return write_outputs(out, "olh_blh", doc, payload), payload


__all__ = ["reproduce", "derive_olh", "derive_blh", "PUBLISHED"]
