"""Render a :class:`~ldpaudit.derive.Derivation` as text, Markdown, LaTeX or JSON (the derive
stage's own formats: they read its sampling models and its symbol n, so they live in derive;
what every stage shares is in :mod:`ldpaudit.render`).

Markdown and LaTeX read like a paper's derivation: each step is stated in prose with its
equations, not only the results. JSON gives every expression as a sympy string and, when
it is a number, also as a float (risks proportional to 1/n also give ``times_n``).

``Derivation`` is named in annotations only, not imported: derivation.py's notebook display
imports this module."""

from __future__ import annotations

import json

import sympy as sp

from ldpaudit.derive.algebra import N_USERS, numeric
from ldpaudit.derive.risk import MODEL_NAMES
from ldpaudit.render.latex import tex_escape
from ldpaudit.render.text import human

FORMATS = ("text", "md", "latex", "json")


def render(dv: Derivation, fmt: str, names=None, width: int | None = None) -> str:
    """``dv`` in ``fmt``; the text format prints expressions in the spec's definition ``names``
    (:func:`ldpaudit.derive.names.spec_names`) where that is shorter and exactly equal, each
    equation cut at its operators to ``width`` columns when it is given."""
    if fmt == "text":
        return to_text(dv, names, width)
    if fmt == "md":
        return to_markdown(dv)
    if fmt == "latex":
        return to_latex(dv)
    if fmt == "json":
        return json.dumps(to_json(dv), indent=2, ensure_ascii=False)
    raise ValueError(f"unknown format {fmt!r}")


def _title(dv: Derivation) -> str:
    bound = ", ".join(f"{k} = {v}" for k, v in dv.params)
    return f"Derivation: {dv.mechanism}" + (f" ({bound})" if bound else "")


# --- text ------------------------------------------------------------------------------------


def to_text(dv: Derivation, names=None, width: int | None = None) -> str:
    """The derivation for people: each step's prose and equations, an equation's ``where ...``
    line under it (once a step: an equation whose names the step has defined already has none);
    equations cut at their operators to ``width`` columns when it is given (prose is wrapped by
    whoever prints it, :mod:`ldpaudit.render.textwidth`)."""
    from ldpaudit.derive.names import equation_text
    from ldpaudit.render.textwidth import wrap_math

    def math(line: str) -> list[str]:
        return [line] if width is None else wrap_math(line, width)

    lines = [_title(dv), "=" * len(_title(dv)), f"Sampling model: {MODEL_NAMES[dv.sampling_model]}", ""]
    for i, step in enumerate(dv.steps, 1):
        lines.append(f"{i}. {step.title}")
        lines.append(f"   {step.text}")
        defined = set()
        for eq in step.equations:
            text, where = equation_text(eq.expr, names)
            lines.extend(math(f"     {eq.lhs} {eq.relation} {text}"))
            if where and where not in defined:
                lines.extend(math(f"         {where}"))
                defined.add(where)
        lines.append("")
    for key, why in dv.results.get("not_derived", {}).items():
        lines.append(f"not derived: {key}: {why}")
    return "\n".join(lines).rstrip() + "\n"


# --- markdown --------------------------------------------------------------------------------


def _latex(expr) -> str:
    if isinstance(expr, sp.MatrixBase):
        return sp.latex(expr)
    return sp.latex(sp.sympify(expr), ln_notation=True)


def _rel(rel: str) -> str:
    return {"=": "=", "≈": r"\approx", "~": r"\sim"}.get(rel, rel)


def to_markdown(dv: Derivation) -> str:
    out = [f"# {_title(dv)}", ""]
    if dv.source:
        out += [f"Source: {dv.source}.", ""]
    out += [f"**Sampling model:** {MODEL_NAMES[dv.sampling_model]}.", ""]
    for i, step in enumerate(dv.steps, 1):
        out += [f"## {i}. {step.title}", "", step.text, ""]
        for eq in step.equations:
            out += ["$$" + f"{eq.lhs_latex} {_rel(eq.relation)} {_latex(eq.expr)}" + "$$", ""]
    nd = dv.results.get("not_derived", {})
    if nd:
        out += ["## Not derived", ""]
        out += [f"- `{k}`: {v}" for k, v in nd.items()]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


# --- latex -----------------------------------------------------------------------------------

def to_latex(dv: Derivation, *, standalone: bool = True) -> str:
    body = [rf"\section*{{{tex_escape(_title(dv))}}}", "",
            rf"\noindent\textbf{{Sampling model:}} {tex_escape(MODEL_NAMES[dv.sampling_model])}.", ""]
    for i, step in enumerate(dv.steps, 1):
        body += [rf"\subsection*{{{i}. {tex_escape(step.title)}}}", tex_escape(step.text), ""]
        if step.equations:
            body.append(r"\begin{align*}")
            rows = [f"{eq.lhs_latex} &{_rel(eq.relation)} {_latex(eq.expr)}" for eq in step.equations]
            body.append(" \\\\\n".join(rows))
            body += [r"\end{align*}", ""]
    nd = dv.results.get("not_derived", {})
    if nd:
        body += [r"\subsection*{Not derived}", r"\begin{itemize}"]
        body += [rf"\item \texttt{{{tex_escape(k)}}}: {tex_escape(v)}" for k, v in nd.items()]
        body += [r"\end{itemize}", ""]
    text = "\n".join(body)
    if not standalone:
        return text
    return "\n".join([r"\documentclass{article}", r"\usepackage{amsmath,amssymb}",
                      r"\usepackage[margin=2cm]{geometry}", r"\allowdisplaybreaks", r"\begin{document}", text,
                      r"\end{document}", ""])


# --- json ------------------------------------------------------------------------------------


def expr_json(expr) -> object:
    """{"expr": sympy string, "float": value when numeric, "times_n": n·value when it is c/n}."""
    if expr is None:
        return None
    if isinstance(expr, dict):
        return {k: expr_json(v) for k, v in expr.items()}
    if isinstance(expr, (list, tuple)):
        return [expr_json(e) for e in expr]
    if isinstance(expr, (str, bool)):
        return expr
    if isinstance(expr, int):
        expr = sp.Integer(expr)
    out = {"expr": sp.sstr(expr)}
    if isinstance(expr, sp.Basic) and not isinstance(expr, sp.MatrixBase):
        value = numeric(expr)
        if value is not None:
            out["float"] = value
        elif expr.free_symbols == {N_USERS}:
            for power in (1, sp.Rational(1, 2)):
                scaled = numeric(sp.simplify(expr * N_USERS**power))
                if scaled is not None:
                    out["times_n" if power == 1 else "times_sqrt_n"] = scaled
                    break
    return out


def to_json(dv: Derivation) -> dict:
    r = dv.results
    payload = {
        "mechanism": dv.mechanism,
        "form": dv.form,
        "params": {k: expr_json(v) for k, v in dv.params},
        "free_parameters": list(dv.free),
        "sampling_model": dv.sampling_model,
        "sampling_model_description": MODEL_NAMES[dv.sampling_model],
    }
    for key in ("marginal", "estimator", "variance", "l2_worst", "l1_worst", "effective_samples"):
        payload[key] = expr_json(r.get(key))
    payload["l2_argmax"] = r.get("l2_argmax")
    payload["optimal"] = {
        name: {"value": expr_json(v.get("value")), "objective": expr_json(v.get("objective")),
               "continuous": expr_json(v.get("continuous"))}
        for name, v in r.get("optimal", {}).items()
    }
    payload["mutual_information"] = expr_json(r.get("mutual_information"))
    if "mutual_information_bound" in r:
        payload["mutual_information_bound"] = expr_json(r["mutual_information_bound"])
    if "asymptotics" in r:
        payload["asymptotics"] = expr_json(r["asymptotics"])
    payload["steps"] = [{"title": s.title, "text": s.text,
                         "equations": [{"lhs": e.lhs, "relation": e.relation, **expr_json(e.expr)} for e in s.equations]}
                        for s in dv.steps]
    payload["not_derived"] = dict(r.get("not_derived", {}))
    return payload
