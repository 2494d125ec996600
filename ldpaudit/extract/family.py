"""A channel generic in the domain size: ``--domain 0..d-1`` with d symbolic.

The input is one symbolic integer x, 0 <= x <= d-1, and a uniform integer draw of symbolic
size (``randrange(d - 1)``) a symbolic integer r of its range with probability 1/(d-1) for each
value (:mod:`ldpaudit.extract.interpreter`). A comparison of x or the draws that the ranges do
not decide splits the path into its two cases (:mod:`ldpaudit.extract.assume`). Each path ends
in an output that is linear in at most one draw (y = r + 1 on the case r >= x): solving it for
the draw gives the path's share of Q(y | x) as weight * [condition(x, y)], the draws it does not
report summed out (they must appear in no condition). So

    Q(y | x) = sum over paths of weight_i * [C_i(x, y)],

with C_i conjunctions of linear integer comparisons. For the class y == x, and again for
y != x, z3 lists every satisfiable cell of the partition the C_i make (under 0 <= x, y <= d-1
and the parameter ranges; linear integer arithmetic, decided exactly); every cell of a class
must give the same probability (an exact identity in the parameters), free of x and y, and
the row must sum to 1 (truth + (d - 1) other = 1, an identity). Then the channel is the
structured element form of k-RR with d symbolic.

A randomizer that returns a sequence read on one generic index i (:mod:`ldpaudit.extract.items`:
OUE, SUE, RAPPOR) is read the same way with i in place of y: each path gives item i the bit b
with weight * [C(x, i)], and for i == x, and again for i != x, every cell must give one law of
the bit, summing to 1; the channel is then the product form with d coordinates. Anything else
stops (exit 3) with the reason and asks for d to be bound; nothing is guessed.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ldpaudit.errors import InvalidParameter, InvalidSpec, Undecided, Unextractable
from ldpaudit.extract.exact import same, tidy
from ldpaudit.extract.methods import Raised
from ldpaudit.extract.paths import Path
from ldpaudit.extract.symbolic import Seq, Stop
from ldpaudit.mechanism.params import Parameter

#: the most cells of one class listed (each a z3 query)
MAX_CELLS = 64
#: z3 work units of one cell query
CELL_RLIMIT = 5_000_000


@dataclass(frozen=True)
class SymbolicDomain:
    """The inputs 0..size-1 with size = ``name`` + ``offset``, a symbolic integer parameter."""

    text: str
    name: str
    offset: int

    def size(self, symbol) -> sp.Basic:
        return symbol + self.offset


def parse_domain_text(text: str, names: list[str], values: dict) -> list | SymbolicDomain:
    """``--domain LO..HI`` whose bounds name parameters: a list when the bound values make it
    concrete, else a :class:`SymbolicDomain` (starting at 0, ending at a parameter plus a
    constant: 0..d-1)."""
    from ldpaudit.mechanism.expr import parse_expression

    where = f"--domain {text!r}"
    low, _, high = text.partition("..")
    symbols = {n: sp.Symbol(n) for n in names}
    symbols.update(values)
    try:
        lo = parse_expression(low.strip(), symbols, field="--domain")
        hi = parse_expression(high.strip(), symbols, field="--domain")
    except InvalidSpec as exc:
        raise InvalidParameter(str(exc)) from None
    if lo.is_Integer and hi.is_Integer:
        if hi <= lo:
            raise InvalidParameter(f"{where}: the range must hold at least two inputs")
        return list(range(int(lo), int(hi) + 1))
    size = sp.expand(hi + 1)
    free = size.free_symbols
    if lo != 0 or len(free) != 1 or not (size - next(iter(free))).is_Integer:
        raise InvalidParameter(f"{where}: a symbolic range starts at 0 and ends at a parameter plus a constant, "
                               "e.g. 0..d-1")
    name = next(iter(free)).name
    return SymbolicDomain(text, name, int(size - sp.Symbol(name)))


@dataclass(frozen=True)
class Term:
    """One path's share of Q(y | x) (of the law of item y, ``value`` its bit, for a returned
    sequence): ``weight`` where every relation of ``condition`` holds."""

    weight: sp.Basic
    condition: tuple
    events: tuple
    value: int | None = None


@dataclass(frozen=True)
class Family:
    """For x in 0..size-1 and every value of the parameters in their ranges: ``form``
    'element', Q(y | x) = ``laws[0]`` if y == x and ``laws[1]`` if y != x (y in 0..size-1);
    'product', y a bit vector of length size, Q(y | x) = prod over i of ``laws[0]``[y_i] if
    i == x, ``laws[1]``[y_i] if not (``y`` is then the generic index i)."""

    size: sp.Basic
    x: sp.Symbol
    y: sp.Symbol
    form: str
    laws: tuple
    terms: tuple
    cells: int

    @property
    def truth(self):
        return self.laws[0] if self.form == "element" else None

    @property
    def other(self):
        return self.laws[1] if self.form == "element" else None

    def expressions(self) -> list:
        laws = self.laws if self.form == "element" else [p for law in self.laws for p in law.values()]
        return [self.size, *laws]


def input_symbol(size: sp.Basic) -> tuple[sp.Symbol, Parameter]:
    """The symbolic input x and its range 0..size-1 (named input_x for z3)."""
    x = sp.Symbol("x", integer=True, nonnegative=True)
    return x, Parameter("input_x", "integer", sp.Integer(0), size - 1)


def run_family(src, interp, randomizer, call_kwargs: dict, x, size, parameters: list[Parameter]) -> tuple[Family, int]:
    """Every path on the symbolic input, the terms, the cells: the family (and the path count)."""
    from ldpaudit.extract.symbolic import unextractable

    y = sp.Symbol("y", integer=True)  # no sign: y >= 0 stays a condition
    terms, count, sequences, indices = [], 0, set(), {}
    prefix: list[int] | None = []
    while prefix is not None:
        path = Path(prefix)
        try:
            out = interp.call_on(path, randomizer, [x], dict(call_kwargs))
        except Raised as exc:
            cases = " and ".join(sp.sstr(c) for c in path.conditions) or "every input"
            names = ", ".join(sorted(str(s) for s in size.free_symbols))
            where = getattr(exc, "file", None) or src.shown_path  # raised in a method of another module
            raise Unextractable(f"{where}:{exc.line or interp.line}: a path raises {exc.text} (on {cases}); "
                                f"not every draw ends in an output for every {names}; bind {names} with --target-arg"
                                ) from None
        try:
            if isinstance(out, Seq):
                sequences.add((out.length, out.index))
                term = _item_term(path, out)
            else:
                sequences.add(None)
                term = _term(path, out, y)
        except Stop as stop:
            raise unextractable(src.shown_path, interp.line, _hint(stop, size)) from None
        if term is not None:
            terms.append(term)
        indices.update(dict(path.indices))
        count += 1
        prefix = path.next_prefix()
    try:
        if sequences == {None}:
            family = _classes(terms, x, y, size, parameters, indices)
        elif len(sequences) == 1:
            length, index = sequences.pop()
            family = _laws(terms, x, index, length, size, parameters, indices)
        else:
            raise Stop("paths that return different kinds of output (one element, sequences over different "
                       "ranges)", "no one channel form holds")
    except Stop as stop:
        raise unextractable(src.shown_path, None, _hint(stop, size)) from None
    return family, count


def _hint(stop: Stop, size) -> Stop:
    names = ", ".join(sorted(str(s) for s in sp.sympify(size).free_symbols))
    why = stop.why + ("; " if stop.why else "") + f"bind {names} with --target-arg for a channel at one size"
    return Stop(stop.construct, why)


def _term(path: Path, out, y) -> Term | None:
    if isinstance(out, bool):
        out = sp.Integer(int(out))
    if not isinstance(out, sp.Basic) or out.is_integer is not True:
        raise Stop(f"the output {_short(out)}", "a randomizer generic in d is read when it returns one element of "
                                                "0..d-1 (the structured element form)")
    draws = {r: (lo, hi, line) for r, lo, hi, line in path.draws}
    weight = path.probability
    conditions = list(path.conditions)
    reported = out.free_symbols & set(draws)
    if len(reported) > 1:
        raise Stop(f"the output {sp.sstr(out)}", "combines several draws of symbolic size")
    if reported:
        r = reported.pop()
        a = sp.diff(out, r)
        b = sp.expand(out - a * r)
        if a not in (1, -1) or b.free_symbols & set(draws):
            raise Stop(f"the output {sp.sstr(out)}", f"is not the draw {r} plus a shift")
        value = sp.expand((y - b) / a)
        lo, hi, _ = draws.pop(r)
        conditions = [c.xreplace({r: value}) for c in conditions] + [sp.Ge(value, lo), sp.Lt(value, hi)]
    else:
        conditions.append(sp.Eq(y, out))
    return _summed(path, draws, conditions, weight)


def _item_term(path: Path, seq: Seq) -> Term | None:
    """A path's share of the law of the generic item of a returned sequence: its bit."""
    if path.shared:
        raise Stop(f"the draw at line {path.shared[0]}", "is made once for all the items of the returned sequence; "
                                                         "they would not be independent")
    value = sp.Integer(int(seq.item)) if isinstance(seq.item, bool) else seq.item
    if not (isinstance(value, sp.Basic) and value in (0, 1)):
        raise Stop(f"the item {_short(value)} of the returned sequence", "items are read when they are bits 0 or 1 "
                                                                        "(the product form)")
    draws = {r: (lo, hi, line) for r, lo, hi, line in path.draws}
    term = _summed(path, draws, list(path.conditions), path.probability)
    return None if term is None else Term(term.weight, term.condition, term.events, int(value))


def _summed(path: Path, draws: dict, conditions: list, weight) -> Term | None:
    """The term of a path: the draws it does not report summed out (or pinned by an equality)."""
    for r in list(draws):  # drawn, not reported, pinned by an equality (r1 == x): one value
        pinned = next((v for c in conditions if (v := _pinned(c, r, draws)) is not None), None)
        if pinned is not None:
            lo, hi, _ = draws.pop(r)
            conditions = [c.xreplace({r: pinned}) for c in conditions] + [sp.Ge(pinned, lo), sp.Lt(pinned, hi)]
    for r, (lo, hi, line) in draws.items():  # drawn and not reported: each of its hi - lo values
        if any(r in sp.sympify(c).free_symbols for c in conditions) or weight.has(r):
            raise Stop(f"the draw at line {line}", "is compared or used but not reported; its count of values is "
                                                   "not read generically")
        weight = weight * (hi - lo)
    if weight.free_symbols & {r for r, *_ in path.draws}:
        raise Stop("a probability that depends on a draw of symbolic size")
    kept = []
    for c in conditions:
        if c is sp.false:
            return None
        if c is not sp.true:
            kept.append(c)
    return Term(sp.cancel(weight), tuple(kept), tuple(path.events))


def _pinned(c, r, draws: dict):
    """The value an equality ``c`` gives the draw r (r == x + 1), if it is r plus a shift free
    of the draws; else None."""
    if not isinstance(c, sp.Eq) or r not in c.free_symbols:
        return None
    diff = sp.expand(c.lhs - c.rhs)
    a = sp.diff(diff, r)
    rest = sp.expand(diff - a * r)
    if a not in (1, -1) or rest.free_symbols & set(draws):
        return None
    return sp.expand(-rest / a)


def _short(v) -> str:
    text = sp.sstr(v) if isinstance(v, sp.Basic) else type(v).__name__
    return text if len(text) <= 40 else text[:37] + "..."


class _Cells:
    """z3 over x, y and the integer parameters, every variable and numeral an integer
    (:mod:`ldpaudit.extract.lia`): the cells are questions of linear integer arithmetic."""

    def __init__(self, x, y, size, parameters, indices: dict, *, bounded_y: bool):
        from ldpaudit.extract.lia import Integers, NotInteger

        self.ints = Integers()
        self.shown = [x, y]
        self.base = []
        try:
            for p in parameters:
                if p.kind != "integer":
                    continue
                self.shown.append(p.symbol)
                for bound, op, strict in ((p.lower, ">=", p.lower_strict), (p.upper, "<=", p.upper_strict)):
                    if bound is not None:
                        self.base.append(self.ints.relation(p.symbol, op[:1] if strict else op, bound))
            self.base += [self.ints.relation(x, ">=", 0), self.ints.relation(x, "<=", size - 1)]
            if bounded_y:
                self.base += [self.ints.relation(y, ">=", 0), self.ints.relation(y, "<=", size - 1)]
            for i, length in indices.items():  # the generic index of each loop over a symbolic range
                self.base += [self.ints.relation(i, ">=", 0), self.ints.relation(i, "<=", length - 1)]
            self.outside = self.holds(sp.Or(sp.Lt(y, 0), sp.Gt(y, size - 1)))
        except NotInteger as exc:
            raise Stop("the ranges of the integer parameters", f"are not integer arithmetic ({exc})") from None

    def holds(self, conditions):
        from ldpaudit.extract.lia import NotInteger

        try:
            return self.ints.holds(sp.And(*conditions) if isinstance(conditions, (list, tuple)) else conditions)
        except NotInteger as exc:
            raise Stop("a condition of Q(y|x)", f"is not integer arithmetic ({exc})") from None

    def check(self, formulas):
        from ldpaudit.extract.lia import check

        out = check(self.base + formulas, CELL_RLIMIT)
        if out.result == "unknown":
            raise Stop("the cells of Q(y|x)", f"z3 could not list them within its budget ({out.reason})")
        return out

    def point(self, model) -> str:
        return ", ".join(f"{s.name}={self.ints.value(model, s)}" for s in self.shown if s in self.ints.vars)


def _classes(terms: list[Term], x, y, size, parameters: list[Parameter], indices: dict) -> Family:
    import z3

    outside = _Cells(x, y, size, parameters, indices, bounded_y=False)
    for t in terms:
        found = outside.check([outside.holds(t.condition), outside.outside])
        if found.result == "sat":
            raise Stop(f"the output at {outside.point(found.model)}",
                       f"lies outside the domain 0..{sp.sstr(size - 1)} (the structured element form has the outputs "
                       "of the inputs)")
    cells = _Cells(x, y, size, parameters, indices, bounded_y=True)
    flags = [z3.Bool(f"path_{i}") for i in range(len(terms))]
    defs = [f == cells.holds(t.condition) for f, t in zip(flags, terms)]
    weights, listed = {}, 0
    for name, relation in (("truth", sp.Eq(y, x)), ("other", sp.Ne(y, x))):
        found = []
        for on, model in _cases(cells, flags, defs, relation):
            total = sp.Add(*(t.weight for t, v in zip(terms, on) if v))
            found.append((total, cells.point(model)))
            if len(found) > MAX_CELLS:
                raise Stop(f"Q(y|x) on {name} outputs", f"falls into more than {MAX_CELLS} cases")
        listed += len(found)
        if not found:
            weights[name] = sp.Integer(0)
            continue
        first, at = found[0]
        if first.free_symbols & {x, y}:
            raise Stop(f"Q(y|x) = {sp.sstr(first)} (at {at})", "depends on x or y beyond y == x / y != x")
        for total, where in found[1:]:
            if not same(total, first):
                raise Stop(f"Q(y|x) on {'y == x' if name == 'truth' else 'y != x'}",
                           f"is {sp.sstr(first)} at {at} but {sp.sstr(total)} at {where}, not one class weight")
        weights[name] = first
    truth, other = tidy(weights["truth"]), tidy(weights["other"])
    if not same(truth + (size - 1) * other, 1):
        total = sp.simplify(truth + (size - 1) * other)
        raise Undecided(f"the rows of the channel generic in d sum to {sp.sstr(total)}, which could not be shown "
                        "to be 1 exactly; no channel is emitted (bind d, or audit the code)")
    return Family(size, x, y, "element", (truth, other), tuple(terms), listed)


def _laws(terms: list[Term], x, i, length, size, parameters: list[Parameter], indices: dict) -> Family:
    """The product form: the law of item i is one law when i == x and another when i != x,
    every cell of each giving the same law, summing to 1."""
    import z3

    if not same(length, size):
        raise Stop(f"a returned sequence of {sp.sstr(length)} items on the domain 0..{sp.sstr(size - 1)}",
                   "the product form has one coordinate per input")
    cells = _Cells(x, i, size, parameters, {k: v for k, v in indices.items() if k != i}, bounded_y=True)
    flags = [z3.Bool(f"path_{k}") for k in range(len(terms))]
    defs = [f == cells.holds(t.condition) for f, t in zip(flags, terms)]
    laws, listed = [], 0
    for name, relation in (("i == x", sp.Eq(i, x)), ("i != x", sp.Ne(i, x))):
        first = None
        for on, model in _cases(cells, flags, defs, relation):
            law = {b: sp.Add(*(t.weight for t, v in zip(terms, on) if v and t.value == b)) for b in (0, 1)}
            at = cells.point(model)
            listed += 1
            if listed > 2 * MAX_CELLS:
                raise Stop("the laws of the items", f"fall into more than {2 * MAX_CELLS} cases")
            if (law[0] + law[1]).free_symbols & {x, i} or not same(law[0] + law[1], 1):
                raise Stop(f"the law of item i at {at}", f"sums to {sp.sstr(sp.simplify(law[0] + law[1]))}, not 1")
            if first is None:
                if law[1].free_symbols & {x, i}:
                    raise Stop(f"P(item = 1) = {sp.sstr(law[1])} (at {at})", "depends on i or x beyond i == x / i != x")
                first = (law, at)
            elif not same(law[1], first[0][1]):
                raise Stop(f"the law of item i on {name}", f"gives 1 w.p. {sp.sstr(first[0][1])} at {first[1]} but "
                                                           f"{sp.sstr(law[1])} at {at}, not one law")
        if first is None:
            raise Stop(f"the items with {name}", "have no case")  # d >= 2: never
        laws.append({b: tidy(p) for b, p in first[0].items()})
    return Family(size, x, i, "product", tuple(laws), tuple(terms), listed)


def _cases(cells, flags: list, defs: list, relation):
    """Each case of the paths' conditions that ``relation`` allows: which paths hold there (one
    bool per flag) and a model of it, until z3 finds no other (the caller bounds how many)."""
    import z3

    blocks = []
    while True:
        out = cells.check(defs + [cells.holds(relation)] + blocks)
        if out.result == "unsat":
            return
        on = [z3.is_true(out.model.eval(f, model_completion=True)) for f in flags]
        blocks.append(z3.Or([f != z3.BoolVal(v) for f, v in zip(flags, on)]))
        yield on, out.model


def paths_at(family: Family, x: int, y: int, params: dict, value: int | None = None) -> list[tuple]:
    """The terms of a family that give output y on input x (for a returned sequence: item y
    equal to ``value``) at the parameter values ``params`` (name -> value): (weight, events)."""
    subs = {family.x: sp.Integer(x), family.y: sp.Integer(y)}
    for t in family.terms:
        for c in t.condition:
            subs.update({s: sp.sympify(params[s.name]) for s in c.free_symbols if s.name in params})
    out = []
    for t in family.terms:
        if value is not None and t.value != value:
            continue
        values = [c.xreplace(subs) for c in t.condition]
        if all(v is sp.true for v in values):
            weight = t.weight.xreplace({s: sp.sympify(params[s.name]) for s in t.weight.free_symbols
                                        if s.name in params and s.is_integer})
            out.append((weight, t.events))
    return out

