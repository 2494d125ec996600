"""Score the public bug suite (suite.py): for every bug, its true ε (``ldpaudit verify``'s tightest
ε of the buggy channel where the law is finite, else the argument), the smallest sample size in
10^3, 10^4, 10^5, 10^6 (10^7 for vectorized ones still missed) at which ldpaudit flags it,
black-box and spec-guided (conformance), its ε_lb there, and the same for LDP-Auditor's fixed
attack (Arcolezi & Gambs 2023: the event "the output supports x" of the protocol, x = 0 against
x' = 1, one-sided Clopper-Pearson bounds at α/2 each, re-implemented here) as the baseline. The
correct counterparts are audited at 10^6 (10^5 in a quick run) and must not be flagged.

The suite's verdict is OK when every bug is flagged and no counterpart is. Each bug is audited at
α (its detection is a question of power, one audit at a time). The counterparts are audited at
α/m, m the number of counterpart audits in the whole suite (black-box and with the spec), so
that by Bonferroni the probability that *any* correct counterpart is flagged is at most α:
"none flagged" is then a claim at confidence 1 - α, not a coin that lands wrong about
α·m times per run (m = 22 at α = 0.05 would expect one false alarm per run).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ldpaudit.bench import suite

ALPHA = 0.05
GRID = (10**3, 10**4, 10**5, 10**6)
FAST_EXTRA = 10**7
SLOW_FAMILIES = frozenset({"hr"})   # per-output Python randomizers: grid stops at 10^5
QUICK_COUNTERPART = 10**5


@dataclass
class Row:
    key: str
    name: str
    source: str
    true_epsilon: float
    true_text: str
    grid: list
    blackbox_n: int | None = None
    blackbox_lb: float = 0.0
    blackbox_seconds: float = 0.0
    spec_n: int | None = None
    spec_lb: float | None = None
    spec_used: bool = False
    baseline_n: int | None = None
    baseline_lb: float = 0.0
    counterpart_n: int = 0
    counterpart_flagged: bool = False
    counterpart_lb: float = 0.0
    counterpart_conformance: bool | None = None
    counterpart_alpha: float = ALPHA
    feature: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def flagged(self) -> bool:
        return self.blackbox_n is not None or self.spec_n is not None

    @property
    def ok(self) -> bool:
        return self.flagged and not self.counterpart_flagged

    def to_json(self) -> dict:
        finite = math.isfinite(self.true_epsilon)
        return {
            "key": self.key, "name": self.name, "source": self.source,
            "true_epsilon": self.true_epsilon if finite else None, "true_epsilon_infinite": not finite,
            "true_epsilon_text": self.true_text, "grid": list(self.grid),
            "flagged": self.flagged, "ok": self.ok,
            "blackbox": {"flagged_at": self.blackbox_n, "epsilon_lower_bound": self.blackbox_lb,
                         "feature": self.feature, "seconds": round(self.blackbox_seconds, 3)},
            "spec": ({"flagged_at": self.spec_n, "epsilon_lower_bound": self.spec_lb} if self.spec_used else None),
            "baseline": {"flagged_at": self.baseline_n, "epsilon_lower_bound": self.baseline_lb},
            "counterpart": {"samples": self.counterpart_n, "flagged": self.counterpart_flagged,
                            "epsilon_lower_bound": self.counterpart_lb,
                            "conformance_passed": self.counterpart_conformance, "alpha": self.counterpart_alpha},
        }


def select(only: list[str] | None = None) -> list[suite.Bug]:
    """The bugs named by ``only`` (their keys), in suite order; all of them without it."""
    bugs = suite.bugs()
    if not only:
        return bugs
    keys = [b.key for b in bugs]
    unknown = [k for k in only if k not in keys]
    if unknown:
        from ldpaudit.errors import InvalidParameter

        raise InvalidParameter(f"--only {unknown[0]!r} is not a bug of the suite; valid names: {', '.join(keys)}")
    return [b for b in bugs if b.key in only]


def true_epsilon(bug: suite.Bug) -> tuple[float, str]:
    """The buggy mechanism's true ε and how it was obtained."""
    if bug.true_spec is None:
        value = math.inf if bug.true_value is None else bug.true_value
        return value, bug.true_note
    import sympy as sp

    from ldpaudit.mechanism.loader import loads_spec
    from ldpaudit.verify.core import tight_epsilon

    mech = loads_spec(bug.true_spec, source=bug.key)
    value = tight_epsilon(mech).value
    return (math.inf if value == sp.oo else float(value)), f"{sp.sstr(value)} (verify --tight)"


def baseline(bug: suite.Bug, n: int, seed: int, alpha: float = ALPHA) -> float:
    """LDP-Auditor's fixed attack: S = {output supports x = 0}, counted under 0 and 1."""
    from ldpaudit.audit import bounds

    x, xp = bug.domain[0], bug.domain[1]
    rng = np.random.default_rng(seed)
    ya = bug.buggy(x, n, rng)
    yb = bug.buggy(xp, n, rng)
    a, b = supports(bug, ya, x), supports(bug, yb, x)
    lb, _, _ = bounds.epsilon_lower_bound(a, n, b, n, alpha / 2)
    return max(lb, 0.0)


def supports(bug: suite.Bug, y, x) -> int:
    """How many outputs ``y`` support input ``x`` in the protocol's own sense (the baseline's event)."""
    fam = bug.family
    if fam == "grr":
        return int(np.count_nonzero(np.asarray(y) == x))
    if fam == "ue":
        return int(np.count_nonzero(np.asarray(y)[:, x] == 1))
    if fam == "subset":
        return int(np.count_nonzero((np.asarray(y) == x).any(axis=1)))
    if fam == "hr":
        return sum(1 for j, v in y if (1 if v else -1) == suite._hadamard(x + 1, j))
    if fam == "lh":
        y = np.asarray(y)
        return int(np.count_nonzero(suite._lh_hash(y[:, 0], x, suite.G_LH) == y[:, 1]))
    if fam == "fd":                            # RS+FD: the first attribute's report equals x
        return int(np.count_nonzero(np.asarray(y)[:, 0] == x))
    y = np.asarray(y, dtype=float)             # real outputs: threshold halfway
    col = y if y.ndim == 1 else y[:, int(x)]
    return int(np.count_nonzero(col < 0.5 if y.ndim == 1 else col > 0.5))


def _first_flag(run, grid) -> tuple[int | None, float]:
    lb = 0.0
    for n in grid:
        flagged, lb = run(n)
        if flagged:
            return n, lb
    return None, lb


def counterpart_audits(bugs: list[suite.Bug]) -> int:
    """How many audits of correct counterparts a run of ``bugs`` makes (the Bonferroni m)."""
    return sum(1 + (b.intended is not None) for b in bugs)


def grid_for(bug: suite.Bug, quick: bool) -> list[int]:
    grid = list(GRID)
    if bug.family in SLOW_FAMILIES:
        return [n for n in grid if n <= 10**5]
    return grid if quick else grid + [FAST_EXTRA]


def score(bug: suite.Bug, *, quick: bool = False, seed: int = 0, alpha: float = ALPHA,
          counterpart_alpha: float | None = None) -> Row:
    """Audit one bug (black-box, with its spec, the baseline) at ``alpha`` and its correct
    counterpart at ``counterpart_alpha`` (default: α over the whole suite's counterpart audits)."""
    from ldpaudit.audit import audit
    from ldpaudit.audit.engine import conformance_failed

    true_eps, true_text = true_epsilon(bug)
    grid = grid_for(bug, quick)
    row = Row(bug.key, bug.name, bug.source, true_eps, true_text, grid, feature=bug.feature is not None)
    opts = dict(domain=bug.domain, epsilon=bug.epsilon, alpha=alpha, seed=seed, batch=True, feature=bug.feature)

    def black(n):
        r = audit(bug.buggy, samples=n, **opts)
        return r.verdict == "VIOLATION", r.epsilon_lower_bound

    t = time.perf_counter()
    row.blackbox_n, row.blackbox_lb = _first_flag(black, grid)
    row.blackbox_seconds = time.perf_counter() - t
    if bug.intended is not None:
        spec = bug.intended()

        def guided(n):
            r = audit(bug.buggy, samples=n, spec=spec, **opts)
            return r.verdict == "VIOLATION" or conformance_failed(r.conformance), r.epsilon_lower_bound

        row.spec_used = True
        row.spec_n, row.spec_lb = _first_flag(guided, [n for n in grid if n <= 10**6])
    row.baseline_n, row.baseline_lb = _first_flag(
        lambda n: (lambda lb: (lb > bug.epsilon, lb))(baseline(bug, n, seed, alpha)), [n for n in grid if n <= 10**6])
    row.counterpart_n = 10**5 if quick or bug.family in SLOW_FAMILIES else 10**6
    if counterpart_alpha is None:
        counterpart_alpha = alpha / counterpart_audits(suite.bugs())
    row.counterpart_alpha = counterpart_alpha
    opts["alpha"] = counterpart_alpha
    fixed = audit(bug.fixed, samples=row.counterpart_n, **opts)
    row.counterpart_flagged = fixed.verdict == "VIOLATION"
    row.counterpart_lb = fixed.epsilon_lower_bound
    if bug.intended is not None:
        g = audit(bug.fixed, samples=row.counterpart_n, spec=bug.intended(), **opts)
        row.counterpart_conformance = not conformance_failed(g.conformance)
        row.counterpart_flagged = row.counterpart_flagged or g.verdict == "VIOLATION" or not row.counterpart_conformance
    return row


def run_suite(bugs: list[suite.Bug], *, quick: bool = False, seed: int = 0, alpha: float = ALPHA,
              update=None) -> list[Row]:
    rows = []
    counterpart_alpha = alpha / counterpart_audits(suite.bugs())
    for i, bug in enumerate(bugs, 1):
        if update is not None:
            update(f"{i}/{len(bugs)} {bug.key}")
        rows.append(score(bug, quick=quick, seed=seed, alpha=alpha, counterpart_alpha=counterpart_alpha))
    return rows


def _n(n, grid_max) -> str:
    return f"10^{round(math.log10(n))}" if n else f"no (≤ 10^{round(math.log10(grid_max))})"


def table(rows: list[Row], *, seed: int = 0, alpha: float = ALPHA) -> str:
    """The Markdown table of benchmarks/README.md, then the sources and true ε."""
    m = rows[0].counterpart_alpha if rows else alpha
    lines = [f"## Public suite of real LDP bugs: claimed ε = 1, α = {alpha} per bug audit, seed {seed}; "
             f"counterparts at α/m = {m:.3g} (family-wise α)",
             "| bug | true ε | ldpaudit black-box: flagged at (ε_lb) | ldpaudit + spec (conformance) | "
             "LDP-Auditor attack: flagged at (ε_lb) | correct counterpart flagged |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        gmax = r.grid[-1]
        true = "∞" if r.true_epsilon == math.inf else f"{r.true_epsilon:.4f}"
        bb = f"{_n(r.blackbox_n, gmax)} ({r.blackbox_lb:.3g})" + (" with --feature" if r.feature else "")
        sp = _n(r.spec_n, min(gmax, 10**6)) if r.spec_used else "—"
        base = f"{_n(r.baseline_n, min(gmax, 10**6))} ({r.baseline_lb:.3g})"
        fixed = f"{'YES' if r.counterpart_flagged else 'no'} (10^{round(math.log10(r.counterpart_n))})"
        lines.append(f"| {r.name} | {true} | {bb} | {sp} | {base} | {fixed} |")
    lines += ["", "Sources and true ε:"]
    lines += [f"- {r.name} (`{r.key}`): {r.source}; true ε = {r.true_text}" for r in rows]
    missed = [r.key for r in rows if not r.flagged]
    alarms = [r.key for r in rows if r.counterpart_flagged]
    lines += ["", f"{sum(r.flagged for r in rows)} of {len(rows)} bugs flagged"
              + (f" (missed: {', '.join(missed)})" if missed else "")
              + f"; {len(alarms)} correct counterparts flagged" + (f" ({', '.join(alarms)})" if alarms else "") + "."]
    return "\n".join(lines)


def verdict(rows: list[Row]) -> str:
    """OK when every bug is flagged and no counterpart is; REFUTED otherwise (the suite's
    expectation is refuted by the rows that fail it)."""
    return "OK" if all(r.ok for r in rows) else "REFUTED"
