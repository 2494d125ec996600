"""A numeric view of outputs, fitted once on a pilot sample of the exploration phase.

Every output becomes
- a row code: discrete outputs get one code per distinct value, real outputs one per
  quantile bin (in value order), vector and set outputs one per frequent output row (all
  rare rows share the code ``other``);
- for vector and set outputs, a row of per-column categories ``cats`` (uint8): the value of a
  discrete column, the quantile bin of a real column, or membership of an element of a set.

Events are defined on this view; it is fixed before any confirmation sample is drawn.
"""
from __future__ import annotations

import collections
import math
import numbers
from dataclasses import dataclass

import numpy as np

from ldpaudit.audit.adapters import Outputs, _describe, as_sets
from ldpaudit.errors import RandomizerError

MAX_COLUMN_VALUES = 64          # a discrete column with more distinct values is treated as real
VECTOR_BINS = 16                # quantile bins of a real column of a vector output
SCALAR_QUANTILES = np.unique(np.concatenate([
    np.linspace(0, 1, 257)[1:-1], [1e-3, 3e-3, 1e-2, 0.99, 0.997, 0.999]]))
MAX_DISCRETE_CODES = 1 << 16    # more distinct scalar outputs than this share the code 'other'
DISCRETE_AS_REAL = 1024         # integer outputs with more distinct pilot values are binned as reals
FREQUENT_ROW_MIN = 5            # a vector output row needs this many exploration hits for a code
MAX_ROW_CODES = 4096
MAX_SET_UNIVERSE = 4096
LUT_SPAN = 1 << 20              # integer outputs spanning fewer values get their codes by table lookup
_KEY_MULTIPLIERS = np.random.default_rng(0x5EED).integers(1, 2**63, size=1 << 16, dtype=np.uint64) | np.uint64(1)


_INT_FLOAT = (int, float)        # numbers.Real without the ABC's isinstance check


@dataclass
class View:
    """Transformed outputs of one input in one batch."""

    codes: np.ndarray               # int64 (r,)
    cats: np.ndarray | None         # uint8 (r, m) for vector/set outputs
    weights: np.ndarray | None      # int64 (r,) multiplicities, None for all ones
    keys: np.ndarray | None         # uint64 (r,) row hashes for vector/set outputs
    n: int                          # number of draws represented
    fbits: np.ndarray | None = None  # bool (r, f) float-level features of real outputs (FloatFeatures)
    raw: np.ndarray | None = None    # float (r,) or (r, m) real outputs, for witnesses

    def count(self, mask: np.ndarray) -> int:
        if self.weights is None:
            return int(np.count_nonzero(mask))
        return int(self.weights[mask].sum())

    def bincount(self, codes: np.ndarray, length: int) -> np.ndarray:
        return np.bincount(codes, weights=self.weights, minlength=length).astype(np.int64)[:length]


def concat_views(views: list[View]) -> View:
    def cat(attr):
        parts = [getattr(v, attr) for v in views]
        return None if parts[0] is None else np.concatenate(parts)

    if any(v.weights is not None for v in views):
        weights = np.concatenate([v.weights if v.weights is not None else np.ones(len(v.codes), np.int64)
                                  for v in views])
    else:
        weights = None
    return View(cat("codes"), cat("cats"), weights, cat("keys"), sum(v.n for v in views), cat("fbits"), cat("raw"))


def compact(view: View) -> View:
    """The same draws of scalar (discrete or real) outputs as their distinct rows (row code and
    float features) with multiplicities, in the order each row first occurs, each row keeping
    the raw output of that first draw: every count the event search takes (code histograms,
    float-feature sums, masks) is unchanged, and so is the example it quotes (the first draw
    in an event), while the size no longer grows with the draws (at most codes x 2^features
    rows). Vector and set outputs are kept as they are."""
    if view.cats is not None or not len(view.codes):
        return view
    key = view.codes.astype(np.int64)
    if view.fbits is not None and view.fbits.shape[1]:
        width = view.fbits.shape[1]
        if width > 40 or int(key.max(initial=0)) >= 1 << (62 - width):
            return view
        key = (key << width) | (view.fbits.astype(np.int64) @ (np.int64(1) << np.arange(width, dtype=np.int64)))
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    if len(first) == len(key) and view.weights is None:
        return view
    counts = np.bincount(inverse.ravel(), weights=view.weights, minlength=len(first))
    order = np.argsort(first, kind="stable")
    rows = first[order]
    return View(view.codes[rows], None, counts[order].astype(np.int64), None, view.n,
                None if view.fbits is None else view.fbits[rows], None if view.raw is None else view.raw[rows])


def _weighted_quantiles(values: np.ndarray, weights: np.ndarray | None, levels) -> np.ndarray:
    order = np.argsort(values, kind="stable")
    v = values[order]
    w = np.ones(len(v)) if weights is None else weights[order].astype(float)
    cum = np.cumsum(w)
    idx = np.searchsorted(cum, np.asarray(levels) * cum[-1], side="left")
    return np.unique(v[np.clip(idx, 0, len(v) - 1)])


def _shape_of(out: Outputs) -> str:
    if out.kind == "array":
        if out.values.ndim == 2:
            return "vector"
        return "real" if out.values.dtype.kind == "f" else "discrete"
    first = out.values[0]
    if isinstance(first, tuple):
        return "vector"
    if isinstance(first, frozenset):
        return "set"
    return "discrete"


def _width(out: Outputs) -> int:
    if out.kind == "array":
        return out.values.shape[1] if out.values.ndim == 2 else 0
    first = out.values[0]
    return len(first) if isinstance(first, tuple) else 0


@dataclass
class _Column:
    kind: str                       # 'cat' (numeric values), 'obj' (hashable values), 'real'
    values: np.ndarray | None = None
    lookup: dict | None = None
    edges: np.ndarray | None = None

    def __post_init__(self):
        self.lut = None
        if self.kind == "cat" and len(self.values) and self.values.min() >= 0 and self.values.max() < 256:
            self.lut = np.full(256, len(self.values), dtype=np.uint8)
            self.lut[self.values.astype(np.int64)] = np.arange(len(self.values), dtype=np.uint8)

    @property
    def ncat(self) -> int:
        if self.kind == "real":
            return len(self.edges) + 1
        return (len(self.values) if self.kind == "cat" else len(self.lookup)) + 1

    def transform(self, col) -> np.ndarray:
        if self.kind == "real":
            return np.searchsorted(self.edges, np.asarray(col, dtype=float), side="right").astype(np.uint8)
        if self.kind == "obj":
            other = len(self.lookup)
            return np.fromiter((self.lookup.get(v, other) for v in col), dtype=np.uint8, count=len(col))
        col = np.asarray(col)
        if col.dtype.kind in "biu" and self.lut is not None:
            if col.dtype.kind == "b" or (col.size and col.min() >= 0 and col.max() < len(self.lut)):
                return self.lut[col.view(np.uint8) if col.dtype.kind == "b" else col]
        idx = np.searchsorted(self.values, col)
        idx_c = np.minimum(idx, len(self.values) - 1)
        hit = self.values[idx_c] == col
        return np.where(hit, idx_c, len(self.values)).astype(np.uint8)

    def describe(self, c: int) -> str:
        if self.kind == "real":
            lo = -math.inf if c == 0 else self.edges[c - 1]
            hi = math.inf if c == len(self.edges) else self.edges[c]
            return f"[{lo:.4g}, {hi:.4g})"
        values = list(self.values.tolist()) if self.kind == "cat" else list(self.lookup)
        return repr(values[c]) if c < len(values) else "(a value unseen in exploration)"


# -- float-level features of real outputs ----------------------------------------------

MAX_OFFSETS = 8
MAX_FLOAT_COLUMNS = 16
MAX_DECIMAL_DIGITS = 9          # decimal grids up to multiples of 10^-9 are detected
DECIMAL_TRAILING = (1, 2)       # decimal features: y - c on a grid 10 and 100 times coarser
#: binary formats, narrowest first: numpy type, unsigned type of its bits, explicit mantissa bits,
#: the low mantissa bits whose zeros are tested (a coarse grid of values reachable near an input)
BINARY_FORMATS = {
    "float16": (np.float16, np.uint16, 10, (1, 3, 6)),
    "float32": (np.float32, np.uint32, 23, (1, 4, 12)),
    "float64": (np.float64, np.uint64, 52, (4, 12, 24)),
}
_MANTISSA = np.uint64((1 << 52) - 1)


@dataclass(frozen=True)
class Precision:
    """The number format real outputs (or one column of them) were computed in, read off the
    pilot sample: the narrowest binary format holding every value (float16, float32, else
    float64), or for float64 values that are all decimals with ``digits`` places, a decimal
    grid. Its rounding grid is where the float features look."""

    format: str                     # "float16", "float32", "float64" or "decimal"
    digits: int = 0                 # decimal: multiples of 10^-digits
    source: str = ""

    @property
    def grid(self) -> str:
        if self.format == "decimal":
            return f"multiples of 10^-{self.digits}"
        bits = BINARY_FORMATS[self.format][2]
        return (f"{self.format}: {bits + 1}-bit significands, spacing 2^(e-{bits}) in each binade "
                f"[2^e, 2^(e+1))")


def detect_precision(values: list) -> Precision:
    """The format of pilot values (arrays, one per input; their dtype is the randomizer's)."""
    dtypes = {np.asarray(v).dtype for v in values}
    pooled = np.concatenate([np.asarray(v, dtype=float).ravel() for v in values])
    for name, (ftype, _, _, _) in BINARY_FORMATS.items():
        if name == "float64":
            break
        with np.errstate(over="ignore", invalid="ignore"):
            narrow = pooled.astype(ftype).astype(float)
        if np.array_equal(narrow, pooled):
            if dtypes == {np.dtype(ftype)}:
                return Precision(name, source=f"array dtype {name}")
            shown = f"; array dtype {', '.join(sorted(map(str, dtypes)))}" if dtypes != {np.dtype(float)} else ""
            return Precision(name, source=f"every pilot value ({len(pooled)}) is a {name}{shown}")
    for k in range(1, MAX_DECIMAL_DIGITS + 1):
        scale = 10.0 ** k
        m = np.rint(pooled * scale)
        if np.all(np.abs(m) < 2.0 ** 53) and np.array_equal(m / scale, pooled):
            return Precision("decimal", k, f"every pilot value ({len(pooled)}) is a multiple of 10^-{k}")
    return Precision("float64", source="pilot values finer than float32 and than decimals with "
                                       f"{MAX_DECIMAL_DIGITS} places")


class FloatFeatures:
    """Binary float-level features of real outputs (floats.py says what they give away and
    searches events on them), each tested on the grid of the format the column was computed in
    (``precisions``, detected on the pilot sample): a list of (column or None for scalars,
    kind, param), where kind "roundtrip" with offset c is fl(fl(y - c) + c) != y in that binary
    format, kind "lowbits" with k is "y is a value of the format whose low k mantissa bits are
    zero", and kind "decimal" with (c, t) is "y - c is a multiple of 10^(t - digits)" on a
    decimal grid. They become the ``fbits`` of a View."""

    def __init__(self, features: list[tuple], precisions: dict | None = None):
        self.features = features
        self.precisions = precisions or {}

    @classmethod
    def fit(cls, columns: dict, inputs: list) -> "FloatFeatures | None":
        """columns: {column index or None: {input: pilot float values}}."""
        feats = []
        precisions = {}
        numeric = [float(u) for u in inputs if isinstance(u, numbers.Real) and not isinstance(u, bool)]
        for j, by_input in list(columns.items())[:MAX_FLOAT_COLUMNS]:
            values = [v for v in by_input.values() if len(v)]
            if not values or all(np.all(v == np.round(v)) for v in values):
                continue                      # integer-valued: nothing below the unit grid
            precision = precisions[j] = detect_precision(values)
            offsets = [] if j is not None else list(numeric)
            offsets += [float(np.round(np.median(v))) for v in values]
            offsets += [1.0]
            if precision.format == "decimal":
                k = precision.digits
                seen = []
                for c in [0.0] + offsets:
                    if math.isfinite(c) and float(np.round(c, k)) == c and c not in seen:
                        seen.append(c)
                for c in seen[:MAX_OFFSETS]:
                    for t in DECIMAL_TRAILING:
                        if t <= k:
                            feats.append((j, "decimal", (c, t)))
                continue
            ftype, _, _, low_bits = BINARY_FORMATS[precision.format]
            seen = []
            for c in offsets:
                with np.errstate(over="ignore"):
                    c = float(ftype(c))   # the offset as the format holds it
                if c != 0 and math.isfinite(c) and c not in seen:
                    seen.append(c)
            for c in seen[:MAX_OFFSETS]:
                feats.append((j, "roundtrip", c))
            for k in low_bits:
                feats.append((j, "lowbits", k))
        return cls(feats, precisions) if feats else None

    @property
    def width(self) -> int:
        return len(self.features)

    def transform(self, values: np.ndarray) -> np.ndarray:
        """(n, width) bool matrix for float values of shape (n,) or (n, m)."""
        values = np.asarray(values, dtype=float)
        out = np.zeros((values.shape[0], len(self.features)), dtype=bool)
        for f, (j, kind, param) in enumerate(self.features):
            col = values if j is None else values[:, j]
            out[:, f] = _feature(col, kind, param, self.precisions.get(j))
        return out

    def describe(self, f: int, holds: bool) -> str:
        j, kind, param = self.features[f]
        y = "y" if j is None else f"y[{j}]"
        fmt = self._format(j)
        if kind == "roundtrip":
            rel = "!=" if holds else "=="
            return f"({y} - {param:g}) + {param:g} {rel} {y} in {fmt}"
        if kind == "decimal":
            c, t = param
            step = _decimal_step(self.precisions[j].digits - t)
            shift = f"{y} - {c:g}" if c else y
            return f"{shift} is {'' if holds else 'not '}a multiple of {step} (decimal)"
        if fmt == "float64":
            return f"the low {param} mantissa bits of {y} are {'all zero' if holds else 'not all zero'}"
        if holds:
            return f"{y} is a {fmt} whose low {param} mantissa bits are all zero"
        return f"{y} is not a {fmt} whose low {param} mantissa bits are all zero"

    def explain(self, f: int, y: float) -> str:
        j, kind, param = self.features[f]
        name = "y" if j is None else f"y[{j}]"
        fmt = self._format(j)
        if kind == "roundtrip":
            if fmt == "float64":
                back = (y - param) + param
                return f"{name} = {y!r}: ({name} - {param:g}) + {param:g} = {back!r}"
            ftype = BINARY_FORMATS[fmt][0]
            back = float((ftype(y) - ftype(param)) + ftype(param))
            return f"{name} = {y!r} = {float(y).hex()}: ({name} - {param:g}) + {param:g} = {back!r} in {fmt}"
        if kind == "decimal":
            c, _ = param
            return f"{name} = {y!r}: {name} - {c:g} = {_decimal_text(y - c, self.precisions[j].digits)}"
        if fmt == "float64":
            bits = int(np.float64(y).view(np.uint64) & _MANTISSA)
            return f"{name} = {y!r}: mantissa 0x{bits:013x}"
        ftype, utype, mbits, _ = BINARY_FORMATS[fmt]
        if float(ftype(y)) != y:
            return f"{name} = {y!r}: not a {fmt}"
        bits = int(np.array(ftype(y)).view(utype)) & ((1 << mbits) - 1)
        return f"{name} = {y!r}: {fmt} mantissa 0x{bits:0{(mbits + 3) // 4}x}"

    def _format(self, j) -> str:
        p = self.precisions.get(j)
        return p.format if p is not None else "float64"

    def to_json(self) -> list[dict]:
        """Per real column: the format detected, from what, its grid and the features tested."""
        out = []
        for j, p in self.precisions.items():
            tests = [self.describe(f, True) for f, feat in enumerate(self.features) if feat[0] == j]
            out.append({"column": j, "format": p.format, "detected_from": p.source, "grid": p.grid,
                        "tested": tests})
        return out


def _decimal_step(places: int) -> str:
    return f"{10.0 ** -places:.{max(places, 0)}f}" if places > 0 else f"{10 ** -places}"


def _decimal_text(v: float, digits: int) -> str:
    return f"{v:.{digits}f}"


def _feature(col: np.ndarray, kind: str, param, precision: Precision | None = None) -> np.ndarray:
    fmt = "float64" if precision is None else precision.format
    if kind == "decimal":
        c, t = param
        scale = 10.0 ** precision.digits
        m = np.rint(col * scale)
        on_grid = (np.abs(m) < 2.0 ** 53) & (m / scale == col)
        return on_grid & (np.fmod(m - np.rint(c * scale), 10.0 ** t) == 0)
    if fmt == "float64":
        if kind == "roundtrip":
            return (col - param) + param != col
        bits = col.view(np.uint64) & _MANTISSA
        return (bits & np.uint64((1 << param) - 1)) == 0
    ftype, utype, mbits, _ = BINARY_FORMATS[fmt]
    with np.errstate(over="ignore", invalid="ignore"):
        narrow = col.astype(ftype)
        if kind == "roundtrip":
            c = ftype(param)
            return ((narrow - c) + c).astype(float) != col
        exact = narrow.astype(float) == col
    bits = narrow.view(utype) & utype((1 << mbits) - 1)
    return exact & ((bits & utype((1 << param) - 1)) == 0)


class Featurizer:
    """Fit on the pilot outputs of every input (``fit``), grow discrete codes over the rest of
    exploration, then ``freeze`` before the event search; ``transform`` maps Outputs to a View."""

    def __init__(self, *, as_set: bool = False):
        self.as_set = bool(as_set)      # read every output as the set of its elements (adapters.as_sets)
        self.opaque = False             # tuples of varying length: opaque discrete values
        self.shape: str | None = None
        self.width = 0
        self.frozen = False
        self.code_of: dict = {}
        self.value_of_code: list = []
        self.edges: np.ndarray | None = None
        self.columns: list[_Column] = []
        self.universe: dict | None = None
        self.row_keys = np.zeros(0, dtype=np.uint64)
        self.row_cats: np.ndarray | None = None
        self.floats = None

    # -- fitting -------------------------------------------------------------------------
    def fit(self, pilots: list[tuple[object, Outputs]]) -> "Featurizer":
        if self.as_set:
            pilots = [(x, as_sets(x, out)) for x, out in pilots]
        shapes, lengths = {}, {}
        for x, out in pilots:
            if out.n == 0:
                continue
            shape = _shape_of(out)
            shapes.setdefault(shape, x)
            if shape == "vector":
                for m in _lengths(out):
                    lengths.setdefault(m, x)
        if len(shapes) > 1:
            (s1, x1), (s2, x2) = list(shapes.items())[:2]
            raise RandomizerError(
                f"randomizer returned {s2} outputs for input {x2!r} but {s1} outputs for input {x1!r}; "
                f"every input must give outputs of one shape")
        (self.shape, _), = shapes.items()
        if self.shape == "vector" and (len(lengths) > 1 or 0 in lengths):
            # Tuples of varying length: each distinct tuple is one opaque discrete value.
            self.shape, self.opaque = "discrete", True
        elif self.shape == "vector":
            (self.width, _), = lengths.items()
        outs = [out for _, out in pilots if out.n]
        if self.shape in ("discrete", "vector"):
            _check_kinds(pilots, opaque=self.opaque)
        if self.shape == "discrete":
            distinct = set()
            outs = [_as_tuples(out) for out in outs] if self.opaque else outs
            for out in outs:
                vals = np.unique(out.values) if out.kind == "array" else out.values
                distinct.update(vals.tolist() if isinstance(vals, np.ndarray) else vals)
            if len(distinct) > DISCRETE_AS_REAL and all(type(v) in _INT_FLOAT or isinstance(v, numbers.Real)
                                                        for v in distinct):
                self.shape = "real"
        if self.shape == "real":
            values, weights = _pool_scalars(outs)
            self.edges = _weighted_quantiles(values, weights, SCALAR_QUANTILES)
        elif self.shape == "vector":
            columns = [_columns_of(out) for out in outs]
            weights = [None if out.kind == "array" else out.counts for out in outs]
            for j in range(self.width):
                self.columns.append(_fit_column([c[j] for c in columns], weights))
        elif self.shape == "set":
            freq = collections.Counter()
            for out in outs:
                for s, c in zip(out.values, out.counts):
                    for e in s:
                        freq[e] += int(c)
            elements = [e for e, _ in freq.most_common(MAX_SET_UNIVERSE)]
            try:
                elements.sort()
            except TypeError:
                pass
            self.universe = {e: i for i, e in enumerate(elements)}
            for _ in elements:
                self.columns.append(_Column("cat", values=np.array([0, 1])))
            self.columns.append(_Column("cat", values=np.arange(4)))   # elements outside the universe
        self._fit_floats(pilots)
        return self

    def _fit_floats(self, pilots) -> None:
        """Float-level features (FloatFeatures) of real scalar outputs and real vector columns."""
        outs = [(x, out) for x, out in pilots if out.n]
        if not all(out.kind == "array" and out.values.dtype.kind == "f" for _, out in outs):
            return
        if self.shape == "real":
            columns = {None: {x: out.values for x, out in outs}}
        elif self.shape == "vector":
            columns = {j: {x: out.values[:, j] for x, out in outs}
                       for j, c in enumerate(self.columns) if c.kind == "real"}
        else:
            return
        self.floats = FloatFeatures.fit(columns, [x for x, _ in outs])

    def freeze(self, exploration: list[View]) -> None:
        """Fix the codes: discrete codes seen so far, and the frequent rows of vector/set outputs."""
        self.frozen = True
        self._lut = None
        if self.shape in ("vector", "set"):
            keys = np.concatenate([v.keys for v in exploration])
            weights = np.concatenate([v.weights if v.weights is not None else np.ones(len(v.keys), np.int64)
                                      for v in exploration])
            uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
            counts = np.bincount(inverse, weights=weights).astype(np.int64)
            frequent = np.flatnonzero(counts >= FREQUENT_ROW_MIN)
            if len(frequent) > MAX_ROW_CODES:
                frequent = frequent[np.argsort(-counts[frequent], kind="stable")[:MAX_ROW_CODES]]
                frequent.sort()
            self.row_keys = uniq[frequent]
            cats = np.concatenate([v.cats for v in exploration])
            self.row_cats = cats[first[frequent]]
            for v in exploration:
                v.codes = self._row_codes(v.keys)

    @property
    def n_codes(self) -> int:
        """Number of row codes including 'other' (the last one)."""
        if self.shape == "discrete":
            return len(self.value_of_code) + 1
        if self.shape == "real":
            return len(self.edges) + 1
        return len(self.row_keys) + 1

    @property
    def ncats(self) -> np.ndarray:
        return np.array([c.ncat for c in self.columns], dtype=np.int64)

    # -- transforming --------------------------------------------------------------------
    def transform(self, out: Outputs, x=None) -> View:
        if self.as_set:
            out = as_sets(x, out)
        shape = _shape_of(out) if out.n else self.shape
        if self.opaque:
            if shape != "vector":
                raise RandomizerError(
                    f"randomizer returned {shape} outputs for input {x!r} but tuples of varying length "
                    f"earlier; outputs must keep one shape")
            out = _as_tuples(out)
            return View(self._discrete_codes(out), None, out.counts, None, out.n)
        if out.n and shape == self.shape == "vector" and _lengths(out) != {self.width}:
            other = tuple(out.values[0].tolist()) if out.kind == "array" else next(v for v in out.values if len(v) != self.width)
            raise RandomizerError(
                f"randomizer returned {_describe(other)} (length {len(other)}) for input {x!r}, but every output of "
                f"the first draws of every input had length {self.width}, so outputs are read as vectors of that "
                f"length; outputs of varying length are read as opaque values only when the first draws show it")
        if out.n and (shape != self.shape and not (shape == "discrete" and self.shape == "real")
                      or _width(out) != self.width):
            raise RandomizerError(
                f"randomizer returned {_shape_text((shape, _width(out)))} outputs for input {x!r} but "
                f"{_shape_text((self.shape, self.width))} outputs earlier; outputs must keep one shape")
        weights = None if out.kind == "array" else out.counts
        if self.shape == "discrete":
            return View(self._discrete_codes(out), None, weights, None, out.n)
        if self.shape == "real":
            vals = out.values if out.kind == "array" else np.array(out.values, dtype=float)
            codes = np.searchsorted(self.edges, vals, side="right").astype(np.int64)
            return self._with_floats(View(codes, None, weights, None, out.n), vals)
        if self.shape == "vector":
            cols = _columns_of(out)
            cats = np.empty((len(cols[0]) if cols else 0, self.width), dtype=np.uint8)
            for j, (col, spec) in enumerate(zip(cols, self.columns)):
                cats[:, j] = spec.transform(col)
        else:
            cats = self._membership(out.values)
        keys = _row_keys(cats)
        codes = self._row_codes(keys) if self.frozen else np.zeros(len(keys), np.int64)
        view = View(codes, cats, weights, keys, out.n)
        return self._with_floats(view, out.values) if self.shape == "vector" else view

    def _with_floats(self, view: View, values) -> View:
        if self.floats is not None:
            vals = np.asarray(values, dtype=float)
            view.fbits = self.floats.transform(vals)
            view.raw = vals
        return view

    def _discrete_codes(self, out: Outputs) -> np.ndarray:
        fast = self._lut_codes(out)
        if fast is not None:
            return fast
        if out.kind == "array":
            uniq, inverse = np.unique(out.values, return_inverse=True)
            uniq = uniq.tolist()
        else:
            uniq, inverse = out.values, None
        mapped = np.empty(len(uniq), dtype=np.int64)
        for i, v in enumerate(uniq):
            code = self.code_of.get(v)
            if code is None:
                if self.frozen or len(self.value_of_code) >= MAX_DISCRETE_CODES:
                    code = -1
                else:
                    code = len(self.value_of_code)
                    self.code_of[v] = code
                    self.value_of_code.append(v)
            mapped[i] = code
        if self.frozen:
            mapped[mapped < 0] = len(self.value_of_code)
        else:
            mapped[mapped < 0] = MAX_DISCRETE_CODES
        return mapped if inverse is None else mapped[inverse.ravel()]

    def _lut_codes(self, out: Outputs) -> np.ndarray | None:
        """Codes of small integer outputs by table lookup, when every value already has a code
        (or the codes are frozen); None to take the general path."""
        if out.kind != "array" or out.values.dtype.kind not in "iu" or not out.n:
            return None
        vals = out.values
        lo, hi = int(vals.min()), int(vals.max())
        if hi - lo > LUT_SPAN:
            return None
        lut = getattr(self, "_lut", None)
        if lut is None or self._lut_size != len(self.value_of_code) or lo < self._lut_lo or \
                hi >= self._lut_lo + len(lut):
            keys = {int(v): c for v, c in self.code_of.items()
                    if isinstance(v, numbers.Real) and not isinstance(v, bool) and float(v).is_integer()}
            base = min([lo, *keys])
            top = max([hi, *keys])
            if top - base > LUT_SPAN:
                return None
            other = len(self.value_of_code) if self.frozen else -1
            lut = np.full(top - base + 1, other, dtype=np.int64)
            for v, c in keys.items():
                lut[v - base] = c
            self._lut, self._lut_lo, self._lut_size = lut, base, len(self.value_of_code)
        codes = lut[vals - self._lut_lo]
        if not self.frozen and (codes < 0).any():
            return None
        return codes

    def _membership(self, sets) -> np.ndarray:
        m = len(self.universe)
        cats = np.zeros((len(sets), m + 1), dtype=np.uint8)
        for i, s in enumerate(sets):
            outside = 0
            for e in s:
                j = self.universe.get(e)
                if j is None:
                    outside += 1
                else:
                    cats[i, j] = 1
            cats[i, m] = min(outside, 4)
        return cats

    def _row_codes(self, keys: np.ndarray) -> np.ndarray:
        if len(self.row_keys) == 0:
            return np.zeros(len(keys), np.int64)
        idx = np.searchsorted(self.row_keys, keys)
        idx_c = np.minimum(idx, len(self.row_keys) - 1)
        return np.where(self.row_keys[idx_c] == keys, idx_c, len(self.row_keys)).astype(np.int64)

    def outputs_json(self) -> dict:
        """How the outputs were read: their shape, whether as sets, and for real outputs the
        precision detected per column with the grid its float features test."""
        if self.opaque:
            read = "tuples of varying length, each distinct tuple an opaque discrete value"
        elif self.shape == "set":
            read = "sets (as_set: each output the set of its elements)" if self.as_set else "sets"
        elif self.shape == "vector":
            read = f"vectors of length {self.width}, per coordinate"
        else:
            read = {"discrete": "discrete values", "real": "real numbers"}[self.shape]
        return {"shape": self.shape, "read_as": read, "as_set": self.as_set,
                "precision": self.floats.to_json() if self.floats is not None else None}

    # -- describing ----------------------------------------------------------------------
    def describe_code(self, code: int) -> str:
        if code >= self.n_codes - 1 and self.shape != "real":
            return "any output not frequent in exploration" if self.shape in ("vector", "set") \
                else "any value unseen in exploration"
        if self.shape == "discrete":
            return repr(self.value_of_code[code])
        if self.shape == "real":
            lo = -math.inf if code == 0 else self.edges[code - 1]
            hi = math.inf if code == len(self.edges) else self.edges[code]
            return f"[{lo:.4g}, {hi:.4g})"
        return self.describe_row(self.row_cats[code])

    def describe_row(self, cats_row) -> str:
        if self.shape == "set":
            elements = [e for e, j in self.universe.items() if cats_row[j]]
            text = "{" + ", ".join(map(repr, elements)) + "}"
            outside = int(cats_row[len(self.universe)])
            return text if not outside else text + f" plus {outside} element(s) unseen in exploration"
        return "(" + ", ".join(c.describe(int(v)) for c, v in zip(self.columns, cats_row)) + ")"

    def column_name(self, j: int) -> str:
        if self.shape == "set":
            if j == len(self.universe):
                return "#elements unseen in exploration"
            return f"{list(self.universe)[j]!r} in y"
        return f"y[{j}]"

    def describe_cat(self, j: int, c: int) -> str:
        if self.shape == "set":
            if j == len(self.universe):
                return f"#elements unseen in exploration = {c}" if c < 4 else "#elements unseen >= 4"
            element = list(self.universe)[j]
            return f"{element!r} in y" if c == 1 else f"{element!r} not in y"
        return f"y[{j}] = {self.columns[j].describe(c)}" if self.columns[j].kind != "real" \
            else f"y[{j}] in {self.columns[j].describe(c)}"


def _first_values(out: Outputs):
    if out.kind == "objects":
        return out.values[0]
    return out.values[0].tolist()


def _check_kinds(pilots, *, opaque: bool = False) -> None:
    """Every input's outputs must be of one kind (e.g. all integers, or all tuples of
    integers; all tuples when their length varies); adapters checks this within an input, here
    across inputs."""
    from ldpaudit.audit.adapters import _kind_of

    seen = {}
    for x, out in pilots:
        if not out.n:
            continue
        y = _first_values(out)
        kind = _kind_of(y) if not isinstance(y, (tuple, list)) or opaque else \
            "tuple of " + ", ".join(_kind_of(v) for v in y)
        seen.setdefault(kind, (x, y))
    if len(seen) > 1:
        (k1, (x1, y1)), (k2, (x2, y2)) = list(seen.items())[:2]
        raise RandomizerError(
            f"randomizer returned {y2!r} ({k2}) for input {x2!r} but {y1!r} ({k1}) for input {x1!r}; "
            f"outputs must all be of one kind")


def _lengths(out: Outputs) -> set:
    """The lengths of the vector (tuple) outputs in ``out``."""
    if out.kind == "array":
        return {out.values.shape[1]} if out.values.ndim == 2 else set()
    return {len(v) for v in out.values if isinstance(v, tuple)}


def _as_tuples(out: Outputs) -> Outputs:
    """Vector outputs as their distinct tuples with counts (the opaque values of outputs of
    varying length, some chunks of which may have come as one array)."""
    if out.kind == "objects" or not out.n:
        return out
    rows, counts = np.unique(out.values, axis=0, return_counts=True)
    return Outputs("objects", [tuple(r) for r in rows.tolist()], counts.astype(np.int64), out.n)


def _shape_text(shape) -> str:
    kind, width = shape
    return f"{kind} (width {width})" if kind == "vector" else kind


def _pool_scalars(outs: list[Outputs]):
    values, weights = [], []
    for out in outs:
        if out.kind == "array":
            values.append(out.values.astype(float))
            weights.append(np.ones(out.n))
        else:
            values.append(np.array(out.values, dtype=float))
            weights.append(out.counts.astype(float))
    return np.concatenate(values), np.concatenate(weights)


def _columns_of(out: Outputs) -> list:
    """The columns of a vector output: numeric arrays where possible, else lists of values."""
    if out.kind == "array":
        return [out.values[:, j] for j in range(out.values.shape[1])]
    width = len(out.values[0])
    cols = []
    for j in range(width):
        col = [v[j] for v in out.values]
        if all(isinstance(v, (numbers.Real, np.number)) for v in col):
            cols.append(np.array(col, dtype=float if any(isinstance(v, float) for v in col) else np.int64))
        else:
            cols.append(col)
    return cols


def _fit_column(cols: list, weights: list) -> _Column:
    if all(isinstance(c, np.ndarray) for c in cols):
        pooled = np.concatenate([np.asarray(c, dtype=float) for c in cols])
        uniq = np.unique(pooled)
        if len(uniq) <= MAX_COLUMN_VALUES and np.all(uniq == np.round(uniq)):
            return _Column("cat", values=uniq.astype(np.int64))
        w = None if all(x is None for x in weights) else np.concatenate([
            np.ones(len(c)) if wt is None else wt for c, wt in zip(cols, weights)])
        levels = np.arange(1, VECTOR_BINS) / VECTOR_BINS
        return _Column("real", edges=_weighted_quantiles(pooled, w, levels))
    freq = collections.Counter()
    for col, wt in zip(cols, weights):
        for i, v in enumerate(col):
            freq[v] += 1 if wt is None else int(wt[i])
    values = [v for v, _ in freq.most_common(MAX_COLUMN_VALUES)]
    return _Column("obj", lookup={v: i for i, v in enumerate(values)})


def _row_keys(cats: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row of cats (wrapping multiply-add with fixed random odd
    multipliers); equal rows get equal keys."""
    m = cats.shape[1]
    if m > len(_KEY_MULTIPLIERS):
        raise RandomizerError(f"vector outputs with {m} columns are too wide to audit (max {len(_KEY_MULTIPLIERS)})")
    keys = np.zeros(cats.shape[0], dtype=np.uint64)
    mult = _KEY_MULTIPLIERS[:m]
    step = 64
    with np.errstate(over="ignore"):
        for lo in range(0, m, step):
            block = cats[:, lo:lo + step].astype(np.uint64)
            keys += (block * mult[lo:lo + step]).sum(axis=1, dtype=np.uint64)
            keys ^= keys >> np.uint64(29)
    return keys
