"""Duchi, Jordan & Wainwright (2013), as summarized in the blog post of seed document 001:
the bounded-mean Laplace mechanism's estimator variance V(X)/n + 8M²/(nε²), and the ℓ2 rate
of multivariate randomized response (k-RAPPOR with α = ε), E‖θ̂ - θ‖² ≤ (d/n)(s+1)²/(s-1)²
= O(d/(nα²)). Both are derived from the catalog channels; the blog's expressions are
transcribed here only to compare against.

Then the rest of the seed: the blog's experiment (the Laplace mean on clipped N(100, 1) data,
n = 1000, α ∈ {0.2, 0.3, 0.5, 0.7}, MSE against n and α, simulated beside the derived variance
and the exact clipping bias), and the Laplace histogram density estimator over a Hölder class
(variance derived from the channel, bias C₁K^(-β) modelled, optimal K and rate solved by sympy,
and a simulation whose MSE slope against n is compared with the derived exponent).
Seeded, with draws and arithmetic from :mod:`ldpaudit.portable`: regenerating gives identical
Markdown, LaTeX and JSON on every CPU."""

from __future__ import annotations

import math
from pathlib import Path

import sympy as sp

from ldpaudit.derive import N_USERS, hit_risk, mean_estimation, unbiased_estimator
from ldpaudit.derive.algebra import leading_power, leading_term_at_zero, simplify
from ldpaudit.derive.continuous import VX, ZBAR
from ldpaudit.portable import exact_function
from ldpaudit.papers.hooks import duchi2013_sim as sim
from ldpaudit.papers.documents import Document, fmt, write_outputs
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
    doc = Document("Duchi, Jordan & Wainwright (2013): Laplace mean, multivariate randomized response and the "
                   "Laplace histogram, derived and simulated")
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
    payload["minimax_gap"] = _minimax_gap(doc, risk_iid, d, e)
    experiment, figures = _blog_experiment(doc, me, M, eps, out_dir)
    density, density_figure = _density_estimation(doc, out_dir)
    payload["blog_experiment"] = experiment
    payload["density_estimation"] = density
    return write_outputs(out_dir, "duchi2013", doc, payload) + figures + [density_figure], payload



#: the blog's experiment ("Methodology" of seed 001): N(100, 1) data, n = 1000, four privacy levels
DATA_MEAN, DATA_SD = 100, 1
#: the clipping bound: the data are unbounded, the mechanism needs x in [-M, M]; M = μ + 5σ is fixed
#: from the data's known scale before any report is seen (a bound read off the sample would leak)
CLIP_BOUND = 105
BLOG_N = 1000
ALPHAS = (0.2, 0.3, 0.5, 0.7)
MEAN_NS = (100, 300, 1000, 3000, 10_000)
MEAN_REPS = 1000
TRADEOFF_BOUNDS = (100, 101, 102, 103, 105, 110)
#: a simulated MSE (or IMSE) agrees with the derived one when within this many standard errors
TOLERANCE_SE = 4
#: the density experiment (density Beta(2, 2), f(x) = 6x(1 - x)): log-spaced n (half decades), repetitions per point
DENSITY_NS = tuple(int(round(10 ** (5 + k / 2))) for k in range(9))
DENSITY_REPS = 1000
#: the issue's acceptance: the simulated slope against n within this of the derived exponent
SLOPE_TOLERANCE = 0.1


def _blog_experiment(doc: Document, me, M, eps, out_dir: Path) -> tuple[dict, list]:
    """The blog's bounded-mean experiment on clipped N(100, 1) data, simulated beside the derived MSE."""
    n = N_USERS
    clip = sim.clipped_normal(DATA_MEAN, DATA_SD, CLIP_BOUND)
    bias_value, var_value = clip.bias_value(), clip.variance_value()
    b = sp.Symbol("b", real=True)
    mse_symbolic = b**2 + me.variance_iid                     # bias² + Var μ̂ (V = Var clip(X))
    mse_at = exact_function((n, eps), mse_symbolic.xreplace({b: sp.Float(bias_value, 15), VX: sp.Float(var_value, 15),
                                                             M: CLIP_BOUND}))
    estimator = _arithmetic(ZBAR, me.estimator)
    res = sim.mean_experiment(estimator, mu=DATA_MEAN, sigma=DATA_SD, bound=CLIP_BOUND, alphas=ALPHAS, ns=MEAN_NS,
                              reps=MEAN_REPS)
    rows = []
    for r in res["rows"]:
        derived = mse_at(r["n"], r["alpha"])
        rows.append({"n": r["n"], "alpha": r["alpha"], "derived_mse": sim.r6(derived), "simulated_mse": sim.r6(r["mse"]),
                     "simulated_mse_se": sim.r6(r["mse_se"]), "z": round((r["mse"] - derived) / r["mse_se"], 3),
                     "mean_error": sim.r6(r["mean_error"]), "mean_error_se": sim.r6(r["mean_error_se"])})
    within = all(abs(r["z"]) <= TOLERANCE_SE for r in rows)
    slopes_n = [{"alpha": a, "simulated": round(sim.fit_slope(MEAN_NS, [r["simulated_mse"] for r in rows if r["alpha"] == a]), 4),
                 "derived": round(sim.fit_slope(MEAN_NS, [mse_at(m, a) for m in MEAN_NS]), 4)} for a in ALPHAS]
    at_blog = [r for r in rows if r["n"] == BLOG_N]
    slope_alpha = {"simulated": round(sim.fit_slope(ALPHAS, [r["simulated_mse"] for r in at_blog]), 4),
                   "derived": round(sim.fit_slope(ALPHAS, [mse_at(BLOG_N, a) for a in ALPHAS]), 4)}
    tradeoff = []
    for bound in TRADEOFF_BOUNDS:
        c = clip if bound == CLIP_BOUND else sim.clipped_normal(DATA_MEAN, DATA_SD, bound)
        bv, vv = c.bias_value(), c.variance_value()
        mse_b = exact_function((n, eps), mse_symbolic.xreplace({b: sp.Float(bv, 15), VX: sp.Float(vv, 15), M: bound}))
        tradeoff.append({"M": bound, "clipping_bias": sim.r6(bv), "clipped_variance": sim.r6(vv),
                         "mse_alpha_0.2": sim.r6(mse_b(BLOG_N, 0.2)), "mse_alpha_0.7": sim.r6(mse_b(BLOG_N, 0.7))})

    doc.heading("The blog's experiment: the Laplace mean on N(100, 1) data")
    doc.para(f"The blog draws n = {BLOG_N} values from N({DATA_MEAN}, {DATA_SD}) and privatizes them with the Laplace "
             f"mechanism at α in {{{', '.join(f'{a:g}' for a in ALPHAS)}}} (α = ε), then estimates the mean. Its text says "
             "\"a Laplace noise L(0, α)\"; we read it as the mechanism derived above, noise scale 2M/α, the only reading "
             "under which the reports are α-LDP. Its figures were lost from our copy, so they are redrawn here.")
    doc.para(f"The data are unbounded and the mechanism needs x in [-M, M], so each user first clips x to [-M, M]. We "
             f"choose M = {CLIP_BOUND} = μ + 5σ, fixed from the data's known scale before any report is seen (a bound "
             "taken from the sample would itself leak). Clipping biases the mean. With X = μ + σZ, Z ~ N(0, 1), "
             r"$a^+ = (M - \mu)/\sigma$ and $a^- = (M + \mu)/\sigma$, the tail integrals (antiderivatives of "
             r"$z^k\varphi(z)$, each checked by differentiation) are")
    doc.equation(r"g(a) = \int_a^\infty (z-a)\,\varphi(z)\,dz = " + sp.latex(clip.upper_excess)
                 + r",\qquad h(a) = \int_a^\infty (z^2-a^2)\,\varphi(z)\,dz = " + sp.latex(clip.upper_excess_square))
    doc.para("so that the clipping bias and the variance of the clipped data are")
    doc.equation(r"\mathbb{E}\,\mathrm{clip}(X) - \mu = \sigma\,(g(a^-) - g(a^+)) = " + sp.latex(clip.bias)
                 + r" \approx " + sp.latex(sp.Float(bias_value, 6)))
    doc.equation(r"\operatorname{Var}\mathrm{clip}(X) = \sigma^2(1 - h(a^+) - h(a^-)) - \text{bias}^2 \approx "
                 + sp.latex(sp.Float(var_value, 10)))
    doc.para(f"The clipping bias {fmt(bias_value)} (bias² {fmt(bias_value**2)}) is negligible beside the noise, and in "
             f"the simulation {res['clipped_values']} of {res['values']:,} drawn values were clipped. The derived MSE of μ̂ "
             "(the mean of the reports) is the squared clipping bias plus the variance derived above with V = "
             "Var clip(X):")
    doc.equation(r"\mathrm{MSE}(\hat\mu) = b^2 + " + sp.latex(me.variance_iid) + r",\quad b = "
                 + sp.latex(sp.Float(bias_value, 6)) + r",\ V = " + sp.latex(sp.Float(var_value, 10)) + r",\ M = "
                 + str(CLIP_BOUND))
    doc.table(["M", "clipping bias", "Var clip(X)", f"MSE at n = {BLOG_N}, α = 0.2", f"MSE at n = {BLOG_N}, α = 0.7"],
              [[t["M"], fmt(t["clipping_bias"]), fmt(t["clipped_variance"], 6), fmt(t["mse_alpha_0.2"], 6),
                fmt(t["mse_alpha_0.7"], 6)] for t in tradeoff],
              caption="The clipping bound's trade-off, derived: a smaller M adds bias, a larger M adds noise 8M²/(nα²).")
    at_mean = next(t for t in tradeoff if t["M"] == DATA_MEAN)
    chosen = next(t for t in tradeoff if t["M"] == CLIP_BOUND)
    if at_mean["mse_alpha_0.7"] < chosen["mse_alpha_0.7"] and at_mean["mse_alpha_0.2"] < chosen["mse_alpha_0.2"]:
        doc.para(f"At these α the noise term dominates so strongly that even M = {DATA_MEAN} (clipping at the mean, bias "
                 f"{fmt(at_mean['clipping_bias'])}) would give a lower MSE than M = {CLIP_BOUND}; we keep M = {CLIP_BOUND} "
                 f"so that μ̂ stays unbiased (bias {fmt(bias_value, 2)}), the property the blog's second figure "
                 f"illustrates, at the price of ({CLIP_BOUND}/{DATA_MEAN})² ≈ {(CLIP_BOUND / DATA_MEAN) ** 2:.3g} times "
                 f"the noise variance of M = {DATA_MEAN}.")
    doc.para(f"Simulation: every user draws x and its Laplace noise; {MEAN_REPS} seeded repetitions per n (seed "
             f"{sim.SEED}); the same draws serve all four α at a given n (common random numbers, so the α columns of "
             f"one n move together). z = (simulated - derived)/SE; the tolerance is |z| ≤ {TOLERANCE_SE}: "
             f"{'every point is within it' if within else 'SOME POINT IS OUTSIDE IT'}.")
    max_t = max(abs(r["mean_error"]) / r["mean_error_se"] for r in at_blog)
    doc.table(["α", "derived MSE", "simulated MSE ± SE", "z", "mean error of μ̂ ± SE"],
              [[f"{r['alpha']:g}", fmt(r["derived_mse"], 6), f"{fmt(r['simulated_mse'], 6)} ± {fmt(r['simulated_mse_se'], 3)}",
                f"{r['z']:+.2f}", f"{fmt(r['mean_error'], 3)} ± {fmt(r['mean_error_se'], 3)}"] for r in at_blog],
              caption=f"n = {BLOG_N}: the mean error of μ̂ is within {max_t:.2f} SE of 0 at every α; the MSE grows as 1/α².")
    doc.table(["n", *[f"α = {a:g}: simulated (derived)" for a in ALPHAS]],
              [[m, *[f"{fmt(r['simulated_mse'], 5)} ({fmt(r['derived_mse'], 5)})" for r in rows if r["n"] == m]]
               for m in MEAN_NS], caption="MSE of μ̂ against n.")
    doc.para("Fitted log-log slopes against n (derived and simulated): "
             + "; ".join(f"α = {s['alpha']:g}: {s['simulated']:+.3f} simulated, {s['derived']:+.3f} derived" for s in slopes_n)
             + f". Against α at n = {BLOG_N}: {slope_alpha['simulated']:+.3f} simulated, {slope_alpha['derived']:+.3f} "
             "derived. These are the blog's two shapes, C/n and C/α²: the derived MSE is exactly of the form "
             f"b² + (V + 8M²/α²)/n, with b² = {fmt(bias_value**2, 2)}.")
    sample = sim.report_sample(mu=DATA_MEAN, sigma=DATA_SD, bound=CLIP_BOUND, alphas=ALPHAS, n=BLOG_N)
    figures = [sim.plot_reports(sample, DATA_MEAN, CLIP_BOUND, out_dir / "duchi2013_reports.png"),
               sim.plot_mse_n(rows, mse_at, ALPHAS, MEAN_NS, out_dir / "duchi2013_mse_vs_n.png"),
               sim.plot_mse_alpha(rows, mse_at, BLOG_N, out_dir / "duchi2013_mse_vs_alpha.png")]
    doc.figure("duchi2013_reports.png", f"The true data and the private reports at each α (one population of n = {BLOG_N}; "
               "log density scale).")
    doc.figure("duchi2013_mse_vs_n.png", "MSE of μ̂ against n, simulated (± 2 SE) and derived (dotted).")
    doc.figure("duchi2013_mse_vs_alpha.png", f"MSE of μ̂ against α at n = {BLOG_N}, simulated (± 2 SE) and derived.")
    payload = {"data": f"N({DATA_MEAN}, {DATA_SD}**2)", "mu": DATA_MEAN, "sigma": DATA_SD, "M": CLIP_BOUND,
               "n": BLOG_N, "alphas": list(ALPHAS), "ns": list(MEAN_NS), "repetitions": MEAN_REPS, "seed": sim.SEED,
               "clipping_bias": sp.sstr(clip.bias), "clipping_bias_value": sim.r6(bias_value),
               "clipped_variance_value": sim.r6(var_value), "derived_mse": sp.sstr(mse_symbolic),
               "clipped_values": res["clipped_values"], "values": res["values"], "tolerance_se": TOLERANCE_SE,
               "all_within_tolerance": within, "rows": rows, "slopes_against_n": slopes_n,
               "slope_against_alpha": slope_alpha, "bound_tradeoff": tradeoff}
    return payload, figures


def _density_estimation(doc: Document, out_dir: Path) -> tuple[dict, Path]:
    """The Laplace histogram density estimator: variance from the channel, K* and the rate from
    bias² + variance, and a seeded simulation of its integrated squared error against n."""
    from ldpaudit.derive.algebra import F_J
    from ldpaudit.derive.histogram import BINS, BIAS_CONSTANT, POINT, SMOOTHNESS, density_bins, exact_risk, histogram_density
    from ldpaudit.derive.risk import S2
    from ldpaudit.mechanism.catalog import laplace_histogram

    n, beta = N_USERS, SMOOTHNESS
    hd = histogram_density(laplace_histogram())
    eps = hd.epsilon
    blog_rate_exponent = -2 * beta / (2 * beta + 2)           # the blog's printed rate, to compare
    blog_bins_exponent = -1 / (2 * beta + 2)                  # the blog's printed K = C₄ (nα²)^(-1/(2β+2))
    rate_matches = sp.simplify(hd.rate_exponent - blog_rate_exponent) == 0
    bins_match = sp.simplify(hd.bins_exponent - blog_bins_exponent) == 0
    bins = density_bins(6 * POINT * (1 - POINT))             # Beta(2, 2)
    beta_value = simplify(-bins.bias_exponent / 2)
    concrete = {beta: beta_value, BIAS_CONSTANT: sp.sqrt(bins.bias_constant_squared)}
    k_concrete = sp.simplify(hd.optimal_bins.xreplace(concrete))
    rate_concrete = sp.simplify(hd.rate.xreplace(concrete))
    exponent_value = hd.rate_exponent.xreplace(concrete)
    exact = exact_risk(hd, bins)
    k_fn = exact_function((n, eps), k_concrete)
    exact_fn = exact_function((BINS, n, eps), exact)
    estimator = _arithmetic(F_J, hd.bin_estimator)
    dropped_fn = exact_function((BINS, eps), hd.dropped_ratio.xreplace({S2: bins.sum_squares}))
    rows, slopes = [], []
    for ai, a in enumerate(ALPHAS):
        pts = []
        for i, m in enumerate(DENSITY_NS):
            k_real = k_fn(m, a)
            K = max(2, int(round(k_real)))
            mean, se = sim.histogram_imse(probs=sim.bin_probabilities(bins.cdf, POINT, K),
                                          squared_integral=float(bins.squared_integral), estimator=estimator,
                                          K=K, n=m, alpha=a, reps=DENSITY_REPS, keys=(ai, i))
            truth = exact_fn(K, m, a)
            ks = range(2, 4 * math.ceil(k_real) + 3)
            best = min(ks, key=lambda k: exact_fn(k, m, a))
            pts.append({"alpha": a, "n": m, "K_star": sim.r6(k_real), "K": K, "K_exact_best": best,
                        "exact_imse": sim.r6(truth), "simulated_imse": sim.r6(mean), "simulated_imse_se": sim.r6(se),
                        "z": round((mean - truth) / se, 3), "dropped_variance_ratio": sim.r6(dropped_fn(K, a))})
        rows += pts
        simulated = sim.fit_slope(DENSITY_NS, [p["simulated_imse"] for p in pts])
        slopes.append({"alpha": a, "simulated": round(simulated, 4),
                       "exact": round(sim.fit_slope(DENSITY_NS, [p["exact_imse"] for p in pts]), 4),
                       "derived": float(exponent_value), "gap": round(abs(simulated - float(exponent_value)), 4)})
    within_slope = all(s["gap"] <= SLOPE_TOLERANCE for s in slopes)
    within_se = all(abs(r["z"]) <= TOLERANCE_SE for r in rows)

    doc.heading("Density estimation: the Laplace histogram over a Hölder class")
    doc.para("A density f on [0, 1] is cut into K bins G_j = [(j-1)/K, j/K). Each user reports the catalog channel "
             "'Laplace histogram': the one-hot vector of its bin plus (2/α) Laplace(0, 1) noise on every coordinate. The "
             "derived unbiased estimator of the bin probability P_j and its variance (i.i.d. users drawn from f) are")
    doc.equation(r"\hat p_j = " + sp.latex(hd.bin_estimator) + r",\qquad \operatorname{Var}\hat p_j = "
                 + sp.latex(hd.bin_variance))
    doc.para(r"where f_j is the mean of the reports' coordinate j. The histogram $\hat f(x) = K\hat p_j$ on G_j has "
             rf"$\int_{{G_j}} K^2\,dx = {sp.latex(hd.bin_factor)}$ times Var p̂_j as its integrated variance on bin j; "
             "summed over the bins (Σ_j p_j = 1, S₂ = Σ_j P_j²):")
    doc.equation(r"\int_0^1 \operatorname{Var}\hat f(x)\,dx = " + sp.latex(hd.integrated_variance))
    doc.para("The blog writes the variance as $C_2/n + C_3K^2/(n\\alpha^2)$. The noise term 8K²/(nα²) is derived exactly; the "
             "sampling term is K(1 - S₂)/n, which grows with K (the blog's C₂/n drops the K). It is dominated: relative "
             "to the noise term it is " + sp.sstr(hd.dropped_ratio) + " ≤ ε²/(8K) (since 0 < S₂ ≤ 1), and the "
             "optimization below keeps the leading term " + sp.sstr(hd.leading_variance) + " as K → ∞.")
    doc.para("Modelling assumption (the only one, not derived): for f in the Hölder class of smoothness β the "
             "histogram's integrated squared bias is at most C₁²K^(-2β), i.e. its bias is C₁K^(-β) as the blog states. "
             "Then")
    doc.equation(r"R(K) = " + sp.latex(hd.risk) + r",\qquad \frac{dR}{dK} = " + sp.latex(hd.stationarity))
    doc.equation(r"\frac{d^2R}{dK^2} = " + sp.latex(hd.second_derivative) + r" > 0 \quad (K > 0)")
    doc.para("so R is convex and its one stationary point, solved by sympy, is the minimum; substituting it back gives "
             "the rate:")
    doc.equation(r"K^* = " + sp.latex(hd.optimal_bins) + r",\qquad R(K^*) = " + sp.latex(hd.rate))
    doc.equation(r"K^* \propto (n\varepsilon^2)^{" + sp.latex(hd.bins_exponent) + r"},\qquad R(K^*) \propto (n\varepsilon^2)^{"
                 + sp.latex(hd.rate_exponent) + "}")
    if bins_match:
        bins_verdict = "agrees"
    elif sp.simplify(hd.bins_exponent + blog_bins_exponent) == 0:
        bins_verdict = ("has the wrong sign in its exponent: the number of bins grows with nα², as "
                        "(nα²)^(1/(2β+2))")
    else:
        bins_verdict = f"DISAGREES with the derived exponent {sp.sstr(hd.bins_exponent)}"
    doc.para(r"The exponents are the elasticities $n\,\partial\log/\partial n$, checked to equal half the elasticity "
             "in ε (K* and the rate depend on n and ε through nε² only). The blog's rate (nα²)^(-2β/(2β+2)): "
             f"{'the derivation agrees' if rate_matches else 'the derivation DISAGREES'}. The blog's optimal K, "
             f"$C_4(n\\alpha^2)^{{-1/(2\\beta+2)}}$, {bins_verdict}.")
    doc.heading("A concrete density and the simulated rate")
    doc.para(f"f(x) = {sp.sstr(bins.density)} on [0, 1] (the Beta(2, 2) density): |f'| ≤ {sp.sstr(bins.lipschitz)}, so f "
             "is Hölder with β = 1. Its bin probabilities are polynomials in j, summed by sympy in closed form:")
    doc.equation(r"P_j = " + sp.latex(bins.bin_probability) + r",\quad S_2 = \sum_j P_j^2 = " + sp.latex(bins.sum_squares)
                 + r",\quad \int_0^1 (\mathbb{E}\hat f - f)^2 = \int f^2 - K S_2 = " + sp.latex(bins.integrated_squared_bias))
    doc.para(f"The exact squared bias behaves as {sp.sstr(bins.bias_constant_squared)}·K^({sp.sstr(bins.bias_exponent)}): "
             f"the model holds with β = {sp.sstr(beta_value)} and C₁² = {sp.sstr(bins.bias_constant_squared)} (= $\\int f'^2/12$), "
             "and over-states the truth only by the K^(-4) term. A piecewise-constant estimate cannot have a bias of "
             "smaller order than K^(-1) for a non-constant density, so β = 1 is the most smoothness a histogram "
             "exploits. At β = 1:")
    doc.equation(r"K^* = " + sp.latex(k_concrete) + r",\qquad R(K^*) = " + sp.latex(rate_concrete)
                 + r" \propto n^{" + sp.latex(exponent_value) + "}")
    doc.para(f"Simulation: for each of the blog's α and n = $10^5, \\dots, 10^9$ (half decades), K is the derived K* rounded to "
             f"an integer; {DENSITY_REPS} seeded repetitions per point (seed {sim.SEED}). Each repetition draws the "
             "aggregate of the n reports exactly in law: multinomial bin counts plus (2/α)(G - G') per coordinate with "
             "G, G' ~ Gamma(n, 1), since a Laplace(0, 1) variable is a difference of two Exp(1) variables and a sum of n "
             r"Exp(1) variables is Gamma(n, 1). The integrated squared error $\int(\hat f - f)^2 = \int f^2 - "
             r"2K\sum_j \hat p_j P_j + K\sum_j \hat p_j^2$ is exact for each repetition. 'Exact' is the exact integrated "
             "squared bias plus the derived integrated variance with S₂ above; "
             "'best K' is the integer minimizing it.")
    doc.table(["α", "n", "K* (derived)", "K", "best K (exact)", "exact IMSE", "simulated IMSE ± SE", "z"],
              [[f"{r['alpha']:g}", f"{r['n']:,}", fmt(r["K_star"]), r["K"], r["K_exact_best"], fmt(r["exact_imse"], 5),
                f"{fmt(r['simulated_imse'], 5)} ± {fmt(r['simulated_imse_se'], 2)}", f"{r['z']:+.2f}"] for r in rows],
              caption=f"Every |z| ≤ {TOLERANCE_SE}: {'yes' if within_se else 'NO'}. The dropped sampling-variance term is at "
                      f"most {fmt(max(r['dropped_variance_ratio'] for r in rows), 3)} of the noise term at these K.")
    doc.table(["α", "simulated slope", "slope of the exact IMSE", "derived exponent", "|simulated - derived|"],
              [[f"{s['alpha']:g}", f"{s['simulated']:.4f}", f"{s['exact']:.4f}", sp.sstr(exponent_value), f"{s['gap']:.4f}"]
               for s in slopes],
              caption=f"Least-squares slope of log IMSE on log n. Acceptance: within {SLOPE_TOLERANCE} of the derived "
                      f"exponent -2β/(2β+2) = {sp.sstr(exponent_value)}: {'met at every α' if within_slope else 'NOT MET'}. "
                      "Without privacy a histogram's rate would be n^(-2/3); at a fixed K the slope would tend to 0 (bias) "
                      "or -1 (variance).")
    doc.figure("duchi2013_density_imse.png", "Integrated squared error of the Laplace histogram at the derived K*, "
               "simulated (± 2 SE) and exact (dotted), with the fitted slopes.")
    figure = sim.plot_density(rows, exact_fn, ALPHAS, out_dir / "duchi2013_density_imse.png")
    payload = {
        "channel": hd.mechanism, "bin_estimator": sp.sstr(hd.bin_estimator), "bin_variance": sp.sstr(hd.bin_variance),
        "integrated_variance": sp.sstr(hd.integrated_variance), "leading_variance": sp.sstr(hd.leading_variance),
        "dropped_ratio": sp.sstr(hd.dropped_ratio), "squared_bias_model": sp.sstr(hd.squared_bias),
        "assumption": "integrated squared bias <= C_1**2*K**(-2*beta) for a Holder-beta density (modelled, not derived)",
        "risk": sp.sstr(hd.risk), "stationarity": sp.sstr(hd.stationarity), "optimal_bins": sp.sstr(hd.optimal_bins),
        "rate": sp.sstr(hd.rate), "bins_exponent": sp.sstr(hd.bins_exponent), "rate_exponent": sp.sstr(hd.rate_exponent),
        "blog_rate_exponent": sp.sstr(blog_rate_exponent), "rate_agrees_with_blog": rate_matches,
        "blog_bins_exponent": sp.sstr(blog_bins_exponent), "bins_agree_with_blog": bins_match,
        "concrete": {"density": sp.sstr(bins.density), "lipschitz": sp.sstr(bins.lipschitz), "beta": sp.sstr(beta_value),
                     "C1_squared": sp.sstr(bins.bias_constant_squared), "sum_squares": sp.sstr(bins.sum_squares),
                     "integrated_squared_bias": sp.sstr(bins.integrated_squared_bias),
                     "optimal_bins": sp.sstr(k_concrete), "rate": sp.sstr(rate_concrete),
                     "rate_exponent": sp.sstr(exponent_value)},
        "simulation": {"alphas": list(ALPHAS), "ns": list(DENSITY_NS), "repetitions": DENSITY_REPS, "seed": sim.SEED,
                       "tolerance_se": TOLERANCE_SE, "all_within_tolerance": within_se, "rows": rows,
                       "slope_tolerance": SLOPE_TOLERANCE, "slopes": slopes, "slopes_within_tolerance": within_slope},
    }
    return payload, figure

#: the published lower bound, a reference input (not derived here)
MINIMAX_SOURCE = ("J. C. Duchi, M. I. Jordan and M. J. Wainwright, Local privacy and minimax bounds: sharp rates for "
                  "probability estimation (NIPS 2013) / Local privacy and statistical minimax rates (FOCS 2013), "
                  "multinomial estimation on the d-simplex, α-LDP with α in [0, 1]")
GAP_DS = (2, 10, 100, 1000)
GAP_ALPHAS = (sp.Rational(1, 10), sp.Rational(1, 4), sp.Rational(1, 2), sp.Integer(1))


def _minimax_gap(doc: Document, risk_iid, d, e) -> dict:
    """k-RAPPOR's and k-RR's derived worst-case ℓ2² risk over the rate d/(nα²) of the published
    minimax lower bound c_l·min{1, 1/√(nα²), d/(nα²)} (the term that binds for n ≥ d²/α²)."""
    from ldpaudit.mechanism.catalog import k_rr

    rr = k_rr()
    rr_risk = hit_risk(unbiased_estimator(rr), "iid").l2_worst.xreplace({rr.symbols["d"]: d, rr.symbols["epsilon"]: e})
    n = N_USERS
    rate = d / (n * e**2)
    ratios = {"k-RAPPOR": simplify(risk_iid / rate), "k-RR": simplify(rr_risk / rate)}
    limits = {name: sp.limit(r, e, 0) for name, r in ratios.items()}
    rows = [{"d": dv, "alpha": float(a), **{name: float(r.subs({d: dv, e: a})) for name, r in ratios.items()}}
            for dv in GAP_DS for a in GAP_ALPHAS]
    doc.heading("Minimax lower bound and the optimality gap")
    doc.para(f"Reference input (stated, not derived): {MINIMAX_SOURCE}. For α-LDP channels (α = ε) the minimax ℓ2² risk "
             "of estimating a distribution on d points from n users is at least c_l·min{1, 1/√(nα²), d/(nα²)}, with "
             "c_l a universal constant the theorem does not state numerically; for n ≥ d²/α² the binding term is the "
             "rate d/(nα²). Risk / rate for the derived worst-case ℓ2² risks (i.i.d. model; n cancels):")
    doc.equation(r"\frac{\text{risk}}{d/(n\alpha^2)}:\quad \text{k-RAPPOR } " + sp.latex(ratios["k-RAPPOR"])
                 + r",\qquad \text{k-RR } " + sp.latex(ratios["k-RR"]))
    doc.table(["d", "α", "k-RAPPOR risk / rate", "k-RR risk / rate"],
              [[r["d"], fmt(r["alpha"], 3), fmt(r["k-RAPPOR"], 4), fmt(r["k-RR"], 4)] for r in rows],
              caption="A bounded ratio as d grows is order-optimality; the gap to the minimax risk itself is at most "
                      "ratio / c_l.")
    doc.para(f"As α → 0 the ratio tends to {sp.sstr(limits['k-RAPPOR'])} for k-RAPPOR (bounded in d: order-optimal, "
             f"the theorem's conclusion) and to {sp.sstr(limits['k-RR'])} for k-RR (growing like d: not order-optimal "
             "in the high-privacy regime).")
    return {"source": MINIMAX_SOURCE, "rate": sp.sstr(rate), "ratios": {k: sp.sstr(v) for k, v in ratios.items()},
            "small_alpha_limits": {k: sp.sstr(v) for k, v in limits.items()}, "rows": rows}


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


def _arithmetic(symbol, expr):
    """A numpy function of ``expr`` that uses +, -, × and / only (correctly rounded on every CPU);
    refuses an expression with a function or a non-integer power."""
    if expr.atoms(sp.Function) or any(not p.exp.is_Integer for p in expr.atoms(sp.Pow)):
        raise ArithmeticError(f"the estimator {expr} is not built from +, -, × and / alone; its numpy evaluation "
                              "would depend on the CPU")
    return sp.lambdify(symbol, expr, "numpy")
