"""Hashed channels (O-RR, local hashing, O-RAPPOR): privacy for every hash function.

The privacy of a hashed mechanism depends on the hash values only through collisions, so it
is proved once for all hash tables, symbolically in C, k, h and ε:

* cohort outputs (c, v) (O-RR, OLH, BLH): for two inputs x, x' and an output (c, v), both
  inputs see the same cohort c, and v either hits or misses ``hash_c(x)`` and, independently
  of that, hits or misses ``hash_c(x')``. The output's class for x and for x' is therefore
  fixed by the cohort and the pattern (hit/miss, hit/miss); every hash table realizes a
  subset of the four patterns, so the obligations ``w(class for x) <= e^ε w(class for x')``
  over all patterns (and over each cohort named in a condition, plus "any other cohort")
  cover every table at once. A table with no separating cohort realizes only (hit, hit)
  and (miss, miss), and its ε* is 0: collisions only ever help.
* Bloom filters with independent flips (O-RAPPOR): the ratio Q((c, y)|x)/Q((c, y)|x') is a
  product over the bits in B_c(x) \\ B_c(x') of on(y_b)/off(y_b) and over B_c(x') \\ B_c(x) of
  off(y_b)/on(y_b); both sets have at most h elements, so with L_on(v) = ln(on(v)/off(v)) and
  L_off(w) = ln(off(w)/on(w)) the obligations are a·L_on(v) + b·L_off(w) <= ε for all values
  v, w and all 0 <= a, b <= h; the worst case is 2h bit positions differing (a = b = h),
  realized when some cohort hashes two inputs to disjoint sets of h bits. The logarithms are
  eliminated by sympy (e.g. ln(e^(ε/(2h))) = ε/(2h)) and z3 decides the rest.

A failing obligation is refuted with an exact witness (x, x', y) at a concrete instance, its
ratio recomputed from the channel's definition and compared exactly.
"""

from __future__ import annotations

import itertools
import time

import sympy as sp

from ldpaudit.errors import InvalidParameter, InvalidSpec
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.expr import eval_condition
from ldpaudit.mechanism.hashing import BloomChannel, cohort_class, cohort_literals, cohort_representatives
from ldpaudit.mechanism.spaces import CohortSpace
from ldpaudit.mechanism.structured import StructuredChannel
from ldpaudit.verify import exact, finite, smt
from ldpaudit.verify.claims import scope_of, unknown
from ldpaudit.verify.prover import Fact, decide
from ldpaudit.verify.result import Status, TightEpsilon, Verdict, Witness
from ldpaudit.verify.smt import Unsupported
from ldpaudit.verify.witness import candidate_points, instances, checked_witness, proof_of

PATTERNS = ((True, True), (True, False), (False, True), (False, False))
#: named families whose collision rate is exactly 1/k for every pair (hashing.py)
_EXACT_FAMILIES = ("all-functions", "hadamard")
#: cohorts searched for one that separates (and one that joins) the first two inputs
_COHORT_SEARCH = 4096


def applies(mech: Mechanism) -> bool:
    ch = mech.channel
    return isinstance(ch, BloomChannel) or (isinstance(ch, StructuredChannel) and isinstance(ch.outputs, CohortSpace))


def verify_hashed(mech: Mechanism, claim, *, rlimit, start, tight: bool = True) -> Verdict:
    if isinstance(mech.channel, BloomChannel):
        return _verify_bloom(mech, claim, rlimit=rlimit, start=start, tight=tight)
    return _verify_cohort(mech, claim, rlimit=rlimit, start=start, tight=tight)


def tight_hashed(mech: Mechanism, *, rlimit=smt.DEFAULT_RLIMIT) -> TightEpsilon:
    """ε* in closed form from the class weights (cohorts) or bit laws (Bloom), with the proof
    that the mechanism is ε*-LDP and a witness attaining it at the example instance."""
    try:
        value = _tight_value(mech, rlimit=rlimit)
    except InvalidSpec:
        return finite.tight_finite(mech, rlimit=rlimit)
    except Unsupported as exc:
        return TightEpsilon(mech.name, sp.nan, None, None, method=f"unknown: {exc}")
    proof = None
    if value != 0 and value != sp.oo:
        proof = verify_hashed(mech, value, rlimit=rlimit, start=time.perf_counter(), tight=False)
    witness = _attaining(mech, value, rlimit=rlimit)
    what = "Bloom bit laws" if isinstance(mech.channel, BloomChannel) else "class weights over hit/miss patterns"
    return TightEpsilon(mech.name, value, proof, witness, method=f"hashed channel: {what}, every hash table")


def _tight_value(mech: Mechanism, *, rlimit):
    ch = mech.channel
    if isinstance(ch, BloomChannel):
        on_terms, off_terms = bloom_logs(ch)
        if any(L == sp.oo for _, L in on_terms + off_terms):
            return sp.oo
        return _bloom_tight(mech, on_terms, off_terms)
    pairs, seen = [], set()
    scale = _cohort_scale(ch)
    for _, pattern, i, j in cohort_obligations(mech):
        wi, wj = scale(ch.classes[i].weight), scale(ch.classes[j].weight)
        if wi != 0 and (i, j, pattern) not in seen:
            seen.add((i, j, pattern))
            pairs.append((wi, wj, pattern))
    return _cohort_tight(mech, pairs, rlimit=rlimit)


# --- cohort outputs ---------------------------------------------------------------------------


def cohort_obligations(mech: Mechanism) -> list[tuple[object, tuple[bool, bool], int, int]]:
    """(cohort, (hit for x, hit for x'), class for x, class for x') for every pattern."""
    ch = mech.channel
    out = []
    for cohort in cohort_representatives(ch):
        for pattern in PATTERNS:
            out.append((cohort, pattern, cohort_class(mech, ch, cohort, pattern[0]), cohort_class(mech, ch, cohort, pattern[1])))
    return out


def realized_patterns(mech: Mechanism) -> set[tuple[bool, bool]] | None:
    """The (hit, hit') patterns a numeric table realizes for some cohort, pair x != x' and v."""
    ch = mech.channel
    space = ch.outputs
    if mech.parameters:
        return None
    d, k = int(mech.inputs.size), int(space.k)
    if space.hash_table is None and space.family.name in _EXACT_FAMILIES:
        # any two inputs collide in exactly 1/k of the cohorts (hashing.py), so some cohort
        # separates them ((hit, miss), (miss, hit), and (miss, miss) for k > 2) and some cohort
        # joins them ((hit, hit), and (miss, miss) for k >= 2): no table to list
        return set(PATTERNS) if d >= 2 else set()
    table = space.table(d)
    seen = set()
    for row in table:
        values = set(row)
        if len(values) > 1:
            seen |= {(True, False), (False, True)}
        if len(values) < len(row):
            seen.add((True, True))
            if k > 1:
                seen.add((False, False))
        if len(values) > 1 and k > 2:
            seen.add((False, False))
    return seen


def _verify_cohort(mech: Mechanism, claim, *, rlimit, start, tight: bool) -> Verdict:
    ch = mech.channel
    try:
        obligations = cohort_obligations(mech)
    except InvalidSpec as exc:
        # conditions that look at x beyond hash(c, x): no proof for all tables; an instance is
        # verified through its materialized channel
        verdict = finite.verify_finite(mech, claim, rlimit=rlimit, start=start, tight=tight)
        return _with_note(verdict, f"not a collisions-only channel ({exc}); verified as a finite channel")
    facts, pairs, seen = [], [], set()
    scale = _cohort_scale(ch)
    for cohort, pattern, i, j in obligations:
        wi, wj = scale(ch.classes[i].weight), scale(ch.classes[j].weight)
        if wi == 0 or (i, j) in seen:
            continue
        seen.add((i, j))
        facts.append(Fact(wi, wj, (cohort, pattern), where=f"cohort {cohort!r}: {_pattern_text(pattern)}"))
        pairs.append((wi, wj, pattern))
    method = ("hashed cohorts, for every hash table: class-weight ratios over every hit/miss pattern two inputs can "
              f"have in one cohort ({len(facts)} obligations)")
    if not facts:
        return Verdict(Status.PROVED, mech.name, claim, tight_epsilon=sp.Integer(0), method=method, scope=scope_of(mech),
                       seconds=time.perf_counter() - start, params=mech.bindings)
    bound = sp.exp(claim)
    decision = decide(mech.parameters, facts, bound, rlimit=rlimit, label=f"{mech.name}: {claim}-LDP")
    notes = tuple(decision.notes) + ("the proof covers every hash function: only collisions (the hit/miss pattern) "
                                     "enter the ratios",)
    if decision.result == "unsat":
        tight_value = _cohort_tight(mech, pairs, rlimit=rlimit) if tight else None
        return Verdict(Status.PROVED, mech.name, claim, tight_epsilon=tight_value, method=method + "; z3",
                       scope=scope_of(mech), seconds=time.perf_counter() - start, notes=notes, params=mech.bindings,
                       proof=proof_of(decision))
    if decision.result == "unknown":
        return unknown(mech, claim, decision.reason, start, method, notes, proof_of(decision))
    refuted = _refute_cohort(mech, claim, decision, rlimit=rlimit)
    if refuted is not None:
        return Verdict(Status.REFUTED, mech.name, claim, witness=refuted.witness, tight_epsilon=refuted.tight_epsilon,
                       method=method, scope=scope_of(mech), seconds=time.perf_counter() - start, notes=notes,
                       params=mech.bindings, proof=refuted.proof)
    return unknown(mech, claim, "z3 found a failing hit/miss pattern but no instance confirmed an exact witness", start,
                   method, notes, proof_of(decision))


def _cohort_scale(ch):
    """Weights times C when C is symbolic: the cohort is uniform, so every weight carries the
    factor 1/C (C = g**d for local hashing) and the ratios do not depend on it."""
    C = sp.sympify(ch.outputs.C)
    if C.is_number:
        return lambda w: w
    return lambda w: sp.simplify(sp.powsimp(w * C, force=True))


def _pattern_text(pattern) -> str:
    a, b = pattern
    return f"v {'==' if a else '!='} hash(c, x), v {'==' if b else '!='} hash(c, x')"


def _cohort_tight(mech: Mechanism, pairs, *, rlimit):
    realized = realized_patterns(mech)
    use = [(a, b) for a, b, pattern in pairs if realized is None or pattern in realized]
    if not use:
        return sp.Integer(0)
    ratio = finite._max_ratio(mech, use, rlimit=rlimit)
    return sp.oo if ratio == sp.oo else finite._log(ratio)


def _refute_cohort(mech: Mechanism, claim, decision, *, rlimit):
    """An exact witness at an instance: the materialized channel's per-column check, or for a
    named family too large to list, outputs built from the family's hash (family_witness)."""
    if not mech.parameters:
        found = family_witness(mech, claim)
        if found is not None:
            return Verdict(Status.REFUTED, mech.name, claim, witness=found, params=mech.bindings)
        v = finite.verify_finite(mech, claim, rlimit=rlimit, start=time.perf_counter(), tight=True)
        return v if v.status is Status.REFUTED else None
    return finite._refute_at_points(mech, claim, decision, rlimit=rlimit)


def cohort_entry(mech: Mechanism, x: int, y: tuple) -> sp.Basic:
    """Q((c, v) | x) of a bound cohort channel from its definition: the weight of the one class
    whose condition (c, v, x and the family's or table's hash(c, x)) the output satisfies."""
    ch = mech.channel
    space = ch.outputs
    env = {k: (int(val) if sp.sympify(val).is_Integer else val) for k, val in mech.bindings}
    c, v = y
    env.update(x=x, y=y, c=c, v=v, hash=space.hash, bit=lambda value, j: (int(value) >> int(j)) & 1)
    hits = [cls for cls in ch.classes if eval_condition(cls.predicate, env)]
    if len(hits) != 1:
        raise InvalidSpec(f"output {y!r} for input {x} of {mech.name!r} falls in {len(hits)} classes; the class "
                          "conditions must be exclusive and exhaustive")
    return hits[0].weight


def family_witness(mech: Mechanism, claim) -> Witness | None:
    """A witness for a bound cohort channel of a family whose pairs all collide in exactly 1/k
    of the cohorts, found without listing the channel (HR at d = 10^6 has 10^6 × 2^21 entries):
    the first two inputs, a cohort that separates them and one that joins them (searched among
    the first cohorts), every output (c, v) of those cohorts with v one of the two hashes or
    another value, and each output's exact ratio from the class conditions (cohort_entry). Any
    pair of inputs shows the same hit/miss patterns in such a family, so the first pair is as
    good as any. None if the channel is not of that kind, or no such output exceeds e^claim."""
    ch = mech.channel
    space = ch.outputs
    if space.hash_table is None and space.family is not None and mech.parameters == () \
            and space.family.name in _EXACT_FAMILIES and not cohort_literals(ch):
        d, k, C = int(mech.inputs.size), int(space.k), int(space.C)
        if d < 2:
            return None
        x, xp = 0, 1
        cohorts = {}
        for c in range(min(C, _COHORT_SEARCH)):
            cohorts.setdefault(space.hash(c, x) == space.hash(c, xp), c)
            if len(cohorts) == 2:
                break
        for c in sorted(cohorts.values()):
            hx, hxp = space.hash(c, x), space.hash(c, xp)
            others = [v for v in range(min(k, 3)) if v not in (hx, hxp)][:1]
            for v in dict.fromkeys([hx, hxp, *others]):
                for a, b in ((x, xp), (xp, x)):
                    w = checked_witness(mech, a, b, (c, v), cohort_entry(mech, a, (c, v)), cohort_entry(mech, b, (c, v)),
                                        claim)
                    if w is not None:
                        return w
    return None


def _with_note(verdict: Verdict, note: str) -> Verdict:
    from dataclasses import replace

    return replace(verdict, notes=tuple(verdict.notes) + (note,))


# --- Bloom filters with flips (O-RAPPOR) ------------------------------------------------------


def _log_ratio(num, den) -> sp.Basic:
    value = sp.expand_log(sp.log(sp.simplify(num / den)), force=True)
    return sp.simplify(value)


def bloom_logs(ch: BloomChannel):
    """[(v, L_on(v))], [(w, L_off(w))] with the logarithms eliminated where sympy can; an
    infinite ratio (a value the 'off' law never takes but 'on' does) is oo."""
    on_terms, off_terms = [], []
    for v in ch.values():
        p_on, p_off = ch.on.probability(v), ch.off.probability(v)
        if p_on != 0:
            on_terms.append((v, sp.oo if p_off == 0 else _log_ratio(p_on, p_off)))
        if p_off != 0:
            off_terms.append((v, sp.oo if p_on == 0 else _log_ratio(p_off, p_on)))
    return on_terms, off_terms


def _verify_bloom(mech: Mechanism, claim, *, rlimit, start, tight: bool) -> Verdict:
    import z3

    ch = mech.channel
    on_terms, off_terms = bloom_logs(ch)
    method = ("Bloom filter with independent flips, for every hash table: a·L_on(v) + b·L_off(w) <= ε for all bit "
              "values and 0 <= a, b <= h (at most h set bits of x are unset for x' and vice versa)")
    if any(L == sp.oo for _, L in on_terms + off_terms):
        return _refute_bloom_or_unknown(mech, claim, None, start, method, rlimit)
    # log(4) as 2·log(2): one constant per prime, so that ε = log 4 and L_on = log(2)/2 compare exactly
    claim_logs = sp.expand_log(sp.sympify(claim), force=True)
    terms = [(v, sp.expand_log(L, force=True)) for v, L in on_terms + off_terms]
    exprs = [L for _, L in terms] + [claim_logs, sp.sympify(ch.hashes)]
    on_logs, off_logs = terms[:len(on_terms)], terms[len(on_terms):]
    try:
        enc = smt.Encoder(mech.parameters, exprs)
        a, b = z3.Real("a"), z3.Real("b")
        H = enc.z3(enc.poly(sp.sympify(ch.hashes)))
        eps = enc.z3(enc.poly(claim_logs))
        fails = [a * enc.z3(enc.poly(Lv)) + b * enc.z3(enc.poly(Lw)) > eps
                 for (_, Lv), (_, Lw) in itertools.product(on_logs, off_logs)]
    except Unsupported as exc:
        return unknown(mech, claim, f"not encodable exactly: {exc}", start, method)
    box = [a >= 0, b >= 0, a <= H, b <= H]
    out = smt.check(enc.constraints() + box + [z3.Or(*fails)], rlimit=rlimit,
                    comment=f"{mech.name}: some bit pattern exceeds e^({claim})")
    proof = (("no (a, b, v, w) with a·L_on(v) + b·L_off(w) > claim", out.smt2, "unsat", out.result),)
    notes = ("the proof covers every hash function: only |B_c(x) \\ B_c(x')| and |B_c(x') \\ B_c(x)| enter the ratio",
             "L_on, L_off: " + ", ".join(f"L_on({v}) = {sp.sstr(L)}" for v, L in on_terms)
             + "; " + ", ".join(f"L_off({w}) = {sp.sstr(L)}" for w, L in off_terms))
    if out.result == "unsat":
        tight_value = _bloom_tight(mech, on_terms, off_terms) if tight else None
        return Verdict(Status.PROVED, mech.name, claim, tight_epsilon=tight_value, method=method + "; z3",
                       scope=scope_of(mech), seconds=time.perf_counter() - start, notes=notes, params=mech.bindings,
                       proof=proof)
    if out.result == "unknown":
        return unknown(mech, claim, out.reason, start, method, notes, proof)
    if not mech.parameters:
        return _decide_bloom_table(mech, claim, out, start, method, notes)
    return _refute_bloom_or_unknown(mech, claim, out, start, method, rlimit, notes=notes)


def _decide_bloom_table(mech: Mechanism, claim, outcome, start, method, notes) -> Verdict:
    """A numeric instance whose (a, b) box z3 cannot clear: the patterns its table realizes,
    decided exactly. ε* = max over cohorts and pairs of a·max L_on + b·max L_off, with (a, b)
    counted from the table (a relaxation's corner a = b = h may not be realized); PROVED when
    ε* <= claim (exact comparison), otherwise REFUTED by the attaining output, re-checked."""
    found = _largest_difference(mech)
    if found is None:
        return Verdict(Status.PROVED, mech.name, claim, tight_epsilon=sp.Integer(0), method=method, scope=scope_of(mech),
                       seconds=time.perf_counter() - start, notes=tuple(notes), params=mech.bindings)
    a, b, c, x, xp, value = found
    table_method = ("Bloom filter with independent flips, this instance's hash table: max over cohorts and input "
                    "pairs of a·max L_on + b·max L_off, decided exactly (a, b: set bits of x unset for x' and vice "
                    f"versa; largest a = {a}, b = {b} at cohort {c}, inputs {x}, {xp})")
    side = exact.compare(value, claim)
    if side is None:
        return unknown(mech, claim, f"cannot compare the table's largest log-ratio {sp.sstr(value)} with {claim} exactly",
                       start, table_method, notes)
    if side <= 0:
        tight = sp.simplify(value)
        return Verdict(Status.PROVED, mech.name, claim, tight_epsilon=tight, method=table_method, scope=scope_of(mech),
                       seconds=time.perf_counter() - start, notes=tuple(notes), params=mech.bindings)
    return _refute_bloom_or_unknown(mech, claim, outcome, start, table_method, None, notes=notes)


def _largest(terms, point_subs):
    """The term with the largest value at a numeric point (terms are compared exactly)."""
    best = None
    for v, L in terms:
        value = sp.sympify(L).xreplace(point_subs)
        if best is None or exact.compare(value, best[2]) == 1:
            best = (v, L, value)
    return best


def _bloom_tight(mech: Mechanism, on_terms, off_terms):
    """ε* = max over cohorts and pairs of a·max L_on + b·max L_off: h·(max L_on + max L_off)
    for a family (attained when a cohort hashes two inputs to disjoint h-sets, k >= 2h); the
    collisions of a numeric table decide (a, b) exactly."""
    ch = mech.channel
    point = candidate_points(mech)[0] if mech.parameters else {}
    subs = {mech.symbols[k]: v for k, v in point.items()}
    v_on, L_on, _ = _largest(on_terms, subs)
    v_off, L_off, _ = _largest(off_terms, subs)
    if mech.parameters:
        return sp.simplify(sp.sympify(ch.hashes) * (L_on + L_off))
    a, b = _largest_difference(mech)[:2]
    return sp.simplify(a * L_on + b * L_off)


def _largest_difference(mech: Mechanism):
    """(a, b, c, x, x') maximizing a·L_on* + b·L_off* over cohorts and input pairs."""
    ch = mech.channel
    d = int(mech.inputs.size)
    table = ch.hash_table(d)
    on_terms, off_terms = bloom_logs(ch)
    _, L_on, _ = _largest(on_terms, {})
    _, L_off, _ = _largest(off_terms, {})
    best = None
    for c in range(len(table)):
        sets = [ch.positions(table, c, x) for x in range(d)]
        for x, xp in itertools.permutations(range(d), 2):
            a, b = len(sets[x] - sets[xp]), len(sets[xp] - sets[x])
            value = a * L_on + b * L_off
            if best is None or exact.compare(value, best[5]) == 1:
                best = (a, b, c, x, xp, value)
    return best


def bloom_entry(mech: Mechanism, x: int, y: tuple) -> sp.Basic:
    """Q((c, b_0..b_{k-1}) | x) from the definition: (1/C) prod_b law_b(y_b)."""
    ch = mech.channel
    table = ch.hash_table(int(mech.inputs.size))
    c, bits = y[0], y[1:]
    hot = ch.positions(table, c, x)
    return sp.Rational(1, int(ch.cohorts)) * sp.Mul(*[(ch.on if b in hot else ch.off).probability(v)
                                                      for b, v in enumerate(bits)])


def bloom_witness(mech: Mechanism, claim) -> Witness | None:
    """The output of largest ratio at a numeric instance, checked exactly against e^claim."""
    ch = mech.channel
    found = _largest_difference(mech)
    if found is None:
        return None
    _, _, c, x, xp, _ = found
    table = ch.hash_table(int(mech.inputs.size))
    on_terms, off_terms = bloom_logs(ch)
    v_on = _largest(on_terms, {})[0]
    v_off = _largest(off_terms, {})[0]
    sx, sxp = ch.positions(table, c, x), ch.positions(table, c, xp)
    # bits in neither set or in both: any value both laws give positive probability
    shared = next((v for v in ch.values() if ch.on.probability(v) != 0 and ch.off.probability(v) != 0), ch.values()[0])
    bits = []
    for b in range(int(ch.k)):
        if b in sx and b not in sxp:
            bits.append(v_on)
        elif b in sxp and b not in sx:
            bits.append(v_off)
        else:
            bits.append(shared)
    y = (c, *bits)
    return checked_witness(mech, x, xp, y, bloom_entry(mech, x, y), bloom_entry(mech, xp, y), claim)


def _refute_bloom_or_unknown(mech, claim, outcome, start, method, rlimit, notes=()):
    points = [{}] if not mech.parameters else candidate_points(mech)
    for bound, claim_at in instances(mech, claim, points):
        try:
            witness = bloom_witness(bound, claim_at)
        except Exception as exc:  # noqa: BLE001 - an instance too large to list: try the next one
            if isinstance(exc, (KeyboardInterrupt, MemoryError)):
                raise
            continue
        if witness is not None:
            proof = () if outcome is None else (("some bit pattern exceeds the claim", outcome.smt2, "sat", outcome.result),)
            tight = None
            if not bound.parameters:
                on_terms, off_terms = bloom_logs(bound.channel)
                if all(L != sp.oo for _, L in on_terms + off_terms):
                    tight = _bloom_tight(bound, on_terms, off_terms)
            return Verdict(Status.REFUTED, mech.name, claim, witness=witness, tight_epsilon=tight if not mech.parameters else None,
                           method=method, scope=scope_of(mech), seconds=time.perf_counter() - start, notes=tuple(notes),
                           params=mech.bindings, proof=proof)
    return unknown(mech, claim, "z3 found a failing bit pattern but no instance confirmed an exact witness", start,
                   method, notes)


def _attaining(mech: Mechanism, value, *, rlimit) -> Witness | None:
    """A witness whose ratio equals e^ε* at the example instance (or the mechanism itself)."""
    point = dict(mech.example) if mech.parameters else {}
    try:
        inst = mech.bind({k: point[k] for k in mech.parameter_names}) if mech.parameters else mech
    except (InvalidParameter, InvalidSpec, KeyError):
        return None
    if isinstance(inst.channel, BloomChannel):
        found = _largest_difference(inst)
        if found is None:
            return None
        eps_here = sp.sympify(value).xreplace({mech.symbols[k]: v for k, v in point.items()})
        w = bloom_witness(inst, sp.Integer(0))
        return None if w is None else Witness(w.x, w.x_prime, w.y, w.ratio, w.numerator, w.denominator, eps_here,
                                               params=inst.bindings)
    tight = finite.tight_finite(inst, rlimit=rlimit)
    return tight.witness


__all__ = ["applies", "verify_hashed", "tight_hashed", "cohort_obligations", "bloom_logs", "bloom_entry",
           "bloom_witness", "realized_patterns"]
