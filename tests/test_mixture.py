"""Mixture channels (issue 23, items 1 and 9): Wang et al.'s Hybrid mechanism (the Piecewise mechanism
w.p. β, else Duchi et al.'s one-bit mechanism at ±B) loads from specs/hybrid.toml, is proved ε-LDP for
all ε > 0 and β in [0, 1] with tight ε* = ε, mutants of either component are refuted with witnesses
re-checked here exactly (weight > 0 there), bad weights are refused naming the field and value, the
moments and the optimal β are derived and checked against numeric integration, and the reference
sampler agrees with the derived mean and variance."""

import math
from pathlib import Path

import numpy as np
import pytest

import cli_inprocess
import sympy as sp
from scipy import integrate, optimize

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism import load_spec, loads_spec
from ldpaudit.mechanism import loader
from ldpaudit.mechanism.command import describe_channel
from ldpaudit.mechanism.params import X, Y, Z
from ldpaudit.verify import Status, tight_epsilon, verify

ROOT = Path(__file__).resolve().parent.parent
HYBRID = (ROOT / "specs" / "hybrid.toml").read_text()
PM_WEIGHT = 'weight = "beta"'
ONE_BIT_WEIGHT = 'weight = "1 - beta"'
ENTRY = 'entry = "1/2 + y*x*(exp(epsilon) - 1)/(2*(exp(epsilon) + 1))"'


@pytest.fixture(scope="module")
def hybrid():
    return load_spec(ROOT / "specs" / "hybrid.toml")


def test_loads_as_a_mixture_of_a_density_and_two_atoms(hybrid):
    ch = hybrid.channel
    assert ch.form == "mixture" and [c.kind for c in ch.components] == ["density", "atoms"]
    beta, eps = hybrid.symbols["beta"], hybrid.symbols["epsilon"]
    assert ch.components[0].weight == beta and ch.components[1].weight == 1 - beta
    B = (sp.exp(eps) + 1) / (sp.exp(eps) - 1)
    assert [sp.simplify(ch.components[1].position(y) - y * B) for y in (-1, 1)] == [0, 0]
    assert any("sum to 1 (exactly)" in n for n in hybrid.notes)
    shown = describe_channel(hybrid)
    assert [c["weight"] for c in shown["components"]] == ["beta", "1 - beta"]
    assert shown["components"][1]["outputs"] == ["-1", "1"]
    assert "density" in shown["components"][0]
    assert loader._DEFINITION_FORMS >= {"density", "mixture"}
    back = loads_spec(loader.dumps_spec(hybrid))  # the writer's text reads back to the same mixture
    for a, b in zip(back.channel.components, ch.components):
        assert a.weight == b.weight and a.outputs == b.outputs and a.entry == b.entry and a.at == b.at
    point = {eps: 1, X: sp.Rational(1, 3)}
    for z in (-3, 0, sp.Rational(1, 2), 4):
        assert sp.simplify((back.channel.components[0].density - ch.components[0].density).subs({**point, Z: z})) == 0


def test_proved_for_all_epsilon_and_beta_with_tight_epsilon(hybrid):
    eps = hybrid.symbols["epsilon"]
    v = verify(hybrid)
    assert v.status is Status.PROVED and v.exit_code == 0
    assert v.tight_epsilon == eps
    assert "beta" in v.scope and "epsilon" in v.scope
    assert any("attained by component 0 (density" in n and "component 1 (atoms" in n for n in v.notes)
    t = tight_epsilon(hybrid)
    assert t.value == eps and t.proof.status is Status.PROVED
    w = t.witness
    assert w is not None and sp.simplify(w.ratio - sp.exp(w.claim)) == 0
    # the other side: the bound example is refuted just below ε = 1, proved at 1
    example = hybrid.bind_example()
    assert verify(example, epsilon=1).status is Status.PROVED
    below = verify(example, epsilon="99/100")
    assert below.status is Status.REFUTED and below.exit_code == 1
    assert sp.N(below.witness.ratio - sp.exp(sp.Rational(99, 100)), 30) > 0


def _pm_at_double_epsilon(text: str) -> str:
    """PM's density at 2ε inside the mixture: still a density, but e^(2ε)-LDP."""
    return (text.replace('C = "(exp(epsilon/2) + 1)/(exp(epsilon/2) - 1)"', 'C = "(exp(epsilon) + 1)/(exp(epsilon) - 1)"')
            .replace('p = "(exp(epsilon) - exp(epsilon/2))/(2*exp(epsilon/2) + 2)"',
                     'p = "(exp(2*epsilon) - exp(epsilon))/(2*exp(epsilon) + 2)"')
            .replace("(p/exp(epsilon) if", "(p/exp(2*epsilon) if"))


ONE_BIT_DOUBLED = HYBRID.replace(ENTRY, 'entry = "1/2 + y*x*(exp(2*epsilon) - 1)/(2*(exp(2*epsilon) + 1))"')


def _at(expr, params: dict, x=None, z=None):
    """``expr`` at the witness's parameter values (by name) and at x, z when given."""
    out = sp.sympify(expr)
    out = out.subs({s: params[s.name] for s in out.free_symbols if s.name in params})
    return out.subs({k: v for k, v in ((X, x), (Z, z)) if v is not None})


def test_density_mutant_refuted_with_exact_witness_of_positive_weight():
    mutant = loads_spec(_pm_at_double_epsilon(HYBRID))
    v = verify(mutant)
    assert v.status is Status.REFUTED and v.exit_code == 1
    w = v.witness
    params = dict(w.params)
    comp = mutant.channel.components[0]
    weight = _at(comp.weight, params)
    assert weight.is_number and sp.N(weight, 30) > 0
    # the mixture's density at z is weight * f(z|x): recompute both sides from the spec's density
    f = [sp.piecewise_fold(_at(comp.density, params, x=x, z=w.y)) for x in (w.x, w.x_prime)]
    assert sp.simplify(w.numerator - weight * f[0]) == 0 and sp.simplify(w.denominator - weight * f[1]) == 0
    claim = _at(mutant.claimed_epsilon, params)
    assert sp.N(f[0] / f[1] - sp.exp(claim), 50) > 0
    assert "component 0 (density" in v.notes[-1]
    # an example at β = 0 (where the faulty component never reports) is not a witness: another point is
    at_zero = loads_spec(_pm_at_double_epsilon(HYBRID).replace('beta = "1 - exp(-1/2)"', "beta = 0"))
    v0 = verify(at_zero)
    assert v0.status is Status.REFUTED
    weight0 = _at(comp.weight, dict(v0.witness.params))
    assert weight0.is_number and sp.N(weight0, 30) > 0
    # with β = 0 the faulty component never reports: the mixture is the one-bit mechanism, PROVED
    assert verify(mutant.bind(beta=0)).status is Status.PROVED


def test_atoms_mutant_refuted_with_exact_witness_of_positive_weight():
    mutant = loads_spec(ONE_BIT_DOUBLED)
    v = verify(mutant)
    assert v.status is Status.REFUTED
    w = v.witness
    params = dict(w.params)
    comp = mutant.channel.components[1]
    weight = _at(comp.weight, params)
    assert weight.is_number and sp.N(weight, 30) > 0
    label = next(y for y in comp.outputs if sp.simplify(_at(comp.position(y), params) - w.y) == 0)
    q = [_at(comp.entry.subs(Y, label), params, x=x) for x in (w.x, w.x_prime)]
    assert sp.simplify(w.numerator - weight * q[0]) == 0 and sp.simplify(w.denominator - weight * q[1]) == 0
    assert sp.N(q[0] / q[1] - sp.exp(_at(mutant.claimed_epsilon, params)), 50) > 0
    assert verify(mutant.bind(beta=1)).status is Status.PROVED


def test_a_component_that_cannot_be_decided_is_unknown():
    text = HYBRID.replace(ENTRY, 'entry = "1/2 + y*(exp(x**2) - 1)/10"')
    v = verify(loads_spec(text))
    assert v.status is Status.UNKNOWN and v.exit_code == 3
    assert "component 1 (atoms" in v.reason
    # a weight negative only for β < 1/100 passes the load's sample points; verify does not prove it
    slightly = HYBRID.replace(PM_WEIGHT, 'weight = "beta - 1/100"').replace(ONE_BIT_WEIGHT, 'weight = "101/100 - beta"')
    v = verify(loads_spec(slightly))
    assert v.status is Status.UNKNOWN and "weight beta - 1/100 of component 0 was not shown >= 0" in v.reason


BAD = [
    ("weight with x", HYBRID.replace(PM_WEIGHT, 'weight = "beta*x"'),
     r"channel.components\[0\].weight = beta\*x mentions x"),
    ("weights sum to 3/2", HYBRID.replace(ONE_BIT_WEIGHT, 'weight = "3/2 - beta"'),
     r"channel.components weights sum to 3/2; .* must sum to 1"),
    ("negative weight", HYBRID.replace(PM_WEIGHT, 'weight = "-1/2"').replace(ONE_BIT_WEIGHT, 'weight = "3/2"'),
     r"channel.components\[0\].weight of 'Hybrid mechanism' = -1/2 is negative"),
    ("negative for some beta", HYBRID.replace(PM_WEIGHT, 'weight = "beta - 1/2"').replace(ONE_BIT_WEIGHT, 'weight = "3/2 - beta"'),
     r"channel.components\[0\].weight of 'Hybrid mechanism' = beta - 1/2 is -1/6 .* at epsilon=1/3, beta=1/3"),
    ("two densities", HYBRID.replace(f'outputs = [-1, 1]\n{ENTRY}\nat = "y*B"',
                                     'density = "p if l <= z <= r else (p/exp(epsilon) if -C <= z <= C else 0)"'),
     r"channel.components\[1\].density: a mixture has at most one density component"),
    ("atom row", HYBRID.replace(ENTRY, ENTRY.replace("1/2 +", "2/3 +")),   # every entry > 0, rows sum to 4/3
     r"channel.components\[1\] \(atoms\): row x=.* sums to 4/3"),
    ("atom entry", HYBRID.replace(ENTRY, ENTRY.replace("1/2 +", "1/3 +")),   # negative at an end of the inputs
     r"channel.components\[1\] \(atoms\): Q\(y=1\|x=-1\) .* \(negative or undefined\)"),
    ("atom position in x", HYBRID.replace('at = "y*B"', 'at = "y*l"'),
     r"channel.components\[1\].at = .* mentions x"),
]


@pytest.mark.parametrize("name, text, message", BAD, ids=[b[0] for b in BAD])
def test_bad_mixtures_are_refused_naming_the_field(name, text, message):
    with pytest.raises(InvalidSpec, match=message):
        loads_spec(text)


def test_bad_weight_through_the_cli_is_exit_2_with_one_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(HYBRID.replace(ONE_BIT_WEIGHT, 'weight = "3/2 - beta"'))
    run = cli_inprocess.run("verify", str(path), cwd=ROOT)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "channel.components weights sum to 3/2" in lines[0] and "(e.g. beta and 1 - beta)" in lines[0]


def test_definitions_stay_refused_for_other_forms():
    text = (ROOT / "specs" / "duchi_binary_mean.toml").read_text() + '\n[definitions]\nK = "2"\n'
    with pytest.raises(InvalidSpec, match=r"\[definitions\] are read by coordinates, density, mixture, signs channels only"):
        loads_spec(text)


# --- derive, against numeric integration --------------------------------------------------------


def _numeric_moments(eps: float, beta: float, x: float) -> tuple[float, float]:
    """E[z|x] and Var[z|x] of the Hybrid mechanism from Wang et al.'s definitions, by quadrature."""
    s = math.exp(eps / 2)
    C = (s + 1) / (s - 1)
    p = (math.exp(eps) - s) / (2 * s + 2)
    l = (C + 1) / 2 * x - (C - 1) / 2
    r = l + C - 1

    def f(z):
        return p if l <= z <= r else (p / math.exp(eps) if -C <= z <= C else 0.0)

    mass = integrate.quad(f, -C, C, points=[l, r])[0]
    assert abs(mass - 1) < 1e-9
    m1 = integrate.quad(lambda z: z * f(z), -C, C, points=[l, r])[0]
    m2 = integrate.quad(lambda z: z * z * f(z), -C, C, points=[l, r])[0]
    B = (math.exp(eps) + 1) / (math.exp(eps) - 1)
    plus = 0.5 + x * (math.exp(eps) - 1) / (2 * (math.exp(eps) + 1))
    d1 = B * plus - B * (1 - plus)
    d2 = B * B
    mean = beta * m1 + (1 - beta) * d1
    second = beta * m2 + (1 - beta) * d2
    return mean, second - mean**2


def _numeric_worst(eps: float, beta: float) -> float:
    return max(_numeric_moments(eps, beta, x)[1] for x in np.linspace(-1, 1, 21))


@pytest.fixture(scope="module")
def derived(hybrid):
    from ldpaudit.derive.derivation import derive
    from ldpaudit.derive.mixture import channel_moments

    return channel_moments(hybrid), derive(hybrid)


@pytest.mark.parametrize("eps, beta, x", [(0.5, 1 / 3, 0.3), (1.0, 0.7, -0.8), (2.0, 0.25, 1.0)])
def test_derived_moments_match_numeric_integration(hybrid, derived, eps, beta, x):
    cm, _ = derived
    syms = hybrid.symbols
    at = {syms["epsilon"]: sp.Rational(str(eps)), syms["beta"]: sp.Rational(beta).limit_denominator(100), X: sp.Rational(str(x))}
    mean, var = _numeric_moments(eps, float(at[syms["beta"]]), x)
    assert sp.simplify(cm.mean - X) == 0
    assert float(cm.mean.subs(at)) == pytest.approx(mean, abs=1e-9)
    assert float(cm.report_variance.subs(at)) == pytest.approx(var, rel=1e-9)
    assert float(cm.worst_variance.subs(at)) == pytest.approx(_numeric_worst(eps, float(at[syms["beta"]])), rel=1e-9)


def test_optimal_beta_is_derived_and_matches_a_numeric_minimization(hybrid, derived):
    cm, dv = derived
    eps = hybrid.symbols["epsilon"]
    (threshold,) = cm.optimum.thresholds
    assert float(threshold.value()) == pytest.approx(0.6094, abs=5e-4)
    best = dv.results["optimal"]["beta_l2"]["value"]
    for e in (0.3, 0.55):
        assert best.subs(eps, sp.Rational(str(e))) == 0
    for e in (0.67, 1, 2, 4):
        value = best.subs(eps, sp.Rational(str(e)))
        assert sp.simplify(value - (1 - sp.exp(-sp.Rational(str(e)) / 2))) == 0
    # independently: minimize the numerically integrated worst case over β
    for e in (0.3, 1.0, 2.0):
        res = optimize.minimize_scalar(lambda b: _numeric_worst(e, b), bounds=(0, 1), method="bounded",
                                       options={"xatol": 1e-6})
        assert res.x == pytest.approx(float(best.subs(eps, sp.Rational(str(e)))), abs=2e-3)


# --- the reference sampler ----------------------------------------------------------------------


def test_reference_sampler_matches_the_derived_mean_and_variance(hybrid, derived):
    from ldpaudit.mechanism.randomizers import hybrid as sampler
    from ldpaudit.mechanism.randomizers import reference_for

    cm, _ = derived
    example = hybrid.bind_example()
    draw = reference_for(example)
    n, x = 400_000, 0.4
    z = draw(x, n, np.random.default_rng(7))
    assert z.dtype == np.float64 and z.shape == (n,)
    at = {hybrid.symbols["epsilon"]: 1, hybrid.symbols["beta"]: 1 - sp.exp(-sp.Rational(1, 2)), X: sp.Rational(2, 5)}
    var = float(cm.report_variance.subs(at))
    assert abs(z.mean() - x) < 4 * math.sqrt(var / n)
    assert z.var() == pytest.approx(var, rel=0.02)
    B = (math.e + 1) / (math.e - 1)
    atoms = np.isclose(np.abs(z), B, rtol=0, atol=1e-12)
    assert atoms.mean() == pytest.approx(math.exp(-0.5), abs=0.005)  # 1 - β of the reports are ±B
    # a planted fault (β drawn the other way round) is caught by the same atom-fraction check
    wrong = sampler(epsilon=1, beta=math.exp(-0.5))(x, n, np.random.default_rng(7))
    assert abs(np.isclose(np.abs(wrong), B, rtol=0, atol=1e-12).mean() - math.exp(-0.5)) > 0.1
