"""Spec-guided auditing and the conformance test.

With a bound Mechanism the exact channel gives, for every input pair, the likelihood-ratio
optimal event and its exact probabilities, so no exploration is needed: the pair and event
with the largest expected bound at the given n are confirmed on the whole sample. The same
sample then tests conformance: for every input, exact two-sided binomial tests of the
implementation's frequencies on the spec's most informative events, Holm-corrected at α.

Per channel form:
- explicit / element / cohort channels are materialized (float matrix); events are prefixes
  of the outputs sorted by Q(y|x)/Q(y|x');
- k-subset channels: the class of y depends on y through the membership of x and x', so
  the four patterns (x in y?, x' in y?) with counts C(d-2, k-a-b) give the exact law;
- discrete product channels: only coordinates x and x' differ, so the cells (y_x, y_x');
- continuous product channels: {y_x >= a and y_x' < b} from the coordinate CDFs;
- density channels piecewise in z (the Piecewise mechanism, Square Wave): the cells between
  the breakpoints of both densities at x and x', with exact masses (length × value), sorted by
  f(z|x)/f(z|x'); events are prefixes (unions of cells), and each cell is a conformance test;
- other density channels: thresholds {y >= c} and {y < c} from numeric CDFs.
"""
from __future__ import annotations

import bisect
import itertools
import math
import random
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy as sp

from ldpaudit.audit import binomial, bounds
from ldpaudit.audit.adapters import Outputs, Sampler
from ldpaudit.audit.draws import Positions, Progress
from ldpaudit.audit.engine import AuditResult, confirm_counts, make_draws, verdict_of, witness_of
from ldpaudit.audit.events import Candidate, CodeSetEvent, Event, choose
from ldpaudit.errors import InvalidParameter, NotMaterializable, RandomizerError

MAX_ENTRIES = 200_000           # largest channel materialized for guided events
MAX_SINGLETON_TESTS = 64        # finite outputs up to this size get one conformance test per output
_PHASE_GUIDED = 4
#: the cells of density 0 are tested narrowed by this fraction of the support's width
SUPPORT_MARGIN = 2.0 ** -16


# -- canonical views of outputs under a spec ------------------------------------------------

@dataclass
class SpecView:
    n: int
    weights: np.ndarray | None
    codes: np.ndarray | None = None     # index into the spec's finite outputs
    mat: np.ndarray | None = None       # membership (subset), coordinates (product)
    vals: np.ndarray | None = None      # real outputs (density)
    raw: Outputs | None = None

    def count(self, mask: np.ndarray) -> int:
        if self.weights is None:
            return int(np.count_nonzero(mask))
        return int(self.weights[mask].sum())


def _rows(out: Outputs) -> tuple[list | np.ndarray, np.ndarray | None]:
    if out.kind == "array":
        return out.values, None
    return out.values, out.counts


def _space_error(x, y, space: str) -> RandomizerError:
    text = repr(y)
    text = text if len(text) <= 80 else text[:77] + "..."
    return RandomizerError(f"randomizer returned {text} for input {x!r}, outside the spec's output space {space}")


# -- events on spec views ---------------------------------------------------------------------

@dataclass(eq=False)
class CellsEvent(Event):
    """(mat[:, i], mat[:, j]) in cells."""

    i: int
    j: int
    cells: tuple
    description: str = ""

    def mask(self, view):
        a, b = view.mat[:, self.i], view.mat[:, self.j]
        m = np.zeros(len(a), dtype=bool)
        for u, v in self.cells:
            m |= (a == u) & (b == v)
        return m


@dataclass(eq=False)
class ElementEvent(Event):
    """y in ``singles``, or (with ``others``) y outside ``special``."""

    singles: tuple
    others: bool
    special: tuple
    description: str = ""

    def mask(self, view):
        m = np.isin(view.codes, self.singles) if self.singles else np.zeros(len(view.codes), bool)
        if self.others:
            m |= ~np.isin(view.codes, self.special)
        return m


@dataclass(eq=False)
class ColumnValueEvent(Event):
    """mat[:, j] == value (or, with ``others``, the pooled count over all columns but j)."""

    j: int
    value: object
    description: str = ""

    def mask(self, view):
        return view.mat[:, self.j] == self.value


@dataclass(eq=False)
class BoxEvent(Event):
    """A real output (column i, or the scalar with i None) >= a, and column j < b."""

    i: int | None
    a: float
    j: int | None = None
    b: float = math.inf
    upper: bool = True
    description: str = ""

    def mask(self, view):
        first = view.vals if self.i is None else view.mat[:, self.i]
        m = first >= self.a if self.upper else first < self.a
        if self.j is not None:
            m &= view.mat[:, self.j] < self.b
        return m


@dataclass(eq=False)
class IntervalsEvent(Event):
    """A real output in [a_0, b_0) ∪ [a_1, b_1) ∪ ...: ``ends`` is the increasing array
    a_0, b_0, a_1, b_1, ... (±inf allowed); y is inside when an odd number of ends are <= y."""

    ends: np.ndarray
    description: str = ""

    def mask(self, view):
        y = view.vals
        if len(self.ends) > 16:   # a binary search per output (~25 ns each) beats many comparisons
            return np.searchsorted(self.ends, y, side="right") % 2 == 1
        m = np.zeros(len(y), dtype=bool)
        for a, b in zip(self.ends[::2], self.ends[1::2]):   # two comparisons per interval: ~1 ns per output
            if a == -math.inf:
                m |= y < b
            elif b == math.inf:
                m |= y >= a
            else:
                m |= (y >= a) & (y < b)
        return m


@dataclass(eq=False)
class PredicateEvent(Event):
    """A user predicate on one raw output (for ``audit(events=...)``)."""

    predicate: object
    description: str = ""

    def mask(self, view):
        values, _ = _rows(view.raw)
        if isinstance(values, np.ndarray):
            items = values.tolist() if values.ndim == 1 else [tuple(r) for r in values.tolist()]
        else:
            items = values
        return np.fromiter((bool(self.predicate(v)) for v in items), dtype=bool, count=len(items))


# -- the plan: canonicalization, pair events and conformance events per form ------------------

def hash_rates(mech) -> tuple[float, float, int]:
    """(P(value == h(c, x) | x), P(value == one given other value | x), k) of a local-hashing
    spec (a cohort channel of a family whose pairs collide in exactly 1/k of the cohorts: the
    all-functions family into k values, e.g. specs/olh.toml, or the Hadamard family into 2,
    specs/hadamard.toml): C times the class weights of a hit and of a miss, exact and then as
    floats. The domain size may be left free (C = k^d is too large to bind at d = 10^5): the
    rates must then not depend on it, which sympy shows by simplifying C·w to an expression
    free of it."""
    from ldpaudit.errors import InvalidSpec
    from ldpaudit.mechanism.hashing import cohort_class, cohort_literals

    ch = mech.channel
    space = getattr(ch, "outputs", None)
    if ch.form != "structured" or type(space).__name__ != "CohortSpace":
        raise InvalidParameter(f"a hash projection needs a local-hashing spec (cohort outputs (c, v), e.g. "
                               f"specs/olh.toml); {mech.name!r} has {ch.form} outputs")
    family = getattr(space, "family", None)
    if family is None or family.name not in EXACT_FAMILIES or getattr(space, "permutation", False):
        raise InvalidParameter(f"a hash projection needs the all-functions or hadamard family (collision rate "
                               f"exactly 1/k) in the spec; {mech.name!r} declares "
                               f"{family.describe() if family else 'a table'}")
    if cohort_literals(ch):
        raise InvalidParameter(f"{mech.name!r} has cohort-specific classes; a hash projection needs "
                               f"exchangeable cohorts")
    try:
        hit = ch.classes[cohort_class(mech, ch, None, True)]
        miss = ch.classes[cohort_class(mech, ch, None, False)]
    except InvalidSpec as exc:
        raise InvalidParameter(f"a hash projection cannot read {mech.name!r}: {exc}") from None
    C, k = sp.sympify(space.C), sp.sympify(space.k)
    rates = [sp.simplify(C * hit.weight), sp.simplify(C * miss.weight)]
    free = sorted(str(s) for r in (*rates, k) for s in sp.sympify(r).free_symbols)
    if free:
        raise InvalidParameter(f"{mech.name!r}: the hit and miss rates of its cohorts depend on {', '.join(free)}; "
                               f"bind {free[0]} (-p {free[0]}=...)")
    return float(sp.N(rates[0], 17)), float(sp.N(rates[1], 17)), int(k)


#: families whose pairs of inputs collide in exactly 1/k of the cohorts (mechanism/hashing.py)
EXACT_FAMILIES = ("all-functions", "hadamard")


def family_hash(spec):
    """The spec's own vectorized hash h(seeds, x) when its cohort family supplies one that an
    implementation cannot choose differently (the Hadamard family of HR: H[x + 1, j] as a bit),
    else None (local hashing with a user-chosen hash: give it with --hash)."""
    space = getattr(getattr(spec, "channel", None), "outputs", None)
    family = getattr(space, "family", None)
    if type(space).__name__ != "CohortSpace" or family is None or getattr(space, "hash_table", None) is not None:
        return None
    return family.vectorized()


class Plan:
    """Exact events of one bound mechanism."""

    def __init__(self, mech, inputs: list, *, supports: bool = False):
        if mech.parameters:
            raise InvalidParameter(
                f"spec {mech.name!r} still has free parameters {', '.join(mech.parameter_names)}; "
                f"bind them first (e.g. mech.bind(d=8, epsilon=1))")
        self.mech = mech
        self.inputs = inputs
        ch = mech.channel
        form = ch.form
        self.space = ""
        if supports:  # outputs (seed, value) projected by the user's hash (projection.hash_support)
            self.kind = "hashed"
            self._hashed_setup()
        elif form == "structured" and type(ch.outputs).__name__ == "SubsetSpace":
            self.kind = "subset"
            self.d = int(ch.outputs.universe)
            self.k = int(ch.outputs.k)
            self.space = ch.outputs.describe()
            self._subset_setup()
        elif form == "structured" and type(ch.outputs).__name__ == "ElementSpace" and \
                len(mech.inputs.enumerate()) * int(ch.outputs.size) > MAX_ENTRIES:
            self.kind = "element"
            self.size = int(ch.outputs.size)
            self.space = ch.outputs.describe()
            self._subset_setup()
        elif form in ("explicit", "structured", "bloom"):  # bloom: O-RAPPOR, materialized
            self.kind = "finite"
            try:
                explicit = mech.materialize(max_entries=MAX_ENTRIES)
            except NotMaterializable as exc:
                hint = ("; for local hashing give the hash function (--hash module:func, or "
                        "feature=projection.hash_support(h, domain)) to audit the relation value == h(seed, x)"
                        if type(getattr(ch, "outputs", None)).__name__ == "CohortSpace" else "")
                raise InvalidParameter(f"spec-guided audit of {mech.name!r}: {exc}{hint}") from None
            self.labels = list(explicit.outputs)
            self.label_index = {y: i for i, y in enumerate(self.labels)}
            cache: dict = {}
            rows = {}
            for x, row in zip(explicit.inputs, explicit.matrix):
                rows[x] = np.array([cache.setdefault(e, float(sp.N(e, 17))) if e not in cache else cache[e]
                                    for e in row])
            self.P = rows
            self.space = "{" + ", ".join(map(repr, self.labels[:6])) + (", ...}" if len(self.labels) > 6 else "}")
            self.cohort = type(getattr(ch, "outputs", None)).__name__ == "CohortSpace"
        elif form == "product" and not ch.continuous:
            self.kind = "product"
            self.d = int(ch.coordinates)
            self.on = {int(v): float(sp.N(p, 17)) for v, p in ch.on.probabilities}
            self.off = {int(v): float(sp.N(p, 17)) for v, p in ch.off.probabilities}
            self.values = sorted(set(self.on) | set(self.off))
            self.space = f"{{{', '.join(map(str, self.values))}}}^{self.d}"
        elif form == "product":
            self.kind = "cproduct"
            self.d = int(ch.coordinates)
            self.cdf_on = _cdf(ch.on.density, None)
            self.cdf_off = _cdf(ch.off.density, None)
            self.space = f"R^{self.d}"
        else:
            self.kind = "density"
            self.density = ch.density
            self.space = "R"
            self.law = _PiecewiseLaw.of(ch.density)    # None: thresholds from numeric CDFs
            self._cdfs: dict = {}
        self._check_inputs()

    # inputs
    def _check_inputs(self):
        dom = self.mech.inputs
        if hasattr(dom, "enumerate"):
            allowed = set(dom.enumerate())
            for x in self.inputs:
                if x not in allowed:
                    raise InvalidParameter(f"input {x!r} is not in the spec's domain {dom.describe()}")
            self.position = {x: i for i, x in enumerate(dom.enumerate())}
        else:
            low, high = float(dom.low), float(dom.high)
            for x in self.inputs:
                if not low <= float(x) <= high:
                    raise InvalidParameter(f"input {x!r} is not in the spec's domain {dom.describe()}")

    # local hashing read through the user's hash
    def _hashed_setup(self):
        """Exact laws of the support rows [v == h(c, u)] of a cohort channel (spec/hashing.py):
        under input x the cohort is uniform, v = h(c, x) with probability p = C·w_hit and any one
        other value with q = C·w_miss (the class weights of the spec); with the all-functions
        family, h(c, x') for x' != x is uniform and independent of h(c, x) and of every other
        input's hash, so two inputs collide with probability κ = 1/k and the other inputs'
        supports are independent Bernoulli(1/k) draws."""
        mech = self.mech
        self.p_hit, self.q_miss, self.k = hash_rates(mech)
        self.kappa = 1.0 / self.k
        self.d = len(mech.inputs.enumerate())
        self.space = f"support rows {{0, 1}}^{self.d} of (seed, value) under the user's hash"

    def _hashed_cells(self) -> dict:
        """P((v == h(c, x), v == h(c, x')) = (a, b) | x) for x != x'."""
        p, q, kap = self.p_hit, self.q_miss, self.kappa
        return {(1, 1): kap * p, (1, 0): (1 - kap) * p, (0, 1): (1 - kap) * q,
                (0, 0): (1 - kap) * (1 - p - q) + kap * (1 - p)}

    # subset structure
    def _subset_setup(self):
        from ldpaudit.mechanism.expr import eval_condition

        ch = self.mech.channel
        env0 = {k: (int(v) if sp.sympify(v).is_Integer else v) for k, v in self.mech.bindings}
        env0["bit"] = lambda value, j: (int(value) >> int(j)) & 1
        weights = [float(sp.N(c.weight, 17)) for c in ch.classes]
        rng = random.Random(0)

        def weight(x, y):
            env = dict(env0, x=x, y=y)
            hits = [w for c, w in zip(ch.classes, weights) if eval_condition(c.predicate, env)]
            if len(hits) != 1:
                raise InvalidParameter(f"output {y} for input {x} of {self.mech.name!r} is in {len(hits)} classes")
            return hits[0]

        self._subset_weight = weight
        self._rng = rng

    def _subset_patterns(self, x, xp):
        """[(a, b, count, P(pattern|x), P(pattern|x'))] for a = [x in y], b = [x' in y]."""
        d, k = self.d, self.k
        others = [e for e in range(d) if e not in (x, xp)]
        out = []
        for a, b in itertools.product((1, 0), repeat=2):
            fill = k - a - b
            if fill < 0 or fill > len(others):
                continue
            count = math.comb(len(others), fill)
            wx = wy = None
            for _ in range(3):   # the class must not depend on which other elements fill y
                rest = self._rng.sample(others, fill)
                y = tuple(sorted(rest + ([x] if a else []) + ([xp] if b else [])))
                wx2, wy2 = self._subset_weight(x, y), self._subset_weight(xp, y)
                if wx is not None and (wx2 != wx or wy2 != wy):
                    raise InvalidParameter(
                        f"the classes of {self.mech.name!r} depend on more than the membership of the "
                        f"inputs; spec-guided auditing cannot use its structure")
                wx, wy = wx2, wy2
            out.append((a, b, count, count * wx, count * wy))
        return out

    def _element_groups(self, x, xp):
        """[(name, members, count, P(group|x), P(group|x'))] for the groups {y = x}, {y = x'}
        and all other outputs of a large element space."""
        size = self.size
        special = [v for v in dict.fromkeys((x, xp)) if isinstance(v, int) and 0 <= v < size]
        others = size - len(special)
        groups = [(f"y = {v}", (v,), 1, self._subset_weight(x, v), self._subset_weight(xp, v)) for v in special]
        if others > 0:
            wx = wy = None
            for _ in range(3):   # the class must not depend on which other output
                v = self._rng.randrange(size)
                while v in special:
                    v = self._rng.randrange(size)
                wx2, wy2 = self._subset_weight(x, v), self._subset_weight(xp, v)
                if wx is not None and (wx2 != wx or wy2 != wy):
                    raise InvalidParameter(
                        f"{self.mech.name!r} has {size} outputs whose classes depend on more than "
                        f"y == x; too large to materialize for a spec-guided audit")
                wx, wy = wx2, wy2
            groups.append(("other", None, others, others * wx, others * wy))
        return groups

    # canonicalization
    def view(self, out: Outputs, x) -> SpecView:
        values, weights = _rows(out)
        v = SpecView(out.n, weights, raw=out)
        if self.kind == "finite":
            v.codes = self._codes(values, x)
        elif self.kind == "element":
            v.codes = self._element_codes(values, x)
        elif self.kind == "subset":
            v.mat = self._membership(values, x)
        elif self.kind in ("product", "cproduct"):
            v.mat = self._matrix(values, x, self.d, continuous=self.kind == "cproduct")
        elif self.kind == "hashed":
            v.mat = self._supports(values, x)
        else:
            vals = values if isinstance(values, np.ndarray) else np.array(values, dtype=float)
            if vals.ndim != 1 or vals.dtype.kind not in "iuf":
                raise _space_error(x, values[0], self.space)
            v.vals = vals.astype(float)
        return v

    def _codes(self, values, x) -> np.ndarray:
        n_lab = len(self.labels)
        if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind in "biu" \
                and self.labels == list(range(n_lab)):
            bad = (values < 0) | (values >= n_lab)
            if bad.any():
                raise _space_error(x, values[np.argmax(bad)].item(), self.space)
            return values.astype(np.int64)
        if isinstance(values, np.ndarray):
            items = values.tolist() if values.ndim == 1 else [tuple(r) for r in values.tolist()]
        else:
            items = values
        codes = np.empty(len(items), dtype=np.int64)
        for i, y in enumerate(items):
            c = self.label_index.get(y)
            if c is None:
                raise _space_error(x, y, self.space)
            codes[i] = c
        return codes

    def _element_codes(self, values, x) -> np.ndarray:
        arr = values if isinstance(values, np.ndarray) else np.array(values)
        if arr.ndim != 1 or arr.dtype.kind not in "biu":
            raise _space_error(x, values[0], self.space)
        bad = (arr < 0) | (arr >= self.size)
        if bad.any():
            raise _space_error(x, arr[np.argmax(bad)].item(), self.space)
        return arr.astype(np.int64)

    def _membership(self, values, x) -> np.ndarray:
        d, k = self.d, self.k
        if isinstance(values, np.ndarray) and values.ndim == 2 and values.shape[1] == d \
                and np.isin(values, (0, 1)).all():
            mat = values.astype(bool)
        else:
            items = values.tolist() if isinstance(values, np.ndarray) else values
            mat = np.zeros((len(items), d), dtype=bool)
            for r, y in enumerate(items):
                elems = y if isinstance(y, (tuple, list, frozenset, set)) else None
                if elems is None or any(not isinstance(e, (int, np.integer)) or not 0 <= e < d for e in elems):
                    raise _space_error(x, y, self.space)
                mat[r, list(elems)] = True
        sizes = mat.sum(axis=1)
        if (sizes != k).any():
            r = int(np.argmax(sizes != k))
            raise _space_error(x, sorted(np.flatnonzero(mat[r]).tolist()), self.space)
        return mat

    def _supports(self, values, x) -> np.ndarray:
        mat = values if isinstance(values, np.ndarray) else np.array(values)
        if mat.ndim != 2 or mat.shape[1] != self.d or not np.isin(mat, (0, 1)).all():
            raise _space_error(x, values[0], self.space)
        return mat

    def _matrix(self, values, x, d, *, continuous) -> np.ndarray:
        mat = values if isinstance(values, np.ndarray) else np.array(values)
        if mat.ndim != 2 or mat.shape[1] != d or mat.dtype.kind not in "biuf":
            raise _space_error(x, values[0], self.space)
        if not continuous:
            bad = ~np.isin(mat, self.values)
            if bad.any():
                r = int(np.argmax(bad.any(axis=1)))
                raise _space_error(x, tuple(mat[r].tolist()), self.space)
        return mat

    # pair events
    def pair_candidates(self, x, xp, n: int, z: float) -> list[Candidate]:
        if self.kind == "finite":
            p, q = self.P[x], self.P[xp]
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(q > 0, p / np.where(q > 0, q, 1), np.inf)
            levels = sorted(set(np.round(ratio[p > 0], 12)), reverse=True)
            out = []
            for lv in levels:
                in_set = (np.round(ratio, 12) >= lv) & (p > 0)
                out.append((in_set, float(p[in_set].sum()), float(q[in_set].sum())))
            return self._best([(CodeSetEvent(s, self._describe_codes(s)), a, b) for s, a, b in out], x, xp, n, z)
        if self.kind == "element":
            groups = self._element_groups(x, xp)
            groups.sort(key=lambda g: -(g[3] / g[4] if g[4] > 0 else math.inf))
            cands = []
            for m in range(1, len(groups) + 1):
                chosen = groups[:m]
                singles = tuple(v for g in chosen if g[1] for v in g[1])
                others = any(g[1] is None for g in chosen)
                excluded = tuple(v for g in groups if g[1] and g not in chosen for v in g[1])
                desc = " or ".join(g[0] if g[1] else "y not in {" + ", ".join(map(str, excluded or ())) + "}"
                                   for g in chosen)
                cands.append((ElementEvent(singles, others, tuple(v for g in groups if g[1] for v in g[1]), desc),
                              sum(g[3] for g in chosen), sum(g[4] for g in chosen)))
            return self._best(cands, x, xp, n, z)
        if self.kind == "subset":
            pats = self._subset_patterns(x, xp)
            pats.sort(key=lambda t: -(t[3] / t[4] if t[4] > 0 else math.inf))
            cands = []
            for m in range(1, len(pats) + 1):
                chosen = pats[:m]
                cells = tuple((a, b) for a, b, *_ in chosen)
                desc = " or ".join(f"({_member(x, a)} and {_member(xp, b)})" for a, b in cells)
                cands.append((CellsEvent(x, xp, cells, desc), sum(t[3] for t in chosen), sum(t[4] for t in chosen)))
            return self._best(cands, x, xp, n, z)
        if self.kind == "hashed":
            i, j = self.position[x], self.position[xp]
            law = self._hashed_cells()
            cells = [((a, b), law[(a, b)], law[(b, a)]) for (a, b) in law if law[(a, b)] > 0]
            cells.sort(key=lambda c: -(c[1] / c[2] if c[2] > 0 else math.inf))
            cands = []
            for m in range(1, len(cells) + 1):
                chosen = cells[:m]
                desc = " or ".join(f"(v {'==' if a else '!='} h(seed, {x!r}) and v {'==' if b else '!='} "
                                   f"h(seed, {xp!r}))" for (a, b), *_ in chosen)
                cands.append((CellsEvent(i, j, tuple(c[0] for c in chosen), desc),
                              sum(c[1] for c in chosen), sum(c[2] for c in chosen)))
            return self._best(cands, x, xp, n, z)
        if self.kind == "product":
            i, j = self.position[x], self.position[xp]
            cells = [((a, b), self.on.get(a, 0) * self.off.get(b, 0), self.off.get(a, 0) * self.on.get(b, 0))
                     for a in self.values for b in self.values]
            cells = [c for c in cells if c[1] > 0]
            cells.sort(key=lambda c: -(c[1] / c[2] if c[2] > 0 else math.inf))
            cands = []
            for m in range(1, len(cells) + 1):
                chosen = cells[:m]
                desc = " or ".join(f"(y[{i}] = {a} and y[{j}] = {b})" for (a, b), *_ in chosen)
                cands.append((CellsEvent(i, j, tuple(c[0] for c in chosen), desc),
                              sum(c[1] for c in chosen), sum(c[2] for c in chosen)))
            return self._best(cands, x, xp, n, z)
        if self.kind == "cproduct":
            i, j = self.position[x], self.position[xp]
            grid = _grid(self.cdf_on, self.cdf_off)
            cands = []
            for a in grid:
                for b in list(grid) + [math.inf]:
                    p = (1 - self.cdf_on(a)) * (self.cdf_off(b) if b < math.inf else 1.0)
                    q = (1 - self.cdf_off(a)) * (self.cdf_on(b) if b < math.inf else 1.0)
                    desc = f"y[{i}] >= {a:.4g}" + (f" and y[{j}] < {b:.4g}" if b < math.inf else "")
                    cands.append((BoxEvent(i, a, j if b < math.inf else None, b, True, desc), p, q))
            return self._best(cands, x, xp, n, z)
        if self.law is not None:
            return self._best(self._cell_candidates(x, xp), x, xp, n, z)
        cdf_x, cdf_y = self._cdf(x), self._cdf(xp)
        cands = []
        for c in _grid(cdf_x, cdf_y):
            cands.append((BoxEvent(None, c, upper=True, description=f"y >= {c:.4g}"), 1 - cdf_x(c), 1 - cdf_y(c)))
            cands.append((BoxEvent(None, c, upper=False, description=f"y < {c:.4g}"), cdf_x(c), cdf_y(c)))
        return self._best(cands, x, xp, n, z)

    def _cdf(self, x):
        """The numeric CDF of the density at input x, one per input (its values and quantiles
        are shared by every pair and conformance test of x)."""
        key = float(x)
        if key not in self._cdfs:
            self._cdfs[key] = _cdf(self.density, key)
        return self._cdfs[key]

    def _cell_candidates(self, x, xp) -> list[tuple[Event, float, float]]:
        """Unions of the cells between the breakpoints of f(.|x) and f(.|x'), by decreasing
        f(z|x)/f(z|x') (constant on a cell of a piecewise-constant density, else the ratio of
        the cells' masses): every prefix of the cells grouped by equal ratio, with its exact
        probabilities P(S|x) = Σ length × value (floats only at the end)."""
        cells = [c for c in self.law.cells((x, xp)) if c.masses[0] != 0 or c.masses[1] != 0]
        ranked = []
        for c in cells:
            a, b = c.masses
            ranked.append((sp.oo if b == 0 else sp.N(a / b, 30), c))
        ranked.sort(key=lambda t: t[0], reverse=True)
        groups: list[list] = []
        last = None
        for r, c in ranked:
            if last is not None and (r == last or (r != sp.oo and last != sp.oo and abs(r - last) <= 1e-20 * abs(last))):
                groups[-1].append(c)
            else:
                groups.append([c])
            last = r
        out = []
        chosen: list = []
        for g in groups:
            chosen = chosen + g
            p = _float(sp.Add(*[c.masses[0] for c in chosen]))
            q = _float(sp.Add(*[c.masses[1] for c in chosen]))
            out.append((_intervals_event(chosen), p, q))
        return out

    @staticmethod
    def _best(cands, x, xp, n, z) -> list[Candidate]:
        if not cands:
            return []
        p = np.array([c[1] for c in cands])
        q = np.array([c[2] for c in cands])
        pred = bounds.predicted_bound(p, q, n, z)
        i = int(np.argmax(pred))
        if not math.isfinite(pred[i]):
            return []
        c = Candidate((x, xp), cands[i][0], "spec", float(pred[i]), float(p[i]), float(q[i]))
        c.sd = float(bounds.bound_sd(p[i], q[i], n))
        return [c]

    def _describe_codes(self, in_set) -> str:
        labels = [self.labels[i] for i in np.flatnonzero(in_set)]
        shown = ", ".join(map(repr, labels[:8])) + (f", ... ({len(labels) - 8} more)" if len(labels) > 8 else "")
        return f"y in {{{shown}}}"

    def pooled_candidates(self, pairs: list, n: int, z: float) -> list[Candidate]:
        """The relation S_x = {y = x} pooled over every input against x' = the next input
        (pool.py), with its exact probabilities averaged from the spec: for finite channels whose
        outputs include the inputs (k-RR, W-RR), when the pairs are every ordered pair."""
        from ldpaudit.audit.pool import PooledCandidate, RelationEvent, _cyclic, pooled_texts

        inputs = list(dict.fromkeys(u for p in pairs for u in p))
        if self.kind != "finite" or len(inputs) < 3 or len(pairs) != len(inputs) * (len(inputs) - 1):
            return []
        target = {u: self.label_index.get(u, -1) for u in inputs}
        if any(t < 0 for t in target.values()):
            return []
        succ, pred = _cyclic(inputs)
        d = len(inputs)
        p = sum(self.P[u][target[u]] for u in inputs) / d
        q = sum(self.P[succ[u]][target[u]] for u in inputs) / d
        predicted = float(bounds.predicted_bound(p, q, n * d, z))
        if not math.isfinite(predicted):
            return []
        text, pooled = pooled_texts("y == x", d)
        event = RelationEvent(target, pred, succ, False, text)
        c = PooledCandidate((inputs[0], succ[inputs[0]]), event, "pooled", predicted, p, q, x_side=tuple(inputs),
                            y_side=tuple(inputs), pooled_text=pooled)
        c.sd = float(bounds.bound_sd(p, q, n * d))
        return [c]

    def pooled_conformance_events(self, used: list) -> list[tuple[Event, float, int]]:
        """Events whose probability the spec makes the same under every input (y = x under x,
        x in y, y[x] = v, the other coordinates): one test each on the draws of all inputs
        (trials per draw per input given), far more powerful than one test per input."""
        out = []
        if len(used) < 2:
            return out
        if self.kind == "product":
            column = {u: self.position[u] for u in used}
            for v in self.values[1:]:
                out.append((_PooledRelation(column=column, value=v, description=f"y[x] = {v} under every x (pooled)"),
                            self.on.get(v, 0.0), 1))
                out.append((_PooledRelation(column=column, value=v, off=True,
                                            description=f"y[j] = {v} for j != x under every x (pooled)"),
                            self.off.get(v, 0.0), self.d - 1))
        elif self.kind == "hashed":
            column = {u: self.position[u] for u in used}
            out.append((_PooledRelation(column=column, value=1, description="v == h(seed, x) under every x (pooled)"),
                        self.p_hit, 1))
            out.append((_PooledRelation(column=column, value=1, off=True,
                                        description="v == h(seed, j) for j != x under every x (pooled)"),
                        self.kappa * self.p_hit + (1 - self.kappa) * self.q_miss, self.d - 1))
        elif self.kind == "subset":
            column = {u: u for u in used}
            g = [sum(t[3] for t in self._subset_patterns(u, next(e for e in range(self.d) if e != u)) if t[0] == 1)
                 for u in used]
            if max(g) - min(g) <= 1e-12 * max(g):
                out.append((_PooledRelation(column=column, description="x in y under every x (pooled)"), g[0], 1))
        elif self.kind == "element":
            if all(isinstance(u, int) and 0 <= u < self.size for u in used):
                ps = [self._subset_weight(u, u) for u in used]
                if max(ps) - min(ps) <= 1e-12 * max(ps):
                    out.append((_PooledRelation(code={u: u for u in used}, description="y = x under every x (pooled)"),
                                ps[0], 1))
        elif self.kind == "finite":
            if all(u in self.label_index for u in used):
                code = {u: self.label_index[u] for u in used}
                ps = [float(self.P[u][code[u]]) for u in used]
                if max(ps) - min(ps) <= 1e-12 * max(ps):
                    out.append((_PooledRelation(code=code, description="y = x under every x (pooled)"), ps[0], 1))
        return out

    # conformance events: (event, expected probability, pooled column count or None)
    def conformance_events(self, x, pair_events: list) -> list[tuple[Event, float, int]]:
        """Events whose frequency under input x the spec fixes exactly: (event, p, trials per draw)."""
        out = []
        if self.kind == "finite":
            p = self.P[x]
            if len(p) <= MAX_SINGLETON_TESTS:
                for i, pi in enumerate(p):
                    s = np.zeros(len(p), bool)
                    s[i] = True
                    out.append((CodeSetEvent(s, f"y = {self.labels[i]!r}"), float(pi), 1))
                return out
        if self.kind == "finite":
            p = self.P[x]
            top = p >= p.max() * (1 - 1e-12)
            names = [self.labels[i] for i in np.flatnonzero(top)]
            text = "y in {" + ", ".join(map(repr, names[:6])) + (", ...}" if len(names) > 6 else "}")
            out.append((CodeSetEvent(top, text + " (most likely outputs)"), float(p[top].sum()), 1))
        if self.kind == "element" and isinstance(x, int) and 0 <= x < self.size:
            out.append((ElementEvent((x,), False, (x,), f"y = {x}"), self._subset_weight(x, x), 1))
        if self.kind == "subset":
            g = sum(t[3] for t in self._subset_patterns(x, next(e for e in range(self.d) if e != x)) if t[0] == 1)
            out.append((ColumnValueEvent(x, True, f"{x} in y"), g, 1))
        if self.kind == "hashed":
            i = self.position[x]
            out.append((ColumnValueEvent(i, 1, f"v == h(seed, {x!r})"), self.p_hit, 1))
            out.append((_OffColumns(i, 1, f"v == h(seed, j) for j != {x!r} (pooled)"),
                        self.kappa * self.p_hit + (1 - self.kappa) * self.q_miss, self.d - 1))
        if self.kind == "product":
            i = self.position[x]
            for v in self.values[1:]:
                out.append((ColumnValueEvent(i, v, f"y[{i}] = {v}"), self.on.get(v, 0.0), 1))
                out.append((_OffColumns(i, v, f"y[j] = {v} for j != {i} (pooled)"), self.off.get(v, 0.0), self.d - 1))
        if self.kind == "cproduct":
            i = self.position[x]
            for a in (-1.0, 0.0, 0.5, 1.0, 2.0):
                out.append((BoxEvent(i, a, description=f"y[{i}] >= {a}"), 1 - self.cdf_on(a), 1))
                out.append((_OffColumns(i, a, f"y[j] >= {a} for j != {i} (pooled)", real=True),
                            1 - self.cdf_off(a), self.d - 1))
        if self.kind == "density" and self.law is not None:
            out += self._cell_tests(x)
        elif self.kind == "density":
            cdf = self._cdf(x)
            for c in _grid(cdf, cdf, points=(0.1, 0.25, 0.5, 0.75, 0.9)):
                out.append((BoxEvent(None, c, description=f"y >= {c:.4g}"), 1 - cdf(c), 1))
        for cand, role in pair_events:
            p = cand.p_explore if role == 0 else cand.q_explore
            out.append((cand.event, p, 1))
        return out


    def _cell_tests(self, x) -> list[tuple[Event, float, int]]:
        """One test per cell of f(.|x) with positive mass (its frequency against length ×
        value), and one of the cells of density 0 (expected count 0), each narrowed by
        ``SUPPORT_MARGIN`` of the support's width at its finite ends so that outputs rounded to
        a grid (post-processing the reference samplers do) do not count outside."""
        cells = self.law.cells((x,))
        finite = [v for c in cells for v in (c.lo_f, c.hi_f) if math.isfinite(v)]
        margin = SUPPORT_MARGIN * (max(finite) - min(finite)) if finite else 0.0
        out = []
        zero = []
        for c in cells:
            if c.masses[0] != 0:
                out.append((_intervals_event([c]), _float(c.masses[0]), 1))
                continue
            lo, hi = c.lo_f + margin, c.hi_f - margin   # inf - margin = inf
            if lo < hi:
                zero.append((lo, hi))
        if zero:
            ends = np.array([v for iv in zero for v in iv])
            text = " ∪ ".join(_interval_text(lo, hi) for lo, hi in zero)
            out.append((IntervalsEvent(ends, f"y in {text} (density 0 under x = {x!r}; "
                                             f"{SUPPORT_MARGIN:g} of the support's width spared at its ends)"), 0.0, 1))
        return out


@dataclass(frozen=True)
class _Cell:
    """An open interval (lo, hi) between consecutive breakpoints (exact, and as floats), and
    its exact probability under each of the inputs it was built for."""

    lo: sp.Basic
    hi: sp.Basic
    lo_f: float
    hi_f: float
    masses: tuple


class _PiecewiseLaw:
    """The exact law of a density piecewise in z (ldpaudit.mechanism.piecewise) at numeric
    inputs: breakpoints, the density on each cell, and the cells between the breakpoints of
    several inputs with their masses, by exact integration (no quadrature)."""

    def __init__(self, pd):
        self.pd = pd
        self._at: dict = {}

    @staticmethod
    def of(density) -> "_PiecewiseLaw | None":
        from ldpaudit.errors import InvalidSpec
        from ldpaudit.mechanism.params import Z
        from ldpaudit.mechanism.piecewise import NotPiecewiseLinear, PiecewiseDensity, is_piecewise_in

        if not is_piecewise_in(density, Z):
            return None
        try:
            return _PiecewiseLaw(PiecewiseDensity(density, Z))
        except (NotPiecewiseLinear, InvalidSpec):
            return None

    def at(self, x) -> tuple[list, list, list]:
        """At input x (the exact value of the double the randomizer is given): the breakpoints
        in increasing order, their 30-digit values, and the density on each of the cells."""
        key = float(x)
        if key not in self._at:
            from ldpaudit.mechanism.params import X

            exact = sp.Rational(*Fraction(key).as_integer_ratio())
            order, values = self.pd.order_at({X: exact})
            points = [values[k] for k in order]
            cells = [sp.sympify(v).xreplace({X: exact}) for v in self.pd.cell_values(order)]
            self._at[key] = (points, [sp.N(v, 30) for v in points], cells)
        return self._at[key]

    def cells(self, inputs) -> list[_Cell]:
        """The cells between the breakpoints of f(.|u) for every u in ``inputs`` (merged; points
        within 1e-25 of each other are one), with P(cell|u) for each u, exactly."""
        pts: list = []
        for u in inputs:
            points, keys, _ = self.at(u)
            pts += zip(keys, points)
        pts.sort(key=lambda t: t[0])
        merged: list = []
        for key, v in pts:
            if merged and abs(key - merged[-1][0]) <= 1e-25 * max(1, abs(key)):
                continue
            merged.append((key, v))
        bounds_ = [(None, -sp.oo)] + merged + [(None, sp.oo)]
        out = []
        for (klo, lo), (khi, hi) in zip(bounds_[:-1], bounds_[1:]):
            if klo is None and khi is None:
                t = sp.Integer(0)
            else:
                t = khi - 1 if klo is None else klo + 1 if khi is None else (klo + khi) / 2
            masses = []
            for u in inputs:
                _, keys, values = self.at(u)
                masses.append(_cell_mass(values[bisect.bisect_left(keys, t)], lo, hi))
            out.append(_Cell(lo, hi, -math.inf if klo is None else float(klo), math.inf if khi is None else float(khi),
                             tuple(masses)))
        return out


def _cell_mass(value, lo, hi) -> sp.Basic:
    """∫_lo^hi value dz, exactly: length × value for a value constant in z."""
    from ldpaudit.mechanism.params import Z
    from ldpaudit.mechanism.piecewise import integrate_cell

    if value == 0:
        return sp.Integer(0)
    if not value.has(Z):
        return value * (hi - lo)
    return integrate_cell(value, Z, lo, hi)


def _float(value) -> float:
    return float(sp.N(value, 20))


def _interval_text(lo: float, hi: float) -> str:
    if lo == -math.inf:
        return f"(-inf, {hi:.6g})"
    return f"[{lo:.6g}, {hi:.6g})" if hi < math.inf else f"[{lo:.6g}, inf)"


def _intervals_event(cells: list) -> IntervalsEvent:
    """The union of cells (adjacent ones joined) as one event."""
    spans: list = []
    for c in sorted(cells, key=lambda c: c.lo_f):
        if spans and spans[-1][1] == c.lo_f:
            spans[-1][1] = c.hi_f
        else:
            spans.append([c.lo_f, c.hi_f])
    text = " ∪ ".join(_interval_text(lo, hi) for lo, hi in spans)
    return IntervalsEvent(np.array([v for s in spans for v in s]), f"y in {text}")


@dataclass(eq=False)
class _OffColumns(Event):
    """Pooled over the columns other than i: the number of (row, column) with value v
    (or >= v for real columns); Binomial(n (d-1), p) under a product spec."""

    i: int
    value: object
    description: str = ""
    real: bool = False

    def hits(self, view, u=None, role: int = 0) -> int:
        mat = view.mat
        hit = mat >= self.value if self.real else mat == self.value
        per_row = hit.sum(axis=1) - hit[:, self.i]
        return int(per_row.sum() if view.weights is None else (per_row * view.weights).sum())


@dataclass(eq=False)
class _PooledRelation(Event):
    """A conformance event that depends on the input u through one relation, counted on the
    draws of every input: y = u (codes), u in y / y[pos(u)] = value (column of u), or the
    other columns of u (``off``, (d-1) trials per draw). Under the spec its count over all
    inputs is a sum of independent Bernoulli draws of one shared probability, a binomial."""

    column: dict | None = None          # u -> column of mat
    code: dict | None = None            # u -> output code
    value: object = True
    off: bool = False
    real: bool = False
    description: str = ""

    def hits(self, view, u=None, role: int = 0) -> int:
        if self.code is not None:
            return view.count(view.codes == self.code[u])
        j = self.column[u]
        if self.off:
            return _OffColumns(j, self.value, real=self.real).hits(view)
        col = view.mat[:, j]
        return view.count(col >= self.value if self.real else col == self.value)


def _member(x, a) -> str:
    return f"{x} in y" if a else f"{x} not in y"


def _cdf(density, x_value):
    """A numeric CDF of a density in z (x substituted when given)."""
    from scipy import integrate

    from ldpaudit.mechanism.params import X, Z

    expr = density if x_value is None else density.xreplace({X: sp.Float(x_value, 30)})
    f = sp.lambdify(Z, expr, modules=["numpy"])
    cache: dict = {}

    def cdf(c):
        c = float(c)
        if c not in cache:
            # split at the kinks of typical densities so quad is accurate
            val, _ = integrate.quad(lambda z: float(f(z)), -np.inf, c, limit=200, epsabs=1e-13, epsrel=1e-11)
            cache[c] = min(max(val, 0.0), 1.0)
        return cache[c]

    return cdf


def _grid(cdf_a, cdf_b, points=None) -> list[float]:
    """Thresholds: quantiles of both laws (found by bisection on the CDFs)."""
    levels = points or (0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98)
    out = set()
    for cdf in (cdf_a, cdf_b):
        for lv in levels:
            out.add(round(_quantile(cdf, lv), 6) + 0.0)   # + 0.0 turns -0.0 into 0.0
    return sorted(out)


def _quantile(cdf, level: float) -> float:
    lo, hi = -1.0, 1.0
    while cdf(lo) > level:
        lo *= 2
    while cdf(hi) < level:
        hi *= 2
    for _ in range(40):
        mid = (lo + hi) / 2
        if cdf(mid) < level:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# -- the guided audit -------------------------------------------------------------------------

def _holm(pvalues: list[float], alpha: float) -> list[bool]:
    """Holm's step-down rejections at family-wise level alpha."""
    order = np.argsort(pvalues, kind="stable")
    m = len(pvalues)
    reject = [False] * m
    for rank, i in enumerate(order):
        if pvalues[i] <= alpha / (m - rank):
            reject[i] = True
        else:
            break
    return reject


def guided_audit(sampler: Sampler, *, inputs, pairs, epsilon, samples, alpha, seed, spec, events,
                 workers, progress, max_confirm, t0, looks=None, cluster=None, supports: bool = False):
    """Audit with candidate events fixed before sampling. ``looks`` (cumulative draws per
    input, α of that look) lets a sequential audit stop at the first look that certifies a
    violation; by default there is one look at (samples, alpha)."""
    index = {x: i for i, x in enumerate(inputs)}
    n = samples
    z = bounds.z_value(alpha / (2 * max_confirm))
    plan = Plan(spec, inputs, supports=supports) if spec is not None else None
    candidates: list[Candidate] = []
    if events is not None:
        for item in events:
            try:
                pair, predicate, p, q = item
            except (TypeError, ValueError):
                raise InvalidParameter("events must be a list of (pair, predicate, P(S|x), P(S|x'))") from None
            pred = float(bounds.predicted_bound(p, q, n, z))
            desc = getattr(predicate, "__doc__", None) or getattr(predicate, "__name__", "predicate")
            c = Candidate(tuple(pair), PredicateEvent(predicate, desc.strip()), "given", pred, float(p), float(q))
            c.sd = float(bounds.bound_sd(p, q, n))
            candidates.append(c)
    else:
        for x, xp in pairs:
            candidates += plan.pair_candidates(x, xp, n, z)
        candidates += plan.pooled_candidates(pairs, n, z)
    candidates.sort(key=lambda c: -c.predicted)
    chosen = choose(candidates, max_confirm)

    used = sorted({u for p in pairs for u in p}, key=index.get) if plan is not None else \
        sorted({u for c in chosen for u in c.pair}, key=index.get)
    tests: list[tuple] = []     # (input or None for every input, event, p, trials per draw)
    if plan is not None:
        for u in used:
            # pooled candidates (pooled_candidates) have per-input events; their law is tested pooled below
            roles = [(c, role) for c in chosen for role in (0, 1) if c.pair[role] == u and len(c.inputs) == 2]
            for ev, p, per in plan.conformance_events(u, roles):
                tests.append((u, ev, p, per))
        for ev, p, per in plan.pooled_conformance_events(used):
            tests.append((None, ev, p, per * len(used)))

    prog = Progress(progress)
    engine = make_draws(sampler, seed, int(workers), prog, cluster)
    test_hits = [0] * len(tests)
    tests_of: dict = {}
    for ti, (tu, ev, _, _) in enumerate(tests):
        tests_of.setdefault(tu, []).append((ti, ev))

    def count_tests(u, view) -> list[int]:
        counts = [0] * len(tests)
        for ti, ev in [*tests_of.get(u, ()), *tests_of.get(None, ())]:
            counts[ti] += ev.hits(view, u, 0)
        return counts

    looks = looks or [(n, alpha)]
    view_of = plan.view if plan is not None else (lambda out, u: SpecView(out.n, out.counts, raw=out))
    try:
        done, best, k, alpha_each = confirm_counts(engine, prog, chosen, used=used, index=index, view_of=view_of,
                                                   looks=looks, phase=_PHASE_GUIDED, epsilon=epsilon,
                                                   on_view=count_tests, view_counts=test_hits)
    finally:
        engine.close()
        prog.close()

    n = done
    lb = 0.0
    witness = None
    if best is not None:
        lb = max(best[0], 0.0)
        witness = witness_of(best, n, k, p_spec=best[1].p_explore, q_spec=best[1].q_explore)
    conformance = None
    if plan is not None:
        conformance = _conformance(tests, test_hits, n, alpha)
    source = "the spec's exact channel" if plan is not None else "the given events"
    method = (f"spec-guided: {len(chosen)} (pair, event) candidate(s) chosen from {source} before sampling "
              f"(no exploration); {n} draws per input; one-sided exact Clopper-Pearson bounds at "
              f"α/(2·{k}) = {alpha_each:.3g} each (Bonferroni over {k} candidate(s) × 2 bounds), so a truly "
              f"ε-LDP randomizer is reported as a VIOLATION with probability at most α = {alpha:g}")
    if conformance is not None:
        method += f"; conformance: {conformance['method']}"
    return AuditResult(verdict_of(lb, epsilon), epsilon, lb, 1 - alpha, witness, n,
                       time.perf_counter() - t0, bounds.detectable_epsilon(n, alpha_each),
                       conformance, method)


def _conformance(tests, test_hits, n: int, alpha: float) -> dict:
    pvalues = []
    for (u, ev, p, per), h in zip(tests, test_hits):
        trials = n * per
        pvalues.append(binomial.pvalue(h, trials, min(max(p, 0.0), 1.0)))
    reject = _holm(pvalues, alpha) if pvalues else []
    rejected = [i for i, r in enumerate(reject) if r]
    discrepancy = None
    if rejected:
        i = min(rejected, key=lambda j: pvalues[j])
        u, ev, p, per = tests[i]
        trials = n * per
        discrepancy = {"input": u if u is not None else "every input (pooled)", "event": ev.description, "count": test_hits[i], "trials": trials,
                       "observed_frequency": test_hits[i] / trials, "expected_probability": p,
                       "p_value": pvalues[i]}
    return {"passed": not rejected, "tests": len(tests), "rejected": len(rejected), "alpha": alpha,
            "method": (f"{len(tests)} exact two-sided binomial tests of observed frequencies against the "
                       f"spec's probabilities, Holm-corrected at family-wise level α = {alpha:g}"),
            "discrepancy": discrepancy}


# -- local hashing over a wide domain (audit/wide.py) -----------------------------------------

class _RoleTest:
    """A conformance test of a pooled relation under one role (counted on every input)."""

    def __init__(self, relation, role: int, text: str):
        self.relation, self.role, self.description = relation, role, text

    def hits(self, view, u, role: int) -> int:
        return self.relation.hits(view, u, self.role)


def hashed_wide_audit(sampler: Sampler, hash_function, *, inputs, epsilon, samples, alpha, seed, spec, workers,
                      progress, t0, looks=None, cluster=None, from_spec: bool = False):
    """The spec-guided audit of local hashing over a wide domain, reading the outputs
    (seed, value) through the hash without a d-long support row per output: the one event the
    spec shows tight, S_x = {value == h(seed, x), value != h(seed, x')} pooled over every
    input against x' = next(x), with P(S_x|x) = p_hit·(1 − 1/k) and P(S_x|x') =
    q_miss·(1 − 1/k) exactly (the family's pairs collide in exactly 1/k of the cohorts:
    all-functions, Hadamard), and pooled conformance tests (both roles, the hit rate, and for
    a family hash the rate of value == 0, 1/k: with h(seed, x) = 0 in a fraction 1/k of the
    cohorts, p_hit/k + (1 − 1/k)·q_miss = 1/k). ``hash_function`` is the user's
    (--hash) or, ``from_spec``, the spec family's own (HR's Hadamard bits: family_hash)."""
    from ldpaudit.audit import wide

    p_hit, q_miss, k_values = hash_rates(spec)
    ring = wide.Ring(inputs)
    kappa = 1.0 / k_values
    event = wide.WideRelation("hash", ring, exclude=True, hash_function=hash_function)
    hit = wide.WideRelation("hash", ring, hash_function=hash_function)
    extra = [(_ValueTest(0), "value == 0", 1.0 / k_values)] if from_spec else []
    whose = f"the spec's {spec.channel.outputs.family.name} family" if from_spec else "the user's hash"
    return _pooled_wide_audit(sampler, ring, event, "value == h(seed, x) and value != h(seed, x')",
                              p_hit * (1 - kappa), q_miss * (1 - kappa), (hit, "value == h(seed, x)", p_hit),
                              f"local hashing read through {whose}", epsilon=epsilon, samples=samples,
                              alpha=alpha, seed=seed, workers=workers, progress=progress, t0=t0, looks=looks,
                              cluster=cluster, width=2, extra_tests=extra,
                              view_of=lambda out, u: wide.HashedChunk(out, hash_function))


class _ValueTest:
    """Draws of (seed, value) outputs whose value is ``value`` (a pooled conformance test)."""

    def __init__(self, value: int):
        self.value = value

    def hits(self, view, u, role: int) -> int:
        from ldpaudit.audit.wide import HashedChunk, _hashed

        values = view.values if isinstance(view, HashedChunk) else _hashed(view, None, None)[1]
        return int(np.count_nonzero(values == self.value))


def unary_wide_audit(sampler: Sampler, *, inputs, epsilon, samples, alpha, seed, spec, workers, progress, t0,
                     looks=None, cluster=None):
    """The spec-guided audit of a unary encoding (a product channel over the d coordinates,
    e.g. specs/oue.toml) over a wide domain: S_x = {y[x] = 1, y[x'] = 0} pooled over every
    input against x' = next(x), with P(S_x|x) = on(1)·off(0) and P(S_x|x') = off(1)·on(0)
    exactly (the coordinates are independent in the spec), and three pooled conformance tests."""
    from ldpaudit.audit import wide

    ch = spec.channel
    if len(inputs) != int(ch.coordinates) or list(inputs) != list(range(len(inputs))):
        raise InvalidParameter(f"a unary encoding over {int(ch.coordinates)} coordinates is audited over the inputs "
                               f"0..{int(ch.coordinates) - 1}; give --domain 0..{int(ch.coordinates) - 1}")
    on = {int(v): float(sp.N(p, 17)) for v, p in ch.on.probabilities}
    off = {int(v): float(sp.N(p, 17)) for v, p in ch.off.probabilities}
    ring = wide.Ring(inputs)
    event = wide.WideRelation("column", ring, 1, exclude=True)
    hit = wide.WideRelation("column", ring, 1)
    p = on.get(1, 0.0) * (1 - off.get(1, 0.0))
    q = off.get(1, 0.0) * (1 - on.get(1, 0.0))
    return _pooled_wide_audit(sampler, ring, event, "y[x] = 1 and y[x'] != 1", p, q, (hit, "y[x] = 1", on.get(1, 0.0)),
                              "unary encoding", epsilon=epsilon, samples=samples, alpha=alpha, seed=seed,
                              workers=workers, progress=progress, t0=t0, looks=looks, cluster=cluster)


def _pooled_wide_audit(sampler, ring, event, name, p, q, hit_test, what, *, epsilon, samples, alpha, seed, workers,
                       progress, t0, looks, cluster, width=None, extra_tests=(), view_of=None):
    """One pooled event with exact probabilities p (under x) and q (under next(x)) from the
    spec, counted on every draw, and pooled conformance tests of both roles, ``hit_test``
    (relation, name, probability under x) and ``extra_tests`` (event, name, probability under
    x). ``width``: columns of an output (chunks are sized by it; d for bit vectors);
    ``view_of(out, u)``: what the events read of a chunk (the raw outputs by default)."""
    from ldpaudit.audit import wide

    index = Positions(ring.values if ring.values is not None else range(ring.start, ring.start + ring.n))
    d = ring.n
    z = bounds.z_value(alpha / 2)
    c = wide.pooled_candidate(name, event, ring, float(bounds.predicted_bound(p, q, samples * d, z)), p, q)
    hit, hit_name, p_hit = hit_test
    tests = [(None, _RoleTest(event, 0, f"{name} under x (pooled)"), p, d),
             (None, _RoleTest(event, 1, f"{name} under x' = next(x) (pooled)"), q, d),
             (None, _RoleTest(hit, 0, f"{hit_name} under x (pooled)"), p_hit, d)]
    tests += [(None, _RoleTest(ev, 0, f"{text} under x (pooled)"), prob, d) for ev, text, prob in extra_tests]
    test_hits = [0] * len(tests)

    def count_tests(u, out) -> list[int]:
        return [ev.hits(out, u, 0) for _, ev, _, _ in tests]

    prog = Progress(progress)
    engine = make_draws(sampler, seed, int(workers), prog, cluster)
    try:
        done, best, k, alpha_each = confirm_counts(engine, prog, [c], used=index.inputs, index=index,
                                                   view_of=view_of or (lambda out, u: out),
                                                   looks=looks or [(samples, alpha)], phase=_PHASE_GUIDED,
                                                   epsilon=epsilon, on_view=count_tests, view_counts=test_hits,
                                                   chunk=wide.chunk_size(d if width is None else width))
    finally:
        engine.close()
        prog.close()
    lb = max(best[0], 0.0)
    witness = witness_of(best, done, k, p_spec=p, q_spec=q)
    conformance = _conformance(tests, test_hits, done, alpha)
    method = (f"spec-guided, wide domain ({d} inputs, audit/wide.py): {what}, one event pooled over every input "
              f"chosen from the spec before sampling (no exploration, nothing d-long per output kept); {done} draws "
              f"per input; one-sided exact Clopper-Pearson bounds at α/2 = {alpha_each:.3g} each, so a truly ε-LDP "
              f"randomizer is reported as a VIOLATION with probability at most α = {alpha:g}; conformance: "
              f"{conformance['method']}")
    return AuditResult(verdict_of(lb, epsilon), epsilon, lb, 1 - alpha, witness, done, time.perf_counter() - t0,
                       bounds.detectable_epsilon(done * d, alpha_each), conformance, method)
