"""Audit reports: ``report.md`` and ``report.html`` with PNG plots.

The plots are diagnostics drawn from a fresh, separately seeded sample of the witness pair
(never from the certification sample, and never used to certify anything):

* ``privacy_loss.png`` — the empirical privacy loss ln(P̂(S|x)/P̂(S|x')) of each output (or
  each bit, or each quantile bin of a real output) with a 95% Clopper-Pearson interval;
* ``bound_vs_samples.png`` — the certified ε lower bound as samples grow: the sequential
  rounds when there are any, otherwise the diagnostic sample's most revealing single event
  at growing prefix sizes, beside the claimed ε and the audit's certified bound;
* ``spec_frequencies.png`` — with a spec, the implementation's output frequencies against
  the spec's probabilities.
"""

from __future__ import annotations

import html
import math
import platform
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ldpaudit._version import __version__
from ldpaudit.audit.adapters import Outputs, Sampler
from ldpaudit.audit.bounds import cp_lower, cp_upper

DIAGNOSTIC_DRAWS = 50_000
MAX_CATEGORIES = 40


@dataclass
class _Loss:
    labels: list[str]
    p_counts: np.ndarray
    q_counts: np.ndarray
    n: int
    what: str


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _indicator_matrix(out: Outputs):
    """Columns of 0/1 events for one sample, with their labels: each distinct output when
    there are few, each bit of a bit vector, or quantile bins of a real output."""
    if out.kind == "objects":
        values, counts = out.values, np.asarray(out.counts)
        return values, counts, "output"
    arr = np.asarray(out.values)
    if arr.ndim == 2:
        return [f"bit {j} = 1" for j in range(arr.shape[1])], arr.astype(bool).sum(axis=0), "coordinate"
    if arr.dtype.kind in "biu" or np.all(arr == np.round(arr)):
        vals, counts = np.unique(arr, return_counts=True)
        return list(vals.tolist()), counts, "output"
    return None, arr, "real"


def privacy_loss(sampler: Sampler, x, x2, *, n: int, seed: int) -> _Loss:
    """Per-event counts for the pair (x, x') on a fresh diagnostic sample."""
    ss = np.random.SeedSequence([seed, 0xD1A6])
    a_seed, b_seed = ss.spawn(2)
    out_a, out_b = sampler.draw(x, n, a_seed), sampler.draw(x2, n, b_seed)
    la, ca, kind = _indicator_matrix(out_a)
    lb, cb, _ = _indicator_matrix(out_b)
    if kind == "real":
        a, b = np.asarray(ca, dtype=float).ravel(), np.asarray(cb, dtype=float).ravel()
        edges = np.quantile(np.concatenate([a, b]), np.linspace(0, 1, 21))
        edges[0], edges[-1] = -np.inf, np.inf
        pa, _ = np.histogram(a, edges)
        pb, _ = np.histogram(b, edges)
        labels = [f"({edges[i]:.2g}, {edges[i + 1]:.2g}]" for i in range(20)]
        return _Loss(labels, pa, pb, n, "quantile bin of the output")
    if kind == "coordinate":
        return _Loss(la, np.asarray(ca), np.asarray(cb), n, "bit of the output")
    keys = {repr(v): v for v in list(la) + list(lb)}
    order = sorted(keys, key=lambda k: (str(type(keys[k])), keys[k]) if not isinstance(keys[k], tuple | frozenset) else (str(type(keys[k])), repr(keys[k])))
    pa = dict(zip(map(repr, la), ca))
    pb = dict(zip(map(repr, lb), cb))
    p = np.array([pa.get(k, 0) for k in order])
    q = np.array([pb.get(k, 0) for k in order])
    if len(order) > MAX_CATEGORIES:  # keep the most frequent outputs
        top = np.argsort(-(p + q))[:MAX_CATEGORIES]
        top.sort()
        order, p, q = [order[i] for i in top], p[top], q[top]
    return _Loss(order, p, q, n, "output")


def _loss_interval(a, b, n, alpha=0.05, n_b=None):
    """ln(p/q) with a two-sided interval from one-sided CP bounds at alpha/4 each (b of
    ``n_b`` trials when the two counts are of different sizes, else of ``n``)."""
    n_b = n if n_b is None else n_b
    point = math.log((a + 0.5) / (b + 0.5) * n_b / n)
    lo_p, up_p = cp_lower(a, n, alpha / 4), cp_upper(a, n, alpha / 4)
    lo_q, up_q = cp_lower(b, n_b, alpha / 4), cp_upper(b, n_b, alpha / 4)
    low = math.log(lo_p / up_q) if lo_p > 0 else -math.inf
    high = math.log(up_p / lo_q) if lo_q > 0 else math.inf
    return point, low, high


def _plot_loss(loss: _Loss, claimed: float, path: Path, pair) -> None:
    plt = _plt()
    rows = [_loss_interval(int(a), int(b), loss.n) for a, b in zip(loss.p_counts, loss.q_counts)]
    pts = np.array([r[0] for r in rows])
    lo = np.array([max(r[1], -10) for r in rows])
    hi = np.array([min(r[2], 10) for r in rows])
    fig, ax = plt.subplots(figsize=(max(6, 0.3 * len(rows) + 2), 4))
    xs = np.arange(len(rows))
    ax.errorbar(xs, pts, yerr=[pts - lo, hi - pts], fmt="o", ms=3, capsize=2, label="ln P̂(S|x)/P̂(S|x') with 95% CI")
    ax.axhline(claimed, color="C3", ls="--", label=f"claimed ε = {claimed:g}")
    ax.axhline(-claimed, color="C3", ls="--")
    ax.set_xticks(xs)
    ax.set_xticklabels([str(label)[:14] for label in loss.labels], rotation=90, fontsize=6)
    ax.set_xlabel(loss.what)
    ax.set_ylabel("privacy loss")
    ax.set_title(f"Empirical privacy loss, x = {pair[0]!r} vs x' = {pair[1]!r} ({loss.n} draws each)")
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def _bound_curve(loss: _Loss, sampler, pair, seed, alpha):
    """Certified bound of the most revealing single diagnostic event at growing sample sizes."""
    idx = int(np.argmax([(_loss_interval(int(a), int(b), loss.n)[1]) for a, b in zip(loss.p_counts, loss.q_counts)]))
    grid = sorted({int(v) for v in np.geomspace(1_000, DIAGNOSTIC_DRAWS, 8)})
    points = []
    for n in grid:
        # subsample the counts of the chosen event exactly (hypergeometric thinning of a prefix)
        rng = np.random.default_rng([seed, n])
        a = rng.hypergeometric(int(loss.p_counts[idx]), loss.n - int(loss.p_counts[idx]), n)
        b = rng.hypergeometric(int(loss.q_counts[idx]), loss.n - int(loss.q_counts[idx]), n)
        lo_p, up_q = cp_lower(a, n, alpha / 2), cp_upper(b, n, alpha / 2)
        points.append((n, math.log(lo_p / up_q) if lo_p > 0 else 0.0))
    return loss.labels[idx], points


def _plot_bound(points, claimed, certified, path, label):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 4))
    ns, lbs = zip(*points)
    ax.plot(ns, [max(v, 0) for v in lbs], "o-", label=label)
    ax.axhline(claimed, color="C3", ls="--", label=f"claimed ε = {claimed:g}")
    ax.axhline(certified, color="C2", ls=":", label=f"certified ε_lb = {certified:.3f}")
    ax.set_xscale("log")
    ax.set_xlabel("draws per input")
    ax.set_ylabel("certified ε lower bound")
    ax.set_title("ε lower bound as samples grow")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def _spec_probabilities(spec, x, labels, what):
    """The spec's probability of each plotted event for input x, or None if not computable."""
    from ldpaudit.mechanism.product import ProductChannel

    mech = spec
    ch = mech.channel
    if isinstance(ch, ProductChannel) and not ch.continuous and what == "bit of the output":
        return [float((ch.on if j == x else ch.off).probability(1)) for j in range(len(labels))]
    try:
        explicit = mech.materialize(max_entries=200_000)
    except Exception:
        return None
    if x not in explicit.inputs:
        return None
    row = explicit.matrix[explicit.inputs.index(x)]
    probs = {repr(y): float(p) for y, p in zip(explicit.outputs, row)}
    return [probs.get(label, 0.0) for label in labels]


def _plot_spec(loss: _Loss, expected, x, path):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(max(6, 0.3 * len(expected) + 2), 4))
    xs = np.arange(len(expected))
    freq = loss.p_counts / loss.n
    err = 1.96 * np.sqrt(np.maximum(freq * (1 - freq), 1e-12) / loss.n)
    ax.bar(xs - 0.2, expected, width=0.4, label="spec probability", color="C0")
    ax.errorbar(xs + 0.2, freq, yerr=err, fmt="s", ms=3, color="C1", label="implementation frequency (95%)")
    ax.set_xticks(xs)
    ax.set_xticklabels([str(label)[:14] for label in loss.labels], rotation=90, fontsize=6)
    ax.set_xlabel(loss.what)
    ax.set_title(f"Implementation vs spec, input x = {x!r} ({loss.n} draws)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def _versions() -> dict:
    import scipy
    import sympy

    return {"ldpaudit": __version__, "python": platform.python_version(), "numpy": np.__version__,
            "scipy": scipy.__version__, "sympy": sympy.__version__}


def write_report(
    result,
    out_dir: str | Path,
    *,
    randomizer,
    domain,
    batch: bool = False,
    seed: int = 0,
    target: str = "",
    spec=None,
    rounds=None,
    alpha: float | None = None,
    isolation: dict | None = None,
) -> dict[str, Path]:
    """Write report.md, report.html and the PNG plots into ``out_dir``; returns their paths.
    ``isolation``: the audit JSON's ``sandbox`` and ``timeouts`` entries, stated in the facts."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    inputs = list(domain)
    witness = result.witness or {}
    pair = tuple(witness.get("pair") or inputs[:2])
    alpha = alpha if alpha is not None else 1 - result.confidence
    sampler = Sampler(randomizer, batch=batch)
    loss = privacy_loss(sampler, pair[0], pair[1], n=DIAGNOSTIC_DRAWS, seed=seed)
    files = {"markdown": out / "report.md", "html": out / "report.html",
             "privacy_loss": out / "privacy_loss.png", "bound": out / "bound_vs_samples.png"}
    _plot_loss(loss, result.epsilon_claimed, files["privacy_loss"], pair)
    if rounds:
        label = "sequential looks (cumulative confirmation draws)"
        points = [(r.samples_per_input, r.epsilon_lower_bound) for r in rounds]
    else:
        event, points = _bound_curve(loss, sampler, pair, seed, alpha)
        label = f"diagnostic event {event!s:.30}"
    _plot_bound(points, result.epsilon_claimed, result.epsilon_lower_bound, files["bound"], label)
    spec_note = None
    if spec is not None:
        expected = _spec_probabilities(spec, pair[0], loss.labels, loss.what)
        if expected is not None:
            files["spec"] = out / "spec_frequencies.png"
            _plot_spec(loss, expected, pair[0], files["spec"])
        else:
            spec_note = "The spec's output probabilities could not be listed for this output space; no frequency plot."

    facts = [
        ("Verdict", result.verdict),
        ("Claimed ε", f"{result.epsilon_claimed:g}"),
        *([("Claimed δ", f"{result.delta:g}")] if getattr(result, "delta", 0.0) else []),
        ("Certified ε lower bound" + (" at that δ" if getattr(result, "delta", 0.0) else ""),
         f"{result.epsilon_lower_bound:.4f}"),
        ("Confidence", f"{result.confidence:g}"),
        ("Largest ε this run could certify", f"{result.detectable_epsilon:.4f}"),
        ("Draws per input", f"{result.samples_per_input:,}"),
        ("Inputs", ", ".join(map(repr, inputs)) if len(inputs) <= 30 else f"{len(inputs)} inputs"),
        ("Target", target or getattr(randomizer, "__name__", repr(randomizer))),
        ("Seed", str(seed)),
        ("Seconds", f"{result.seconds:.2f}"),
    ]
    box = (isolation or {}).get("sandbox")
    if box:
        facts.append(("Sandbox", f"{box.get('level')}; network {box.get('network')}; files {box.get('filesystem')}"
                                 + (f"; process tree {box['process_tree']}" if box.get("process_tree") else "")
                                 + (f"; fallback: {box['fallback']}" if box.get("fallback") else "")))
    if (isolation or {}).get("timeouts"):
        facts.append(("Timeouts", isolation["timeouts"]["rule"]))
    versions = _versions()
    md = ["# ldpaudit audit report", ""]
    md += ["| | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in facts]
    md += ["", "## Witness", ""]
    if result.witness:
        md += [f"- **{k}**: {v}" for k, v in result.witness.items()]
    else:
        md.append("No event certified a positive privacy loss.")
    if result.conformance:
        from ldpaudit.render.tables import conformance_markdown

        md += ["", "## Conformance with the spec", "", *conformance_markdown(result.conformance)]
    md += ["", "## Method", "", result.method, ""]
    if rounds:
        md += ["## Sequential looks", "", "| look | cumulative confirmation draws per input | α_r | ε_lb | verdict |", "|---|---|---|---|---|"]
        md += [f"| {r.number} | {r.samples_per_input:,} | {r.alpha:.3g} | {r.epsilon_lower_bound:.4f} | {r.verdict} |" for r in rounds]
        md.append("")
    md += ["## Plots", "", "Diagnostics from a fresh sample of "
           f"{DIAGNOSTIC_DRAWS:,} draws per input of the pair {pair!r}; they illustrate and are not used to certify.", ""]
    md += ["![privacy loss](privacy_loss.png)", "", "![bound vs samples](bound_vs_samples.png)", ""]
    if "spec" in files:
        md += ["![implementation vs spec](spec_frequencies.png)", ""]
    if spec_note:
        md += [spec_note, ""]
    md += ["## Versions", ""] + [f"- {k} {v}" for k, v in versions.items()] + [""]
    files["markdown"].write_text("\n".join(md))
    files["html"].write_text(_html(facts, result, rounds, files, versions, pair, spec_note))
    return files


def _html(facts, result, rounds, files, versions, pair, spec_note) -> str:
    e = html.escape
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>ldpaudit audit report</title>",
             "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:.3em .6em}img{max-width:100%}</style></head><body>",
             "<h1>ldpaudit audit report</h1><table>"]
    parts += [f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in facts]
    parts.append("</table><h2>Witness</h2>")
    if result.witness:
        parts.append("<ul>" + "".join(f"<li><b>{e(str(k))}</b>: {e(str(v))}</li>" for k, v in result.witness.items()) + "</ul>")
    else:
        parts.append("<p>No event certified a positive privacy loss.</p>")
    if result.conformance:
        from ldpaudit.render.tables import conformance_rows

        rows = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in conformance_rows(result.conformance))
        parts.append(f"<h2>Conformance with the spec</h2><table>{rows}</table>")
    parts.append(f"<h2>Method</h2><p>{e(result.method)}</p>")
    if rounds:
        parts.append("<h2>Sequential looks</h2><table><tr><th>look</th><th>cumulative confirmation draws per input</th><th>α_r</th><th>ε_lb</th><th>verdict</th></tr>")
        parts += [f"<tr><td>{r.number}</td><td>{r.samples_per_input}</td><td>{r.alpha:.3g}</td><td>{r.epsilon_lower_bound:.4f}</td><td>{r.verdict}</td></tr>" for r in rounds]
        parts.append("</table>")
    parts.append(f"<h2>Plots</h2><p>Diagnostics from a fresh sample of the pair {e(repr(pair))}; not used to certify.</p>")
    for key in ("privacy_loss", "bound", "spec"):
        if key in files:
            parts.append(f"<p><img src='{files[key].name}' alt='{key}'></p>")
    if spec_note:
        parts.append(f"<p>{e(spec_note)}</p>")
    parts.append("<h2>Versions</h2><ul>" + "".join(f"<li>{e(k)} {e(v)}</li>" for k, v in versions.items()) + "</ul></body></html>")
    return "".join(parts)


def audit_plot_png(result) -> bytes | None:
    """The notebook's witness plot (:func:`witness_png`) as PNG bytes, None without a witness."""
    return witness_png(result) if result.witness else None


def witness_png(result, alpha: float = 0.05) -> bytes:
    """A notebook's plot of an audit's witness event S, from the result's confirmation counts
    (no new draws): left, P̂(S|x) and P̂(S|x') with two-sided (1-α) Clopper-Pearson intervals and
    the certified one-sided bounds the verdict used; right, the privacy loss ln P(S|x)/P(S|x')
    with its interval (as in ``privacy_loss.png``) beside the certified bound and the claimed ε."""
    import io

    plt = _plt()
    w = result.witness
    (a, b), (na, nb) = w["counts"], w["samples"]
    x, x2 = w["pair"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4), gridspec_kw={"width_ratios": [3, 2]})
    for i, (k, n, certified, label) in enumerate(((a, na, w["p_lower"], f"P(S|x={x!r})"),
                                                   (b, nb, w["q_upper"], f"P(S|x'={x2!r})"))):
        p = k / n
        lo, hi = cp_lower(k, n, alpha / 2), cp_upper(k, n, alpha / 2)
        left.errorbar([i], [p], yerr=[[p - lo], [hi - p]], fmt="o", capsize=4, color=f"C{i}", label=f"{label}: {k}/{n}")
        left.plot([i - 0.25, i + 0.25], [certified, certified], color=f"C{i}", ls="--")
    left.set_xticks([0, 1])
    left.set_xticklabels(["x", "x'"])
    left.set_xlim(-0.6, 1.6)
    left.set_ylabel("probability of the event S")
    left.set_title(f"Witness event, {(1 - alpha) * 100:g}% CIs; dashed: certified bounds", fontsize=8)
    left.legend(fontsize=7, loc="best")
    point, low, high = _loss_interval(int(a), int(b), na, alpha, n_b=nb)
    low, high = max(low, -10), min(high, 10)
    right.errorbar([0], [point], yerr=[[point - low], [high - point]], fmt="o", capsize=4, label="ln P̂(S|x)/P̂(S|x')")
    right.axhline(result.epsilon_claimed, color="C3", ls="--", label=f"claimed ε = {result.epsilon_claimed:g}")
    right.axhline(result.epsilon_lower_bound, color="C2", ls=":", label=f"certified ε_lb = {result.epsilon_lower_bound:.3f}")
    right.set_xticks([])
    right.set_ylabel("privacy loss")
    right.set_title(result.verdict, fontsize=9)
    right.legend(fontsize=7, loc="best")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()
