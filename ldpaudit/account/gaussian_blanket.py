"""The privacy-blanket bound for shuffled reports of the Gaussian mechanism (issue 18, item 3b,
for a mechanism without pure local DP; Su, Cheng & Wang, arXiv 2504.07414, and Takagi & Liew,
arXiv 2601.19154, for the divergence; the computation and its error control are ours).

Units: the noise scale s is 1 and the input interval is [-a, a] (a = (high - low)/(2 s));
z and x are measured in these units (the likelihood ratios do not change).

**The blanket.** ω(z) = min over x in [-a, a] of φ(z - x) = φ(|z| + a), of total mass
γ = 2Φ(-a): every report is, with probability γ, a draw from ω/γ whatever its input. With Z
i.i.d. over R ∪ {⊥}, P(Z ∈ dz) = ω(z)dz, P(⊥) = 1 - γ, and, for the target pair (x, x'),
l(z) = (φ(z - x) - e^ε φ(z - x'))/ω(z), l(⊥) = 0,

    D_{e^ε}(shuffled view | x || shuffled view | x') <= D(x, x') = (1/n) E[(Σ_j l(Z_j))_+]

(Balle, Bell, Gascón & Nissim, CRYPTO 2019; the same argument as :mod:`.blanket`).

**One pair's dominating law.** Every bin B of z gets the range [m_B, M_B] of l over B (closed
forms: l = e^{r(z,x)} - e^ε e^{r(z,x')}, r(z, x) = (a + t)(|z| + (a - t)/2), t = ±x, is monotone
in |z|) and the mean of l on B (from Φ). The two-point law on {m_B, M_B} with that mean
dominates l(Z) given Z ∈ B in the convex order; so does the mixture over bins (same bin masses
ω(B)), the n-fold sum, and (·)_+ of it. (The code takes input intervals, so that rounding can
only widen them; a pair is the degenerate interval.)

**Every target pair** (:func:`monotone_distance`, :func:`blanket_bound`): the end pair (low, high)
bounds every pair of a monotone region by an increasing-convex-order path argument; the pairs
outside it are close, and one report's exact profile bounds them.

**Computing E[(S)_+] for the dominating law.** Bins whose top M_B exceeds a cap, and |z| beyond
a range, are left out: (S)_+ <= (Σ_in l_j)_+ + Σ_out (l_j)_+, so they count as 0 in the sum and
their E[(l)_+] <= ∫_B max_x φ(z - x)dz is added to D (at most a small share of δ). The points
are spread onto the lattice hZ by mean-preserving splits (convex order up again). Then, for
the lattice law P and any θ > 0 (exactly),

    E[(S)_+] = Λ(θ)^n Σ_{k > 0} kh e^{-θkh} P_θ^{*n}(k),   P_θ = P e^{θkh}/Λ(θ),

with θ at the saddle point (P_θ centred at 0). P_θ^{*n} is computed by FFT on a cyclic
lattice of N points: the wrap-around only adds mass, so it can only raise the sum (valid).
The terms k > K are at most max_{t > Kh} t e^{-θt} times the tilted mass beyond Kh (1, or a
Chernoff bound (Λ(θ + λ)/Λ(θ))^n e^{-λKh} when the window is cut at TAIL_SDS standard
deviations of the tilted sum).

**Numerical control.** Every lattice mass is an upper bound of the exact construction's (bin
masses and means from scipy's ``ndtr`` with a relative error budget :data:`LIB_REL`, values
from ``exp`` likewise, split fractions and tilts with their rounding); the FFT's error per
entry is bounded by :func:`fft_error` (Higham, Accuracy and Stability of Numerical
Algorithms, 2nd ed., Thm 24.2, with the n-th power's rounding) and added to every entry.
Assumed, not proved: that scipy's ``ndtr``, numpy's ``exp`` and pocketfft meet those budgets
(tests check ``ndtr`` and the convolution against mpmath and exact sums).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

#: unit roundoff of float64
U = 2.0 ** -53
#: relative error budget of scipy.special.ndtr and numpy.exp per call (a few ulps in practice)
LIB_REL = 1e-14
#: the share of δ given to left-out bins and the tails beyond the z range
OUT_SHARE = 1e-3
#: the relative width of the ε searches' final brackets (the upper end is returned)
EPS_RTOL = 1e-5
#: bins per unit of z (noise scale 1) on each side
BINS_PER_UNIT = 2000
#: the largest cyclic lattice (points) and single-report lattice (points)
MAX_FFT = 2 ** 22
MAX_SUPPORT = 8_000_000
#: lattice points per standard deviation of the (tilted) single-report law
POINTS_PER_SD = 16
#: the window of the positive part: at most Kh = WINDOW/θ (the rest is below e^-WINDOW WINDOW/θ)
WINDOW = 45.0
#: or TAIL_SDS standard deviations of the tilted sum, beyond which a Chernoff bound is charged
TAIL_SDS = 14.0
#: windows up to this many points are taken whole (no Chernoff term)
SHORT_WINDOW = 2 ** 17
#: standard deviations of the tilted sum kept to the left of 0 (wrap-around beyond costs
#: tightness only)
LEFT_SDS = 14.0


def _ndtr(x):
    from scipy.special import ndtr

    return ndtr(x)


def _mass(v0, v1, t):
    """∫_{v0}^{v1} φ(v - t) dv, elementwise, with an absolute error bound (the difference of
    two Φ values taken on the side where both are small)."""
    lo, hi = v0 - t, v1 - t
    right = lo >= 0        # both tails on the right: Φ̄(lo) - Φ̄(hi) = Φ(-lo) - Φ(-hi)
    a = np.where(right, _ndtr(-lo), _ndtr(hi))
    b = np.where(right, _ndtr(-hi), _ndtr(lo))
    value = a - b
    err = (LIB_REL + 4 * U) * (np.abs(a) + np.abs(b))
    return np.maximum(value, 0.0), err


def _r(v, t, a):
    """log(φ(v - t)/φ(v + a)) = (a + t)(v + (a - t)/2) for v >= 0, t in [-a, a]."""
    return (a + t) * (v + (a - t) / 2)


@dataclass(frozen=True)
class Geometry:
    a: float          # half-width of the input interval in noise units
    n: int
    delta: float


@dataclass
class LatticeLaw:
    """A dominating law on the lattice hZ: masses (upper bounds) P[k - kmin]."""
    h: float
    kmin: int
    P: np.ndarray
    charge: float              # E[(l)_+] of the left-out part (added to D)
    details: dict = field(default_factory=dict)


def _side(v0, v1, T, Tp, a, e_eps, e_eps_err):
    """The bins [v0, v1] of one side of z (v = |z|, t = ±x ranging over T, t' over Tp):
    (W_lo, W_up, m_lo, M_up, N_up, charge_up) elementwise."""
    t1, t2 = T
    s1, s2 = Tp
    # l's range over the bin and the input intervals: r is increasing in v, concave in t
    tsup = np.clip(v1, t1, t2)
    r_sup = _r(v1, tsup, a)
    r_inf = np.minimum(_r(v0, t1, a), _r(v0, t2, a))
    rp_sup = _r(v1, np.clip(v1, s1, s2), a)
    rp_inf = np.minimum(_r(v0, s1, a), _r(v0, s2, a))

    def up(r):
        return np.exp(r) * (1 + LIB_REL + 8 * U * (np.abs(r) + 2))

    def down(r):
        return np.exp(r) * (1 - LIB_REL - 8 * U * (np.abs(r) + 2))

    e_up, e_lo = e_eps * (1 + e_eps_err), e_eps * (1 - e_eps_err)
    M_up = (up(r_sup) - e_lo * down(rp_inf)) * (1 + 4 * U)
    M_up = np.where(M_up >= 0, M_up, M_up * (1 - 8 * U))
    m_lo = down(r_inf) - e_up * up(rp_sup)
    m_lo = np.where(m_lo >= 0, m_lo * (1 - 8 * U), m_lo * (1 + 8 * U))
    # bin mass under ω: ∫ φ(v + a)
    W, W_err = _mass(v0, v1, -a)
    W_lo, W_up = np.maximum(W - W_err, 0.0), W + W_err
    # the largest mean numerator over the intervals: max_t ∫φ(v - t) - e^ε min_t' ∫φ(v - t')
    G_max, G_err = _mass(v0, v1, np.clip(0.5 * (v0 + v1), t1, t2))
    g1, e1 = _mass(v0, v1, s1)
    g2, e2 = _mass(v0, v1, s2)
    G_min = np.minimum(g1, g2)
    G_min_err = np.maximum(e1, e2)
    N_up = (G_max + G_err) - e_lo * np.maximum(G_min - G_min_err, 0.0)
    N_up = N_up + 8 * U * (np.abs(G_max) + e_up * np.abs(G_min))
    charge = (G_max + G_err) * (1 + 4 * U)
    return W_lo, W_up, m_lo, M_up, N_up, charge


def dominating_law(geo: Geometry, eps: float, pair) -> LatticeLaw | None:
    """The lattice law dominating l(Z) (increasing convex order) for the target pair (x, x') in
    noise scales, centred inputs (x, x' in [-a, a]); None when the lattice would exceed
    :data:`MAX_SUPPORT`."""
    from scipy.special import ndtri

    a = geo.a
    (x1, x2), (y1, y2) = (pair[0], pair[0]), (pair[1], pair[1])
    budget = OUT_SHARE * geo.delta
    # the z range: beyond ±zmax, ∫ max_x φ(z - x) <= budget/4 on both sides together
    zmax = a + float(-ndtri(budget / 8)) + 0.5
    per_side = max(int(math.ceil(zmax * BINS_PER_UNIT)), 16)
    edges = np.linspace(0.0, zmax, per_side + 1)
    v0, v1 = edges[:-1], edges[1:]
    zmax = float(edges[-1])
    e_eps = math.exp(eps)
    e_err = LIB_REL + 4 * U
    sides = []
    tail = 0.0
    for T, Tp in (((x1, x2), (y1, y2)), ((-x2, -x1), (-y2, -y1))):   # z >= 0: t = x; z <= 0: t = -x
        sides.append(_side(v0, v1, T, Tp, a, e_eps, e_err))
        tail += float(_ndtr(-(zmax - T[1]))) * (1 + LIB_REL) + 4 * U
    W_lo, W_up, m_lo, M_up, N_up, charge = (np.concatenate(parts) for parts in zip(*sides))
    # leave out the bins of largest M while their charge stays within the budget
    order = np.argsort(-M_up, kind="stable")
    cum = np.cumsum(charge[order]) * (1 + len(order) * U) + tail
    n_out = int(np.searchsorted(cum, budget - tail, side="right"))
    n_out = min(n_out, len(order))
    out = np.zeros(len(order), dtype=bool)
    out[order[:n_out]] = True
    charge_total = (float(cum[n_out - 1]) if n_out else tail)
    inside = ~out
    W_lo, W_up, m_lo, M_up, N_up = W_lo[inside], W_up[inside], m_lo[inside], M_up[inside], N_up[inside]
    if N_up.size == 0:
        return None
    # two-point laws {m, M} with mean N/W (upper bounds of both masses over W in [W_lo, W_up])
    span = M_up - m_lo
    flat = (span <= 1e-300) | (N_up >= W_lo * M_up)
    span_safe = np.where(flat, 1.0, span)
    mass_M = (N_up - np.where(m_lo >= 0, W_lo, W_up) * m_lo) / span_safe
    mass_m = (np.where(M_up >= 0, W_up, W_lo) * M_up - N_up) / span_safe
    err = (8 * U * (np.abs(N_up) + W_up * (np.abs(m_lo) + np.abs(M_up)))) / span_safe
    mass_M = np.where(flat, W_up, np.clip(mass_M + err, 0.0, None))
    mass_m = np.where(flat, 0.0, np.clip(mass_m + err, 0.0, None))
    mass_M = np.minimum(mass_M, W_up)
    mass_m = np.minimum(mass_m, W_up)
    values = np.concatenate([M_up, m_lo])
    masses = np.concatenate([mass_M, mass_m])
    keep = masses > 0
    values, masses = values[keep], masses[keep]
    p0 = (1.0 - float(np.sum(W_lo)) * (1 - len(W_lo) * U)) * (1 + 4 * U) + 4 * U   # ⊥ and left-out bins
    # the lattice step: a fraction of the law's standard deviation
    mean = float(np.sum(values * masses))
    sd = math.sqrt(max(float(np.sum(values * values * masses)) - mean * mean, 0.0)) or 1.0
    h = sd / POINTS_PER_SD
    lo_v = min(float(values.min()), 0.0)
    hi_v = max(float(values.max()), 0.0)
    kmin = int(math.floor(lo_v / h)) - 1
    kmax = int(math.ceil(hi_v / h)) + 1
    if kmax - kmin + 2 > MAX_SUPPORT:
        return None
    q = values / h
    k = np.floor(q)
    f = q - k
    f_err = 4 * U * (np.abs(q) + 1)
    # the exact split of v = qh between kh and (k + 1)h has the fractions f, 1 - f within f_err
    # of the computed ones; where rounding may have put v below kh the exact law moves that mass
    # up to kh (still dominating), where above (k + 1)h it splits between k + 1 and k + 2 with at
    # most f_err at k + 2 (added)
    w_hi = masses * np.minimum(f + f_err, 1.0) * (1 + 4 * U)
    w_lo = masses * np.minimum(1 - f + f_err, 1.0) * (1 + 4 * U)
    w_top = np.where(f + f_err > 1, masses * f_err * (1 + 4 * U), 0.0)
    idx = (k.astype(np.int64) - kmin)
    size = kmax - kmin + 2     # k <= kmax - 1, so k + 2 <= kmax + 1
    P = (np.bincount(idx, weights=w_lo, minlength=size) + np.bincount(idx + 1, weights=w_hi, minlength=size)
         + np.bincount(idx + 2, weights=w_top, minlength=size))
    P = P * (1 + (len(values) + 2) * U * 2)
    P[-kmin] = (P[-kmin] + p0) * (1 + 2 * U)
    return LatticeLaw(h, kmin, P, charge_total, {"bins_in": int(inside.sum()), "bins_out": n_out,
                                                  "zmax": zmax, "sd": sd, "mean": mean})


def fft_error(N: int, n: int, s: float) -> float:
    """A bound on the absolute error of every entry of the n-fold cyclic self-convolution of a
    non-negative vector of sum s (s^n <= 2 assumed by the caller), computed by rfft, an entrywise
    n-th power and irfft (Higham, Thm 24.2: ||fl(FFT x) - FFT x||_2 <= log2(N) η ||FFT x||_2 /
    (1 - log2(N) η), η = μ + γ_4(√2 + μ), with μ = u for the twiddle factors)."""
    L = max(math.log2(N), 1.0)
    eta = U + (4 * U / (1 - 4 * U)) * (math.sqrt(2) + U)
    c = L * eta / (1 - L * eta)
    # forward: ||e||_2 <= c sqrt(N) s (||FFT x||_2 = sqrt(N) ||x||_2 <= sqrt(N) s)
    e_fwd = c * math.sqrt(N) * s
    grow = (s + e_fwd) ** max(n - 1, 0)
    # the power: n |e_j| grow, plus its own rounding (exp(n log y)): 8 n u (|log|y|| + 4)|y|^n,
    # with |y|^n |log |y||  <= grow (s + 1) (|y| <= s + e)
    pow_err = n * e_fwd * grow + 8 * n * U * math.sqrt(N) * (grow * (s + 1) * 5)
    # inverse (scaled by 1/N): input error ||E||_2/sqrt(N); its own rounding c ||x||_2, ||x||_2 <= s^n
    return pow_err / math.sqrt(N) + c * (grow * s + pow_err / math.sqrt(N)) + 4 * U


@dataclass(frozen=True)
class Evaluation:
    divergence: float      # the bound on D (inf when not computed)
    theta: float = 0.0
    N: int = 0
    details: dict = field(default_factory=dict)


def divergence(law: LatticeLaw, n: int) -> Evaluation:
    """An upper bound on (1/n) E[(S)_+] + the left-out charge for S the sum of n draws of the
    lattice law (module doc: saddle-point tilt, cyclic FFT, window and error terms)."""
    h, P = law.h, law.P
    k = np.arange(law.kmin, law.kmin + len(P), dtype=np.float64)
    x = k * h
    nz = P > 0
    if not np.any(nz[x > 0]):
        return Evaluation(law.charge, details={"reason": "no positive value"})
    logP = np.full_like(P, -np.inf)
    logP[nz] = np.log(P[nz])
    logP_fin = np.where(nz, logP, 0.0)
    log_err = LIB_REL + 8 * U * (float(np.max(np.abs(logP_fin))) + 4) + len(P) * U   # relative, of a sum of exps

    def moments(theta):
        e = logP + theta * x
        c = float(np.max(e[nz]))
        w = np.exp(e - c)
        lam = float(np.sum(w))
        return c, w, lam, float(np.sum(w * x)) / lam

    # the saddle point: the tilted mean is 0 (increasing in θ, derivative the tilted variance);
    # any θ > 0 gives a valid bound, the saddle a tight one: bisection with Newton steps
    if moments(0.0)[3] >= 0:
        return Evaluation(math.inf, details={"reason": "the dominating law's mean is not negative"})
    lo, hi = 0.0, 1.0 / max(float(np.max(x)), h)
    while moments(hi)[3] < 0:
        lo, hi = hi, 2 * hi
        if hi > 1e12:
            return Evaluation(math.inf, details={"reason": "no saddle point"})
    th = 0.5 * (lo + hi)
    for _ in range(60):
        c, w, lam, mean = moments(th)
        if mean < 0:
            lo = th
        else:
            hi = th
        if hi - lo <= 1e-7 * hi or abs(mean) <= 1e-9 * math.sqrt(float(np.sum(w * x * x)) / lam):
            break
        var = float(np.sum(w * x * x)) / lam - mean * mean
        step = th - mean / var if var > 0 else -1.0
        th = step if lo < step < hi else 0.5 * (lo + hi)
    hi = th
    theta = hi
    c, w, lam, mean = moments(theta)
    var = float(np.sum(w * x * x)) / lam - mean * mean
    # tilted masses as upper bounds of P e^{θkh}/Λ_f (Λ_f = λ e^c, any positive float)
    # exp(log P + θx - c): the rounding of log P (|log P| u), of the sum and of exp
    tilt_err = (LIB_REL + 8 * U * (np.abs(theta * x - c) + np.abs(logP_fin) + 4))
    qt = (w / lam) * (1 + tilt_err) * (1 + 4 * U)
    s = float(np.sum(qt)) * (1 + len(qt) * U)
    log_lam = c + math.log(lam)
    # the window (0, Kh]: up to WINDOW/θ, or fewer points where a Chernoff bound on the tilted
    # sum beyond Kh is small enough (the tail term below uses it)
    sd_sum = math.sqrt(max(var, 0.0) * n)
    K = int(math.ceil(WINDOW / (theta * h)))
    if K > SHORT_WINDOW:   # a shorter window where a Chernoff bound covers the rest
        K = min(K, int(math.ceil((TAIL_SDS * sd_sum + 4 * h) / h)))
    spread = LEFT_SDS * sd_sum / h + 8
    N = 1 << int(math.ceil(math.log2(K + spread + 2)))
    if s ** n > 2:
        return Evaluation(math.inf, theta, N, {"reason": "tilted mass rounding too large"})
    if N > MAX_FFT:
        # too wide for the FFT: the Chernoff form E[(S)_+] <= Λ_f^n s^n max_t t e^{-θt} = Λ_f^n s^n/(eθ)
        log_e = n * (log_lam + math.log(s)) - 1 - math.log(theta) + 4 * n * U * (abs(c) + abs(math.log(lam)) + 2)
        D = math.exp(log_e) / n * (1 + LIB_REL + 4 * U * (abs(log_e) + 4)) + law.charge
        return Evaluation(D, theta, 0, {"method": "chernoff", "reason": f"the cyclic lattice would need {N} points"})
    cyc = np.bincount((np.arange(law.kmin, law.kmin + len(P)) % N), weights=qt, minlength=N)
    cyc *= (1 + (len(qt) // N + 2) * U * 2)
    y = np.fft.rfft(cyc)
    # the n-th power only where it does not underflow (elsewhere |y|^n < e^-700, set to 0 and
    # counted in the error below)
    mag = np.abs(y)
    live = n * np.log(np.maximum(mag, 1e-300)) > -700.0
    yn = np.zeros_like(y)
    yn[live] = y[live] ** n
    conv = np.fft.irfft(yn, n=N)
    err = fft_error(N, n, s) + 2 * math.exp(-700.0)
    ks = np.arange(1, K + 1)
    t = ks * h
    weight = t * np.exp(-theta * t) * (1 + LIB_REL + 8 * U * (theta * t + 2))
    inner = float(np.sum(weight * (np.maximum(conv[1:K + 1], 0.0) + err))) * (1 + (K + 4) * U)
    tK = (K + 1) * h
    peak = tK * math.exp(-theta * tK) if theta * tK >= 1 else 1 / (math.e * theta)
    if theta * tK >= WINDOW:
        tail_mass = s ** n
    else:
        # Chernoff under the tilted law: P(S >= tK) <= (Λ(θ + λ)/Λ(θ))^n e^{-λ tK}, λ = tK/(n var)
        log_tail = n * math.log(s)
        for scale in (0.5, 1.0, 2.0):
            lam_c = scale * tK / (n * var)
            c2, w2, l2, _ = moments(theta + lam_c)
            log_ratio = (c2 + math.log(l2)) - log_lam
            # both sums' relative error (exponents up to |(θ + λ)x - c2|), the logs' rounding
            spread_x = float(np.max(np.abs((theta + lam_c) * x[nz] - c2)))
            log_ratio += 2 * (log_err + 8 * U * spread_x) + 4 * U * (abs(c2) + abs(log_lam) + 2)
            log_tail = min(log_tail, n * log_ratio - lam_c * tK + 1e-6)
        tail_mass = math.exp(log_tail)
    tail = peak * tail_mass * (1 + LIB_REL)
    log_e = n * log_lam + math.log(inner + tail) + 4 * U
    # the rounding of n log Λ_f (Λ_f = λ e^c, the float the masses were divided by)
    log_e += 4 * n * U * (abs(c) + abs(math.log(lam)) + 1)
    D = math.exp(log_e) / n * (1 + LIB_REL + 4 * U * (abs(log_e) + 4)) + law.charge
    return Evaluation(D, theta, N, {"K": K, "fft_error": err, "tail": tail, "inner": inner,
                                    "log_lambda": log_lam, "var": var})


# --- every pair: the monotone region and the pairs near the diagonal --------------------------


def monotone_distance(a: float, eps: float):
    """d_M (mpmath, 50 digits, rounded up): every pair x >= x' in [-a, a] with x - x' >= d_M
    lies in the monotone region M, on which the end pair's divergence bounds the pair's.

    * **The monotone region.** M = {x >= x': g(x) >= e^ε g(x'), g(-x) <= e^ε g(-x')},
      g(x) = (a + x) e^{(a² - x²)/2}. On M, l(z) is non-decreasing in z: its derivative on
      z > 0 is (a + x)e^{r(z,x)} - e^ε (a + x')e^{r(z,x')}, whose two terms have a ratio
      non-decreasing in z, so its sign is that at z = 0; likewise on z < 0. So {l > c} is a
      half-line (z*, ∞) for every c, and F(c) = ∫(φ(z - x) - e^ε φ(z - x') - cω(z))_+ dz has
      ∂F/∂x = φ(z* - x) >= 0 and ∂F/∂x' = -e^ε φ(z* - x') <= 0. For a < 1/√2, g is increasing
      on [-a, a], so M is closed under raising x and lowering x': the path
      (x, x') -> (a, x') -> (a, -a) stays in M, and F(x, x'; c) <= F(a, -a; c) for every c.
      That is the increasing convex order of l(Z) (E[(l(Z) - c)_+] = F(c) + (1 - γ)(-c)_+),
      which sums of independent copies and (·)_+ keep: D(x, x') <= D(a, -a).
    * **The distance.** At fixed distance d, log g(x) - log g(x - d) is decreasing in x
      (derivative 1/(a + x) - 1/(a + x - d) - d < 0), so it is at least its value at x = a,
      C(d) = log(2a/(2a - d)) - d(2a - d)/2, increasing in d; likewise for g(-x). A pair
      x >= x' outside M has C(x - x') < ε, i.e. x - x' < d_M = the root of C(d) = ε.
    """
    import mpmath

    with mpmath.workdps(50):
        A, e = mpmath.mpf(a), mpmath.mpf(eps)

        def C(d):
            return mpmath.log(2 * A / (2 * A - d)) - d * (2 * A - d) / 2

        lo, hi = mpmath.mpf(0), 2 * A
        for _ in range(200):
            mid = (lo + hi) / 2
            if C(mid) >= e:
                hi = mid
            else:
                lo = mid
            if hi - lo <= mpmath.mpf(10) ** -40 * A:
                break
        if not C(hi) >= e:      # hi = 2a only when C never reaches ε (cannot happen: C -> inf)
            return 2 * A
        return hi


@dataclass(frozen=True)
class BlanketBound:
    """The privacy-blanket bound for every target pair (module doc of :func:`blanket_bound`)."""
    epsilon: float | None            # proved for every pair; None when not computed
    epsilon_end: float | None        # the end pair's ε (the monotone region's)
    epsilon_near: float | None       # one report's ε at distance d_M (the pairs near the diagonal)
    d_monotone: float | None = None  # d_M(ε_end) in noise units, rounded up
    delta_end: float | None = None   # the end pair's bound on D at epsilon
    evaluations: int = 0
    details: dict = field(default_factory=dict)
    notes: tuple = ()

    def to_json(self) -> dict:
        from dataclasses import asdict

        out = asdict(self)
        out["notes"] = list(self.notes)
        return out


def end_pair_divergence(geo: Geometry, eps: float) -> Evaluation:
    """The bound on D(a, -a) at ε."""
    a = geo.a
    law = dominating_law(geo, eps, (a, -a))
    if law is None:
        return Evaluation(math.inf, details={"reason": f"the lattice would exceed {MAX_SUPPORT} points"})
    return divergence(law, geo.n)


def blanket_bound(a: float, n: int, delta: float, *, epsilon_cap: float, one_report_delta,
                  one_report_epsilon, epsilon_hint: float = 0.0) -> BlanketBound:
    """ε with every neighbouring pair's shuffled divergence at most δ, by the privacy blanket:

    1. **The end pair.** ε_end = the smallest ε (to a relative :data:`EPS_RTOL`, its upper end) with the
       certified D(a, -a; ε) <= δ (:func:`end_pair_divergence`, searched below ``epsilon_cap``).
    2. **The monotone region at ε_end** (:func:`monotone_distance`): every pair x >= x'
       in M(ε_end) has D(x, x'; ε_end) <= D(a, -a; ε_end) <= δ, and D is non-increasing in ε
       (l decreases pointwise), so it is covered at every ε >= ε_end.
    3. **Pairs near the diagonal**: outside M(ε_end), x - x' < d_M(ε_end). Two bounds, the
       smaller kept:

       * *one report*: at distance d_M it reaches δ at ``one_report_epsilon(d_M)``
         (post-processing);
       * *a chain through a far input* (when one report is worse than the end pair): with
         w = x' - d_M(ε') (or x + d_M(ε') when that leaves [-a, a]), both (x, w) and (w, x')
         are at least d_M(ε') apart, so both are in M(ε') (the second mirrored), and the
         hockey-stick divergence's chain rule D_{e^{2ε'}}(P || R) <= D_{e^ε'}(P || Q) +
         e^ε' D_{e^ε'}(Q || R) gives (1 + e^ε') D(a, -a; ε') <= δ at 2ε'. ε' is searched with
         D(a, -a; ε') <= δ/2.5 and the product checked; it applies when d_M(ε') <= 2a/3 (then
         every close pair has room for w on one side).

    ε = max(ε_end, ε_near), for a < 1/√2 (else not computed, with the reason).
    ``epsilon_hint`` (a lower bound on ε_end, e.g. a proved lower bound on the shuffled ε) only
    starts the searches near the answer."""
    notes = []
    if not a < 1 / math.sqrt(2):
        return BlanketBound(None, None, None, notes=(
            f"epsilon_blanket is not computed: the input half-width is a = {a:.4g} noise scales >= 1/√2, where "
            "(a + x)e^((a² - x²)/2) is not increasing on [-a, a] and the monotone-region argument that extends the "
            "end pair's bound to every pair does not apply",))
    geo = Geometry(a, n, delta)
    calls = [0]

    def div(eps):
        calls[0] += 1
        return end_pair_divergence(geo, eps).divergence

    top = end_pair_divergence(geo, epsilon_cap)
    calls[0] += 1
    if not top.divergence <= delta:
        return BlanketBound(None, None, None, evaluations=calls[0], notes=(
            f"epsilon_blanket is not computed: the end pair's blanket bound is not below δ at ε = {epsilon_cap:.6g} "
            f"(the one-report bound){': ' + top.details['reason'] if 'reason' in top.details else ''}",))
    eps_end = _search(div, delta, epsilon_cap, epsilon_hint)
    final = end_pair_divergence(geo, eps_end)
    calls[0] += 1
    if not final.divergence <= delta:     # smallest_epsilon returns a point shown <= δ; checked again
        eps_end, final = epsilon_cap, top
    d_m = monotone_distance(a, eps_end)
    d_up = math.nextafter(float(d_m), math.inf)      # the distance reported, and used (>= d_M)
    eps_one = float(one_report_epsilon(d_up))
    details = {"theta": final.theta, "fft_points": final.N, "epsilon_near_one_report": eps_one,
               "epsilon_near_chain": None, **{k: v for k, v in final.details.items() if k in ("fft_error", "K")}}
    eps_near, how = eps_one, f"one report at distance d_M reaches δ at {eps_one:.6g}"
    if eps_one > eps_end:
        chain = _chain_epsilon(geo, div, eps_end, epsilon_cap, top.divergence)
        calls[0] += 1
        if chain is not None:
            details.update(epsilon_near_chain=chain["epsilon"], chain_level=chain["level"],
                           chain_d_monotone=chain["d_monotone"], chain_delta=chain["delta"])
            if chain["epsilon"] < eps_one:
                eps_near = chain["epsilon"]
                how = (f"a chain through an input w at least d_M({chain['level']:.6g}) = {chain['d_monotone']:.4g} "
                       f"away (both legs in the monotone region) reaches δ at 2 × {chain['level']:.6g}; one report "
                       f"would need {eps_one:.6g}")
    eps = max(eps_end, eps_near)
    notes.append(f"every target pair: the end pair (low, high) bounds the pairs of the monotone region at ε_end = "
                 f"{eps_end:.6g}; the pairs outside it are closer than d_M = {d_up:.4g} noise scales: {how}")
    if eps_near > eps_end:
        notes.append("epsilon_blanket is set by the pairs near the diagonal (ε_near > ε_end): the end pair alone "
                     "would give a smaller ε, not proved here for those pairs")
    return BlanketBound(eps, eps_end, eps_near, d_up, final.divergence, calls[0], details, tuple(notes))


def _search(div, delta: float, cap: float, hint: float) -> float:
    """The smallest ε <= cap (to :data:`EPS_RTOL`, its upper end) with div(ε) <= δ, given
    div(cap) <= δ: an upward geometric bracket from ``hint`` (a lower bound), then regula falsi
    (:func:`ldpaudit.account.blanket.smallest_epsilon`)."""
    from ldpaudit.account.blanket import smallest_epsilon

    lo, hi = 0.0, cap
    if 0 < hint < cap:
        lo = hint * (1 - 1e-9)
        step = hint * 1.25
        while step < cap:
            if div(step) <= delta:
                hi = step
                break
            lo, step = step, step * 1.5
    eps, _, _ = smallest_epsilon(div, delta, hi, rtol=EPS_RTOL, lower=lo)
    return eps


def _chain_epsilon(geo: Geometry, div, eps_end: float, cap: float, at_cap: float) -> dict | None:
    """The chain bound for the pairs near the diagonal (:func:`blanket_bound`, 3): ε' with
    (1 + e^ε') D(a, -a; ε') <= δ, checked; None when the chain does not apply. ``at_cap`` is
    D(a, -a; cap), already computed."""
    target = geo.delta / 2.5
    if not at_cap <= target:
        return None
    level = _search(div, target, cap, eps_end)
    value = end_pair_divergence(geo, level).divergence
    total = value * (1 + math.exp(level)) * (1 + 4 * U)
    if not total <= geo.delta:
        return None
    d_m = monotone_distance(geo.a, level)
    if not d_m <= 2 * geo.a / 3:
        return None
    return {"epsilon": 2 * level, "level": level, "d_monotone": math.nextafter(float(d_m), math.inf),
            "delta": total}
