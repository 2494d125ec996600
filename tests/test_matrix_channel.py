"""Large explicit channels (issue 21, item 5): Mechanism.from_matrix normalizes each row exactly in
time linear in the entries, and verify decides ε* on the integers; both checked against brute-force
exact fractions."""

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.verify import Status, tight_epsilon, verify


def brute(rows) -> Fraction | None:
    """max over columns of max_i Q / min_i Q with exact fractions (None: unbounded)."""
    q = [[Fraction(w) / sum(Fraction(v) for v in row) for w in row] for row in rows]
    best = Fraction(1)
    for j in range(len(q[0])):
        col = [r[j] for r in q]
        if max(col) == 0:
            continue
        if min(col) == 0:
            return None
        best = max(best, max(col) / min(col))
    return best


@pytest.mark.parametrize("seed", range(25))
def test_tight_epsilon_is_the_exact_largest_ratio(seed):
    rng = np.random.default_rng(seed)
    n, m = rng.integers(2, 7, size=2)
    W = rng.integers(0, 6, size=(n, m))
    W[:, 0] += 1  # no all-zero row
    mech = Mechanism.from_matrix(W, epsilon=1)
    want = brute(W.tolist())
    got = tight_epsilon(mech).value
    if want is None:
        assert got == sp.oo
    else:
        assert got == sp.log(sp.Rational(want.numerator, want.denominator))


def test_proved_at_the_tight_epsilon_and_refuted_just_below():
    mech = Mechanism.from_matrix([[3, 1, 0], [1, 3, 0], [1, 1, 2]], epsilon="log(3)")
    assert tight_epsilon(mech).value == sp.oo  # column 2 is 0 for x = 0 and 2/4 for x = 2
    mech = Mechanism.from_matrix([[3, 1], [1, 3], [2, 2]], epsilon="log(3)")
    assert verify(mech).status is Status.PROVED and verify(mech).exit_code == 0
    below = verify(mech, epsilon="log(3) - 1/1000")
    assert below.status is Status.REFUTED and below.exit_code == 1
    w = below.witness
    assert w.ratio == 3 and (w.x, w.x_prime) in ((0, 1), (1, 0))
    assert w.numerator == sp.Rational(3, 4) and w.denominator == sp.Rational(1, 4)


def test_floats_fractions_and_huge_integers_are_exact():
    floats = Mechanism.from_matrix(np.array([[0.75, 0.25], [0.1, 0.3]]), epsilon=1)
    assert floats.channel.probability(1, 0) == Fraction(0.1) / (Fraction(0.1) + Fraction(0.3))
    exact = Mechanism.from_matrix([[Fraction(3, 4), Fraction(1, 4)], [Fraction(1, 10), Fraction(3, 10)]], epsilon=1)
    assert exact.channel.probability(1, 0) == Fraction(1, 4)
    huge = Mechanism.from_matrix([[3 * 10**30, 10**30], [10**30, 3 * 10**30]], epsilon="log(3)")
    assert huge.channel.weights.dtype == object and verify(huge).status is Status.PROVED
    assert tight_epsilon(huge).value == sp.log(3)
    assert Mechanism.from_matrix([[3, 1], [1, 3]], epsilon="log(3)").materialize().matrix == (
        (sp.Rational(3, 4), sp.Rational(1, 4)), (sp.Rational(1, 4), sp.Rational(3, 4)))


@pytest.mark.parametrize("weights, message", [
    ([[1, -1], [1, 1]], r"weights\[0, 1\] = -1 is negative"),
    ([[0, 0], [1, 1]], "row 0 of weights is all zero"),
    ([[1, 2], [1]], "not a rectangular matrix"),
    ([[1.0, float("nan")], [1.0, 1.0]], r"weights\[0, 1\] = nan is not finite"),
    ([[1, "a"], [1, 1]], "is not a number"),
])
def test_bad_matrices_are_one_line_errors(weights, message):
    with pytest.raises(InvalidSpec, match=message) as info:
        Mechanism.from_matrix(weights, epsilon=1)
    assert "\n" not in str(info.value)


def test_a_thousand_square_builds_and_verifies_with_the_exact_tight_epsilon():
    # its CPU time is recorded by benchmarks/bench_matrix.py
    W = np.random.default_rng(0).integers(1, 1000, size=(1000, 1000))
    mech = Mechanism.from_matrix(W, epsilon="log(1000)")
    v = verify(mech, tight=True)
    Q = W / W.sum(axis=1, keepdims=True)
    assert math.isclose(float(v.tight_epsilon), float(np.log((Q.max(axis=0) / Q.min(axis=0)).max())), rel_tol=1e-12)
    a, b, y = v.witness.x, v.witness.x_prime, v.witness.y
    assert v.witness.ratio == sp.Rational(int(W[a, y]) * int(W[b].sum()), int(W[b, y]) * int(W[a].sum()))


SPEC = """
[mechanism]
name = "matrix from a file"
claimed_epsilon = "log(3)"

[inputs]
size = {size}

[channel]
form = "matrix"
file = "{file}"
"""


def test_a_spec_points_at_a_npy_or_csv_file(tmp_path):
    from ldpaudit.mechanism import load_spec

    np.save(tmp_path / "w.npy", np.ones((40, 40), dtype=np.int64) + 2 * np.eye(40, dtype=np.int64))
    (tmp_path / "w.csv").write_text("# weights\n3, 1\n1/2, 3/2\n")
    (tmp_path / "n.toml").write_text(SPEC.format(size=40, file="w.npy"))
    (tmp_path / "c.toml").write_text(SPEC.format(size=2, file="w.csv"))
    for name in ("n.toml", "c.toml"):
        mech = load_spec(tmp_path / name)
        v = verify(mech, tight=True)
        assert v.status is Status.PROVED and v.tight_epsilon == sp.log(3)
    assert load_spec(tmp_path / "c.toml").channel.probability(1, 0) == Fraction(1, 4)  # 1/2 read exactly


@pytest.mark.parametrize("file, size, extra, message", [
    ("../w.npy", 2, "", "must be a .npy or .csv path inside the spec's folder"),
    ("/etc/passwd", 2, "", "must be a .npy or .csv path inside the spec's folder"),
    ("w.txt", 2, "", "must be a .npy or .csv path"),
    ("missing.npy", 2, "", "no such file beside the spec"),
    ("w.csv", 3, "", "inputs.size = 3 but channel.file has 2 rows"),
    ("bad.csv", 1, "", "line 1, column 2: 'x' is not a number"),
    ("obj.npy", 2, "", "not a numeric .npy array"),
])
def test_bad_matrix_files_are_one_line_errors(tmp_path, file, size, extra, message):
    from ldpaudit.mechanism import load_spec

    (tmp_path / "w.csv").write_text("3,1\n1,3\n")
    (tmp_path / "bad.csv").write_text("1,x\n")
    np.save(tmp_path / "obj.npy", np.array([[1, None], [2, 3]], dtype=object), allow_pickle=True)
    (tmp_path / "s.toml").write_text(SPEC.format(size=size, file=file) + extra)
    with pytest.raises(InvalidSpec, match=message) as info:
        load_spec(tmp_path / "s.toml")
    assert "\n" not in str(info.value)
