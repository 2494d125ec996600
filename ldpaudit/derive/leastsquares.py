"""Decoding rank-deficient channels: least squares, non-negative and simplex-projected least
squares, with exact moments and a statement of what is identifiable.

With m = pQ (p a row vector over the d inputs, Q the d × K channel), the least-squares
decoder is p̂ = m̂ Q⁺ with Q⁺ the Moore-Penrose pseudo-inverse (Kairouz et al.'s O-RR
decoding "H not invertible: solve via least squares"; Wang et al. §3.2's regression).

* What is identifiable: two distributions with the same m cannot be told apart, so only the
  linear functionals w·p with w in the column space of Q (w = Qb, hence w·p = m·b) are
  estimable without bias. The invisible directions are N = {a : aQ = 0} (they sum to zero,
  since Q1 = 1), of dimension d - rank Q. For hashed cohorts (O-RR, OLH) m determines exactly
  the bucket sums Σ_{x: hash_c(x) = v} p_x, so rank Q <= 1 + C(k - 1): whenever
  d > 1 + C(k - 1) (in particular d > C·k) some directions are invisible.
* Bias: E[p̂] = p P with P = QQ⁺ the orthogonal projector onto the column space, so the
  least-squares estimate is unbiased for the identifiable part pP and its bias is
  -p(I - P), the invisible component of p (zero iff rank Q = d).
* Covariance: Cov(p̂) = Q⁺ᵀ Cov(m̂) Q⁺ with Cov(m̂) = (diag(m) - mᵀm)/n under the i.i.d.
  model and Σ_x p_x (diag(Q_x) - Q_xᵀQ_x)/n under the fixed-population model.
* The non-negative (NNLS) and simplex-projected estimators are not linear in m̂: they are
  biased near the boundary of the simplex and their moments are estimated by simulation only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldpaudit.errors import InvalidParameter, NotDerivable, NotMaterializable

MODELS = ("iid", "fixed")


def channel_array(mech) -> np.ndarray:
    """The channel of a bound mechanism as a float64 d × K array (rows are inputs)."""
    try:
        ch = mech.channel if mech.channel.form == "explicit" else mech.materialize(max_entries=5_000_000)
    except NotMaterializable as exc:
        raise NotDerivable(f"least squares needs a finite channel: {exc}") from None
    return np.asarray(ch, dtype=float) if hasattr(ch, "__array__") else np.array(
        [[float(e) for e in row] for row in ch.matrix])


def pseudo_inverse(Q: np.ndarray, rcond: float = 1e-10) -> np.ndarray:
    """Q⁺ (K × d), singular values below rcond·σ_max treated as zero."""
    return np.linalg.pinv(np.asarray(Q, dtype=float), rcond=rcond)


def projector(Q: np.ndarray, R: np.ndarray | None = None) -> np.ndarray:
    """P = Q Q⁺: the orthogonal projector (d × d) onto the identifiable directions."""
    R = pseudo_inverse(Q) if R is None else R
    return Q @ R


def ls_estimate(Q: np.ndarray, m_hat: np.ndarray, R: np.ndarray | None = None) -> np.ndarray:
    """p̂ = m̂ Q⁺ (minimum-norm least squares); m_hat may be (K,) or (reps, K)."""
    R = pseudo_inverse(Q) if R is None else R
    return np.asarray(m_hat, dtype=float) @ R


def project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection of each row onto the probability simplex (Duchi et al. 2008)."""
    v = np.atleast_2d(np.asarray(v, dtype=float))
    u = -np.sort(-v, axis=1)
    css = np.cumsum(u, axis=1) - 1.0
    idx = np.arange(1, v.shape[1] + 1)
    rho = (u - css / idx > 0).sum(axis=1)
    theta = css[np.arange(v.shape[0]), rho - 1] / rho
    return np.maximum(v - theta[:, None], 0.0)


def simplex_ls_estimate(Q, m_hat, R=None) -> np.ndarray:
    """The least-squares estimate projected onto the simplex (Kairouz et al.'s "project")."""
    return project_simplex(ls_estimate(Q, m_hat, R))


def nnls_estimate(Q: np.ndarray, m_hat: np.ndarray) -> np.ndarray:
    """argmin_{p >= 0} ||pQ - m̂||² (scipy's NNLS), one row per row of m_hat."""
    from scipy.optimize import nnls

    A = np.asarray(Q, dtype=float).T
    rows = np.atleast_2d(np.asarray(m_hat, dtype=float))
    return np.array([nnls(A, r)[0] for r in rows])


@dataclass(frozen=True)
class Moments:
    """E[p̂], bias E[p̂] - p and Cov(p̂) of the least-squares estimator at p, n."""

    mean: np.ndarray
    bias: np.ndarray
    covariance: np.ndarray
    identifiable_mean: np.ndarray  # pP: what the estimator is unbiased for


def ls_moments(Q: np.ndarray, p: np.ndarray, n: int, model: str = "iid", R: np.ndarray | None = None) -> Moments:
    """Exact moments of p̂ = m̂ Q⁺ (m̂ the empirical output distribution of n reports)."""
    if model not in MODELS:
        raise InvalidParameter(f"model = {model!r}; use 'iid' or 'fixed'")
    Q = np.asarray(Q, dtype=float)
    p = np.asarray(p, dtype=float)
    R = pseudo_inverse(Q) if R is None else R
    P = Q @ R
    m = p @ Q
    if model == "iid":
        cov_m = (np.diag(m) - np.outer(m, m)) / n
    else:
        cov_m = (np.diag(m) - (Q.T * p) @ Q) / n
    mean = p @ P
    return Moments(mean, mean - p, R.T @ cov_m @ R, mean)


@dataclass(frozen=True)
class Identifiability:
    """Exact rank of Q and a basis of the invisible directions {a : aQ = 0}."""

    d: int
    rank: int
    invisible: list  # sympy row vectors
    statement: str


def identifiability(mech) -> Identifiability:
    """Exact rank and invisible directions of a numeric finite channel (over Q(e^(ε/L)))."""
    import sympy as sp
    from sympy.polys.matrices import DomainMatrix

    from ldpaudit.derive.estimator import _explicit, _over_u

    ch = _explicit(mech)
    Q = sp.Matrix(ch.matrix)
    d, K = Q.shape
    Qu, back = _over_u(Q)
    dm = DomainMatrix.from_Matrix(Qu.T).to_field()
    rank = dm.rank()
    null = dm.nullspace().to_Matrix() if rank < d else sp.zeros(0, d)
    invisible = []
    for i in range(null.rows):
        row = null.row(i)
        lead = next(e for e in row if e != 0)
        row = row.applyfunc(lambda e: sp.factor(sp.cancel(e / lead)))  # scaled so the first entry is 1
        invisible.append(row.xreplace(back) if back else row)
    statement = _statement(mech, d, K, rank)
    return Identifiability(d, rank, invisible, statement)


def _statement(mech, d, K, rank) -> str:
    ch = mech.channel
    text = (f"Q has rank {rank} with {d} inputs: "
            + ("every p is identifiable (Q has a left inverse)." if rank == d else
               f"{d - rank} direction(s) a with aQ = 0 are invisible (p and p + ta give the same outputs); only the "
               f"functionals w·p with w in the {rank}-dimensional column space of Q are estimable, and least squares "
               "estimates exactly their projection pP without bias."))
    space = getattr(ch, "outputs", None)
    if getattr(space, "kind", None) == "cohort" and rank < d:
        C, k = int(space.C), int(space.k)
        text += (f" For hashed cohorts m determines exactly the bucket sums Σ_(x: hash_c(x) = v) p_x "
                 f"(C = {C} cohorts × k = {k} buckets, each cohort's buckets summing to 1), so rank <= 1 + C(k - 1) = "
                 f"{1 + C * (k - 1)}; with d = {d} > {1 + C * (k - 1)} inputs the alphabet is open.")
    return text


def headline(mech) -> str:
    """One line for ``ldpaudit check``: rank, identifiable part, LS risk at the uniform p."""
    Q = channel_array(mech)
    d = Q.shape[0]
    rank = int(np.linalg.matrix_rank(Q, tol=1e-10 * np.linalg.norm(Q, 2)))
    mom = ls_moments(Q, np.full(d, 1 / d), 1, "iid")
    total = float(np.trace(mom.covariance))
    return (f"least squares (rank {rank} of {d} inputs: identifies the projection pP, unbiased on it); "
            f"ℓ2² ≈ {total:.4g}/n at uniform p (i.i.d.)")


__all__ = ["channel_array", "pseudo_inverse", "projector", "ls_estimate", "project_simplex", "simplex_ls_estimate",
           "nnls_estimate", "ls_moments", "Moments", "identifiability", "Identifiability", "headline"]
