"""Plots every stage draws from its JSON results (no stage's objects: a dict in, a PNG out), and
:func:`save_png`, which writes any figure deterministically.

matplotlib and numpy are imported inside each function, only when a plot is drawn."""

from __future__ import annotations

from pathlib import Path

import sympy as sp


def save_png(fig, path: Path) -> Path:
    """Save a matplotlib figure deterministically (no software/date metadata)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, metadata={"Software": None}, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path


def plot_profile(result: dict, path) -> Path:
    """``ldpaudit profile --plot``: δ(ε) from the JSON pieces and T(α) from its vertices."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.5))
    for cls in result["pieces"]:
        xs, ys = [], []
        for q in cls["pieces"]:
            lo = float(sp.log(sp.sympify(q["exp_epsilon_from"])))
            hi = float(sp.log(sp.sympify(q["exp_epsilon_to"]))) if q["exp_epsilon_to"] else lo + 1
            a_text, b_text = q["delta"].split(" - exp(epsilon)*")
            a, b = float(sp.sympify(a_text)), float(sp.sympify(b_text))
            for e in np.linspace(lo, hi, 16):
                xs.append(e)
                ys.append(max(0.0, a - np.exp(e) * b))
        order = np.argsort(xs)
        a1.plot(np.array(xs)[order], np.array(ys)[order], label=" vs ".join(cls["pair"]))
    a1.set(xlabel="ε", ylabel="δ(ε)", title=f"{result['mechanism']}, {result['reports']} report(s)")
    tv = result["tradeoff"]["vertices"]
    a2.plot([v["alpha_float"] for v in tv], [v["beta_float"] for v in tv])
    a2.set(xlabel="α", ylabel="T(α)", title="trade-off curve")
    return save_png(fig, Path(path))


def plot_density_profile(result: dict, path) -> Path:
    """``ldpaudit profile --plot`` for a density channel: the closed-form δ(ε) (its sample
    points, the breakpoints marked) and, for Gaussian noise, the trade-off curve G_μ."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = result["curve"]
    tradeoff = result.get("tradeoff")
    fig, axes = plt.subplots(1, 2 if tradeoff else 1, figsize=(9 if tradeoff else 4.5, 3.5))
    a1 = axes[0] if tradeoff else axes
    a1.plot([p["epsilon"] for p in curve["points"]], [p["delta"] for p in curve["points"]])
    for b in curve["breakpoints"]:
        a1.axvline(b["epsilon_float"], linestyle=":", color="grey")
    a1.set(xlabel="ε", ylabel="δ(ε)", title=f"{result['mechanism']}, {result['reports']} report(s)")
    if tradeoff:
        pts = tradeoff["points"]
        axes[1].plot([p["alpha"] for p in pts], [p["beta"] for p in pts])
        axes[1].set(xlabel="α", ylabel="T(α)", title=f"trade-off curve G_μ, μ = {tradeoff['mu_float']:.4g}")
    return save_png(fig, Path(path))
