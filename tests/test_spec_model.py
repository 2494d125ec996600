"""The mechanism model: row-stochasticity, binding, and materialization checked against
channels built independently here by brute force from the reference formulas."""

import itertools

import pytest
import sympy as sp

from ldpaudit.errors import InvalidParameter, InvalidSpec, NotMaterializable
from ldpaudit.mechanism import CATALOG, load_spec
from ldpaudit.mechanism.catalog import k_rappor, k_rr, k_subset, laplace_mean, o_rr, oue, rr_bit, wrr
from ldpaudit.mechanism.model import ExplicitChannel, FiniteDomain, Mechanism, Parameter, is_zero

E = sp.Integer(1)  # epsilon used for numeric instances below
T = sp.exp(E)
S = sp.exp(E / 2)


def brute_krr(d):
    return {(x, y): (T if x == y else 1) / (T + d - 1) for x in range(d) for y in range(d)}


def brute_unary(d, on1, off1):
    out = {}
    for x in range(d):
        for y in itertools.product((0, 1), repeat=d):
            prob = sp.Integer(1)
            for j, bit in enumerate(y):
                p1 = on1 if j == x else off1
                prob *= p1 if bit else 1 - p1
            out[(x, y)] = prob
    return out


def brute_ksubset(d, k):
    Z = sp.binomial(d - 1, k - 1) * T + sp.binomial(d - 1, k)
    return {(x, y): (T if x in y else 1) / Z for x in range(d) for y in itertools.combinations(range(d), k)}


def brute_orr(table, k):
    C = len(table)
    return {
        (x, (c, v)): (1 + (T - 1) * (1 if table[c][x] == v else 0)) / (C * (T + k - 1))
        for x in range(len(table[0]))
        for c in range(C)
        for v in range(k)
    }


def brute_rr_bit(bits, j):
    return {(x, y): (T if ((x >> j) & 1) == y else 1) / (T + 1) for x in range(2**bits) for y in (0, 1)}


def as_dict(channel: ExplicitChannel):
    return {(x, y): e for x, row in zip(channel.inputs, channel.matrix) for y, e in zip(channel.outputs, row)}


def assert_same(channel, expected):
    got = as_dict(channel)
    assert set(got) == set(expected)
    for key, value in expected.items():
        assert sp.simplify(got[key] - value) == 0, (key, got[key], value)


@pytest.mark.parametrize("d", [2, 3, 5])
def test_krr_materializes_to_brute_force(d):
    assert_same(k_rr(d=d, epsilon=E).materialize(), brute_krr(d))


@pytest.mark.parametrize("d", [2, 3, 4])
def test_krappor_and_oue_materialize_to_brute_force(d):
    assert_same(k_rappor(d=d, epsilon=E).materialize(), brute_unary(d, S / (1 + S), 1 / (1 + S)))
    assert_same(oue(d=d, epsilon=E).materialize(), brute_unary(d, sp.Rational(1, 2), 1 / (T + 1)))


@pytest.mark.parametrize("d,k", [(2, 1), (4, 2), (5, 3), (6, 1), (6, 5)])
def test_ksubset_materializes_to_brute_force(d, k):
    assert_same(k_subset(d=d, k=k, epsilon=E).materialize(), brute_ksubset(d, k))


def test_ksubset_with_k_1_is_krr():
    a = as_dict(k_subset(d=4, k=1, epsilon=E).materialize())
    b = brute_krr(4)
    assert all(sp.simplify(a[(x, (y,))] - b[(x, y)]) == 0 for x, y in b)


def test_orr_and_rr_bit_materialize_to_brute_force():
    table = ((0, 1, 2, 0, 1, 2), (1, 2, 0, 2, 0, 1), (2, 2, 1, 0, 0, 1))
    assert_same(o_rr(epsilon=E).materialize(), brute_orr(table, 3))
    assert_same(rr_bit(bits=3, j=1, epsilon=E).materialize(), brute_rr_bit(3, 1))
    assert_same(rr_bit(bits=2, j=0, epsilon=E).materialize(), brute_rr_bit(2, 0))


def test_wrr_is_binary_krr():
    assert_same(wrr(epsilon=E).materialize(), brute_krr(2))


@pytest.mark.parametrize("stem", sorted(CATALOG))
def test_every_catalog_channel_is_row_stochastic_symbolically(stem):
    mech = CATALOG[stem]()
    assert mech.parameters, "catalog families are symbolic"
    ch = mech.channel
    if ch.form == "structured":
        total = sp.Add(*(c.count * c.weight for c in ch.classes))
        assert sp.simplify(total - 1) == 0
        assert sp.simplify(sp.gammasimp(sp.Add(*(c.count for c in ch.classes)) - ch.outputs.count())) == 0
    elif ch.form == "product" and not ch.continuous:
        for law in (ch.on, ch.off):
            assert sp.simplify(sp.Add(*(p for _, p in law.probabilities)) - 1) == 0
    elif ch.form == "explicit":
        for row in ch.matrix:
            assert sp.simplify(sp.Add(*row) - 1) == 0
    else:
        densities = [ch.density] if ch.form == "density" else [ch.on.density, ch.off.density]
        z = sp.Symbol("z", real=True)
        for f in densities:
            f = f.subs(sp.Symbol("x", real=True), 0)
            assert sp.simplify(sp.integrate(f, (z, -sp.oo, sp.oo)) - 1) == 0


@pytest.mark.parametrize("stem", sorted(CATALOG))
def test_spec_file_declares_the_same_mechanism_as_the_constructor(stem):
    from_file = load_spec(f"specs/{stem}.toml")
    built = CATALOG[stem]()
    assert from_file.name == built.name
    assert from_file.parameter_names == built.parameter_names
    assert from_file.example == built.example
    assert sp.simplify(from_file.claimed_epsilon - built.claimed_epsilon) == 0
    a, b = from_file.bind_example(), built.bind_example()
    try:
        ma, mb = a.materialize(), b.materialize()
    except NotMaterializable:
        ea, eb = a.channel.expressions(), b.channel.expressions()
        assert len(ea) == len(eb) and all(sp.simplify(p - q) == 0 for p, q in zip(ea, eb))
        return
    assert ma.inputs == mb.inputs and ma.outputs == mb.outputs
    assert all(sp.simplify(p - q) == 0 for r, s in zip(ma.matrix, mb.matrix) for p, q in zip(r, s))


def test_bind_checks_ranges_and_exactness():
    with pytest.raises(InvalidParameter, match=r"k = 5 of k-subset is out of range: need k <= d - 1 = 4"):
        k_subset(d=5, k=5)
    with pytest.raises(InvalidParameter, match=r"d = 1 of k-RR is out of range: need d >= 2"):
        k_rr(d=1)
    with pytest.raises(InvalidParameter, match=r"epsilon = 0 .* need epsilon > 0"):
        k_rr(epsilon=0)
    with pytest.raises(InvalidParameter, match=r"epsilon = 0.5 is a float, which is inexact"):
        k_rr(epsilon=0.5)
    with pytest.raises(InvalidParameter, match=r"d = 5/2 of k-RR must be an integer"):
        k_rr(d=sp.Rational(5, 2))
    with pytest.raises(InvalidParameter, match=r"unknown parameter 'dd'"):
        k_rr().bind(dd=3)
    # bound in two steps, the dependent range is still enforced
    with pytest.raises(InvalidParameter, match=r"k = 4 of k-subset is out of range: need k <= 3"):
        k_subset().bind(d=4).bind(k=4)
    mech = k_rr().bind({"epsilon": "log(3)"})
    assert mech.claimed_epsilon == sp.log(3) and mech.parameter_names == ("d",)
    assert dict(mech.bindings) == {"epsilon": sp.log(3)}


def test_structured_channels_need_no_enumeration_at_huge_d():
    big = k_rr(d=10**6, epsilon=1)
    assert big.channel.classes[1].count == 10**6 - 1
    with pytest.raises(NotMaterializable, match="more than the limit"):
        big.materialize()
    ks = k_subset(d=1000, k=269, epsilon=1)
    assert ks.channel.outputs.count() == sp.binomial(1000, 269)
    with pytest.raises(NotMaterializable, match="symbolic sizes; bind d"):
        k_rr().materialize()
    with pytest.raises(NotMaterializable, match="continuous output"):
        laplace_mean(M=1, epsilon=1).materialize()


def _explicit(rows, name="m"):
    eps = Parameter("epsilon", "real", sp.Integer(0), lower_strict=True)
    return Mechanism(name, (eps,), FiniteDomain(sp.Integer(len(rows))), ExplicitChannel(
        tuple(range(len(rows))), tuple(range(len(rows[0]))), tuple(tuple(sp.sympify(e) for e in r) for r in rows)), eps.symbol)


def test_validation_of_python_built_mechanisms():
    half = sp.Rational(1, 2)
    _explicit([[half, half], [half, half]])
    with pytest.raises(InvalidSpec, match=r"row x=1 of channel 'm' sums to 9/10; each row must sum to 1"):
        _explicit([[half, half], [sp.Rational(2, 5), half]])
    with pytest.raises(InvalidSpec, match=r"entry Q\(y=0\|x=0\) of 'm' = -1/2 is negative"):
        _explicit([[-half, sp.Rational(3, 2)], [half, half]])
    with pytest.raises(InvalidSpec, match="not finite"):
        _explicit([[sp.oo, 0], [half, half]])
    w = sp.Symbol("w")
    with pytest.raises(InvalidSpec, match=r"unknown symbol 'w' in channel of 'm'; declared parameters are epsilon"):
        _explicit([[w, 1 - w], [half, half]])


def test_is_zero_is_three_valued():
    assert is_zero(sp.Rational(1, 3) - sp.Rational(2, 6)) is True
    assert is_zero(sp.Rational(1, 3)) is False
    d = sp.Symbol("d", integer=True, positive=True)
    k = sp.Symbol("k", integer=True, positive=True)
    assert is_zero(sp.binomial(d - 1, k - 1) + sp.binomial(d - 1, k) - sp.binomial(d, k)) is True


def test_materialized_channel_is_a_numpy_array():
    import numpy as np

    from ldpaudit.errors import NotMaterializable
    from ldpaudit.mechanism.catalog import k_rr

    channel = k_rr(d=3, epsilon="log(2)").materialize()
    assert np.asarray(channel).tolist() == [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]]
    assert np.asarray(channel, dtype=np.float32).dtype == np.float32
    assert channel.matrix[0][0] == sp.Rational(1, 2)  # exact entries stay exact
    with pytest.raises(NotMaterializable, match=r"free parameters \(epsilon\); bind them first"):
        np.asarray(k_rr(d=3).materialize())


def test_the_model_facade_re_exports_the_defining_modules():
    """``ldpaudit.mechanism.model`` is a re-export for users; the package imports the modules that
    define each name (so a monkeypatch of, say, ``core._validate`` hits the code that runs)."""
    import ast
    import importlib
    from pathlib import Path

    from ldpaudit.mechanism import model

    for name in model.__all__:
        obj = getattr(model, name)
        home = getattr(obj, "__module__", None)
        if home is not None and home.startswith("ldpaudit.mechanism."):
            assert home != "ldpaudit.mechanism.model" and getattr(importlib.import_module(home), name) is obj
    package = Path(model.__file__).parents[1]
    for path in package.rglob("*.py"):
        if path.name == "model.py" and path.parent.name == "mechanism":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = {node.module} | {f"{node.module}.{a.name}" for a in node.names}
                assert "ldpaudit.mechanism.model" not in names, f"{path} imports the facade"
