"""verify / tight_epsilon: the one dispatcher, choosing a module by the channel's form.

Layers, each importing only those below it::

    command, floats, certificate   users of verify (CLI, float64 parameters, certificates)
    core (this module)             verify, tight_epsilon: claim, domain check, then FORMS;
                                   the optional whole-call budget (ldpaudit/budget.py, a forked child)
    finite, density, piecewise,    one module per channel form (and the (ε, δ) check)
    hashed, real, mixture, delta
    claims, witness                shared: exact numbers, the claim, scopes; witnesses, points
    problem, prover, exact, smt, numbers, result, text

No module below imports this one. A new channel form is one more module and one more row in
:data:`FORMS` (its predicate, its ``verify`` and its ``tight``), ahead of the finite catch-all.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ldpaudit import budget
from ldpaudit.errors import InvalidParameter
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.product import ProductChannel
from ldpaudit.verify import density, density_delta, finite, hashed, matrix, mixture, piecewise, real, smt, vector
from ldpaudit.verify.claims import check_domain, claim_of, exact_number
from ldpaudit.verify.delta import verify_delta
from ldpaudit.verify.result import Status, TightEpsilon, Verdict


@dataclass(frozen=True)
class Form:
    """How to verify one form of channel: ``verify(mech, claim, *, rlimit, start, tight)``
    and ``tight(mech, *, rlimit)`` (``tight(mech, *, rlimit, proved=False)`` too when
    ``unproved``: ε* and its witness without the proof that ε* bounds every ratio)."""

    name: str
    applies: Callable[[Mechanism], bool]
    verify: Callable[..., Verdict]
    tight: Callable[..., TightEpsilon]
    unproved: bool = False


def _continuous(mech: Mechanism) -> bool:
    ch = mech.channel
    return isinstance(ch, DensityChannel) or (isinstance(ch, ProductChannel) and ch.continuous)


#: the channel forms, most specific first; the finite form takes everything else
FORMS: tuple[Form, ...] = (
    Form("matrix", matrix.applies, matrix.verify_matrix, matrix.tight_matrix),
    Form("vector", vector.applies, vector.verify_vector, vector.tight_vector),
    Form("mixture", mixture.applies, mixture.verify_mixture, mixture.tight_mixture, unproved=True),
    Form("piecewise density", piecewise.applies, piecewise.verify_piecewise, piecewise.tight_piecewise, unproved=True),
    Form("density", _continuous, density.verify_density, density.tight_density, unproved=True),
    Form("real-input", real.applies, real.verify_real, real.tight_real, unproved=True),
    Form("hashed", hashed.applies, hashed.verify_hashed, hashed.tight_hashed),
    Form("finite", lambda mech: True, finite.verify_finite, finite.tight_finite),
)


def form_of(mech: Mechanism) -> Form:
    return next(f for f in FORMS if f.applies(mech))


def verify(
    mech: Mechanism,
    *,
    epsilon=None,
    delta=None,
    rlimit: int | None = smt.DEFAULT_RLIMIT,
    tight: bool = True,
    timeout: float | None = None,
    memory_mb: int | None = None,
) -> Verdict:
    """Prove or refute that ``mech`` is ε-LDP (or (ε, δ)-LDP with ``delta``).

    ``epsilon`` defaults to the spec's claimed ε and may be symbolic ("epsilon/2", "log(3)").
    Free parameters are universally quantified: the verdict holds for all admissible values.
    ``rlimit`` bounds each z3 query in z3's deterministic resource units; ``timeout`` (CPU
    seconds) and ``memory_mb`` bound the
    whole call, run in a child process (:mod:`ldpaudit.budget`): over budget the
    verdict is UNKNOWN with the reason "budget exceeded: ...".
    """
    if timeout is not None or memory_mb is not None:
        return _bounded(mech, epsilon=epsilon, delta=delta, rlimit=rlimit, tight=tight, timeout=timeout,
                        memory_mb=memory_mb)
    start = time.perf_counter()
    claim = claim_of(mech, epsilon)
    check_domain(mech)
    if delta is None and epsilon is None and mech.claimed_delta is not None:
        delta = mech.claimed_delta  # the spec claims (ε, δ)
    if delta is not None:
        delta = exact_number(delta, "delta")
        if not (delta.is_number and delta.is_extended_real and delta >= 0 and delta < 1):
            raise InvalidParameter(f"delta = {delta}: δ must be a number in [0, 1) (the δ of the (ε, δ) claim), "
                                   "e.g. 1/100000")
        if density_delta.applies(mech):
            return density_delta.verify_density_delta(mech, claim, delta, start=start)
        return verify_delta(mech, claim, delta, rlimit=rlimit, start=start)
    return form_of(mech).verify(mech, claim, rlimit=rlimit, start=start, tight=tight)


def _bounded(mech: Mechanism, *, epsilon, delta, rlimit, tight, timeout, memory_mb) -> Verdict:
    start = time.perf_counter()
    try:
        return budget.call(verify, mech, epsilon=epsilon, delta=delta, rlimit=rlimit, tight=tight,
                           seconds=timeout, memory_mb=memory_mb)
    except budget.BudgetExceeded as exc:
        try:
            claim = mech.claimed_epsilon if epsilon is None else exact_number(epsilon, "epsilon", mech.symbols)
        except Exception:  # the claim text itself is only echoed here
            claim = mech.claimed_epsilon
        return Verdict(Status.UNKNOWN, mech.name, claim, reason=str(exc), seconds=time.perf_counter() - start,
                       params=mech.bindings)


def tight_epsilon(mech: Mechanism, *, rlimit=smt.DEFAULT_RLIMIT, proved: bool = True) -> TightEpsilon:
    """The tightest ε in closed form, with a proof that the mechanism is ε*-LDP and a witness
    attaining it (so the claim fails for every smaller ε). With ``proved=False``, where the
    form can leave it out, without the proof (``proof`` None): for a caller that needs only
    where ε* is attained."""
    check_domain(mech)
    form = form_of(mech)
    if not proved and form.unproved:
        return form.tight(mech, rlimit=rlimit, proved=False)
    return form.tight(mech, rlimit=rlimit)
