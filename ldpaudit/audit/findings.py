"""Findings apart (issue 32.3): a float encoding that leaks, and the law, each with its own bound.

An audit of ``x + numpy.random.laplace(scale=1/ε)`` certifies ε >= 8 through the bit patterns of
the doubles (floats.py: Mironov 2012), which answers "are these exact float64 outputs ε-DP?" and
not the question a user usually asks, "is the mechanism's law ε-DP?". Both are reported, apart:

- **float encoding**: the best confirmed float event (round trip through an offset, trailing
  zero bits); when x' never produced an output of the event, the exact doubles are consistent
  with ε = ∞ (an output of x that x' cannot produce), and the certified bound is what the
  draws show;
- **law**: the best confirmed event on the values of the outputs alone (bins, sets, relations:
  events that see an output only up to a grid, as if it were snapped to it, blind to its low
  bits), the same audit the outputs would get from a float-safe sampler.

Both events were fixed before confirmation and counted on the same fresh draws, so the
Bonferroni correction of the audit covers both bounds; the audit's verdict is the worse of the
two findings (engine.verdict_of of the largest bound), as before.
"""
from __future__ import annotations

from ldpaudit.audit.engine import best_confirmed, verdict_of, witness_of
from ldpaudit.audit.events import Candidate, choose

FLOAT = "float"


def with_law(chosen: list[Candidate], candidates: list[Candidate]) -> list[Candidate]:
    """``chosen`` plus the best searched candidate on output values when a float event was chosen
    (a float leak outranks every bin by far, so the law would otherwise go unaudited)."""
    if not any(c.family == FLOAT for c in chosen):
        return chosen
    law = choose([c for c in candidates if c.family != FLOAT], 1)
    return chosen + [c for c in law if not any(c is o for o in chosen)]


def findings_of(chosen: list[Candidate], hits: dict, n: int, alpha_each: float, k: int, *, epsilon: float,
                delta: float = 0.0, law_events: str = "bins and sets") -> list[dict] | None:
    """The float-encoding and law findings of a confirmation (``hits`` as engine.confirm_counts
    counts them), or None when no float event was confirmed (nothing to tell apart).
    ``law_events`` names the events of the law (the black box's bins and sets, or a spec's)."""
    groups = {FLOAT: [], "law": []}
    for ci, c in enumerate(chosen):
        groups[FLOAT if c.family == FLOAT else "law"].append(ci)
    if not groups[FLOAT]:
        return None
    out = []
    for kind, members in ((FLOAT, groups[FLOAT]), ("law", groups["law"])):
        if not members:
            continue
        sub = [chosen[ci] for ci in members]
        sub_hits = {(j, role): hits[(ci, role)] for j, ci in enumerate(members) for role in (0, 1)}
        best = best_confirmed(sub, sub_hits, n, alpha_each, delta)
        lb = max(best[0], 0.0)
        witness = witness_of(best, n, k)
        out.append({"finding": "float encoding" if kind == FLOAT else "law", "verdict": verdict_of(lb, epsilon),
                    "epsilon_lower_bound": lb, "witness": witness, "statement": _statement(kind, best, n, lb, law_events)})
    return out


def _statement(kind: str, best, n: int, lb: float, law_events: str) -> str:
    _, c, a, b, _, _ = best
    na, nb = c.trials(n)
    if kind == FLOAT:
        text = (f"the float encoding: S = {c.event.description} occurred {a}/{na} times under x = {c.pair[0]!r} and "
                f"{b}/{nb} under x' = {c.pair[1]!r}, certified ε >= {lb:.4f}")
        if b == 0 and a > 0:
            text += ("; no output of x' was in S, so the exact outputs are consistent with ε = ∞ (an output of x "
                     "that x' never produces)")
        return text
    return (f"the law, on events of the output values alone ({law_events}, blind to the low bits of a double, as "
            f"if the outputs were snapped to a grid): certified ε >= {lb:.4f} (best S = {c.event.description})")


def findings_text(findings: list[dict] | None) -> list[str]:
    """One line per finding, for the text output."""
    return [f"  finding ({f['finding']}): {f['verdict']}: {f['statement']}" for f in findings or ()]


#: the most draws per input a "would need" states (beyond it: no practical audit tests the claim)
MAX_DRAWS = 10**18


def draws_needed(epsilon: float, alpha_each: float, delta: float = 0.0) -> int | None:
    """The fewest confirmation draws per input n with detectable_epsilon(n) > ε (a = n hits under
    x, none under x', bounds.py), or None if no n up to :data:`MAX_DRAWS` is enough."""
    from ldpaudit.audit.bounds import detectable_epsilon

    if detectable_epsilon(MAX_DRAWS, alpha_each, delta) <= epsilon:
        return None
    lo, hi = 1, 2
    while detectable_epsilon(hi, alpha_each, delta) <= epsilon:
        lo, hi = hi, hi * 2
    while hi - lo > 1:      # detectable_epsilon grows with n: the first n above ε
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if detectable_epsilon(mid, alpha_each, delta) <= epsilon else (lo, mid)
    return hi


def cannot_test(epsilon: float, detectable: float, n: int, alpha_each: float, delta: float = 0.0, *,
                per_draw: int = 1) -> dict | None:
    """Why this audit cannot test the claim, when the claimed ε is at or above the largest ε its
    draws can certify (no event could show a violation, so NO_EVIDENCE would say nothing); None
    when it can. The answer names what would: the draws it would need, or ``verify`` on a spec.
    ``per_draw``: trials behind an event's count per draw of each input (an event pooled over d
    inputs counts d; the spec-guided wide audits, guided_wide.py), so n draws give n·per_draw."""
    if epsilon < detectable:
        return None
    needed = draws_needed(epsilon, alpha_each, delta)
    if needed is not None:
        needed = -(-needed // per_draw)
    at = f" at δ = {delta:g}" if delta else ""
    pooled = f" (its event pooled over {per_draw:,} inputs)" if per_draw > 1 else ""
    would = (f"about {needed:,} confirmation draws per input would" if needed is not None
             else f"no audit of up to {MAX_DRAWS:.0e} draws per input would")
    return {"detectable_epsilon": detectable, "confirmation_draws": n, "draws_needed": needed,
            "reason": (f"this audit cannot test the claim: with {n:,} confirmation draws per input{pooled} it can "
                       f"certify at most ε = {detectable:.4f}{at}, not above the claimed ε = {epsilon:g}; {would} "
                       f"(--samples), or `ldpaudit verify` on a spec of the mechanism decides the claim exactly")}
