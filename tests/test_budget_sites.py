"""Every place ldpaudit reads a wall clock, and what it does with it.

A verdict or a number must be a function of its inputs: budgets count CPU seconds or work
units (z3's ``rlimit``, grid points, terms), never wall seconds. This test finds every read of a
wall clock in the package (``time.monotonic``, ``time.perf_counter``, ``time.time``, a real-time
alarm) and checks it against the list below, by kind:

- ``measure``: the time is only reported (a verdict's ``seconds``, a progress bar, a benchmark);
  the test checks that nothing in the function compares it with anything.
- ``guard``: a far guard against a stuck or starved job, or against an untrusted randomizer that
  never replies. Allowed only where no verdict or number is decided: the job runner's outer
  guard (it says the machine was too busy) and the audit's sandbox and workers (a program that
  hangs ends the audit with an error, exit 4, never a verdict).

A new clock read fails this test until it is listed here with its kind.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ldpaudit"
CLOCKS = {"monotonic", "perf_counter", "time", "monotonic_ns", "perf_counter_ns", "time_ns"}

GUARD = "guard"
MEASURE = "measure"

#: (module, function) -> kind; every function that reads a wall clock
SITES = {
    # the job runner: CPU seconds decide; the wall clock only stops a starved job, and says so
    ("budget.py", "_JobClock.__init__"): GUARD,
    ("budget.py", "_JobClock.spent"): GUARD,
    ("budget.py", "_JobClock.exceeded"): GUARD,
    # the audit's isolation of untrusted randomizers and its cluster workers
    ("audit/external.py", "ExternalRandomizer._load_error"): GUARD,
    ("audit/external.py", "ExternalRandomizer._read_payload"): GUARD,
    ("audit/process.py", "SupervisedProgram._read_status"): GUARD,
    ("audit/external.py", "ExternalRandomizer._readline"): GUARD,
    ("audit/external.py", "ExternalRandomizer._reply"): GUARD,
    ("audit/external.py", "ExternalRandomizer._request"): GUARD,
    ("audit/external.py", "ExternalRandomizer.load_error"): GUARD,
    ("audit/worker.py", "_Watchdog._watch"): GUARD,
    ("audit/worker.py", "main"): GUARD,
    ("audit/sandbox.py", "end_descendants"): GUARD,
    ("audit/cluster.py", "_sampler"): GUARD,
    ("audit/cluster.py", "ClusterDraws._follow_workers"): GUARD,
    ("audit/cluster.py", "ClusterDraws.__init__"): GUARD,
    # reported only
    ("audit/cluster.py", "ClusterDraws.close"): MEASURE,
    ("audit/cluster.py", "tally_chunks"): MEASURE,
    ("audit/draws.py", "Progress.__init__"): MEASURE,
    ("audit/draws.py", "Progress.advance"): GUARD,   # shows a progress bar after 1 s: display only
    ("audit/auditor.py", "audit"): MEASURE,
    ("audit/auditor.py", "_confirm"): MEASURE,
    ("audit/guided.py", "guided_audit"): MEASURE,
    ("audit/guided_wide.py", "_pooled_wide_audit"): MEASURE,
    ("account/amplify.py", "amplify"): MEASURE,
    ("account/density_shuffle.py", "density_amplify"): MEASURE,
    ("account/gaussian_shuffle.py", "gaussian_amplify"): MEASURE,
    ("bench/runner.py", "score"): MEASURE,
    ("extremal/staircase.py", "certify"): MEASURE,
    ("papers/hooks/gaussian.py", "_crossing"): MEASURE,
}

#: modules where a wall clock may stop something (never where a verdict or a number is decided)
GUARDED_MODULES = ("budget.py", "audit/")
#: the verifier reports how long it took everywhere: every function there is a measurement
MEASURED_MODULES = ("verify/",)


def _is_clock(node: ast.AST) -> bool:
    """``time.perf_counter`` and the like, called or not (an alias ``perf = time.perf_counter``)."""
    return (isinstance(node, ast.Attribute) and node.attr in CLOCKS
            and isinstance(node.value, ast.Name) and node.value.id == "time")


def _real_time_alarm(node: ast.AST) -> bool:
    """``signal.alarm(...)`` or ``setitimer(ITIMER_REAL, ...)``: a wall-clock interrupt."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    if node.func.attr == "alarm":
        return True
    return node.func.attr == "setitimer" and any(isinstance(a, ast.Attribute) and a.attr == "ITIMER_REAL"
                                                 for a in node.args)


@functools.lru_cache(maxsize=None)
def _trees(*words: str) -> tuple:
    """(path, syntax tree) of every module of the package whose text holds one of ``words``
    (a module without them cannot have the node looked for), each parsed once for all the tests."""
    return tuple((path, _tree(path)) for path in sorted(PACKAGE.rglob("*.py"))
                 if any(w in path.read_text() for w in words))


@functools.lru_cache(maxsize=None)
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _functions():
    """(module, qualified function name, function node) for every function of the package's
    modules that mention a clock (``time.``) or an alarm."""
    for path, tree in _trees("time.", "alarm", "setitimer"):
        module = str(path.relative_to(PACKAGE))

        def walk(node, prefix):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield module, prefix + child.name, child
                    yield from walk(child, prefix + child.name + ".")
                elif isinstance(child, ast.ClassDef):
                    yield from walk(child, prefix + child.name + ".")
                else:
                    yield from walk(child, prefix)

        yield from walk(tree, "")


def _own_nodes(fn):
    """The nodes of ``fn`` outside its nested functions (those are checked on their own)."""
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def _tainted(fn) -> set[str]:
    """Names (and ``self.x`` attributes) in ``fn`` assigned from an expression with a clock read."""
    names: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node in _own_nodes(fn):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                if _reads_clock(node.value, names):
                    for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                        for t in (target.elts if isinstance(target, ast.Tuple) else [target]):
                            key = _name(t)   # a name or self.x (an entry of a dict of timings is a record)
                            if key and key not in names:
                                names.add(key)
                                changed = True
    return names


def _name(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return "self." + node.attr
    return None


#: calls through which a time stays a time (any other call's result is not the time itself)
_PASS_THROUGH = {"round", "float", "int", "max", "min", "abs"}


def _reads_clock(expr, tainted: set[str]) -> bool:
    """Whether ``expr``'s value is (arithmetic on) a clock reading."""
    if _is_clock(expr) or _name(expr) in tainted:
        return True
    if isinstance(expr, ast.Call):
        func = expr.func
        if _is_clock(func) or _name(func) in tainted:
            return True
        if isinstance(func, ast.Name) and func.id in _PASS_THROUGH:
            return any(_reads_clock(a, tainted) for a in expr.args)
        return False
    return any(_reads_clock(child, tainted) for child in ast.iter_child_nodes(expr))


@functools.lru_cache(maxsize=1)
def _clock_sites() -> dict:
    found = {}
    for module, name, fn in _functions():
        own = list(_own_nodes(fn))
        if any(_is_clock(n) for n in own):
            found[(module, name)] = fn
        assert not any(_real_time_alarm(n) for n in own), f"{module}:{name} sets a wall-clock alarm"
    return found


def test_every_wall_clock_read_is_listed_with_its_kind():
    found = _clock_sites()
    unlisted = sorted(site for site in found if site not in SITES and not site[0].startswith(MEASURED_MODULES))
    assert unlisted == [], f"wall-clock reads not listed in SITES (say whether each measures or guards): {unlisted}"
    gone = sorted(site for site in SITES if site not in found)
    assert gone == [], f"listed sites that no longer read a clock (remove them): {gone}"


def test_a_measured_time_is_never_compared():
    """In a ``measure`` site (and everywhere in the verifier) the clock's value is only stored or
    printed: no comparison involves it, so no verdict or number can depend on it."""
    for site, fn in _clock_sites().items():
        kind = SITES.get(site, MEASURE)
        if kind != MEASURE:
            continue
        tainted = _tainted(fn)
        compared = [node.lineno for node in _own_nodes(fn)
                    if isinstance(node, ast.Compare) and any(_reads_clock(e, tainted) for e in [node.left, *node.comparators])]
        assert compared == [], f"{site[0]}:{site[1]} compares a wall-clock time (lines {compared})"


def test_guards_are_only_where_nothing_is_decided():
    for (module, name), kind in SITES.items():
        if kind == GUARD:
            assert module.startswith(GUARDED_MODULES), f"{module}:{name}: a wall-clock guard outside {GUARDED_MODULES}"


def test_z3_runs_under_its_deterministic_resource_limit():
    """No z3 solver is given a timeout: every query is bounded by ``rlimit``."""
    for path, tree in _trees("timeout"):
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "set":
                if node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value in ("timeout", "soft_timeout"):
                    raise AssertionError(f"{path.relative_to(PACKAGE)}:{node.lineno} sets a z3 timeout; use rlimit")
    import z3

    from ldpaudit.verify import smt

    x = z3.Real("x")
    hard = [x * x * x + x * x * 7 == 13 * x + 2, x > 0]
    assert smt.check(hard, rlimit=1).result == "unknown"   # one unit: stops at once, on any machine
    out = smt.check(hard)
    assert out.result == "sat" and 0 < out.work < smt.DEFAULT_RLIMIT
