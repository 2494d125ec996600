"""The server side of the public bug suite (issue 34, item 5): estimators that turn reports into
published frequencies wrongly, each beside its correct counterpart, both audited by
:func:`ldpaudit.audit.estimator_audit` against the spec's derived estimator.

* ``clip-normalize``: the client's reports decoded correctly, then clipped at 0 and divided by
  their sum, as multi-freq-ldpy 0.2.5 (``*_Aggregator_MI``) and ldp-toolbox 0.1.3 (every
  ``estimate``) do; their docstrings call the result unbiased. Biased wherever the truth has
  small coordinates (one-hot, geometric inputs).
* ``oue-decoded-as-sue``: OUE reports decoded with SUE's (k-RAPPOR's) p and q: a decoder for
  another channel than the client's.

``ldpaudit bench --servers`` runs them: a bug is caught when its server's audit is a VIOLATION,
and a counterpart (the spec's own estimator on the same reports) must not be.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: the audit of each server: d = 8 inputs, ε = 1, n users per trial, trials per distribution, α
D, EPSILON, N_USERS, TRIALS, ALPHA = 8, 1, 200, 1000, 0.01


def spec_server(spec: str, **params):
    """The spec's own unbiased estimator (:func:`ldpaudit.audit.estimator.spec_server_for`) of
    the spec bound to ``params``."""
    from ldpaudit.audit.estimator import spec_server_for
    from ldpaudit.mechanism.loader import load_budgeted

    _, mech = load_budgeted(spec, [f"{k}={v}" for k, v in params.items()])
    return spec_server_for(mech)


def clip_normalize(estimates) -> np.ndarray:
    """Negative estimates set to 0, then all divided by their sum (0/0 when all are <= 0)."""
    v = np.maximum(np.asarray(estimates, dtype=float), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return v / v.sum()


def clip_normalize_server(spec: str, **params):
    inner = spec_server(spec, **params)
    return lambda reports: clip_normalize(inner(reports))


def oue_as_sue_server(*, d, epsilon):
    """Unary reports decoded with SUE's p = e^(ε/2)/(1 + e^(ε/2)), q = 1 - p instead of OUE's
    p = 1/2, q = 1/(e^ε + 1)."""
    s = math.exp(float(epsilon) / 2)
    p, q = s / (1 + s), 1 / (1 + s)

    def server(reports):
        return (np.asarray(reports).astype(float).mean(axis=0) - q) / (p - q)

    return server


@dataclass(frozen=True)
class ServerBug:
    key: str
    name: str
    source: str
    spec: str
    buggy: object          # () -> server
    fixed: object          # () -> server


def server_bugs() -> list[ServerBug]:
    params = {"d": D, "epsilon": EPSILON}
    return [
        ServerBug("clip-normalize", "estimates clipped at 0 and divided by their sum",
                  "multi-freq-ldpy 0.2.5 *_Aggregator_MI; ldp-toolbox 0.1.3 estimate()", "oue",
                  lambda: clip_normalize_server("oue", **params), lambda: spec_server("oue", **params)),
        ServerBug("oue-decoded-as-sue", "OUE reports decoded with SUE's p and q",
                  "a decoder for another channel than the client's (planted)", "oue",
                  lambda: oue_as_sue_server(**params), lambda: spec_server("oue", **params)),
    ]


@dataclass(frozen=True)
class ServerRow:
    key: str
    name: str
    source: str
    verdict: str            # the buggy server's audit
    biased: int             # coordinates shown biased
    counterpart: str        # the correct estimator's audit on the same reports

    @property
    def ok(self) -> bool:
        return self.verdict == "VIOLATION" and self.counterpart == "NO_EVIDENCE"

    def to_json(self) -> dict:
        return {"bug": self.key, "name": self.name, "source": self.source, "verdict": self.verdict,
                "biased_coordinates": self.biased, "counterpart_verdict": self.counterpart, "ok": self.ok}


def score(bug: ServerBug, *, seed: int = 0, alpha: float = ALPHA, trials: int = TRIALS) -> ServerRow:
    from ldpaudit.audit.estimator import estimator_audit
    from ldpaudit.mechanism.loader import load_budgeted
    from ldpaudit.mechanism.randomizers import reference_for

    _, mech = load_budgeted(bug.spec, [f"d={D}", f"epsilon={EPSILON}"])
    client = reference_for(mech)
    runs = [estimator_audit(client, server(), mech, n=N_USERS, trials=trials, alpha=alpha, seed=seed)
            for server in (bug.buggy, bug.fixed)]
    return ServerRow(bug.key, bug.name, bug.source, runs[0].verdict, len(runs[0].biased), runs[1].verdict)


def table(rows: list[ServerRow]) -> str:
    lines = [f"servers (audit-estimator: d = {D}, ε = {EPSILON}, n = {N_USERS} users, {TRIALS} trials per "
             f"distribution, α = {ALPHA}):"]
    for r in rows:
        mark = "caught" if r.verdict == "VIOLATION" else "MISSED"
        lines.append(f"  {r.key}: {r.verdict} ({r.biased} coordinates biased) [{mark}]; correct counterpart: "
                     f"{r.counterpart}  ({r.source})")
    return "\n".join(lines)
