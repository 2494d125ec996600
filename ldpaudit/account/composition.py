"""Composition declarations: which reports one user sends, and the exact view they give.

A composition file is a TOML table (read with the same allow-list discipline as specs: only
known keys, values parsed by :func:`ldpaudit.mechanism.expr.parse_expression`, never eval)::

    [composition]
    name = "RAPPOR, memoized"
    mode = "memoized"          # "independent" (default), "chained" or "memoized"
    reports = 10               # rounds (days)
    coordinatewise = true      # the instantaneous randomizer acts on each coordinate

    [values]                   # named exact values, overridable with -p name=value
    f = "1/2"

    [[randomizer]]             # a spec path (relative to this file) or a catalog name
    spec = "../rappor_permanent.toml"
    bind = { d = "4", f = "f" }

Modes, for K = ``reports`` rounds:

* ``independent``: every randomizer reports the input once per round (K x m reports);
* ``chained``: two randomizers, a fresh "permanent" response each round fed to the
  "instantaneous" one (one report per round: the channel P I, composed K times);
* ``memoized``: two randomizers, the permanent response drawn once and memoized, each round
  reports it through the instantaneous randomizer (RAPPOR; L-GRR, L-OUE of multi-freq-ldpy).

Memoized views: given the memoized value b, the K rounds are i.i.d., so the histogram of the K
outputs is sufficient and Q_K(n | x) = Σ_b P(b|x) K_K(n | b) with K_K(n|b) = multinomial(n)
Π_y I(y|b)^(n_y). The view factors through the permanent response, and K_K is a channel for
every K (its rows sum to (Σ_y I(y|b))^K = 1, checked exactly on I): by the data-processing
inequality δ_K(ε) <= δ_P(ε) for every ε and every K, in particular ε_K <= ε_P. The exact ε_K
is computed for the given K and compared with ε_P exactly.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from dataclasses import dataclass, field
from pathlib import Path

import sympy as sp

from ldpaudit.account import pld as P
from ldpaudit.account.numbers import Bases, Field, Unsupported
from ldpaudit.account.profile import (PairClass, View, channel_entries, classes_from_rows, compose_classes,
                                     tight_epsilon)
from ldpaudit.errors import InvalidSpec

_TOP = {"composition", "values", "randomizer"}
_COMPOSITION = {"name", "description", "source", "mode", "reports", "coordinatewise"}
_RANDOMIZER = {"spec", "bind", "role"}
MODES = ("independent", "chained", "memoized")
#: a memoized view lists at most this many output histograms per coordinate
MAX_TYPES = 20_000


class TooManyHistograms(Unsupported):
    """The memoized view lists too many output histograms; the permanent response's δ (the
    data-processing cap) is still a proven upper bound."""


def is_composition(spec) -> bool:
    path = Path(str(spec))
    if path.suffix != ".toml" or not path.is_file():
        return False
    try:
        import tomllib

        with open(path, "rb") as fh:
            return "composition" in tomllib.load(fh)
    except Exception:  # noqa: BLE001 - not a composition; the spec loader reports the error
        return False


@dataclass
class Composition:
    name: str
    mode: str
    reports: int
    coordinatewise: bool
    mechanisms: list
    description: str = ""
    notes: list = field(default_factory=list)

    def describe(self) -> str:
        names = " then ".join(m.name for m in self.mechanisms)
        return f"{self.mode} composition of {names} over {self.reports} round(s)" + \
            (" (instantaneous randomizer per coordinate)" if self.coordinatewise else "")

    def view(self, rounds: int, budget=None) -> View:
        return composed_view(self, rounds, budget)


def load_composition(path, params=None) -> Composition:
    import tomllib

    from ldpaudit.mechanism.expr import parse_expression
    from ldpaudit.mechanism.loader import load_family, parse_assignments

    path = Path(str(path))
    with open(path, "rb") as fh:
        try:
            doc = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise InvalidSpec(f"{path.name}: not valid TOML ({exc})") from None
    _only(doc, _TOP, "the composition file")
    comp = doc.get("composition")
    if not isinstance(comp, dict):
        raise InvalidSpec(f"{path.name}: [composition] must be a table")
    _only(comp, _COMPOSITION, "composition")
    mode = comp.get("mode", "independent")
    if mode not in MODES:
        raise InvalidSpec(f"composition.mode = {mode!r}; use one of {', '.join(MODES)}")
    reports = comp.get("reports", 1)
    if isinstance(reports, bool) or not isinstance(reports, int) or reports < 1:
        raise InvalidSpec(f"composition.reports = {reports!r}: the number of rounds must be a whole number >= 1")
    values = doc.get("values", {})
    if not isinstance(values, dict):
        raise InvalidSpec("[values] must be a table of name = exact value")
    overrides = parse_assignments(params) if params else {}
    for name in overrides:
        if name not in values:
            raise InvalidSpec(f"-p {name}=...: the composition has no value {name!r}; its [values] are "
                              f"{', '.join(sorted(values)) or '(none)'}")
    named = {}
    for name, raw in {**values, **overrides}.items():
        if isinstance(raw, bool) or not isinstance(raw, (int, str, Fraction)):
            raise InvalidSpec(f"values.{name} = {raw!r}: write an integer or an exact string such as \"1/2\"")
        named[name] = parse_expression(str(raw), {}, field=f"values.{name}")
    rands = doc.get("randomizer")
    if not isinstance(rands, list) or not rands:
        raise InvalidSpec("missing [[randomizer]]: name at least one spec (spec = \"krr\" or a path)")
    mechanisms = []
    for i, rt in enumerate(rands):
        if not isinstance(rt, dict):
            raise InvalidSpec(f"randomizer[{i}] must be a table")
        _only(rt, _RANDOMIZER, f"randomizer[{i}]")
        spec = rt.get("spec")
        if not isinstance(spec, str) or not spec:
            raise InvalidSpec(f"randomizer[{i}].spec is missing; give a spec path or a catalog name such as \"krr\"")
        where = (path.parent / spec) if spec.endswith(".toml") else spec
        if spec.endswith(".toml") and not Path(where).is_file():
            raise InvalidSpec(f"randomizer[{i}].spec = {spec!r}: no such spec file next to {path.name}; "
                              "give a path relative to the composition file or a catalog name")
        try:
            family = load_family(where)
        except InvalidSpec as exc:
            if not spec.endswith(".toml"):
                raise InvalidSpec(f"randomizer[{i}].spec = {spec!r} is not a catalog name or spec file ({exc})") from None
            raise
        bind = rt.get("bind", {})
        if not isinstance(bind, dict):
            raise InvalidSpec(f"randomizer[{i}].bind must be a table such as {{ d = \"d\", epsilon = \"1\" }}")
        subs = {sp.Symbol(k): v for k, v in named.items()}
        bound = {}
        for k, text in bind.items():
            expr = parse_expression(str(text), {n: sp.Symbol(n) for n in named}, field=f"randomizer[{i}].bind.{k}")
            bound[k] = expr.xreplace(subs)
        mechanisms.append(family.bind(bound) if bound else family)
    if mode in ("chained", "memoized") and len(mechanisms) != 2:
        raise InvalidSpec(f"composition.mode = {mode!r} needs two randomizers (permanent, then instantaneous); "
                          f"got {len(mechanisms)}")
    return Composition(str(comp.get("name", path.stem)), mode, reports, bool(comp.get("coordinatewise", False)),
                       mechanisms, str(comp.get("description", "")))


def _only(table, allowed, where) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise InvalidSpec(f"unknown key {unknown[0]!r} in {where}; allowed: {', '.join(sorted(allowed))}")


# --- the exact views ----------------------------------------------------------------------


def _rows(bases: Bases, mech):
    from ldpaudit.account.profile import _materialized

    ch = _materialized(mech)
    return ch.inputs, ch.outputs, [[bases.field.convert(e) for e in row] for row in ch.matrix]


def _common(R, row):
    """A row of (num, den) entries over one common denominator: (nums, den)."""
    from ldpaudit.account.pld import _lcm

    den = _lcm(R, [d for n, d in row if n])
    return [n * den.exquo(d) if n else R(0) for n, d in row], den


def chain(R, p_row, instant_rows):
    """The row of P I for one input: Σ_b P(b|x) I(y|b), as (num, den) entries."""
    pn, pd = _common(R, p_row)
    inst = [_common(R, r) for r in instant_rows]
    den = pd
    for _, d in inst:
        den = den * d
    out = []
    m = len(instant_rows[0])
    for y in range(m):
        total = R(0)
        for b, (nums, d) in enumerate(inst):
            if pn[b] and nums[y]:
                total += pn[b] * nums[y] * den.exquo(pd * d)
        out.append((total, den))
    return out


def types(m: int, k: int):
    """Histograms (n_0..n_(m-1)) of k outputs over m values, with their multinomial counts."""
    for cut in itertools.combinations(range(k + m - 1), m - 1):
        bounds = (-1, *cut, k + m - 1)
        n = tuple(bounds[i + 1] - bounds[i] - 1 for i in range(m))
        coeff = math.factorial(k)
        for c in n:
            coeff //= math.factorial(c)
        yield n, coeff


def memo_row(R, p_row, instant_rows, k: int):
    """Q_k(n | x) = Σ_b P(b|x) multinomial(n) Π_y I(y|b)^(n_y), over histograms n, as (num, den)."""
    pn, pd = _common(R, p_row)
    inst = [_common(R, r) for r in instant_rows]
    m = len(instant_rows[0])
    count = math.comb(k + m - 1, m - 1)
    if count > MAX_TYPES:
        raise TooManyHistograms(f"the memoized view over {k} rounds has {count:,} output histograms (> {MAX_TYPES:,}); "
                          "give fewer rounds or a coordinatewise composition")
    dens = [d ** k for _, d in inst]
    den = pd
    for d in dens:
        den = den * d
    out = []
    for n, coeff in types(m, k):
        total = R(0)
        for b, (nums, _) in enumerate(inst):
            if not pn[b]:
                continue
            term = pn[b] * coeff
            for y, c in enumerate(n):
                if c:
                    term = term * nums[y] ** c
            if term:
                total += term * den.exquo(pd * dens[b])
        out.append((total, den))
    return out


def check_instantaneous(R, instant_rows) -> None:
    """Every row of the instantaneous channel sums to 1, exactly (so K_k is a channel for all k)."""
    for i, row in enumerate(instant_rows):
        nums, den = _common(R, row)
        if sum(nums, R(0)) != den:
            raise InvalidSpec(f"row {i} of the instantaneous randomizer does not sum to 1; memoization needs a channel")


def composed_view(comp: Composition, rounds: int, budget=None) -> View:
    """The exact view of ``rounds`` rounds; a K-fold convolution past ``budget`` work units
    (None: :data:`ldpaudit.account.pld.MAX_PRODUCTS`) raises
    :class:`~ldpaudit.account.pld.SupportTooLarge` before it starts."""
    numbers = [e for m in comp.mechanisms for e in channel_entries(m)]
    bases = Bases(Field(numbers))
    R = bases.field.R
    notes = [comp.describe()]
    if comp.mode == "independent":
        per = [classes_from_rows(bases, *_rows(bases, m)[::2]) for m in comp.mechanisms]
        by_pair: dict = {}
        for classes in per:
            for c in classes:
                for pair in c.pairs:
                    by_pair.setdefault(pair, []).append(c.pld)
        found: dict = {}
        for pair, plds in by_pair.items():
            sig = tuple(p.signature() for p in plds)
            if sig in found:
                found[sig].pairs.append(pair)
                continue
            total = plds[0]
            for p in plds[1:]:
                total = P.compose(total, p)
            found[sig] = PairClass([pair], total)
        classes, work = compose_classes(list(found.values()), rounds, budget)
        return View(comp.name, classes, bases, rounds * len(comp.mechanisms), notes, work)
    perm, inst = comp.mechanisms
    _, _, inst_rows = _rows(bases, inst)
    check_instantaneous(R, inst_rows)
    if comp.coordinatewise:
        ch = perm.channel
        if getattr(ch, "form", None) != "product" or ch.continuous:
            raise InvalidSpec("composition.coordinatewise = true needs a permanent randomizer of the product form")
        values = sorted({v for v, _ in ch.on.probabilities} | {v for v, _ in ch.off.probabilities})
        if len(inst_rows) != len(values):
            raise InvalidSpec(f"the instantaneous randomizer has {len(inst_rows)} inputs; the permanent coordinates take "
                              f"{len(values)} values")
        on = [bases.field.convert(ch.on.probability(v)) for v in values]
        off = [bases.field.convert(ch.off.probability(v)) for v in values]
        if comp.mode == "memoized":
            on_k, off_k = memo_row(R, on, inst_rows, rounds), memo_row(R, off, inst_rows, rounds)
            pld, work = P.compose(P.pair_pld(bases, on_k, off_k), P.pair_pld(bases, off_k, on_k)), 0
        else:
            on_1, off_1 = chain(R, on, inst_rows), chain(R, off, inst_rows)
            one = PairClass([], P.compose(P.pair_pld(bases, on_1, off_1), P.pair_pld(bases, off_1, on_1)))
            (composed,), work = compose_classes([one], rounds, budget)
            pld = composed.pld
        inputs = perm.inputs.enumerate()
        pairs = [(x, y) for x in inputs for y in inputs if x != y]
        notes.append("coordinatewise: every ordered pair differs on two coordinates (on/off, off/on)")
        return View(comp.name, [PairClass(pairs, pld)], bases, rounds, notes, work)
    inputs, outputs, perm_rows = _rows(bases, perm)
    if len(outputs) != len(inst_rows):
        raise InvalidSpec(f"the permanent randomizer has {len(outputs)} outputs and the instantaneous one "
                          f"{len(inst_rows)} inputs; they must match")
    if comp.mode == "memoized":
        rows = [memo_row(R, r, inst_rows, rounds) for r in perm_rows]
        return View(comp.name, classes_from_rows(bases, inputs, rows), bases, rounds, notes)
    rows = [chain(R, r, inst_rows) for r in perm_rows]
    classes, work = compose_classes(classes_from_rows(bases, inputs, rows), rounds, budget)
    return View(comp.name, classes, bases, rounds, notes, work)


def permanent_view(comp: Composition) -> View:
    """The view of the permanent response alone (the cap of a memoized composition)."""
    from ldpaudit.account.profile import view

    return view(comp.mechanisms[0], extra_numbers=[e for m in comp.mechanisms for e in channel_entries(m)])


@dataclass(frozen=True)
class MemoCap:
    rounds: int
    epsilon: sp.Basic          # exact ε of the memoized view over ``rounds``
    permanent: sp.Basic        # exact ε of the permanent response
    below: bool                # epsilon <= permanent, decided exactly
    argument: str


def memoization_cap(comp: Composition, rounds: int) -> MemoCap:
    """The exact ε over ``rounds`` of a memoized composition against the permanent response's ε."""
    if comp.mode != "memoized":
        raise InvalidSpec(f"composition.mode = {comp.mode!r}: the memoization cap needs mode = \"memoized\"")
    v = composed_view(comp, rounds)
    eps_k = tight_epsilon(v)
    eps_p = tight_epsilon(permanent_view(comp))
    from ldpaudit.mechanism.params import decide

    below = True if eps_p == sp.oo else (False if eps_k == sp.oo else decide(eps_k <= eps_p))
    argument = ("the view over any number of rounds is the permanent response followed by K_k(n|b) = "
                "multinomial(n) Π_y I(y|b)^(n_y), a channel for every k (rows of I sum to 1, checked exactly): "
                "data-processing inequality, δ_k(ε) <= δ_P(ε) for all ε and k")
    return MemoCap(rounds, eps_k, eps_p, bool(below), argument)
