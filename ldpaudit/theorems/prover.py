"""Deciding a claim over a whole region: rigorous interval branch-and-bound.

The claim ``lhs <= rhs`` becomes goals ``g >= 0`` (``g = rhs - lhs``), one per way of
choosing an argument of every ``Min``/``Max`` (proving all of them proves the claim, since a
minimum is one of its arguments). A bound parameter ``k = ceiling(a)`` is relaxed to
``k = a + θ`` with θ in [0, 1] (a claim proved for every θ holds at the integer); integer
parameters are relaxed to reals (the same argument). Optional prover coordinates (a change
of variables declared in the claims file, checked to be inverse to each other) make an
unbounded region compact: Ye & Barg's region ``3.8 < ε < ln(d/9)`` over all d becomes the
box ``q = e^(-ε/2) in (0, e^-1.9)``, ``s = e^ε/d in (0, 1/9)``.

The box is split until on every piece either the region's relations are shown false (the
piece is outside) or every goal's enclosure is >= 0 (mpmath interval arithmetic, outward
rounding). One-dimensional claims that touch an end of their range with equality (Wang's
I ≤ ε²/8 at ε → 0, where the two sides agree to fourth order) use a monotonicity argument:
the limit of g at the end is computed symbolically and shown to be 0 exactly, and g' (as the
numerator of a single fraction, when its denominator is shown positive) is proved >= 0 on the
piece by the same procedure, recursively. An unbounded piece [X, ∞) is decided by
evaluating g with e^ε replaced by an independent w in [0, e^-X] (sound: a box containing the
curve), or by g(X) >= 0 and g' >= 0 on [X, ∞).

A refutation is only ever a point of the original parameters (integers rounded, reals
rational) at which the region's relations and the negated claim are checked exactly, the
binding computed exactly. Everything the procedure cannot close within its budget is
reported as UNKNOWN with the pieces that are left.

The parts, bottom up: :mod:`~ldpaudit.theorems.result` (what a decision returns),
:mod:`~ldpaudit.theorems.limits` (the CPU budget inside a claim), :mod:`~ldpaudit.theorems.goals`
(the claim as goals g >= 0 and their equivalent forms), :mod:`~ldpaudit.theorems.problem` (one
claim over its box) and :mod:`~ldpaudit.theorems.search` (the branch-and-bound); this module
decides a claim and a claims file with them.
"""

from __future__ import annotations

import time

from ldpaudit.theorems import intervals
from ldpaudit.theorems.claims import Claim, ClaimsFile
from ldpaudit.theorems.problem import Problem
from ldpaudit.theorems.result import PROVED, UNKNOWN, ClaimResult
from ldpaudit.theorems.search import Search, describe_box

# defined in the modules split from this one, and importable from here as before
from ldpaudit.theorems.result import REFUTED, Witness  # noqa: F401


def prove_claim(cf: ClaimsFile, claim: Claim, *, seconds: float = 60.0) -> ClaimResult:
    start = time.process_time()
    try:
        problem = Problem(cf, claim)
    except intervals.Unsupported as exc:
        return ClaimResult(claim.name, claim.text, UNKNOWN, f"cannot enclose the claim: {exc}",
                           time.process_time() - start, 0, note=claim.note)
    if problem.identity:
        return ClaimResult(claim.name, claim.text, PROVED, "both sides are the same function (sympy simplifies the "
                           "difference to 0)", time.process_time() - start, 0, note=claim.note,
                           method="symbolic identity")
    search = Search(problem, seconds=seconds)
    status, reason, witness, left = search.run()
    methods = ["interval branch-and-bound (mpmath iv, outward rounding)"]
    if problem.thetas:
        methods.append("floor/ceiling relaxed to a + θ, θ in [0, 1]")
    if cf.coordinates:
        methods.append("coordinates " + ", ".join(f"{s} = {v}" for s, v in cf.coordinates.forward.items()))
    methods.extend(sorted(search.methods))
    shown_left = tuple(f"{describe_box(b, problem)}: {why}" for b, why in left[:8])
    if len(left) > 8:
        shown_left += (f"... and {len(left) - 8} more",)
    return ClaimResult(claim.name, claim.text, status, reason, time.process_time() - start, search.boxes, witness,
                       shown_left, claim.note, "; ".join(methods))


def prove_file(cf: ClaimsFile, *, seconds: float = 60.0) -> list[ClaimResult]:
    return [prove_claim(cf, c, seconds=seconds) for c in cf.claims]
