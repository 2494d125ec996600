"""The library functions the subset reads: Python builtins, ``math`` and ``numpy`` (exact:
``exp`` is sympy's exp, ``/`` a Rational), each a function of interpreter values. A call
not listed here stops the extraction naming it (a hash, I/O, a compiled library)."""
from __future__ import annotations

import sympy as sp

from ldpaudit.extract.symbolic import (
    DECIDER,
    Appending,
    Arr,
    Object,
    Seq,
    Stop,
    Uniform,
    as_expr,
    compare,
    concrete_int,
    equal,
    truth,
)

#: calls refused with the reason the issue's boundary gives
HASHES = {"hash", "hashlib", "xxhash", "mmh3", "zlib", "binascii", "crc32", "md5", "sha1", "sha256", "blake2b"}
IO = {"open", "print", "input", "os", "sys", "io", "pathlib", "shutil", "subprocess", "socket", "urllib", "requests",
      "pickle", "json", "logging", "time", "datetime", "secrets", "eval", "exec", "compile", "__import__", "globals",
      "locals", "getattr", "setattr", "delattr", "vars"}


def refuse(name: str):
    name = name.removeprefix("builtins.")
    head = name.split(".")[0]
    tail = name.rsplit(".", 1)[-1]
    if head in HASHES or tail in HASHES:
        raise Stop(f"{name}()", "is a hash (its values are not a distribution the code states)")
    if head in IO or tail in IO:
        raise Stop(f"{name}()", "is I/O or reflection")
    raise Stop(f"{name}()", "is a call outside the module and the subset (random, numpy.random, math, numpy, builtins)")


def _elementwise(f, x):
    if isinstance(x, Arr):
        return Arr([f(v) for v in x.items], "float")
    return f(x)


def _iter(v) -> list:
    if isinstance(v, Arr):
        return list(v.items)
    if isinstance(v, range):
        return [sp.Integer(i) for i in v]
    if isinstance(v, (list, tuple, str)):
        return list(v)
    if isinstance(v, (set, frozenset)):
        return _sorted(list(v))
    if isinstance(v, dict):
        return list(v)
    if isinstance(v, Appending):
        raise Stop(f"reading {v.name} inside the loop over a symbolic range that appends to it:",
                   "its length and items there would be the first iteration's")
    if isinstance(v, Seq):
        raise Stop(f"this use of a sequence of symbolic length {v.length}", "a symbolic range is read in a list "
                   "comprehension, a generator expression or a for loop that builds one item per index")
    if isinstance(v, sp.Basic):
        raise Stop(f"iteration over {sp.sstr(v)},", "which is a number here (a parameter named in a class target is "
                                                   "a symbolic number; a list or a function cannot be given)")
    raise Stop(f"iteration over a {type(v).__name__}")


def _sorted(items: list, reverse: bool = False) -> list:
    import functools

    def cmp(a, b):
        if equal(a, b):
            return 0
        return -1 if compare(a, "<", b) else 1
    return sorted(items, key=functools.cmp_to_key(cmp), reverse=reverse)


def _range(*args):
    decider = DECIDER.get()
    if decider is not None and decider.program and any(as_expr(a).free_symbols for a in args) and len(args) <= 2:
        start, stop = (0, args[0]) if len(args) == 1 else args
        return decider.index(as_expr(start), as_expr(stop))  # a symbolic domain: one generic index
    ints = [concrete_int(a, "range bound") for a in args]
    return range(*ints)


def _same_seq(x):
    """A conversion (tuple, list, np.array) of a sequence of symbolic length: the sequence."""
    return x if isinstance(x, Seq) else None


def _enumerate_seq(x: Seq, start=0):
    return Seq(x.length, x.index, (x.index + as_expr(start), x.item))


def _zip_seq(*xs):
    first = xs[0]
    if not all(isinstance(x, Seq) and x.index == first.index for x in xs):
        raise Stop("zip of sequences of symbolic length with different indices", "only one generic index is read")
    return Seq(first.length, first.index, tuple(x.item for x in xs))


def _round(x, ndigits=None):
    if ndigits is not None:
        raise Stop("round(x, ndigits)", "rounds to a float")
    return _rint(x)


def _rint(x):
    """Round half to even, exactly (Python's round and numpy's rint)."""
    def one(v):
        e = as_expr(v)
        if e.is_Integer:
            return e
        floor = sp.floor(e)
        if not floor.is_Integer:
            raise Stop(f"rounding {e}", "needs a numeric value: bind the parameters it depends on")
        frac = e - floor
        if compare(frac, "<", sp.Rational(1, 2)):
            return floor
        if compare(frac, ">", sp.Rational(1, 2)):
            return floor + 1
        return floor if floor % 2 == 0 else floor + 1
    return _elementwise(one, x)


def _int(x=0):
    if isinstance(x, bool):
        return sp.Integer(int(x))
    e = as_expr(x)
    if e.is_Integer or (e.free_symbols and e.is_integer):  # a symbolic input or draw: int() keeps it
        return e
    t = sp.floor(e) if compare(e, ">=", 0) else sp.ceiling(e)
    if not t.is_Integer:
        raise Stop(f"int({e})", "needs a numeric value: bind the parameters it depends on")
    return t


def _float(x=0):
    return as_expr(x)


def _extreme(args, op: str, name: str):
    """Python's max (op ">") or min (op "<") of one iterable or of several arguments: the first
    of the best, as Python keeps it."""
    items = _iter(args[0]) if len(args) == 1 else list(args)
    if not items:
        raise Stop(f"{name} of an empty sequence", "raises ValueError")
    best = items[0]
    for v in items[1:]:
        if compare(v, op, best):
            best = v
    return best


def _max(*args):
    return _extreme(args, ">", "max")


def _min(*args):
    return _extreme(args, "<", "min")


def _sum(x, start=0):
    total = as_expr(start)
    for v in _iter(x):
        total = total + as_expr(v)
    return total


def _abs(x):
    return _elementwise(lambda v: as_expr(v) if compare(v, ">=", 0) else -as_expr(v), x)


def _isinstance(value, kinds):
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if any(isinstance(k, Object) for k in kinds):
        raise Stop("isinstance of a class read from the source", "an instance's type is not read")
    names = {k.name.rsplit(".", 1)[-1] if hasattr(k, "name") else str(k) for k in kinds}
    if isinstance(value, bool):
        return bool(names & {"bool", "int"})
    if isinstance(value, sp.Basic):
        if value.is_integer:
            return bool(names & {"int", "Integral", "integer", "int64", "Number", "Real"})
        if value.is_Integer is False and value.is_number and value.is_Rational:
            return bool(names & {"float", "Number", "Real", "floating", "float64"})
        raise Stop(f"isinstance of {value}", "its Python type depends on how the value is bound")
    table = {"list": list, "tuple": tuple, "str": str, "set": set, "frozenset": frozenset, "dict": dict}
    if isinstance(value, Arr):
        return "ndarray" in names
    return any(isinstance(value, table[n]) for n in names if n in table)


def _enumerate(x, start=0):
    if isinstance(x, Seq):
        return _enumerate_seq(x, start)
    s = concrete_int(start, "enumerate start")
    return [(sp.Integer(i + s), v) for i, v in enumerate(_iter(x))]


def _zip(*xs):
    if any(isinstance(x, Seq) for x in xs):
        return _zip_seq(*xs)
    return [tuple(t) for t in zip(*(_iter(x) for x in xs))]


def _bool(x=False):
    return truth(x)


def _np_array(x, dtype=None, **_):
    if isinstance(x, Seq):
        return x
    items = _iter(x) if not isinstance(x, (bool, sp.Basic)) else [x]
    kind = "bool" if all(isinstance(v, bool) for v in items) and items else "int"
    return Arr([sp.Integer(int(v)) if isinstance(v, bool) and kind != "bool" else v for v in items], _kind(dtype, kind))


def _kind(dtype, default: str) -> str:
    if dtype is None:
        return default
    name = getattr(dtype, "name", dtype) if not isinstance(dtype, str) else dtype
    name = str(name).rsplit(".", 1)[-1]
    if name in ("bool", "bool_"):
        return "bool"
    if name.startswith("float"):
        return "float"
    return "int"


def _np_zeros(n, dtype=None, **_):
    return Arr([sp.Integer(0)] * _length(n), _kind(dtype, "float"))


def _np_ones(n, dtype=None, **_):
    return Arr([sp.Integer(1)] * _length(n), _kind(dtype, "float"))


def _np_full(n, value, dtype=None, **_):
    return Arr([value] * _length(n), _kind(dtype, "float"))


def _length(n) -> int:
    if isinstance(n, tuple):
        if len(n) != 1:
            raise Stop(f"an array of shape {n}", "only one-dimensional arrays are read")
        n = n[0]
    return concrete_int(n, "array length")


def _np_arange(*args, dtype=None):
    return Arr([sp.Integer(i) for i in _range(*args)], "int")


def _np_where(cond, a=None, b=None):
    if a is None:
        return (Arr([sp.Integer(i) for i, c in enumerate(_iter(cond)) if truth(c)], "int"),)
    cs = _iter(cond) if isinstance(cond, Arr) else None
    n = max(len(v.items) for v in (cond, a, b) if isinstance(v, Arr)) if any(isinstance(v, Arr) for v in (cond, a, b)) else None
    if n is None:
        return a if truth(cond) else b

    def at(v, i):
        return v.items[i] if isinstance(v, Arr) else v
    return Arr([at(a, i) if truth(cs[i] if cs is not None else cond) else at(b, i) for i in range(n)], "int")


def _np_sum(x, **_):
    return _sum(x)


def _np_concatenate(parts, **_):
    out = []
    for p in parts:
        out.extend(_iter(p))
    return Arr(out, "int")


def _np_append(a, b, **_):
    return Arr(_iter(a) + (_iter(b) if isinstance(b, (Arr, list, tuple)) else [b]), "int")


def _np_delete(a, index, **_):
    items = _iter(a)
    i = concrete_int(index, "delete index")
    return Arr(items[:i] + items[i + 1:], a.kind if isinstance(a, Arr) else "int")


def _np_argmax(a, **_):
    items = _iter(a)
    best = 0
    for i, v in enumerate(items):
        if compare(v, ">", items[best]):
            best = i
    return sp.Integer(best)


def _np_nonzero(a):
    return (Arr([sp.Integer(i) for i, v in enumerate(_iter(a)) if truth(v)], "int"),)


def _exp(x):
    return _elementwise(lambda v: sp.exp(as_expr(v)), x)


def _log(x, base=None):
    if base is not None:
        return sp.log(as_expr(x)) / sp.log(as_expr(base))
    return _elementwise(lambda v: sp.log(as_expr(v)), x)


def _sqrt(x):
    return _elementwise(lambda v: sp.sqrt(as_expr(v)), x)


def _pow(a, b):
    return as_expr(a) ** as_expr(b)


def _floor(x):
    return _elementwise(lambda v: sp.floor(as_expr(v)), x)


def _ceil(x):
    return _elementwise(lambda v: sp.ceiling(as_expr(v)), x)


def _comb(n, k):
    return sp.binomial(as_expr(n), as_expr(k))


def _type(name):
    """A type used as a value (int in ``astype(int)``, ``dtype=float``)."""
    from ldpaudit.extract.symbolic import Native

    return Native(name)


FUNCTIONS = {
    "builtins.len": lambda x: x.length if isinstance(x, Seq) else sp.Integer(len(_iter(x))),
    "builtins.range": _range, "builtins.int": _int, "builtins.float": _float, "builtins.bool": _bool,
    "builtins.abs": _abs, "builtins.min": _min, "builtins.max": _max, "builtins.sum": _sum,
    "builtins.round": _round, "builtins.list": lambda x=(): _same_seq(x) or _iter(x),
    "builtins.tuple": lambda x=(): _same_seq(x) or tuple(_iter(x)),
    "builtins.set": lambda x=(): {_hashable(v) for v in _iter(x)},
    "builtins.frozenset": lambda x=(): frozenset(_hashable(v) for v in _iter(x)),
    "builtins.sorted": lambda x, reverse=False: _sorted(_iter(x), reverse=truth(reverse)),
    "builtins.reversed": lambda x: list(reversed(_iter(x))),
    "builtins.enumerate": _enumerate, "builtins.zip": _zip, "builtins.isinstance": _isinstance,
    "builtins.any": lambda x: any(truth(v) for v in _iter(x)), "builtins.all": lambda x: all(truth(v) for v in _iter(x)),
    "builtins.pow": _pow, "builtins.divmod": lambda a, b: (sp.floor(as_expr(a) / as_expr(b)), sp.Mod(as_expr(a), as_expr(b))),
    "math.exp": _exp, "math.log": _log, "math.sqrt": _sqrt, "math.pow": _pow, "math.floor": _floor,
    "math.ceil": _ceil, "math.comb": _comb, "math.isclose": None,
    "numpy.exp": _exp, "numpy.log": _log, "numpy.sqrt": _sqrt, "numpy.power": _pow, "numpy.floor": _floor,
    "numpy.ceil": _ceil, "numpy.rint": _rint, "numpy.round": _rint, "numpy.around": _rint, "numpy.abs": _abs,
    "numpy.array": _np_array, "numpy.asarray": _np_array, "numpy.zeros": _np_zeros, "numpy.ones": _np_ones,
    "numpy.full": _np_full, "numpy.arange": _np_arange, "numpy.where": _np_where, "numpy.sum": _np_sum,
    "numpy.concatenate": _np_concatenate, "numpy.append": _np_append, "numpy.delete": _np_delete,
    "numpy.argmax": _np_argmax, "numpy.nonzero": _np_nonzero, "numpy.maximum": _max, "numpy.minimum": _min,
    "numpy.max": _max, "numpy.min": _min, "numpy.int64": _int, "numpy.int32": _int, "numpy.float64": _float,
    "numpy.isscalar": lambda v: not isinstance(v, (Arr, list, tuple)),
    "scipy.special.comb": _comb,
}
FUNCTIONS = {k: v for k, v in FUNCTIONS.items() if v is not None}

#: constants of the libraries
CONSTANTS = {"math.e": sp.E, "math.pi": sp.pi, "numpy.e": sp.E, "numpy.pi": sp.pi, "math.inf": sp.oo, "numpy.inf": sp.oo}

#: names usable as types: astype(int), dtype=float, isinstance(x, int)
TYPES = {"builtins.int", "builtins.float", "builtins.bool", "builtins.list", "builtins.tuple", "builtins.str",
         "builtins.set", "builtins.frozenset", "builtins.dict", "numpy.int64", "numpy.int32", "numpy.uint8",
         "numpy.float64", "numpy.bool_", "numpy.ndarray", "numpy.integer", "numpy.floating", "numbers.Integral",
         "numbers.Real", "numbers.Number"}


def _hashable(v):
    if isinstance(v, list):
        return tuple(v)
    if isinstance(v, (Arr, Uniform)):
        raise Stop("an unhashable value in a set")
    return v
