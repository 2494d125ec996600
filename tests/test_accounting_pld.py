"""The pessimistic discretized PLD (ldpaudit.account.discrete) against exact compositions and
brute-force product channels, and the density profiles (ldpaudit.account.density) against
scipy.integrate.quad of the spec's density."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from scipy import integrate
from scipy.stats import norm

from ldpaudit.account import composition as C
from ldpaudit.account import discrete as D
from ldpaudit.account import density as A
from ldpaudit.account import pld as P
from ldpaudit.account.profile import delta_at, view
from ldpaudit.cli import main
from ldpaudit.mechanism import Mechanism, load_spec


def test_krr_k_fold_upper_bound_is_above_exact_and_tightens_with_the_grid():
    mech = load_spec("specs/krr.toml").bind(d=4, epsilon="log(3)")
    single, ten = view(mech), view(mech, reports=10)
    for eps in (sp.Integer(1), sp.Rational(5, 2), sp.Integer(4)):
        exact = delta_at(ten, eps).delta_float
        gaps = []
        for step in (2.0 ** -3, 2.0 ** -5, 2.0 ** -7, 2.0 ** -9):
            up = D.view_delta_upper(single.classes, 10, eps, step).delta_upper
            assert up >= exact
            gaps.append(up - exact)
        assert gaps == sorted(gaps, reverse=True) and gaps[0] > gaps[-1]
        # tolerance: every loss moved up by < h per report, so δ_up(ε) <= δ(ε - 10 h) (+ float slack)
        assert gaps[-1] <= delta_at(ten, eps - sp.Rational(10) / 512).delta_float - exact + 1e-12
        assert gaps[-1] < 2e-3


def test_grid_index_is_the_grid_point_at_or_above_the_loss():
    """ratio 1 (loss 0, on the grid) stays at 0; ln 3 * 8 = 8.79 goes to 9, -ln 3 * 8 to -8."""
    bases = view(Mechanism.from_matrix([[3, 1], [1, 3]], epsilon="log(3)")).bases
    h = 2.0 ** -3
    assert D.grid_index_up(bases, ("q", 1, 1), h) == 0
    assert D.grid_index_up(bases, ("q", 3, 1), h) == 9
    assert D.grid_index_up(bases, ("q", 1, 3), h) == -8
    assert D.grid_index_up(bases, ("q", 2, 1), 2.0 ** -20) == math.ceil(math.log(2) * 2 ** 20)


def _noncommensurate():
    W = [[7, 3, 1], [2, 5, 4], [1, 2, 9]]
    return Mechanism.from_matrix(W, epsilon="log(9)"), [[Fraction(w, sum(r)) for w in r] for r in W]


def test_non_commensurate_bound_is_above_brute_force_product_channel():
    """Ratios 7/2, 3/5, 1/4, ... (primes 2, 3, 5, 7, 11, 13): three reports enumerated as the
    27-output product channel by verify.delta (independent code)."""
    from ldpaudit.verify.delta import delta_for

    mech, rows = _noncommensurate()
    product = [[a * b * c for a in r for b in r for c in r] for r in rows]
    brute = Mechanism.from_matrix(product, epsilon=100)
    single = view(mech)
    for eps in (sp.Integer(0), sp.Rational(1, 2), sp.Integer(1), sp.Integer(2), sp.Integer(4)):
        want = float(sp.N(delta_for(brute, eps).delta, 30))
        up = D.view_delta_upper(single.classes, 3, eps, 2.0 ** -10).delta_upper
        assert want <= up <= want + 5e-3, (eps, want, up)


def test_exact_support_explosion_and_monotone_bounds(monkeypatch):
    """Past the exact budget the composition raises SupportTooLarge (the command's cue for
    delta_upper); the bound at 12 rounds of k-RR ln 3 + k-RR ln 5 is above the exact value at
    2 rounds (more rounds never lower δ) and tighter on a finer grid."""
    monkeypatch.setattr(P, "MAX_PRODUCTS", 5_000)
    with pytest.raises(P.SupportTooLarge, match="not commensurate"):
        view(_noncommensurate()[0], reports=60)
    monkeypatch.undo()
    comp = C.load_composition("specs/compositions/krr_ln3_ln5.toml")
    two = float(sp.N(delta_at(comp.view(2), 8).delta, 30))
    single = comp.view(1)
    coarse = D.view_delta_upper(single.classes, 12, 8, 2.0 ** -5).delta_upper
    fine = D.view_delta_upper(single.classes, 12, 8, 2.0 ** -8).delta_upper
    assert two <= fine < coarse <= 1


def test_cli_fallback_json(capsys, monkeypatch):
    monkeypatch.setattr(P, "MAX_PRODUCTS", 2_000)
    code = main(["profile", "specs/compositions/krr_ln3_ln5.toml", "--reports", "20", "--epsilon", "30",
                 "--grid", "0.01", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["delta"] is None and out["exact"] is False
    assert out["grid_step"] == 2.0 ** -7 and out["grid_points"] > 1000
    # independent check: 20 rounds of the one-round pair class on a finer grid, and a lower
    # bound from the exact 4-round value at the same ε (δ grows with the rounds)
    comp = C.load_composition("specs/compositions/krr_ln3_ln5.toml")
    low = float(sp.N(delta_at(comp.view(4), 30).delta, 30))
    assert low <= out["delta_upper"] <= 1
    finer = D.view_delta_upper(comp.view(1).classes, 20, 30, 2.0 ** -9).delta_upper
    assert finer <= out["delta_upper"]


@pytest.mark.parametrize("text", ["-1", "0", "abc", "inf"])
def test_bad_grid_is_one_line_exit_2(text, capsys):
    assert main(["profile", "specs/krr.toml", "--grid", text]) == 2
    err = capsys.readouterr().err
    assert "--grid" in err and err.count("\n") == 1


# --- density channels ----------------------------------------------------------------------


def _quad_delta(f, eps, lo, hi, bound):
    """∫ max(0, f(z|hi) - e^ε f(z|lo)) dz by adaptive quadrature (scipy), kinks given."""
    g = lambda z: max(0.0, f(z, hi) - math.exp(eps) * f(z, lo))  # noqa: E731
    pts = sorted({lo, hi, (lo + hi) / 2})
    total = 0.0
    edges = [-bound, *pts, bound]
    for a, b in zip(edges, edges[1:]):
        total += integrate.quad(g, a, b, limit=200, epsabs=1e-13, epsrel=1e-12)[0]
    return total


def _density_fn(mech):
    from ldpaudit.mechanism.params import X, Z

    return sp.lambdify((Z, X), mech.channel.density, modules="math")


@pytest.mark.parametrize("spec, binding, epsilons", [
    ("laplace_mean", dict(M=1, epsilon=1), ["0", "1/4", "1/2", "9/10", "3/2"]),
    pytest.param("laplace_mean", dict(M=2, epsilon=3), ["1/3", "2", "29/10"], marks=pytest.mark.slow),
    ("gaussian", dict(sigma=2, epsilon=1), ["0", "1/2", "1", "2"]),
    pytest.param("gaussian", dict(sigma="1/2", epsilon=1), ["1/10", "1", "3"], marks=pytest.mark.slow),
])
def test_density_delta_equals_quadrature(spec, binding, epsilons, capsys):
    mech = load_spec(f"specs/{spec}.toml").bind(**binding)
    f = _density_fn(mech)
    lo, hi = float(mech.inputs.low), float(mech.inputs.high)
    params = [f"{k}={v}" for k, v in binding.items()]
    for e in epsilons:
        argv = ["profile", f"specs/{spec}.toml", *sum((["-p", p] for p in params), []), "--epsilon", e, "--json"]
        assert main(argv) == 0
        out = json.loads(capsys.readouterr().out)
        want = _quad_delta(f, float(sp.Rational(e)), lo, hi, 60.0)
        assert out["delta_float"] == pytest.approx(want, abs=1e-9), (spec, e)
        assert out["exact"] is True and sp.sympify(out["delta"]).free_symbols == set()


def test_laplace_closed_form_is_derived():
    """δ(ε) = max(0, 1 - e^((ε - ε0)/2)), ε0 = Δ/b (formulas.md: b = 2M/ε, Δ = 2M)."""
    mech = load_spec("specs/laplace_mean.toml").bind(M=1, epsilon=sp.Rational(3, 2))
    from ldpaudit.account.density import compute_density

    for e in (sp.Integer(0), sp.Rational(1, 3), 1, sp.Rational(3, 2), 2):
        out = compute_density(mech, reports=1, epsilon=e)
        want = max(0, 1 - sp.exp((sp.sympify(e) - sp.Rational(3, 2)) / 2))
        assert sp.simplify(sp.sympify(out["delta"]) - want) == 0


def test_gaussian_k_reports_two_dimensional_quadrature_and_mu():
    """K = 2 reports of the Gaussian: δ against dblquad over (z1, z2); μ = Δ sqrt(K)/σ; the
    trade-off points against the Neyman-Pearson test of the spec's density (quad)."""
    from ldpaudit.account.density import compute_density

    mech = load_spec("specs/gaussian.toml").bind(sigma=1, epsilon=1)
    f = _density_fn(mech)
    out = compute_density(mech, reports=2, epsilon=sp.Rational(1, 2))
    assert sp.sympify(out["tradeoff"]["mu"]) == sp.sqrt(2)
    eps = 0.5

    def g(z2, z1):
        return max(0.0, f(z1, 1.0) * f(z2, 1.0) - math.exp(eps) * f(z1, 0.0) * f(z2, 0.0))

    # the positive part lives on z1 + z2 > c: integrate z2 from the kink line
    c = eps + 1.0  # loss z1 + z2 - 1 for Δ = σ = 1
    want = integrate.dblquad(lambda z2, z1: f(z1, 1.0) * f(z2, 1.0) - math.exp(eps) * f(z1, 0.0) * f(z2, 0.0),
                             -12, 13, lambda z1: c - z1, lambda z1: 14.0, epsabs=1e-11)[0]
    assert out["delta_float"] == pytest.approx(want, abs=1e-8)
    assert g(2.0, 2.0) > 0
    # G_μ at α: reject x' = low when z2 sum... one-report check with μ = 1: threshold s from α
    one = compute_density(mech, reports=1, epsilon=1)
    for p in one["tradeoff"]["points"][1:-1]:
        a = p["alpha"]
        s = 1.0 + norm.ppf(a)  # P_hi(Z <= s) = α by quadrature below
        alpha = integrate.quad(lambda z: f(z, 1.0), -40, s)[0]
        beta = integrate.quad(lambda z: f(z, 0.0), s, 40)[0]
        assert alpha == pytest.approx(a, abs=1e-9) and p["beta"] == pytest.approx(beta, abs=1e-9)


def test_laplace_k_reports_upper_bound_above_quadrature():
    mech = load_spec("specs/laplace_mean.toml").bind(M=1, epsilon=1)
    f = _density_fn(mech)
    g = A.discretized_density_pld(mech, 2.0 ** -10, cells=1000)
    two = D.power(g, 2)
    for eps in (0.0, 0.5, 1.0, 1.5):
        def integrand(z2, z1):
            return max(0.0, f(z1, 1.0) * f(z2, 1.0) - math.exp(eps) * f(z1, -1.0) * f(z2, -1.0))

        want = 0.0
        edges = [-30.0, -1.0, 1.0, 30.0]
        for a, b in zip(edges, edges[1:]):
            for c, d in zip(edges, edges[1:]):
                want += integrate.dblquad(integrand, a, b, c, d, epsabs=1e-10)[0]
        up = D.delta_upper(two, eps)
        assert want <= up <= want + 5e-3, (eps, want, up)


# --- the fast paths of the exact profile -----------------------------------------------------


def test_fast_sort_equals_the_exact_comparison_sort():
    """Sorted supports (floats over Q, enclosure midpoints over Q(e)) equal the comparison sort."""
    import functools

    for eps in ("log(3)", "1"):
        v = view(load_spec("specs/krr.toml").bind(d=3, epsilon=eps), reports=6)
        pld = v.classes[0].pld
        slow = sorted(pld.atoms, key=functools.cmp_to_key(lambda a, b: P.compare_keys(v.bases, a, b)))
        assert P.sort_ratio_keys(v.bases, list(pld.atoms)[::-1]) == slow and len(slow) == 13


def test_worst_pair_found_equals_brute_force_maximum():
    """Random 3 x 5 channels: when a worst pair is proved its δ is the maximum over all ordered
    pairs (each enumerated with verify.delta) at 5 values of ε."""
    from ldpaudit.verify.delta import delta_for

    rng = np.random.default_rng(7)
    proved = 0
    for _ in range(4):
        W = rng.integers(1, 12, size=(3, 5))
        mech = Mechanism.from_matrix(W, epsilon="log(1000)")
        from ldpaudit.account.profile import profile as profile_of

        v = view(mech)
        prof = profile_of(v)
        rows = [[Fraction(int(w), int(sum(r))) for w in r] for r in W]
        for e in (0, sp.Rational(1, 3), 1, sp.Rational(3, 2), 3):
            vals = {}
            for i in range(3):
                for k in range(3):
                    if i != k:
                        pair = Mechanism.from_matrix([rows[i], rows[k]], epsilon=100)
                        vals[(i, k)] = sp.nsimplify(delta_for(pair, e).delta)
            top = max(vals.values(), key=lambda x: float(sp.N(x, 40)))
            if prof.worst is not None:
                x, x2 = prof.worst.pairs[0]
                got = sp.nsimplify(delta_for(Mechanism.from_matrix([rows[x], rows[x2]], epsilon=100), e).delta)
                assert sp.simplify(got - top) == 0
        proved += prof.worst is not None
    assert proved >= 1


def test_memoized_view_past_the_histogram_limit_is_bounded_by_the_permanent_response(capsys):
    """L-GRR over 10,000 days (10^11 histograms): delta_upper is the permanent k-RR's exact δ
    (verify.delta on the permanent channel, independent code), above the exact 5-day value."""
    from ldpaudit.verify.delta import delta_for

    assert main(["profile", "specs/compositions/lgrr.toml", "--reports", "2000", "--epsilon", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["delta"] is None and out["exact"] is False and "histograms" in out["reason"]
    perm = load_spec("specs/krr.toml").bind(d=4, epsilon=2)
    want = float(sp.N(delta_for(perm, 1).delta, 30))
    assert want <= out["delta_upper"] <= want * (1 + 1e-15)
    five = float(sp.N(delta_at(C.load_composition("specs/compositions/lgrr.toml").view(5), 1).delta, 30))
    assert five < out["delta_upper"]
    assert main(["profile", "specs/compositions/lgrr.toml", "--reports", "2000", "--epsilon", "1"]) == 0
    assert "cap: the permanent response's ε = 2" in " ".join(capsys.readouterr().out.split())  # wrapped at 80


def test_entries_outside_the_field_get_a_bound_from_enclosures(capsys):
    """k-RAPPOR at ε = log 3 (entries with √3): no exact value, delta_upper from interval
    enclosures; against the hockey-stick of the four (bit at x, bit at x') outputs at 50 digits."""
    import mpmath

    mpmath.mp.dps = 50
    s3 = mpmath.sqrt(3)
    p, q = s3 / (1 + s3), 1 / (1 + s3)
    on, off = [1 - p, p], [1 - q, q]
    for e in ("0", "1/2", "1"):
        assert main(["profile", "specs/krappor.toml", "-p", "d=3", "-p", "epsilon=log(3)", "--epsilon", e,
                     "--grid", "1e-4", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        t = mpmath.exp(mpmath.mpf(sp.Rational(e).p) / sp.Rational(e).q)
        want = sum(max(0, on[a] * off[b] - t * off[a] * on[b]) for a in (0, 1) for b in (0, 1))
        assert out["delta"] is None and float(want) <= out["delta_upper"] <= float(want) + 1e-3, (e, want, out)
