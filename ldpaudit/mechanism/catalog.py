"""The catalog: every mechanism of the seed papers as a Python constructor.

Each constructor returns the symbolic family, bound to whatever parameters are given:
``k_rr()`` is k-RR for all d and ε, ``k_rr(d=8, epsilon=1)`` one numeric instance.
The bundled spec files in ``specs/`` declare the same mechanisms; the tests check that
the two declarations agree.
"""

from __future__ import annotations

import sympy as sp

from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.explicit import ExplicitChannel
from ldpaudit.mechanism.params import X, Z, Parameter
from ldpaudit.mechanism.product import CoordinateLaw, ProductChannel
from ldpaudit.mechanism.spaces import CohortSpace, ElementSpace, FiniteDomain, IntervalDomain, SubsetSpace
from ldpaudit.mechanism.structured import OutputClass, StructuredChannel

_EPS = Parameter("epsilon", "real", sp.Integer(0), lower_strict=True, description="privacy budget")
EPSILON = _EPS.symbol


def _size(name: str, lower: int = 2, description: str = "input domain size") -> Parameter:
    return Parameter(name, "integer", sp.Integer(lower), description=description)


def _bind(mech: Mechanism, **values) -> Mechanism:
    return mech.bind({k: v for k, v in values.items() if v is not None})


def _rr_classes(d, hit: str, miss: str, weight_scale=1):
    t = sp.exp(EPSILON)
    return (
        OutputClass("truth", hit, sp.Integer(1), t / (t + d - 1) / weight_scale),
        OutputClass("other", miss, d - 1, 1 / (t + d - 1) / weight_scale),
    )


def wrr(*, epsilon=None) -> Mechanism:
    """Warner's randomized response on a binary input."""
    t = sp.exp(EPSILON)
    keep, flip = t / (t + 1), 1 / (t + 1)
    channel = ExplicitChannel((0, 1), (0, 1), ((keep, flip), (flip, keep)))
    mech = Mechanism("W-RR", (_EPS,), FiniteDomain(sp.Integer(2), (0, 1)), channel, EPSILON,
                     example=(("epsilon", sp.log(3)),))
    return _bind(mech, epsilon=epsilon)


def k_rr(*, d=None, epsilon=None) -> Mechanism:
    """k-ary randomized response (k-RR / GRR / MRR)."""
    pd = _size("d")
    D = pd.symbol
    channel = StructuredChannel(ElementSpace(D), _rr_classes(D, "y == x", "y != x"))
    mech = Mechanism("k-RR", (pd, _EPS), FiniteDomain(D), channel, EPSILON,
                     example=(("d", sp.Integer(8)), ("epsilon", sp.Integer(1))))
    return _bind(mech, d=d, epsilon=epsilon)


def _bernoulli(p_one) -> CoordinateLaw:
    return CoordinateLaw(probabilities=((0, 1 - p_one), (1, p_one)))


def _unary(name, on_one, off_one, d, epsilon) -> Mechanism:
    pd = _size("d", description="input domain size = number of bits")
    D = pd.symbol
    channel = ProductChannel(D, _bernoulli(on_one), _bernoulli(off_one))
    mech = Mechanism(name, (pd, _EPS), FiniteDomain(D), channel, EPSILON,
                     example=(("d", sp.Integer(4)), ("epsilon", sp.Integer(1))))
    return _bind(mech, d=d, epsilon=epsilon)


def k_rappor(*, d=None, epsilon=None) -> Mechanism:
    """k-RAPPOR / SUE / BRR / Duchi et al.'s multivariate RR: one-hot, each bit kept w.p. s/(1+s), s = e^(ε/2)."""
    s = sp.exp(EPSILON / 2)
    return _unary("k-RAPPOR", s / (1 + s), 1 / (1 + s), d, epsilon)


def oue(*, d=None, epsilon=None) -> Mechanism:
    """Optimized unary encoding: the input's bit is 1 w.p. 1/2, the others w.p. 1/(e^ε+1)."""
    return _unary("OUE", sp.Rational(1, 2), 1 / (sp.exp(EPSILON) + 1), d, epsilon)


def k_subset(*, d=None, k=None, epsilon=None) -> Mechanism:
    """k-subset selection (Ye & Barg; Wang et al.): weight e^ε/Z on subsets containing the input."""
    pd = _size("d")
    D = pd.symbol
    pk = Parameter("k", "integer", sp.Integer(1), D - 1, description="subset size")
    K = pk.symbol
    t = sp.exp(EPSILON)
    Z_ = sp.binomial(D - 1, K - 1) * t + sp.binomial(D - 1, K)
    channel = StructuredChannel(
        SubsetSpace(D, K),
        (
            OutputClass("contains input", "x in y", sp.binomial(D - 1, K - 1), t / Z_),
            OutputClass("omits input", "x not in y", sp.binomial(D - 1, K), 1 / Z_),
        ),
    )
    mech = Mechanism("k-subset", (pd, pk, _EPS), FiniteDomain(D), channel, EPSILON,
                     example=(("d", sp.Integer(6)), ("k", sp.Integer(2)), ("epsilon", sp.Integer(1))))
    return _bind(mech, d=d, k=k, epsilon=epsilon)


#: the hash family of the bundled O-RR spec: row c is HASH_c(x) for x = 0..5
ORR_HASH = ((0, 1, 2, 0, 1, 2), (1, 2, 0, 2, 0, 1), (2, 2, 1, 0, 0, 1))


def o_rr(*, hash_table=ORR_HASH, k: int = 3, epsilon=None) -> Mechanism:
    """O-RR (Kairouz et al.): a uniform cohort c of C, then k-RR of HASH_c(x) in [k]."""
    table = tuple(tuple(int(v) for v in row) for row in hash_table)
    C = len(table)
    channel = StructuredChannel(
        CohortSpace(table, sp.Integer(k)),
        (
            OutputClass("hash hit", "v == hash(c, x)", sp.Integer(C), sp.exp(EPSILON) / (C * (sp.exp(EPSILON) + k - 1))),
            OutputClass("hash miss", "v != hash(c, x)", sp.Integer(C * (k - 1)), 1 / (C * (sp.exp(EPSILON) + k - 1))),
        ),
    )
    mech = Mechanism("O-RR", (_EPS,), FiniteDomain(sp.Integer(len(table[0]))), channel, EPSILON,
                     example=(("epsilon", sp.Integer(1)),))
    return _bind(mech, epsilon=epsilon)


def rr_bit(*, bits=None, j=None, epsilon=None) -> Mechanism:
    """Randomized response on bit j of an input quantized to [0, 2^bits) (Joseph et al. RR1)."""
    pb = Parameter("bits", "integer", sp.Integer(1), description="bits of the quantized input")
    B = pb.symbol
    pj = Parameter("j", "integer", sp.Integer(0), B - 1, description="which bit is reported")
    t = sp.exp(EPSILON)
    channel = StructuredChannel(
        ElementSpace(sp.Integer(2)),
        (
            OutputClass("true bit", "y == bit(x, j)", sp.Integer(1), t / (t + 1)),
            OutputClass("flipped bit", "y != bit(x, j)", sp.Integer(1), 1 / (t + 1)),
        ),
    )
    mech = Mechanism("RR-bit", (pb, pj, _EPS), FiniteDomain(2**B), channel, EPSILON,
                     example=(("bits", sp.Integer(3)), ("j", sp.Integer(1)), ("epsilon", sp.Integer(1))))
    return _bind(mech, bits=bits, j=j, epsilon=epsilon)


def _laplace(center, scale):
    return sp.exp(-sp.Abs(Z - center) / scale) / (2 * scale)


def laplace_mean(*, M=None, epsilon=None) -> Mechanism:
    """Laplace mechanism for a mean: x in [-M, M], output x + Laplace(2M/ε)."""
    pm = Parameter("M", "real", sp.Integer(0), lower_strict=True, description="bound on |x|")
    Mv = pm.symbol
    channel = DensityChannel(_laplace(X, 2 * Mv / EPSILON))
    mech = Mechanism("Laplace mean", (pm, _EPS), IntervalDomain(-Mv, Mv), channel, EPSILON,
                     example=(("M", sp.Integer(1)), ("epsilon", sp.Integer(1))))
    return _bind(mech, M=M, epsilon=epsilon)


def laplace_histogram(*, K=None, epsilon=None) -> Mechanism:
    """Laplace histogram: one-hot bin indicator in K bins + Laplace(2/ε) noise per coordinate."""
    pk = _size("K", description="number of bins")
    Kv = pk.symbol
    scale = 2 / EPSILON
    channel = ProductChannel(Kv, CoordinateLaw(density=_laplace(1, scale)), CoordinateLaw(density=_laplace(0, scale)))
    mech = Mechanism("Laplace histogram", (pk, _EPS), FiniteDomain(Kv), channel, EPSILON,
                     example=(("K", sp.Integer(4)), ("epsilon", sp.Integer(1))))
    return _bind(mech, K=K, epsilon=epsilon)


#: spec file stem -> constructor
CATALOG = {
    "wrr": wrr,
    "krr": k_rr,
    "krappor": k_rappor,
    "oue": oue,
    "ksubset": k_subset,
    "orr": o_rr,
    "rr_bit": rr_bit,
    "laplace_mean": laplace_mean,
    "laplace_histogram": laplace_histogram,
}
