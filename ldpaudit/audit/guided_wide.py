"""The spec-guided audit over a wide domain: local hashing read through the user's hash
(:func:`hashed_wide_audit`) and unary encodings (:func:`unary_wide_audit`), each pooling the
one event the spec shows tight over every input instead of a d-long row per output.
"""

from __future__ import annotations

import time

import numpy as np
import sympy as sp

from ldpaudit.audit import bounds
from ldpaudit.audit.adapters import Sampler
from ldpaudit.audit.draws import Positions, Progress
from ldpaudit.audit.engine import AuditResult, confirm_counts, make_draws, verdict_of, witness_of
from ldpaudit.audit.findings import cannot_test
from ldpaudit.audit.guided_events import _PHASE_GUIDED, _conformance
from ldpaudit.errors import InvalidParameter


def hash_rates(mech) -> tuple[float, float, int]:
    """(P(value == h(c, x) | x), P(value == one given other value | x), k) of a local-hashing
    spec (a cohort channel of a family whose pairs collide in exactly 1/k of the cohorts: the
    all-functions family into k values, e.g. specs/olh.toml, or the Hadamard family into 2,
    specs/hadamard.toml): C times the class weights of a hit and of a miss, exact and then as
    floats. The domain size may be left free (C = k^d is too large to bind at d = 10^5): the
    rates must then not depend on it, which sympy shows by simplifying C·w to an expression
    free of it."""
    from ldpaudit.errors import InvalidSpec
    from ldpaudit.mechanism.hashing import cohort_class, cohort_literals

    ch = mech.channel
    space = getattr(ch, "outputs", None)
    if ch.form != "structured" or type(space).__name__ != "CohortSpace":
        raise InvalidParameter(f"a hash projection needs a local-hashing spec (cohort outputs (c, v), e.g. "
                               f"specs/olh.toml); {mech.name!r} has {ch.form} outputs")
    family = getattr(space, "family", None)
    if family is None or family.name not in EXACT_FAMILIES or getattr(space, "permutation", False):
        raise InvalidParameter(f"a hash projection needs the all-functions or hadamard family (collision rate "
                               f"exactly 1/k) in the spec; {mech.name!r} declares "
                               f"{family.describe() if family else 'a table'}")
    if cohort_literals(ch):
        raise InvalidParameter(f"{mech.name!r} has cohort-specific classes; a hash projection needs "
                               f"exchangeable cohorts")
    try:
        hit = ch.classes[cohort_class(mech, ch, None, True)]
        miss = ch.classes[cohort_class(mech, ch, None, False)]
    except InvalidSpec as exc:
        raise InvalidParameter(f"a hash projection cannot read {mech.name!r}: {exc}") from None
    C, k = sp.sympify(space.C), sp.sympify(space.k)
    rates = [sp.simplify(C * hit.weight), sp.simplify(C * miss.weight)]
    free = sorted(str(s) for r in (*rates, k) for s in sp.sympify(r).free_symbols)
    if free:
        raise InvalidParameter(f"{mech.name!r}: the hit and miss rates of its cohorts depend on {', '.join(free)}; "
                               f"bind {free[0]} (-p {free[0]}=...)")
    return float(sp.N(rates[0], 17)), float(sp.N(rates[1], 17)), int(k)


#: families whose pairs of inputs collide in exactly 1/k of the cohorts (mechanism/hashing.py)
EXACT_FAMILIES = ("all-functions", "hadamard")


def family_hash(spec):
    """The spec's own vectorized hash h(seeds, x) when its cohort family supplies one that an
    implementation cannot choose differently (the Hadamard family of HR: H[x + 1, j] as a bit),
    else None (local hashing with a user-chosen hash: give it with --hash)."""
    space = getattr(getattr(spec, "channel", None), "outputs", None)
    family = getattr(space, "family", None)
    if type(space).__name__ != "CohortSpace" or family is None or getattr(space, "hash_table", None) is not None:
        return None
    return family.vectorized()


class _RoleTest:
    """A conformance test of a pooled relation under one role (counted on every input)."""

    def __init__(self, relation, role: int, text: str):
        self.relation, self.role, self.description = relation, role, text

    def hits(self, view, u, role: int) -> int:
        return self.relation.hits(view, u, self.role)


def hashed_wide_audit(sampler: Sampler, hash_function, *, inputs, epsilon, samples, alpha, seed, spec, workers,
                      progress, t0, looks=None, cluster=None, from_spec: bool = False):
    """The spec-guided audit of local hashing over a wide domain, reading the outputs
    (seed, value) through the hash without a d-long support row per output: the one event the
    spec shows tight, S_x = {value == h(seed, x), value != h(seed, x')} pooled over every
    input against x' = next(x), with P(S_x|x) = p_hit·(1 − 1/k) and P(S_x|x') =
    q_miss·(1 − 1/k) exactly (the family's pairs collide in exactly 1/k of the cohorts:
    all-functions, Hadamard), and pooled conformance tests (both roles, the hit rate, and for
    a family hash the rate of value == 0, 1/k: with h(seed, x) = 0 in a fraction 1/k of the
    cohorts, p_hit/k + (1 − 1/k)·q_miss = 1/k). ``hash_function`` is the user's
    (--hash) or, ``from_spec``, the spec family's own (HR's Hadamard bits: family_hash)."""
    from ldpaudit.audit import wide

    p_hit, q_miss, k_values = hash_rates(spec)
    ring = wide.Ring(inputs)
    kappa = 1.0 / k_values
    event = wide.WideRelation("hash", ring, exclude=True, hash_function=hash_function)
    hit = wide.WideRelation("hash", ring, hash_function=hash_function)
    extra = [(_ValueTest(0), "value == 0", 1.0 / k_values)] if from_spec else []
    whose = f"the spec's {spec.channel.outputs.family.name} family" if from_spec else "the user's hash"
    return _pooled_wide_audit(sampler, ring, event, "value == h(seed, x) and value != h(seed, x')",
                              p_hit * (1 - kappa), q_miss * (1 - kappa), (hit, "value == h(seed, x)", p_hit),
                              f"local hashing read through {whose}", epsilon=epsilon, samples=samples,
                              alpha=alpha, seed=seed, workers=workers, progress=progress, t0=t0, looks=looks,
                              cluster=cluster, width=2, extra_tests=extra,
                              view_of=lambda out, u: wide.HashedChunk(out, hash_function))


class _ValueTest:
    """Draws of (seed, value) outputs whose value is ``value`` (a pooled conformance test)."""

    def __init__(self, value: int):
        self.value = value

    def hits(self, view, u, role: int) -> int:
        from ldpaudit.audit.wide import HashedChunk, _hashed

        values = view.values if isinstance(view, HashedChunk) else _hashed(view, None, None)[1]
        return int(np.count_nonzero(values == self.value))


def unary_wide_audit(sampler: Sampler, *, inputs, epsilon, samples, alpha, seed, spec, workers, progress, t0,
                     looks=None, cluster=None):
    """The spec-guided audit of a unary encoding (a product channel over the d coordinates,
    e.g. specs/oue.toml) over a wide domain: S_x = {y[x] = 1, y[x'] = 0} pooled over every
    input against x' = next(x), with P(S_x|x) = on(1)·off(0) and P(S_x|x') = off(1)·on(0)
    exactly (the coordinates are independent in the spec), and three pooled conformance tests."""
    from ldpaudit.audit import wide

    ch = spec.channel
    if len(inputs) != int(ch.coordinates) or list(inputs) != list(range(len(inputs))):
        raise InvalidParameter(f"a unary encoding over {int(ch.coordinates)} coordinates is audited over the inputs "
                               f"0..{int(ch.coordinates) - 1}; give --domain 0..{int(ch.coordinates) - 1}")
    on = {int(v): float(sp.N(p, 17)) for v, p in ch.on.probabilities}
    off = {int(v): float(sp.N(p, 17)) for v, p in ch.off.probabilities}
    ring = wide.Ring(inputs)
    event = wide.WideRelation("column", ring, 1, exclude=True)
    hit = wide.WideRelation("column", ring, 1)
    p = on.get(1, 0.0) * (1 - off.get(1, 0.0))
    q = off.get(1, 0.0) * (1 - on.get(1, 0.0))
    return _pooled_wide_audit(sampler, ring, event, "y[x] = 1 and y[x'] != 1", p, q, (hit, "y[x] = 1", on.get(1, 0.0)),
                              "unary encoding", epsilon=epsilon, samples=samples, alpha=alpha, seed=seed,
                              workers=workers, progress=progress, t0=t0, looks=looks, cluster=cluster)


def _pooled_wide_audit(sampler, ring, event, name, p, q, hit_test, what, *, epsilon, samples, alpha, seed, workers,
                       progress, t0, looks, cluster, width=None, extra_tests=(), view_of=None):
    """One pooled event with exact probabilities p (under x) and q (under next(x)) from the
    spec, counted on every draw, and pooled conformance tests of both roles, ``hit_test``
    (relation, name, probability under x) and ``extra_tests`` (event, name, probability under
    x). ``width``: columns of an output (chunks are sized by it; d for bit vectors);
    ``view_of(out, u)``: what the events read of a chunk (the raw outputs by default)."""
    from ldpaudit.audit import wide

    index = Positions(ring.values if ring.values is not None else range(ring.start, ring.start + ring.n))
    d = ring.n
    z = bounds.z_value(alpha / 2)
    c = wide.pooled_candidate(name, event, ring, float(bounds.predicted_bound(p, q, samples * d, z)), p, q)
    hit, hit_name, p_hit = hit_test
    tests = [(None, _RoleTest(event, 0, f"{name} under x (pooled)"), p, d),
             (None, _RoleTest(event, 1, f"{name} under x' = next(x) (pooled)"), q, d),
             (None, _RoleTest(hit, 0, f"{hit_name} under x (pooled)"), p_hit, d)]
    tests += [(None, _RoleTest(ev, 0, f"{text} under x (pooled)"), prob, d) for ev, text, prob in extra_tests]
    test_hits = [0] * len(tests)

    def count_tests(u, out) -> list[int]:
        return [ev.hits(out, u, 0) for _, ev, _, _ in tests]

    prog = Progress(progress)
    engine = make_draws(sampler, seed, int(workers), prog, cluster)
    try:
        done, best, k, alpha_each = confirm_counts(engine, prog, [c], used=index.inputs, index=index,
                                                   view_of=view_of or (lambda out, u: out),
                                                   looks=looks or [(samples, alpha)], phase=_PHASE_GUIDED,
                                                   epsilon=epsilon, on_view=count_tests, view_counts=test_hits,
                                                   chunk=wide.chunk_size(d if width is None else width))
    finally:
        engine.close()
        prog.close()
    lb = max(best[0], 0.0)
    witness = witness_of(best, done, k, p_spec=p, q_spec=q)
    conformance = _conformance(tests, test_hits, done, alpha)
    method = (f"spec-guided, wide domain ({d} inputs, audit/wide.py): {what}, one event pooled over every input "
              f"chosen from the spec before sampling (no exploration, nothing d-long per output kept); {done} draws "
              f"per input; one-sided exact Clopper-Pearson bounds at α/2 = {alpha_each:.3g} each, so a truly ε-LDP "
              f"randomizer is reported as a VIOLATION with probability at most α = {alpha:g}; conformance: "
              f"{conformance['method']}")
    detectable = bounds.detectable_epsilon(done * d, alpha_each)
    verdict = verdict_of(lb, epsilon)
    untestable = cannot_test(epsilon, detectable, done, alpha_each, per_draw=d) if verdict == "NO_EVIDENCE" else None
    return AuditResult("INCONCLUSIVE" if untestable else verdict, epsilon, lb, 1 - alpha, witness, done,
                       time.perf_counter() - t0, detectable, conformance, method, cannot_test=untestable)
