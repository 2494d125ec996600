"""Audit the server side of a frequency oracle: the estimates it publishes from n reports.

For each chosen input distribution π (uniform, one-hot, geometric), n_j = n·π_j users
(rounded by largest remainder, so the truth is the exact rational n_j/n) hold input j; each
of R trials draws their reports from the CLIENT, shuffles them and hands the list to the
SERVER, which returns one estimate per input of the spec's domain. Per coordinate j:

* bias: a confidence interval for E[p̂_j] by betting (:mod:`ldpaudit.audit.betting`), valid
  for estimates in a known range [a_j, b_j] at every R: the range of the spec's own estimator
  (the affine image of its statistic's range, or the extremes of the left inverse's column),
  or one the caller states; every estimate is checked to lie in it, and a coordinate whose
  estimates do not is reported as uncertified, never as a pass or a violation;
* variance: the ratio of the server's variance to the spec's exact variance at the truth
  (``derive``'s fixed-population model, which is how the reports are drawn), with a
  confidence interval by betting on (e_{2i-1} - e_{2i})²/2, unbiased for the variance and
  bounded by (b_j - a_j)²/2; flagged when the whole interval lies outside [1/F, F];
* post-processing: negative estimates, exact zeros and ones, estimates summing to 1, against
  what the spec's estimator would give (findings with numbers, not verdicts).

The 2·d·K hypotheses (bias = 0, ratio in [1/F, F] per coordinate and distribution) are tested
together by Holm's step-down at α on their betting p-values; the intervals shown are
simultaneous at α/(2dK) (Bonferroni). A server whose estimates are unbiased with the derived
variance is flagged with probability at most α.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

import numpy as np

from ldpaudit.errors import InvalidParameter, LdpAuditError, RandomizerError

#: the input distributions the audit knows, in the order they are run by default
DISTRIBUTIONS = ("uniform", "one-hot", "geometric")
DESCRIPTIONS = {
    "uniform": "π_j = 1/d",
    "one-hot": "every user holds the first input",
    "geometric": "π_j ∝ 2^-j (skewed: the first input holds about half the users)",
}
#: default factor F: the variance ratio is flagged when its interval lies outside [1/F, F]
DEFAULT_VARIANCE_FACTOR = 1.5
#: estimates within this relative distance of the range count as inside it (float rounding of
#: an exact end point such as (0 - h)/(g - h))
_RANGE_SLACK = 1e-9
#: estimates summing to 1 within this tolerance count as normalized
_SUM_TOLERANCE = 1e-9


@dataclass(frozen=True)
class InputDistribution:
    name: str
    counts: tuple[int, ...]        # n_j users hold input j

    def truth(self, n: int) -> tuple[Fraction, ...]:
        return tuple(Fraction(c, n) for c in self.counts)


def input_distribution(name: str, d: int, n: int) -> InputDistribution:
    """The named distribution over d inputs, as integer counts summing to n (largest remainder)."""
    if name == "uniform":
        weights = [Fraction(1, d)] * d
    elif name == "one-hot":
        weights = [Fraction(int(j == 0)) for j in range(d)]
    elif name == "geometric":
        total = sum(Fraction(1, 2**j) for j in range(d))
        weights = [Fraction(1, 2**j) / total for j in range(d)]
    else:
        raise InvalidParameter(f"distribution {name!r} is unknown; use one of {', '.join(DISTRIBUTIONS)}")
    exact = [w * n for w in weights]
    counts = [math.floor(e) for e in exact]
    by_remainder = sorted(range(d), key=lambda j: (-(exact[j] - counts[j]), j))
    for j in by_remainder[: n - sum(counts)]:
        counts[j] += 1
    return InputDistribution(name, tuple(counts))


@dataclass(frozen=True)
class SpecEstimator:
    """What the spec's own unbiased estimator says about the server's estimates: the formula,
    the range of each coordinate, the exact variance at a truth, and whether it sums to 1."""

    formula: str
    kind: str                          # "hit" or "left-inverse"
    ranges: tuple[tuple, ...]          # exact (a_j, b_j), or None where not derived
    range_rule: str
    sums_to_one: bool | None           # on every report set (None: not derived)
    _variance: Callable = field(repr=False, compare=False)

    def variance(self, truth: tuple[Fraction, ...], n: int):
        """Exact Var(p̂_j) at p = truth with n users (fixed population), one per coordinate."""
        return self._variance(truth, n)


def spec_estimator(mech) -> SpecEstimator:
    """The spec's estimator of a bound frequency oracle (finite inputs 0..d-1)."""
    import sympy as sp

    from ldpaudit.derive.algebra import F_J, N_USERS, P_J, simplify
    from ldpaudit.derive.estimator import unbiased_estimator
    from ldpaudit.derive.risk import estimator_risk

    est = unbiased_estimator(mech)
    risk = estimator_risk(mech, "fixed")
    d = len(_domain(mech))
    if est.kind == "hit":
        slope = simplify(sp.diff(est.expression, F_J))
        const = simplify(est.expression.xreplace({F_J: 0}))
        stat = est.stat
        if stat.indicator:
            ends = sorted([const, simplify(const + slope)], key=lambda e: float(sp.N(e, 30)))
            ranges = (tuple(ends),) * d
            rule = (f"the spec's estimator p̂_j = {sp.sstr(est.expression)} is affine in f_j, the frequency of "
                    f"{stat.statistic} in [0, 1]: p̂_j lies in [p̂(0), p̂(1)]")
        else:
            ranges, rule = (None,) * d, f"not derived (the statistic {stat.statistic} is not an indicator)"
        sums = None
        if stat.source == "structured" and stat.hit_set_size is not None and not stat.hit_set_size.free_symbols:
            sums = simplify(d * const + slope * stat.hit_set_size - 1) == 0   # Σ_j T_j = |hit set| on every report

        def variance(truth, n):
            return tuple(risk.variance.xreplace({P_J: sp.Rational(p.numerator, p.denominator), N_USERS: n})
                         for p in truth)

        return SpecEstimator(f"p̂_j = {sp.sstr(est.expression)} (f_j: the frequency of {stat.statistic})",
                             "hit", ranges, rule, sums, variance)
    R = est.R
    ranges = tuple(_sorted_pair(R[:, j]) for j in range(R.shape[1]))
    ones = R * sp.ones(R.shape[1], 1)
    sums = all(simplify(ones[i] - 1) == 0 for i in range(R.shape[0]))

    def variance(truth, n):
        at = {pi: sp.Rational(p.numerator, p.denominator) for pi, p in zip(est.p, truth)}
        at[N_USERS] = n
        return tuple(v.xreplace(at) for v in risk.variances)

    return SpecEstimator(f"p̂ = m̂ R, R the {est.method} of the channel (m̂: the output frequencies)",
                         "left-inverse", ranges,
                         "p̂_j = Σ_y m̂_y R[y, j] with m̂ on the simplex: p̂_j lies between the least and "
                         "largest entry of column j of R", sums, variance)


def _sorted_pair(column) -> tuple:
    import sympy as sp

    values = sorted(set(column), key=lambda e: float(sp.N(e, 30)))
    return values[0], values[-1]


def _domain(mech) -> list:
    inputs = mech.inputs
    if inputs.__class__.__name__ != "FiniteDomain" or getattr(inputs, "labels", None) is not None:
        raise InvalidParameter(f"--spec {mech.name}: audit-estimator needs a frequency oracle over inputs 0..d-1 "
                               f"(a finite input domain); {mech.name!r} has {inputs.__class__.__name__}")
    return list(inputs.enumerate())


def _number(e) -> float:
    import sympy as sp

    return float(sp.N(e, 30))


# --- drawing ----------------------------------------------------------------------------------


def _client_reports(client, batch: bool, x, count: int, rng: np.random.Generator):
    """``count`` reports of input x: an ndarray (batch targets that return one) or a list."""
    try:
        y = client(x, count, rng) if batch else [client(x) for _ in range(count)]
    except LdpAuditError:
        raise
    except Exception as exc:
        raise RandomizerError(f"client raised {type(exc).__name__} for input {x!r}: {exc}") from exc
    if batch:
        if isinstance(y, np.ndarray):
            if y.ndim == 0 or len(y) != count:
                raise RandomizerError(f"client returned {y.shape} for input {x!r} and n = {count}; a batch "
                                      f"client returns n reports (shape (n,) or (n, m))")
            return y
        try:
            y = list(y)
        except TypeError:
            raise RandomizerError(f"client returned a {type(y).__name__} for input {x!r}; a batch client returns "
                                  f"n reports (an array or a sequence)") from None
        if len(y) != count:
            raise RandomizerError(f"client returned {len(y)} reports for input {x!r} and n = {count}; it must "
                                  f"return n")
    return y


def _trial_reports(client, batch: bool, domain: list, counts, rng: np.random.Generator) -> list:
    """One trial's n reports, every input's drawn in order then shuffled, as a list."""
    parts = [_client_reports(client, batch, x, c, rng) for x, c in zip(domain, counts) if c]
    order = None
    if all(isinstance(p, np.ndarray) for p in parts) and len({p.shape[1:] for p in parts}) == 1:
        reports = np.concatenate(parts)
        order = rng.permutation(len(reports))
        reports = reports[order]
        return reports.tolist() if reports.ndim == 1 else list(reports)
    flat = [y for p in parts for y in (p.tolist() if isinstance(p, np.ndarray) and p.ndim == 1 else list(p))]
    order = rng.permutation(len(flat))
    return [flat[i] for i in order]


def _estimates(server, reports: list, d: int, where: str, scale: float) -> np.ndarray:
    try:
        out = server(reports)
    except LdpAuditError:
        raise
    except Exception as exc:
        raise RandomizerError(f"server raised {type(exc).__name__} on {where}: {exc}") from exc
    try:
        e = np.asarray(out, dtype=float).ravel() if not isinstance(out, dict) else None
    except (TypeError, ValueError):
        e = None
    if e is None:
        raise RandomizerError(f"server returned a {type(out).__name__} on {where}; it must return one number per "
                              f"input of the spec's domain ({d}), in the domain's order")
    if len(e) != d:
        raise RandomizerError(f"server returned {len(e)} estimates on {where}; it must return one per input of "
                              f"the spec's domain ({d}), in the domain's order")
    if not np.isfinite(e).all():
        bad = int(np.flatnonzero(~np.isfinite(e))[0])
        raise RandomizerError(f"server returned {e[bad]} for input {bad} on {where}; estimates must be finite")
    return e / scale


def draw_estimates(client, server, domain: list, dist: InputDistribution, *, trials: int, seed: int, index: int,
                   batch: bool, scale: float = 1.0) -> np.ndarray:
    """The server's estimates, an array (trials, d): trial r draws from
    ``default_rng(SeedSequence(seed, spawn_key=(index, r)))``; the global ``random`` and
    ``numpy.random`` states (per-call clients, servers that draw) are seeded from
    ``SeedSequence(seed, spawn_key=(index,))`` for the distribution's trials and restored after."""
    n = sum(dist.counts)
    out = np.empty((trials, len(domain)))
    words = np.random.SeedSequence(seed, spawn_key=(index,)).generate_state(4, dtype=np.uint32)
    py_state, np_state = random.getstate(), np.random.get_state()
    random.seed(int.from_bytes(words.tobytes(), "little"))
    np.random.seed(words)
    try:
        for r in range(trials):
            rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index, r)))
            reports = _trial_reports(client, batch, domain, dist.counts, rng)
            out[r] = _estimates(server, reports, len(domain), f"trial {r} of the {dist.name} distribution "
                                f"(n = {n})", scale)
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)
    return out


# --- tests ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CoordinateResult:
    """The bias and variance tests of one coordinate under one distribution."""

    distribution: str
    input: object
    truth: Fraction
    mean: float
    bias_interval: tuple[float, float]      # of E[p̂_j] - truth, simultaneous at α/m
    bias_p: float
    variance: float                         # the server's (unbiased sample variance over trials)
    variance_derived: float                 # the spec estimator's, exact at the truth
    variance_derived_exact: str
    ratio_interval: tuple[float, float] | None
    variance_p: float | None
    mse_ratio: float | None                 # mean (p̂_j - truth)² over the derived variance
    range: tuple[float, float]
    outside_range: int                      # estimates outside the range (the tests are then uncertified)
    biased: bool = False                    # rejected by Holm (certified only when outside_range == 0)
    variance_flag: str | None = None        # "higher" / "lower" (rejected by Holm)

    @property
    def certified(self) -> bool:
        return self.outside_range == 0

    @property
    def bias(self) -> float:
        return self.mean - float(self.truth)

    @property
    def variance_ratio(self) -> float | None:
        return self.variance / self.variance_derived if self.variance_derived > 0 else None

    def to_json(self) -> dict:
        return {"distribution": self.distribution, "input": self.input, "truth": str(self.truth),
                "mean": self.mean, "bias": self.bias, "bias_interval": list(self.bias_interval),
                "bias_p_value": self.bias_p, "biased": self.biased,
                "variance": self.variance, "variance_derived": self.variance_derived,
                "variance_derived_exact": self.variance_derived_exact, "variance_ratio": self.variance_ratio,
                "variance_ratio_interval": list(self.ratio_interval) if self.ratio_interval else None,
                "variance_p_value": self.variance_p, "variance_flag": self.variance_flag,
                "mse_ratio": self.mse_ratio, "range": list(self.range), "outside_range": self.outside_range,
                "certified": self.certified}


def _coordinate(dist: str, x, truth: Fraction, e: np.ndarray, var_exact, rng_ab: tuple[float, float],
                alpha_each: float, factor: float) -> CoordinateResult:
    """The tests of one coordinate's R estimates ``e`` in the range ``rng_ab``."""
    from ldpaudit.audit import betting

    a, b = rng_ab
    outside = int(np.count_nonzero((e < a) | (e > b)))
    if outside:   # not certified: the hull of the range and the values, so the numbers still show
        a, b = min(a, float(e.min())), max(b, float(e.max()))
    width = b - a
    t = float(truth)
    var_derived = _number(var_exact)
    mean = float(e.mean())
    if width <= 0:  # a constant estimate in a degenerate range
        interval, p_bias = (mean - t, mean - t), (0.0 if mean != t else 1.0)
    else:
        x01 = np.clip((e - a) / width, 0.0, 1.0)
        lo, hi = betting.interval(x01, alpha_each)
        interval = (a + lo * width - t, a + hi * width - t)
        p_bias = betting.p_value(x01, min(1.0, max(0.0, (t - a) / width)), alpha_each)
    pairs = (e[0:len(e) - 1:2] - e[1::2]) ** 2 / 2        # unbiased for Var, each in [0, width²/2]
    ratio_interval = p_var = None
    if var_derived > 0 and width > 0 and len(pairs) >= 2:
        top = width**2 / 2
        y = np.clip(pairs / top, 0.0, 1.0)
        lo, hi = betting.interval(y, alpha_each)
        ratio_interval = (lo * top / var_derived, hi * top / var_derived)
        high = betting.p_value(y, min(1.0, factor * var_derived / top), alpha_each, side=1)
        low = betting.p_value(y, min(1.0, var_derived / factor / top), alpha_each, side=-1)
        p_var = min(1.0, 2 * min(high, low))
    variance = float(e.var(ddof=1))
    mse = float(np.mean((e - t) ** 2)) / var_derived if var_derived > 0 else None
    return CoordinateResult(dist, x, truth, mean, interval, p_bias, variance, var_derived, str(var_exact),
                            ratio_interval, p_var, mse, rng_ab, outside)


def holm(p_values: list[float], alpha: float) -> list[bool]:
    """Holm's step-down: which of the hypotheses are rejected, family-wise error <= α."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    rejected = [False] * len(p_values)
    m = len(p_values)
    for rank, i in enumerate(order):
        if p_values[i] > alpha / (m - rank):
            break
        rejected[i] = True
    return rejected


# --- post-processing --------------------------------------------------------------------------


def _normal_below_zero(truth: float, variance: float) -> float:
    """P(p̂ < 0) for p̂ ~ N(truth, variance): the spec estimator's rate of negative estimates
    (a normal approximation, stated as such)."""
    if variance <= 0:
        return 0.0
    return 0.5 * math.erfc(truth / math.sqrt(2 * variance))


def post_processing(name: str, e: np.ndarray, coords: list[CoordinateResult], sums_to_one: bool | None) -> dict:
    """What the estimates of one distribution show of clipping and normalization, with numbers."""
    trials, d = e.shape
    sums = e.sum(axis=1)
    expected_negative = sum(_normal_below_zero(float(c.truth), c.variance_derived) for c in coords) * trials
    stats = {"distribution": name, "estimates": int(e.size), "negative": int(np.count_nonzero(e < 0)),
             "negative_expected": round(expected_negative, 2),
             "negative_expected_rule": "Σ_j P(p̂_j < 0) over the trials for the spec's estimator, p̂_j normal with "
                                       "the derived variance (an approximation)",
             "exact_zeros": int(np.count_nonzero(e == 0)), "exact_ones": int(np.count_nonzero(e == 1)),
             "above_one": int(np.count_nonzero(e > 1)),
             "sum_mean": float(sums.mean()), "sum_sd": float(sums.std(ddof=1)) if trials > 1 else 0.0,
             "trials_summing_to_1": int(np.count_nonzero(np.abs(sums - 1) <= _SUM_TOLERANCE)),
             "trials": trials, "spec_estimator_sums_to_1": sums_to_one}
    findings = []
    clipped_low = stats["negative"] == 0 and stats["exact_zeros"] > 0 and expected_negative >= 5
    if clipped_low:
        findings.append({"kind": "clipping", "distribution": name,
                         "text": f"no negative estimate among {e.size} while the spec's estimator would give about "
                                 f"{expected_negative:.0f}, and {stats['exact_zeros']} estimates are exactly 0: "
                                 f"negatives are clipped (or projected) to 0"})
    if stats["above_one"] == 0 and stats["exact_ones"] > 0 and any(c.truth < 1 for c in coords):
        ones = [c.input for c, col in zip(coords, e.T) if c.truth < 1 and np.any(col == 1)]
        if ones:
            findings.append({"kind": "clipping", "distribution": name,
                             "text": f"{stats['exact_ones']} estimates are exactly 1 (inputs {ones[:5]}) and none "
                                     f"exceeds 1: estimates are clipped at 1"})
    if stats["trials_summing_to_1"] == trials and sums_to_one is not True:
        how = ("onto the simplex (no negatives)" if stats["negative"] == 0 else "by rescaling to sum 1")
        spec = ("does not (its sum varies with the reports)" if sums_to_one is False else
                "is not known to (not derived for this channel)")
        findings.append({"kind": "normalization", "distribution": name,
                         "text": f"the estimates sum to 1 (within {_SUM_TOLERANCE:g}) in all {trials} trials, which the "
                                 f"spec's estimator {spec}: normalized {how}"})
    return {**stats, "findings": findings}


# --- the audit --------------------------------------------------------------------------------


@dataclass(frozen=True)
class EstimatorAuditResult:
    verdict: str                        # VIOLATION, NO_EVIDENCE or INCONCLUSIVE
    spec: str
    n: int
    trials: int
    alpha: float
    seed: int
    variance_factor: float
    estimator: SpecEstimator
    range_rule: str
    distributions: tuple[dict, ...]
    coordinates: tuple[CoordinateResult, ...]
    post_processing: tuple[dict, ...]
    hypotheses: int

    @property
    def biased(self) -> list[CoordinateResult]:
        return [c for c in self.coordinates if c.biased and c.certified]

    @property
    def variance_flagged(self) -> list[CoordinateResult]:
        return [c for c in self.coordinates if c.variance_flag and c.certified]

    @property
    def uncertified(self) -> list[CoordinateResult]:
        return [c for c in self.coordinates if not c.certified]

    @property
    def findings(self) -> list[dict]:
        out = []
        for c in self.biased:
            lo, hi = c.bias_interval
            out.append({"kind": "bias", "distribution": c.distribution, "input": c.input,
                        "text": f"input {c.input} under {c.distribution}: mean estimate {c.mean:.5g} vs truth {c.truth} "
                                f"(bias {c.bias:+.4g}, interval [{lo:+.4g}, {hi:+.4g}], p = {c.bias_p:.3g})"})
        for c in self.variance_flagged:
            lo, hi = c.ratio_interval
            out.append({"kind": "variance", "distribution": c.distribution, "input": c.input,
                        "text": f"input {c.input} under {c.distribution}: variance {c.variance:.4g} vs derived "
                                f"{c.variance_derived:.4g} (ratio {c.variance_ratio:.3g}, interval [{lo:.3g}, {hi:.3g}], "
                                f"outside [1/{self.variance_factor:g}, {self.variance_factor:g}])"})
        for c in self.uncertified:
            out.append({"kind": "range", "distribution": c.distribution, "input": c.input,
                        "text": f"input {c.input} under {c.distribution}: {c.outside_range} of {self.trials} estimates "
                                f"outside the range [{c.range[0]:.6g}, {c.range[1]:.6g}] the tests assume; its tests "
                                f"are not certified (does the server return counts? then use --counts, or state a "
                                f"range with --range)"})
        for pp in self.post_processing:
            out.extend(pp["findings"])
        return out

    @property
    def method(self) -> str:
        m = self.hypotheses
        return (f"per coordinate and distribution, a confidence interval for the mean estimate by betting "
                f"(Waudby-Smith & Ramdas 2024, hedged capital with predictable plug-in bets), valid for estimates in "
                f"the stated range at every number of trials (no normal approximation), and one for the variance "
                f"from the {self.trials // 2} pair differences (e_2i-1 - e_2i)^2/2; Holm's step-down at α = "
                f"{self.alpha:g} over the {m} hypotheses (bias = 0, variance ratio within [1/{self.variance_factor:g}, "
                f"{self.variance_factor:g}]); the intervals shown are simultaneous at α/{m}: a server that is "
                f"unbiased with the derived variance is flagged with probability at most α = {self.alpha:g}")

    def to_json(self) -> dict:
        return {"spec": self.spec, "n": self.n, "trials": self.trials, "alpha": self.alpha,
                "confidence": 1 - self.alpha, "seed": self.seed, "variance_factor": self.variance_factor,
                "spec_estimator": {"formula": self.estimator.formula, "kind": self.estimator.kind,
                                   "sums_to_1": self.estimator.sums_to_one},
                "range_rule": self.range_rule, "method": self.method, "hypotheses": self.hypotheses,
                "sampling_model": "fixed population: n_j = n·π_j users hold input j (largest remainder), so the "
                                  "truth is n_j/n exactly and the derived variance is derive's 'fixed' model",
                "distributions": list(self.distributions),
                "biased": len(self.biased), "variance_flagged": len(self.variance_flagged),
                "uncertified": len(self.uncertified),
                "findings": self.findings, "post_processing": list(self.post_processing),
                "coordinates": [c.to_json() for c in self.coordinates]}


def _check_options(n, trials, alpha, variance_factor, distributions) -> None:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InvalidParameter(f"n={n!r}: the number of reports per trial must be a positive integer, e.g. --n 1000")
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 4:
        raise InvalidParameter(f"trials={trials!r}: give at least 4 trials (the variance test pairs them), e.g. "
                               f"--trials 200")
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise InvalidParameter(f"alpha={alpha!r} must be in (0, 1), e.g. --alpha 0.05")
    if not (isinstance(variance_factor, (int, float)) and variance_factor > 1 and math.isfinite(variance_factor)):
        raise InvalidParameter(f"variance_factor={variance_factor!r} must be a finite number > 1, e.g. 1.5")
    if not distributions:
        raise InvalidParameter(f"give at least one distribution: {', '.join(DISTRIBUTIONS)}")
    for name in distributions:
        if name not in DISTRIBUTIONS:
            raise InvalidParameter(f"distribution {name!r} is unknown; use one of {', '.join(DISTRIBUTIONS)}")


def estimator_audit(client: Callable, server: Callable, spec, *, n: int, trials: int, alpha: float = 0.01,
                    seed: int = 0, batch: bool = True, distributions=DISTRIBUTIONS,
                    variance_factor: float = DEFAULT_VARIANCE_FACTOR, estimate_range=None,
                    counts: bool = False) -> EstimatorAuditResult:
    """Audit ``server`` (list of n reports -> one estimate per input of the spec's domain) on
    reports drawn from ``client`` (``f(x, n, rng)`` when ``batch``, else ``f(x)``), against the
    spec's derived estimator: see the module docstring. ``spec`` is a bound Mechanism.
    ``estimate_range`` (low, high) replaces the derived ranges; ``counts``: the server returns
    estimated counts (divided by n here)."""
    _check_options(n, trials, alpha, variance_factor, tuple(distributions))
    if not callable(client) or not callable(server):
        raise InvalidParameter("client and server must be callables (load them with ldpaudit.audit.load_target)")
    if getattr(spec, "parameters", ()):
        raise InvalidParameter(f"spec {spec.name!r}: bind every parameter (free: {', '.join(spec.parameter_names)}); "
                               f"e.g. -p d=8")
    domain = _domain(spec)
    d = len(domain)
    est = spec_estimator(spec)
    if estimate_range is not None:
        low, high = (float(v) for v in estimate_range)
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise InvalidParameter(f"range {estimate_range!r}: need finite low < high, e.g. --range -4..5")
        ranges = [(low, high)] * d
        rule = f"stated: every estimate in [{low:g}, {high:g}] (--range)"
    else:
        if any(r is None for r in est.ranges):
            raise InvalidParameter(f"spec {spec.name!r}: {est.range_rule}; state the range of the estimates with "
                                   f"--range LOW..HIGH")
        ranges = []
        for a, b in est.ranges:
            fa, fb = _number(a), _number(b)
            slack = _RANGE_SLACK * max(1.0, abs(fa), abs(fb))
            ranges.append((fa - slack, fb + slack))
        rule = f"derived: {est.range_rule} (widened by {_RANGE_SLACK:g} relative, for float rounding)"
    dists = [input_distribution(name, d, n) for name in distributions]
    m = 2 * d * len(dists)
    alpha_each = alpha / m
    coords, draws = [], []
    for k, dist in enumerate(dists):
        e = draw_estimates(client, server, domain, dist, trials=trials, seed=seed, index=k, batch=batch,
                           scale=float(n) if counts else 1.0)
        draws.append(e)
        truth = dist.truth(n)
        variances = est.variance(truth, n)
        for j, x in enumerate(domain):
            coords.append(_coordinate(dist.name, x, truth[j], e[:, j], variances[j], ranges[j], alpha_each,
                                      variance_factor))
    p_values = [c.bias_p for c in coords] + [1.0 if c.variance_p is None else c.variance_p for c in coords]
    rejected = holm(p_values, alpha)
    final = []
    for i, c in enumerate(coords):
        flag = None
        if rejected[len(coords) + i]:
            flag = "higher" if c.variance_ratio > 1 else "lower"
        final.append(_replace(c, biased=rejected[i], variance_flag=flag))
    pp = tuple(post_processing(dist.name, e, [c for c in final if c.distribution == dist.name], est.sums_to_one)
               for dist, e in zip(dists, draws))
    certified_flags = any((c.biased or c.variance_flag) and c.certified for c in final)
    verdict = ("VIOLATION" if certified_flags else "INCONCLUSIVE" if any(not c.certified for c in final)
               else "NO_EVIDENCE")
    described = tuple({"name": dist.name, "description": DESCRIPTIONS[dist.name], "counts": list(dist.counts)}
                      for dist in dists)
    return EstimatorAuditResult(verdict, spec.name, n, trials, alpha, seed, variance_factor, est, rule, described,
                                tuple(final), pp, m)


def _replace(c: CoordinateResult, **changes) -> CoordinateResult:
    from dataclasses import replace

    return replace(c, **changes)


def spec_server_for(mech) -> Callable:
    """The spec's own unbiased estimator of a bound frequency oracle as a server: reports ->
    p̂_j = a + b·f_j (a, b derived by ldpaudit.derive, as floats), f_j the frequency of the hit
    statistic (y = j for element outputs, bit j for unary ones). Other statistics are refused."""
    import sympy as sp

    from ldpaudit.derive.algebra import F_J
    from ldpaudit.derive.estimator import unbiased_estimator

    est = unbiased_estimator(mech)
    statistic = getattr(est.stat, "statistic", None) if est.kind == "hit" else None
    if statistic not in ("1{y = j}", "y_j"):
        raise InvalidParameter(f"{mech.name!r}: no server from its estimator ({est.kind} estimator of "
                               f"{statistic or 'a left inverse'}); the element (1{{y = j}}) and unary (y_j) "
                               "statistics are supported")
    slope = float(sp.N(sp.diff(est.expression, F_J), 30))
    const = float(sp.N(est.expression.xreplace({F_J: 0}), 30))
    element = statistic == "1{y = j}"
    d = len(_domain(mech))

    def server(reports):
        y = np.asarray(reports)
        freq = np.bincount(y.astype(np.int64), minlength=d)[:d] / len(y) if element else y.astype(float).mean(axis=0)
        return const + slope * freq

    return server
