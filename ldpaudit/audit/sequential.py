"""Sequential auditing: sample in growing rounds until the verdict is settled or the budget
is spent, with false-alarm control that survives optional stopping.

Method (alpha spending over rounds): round r is a complete audit (exploration, selection and
confirmation) on fresh draws, at level α_r = α · 6 / (π² r²), so Σ_r α_r <= α. A truly
ε-LDP randomizer is flagged in round r with probability at most α_r, whatever happened in
earlier rounds, so by the union bound the probability that *any* round flags it — and hence
that the sequential audit ever reports a VIOLATION, however it decides to stop — is at most α.
The audit stops at the first round that certifies a violation; otherwise it runs until the
budget of draws per input is used up. Round sizes grow geometrically, so a gross fault is
caught by the first, small rounds while a subtle one gets the large rounds.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, replace

import numpy as np

from ldpaudit.audit.auditor import AuditResult, audit
from ldpaudit.errors import InvalidParameter


@dataclass(frozen=True)
class Round:
    number: int
    samples_per_input: int
    alpha: float
    verdict: str
    epsilon_lower_bound: float
    detectable_epsilon: float


def round_alpha(alpha: float, r: int) -> float:
    """α_r = α · 6/(π² r²): sums to α over r = 1, 2, ..."""
    return alpha * 6.0 / (math.pi**2 * r * r)


def schedule(budget: int, first: int, growth: float) -> list[int]:
    """Round sizes first, first·growth, ... whose sum is exactly ``budget`` (the last round
    takes what is left, and is merged into the previous one when that remainder is tiny)."""
    sizes, used, n = [], 0, first
    while used + n < budget:
        sizes.append(int(n))
        used += int(n)
        n = int(n * growth)
    rest = budget - used
    if sizes and rest < sizes[-1] // 2:
        sizes[-1] += rest
    else:
        sizes.append(rest)
    return sizes


def sequential_audit(
    randomizer,
    *,
    domain,
    epsilon,
    budget: int = 10**6,
    alpha: float = 0.05,
    seed: int = 0,
    first: int | None = None,
    growth: float = 2.0,
    **options,
) -> tuple[AuditResult, list[Round]]:
    """Audit in rounds of fresh draws until a violation is certified or ``budget`` draws per
    input are used. Returns the final result (with ``samples_per_input`` = draws actually used
    per input, ``confidence`` = 1 - α overall) and the rounds."""
    if not isinstance(budget, int | np.integer) or budget < 200:
        raise InvalidParameter(f"budget={budget!r} must be an integer >= 200 (draws per input)")
    if growth <= 1:
        raise InvalidParameter(f"growth={growth!r} must be > 1")
    first = int(first or max(2_000, budget // 64))
    if first < 100 or first > budget:
        raise InvalidParameter(f"first={first!r} must be between 100 and the budget {budget}")
    t0 = time.perf_counter()
    rounds: list[Round] = []
    used = 0
    best: AuditResult | None = None
    seeds = np.random.SeedSequence(seed).spawn(64)
    for r, n in enumerate(schedule(int(budget), first, growth), start=1):
        a_r = round_alpha(float(alpha), r)
        round_seed = int(seeds[r - 1].generate_state(1, np.uint64)[0] >> np.uint64(1))
        result = audit(randomizer, domain=domain, epsilon=epsilon, samples=int(n), alpha=a_r,
                       seed=round_seed, **options)
        used += n
        rounds.append(Round(r, int(n), a_r, result.verdict, result.epsilon_lower_bound, result.detectable_epsilon))
        if best is None or result.epsilon_lower_bound > best.epsilon_lower_bound:
            best = result
        if result.verdict == "VIOLATION":
            best = result
            break
    method = (
        f"sequential: {len(rounds)} round(s) of fresh draws ({', '.join(str(x.samples_per_input) for x in rounds)} per input), "
        f"round r at level α·6/(π²r²) so that the levels sum to α = {alpha:g} (alpha spending; valid under optional "
        f"stopping by the union bound); stopped {'at the first certified violation' if best.verdict == 'VIOLATION' else 'when the budget was spent'}. "
        f"Deciding round: {best.method}"
    )
    final = replace(
        best,
        confidence=1 - float(alpha),
        samples_per_input=used,
        seconds=time.perf_counter() - t0,
        detectable_epsilon=max(x.detectable_epsilon for x in rounds),
        method=method,
    )
    return final, rounds


def rounds_json(rounds: list[Round]) -> list[dict]:
    return [asdict(r) for r in rounds]
