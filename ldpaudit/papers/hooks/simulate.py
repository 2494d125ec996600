"""Monte-Carlo estimation error of BRR (k-RAPPOR), MRR (k-RR) and k-subset, as in Wang et
al. §5 / Table 1: n users, a random true distribution per repetition, estimates projected
onto the probability simplex, mean ℓ2² and ℓ1 errors over repetitions.

Everything is sampled at the level of counts, exactly in law given the fixed population
(n_x users hold x):

* MRR: the report counts are a sum over x of Multinomial(n_x, Q(·|x)).
* BRR: bit j's count of ones is Binomial(n_j, keep) + Binomial(n - n_j, flip), the bits
  being independent.
* k-subset: per input x, Binomial(n_x, kt/(kt+d-k)) users include x; each user then draws
  k-1 (or k) distinct others uniformly from the d-1 items other than x (Wang et al.
  Algorithm 1), sampled exactly with Floyd's algorithm vectorized over users (k steps, not
  d), and only the per-item counts are kept.

The estimator's hit rates g and h are the derived ones (``ldpaudit.derive``), evaluated by
mpmath. Runs are reproducible, to the bit on every CPU: every (row, mechanism) has its own seed
sequence, and the draws come from :mod:`ldpaudit.portable` (θ from normalized exponentials,
binomials and multinomials, and Floyd's uniform integers, ⌊U·(i + 1)⌋ with U from
``Generator.random``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy as sp

from ldpaudit import portable

#: the population of users and the repetitions of Wang et al. Table 1
USERS = 10_000
REPETITIONS = 100
SEED = 20170102


@lru_cache(maxsize=None)
def _hit_rates(family: str):
    """g(d, k, ε) and h(d, k, ε) of a catalog family, derived once (evaluated by mpmath)."""
    from ldpaudit.derive import item_statistic
    from ldpaudit.mechanism.catalog import CATALOG

    mech = CATALOG[family]()
    stat = item_statistic(mech)
    S = mech.symbols
    args = [S["d"], S.get("k", sp.Symbol("k_unused")), S["epsilon"]]
    return portable.exact_function(args, stat.g), portable.exact_function(args, stat.h)


def hit_rates(family: str, d: int, epsilon: float, k: int = 1) -> tuple[float, float]:
    g, h = _hit_rates(family)
    return float(g(d, k, epsilon)), float(h(d, k, epsilon))


def project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection of each row onto the probability simplex (Wang & Carreira-Perpiñán)."""
    u = -np.sort(-v, axis=-1)
    css = np.cumsum(u, axis=-1) - 1.0
    idx = np.arange(1, v.shape[-1] + 1)
    cond = u - css / idx > 0
    rho = v.shape[-1] - np.argmax(cond[..., ::-1], axis=-1)
    theta = np.take_along_axis(css, (rho - 1)[..., None], axis=-1) / rho[..., None]
    return np.maximum(v - theta, 0.0)


def population(d: int, reps: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Per repetition: θ ~ Dirichlet(1, ..., 1) and n_x ~ Multinomial(n, θ); the true
    distribution is then the population's n_x / n."""
    theta = portable.exponential(rng, (reps, d))
    theta /= theta.sum(axis=1, keepdims=True)
    return portable.multinomial(rng, np.full(reps, n), theta)


def counts_krr(pop: np.ndarray, epsilon: float, rng) -> np.ndarray:
    reps, d = pop.shape
    g, h = hit_rates("krr", d, epsilon)
    Q = np.full((d, d), h)
    np.fill_diagonal(Q, g)
    return portable.multinomial(rng, pop, Q).sum(axis=1)


def counts_krappor(pop: np.ndarray, epsilon: float, rng) -> np.ndarray:
    reps, d = pop.shape
    n = pop.sum(axis=1, keepdims=True)
    g, h = hit_rates("krappor", d, epsilon)
    return portable.binomial(rng, pop, g) + portable.binomial(rng, n - pop, h)


def counts_ksubset(pop: np.ndarray, k: int, epsilon: float, rng, chunk_users: int = 200_000) -> np.ndarray:
    """Per-item report counts of the k-subset mechanism, exact in law (see module docstring)."""
    reps, d = pop.shape
    include = _inclusion(d, k, epsilon)
    N = d - 1
    out = np.zeros((reps, d), dtype=np.int64)
    A = portable.binomial(rng, pop, include)        # users reporting their own x
    out += A
    # every user as (repetition, x, number of others r)
    rep_idx = np.repeat(np.repeat(np.arange(reps), d), 2)
    x_idx = np.tile(np.repeat(np.arange(d), 2), reps)
    sizes = np.stack([A, pop - A], axis=-1).reshape(-1)
    r_val = np.tile(np.array([k - 1, k]), reps * d)
    keep = sizes > 0
    rep_u = np.repeat(rep_idx[keep], sizes[keep])
    x_u = np.repeat(x_idx[keep], sizes[keep])
    r_u = np.repeat(r_val[keep], sizes[keep])
    flat_out = out.reshape(-1)
    for lo in range(0, len(rep_u), chunk_users):
        rr, xx, rv = rep_u[lo:lo + chunk_users], x_u[lo:lo + chunk_users], r_u[lo:lo + chunk_users]
        m = len(rr)
        width = max(N, 1)
        chosen = np.zeros(m * width, dtype=bool)
        base = np.arange(m) * width
        # Floyd: for i = N - r .. N - 1, draw j in [0, i]; take j unless already chosen, else i.
        # Users with r = k - 1 start one step later than those with r = k.
        for i in range(N - k, N):
            if i == N - k:
                sel = np.flatnonzero(rv == k)
            else:
                sel = None
            if sel is not None and not len(sel):
                continue
            size = m if sel is None else len(sel)
            j = (rng.random(size) * (i + 1)).astype(np.int64)
            offs = base if sel is None else base[sel]
            taken = chosen[offs + j]
            pick = np.where(taken, i, j)
            chosen[offs + pick] = True
            x_sel = xx if sel is None else xx[sel]
            r_sel = rr if sel is None else rr[sel]
            items = pick + (pick >= x_sel)
            flat_out += np.bincount(r_sel * d + items, minlength=reps * d)
    return out


def _inclusion(d: int, k: int, epsilon: float) -> float:
    """k e^ε/(k e^ε + d - k): the probability that a user's k-subset includes its own item."""
    t = sp.Symbol("t")
    return portable.exact_function((t,), k * sp.exp(t) / (k * sp.exp(t) + d - k))(epsilon)


@dataclass(frozen=True)
class Errors:
    l2: float          # mean ℓ2² of the projected estimate
    l2_se: float
    l1: float          # mean ℓ1 of the projected estimate
    l1_se: float
    l2_raw: float      # mean ℓ2² of the unprojected (unbiased) estimate
    l2_raw_se: float


def estimate(F: np.ndarray, n: int, g: float, h: float) -> np.ndarray:
    return (F / n - h) / (g - h)


def errors(F: np.ndarray, pop: np.ndarray, g: float, h: float) -> Errors:
    n = pop.sum(axis=1, keepdims=True)
    theta = pop / n
    raw = estimate(F, n, g, h)
    proj = project_simplex(raw)
    l2 = ((proj - theta) ** 2).sum(axis=1)
    l1 = np.abs(proj - theta).sum(axis=1)
    l2r = ((raw - theta) ** 2).sum(axis=1)
    R = len(F)
    se = lambda a: float(a.std(ddof=1) / np.sqrt(R)) if R > 1 else 0.0
    return Errors(float(l2.mean()), se(l2), float(l1.mean()), se(l1), float(l2r.mean()), se(l2r))


MECHANISMS = ("BRR", "MRR", "k*-SS", "k#-SS")


def simulate_row(d: int, epsilon: float, k_star: int, k_sharp: int, *, n: int = USERS, reps: int = REPETITIONS,
                 seed: int = SEED, row: int = 0) -> dict[str, Errors]:
    """The four mechanisms of Table 1 on the same random populations."""
    base = np.random.default_rng([seed, row])
    pop = population(d, reps, n, base)
    results = {}
    for m_idx, name in enumerate(MECHANISMS):
        rng = np.random.default_rng([seed, row, m_idx + 1])
        if name == "BRR":
            F = counts_krappor(pop, epsilon, rng)
            g, h = hit_rates("krappor", d, epsilon)
        elif name == "MRR":
            F = counts_krr(pop, epsilon, rng)
            g, h = hit_rates("krr", d, epsilon)
        else:
            k = k_star if name == "k*-SS" else k_sharp
            F = counts_ksubset(pop, k, epsilon, rng)
            g, h = hit_rates("ksubset", d, epsilon, k)
        results[name] = errors(F, pop, g, h)
    return results
