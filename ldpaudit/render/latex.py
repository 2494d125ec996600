"""Prose as LaTeX: :func:`tex_escape` turns text with TeX's special characters and the Unicode
the reports print (ε, ≤, ℓ, p̂, ...) into text that compiles in a standalone document."""

from __future__ import annotations

_TEX_ESCAPES = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}
_UNICODE = {"ε": r"$\varepsilon$", "ℓ": r"$\ell$", "²": r"$^2$", "₁": r"$_1$", "≤": r"$\le$", "≥": r"$\ge$",
            "≠": r"$\ne$", "Σ": r"$\Sigma$", "π": r"$\pi$", "α": r"$\alpha$", "β": r"$\beta$", "γ": r"$\gamma$",
            "κ": r"$\kappa$", "μ": r"$\mu$", "σ": r"$\sigma$", "→": r"$\to$", "∞": r"$\infty$", "‖": r"$\|$",
            "×": r"$\times$", "·": r"$\cdot$", "±": r"$\pm$", "θ": r"$\theta$", "θ̂": r"$\hat\theta$",
            "−": "-", "₂": r"$_2$", "τ": r"$\tau$", "δ": r"$\delta$", "√": r"$\surd$", "—": "---", "≈": r"$\approx$", "p̂": r"$\hat p$", "m̂": r"$\hat m$",
            "μ̂": r"$\hat\mu$", "z̄": r"$\bar z$", "ᵀ": r"$^T$", "⁻¹": r"$^{-1}$", "∘": r"$\circ$"}


def tex_escape(text: str) -> str:
    """``text`` for LaTeX's text mode: special characters escaped, known Unicode as math."""
    out = []
    i = 0
    while i < len(text):
        two = text[i:i + 2]
        if two in _UNICODE:
            out.append(_UNICODE[two])
            i += 2
            continue
        ch = text[i]
        out.append(_UNICODE.get(ch) or _TEX_ESCAPES.get(ch) or ch)
        i += 1
    return "".join(out)

