"""``ldpaudit extract TARGET --domain D [--target-arg NAME=VALUE ...] [--out spec.toml]``: read
the exact channel of a Python randomizer off its source and write it in the spec language.

Exit codes: 0 the spec was written (or printed); 2 bad input (target, argument, domain); 3 the
code is outside the subset (the message names the file, line and construct), a row could not
be shown to sum to 1, or the budget ran out. The extraction runs in a child process bounded by
``--timeout`` CPU seconds and ``--memory-mb`` (:mod:`ldpaudit.budget`) and by ``--max-steps``
work units; nothing in the target is executed or imported.
"""
from __future__ import annotations

import json
import sys

from ldpaudit import budget
from ldpaudit.mechanism.options import option_megabytes, option_seconds

DEFAULT_SECONDS = 60.0


def add_source_options(p, *, required: bool = True) -> None:
    """``--domain``, ``--target-arg``, ``--max-steps``: what ``extract`` and ``verify --from-code`` share."""
    from ldpaudit.extract.source import DEFAULT_STEPS

    p.add_argument("--domain", required=required,
                   help="the inputs: 0..7 (inclusive), a,b,c or a JSON list, as audit takes them; or 0..d-1 with d "
                        "an integer parameter left symbolic, for a channel generic in d (k-RR's structured form)")
    p.add_argument("--target-arg", action="append", metavar="NAME=VALUE",
                   help="bind a parameter of the function (or of its factory): an integer, true/false, a quoted "
                        "string or an exact number such as 1/2 or log(3); unbound numeric parameters stay symbolic")
    p.add_argument("--assume", action="append", metavar="RANGE",
                   help="the range of a symbolic parameter, in the spec language: 'd>=2', '0<f<1', 'k<=d-1' "
                        "(repeatable); comparisons in the code are decided exactly for every value in the ranges "
                        "and the spec declares them. Defaults: an integer parameter >= 1, a real one > 0, and "
                        "d >= 2 for a domain 0..d-1")
    p.add_argument("--max-steps", type=_steps, default=DEFAULT_STEPS, metavar="N",
                   help=f"work budget of the extraction: statements, expressions and draw outcomes over all paths "
                        f"and inputs (default {DEFAULT_STEPS:,}); over it the command exits 3")


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "extract", help="read the exact channel of a Python randomizer off its source (never running it)",
        description="Symbolically execute a randomizer's source (the function and the helpers of its module it "
                    "calls) and write its exact channel as a spec. The target is parsed, never imported or run.",
        epilog="The subset: random/numpy.random draws (random, randrange, randint, integers, choice with or without "
               "p=, sample, shuffle, permutation, binomial), comparisons random() < p, if/elif/else, for over a "
               "bound range, comprehensions, np.where, math/numpy exp, log, sqrt. Outside it (continuous draws such "
               "as laplace, hashes, I/O, while loops, try) the command exits 3 naming the line; use `ldpaudit audit`. "
               "Symbolic parameters range over their defaults (an integer >= 1, a real > 0) or --assume; a comparison "
               "not decided for all of them exits 3 naming it and what to assume or bind. --domain 0..d-1 reads code "
               "generic in d on one symbolic input and writes k-RR's structured form with d symbolic when the channel "
               "has it (one weight for y == x, one for y != x), or the product form when it returns one bit per "
               "index of a loop over range(d) whose items are independent (OUE, SUE, RAPPOR). A class target builds "
               "the instance by reading __init__ (and the base classes' methods, in other modules too) and runs the "
               "method from that state on every path; a method that changes state a later call reads (a stateful "
               "client) exits 3 naming the line. "
               "Prove the result with `ldpaudit verify SPEC` or directly with `ldpaudit verify --from-code TARGET`.")
    p.add_argument("target", help="package.module:function or path/to/file.py:function (a randomizer f(x, ...) or "
                                  "a factory returning one), or a class's method: module:Class(args).method, its "
                                  "__init__ read symbolically once (args literals, bound, or bare names of symbolic "
                                  "parameters: DEClient(epsilon, d)._perturb), or module:Class.method")
    add_source_options(p)
    p.add_argument("--epsilon", metavar="E", help="the claimed ε written in the spec (default: the code's epsilon "
                                                  "parameter)")
    p.add_argument("--out", metavar="PATH", help="write the spec to PATH (never overwriting); default: print it")
    p.add_argument("--timeout", type=_seconds, default=DEFAULT_SECONDS, metavar="SECONDS",
                   help=f"CPU budget of the extraction (default {DEFAULT_SECONDS:g}); over it the command exits 3")
    p.add_argument("--memory-mb", type=_megabytes, default=budget.DEFAULT_MEMORY_MB, metavar="MB",
                   help=f"memory budget of the extraction in MiB (default {budget.DEFAULT_MEMORY_MB})")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run, format="toml")  # the spec printed as written: never wrapped to the terminal


def _seconds(text: str) -> float:
    return option_seconds(text, "--timeout")


def _megabytes(text: str) -> int:
    return option_megabytes(text, "--memory-mb")


def _steps(text: str) -> int:
    import argparse

    try:
        value = int(float(text))
    except (ValueError, OverflowError):
        value = 0
    if not 1 <= value <= 10**10:
        raise argparse.ArgumentTypeError(f"--max-steps {text!r} must be a whole number of work units, e.g. 5000000")
    return value


def target_args(items) -> dict:
    from ldpaudit.errors import InvalidParameter

    out = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise InvalidParameter(f"--target-arg {item!r} is not NAME=VALUE; write e.g. --target-arg d=8")
        out[name.strip()] = value
    return out


def extraction(args):
    """The extraction the arguments ask for (``args.target`` or ``args.from_code``)."""
    from ldpaudit.audit.command import parse_domain
    from ldpaudit.extract.channel import extract

    target = getattr(args, "from_code", None) or args.target
    if args.domain is None:
        from ldpaudit.errors import InvalidParameter

        raise InvalidParameter("--domain is required with a code target, e.g. --domain 0..7")
    domain = args.domain if _names_parameters(args.domain) else parse_domain(args.domain)
    return extract(target, domain, target_args(args.target_arg), max_steps=args.max_steps,
                   assume=getattr(args, "assume", None) or ())


def _names_parameters(text: str) -> bool:
    """Whether ``--domain`` is a range whose bounds name parameters (0..d-1), not numbers."""
    text = text.strip()
    if text.startswith("[") or ":" in text or ".." not in text:
        return False
    low, _, high = text.partition("..")
    return any(c.isalpha() or c == "_" for c in low + high)


def extracted_mechanism(args, *, epsilon=None):
    """(extraction, spec text, loaded Mechanism) for ``verify --from-code`` and ``extract``."""
    from ldpaudit.extract.spec import spec_text
    from ldpaudit.mechanism import loads_spec

    ex = extraction(args)
    text = spec_text(ex, epsilon=_exact_text(epsilon))
    mech = loads_spec(text, source=f"extracted from {ex.source.shown_path}:{ex.function}")
    return ex, text, mech


def _exact_text(epsilon):
    """``--epsilon`` as spec text: a decimal such as 2.19 exactly (219/100); text that names
    parameters (epsilon/2) as written, for the spec's parser."""
    if epsilon is None:
        return None
    from ldpaudit.errors import InvalidParameter
    from ldpaudit.mechanism.options import option_exact

    try:
        value = option_exact(epsilon, "--epsilon")
    except InvalidParameter:
        return epsilon
    return str(value)


def run(args) -> int:
    from ldpaudit.mechanism.options import check_output_path

    if args.out:
        check_output_path(args.out, "--out")
    try:
        code, out = budget.call(_captured, args, seconds=args.timeout, memory_mb=args.memory_mb)
    except budget.BudgetExceeded as exc:
        from ldpaudit.errors import BudgetSpent

        raise BudgetSpent(f"extract {args.target}: {exc}") from None
    sys.stdout.write(out)
    return code


def _captured(args) -> tuple[int, str]:
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = _run(args)
    return code, buffer.getvalue()


def _run(args) -> int:
    from ldpaudit.extract.spec import choose_form
    from ldpaudit.mechanism.options import write_output

    ex, text, mech = extracted_mechanism(args, epsilon=args.epsilon)
    if args.out:
        write_output(args.out, text, "--out")
    if args.json:
        from ldpaudit.schema import envelope

        payload = {
            "target": args.target, "file": ex.source.shown_path, "function": ex.function,
            "lines": list(ex.lines), "helpers": [{"name": n, "lines": [a, b]} for n, a, b in ex.helpers],
            "form": mech.channel.form, "shape": choose_form(ex)[0],
            "parameters": [p.name for p in ex.params],
            "bound": {name: str(value) for name, value, how in ex.bound if how != "unused"},
            "inputs": _count(ex, len(ex.inputs)), "outputs": _count(ex, len(ex.outputs), outputs=True),
            "ranges": {p.name: p.declared.describe() for p in ex.params if p.declared is not None},
            "paths": ex.path_count, "steps": ex.steps,
            "out": args.out, "spec": text,
        }
        print(json.dumps(envelope("extract", "OK", payload), indent=2))
        return 0
    if args.out:
        params = ", ".join(p.name for p in ex.params) or "none (all bound)"
        print(f"wrote {args.out}: {mech.name}, {mech.channel.form} channel over {_count(ex, len(ex.inputs))} inputs "
              f"and {_count(ex, len(ex.outputs), outputs=True)} outputs ({ex.path_count} paths); free parameters: "
              f"{params}")
        print(f"  prove it: ldpaudit verify {args.out} --tight")
    else:
        sys.stdout.write(text)
    return 0


def _count(ex, n, *, outputs: bool = False):
    """How many inputs (outputs): the symbolic size of a channel generic in it, as text (a
    product's outputs are its vectors: v^d for v values per coordinate)."""
    if ex.family is None:
        return n
    import sympy as sp

    if outputs and ex.family.form == "product":
        values = {v for law in ex.family.laws for v in law}
        return f"{len(values)}^{sp.sstr(ex.family.size)}"

    return sp.sstr(ex.family.size)


def witness_paths(ex, witness) -> list[str]:
    """The source lines on the paths of a witness: for Q(y|x) and Q(y|x'), the draws and
    branches (line: outcome) of up to a few paths ending in y, with their probabilities."""
    import sympy as sp

    from ldpaudit.extract.channel import _tidy
    from ldpaudit.extract.spec import output_of

    if witness is None:
        return []
    if ex.family is not None:
        return _family_paths(ex.family, witness)
    y = output_of(ex, witness.y)
    if isinstance(witness.y, tuple) and frozenset(witness.y) in ex.outputs and y not in ex.outputs:
        y = frozenset(witness.y)
    lines = []
    for x in (witness.x, witness.x_prime):
        found = ex.paths.get((x, y), [])
        if not found:
            lines.append(f"x={x!r} never outputs {_shown(y)} (probability 0)")
            continue
        for prob, events in found:
            steps = "; ".join(f"line {line}: {note}" for line, note in events) or "no draw"
            lines.append(f"x={x!r} -> y={_shown(y)} w.p. {sp.sstr(_tidy(prob))}: {steps}")
    return lines


def _family_paths(family, witness) -> list[str]:
    """The paths of a channel generic in d that give the witness's output, at its parameters."""
    import sympy as sp

    from ldpaudit.extract.family import paths_at

    params = {k: sp.sympify(v) for k, v in dict(witness.params or ()).items()}
    lines = []
    if family.form == "product":  # the items that tell the two inputs apart: their own coordinates
        bits = witness.y if isinstance(witness.y, (tuple, list)) else None
        for x in (witness.x, witness.x_prime):
            for i in sorted({int(witness.x), int(witness.x_prime)}):
                b = None if bits is None else int(bits[i])
                for prob, events in paths_at(family, int(x), i, params, b)[:2]:
                    steps = "; ".join(f"line {line}: {note}" for line, note in events) or "no draw"
                    shown = "" if b is None else f" = {b}"
                    lines.append(f"x={x!r}: item {i}{shown} w.p. {sp.sstr(prob)}: {steps}")
        return lines
    for x in (witness.x, witness.x_prime):
        found = paths_at(family, int(x), int(witness.y), params)
        if not found:
            lines.append(f"x={x!r} never outputs {witness.y} (probability 0)")
        for prob, events in found[:3]:
            steps = "; ".join(f"line {line}: {note}" for line, note in events) or "no draw"
            lines.append(f"x={x!r} -> y={witness.y} w.p. {sp.sstr(prob)}: {steps}")
    return lines


def _shown(y) -> str:
    from ldpaudit.extract.spec import label

    return label(y)
