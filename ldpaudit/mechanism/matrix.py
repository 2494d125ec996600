"""Large explicit channels: a matrix of non-negative weights, each row normalized exactly.

``Q(y_j | x_i) = W[i, j] / S[i]`` with integer weights ``W`` and row sums ``S``: rows sum to 1 by
construction, so building and validating take time linear in the entries (no sympy number per
entry). Float weights are converted exactly (a float is a dyadic rational m 2^e: each row is
scaled by a power of two to integers); Fractions and integers of any size are kept exact (then
in a numpy object array). :mod:`ldpaudit.verify.matrix` proves ε-LDP on the integers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ldpaudit.errors import InvalidSpec, NotMaterializable

#: a materialized (sympy) copy is made only up to this many entries
MAX_SYMPY_ENTRIES = 250_000


@dataclass(frozen=True, eq=False)
class MatrixChannel:
    """``weights[i, j]`` (non-negative integers, int64 or Python ints in an object array) over
    ``sums[i]`` (their exact row sums, > 0): rows are ``inputs``, columns ``outputs``."""

    weights: np.ndarray = field(repr=False)
    sums: np.ndarray = field(repr=False)
    inputs: tuple
    outputs: tuple
    form = "matrix"
    variables = frozenset()

    def expressions(self) -> list:
        return []

    def substitute(self, subs) -> MatrixChannel:
        return self

    def size_fields(self) -> list:
        return []

    def validate(self, mech) -> list[str]:
        n, m = self.weights.shape
        return [f"{n} x {m} integer weights, each row normalized exactly by its sum: rows sum to 1 by construction"]

    def describe_fields(self) -> dict:
        n, m = self.weights.shape
        return {"shape": [n, m], "inputs": [str(x) for x in self.inputs[:20]],
                "outputs": [str(y) for y in self.outputs[:20]], "dtype": str(self.weights.dtype)}

    def show_lines(self) -> list[str]:
        n, m = self.weights.shape
        lines = [f"{n} x {m} weights W, rows = inputs, each normalized exactly by its sum: Q(y_j|x_i) = W[i, j]/S[i]"]
        for i in range(min(n, 3)):
            row = ", ".join(str(int(w)) for w in self.weights[i, :8]) + (", ..." if m > 8 else "")
            lines.append(f"x = {self.inputs[i]}: W = [{row}], S = {int(self.sums[i])}")
        if n > 3:
            lines.append(f"... ({n - 3} more rows)")
        return lines

    def latex_lines(self) -> list[str]:
        return [r"Q(y_j \mid x_i) = W_{ij} \big/ \textstyle\sum_k W_{ik}"]

    def probability(self, i: int, j: int) -> Fraction:
        return Fraction(int(self.weights[i, j]), int(self.sums[i]))

    def materialize(self, mech, *, max_entries: int):
        import sympy as sp

        from ldpaudit.mechanism.explicit import ExplicitChannel

        n, m = self.weights.shape
        if n * m > min(max_entries, MAX_SYMPY_ENTRIES):
            raise NotMaterializable(f"{mech.name!r} is a {n} x {m} matrix channel; a symbolic copy is made up to "
                                    f"{MAX_SYMPY_ENTRIES:,} entries (verify works on the integers directly)")
        rows = tuple(tuple(sp.Rational(int(w), int(s)) for w in row) for row, s in zip(self.weights, self.sums))
        return ExplicitChannel(self.inputs, self.outputs, rows)


def matrix_channel(weights, *, inputs=None, outputs=None) -> MatrixChannel:
    """A :class:`MatrixChannel` from a 2-D array or nested lists of non-negative int, Fraction or
    float weights (not all zero in any row). One line naming the row and column otherwise."""
    if isinstance(weights, np.ndarray):
        arr = weights
    else:
        try:
            arr = np.asarray(weights, dtype=object if _has_exact(weights) else None)
        except ValueError as exc:
            raise InvalidSpec(f"weights: not a rectangular matrix ({exc}); give one list per row, all of one length") from None
    if arr.ndim != 2 or 0 in arr.shape:
        raise InvalidSpec(f"weights has shape {arr.shape}; give a non-empty 2-D matrix (rows = inputs, columns = outputs)")
    if arr.dtype.kind in "iu":
        ints = arr if arr.dtype.kind == "i" else _unsigned(arr)  # kept as given (int8..int64): no copy
    elif arr.dtype.kind == "f":
        ints = _floats_to_ints(arr)
    elif arr.dtype.kind == "b":
        ints = arr.astype(np.int64)
    elif arr.dtype == object:
        ints = _exact_to_ints(arr)
    else:
        ints = _exact_to_ints(arr.astype(object))  # names the first entry that is not a number
    negative = np.argwhere(ints < 0)
    if negative.size:
        i, j = (int(v) for v in negative[0])
        raise InvalidSpec(f"weights[{i}, {j}] = {arr[i, j]} is negative; weights must be >= 0")
    if ints.dtype != object and int(ints.max()) * ints.shape[1] < 2**62:
        sums = ints.sum(axis=1, dtype=np.int64)
    else:
        sums = np.array([sum(int(v) for v in row) for row in ints], dtype=object)
    zero = np.flatnonzero(sums == 0)
    if zero.size:
        raise InvalidSpec(f"row {int(zero[0])} of weights is all zero; every input needs some output weight")
    n, m = ints.shape
    inputs = tuple(range(n)) if inputs is None else tuple(inputs)
    outputs = tuple(range(m)) if outputs is None else tuple(outputs)
    if len(inputs) != n or len(outputs) != m:
        raise InvalidSpec(f"{len(inputs)} input and {len(outputs)} output labels for a {n} x {m} matrix")
    return MatrixChannel(ints, sums, inputs, outputs)


def _has_exact(rows) -> bool:
    try:
        return any(isinstance(v, Fraction) or (isinstance(v, int) and abs(v) >= 2**62) for row in rows for v in row)
    except TypeError:
        return False


def _unsigned(arr: np.ndarray) -> np.ndarray:
    if arr.dtype.itemsize < 8:
        return arr
    if arr.size and int(arr.max()) >= 2**62:
        return arr.astype(object)
    return arr.astype(np.int64)


def _floats_to_ints(arr: np.ndarray) -> np.ndarray:
    """Exact: every finite float is m 2^e with an integer m of 53 bits; a row's floats times
    2^(-min e) are integers (Python ints in an object array when they exceed int64)."""
    if not np.isfinite(arr).all():
        i, j = (int(v) for v in np.argwhere(~np.isfinite(arr))[0])
        raise InvalidSpec(f"weights[{i}, {j}] = {arr[i, j]} is not finite")
    mant, exp = np.frexp(arr.astype(np.float64))
    m_int = (mant * 2.0**53).astype(np.int64)  # exact: a 53-bit significand
    e = exp.astype(np.int64) - 53
    e = np.where(m_int == 0, np.iinfo(np.int64).max, e)
    low = e.min(axis=1, keepdims=True)
    shift = np.where(m_int == 0, 0, e - low)
    if int(shift.max(initial=0)) + 53 < 62:
        return np.where(m_int == 0, 0, m_int << shift)
    out = np.empty(arr.shape, dtype=object)
    for i, j in np.ndindex(arr.shape):
        out[i, j] = int(m_int[i, j]) << int(shift[i, j]) if m_int[i, j] else 0
    return out


def _exact_to_ints(arr: np.ndarray) -> np.ndarray:
    """Ints, Fractions and floats (each exact) to integers: row i scaled by the lcm of its
    denominators."""
    out = np.empty(arr.shape, dtype=object)
    for i in range(arr.shape[0]):
        row = []
        for j, v in enumerate(arr[i]):
            if isinstance(v, bool) or not isinstance(v, (int, Fraction, float, np.integer, np.floating)):
                raise InvalidSpec(f"weights[{i}, {j}] = {v!r} is not a number; give ints, Fractions or floats")
            if isinstance(v, (float, np.floating)) and not math.isfinite(v):
                raise InvalidSpec(f"weights[{i}, {j}] = {v} is not finite")
            row.append(Fraction(v) if not isinstance(v, (np.integer, np.floating)) else Fraction(v.item()))
        scale = math.lcm(*(f.denominator for f in row))
        out[i] = [f.numerator * (scale // f.denominator) for f in row]
    if all(-(2**62) < int(v) < 2**62 for v in out.flat):
        return out.astype(np.int64)
    return out


def load_weights(path, *, field: str = "file"):
    """A weight matrix from a ``.npy`` file (``allow_pickle=False``: numbers only) or a ``.csv``
    file of ints, decimals or fractions such as ``1/3`` (read exactly, never through floats)."""
    from pathlib import Path

    path = Path(path)
    if path.suffix == ".npy":
        try:
            arr = np.load(path, allow_pickle=False)
        except (ValueError, OSError) as exc:
            raise InvalidSpec(f"{field} {path.name!r}: not a numeric .npy array ({' '.join(str(exc).split())[:120]})") from None
        return arr
    rows = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for i, line in enumerate(fh):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            row = []
            for j, cell in enumerate(line.split(",")):
                cell = cell.strip()
                try:
                    row.append(Fraction(cell) if len(cell) <= 100 else None)
                except (ValueError, ZeroDivisionError):
                    row.append(None)
                if row[-1] is None:
                    raise InvalidSpec(f"{field} {path.name!r} line {i + 1}, column {j + 1}: {cell[:40]!r} is not a "
                                      "number; write integers, decimals or fractions such as 1/3")
            rows.append(row)
    if rows and all(f.denominator == 1 and abs(f.numerator) < 2**62 for row in rows for f in row) \
            and len({len(r) for r in rows}) == 1:
        return np.array([[int(f) for f in row] for row in rows], dtype=np.int64)
    return rows
