"""Methods of the containers the subset reads (list, set, one-dimensional ndarray) and
indexing, on interpreter values."""
from __future__ import annotations

import sympy as sp

from ldpaudit.extract import natives
from ldpaudit.extract.symbolic import Arr, Stop, concrete_int, equal, truth


class Raised(Exception):
    """A path of the randomizer raises (its probability is then not an output's)."""

    def __init__(self, line: int, text: str):
        super().__init__(text)
        self.line, self.text = line, text


def index_of(index, n: int) -> int:
    i = concrete_int(index, "index")
    if not -n <= i < n:
        raise Raised(0, f"IndexError: index {i} out of range for length {n}")
    return i % n


def positions(index: Arr, n: int) -> list[int]:
    if index.kind == "bool" or all(isinstance(v, bool) for v in index.items):
        if len(index.items) != n:
            raise Stop(f"a boolean mask of length {len(index.items)} on {n} items", "raises IndexError")
        return [i for i, v in enumerate(index.items) if truth(v)]
    return [index_of(v, n) for v in index.items]


def list_method(obj: list, name: str, args: list):
    if name == "append":
        obj.append(args[0])
    elif name == "extend":
        obj.extend(natives._iter(args[0]))
    elif name == "insert":
        obj.insert(concrete_int(args[0], "insert position"), args[1])
    elif name == "pop":
        return obj.pop(index_of(args[0], len(obj)) if args else -1)
    elif name == "remove":
        for i, v in enumerate(obj):
            if equal(v, args[0]):
                del obj[i]
                return None
        raise Raised(0, "ValueError: list.remove(x): x not in list")
    elif name == "index":
        for i, v in enumerate(obj):
            if equal(v, args[0]):
                return sp.Integer(i)
        raise Raised(0, "ValueError: not in list")
    elif name == "copy":
        return list(obj)
    elif name == "count":
        return sp.Integer(sum(1 for v in obj if equal(v, args[0])))
    elif name == "sort":
        obj[:] = natives._sorted(obj)
    elif name == "reverse":
        obj.reverse()
    else:
        raise Stop(f"list.{name}()", "is not in the subset")
    return None


def set_method(obj: set, name: str, args: list):
    if name == "add":
        obj.add(natives._hashable(args[0]))
    elif name in ("discard", "remove"):
        obj.discard(args[0])
    elif name == "copy":
        return set(obj)
    elif name == "union":
        return obj | set(natives._iter(args[0]))
    else:
        raise Stop(f"set.{name}()", "is not in the subset")
    return None


def array_method(obj: Arr, name: str, args: list, kwargs: dict):
    if name in ("astype", "view"):
        kind = natives._kind(args[0] if args else kwargs.get("dtype"), "int")
        if kind == "bool":
            return Arr([truth(v) for v in obj.items], "bool")
        return Arr([sp.Integer(int(v)) if isinstance(v, bool) else v for v in obj.items], kind)
    if name == "copy":
        return obj.copy()
    if name == "tolist":
        return [sp.Integer(int(v)) if isinstance(v, bool) else v for v in obj.items]
    if name == "sum":
        return natives._sum(obj)
    if name == "item":
        if len(obj.items) != 1:
            raise Stop("item() of an array of several values", "raises ValueError")
        return obj.items[0]
    if name == "any":
        return any(truth(v) for v in obj.items)
    if name == "all":
        return all(truth(v) for v in obj.items)
    if name == "nonzero":
        return natives._np_nonzero(obj)
    if name == "argmax":
        return natives._np_argmax(obj)
    raise Stop(f"ndarray.{name}()", "is not in the subset")
