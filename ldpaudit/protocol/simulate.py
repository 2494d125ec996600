"""Run a protocol on synthetic data, vectorized over users and trials, and summarize its error.

Each round's users are drawn from the population (fresh, disjoint groups; or the same users as
an earlier round with ``users_from``), their reports are sampled with the randomizer's numpy
sampler, and the round's sufficient statistic (a histogram of finite reports per subgroup, or
the sum of real reports) goes to the analyst's aggregator. For a Gaussian population, a round
whose randomizer has an exact ``law`` draws that statistic directly (Multinomial/Binomial
counts with the exact report probabilities): the same distribution as summarizing per-user
reports (``method="users"`` forces per-user sampling; tests compare the two).

Randomness comes from one ``np.random.default_rng(seed)``; trials are processed in blocks whose
size depends only on the group sizes, so a (protocol, constants, seed) triple always gives the
same estimates, to the bit on every CPU for the bundled protocols and populations (draws from
:mod:`ldpaudit.portable`; a user's own sampler or aggregator is what it is).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ldpaudit import portable
from ldpaudit.errors import InvalidParameter
from ldpaudit.protocol.model import SUBGROUP, Protocol, Round, call_binding

#: per-user arrays are built in trial blocks of at most this many entries
BLOCK_ENTRIES = 4_000_000
#: bytes held per entry (one user in one trial) of a round drawn user by user, at the peak of
#: a block: inputs, reports, per-user public values and the statistic's index arrays (measured
#: with tracemalloc at 33-37 bytes per user for every bundled protocol, doubled for margin)
BYTES_PER_USER = 80
#: bytes per trial: the estimates, their errors and the sorted copy of the summary
BYTES_PER_TRIAL = 40
#: the most users a count can hold: counts are 64-bit integers (numpy's binomial/multinomial)
MAX_USERS = 2**62
#: default memory budget of a simulation in MiB (``--memory-mb``)
MEMORY_MB = 2048


@dataclass(frozen=True)
class Gaussian:
    """The population N(mu, sigma²)."""

    mu: float
    sigma: float

    def __post_init__(self):
        if not (math.isfinite(self.mu) and math.isfinite(self.sigma)) or self.sigma <= 0:
            raise InvalidParameter(f"Gaussian(mu={self.mu}, sigma={self.sigma}): need finite mu and sigma > 0")

    def draw(self, shape, rng):
        return self.mu + self.sigma * portable.normal(rng, shape)

    @property
    def mean(self) -> float:
        return self.mu


@dataclass(frozen=True)
class Custom:
    """A user-supplied population: ``draw(shape, rng) -> array`` and its true mean."""

    draw: Callable
    mean: float


@dataclass
class Context:
    """What an aggregator sees: constants, earlier estimates ((trials,) arrays), the round's
    public values (broadcastable to (trials, subgroups)) and the subgroup sizes."""

    constants: Mapping[str, object]
    estimates: dict
    public: dict
    sizes: np.ndarray


@dataclass(frozen=True)
class Plan:
    """Group sizes of every round at a given n."""

    sizes: dict = field(default_factory=dict)     # round -> (S,) subgroup sizes
    reused: frozenset = frozenset()


def plan(protocol: Protocol, constants: Mapping[str, object]) -> Plan:
    n = int(constants["n"])
    sizes, reused = {}, set()
    for r in protocol.rounds:
        if r.count is not None:
            m = r.count
        else:
            from fractions import Fraction

            m = math.floor(Fraction(str(r.share)) * n)
        if r.users_from is not None:
            reused.add(r.users_from)
            if m > int(sizes[r.users_from].sum()):
                raise InvalidParameter(f"round {r.name!r} reuses {m} users of round {r.users_from!r}, which has only "
                                       f"{int(sizes[r.users_from].sum())}; lower its share/count")
        S = int(call_binding(r.subgroups, constants))
        if S < 1:
            raise InvalidParameter(f"round {r.name!r} subgroups = {S}; need at least 1")
        if m < S:
            raise InvalidParameter(f"round {r.name!r} has {m} users for {S} subgroups at n={n}; increase n")
        sizes[r.name] = np.array([m // S + (i < m % S) for i in range(S)], dtype=np.int64)
    total = sum(int(s.sum()) for name, s in sizes.items() if protocol.round(name).users_from is None)
    if total > n:
        raise InvalidParameter(f"protocol {protocol.name!r} needs {total} users but n={n}")
    return Plan(sizes, frozenset(reused))


def _publics(r: Round, constants, estimates, S) -> dict:
    values = dict(constants)
    values.update({k: np.asarray(v)[:, None] for k, v in estimates.items()})
    values[SUBGROUP] = np.arange(S)[None, :]
    return {name: call_binding(value, values) for name, value in r.bind.items()}


def _statistic(r: Round, reports: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    outputs = r.randomizer.outputs
    if outputs is None:
        return np.add.reduceat(reports.astype(float), starts, axis=1)
    order = np.argsort(np.asarray(outputs))
    ordered = np.asarray(outputs)[order]
    code = order[np.clip(np.searchsorted(ordered, reports), 0, len(outputs) - 1)]
    valid = np.asarray(outputs)[code] == reports
    T, S, K = reports.shape[0], len(sizes), len(outputs)
    labels = np.repeat(np.arange(S), sizes)
    index = (np.arange(T)[:, None] * S + labels[None, :]) * K + code
    stat = np.bincount(index[valid], minlength=T * S * K).reshape(T, S, K)
    if (stat.sum(axis=-1) != sizes).any():
        bad = sorted(set(np.unique(reports).tolist()) - set(outputs))[:3]
        raise InvalidParameter(f"randomizer {r.randomizer.name!r} returned {bad}, outside its declared outputs {outputs}")
    return stat


def run(protocol: Protocol, constants: Mapping[str, object], population, *, trials: int, seed: int = 0,
        method: str = "auto", memory_mb: int = MEMORY_MB) -> np.ndarray:
    """The protocol's output estimate in each of ``trials`` independent runs, shape (trials,).
    The arrays it will hold are sized before anything is allocated: over ``memory_mb`` MiB
    (users drawn one by one at a huge n, or a huge number of trials) it refuses in one line."""
    missing = [c for c in protocol.constants if c not in constants]
    if missing:
        raise InvalidParameter(f"protocol {protocol.name!r} needs constants {', '.join(missing)}; pass them in constants=")
    if method not in ("auto", "users", "law"):
        raise InvalidParameter(f"method={method!r}; use 'auto', 'users' or 'law'")
    if trials < 1:
        raise InvalidParameter(f"trials={trials}; need at least 1")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidParameter(f"seed (--seed) {seed!r} is not a non-negative integer; give e.g. 0")
    n = int(constants["n"])
    if n > MAX_USERS:
        raise InvalidParameter(f"n (--n) {n} is above 2^62 = {MAX_USERS}, the most users whose counts fit a 64-bit "
                               f"integer; give a smaller n")
    p = plan(protocol, constants)
    biggest = max(int(s.sum()) for s in p.sizes.values())
    block = max(1, min(trials, BLOCK_ENTRIES // max(biggest, 1)))
    _check_memory(protocol, population, p, n, method, trials, block, memory_mb)
    rng = np.random.default_rng(seed)
    out = []
    for start in range(0, trials, block):
        out.append(_run_block(protocol, constants, population, p, min(block, trials - start), rng, method))
    return np.concatenate(out)


def _uses_law(r: Round, population, p: Plan, method: str) -> bool:
    """Whether round ``r`` draws its statistic from the exact count law (else user by user)."""
    return (method != "users" and isinstance(population, Gaussian) and r.randomizer.law is not None
            and r.users_from is None and r.name not in p.reused)


def _check_memory(protocol, population, p: Plan, n, method, trials, block, memory_mb) -> None:
    """Refuse, before allocating, a run whose arrays would not fit in ``memory_mb`` MiB."""
    per_user = [int(p.sizes[r.name].sum()) for r in protocol.rounds if not _uses_law(r, population, p, method)]
    budget = memory_mb * 2**20
    need = block * sum(per_user) * BYTES_PER_USER
    if per_user and need > budget:
        how = "--method users" if method == "users" else f"protocol {protocol.name!r} has no exact count law for them"
        fix = ("use --method auto (exact count laws) or " if method == "users" else "") + "lower --n or raise --memory-mb"
        raise InvalidParameter(f"n (--n) {n} users drawn one by one ({how}) need about {need / 2**30:.3g} GiB "
                               f"per trial block, above the memory budget of {memory_mb} MiB (--memory-mb); {fix}")
    if trials * BYTES_PER_TRIAL > budget:
        raise InvalidParameter(f"trials (--trials) {trials} need about {trials * BYTES_PER_TRIAL / 2**30:.3g} GiB for "
                               f"their estimates, above the memory budget of {memory_mb} MiB (--memory-mb); give "
                               f"at most {budget // BYTES_PER_TRIAL} trials or raise --memory-mb")


def _run_block(protocol, constants, population, p: Plan, T, rng, method):
    estimates: dict = {}
    inputs: dict = {}
    for r in protocol.rounds:
        sizes = p.sizes[r.name]
        S, m = len(sizes), int(sizes.sum())
        public = _publics(r, constants, estimates, S)
        use_law = _uses_law(r, population, p, method)
        if method == "law" and not use_law:
            raise InvalidParameter(f"round {r.name!r} has no exact law for this population; use method='auto'")
        if use_law:
            per_group = {k: np.broadcast_to(np.asarray(v, dtype=float), (T, S)) for k, v in public.items()}
            stat = r.randomizer.law(population, sizes, rng, T, **per_group)
        else:
            x = inputs[r.users_from][:, :m] if r.users_from is not None else np.asarray(population.draw((T, m), rng))
            inputs[r.name] = x
            labels = np.repeat(np.arange(S), sizes)
            per_user = {k: np.broadcast_to(np.asarray(v), (T, S))[:, labels] if np.ndim(v) else v
                        for k, v in public.items()}
            reports = np.asarray(r.randomizer.sample(x, rng, **per_user))
            if reports.shape != x.shape:
                raise InvalidParameter(f"randomizer {r.randomizer.name!r} returned shape {reports.shape} for inputs "
                                       f"of shape {x.shape}; it must return one report per input")
            stat = _statistic(r, reports, sizes)
        ctx = Context(constants, estimates, public, sizes)
        new = r.aggregate(stat, ctx)
        missing = set(r.produces) - set(new)
        if missing:
            raise InvalidParameter(f"aggregate of round {r.name!r} did not return {', '.join(sorted(missing))}")
        estimates.update({k: np.broadcast_to(np.asarray(v, dtype=float), (T,)) for k, v in new.items()})
    return np.array(estimates[protocol.output], dtype=float)


# --- error summaries ----------------------------------------------------------------------------

@dataclass(frozen=True)
class ErrorSummary:
    """The error |μ̂ - μ| over trials: mean, and the (1-β) quantile with an order-statistic
    confidence interval (distribution-free: [X_(l), X_(u)] with l, u from Binomial(T, 1-β))."""

    trials: int
    beta: float
    mean_abs_error: float
    mean_abs_error_se: float
    quantile: float
    quantile_low: float
    quantile_high: float
    confidence: float

    def as_dict(self) -> dict:
        # NaN (the standard error of one trial) is not JSON: None
        return {k: (round(v, 12) if math.isfinite(v) else None) if isinstance(v, float) else v
                for k, v in self.__dict__.items()}


def _binomial_ppf(level, T: int, q) -> int:
    """The smallest k with P(Binomial(T, q) ≤ k) ≥ level, in integers (q = a/(a + b) a Fraction):
    an order statistic's index must not hang on the last bit of a special function."""
    a, b = q.numerator, q.denominator - q.numerator
    need = level * (a + b) ** T
    term = b**T                                      # C(T, k) a^k b^(T-k), exact integers
    acc = term
    for k in range(T + 1):
        if acc >= need:
            return k
        term = term * (T - k) * a // ((k + 1) * b)
        acc += term
    return T


def summarize(errors: np.ndarray, *, beta: float = 0.05, confidence: float = 0.95) -> ErrorSummary:
    from fractions import Fraction

    if not 0 < beta < 1:
        raise InvalidParameter(f"beta={beta}; the error quantile 1-beta needs 0 < beta < 1")
    e = np.sort(np.abs(np.asarray(errors, dtype=float)))
    T = len(e)
    q = 1 - Fraction(str(beta))                      # the decimal the caller wrote
    alpha = 1 - Fraction(str(confidence))
    lo = _binomial_ppf(alpha / 2, T, q)              # P(Bin < lo) <= α/2  ->  X_(lo) <= ξ_q w.p. >= 1 - α/2
    hi = _binomial_ppf(1 - alpha / 2, T, q) + 1
    lo, hi = max(lo, 1), min(hi, T)
    k = max(1, math.ceil(q * T))                   # exact: q is a Fraction
    return ErrorSummary(T, beta, float(e.mean()), float(e.std(ddof=1) / math.sqrt(T)) if T > 1 else float("nan"),
                        float(e[k - 1]), float(e[lo - 1]), float(e[hi - 1]), confidence)


def simulate(protocol: Protocol, *, constants: Mapping[str, object], mu: float = 0.0, sigma: float = 1.0,
             population=None, trials: int = 200, beta: float = 0.05, seed: int = 0, method: str = "auto",
             confidence: float = 0.95, memory_mb: int = MEMORY_MB) -> dict:
    """Run ``protocol`` ``trials`` times and summarize |μ̂ - μ|. ``population`` defaults to
    Gaussian(mu, sigma); pass :class:`Custom` for your own sampler."""
    pop = population if population is not None else Gaussian(float(mu), float(sigma))
    est = run(protocol, constants, pop, trials=trials, seed=seed, method=method, memory_mb=memory_mb)
    s = summarize(est - pop.mean, beta=beta, confidence=confidence)
    return {"protocol": protocol.name, "constants": {k: _plain(v) for k, v in constants.items()},
            "mu": pop.mean, **({"sigma": pop.sigma} if isinstance(pop, Gaussian) else {}),
            "seed": seed, "method": method, **s.as_dict()}


def _plain(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return v
