"""The four protocols of Joseph, Kulkarni, Mao & Wu, "Locally Private Gaussian Estimation"
(arXiv 1811.08382), and the naive baseline, as :class:`~ldpaudit.protocol.model.Protocol`s.

Users hold x ~ N(μ, σ²) with |μ| ≤ R. Reconstruction choices (formulas lost in the seed's
extraction; recovered from the seed's prose, the published algorithm names and a public
third-party implementation of the NeurIPS supplement) are listed in :data:`RECONSTRUCTION`
and in the generated report.

* ``kv2`` KVGausstimate (known σ, two rounds): half the users, in L equal subgroups, run RR1
  on ⌊x/(σ2^j)⌋ mod 4 (subgroup j); the analyst's median search gives μ₁; the other half run
  KVRR2 (randomized response on sign(x - μ₁)); μ̂ = μ₁ + σ Φ⁻¹(p̂).
* ``kv1`` 1RoundKVGausstimate (known σ, one round): the second half is split into 5ρ subgroups
  that each threshold at the nearest point of a fixed grid (offset iσ/5, spacing ρσ); the
  analyst uses the subgroup whose grid point is nearest μ₁.
* ``uv2`` UVGausstimate (σ unknown in [σ_min, σ_max], two rounds): RR1 on the σ_min grid also
  yields a scale estimate σ̂; round two is the Laplace mechanism on x clipped to
  [μ₁ - W, μ₁ + W], W = 2σ̂(1 + √(2 ln n)).
* ``uv1`` 1RoundUVGausstimate: the second half is split over scales u_a = σ_min 2^a and ρ offsets;
  each user reports x minus its nearest grid point plus Laplace(ρu_a/ε).
* ``laplace`` the baseline: every user reports clip(x, -R, R) + Laplace(2R/ε).

Samplers, laws and group sizes give the same bits on every CPU (:mod:`ldpaudit.portable`):
e^ε, Φ and the logarithms in the group sizes by mpmath, draws from integers and correctly
rounded arithmetic, powers of two by ldexp.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import numpy as np

from ldpaudit import portable
from ldpaudit.protocol.aggregate import (
    debias_rr,
    inverse_normal_estimate,
    median_search,
    nearest_grid_point,
    round_log2,
    rr_keep,
    scale_level,
)
from ldpaudit.protocol.model import Protocol, Randomizer, Round

SPECS = Path(__file__).resolve().parent / "specs"
REPO_SPECS = Path(__file__).resolve().parents[2] / "specs"

RECONSTRUCTION = (
    ("population", "x ~ N(μ, σ²) with |μ| ≤ R; the paper assumes 0 ≤ μ < R and notes the methods extend to "
     "negative μ; the search interval here is symmetric, [-w 2^(L-1), w 2^(L-1))."),
    ("RR1", "user in subgroup j reports ⌊x/(w 2^j)⌋ mod 4 through 4-ary randomized response (kept with "
     "e^ε/(e^ε+3), else one of the other three uniformly), w = σ (known σ) or σ_min (unknown σ). The arXiv v1 "
     "text solicits one bit (specs/joseph_rr1.toml); the mod-4 form of the NeurIPS version is used because the "
     "median search needs four distinct residues for the blocks around the current interval."),
    ("levels", "L = ⌈log2((R + 4σ)/σ)⌉ + 1 (known σ), L = ⌈log2((R + 4σ_max)/σ_min)⌉ + 1 (unknown σ), so the top "
     "interval contains [-R - 4σ, R + 4σ]."),
    ("group sizes", "round one: n/2 users in L equal subgroups (k = ⌊n/(2L)⌋ each); round two: the other n/2 "
     "(split into equal subgroups for the one-round variants). The paper's k = Ω(log(L/β)/ε²) is an assumption "
     "on n, not a constant we can read off; no users are held back."),
    ("KVAgg1/EstMean1", "de-biased 4-ary frequencies; a one-round binary search that at each level keeps the half "
     "holding the median (P(x < midpoint) from the residues of the two blocks below the midpoint), down to "
     "block width σ; μ₁ = centre of the final block. The paper's concentration tests (0.52k + ψ) are replaced "
     "by this median rule."),
    ("KVRR2/KVAgg2", "randomized response (kept with e^ε/(e^ε+1)) on sign(x - μ₁); μ̂ = μ₁ + σ Φ⁻¹(p̂) with p̂ the "
     "de-biased fraction of +1, clipped to [1/(2m), 1 - 1/(2m)]."),
    ("one-round KV", "ρ = 2⌈√(2 ln n)⌉ + 4; 5ρ subgroups with grids offset iσ/5 + ρσℤ (i = 0..5ρ-1); a user "
     "thresholds at the grid point nearest to x; the analyst picks the subgroup whose grid point is nearest μ₁ "
     "and applies the KVRR2 estimate around that point (ρ enlarged from the third-party ⌈2√ln(4n)⌉ so the "
     "central grid cell holds all but O(1/n) of the users)."),
    ("EstVar", "σ̂ = w/2 for the lowest level whose histogram puts ≥ 0.8 of its mass on two adjacent residues "
     "(block width w between about 2σ and 4σ), never below σ_min; μ₁ is the median search stopped at that level."),
    ("UV round two", "Laplace mechanism on x clipped to [μ₁ - W, μ₁ + W], W = 2σ̂(1 + √(2 ln n)), noise scale 2W/ε; "
     "μ̂ = the mean of the reports."),
    ("one-round UV", "scales u_a = σ_min 2^a, a = 0..⌈log2(σ_max/σ_min)⌉+1; ρ = ⌈2√(2 ln n)⌉ + 5 offsets i·u_a with "
     "spacing ρu_a; a user reports x - (nearest grid point) + Laplace(ρu_a/ε); the analyst uses scale "
     "u = σ̂ and the offset whose grid point is nearest μ₁, μ̂ = that point + the subgroup's mean report."),
    ("baseline", "Laplace mechanism on clip(x, -R, R) with scale 2R/ε (specs/laplace_mean.toml with M = R); "
     "clipping is a deterministic map into the proved domain [-M, M], so it keeps ε-LDP."),
)


# --- randomizers: samplers and exact laws ------------------------------------------------------

def _keep(epsilon, k):
    return rr_keep(epsilon, k)


def _ncdf(z) -> np.ndarray:
    """Φ(z) elementwise by mpmath (40 digits) for each distinct z, rounded once."""
    import mpmath

    z = np.asarray(z, dtype=float)
    values, index = np.unique(z, return_inverse=True)
    with mpmath.workdps(40):
        out = np.array([float(mpmath.ncdf(mpmath.mpf(v))) for v in values])
    return out[index].reshape(z.shape)


def _rr(value, k, epsilon, rng, values=None):
    """k-ary randomized response on integer codes 0..k-1 (vectorized)."""
    keep = rng.random(value.shape) < _keep(epsilon, k)
    other = (value + rng.integers(1, k, size=value.shape)) % k
    return np.where(keep, value, other)


def sample_rr1(x, rng, *, epsilon, s, j):
    v = np.floor(x / np.ldexp(s, np.asarray(j).astype(np.int64))).astype(np.int64) % 4
    return _rr(v, 4, epsilon, rng)


def _block_masses(mu, sd, width, offset, period):
    """P(⌊(x - offset)/width⌋ ≡ r mod period) for x ~ N(mu, sd²), each r (exact up to 1e-30;
    Φ by mpmath at 40 digits, the masses summed there and rounded once)."""
    import mpmath

    lo = math.floor((mu - offset - 13 * sd) / width) - 1
    hi = math.floor((mu - offset + 13 * sd) / width) + 1
    with mpmath.workdps(40):
        out = [mpmath.mpf(0)] * period
        edge = lambda b: mpmath.ncdf((mpmath.mpf(offset) + b * mpmath.mpf(width) - mu) / mpmath.mpf(sd))  # noqa: E731
        for b in range(lo, hi + 1):
            out[b % period] += edge(b + 1) - edge(b)
        return np.array([float(m) for m in out])


def law_rr1(population, sizes, rng, trials, *, epsilon, s, j):
    """Histogram counts (trials, S, 4) of RR1 reports, exactly in law: Multinomial(k, q)."""
    eps, sig, lev = (np.broadcast_to(np.asarray(v, dtype=float), (trials, len(sizes))) for v in (epsilon, s, j))
    probs = np.empty((trials, len(sizes), 4))
    cache = {}
    for t in range(trials):
        for s in range(len(sizes)):
            key = (eps[t, s], sig[t, s], lev[t, s])
            if key not in cache:
                p = _block_masses(population.mu, population.sigma, math.ldexp(sig[t, s], int(lev[t, s])), 0.0, 4)
                keep = _keep(key[0], 4)
                cache[key] = keep * p + (1 - keep) * (1 - p) / 3
            probs[t, s] = cache[key]
    probs /= probs.sum(axis=-1, keepdims=True)
    return portable.multinomial(rng, np.broadcast_to(sizes, (trials, len(sizes))), probs)


def _binary_counts(p_plus, sizes, epsilon, rng):
    keep = _keep(epsilon, 2)
    q = keep * p_plus + (1 - keep) * (1 - p_plus)
    m = np.broadcast_to(sizes, q.shape)
    plus = portable.binomial(rng, m, np.clip(q, 0, 1))
    return np.stack([m - plus, plus], axis=-1)


def sample_kvrr2(x, rng, *, epsilon, mu1, sigma):
    sign = (x >= mu1).astype(np.int64)            # 1 for +1, 0 for -1
    return 2 * _rr(sign, 2, epsilon, rng) - 1


def law_kvrr2(population, sizes, rng, trials, *, epsilon, mu1, sigma):
    mu1 = np.broadcast_to(np.asarray(mu1, dtype=float), (trials, len(sizes)))
    return _binary_counts(_ncdf((population.mu - mu1) / population.sigma), sizes, epsilon, rng)


def sample_grid_sign(x, rng, *, epsilon, g, rho, sigma):
    z = nearest_grid_point(x, g, np.asarray(rho) * np.asarray(sigma))
    return 2 * _rr((x >= z).astype(np.int64), 2, epsilon, rng) - 1


def law_grid_sign(population, sizes, rng, trials, *, epsilon, g, rho, sigma):
    """P(x ≥ nearest grid point) = P((x - g + ρσ/2) mod ρσ ≥ ρσ/2), exactly (offset g, spacing ρσ)."""
    off = np.broadcast_to(np.asarray(g, dtype=float), (trials, len(sizes)))
    sp_ = np.broadcast_to(np.asarray(rho, dtype=float) * np.asarray(sigma, dtype=float), (trials, len(sizes)))
    p_plus = np.empty((trials, len(sizes)))
    cache = {}
    for t in range(trials):
        for s in range(len(sizes)):
            key = (off[t, s], sp_[t, s])
            if key not in cache:
                half = key[1] / 2
                # blocks of width spacing/2 starting at offset - spacing/2: odd blocks are x >= z
                cache[key] = _block_masses(population.mu, population.sigma, half, key[0] - half, 2)[1]
            p_plus[t, s] = cache[key]
    return _binary_counts(p_plus, sizes, epsilon, rng)


def sample_clipped_laplace(x, rng, *, epsilon, center, half_width):
    clipped = np.clip(x, center - half_width, center + half_width)
    return clipped + portable.laplace(rng, x.shape) * (2 * half_width / np.asarray(epsilon))


def sample_grid_laplace(x, rng, *, epsilon, offset, spacing):
    return x - nearest_grid_point(x, offset, spacing) + portable.laplace(rng, x.shape) * (spacing / np.asarray(epsilon))


RR1 = Randomizer("RR1", sample_rr1, spec=REPO_SPECS / "joseph_rr1.toml", outputs=(0, 1, 2, 3), law=law_rr1)
KVRR2 = Randomizer("KVRR2", sample_kvrr2, spec=REPO_SPECS / "joseph_kvrr2.toml", outputs=(-1, 1), law=law_kvrr2)
# the catalog's specs/joseph_kvrr2_oneround.toml is a link to this package file (one spec, shipped)
GRID_SIGN = Randomizer("1RoundKVRR2", sample_grid_sign, spec=SPECS / "joseph_kvrr2_oneround.toml", outputs=(-1, 1),
                       law=law_grid_sign)
CLIPPED_LAPLACE = Randomizer("UVRR2", sample_clipped_laplace, spec=SPECS / "joseph_uvrr2.toml")
GRID_LAPLACE = Randomizer("1RoundUVRR2", sample_grid_laplace, spec=SPECS / "joseph_uvrr2_grid.toml")


def _laplace_mean_spec():
    from ldpaudit.mechanism import load_spec

    return load_spec(REPO_SPECS / "laplace_mean.toml")


def _sample_baseline(x, rng, *, epsilon, M):
    return np.clip(x, -M, M) + portable.laplace(rng, x.shape) * (2 * np.asarray(M) / np.asarray(epsilon))


BASELINE = Randomizer("clipped Laplace", _sample_baseline, spec=_laplace_mean_spec)


# --- group sizes --------------------------------------------------------------------------------

def _ceil_log2(x: Fraction) -> int:
    """⌈log₂ x⌉ for a positive rational x, exactly."""
    k = x.numerator.bit_length() - x.denominator.bit_length()
    while Fraction(2) ** k < x:
        k += 1
    while Fraction(2) ** (k - 1) >= x:
        k -= 1
    return k


@lru_cache(maxsize=64)
def _root_two_log(n) -> float:
    """√(2 ln n) by mpmath (irrational for n ≥ 2, so a ceiling of it never hangs on rounding)."""
    import mpmath

    with mpmath.workdps(portable.EXACT_DIGITS):
        return float(mpmath.sqrt(2 * mpmath.log(int(n))))


def kv_levels(R, sigma) -> int:
    return _ceil_log2((Fraction(float(R)) + 4 * Fraction(float(sigma))) / Fraction(float(sigma))) + 1


def uv_levels(R, sigma_min, sigma_max) -> int:
    return _ceil_log2((Fraction(float(R)) + 4 * Fraction(float(sigma_max))) / Fraction(float(sigma_min))) + 1


def kv_rho(n) -> int:
    return 2 * math.ceil(_root_two_log(n)) + 4


def uv_rho(n) -> int:
    return math.ceil(2 * _root_two_log(n)) + 5


def uv_scales(sigma_min, sigma_max) -> int:
    return _ceil_log2(Fraction(float(sigma_max)) / Fraction(float(sigma_min))) + 2


# --- aggregators ----------------------------------------------------------------------------------

def _kv_round1(stat, ctx):
    freq = debias_rr(stat, ctx.constants["epsilon"])
    return {"mu1": median_search(freq, float(ctx.constants["sigma"]), stop=0)}


def _kv_round2(stat, ctx):
    freq = debias_rr(stat[:, 0, :], ctx.constants["epsilon"])
    mu1 = ctx.estimates["mu1"]
    return {"mu_hat": inverse_normal_estimate(mu1, freq[:, 1], float(ctx.constants["sigma"]), ctx.sizes[0])}


def _kv1_round2(stat, ctx):
    mu1 = ctx.estimates["mu1"][:, None]
    offset, spacing = ctx.public["g"], np.asarray(ctx.public["rho"]) * np.asarray(ctx.public["sigma"])
    z = nearest_grid_point(mu1, offset, spacing)                      # (T, S)
    best = np.argmin(np.abs(z - mu1), axis=1)
    rows = np.arange(stat.shape[0])
    freq = debias_rr(stat[rows, best, :], ctx.constants["epsilon"])
    centre = z[rows, best]
    return {"mu_hat": inverse_normal_estimate(centre, freq[:, 1], float(ctx.constants["sigma"]), ctx.sizes[best])}


def _uv_round1(stat, ctx):
    freq = debias_rr(stat, ctx.constants["epsilon"])
    level = scale_level(freq)
    smin = float(ctx.constants["sigma_min"])
    sigma_hat = np.maximum(smin, np.ldexp(smin, level - 1))
    return {"mu1": median_search(freq, smin, stop=level), "sigma_hat": sigma_hat}


def _uv_round2(stat, ctx):
    return {"mu_hat": stat[:, 0] / ctx.sizes[0]}


def _uv1_round2(stat, ctx):
    mu1 = ctx.estimates["mu1"][:, None]
    smin, smax = float(ctx.constants["sigma_min"]), float(ctx.constants["sigma_max"])
    scales, rho = uv_scales(smin, smax), uv_rho(ctx.constants["n"])
    a = np.clip(round_log2(ctx.estimates["sigma_hat"] / smin), 0, scales - 1)
    cols = a[:, None] * rho + np.arange(rho)[None, :]                   # (T, ρ) subgroups at scale a
    rows = np.arange(stat.shape[0])[:, None]
    offset = np.broadcast_to(ctx.public["offset"], stat.shape)[rows, cols]
    spacing = np.broadcast_to(ctx.public["spacing"], stat.shape)[rows, cols]
    z = nearest_grid_point(mu1, offset, spacing)
    best = np.argmin(np.abs(z - mu1), axis=1)
    r = rows[:, 0]
    chosen = cols[r, best]
    return {"mu_hat": z[r, best] + stat[r, chosen] / ctx.sizes[chosen]}


def _mean(stat, ctx):
    return {"mu_hat": stat[:, 0] / ctx.sizes[0]}


# --- protocols ------------------------------------------------------------------------------------

def kv_two_round() -> Protocol:
    """KVGausstimate: RR1 + EstMean1, then KVRR2 around μ₁ and the inverse-normal estimate."""
    return Protocol("KVGausstimate", (
        Round("RR1", RR1, _kv_round1, produces=("mu1",), share="1/2", subgroups=lambda R, sigma: kv_levels(R, sigma),
              bind={"epsilon": lambda epsilon: epsilon, "s": lambda sigma: sigma, "j": lambda subgroup: subgroup}),
        Round("KVRR2", KVRR2, _kv_round2, produces=("mu_hat",), share="1/2",
              bind={"epsilon": lambda epsilon: epsilon, "mu1": lambda mu1: mu1, "sigma": lambda sigma: sigma}),
    ), output="mu_hat", constants=("n", "epsilon", "sigma", "R"),
        description="known variance, two rounds (adaptive)")


def kv_one_round() -> Protocol:
    """1RoundKVGausstimate: RR1 and, in the same round, thresholds at fixed grids."""
    return Protocol("1RoundKVGausstimate", (
        Round("RR1", RR1, _kv_round1, produces=("mu1",), share="1/2", subgroups=lambda R, sigma: kv_levels(R, sigma),
              bind={"epsilon": lambda epsilon: epsilon, "s": lambda sigma: sigma, "j": lambda subgroup: subgroup}),
        Round("1RoundKVRR2", GRID_SIGN, _kv1_round2, produces=("mu_hat",), share="1/2",
              subgroups=lambda n: 5 * kv_rho(n),
              bind={"epsilon": lambda epsilon: epsilon, "g": lambda subgroup, sigma: subgroup * sigma / 5,
                    "rho": lambda n: kv_rho(n), "sigma": lambda sigma: sigma}),
    ), output="mu_hat", constants=("n", "epsilon", "sigma", "R"),
        description="known variance, one round (nonadaptive)")


def uv_two_round() -> Protocol:
    """UVGausstimate: RR1 on the σ_min grid gives μ₁ and σ̂; then Laplace on x clipped around μ₁."""
    return Protocol("UVGausstimate", (
        Round("RR1", RR1, _uv_round1, produces=("mu1", "sigma_hat"), share="1/2",
              subgroups=lambda R, sigma_min, sigma_max: uv_levels(R, sigma_min, sigma_max),
              bind={"epsilon": lambda epsilon: epsilon, "s": lambda sigma_min: sigma_min,
                    "j": lambda subgroup: subgroup}),
        Round("UVRR2", CLIPPED_LAPLACE, _uv_round2, produces=("mu_hat",), share="1/2",
              bind={"epsilon": lambda epsilon: epsilon, "center": lambda mu1: mu1,
                    "half_width": lambda sigma_hat, n: 2 * sigma_hat * (1 + _root_two_log(n))}),
    ), output="mu_hat", constants=("n", "epsilon", "sigma_min", "sigma_max", "R"),
        description="unknown variance, two rounds (adaptive)")


def uv_one_round() -> Protocol:
    """1RoundUVGausstimate: RR1 and, in the same round, Laplace reports relative to fixed grids."""
    def offset(subgroup, n, sigma_min):
        return (subgroup % uv_rho(n)) * np.ldexp(sigma_min, subgroup // uv_rho(n))

    def spacing(subgroup, n, sigma_min):
        return uv_rho(n) * np.ldexp(sigma_min, subgroup // uv_rho(n))

    return Protocol("1RoundUVGausstimate", (
        Round("RR1", RR1, _uv_round1, produces=("mu1", "sigma_hat"), share="1/2",
              subgroups=lambda R, sigma_min, sigma_max: uv_levels(R, sigma_min, sigma_max),
              bind={"epsilon": lambda epsilon: epsilon, "s": lambda sigma_min: sigma_min,
                    "j": lambda subgroup: subgroup}),
        Round("1RoundUVRR2", GRID_LAPLACE, _uv1_round2, produces=("mu_hat",), share="1/2",
              subgroups=lambda n, sigma_min, sigma_max: uv_scales(sigma_min, sigma_max) * uv_rho(n),
              bind={"epsilon": lambda epsilon: epsilon, "offset": offset, "spacing": spacing}),
    ), output="mu_hat", constants=("n", "epsilon", "sigma_min", "sigma_max", "R"),
        description="unknown variance, one round (nonadaptive)")


def laplace_baseline() -> Protocol:
    """Every user: Laplace mechanism on x clipped to [-R, R]; the analyst averages."""
    return Protocol("clipped Laplace", (
        Round("Laplace", BASELINE, _mean, produces=("mu_hat",), share=1,
              bind={"epsilon": lambda epsilon: epsilon, "M": lambda R: R}),
    ), output="mu_hat", constants=("n", "epsilon", "R"), description="naive baseline, one round")


PROTOCOLS = {
    "kv2": kv_two_round,
    "kv1": kv_one_round,
    "uv2": uv_two_round,
    "uv1": uv_one_round,
    "laplace": laplace_baseline,
}
