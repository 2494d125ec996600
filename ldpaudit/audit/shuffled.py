"""An empirical lower bound on the central ε of shuffled reports, by sampling.

Two neighbouring datasets D0 = (x0, others) and D1 = (x1, others) are each shuffled and
reported ``samples`` times (the output histogram: a shuffle only reveals the multiset). The
first half of the draws picks an event S (the histograms whose observed frequency ratio under
D0 vs D1 is highest, the top-k set with the best predicted bound); the second half certifies it
with one-sided Clopper-Pearson bounds (:func:`ldpaudit.audit.bounds.epsilon_lower_bound`):

    ε_lb(δ) = ln((CP_lower(P(S|D0)) - δ) / CP_upper(P(S|D1)))

which exceeds the true ε of the shuffled mechanism at δ with probability at most ``alpha``
(α/2 for each bound). The event never sees the draws that certify it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldpaudit.audit.bounds import epsilon_lower_bound, predicted_bound, z_value


@dataclass(frozen=True)
class ShuffleAudit:
    epsilon_lower: float  # 0 when nothing could be certified
    alpha: float
    samples: int  # per dataset, both halves
    event_size: int  # histograms in S
    p_lower: float
    q_upper: float


def sample_histograms(rows: np.ndarray, users: list[int], samples: int, rng) -> np.ndarray:
    """``samples`` output histograms (rows) of the users with inputs ``users`` (row indices)."""
    counts = np.zeros((samples, rows.shape[1]), dtype=np.int64)
    values, mult = np.unique(np.asarray(users), return_counts=True)
    for x, k in zip(values, mult):
        counts += rng.multinomial(int(k), rows[x], size=samples)
    return counts


def audit_shuffle(rows, x0: int, x1: int, others: list[int], delta: float, *, samples: int = 20_000,
                  alpha: float = 0.05, seed: int = 0) -> ShuffleAudit:
    """Certified lower bound on the shuffled ε at δ from sampled histograms of (x0, others) and
    (x1, others); ``rows`` are the channel's rows as floats (rows[x][y] = Q(y|x))."""
    rng = np.random.default_rng(seed)
    rows = np.asarray(rows, dtype=float)
    rows = rows / rows.sum(axis=1, keepdims=True)
    h0 = sample_histograms(rows, [x0, *others], samples, rng)
    h1 = sample_histograms(rows, [x1, *others], samples, rng)
    _, ids = np.unique(np.vstack([h0, h1]), axis=0, return_inverse=True)
    ids = ids.ravel()
    a_ids, b_ids = ids[:samples], ids[samples:]
    half = samples // 2
    kinds = int(ids.max()) + 1
    pe = np.bincount(a_ids[:half], minlength=kinds)
    qe = np.bincount(b_ids[:half], minlength=kinds)
    order = np.argsort(-(pe + 0.5) / (qe + 0.5), kind="stable")
    z = z_value(alpha / 2)
    cum_p, cum_q = np.cumsum(pe[order]) / half, np.cumsum(qe[order]) / half
    scores = np.asarray(predicted_bound(cum_p, cum_q, samples - half, z, n_explore=half, delta=delta))
    k = int(np.argmax(np.where(np.isfinite(scores), scores, -np.inf))) + 1
    event = np.zeros(kinds, dtype=bool)
    event[order[:k]] = True
    a = int(event[a_ids[half:]].sum())
    b = int(event[b_ids[half:]].sum())
    m = samples - half
    eps, p_low, q_up = epsilon_lower_bound(a, m, b, m, alpha / 2, delta)
    return ShuffleAudit(max(0.0, eps) if math.isfinite(eps) else 0.0, alpha, samples, k, float(p_low), float(q_up))
