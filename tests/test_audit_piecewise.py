"""Spec-guided audits of densities piecewise in z (Piecewise mechanism, Square Wave).

Events are unions of the cells between the breakpoints of f(.|x) and f(.|x'), with exact
probabilities (length × value); each cell of f(.|x) is a conformance test. Fixed seeds, α
stated, 2·10^5 draws per input in the default suite; the false-alarm run over 60 seeds is
slow-marked.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
import sympy as sp

from ldpaudit.audit import audit, guided, plan
from ldpaudit.audit.guided import IntervalsEvent, Plan, SpecView
from ldpaudit.cli import main
from ldpaudit.mechanism import randomizers as R
from ldpaudit.mechanism.loader import load_spec
from ldpaudit.mechanism.realinput import density_inputs

ALPHA = 0.01
N = 200_000


def pm_spec(epsilon=1):
    return load_spec("specs/piecewise.toml").bind(epsilon=epsilon)


def sw_spec(epsilon=1, b="1/2"):
    return load_spec("specs/square_wave.toml").bind(epsilon=epsilon, b=b)


def pm_wrong_c(*, epsilon):
    """The Piecewise mechanism with C = (e^ε + 1)/(e^ε - 1) (e^ε where the paper has e^(ε/2)),
    the band probability e^(ε/2)/(e^(ε/2) + 1) kept: the band [l(x), r(x)] of width C - 1 is
    narrower, so its density is higher than e^ε times the rest's (true ε ≈ 1.50 at ε = 1)."""
    s, t = math.exp(epsilon / 2), math.exp(epsilon)
    C = (t + 1) / (t - 1)
    inside = s / (s + 1)

    def sample(x, n, rng):
        lo = (C + 1) / 2 * float(x) - (C - 1) / 2
        hi = lo + C - 1
        u = rng.random(n)
        band = lo + (hi - lo) * rng.random(n)
        v = (2 * C - (hi - lo)) * rng.random(n)
        rest = np.where(v < lo + C, -C + v, hi + (v - (lo + C)))
        return np.where(u < inside, band, rest)

    return sample


# -- exact cells --------------------------------------------------------------------------------

def test_pm_cells_give_the_optimal_event_with_ratio_exactly_e_eps():
    plan = Plan(pm_spec(), [-1.0, 1.0])
    cands = plan._cell_candidates(-1.0, 1.0)
    s = math.exp(0.5)
    C = (s + 1) / (s - 1)
    event, p, q = cands[0]
    assert np.allclose(event.ends, [-C, -1.0], rtol=1e-15)
    assert p == pytest.approx(s / (s + 1), rel=1e-15)
    assert p / q == pytest.approx(math.e, rel=1e-15)
    # then the middle cell (-1, 1) of ratio 1, then everything: P = 1 under both inputs
    assert cands[1][1] - p == pytest.approx(cands[1][2] - q, rel=1e-14)
    assert cands[-1][1:] == pytest.approx((1.0, 1.0), rel=1e-15)
    assert len(cands) == 3


def test_cell_masses_are_exact_sympy_numbers_summing_to_one():
    plan = Plan(sw_spec(), [0.0, 0.3, 0.6, 1.0])
    cells = plan.law.cells((0.3, 0.6))
    for i in range(2):
        total = sp.Add(*[c.masses[i] for c in cells])
        assert sp.simplify(total - 1) == 0
    # breakpoints x ± 1/2, x (the kink of |z - x|) and -1/2, 3/2 of both inputs, at the exact doubles
    ends = [c.lo_f for c in cells[1:]]
    assert ends == pytest.approx([-0.5, -0.2, 0.1, 0.3, 0.6, 0.8, 1.1, 1.5], abs=1e-15)
    # windows [-0.2, 0.8) and [0.1, 1.1) overlap: on [0.1, 0.8) both have p = e/(e + 1), ratio 1
    p = math.e / (math.e + 1)
    both = [c for c in cells if 0.09 < c.lo_f and c.hi_f < 0.81]
    assert len(both) == 3 and all(c.masses[0] == c.masses[1] for c in both)
    assert float(sp.Add(*[c.masses[0] for c in both])) == pytest.approx(p * 0.7, rel=1e-14)
    only_x = [c for c in cells if c.lo_f < 0 < c.hi_f]
    assert len(only_x) == 1 and float(only_x[0].masses[0] / only_x[0].masses[1]) == pytest.approx(math.e, rel=1e-15)


def test_pm_conformance_tests_each_cell_at_its_exact_probability():
    plan = Plan(pm_spec(), [-1.0, 0.3, 1.0])
    tests = plan.conformance_events(0.3, [])
    s = math.exp(0.5)
    C = (s + 1) / (s - 1)
    probs = [p for _, p, _ in tests]
    assert len(tests) == 4 and sum(probs) == pytest.approx(1.0, rel=1e-15)
    band = [ev for ev, p, _ in tests if p == pytest.approx(s / (s + 1), rel=1e-15)]
    l = (C + 1) / 2 * 0.3 - (C - 1) / 2
    assert len(band) == 1 and np.allclose(band[0].ends, [l, l + C - 1], rtol=1e-15)
    outside = tests[-1][0]
    assert tests[-1][1] == 0.0 and outside.ends[0] == -math.inf and outside.ends[-1] == math.inf
    margin = guided.SUPPORT_MARGIN * 2 * C
    assert outside.ends[1] == pytest.approx(-C - margin) and outside.ends[2] == pytest.approx(C + margin)
    # an output rounded up past C by the reference sampler's grid (2^-18 at ε = 1) is not outside
    y = np.array([C + 2.0 ** -19, -C - 2.0 ** -19, C + 1e-3, -C - 1e-3, 0.0])
    assert outside.mask(SpecView(len(y), None, vals=y)).tolist() == [False, False, True, True, False]


def test_intervals_event_membership_matches_a_direct_check():
    rng = np.random.default_rng(3)
    ends = np.array([-math.inf, -2.0, -1.0, 0.5, 0.75, 3.0])
    ev = IntervalsEvent(ends, "")
    y = np.concatenate([rng.normal(0, 2, 5000), ends[1:], [np.nextafter(-2.0, -3), np.nextafter(0.5, 0)]])
    spans = list(zip(ends[::2], ends[1::2]))
    expected = np.array([any(a <= v < b for a, b in spans) for v in y])
    got = ev.mask(SpecView(len(y), None, vals=y))
    assert got.dtype == bool and (got == expected).all()
    assert expected.any() and not expected.all()
    many = np.sort(rng.uniform(-5, 5, 40))   # 20 intervals: the binary-search path
    ev = IntervalsEvent(many, "")
    y = np.concatenate([y, many])
    spans = list(zip(many[::2], many[1::2]))
    expected = np.array([any(a <= v < b for a, b in spans) for v in y])
    assert (ev.mask(SpecView(len(y), None, vals=y)) == expected).all() and expected.any()


def test_piecewise_densities_use_no_quadrature(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("numeric CDF used for a piecewise density")

    monkeypatch.setattr(plan, "_cdf", refuse)   # where Plan looks the numeric CDF up
    r = audit(R.piecewise(epsilon=1), domain=[-1.0, 0.0, 1.0], epsilon=1, samples=20_000, alpha=ALPHA,
              batch=True, spec=pm_spec(), seed=1)
    assert r.verdict == "NO_EVIDENCE" and r.conformance["passed"]


# -- audits ----------------------------------------------------------------------------------------

def test_pm_reference_is_left_alone_and_certified_near_epsilon():
    r = audit(R.piecewise(epsilon=1), domain=[-1.0, 1.0], epsilon=1, samples=N, alpha=ALPHA, batch=True,
              spec=pm_spec(), seed=11)
    assert r.verdict == "NO_EVIDENCE"
    assert r.conformance["passed"], r.conformance
    assert 0.95 < r.epsilon_lower_bound <= 1.0
    w = r.witness
    assert w["p_spec"] / w["q_spec"] == pytest.approx(math.e, rel=1e-12)


def test_square_wave_reference_is_left_alone():
    r = audit(R.square_wave(epsilon=1, b=0.5), domain=[0.0, 0.5, 1.0], epsilon=1, samples=N, alpha=ALPHA,
              batch=True, spec=sw_spec(), seed=12)
    assert r.verdict == "NO_EVIDENCE"
    assert r.conformance["passed"], r.conformance
    assert 0.9 < r.epsilon_lower_bound <= 1.0


def test_pm_with_c_from_e_eps_is_flagged():
    r = audit(pm_wrong_c(epsilon=1), domain=[-1.0, 1.0], epsilon=1, samples=N, alpha=ALPHA, batch=True,
              spec=pm_spec(), seed=13)
    assert r.verdict == "VIOLATION" and r.epsilon_lower_bound > 1.3
    assert not r.conformance["passed"]


def test_pm_claimed_at_a_smaller_epsilon_is_flagged():
    """The correct PM at ε = 1 audited against the spec at ε = 0.9: the band's ratio e^1 > e^0.9."""
    r = audit(R.piecewise(epsilon=1), domain=[-1.0, 1.0], epsilon=0.9, samples=N, alpha=ALPHA, batch=True,
              spec=pm_spec(epsilon=1), seed=14)
    assert r.verdict == "VIOLATION"


# -- inputs from the spec --------------------------------------------------------------------------

def test_density_inputs_are_the_ends_and_three_interior_points():
    assert density_inputs(pm_spec()) == [-1.0, -0.5, 0.0, 0.5, 1.0]
    assert density_inputs(sw_spec()) == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert density_inputs(load_spec("specs/krr.toml").bind(d=3, epsilon=1)) is None


def test_audit_command_takes_the_inputs_from_a_density_spec(capsys):
    code = main(["audit", "ldpaudit.mechanism.randomizers:piecewise", "--target-arg", "epsilon=1", "--batch",
                 "--spec", "specs/piecewise.toml", "-p", "epsilon=1", "--samples", "20000", "--json",
                 "--no-isolate", "--seed", "3"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["verdict"] == "NO_EVIDENCE"
    # inputs -1, -1/2, 0, 1/2, 1: 3 cells of positive mass and the cells of density 0 (at ±1 the
    # band reaches ±C: 2 cells), plus the chosen pair events under both of their inputs
    assert set(payload["witness"]["pair"]) <= {-1.0, -0.5, 0.0, 0.5, 1.0}
    assert payload["conformance"]["tests"] == 3 + 3 * 4 + 3 + 2 * payload["witness"]["candidates_confirmed"]


# -- false alarms (slow) ----------------------------------------------------------------------------

@pytest.mark.slow
def test_pm_false_alarms_over_60_seeds():
    """60 seeded audits of the correct PM at α = 0.05: VIOLATION or a conformance rejection each
    happen at most α of the time, so at most 8 of 60 (P(Bin(60, 0.05) > 8) = 0.009)."""
    spec = pm_spec()
    flagged, ratios = [], []
    for seed in range(60):
        r = audit(R.piecewise(epsilon=1), domain=[-1.0, 0.0, 1.0], epsilon=1, samples=N, alpha=0.05, batch=True,
                  spec=spec, seed=5000 + seed)
        ratios.append(r.epsilon_lower_bound)
        if r.verdict == "VIOLATION" or not r.conformance["passed"]:
            flagged.append((seed, r.verdict, r.conformance["discrepancy"]))
    assert len(flagged) <= 8, flagged
    assert min(ratios) > 0.9
