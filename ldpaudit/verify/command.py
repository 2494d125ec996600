"""``ldpaudit verify``: prove or refute a spec's privacy claim.

Exit codes: 0 PROVED, 1 REFUTED, 3 UNKNOWN (also when the budget runs out); bad input raises
an LdpAuditError, which the CLI turns into exit 2. The whole command (loading, binding, exact
arithmetic, every z3 query, certificates) runs in a child process bounded by ``--timeout``
CPU seconds and ``--memory-mb`` of memory (:mod:`ldpaudit.budget`); loading the spec
is also bounded by the load budget of every command (``--load-timeout``, ``--load-memory-mb``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from pathlib import Path

from ldpaudit import budget
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.loader import load_budgeted, resolve_spec
from ldpaudit.mechanism.options import add_load_budget, load_budget, option_megabytes, option_seconds
from ldpaudit.verify import smt
from ldpaudit.verify.certificate import reproduce_certificates, write_certificate
from ldpaudit.verify.core import tight_epsilon, verify
from ldpaudit.verify.floats import parse_floats, verify_float_params
from ldpaudit.verify.result import EXIT_CODES, Status

__all__ = ["add_parser", "run", "reproduce_certificates"]

EPILOG = """\
verdicts: PROVED (exit 0), REFUTED with a witness (exit 1), UNKNOWN with z3's reason (exit 3);
bad input exits 2. Free parameters are universally quantified (the proof covers all d, k, ε);
bind them with -p to check one instance. Values are exact: 1/2, log(3), 0.01 (= 1/100).

budget: --timeout (default 60 s) bounds the CPU time of the whole command, --memory-mb
(default 2048) the memory it may allocate; the work runs in a child process that is stopped
when either runs out, and the verdict is then UNKNOWN (exit 3) with the reason "budget
exceeded: ...". Each z3 query also stops after --rlimit of z3's deterministic resource units
(default 4e7, about 40 s of CPU), so a busy machine never changes a verdict. Loading the spec
has the load budget of every command besides (--load-timeout, default 5 CPU seconds;
--load-memory-mb): over it the command stops with one line and exit 3. Only a far wall-clock
guard (10x the CPU budget) stops a job the machine is too busy to run, and says so.

--float-params converts float64 values exactly (Fraction(float)) and reports the ε they give:
names that are parameters of the spec are bound; otherwise p, q are the generic two-parameter
form (RR: p = probability of each hit output, q = of each other output; unary encodings:
p = P(bit=1 | own bit), q = P(bit=1 | other bit)).
"""


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "verify",
        help="prove or refute ε-LDP (or (ε, δ)-LDP) with z3: PROVED / REFUTED with witness / UNKNOWN",
        description="Prove or refute a spec's privacy claim exactly (z3 nonlinear real arithmetic).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("spec", nargs="?", help="a spec file (.toml) or a catalog name such as krr, ksubset")
    p.add_argument("-p", "--param", action="append", metavar="NAME=VALUE", help="bind a parameter exactly (repeatable)")
    p.add_argument("--epsilon", metavar="E", help="the ε to check (default: the spec's claimed ε); may mention parameters")
    p.add_argument("--delta", metavar="D", help="check (ε, δ)-LDP: exact δ(ε) against D (numeric parameters)")
    p.add_argument("--calibrate", metavar="PARAM",
                   help="with --delta: the smallest value of PARAM (every other parameter bound) at which the "
                        "density channel is (ε, δ)-LDP, e.g. --calibrate sigma")
    p.add_argument("--float-params", metavar="NAME=FLOAT,...", help="report the ε that float64 parameters really give")
    p.add_argument("--tight", action="store_true", help="also report the tightest ε with its attaining witness")
    p.add_argument("--certificate", metavar="DIR", help="write an SMT-LIB 2 certificate and JSON metadata into DIR")
    p.add_argument("--timeout", type=_seconds, default=budget.DEFAULT_SECONDS, metavar="SECONDS",
                   help=f"CPU budget of the whole command in CPU seconds, e.g. 60, 2.5, 500ms "
                        f"(default {budget.DEFAULT_SECONDS:g}); over budget the verdict is UNKNOWN (exit 3)")
    p.add_argument("--rlimit", type=_rlimit, default=smt.DEFAULT_RLIMIT, metavar="UNITS",
                   help=f"work budget of each z3 query in z3's deterministic resource units (default "
                        f"{smt.DEFAULT_RLIMIT:.0e}); over it the query is UNKNOWN")
    p.add_argument("--memory-mb", type=_megabytes, default=budget.DEFAULT_MEMORY_MB, metavar="MB",
                   help=f"memory budget of the whole command in MiB (default {budget.DEFAULT_MEMORY_MB}); "
                        "over budget the verdict is UNKNOWN (exit 3)")
    add_load_budget(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress line (shown on a terminal when the proof takes over a second)")
    p.set_defaults(func=run)
    return p


def _seconds(text: str) -> float:
    return option_seconds(text, "--timeout")


def _megabytes(text: str) -> int:
    return option_megabytes(text, "--memory-mb")


def _rlimit(text: str) -> int:
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or value != value or value < 1 or value > 1e15:
        raise argparse.ArgumentTypeError(f"--rlimit {text!r} is not a count of z3 resource units; give e.g. 4e7")
    return int(value)


def _load(args) -> Mechanism:
    """The spec bound to the ``-p`` values, under the load budget (a child of this child);
    with ``--from-code``, the mechanism the stage above gives (``args.load_mechanism``: the
    channel extracted from the code, :mod:`ldpaudit.extract.verify_command`)."""
    if _from_code(args):
        from ldpaudit.mechanism.loader import parse_assignments

        mech = args.load_mechanism(args)
        return mech.bind(parse_assignments(args.param)) if args.param else mech
    _, mech = load_budgeted(args.spec, args.param, **load_budget(args))
    return mech


def _check_source(args) -> None:
    """Exactly one of a spec and --from-code (one line, exit 2, otherwise)."""
    from ldpaudit.errors import InvalidParameter

    if args.spec is not None and _from_code(args):
        raise InvalidParameter("give a spec or --from-code TARGET, not both")
    if args.spec is None and not _from_code(args):
        raise InvalidParameter("give a spec file or catalog name (ldpaudit verify specs/krr.toml), or "
                               "--from-code TARGET --domain D")
    if _from_code(args) and (args.certificate or args.calibrate or args.float_params):
        raise InvalidParameter("--certificate, --calibrate and --float-params need a spec file; write one with "
                               "`ldpaudit extract TARGET --domain D --out spec.toml`")


def run(args) -> int:
    """The command, bounded: the work happens in a child process (see module doc)."""
    from ldpaudit.render.progress import status, wanted

    _check_source(args)
    if _from_code(args):
        args.spec = args.from_code  # named in the progress line and an over-budget verdict
    try:
        with status("verify", enabled=wanted(args), delay=1.0) as progress:
            progress(f"{args.spec}: proving with z3 (budget {args.timeout:g} CPU s)")
            code, out = budget.call(_captured, args, seconds=args.timeout, memory_mb=args.memory_mb)
    except budget.BudgetExceeded as exc:
        return _over_budget(args, str(exc))
    sys.stdout.write(out)
    return code


def _captured(args) -> tuple[int, str]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = _run(args)
    return code, buffer.getvalue()


def _over_budget(args, reason: str) -> int:
    if args.json:
        print(json.dumps(_envelope("UNKNOWN", {"status": "UNKNOWN", "spec": str(args.spec), "reason": reason,
                                               "budget": {"seconds": args.timeout, "memory_mb": args.memory_mb}}),
                         indent=2))
    else:
        print(f"UNKNOWN: {args.spec}: {reason}")
        print(f"  budget: --timeout {args.timeout:g} CPU s, --memory-mb {args.memory_mb}")
    return EXIT_CODES[Status.UNKNOWN]


def _envelope(verdict: str, payload: dict) -> dict:
    """The shared ``--json`` keys (:mod:`ldpaudit.schema`); ``status`` stays for compatibility."""
    from ldpaudit.schema import envelope

    return envelope("verify", verdict, payload)


def _run(args) -> int:
    rlimit = args.rlimit
    mech = _load(args)
    if args.float_params:
        report = verify_float_params(mech, parse_floats(args.float_params), epsilon=args.epsilon)
        _certificate(args, report.verdict)
        if args.json:
            payload = report.to_json()
            proof = payload.pop("verdict")  # the nested verdict moves to "proof"; "verdict" is the shared word
            print(json.dumps(_envelope(report.verdict.status.value, {"status": report.verdict.status.value,
                                                                     **payload, "proof": proof}), indent=2))
        else:
            print(report)
            print(f"  {report.verdict}")
            print(f"  semantics: {report.semantics}")
            for note in report.notes:
                print(f"  note: {note}")
        return report.verdict.exit_code
    if args.calibrate:
        return _calibrate(args, mech)
    example = None
    if (args.delta is not None or mech.claimed_delta is not None) and mech.parameters and not args.param and mech.example:
        # δ(ε) is decided on numbers: with nothing bound, the spec's [example] is the instance
        _, mech = load_budgeted(args.spec, None, example=True, **load_budget(args))
        example = ", ".join(f"{k}={v}" for k, v in mech.bindings)
    verdict = verify(mech, epsilon=args.epsilon, delta=args.delta, rlimit=rlimit)
    tight = tight_epsilon(mech, rlimit=rlimit) if args.tight and args.delta is None else None
    written = _certificate(args, verdict)
    if args.json:
        payload = verdict.to_json()
        if tight is not None:
            payload["tight"] = {
                "epsilon": str(tight.value) if tight.determined else None,
                "determined": tight.determined,
                "reason": tight.reason or None,
                "proof": None if tight.proof is None else tight.proof.status.value,
                "witness": None if tight.witness is None else tight.witness.to_json(),
                "text": str(tight),
            }
        if written:
            payload["certificate"] = [str(p) for p in written]
        if example is not None:
            payload["instance"] = {"source": "example", "bindings": {k: str(v) for k, v in mech.bindings}}
        if _from_code(args):
            payload["from_code"] = args.describe_source(verdict, tight)
        print(json.dumps(_envelope(verdict.status.value, payload), indent=2))
    else:
        print(verdict)
        if example is not None:
            print(f"  instance: the spec's [example] ({example}): an (ε, δ) claim is decided on numbers; "
                  "bind others with -p")
        if verdict.method:
            print(f"  method: {verdict.method}")
        for note in verdict.notes:
            print(f"  note: {note}")
        if tight is not None:
            print(f"  tightest: {tight}")
        if _from_code(args):
            code = args.describe_source(verdict, tight)
            print(f"  code: {code['file']}:{code['function']} (lines {code['lines'][0]}-{code['lines'][1]}), "
                  f"{code['form']} channel read from {code['paths']} paths")
            for line in code["witness_paths"] or code["tight_paths"]:
                print(f"    {line}")
        for path in written:
            print(f"  wrote {path}")
        print(f"  ({verdict.seconds * 1000:.0f} ms)")
    return EXIT_CODES[verdict.status]


def _from_code(args) -> bool:
    """``--from-code`` (an option the extract stage adds to this command, passing in how to
    load and describe the mechanism; verify itself never imports the stages above it)."""
    return getattr(args, "from_code", None) is not None


def _calibrate(args, mech) -> int:
    """--calibrate PARAM: the smallest PARAM with δ(ε) <= D (density channels; exit 0)."""
    import sympy as sp

    from ldpaudit.errors import InvalidParameter
    from ldpaudit.verify.claims import claim_of, exact_number
    from ldpaudit.verify.density_delta import applies, smallest

    if args.delta is None:
        raise InvalidParameter(f"--calibrate {args.calibrate} needs --delta D (the δ to calibrate for)")
    if not applies(mech):
        raise InvalidParameter(f"--calibrate needs a density channel on an interval; {mech.name!r} is "
                               f"{mech.channel.form}")
    if args.calibrate not in mech.parameter_names:
        raise InvalidParameter(f"--calibrate {args.calibrate}: not a free parameter of {mech.name!r} "
                               f"(free: {', '.join(mech.parameter_names) or 'none'})")
    claim = claim_of(mech, args.epsilon)
    result = smallest(mech, args.calibrate, claim, exact_number(args.delta, "delta"))
    if args.json:
        print(json.dumps(_envelope("OK", {"parameter": result.parameter, "epsilon": str(result.epsilon),
                                          "delta": str(result.delta), "smallest": str(sp.N(result.above, 20)),
                                          "bracket": [str(result.below), str(result.above)], "text": str(result)}),
                         indent=2))
    else:
        print(result)
    return 0


def _certificate(args, verdict) -> list[Path]:
    if not args.certificate:
        return []
    where = resolve_spec(args.spec)
    stem = Path(where).stem
    if verdict.params:
        stem += "-" + "-".join(f"{k}{v}" for k, v in verdict.params)
    return write_certificate(verdict, args.certificate, name=stem,
                             spec_path=where if isinstance(where, Path) else None)
