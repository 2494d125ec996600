"""An extracted channel written in the spec language, in the smallest exact form that holds.

* ``structured``, outputs ``element``: inputs and outputs 0..n-1, one weight for y = x and one
  for y ≠ x, the same at every input (k-RR);
* ``structured``, outputs ``subset``: every output a k-subset of the inputs 0..n-1, one weight
  for subsets holding x and one for the others (k-subset);
* ``product``: outputs bit vectors of length n over inputs 0..n-1 whose probability is the
  product of one law for the input's own bit and one for every other bit (unary encodings);
* ``explicit`` otherwise: one row per input (outputs that are not integers are labelled by
  their text, e.g. ``"(0, 1, 1)"``).

Each form is chosen only after checking, entry by entry and exactly, that it gives the
extracted rows. The text records the file, the function and the lines it came from.
"""
from __future__ import annotations

import itertools
import math

import sympy as sp

from ldpaudit.errors import InvalidParameter
from ldpaudit.extract.channel import Extraction
from ldpaudit.extract.exact import same  # importable from here as before


def _range_inputs(ex: Extraction) -> int | None:
    xs = ex.inputs
    if all(isinstance(x, int) and not isinstance(x, bool) for x in xs) and xs == list(range(len(xs))):
        return len(xs)
    return None


def _entry(ex: Extraction, x, y):
    return ex.rows[x].get(y, sp.Integer(0))


def element_form(ex: Extraction):
    """(weight of y = x, weight of y ≠ x) if the channel is k-RR shaped, else None."""
    n = _range_inputs(ex)
    if n is None or not all(isinstance(y, int) and 0 <= y < n for y in ex.outputs):
        return None
    truth, other = _entry(ex, 0, 0), _entry(ex, 0, 1)
    for x in ex.inputs:
        for y in range(n):
            if not same(_entry(ex, x, y), truth if y == x else other):
                return None
    return truth, other


def subset_form(ex: Extraction):
    """(k, weight of subsets holding x, weight of the others) for a k-subset channel, else None."""
    n = _range_inputs(ex)
    if n is None or not ex.outputs or not all(isinstance(y, frozenset) for y in ex.outputs):
        return None
    sizes = {len(y) for y in ex.outputs}
    if len(sizes) != 1:
        return None
    k = sizes.pop()
    if not 1 <= k <= n - 1 or not all(all(isinstance(v, int) and 0 <= v < n for v in y) for y in ex.outputs):
        return None
    if math.comb(n, k) > 20_000:
        return None
    subsets = [frozenset(s) for s in itertools.combinations(range(n), k)]
    inside = _entry(ex, 0, next(s for s in subsets if 0 in s))
    outside = _entry(ex, 0, next(s for s in subsets if 0 not in s))
    for x in ex.inputs:
        for s in subsets:
            if not same(_entry(ex, x, s), inside if x in s else outside):
                return None
    return k, inside, outside


def product_form(ex: Extraction):
    """(law of the own bit, law of the other bits), each {0: p0, 1: p1}, for a unary encoding
    whose coordinates are independent, else None."""
    n = _range_inputs(ex)
    if n is None or n > 12 or not ex.outputs:
        return None
    if not all(isinstance(y, tuple) and len(y) == n and set(y) <= {0, 1} for y in ex.outputs):
        return None

    def marginal(x, i):
        ones = sp.Add(*(p for y, p in ex.rows[x].items() if y[i] == 1))
        return {0: 1 - ones, 1: ones}
    on = marginal(0, 0)
    off = marginal(0, 1)
    for x in ex.inputs:
        for i in range(n):
            law = on if i == x else off
            if not same(marginal(x, i)[1], law[1]):
                return None
    for x in ex.inputs:
        for y in itertools.product((0, 1), repeat=n):
            expected = sp.Mul(*((on if i == x else off)[b] for i, b in enumerate(y)))
            if not same(_entry(ex, x, y), expected):
                return None
    from ldpaudit.extract.channel import _tidy

    return {v: _tidy(p) for v, p in on.items()}, {v: _tidy(p) for v, p in off.items()}


def label(y) -> str:
    if isinstance(y, tuple):
        return "(" + ", ".join(label(v) for v in y) + ("," if len(y) == 1 else "") + ")"
    if isinstance(y, frozenset):
        return "{" + ", ".join(label(v) for v in sorted(y, key=repr)) + "}"
    return str(y)


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _e(expr) -> str:
    return _q(sp.sstr(sp.sympify(expr)))


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return _q(str(v))


def choose_form(ex: Extraction) -> tuple[str, object]:
    if ex.family is not None:
        return ex.family.form, ex.family.laws
    for name, finder in (("element", element_form), ("subset", subset_form), ("product", product_form)):
        found = finder(ex)
        if found is not None:
            return name, found
    return "explicit", None


def spec_text(ex: Extraction, *, epsilon=None, form: tuple[str, object] | None = None) -> str:
    """The spec file of the extraction. ``epsilon``: the claimed ε (an exact value or text);
    default the code's epsilon parameter (or its bound value)."""
    claim = _claim(ex, epsilon)
    kind, found = form or choose_form(ex)
    src = ex.source
    first, last = ex.lines
    out = [(f"# Extracted by `ldpaudit extract` from {src.shown_path}, function {ex.function} "
            f"(lines {first}-{last}); the code was read, never run.")]
    for name, a, b in ex.helpers:
        out.append(f"#   helper {name} (lines {a}-{b})")
    for name, value, how in ex.bound:
        shown = "-" if value is None and how == "unused" else value
        note = {"--target-arg": "bound by --target-arg", "default": "its default (not a number: bound)",
                "unused": "does not change the channel", "target": "given in the target"}[how]
        out.append(f"#   {name} = {shown}: {note}")
    out += [f"#   {note}" for note in ex.notes]
    if ex.family is not None:
        out.append(f"#   {ex.path_count} paths on the symbolic input x in 0..{sp.sstr(ex.family.size - 1)}, "
                   f"{ex.family.cells} cells of (x, {'y' if kind == 'element' else 'item i'}); form: {kind}, generic "
                   "in the domain size")
    else:
        out.append(f"#   {ex.path_count} paths over {len(ex.inputs)} inputs; form: {kind}")
    out.append("# Check it against the running code: ldpaudit audit TARGET --spec THIS_FILE --domain ...")
    out += ["[mechanism]", f"name = {_q(ex.function + ' (extracted)')}", f"claimed_epsilon = {_q(claim)}",
            f"description = {_q('extracted from the source of ' + ex.function)}",
            f"source = {_q(f'{src.shown_path}:{ex.function}, lines {first}-{last}')}", ""]
    for p in ex.params:
        out += [f"[parameters.{p.name}]", f'type = "{p.kind}"', *_range_lines(p), ""]
    examples = [(p.name, p.example) for p in ex.params if p.example is not None]
    if examples:
        out.append("[example]")
        out += [f"{name} = {_q(sp.sstr(value))}" for name, value in examples]
        out.append("")
    n = _range_inputs(ex) if ex.family is None else ex.family.size
    out.append("[inputs]")
    if n is not None:
        out.append(f"size = {_size(n)}")
    else:
        labels = list(ex.inputs)
        if not all(isinstance(x, (int, str)) and not isinstance(x, bool) for x in labels):
            raise InvalidParameter(f"--domain {ex.inputs!r}: a spec's inputs are integers or strings; give e.g. 0..7")
        out.append("labels = [" + ", ".join(_toml_value(x) for x in labels) + "]")
    out += ["", "[channel]"]
    if kind == "element":
        truth, other = found
        out += ['form = "structured"', 'outputs = "element"', f"size = {_size(n)}", "",
                "[[channel.classes]]", 'name = "truth"', 'when = "y == x"', "count = 1", f"weight = {_e(truth)}", "",
                "[[channel.classes]]", 'name = "other"', 'when = "y != x"', f"count = {_size(n - 1)}",
                f"weight = {_e(other)}"]
    elif kind == "subset":
        k, inside, outside = found
        out += ['form = "structured"', 'outputs = "subset"', f"universe = {n}", f"k = {k}", "",
                "[[channel.classes]]", 'name = "contains input"', 'when = "x in y"',
                f"count = {math.comb(n - 1, k - 1)}", f"weight = {_e(inside)}", "",
                "[[channel.classes]]", 'name = "omits input"', 'when = "x not in y"',
                f"count = {math.comb(n - 1, k)}", f"weight = {_e(outside)}"]
    elif kind == "product":
        on, off = found
        out += ['form = "product"', f"coordinates = {_size(n)}", "", "[channel.on]",
                "values = { " + ", ".join(f'"{v}" = {_e(p)}' for v, p in on.items()) + " }", "", "[channel.off]",
                "values = { " + ", ".join(f'"{v}" = {_e(p)}' for v, p in off.items()) + " }"]
    else:
        ints = all(isinstance(y, int) and not isinstance(y, bool) for y in ex.outputs)
        labels = [str(y) if ints else _q(label(y)) for y in ex.outputs]
        if not ints and len(set(labels)) != len(labels):
            raise InvalidParameter("the extracted outputs have clashing text labels; return integers or tuples")
        out += ['form = "explicit"', "outputs = [" + ", ".join(labels) + "]", "rows = ["]
        for x in ex.inputs:
            out.append("  [" + ", ".join(_e(_entry(ex, x, y)) for y in ex.outputs) + "],")
        out.append("]")
    return "\n".join(out) + "\n"


def _size(n) -> str:
    """A size in TOML: an integer, or an expression of the parameters as a string ("d - 1")."""
    n = sp.sympify(n)
    return str(int(n)) if n.is_Integer else _q(sp.sstr(n))


def _range_lines(p) -> list[str]:
    """A parameter's declared range (its defaults, or what --assume gave) as spec fields."""
    d = p.declared
    if d is None:
        return ["min = 1"] if p.kind == "integer" else ["min = 0", "strict_min = true"]
    out = []
    for key, bound, strict in (("min", d.lower, d.lower_strict), ("max", d.upper, d.upper_strict)):
        if bound is None:
            continue
        out.append(f"{key} = {_size(bound)}")
        if strict:
            out.append(f"strict_{key} = true")
    return out


def _claim(ex: Extraction, epsilon) -> str:
    if epsilon is not None:
        return str(epsilon)
    p = ex.epsilon_param
    if p is not None:
        return p.name
    for name, value, how in ex.bound:
        if how in ("--target-arg", "target") and name.lower().startswith("eps"):
            return sp.sstr(value)
    raise InvalidParameter(f"{ex.function}() has no epsilon parameter; give the claimed ε with --epsilon E")


def output_of(ex: Extraction, y):
    """The code's output for a spec output label (explicit labels are the outputs' text)."""
    for out in ex.outputs:
        if out == y or label(out) == y:
            return out
    if isinstance(y, tuple) and all(isinstance(v, int) for v in y):
        return y
    return y
