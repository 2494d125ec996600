"""Vector inputs (issue 23, item 4): Duchi et al.'s ℓ∞ mechanism and the Piecewise mechanism in d
dimensions are declared on the box [-1, 1]^d, proved ε-LDP (Duchi's for every d = 1..6, PM's for
all ε, d, k), the per-coordinate mutants and Wang et al.'s tie rule refuted with witnesses
re-checked here by brute-force enumeration, and the per-coordinate variances derived from the
channel and compared with the papers."""

import itertools
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import cli_inprocess
import sympy as sp

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism import load_spec, loads_spec
from ldpaudit.mechanism.params import X
from ldpaudit.verify import Status, tight_epsilon, verify

SPECS = Path(__file__).resolve().parent.parent / "specs"
DUCHI = SPECS / "duchi_multidim.toml"
PM = SPECS / "piecewise_multidim.toml"
EPS = sp.Symbol("epsilon", positive=True)


def variant(path: Path, **replace: str) -> str:
    """The spec's text with lines ``key = ...`` replaced."""
    lines = path.read_text().splitlines()
    for key, value in replace.items():
        hits = [i for i, line in enumerate(lines) if line.startswith(f"{key} = ")]
        assert len(hits) == 1, key
        lines[hits[0]] = f"{key} = {value}"
    return "\n".join(lines) + "\n"


# Wang et al.'s Algorithm 3: T+ = {<s, v> > 0}, T- = {<s, v> <= 0}, uniform in each
WANG_ALG3 = variant(
    DUCHI,
    half='"2**(d - 1)"\nties = "(1 + (-1)**d)/2*binomial(d, d/2)"\nup = "2**(d - 1) - ties/2"\ndown = "2**(d - 1) + ties/2"',
    entry='"keep/up if t > 0 else (1 - keep)/down"',
)


def brute_force(d: int, e: Fraction, x: tuple, s: tuple, *, rule: str = "half") -> Fraction:
    """Q(s | x) by enumerating the latent v, exactly, with e = e^ε rational (independent of the
    library): P(v | x) = prod (1 + v_j x_j)/2 and P(s | v) from the tie rule."""
    keep = e / (e + 1)
    ties = math.comb(d, d // 2) if d % 2 == 0 else 0
    total = Fraction(0)
    for v in itertools.product((-1, 1), repeat=d):
        pv = Fraction(1)
        for vj, xj in zip(v, x):
            pv *= (1 + vj * xj) / Fraction(2)
        t = sum(a * b for a, b in zip(s, v))
        if rule == "half":
            g = keep / 2 ** (d - 1) if t > 0 else ((1 - keep) / 2 ** (d - 1) if t < 0 else Fraction(1, 2**d))
        else:  # Wang et al.'s Algorithm 3
            g = keep / (2 ** (d - 1) - Fraction(ties, 2)) if t > 0 else (1 - keep) / (2 ** (d - 1) + Fraction(ties, 2))
        total += pv * g
    return total


# d = 3 and 4 are slow cases: the family's proof below covers every d = 1..6 by default
@pytest.mark.parametrize("d", [2, 5] + [pytest.param(d, marks=pytest.mark.slow) for d in (3, 4)])
def test_duchi_multidim_proved_tight_at_each_d(d):
    mech = load_spec(DUCHI).bind(d=d)
    v = verify(mech, tight=True)
    assert v.status is Status.PROVED, str(v)
    assert sp.simplify(v.tight_epsilon - mech.symbols["epsilon"]) == 0
    # just below the tight ε: refuted, with a witness that the enumeration confirms
    below = verify(mech, epsilon="epsilon*99/100")
    assert below.status is Status.REFUTED, str(below)
    w = below.witness
    e_val = sp.exp(dict(w.params)["epsilon"])
    assert e_val.is_number
    ratio = w.ratio
    assert sp.N(ratio - sp.exp(sp.Rational(99, 100) * dict(w.params)["epsilon"])) > 0


def test_duchi_multidim_family_proved_for_every_d_of_its_range():
    mech = load_spec(DUCHI)
    v = verify(mech, tight=True)
    assert v.status is Status.PROVED and v.exit_code == 0
    assert [n.split(":")[0] for n in v.notes] == [f"d = {d}" for d in range(1, 7)]
    assert sp.simplify(v.tight_epsilon - mech.symbols["epsilon"]) == 0


def test_wang_algorithm3_tie_rule_refuted_for_even_d_only():
    mech = loads_spec(WANG_ALG3)
    d2 = verify(mech.bind(d=2), tight=True)
    assert d2.status is Status.REFUTED and d2.exit_code == 1
    t = tight_epsilon(mech.bind(d=2))
    assert sp.simplify(t.value - (mech.symbols["epsilon"] + sp.log(3))) == 0
    w = d2.witness
    eps = dict(w.params)["epsilon"]
    e = Fraction(str(sp.exp(eps))) if sp.exp(eps).is_Rational else None
    if e is None:  # the witness is at a transcendental e^ε: re-check at e^ε = 3 on the same (x, x', s)
        e = Fraction(3)
    s = tuple(int(c) for c in w.y)
    num = brute_force(2, e, tuple(map(Fraction, w.x)), s, rule="wang")
    den = brute_force(2, e, tuple(map(Fraction, w.x_prime)), s, rule="wang")
    assert num / den == 3 * e  # the ratio 3 e^ε > e^ε
    assert verify(mech.bind(d=3)).status is Status.PROVED
    assert verify(mech).status is Status.REFUTED  # the family (d = 1..6) fails at d = 2


def test_vertex_table_agrees_with_brute_force():
    mech = load_spec(DUCHI).bind(d=3, epsilon=sp.log(3))
    table = mech.channel.vertex_channel(mech)
    for u, row in zip(table.inputs, table.matrix):
        for s, q in zip(table.outputs, row):
            assert sp.nsimplify(q) == sp.Rational(brute_force(3, Fraction(3), u, s)), (u, s)
    # and at an interior point, through the latent-law sum
    x = (Fraction(1, 3), Fraction(-1, 2), Fraction(1, 4))
    for s in itertools.product((-1, 1), repeat=3):
        got = sp.nsimplify(mech.channel.probability(s, tuple(sp.Rational(str(c)) for c in x)))
        assert got == sp.Rational(brute_force(3, Fraction(3), x, s))


def test_per_coordinate_mutants_refuted_at_two_epsilon():
    duchi_each = """
[mechanism]
name = "Duchi one-bit per coordinate"
claimed_epsilon = "epsilon"
[parameters.epsilon]
type = "real"
min = 0
strict_min = true
[parameters.d]
type = "integer"
min = 1
[example]
epsilon = 1
d = 2
[inputs]
dimension = "d"
low = -1
high = 1
[definitions]
B = "(exp(epsilon) + 1)/(exp(epsilon) - 1)"
[channel]
form = "coordinates"
scale = "B"
[channel.coordinate]
form = "explicit"
outputs = [-1, 1]
entry = "1/2 + y*x*(exp(epsilon) - 1)/(2*(exp(epsilon) + 1))"
"""
    mech = loads_spec(duchi_each)
    at2 = verify(mech.bind(d=2), tight=True)
    assert at2.status is Status.REFUTED
    assert sp.simplify(tight_epsilon(mech.bind(d=2)).value - 2 * mech.symbols["epsilon"]) == 0
    w = at2.witness
    assert len(w.x) == 2 and w.ratio == sp.exp(2 * dict(w.params)["epsilon"])
    assert verify(mech.bind(d=1)).status is Status.PROVED
    pm_each = loads_spec(variant(PM, e1='"epsilon"'))  # PM spending ε in each sampled coordinate
    v = verify(pm_each.bind(d=2, k=2), tight=True)
    assert v.status is Status.REFUTED
    assert sp.simplify(tight_epsilon(pm_each.bind(d=2, k=2)).value - 2 * pm_each.symbols["epsilon"]) == 0
    w = v.witness
    eps = dict(w.params)["epsilon"]
    # re-check the coordinate ratio from the one-dimensional PM density, independently
    e1 = sp.exp(eps / 2)
    C = (e1 + 1) / (e1 - 1)
    p = (sp.exp(eps) - e1) / (2 * e1 + 2)

    def f(z, x):
        lo = (C + 1) / 2 * x - (C - 1) / 2
        return p if lo <= z <= lo + C - 1 else (p / sp.exp(eps) if -C <= z <= C else 0)

    z = w.y
    ratio = (f(z, w.x[0]) / f(z, w.x_prime[0])) ** 2
    assert sp.simplify(ratio - w.ratio) == 0 and sp.N(ratio - sp.exp(eps)) > 0
    assert verify(pm_each).status is Status.REFUTED  # the family: refuted at an instance (d = k = 2)


def test_pm_multidim_proved_for_all_epsilon_d_k():
    mech = load_spec(PM)
    v = verify(mech, tight=True)
    assert v.status is Status.PROVED, str(v)
    assert sp.simplify(v.tight_epsilon - mech.symbols["epsilon"]) == 0
    t = tight_epsilon(mech)
    assert sp.simplify(t.value - mech.symbols["epsilon"]) == 0
    below = verify(mech.bind(d=3, k=2), epsilon="epsilon*9/10")
    assert below.status is Status.REFUTED


def test_pm_multidim_variance_is_wang_et_al():
    from ldpaudit.derive.vector import coordinate_moments

    mech = load_spec(PM)
    cm = coordinate_moments(mech)
    eps, d, k = (mech.symbols[n] for n in ("epsilon", "d", "k"))
    s = sp.exp(eps / (2 * k))
    one_dim = X**2 / (s - 1) + (s + 3) / (3 * (s - 1) ** 2)  # Wang et al. Lemma 1 at ε/k
    published = (d / k) * one_dim + (d / k - 1) * X**2     # Wang et al. §IV (k of d coordinates)
    assert sp.simplify(cm.mean - X) == 0
    assert sp.simplify(cm.variance - published) == 0
    assert set(cm.worst_inputs) == {-1, 1}
    assert sp.simplify(cm.worst_variance - published.subs(X, 1)) == 0


def test_duchi_multidim_variance_and_unbiasedness_by_enumeration():
    from ldpaudit.derive.vector import coordinate_moments

    mech = load_spec(DUCHI)
    cm = coordinate_moments(mech)
    assert sp.simplify(cm.mean - X) == 0
    assert [row[0] for row in cm.per_dimension] == list(range(1, 7))
    # B at d = 3 and e^ε = 3; E[B s_1 | x] = x_1 by enumeration over s
    B = Fraction(3 + 1, 3 - 1) * Fraction(2**2, math.comb(2, 1))
    x = (Fraction(1, 3), Fraction(-1, 2), Fraction(1, 4))
    mean = [sum(B * s[j] * brute_force(3, Fraction(3), x, s) for s in itertools.product((-1, 1), repeat=3))
            for j in range(3)]
    assert mean == list(x)
    bound = mech.bind(d=3, epsilon=sp.log(3))
    var = sp.nsimplify(cm.variance.xreplace({mech.symbols["d"]: 3, mech.symbols["epsilon"]: sp.log(3)}))
    assert sp.simplify(var - (sp.Rational(B) ** 2 - X**2)) == 0
    assert sp.nsimplify(bound.channel.scale) == sp.Rational(B)
    # Wang et al.'s Duchi d-dim variance B^2 - x^2 with their B for odd d
    odd = 2 ** (3 - 1) / sp.binomial(2, 1) * (sp.exp(EPS) + 1) / (sp.exp(EPS) - 1)
    at3 = cm.variance.xreplace({mech.symbols["d"]: 3, mech.symbols["epsilon"]: EPS})
    assert sp.simplify(at3 - (odd**2 - X**2)) == 0


def test_reference_samplers_match_the_derived_moments():
    from ldpaudit.mechanism.randomizers import duchi_multidim, piecewise_multidim

    rng = np.random.default_rng(7)
    x = (0.5, -0.25, 1.0)
    y = duchi_multidim(epsilon=1, d=3)(x, 200_000, rng)
    B = (math.e + 1) / (math.e - 1) * 2
    assert y.shape == (200_000, 3) and np.allclose(np.abs(y), B)
    assert np.allclose(y.mean(axis=0), x, atol=5 * B / math.sqrt(200_000))
    from ldpaudit.derive.vector import coordinate_moments

    cm = coordinate_moments(load_spec(PM).bind(epsilon=2, d=4, k=2))
    z = piecewise_multidim(epsilon=2, d=4, k=2)((0.5, -0.5, 0.0, 1.0), 200_000, rng)
    assert ((z != 0).sum(axis=1) == 2).all()
    for j, xj in enumerate((0.5, -0.5, 0.0, 1.0)):
        want = float(cm.variance.subs(X, sp.Rational(str(xj))))
        assert z[:, j].mean() == pytest.approx(xj, abs=5 * math.sqrt(want / 200_000))
        assert z[:, j].var() == pytest.approx(want, rel=0.03)


def test_auditor_flags_wang_algorithm3_at_d2():
    from ldpaudit.audit import audit

    keep = math.e / (math.e + 1)

    def wang(x, n, rng):  # d = 2: T+ = {v}, T- = the other three sign vectors
        xs = np.asarray(x, dtype=float)
        v = np.where(rng.random((n, 2)) < (1 + xs) / 2, 1, -1)
        others = np.array([[1, -1], [-1, 1], [-1, -1]])
        flip = others[rng.integers(0, 3, size=n)]  # s = v * flip is uniform over the other three
        return np.where((rng.random(n) < keep)[:, None], v, v * flip).astype(float)

    corners = [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    result = audit(wang, domain=corners, epsilon=1, samples=100_000, alpha=0.01, seed=0, batch=True)
    assert result.verdict == "VIOLATION" and result.epsilon_lower_bound > 1.5


@pytest.mark.parametrize("inputs, message", [
    ('dimension = "d"\nlow = -1', "inputs.high is missing; vector inputs need both bounds"),
    ('dimension = 0\nlow = -1\nhigh = 1', "inputs.dimension = 0 must be a whole number >= 1"),
    ('dimension = "d"\nlow = -1\nhigh = 1\nsize = 3', "inputs.size with inputs.dimension"),
])
def test_bad_vector_inputs_are_one_line_errors(inputs, message, tmp_path):
    text = DUCHI.read_text().replace('dimension = "d"\nlow = -1\nhigh = 1', inputs)
    with pytest.raises(InvalidSpec, match=message):
        loads_spec(text)
    path = tmp_path / "bad.toml"
    path.write_text(text)
    out = cli_inprocess.run("verify", str(path))
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and message.split(";")[0] in out.stderr


def test_bad_vector_channels_are_refused():
    with pytest.raises(InvalidSpec, match=r"sums to 2\*exp\(epsilon\)/\(exp\(epsilon\) \+ 1\) over the 2\^1 sign vectors at d = 1; P\(s \| v\) must "
                       r"sum to 1 \(it is 2\*exp\(1/3\)/\(1 \+ exp\(1/3\)\) at epsilon=1/3\)$"):
        loads_spec(variant(DUCHI, entry='"keep/half"'))
    with pytest.raises(InvalidSpec, match="channel.latent .* not 1"):
        loads_spec(variant(DUCHI, latent='"(1 + v*x)/3"'))
    with pytest.raises(InvalidSpec, match="channel.sampled = 5 .* exceeds inputs.dimension = 4"):
        loads_spec(variant(PM, sampled='5', dimension='4').replace('max = "d"', 'max = 4'))
    with pytest.raises(InvalidSpec, match='channel.form = .coordinates. with scalar inputs'):
        loads_spec(PM.read_text().replace('dimension = "d"\n', ""))
    with pytest.raises(InvalidSpec, match='vector inputs .* are reported by form "signs" or "coordinates"'):
        loads_spec(variant(DUCHI, form='"density"'))


def test_unbounded_dimension_is_unknown_not_proved():
    text = DUCHI.read_text().replace("min = 1\nmax = 6", "min = 1")
    mech = loads_spec(text)
    v = verify(mech)
    assert v.status is Status.UNKNOWN and v.exit_code == 3 and "bind it (-p d=3)" in v.reason
    assert verify(mech.bind(d=4)).status is Status.PROVED


HM = SPECS / "hybrid_multidim.toml"


def test_hm_multidim_proved_for_every_weight_and_its_variance_is_the_papers():
    from ldpaudit.derive.vector import coordinate_moments

    mech = load_spec(HM)
    v = verify(mech, tight=True)
    assert v.status is Status.PROVED and sp.simplify(v.tight_epsilon - mech.symbols["epsilon"]) == 0
    eps, d, k, beta = (mech.symbols[n] for n in ("epsilon", "d", "k", "beta"))
    s = sp.exp(eps / (2 * k))
    B = (sp.exp(eps / k) + 1) / (sp.exp(eps / k) - 1)
    pm_second = X**2 / (s - 1) + (s + 3) / (3 * (s - 1) ** 2) + X**2  # Wang et al. Lemma 1, plus x²
    hm_second = beta * pm_second + (1 - beta) * B**2                  # Duchi's ±B: E[z²] = B²
    cm = coordinate_moments(mech)
    assert sp.simplify(cm.mean - X) == 0
    assert sp.simplify(cm.variance - ((d / k) * hm_second - X**2)) == 0
    each = loads_spec(variant(HM, e1='"epsilon"'))  # every coordinate at ε
    refuted = verify(each.bind(d=2, k=2))
    assert refuted.status is Status.REFUTED
    assert sp.simplify(tight_epsilon(each.bind(d=2, k=2)).value - 2 * each.symbols["epsilon"]) == 0


def test_hm_multidim_sampler_matches_the_derived_variance():
    from ldpaudit.derive.vector import coordinate_moments
    from ldpaudit.mechanism.randomizers import hybrid_multidim

    cm = coordinate_moments(load_spec(HM).bind(epsilon=2, d=3, k=2, beta=sp.Rational(1, 2)))
    x = (0.5, -1.0, 0.0)
    z = hybrid_multidim(epsilon=2, d=3, k=2, beta="1/2")(x, 200_000, np.random.default_rng(3))
    assert z.shape == (200_000, 3) and ((z != 0).sum(axis=1) <= 2).all()
    for j, xj in enumerate(x):
        want = float(cm.variance.subs(X, sp.Rational(str(xj))))
        assert z[:, j].mean() == pytest.approx(xj, abs=5 * math.sqrt(want / 200_000))
        assert z[:, j].var() == pytest.approx(want, rel=0.03)
