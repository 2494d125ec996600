"""Parameter ranges of an extraction, and the exact decisions made under them.

``--assume 'd>=2' --assume '0<f<1'`` is read by the spec language's safe expression parser
(:func:`~ldpaudit.mechanism.expr.parse_predicate`, never ``eval``): each comparison bounds one
parameter by a number or an expression of the others, and the ranges are the spec's parameter
declarations. Without one, a parameter keeps its default range: an integer one (its default is
an int: a size, a count) is at least 1, a real one (ε, a probability) is positive; a symbolic
domain ``0..d-1`` holds at least two inputs (``--domain`` refuses fewer), so d >= 2.

A comparison of symbolic values is decided for every value in the ranges (and, on a symbolic
input, under the conditions of the path's case splits): first by sympy's sign rules, then by
z3 through :mod:`ldpaudit.verify.smt` (exponentials e^(ε/L) as variables u > 1, integer
parameters relaxed to reals and then kept integer), within a budget of z3 work units. It is
true when its negation is unsatisfiable, false when it is; otherwise either it is a linear
comparison of the symbolic input or draws, and the path splits into both cases, or the
extraction stops naming the comparison, a point where it holds, one where it fails, and what
to assume or bind. Nothing is sampled.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from ldpaudit.errors import InvalidParameter, InvalidSpec
from ldpaudit.extract.symbolic import Stop
from ldpaudit.mechanism.params import Parameter

#: z3 work units (rlimit) of one decision query: a comparison of a randomizer's branch
RLIMIT = 2_000_000
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


@dataclass(frozen=True)
class Bound:
    """One side of a parameter's range, as ``--assume`` wrote it."""

    name: str
    lower: bool
    value: sp.Basic
    strict: bool
    text: str


def parse_assumptions(texts, names: list[str], values: dict | None = None) -> list[Bound]:
    """The bounds of ``--assume`` texts over the symbolic parameters ``names`` (exit 2 naming
    the text otherwise): comparisons, chained or joined by ``and``, each of one parameter with a
    number or an expression of the other parameters. ``values``: the bound parameters, read as
    their values (a comparison they make true is dropped; one they make false is refused)."""
    values = {sp.Symbol(n): v for n, v in (values or {}).items()}
    symbols = {n: sp.Symbol(n) for n in list(names) + [s.name for s in values]}  # 0 < f stays a comparison
    out: list[Bound] = []
    for text in texts or []:
        where = f"--assume {text!r}"
        try:
            relation = _parse(text, symbols, where)
        except InvalidSpec as exc:
            raise InvalidParameter(str(exc)) from None
        for atom in relation.args if isinstance(relation, sp.And) else (relation,):
            if getattr(atom, "free_symbols", set()) & set(values):
                atom = atom.xreplace(values)
                if atom is sp.true:
                    continue  # holds at the values bound by --target-arg
                if atom is sp.false:
                    raise InvalidParameter(f"{where}: false at the values bound by --target-arg; fix one of them")
            out.append(_bound(atom, symbols, where, text))
    seen: dict = {}
    for b in out:
        key = (b.name, b.lower)
        if key in seen:
            raise InvalidParameter(f"--assume {b.text!r}: {b.name} has two {'lower' if b.lower else 'upper'} bounds "
                                   f"({seen[key]!r} and {b.text!r}); give one")
        seen[key] = b.text
    return out


def _parse(text, symbols, where):
    from ldpaudit.mechanism.expr import parse_predicate

    if not isinstance(text, str) or not text.strip():
        raise InvalidParameter(f"{where}: give a range such as --assume 'd>=2' or --assume '0<f<1'")
    return parse_predicate(text, symbols, field="--assume")


def _bound(atom, symbols: dict, where: str, text: str) -> Bound:
    if atom in (sp.true, sp.false):
        raise InvalidParameter(f"{where}: the comparison is always {'true' if atom is sp.true else 'false'}; "
                               "bound a parameter, e.g. --assume 'd>=2'")
    if not isinstance(atom, sp.core.relational.Relational) or atom.rel_op not in _FLIP:
        what = "== binds a value: use --target-arg NAME=VALUE" if isinstance(atom, (sp.Eq, sp.Ne)) else \
            "only comparisons <, <=, >, >= joined by 'and' are read"
        raise InvalidParameter(f"{where}: {what}")
    lhs, op, rhs = atom.lhs, atom.rel_op, atom.rhs
    if not (lhs.is_Symbol and lhs not in rhs.free_symbols):
        if rhs.is_Symbol and rhs not in lhs.free_symbols:
            lhs, op, rhs = rhs, _FLIP[op], lhs
        else:
            raise InvalidParameter(f"{where}: each comparison must bound one parameter by a number or the other "
                                   f"parameters, e.g. --assume 'd>=2' or --assume '0<f<1' (parameters: "
                                   f"{', '.join(sorted(symbols)) or 'none'})")
    return Bound(lhs.name, op in (">", ">="), rhs, op in ("<", ">"), text)


def ranges(params: list[tuple[str, str]], bounds: list[Bound], *, size: tuple[str, sp.Basic] | None = None
           ) -> tuple[dict[str, Parameter], list[str]]:
    """The declared range of each (name, kind) parameter: the defaults (an integer >= 1, a real
    > 0) with the ``--assume`` bounds in place of the side they give; ``size`` = (name, c)
    for a symbolic domain 0..name+c-1, which holds at least two inputs. Returns the ranges and
    notes on the defaults that were raised."""
    kinds = dict(params)
    for b in bounds:
        if b.name not in kinds:
            raise InvalidParameter(f"--assume {b.text!r}: {b.name} is not a symbolic parameter of the target "
                                   f"(symbolic: {', '.join(kinds) or 'none'}; a bound one has its value)")
    symbols = {}
    out: dict[str, Parameter] = {}
    notes: list[str] = []
    for name, kind in params:
        lower, strict = (sp.Integer(1), False) if kind == "integer" else (sp.Integer(0), True)
        upper, upper_strict = None, False
        for b in bounds:
            if b.name == name and b.lower:
                lower, strict = b.value, b.strict
            elif b.name == name:
                upper, upper_strict = b.value, b.strict
        if size is not None and size[0] == name:
            need = 2 - size[1]
            least = sp.floor(lower) + 1 if lower.is_number and strict else sp.ceiling(lower)
            if lower.is_number and least < need:
                notes.append(f"{name} >= {need}: the domain 0..{sp.sstr(sp.Symbol(name) + size[1] - 1)} holds "
                             "at least two inputs")
                lower, strict = sp.Integer(need), False
            elif not lower.is_number:
                raise InvalidParameter(f"--assume: the symbolic domain needs a numeric lower bound on {name} "
                                       f"(at least {need}); give e.g. --assume '{name}>={need}'")
        out[name] = Parameter(name, kind, lower, upper, lower_strict=strict, upper_strict=upper_strict)
        symbols[name] = out[name].symbol
    # bounds name the other parameters by their declared symbols
    fixed = {}
    for name, p in out.items():
        rename = {sp.Symbol(n): s for n, s in symbols.items()}
        fixed[name] = Parameter(name, p.kind, _xr(p.lower, rename), _xr(p.upper, rename),
                                lower_strict=p.lower_strict, upper_strict=p.upper_strict)
    return fixed, notes


def _xr(value, rename):
    return None if value is None else sp.sympify(value).xreplace(rename)


def consistent(parameters: list[Parameter]) -> None:
    """Exit 2 when the ranges leave no value (d >= 5 and d <= 3): every comparison would
    then be 'decided' both ways."""
    import z3

    from ldpaudit.verify import smt

    if not parameters:
        return
    try:
        enc = smt.Encoder(parameters, [b for p in parameters for b in (p.lower, p.upper) if b is not None],
                          integers=True)
        for p in parameters:
            enc.var(p.symbol)
        outcome = smt.check(enc.constraints() + [z3.BoolVal(True)], rlimit=RLIMIT)
    except smt.Unsupported:
        return
    if outcome.result == "unsat":
        shown = ", ".join(p.describe() for p in parameters)
        raise InvalidParameter(f"--assume: the ranges {shown} hold for no value; fix the bounds")


@dataclass
class Outcome:
    """A decision: True or False, or None with points where it holds and where it fails."""

    value: bool | None
    holds: dict = field(default_factory=dict)
    fails: dict = field(default_factory=dict)
    reason: str = ""


class Decider:
    """Decides comparisons of symbolic values under the declared ranges and, on a symbolic
    input, the current path's case splits and draws (``path``). ``program``: the symbolic input
    x and its range (a Parameter named input_x); ``split(a, op, b)``: the interpreter's case
    split, set when the domain is symbolic."""

    def __init__(self, parameters: list[Parameter], *, program: dict | None = None):
        self.parameters = list(parameters)
        self.program = dict(program or {})
        self.path = None
        self.split = None
        self.queries = 0
        self._cache: dict = {}

    # -- the question --

    def compare(self, a, op: str, b) -> bool:
        diff = sp.sympify(a) - sp.sympify(b)
        outcome = self.decide(diff, op)
        if outcome.value is not None:
            return outcome.value
        if self.split is not None and self.splittable(diff):
            return self.split(a, op, b)
        raise Stop(f"the comparison {sp.sstr(a)} {op} {sp.sstr(b)}", self._why(outcome, diff, op))

    def index(self, start, stop):
        """``range(start, stop)`` of symbolic size on a symbolic domain: a sequence whose item is
        the generic index i of the path, 0 <= i < stop - start (:mod:`ldpaudit.extract.items`)."""
        from ldpaudit.extract.symbolic import Seq

        length = sp.sympify(stop) - sp.sympify(start)
        if not self.compare(length, ">=", 1):
            raise Stop(f"range({sp.sstr(start)}, {sp.sstr(stop)}) is empty", "no item to read")
        i = sp.Symbol(f"i{len(self.path.indices) + 1}", integer=True)
        self.path.indices.append((i, length))
        return Seq(length, i, sp.sympify(start) + i)

    def splittable(self, diff) -> bool:
        """A comparison of the symbolic input or draws, linear and over integers only: its two
        cases are cells of linear integer arithmetic (:mod:`ldpaudit.extract.family`)."""
        free = diff.free_symbols
        program = set(self._program_params())
        if not free & program or not all(s.is_integer for s in free):
            return False
        try:
            return sp.Poly(diff, *sorted(free, key=str)).total_degree() <= 1
        except sp.PolynomialError:
            return False

    def decide(self, diff, op: str) -> Outcome:
        conditions = tuple(self.path.conditions) if self.path is not None else ()
        draws = tuple(self.path.draws) if self.path is not None else ()
        indices = tuple(self.path.indices) if self.path is not None else ()
        key = (diff, op, conditions, tuple(d[:3] for d in draws), indices)
        if key not in self._cache:
            outcome = self._integers(diff, op, conditions)
            self._cache[key] = outcome if outcome is not None else self._encoded(diff, op, conditions)
        return self._cache[key]

    def _integers(self, diff, op: str, conditions) -> Outcome | None:
        """The question in integer arithmetic when every symbol in it is an integer (the input,
        draws, sizes): exact for linear comparisons. None when it is not such a question."""
        import z3

        from ldpaudit.extract.lia import Integers, NotInteger, check

        ranges = self._ranges()
        todo = set(diff.free_symbols).union(*(c.free_symbols for c in conditions))
        if not todo or not all(s.is_integer for s in todo):
            return None
        ints, base, done = Integers(), [], set()
        try:
            while todo:
                s = todo.pop()
                done.add(s)
                for bound, op_, strict in ranges.get(s, ()):
                    base.append(ints.relation(s, op_[:1] if strict else op_, bound))
                    todo |= set(bound.free_symbols) - done
            base += [ints.holds(c) for c in conditions]
            target = ints.relation(diff, op)
        except NotInteger:
            return None
        self.queries += 2
        no = check(base + [z3.Not(target)], RLIMIT)
        if no.result == "unsat":
            return Outcome(True)
        yes = check(base + [target], RLIMIT)
        if yes.result == "unsat":
            return Outcome(False)
        if yes.result == "sat" and no.result == "sat":
            shown = [s for s in done if s.name in {p.name for p in self.parameters}]
            return Outcome(None, {s.name: (s.name, ints.value(yes.model, s)) for s in shown},
                           {s.name: (s.name, ints.value(no.model, s)) for s in shown})
        return Outcome(None, reason="z3 could not decide it within its budget")

    def _ranges(self) -> dict:
        """symbol -> [(bound, '>=' or '<=', strict)] of the declared parameters, the input and
        the path's draws."""
        out: dict = {}
        for p in self.parameters:
            for bound, op, strict in ((p.lower, ">=", p.lower_strict), (p.upper, "<=", p.upper_strict)):
                if bound is not None:
                    out.setdefault(p.symbol, []).append((sp.sympify(bound), op, strict))
        for sym, p in self._program_params(renamed=False).items():
            out[sym] = [(p.lower, ">=", False), (p.upper, "<=", False)]
        return out

    def _encoded(self, diff, op: str, conditions) -> Outcome:
        """The question through :class:`ldpaudit.verify.smt.Encoder` (exponentials, roots, logs
        as variables): integer parameters relaxed to reals, then kept integer."""
        import z3

        from ldpaudit.verify import smt

        program = self._program_params()
        rename = {s: p.symbol for s, p in program.items()}
        params = self.parameters + list(program.values())
        diff_r = diff.xreplace(rename)
        conds_r = [c.xreplace(rename) for c in conditions]
        exprs = [diff_r] + [e for c in conds_r for e in (c.lhs, c.rhs)] + \
            [b for p in params for b in (p.lower, p.upper) if b is not None]
        integers = any(s.is_integer for s in diff.free_symbols) or bool(conditions)
        last = Outcome(None)
        for keep_integers in ((False, True) if integers else (False,)):
            try:
                enc = smt.Encoder(params, exprs, integers=keep_integers)
                target = _target(enc, diff_r, op)
                base = [enc.z3_bool(c) for c in conds_r]
                base = enc.constraints() + base + target[1]
            except (smt.Unsupported, InvalidSpec, TypeError, ValueError) as exc:
                return Outcome(None, reason=f"it is not encodable exactly ({exc})")
            self.queries += 2
            no = smt.check(base + [z3.Not(target[0])], rlimit=RLIMIT)
            if no.result == "unsat":
                return Outcome(True)
            yes = smt.check(base + [target[0]], rlimit=RLIMIT)
            if yes.result == "unsat":
                return Outcome(False)
            if yes.result == "sat" and no.result == "sat":
                last = Outcome(None, _point(enc, yes.model, params), _point(enc, no.model, params))
            elif last.reason == "" and not last.holds:
                last = Outcome(None, reason="z3 could not decide it within its budget")
        return last

    def _program_params(self, renamed: bool = True) -> dict:
        """symbol -> Parameter (named input_x, draw_r1) of the input and the path's draws; their
        bounds in the renamed symbols (for the Encoder) unless ``renamed`` is False."""
        out = dict(self.program)
        for sym, lo, hi, _line in (self.path.draws if self.path is not None else []):
            out[sym] = Parameter(f"draw_{sym.name}", "integer", sp.sympify(lo), sp.sympify(hi - 1))
        for sym, length in (self.path.indices if self.path is not None else []):
            out[sym] = Parameter(f"index_{sym.name}", "integer", sp.Integer(0), sp.sympify(length - 1))
        if not renamed:
            return out
        rename = {s: p.symbol for s, p in out.items()}
        return {s: Parameter(p.name, "integer", _xr(p.lower, rename), _xr(p.upper, rename)) for s, p in out.items()}

    # -- the message --

    def _why(self, outcome: Outcome, diff, op: str) -> str:
        names = sorted(str(s) for s in diff.free_symbols if s not in self._program_params())
        declared = [p for p in self.parameters if p.name in names]
        scope = ", ".join(p.describe() for p in declared)
        text = f"cannot be decided exactly for every value of {scope}" if scope else "cannot be decided exactly"
        if outcome.holds and outcome.fails:
            text += f" (it holds at {_shown(outcome.holds)} and fails at {_shown(outcome.fails)})"
        elif outcome.reason:
            text += f" ({outcome.reason})"
        if not names:
            return text + " (the numbers are too close to compare exactly)"
        hint = self._hint(declared, diff, op)
        return (f"{text}; narrow the range with --assume{hint} or bind {', '.join(names)} with --target-arg")

    def _hint(self, declared: list[Parameter], diff, op: str) -> str:
        """A range that decides the comparison, tried exactly: an integer parameter's lower bound
        raised by one (k-RR's keep branch, undecided at d = 1, is decided for d >= 2)."""
        for p in declared:
            if p.kind != "integer" or p.lower is None or not p.lower.is_number:
                continue
            low = sp.floor(p.lower) + 1 if p.lower_strict else sp.ceiling(p.lower)
            raised = Parameter(p.name, "integer", low + 1, p.upper, upper_strict=p.upper_strict)
            if raised.symbol != p.symbol:
                continue
            trial = Decider([raised if q is p else q for q in self.parameters], program=self.program)
            trial.path = self.path
            if trial.decide(diff, op).value is not None:
                return f" (e.g. --assume '{p.name}>={low + 1}')"
        return ""


def _target(enc, diff, op: str):
    """``diff op 0`` as a z3 formula, its denominator cleared: (term, side conditions)."""
    from ldpaudit.verify.smt import fraction

    num, den = fraction(enc.poly(diff))
    if den.is_number:
        s = 1 if den > 0 else -1
        return _cmp(enc.z3(num) * s, op), []
    dz = enc.z3(den)
    return _cmp(enc.z3(num) * dz, op), [dz != 0]


def _cmp(term, op: str):
    return {"<": term < 0, "<=": term <= 0, ">": term > 0, ">=": term >= 0, "==": term == 0, "!=": term != 0}[op]


def _point(enc, model, params) -> dict:
    """Values of the declared parameters at a model (e^(p/L) shown as such when p is only
    read through its exponential); the symbolic input and draws are left out."""
    out = {}
    for a in enc.atoms:
        if a.kind == "u":
            s, L = a.data
            v = model_value(model, enc.var(a.symbol))
            if v is not None:
                out[s.name] = (f"exp({s.name})" if L == 1 else f"exp({s.name}/{L})", v)
    for p in params:
        if p.name.startswith(("input_", "draw_", "index_")) or p.name in out:
            continue
        if p.symbol in enc._vars:
            v = model_value(model, enc.var(p.symbol))
            if v is not None:
                out[p.name] = (p.name, v)
    return out


def model_value(model, v):
    """A model's value of a z3 variable, exact for integers and rationals (else approximate)."""
    import z3

    from ldpaudit.verify import smt

    value = model.eval(v, model_completion=True)
    if z3.is_int_value(value):
        return sp.Integer(value.as_long())
    found = smt.model_value(model, v)
    return None if found is None else sp.Rational(found.numerator, found.denominator)


def _shown(point: dict) -> str:
    return ", ".join(f"{label} = {value}" for _, (label, value) in sorted(point.items()))
