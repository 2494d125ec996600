"""Least-squares decoding of rank-deficient channels (issue 14): unbiased on the identifiable
part (seeded simulation within 3 standard errors), exact covariance against an independent
numpy computation, and the identifiability statement for open alphabets (d > C·k)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from ldpaudit.derive import leastsquares as ls
from ldpaudit.mechanism import load_spec

SPECS = Path(__file__).resolve().parents[1] / "specs"


@pytest.fixture(scope="module")
def open_orr():
    """O-RR with d = 8 inputs, C = 2 cohorts, k = 3 values: d > C·k, rank-deficient."""
    mech = load_spec(SPECS / "orr_open.toml").bind(d=8, C=2, k=3, epsilon="log(3)")
    return mech, ls.channel_array(mech)


def test_open_alphabet_is_rank_deficient_and_the_statement_says_what_is_identifiable(open_orr):
    mech, Q = open_orr
    info = ls.identifiability(mech)
    assert info.d == 8 and info.rank == np.linalg.matrix_rank(Q) <= 1 + 2 * (3 - 1) < 8
    assert len(info.invisible) == 8 - info.rank
    Qe = sp.Matrix(mech.materialize().matrix)
    for a in info.invisible:
        assert all(sp.simplify(e) == 0 for e in a * Qe)   # invisible: aQ = 0 exactly
        assert sp.simplify(sum(a)) == 0                     # and it sums to zero
    assert "bucket sums" in info.statement and "1 + C(k - 1)" in info.statement
    # the identifiable directions are spanned by the bucket indicators 1{hash_c(x) = v}
    table = mech.channel.outputs.table(8)
    buckets = np.array([[1.0 if table[c][x] == v else 0.0 for x in range(8)] for c in range(2) for v in range(3)])
    P = ls.projector(Q)
    assert np.allclose(buckets @ P, buckets)                # each bucket sum is estimable without bias
    assert np.linalg.matrix_rank(buckets) == info.rank


def test_full_rank_channel_is_identifiable():
    mech = load_spec(SPECS / "krr.toml").bind(d=4, epsilon=1)
    info = ls.identifiability(mech)
    assert info.rank == 4 and info.invisible == [] and "every p is identifiable" in info.statement


def test_ls_is_unbiased_on_the_identifiable_part(open_orr):
    """Mean of p̂ over 4,000 seeded multinomial draws (n = 2,000) vs pP: every coordinate
    within 3 standard errors (exact SE from the derived covariance); the raw p is not
    recovered (the invisible component is the bias)."""
    mech, Q = open_orr
    p = np.array([0.3, 0.2, 0.15, 0.1, 0.1, 0.08, 0.05, 0.02])
    n, reps = 2000, 4000
    rng = np.random.default_rng(14)
    m = p @ Q
    counts = rng.multinomial(n, m / m.sum(), size=reps)
    est = ls.ls_estimate(Q, counts / n)
    mom = ls.ls_moments(Q, p, n, "iid")
    se = np.sqrt(np.diag(mom.covariance) / reps)
    z = (est.mean(axis=0) - mom.identifiable_mean) / se
    assert np.all(np.abs(z) < 3), z
    assert np.abs(mom.bias).max() > 0.01                   # rank-deficient: p itself is not identified
    assert np.abs(est.mean(axis=0) - p).max() > 5 * se.max()
    # simulated covariance agrees with the derived one (relative Frobenius error)
    emp = np.cov(est.T)
    assert np.linalg.norm(emp - mom.covariance) / np.linalg.norm(mom.covariance) < 0.1


def test_covariance_equals_an_independent_computation():
    """Small instance (O-RR d = 5, C = 1, k = 3): the derived covariance equals the covariance
    of the linear map m̂ -> m̂R computed by enumerating every count vector of n = 6 reports
    with its exact multinomial probability (i.i.d.), and the explicit sum over users' rows
    (fixed population)."""
    from math import factorial

    mech = load_spec(SPECS / "orr_open.toml").bind(d=5, C=1, k=3, epsilon="log(2)")
    Q = ls.channel_array(mech)
    p = np.array([0.4, 0.25, 0.2, 0.1, 0.05])
    n = 6
    mom = ls.ls_moments(Q, p, n, "iid")
    # independent: SVD-based pseudo-inverse, explicit enumeration of the multinomial
    U, s, Vt = np.linalg.svd(Q, full_matrices=False)
    keep = s > 1e-10 * s[0]
    Rsvd = (Vt[keep].T / s[keep]) @ U[:, keep].T
    m = p @ Q
    K = Q.shape[1]
    first, second = np.zeros(5), np.zeros((5, 5))
    for counts in itertools.product(range(n + 1), repeat=K):
        if sum(counts) != n:
            continue
        prob = factorial(n) * np.prod([m[j] ** c / factorial(c) for j, c in enumerate(counts)])
        e = (np.array(counts) / n) @ Rsvd
        first += prob * e
        second += prob * np.outer(e, e)
    assert np.allclose(mom.mean, first, atol=1e-12)
    assert np.allclose(mom.covariance, second - np.outer(first, first), atol=1e-12)
    # fixed population: n p_x users hold x (p scaled to counts 2, 2, 1, 1, 0 of 6 users)
    users = np.array([0, 0, 1, 1, 2, 3])
    pf = np.bincount(users, minlength=5) / len(users)
    fixed = ls.ls_moments(Q, pf, len(users), "fixed")
    cov_m = sum(np.diag(Q[x]) - np.outer(Q[x], Q[x]) for x in users) / len(users) ** 2
    assert np.allclose(fixed.covariance, Rsvd.T @ cov_m @ Rsvd, atol=1e-12)


def test_nnls_and_simplex_projection_return_distributions(open_orr):
    _, Q = open_orr
    rng = np.random.default_rng(2)
    p = np.array([0.5, 0.2, 0.1, 0.1, 0.05, 0.05, 0, 0])
    m_hat = rng.multinomial(500, p @ Q, size=5) / 500
    proj = ls.simplex_ls_estimate(Q, m_hat)
    assert np.allclose(proj.sum(axis=1), 1) and (proj >= 0).all()
    nn = ls.nnls_estimate(Q, m_hat)
    assert (nn >= 0).all()
    # NNLS fits at least as well as the projected LS among non-negative vectors
    assert all(np.linalg.norm(a @ Q - b) <= np.linalg.norm(c @ Q - b) + 1e-12 for a, b, c in zip(nn, m_hat, proj))


def test_check_headline_uses_least_squares_for_open_alphabets():
    from ldpaudit.derive.headline import headline

    text = headline(load_spec(SPECS / "orr_open.toml").bind_example())
    assert text.startswith("least squares (rank 6 of 8 inputs")
