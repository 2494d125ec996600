"""What an implementation's float64 probabilities really give.

An implementation stores e^ε/(e^ε+1) as the float 0.7310585786300049, not as the real
number; the channel it runs is the one with that exact binary fraction. Each float is
converted exactly (``fractions.Fraction(float)``) and the ε of the resulting channel is
computed in closed form and compared with the claim, in units of the last place (ulp) of the
float64 nearest to the claimed ε.

Semantics of the names (also in ``ldpaudit verify --help``):

* **named parameters** — when every name is a free parameter of the spec (a spec written in
  terms of, say, ``p``), the floats are bound exactly and the spec's own channel is verified;
* **the generic two-parameter form** ``p, q`` otherwise:
  - randomized response (explicit square channels, structured channels with a hit class and a
    miss class — W-RR, k-RR, k-subset, O-RR, RR-bit): ``p`` = probability of each output in
    the hit class (the truth, the subsets containing x, ...), ``q`` = probability of each other
    output. If only ``p`` is given, q = (1 - hits * p)/misses, i.e. "keep with probability p,
    else uniform over the rest", which needs numeric sizes;
  - unary encodings (product channels with 0/1 coordinates — k-RAPPOR, OUE): ``p`` = P(bit
    = 1 | it is the input's bit), ``q`` = P(bit = 1 | another bit); bit 0 has probability
    exactly 1 - p and 1 - q (what a sampler ``u < p`` with an ideal uniform u does).

The claim must be numeric: ``epsilon=`` or a bound ``epsilon`` parameter.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from fractions import Fraction

import sympy as sp

from ldpaudit.errors import InvalidParameter
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.explicit import ExplicitChannel
from ldpaudit.mechanism.product import ProductChannel
from ldpaudit.mechanism.structured import StructuredChannel
from ldpaudit.verify import exact
from ldpaudit.verify.claims import claim_of
from ldpaudit.verify.core import verify
from ldpaudit.verify.prover import Fact, decide
from ldpaudit.verify.result import FloatReport, Status, Verdict, Witness
from ldpaudit.verify.witness import witness_proof


def parse_floats(text: str) -> dict[str, float]:
    """``"p=0.73,q=0.27"`` -> ``{"p": 0.73, "q": 0.27}`` (float64, as an implementation has them)."""
    out = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise InvalidParameter(f"--float-params item {part!r} is not name=value; write e.g. p=0.7310585786300049,q=0.2689414213699951")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise InvalidParameter(f"--float-params {name.strip()}={value!r} is not a float literal") from None
    return out


def _exact(value: float, name: str) -> sp.Rational:
    if isinstance(value, bool) or not isinstance(value, (float, int)):
        raise InvalidParameter(f"float parameter {name} = {value!r} is not a float")
    if not math.isfinite(value):
        raise InvalidParameter(f"float parameter {name} = {value!r} is not finite")
    f = Fraction(value)
    return sp.Rational(f.numerator, f.denominator)


def verify_float_params(
    mech: Mechanism,
    floats: Mapping[str, float],
    *,
    epsilon=None,
    params: Mapping[str, object] | None = None,
) -> FloatReport:
    """Convert float64 parameters exactly and report the ε they really give (see module doc)."""
    if not floats:
        raise InvalidParameter("no float parameters given; write e.g. p=0.7310585786300049,q=0.2689414213699951")
    if params:
        mech = mech.bind(dict(params))
    exact_values = {k: _exact(v, k) for k, v in floats.items()}
    names = set(mech.parameter_names)
    if set(exact_values) <= names:
        return _named(mech, floats, exact_values, epsilon)
    unknown = set(exact_values) - {"p", "q"}
    if unknown:
        raise InvalidParameter(
            f"float parameter {sorted(unknown)[0]!r} is neither a free parameter of {mech.name} "
            f"({', '.join(sorted(names)) or 'none'}) nor p/q of the generic two-parameter form"
        )
    return _generic(mech, floats, exact_values, epsilon)


def _numeric_claim(mech: Mechanism, epsilon) -> sp.Basic:
    claim = claim_of(mech, epsilon)
    if claim.free_symbols:
        raise InvalidParameter(
            f"the claim {claim} is symbolic; give --epsilon or bind {', '.join(sorted(map(str, claim.free_symbols)))} with -p"
        )
    return claim


def _report(mech, floats, exact_values, semantics, eps_real, claim, verdict, notes=()) -> FloatReport:
    excess = sp.simplify(eps_real - claim) if eps_real != sp.oo else sp.oo
    if excess == sp.oo:
        ulps = math.inf
    else:
        ulp = math.ulp(float(sp.N(claim, 30)))
        ulps = float(sp.N(excess, 40)) / ulp
    return FloatReport(
        mech.name, tuple(floats.items()), tuple(exact_values.items()), semantics, eps_real, claim, excess, ulps,
        verdict, tuple(notes),
    )


def _named(mech, floats, exact_values, epsilon) -> FloatReport:
    bound = mech.bind(exact_values)
    claim = _numeric_claim(bound, epsilon)
    if bound.parameters:
        raise InvalidParameter(f"bind the remaining parameters {', '.join(bound.parameter_names)} with -p")
    verdict = verify(bound, epsilon=claim)
    eps_real = verdict.tight_epsilon if verdict.tight_epsilon is not None else sp.nan
    return _report(mech, floats, exact_values, "named parameters of the spec, bound exactly", eps_real, claim, verdict)


def _generic(mech, floats, exact_values, epsilon) -> FloatReport:
    start = time.perf_counter()
    claim = _numeric_claim(mech, epsilon)
    ch = mech.channel
    p = exact_values.get("p")
    q = exact_values.get("q")
    if p is None:
        raise InvalidParameter("the generic form needs p (and usually q)")
    notes = []
    if isinstance(ch, ProductChannel) and not ch.continuous:
        values = sorted({v for v, _ in ch.on.probabilities} | {v for v, _ in ch.off.probabilities})
        if values != [0, 1]:
            raise InvalidParameter(f"{mech.name}: p/q apply to 0/1 coordinates; this channel has values {values}")
        if q is None:
            raise InvalidParameter("a unary encoding needs both p = P(1 | own bit) and q = P(1 | other bit)")
        on, off = {0: 1 - p, 1: p}, {0: 1 - q, 1: q}
        facts = [Fact(on[v] * off[w], off[v] * on[w], (v, w)) for v in (0, 1) for w in (0, 1) if on[v] * off[w] != 0]
        semantics = "unary encoding: p = P(bit=1 | input's bit), q = P(bit=1 | other bit), bit 0 with 1-p, 1-q"

        def locate(tag):
            v, w = tag
            return 0, 1, (v, w), f"({v}, {w}, then 0 in the other coordinates)"
    elif isinstance(ch, (StructuredChannel, ExplicitChannel)):
        hit_count, miss_count = _rr_counts(mech)
        if q is None:
            if hit_count is None or miss_count is None or not (hit_count.is_number and miss_count.is_number):
                raise InvalidParameter("give q too (or bind the sizes so that q = (1 - hits*p)/misses is known)")
            q = (1 - hit_count * p) / miss_count
            exact_values["q"] = q
            notes.append(f"q = (1 - {hit_count}*p)/{miss_count} (keep with probability p, else uniform)")
        if hit_count is not None and miss_count is not None and hit_count.is_number and miss_count.is_number:
            total = hit_count * p + miss_count * q
            if total != 1:
                notes.append(f"a row sums to {sp.N(total, 20)} ≠ 1 with these floats (off by {sp.N(total - 1, 3)})")
        facts = [Fact(p, q, ("hit", "miss")), Fact(q, p, ("miss", "hit"))]
        semantics = "randomized response: p = probability of each output in the hit class, q = of each other output"

        def locate(tag):  # inputs 0, 1; output 0 is input 0's hit and a miss for input 1
            return (0, 1, 0, "") if tag == ("hit", "miss") else (0, 1, 1, "")
    else:
        raise InvalidParameter(f"{mech.name} has a {ch.form} channel; p/q float parameters apply to RR and unary encodings")
    ratios = []
    for f in facts:
        ratios.append((sp.oo if f.den == 0 else f.num / f.den, f))
    best_ratio, best = ratios[0]
    for r, f in ratios[1:]:
        if best_ratio != sp.oo and (r == sp.oo or exact.compare(r, best_ratio) > 0):
            best_ratio, best = r, f
    eps_real = sp.oo if best_ratio == sp.oo else sp.log(best_ratio)
    if isinstance(ch, ProductChannel):
        # the budget adds up over the two changed coordinates: show the two halves
        eps_real = sp.oo if best_ratio == sp.oo else sp.log(best_ratio)
    bound = sp.exp(claim)
    holds = best_ratio != sp.oo and exact.compare(best_ratio, bound) <= 0
    method = "float64 parameters converted exactly; " + semantics
    if holds:
        decision = decide((), facts, bound, label=f"{mech.name} with float parameters")
        status = Status.PROVED if decision.result == "unsat" else Status.UNKNOWN
        proof = tuple((q_.description, q_.smt2, q_.expected, q_.result) for q_ in decision.queries)
        verdict = Verdict(status, mech.name, claim, tight_epsilon=eps_real, method=method, scope=_scope(mech),
                          seconds=time.perf_counter() - start, notes=tuple(notes), params=mech.bindings,
                          reason=decision.reason, proof=proof)
    else:
        x, xp, y, text = locate(best.tag)
        witness = Witness(x, xp, y, best_ratio, best.num, best.den, claim,
                          params=mech.bindings + tuple(exact_values.items()), y_text=text)
        verdict = Verdict(Status.REFUTED, mech.name, claim, tight_epsilon=eps_real, witness=witness, method=method,
                          scope=_scope(mech), seconds=time.perf_counter() - start, notes=tuple(notes),
                          params=mech.bindings, proof=witness_proof(mech.name, witness))
    return _report(mech, floats, exact_values, semantics, eps_real, claim, verdict, notes)


def _scope(mech: Mechanism) -> str:
    sizes = [p.name for p in mech.parameters if p.kind == "integer"]
    return f"for all {', '.join(sizes)}" if sizes else ""


def _rr_counts(mech: Mechanism):
    """(outputs in the hit class, outputs in the miss class) for each input."""
    ch = mech.channel
    if isinstance(ch, StructuredChannel):
        if len(ch.classes) != 2:
            raise InvalidParameter(f"{mech.name} has {len(ch.classes)} output classes; p/q need exactly two (hit, miss)")
        return sp.sympify(ch.classes[0].count), sp.sympify(ch.classes[1].count)
    if len(ch.inputs) != len(ch.outputs):
        raise InvalidParameter(f"{mech.name}: p/q apply to square (randomized response) channels")
    return sp.Integer(1), sp.Integer(len(ch.outputs) - 1)
