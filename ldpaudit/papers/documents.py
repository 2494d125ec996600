"""A small document model for the regenerated papers: headings, prose, display equations
and tables, rendered to Markdown and to standalone LaTeX, plus deterministic file output
(PNG plots without timestamps or version strings)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import sympy as sp

from ldpaudit.render.latex import tex_escape
from ldpaudit.render.plots import save_png  # noqa: F401  (the papers' modules import it from here)


@dataclass
class Document:
    title: str
    blocks: list = field(default_factory=list)

    def heading(self, text: str) -> "Document":
        self.blocks.append(("h", text))
        return self

    def para(self, text: str) -> "Document":
        self.blocks.append(("p", text))
        return self

    def equation(self, latex: str) -> "Document":
        self.blocks.append(("eq", latex))
        return self

    def table(self, headers: list[str], rows: list[list], caption: str = "", latex_headers: list[str] | None = None) -> "Document":
        self.blocks.append(("table", headers, rows, caption, latex_headers))
        return self

    def figure(self, filename: str, caption: str) -> "Document":
        self.blocks.append(("fig", filename, caption))
        return self

    def markdown(self) -> str:
        out = [f"# {self.title}", ""]
        for b in self.blocks:
            kind = b[0]
            if kind == "h":
                out += [f"## {b[1]}", ""]
            elif kind == "p":
                out += [b[1], ""]
            elif kind == "eq":
                out += [f"$${b[1]}$$", ""]
            elif kind == "table":
                _, headers, rows, caption, _ = b
                if caption:
                    out += [f"*{caption}*", ""]
                out.append("| " + " | ".join(headers) + " |")
                out.append("|" + "|".join("---" for _ in headers) + "|")
                for r in rows:
                    out.append("| " + " | ".join(_md_cell(c) for c in r) + " |")
                out.append("")
            elif kind == "fig":
                out += [f"![{b[2]}]({b[1]})", "", f"*{b[2]}*", ""]
        return "\n".join(out).rstrip() + "\n"

    def latex(self) -> str:
        out = [r"\documentclass{article}", r"\usepackage{amsmath,amssymb,graphicx,booktabs,caption}",
               r"\usepackage[margin=1.5cm]{geometry}", r"\begin{document}", rf"\section*{{{tex_escape(self.title)}}}", ""]
        for b in self.blocks:
            kind = b[0]
            if kind == "h":
                out += [rf"\subsection*{{{tex_escape(b[1])}}}", ""]
            elif kind == "p":
                out += [_tex_prose(b[1]), ""]
            elif kind == "eq":
                out += [r"\[", b[1], r"\]", ""]
            elif kind == "table":
                _, headers, rows, caption, latex_headers = b
                heads = latex_headers or [_tex_prose(h) for h in headers]
                out += [r"\begin{table}[h!]", r"\centering", r"\small"]
                if caption:
                    out.append(rf"\caption*{{{_tex_prose(caption)}}}")
                out += [r"\begin{tabular}{" + "l" * len(headers) + "}", r"\toprule", " & ".join(heads) + r" \\", r"\midrule"]
                for r in rows:
                    out.append(" & ".join(_tex_cell(c) for c in r) + r" \\")
                out += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
            elif kind == "fig":
                out += [r"\begin{figure}[h!]", r"\centering", rf"\includegraphics[width=0.8\textwidth]{{{b[1]}}}",
                        rf"\caption*{{{_tex_prose(b[2])}}}", r"\end{figure}", ""]
        out += [r"\end{document}", ""]
        return "\n".join(out)


class Math(str):
    """A table cell or prose fragment that is LaTeX math (rendered $...$ in both formats)."""


def _md_cell(c) -> str:
    if isinstance(c, Math):
        return f"${c}$"
    if isinstance(c, sp.Basic):
        return f"${sp.latex(c)}$"
    return str(c).replace("|", "\\|")


def _tex_cell(c) -> str:
    if isinstance(c, Math):
        return f"${c}$"
    if isinstance(c, sp.Basic):
        return f"${sp.latex(c)}$"
    return _tex_prose(str(c))


def _tex_prose(text: str) -> str:
    """Escape prose for LaTeX but keep $...$ math spans as they are."""
    parts = text.split("$")
    out = []
    for i, part in enumerate(parts):
        out.append(part if i % 2 else tex_escape(part))
    return "$".join(out)


def fmt(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}g}"


def write_outputs(out_dir: Path, stem: str, doc: Document, payload: dict | None = None) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    md = out_dir / f"{stem}.md"
    md.write_text(doc.markdown(), encoding="utf-8")
    tex = out_dir / f"{stem}.tex"
    tex.write_text(doc.latex(), encoding="utf-8")
    paths += [md, tex]
    if payload is not None:
        js = out_dir / f"{stem}.json"
        js.write_text(json.dumps(payload, indent=2, ensure_ascii=False, sort_keys=False) + "\n", encoding="utf-8")
        paths.append(js)
    return paths
