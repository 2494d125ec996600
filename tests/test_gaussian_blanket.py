"""The privacy-blanket bound for shuffled Gaussian reports (ldpaudit/account/gaussian_blanket.py)
against independent computations: one report's exact δ (Balle & Wang's formula with mpmath),
two reports' blanket divergence by quadrature (the inner integral in closed form), the cyclic
n-fold convolution in exact rational arithmetic, and the monotone-region facts by direct
evaluation on grids of pairs and levels."""
from __future__ import annotations

import json
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from ldpaudit.account import gaussian_blanket as gb
from ldpaudit.cli import main


def balle_wang(d, eps) -> mpmath.mpf:
    """One report's exact δ(ε) for two inputs d noise scales apart (Balle & Wang 2018, Thm 8)."""
    with mpmath.workdps(50):
        d, eps = mpmath.mpf(d), mpmath.mpf(eps)
        return mpmath.ncdf(d / 2 - eps / d) - mpmath.exp(eps) * mpmath.ncdf(-d / 2 - eps / d)


def two_reports(a, eps) -> mpmath.mpf:
    """(1/2) E[(l(Z1) + l(Z2))_+] for the end pair (a, -a): Z = ⊥ with probability 1 - γ,
    otherwise z with density φ(|z| + a); l_end is increasing, so for a fixed first value u the
    second integral runs over a half-line and is closed-form."""
    with mpmath.workdps(30):
        a, e = mpmath.mpf(a), mpmath.exp(mpmath.mpf(eps))
        gamma = 2 * mpmath.ncdf(-a)
        sf = lambda t: mpmath.ncdf(-t)  # noqa: E731

        def l(z):
            return mpmath.exp(2 * a * z) - e if z >= 0 else 1 - e * mpmath.exp(-2 * a * z)

        def inverse(t):
            return mpmath.log(t + e) / (2 * a) if t >= 1 - e else -mpmath.log((1 - t) / e) / (2 * a)

        def omega_tail(zeta):   # ∫_ζ^∞ φ(|z| + a) dz
            return sf(zeta + a) if zeta >= 0 else gamma - sf(-zeta + a)

        def inner(u):           # ∫ (u + l(z))_+ φ(|z| + a) dz
            zeta = inverse(-u) if -u > -mpmath.inf and (-u >= 1 - e or 1 + u > 0) else -mpmath.inf
            return u * omega_tail(zeta) + sf(zeta - a) - e * sf(zeta + a)

        def outer(z):
            return inner(l(z)) * mpmath.npdf(abs(z) + a)

        both = mpmath.quad(outer, [-mpmath.inf, -2, 0, 2, mpmath.inf])
        one = balle_wang(2 * a, eps)
        return (2 * (1 - gamma) * one + both) / 2


@pytest.mark.parametrize("a,eps", [(0.5, 0.1), (0.5, 1.0), (0.103, 0.1), (0.103, 1.0)])
def test_one_report_is_balle_wang(a, eps):
    """n = 1: the blanket divergence is one report's hockey-stick divergence: the bound is above
    it and within 1e-6 (plus the left-out share of δ)."""
    geo = gb.Geometry(a, 1, 1e-8)
    bound = gb.end_pair_divergence(geo, eps).divergence
    exact = float(balle_wang(2 * a, eps))
    assert exact <= bound <= exact * (1 + 1e-6) + gb.OUT_SHARE * geo.delta * 1.01


@pytest.mark.parametrize("a,eps", [(0.5, 0.3), (0.103, 0.2)])
def test_two_reports_by_quadrature(a, eps):
    exact = float(two_reports(a, eps))
    bound = gb.end_pair_divergence(gb.Geometry(a, 2, 1e-8), eps).divergence
    assert exact <= bound <= exact * (1 + 2e-3)


def test_cyclic_convolution_error_bound():
    """The FFT n-fold cyclic self-convolution against exact rationals: every entry within
    fft_error; a rounding-size perturbation of the bound's assumptions would be visible (the
    observed error is far above zero)."""
    rng = np.random.default_rng(7)
    N, n = 64, 40
    num = rng.integers(1, 1000, size=N)
    pmf = [Fraction(int(v), int(num.sum())) for v in num]
    exact = [Fraction(1)] + [Fraction(0)] * (N - 1)
    for _ in range(n):
        nxt = [Fraction(0)] * N
        for i, p in enumerate(exact):
            if p:
                for j, q in enumerate(pmf):
                    nxt[(i + j) % N] += p * q
        exact = nxt
    x = np.array([float(p) for p in pmf])
    got = np.fft.irfft(np.fft.rfft(x) ** n, n=N)
    err = max(abs(Fraction(float(g)) - e) for g, e in zip(got, exact))
    s = float(np.sum(x))
    assert float(err) <= gb.fft_error(N, n, s)
    assert float(err) > 0


def _F(a, x, y, eps, c, grid):
    """F(x, y; c) = ∫(φ(z - x) - e^ε φ(z - y) - c φ(|z| + a))_+ dz on a fine grid."""
    z, dz = grid
    phi = lambda t: np.exp(-t * t / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    f = phi(z - x) - math.exp(eps) * phi(z - y) - c * phi(np.abs(z) + a)
    return float(np.sum(np.maximum(f, 0.0)) * dz)


def _in_monotone_region(a, x, y, eps):
    g = lambda t: (a + t) * math.exp((a * a - t * t) / 2)  # noqa: E731
    return x >= y and g(x) >= math.exp(eps) * g(y) and g(-x) <= math.exp(eps) * g(-y)


@pytest.mark.parametrize("a,eps", [(0.5, 0.05), (0.2, 0.3)])
def test_monotone_region_is_dominated_by_the_end_pair(a, eps):
    """On M, F(x, y; c) <= F(a, -a; c) for every level c (the increasing convex order the
    bound rests on), checked on a grid; and outside M the pairs are closer than d_M."""
    z = np.linspace(-12, 12, 48001)
    grid = (z, z[1] - z[0])
    d_m = float(gb.monotone_distance(a, eps))
    levels = [-30, -3, -1, -0.3, -0.05, 0, 0.05, 0.3, 1, 3, 30]
    ends = [_F(a, a, -a, eps, c, grid) for c in levels]
    xs = np.linspace(-a, a, 13)
    seen_in = seen_out = 0
    for x in xs:
        for y in xs:
            if x < y:
                continue
            if _in_monotone_region(a, x, y, eps):
                seen_in += 1
                for c, end in zip(levels, ends):
                    assert _F(a, x, y, eps, c, grid) <= end + 1e-9, (x, y, c)
            else:
                seen_out += 1
                assert x - y < d_m, (x, y)
    assert seen_in > 20 and seen_out > 5
    # d_M is tight: just past it the region's condition holds at x = a, just before it fails
    assert _in_monotone_region(a, a, a - d_m * (1 + 1e-9), eps)
    assert not _in_monotone_region(a, a, a - d_m * (1 - 1e-6), eps)


def test_interior_pair_bound_is_below_the_end_pair():
    """The certified bounds themselves keep the order the lemma proves (a pair of M at the
    same ε and n), and a pair near the diagonal is far below."""
    a, n, eps = 0.103, 10_000, 0.0095
    geo = gb.Geometry(a, n, 1e-8)
    end = gb.end_pair_divergence(geo, eps).divergence
    inner = gb.divergence(gb.dominating_law(geo, eps, (0.5 * a, -0.6 * a)), n).divergence
    assert inner < end <= 1e-8
    assert _in_monotone_region(a, 0.5 * a, -0.6 * a, eps)


def test_blanket_bound_takes_the_worse_of_its_two_parts():
    """ε = max(ε_end, ε_near); each part recomputed: D(end) <= δ at ε_end, one report at d_M
    within δ at ε_near and above δ just below it; a >= 1/√2 is refused with the reason."""
    one_delta = lambda d, eps: balle_wang(d, eps)  # noqa: E731

    def one_eps(d):
        lo, hi = 0.0, 50.0
        for _ in range(100):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if balle_wang(d, mid) > 1e-8 else (lo, mid)
        return hi

    for a, n in ((0.103, 10_000), (0.5, 100_000)):
        b = gb.blanket_bound(a, n, 1e-8, epsilon_cap=6.0, one_report_delta=one_delta, one_report_epsilon=one_eps)
        assert b.epsilon == max(b.epsilon_end, b.epsilon_near)
        assert gb.end_pair_divergence(gb.Geometry(a, n, 1e-8), b.epsilon_end).divergence <= 1e-8
        assert b.d_monotone >= float(gb.monotone_distance(a, b.epsilon_end))
        one = b.details["epsilon_near_one_report"]
        assert balle_wang(b.d_monotone, one) <= 1e-8 < balle_wang(b.d_monotone, one * (1 - 1e-6))
        assert b.epsilon_near <= one
    # a = 0.5: the near pairs set the bound, by the chain (one report would be 8 times larger)
    chain, level = b.details["epsilon_near_chain"], b.details["chain_level"]
    assert b.epsilon == b.epsilon_near == chain == 2 * level > b.epsilon_end
    assert b.details["epsilon_near_one_report"] > 4 * chain
    end = gb.end_pair_divergence(gb.Geometry(0.5, 100_000, 1e-8), level).divergence
    assert (1 + math.exp(level)) * end <= 1e-8
    assert level >= b.epsilon_end and gb.monotone_distance(0.5, level) <= 2 * 0.5 / 3
    far = gb.blanket_bound(0.8, 1000, 1e-8, epsilon_cap=6.0, one_report_delta=one_delta, one_report_epsilon=one_eps)
    assert far.epsilon is None and "1/√2" in far.notes[0]


def test_blanket_bound_of_the_spec_example():
    """σ = sqrt(2 ln 125000) (the spec's example), n = 10^4, δ = 1e-8: the blanket bound is
    within 10 % of the best lower bound and 15 times below the truncation bound (0.1405)."""
    from ldpaudit.account import gaussian_shuffle as G
    from ldpaudit.mechanism.loader import load_bound

    r = G.gaussian_amplify(load_bound("specs/gaussian.toml", ["sigma=sqrt(2*log(125000))", "epsilon=1"]),
                           10_000, 1e-8)
    b = r.blanket
    assert r.epsilon_upper == r.epsilon_blanket == max(b["epsilon_end"], b["epsilon_near"])
    assert r.epsilon_lower < r.epsilon_blanket <= 1.1 * r.epsilon_lower
    assert r.epsilon_blanket * 15 < r.epsilon_truncated
    assert b["delta_end"] <= 1e-8
    # the near-diagonal pairs: one report at distance d_M is within δ at ε_near (recomputed)
    assert balle_wang(b["d_monotone"], b["epsilon_near"]) <= 1e-8


def test_cli_small_noise_reports_why(capsys):
    """σ = 0.6 (a = 0.83 >= 1/√2): no blanket bound, with the reason, exit 0 (the other bounds
    stand)."""
    code = main(["amplify", "specs/gaussian.toml", "-p", "sigma=3/5", "-p", "epsilon=1", "--n", "1000",
                 "--delta", "1e-6", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["epsilon_blanket"] is None
    assert any("1/√2" in note for note in data["notes"])
    assert data["epsilon_upper"] == min(data["epsilon_local"], data["epsilon_truncated"])


def test_chernoff_form_when_the_fft_is_too_wide(monkeypatch):
    """With the cyclic lattice capped, the bound falls back to Λ^n s^n/(eθ): still above the
    exact two-report value, and above the FFT's."""
    a, eps = 0.5, 0.3
    geo = gb.Geometry(a, 2, 1e-8)
    fft = gb.end_pair_divergence(geo, eps)
    monkeypatch.setattr(gb, "MAX_FFT", 16)
    chern = gb.end_pair_divergence(geo, eps)
    assert chern.details["method"] == "chernoff" and fft.details.get("method") is None
    assert chern.divergence >= fft.divergence >= float(two_reports(a, eps))
