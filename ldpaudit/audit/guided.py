"""Spec-guided auditing and the conformance test.

With a bound Mechanism the exact channel gives, for every input pair, the likelihood-ratio
optimal event and its exact probabilities, so no exploration is needed: the pair and event
with the largest expected bound at the given n are confirmed on the whole sample. The same
sample then tests conformance: for every input, exact two-sided binomial tests of the
implementation's frequencies on the spec's most informative events, Holm-corrected at α.

Per channel form (:mod:`ldpaudit.audit.plan` holds the exact events, with the density forms in
:mod:`ldpaudit.audit.guided_density`, the wide-domain forms in :mod:`ldpaudit.audit.guided_wide`,
and what every form shares in :mod:`ldpaudit.audit.guided_events`):
- explicit / element / cohort channels are materialized (float matrix); events are prefixes
  of the outputs sorted by Q(y|x)/Q(y|x');
- k-subset channels: the class of y depends on y through the membership of x and x', so
  the four patterns (x in y?, x' in y?) with counts C(d-2, k-a-b) give the exact law;
- discrete product channels: only coordinates x and x' differ, so the cells (y_x, y_x');
- continuous product channels: {y_x >= a and y_x' < b} from the coordinate CDFs;
- density channels piecewise in z (the Piecewise mechanism, Square Wave): the cells between
  the breakpoints of both densities at x and x', with exact masses (length × value), sorted by
  f(z|x)/f(z|x'); events are prefixes (unions of cells), and each cell is a conformance test;
- other density channels: thresholds {y >= c} and {y < c} from numeric CDFs.
"""

from __future__ import annotations

import time

from ldpaudit.audit import bounds
from ldpaudit.audit.adapters import Sampler
from ldpaudit.audit.engine import AuditResult, confirm_counts, make_draws, verdict_of, witness_of
from ldpaudit.audit.draws import Progress
from ldpaudit.audit.events import Candidate, choose
from ldpaudit.audit.findings import FLOAT, cannot_test, findings_of
from ldpaudit.audit.guided_events import _PHASE_GUIDED, PredicateEvent, SpecView, _conformance
from ldpaudit.audit.guided_floats import FloatView, float_pilot, with_float
from ldpaudit.audit.plan import Plan
from ldpaudit.errors import InvalidParameter

# the names tests and the auditor import from here, now defined per form in the modules above
from ldpaudit.audit.guided_density import SUPPORT_MARGIN  # noqa: F401
from ldpaudit.audit.guided_events import IntervalsEvent  # noqa: F401
from ldpaudit.audit.guided_wide import family_hash, hash_rates, hashed_wide_audit, unary_wide_audit  # noqa: F401
from ldpaudit.audit.plan import MAX_ENTRIES  # noqa: F401


def guided_audit(sampler: Sampler, *, inputs, pairs, epsilon, samples, alpha, seed, spec, events,
                 workers, progress, max_confirm, t0, looks=None, cluster=None, supports: bool = False):
    """Audit with candidate events fixed before sampling. ``looks`` (cumulative draws per
    input, α of that look) lets a sequential audit stop at the first look that certifies a
    violation; by default there is one look at (samples, alpha). Real outputs of a spec also
    get the float-encoding tests (guided_floats.py), reported apart from the law's (findings.py)."""
    index = {x: i for i, x in enumerate(inputs)}
    z = bounds.z_value(alpha / (2 * max_confirm))
    plan = Plan(spec, inputs, supports=supports) if spec is not None else None
    used = sorted({u for p in pairs for u in p}, key=index.get)
    prog = Progress(progress)
    engine = make_draws(sampler, seed, int(workers), prog, cluster)
    try:
        pilot = float_pilot(engine, prog, plan, inputs=used, index=index, pairs=pairs, samples=samples, z=z) \
            if events is None else None
        spent = pilot.spent if pilot is not None else 0
        n = samples - spent
        chosen, float_text = with_float(choose(_candidates(plan, events, pairs, n, z), max_confirm), pilot)
        if plan is None:
            used = sorted({u for c in chosen for u in c.pair}, key=index.get)
        tests = _tests(plan, chosen, used)
        test_hits = [0] * len(tests)
        tests_of: dict = {}
        for ti, (tu, ev, _, _) in enumerate(tests):
            tests_of.setdefault(tu, []).append((ti, ev))

        def count_tests(u, view) -> list[int]:
            counts = [0] * len(tests)
            for ti, ev in [*tests_of.get(u, ()), *tests_of.get(None, ())]:
                counts[ti] += ev.hits(view, u, 0)
            return counts

        if looks and spent and hasattr(looks, "rescaled"):
            looks = looks.rescaled(n)       # the looks' sizes are relative to the confirmation budget
        looks = looks or [(n, alpha)]
        if plan is None:
            view_of = lambda out, u: SpecView(out.n, out.counts, raw=out)  # noqa: E731
        elif any(c.family == FLOAT for c in chosen):
            view_of = FloatView(plan, pilot.floats)
        else:
            view_of = plan.view
        hits: dict = {}
        done, best, k, alpha_each = confirm_counts(engine, prog, chosen, used=used, index=index, view_of=view_of,
                                                   looks=looks, phase=_PHASE_GUIDED, epsilon=epsilon,
                                                   on_view=count_tests, view_counts=test_hits, hits_out=hits)
    finally:
        engine.close()
        prog.close()

    n = done
    lb = 0.0
    witness = None
    if best is not None:
        lb = max(best[0], 0.0)
        spec_p = {} if best[1].family == FLOAT else dict(p_spec=best[1].p_explore, q_spec=best[1].q_explore)
        witness = witness_of(best, n, k, **spec_p)
    findings = findings_of(chosen, hits, n, alpha_each, k, epsilon=epsilon,
                           law_events="the spec's exact events")
    conformance = None
    if plan is not None:
        conformance = _conformance(tests, test_hits, n, alpha)
    source = "the spec's exact channel" if plan is not None else "the given events"
    method = (f"spec-guided: {len(chosen)} (pair, event) candidate(s) chosen from {source} before sampling "
              f"(no exploration{'' if not float_text else ' of the law'}); {n} {'confirmation ' if spent else ''}draws per "
              f"input; one-sided exact "
              f"Clopper-Pearson bounds at α/(2·{k}) = {alpha_each:.3g} each (Bonferroni over {k} candidate(s) × 2 "
              f"bounds), so a truly ε-LDP randomizer is reported as a VIOLATION with probability at most "
              f"α = {alpha:g}")
    if float_text:
        method += f"; {float_text}"
    if conformance is not None:
        method += f"; conformance: {conformance['method']}"
    detectable = bounds.detectable_epsilon(n, alpha_each)
    verdict = verdict_of(lb, epsilon)
    untestable = cannot_test(epsilon, detectable, n, alpha_each) if verdict == "NO_EVIDENCE" else None
    return AuditResult("INCONCLUSIVE" if untestable else verdict, epsilon, lb, 1 - alpha, witness, n + spent,
                       time.perf_counter() - t0, detectable, conformance, method,
                       outputs=pilot.outputs_json() if pilot is not None else None, findings=findings,
                       cannot_test=untestable)


def _candidates(plan, events, pairs, n: int, z: float) -> list[Candidate]:
    """The candidates of the spec's exact channel, or of the given events, best first."""
    candidates: list[Candidate] = []
    if events is not None:
        for item in events:
            try:
                pair, predicate, p, q = item
            except (TypeError, ValueError):
                raise InvalidParameter("events must be a list of (pair, predicate, P(S|x), P(S|x'))") from None
            pred = float(bounds.predicted_bound(p, q, n, z))
            desc = getattr(predicate, "__doc__", None) or getattr(predicate, "__name__", "predicate")
            c = Candidate(tuple(pair), PredicateEvent(predicate, desc.strip()), "given", pred, float(p), float(q))
            c.sd = float(bounds.bound_sd(p, q, n))
            candidates.append(c)
    else:
        for x, xp in pairs:
            candidates += plan.pair_candidates(x, xp, n, z)
        candidates += plan.pooled_candidates(pairs, n, z)
    candidates.sort(key=lambda c: -c.predicted)
    return candidates


def _tests(plan, chosen: list[Candidate], used: list) -> list[tuple]:
    """The conformance tests: (input or None for every input, event, p, trials per draw), on the
    spec's events only (a float event has no probability under the spec's law of the reals)."""
    tests: list[tuple] = []
    if plan is None:
        return tests
    for u in used:
        # pooled candidates (pooled_candidates) have per-input events; their law is tested pooled below
        roles = [(c, role) for c in chosen for role in (0, 1)
                 if c.pair[role] == u and len(c.inputs) == 2 and c.family != FLOAT]
        for ev, p, per in plan.conformance_events(u, roles):
            tests.append((u, ev, p, per))
    for ev, p, per in plan.pooled_conformance_events(used):
        tests.append((None, ev, p, per * len(used)))
    return tests
