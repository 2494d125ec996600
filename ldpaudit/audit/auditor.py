"""The statistical auditor: sample a black-box randomizer and certify a lower bound on its ε.

Three independent samples per input, all drawn from one seed:
1. exploration half A (fit): the featurizer and, per input pair, an ordering of events;
2. exploration half B (rank): the predicted certified bound of every candidate (pair, event);
3. confirmation (fresh, the rest of the budget): only the best few candidates are counted.

The certified bound of a candidate is ln(CP_lower(a)/CP_upper(b)) with one-sided exact
Clopper-Pearson bounds at level α/(2k), k the number of candidates confirmed, so with
probability at least 1-α no confirmed bound exceeds the randomizer's true ε (Bonferroni over
the k candidates and their two bounds). VIOLATION is reported iff the best bound exceeds the
claimed ε; a correct randomizer is flagged with probability at most α.
"""
from __future__ import annotations

import math
import multiprocessing
import numbers
import time
from dataclasses import asdict, dataclass
from typing import Callable, Iterable, Iterator

import numpy as np

from ldpaudit.audit import bounds
from ldpaudit.audit.adapters import Outputs, Sampler
from ldpaudit.audit.events import Candidate, choose, search
from ldpaudit.audit.features import Featurizer, concat_views
from ldpaudit.errors import InvalidParameter, RandomizerError

CHUNK = 1 << 16                 # draws per task; seeds are per chunk, so results do not depend on workers
PILOT = 1 << 13                 # first exploration chunk of every input, used to fit the featurizer
MAX_EXPLORE_HALF = 1 << 19      # draws per input per exploration half, at most
MAX_EXPLORE_CELLS = 1 << 27     # total stored exploration cells (draws x columns) across inputs
MAX_CONFIRM = 3
MAX_PAIRS = 1000

_PHASE_A, _PHASE_B, _PHASE_CONFIRM = 1, 2, 3


@dataclass(frozen=True)
class AuditResult:
    """Outcome of one audit. VIOLATION iff epsilon_lower_bound > epsilon_claimed."""

    verdict: str
    epsilon_claimed: float
    epsilon_lower_bound: float
    confidence: float
    witness: dict | None
    samples_per_input: int
    seconds: float
    detectable_epsilon: float
    conformance: dict | None
    method: str

    def to_json(self) -> dict:
        return _jsonable(asdict(self))

    def __str__(self) -> str:
        head = (f"{self.verdict}: ε_lb = {self.epsilon_lower_bound:.4f} vs claimed ε = "
                f"{self.epsilon_claimed:.4f} at confidence {self.confidence:g}")
        if self.witness:
            w = self.witness
            x, y = w["pair"]
            head += (f"\n  witness: x={x!r}, x'={y!r}, S = {w['event']}: {w['counts'][0]}/{w['samples'][0]} vs "
                     f"{w['counts'][1]}/{w['samples'][1]} (P(S|x) >= {w['p_lower']:.5g}, "
                     f"P(S|x') <= {w['q_upper']:.5g})")
        return head


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (numbers.Integral, np.integer)):
        return int(value)
    if isinstance(value, (numbers.Real, np.floating)):
        f = float(value)
        return f if math.isfinite(f) else str(f)
    if value is None or isinstance(value, str):
        return value
    return repr(value)


# -- sampling ------------------------------------------------------------------------------

def _chunks(n: int, first: int | None = None) -> list[int]:
    sizes = []
    if first is not None and n > 0:
        sizes.append(min(first, n))
        n -= sizes[0]
    while n > 0:
        sizes.append(min(CHUNK, n))
        n -= sizes[-1]
    return sizes


_WORKER_SAMPLER: Sampler | None = None


def _worker_init(sampler: Sampler) -> None:
    global _WORKER_SAMPLER
    _WORKER_SAMPLER = sampler


def _worker_draw(task):
    x, n, entropy, key = task
    return _WORKER_SAMPLER.draw(x, n, np.random.SeedSequence(entropy, spawn_key=key))


class _Progress:
    """A rich progress bar that appears only once a run has lasted about a second."""

    def __init__(self, enabled, total: int):
        self.callback = enabled if callable(enabled) else None
        self.enabled = bool(enabled)
        self.total = total
        self.done = 0
        self.start = time.perf_counter()
        self.bar = None
        self.task = None

    def add_total(self, extra: int) -> None:
        self.total += extra
        if self.bar is not None:
            self.bar.update(self.task, total=self.total)

    def advance(self, n: int) -> None:
        self.done += n
        if self.callback is not None:
            self.callback(self.done, self.total)
            return
        if not self.enabled:
            return
        if self.bar is None and time.perf_counter() - self.start > 1.0:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            self.bar = Progress("auditing", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                transient=True)
            self.bar.start()
            self.task = self.bar.add_task("audit", total=self.total, completed=self.done)
        elif self.bar is not None:
            self.bar.update(self.task, completed=self.done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


class _Engine:
    """Runs draws in the calling process or in a pool, in a fixed order, from per-chunk seeds."""

    def __init__(self, sampler: Sampler, seed: int, workers: int, progress: _Progress):
        self.sampler = sampler
        self.entropy = np.random.SeedSequence().entropy if seed is None else int(seed)
        self.progress = progress
        self.pool = None
        self.chunk_no: dict = {}
        self.digests: set = set()
        if workers > 1:
            ctx = multiprocessing.get_context("fork")
            sampler.digest = True
            self.pool = ctx.Pool(workers, initializer=_worker_init, initargs=(sampler,))

    def draw(self, jobs: list[tuple[int, object, int, int]]) -> Iterator[tuple[int, Outputs]]:
        """jobs: (input index, input, draws, phase) chunks; yields (input index, Outputs) in order."""
        tasks = []
        for index, x, n, phase in jobs:
            k = self.chunk_no.get((index, phase), 0)
            self.chunk_no[(index, phase)] = k + 1
            tasks.append((x, n, self.entropy, (phase, index, k)))
        if self.pool is None:
            for (index, *_), task in zip(jobs, tasks):
                out = _worker_draw_local(self.sampler, task)
                self.progress.advance(task[1])
                yield index, out
        else:
            for (index, x, *_), out in zip(jobs, self.pool.imap(_worker_draw, tasks)):
                self._check_duplicate(x, out)
                self.progress.advance(out.n)
                yield index, out

    def _check_duplicate(self, x, out: Outputs) -> None:
        """Worker processes start as copies of this one: a randomizer drawing from its own
        generator (not the seeded global ``random``/``numpy.random``, nor the batch rng) then
        repeats the same draws in every worker, and the samples are no longer independent."""
        constant = (out.kind == "objects" and len(out.values) <= 1) or \
            (out.kind == "array" and out.n and bool((out.values == out.values[0]).all()))
        if out.digest is None or constant:
            return
        if out.digest in self.digests:
            raise RandomizerError(
                f"randomizer returned the very same sequence of {out.n} outputs for input {x!r} in two "
                f"worker processes: it draws from a private generator that every worker copies; "
                f"use workers=1, or draw from the random/numpy.random module (seeded per chunk) or "
                f"from the rng passed to a batch randomizer")
        self.digests.add(out.digest)

    def close(self):
        if self.pool is not None:
            self.pool.close()
            self.pool.join()


def _worker_draw_local(sampler: Sampler, task):
    x, n, entropy, key = task
    return sampler.draw(x, n, np.random.SeedSequence(entropy, spawn_key=key))


# -- the audit -----------------------------------------------------------------------------

def _check_params(domain, epsilon, samples, alpha, explore_fraction, workers):
    try:
        inputs = list(domain)
    except TypeError:
        raise InvalidParameter(f"domain={domain!r} must be a list of inputs") from None
    if len(inputs) < 2:
        raise InvalidParameter(f"domain={domain!r} needs at least two inputs to compare")
    try:
        if len(set(inputs)) != len(inputs):
            raise InvalidParameter(f"domain={domain!r} lists an input twice")
    except TypeError:
        raise InvalidParameter(f"domain={domain!r} must contain hashable inputs") from None
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise InvalidParameter(f"epsilon={epsilon!r} is not a number") from None
    if math.isnan(eps) or eps < 0:
        raise InvalidParameter(f"epsilon={epsilon!r} must be >= 0")
    if not isinstance(samples, (numbers.Integral, np.integer)) or samples < 100:
        raise InvalidParameter(f"samples={samples!r} must be an integer >= 100 (draws per input)")
    if not 0 < float(alpha) < 1:
        raise InvalidParameter(f"alpha={alpha!r} must lie strictly between 0 and 1")
    if not 0 < float(explore_fraction) < 1:
        raise InvalidParameter(f"explore_fraction={explore_fraction!r} must lie strictly between 0 and 1")
    if not isinstance(workers, (numbers.Integral, np.integer)) or workers < 1:
        raise InvalidParameter(f"workers={workers!r} must be a positive integer")
    return inputs, eps


def _ordered_pairs(inputs: list, pairs) -> list[tuple]:
    if pairs is None:
        return [(x, y) for x in inputs for y in inputs if x != y]
    known = set(inputs)
    out = []
    for pair in pairs:
        try:
            x, y = pair
        except (TypeError, ValueError):
            raise InvalidParameter(f"pair {pair!r} must be two inputs (x, x')") from None
        for v in (x, y):
            if v not in known:
                raise InvalidParameter(f"pair {pair!r} uses {v!r}, which is not in the domain")
        if x == y:
            raise InvalidParameter(f"pair {pair!r} compares an input with itself")
        for p in ((x, y), (y, x)):
            if p not in out:
                out.append(p)
    if not out:
        raise InvalidParameter("pairs is empty; give at least one pair (x, x') or leave it None")
    return out


def _budget(samples: int, fraction: float, width: int, n_inputs: int) -> tuple[int, int]:
    """Draws per input for each exploration half and for confirmation."""
    half = int(samples * fraction) // 2
    cell_cap = MAX_EXPLORE_CELLS // max(1, 2 * width * n_inputs)
    half = max(1, min(half, MAX_EXPLORE_HALF, max(cell_cap, 4096)))
    return half, samples - 2 * half


def audit(randomizer: Callable, *, domain: Iterable, epsilon, samples: int = 10**6, alpha: float = 0.05,
          seed: int = 0, batch: bool = False, pairs=None, spec=None, explore_fraction: float = 0.25,
          workers: int = 1, progress=None, output_space=None, events=None,
          max_confirm: int = MAX_CONFIRM, looks=None) -> AuditResult:
    """Certify a lower bound on the ε of a black-box randomizer and compare it with ``epsilon``.

    randomizer: ``f(x) -> y`` or, with ``batch=True``, ``f(x, n, rng) -> n outputs``.
    domain: the inputs; all ordered pairs are considered unless ``pairs`` lists the
    (unordered) pairs to test. samples: draws per input. alpha: false-alarm probability
    (confidence 1-α). output_space: optional container (or predicate) every output must be in.
    spec: a Mechanism to guide the search with exact probabilities and to test conformance.
    events: precomputed candidates [(pair, predicate, p, q)], used instead of exploration.
    progress: True for a rich progress bar (shown after about a second), or a callable
    ``progress(done, total)``. seed: the same seed gives the same result (None: fresh entropy).
    looks: for sequential audits, [(cumulative confirmation draws per input, α of that look)];
    the audit stops at the first look whose bound exceeds ``epsilon`` (see sequential.py).
    """
    t0 = time.perf_counter()
    inputs, eps = _check_params(domain, epsilon, samples, alpha, explore_fraction, workers)
    ordered = _ordered_pairs(inputs, pairs)
    alpha = float(alpha)
    sampler = Sampler(randomizer, batch=batch, output_space=output_space)
    if spec is not None or events is not None:
        from ldpaudit.audit.guided import guided_audit

        return guided_audit(sampler, inputs=inputs, pairs=ordered, epsilon=eps, samples=int(samples),
                            alpha=alpha, seed=seed, spec=spec, events=events, workers=workers,
                            progress=progress, max_confirm=max_confirm, t0=t0, looks=looks)
    used = sorted({i for p in ordered for i in p}, key=inputs.index)
    index = {x: i for i, x in enumerate(inputs)}
    prog = _Progress(progress, 0)
    engine = _Engine(sampler, seed, int(workers), prog)
    try:
        return _black_box(engine, prog, inputs=used, index=index, pairs=ordered, epsilon=eps,
                          samples=int(samples), alpha=alpha, fraction=float(explore_fraction),
                          max_confirm=max_confirm, t0=t0, looks=looks)
    finally:
        engine.close()
        prog.close()


def _black_box(engine: _Engine, prog: _Progress, *, inputs, index, pairs, epsilon, samples, alpha,
               fraction, max_confirm, t0, looks=None) -> AuditResult:
    # Pilot: the first exploration chunk of every input fits the featurizer.
    half, _ = _budget(samples, fraction, 1, len(inputs))
    pilot_n = min(PILOT, half)
    prog.add_total(len(inputs) * pilot_n)
    pilots = {}
    for i, out in engine.draw([(index[x], x, pilot_n, _PHASE_A) for x in inputs]):
        pilots[i] = out
    feat = Featurizer().fit([(x, pilots[index[x]]) for x in inputs])
    width = max(1, feat.width if feat.shape != "set" else len(feat.columns))
    half, n_confirm = _budget(samples, fraction, width, len(inputs))
    half = max(half, pilot_n)
    n_confirm = samples - 2 * half

    views_a: dict = {x: [feat.transform(pilots[index[x]], x)] for x in inputs}
    del pilots
    views_b: dict = {x: [] for x in inputs}
    jobs_a = [(index[x], x, n, _PHASE_A) for x in inputs for n in _chunks(half - pilot_n)]
    jobs_b = [(index[x], x, n, _PHASE_B) for x in inputs for n in _chunks(half)]
    prog.add_total(sum(j[2] for j in jobs_a + jobs_b))
    by_index = {index[x]: x for x in inputs}
    for i, out in engine.draw(jobs_a):
        views_a[by_index[i]].append(feat.transform(out, by_index[i]))
    half_a = {x: concat_views(v) for x, v in views_a.items()}
    del views_a
    feat.freeze(list(half_a.values()))
    for i, out in engine.draw(jobs_b):
        views_b[by_index[i]].append(feat.transform(out, by_index[i]))
    half_b = {x: concat_views(v) for x, v in views_b.items()}
    del views_b

    z_select = bounds.z_value(alpha / (2 * max_confirm))
    candidates = search(feat, half_a, half_b, pairs, n_confirm=n_confirm, z=z_select, max_pairs=MAX_PAIRS)
    del half_a, half_b
    chosen = choose(candidates, max_confirm)
    explored = (f"exploration: {2 * half} draws per input ({len(pairs)} ordered pairs, "
                f"{len(candidates)} candidate events, half to fit and half to rank them)")
    if looks:  # the looks' sizes are relative to the confirmation budget
        looks = looks.rescaled(n_confirm)
    return _confirm(engine, prog, feat, chosen, index=index, epsilon=epsilon, samples=samples,
                    n_confirm=n_confirm, alpha=alpha, explored=explored, t0=t0, looks=looks)


def best_confirmed(chosen: list[Candidate], hits: dict, n: int, alpha_each: float):
    """The confirmed candidate with the largest certified bound, as (bound, candidate, count
    under x, count under x', lower P(S|x), upper P(S|x')), or None without candidates."""
    best = None
    for ci, c in enumerate(chosen):
        a, b = hits[(ci, 0)], hits[(ci, 1)]
        lb, p_low, q_up = bounds.epsilon_lower_bound(a, n, b, n, alpha_each)
        if best is None or lb > best[0]:
            best = (lb, c, a, b, p_low, q_up)
    return best


def _confirm(engine, prog, transform, chosen: list[Candidate], *, index, epsilon, samples, n_confirm,
             alpha, explored, t0, looks=None) -> AuditResult:
    """Count the chosen events on fresh samples and turn the counts into the certified bound.
    ``looks`` [(cumulative draws, α)] stop at the first look that certifies a violation."""
    k = max(1, len(chosen))
    looks = looks or [(n_confirm, alpha)]
    alpha_each = looks[-1][1] / (2 * k)
    detectable = bounds.detectable_epsilon(n_confirm, alpha_each)
    method = (f"{explored}; confirmation: {n_confirm} fresh draws per input for the {len(chosen)} "
              f"best candidate(s); one-sided exact Clopper-Pearson bounds at α/(2·{k}) = {alpha_each:.3g} "
              f"each (Bonferroni over {k} candidate(s) × 2 bounds), so a randomizer that is truly "
              f"ε-LDP is reported as a VIOLATION with probability at most α = {alpha:g}")
    if not chosen:
        return AuditResult("NO_EVIDENCE", epsilon, 0.0, 1 - alpha, None, samples,
                           time.perf_counter() - t0, detectable, None, method)
    needed = sorted({u for c in chosen for u in c.pair}, key=lambda u: index[u])
    hits = {(ci, role): 0 for ci in range(len(chosen)) for role in (0, 1)}
    by_index = {index[u]: u for u in needed}
    done = 0
    for n_look, alpha_look in looks:
        jobs = [(index[u], u, n, _PHASE_CONFIRM) for u in needed for n in _chunks(n_look - done)]
        prog.add_total(sum(j[2] for j in jobs))
        for i, out in engine.draw(jobs):
            u = by_index[i]
            view = transform(out, u) if callable(transform) else transform.transform(out, u)
            for ci, c in enumerate(chosen):
                for role in (0, 1):
                    if c.pair[role] == u:
                        hits[(ci, role)] += view.count(c.event.mask(view))
        done = n_look
        best = best_confirmed(chosen, hits, done, alpha_look / (2 * k))
        if hasattr(looks, "record"):
            looks.record(done, alpha_look, best[0])
        if best[0] > epsilon:
            break
    samples = samples - n_confirm + done
    n_confirm = done
    lb, c, a, b, p_low, q_up = best
    witness = None
    if lb > 0:
        witness = {"pair": list(c.pair), "event": c.event.description, "family": c.family,
                   "counts": [a, b], "samples": [n_confirm, n_confirm],
                   "p_hat": a / n_confirm, "q_hat": b / n_confirm, "p_lower": p_low, "q_upper": q_up,
                   "epsilon_lower_bound": lb, "candidates_confirmed": k,
                   "predicted_from_exploration": c.predicted}
    lb = max(lb, 0.0)
    verdict = "VIOLATION" if lb > epsilon else "NO_EVIDENCE"
    return AuditResult(verdict, epsilon, lb, 1 - alpha, witness, samples, time.perf_counter() - t0,
                       detectable, None, method)
