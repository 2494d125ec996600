"""A public suite of real LDP bugs, reproduced in our own code (issue 12, item 5); run it with
``ldpaudit bench`` (ldpaudit/bench/runner.py).

Each ``Bug`` is a batch randomizer f(x, n, rng) that reproduces a bug reported in a public
tracker or paper, with its correct counterpart, the ε it claims, a note on its source, the
exact channel of the buggy mechanism as a spec (so ``ldpaudit verify`` computes its true ε)
where the law is finite, and the spec of the intended mechanism for conformance tests where
the catalog has one. ``family`` picks LDP-Auditor's fixed attack for the baseline column
(Arcolezi & Gambs 2023: the event "the output supports x" of the protocol).

The sources are described, not copied: every randomizer here is our own code written to the
bug's published description.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

import numpy as np

EPS = 1.0
E = "exp(1)"


@dataclass
class Bug:
    key: str                            # short name for ``ldpaudit bench --only``
    name: str
    source: str
    buggy: Callable
    fixed: Callable
    domain: list
    family: str                         # baseline attack: grr, ue, subset, hr, real, lh
    true_spec: str | None = None        # TOML of the buggy channel (true ε by ldpaudit verify)
    true_note: str = ""                 # why the true ε is what it is when there is no spec
    true_value: float | None = None     # that ε (math.inf, or a closed form) when there is no spec
    intended: Callable | None = None    # () -> bound catalog Mechanism, for conformance
    fixed_spec: str | None = None       # TOML of the correct counterpart's channel, where it is exact
    feature: Callable | None = None
    epsilon: float = EPS
    extra: dict = field(default_factory=dict)


# -- spec text helpers ----------------------------------------------------------------------

def _explicit(name: str, inputs: list, outputs: list, rows: list[list[str]]) -> str:
    row_text = ",\n  ".join("[" + ", ".join(f'"{e}"' for e in row) + "]" for row in rows)
    return (f'[mechanism]\nname = "{name}"\nclaimed_epsilon = "1"\n\n[inputs]\nlabels = {inputs}\n\n'
            f'[channel]\nform = "explicit"\noutputs = {outputs}\nrows = [\n  {row_text}\n]\n')


def _product(name: str, d: int, on1: str, off1: str) -> str:
    return (f'[mechanism]\nname = "{name}"\nclaimed_epsilon = "1"\n\n[inputs]\nsize = "{d}"\n\n'
            f'[channel]\nform = "product"\ncoordinates = "{d}"\n\n'
            f'[channel.on]\nvalues = {{ "0" = "1 - ({on1})", "1" = "{on1}" }}\n\n'
            f'[channel.off]\nvalues = {{ "0" = "1 - ({off1})", "1" = "{off1}" }}\n')


def _catalog(name: str, **params):
    def make():
        from ldpaudit.mechanism import catalog as C

        return getattr(C, name)(**{k: (str(Fraction(v)) if isinstance(v, float) else v) for k, v in params.items()})

    return make


# -- unary encodings ------------------------------------------------------------------------

def _unary(d: int, p_on: float, q_off: float):
    def sample(x, n, rng):
        y = (rng.random((n, d)) < q_off).astype(np.int8)
        y[:, x] = rng.random(n) < p_on
        return y

    return sample


D_UE = 8
S_HALF = math.exp(EPS / 2)
SUE_P, SUE_Q = S_HALF / (1 + S_HALF), 1 / (1 + S_HALF)
OUE_P, OUE_Q = 0.5, 1 / (math.exp(EPS) + 1)
SUE_P_TXT, SUE_Q_TXT = "exp(1/2)/(1 + exp(1/2))", "1/(1 + exp(1/2))"
OUE_Q_TXT = "1/(exp(1) + 1)"


# -- GRR family -----------------------------------------------------------------------------

def _grr(d: int, keep: float, uniform_over_all: bool = False):
    def sample(x, n, rng):
        if uniform_over_all:
            other = rng.integers(0, d, size=n)
        else:
            other = rng.integers(0, d - 1, size=n)
            other = other + (other >= x)
        return np.where(rng.random(n) < keep, x, other)

    return sample


D_GRR = 4
GRR_KEEP = math.exp(EPS) / (math.exp(EPS) + D_GRR - 1)
GRR_KEEP_TXT = f"exp(1)/(exp(1) + {D_GRR - 1})"
GRR_MISS_TXT = f"1/(exp(1) + {D_GRR - 1})"


def _grr_rows(d, hit, miss):
    return [[hit if y == x else miss for y in range(d)] for x in range(d)]


# -- binary RR ------------------------------------------------------------------------------

RR_P = math.exp(EPS) / (1 + math.exp(EPS))


def _rr_bool(p_true: float):
    def sample(x, n, rng):
        return np.where(rng.random(n) < p_true, x, 1 - x).astype(np.int64)

    return sample


def _rr_bool_opendp_2022(x, n, rng):
    """Before the fix: with probability p report the truth, else report a fresh Bernoulli(p)
    draw of 'keep', so P(y = x | x) = p + (1 - p)·p."""
    first = rng.random(n) < RR_P
    second = rng.random(n) < RR_P
    return np.where(first | second, x, 1 - x).astype(np.int64)


def _rr_bool_8bit_uniform(x, n, rng):
    """The coin is a uniform on an 8-bit grid (a biased mantissa): P(u < p) = ceil(256 p)/256."""
    u = rng.integers(0, 256, size=n) / 256.0
    return np.where(u < RR_P, x, 1 - x).astype(np.int64)


KEEP_8BIT = Fraction(math.ceil(256 * RR_P), 256)


# -- subset selection -----------------------------------------------------------------------

D_SS, K_SS = 6, 2


def _subset(d, k, *, order_leak: bool):
    """k-subset selection (Wang et al. 2016; Ye & Barg): y is a k-subset containing x with
    probability k e^ε/(k e^ε + d - k). With ``order_leak`` the subset is returned as a tuple
    with the true item first, the others sorted; otherwise sorted."""
    t = math.exp(EPS)
    keep = k * t / (k * t + d - k)

    others = np.array([v for v in range(d)], dtype=np.int64)

    def sample(x, n, rng):
        pool = np.delete(others, x)                              # the d - 1 other items
        pick = np.argsort(rng.random((n, d - 1)), axis=1)[:, :k]  # k random others per draw
        rest = pool[pick]
        has = rng.random(n) < keep
        with_x = np.concatenate([np.full((n, 1), x), np.sort(rest[:, :k - 1], axis=1)], axis=1)
        if not order_leak:
            with_x = np.sort(with_x, axis=1)
        return np.where(has[:, None], with_x, np.sort(rest, axis=1))

    return sample


# -- Hadamard response ----------------------------------------------------------------------

D_HR = 4


def _hadamard(x, j):
    return 1 - 2 * (bin(x & j).count("1") % 2)


def _hr(*, type_leak: bool):
    """Hadamard response (binary, one coefficient): pick j uniformly in 0..D-1, report
    (j, H[x+1, j] with probability e^ε/(e^ε+1), else its negation). With ``type_leak`` the
    truthful branch returns the coefficient as a bool-typed value and the flipped branch as
    an int (Python's True == 1 hides it from equality, not from type())."""
    t = math.exp(EPS)
    keep = t / (1 + t)

    def sample(x, n, rng):
        out = []
        js = rng.integers(0, D_HR, size=n)
        truth = rng.random(n) < keep
        for j, tr in zip(js.tolist(), truth.tolist()):
            h = _hadamard(x + 1, j)
            b = h if tr else -h
            bit = (b > 0)
            out.append((j, bool(bit) if (tr and type_leak) else int(bit)))
        return out

    return sample


def hr_type_feature(outputs):
    """Projection that keeps what a receiver can see: (j, value, whether the value is a bool)."""
    return [(j, int(b), isinstance(b, bool)) for j, b in outputs]


# -- real outputs ---------------------------------------------------------------------------

def _naive_laplace(x, n, rng):
    return float(x) + rng.laplace(scale=1 / EPS, size=n)


def _snapped_laplace(x, n, rng):
    y = float(x) + rng.laplace(scale=1 / EPS, size=n)
    return np.round(y * 2**20) / 2**20


def _naive_unary_laplace(x, n, rng):
    y = rng.laplace(scale=2 / EPS, size=(n, 4))
    y[:, x] += 1.0
    return y


def _snapped_unary_laplace(x, n, rng):
    return np.round(_naive_unary_laplace(x, n, rng) * 2**20) / 2**20


B_CLAMP = 6


def _geometric_by_rounding(scale: float):
    def sample(x, n, rng):
        y = x + np.round(rng.laplace(scale=scale, size=n))
        return np.clip(y, -B_CLAMP, B_CLAMP + 1).astype(np.int64)

    return sample


ALPHA_GEO = math.exp(-EPS)
# The Laplace scale whose variance 2b² matches the geometric's 2α/(1-α)², α = e^-ε: 0.959 at
# ε = 1, kept to two digits as a programmer would (0.96): rounding Laplace(0.96) gives ε = 25/24.
SCALE_VARIANCE_MATCHED = 0.96


def _rounded_laplace_rows(scale_txt: str) -> tuple[list, list]:
    """Exact law of clip(x + round(L), -B, B+1), L ~ Laplace(b): cell k - x of width 1."""
    outputs = list(range(-B_CLAMP, B_CLAMP + 2))

    def tail(t):             # P(L >= t) for t > 0
        return f"exp(-({t})/({scale_txt}))/2"

    rows = []
    for x in (0, 1):
        row = []
        for y in outputs:
            k = y - x
            if y == outputs[0]:
                row.append(tail(f"{-k} - 1/2"))                        # L < k + 1/2, k <= -1
            elif y == outputs[-1]:
                row.append(tail(f"{k} - 1/2"))                         # L >= k - 1/2, k >= 1
            elif k == 0:
                row.append(f"1 - 2*({tail('1/2')})")
            else:
                a = abs(k)
                row.append(f"{tail(f'{a} - 1/2')} - {tail(f'{a} + 1/2')}")
        rows.append(row)
    return outputs, rows


# -- rare outputs ---------------------------------------------------------------------------

def _krr_error(p_bad: float, p_good: float):
    base = _grr(D_GRR, GRR_KEEP)

    def sample(x, n, rng):
        y = base(x, n, rng)
        pe = p_bad if x == 0 else p_good
        return np.where(rng.random(n) < pe, -1, y)

    return sample


def _krr_error_rows():
    rows = []
    for x in range(D_GRR):
        pe = "1/5000" if x == 0 else "1/25000"
        rows.append([pe] + [f"(1 - {pe})*({GRR_KEEP_TXT if y == x else GRR_MISS_TXT})" for y in range(D_GRR)])
    return rows


# -- local hashing --------------------------------------------------------------------------

def _lh_hash(seed, v, g):
    with np.errstate(over="ignore"):
        z = np.asarray(seed).astype(np.uint64) ^ (np.uint64(v) * np.uint64(0x9E3779B97F4A7C15))
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z % np.uint64(g)).astype(np.int64)


D_LH, G_LH = 8, 4


def _olh(g_perturb: int):
    p = math.exp(EPS) / (math.exp(EPS) + g_perturb - 1)

    def sample(x, n, rng):
        seed = rng.integers(0, 2**63 - 1, size=n, dtype=np.int64)
        h = _lh_hash(seed, x, G_LH)
        other = rng.integers(0, G_LH - 1, size=n)
        return np.stack([seed, np.where(rng.random(n) < p, h, other + (other >= h))], axis=1)

    return sample


def lh_support(outputs):
    out = np.asarray(outputs)
    return np.stack([_lh_hash(out[:, 0], v, G_LH) == out[:, 1] for v in range(D_LH)], axis=1).astype(np.int8)


# -- RS+FD on unequal domains --------------------------------------------------------------

# RS+FD[GRR] (Arcolezi et al., CIKM 2021; multi-freq-ldpy 0.2.4, RSpFD_GRR_Client): a user with
# d attributes samples one uniformly, reports it through GRR at the amplified budget
# ε' = ln(d(e^ε - 1) + 1) and every other attribute as a uniform fake value. For x, x' that
# differ in attribute j, the exact ratio is (Σ_i a_i + (e^ε' - 1) a_j) / Σ_i a_i with
# a_i = k_i / (e^ε' + k_i - 1): e^ε exactly when every k_i is equal, above e^ε for the attribute
# with the largest domain when they are not. Inputs here are attribute 0's value v in 0..7 with
# the two binary attributes fixed at 0, so every audited pair differs in attribute 0 only.
K_FD = (8, 2, 2)
D_FD = len(K_FD)
AMP_FD = D_FD * (math.exp(EPS) - 1) + 1             # e^ε' = 3e - 2
AMP_FD_TXT = "(3*exp(1) - 2)"
# the counterpart calibrates e^ε' = E to the largest domain: 1 + 2(E² - 1)/(3E + 9) = e^ε for
# K = (8, 2, 2) at E = 4.51254, the positive root of 2E² - 3(e-1)E - (2 + 9(e-1)) = 0; rounded
# down to 4.512 (true ε 0.99989, a rational channel verify orders exactly)
AMP_FD_FIXED = 4.512
AMP_FD_FIXED_TXT = "(4512/1000)"


def _rsfd_grr(amp: float):
    def sample(v, n, rng):
        x = (int(v),) + (0,) * (D_FD - 1)
        sampled = rng.integers(0, D_FD, size=n)
        y = np.stack([rng.integers(0, k, size=n) for k in K_FD], axis=1)     # fake values
        for a, k in enumerate(K_FD):
            rows = np.flatnonzero(sampled == a)
            keep = rng.random(len(rows)) < amp / (amp + k - 1)
            other = rng.integers(0, k - 1, size=len(rows))
            y[rows, a] = np.where(keep, x[a], other + (other >= x[a]))
        return y

    return sample


def _rsfd_rows(amp_txt: str) -> tuple[list, list]:
    """Exact law of RS+FD[GRR] at inputs (v, 0, 0): output code y0·4 + y1·2 + y2."""
    def grr(k, y, x):
        return f"{amp_txt}/({amp_txt} + {k - 1})" if y == x else f"1/({amp_txt} + {k - 1})"

    outputs = [y0 * 4 + y1 * 2 + y2 for y0 in range(K_FD[0]) for y1 in range(2) for y2 in range(2)]
    rows = []
    for v in range(K_FD[0]):
        row = []
        for code in outputs:
            y = (code // 4, (code // 2) % 2, code % 2)
            x = (v, 0, 0)
            terms = []
            for a in range(D_FD):
                fake = " * ".join(f"(1/{K_FD[i]})" for i in range(D_FD) if i != a)
                terms.append(f"{grr(K_FD[a], y[a], x[a])} * {fake}")
            row.append(f"(1/{D_FD})*(" + " + ".join(terms) + ")")
        rows.append(row)
    return outputs, rows


# -- the suite ------------------------------------------------------------------------------

def bugs() -> list[Bug]:
    ue = list(range(D_UE))
    grr = list(range(D_GRR))
    sue_keep = f"{SUE_P_TXT} + (1 - {SUE_P_TXT})*{SUE_Q_TXT}"
    oue_keep = f"1/2 + (1/2)*{OUE_Q_TXT}"
    geo_b = "24/25"
    return [
        Bug("pure-ldp-sue", "pure-LDP 1.1.2 SUE: true bit kept w.p. p+(1-p)q",
            "pure-LDP (Cormode et al.) v1.1.2 unary encoding client, issue 12 item 4",
            _unary(D_UE, SUE_P + (1 - SUE_P) * SUE_Q, SUE_Q), _unary(D_UE, SUE_P, SUE_Q), ue, "ue",
            true_spec=_product("SUE true-bit bug", D_UE, sue_keep, SUE_Q_TXT),
            intended=_catalog("k_rappor", d=D_UE, epsilon=1)),
        Bug("pure-ldp-oue", "pure-LDP 1.1.2 OUE: true bit kept w.p. p+(1-p)q",
            "pure-LDP v1.1.2 unary encoding client (OUE parameters)",
            _unary(D_UE, OUE_P + (1 - OUE_P) * OUE_Q, OUE_Q), _unary(D_UE, OUE_P, OUE_Q), ue, "ue",
            true_spec=_product("OUE true-bit bug", D_UE, oue_keep, OUE_Q_TXT),
            intended=_catalog("oue", d=D_UE, epsilon=1)),
        Bug("rappor-never-clears", "pure-LDP RAPPOR: the true bit is never cleared",
            "pure-LDP RAPPOR client: permanent response sets the true bit and never flips it to 0",
            _unary(D_UE, 1.0, SUE_Q), _unary(D_UE, SUE_P, SUE_Q), ue, "ue",
            true_spec=_product("RAPPOR never clears", D_UE, "1", SUE_Q_TXT),
            intended=_catalog("k_rappor", d=D_UE, epsilon=1)),
        Bug("oue-wrong-q", "OUE with a wrong q (e^-ε/2 for 1/(e^ε+1))",
            "OUE client with a mistyped flip probability (LDP-Auditor's planted-bug class)",
            _unary(D_UE, OUE_P, math.exp(-EPS) / 2), _unary(D_UE, OUE_P, OUE_Q), ue, "ue",
            true_spec=_product("OUE wrong q", D_UE, "1/2", "exp(-1)/2"),
            intended=_catalog("oue", d=D_UE, epsilon=1)),
        Bug("krappor-full-epsilon", "k-RAPPOR flipping with ε instead of ε/2",
            "RAPPOR (Erlingsson et al. 2014) budget split: each of the two changed bits needs ε/2",
            _unary(D_UE, math.e / (1 + math.e), 1 / (1 + math.e)), _unary(D_UE, SUE_P, SUE_Q), ue, "ue",
            true_spec=_product("k-RAPPOR full-eps flips", D_UE, "exp(1)/(1 + exp(1))", "1/(1 + exp(1))"),
            intended=_catalog("k_rappor", d=D_UE, epsilon=1)),
        Bug("opendp-rr-bool-2022", "opendp make_randomized_response_bool before the 2022 fix",
            "OpenDP issue (2022): P(X|X) = p + (1-p)p instead of p",
            _rr_bool_opendp_2022, _rr_bool(RR_P), [0, 1], "grr",
            true_spec=_explicit("opendp rr bool 2022", [0, 1], [0, 1],
                                [["exp(1)*(2 + exp(1))/(1 + exp(1))**2", "1/(1 + exp(1))**2"],
                                 ["1/(1 + exp(1))**2", "exp(1)*(2 + exp(1))/(1 + exp(1))**2"]]),
            intended=_catalog("wrr", epsilon="1")),
        Bug("rr-8bit-coin", "randomized response with an 8-bit uniform (biased mantissa)",
            "Bernoulli sampler comparing p with a coarse uniform (Mironov 2012; Jin et al. 2022 'Are we there yet?')",
            _rr_bool_8bit_uniform, _rr_bool(RR_P), [0, 1], "grr",
            true_spec=_explicit("rr 8-bit coin", [0, 1], [0, 1],
                                [[str(KEEP_8BIT), str(1 - KEEP_8BIT)], [str(1 - KEEP_8BIT), str(KEEP_8BIT)]]),
            intended=_catalog("wrr", epsilon="1")),
        Bug("krr-uniform-fallback", "k-RR whose fallback is uniform over all d values",
            "GRR client drawing the lie from the whole domain (a frequent pattern in LDP code; planted in LDP-Auditor)",
            _grr(D_GRR, GRR_KEEP, uniform_over_all=True), _grr(D_GRR, GRR_KEEP), grr, "grr",
            true_spec=_explicit("k-RR normalizer d", grr, grr,
                                _grr_rows(D_GRR, f"{GRR_KEEP_TXT} + (1 - {GRR_KEEP_TXT})/{D_GRR}",
                                          f"(1 - {GRR_KEEP_TXT})/{D_GRR}")),
            intended=_catalog("k_rr", d=D_GRR, epsilon=1)),
        Bug("krr-error-output", "k-RR emitting an error output more often for one input",
            "issue 12 item 2: an error sentinel with probability 2e-4 under one input, 4e-5 under the others",
            _krr_error(2e-4, 4e-5), _krr_error(1e-4, 1e-4), grr, "grr",
            true_spec=_explicit("k-RR with error output", grr, [-1] + grr, _krr_error_rows())),
        Bug("subset-order", "k-subset selection leaking through order (true item first)",
            "subset selection client returning the true item first when sampled (order of a tuple)",
            _subset(D_SS, K_SS, order_leak=True), _subset(D_SS, K_SS, order_leak=False), list(range(D_SS)), "subset",
            true_note="∞: a tuple (x, a) with x > a is reachable only from x", true_value=math.inf,
            intended=None),
        Bug("hadamard-type", "Hadamard response leaking through its return type",
            "binary Hadamard response returning a bool in the truthful branch and an int otherwise",
            _hr(type_leak=True), _hr(type_leak=False), list(range(D_HR)), "hr",
            true_note="∞: a bool-typed coefficient equals H[x+1, j], impossible for x' with H[x'+1, j] != H[x+1, j]",
            true_value=math.inf,
            feature=hr_type_feature),
        Bug("float-laplace", "naive float Laplace x + Laplace(1/ε)",
            "Mironov, CCS 2012: doubles reachable from one input only",
            _naive_laplace, _snapped_laplace, [0.0, 1.0], "real",
            true_note="∞: float64 outputs of x = 0 that fl(1 + L) never produces", true_value=math.inf),
        Bug("unary-float-laplace", "unary encoding + float Laplace ('HE' clients)",
            "unary-encoding-plus-Laplace clients in two PyPI packages (issue 12 item 1)",
            _naive_unary_laplace, _snapped_unary_laplace, list(range(4)), "real",
            true_note="∞: coordinate x is 1 + L on a coarser grid near 0 than the others' L", true_value=math.inf),
        Bug("geometric-rounding", "geometric mechanism built by rounding Laplace (variance-matched scale)",
            "two-sided geometric replaced by round(Laplace(b)) with b matched to its variance",
            _geometric_by_rounding(SCALE_VARIANCE_MATCHED), _geometric_by_rounding(1 / EPS), [0, 1], "real",
            true_spec=_explicit("rounded Laplace", [0, 1], *_rounded_laplace_rows(geo_b))),
        Bug("olh-binary-p", "OLH with the perturbation probability of g = 2 (hash range g = 4)",
            "local hashing client computing p for binary LH while hashing into g = e^ε + 1 buckets",
            _olh(2), _olh(G_LH), list(range(D_LH)), "lh",
            true_note=f"ln(p(g-1)/(1-p)) with p = e/(e+1), g = {G_LH} (formula)",
            true_value=math.log(math.e / (math.e + 1) * (G_LH - 1) / (1 / (math.e + 1))),
            feature=lh_support),
        Bug("rsfd-unequal-domains", "RS+FD[GRR] on unequal domains (8, 2, 2): amplified ε' for equal ones",
            "Arcolezi et al., CIKM 2021 (RS+FD); multi-freq-ldpy 0.2.4 RSpFD_GRR_Client uses "
            "ε' = ln(d(e^ε-1)+1) whatever the domain sizes, tight only when they are equal (our analysis: "
            "neighbors differing in the largest-domain attribute)",
            _rsfd_grr(AMP_FD), _rsfd_grr(AMP_FD_FIXED), list(range(K_FD[0])), "fd",
            true_spec=_explicit("RS+FD GRR unequal domains", list(range(K_FD[0])), *_rsfd_rows(AMP_FD_TXT)),
            fixed_spec=_explicit("RS+FD GRR calibrated", list(range(K_FD[0])), *_rsfd_rows(AMP_FD_FIXED_TXT))),
    ]
