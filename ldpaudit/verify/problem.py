"""From a finite channel to ratio obligations, using its structure.

ε-LDP of a finite channel means Q(y|x) <= e^ε Q(y|x') for every x, x', y; the tight ε is
ε* = max_y ln(max_x Q(y|x) / min_x Q(y|x)). The number of obligations depends on the form:

* explicit, numeric: one obligation per output column, max_x Q(y|x) <= e^ε min_x Q(y|x)
  (max and min found by exact comparisons; z3 then confirms the |Y| obligations);
* explicit, symbolic: one per ordered pair of distinct values within a column (deduplicated);
* structured (element or subset outputs with the standard conditions ``y == x`` / ``y != x``,
  ``x in y`` / ``x not in y``, ``y == bit(x, j)``): one per ordered pair of classes that some
  output realizes, so the proof covers every admissible d (and k) at once. Cohort spaces and
  unrecognized conditions are materialized (their sizes must then be numbers);
* product: changing x to x' changes two coordinates, so the obligations are
  on(v) off(w) <= e^ε off(v) on(w) for all coordinate values v, w, whatever d >= 2 is, and
  ε* = max_v ln(on(v)/off(v)) + max_w ln(off(w)/on(w)).
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import sympy as sp

from ldpaudit.errors import NotMaterializable
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.explicit import ExplicitChannel
from ldpaudit.mechanism.expr import eval_condition
from ldpaudit.mechanism.product import ProductChannel
from ldpaudit.mechanism.spaces import CohortSpace, ElementSpace, FiniteDomain, SubsetSpace
from ldpaudit.mechanism.structured import StructuredChannel
from ldpaudit.verify import exact
from ldpaudit.verify.prover import Fact
from ldpaudit.verify.smt import Unsupported


@dataclass
class Problem:
    """The ratio obligations of one mechanism, and how to turn a failing one into (x, x', y)."""

    mech: Mechanism
    facts: list[Fact]
    method: str
    numeric: bool
    #: product channels: the two groups whose maxima add up (on/off and off/on ratios)
    groups: tuple[list[tuple[sp.Basic, sp.Basic]], list[tuple[sp.Basic, sp.Basic]]] | None = None
    notes: list[str] = field(default_factory=list)
    #: tag -> (x, x', y, y_text) at the problem's own (numeric) binding
    locate: Callable | None = None
    #: numeric problems: the tag of the largest ratio, that ratio (oo if infinite), or None
    best: tuple | None = None


# --- entry evaluation (independent of the obligations; used to re-check witnesses) ----------


def entry(mech: Mechanism, x, y) -> sp.Basic:
    """Q(y|x) computed from the channel's own definition (numeric sizes)."""
    ch = mech.channel
    if isinstance(ch, ExplicitChannel):
        return ch.matrix[ch.inputs.index(x)][ch.outputs.index(y)]
    if isinstance(ch, StructuredChannel):
        i = _class_of(mech, ch, x, y)
        return ch.classes[i].weight
    if isinstance(ch, ProductChannel):
        inputs = mech.inputs.enumerate()
        xi = inputs.index(x)
        return sp.Mul(*[(ch.on if j == xi else ch.off).probability(v) for j, v in enumerate(y)])
    raise Unsupported(f"no finite entries for a {ch.form} channel")


def _env(mech: Mechanism, ch: StructuredChannel, x) -> dict:
    env = {k: int(v) if sp.sympify(v).is_Integer else v for k, v in mech.bindings}
    env["x"] = x
    env["bit"] = lambda value, j: (int(value) >> int(j)) & 1
    if isinstance(ch.outputs, CohortSpace):
        env["hash"] = ch.outputs.hash
    return env


def _class_of(mech: Mechanism, ch: StructuredChannel, x, y) -> int:
    env = _env(mech, ch, x)
    env["y"] = y
    if isinstance(ch.outputs, CohortSpace):
        env["c"], env["v"] = y
    for i, c in enumerate(ch.classes):
        if eval_condition(c.predicate, env):
            return i
    raise Unsupported(f"output {y} falls in no class for input {x}")


# --- explicit channels ----------------------------------------------------------------------


def explicit_problem(mech: Mechanism, ch: ExplicitChannel, method: str = "explicit channel") -> Problem:
    if mech.parameters and _mentions_parameters(mech, ch):
        return _explicit_symbolic(mech, ch, method)
    return _explicit_numeric(mech, ch, method)


def _mentions_parameters(mech: Mechanism, ch: ExplicitChannel) -> bool:
    syms = set(mech.symbols.values())
    return any(sp.sympify(e).free_symbols & syms for row in ch.matrix for e in row)


def _explicit_numeric(mech: Mechanism, ch: ExplicitChannel, method: str) -> Problem:
    inputs, outputs, matrix = ch.inputs, ch.outputs, ch.matrix
    rational = all(e.is_Rational for row in matrix for e in row)
    facts: list[Fact] = []
    best = None  # (tag, ratio)
    if rational:
        facts, best = _rational_columns(inputs, outputs, matrix)
    else:
        compare = _compare_once()  # columns repeat the same few entries (OLH: 2 values, 2^k columns)
        for j, y in enumerate(outputs):
            column = [row[j] for row in matrix]
            distinct = list(dict.fromkeys(column))
            hi = lo = distinct[0]
            for v in distinct[1:]:
                c_hi, c_lo = compare(v, hi), compare(v, lo)
                if c_hi is None or c_lo is None:
                    raise Unsupported(f"cannot order the entries of column y={y} exactly")
                if c_hi > 0:
                    hi = v
                if c_lo < 0:
                    lo = v
            if hi == 0 or len(inputs) < 2:
                continue
            i_hi = column.index(hi)
            i_lo = column.index(lo) if lo != hi else (1 if i_hi == 0 else 0)
            tag = (inputs[i_hi], inputs[i_lo], y)
            ratio = sp.oo if lo == 0 else hi / lo
            facts.append(Fact(hi, lo, tag, where=f"column y={y}"))
            if best is None or _greater(ratio, best[1], compare):
                best = (tag, ratio)
    problem = Problem(mech, facts, f"{method}: per-column max/min ({len(outputs)} obligations)", True, best=best)
    problem.locate = lambda tag: (tag[0], tag[1], tag[2], "")
    return problem


def _compare_once():
    """:func:`exact.compare` remembering its answers (each builds an encoder and rational
    enclosures of every exponential)."""
    answers: dict = {}

    def compare(a, b):
        if (a, b) not in answers:
            answers[a, b] = exact.compare(a, b)
        return answers[a, b]

    return compare


def _greater(a, b, compare=exact.compare) -> bool:
    if b == sp.oo:
        return False
    if a == sp.oo:
        return True
    c = compare(a, b)
    if c is None:
        raise Unsupported(f"cannot compare {a} and {b} exactly")
    return c > 0


def _rational_columns(inputs, outputs, matrix):
    """Column max/min of an exact rational matrix, with integer cross-multiplication only."""
    n_in = len(inputs)
    nums = [[int(e.p) for e in row] for row in matrix]
    dens = [[int(e.q) for e in row] for row in matrix]
    facts = []
    best_tag, best_p, best_q = None, 0, 1  # best ratio as p/q (q == 0: infinite)
    for j, y in enumerate(outputs):
        hi = lo = 0
        hp, hq = nums[0][j], dens[0][j]
        lp, lq = hp, hq
        for i in range(1, n_in):
            p, q = nums[i][j], dens[i][j]
            if p * hq > hp * q:
                hi, hp, hq = i, p, q
            elif p * lq < lp * q:
                lo, lp, lq = i, p, q
        if hp == 0 or n_in < 2:
            continue
        if hi == lo:  # a constant column: any other input attains the minimum
            lo = 1 if hi == 0 else 0
        tag = (inputs[hi], inputs[lo], y)
        facts.append(Fact(sp.Rational(hp, hq), sp.Rational(lp, lq), tag, where=f"column y={y}"))
        # ratio (hp/hq)/(lp/lq) = hp*lq / (hq*lp)
        rp, rq = hp * lq, hq * lp
        if best_tag is None or (best_q != 0 and (rq == 0 or rp * best_q > best_p * rq)):
            best_tag, best_p, best_q = tag, rp, rq
    best = None
    if best_tag is not None:
        best = (best_tag, sp.oo if best_q == 0 else sp.Rational(best_p, best_q))
    return facts, best


def _explicit_symbolic(mech: Mechanism, ch: ExplicitChannel, method: str) -> Problem:
    facts: dict = {}
    for j, y in enumerate(ch.outputs):
        column = [row[j] for row in ch.matrix]
        first = {}
        for i, v in enumerate(column):
            first.setdefault(v, ch.inputs[i])
        values = list(first)
        for a, b in itertools.permutations(values, 2):
            if a == 0:
                continue
            if (a, b) not in facts:
                facts[(a, b)] = Fact(a, b, (first[a], first[b], y), where=f"Q(y={y}|x={first[a]})")
    problem = Problem(mech, list(facts.values()), f"{method}: pairs of distinct entries per column ({len(facts)} obligations)", False)
    problem.locate = lambda tag: (tag[0], tag[1], tag[2], "")
    return problem


# --- structured channels --------------------------------------------------------------------


def _pattern(condition: str):
    """('eq'|'ne', ast-dump of the right side) for y == E / y != E, ('in'|'notin',) for x in y."""
    try:
        node = ast.parse(condition.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return None
    left, op, right = node.left, node.ops[0], node.comparators[0]
    names = lambda n: isinstance(n, ast.Name) and n.id  # noqa: E731
    if isinstance(op, (ast.In, ast.NotIn)) and names(left) == "x" and names(right) == "y":
        return ("in" if isinstance(op, ast.In) else "notin",)
    if isinstance(op, (ast.Eq, ast.NotEq)):
        if names(right) == "y" and names(left) != "y":
            left, right = right, left
        if names(left) == "y":
            other = ast.dump(right)
            if other == ast.dump(ast.parse("x", mode="eval").body) or other == ast.dump(ast.parse("bit(x, j)", mode="eval").body):
                return ("eq" if isinstance(op, ast.Eq) else "ne", other)
    return None


def structured_problem(mech: Mechanism, ch: StructuredChannel) -> Problem:
    patterns = [_pattern(c.condition) for c in ch.classes]
    recognized = False
    if len(ch.classes) == 2 and None not in patterns:
        kinds = sorted(p[0] for p in patterns)
        if isinstance(ch.outputs, ElementSpace) and kinds == ["eq", "ne"] and patterns[0][1:] == patterns[1][1:]:
            recognized = True
        if isinstance(ch.outputs, SubsetSpace) and kinds == ["in", "notin"]:
            recognized = True
    if not recognized:
        return _materialized(mech, "structured channel with cohort outputs or unrecognized conditions")
    facts = []
    a, b = ch.classes
    for (i, ci), (j, cj) in (((0, a), (1, b)), ((1, b), (0, a))):
        if ci.weight == 0:
            continue
        facts.append(Fact(ci.weight, cj.weight, (i, j), where=f"channel.classes[{i}].weight"))
    numeric = not any(sp.sympify(e).free_symbols for f in facts for e in (f.num, f.den))
    what = "all d" if isinstance(ch.outputs, ElementSpace) else "all d and k"
    problem = Problem(mech, facts, f"structured classes ({what}): class-weight ratios, rows summing to 1 by sympy identity", numeric)
    problem.notes.append("realized class pairs: (" + a.name + ", " + b.name + ") and (" + b.name + ", " + a.name + ")")
    problem.locate = lambda tag: _locate_classes(mech, ch, tag)
    if numeric:
        problem.best = _best_numeric(facts)
    return problem


def _best_numeric(facts: list[Fact]):
    best = None
    for f in facts:
        ratio = sp.oo if f.den == 0 else sp.simplify(f.num / f.den)
        if best is None or _greater(ratio, best[1]):
            best = (f.tag, ratio)
    return best


def _outputs_lazy(ch: StructuredChannel):
    out = ch.outputs
    if isinstance(out, ElementSpace):
        return range(int(out.size))
    if isinstance(out, SubsetSpace):
        return itertools.combinations(range(int(out.universe)), int(out.k))
    return [(c, v) for c in range(len(out.hash_table)) for v in range(int(out.k))]


def _locate_classes(mech: Mechanism, ch: StructuredChannel, tag, budget: int = 200_000):
    """Concrete x, x', y with y in class tag[0] for x and in class tag[1] for x'."""
    i, j = tag
    inputs = mech.inputs.enumerate()
    work = 0
    for x in inputs:
        for y in _outputs_lazy(ch):
            work += 1
            if work > budget:
                raise Unsupported("no small witness found for the failing class pair")
            if _class_of(mech, ch, x, y) != i:
                continue
            for xp in inputs:
                if xp != x and _class_of(mech, ch, xp, y) == j:
                    return x, xp, y, ""
    raise Unsupported(f"class pair {tag} is not realized by any output")


def _materialized(mech: Mechanism, why: str) -> Problem:
    try:
        ch = mech.materialize()
    except NotMaterializable as exc:
        raise Unsupported(f"{why}: no proof for all sizes; bind the sizes to verify an instance ({exc})") from None
    return explicit_problem(mech, ch, method=f"materialized ({why})")


# --- product channels -----------------------------------------------------------------------


def product_problem(mech: Mechanism, ch: ProductChannel) -> Problem:
    values = sorted({v for v, _ in ch.on.probabilities} | {v for v, _ in ch.off.probabilities})
    coords = sp.sympify(ch.coordinates)
    if coords.is_number and coords < 2:
        problem = Problem(mech, [], "product channel with one coordinate: no two inputs", True, best=None)
        problem.groups = ([], [])
        return problem
    facts = []
    for v, w in itertools.product(values, repeat=2):
        num = ch.on.probability(v) * ch.off.probability(w)
        den = ch.off.probability(v) * ch.on.probability(w)
        if num == 0:
            continue
        facts.append(Fact(num, den, (v, w), where=f"coordinate values ({v}, {w})"))
    groups = (
        [(ch.on.probability(v), ch.off.probability(v)) for v in values if ch.on.probability(v) != 0],
        [(ch.off.probability(w), ch.on.probability(w)) for w in values if ch.off.probability(w) != 0],
    )
    numeric = not any(sp.sympify(e).free_symbols for f in facts for e in (f.num, f.den))
    problem = Problem(
        mech, facts,
        "product channel (all d >= 2): two coordinates change, budgets add up "
        f"({len(facts)} obligations over coordinate values, no 2^d enumeration)",
        numeric, groups=groups,
    )
    problem.locate = lambda tag: _locate_product(mech, ch, tag, values)
    if numeric:
        problem.best = _best_numeric(facts)
    return problem


def _locate_product(mech: Mechanism, ch: ProductChannel, tag, values):
    v, w = tag
    d = int(sp.sympify(ch.coordinates))
    inputs = mech.inputs.enumerate()
    # the other coordinates: any value the off law can produce (they cancel in the ratio)
    filler = max(values, key=lambda val: (ch.off.probability(val) != 0, -values.index(val)))
    y = [filler] * d
    y[0], y[1] = v, w
    text = "" if d <= 8 else f"({v}, {w}, then {filler} in the other {d - 2} coordinates)"
    return inputs[0], inputs[1], tuple(y), text


# --- dispatch -------------------------------------------------------------------------------


def build(mech: Mechanism) -> Problem:
    ch = mech.channel
    if not isinstance(mech.inputs, FiniteDomain):
        raise Unsupported("finite channels need a finite input domain")
    if isinstance(ch, ExplicitChannel):
        return explicit_problem(mech, ch)
    if isinstance(ch, StructuredChannel):
        return structured_problem(mech, ch)
    if isinstance(ch, ProductChannel):
        return product_problem(mech, ch)
    raise Unsupported(f"{ch.form} channels are not finite")
