"""Loops over a symbolic range, read one generic item at a time (``--domain 0..d-1``).

On a symbolic domain ``range(d)`` is a :class:`~ldpaudit.extract.symbolic.Seq`: its item is a
generic index i, a symbolic integer 0 <= i <= d-1 of the path. A list comprehension over it
(``[f(i) for i in range(d)]``, ``tuple(g(b) for b in bits)``) and a ``for`` loop over it that
appends one value per iteration to a list made empty before it are run once, on i: the result
is the sequence whose item i is that value. This is the whole sequence only when its items are
independent, so the reading refuses what could tie them:

* a name the loop assigns that is set before it (``prev = bit``, ``count += 1``: an item may
  read the one before); after the loop such names hold no value (:class:`Poison`);
* a change, inside an item, to a value made before it other than the one append (an item
  would change what the next ones see); ``break``, ``continue``, ``return``, ``else:``;
* a filtered or nested comprehension, a loop over a symbolic range inside another;
* and, when the output is such a sequence, a draw made outside its items (shared by all the
  items): :mod:`ldpaudit.extract.family` refuses the path.

Then Q(y | x) is the product over i of the law of item i, which the family reads cell by cell.
"""
from __future__ import annotations

import ast
import contextlib
from collections import Counter

from ldpaudit.extract.symbolic import (
    Appending,
    Arr,
    Closure,
    Poison,
    Seq,
    Stop,
    Uniform,
)

#: methods of lists, sets and arrays that change them
MUTATING = {"append", "extend", "insert", "pop", "remove", "sort", "reverse", "add", "discard", "update",
            "clear", "shuffle", "item assignment", "fill"}


class ItemMode:
    """What one item may change: nothing made before it, except one append to each list in
    ``appendable`` (a for loop's lists: empty before it, named once, in no other value)."""

    def __init__(self, env: dict, *, appendable: bool):
        self.before, refs = _reachable(env)
        self.appendable = {name: v for name, v in env.items() if isinstance(v, list) and not v
                           and refs[id(v)] == 1} if appendable else {}
        self.appended: dict[str, object] = {}

    def mutate(self, obj, name: str, args: list) -> bool:
        """Whether the call was an item's append, recorded here (the caller skips it); Stop when
        it changes a value made before the item; False for a value the item made."""
        if isinstance(obj, Appending):
            if name != "append":
                raise Stop(f"{obj.name}.{name}() in a loop over a symbolic range", "is not read there: only .append() is")
            if obj.name in self.appended:
                raise Stop(f"two appends to {obj.name} in one iteration of a loop over a symbolic range",
                           "make the list's length differ from the range's")
            self.appended[obj.name] = args[0]
            return True
        if name not in MUTATING or id(obj) not in self.before:
            return False
        raise Stop(f".{name}() of a value made before a loop over a symbolic range, in an item,",
                   "would change what the next items see")

    def shared(self, u) -> bool:
        """Whether the continuous draw u was made before the item (shared by all the items)."""
        return id(u) in self.before


def _reachable(env: dict) -> tuple[dict, Counter]:
    """id -> object of every container and continuous draw reachable from the scopes (kept
    alive while an item runs), and how many references each value has among them."""
    seen: dict = {}
    refs: Counter = Counter()
    todo = []
    scope = env
    while scope is not None:
        todo.extend(v for k, v in scope.items() if k != "__outer__")
        scope = scope.get("__outer__")
    while todo:
        v = todo.pop()
        refs[id(v)] += 1
        if id(v) in seen or not isinstance(v, (list, tuple, set, frozenset, dict, Arr, Closure, Uniform)):
            continue
        seen[id(v)] = v
        if isinstance(v, dict):
            todo.extend(v.values())
        elif isinstance(v, Arr):
            todo.extend(v.items)
        elif isinstance(v, Closure):
            todo.extend(v.env.values())
        elif not isinstance(v, Uniform):
            todo.extend(v)
    return seen, refs


@contextlib.contextmanager
def item_mode(interp, mode: ItemMode):
    if interp.item_mode is not None:
        raise Stop("a loop over a symbolic range inside another", "is not read: only one generic index is")
    interp.item_mode = mode
    try:
        yield
    finally:
        interp.item_mode = None


def comprehension(interp, node, env: dict, seq: Seq) -> Seq:
    """``[elt for target in seq]`` (or a generator expression): the item at the generic index."""
    if len(node.generators) != 1 or node.generators[0].ifs:
        raise Stop("a filtered or nested comprehension over a symbolic range",
                   "has a length that depends on the items; bind the size")
    gen = node.generators[0]
    scope = {"__outer__": env}
    with item_mode(interp, ItemMode(env, appendable=False)):
        interp.assign(gen.target, seq.item, scope)
        value = interp.eval(node.elt, scope)
    return Seq(seq.length, seq.index, value)


def for_loop(interp, node, env: dict, seq: Seq, exits: tuple) -> None:
    """A ``for`` loop over a symbolic range: its body once, on the generic item; each list it
    appends to becomes the sequence of the appended items."""
    if node.orelse:
        raise Stop("a for-else over a symbolic range", "is not read generically; bind the size")
    assigned = sorted(_assigned(node))
    clash = [name for name in assigned if _visible(interp, env, name)]
    if clash:
        raise Stop(f"the loop over range({seq.length}) assigns {clash[0]}, which is set before it:",
                   "an item may read the items before it")
    mode = ItemMode(env, appendable=True)
    for name in mode.appendable:
        env[name] = Appending(name)
    with item_mode(interp, mode):
        interp.assign(node.target, seq.item, env)
        try:
            interp.exec_block(node.body, env)
        except exits:
            raise Stop("break, continue or return in a loop over a symbolic range",
                       "makes the number of items differ from the range's") from None
    appends = _appended_names(node)
    for name, empty in mode.appendable.items():
        if name in mode.appended:
            env[name] = Seq(seq.length, seq.index, mode.appended[name])
        elif name in appends:  # appended on other paths of an item: its length depends on the draws
            env[name] = Poison(name, node.lineno, "is appended to on some paths of an item only: its length "
                                                  "depends on the draws")
        else:
            env[name] = empty
    for name in assigned:
        env[name] = Poison(name, node.lineno)


def _visible(interp, env: dict, name: str) -> bool:
    """Whether ``name`` has a value before the loop (in a scope, the module or the builtins): a
    loop that assigns it may read the previous item's value through it."""
    scope = env
    while scope is not None:
        if name in scope:
            return True
        scope = scope.get("__outer__")
    try:
        interp.lookup(name, {})
    except Stop:
        return False
    return True


def _appended_names(node: ast.For) -> set[str]:
    """Names whose .append() the loop's body calls."""
    return {n.func.value.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == "append" and isinstance(n.func.value, ast.Name)}


def _assigned(node: ast.For) -> set[str]:
    """Names the loop (its target and body) binds, outside nested functions and comprehensions."""
    out: set[str] = set()

    def visit(n):
        if isinstance(n, (ast.FunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        for child in ast.iter_child_nodes(n):
            visit(child)
    visit(node.target)
    for stmt in node.body:
        visit(stmt)
    return out
