"""The docs read as they are (issue 32, item 4): every example a page shows is inline, so the
page reads the same as plain Markdown (on a code host, in an editor) as on the site, and each
inline copy stays equal to the file it shows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: page -> the files it shows inline, each in a fenced code block
INLINE = {
    "docs/tutorials/verify-a-mechanism.md": ["specs/krr.toml"],
    "docs/tutorials/audit-a-randomizer.md": ["examples/jsonlines/krr.py", "examples/jsonlines/krr.js"],
    "docs/tutorials/your-own-paper.md": ["examples/paper/rr3.toml", "examples/paper/claims.toml",
                                         "examples/paper/paper.toml", "examples/paper/main.tex"],
    "docs/reference/spec-language.md": [
        "specs/wrr.toml", "specs/ksubset.toml", "specs/oue.toml", "specs/laplace_histogram.toml",
        "specs/orappor.toml", "specs/olh.toml", "specs/joseph_rr1.toml", "specs/laplace_mean.toml",
        "specs/piecewise.toml", "specs/hybrid.toml", "specs/piecewise_multidim.toml", "specs/duchi_multidim.toml",
    ],
}


@pytest.mark.parametrize("page,shown", [(p, f) for p, files in INLINE.items() for f in files])
def test_each_inline_example_equals_its_file(page, shown):
    text = (ROOT / page).read_text()
    body = (ROOT / shown).read_text().rstrip("\n")
    blocks = re.findall(r"^```[a-z]*\n(.*?)\n```$", text, flags=re.M | re.S)
    assert body in blocks, f"{page} shows {shown} but its copy differs from the file; paste the file again"


def test_no_page_depends_on_a_snippet_include():
    for page in sorted((ROOT / "docs").rglob("*.md")):
        assert "--8<--" not in page.read_text(), f"{page.relative_to(ROOT)}: inline the file instead of including it"


def test_the_density_signs_and_mixture_syntax_is_on_the_page():
    text = (ROOT / "docs/reference/spec-language.md").read_text()
    for key in ('form = "density"', 'form = "signs"', 'form = "mixture"', "latent = ", "scale = ", "[definitions]",
                "Reserved names"):
        assert key in text, key
