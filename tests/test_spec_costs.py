"""A fast first contact (issue 31, item 6): the shortcuts that make loading and verifying the
bundled specs cheap give exactly what the slow paths gave.

* :func:`simplified_inequality` is sympy's ``simplify`` of a linear inequality, and
  :func:`simplify_cnf` sympy's ``simplify_logic(c, form="cnf")`` (differential tests on random
  linear relations);
* the density flattening with them gives the same branches and breakpoints (their order is in
  every certificate) as sympy's own ``piecewise_fold``;
* :func:`rational_function_is_zero` decides as ``cancel(together(e)) == 0``, and a mass summed
  cell by cell as the integral's zero test.

Costs are measured by ``benchmarks/bench_spec_costs.py`` (CPU seconds, never asserted here);
what is asserted is the work that must not come back: loading Square Wave does not run
sympy's generic ``simplify`` (which imports ``sympy.physics.units``).
"""

from __future__ import annotations

import functools
import itertools
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp
from sympy.logic.boolalg import ITE, simplify_logic

from ldpaudit.mechanism import load_spec
from ldpaudit.mechanism.expr import piecewise_fold, simplified_inequality, simplify_cnf
from ldpaudit.mechanism.params import Z
from ldpaudit.mechanism.vector import coordinate_mechanism
from ldpaudit.mechanism.piecewise import (
    PiecewiseDensity, _cells_sum_to_one, _exps_as_powers, is_piecewise_in, rational_function_is_zero,
)

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"

X_, Z_ = sp.symbols("x z", real=True)
B, EPS = sp.symbols("b epsilon", positive=True)
D = sp.Symbol("d", integer=True, positive=True)
SYMBOLS = [X_, Z_, B, EPS, D]
COEFFICIENTS = [0, 0, 1, -1, 2, -2, sp.Rational(1, 2), sp.Rational(-3, 2), 3, sp.Rational(5, 7)]
CONSTANTS = [0, 1, -1, sp.Rational(1, 2), sp.Rational(-3, 2), 2]
INEQUALITIES = [sp.Lt, sp.Le, sp.Gt, sp.Ge]


def _linear(rng: random.Random) -> sp.Basic:
    chosen = rng.sample(SYMBOLS, rng.randint(1, 3))
    return sum(rng.choice(COEFFICIENTS) * s for s in chosen) + rng.choice(CONSTANTS)


def _relations(seed: int, n: int) -> list[sp.Basic]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        rel = rng.choice(INEQUALITIES)(_linear(rng), _linear(rng))
        if isinstance(rel, sp.core.relational.Relational):
            out.append(rel)
    return out


# the default suite compares 30 relations (sympy's simplify is the slow side, ~30 ms each); the
# slow case 150
@pytest.mark.parametrize(("seed", "n"), [(0, 30), pytest.param(1, 150, marks=pytest.mark.slow)])
def test_a_linear_inequality_simplifies_as_sympy_simplifies_it(seed, n):
    decided = 0
    for rel in _relations(seed, n):
        fast = simplified_inequality(rel)
        if fast is None:  # a relation whose sides cancel to a number: sympy's own path
            assert not (rel.lhs - rel.rhs).free_symbols
            continue
        decided += 1
        assert fast == sp.simplify(rel), rel
    assert decided > n * 2 // 3


@pytest.mark.parametrize("rel", [
    sp.Eq(X_, Z_),                 # not an inequality
    X_**2 <= Z_,                   # not linear
    X_ * B <= Z_,                  # a product of symbols
    sp.Symbol("u") <= Z_,          # a symbol not known to be real
    X_ <= sp.exp(B) * Z_,          # a coefficient that is not rational
])
def test_other_relations_are_left_to_sympy(rel):
    assert simplified_inequality(rel) is None


@pytest.mark.parametrize(("seed", "n"), [(0, 30), pytest.param(1, 90, marks=pytest.mark.slow)])
def test_an_if_then_else_condition_simplifies_as_simplify_logic_does(seed, n):
    rels = _relations(100 + seed, n)
    compared = 0
    for a, b, c in zip(rels[0::3], rels[1::3], rels[2::3]):
        cond = ITE(a, b, c)
        if not isinstance(cond, ITE):
            continue
        compared += 1
        assert simplify_cnf(cond.to_nnf()) == simplify_logic(cond.to_nnf(), form="cnf"), cond
    assert compared > n // 5


def test_a_condition_with_a_nonlinear_relation_is_simplified_by_sympy():
    cond = ITE(X_ - Z_ >= 0, X_**2 <= B, Z_ >= B).to_nnf()
    assert simplify_cnf(cond) == simplify_logic(cond, form="cnf")


@functools.lru_cache(maxsize=None)
def _densities(path):
    """Every density in z of a bundled spec, of the family and of its example.

    Computed when a test asks (not at collection, which every xdist worker repeats)."""
    family = load_spec(path)
    found = []
    for mech in [family] + ([family.bind_example()] if family.example else []):
        for e in mech.channel.expressions():
            e = sp.sympify(e)
            if is_piecewise_in(e, Z):
                found.append((f"{path.stem}{'-example' if mech.bindings else ''}", e))
    return tuple(found)


SPEC_PATHS = sorted(SPECS.glob("*.toml"))


def test_the_bundled_piecewise_densities_are_found():
    stems = ("square_wave", "piecewise", "hybrid")
    names = {name for stem in stems for name, _ in _densities(SPECS / f"{stem}.toml")}
    assert {"square_wave", "square_wave-example", "piecewise", "hybrid-example"} <= names


@pytest.mark.parametrize("path", SPEC_PATHS, ids=[p.stem for p in SPEC_PATHS])
def test_flattening_gives_sympys_fold_exactly(path):
    """The breakpoints' order and the branch conditions are printed in every certificate."""
    for name, density in _densities(path):
        pd = PiecewiseDensity.__new__(PiecewiseDensity)
        pd.z, pd.where, pd.breakpoints, pd._atoms = Z, "channel.density", [], {}
        unfolded = pd._unfold(sp.sympify(density))
        assert piecewise_fold(unfolded, guarded=False) == sp.piecewise_fold(unfolded), name


def test_masses_are_decided_as_cancel_decides_them():
    path = SPECS / "piecewise.toml"
    family = load_spec(path)
    for mech in (family, family.bind_example()):
        pd = PiecewiseDensity(mech.channel.density, Z)
        answers = []
        for order in itertools.permutations(range(len(pd.breakpoints))):
            d = sp.sympify(pd.integral(order) - 1)
            answers.append(rational_function_is_zero(d))
            assert answers[-1] == (sp.cancel(sp.together(d)) == 0), order
        assert any(answers) and not all(answers)


@pytest.mark.parametrize("name", ["piecewise", "square_wave", "piecewise_multidim"])
def test_a_mass_summed_cell_by_cell_is_decided_as_the_integral_is(name):
    """Where the sum over cells decides, it says what the integral's zero test says (e and
    e^(1/2), or e^(ε/(2k)) and e^(ε/k), as powers of one variable)."""
    family = load_spec(SPECS / f"{name}.toml")
    decided = 0
    for mech in (family, family.bind_example()):
        if mech.channel.form == "coordinates":
            mech = coordinate_mechanism(mech)
        pd = PiecewiseDensity(mech.channel.density, Z)
        for order in itertools.permutations(range(len(pd.breakpoints))):
            cells = [(v, lo, hi) for v, (lo, hi) in zip(pd.cell_values(order), pd.cell_ends(order)) if v != 0]
            fast = _cells_sum_to_one(cells, Z)
            if fast is None:
                continue
            decided += 1
            d = pd.integral(order) - 1
            assert fast == rational_function_is_zero(_exps_as_powers(d)), order
    assert decided > 10


def test_numbers_are_decided_too():
    e = sp.exp(sp.Rational(1, 2))
    assert rational_function_is_zero(e**2 - sp.E) is (sp.cancel(sp.together(e**2 - sp.E)) == 0)
    assert rational_function_is_zero(sp.Integer(0)) and not rational_function_is_zero(sp.Integer(3))


def test_loading_square_wave_needs_no_generic_simplify():
    """sympy's simplify imports sympy.physics.units (0.15-0.3 s of CPU) on its first call."""
    code = ("import sys, sympy; from ldpaudit.mechanism import load_spec; load_spec(sys.argv[1]); "
            "print('sympy.physics.units' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(SPECS / "square_wave.toml")], capture_output=True, text=True,
                         env=dict(os.environ, LDPAUDIT_CACHE_DIR="off"), check=True)
    assert out.stdout.strip() == "False"
