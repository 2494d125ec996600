"""Piecewise densities (issue 23, items 1-3): the Piecewise mechanism and Square Wave written as one
density expression load, are proved ε-LDP with tight ε* = ε, mutants are refuted with witnesses
re-checked here independently, wrong masses are refused naming the value, and the moments are
derived from the density (PM's Var[z|x] equals Wang et al.'s Lemma 1)."""

from pathlib import Path

import pytest
import sympy as sp

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism import load_spec, loads_spec
from ldpaudit.mechanism.model import X, Z
from ldpaudit.verify import Status, tight_epsilon, verify

SPECS = Path(__file__).resolve().parent.parent / "specs"

HEADER = """
[mechanism]
name = "{name}"
claimed_epsilon = "epsilon"

[parameters.epsilon]
type = "real"
min = 0
strict_min = true
{extra_params}
[example]
epsilon = 1
{extra_example}
[inputs]
low = {low}
high = {high}
"""


def spec(density: str, *, name="m", low=-1, high=1, definitions: dict | None = None, extra_params="",
         extra_example="") -> str:
    text = HEADER.format(name=name, low=low, high=high, extra_params=extra_params, extra_example=extra_example)
    if definitions:
        text += "\n[definitions]\n" + "".join(f'{k} = "{v}"\n' for k, v in definitions.items())
    return text + f'\n[channel]\nform = "density"\ndensity = "{density}"\n'


PM_DEFS = {
    "C": "(exp(epsilon/2) + 1)/(exp(epsilon/2) - 1)",
    "p": "(exp(epsilon) - exp(epsilon/2))/(2*exp(epsilon/2) + 2)",
    "l": "(C + 1)/2*x - (C - 1)/2",
    "r": "l + C - 1",
}
# the mutant of the issue: C computed from e^ε instead of e^(ε/2); the height outside the band is
# what makes the total mass 1 (as an implementer normalizing by hand would write it)
PM_MUTANT_DEFS = dict(PM_DEFS, C="(exp(epsilon) + 1)/(exp(epsilon) - 1)")
PM_MUTANT = "p if l <= z <= r else ((1 - p*(C - 1))/(C + 1) if -C <= z <= C else 0)"
# Square Wave with the window's half-width doubled (2b), the window height still computed for b,
# the rest of the mass spread outside it; b small enough for that rest to be positive
SW_MUTANT = ("exp(epsilon)/(2*b*exp(epsilon) + 1) if abs(z - x) <= 2*b else "
             "((1 - 4*b*exp(epsilon)/(2*b*exp(epsilon) + 1)) if -2*b <= z <= 1 + 2*b else 0)")
B_PARAM = '\n[parameters.b]\ntype = "real"\nmin = 0\nstrict_min = true\nmax = "exp(-epsilon)/4"\n'


def density_at(mech, x, z, params) -> sp.Basic:
    """f(z|x) by sympy's own Piecewise evaluation (independent of ldpaudit's cell machinery)."""
    expr = mech.channel.density.subs({mech.symbols[k]: v for k, v in params.items()})
    return sp.piecewise_fold(expr.subs({X: x, Z: z}))


def assert_witness_exceeds(mech, verdict):
    w = verdict.witness
    assert w is not None and w.kind == "f"
    params = dict(w.params)
    num, den = density_at(mech, w.x, w.y, params), density_at(mech, w.x_prime, w.y, params)
    claim = sp.sympify(verdict.claim).subs({mech.symbols[k]: v for k, v in params.items()})
    assert num.is_number and den.is_number
    assert sp.N(num - sp.exp(claim) * den, 50) > 0, (w, num, den)
    for xv in (w.x, w.x_prime):
        assert mech.inputs.low <= xv <= mech.inputs.high


@pytest.fixture(scope="module")
def pm():
    return load_spec(SPECS / "piecewise.toml")


@pytest.fixture(scope="module")
def sw():
    return load_spec(SPECS / "square_wave.toml")


def test_pm_and_sw_load_from_one_density_expression_checked_at_exact_points(pm, sw):
    for mech in (pm, sw):
        assert any("integrates to 1 and is non-negative at" in n for n in mech.notes), mech.notes
        assert not any("proved" in n and "verify" not in n for n in mech.notes)


def test_pm_proved_with_tight_epsilon_for_all_epsilon(pm):
    verdict = verify(pm)
    assert verdict.status is Status.PROVED
    eps = pm.symbols["epsilon"]
    assert verdict.tight_epsilon == eps
    assert any("proved for every x and parameter value" in n for n in verdict.notes)
    tight = tight_epsilon(pm)
    assert tight.value == eps and tight.proof.status is Status.PROVED
    w = tight.witness
    ratio = density_at(pm, w.x, w.y, dict(w.params)) / density_at(pm, w.x_prime, w.y, dict(w.params))
    assert sp.simplify(ratio - sp.exp(dict(w.params)["epsilon"])) == 0


def test_sw_proved_with_tight_epsilon_for_all_epsilon_and_b(sw):
    verdict = verify(sw)
    assert verdict.status is Status.PROVED
    assert verdict.tight_epsilon == sw.symbols["epsilon"]
    assert "0 < b" in verdict.scope and "0 < epsilon" in verdict.scope


@pytest.mark.parametrize("name", ["piecewise.toml", "square_wave.toml"])
def test_just_below_the_tight_epsilon_is_refuted(name):
    mech = load_spec(SPECS / name)
    verdict = verify(mech, epsilon="epsilon*999/1000")
    assert verdict.status is Status.REFUTED
    assert_witness_exceeds(mech, verdict)


def test_pm_mutant_with_c_from_e_to_the_epsilon_is_refuted():
    mech = loads_spec(spec(PM_MUTANT, name="PM mutant", definitions=PM_MUTANT_DEFS))
    verdict = verify(mech)
    assert verdict.status is Status.REFUTED
    assert_witness_exceeds(mech, verdict)


def test_sw_mutant_with_doubled_window_is_refuted():
    mech = loads_spec(spec(SW_MUTANT, name="SW mutant", low=0, high=1, extra_params=B_PARAM,
                           extra_example='b = "1/20"'))
    verdict = verify(mech)
    assert verdict.status is Status.REFUTED
    assert_witness_exceeds(mech, verdict)


@pytest.mark.parametrize("density, message", [
    ("3/4 if x - 1 <= z <= x + 1 else 0", r"integrates to 3/2 over z at .*x = -1"),
    ("p if l <= z <= r else (2*p/exp(epsilon) if -C <= z <= C else 0)", r"integrates to .* ≈ 1\.\d+ over z"),
    ("p if r <= z <= l else (p/exp(epsilon) if -C <= z <= C else 0)", r"integrates to .* ≈ 0\.\d+ over z"),
    ("3/2 if -1 <= z <= 0 else (-1/2 if 0 < z <= 1 else 0)",
     r"is -1/2 < 0 at z = 1/2"),
])
def test_wrong_densities_are_refused_naming_the_value(density, message):
    with pytest.raises(InvalidSpec, match=message):
        loads_spec(spec(density, definitions=PM_DEFS if "p" in density.split() or "C" in density else None))


def test_a_condition_that_is_not_linear_in_z_is_never_proved():
    mech = loads_spec(spec("1/2 if z**2 <= 1 else 0"))
    assert any("not checked" in n and "not linear in z" in n for n in mech.notes)
    assert verify(mech).status is Status.UNKNOWN


def test_definitions_are_parsed_not_evaluated():
    with pytest.raises(InvalidSpec, match=r"definitions\.C"):
        loads_spec(spec("p", definitions={"C": "__import__('os').getcwd()", "p": "1/2"}))
    with pytest.raises(InvalidSpec, match=r"definitions\.epsilon: the name is taken"):
        loads_spec(spec("1/2 if -1 <= z <= 1 else 0", definitions={"epsilon": "1"}))


def test_pm_variance_derived_equals_wang_et_al(pm):
    from ldpaudit.derive.piecewise import piecewise_moments

    m = piecewise_moments(pm)
    s = sp.exp(pm.symbols["epsilon"] / 2)
    x = X
    assert sp.simplify(m.mean - x) == 0
    assert sp.simplify(m.variance - (x**2 / (s - 1) + (s + 3) / (3 * (s - 1) ** 2))) == 0
    assert sp.simplify(m.worst_variance - 4 * s / (3 * (s - 1) ** 2)) == 0
    assert m.bias == 0


def test_sw_report_map_is_unbiased_and_its_variance_matches_a_direct_integral(sw):
    from ldpaudit.derive.piecewise import piecewise_moments

    m = piecewise_moments(sw)
    assert m.bias == 0
    # brute force at exact numbers: integrate the report's square against the density directly
    eps, b, x0 = sp.Integer(1), sp.Rational(1, 4), sp.Rational(1, 3)
    p, q = sp.exp(eps) / (2 * b * sp.exp(eps) + 1), 1 / (2 * b * sp.exp(eps) + 1)
    g = m.report.subs({sw.symbols["epsilon"]: eps, sw.symbols["b"]: b})
    z = Z
    e1 = sp.integrate(g * q, (z, -b, x0 - b)) + sp.integrate(g * p, (z, x0 - b, x0 + b)) + sp.integrate(g * q, (z, x0 + b, 1 + b))
    e2 = sp.integrate(g**2 * q, (z, -b, x0 - b)) + sp.integrate(g**2 * p, (z, x0 - b, x0 + b)) + sp.integrate(g**2 * q, (z, x0 + b, 1 + b))
    assert sp.simplify(e1 - x0) == 0
    derived = m.report_variance.subs({sw.symbols["epsilon"]: eps, sw.symbols["b"]: b, X: x0})
    assert sp.simplify(e2 - e1**2 - derived) == 0


@pytest.mark.parametrize("name, params, x0", [
    ("piecewise.toml", {"epsilon": 1}, sp.Rational(3, 10)),
    ("square_wave.toml", {"epsilon": 1, "b": sp.Rational(1, 4)}, sp.Rational(2, 3)),
])
def test_reference_sampler_has_the_derived_mean_and_variance(name, params, x0):
    import numpy as np

    from ldpaudit.derive.piecewise import piecewise_moments
    from ldpaudit.mechanism.randomizers import reference_for

    family = load_spec(SPECS / name)
    m = piecewise_moments(family)
    subs = {family.symbols[k]: v for k, v in params.items()}
    mean = float(m.mean.subs(subs).subs(X, x0))
    var = float(m.variance.subs(subs).subs(X, x0))
    n = 400_000
    z = reference_for(family.bind(params))(float(x0), n, np.random.default_rng(7))
    assert abs(z.mean() - mean) < 5 * (var / n) ** 0.5
    # the sample variance's sd is about var*sqrt(2/n) (kurtosis of a bounded law is small)
    assert abs(z.var() - var) < 5 * var * (2 / n) ** 0.5 * 2
    assert np.isfinite(z).all()
