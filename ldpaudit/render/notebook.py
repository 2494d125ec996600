"""Notebook displays: the Markdown, LaTeX and HTML that Jupyter shows for a mechanism, a
verdict, a tight ε* and an audit result (their ``_repr_*_`` methods call these).

The objects' own modules import this one inside their ``_repr_*_`` methods, so it imports
none of them: it reads their fields, and what needs a stage's own code is passed in (the
channel's formulas from ``mechanism.describe``, the witness plot from ``audit.report``).
Spec text is untrusted: names, conditions and reasons are HTML-escaped before they reach
a Markdown or HTML display.
"""

from __future__ import annotations

import base64
import html


def escape(text) -> str:
    """Text safe inside Markdown and HTML: no tags, no table breaks, no stray emphasis or math."""
    out = html.escape(str(text), quote=False)
    for ch in "|*_`$[]":
        out = out.replace(ch, "\\" + ch)
    return out


def table(rows) -> list[str]:
    """A two-column Markdown table of (label, value) rows; values are Markdown already."""
    return ["| | |", "|---|---|"] + [f"| {label} | {value} |" for label, value in rows]


def math(latex: str) -> str:
    """An inline formula."""
    return f"${latex}$"


def _latex(value) -> str:
    import sympy as sp

    return sp.latex(sp.sympify(value), ln_notation=True)


def _name(name: str) -> str:
    """A parameter name in math mode (``epsilon`` as ε, like sympy prints its symbol)."""
    import sympy as sp

    return sp.latex(sp.Symbol(name)) if name.isidentifier() else r"\text{" + escape(name) + "}"


def _binding(pairs) -> str:
    return ", ".join(math(f"{_name(k)} = {_latex(v)}") for k, v in pairs)


def _value_latex(value) -> str:
    """x, x' or y as LaTeX: tuples as tuples, numbers and symbols through sympy."""
    if isinstance(value, tuple):
        return "(" + ", ".join(map(_value_latex, value)) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, (int, float)) or hasattr(value, "free_symbols"):
        return _latex(value)
    return r"\text{" + escape(value) + "}"


# --- mechanism ---------------------------------------------------------------------------------


def mechanism_markdown(mech, channel_lines) -> str:
    """Name, description, parameters, input domain, claimed ε and the channel's formulas
    (``channel_lines``: the LaTeX lines of ``ldpaudit show``)."""
    head = f"**{escape(mech.name)}**" + (f": {escape(mech.description)}" if mech.description else "")
    rows = []
    if mech.source:
        rows.append(("source", escape(mech.source)))
    rows.append(("parameters", escape(", ".join(p.describe() for p in mech.parameters) or "(none free)")))
    if mech.bindings:
        rows.append(("bound", _binding(mech.bindings)))
    rows.append(("inputs", escape(f"x in {mech.inputs.describe()}")))
    rows.append(("claimed ε", math(r"\varepsilon = " + _latex(mech.claimed_epsilon))))
    if mech.claimed_delta is not None:
        rows.append(("claimed δ", math(r"\delta = " + _latex(mech.claimed_delta))))
    rows.append(("channel form", escape(mech.channel.form)))
    out = [head, "", *table(rows), ""]
    for line in channel_lines:
        out += [f"$${_math_safe(line)}$$", ""]
    return "\n".join(out).rstrip() + "\n"


def _math_safe(latex: str) -> str:
    """A LaTeX line in a Markdown display: the spec's condition text (``y == x``, ``y < x``)
    may hold ``<``, which must not open an HTML tag (``&`` stays: matrices align with it)."""
    return latex.replace("<", r"\lt ").replace(">", r"\gt ")


# --- verify -------------------------------------------------------------------------------------


def witness_latex(w) -> str:
    """Q(y|x)/Q(y|x') = ratio > e^ε as LaTeX (f and z for a density)."""
    import sympy as sp

    out = "z" if w.kind == "f" else "y"
    y = r"\text{" + escape(w.y_text) + "}" if w.y_text else _value_latex(w.y)
    lhs = (rf"\frac{{{w.kind}({out}={y} \mid x={_value_latex(w.x)})}}"
           rf"{{{w.kind}({out}={y} \mid x'={_value_latex(w.x_prime)})}}")
    ratio = r"\infty" if w.ratio == sp.oo else _latex(w.ratio)
    return f"{lhs} = {ratio} > e^{{{_latex(w.claim)}}}"


def verdict_markdown(v) -> str:
    """The verdict, the claim and its scope, the parameters, the tight ε*, the witness (x, x',
    y and the ratio, to check by hand), the method and the reason of an UNKNOWN."""
    claim = rf"\varepsilon = {_latex(v.claim)}" + ("" if v.delta is None else rf",\ \delta = {_latex(v.delta)}")
    rows = [("mechanism", escape(v.mechanism)), ("claim", math(claim) + (" " + escape(v.scope) if v.scope else ""))]
    if v.params:
        rows.append(("parameters", _binding(v.params)))
    if v.tight_epsilon is not None:
        rows.append(("tight ε*", math(r"\varepsilon^* = " + _latex(v.tight_epsilon))))
    if v.exact_delta is not None:
        rows.append(("exact δ", math(rf"\delta({_latex(v.claim)}) = {_latex(v.exact_delta)}")))
    w = v.witness
    if w is not None:
        rows.append(("witness", f"x = {math(_value_latex(w.x))}, x' = {math(_value_latex(w.x_prime))}, "
                                f"{'z' if w.kind == 'f' else 'y'} = "
                                + (escape(w.y_text) if w.y_text else math(_value_latex(w.y)))))
        rows.append(("ratio", math(witness_latex(w))))
        if w.params:
            rows.append(("witness at", _binding(w.params)))
    if v.reason:
        rows.append(("reason", escape(v.reason)))
    if v.method:
        rows.append(("method", escape(v.method)))
    rows.append(("seconds", f"{v.seconds:.2f}"))
    return "\n".join([f"**{v.status.value}**: {escape(v.claim_text())}", "", *table(rows)]) + "\n"


def tight_markdown(t) -> str:
    shown = math(tight_latex(t).strip("$")) if t.determined else escape(str(t))
    rows = [("mechanism", escape(t.mechanism)), ("tight ε*", shown)]
    if t.witness is not None:
        rows.append(("attained by", math(witness_latex(t.witness).split(" > ")[0])))
        if t.witness.params:
            rows.append(("at", _binding(t.witness.params)))
    if t.proof is not None:
        rows.append(("proof", escape(str(t.proof.status))))
    if t.method:
        rows.append(("method", escape(t.method)))
    head = f"**ε\\* = {escape(t.value)}**" if t.determined else f"**{escape(str(t))}**"
    return "\n".join([head, "", *table(rows)]) + "\n"


def tight_latex(t) -> str:
    if not t.determined:
        return "$\\varepsilon^*$ not determined"
    return f"$\\varepsilon^* = {_latex(t.value)}$"


# --- audit --------------------------------------------------------------------------------------


def _audit_rows(r) -> list[tuple[str, str]]:
    at = f" at δ = {r.delta:g}" if r.delta else ""
    rows = [("certified ε lower bound", f"{r.epsilon_lower_bound:.4f}{at}"),
            ("claimed ε", f"{r.epsilon_claimed:g}"),
            ("confidence", f"{r.confidence:g}"),
            ("largest ε this run could certify", f"{r.detectable_epsilon:.4f}"),
            ("draws per input", f"{r.samples_per_input:,}"),
            ("seconds", f"{r.seconds:.2f}")]
    w = r.witness
    if w:
        x, x2 = w["pair"]
        rows += [("witness pair", escape(f"x = {x!r}, x' = {x2!r}")),
                 ("event S", escape(w["event"])),
                 ("counts", f"{w['counts'][0]:,}/{w['samples'][0]:,} under x, {w['counts'][1]:,}/{w['samples'][1]:,} under x'"),
                 ("certified probabilities", escape(f"P(S|x) ≥ {w['p_lower']:.5g}, P(S|x') ≤ {w['q_upper']:.5g}"))]
        if w.get("example"):
            rows.append(("example", escape(w["example"])))
    else:
        rows.append(("witness", "none: no event certified a positive privacy loss"))
    return rows


def _audit_head(r) -> str:
    word = {"VIOLATION": "exceeds", "NO_EVIDENCE": "does not exceed"}.get(r.verdict, "vs")
    return (f"**{escape(r.verdict)}**: certified ε ≥ {r.epsilon_lower_bound:.4f} {word} the claimed "
            f"ε = {r.epsilon_claimed:g} (confidence {r.confidence:g})")


def audit_markdown(r) -> str:
    """Verdict, certified bound against the claim, confidence and witness (no plot)."""
    return "\n".join([_audit_head(r), "", *table(_audit_rows(r)), "", f"Method: {escape(r.method)}"]) + "\n"


def audit_html(r, png: bytes | None = None) -> str:
    """The Markdown facts as an HTML table, with ``png`` (the witness plot, see
    :func:`ldpaudit.audit.report.audit_plot_png`) embedded as a base64 PNG."""
    e = html.escape
    parts = [f"<p>{_strong(_audit_head(r))}</p><table>"]
    parts += [f"<tr><th style='text-align:left'>{e(label)}</th><td style='text-align:left'>{_unmd(value)}</td></tr>"
              for label, value in _audit_rows(r)]
    parts.append("</table>")
    if png is not None:
        parts.append(png_img(png, "witness event: P(S|x) and P(S|x') with confidence bounds; privacy loss"))
    parts.append(f"<p><small>Method: {e(r.method)}</small></p>")
    return "".join(parts)


def png_img(png: bytes, alt: str) -> str:
    return f"<img src='data:image/png;base64,{base64.b64encode(png).decode('ascii')}' alt='{html.escape(alt)}'>"


def _unmd(text: str) -> str:
    """Markdown produced by :func:`escape` back to text for HTML (already HTML-escaped)."""
    for ch in "|*_`$[]":
        text = text.replace("\\" + ch, ch)
    return text


def _strong(text: str) -> str:
    head, sep, tail = _unmd(text).partition("**: ")
    return f"<b>{head.strip('*')}</b>: {tail}" if sep else text
