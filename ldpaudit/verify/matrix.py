"""ε-LDP of a large explicit channel (:class:`~ldpaudit.mechanism.matrix.MatrixChannel`), exactly,
in time linear in its entries.

ε* = max over outputs j of ln(max_i Q(j|i) / min_i Q(j|i)), Q(j|i) = W[i, j]/S[i]. Floats only
shortlist: per column the rows whose float value is within a relative 1e-9 of the column's float
maximum (minimum), and the columns whose float ratio is within 1e-9 of the largest; among those
the exact maximum, minimum and ratio are decided on the integers (W[a, j] S[b] against W[b, j]
S[a]). A float can be off by far less than 1e-9 relative (two roundings of 2^-53), so the exact
answer is always on the shortlist. The claim is then compared with the exact ratio r* as
r* <= e^ε, decided exactly; the witness (x, x', y) attains r*.
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np
import sympy as sp

from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.matrix import MatrixChannel
from ldpaudit.mechanism.params import decide
from ldpaudit.verify.claims import unknown
from ldpaudit.verify.result import Status, TightEpsilon, Verdict, Witness

METHOD = ("matrix: per column the exact largest and smallest W[i, j]/S[i] (floats shortlist, integers decide), "
          "then the largest ratio against e^ε exactly")
#: relative slack of the float shortlist (float error is below 3e-16 relative)
SLACK = 1e-9
#: columns per chunk of the float pass (bounds its memory: rows x CHUNK x 8 bytes)
CHUNK_BYTES = 128 * 2**20


def applies(mech: Mechanism) -> bool:
    return isinstance(mech.channel, MatrixChannel)


def _exact_extremes(ch: MatrixChannel):
    """(ratio r* as a Fraction or None for ∞, column j, row attaining the max, row attaining
    the min) over all columns."""
    W, S = ch.weights, ch.sums
    n, m = W.shape
    if W.dtype == object:  # integers beyond int64: exact all the way (no float shortlist)
        return _exact_everywhere(ch)
    Sf = S.astype(np.float64)
    step = max(1, CHUNK_BYTES // (8 * n))
    best_ratio_f = -1.0
    rows_max = np.empty(m, dtype=np.int64)
    rows_min = np.empty(m, dtype=np.int64)
    col_ratio = np.empty(m)
    shortlists: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for start in range(0, m, step):
        block = W[:, start:start + step].astype(np.float64) / Sf[:, None]
        hi, lo = block.max(axis=0), block.min(axis=0)
        rows_max[start:start + block.shape[1]] = block.argmax(axis=0)
        rows_min[start:start + block.shape[1]] = block.argmin(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(lo > 0, hi / np.where(lo > 0, lo, 1), np.where(hi > 0, np.inf, 1.0))
        col_ratio[start:start + block.shape[1]] = ratio
        top = ratio.max(initial=-1.0)
        if top >= best_ratio_f * (1 - SLACK):
            best_ratio_f = max(best_ratio_f, top)
        # keep, for columns that may attain the maximum, the rows near their max and min
        near = np.flatnonzero(ratio >= best_ratio_f * (1 - SLACK))
        for c in near:
            col = block[:, c]
            shortlists[start + int(c)] = (np.flatnonzero(col >= hi[c] * (1 - SLACK)),
                                          np.flatnonzero(col <= lo[c] * (1 + SLACK)))
    candidates = [j for j in shortlists if col_ratio[j] >= best_ratio_f * (1 - SLACK)]
    best = None
    for j in candidates:
        up, down = shortlists[j]
        a = max(up, key=lambda i: Fraction(int(W[i, j]), int(S[i])))
        b = min(down, key=lambda i: Fraction(int(W[i, j]), int(S[i])))
        q_a, q_b = Fraction(int(W[a, j]), int(S[a])), Fraction(int(W[b, j]), int(S[b]))
        r = None if q_b == 0 else q_a / q_b  # None: Q(j|b) = 0 < Q(j|a), unbounded
        if q_b == 0 and q_a == 0:
            continue
        best = _larger(best, (r, j, int(a), int(b)))
    return best


def _larger(best, found):
    """The candidate (ratio, column, row of the max, row of the min) with the larger ratio;
    a ratio of None is unbounded and beats every number."""
    if best is None or (best[0] is not None and (found[0] is None or found[0] > best[0])):
        return found
    return best


def _exact_everywhere(ch: MatrixChannel):
    W, S = ch.weights, ch.sums
    n, m = W.shape
    best = None
    for j in range(m):
        q = [Fraction(int(W[i, j]), int(S[i])) for i in range(n)]
        a = max(range(n), key=q.__getitem__)
        b = min(range(n), key=q.__getitem__)
        if q[a] == 0:
            continue
        r = None if q[b] == 0 else q[a] / q[b]
        best = _larger(best, (r, j, a, b))
    return best


def verify_matrix(mech: Mechanism, claim, *, rlimit, start, tight: bool = True) -> Verdict:
    ch = mech.channel
    found = _exact_extremes(ch)
    n, m = ch.weights.shape
    notes = (f"{n} x {m} channel, exact integer comparisons on the float shortlist",)
    if found is None:  # every column is all zero: no output ever seen, nothing to distinguish
        return Verdict(Status.PROVED, mech.name, claim, tight_epsilon=sp.Integer(0), method=METHOD,
                       seconds=time.perf_counter() - start, notes=notes)
    r, j, a, b = found
    tight_eps = sp.oo if r is None else sp.log(sp.Rational(r.numerator, r.denominator))
    holds = False if r is None else decide(sp.Rational(r.numerator, r.denominator) <= sp.exp(claim))
    if holds is None:
        return unknown(mech, claim, f"r* = {r} against e^{claim} could not be decided exactly", start, method=METHOD)
    if holds:
        return Verdict(Status.PROVED, mech.name, claim, tight_epsilon=tight_eps if tight else None, method=METHOD,
                       seconds=time.perf_counter() - start, notes=notes)
    witness = _witness(ch, r, j, a, b, claim)
    return Verdict(Status.REFUTED, mech.name, claim, tight_epsilon=tight_eps, witness=witness, method=METHOD,
                   seconds=time.perf_counter() - start, notes=notes)


def _witness(ch: MatrixChannel, r, j: int, a: int, b: int, claim) -> Witness:
    num = sp.Rational(int(ch.weights[a, j]), int(ch.sums[a]))
    den = sp.Rational(int(ch.weights[b, j]), int(ch.sums[b]))
    ratio = sp.oo if den == 0 else num / den
    return Witness(ch.inputs[a], ch.inputs[b], ch.outputs[j], ratio, num, den, sp.sympify(claim))


def tight_matrix(mech: Mechanism, *, rlimit=None) -> TightEpsilon:
    ch = mech.channel
    found = _exact_extremes(ch)
    if found is None:
        return TightEpsilon(mech.name, sp.Integer(0), None, None, method=METHOD)
    r, j, a, b = found
    value = sp.oo if r is None else sp.log(sp.Rational(r.numerator, r.denominator))
    proof = None
    if r is not None and value != 0:
        proof = verify_matrix(mech, value, rlimit=rlimit, start=time.perf_counter(), tight=False)
    return TightEpsilon(mech.name, value, proof, _witness(ch, r, j, a, b, value), method=METHOD)
