"""Sequential auditing: keep sampling until the verdict is settled or the budget is spent,
with false-alarm control that survives optional stopping.

Method (alpha spending over looks). The candidate events are chosen once — from a fresh
exploration sample (black box) or from the spec (guided) — and are then counted on one
growing confirmation sample. At look r, after n_r cumulative confirmation draws per input,
the certified bound is computed at level α_r = α · 6/(π² r²), so Σ_r α_r <= α. For a truly
ε-LDP randomizer, the chance that look r certifies a violation is at most α_r whatever
happened at other looks (the events do not depend on the confirmation sample), so by the
union bound the chance that *any* look does — and hence that the audit ever reports a
VIOLATION, however it decides to stop — is at most α. The audit stops at the first look that
certifies a violation; otherwise it runs until the budget of draws per input is spent. Look
sizes grow geometrically, so a gross fault stops the audit after a few thousand draws while
a subtle one still gets the whole budget, at the price of a slightly smaller α per look.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

import numpy as np

from ldpaudit.audit.auditor import AuditResult, audit
from ldpaudit.errors import InvalidParameter


@dataclass(frozen=True)
class Round:
    """One look: cumulative confirmation draws per input, its α and the bound it certified."""

    number: int
    samples_per_input: int
    alpha: float
    epsilon_lower_bound: float
    verdict: str


def round_alpha(alpha: float, r: int) -> float:
    """α_r = α · 6/(π² r²): sums to α over r = 1, 2, ..."""
    return alpha * 6.0 / (math.pi**2 * r * r)


def schedule(budget: int, first: int, growth: float) -> list[int]:
    """Look increments first, first·growth, ... summing to exactly ``budget`` (a small
    remainder is merged into the last look)."""
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


class Looks:
    """The plan of looks [(cumulative draws, α_r)], and what each look certified."""

    def __init__(self, increments: list[int], alpha: float, epsilon: float):
        self.alpha = alpha
        self.epsilon = epsilon
        self.points = []
        total = 0
        for r, inc in enumerate(increments, start=1):
            total += inc
            self.points.append((total, round_alpha(alpha, r)))
        self.rounds: list[Round] = []

    def __iter__(self):
        return iter(self.points)

    def __len__(self):
        return len(self.points)

    def __getitem__(self, i):
        return self.points[i]

    def rescaled(self, total: int) -> Looks:
        """The same plan stretched to a confirmation sample of ``total`` draws per input."""
        scale = total / self.points[-1][0]
        new = Looks([], self.alpha, self.epsilon)
        new.points = [(total if i + 1 == len(self.points) else max(1, int(round(n * scale))), a)
                      for i, (n, a) in enumerate(self.points)]
        new.rounds = self.rounds
        return new

    def record(self, n: int, alpha: float, lb: float) -> None:
        lb = max(lb, 0.0)
        self.rounds.append(Round(len(self.rounds) + 1, int(n), alpha, lb,
                                 "VIOLATION" if lb > self.epsilon else "NO_EVIDENCE"))


def sequential_audit(
    randomizer,
    *,
    domain,
    epsilon,
    budget: int = 10**6,
    alpha: float = 0.05,
    seed: int = 0,
    first: int | None = None,
    growth: float = 1.5,
    explore: int | None = None,
    spec=None,
    **options,
) -> tuple[AuditResult, list[Round]]:
    """Audit with looks of growing size until a violation is certified or ``budget`` draws per
    input are used. ``first`` is the size of the first look, ``explore`` the exploration draws
    per input (black box only). Returns the result (``samples_per_input`` = draws actually
    used per input) and the looks."""
    if not isinstance(budget, int | np.integer) or budget < 200:
        raise InvalidParameter(f"budget={budget!r} must be an integer >= 200 (draws per input)")
    if growth <= 1:
        raise InvalidParameter(f"growth={growth!r} must be > 1")
    budget = int(budget)
    explore = 0 if spec is not None else int(explore or max(1_000, min(budget // 32, 50_000)))
    confirm = budget - explore
    first = int(first or max(1_000, confirm // 128))
    if explore and confirm < 100:
        raise InvalidParameter(f"budget={budget} leaves no draws to confirm after {explore} to explore")
    if first < 50 or first > confirm:
        raise InvalidParameter(f"first={first!r} must be between 50 and the confirmation budget {confirm}")
    looks = Looks(schedule(confirm, first, growth), float(alpha), float(epsilon))
    fraction = explore / budget if explore else 0.25
    result = audit(randomizer, domain=domain, epsilon=epsilon, samples=budget, alpha=alpha, seed=seed,
                   spec=spec, explore_fraction=fraction, looks=looks, **options)
    rounds = looks.rounds
    stopped = "at the first look that certified a violation" if result.verdict == "VIOLATION" else \
        "when the budget was spent"
    method = (
        f"sequential: {'events chosen from the spec' if spec is not None else f'events chosen once on {explore} exploration draws per input'}, "
        f"then counted on one growing confirmation sample with looks at "
        f"{', '.join(f'{r.samples_per_input:,}' for r in rounds)} draws per input; look r is tested at "
        f"α·6/(π²r²), so the levels sum to α = {alpha:g} (alpha spending; valid under optional stopping by the "
        f"union bound); stopped {stopped}. Per look: {result.method}"
    )
    return replace(result, method=method), rounds


def rounds_json(rounds: list[Round]) -> list[dict]:
    return [asdict(r) for r in rounds]
