"""The central (ε, δ) of n shuffled reports of a spec: the bounds of :mod:`.shuffle` together.

``epsilon_upper`` is the best proved upper bound (generic clone bound from ε0 alone, channel
clone bound from p*, privacy-blanket bound of :mod:`ldpaudit.account.blanket`), ``epsilon_generic`` the generic one, ``epsilon_lower`` the best rigorous
lower bound (the projection bound at any n; the exact value when n is small enough to
enumerate). The empirical audit (a statistical lower bound at a stated confidence) is reported
beside them, never mixed into ``epsilon_lower``.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

from ldpaudit.account import shuffle
from ldpaudit.errors import InvalidParameter

#: the exact enumeration and the sampling audit run by default up to this n
SMALL_N = 8


@dataclass(frozen=True)
class Amplification:
    mechanism: str
    n: int
    delta: float
    epsilon0: float
    epsilon0_exact: str
    clone_p: str
    epsilon_generic: float
    epsilon_channel: float
    epsilon_blanket: float | None
    epsilon_upper: float
    epsilon_lower: float
    epsilon_projection: float
    epsilon_exact: float | None = None
    epsilon_exact_text: str | None = None
    exact_witness: dict | None = None
    epsilon_empirical: float | None = None
    empirical: dict | None = None
    projection_witness: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)
    notes: tuple = ()

    @property
    def rigorous(self) -> bool:
        return math.isfinite(self.epsilon_upper)

    def to_json(self) -> dict:
        return result_json(self, ("epsilon_generic", "epsilon_channel", "epsilon_blanket", "epsilon_upper"))


def result_json(result, bounds) -> dict:
    """A shuffling result (a dataclass with ``notes``) as JSON: its fields, the notes as a list,
    and each of ``bounds`` that is infinite (no proved bound) as null."""
    out = asdict(result)
    out["notes"] = list(result.notes)
    for key in bounds:
        if out[key] is not None and not math.isfinite(out[key]):
            out[key] = None
    return out


#: bytes per (sampled histogram, output) of the sampling audit: the two samples' counts, their
#: stack and the sort of np.unique (measured about 80)
BYTES_PER_SAMPLE_OUTPUT = 96
#: memory budget of the sampling audit, in MiB
SAMPLES_MEMORY_MB = 2048


def _check_samples(samples: int, outputs: int) -> None:
    """Refuse, before any work, a sampling audit whose histograms would not fit in memory."""
    need = int(samples) * max(outputs, 1) * BYTES_PER_SAMPLE_OUTPUT
    if need > SAMPLES_MEMORY_MB * 2**20:
        most = SAMPLES_MEMORY_MB * 2**20 // (max(outputs, 1) * BYTES_PER_SAMPLE_OUTPUT)
        raise InvalidParameter(f"--samples {samples} histograms of {outputs} outputs need about {need / 2**30:.3g} GiB, "
                               f"above the sampling audit's {SAMPLES_MEMORY_MB} MiB; give at most --samples {most}")


def amplify(mech, n: int, delta, *, exact: bool | None = None, samples: int = 0, alpha: float = 0.05,
            seed: int = 0, blanket_work: int | None = None, blanket: bool = True) -> Amplification:
    """Every bound for ``mech`` (numeric, finite) shuffled among ``n`` users at ``delta``.
    ``exact`` enumerates the small-n value (default: when n <= SMALL_N and the work is small);
    ``samples`` > 0 also runs the sampling audit at confidence 1 - alpha (small n only).
    ``blanket_work`` bounds the privacy-blanket search in grid points (None, the default: no
    bound); ``blanket=False`` skips it."""
    n, d = shuffle.check_inputs(n, delta)
    clock = {}
    t = time.perf_counter()
    facts = shuffle.channel_facts(mech)
    clock["channel"] = time.perf_counter() - t
    _check_samples(samples, len(facts.outputs))
    notes = []
    t = time.perf_counter()
    generic = shuffle.clone_epsilon(float(_up(facts.epsilon0)), n, d, math.exp(-_up(facts.epsilon0)))
    clock["generic"] = time.perf_counter() - t
    t = time.perf_counter()
    channel = shuffle.channel_epsilon(facts, n, d)
    clock["channel_clone"] = time.perf_counter() - t
    t = time.perf_counter()
    projection, where = shuffle.projection_lower(facts, n, d)
    clock["projection"] = time.perf_counter() - t
    if blanket and facts.epsilon0 > shuffle.LARGE_EPSILON0:
        blanket = None
        notes.append(f"no amplification computed: the local ε0 = {facts.epsilon0:g} is past {shuffle.LARGE_EPSILON0:g}, "
                     f"where e^ε overflows a float; ε0 itself bounds the shuffled output (post-processing)")
    blanket = _blanket(mech, n, d, notes, blanket_work) if blanket else None
    clock["blanket"] = time.perf_counter() - t - clock["projection"]
    upper = min(generic, channel, blanket if blanket is not None else math.inf)
    if not math.isfinite(upper):
        notes.append("the float error allowance alone exceeds δ: no rigorous upper bound at this δ")
    exact_value = exact_text = witness = None
    want_exact = exact if exact is not None else (n <= SMALL_N and shuffle.exact_work(facts, n) <= shuffle.EXACT_WORK)
    if want_exact:
        t = time.perf_counter()
        ex = shuffle.exact_small_n(facts, n, delta)
        clock["exact"] = time.perf_counter() - t
        exact_value, exact_text = ex.epsilon, ex.epsilon_exact
        witness = {"x0": shuffle._plain(ex.x0), "x1": shuffle._plain(ex.x1),
                   "others": [shuffle._plain(v) for v in ex.others], "datasets": ex.datasets,
                   "arithmetic": "exact rationals" if ex.exact else "40-digit mpmath (channel not rational)"}
        if not ex.exact:
            notes.append("the exact small-n value is computed with 40 digits, not in exact rationals "
                         "(the channel has irrational entries); bind epsilon=log(r) for exact arithmetic")
    lower = max(projection, exact_value if exact_value is not None and (witness and "exact" in witness["arithmetic"]) else 0.0)
    empirical_value = empirical = None
    if samples:
        from ldpaudit.audit.shuffled import audit_shuffle

        t = time.perf_counter()
        index = {v: i for i, v in enumerate(facts.inputs)}
        if witness is not None:
            x0, x1 = index[ex.x0], index[ex.x1]
            others = [index[v] for v in ex.others]
        else:
            x0, x1 = _index_of(facts, where["x0"]), _index_of(facts, where["x1"])
            others = [x1] * (n - 1)
        rows = [[float(v) for v in row] for row in shuffle._numeric(facts.rows, facts.rational)]
        result = audit_shuffle(rows, x0, x1, others, d, samples=samples, alpha=alpha, seed=seed)
        clock["empirical"] = time.perf_counter() - t
        empirical_value = result.epsilon_lower
        empirical = {"confidence": 1 - alpha, "samples_per_dataset": samples, "seed": seed,
                     "event_histograms": result.event_size, "p_lower": result.p_lower, "q_upper": result.q_upper,
                     "x0": shuffle._plain(facts.inputs[x0]), "x1": shuffle._plain(facts.inputs[x1])}
    return Amplification(
        mechanism=facts.name, n=n, delta=d, epsilon0=facts.epsilon0, epsilon0_exact=facts.epsilon0_exact,
        clone_p=str(facts.clone_p), epsilon_generic=generic, epsilon_channel=channel, epsilon_blanket=blanket,
        epsilon_upper=upper,
        epsilon_lower=lower, epsilon_projection=projection, epsilon_exact=exact_value,
        epsilon_exact_text=exact_text, exact_witness=witness, epsilon_empirical=empirical_value,
        empirical=empirical, projection_witness=where, seconds=clock, notes=tuple(notes),
    )


def _blanket(mech, n: int, delta: float, notes: list, work: int | None = None) -> float | None:
    """The privacy-blanket bound (:mod:`ldpaudit.account.blanket`), or None with a note."""
    from ldpaudit.account.blanket import blanket_epsilon, channel_numbers

    try:
        bound = blanket_epsilon(channel_numbers(mech), n, delta, work=work)
    except (ValueError, MemoryError) as exc:  # bad input or too large for it; a crash still exits 4
        notes.append(f"privacy-blanket bound not computed: {' '.join(str(exc).split())[:200]}")
        return None
    if not math.isfinite(bound.epsilon):
        notes.append("privacy-blanket bound not computed: no finite ε at this δ")
        return None
    notes.extend(f"privacy-blanket bound: {note}" for note in bound.notes if "stopped" in note or "merged" in note or "split off" in note)
    return bound.epsilon


def _up(x: float) -> float:
    import numpy as np

    return float(np.nextafter(x, math.inf))


def _index_of(facts, plain) -> int:
    for i, v in enumerate(facts.inputs):
        if shuffle._plain(v) == plain:
            return i
    raise KeyError(plain)


def amplification_curve(spec, params: dict | None, ns, delta, *, blanket_up_to: int | None = None) -> list[dict]:
    """Rows (one per n) of the bounds for ``spec`` (a path, catalog name or Mechanism) bound to
    ``params``, for a table or plot: n, epsilon0, epsilon_generic, epsilon_channel,
    epsilon_upper, epsilon_lower (and epsilon_exact where n is small). ``blanket_up_to``: the
    privacy-blanket bound without a time budget (the same on every machine) up to that n and
    not at all beyond it; None: with its default time budget at every n."""
    mech = _bind(spec, params)
    rows = []
    for n in ns:
        if blanket_up_to is None:
            result = amplify(mech, int(n), delta)
        else:
            result = amplify(mech, int(n), delta, blanket=int(n) <= blanket_up_to)
        rows.append({"n": int(n), "delta": float(delta), "epsilon0": result.epsilon0,
                     "epsilon_generic": result.epsilon_generic, "epsilon_channel": result.epsilon_channel,
                     "epsilon_blanket": result.epsilon_blanket,
                     "epsilon_upper": result.epsilon_upper, "epsilon_lower": result.epsilon_lower,
                     "epsilon_exact": result.epsilon_exact})
    return rows


def _bind(spec, params):
    from ldpaudit.mechanism.core import Mechanism

    if isinstance(spec, Mechanism):
        return spec.bind(**params) if params else spec
    from ldpaudit.mechanism.loader import load_budgeted

    assignments = [f"{k}={v}" for k, v in (params or {}).items()]
    _, mech = load_budgeted(spec, assignments)
    return mech
