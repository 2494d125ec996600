"""Committed simulations regenerate to the bit on a plainer CPU (issue 31.3): `ldpaudit
reproduce` runs in a child process with numpy's dispatched SIMD targets, glibc's FMA/AVX
variants and OpenBLAS's CPU-specific kernels switched off (tests/plain_cpu.py), and every JSON
value must equal the committed one as written, every Markdown and LaTeX file to the letter
(under the toolchain of proofs/GENERATED_WITH.json). Before issue 31.3, duchi2013 moved in 8
values and kairouz2016 in its last printed digits this way (numpy's AVX-512 power and log,
glibc's FMA exp and log inside numpy's samplers, OpenBLAS's eigendecomposition)."""

from __future__ import annotations

import json
from pathlib import Path

import plain_cpu
import pytest

from ldpaudit.papers.golden import json_differences, same_toolchain

PROOFS = plain_cpu.ROOT / "proofs"


def _regenerate_plain(tmp_path: Path, name: str, *extra: str) -> Path:
    plain_cpu.run(["-m", "ldpaudit", "reproduce", name, "--out", str(tmp_path), "-q", *extra], plain=True, timeout=1800)
    return tmp_path / name


def _compare_exactly(folder: Path, committed: Path, skip=()) -> int:
    letter = same_toolchain(PROOFS)
    compared = 0
    for path in sorted(folder.glob("*")):
        if path.name.startswith(skip) or path.name == ".ldpaudit-build.json":
            continue  # a manifest's incremental-build state is not a result
        old = committed / path.name
        assert old.exists(), f"{path.name} generated but not committed"
        if path.suffix == ".json":
            diff = json_differences(json.loads(path.read_text(encoding="utf-8")),
                                    json.loads(old.read_text(encoding="utf-8")), exact=True)
            assert diff == [], f"{path.name} on a plainer CPU: {diff[:5]}"
            compared += 1
        elif path.suffix in (".md", ".tex") and letter:
            assert path.read_text(encoding="utf-8") == old.read_text(encoding="utf-8"), path.name
            compared += 1
    return compared


@pytest.mark.slow
def test_duchi2013_is_the_same_bits_with_the_vector_extensions_off(tmp_path):
    """The issue's example: the blog's experiment and the Laplace histogram's IMSE (normal,
    Laplace, gamma and multinomial draws, exact bin probabilities, mpmath slopes)."""
    assert _compare_exactly(_regenerate_plain(tmp_path, "duchi2013"), PROOFS / "duchi2013") >= 1


@pytest.mark.slow
@pytest.mark.parametrize("name", ["wang2017", "joseph2018", "yebarg2017", "wang2019", "localhashing", "optimality"])
def test_simulations_are_the_same_bits_with_the_vector_extensions_off(tmp_path, name):
    """wang2017 (24 s of CPU: Dirichlet populations, binomial and multinomial counts, Floyd's
    subsets), joseph2018 (35 s: the four protocols' Gaussian, Laplace and exact-law draws),
    the derived tables beside them, and optimality's certificates (HiGHS's dual for the
    portable LP input, ties among reduced costs in index order)."""
    assert _compare_exactly(_regenerate_plain(tmp_path, name), PROOFS / name) >= 1


@pytest.mark.slow
def test_kairouz2016_full_sweep_is_the_same_bits_with_the_vector_extensions_off(tmp_path):
    """The open/closed-alphabet sweep (about 3 minutes of CPU): multinomial and binomial counts
    and the least-squares decoder through a pivoted Cholesky factor instead of LAPACK's eigh."""
    # the manifest's records of the hook (hook-open_alphabet.json, paper.json, report.md) list the
    # files of the committed, reduced-sweep build; the sweep's own results (open_alphabet.*) are
    # compared bit for bit, the manifest's tables by the default suite (tests/test_reproduce.py)
    skip = ("hook-", "paper.json", "report.md")
    assert _compare_exactly(_regenerate_plain(tmp_path, "kairouz2016"), PROOFS / "kairouz2016", skip=skip) >= 2


def test_kairouz_decoded_losses_are_the_same_bits_here_and_on_the_plainer_cpu():
    """O-RR and O-RAPPOR losses (not committed at these settings) in this process and in a
    plainer one, at a rank-deficient channel (C·k < S), the conditioning spike (C·k = S) and a
    full-rank one, open and closed alphabets: every figure and the decoder's ranks equal as
    written."""
    code = ("import json; from ldpaudit.papers.hooks import kairouz_open as K; p = K.geometric(256); ns = (10**5, 10**6); "
            "out = [K.orr_losses(p, 1.0, 2, 16, 'open', ns, 3, 11), K.orr_losses(p, 1.0, 16, 16, 'closed', ns, 3, 11), "
            "K.orappor_losses(p, 1.0, 128, 2, 2, 'open', ns, 3, 11), K.orr_losses(p, 4.0, 512, 16, 'open', ns, 3, 11)]; "
            "print(json.dumps([{'rank': r['rank'], 'losses': {str(n): v for n, v in r['losses'].items()}} for r in out]))")
    here = json.loads(plain_cpu.run(["-c", code], plain=False).stdout)
    plain = json.loads(plain_cpu.run(["-c", code], plain=True).stdout)
    assert json_differences(plain, here, exact=True) == []
    assert [r["rank"] for r in here] == [17, 241, 256, 256]
