"""Optimality by computation (issue 20 item 3): Wang et al.'s Theorem 2.1 for every d <= 12 on an
ε grid, and Kairouz et al.'s binary-alphabet theorem, each against the certified optimum of the
staircase LP (:mod:`ldpaudit.extremal.staircase`)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import sympy as sp

from ldpaudit.extremal.staircase import pattern_text
from ldpaudit.extremal.staircase import DIVERGENCES, OBJECTIVES
from ldpaudit.extremal.theorems import AGREEMENT_WIDTH, check_binary_divergence, check_kairouz_binary, check_wang_21
from ldpaudit.papers.documents import Document, write_outputs

DS = tuple(range(2, 13))
EPSILONS = (sp.Rational(1, 4), sp.Rational(1, 2), sp.Integer(1), sp.Integer(2), sp.log(5), sp.Integer(4))
PRIORS = (Fraction(1, 10), Fraction(1, 4), Fraction(1, 3), Fraction(1, 2), Fraction(2, 3), Fraction(9, 10))
BINARY_EPSILONS = (sp.Rational(1, 4), sp.Integer(1), sp.Integer(3))
#: pairs of laws (P0, P1) on {0, 1} for the divergence objectives
BINARY_PAIRS = (((1, 0), (0, 1)), ((Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4))),
                ((Fraction(9, 10), Fraction(1, 10)), (Fraction(1, 2), Fraction(1, 2))))


def reproduce(out_dir) -> tuple[list, dict]:
    out_dir = Path(out_dir) / "optimality"
    wang = [check_wang_21(d, e) for d in DS for e in EPSILONS]
    binary = [check_kairouz_binary(p, e) for p in PRIORS for e in BINARY_EPSILONS]
    wang_rows = [c.row() for c in wang]
    binary_rows = [c.row() for c in binary]
    divergence_rows = []
    for objective in DIVERGENCES:
        for first, second in BINARY_PAIRS:
            for e in BINARY_EPSILONS:
                row = check_binary_divergence(objective, first, second, e).row()
                row.update({"objective": objective, "alternative": [str(Fraction(w)) for w in second],
                            "prior": [str(Fraction(w)) for w in first]})
                divergence_rows.append(row)
    doc = Document("Optimality by computation: the staircase LP with certificates")
    doc.para("Kairouz, Oh & Viswanath (\"Extremal mechanisms for local differential privacy\", JMLR 2016): for a "
             "sublinear utility such as the mutual information I(X;Y) under a fixed prior, an optimal ε-LDP mechanism "
             "on d inputs has output columns proportional to staircase patterns S ∈ {1, e^ε}^d, and the optimum is a "
             "linear program over the 2^d patterns (rows of the mechanism sum to 1). `ldpaudit optimize` solves it with "
             "HiGHS in floats, then proves the optimum: the weights on the LP's support solve S θ = 1 exactly in "
             "Q(t), t = e^ε an indeterminate, and are positive at t = e^ε (interval enclosure of e^ε), which gives a "
             "proved lower end; a rational dual vector y with S_j·y ≥ μ(S_j) on every pattern, the logarithms in μ "
             "enclosed, gives the proved upper end Σ y (weak duality).")
    doc.heading("Wang et al. Theorem 2.1: the best k-subset attains the largest mutual information")
    doc.para("Uniform prior. The theorem's value max_k I_k uses I_k derived from the catalog k-subset channel, "
             f"enclosed at every k = 1..d-1. AGREES: both enclosures overlap and their hull is narrower than "
             f"{float(AGREEMENT_WIDTH):g}; BEATEN would mean the LP found a mechanism proved better than every k-subset.")
    doc.table(["d", "ε", "certified optimum (nats)", "width of [lower, upper]", "max_k I_k at", "outputs", "verdict"],
              [[r["d"], r["epsilon"], f"{r['optimum']:.15f}", f"{float(Fraction(r['optimum_upper']) - Fraction(r['optimum_lower'])):.1e}",
                r["attained_by"], r["outputs"], r["verdict"]] for r in wang_rows],
              caption="'outputs': the number of outputs of the optimal vertex the LP returned (the k-subset "
                      "mechanism itself has C(d, k) outputs; a vertex has at most d).")
    agree = sum(r["verdict"] == "AGREES" for r in wang_rows)
    doc.para(f"{agree} of {len(wang_rows)} points agree." + (" No mechanism beats the theorem on this grid."
                                                              if agree == len(wang_rows) else
                                                              " SOME POINTS DO NOT AGREE: see the JSON for the mechanisms."))
    doc.heading("Kairouz, Bonawitz & Ramage Theorem 2: W-RR is optimal for binary alphabets")
    doc.para("The theorem is stated for private minimax distribution estimation under every loss; what the LP checks is "
             "its form for sublinear utilities: for each prior P(X = 0) = p and ε on the grid, the certified largest "
             "I(X;Y) over all ε-LDP mechanisms on {0, 1} equals W-RR's (computed from the catalog W-RR channel by the "
             "definition of I), and the optimal staircase mechanism is W-RR itself, compared entry by entry exactly.")
    doc.table(["P(X = 0)", "ε", "certified optimum (nats)", "I(X;Y) of W-RR", "optimal mechanism = W-RR", "verdict"],
              [[r["prior"][0], r["epsilon"], f"{r['optimum']:.15f}", f"{r['theorem_value']:.15f}",
                "yes" if r.get("mechanism_equal") else "NO", r["verdict"]] for r in binary_rows])
    doc.heading("The same theorem for binary hypotheses: W-RR maximizes every f-divergence")
    doc.para("For two laws P0, P1 on {0, 1} and each divergence objective of `ldpaudit optimize` (KL, total variation, "
             "χ², squared Hellinger between the output laws P0·Q and P1·Q), the certified largest divergence over all "
             "ε-LDP mechanisms on {0, 1} against W-RR's (from the catalog channel, by the divergence's definition), "
             "and whether the optimal staircase mechanism is W-RR itself.")
    doc.table(["objective", "P0", "P1", "ε", "certified optimum", "W-RR's value", "optimal mechanism = W-RR", "verdict"],
              [[r["objective"], ", ".join(r["prior"]), ", ".join(r["alternative"]), r["epsilon"], f"{r['optimum']:.15f}",
                f"{r['theorem_value']:.15f}", "yes" if r.get("mechanism_equal") else "NO", r["verdict"]]
               for r in divergence_rows],
              caption="; ".join(f"{k}: {OBJECTIVES[k]}" for k in DIVERGENCES))
    example = next(c for c in wang if c.optimum.problem.d == 6 and c.optimum.problem.epsilon == 1)
    doc.heading("Example: the optimal mechanism at d = 6, ε = 1")
    columns = example.optimum.columns
    highs = sorted({bin(c.pattern).count("1") for c in columns})
    doc.para("`ldpaudit optimize --objective mi -p d=6 -p epsilon=1` returns a vertex with "
             f"{len(columns)} outputs (patterns with {' or '.join(map(str, highs))} entries e^ε, written t): "
             + ", ".join(f"{pattern_text(c.pattern, 6)} (θ = {sp.sstr(c.weight)})" for c in columns)
             + f". Its certified information equals max_k I_k, attained at {example.attained_by} (C(6, 2) = 15 outputs "
             "for the 2-subset mechanism).")
    payload = {"wang_theorem_2_1": wang_rows, "kairouz_binary": binary_rows, "binary_divergences": divergence_rows,
               "all_agree": all(r["verdict"] == "AGREES" for r in wang_rows + binary_rows + divergence_rows),
               "binary_mechanism_is_wrr": all(r.get("mechanism_equal") for r in binary_rows + divergence_rows)}
    return write_outputs(out_dir, "optimality", doc, payload), payload


__all__ = ["reproduce"]
