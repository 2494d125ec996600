"""The engine shared by the black-box auditor (auditor.py) and the spec-guided one (guided.py):
where the draws run (draws.py in this process or a local pool, cluster.py on Dask), confirmation
of candidate events on fresh draws, the best confirmed candidate and the result it certifies.

Confirmation. k candidates (pair (x, x'), event S) are fixed before any confirmation draw;
each is counted on n fresh draws per input, a hits under x and b under x'. The certified bound
of a candidate is ln(CP_lower(a)/CP_upper(b)) with one-sided exact Clopper-Pearson bounds at
level α/(2k) (bounds.py), so with probability at least 1-α no confirmed bound exceeds the
randomizer's true ε (Bonferroni over the k candidates and their two bounds). Sequential looks
(sequential.py) spend α_r at look r with Σ α_r <= α. An (ε, δ) audit certifies
ln((CP_lower(a) − δ)/CP_upper(b)) instead (bounds.py), with the same correction.

Imports flow one way: auditor.py -> guided.py -> engine.py -> events, features, bounds, and
draws.py (chunks, seeds, Draws, Progress), which cluster.py (imported only for a cluster) extends.
"""
from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import asdict, dataclass
from typing import Callable

import numpy as np

from ldpaudit.audit import bounds
from ldpaudit.audit.adapters import Outputs, Sampler
from ldpaudit.audit.draws import CHUNK, Draws, Progress, chunks, repeat_digest  # CHUNK, repeat_digest: re-exported
from ldpaudit.audit.draws import ByPosition, Positions
from ldpaudit.audit.events import Candidate
from ldpaudit.errors import InvalidParameter


@dataclass(frozen=True)
class AuditResult:
    """Outcome of one audit. ``epsilon_verdict`` is the ε test alone: VIOLATION iff
    epsilon_lower_bound > epsilon_claimed (with ``delta`` > 0 both are the ε of an (ε, δ)
    statement at that δ). ``verdict`` also counts the conformance test against a spec: a
    randomizer shown not to follow its spec's law is a VIOLATION, from the API as from the
    command line (docs/reference/guarantees.md)."""

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
    delta: float = 0.0
    outputs: dict | None = None     # how the outputs were read (shape, as_set, precision); black box, real specs
    epsilon_verdict: str | None = None  # the ε test alone (set from ``verdict`` when not given)
    findings: list | None = None    # a float encoding leak and the law, apart (findings.py); None: not both tested
    cannot_test: dict | None = None  # why the draws cannot test the claim (verdict INCONCLUSIVE; findings.py)

    def __post_init__(self):
        if self.epsilon_verdict is None:
            object.__setattr__(self, "epsilon_verdict", self.verdict)
        if conformance_failed(self.conformance):
            object.__setattr__(self, "verdict", "VIOLATION")

    def to_json(self) -> dict:
        return jsonable(asdict(self))

    def _repr_markdown_(self) -> str:
        """Jupyter's display without images: verdict, certified bound vs claim, confidence, witness."""
        from ldpaudit.render.notebook import audit_markdown

        return audit_markdown(self)

    def _repr_html_(self) -> str:
        """Jupyter's display: the facts and, with a witness, a plot of its two probabilities and
        privacy loss against the claim (matplotlib, imported here only), embedded as a PNG."""
        from ldpaudit.audit.report import audit_plot_png
        from ldpaudit.render.notebook import audit_html

        return audit_html(self, audit_plot_png(self))

    def __str__(self) -> str:
        at = f" at δ = {self.delta:g}" if self.delta else ""
        head = (f"{self.verdict}: ε_lb = {self.epsilon_lower_bound:.4f} vs claimed ε = "
                f"{self.epsilon_claimed:.4f}{at} at confidence {self.confidence:g}")
        if self.verdict != self.epsilon_verdict:
            head += f" (conformance with the spec failed; ε test: {self.epsilon_verdict})"
        if self.witness:
            w = self.witness
            x, y = w["pair"]
            head += (f"\n  witness: x={x!r}, x'={y!r}, S = {w['event']}: {w['counts'][0]}/{w['samples'][0]} vs "
                     f"{w['counts'][1]}/{w['samples'][1]} (P(S|x) >= {w['p_lower']:.5g}, "
                     f"P(S|x') <= {w['q_upper']:.5g})")
            if w.get("example"):
                head += f"\n  example: {w['example']}"
        if self.cannot_test:
            head += f"\n  {self.cannot_test['reason']}"
        for f in self.findings or ():
            head += f"\n  finding ({f['finding']}): {f['verdict']}: {f['statement']}"
        return head


def jsonable(value):
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
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


def make_draws(sampler: Sampler, seed, workers: int, progress: Progress, cluster=None) -> Draws:
    """Draws in this process, in ``workers`` local processes, or on a Dask cluster
    (``cluster``: see :mod:`ldpaudit.audit.cluster`; dask is imported only then)."""
    if cluster is None:
        return Draws(sampler, seed, workers, progress)
    if workers != 1:
        raise InvalidParameter(f"workers={workers!r} and cluster={getattr(cluster, 'address', cluster)!r}: give one of them "
                               f"(a cluster runs as many tasks at once as its workers have threads)")
    from ldpaudit.audit.cluster import ClusterDraws

    return ClusterDraws(sampler, seed, progress, cluster)


# -- confirmation ----------------------------------------------------------------------------

def best_confirmed(chosen: list[Candidate], hits: dict, n: int, alpha_each: float, delta: float = 0.0):
    """The confirmed candidate with the largest certified bound at δ, as (bound, candidate,
    count under x, count under x', lower P(S|x), upper P(S|x')), or None without candidates.

    ``hits[(ci, 0)]`` / ``hits[(ci, 1)]`` count candidate ci's event under x / x' in
    ``c.trials(n)`` trials (n, or a multiple of n for pooled candidates, pool.py)."""
    best = None
    for ci, c in enumerate(chosen):
        a, b = hits[(ci, 0)], hits[(ci, 1)]
        na, nb = c.trials(n)
        lb, p_low, q_up = bounds.epsilon_lower_bound(a, na, b, nb, alpha_each, delta)
        if best is None or lb > best[0]:
            best = (lb, c, a, b, p_low, q_up)
    return best


class Tally:
    """The counts confirmation needs from one chunk of outputs of input index i: hits of every
    (chosen candidate, role), then ``on_view``'s counts. A plain value, so that a cluster can
    compute it where the chunk is drawn (cluster.py) and send back counts, not outputs."""

    def __init__(self, chosen: list[Candidate], by_index: dict, view_of: Callable, on_view: Callable | None):
        self.chosen, self.by_index, self.view_of, self.on_view = chosen, by_index, view_of, on_view

    def __call__(self, out: Outputs, i: int) -> np.ndarray:
        u = self.by_index[i]
        view = self.view_of(out, u)
        row = [c.event.hits(view, u, role) if role in c.roles(u) else 0 for c in self.chosen for role in (0, 1)]
        if self.on_view is not None:
            row += list(self.on_view(u, view))
        return np.asarray(row, dtype=np.int64)

    def block(self, block) -> np.ndarray:
        """The sum of the rows of a block's chunks (draws.Block): a candidate that counts a
        whole block at once (``block_hits``: a relation pooled over every input) does; the
        others, and ``on_view``, count the chunks of the inputs they use, one by one."""
        row = [0] * (2 * len(self.chosen))
        rest = []       # (candidate index, its inputs as a set, or None: ask roles() of every input)
        for ci, c in enumerate(self.chosen):
            counts = [getattr(c, "block_hits", _no_block)(block, role) for role in (0, 1)]
            if None not in counts:
                row[2 * ci], row[2 * ci + 1] = counts
                continue
            inputs = c.inputs
            rest.append((ci, set(inputs) if isinstance(inputs, tuple) and len(inputs) <= 4096 else None))
        extra = None
        if rest or self.on_view is not None:
            used = None     # the inputs any of the rest uses, when all are listed
            if self.on_view is None and all(members is not None for _, members in rest):
                used = set().union(*(members for _, members in rest))
            outs = block.outs
            for j, u in enumerate(block.inputs):
                if used is not None and u not in used:
                    continue
                roles = [(ci, self.chosen[ci].roles(u)) for ci, members in rest if members is None or u in members]
                if self.on_view is None and not any(r for _, r in roles):
                    continue
                view = self.view_of(outs[j], u)
                for ci, rs in roles:
                    for role in rs:
                        row[2 * ci + role] += self.chosen[ci].event.hits(view, u, role)
                if self.on_view is not None:
                    counts = np.asarray(list(self.on_view(u, view)), dtype=np.int64)
                    extra = counts if extra is None else extra + counts
        out = np.asarray(row, dtype=np.int64)
        return out if extra is None else np.concatenate([out, extra])


def _no_block(block, role):
    return None


def confirm_counts(draws: Draws, prog: Progress, chosen: list[Candidate], *, used: list, index: dict,
                   view_of: Callable, looks, phase: int, epsilon: float, on_view: Callable | None = None,
                   view_counts: list | None = None, delta: float = 0.0, chunk: int = CHUNK,
                   hits_out: dict | None = None):
    """Count the chosen events on fresh draws of the inputs ``used``, look by look; bounds
    are certified at ``delta`` (0: pure ε).

    ``looks`` [(cumulative draws per input, α of that look)]; the loop stops at the first look
    whose best bound exceeds ``epsilon``. ``view_of(out, u)`` canonicalizes outputs;
    ``on_view(u, view)`` returns counts of further events in every view (conformance tests),
    added up in ``view_counts``. ``chunk``: draws per task (fewer for wide vector outputs, wide.py);
    ``hits_out``, if given, receives every candidate's counts (findings.py).
    Returns (draws per input done, best confirmed candidate or
    None, k, α/(2k) of the last look)."""
    k = max(1, len(chosen))
    hits = {(ci, role): 0 for ci in range(len(chosen)) for role in (0, 1)}
    # every input of a wide domain (used is index.inputs): position -> input by arithmetic, no dict
    by_index = ByPosition(index) if isinstance(index, Positions) and used is index.inputs else \
        {index[u]: u for u in used}
    tally = Tally(chosen, by_index, view_of, on_view)
    looks = looks or []
    done = 0
    best = None
    alpha_each = 0.0
    for n_look, alpha_look in looks:
        sizes = chunks(n_look - done, size=chunk)
        prog.add_total(len(used) * sum(sizes))
        if isinstance(used, range) and isinstance(index, Positions) and index.values is None and len(sizes) == 1:
            start = index.start     # consecutive integers, one chunk each: positions by arithmetic
            jobs = zip(range(used.start - start, used.stop - start), used, itertools.repeat(sizes[0]),
                       itertools.repeat(phase))
        else:
            jobs = ((index[u], u, m, phase) for u in used for m in sizes)    # generated as they are drawn
        for i, row in draws.tally(jobs, tally):
            for ci in range(len(chosen)):
                hits[(ci, 0)] += int(row[2 * ci])
                hits[(ci, 1)] += int(row[2 * ci + 1])
            for t, count in enumerate(row[2 * len(chosen):]):
                view_counts[t] += int(count)
        done = n_look
        alpha_each = alpha_look / (2 * k)
        best = best_confirmed(chosen, hits, done, alpha_each, delta)
        if hasattr(looks, "record"):
            looks.record(done, alpha_look, best[0] if best is not None else 0.0)
        if best is not None and best[0] > epsilon:
            break
    if hits_out is not None:
        hits_out.update(hits)
    return done, best, k, alpha_each


def witness_of(best, n: int, k: int, **extra) -> dict | None:
    """The witness of a best confirmed candidate with a positive bound: a person can check it
    from the pair, the event, and the counts."""
    if best is None or best[0] <= 0:
        return None
    lb, c, a, b, p_low, q_up = best
    na, nb = c.trials(n)
    w = {"pair": list(c.pair), "event": c.event.description, "family": c.family,
         "counts": [a, b], "samples": [na, nb], "p_hat": a / na, "q_hat": b / nb,
         "p_lower": p_low, "q_upper": q_up, "epsilon_lower_bound": lb, "candidates_confirmed": k}
    example = getattr(c.event, "example", None)
    if example:
        w["example"] = example
    pooled = getattr(c, "pooled_text", None)
    if pooled:
        w["pooled"] = pooled
    w.update(extra)
    return w


def verdict_of(lb: float, epsilon: float) -> str:
    return "VIOLATION" if lb > epsilon else "NO_EVIDENCE"


def conformance_failed(conformance) -> bool:
    """Whether a conformance result (the dict of spec-guided audits, or an object with
    ``passed``) says the randomizer does not match its spec; None (no spec) never fails."""
    if conformance is None:
        return False
    if isinstance(conformance, dict):
        return conformance.get("passed") is False or conformance.get("verdict") in ("FAIL", "MISMATCH")
    return getattr(conformance, "passed", True) is False
