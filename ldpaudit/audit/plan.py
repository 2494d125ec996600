"""The exact events of one bound mechanism (:class:`Plan`), per channel form: finite channels
materialized (events are prefixes of the outputs sorted by Q(y|x)/Q(y|x')); k-subset and
large element channels by the membership patterns of x and x'; discrete products by the cells
(y_x, y_x'); continuous products by {y_x >= a and y_x' < b}; densities through
:mod:`ldpaudit.audit.guided_density`; local hashing through the user's hash
(:mod:`ldpaudit.audit.guided_wide`).
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import sympy as sp

from ldpaudit.audit import bounds
from ldpaudit.audit.adapters import Outputs
from ldpaudit.audit.events import Candidate, CodeSetEvent, Event
from ldpaudit.audit.guided_density import (
    SUPPORT_MARGIN,
    _cdf,
    _float,
    _grid,
    _interval_text,
    _intervals_event,
    _PiecewiseLaw,
)
from ldpaudit.audit.guided_events import (
    BoxEvent,
    CellsEvent,
    ColumnValueEvent,
    ElementEvent,
    IntervalsEvent,
    SpecView,
    _member,
    _OffColumns,
    _PooledRelation,
    _rows,
    _space_error,
)
from ldpaudit.audit.guided_wide import hash_rates
from ldpaudit.errors import InvalidParameter, NotMaterializable

MAX_ENTRIES = 200_000           # largest channel materialized for guided events
MAX_SINGLETON_TESTS = 64        # finite outputs up to this size get one conformance test per output


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
                ratio = np.round(np.where(q > 0, p / np.where(q > 0, q, 1), np.inf), 12)
            support = p > 0
            out = []
            for lv in np.unique(ratio[support])[::-1]:     # the distinct levels, largest first
                in_set = (ratio >= lv) & support
                out.append((in_set, float(p[in_set].sum()), float(q[in_set].sum())))
            best = self._best(out, x, xp, n, z)
            for c in best:      # only the chosen set is described (d² pairs at d = 100: 3 levels each)
                c.event = CodeSetEvent(c.event, self._describe_codes(c.event))
            return best
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
        codes = np.flatnonzero(in_set)
        shown = ", ".join(repr(self.labels[i]) for i in codes[:8]) + \
            (f", ... ({len(codes) - 8} more)" if len(codes) > 8 else "")
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
