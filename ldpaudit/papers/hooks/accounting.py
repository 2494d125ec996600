"""``ldpaudit reproduce accounting``: privacy profiles and trade-off curves of the catalog's
finite mechanisms, exact K-report composition of k-RR against basic and advanced composition,
and the memoized compositions (RAPPOR, L-GRR, L-OUE) over days against their cap, with tables,
LaTeX and plots under proofs/accounting/. Everything is computed by :mod:`ldpaudit.account`
from the channels; shuffling amplification curves are added by the amplification work."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import sympy as sp

from ldpaudit.papers.documents import Document, save_png, write_outputs

SPECS = Path(__file__).resolve().parents[3] / "specs"
#: (spec, bindings): the catalog's finite mechanisms at exact parameters (rational entries
#: where the exponent would be irrational: k-RAPPOR at ε = log 9 so that e^(ε/2) = 3)
CATALOG = [
    ("wrr", {}), ("krr", {"d": 4, "epsilon": 1}), ("oue", {"d": 4, "epsilon": 1}),
    ("krappor", {"d": 4, "epsilon": "log(9)"}), ("ksubset", {"d": 5, "k": 2, "epsilon": 1}),
    ("rr_bit", {"bits": 2, "j": 1, "epsilon": 1}),
]
DAYS = (1, 2, 5, 10, 20, 50, 100)
#: the compositions over days, at exact rational entries (e^ε = 4, 2): the histogram view of
#: L-GRR has C(K + d - 1, d - 1) outputs, so it stops at 20 days
MEMOIZED = [("rappor_memoized", None), ("lgrr", ["eps_perm=log(4)", "eps_inst=log(2)"]),
            ("loue", ["eps_perm=log(4)", "eps_inst=log(4)"])]
REPORTS = (1, 2, 5, 10, 20, 50, 100)
#: shuffling: mechanisms, the n of the curves, δ, and the largest n with the privacy-blanket bound
AMPLIFIED = [("k-RR", SPECS / "krr.toml", {"d": 8, "epsilon": 1}), ("OUE", SPECS / "oue.toml", {"d": 8, "epsilon": 1}),
             ("OLH", SPECS / "olh.toml", {"d": 4, "g": 3, "epsilon": "log(2)"})]
SHUFFLED_N = (1_000, 10_000, 100_000, 1_000_000)
SHUFFLED_DELTA = 1e-8
BLANKET_UP_TO = 1_000_000
#: the Gaussian mechanism shuffled: its spec's example σ (calibrated for one report at ε = 1, δ = 1e-5)
GAUSSIAN_N = (10, 100, 1_000, 10_000, 100_000, 1_000_000)
#: the density channels whose whole δ(ε) is listed in closed form
DENSITY_CURVES = [("laplace_mean", None), ("gaussian", None)]


def _load(spec, binding):
    from ldpaudit.mechanism.loader import load_spec

    mech = load_spec(SPECS / f"{spec}.toml")
    return mech.bind(binding) if binding else mech.bind_example()


def reproduce(out_dir) -> tuple[list, dict]:
    from ldpaudit.account import composition as C
    from ldpaudit.account.profile import (advanced_composition, basic_composition, delta_at, profile,
                                          tight_epsilon, view)

    out_dir = Path(out_dir) / "accounting"
    doc = Document("Privacy accounting from the verified channel: profiles, trade-off curves, repeated reports")
    doc.para("Every number below is computed by `ldpaudit.account` from the channel's exact entries: the "
             "privacy-loss distribution of every ordered input pair (equal ones merged), δ(ε) = Σ_y max(0, "
             "Q(y|x) − e^ε Q(y|x')) maximized over the pairs exactly, the trade-off curve T(α) of the worst pair "
             "(Dong, Roth & Su), and compositions by exact convolution of the privacy-loss distributions.")
    payload: dict = {"profiles": [], "composition": [], "memoized": []}
    curves = []
    rows = []
    for spec, binding in CATALOG:
        mech = _load(spec, binding)
        v = view(mech)
        prof = profile(v)
        at1 = delta_at(v, sp.Rational(1, 2))
        bind = ", ".join(f"{k}={sp.sstr(val)}" for k, val in mech.bindings)
        rows.append([mech.name, bind, str(len(v.classes)), sp.sstr(prof.tight_epsilon),
                     str(len(prof.breakpoints)), sp.sstr(at1.delta), f"{at1.delta_float:.6g}",
                     "yes" if prof.worst is not None else "no"])
        payload["profiles"].append({"mechanism": mech.name, "bindings": bind, "pair_classes": len(v.classes),
                                    "tight_epsilon": sp.sstr(prof.tight_epsilon),
                                    "breakpoints": [sp.sstr(b) for b in prof.breakpoints],
                                    "delta_at_half": sp.sstr(at1.delta), "delta_at_half_float": at1.delta_float,
                                    "worst_pair_proved": prof.worst is not None,
                                    "tradeoff": [[sp.sstr(a), sp.sstr(b)] for a, b in prof.tradeoff]})
        curves.append((mech.name, prof))
    doc.heading("One report: privacy profile and trade-off curve")
    doc.table(["mechanism", "parameters", "pair classes", "tight ε", "breakpoints", "δ(1/2) exact", "δ(1/2)",
               "worst pair for every ε"], rows)

    krr = _load("krr", {"d": 16, "epsilon": "log(3)"})
    single = view(krr)
    eps0 = tight_epsilon(single)
    comp_rows = []
    for k in REPORTS:
        v = view(krr, reports=k)
        eps = sp.Integer(k) * eps0 / 4 if k > 1 else eps0 / 2
        exact = delta_at(v, eps)
        basic = basic_composition(single, k, eps)
        adv = advanced_composition(eps0, k, eps)
        comp_rows.append([str(k), sp.sstr(eps), f"{exact.delta_float:.6g}", f"{float(basic):.6g}",
                          f"{float(adv):.6g}", str(len(v.classes[0].pld))])
        payload["composition"].append({"reports": k, "epsilon": sp.sstr(eps), "delta_exact": exact.delta_float,
                                       "delta_basic": float(basic), "delta_advanced": float(adv),
                                       "support": len(v.classes[0].pld)})
    doc.heading("K reports of k-RR (d = 16, ε = ln 3): exact against basic and advanced composition")
    doc.para("At ε = K ln3/4 (ln3/2 for one report): the exact δ by convolution of the privacy-loss distribution "
             "(support: the distinct ratios 3^j, merged exactly), basic composition K δ1(ε/K), and advanced "
             "composition (Dwork, Rothblum & Vadhan) solved for δ.")
    doc.table(["K", "ε", "δ exact", "δ basic", "δ advanced", "PLD atoms"], comp_rows)

    memo_rows = []
    for name, params in MEMOIZED:
        comp = C.load_composition(SPECS / "compositions" / f"{name}.toml", params)
        days = DAYS if comp.coordinatewise else tuple(d for d in DAYS if d <= 20)
        chained = dataclasses.replace(comp, mode="chained")
        series = []
        for k in days:
            cap = C.memoization_cap(comp, k)
            free = tight_epsilon(chained.view(k))
            series.append((k, float(cap.epsilon), float(cap.permanent), float(free)))
            memo_rows.append([comp.name, str(k), f"{float(cap.epsilon):.6g}", f"{float(cap.permanent):.6g}",
                              "yes" if cap.below else "NO", f"{float(free):.6g}"])
            payload["memoized"].append({"composition": comp.name, "days": k, "epsilon_memoized": float(cap.epsilon),
                                        "epsilon_memoized_exact": sp.sstr(cap.epsilon),
                                        "epsilon_permanent": sp.sstr(cap.permanent), "below_cap": cap.below,
                                        "epsilon_without_memoization": float(free)})
        curves.append((comp.name, series))
    doc.heading("Memoization: the total ε over days against the permanent response")
    doc.para("Exact ε of the view over K days (the largest likelihood ratio of the histogram of the K reports, "
             "which is sufficient given the memoized value), the permanent response's ε, and the ε of the same "
             "chain without memoization (a fresh permanent response every day, K-fold composition). The cap holds "
             "for every K: the K-day view is the permanent response followed by a channel (data-processing "
             "inequality); it is also checked exactly at each K listed.")
    doc.table(["composition", "days", "ε memoized", "ε permanent (cap)", "≤ cap", "ε without memoization"], memo_rows)
    payload["density_curves"] = _density_curves(doc)
    payload["amplification"] = _amplification(doc)
    payload["gaussian_amplification"] = _gaussian_amplification(doc)
    figure = _plot(out_dir, curves)
    if figure is not None:
        doc.figure(figure.name, "δ(ε) and T(α) of the catalog; ε over days, memoized and not")
    return write_outputs(out_dir, "accounting", doc, payload) + ([figure] if figure else []), payload


def _plot(out_dir: Path, curves):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    for name, item in curves:
        if isinstance(item, list):
            ks = [s[0] for s in item]
            axes[2].plot(ks, [s[1] for s in item], marker="o", label=f"{name} memoized")
            axes[2].plot(ks, [s[3] for s in item], linestyle=":", label=f"{name} fresh")
            axes[2].axhline(item[0][2], color="gray", linewidth=0.5)
            continue
        _profile_axes(axes[0], axes[1], item, name)
    axes[0].set(xlabel="ε", ylabel="δ(ε)", title="privacy profile (one report)")
    axes[1].set(xlabel="α (type I)", ylabel="T(α) (type II)", title="trade-off curve of the worst pair")
    axes[2].set(xlabel="days", ylabel="ε of the view", xscale="log", yscale="log", title="memoization cap")
    for ax in axes:
        ax.legend(fontsize=6)
    out_dir.mkdir(parents=True, exist_ok=True)
    return save_png(fig, out_dir / "accounting.png")


def _profile_axes(ax_delta, ax_trade, prof, name):
    import numpy as np

    pts = []
    for _, pieces in prof.pieces:
        for q in pieces:
            hi = float(sp.log(q.t_high)) if q.t_high is not None else float(sp.log(q.t_low)) + 1
            for e in np.linspace(float(sp.log(q.t_low)), hi, 12):
                pts.append((e, float(q.a) - np.exp(e) * float(q.b)))
    if pts:
        pts.sort()
        ax_delta.plot([p[0] for p in pts], [max(0.0, p[1]) for p in pts], label=name)
    ax_trade.plot([float(a) for a, _ in prof.tradeoff], [float(b) for _, b in prof.tradeoff], label=name)


def _density_curves(doc) -> list[dict]:
    """The whole δ(ε) of the catalog's density channels, derived in closed form (pieces and
    breakpoints; ldpaudit.account.density.profile_curve)."""
    from ldpaudit.account.density import profile_curve

    rows, payload = [], []
    for spec, binding in DENSITY_CURVES:
        mech = _load(spec, binding)
        curve = profile_curve(mech)
        bind = ", ".join(f"{k}={sp.sstr(val)}" for k, val in mech.bindings)
        for q in curve["pieces"]:
            rows.append([mech.name, bind, f"[{q['epsilon_from']}, {q['epsilon_to'] or '∞'})", q["delta"]])
        payload.append({"mechanism": mech.name, "bindings": bind, "pieces": curve["pieces"],
                        "breakpoints": curve["breakpoints"]})
    doc.heading("Density channels: the whole privacy profile in closed form")
    doc.para("δ(ε) for every ε ≥ 0 of the worst pair (the ends of the input interval), derived from the density "
             "by sympy with ε symbolic (`ldpaudit profile SPEC --json` gives the same pieces). For the Laplace "
             "mechanism it is 1 − e^((ε − ε0)/2) below ε0 and 0 from ε0 on; for the Gaussian, Balle & Wang's "
             "formula, one piece.")
    doc.table(["mechanism", "parameters", "ε in", "δ(ε)"], rows)
    return payload


def _gaussian_amplification(doc) -> list[dict]:
    """The Gaussian mechanism shuffled (ldpaudit.account.gaussian_shuffle) against n."""
    from ldpaudit.account.gaussian_shuffle import gaussian_amplify

    mech = _load("gaussian", None)
    rows, payload = [], []
    for n in GAUSSIAN_N:
        r = gaussian_amplify(mech, n, SHUFFLED_DELTA)
        trunc, blanket = r.epsilon_truncated, r.epsilon_blanket
        rows.append([f"{n:,}", f"{r.epsilon_local:.6g}", "—" if trunc is None else f"{trunc:.6g}",
                     "—" if blanket is None else f"{blanket:.6g}",
                     f"{r.epsilon_upper:.6g}", f"{r.epsilon_sum_lower:.6g}", f"{r.epsilon_count_lower:.6g}",
                     f"{r.epsilon_lower:.6g}"])
        payload.append({"n": n, "delta": SHUFFLED_DELTA, "epsilon_local": r.epsilon_local,
                        "epsilon_truncated": trunc, "epsilon_blanket": blanket,
                        "blanket_end_pair": r.blanket.get("epsilon_end"),
                        "blanket_near_pairs": r.blanket.get("epsilon_near"), "epsilon_upper": r.epsilon_upper,
                        "epsilon_sum_lower": r.epsilon_sum_lower, "epsilon_count_lower": r.epsilon_count_lower,
                        "epsilon_lower": r.epsilon_lower, "truncation_epsilon0": r.truncation.get("epsilon0")})
    bind = ", ".join(f"{k}={sp.sstr(val)}" for k, val in mech.bindings)
    doc.heading(f"Shuffling the Gaussian mechanism ({bind}): the central ε at δ = {SHUFFLED_DELTA:g} against n")
    doc.para("The Gaussian mechanism is not ε0-LDP for any ε0, so there is no generic bound. Upper bounds, each "
             "proved for every pair of neighbouring datasets: one report's exact ε (shuffling is post-processing); "
             "the report clipped to [low − T, high + T] (ε0(T)-LDP) under Feldman, McMillan & Talwar's clone "
             "bound, with the clipping's total variation charged to δ; and the privacy-blanket divergence "
             "(blanket): the end pair's divergence computed by FFT on a certified lattice law, extended to every "
             "target pair by an increasing-convex-order argument on a monotone region, the pairs closer than its "
             "distance d_M covered by one report's exact profile (ldpaudit/account/gaussian_blanket.py). Lower "
             "bounds: the sum of the n reports (the central Gaussian mechanism with noise σ√n, exact) and the count "
             "of reports above a threshold.")
    doc.table(["n", "one report", "truncated + clones", "blanket", "upper (best)", "sum (lower)", "count (lower)",
               "lower (best)"], rows)
    return payload


def _amplification(doc) -> list[dict]:
    """Amplification by shuffling against n (ldpaudit.account.amplify): the generic clone bound
    from ε0 alone, the channel's own clone and privacy-blanket bounds, the best of them, and
    the lower bound."""
    from ldpaudit.account.amplify import amplification_curve

    rows, payload = [], []
    for name, spec, params in AMPLIFIED:
        for r in amplification_curve(spec, params, SHUFFLED_N, SHUFFLED_DELTA, blanket_up_to=BLANKET_UP_TO):
            blanket = r["epsilon_blanket"]
            rows.append([name, f"{r['epsilon0']:.6g}", f"{r['n']:,}", f"{r['epsilon_generic']:.6g}",
                         f"{r['epsilon_channel']:.6g}", "—" if blanket is None else f"{blanket:.6g}",
                         f"{r['epsilon_upper']:.6g}", f"{r['epsilon_lower']:.6g}"])
            payload.append({"mechanism": name, "parameters": {k: str(v) for k, v in params.items()}, **r})
    doc.heading(f"Shuffling: the central ε at δ = {SHUFFLED_DELTA:g} against n")
    doc.para("Upper bounds on the ε of the shuffled reports of n users: Feldman, McMillan & Talwar's clone "
             "reduction from ε0 alone (generic), the same with the clone probability the channel itself allows "
             "(channel), and the privacy-blanket divergence of the channel (blanket; without a time budget, three "
             "output classes summed exactly or, when that grid is large, with one class split off); the best of "
             "them, and a rigorous lower bound. "
             "`ldpaudit amplify` computes the same for any finite channel (docs/reference/shuffling.md).")
    doc.table(["mechanism", "ε0", "n", "generic", "channel", "blanket", "upper (best)", "lower"], rows)
    return payload
