"""The statistical auditor: sample a black-box randomizer and certify a lower bound on its ε.

Three independent samples per input, all drawn from one seed:
1. exploration half A (fit): the featurizer and, per input pair, an ordering of events;
2. exploration half B (rank): the predicted certified bound of every candidate (pair, event);
3. confirmation (fresh, the rest of the budget): only the best few candidates are counted.

Candidates come from events.py (value sets, bins, column projections, linear scores), pool.py
(one relation pooled over every input), floats.py (bit patterns of doubles) and rare.py (rare
outputs ranked by the bound they could certify); confirmation is engine.py's.

The certified bound of a candidate is ln(CP_lower(a)/CP_upper(b)) with one-sided exact
Clopper-Pearson bounds at level α/(2k), k the number of candidates confirmed, so with
probability at least 1-α no confirmed bound exceeds the randomizer's true ε (Bonferroni over
the k candidates and their two bounds). VIOLATION is reported iff the best bound exceeds the
claimed ε; a correct randomizer is flagged with probability at most α.

(ε, δ) audits (``delta`` > 0): an (ε, δ)-LDP randomizer has P(S|x) <= e^ε P(S|x') + δ for
every event, so the certified bound is ln((CP_lower(a) − δ)/CP_upper(b)), the events are ranked
by that bound (events.py: tail thresholds for a Gaussian), and VIOLATION means
CP_lower(a) − e^ε CP_upper(b) > δ; the exploration/confirmation split and the Bonferroni
correction are unchanged, so a randomizer that is truly (ε, δ)-LDP is flagged with
probability at most α.
"""
from __future__ import annotations

import math
import numbers
import time
from dataclasses import replace
from typing import Callable, Iterable

import numpy as np

from ldpaudit.audit import bounds
from ldpaudit.audit.adapters import Sampler
from ldpaudit.audit import wide
from ldpaudit.audit.draws import CHUNK, Draws, Positions, Progress, chunks
from ldpaudit.audit.engine import AuditResult, confirm_counts, make_draws, verdict_of, witness_of
from ldpaudit.audit.events import Candidate, Search, choose, search
from ldpaudit.audit.features import Featurizer, compact, concat_views
from ldpaudit.audit.findings import cannot_test, findings_of, with_law
from ldpaudit.audit.floats import float_candidates
from ldpaudit.audit.pool import PooledCandidate, relation_candidates
from ldpaudit.audit.rare import add_rare, best_of_kind, rare_candidates
from ldpaudit.budget import DEFAULT_MEMORY_MB   # the audit's memory budget (--memory-mb) too
from ldpaudit.errors import InvalidParameter

PILOT = 1 << 13                 # first exploration chunk of every input, used to fit the featurizer
MAX_EXPLORE_HALF = 1 << 19      # draws per input per exploration half, at most
MAX_EXPLORE_CELLS = 1 << 27     # total stored exploration cells (draws x columns) across inputs
MAX_CONFIRM = 3
MAX_PAIRS = 1000

BLOCK = 4096                    # inputs whose chunks are listed at once in a wide audit

_PHASE_A, _PHASE_B, _PHASE_CONFIRM = 1, 2, 3
_PHASE_PROBE, _PHASE_WIDE = 5, 6         # guided.py uses 4


# -- the audit -----------------------------------------------------------------------------

def _check_delta(delta) -> float:
    if isinstance(delta, (bool, np.bool_)):
        raise InvalidParameter(f"delta={delta!r} is not a number; give δ in [0, 1), e.g. delta=1e-5")
    try:
        value = float(delta)
    except (TypeError, ValueError):
        raise InvalidParameter(f"delta={delta!r} is not a number; give δ in [0, 1), e.g. delta=1e-5") from None
    if not 0 <= value < 1:
        raise InvalidParameter(f"delta={delta!r} must be in [0, 1) (the δ of an (ε, δ) claim), e.g. delta=1e-5")
    return value


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
          max_confirm: int = MAX_CONFIRM, looks=None, feature: Callable | None = None,
          cluster=None, delta: float = 0.0, as_set: bool = False,
          memory_mb: float = DEFAULT_MEMORY_MB) -> AuditResult:
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
    feature: a projection of the outputs (projection.py), e.g. OLH's (seed, value) to the
    inputs it supports; the audit is of feature ∘ randomizer, a post-processing, so a
    certified violation is one of the randomizer.
    cluster: sample on a Dask cluster: a scheduler address ``"tcp://host:8786"``,
    ``"local:N"`` (N local worker processes) or a ``distributed.Client`` (see cluster.py);
    the result is the same as without it.
    delta: audit the claim (ε, δ)-LDP: certify a lower bound on ε at this δ in [0, 1) (the
    events are then searched for a large P(S|x) − e^ε P(S|x')); 0 is the pure-ε audit.
    as_set: read every output (a tuple, list or array of any length, or a set) as the set of its
    elements, when their order carries no information; the result's ``outputs`` says so.
    Outputs of varying length are otherwise opaque values, compared whole.
    memory_mb: the audit's memory budget in MiB; a domain whose per-pair search would not fit
    in half of it (or of more than 4096 inputs) is audited as a wide domain (wide.py: relations
    pooled over every input plus the per-pair search on a subsample, in memory linear in d).
    """
    t0 = time.perf_counter()
    inputs, eps = _check_params(domain, epsilon, samples, alpha, explore_fraction, workers)
    delta = _check_delta(delta)
    if not isinstance(memory_mb, numbers.Real) or isinstance(memory_mb, bool) or not memory_mb > 0:
        raise InvalidParameter(f"memory_mb={memory_mb!r} must be a positive number of MiB (the audit's memory "
                               f"budget), e.g. memory_mb=2048")
    if delta and (spec is not None or events is not None):
        given = "spec" if spec is not None else "events"
        raise InvalidParameter(f"delta={delta:g} with {given}=: (ε, δ) audits are black-box only (the spec-guided "
                               f"events are chosen for pure ε); drop {given} or delta")
    hash_function = getattr(feature, "hash_function", None)
    if spec is not None and hash_function is not None and pairs is None and (
            spec.parameters or len(inputs) > wide.GUIDED_INPUTS
            or len(inputs) * min(int(samples), CHUNK) > float(memory_mb) * 2**20 / 8):
        from ldpaudit.audit.guided_wide import hashed_wide_audit   # d-long support rows would not fit

        return hashed_wide_audit(Sampler(randomizer, batch=batch, output_space=output_space), hash_function,
                                 inputs=inputs, epsilon=eps, samples=int(samples), alpha=float(alpha), seed=seed,
                                 spec=spec, workers=workers, progress=progress, t0=t0, looks=looks, cluster=cluster)
    if spec is not None and feature is None and events is None and pairs is None and (
            spec.parameters or len(inputs) > wide.GUIDED_INPUTS):
        from ldpaudit.audit.guided_wide import family_hash, hashed_wide_audit

        own = family_hash(spec)     # HR: the spec's Hadamard family is the hash; no --hash needed
        if own is not None:
            return hashed_wide_audit(Sampler(randomizer, batch=batch, output_space=output_space), own,
                                     inputs=inputs, epsilon=eps, samples=int(samples), alpha=float(alpha), seed=seed,
                                     spec=spec, workers=workers, progress=progress, t0=t0, looks=looks,
                                     cluster=cluster, from_spec=True)
    if feature is not None:
        from ldpaudit.audit.projection import project

        randomizer = project(randomizer, feature, batch=batch)
    ordered = None if pairs is None else _ordered_pairs(inputs, pairs)   # None: all, listed when needed
    alpha = float(alpha)
    sampler = Sampler(randomizer, batch=batch, output_space=output_space)
    if as_set and (spec is not None or events is not None):
        raise InvalidParameter("as_set=True reads outputs as sets for the black-box search; a spec or given events "
                               "describe the outputs as they are: drop as_set (--as-set) or the spec")
    spec_note = None
    if spec is not None and events is None and ordered is None and len(inputs) > wide.GUIDED_INPUTS \
            and spec.channel.form == "product" and not spec.channel.continuous and feature is None:
        from ldpaudit.audit.guided_wide import unary_wide_audit   # the spec's exact pooled event

        return unary_wide_audit(sampler, inputs=inputs, epsilon=eps, samples=int(samples), alpha=alpha, seed=seed,
                                spec=spec, workers=workers, progress=progress, t0=t0, looks=looks, cluster=cluster)
    if spec is not None and events is None and ordered is None and len(inputs) > wide.GUIDED_INPUTS:
        # The spec's pair events are counted on n draws of two inputs (k-RR at d = 200: ε_lb 0
        # at 2000 draws per input), and listing every pair alone is d² work: the audit is the
        # wide black-box one (relations pooled over every input).
        spec_note = (f"spec-guided audits over more than {wide.GUIDED_INPUTS} inputs run as wide black-box "
                     f"audits (the spec's per-pair events, each counted on the draws of two inputs only, are not "
                     f"used at this size; local hashing with --hash and unary encodings keep the spec's exact "
                     f"pooled event); the spec's conformance tests were not run")
        spec = None
    if spec is not None or events is not None:
        from ldpaudit.audit.guided import guided_audit

        return guided_audit(sampler, inputs=inputs, pairs=ordered if ordered is not None else _ordered_pairs(inputs, None), epsilon=eps, samples=int(samples),
                            alpha=alpha, seed=seed, spec=spec, events=events, workers=workers,
                            progress=progress, max_confirm=max_confirm, t0=t0, looks=looks, cluster=cluster,
                            supports=bool(getattr(feature, "hash_support", False)))
    index = Positions(inputs)        # a range's positions are arithmetic: nothing per input at 10^6
    used = index.inputs if ordered is None else sorted({i for p in ordered for i in p}, key=index.__getitem__)
    prog = Progress(progress)
    engine = make_draws(sampler, seed, int(workers), prog, cluster)
    try:
        result = _black_box(engine, prog, inputs=used, index=index, pairs=ordered, epsilon=eps,
                            samples=int(samples), alpha=alpha, fraction=float(explore_fraction),
                            max_confirm=max_confirm, t0=t0, looks=looks, delta=delta, as_set=bool(as_set),
                            memory_mb=float(memory_mb), force_wide=spec_note is not None)
        return result if spec_note is None else replace(result, method=f"{spec_note}; {result.method}")
    finally:
        engine.close()
        prog.close()


def _black_box(engine: Draws, prog: Progress, *, inputs, index, pairs, epsilon, samples, alpha,
               fraction, max_confirm, t0, looks=None, delta=0.0, as_set=False,
               memory_mb=DEFAULT_MEMORY_MB, force_wide=False) -> AuditResult:
    """``pairs`` None: every ordered pair, listed only if the domain is not wide (``force_wide``:
    a wide audit whatever the size)."""
    if pairs is None and len(inputs) > 2:
        shape = _probe(engine, inputs, index, as_set)
        half, _ = _budget(samples, fraction, shape.width, len(inputs))
        distinct = max(len(shape.distinct), len(inputs)) if shape.kind == "scalar" else 4097
        if force_wide or wide.is_wide(len(inputs), half, shape.width, distinct, memory_mb):
            return _wide(engine, prog, shape, inputs=inputs, index=index, epsilon=epsilon, samples=samples,
                         alpha=alpha, fraction=fraction, max_confirm=max_confirm, t0=t0, looks=looks, delta=delta,
                         as_set=as_set, memory_mb=memory_mb)
    if pairs is None:
        pairs = _ordered_pairs(inputs, None)
    feat, candidates, rare, half, n_confirm, explored = _explore(
        engine, prog, inputs=inputs, index=index, pairs=pairs, samples=samples, alpha=alpha, fraction=fraction,
        max_confirm=max_confirm, delta=delta, as_set=as_set)
    chosen = with_law(add_rare(choose(candidates, max_confirm), rare, epsilon), candidates)
    if any(len(c.inputs) > 2 for c in chosen):
        explored += _POOLED_NOTE
    if looks:  # the looks' sizes are relative to the confirmation budget
        looks = looks.rescaled(n_confirm)
    return replace(_confirm(engine, prog, feat, chosen, index=index, epsilon=epsilon, samples=samples,
                            n_confirm=n_confirm, alpha=alpha, explored=explored, t0=t0, looks=looks, delta=delta),
                   outputs=feat.outputs_json())


_POOLED_NOTE = ("; pooled candidates count the draws of several inputs (one-sided Clopper-Pearson "
                "bounds hold for the average probability, Hoeffding 1956; see audit/pool.py)")


def _explore(engine: Draws, prog: Progress, *, inputs, index, pairs, samples, alpha, fraction, max_confirm,
             delta=0.0, as_set=False, pooled=True):
    """Exploration of the per-pair search: (featurizer, candidates sorted best first, rare
    candidates, draws per half, confirmation draws per input, what was explored)."""
    # Pilot: the first exploration chunk of every input fits the featurizer.
    half, _ = _budget(samples, fraction, 1, len(inputs))
    pilot_n = min(PILOT, half)
    prog.add_total(len(inputs) * pilot_n)
    pilots = {}
    for i, out in engine.draw([(index[x], x, pilot_n, _PHASE_A) for x in inputs]):
        pilots[i] = out
    feat = Featurizer(as_set=as_set).fit([(x, pilots[index[x]]) for x in inputs])
    width = max(1, feat.width if feat.shape != "set" else len(feat.columns))
    half, n_confirm = _budget(samples, fraction, width, len(inputs))
    half = max(half, pilot_n)
    n_confirm = samples - 2 * half

    # Exploration views are kept compacted (distinct rows and counts, features.compact): the
    # search sees the same counts while the client's memory stops growing with the draws.
    views_a: dict = {x: [compact(feat.transform(pilots[index[x]], x))] for x in inputs}
    del pilots
    views_b: dict = {x: [] for x in inputs}
    jobs_a = [(index[x], x, n, _PHASE_A) for x in inputs for n in chunks(half - pilot_n)]
    jobs_b = [(index[x], x, n, _PHASE_B) for x in inputs for n in chunks(half)]
    prog.add_total(sum(j[2] for j in jobs_a + jobs_b))
    by_index = {index[x]: x for x in inputs}
    for i, out in engine.draw(jobs_a):
        views_a[by_index[i]].append(compact(feat.transform(out, by_index[i])))
    half_a = {x: compact(concat_views(v)) for x, v in views_a.items()}
    del views_a
    feat.freeze(list(half_a.values()))
    for i, out in engine.draw(jobs_b):
        views_b[by_index[i]].append(compact(feat.transform(out, by_index[i])))
    half_b = {x: compact(concat_views(v)) for x, v in views_b.items()}
    del views_b

    z_select = bounds.z_value(alpha / (2 * max_confirm))
    searcher = Search(feat, half_a, half_b, n_confirm, z_select, delta)
    extra = relation_candidates(searcher, n_confirm=n_confirm, z=z_select) if pooled else []
    screened = searcher.screen(pairs, MAX_PAIRS)
    extra += _at_delta(float_candidates(searcher, screened, n_confirm=n_confirm, z=z_select), searcher)
    candidates = search(feat, half_a, half_b, screened, n_confirm=n_confirm, z=z_select, max_pairs=MAX_PAIRS,
                        searcher=searcher, extra=extra)
    chosen = choose(candidates, max_confirm)
    rare = rare_candidates(searcher, searcher.pairs, n_confirm=n_confirm, alpha_each=alpha / (2 * (len(chosen) + 1)))
    explored = (f"exploration: {2 * half} draws per input ({len(pairs)} ordered pairs, "
                f"{len(candidates) + len(rare)} candidate events, half to fit and half to rank them; "
                f"rare events ranked by the bound they could certify)")
    return feat, candidates, rare, half, n_confirm, explored


# -- wide domains (wide.py) ----------------------------------------------------------------

def _probe(engine: Draws, inputs: list, index: dict, as_set: bool) -> wide.Shape:
    """A few draws of up to 16 evenly spaced inputs (a phase of their own, so the other
    phases' draws are those of an audit without the probe): the output shape."""
    shape = wide.Shape()
    step = max(1, len(inputs) // 16)
    probed = {index[x]: x for x in inputs[::step][:16]}
    engine.progress.add_total(len(probed) * wide.PILOT_WIDE)
    for i, out in engine.draw([(i, x, wide.PILOT_WIDE, _PHASE_PROBE) for i, x in probed.items()]):
        shape.add(probed[i], out, as_set)
    return shape


def _wide(engine: Draws, prog: Progress, shape, *, inputs, index, epsilon, samples, alpha, fraction, max_confirm,
          t0, looks, delta, as_set, memory_mb) -> AuditResult:
    """The audit of a wide domain (wide.py): the per-pair search on a subsample (draws of its
    own), the relations pooled over every input, and one confirmation of both on fresh draws
    of every input, streamed in bounded memory."""
    ring = wide.Ring(inputs)
    half, _ = _budget(samples, fraction, shape.width, wide.SUBSAMPLE)
    sub = wide.subsample(inputs, half, shape.width, memory_mb)
    sub_pairs = [(x, y) for x in sub for y in sub if x != y]
    feat, candidates, rare, half, _, _ = _explore(
        engine, prog, inputs=sub, index=index, pairs=sub_pairs, samples=samples, alpha=alpha, fraction=fraction,
        max_confirm=max_confirm, delta=delta, as_set=as_set, pooled=False)
    size = wide.chunk_size(shape.width)
    named = wide.relations(shape, ring)
    z_select = bounds.z_value(alpha / (2 * max_confirm))
    rank_n = 0 if len(named) <= 1 else max(1, int(samples * fraction) // 2)
    n_confirm = samples - rank_n
    if len(named) > 1:   # several relations: ranked on draws of their own, the best confirmed
        counts = np.zeros(2 * len(named), dtype=np.int64)
        tally = wide.RelationTally([e for _, e in named], ring)
        prog.add_total(len(inputs) * rank_n)
        for lo in range(0, len(inputs), BLOCK):
            jobs = [(index[x], x, m, _PHASE_WIDE) for x in inputs[lo:lo + BLOCK] for m in chunks(rank_n, size=size)]
            for _, row in engine.tally(jobs, tally):
                counts += row
        pooled = wide.relation_candidates(named, counts, rank_n, ring=ring, n_confirm=n_confirm, z=z_select,
                                          delta=delta)
        chosen = choose(sorted(pooled, key=lambda c: -c.predicted), 2)
        ranked = f"{len(named)} relations pooled over every input, ranked on {rank_n} draws per input"
    else:                # one relation: fixed before sampling, confirmed on every draw
        chosen = wide.fixed_candidates(named, ring)
        ranked = f"{len(named)} relation pooled over every input, chosen before sampling"
    local = [replace(c, event=wide.OnFeatures(inner=c.event)) for c in choose(candidates, 1)]
    # add_rare looks at the best rare candidate of each kind only
    firsts = [best_of_kind(rare, kind) for kind in (Candidate, PooledCandidate)]
    chosen += add_rare(local, [replace(c, event=wide.OnFeatures(inner=c.event)) for c in firsts if c is not None],
                       epsilon)
    explored = (f"wide domain ({len(inputs)} inputs, audit/wide.py): {ranked}; per-pair exploration of "
                f"{len(sub)} evenly spaced inputs on {2 * half} draws each of their own ({len(sub_pairs)} ordered "
                f"pairs, {len(candidates) + len(rare)} candidate events, the best confirmed)")
    if any(len(c.inputs) > 2 for c in chosen):
        explored += _POOLED_NOTE
    if looks:
        looks = looks.rescaled(n_confirm)
    result = _confirm(engine, prog, lambda out, u: wide.ChunkView(out, feat, u), chosen, index=index,
                      epsilon=epsilon, samples=n_confirm + rank_n, n_confirm=n_confirm, alpha=alpha,
                      explored=explored, t0=t0, looks=looks, delta=delta, chunk=size)
    outputs = {"shape": shape.kind, "width": shape.width, "read_as": "wide domain: relations on raw outputs",
               "as_set": bool(as_set), "subsample": feat.outputs_json()}
    return replace(result, outputs=outputs)


def _at_delta(candidates: list[Candidate], s: Search) -> list[Candidate]:
    """Float candidates (chosen per pair by their pure-ε prediction, floats.py) re-ranked by
    the bound their half-B frequencies predict at the search's δ; unchanged at δ = 0."""
    if not s.delta:
        return candidates
    out = []
    for c in candidates:
        n_rank = min(s.b[u].n for u in c.pair)
        c.predicted = float(bounds.predicted_bound(c.p_explore, c.q_explore, s.n_confirm, s.z, n_rank, s.delta))
        if math.isfinite(c.predicted):
            out.append(c)
    return out


def _confirm(engine: Draws, prog: Progress, transform, chosen: list[Candidate], *, index, epsilon, samples,
             n_confirm, alpha, explored, t0, looks=None, delta=0.0, chunk: int = CHUNK) -> AuditResult:
    """Count the chosen events on fresh samples and turn the counts into the certified bound
    (at δ = ``delta``). ``looks`` [(cumulative draws, α)] stop at the first look that
    certifies a violation."""
    k = max(1, len(chosen))
    looks = looks or [(n_confirm, alpha)]
    alpha_each = looks[-1][1] / (2 * k)
    detectable = bounds.detectable_epsilon(n_confirm, alpha_each, delta)
    if delta:
        certified = (f"ε_lb(δ) = ln((lower(P(S|x)) − δ)/upper(P(S|x'))) at δ = {delta:g} (an (ε, δ)-LDP "
                     f"randomizer has P(S|x) <= e^ε P(S|x') + δ for every S) with one-sided exact "
                     f"Clopper-Pearson bounds")
        claim = "(ε, δ)-LDP"
    else:
        certified, claim = "one-sided exact Clopper-Pearson bounds", "ε-LDP"
    method = (f"{explored}; confirmation: {n_confirm} fresh draws per input for the {len(chosen)} "
              f"best candidate(s); {certified} at α/(2·{k}) = {alpha_each:.3g} "
              f"each (Bonferroni over {k} candidate(s) × 2 bounds), so a randomizer that is truly "
              f"{claim} is reported as a VIOLATION with probability at most α = {alpha:g}")
    if not chosen:
        untestable = cannot_test(epsilon, detectable, n_confirm, alpha_each, delta)
        return AuditResult("INCONCLUSIVE" if untestable else "NO_EVIDENCE", epsilon, 0.0, 1 - alpha, None, samples,
                           time.perf_counter() - t0, detectable, None, method, delta, cannot_test=untestable)
    if any(getattr(c, "ring", None) is not None for c in chosen):
        used = index.inputs                 # a relation pooled over every input: all of them, in order
    else:
        used = sorted({u for c in chosen for u in c.inputs}, key=lambda u: index[u])
    view_of = transform if callable(transform) else transform.transform
    hits: dict = {}
    done, best, k, alpha_last = confirm_counts(engine, prog, chosen, used=used, index=index, view_of=view_of,
                                               looks=looks, phase=_PHASE_CONFIRM, epsilon=epsilon, delta=delta,
                                               chunk=chunk, hits_out=hits)
    samples = samples - n_confirm + done
    lb = best[0]
    extra = {"predicted_from_exploration": best[1].predicted} if math.isfinite(best[1].predicted) else {}
    if delta:   # the same verdict read at the claimed ε: the δ this event certifies it needs
        extra.update(delta=delta, delta_lower_bound=best[4] - math.exp(min(epsilon, 700.0)) * best[5])
    witness = witness_of(best, done, k, **extra)
    lb = max(lb, 0.0)
    findings = findings_of(chosen, hits, done, alpha_last, k, epsilon=epsilon, delta=delta)
    verdict = verdict_of(lb, epsilon)
    untestable = cannot_test(epsilon, detectable, n_confirm, alpha_each, delta) if verdict == "NO_EVIDENCE" else None
    return AuditResult("INCONCLUSIVE" if untestable else verdict, epsilon, lb, 1 - alpha, witness, samples,
                       time.perf_counter() - t0, detectable, None, method, delta, findings=findings,
                       cannot_test=untestable)
