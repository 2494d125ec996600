"""Ratio obligations and the z3 queries that discharge them.

Every finite proof in this package ends in the same shape: a list of :class:`Fact`
obligations ``num <= e^claim * den`` (ratio facts) or ``num <= den`` (ordering facts), over
the mechanism's free parameters. :func:`decide` clears denominators exactly — after proving
that none of them can vanish — and asks z3 whether any obligation can fail.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import sympy as sp
import z3

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism.params import Parameter
from ldpaudit.verify import smt
from ldpaudit.verify.smt import Encoder, Unsupported, fraction
from ldpaudit.render.text import sstr


@dataclass(frozen=True)
class Fact:
    """The obligation ``num <= e^claim * den`` (``scaled``) or ``num <= den`` (an ordering fact).

    ``tag`` says where it comes from (an output column, a pair of classes, a pair of
    coordinate values) so a failing fact can be turned into a concrete witness; ``where``
    names it for error messages."""

    num: sp.Basic
    den: sp.Basic
    tag: object
    scaled: bool = True
    where: str = ""


@dataclass
class Query:
    description: str
    smt2: object  # smt.Script: str() gives the SMT-LIB text
    expected: str  # what z3 must answer for the verdict to stand ('unsat')
    result: str


@dataclass
class Decision:
    """z3's answer about a list of facts: 'unsat' means every fact holds."""

    result: str
    failing: list = field(default_factory=list)
    reason: str = ""
    model_params: dict = field(default_factory=dict)
    queries: list[Query] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _param_values(enc: Encoder, model: z3.ModelRef) -> dict:
    """Parameter values suggested by a model (u = e^(p/L) turned back into p, approximately)."""
    out = {}
    for a in enc.atoms:
        if a.kind == "u":
            s, L = a.data
            v = smt.model_value(model, enc.var(a.symbol))
            if v is not None and v > 0:
                out[s.name] = ("exp", v, L)
    for p in enc.parameters:
        if p.symbol in enc._vars and p.name not in out:
            v = smt.model_value(model, enc.var(p.symbol))
            if v is not None:
                out[p.name] = ("value", v, 1)
    return out


def _admissible(parameters: Sequence[Parameter], point: dict) -> bool:
    """Whether ``point`` (parameter name -> exact value) is shown to satisfy every declared
    bound (z3 sees some bounds only through an enclosure, a relaxation)."""
    for p in parameters:
        value = point.get(p.name)
        if value is None:
            continue
        for bound, strict, below in ((p.lower, p.lower_strict, False), (p.upper, p.upper_strict, True)):
            if bound is None:
                continue
            gap = bound - value if below else value - bound
            ok = gap.is_positive if strict else gap.is_nonnegative
            if ok is not True:
                return False
    return True


def _sign_known(d: sp.Basic) -> int | None:
    if d.is_Rational:
        return 1 if d > 0 else -1 if d < 0 else 0
    if d.is_positive:
        return 1
    if d.is_negative:
        return -1
    return None


def decide(
    parameters: Sequence[Parameter],
    facts: Sequence[Fact],
    claim_exp: sp.Basic | None,
    *,
    rlimit: int | None = smt.DEFAULT_RLIMIT,
    label: str = "",
    extra: Sequence[sp.Basic] = (),
    bits: int = 96,
    integers: bool = False,
) -> Decision:
    """Can any fact fail for admissible parameters? 'unsat' = all hold (a proof)."""
    import time

    start = time.perf_counter()
    exprs = [e for f in facts for e in (f.num, f.den)] + ([claim_exp] if claim_exp is not None else []) + list(extra)
    for p in parameters:
        exprs += [b for b in (p.lower, p.upper) if b is not None]
    try:
        enc = Encoder(parameters, exprs, bits=bits, integers=integers)
        decision = _decide_once(enc, facts, claim_exp, rlimit=rlimit, label=label)
    except Unsupported as exc:
        return Decision("unknown", reason=f"not encodable exactly: {exc}", seconds=time.perf_counter() - start)
    decision.notes += enc.notes
    decision.seconds = time.perf_counter() - start
    decision.encoder = enc  # type: ignore[attr-defined]
    return decision


def _has_enclosures(enc: Encoder) -> bool:
    return any(a.kind in ("exp", "log", "root", "rpow") for a in enc.atoms)


def _decide_once(enc: Encoder, facts, claim_exp, *, rlimit, label) -> Decision:
    if claim_exp is not None:
        cn, cd = fraction(enc.poly(claim_exp))
    else:
        cn = cd = sp.Integer(1)
    cleared = []  # (fact, lhs, rhs, unknown-sign denominators, sign of known part)
    dens: dict[sp.Basic, Fact] = {}
    split_cache: dict = {}
    for f in facts:
        key = (f.num, f.den, f.scaled)
        if key not in split_cache:
            an, ad = fraction(enc.poly(f.num))
            bn, bd = fraction(enc.poly(f.den))
            if f.scaled:
                lhs, rhs, ds = (an, bd, cd), (cn, bn, ad), (ad, bd, cd)
            else:
                lhs, rhs, ds = (an, bd), (bn, ad), (ad, bd)
            split_cache[key] = (lhs, rhs, ds)
        lhs, rhs, ds = split_cache[key]
        sign = 1
        unknown = []
        for d in ds:
            s = _sign_known(d)
            if s is None:
                unknown.append(d)
                dens.setdefault(d, f)
            elif s == 0:
                raise InvalidSpec(f"{f.where or 'an entry'}: division by zero (denominator {enc.back(d)})")
            else:
                sign *= s
        cleared.append((f, lhs, rhs, unknown, sign))

    shown = [f"obligation: {sstr(f.num)} <= {'e^claim * ' if f.scaled else ''}{sstr(f.den)}" for f in facts[:6]]
    if len(facts) > 6:
        shown.append(f"... and {len(facts) - 6} more obligations")
    if claim_exp is not None:
        shown.append(f"e^claim = {sstr(claim_exp)}")
    legend = "\n".join(shown + ([enc.legend()] if enc.legend() else []))
    queries: list[Query] = []
    if dens:
        terms = {d: enc.z3(d) for d in dens}
        domain = enc.constraints()
        out = smt.check(domain + [z3.Or([t == 0 for t in terms.values()])], rlimit=rlimit, comment=f"{label}: no denominator vanishes\n{legend}")
        queries.append(Query("no denominator can vanish", out.smt2, "unsat", out.result))
        if out.result == "sat":
            for d, t in terms.items():
                if z3.is_true(out.model.eval(t == 0, model_completion=True)):
                    point = {k: _pretty_value(v) for k, v in _param_values(enc, out.model).items()}
                    f = dens[d]
                    if not _admissible(enc.parameters, point):  # only in a bound's relaxation: not shown
                        return Decision("unknown", queries=queries, reason=(
                            f"could not prove the denominator {enc.back(d)} non-zero: z3 found a zero at "
                            f"{', '.join(f'{k} = {v}' for k, v in point.items())}, not shown to be within the "
                            f"declared ranges"))
                    raise smt.nonvanishing_error(f.where or "an entry", enc.back(d), point)
        if out.result == "unknown":
            return Decision("unknown", reason=f"could not prove the denominators non-zero: {out.reason}", queries=queries)

    violations = []
    for f, lhs, rhs, unknown, sign in cleared:
        lz = z3.Product([enc.z3(a) for a in lhs]) if len(lhs) > 1 else enc.z3(lhs[0])
        rz = z3.Product([enc.z3(a) for a in rhs]) if len(rhs) > 1 else enc.z3(rhs[0])
        if sign < 0:
            lz, rz = rz, lz
        if unknown:
            p = z3.Product([enc.z3(d) for d in unknown]) if len(unknown) > 1 else enc.z3(unknown[0])
            violations.append(z3.Or(z3.And(p > 0, lz > rz), z3.And(p < 0, lz < rz)))
        else:
            violations.append(lz > rz)
    if not violations:
        return Decision("unsat", queries=queries)
    domain = enc.constraints()
    out = smt.check(domain + [z3.Or(violations) if len(violations) > 1 else violations[0]],
                    rlimit=rlimit, comment=f"{label}: some obligation fails (denominators cleared)\n{legend}")
    queries.append(Query("no obligation can fail", out.smt2, "unsat", out.result))
    if out.result == "unsat":
        return Decision("unsat", queries=queries)
    if out.result == "unknown":
        return Decision("unknown", reason=f"z3: {out.reason}", queries=queries)
    failing = [f.tag for (f, *_), v in zip(cleared, violations) if z3.is_true(out.model.eval(v, model_completion=True))]
    return Decision("sat", failing=failing, model_params=_param_values(enc, out.model), queries=queries)


def _pretty_value(entry) -> sp.Basic:
    kind, v, L = entry
    value = sp.Rational(v.numerator, v.denominator)
    if kind == "exp":
        return sp.simplify(L * sp.log(value))
    return value


def dominant(parameters: Sequence[Parameter], ratios: Sequence[tuple[sp.Basic, sp.Basic]], candidate: int,
             *, rlimit: int | None = smt.DEFAULT_RLIMIT) -> bool:
    """Does ratio ``candidate`` (num/den, den > 0) dominate all the others for every admissible
    parameter value? Decided as the facts ``num_i <= den_i * (num_c / den_c)``."""
    if len(ratios) <= 1:
        return True
    cn, cd = ratios[candidate]
    facts = [Fact(n * cd, d * cn, i, scaled=False) for i, (n, d) in enumerate(ratios) if i != candidate]
    return decide(parameters, facts, None, rlimit=rlimit, label="dominance").result == "unsat"
