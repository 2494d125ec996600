"""``ldpaudit audit``: the command-line front of the statistical auditor.

    ldpaudit audit TARGET --domain 0..24 --epsilon 1 [--delta D] [--spec SPEC -p ... [--load-timeout S]] [--samples N]
                   [--alpha 0.05] [--seed S] [--json] [--batch] [--target-arg name=value]
                   [--isolate | --no-isolate] [--timeout S] [--memory-mb M]
                   [--command "PROGRAM ARGS" | --python PATH] [--input-map MAP] [--journal DIR | --resume DIR]
                   [--until-confident [--budget N]] [--report DIR] [--workers N]
                   [--feature MODULE:FUNC] [--hash MODULE:FUNC] [--cluster ADDRESS] [--as-set]

TARGET is ``package.module:function`` or ``path/to/file.py:function`` (a factory called with
``--target-arg`` values when given), or a class target ``package.module:Class(epsilon=1).method``
with literal arguments (audit/targets.py). ``--python PATH`` runs the isolated target under
another environment's interpreter (audit/interpreter.py); ``--input-map`` maps the target's
inputs onto the spec's (audit/labels.py). Targets named on the command line run isolated in a
worker process by default. With ``--delta D`` the claim audited is (ε, D)-LDP: the certified
bound is the ε at that δ (auditor.py). Exit codes: 0 no evidence, 1 violation (or conformance
failure), 2 bad input, 3 inconclusive, 4 internal error.
"""

from __future__ import annotations

import json
import math
import sys

from ldpaudit.budget import DEFAULT_MEMORY_MB
from ldpaudit.errors import InvalidParameter
from ldpaudit.mechanism.options import add_load_budget, option_megabytes, option_seed

#: the default false-alarm level: one correct mechanism in a hundred audited at its tight ε
#: is reported as a violation (0.05 failed a CI build one run in twenty)
DEFAULT_ALPHA = 0.01


def _real_grid(text: str) -> list:
    """``low..high:count``: ``count`` evenly spaced real inputs from low to high (both included)."""
    span, _, count_text = text.rpartition(":")
    low, _, high = span.partition("..")
    try:
        lo, hi = float(low), float(high)
    except ValueError:
        raise InvalidParameter(f"--domain {text!r}: low..high:count needs two numbers, e.g. -3.5..3.5:15") from None
    try:
        count = int(count_text)
    except ValueError:
        raise InvalidParameter(f"--domain {text!r}: the count after ':' must be an integer, e.g. -3.5..3.5:15") from None
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        raise InvalidParameter(f"--domain {text!r}: need finite low < high, e.g. -3.5..3.5:15")
    if count < 2:
        raise InvalidParameter(f"--domain {text!r}: the count must be at least 2 (the endpoints)")
    return [lo + (hi - lo) * i / (count - 1) for i in range(count)]


def parse_domain(text: str) -> list:
    """``0..24`` (inclusive), ``a,b,c``, a JSON list (numbers may be real), or ``low..high:count``
    for ``count`` evenly spaced real inputs of the interval [low, high]."""
    text = text.strip()
    if text.startswith("["):
        try:
            values = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidParameter(f"--domain {text!r} is not a JSON list: {exc.msg}") from None
        if not isinstance(values, list):
            raise InvalidParameter(f"--domain {text!r} must be a JSON list")
        return [tuple(v) if isinstance(v, list) else v for v in values]
    if ".." in text and ":" in text:
        return _real_grid(text)
    if ".." in text:
        low, _, high = text.partition("..")
        try:
            lo, hi = int(low), int(high)
        except ValueError:
            raise InvalidParameter(f"--domain {text!r}: a range is two integers, e.g. 0..24; for real inputs give "
                                   f"a count of evenly spaced points, e.g. -3.5..3.5:15") from None
        if hi <= lo:
            raise InvalidParameter(f"--domain {text!r}: the range must hold at least two inputs")
        return list(range(lo, hi + 1))
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) < 2:
        raise InvalidParameter(f"--domain {text!r}: give at least two inputs, e.g. 0..24, a,b,c or [0, 1]")
    out = []
    for p in parts:
        for cast in (int, float):
            try:
                out.append(cast(p))
                break
            except ValueError:
                continue
        else:
            out.append(p)
    return out


def _target_args(items) -> dict:
    out = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise InvalidParameter(f"--target-arg {item!r} is not name=value")
        out[name] = value
    return out


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("audit", help="certify a lower bound on the ε of a black-box randomizer")
    p.add_argument("target", nargs="?", help="package.module:function or path/to/file.py:function")
    p.add_argument("--domain", help="inputs: 0..24 (inclusive), a,b,c, a JSON list (reals allowed), or low..high:count for count evenly spaced reals")
    p.add_argument("--epsilon", help="the claimed ε, exact: 1, 1/2, log(3) (default: the spec's claimed ε)")
    p.add_argument("--delta", metavar="D",
                   help="audit the claim (ε, D)-LDP: certify a lower bound on ε at δ = D, a number in [0, 1) "
                        "such as 1e-5 or 1/10**5 (black-box audits; default 0, pure ε)")
    p.add_argument("--spec", help="a spec file or a catalog name such as krr: guide the audit with exact "
                                  "probabilities and test conformance")
    p.add_argument("-p", "--param", action="append", metavar="NAME=VALUE", help="bind a spec parameter")
    add_load_budget(p)  # --load-timeout, --load-memory-mb: loading --spec, as in every command
    p.add_argument("--samples", type=int, default=10**6, help="draws per input (default 1,000,000)")
    p.add_argument("--alpha", type=float, default=DEFAULT_ALPHA,
                   help=f"false-alarm probability: a correct randomizer is reported as a violation with "
                        f"probability at most ALPHA (default {DEFAULT_ALPHA:g}, so a CI run fails a correct "
                        f"mechanism at most once in {round(1 / DEFAULT_ALPHA)})")
    p.add_argument("--seed", type=option_seed, default=0, help="seed of the draws, a non-negative integer (default 0)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--batch", action="store_true", help="the target is f(x, n, rng) -> n outputs")
    p.add_argument("--target-arg", action="append", metavar="NAME=VALUE", help="argument of a target factory")
    iso = p.add_mutually_exclusive_group()
    iso.add_argument("--isolate", dest="isolate", action="store_true", default=None,
                     help="run the target in worker subprocesses (default for targets named here)")
    iso.add_argument("--no-isolate", dest="isolate", action="store_false", help="run the target in this process")
    p.add_argument("--timeout", type=float, default=10.0,
                   help="floor of the per-call timeout when isolated: calls after the first may take "
                        "max(TIMEOUT, 50 x the slowest call so far) seconds (default 10)")
    p.add_argument("--warmup", type=float, default=120.0,
                   help="seconds the first call of an isolated target may take: imports, JIT compilation (default 120)")
    p.add_argument("--memory-mb", type=_megabytes, default=DEFAULT_MEMORY_MB, metavar="MB",
                   help="memory budget of the audit and limit of an isolated target, in MiB (default 2048); the JSON "
                        "states the peak")
    p.add_argument("--max-processes", type=_max_processes, default=None, metavar="N",
                   help="the most processes and threads an isolated target may hold at once (default 1024); one "
                        "that exceeds it ends the audit (exit 2)")
    p.add_argument("--command", help="a program in any language speaking the JSON-lines protocol")
    p.add_argument("--python", metavar="PATH",
                   help="run the isolated target's worker under this interpreter (another virtual environment's "
                        "bin/python), so that its library loads there and never in this process")
    p.add_argument("--input-map", metavar="MAP",
                   help="with --spec: the target's inputs onto the spec's: auto (default: the identity, or --domain "
                        "onto the spec's domain in order when --domain is not inside it and has as many inputs), "
                        "identity, order, or pairs TARGET=SPEC,... such as 1=0,2=1; the result says which")
    p.add_argument("--journal", metavar="DIR", help="write completed draws to DIR so the audit can be resumed")
    p.add_argument("--resume", metavar="DIR", help="resume the audit journaled in DIR (nothing else needed)")
    p.add_argument("--until-confident", action="store_true",
                   help="sample in growing rounds until a violation is certified or --budget is spent")
    p.add_argument("--budget", type=int, help="draws per input for --until-confident (default: --samples)")
    p.add_argument("--report", metavar="DIR", help="write report.md, report.html and PNG plots to DIR")
    p.add_argument("--workers", type=int, default=1, help="worker processes for per-call randomizers")
    p.add_argument("--feature", metavar="MODULE:FUNC",
                   help="project each output (each batch with --batch) before auditing, e.g. OLH's "
                        "(seed, value) to the inputs it supports; runs in this process")
    p.add_argument("--hash", metavar="MODULE:FUNC",
                   help="local hashing: your hash h(seed, x); each output (seed, value) is projected to the inputs "
                        "it supports (value == h(seed, x)); with --spec specs/olh.toml the audit is spec-guided (not needed "
                        "with --spec specs/hadamard.toml: HR's Hadamard family is the hash)")
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="sample on a Dask cluster: a scheduler address (tcp://host:8786) or local:N for N local "
                        "worker processes (needs pip install 'ldpaudit[cluster]'); same result as without it")
    p.add_argument("--as-set", action="store_true",
                   help="read each output (a tuple, list or array of any length) as the set of its elements, "
                        "when their order carries no information; outputs of varying length are otherwise "
                        "compared whole, as opaque values")
    p.add_argument("--no-progress", "-q", "--quiet", dest="no_progress", action="store_true",
                   help="no progress bar (also off with --json or when stderr is not a terminal)")
    p.set_defaults(func=run)


_RESUMABLE = ("target", "domain", "epsilon", "delta", "spec", "param", "samples", "alpha", "seed", "batch", "target_arg",
              "isolate", "timeout", "warmup", "memory_mb", "command", "until_confident", "budget", "workers",
              "feature", "hash", "as_set", "python", "input_map", "max_processes")


def run(args) -> int:
    from ldpaudit.audit.journal import Journal

    if args.resume:
        journal = Journal(args.resume)
        saved = journal.read_args()
        for key in _RESUMABLE:
            setattr(args, key, saved.get(key, getattr(args, key, None)))
        args.journal = args.resume
    elif args.journal:
        journal = Journal(args.journal)
        journal.write_args({key: getattr(args, key) for key in _RESUMABLE})
    else:
        journal = None
    payload, code = execute(args, journal)
    if journal is not None:
        journal.write_result(payload)
    if args.json:
        print(json.dumps(payload, indent=2))
    else:
        _render(payload)
    return code


def _load_spec(args):
    if not args.spec:
        if args.param:
            raise InvalidParameter("-p binds spec parameters; give --spec SPEC as well")
        return None
    from ldpaudit.mechanism.loader import load_budgeted
    from ldpaudit.mechanism.options import load_budget

    from ldpaudit.errors import InvalidSpec

    try:
        _, mech = load_budgeted(args.spec, args.param, **load_budget(args))
    except (InvalidSpec, InvalidParameter) as exc:
        if not getattr(args, "hash", None):
            raise
        mech = _wide_hash_spec(args, exc)
        if mech is None:
            raise
        return mech
    if mech.parameters:
        free = ", ".join(mech.parameter_names)
        raise InvalidParameter(f"--spec {args.spec}: bind every parameter for an audit (free: {free}); e.g. -p d=25")
    return mech


def _wide_hash_spec(args, exc):
    """Local hashing over a domain too large to bind exactly (the all-functions family has
    g^d cohorts): the spec bound at every parameter but the domain size, whose value sets
    ``--domain`` 0..d-1 (the hash audit reads only the per-cohort hit and miss rates, which
    must not depend on it: guided.hash_rates). None if no parameter is such a size."""
    from ldpaudit.mechanism.loader import load_family, parse_assignments

    given = parse_assignments(args.param)
    family = load_family(args.spec)
    for name, value in given.items():
        rest = {k: v for k, v in given.items() if k != name}
        try:
            mech = family.bind(rest)
        except Exception:  # noqa: BLE001 - not this one
            continue
        size = getattr(mech.inputs, "size", None)
        if mech.parameter_names == (name,) and str(size) == name and int(value) >= 2:
            if args.domain is None:
                args.domain = f"0..{int(value) - 1}"
            return mech
    return None


def _randomizer(args):
    """The randomizer to audit and whether it is a batch one; external ones need closing."""
    from ldpaudit.audit import external
    from ldpaudit.audit.adapters import load_target

    if args.command:
        if args.target:
            raise InvalidParameter("give either TARGET or --command, not both")
        if getattr(args, "python", None):
            raise InvalidParameter("--python runs a TARGET's worker; a --command program names its own interpreter "
                                   "(--command '/path/to/venv/bin/python program.py')")
        return (external.command(args.command, timeout=args.timeout, warmup=args.warmup, memory_mb=args.memory_mb,
                                 max_processes=getattr(args, "max_processes", None)), True, True)
    if not args.target:
        raise InvalidParameter("no randomizer: give TARGET (module:function or file.py:function) or --command")
    target_args = _target_args(args.target_arg)
    isolate = True if args.isolate is None else args.isolate
    python = getattr(args, "python", None)
    if python is not None and (not isolate or getattr(args, "cluster", None)):
        raise InvalidParameter(f"--python {python} runs the target's worker under another interpreter here; drop "
                               + ("--no-isolate" if not isolate else "--cluster (install the library in the workers' "
                                                                      "environment instead)"))
    if isolate and getattr(args, "cluster", None):
        from ldpaudit.audit.cluster import absolute_target

        args.target = absolute_target(args.target)
    if isolate:
        return (external.isolated(args.target, target_args, batch=args.batch, timeout=args.timeout,
                                  warmup=args.warmup, memory_mb=args.memory_mb, python=python,
                                  max_processes=getattr(args, "max_processes", None)), True, True)
    if getattr(args, "cluster", None):  # loaded again by name on the workers
        from ldpaudit.audit.cluster import TargetFunction

        return TargetFunction(args.target, target_args), bool(args.batch), False
    return load_target(args.target, target_args, batch=bool(args.batch)), bool(args.batch), False


def _max_processes(text: str) -> int:
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"--max-processes {text!r} is not a positive integer; give e.g. "
                                         f"--max-processes 64")
    return value


def _megabytes(text: str) -> int:
    return option_megabytes(text, "--memory-mb")


def _delta(args) -> float:
    """``--delta D`` as a float in [0, 1) (0 when not given); a one-line error otherwise."""
    from ldpaudit.mechanism.options import option_float

    text = getattr(args, "delta", None)
    if text is None:
        return 0.0
    value = option_float(text, "--delta", positive=False)
    if not 0 <= value < 1:
        raise InvalidParameter(f"--delta {text}: δ must be in [0, 1) (the δ of the (ε, δ) claim), e.g. --delta 1e-5")
    if value and args.spec:
        raise InvalidParameter(f"--delta {text} with --spec {args.spec}: (ε, δ) audits are black-box only; drop --spec "
                               f"(or --delta for the spec-guided pure-ε audit)")
    return value


def _false_alarm_control(delta: float, guided: bool, sequential: bool, alpha: float) -> str:
    chosen = ("events chosen from the spec before sampling" if guided else
              "events chosen on exploration draws only, then counted on fresh confirmation draws")
    looks = "; look r of --until-confident is tested at α·6/(π²r²) (alpha spending)" if sequential else ""
    claim = f"(ε, {delta:g})-LDP" if delta else "ε-LDP"
    return (f"{chosen}; one-sided exact Clopper-Pearson bounds at α/(2k), Bonferroni over the k confirmed "
            f"candidates × 2 bounds{looks}: a randomizer that is truly {claim} at the claimed ε is reported as a "
            f"VIOLATION with probability at most α = {alpha:g}")


def execute(args, journal=None) -> tuple[dict, int]:
    args.delta_value = _delta(args)
    if not args.spec:
        for option, value in (("--domain", args.domain), ("--epsilon", args.epsilon)):
            if value is None:
                example = "e.g. --domain 0..24" if option == "--domain" else "the claimed ε"
                raise InvalidParameter(f"{option} is required ({example}), unless --spec gives it")
    randomizer, batch, closable = _randomizer(args)
    try:
        if closable and args.workers == 1 and not getattr(args, "cluster", None):
            randomizer.start()  # the isolated worker loads while the auditor imports its libraries
        payload, code = _execute(args, journal, randomizer, batch, closable)
    finally:
        if closable:
            randomizer.close()
    payload["memory"] = memory_report(args.memory_mb)
    worker_peak = (payload.get("cluster") or {}).get("worker_peak_mb")
    if worker_peak is not None:        # the busiest Dask worker with its sampling children
        payload["memory"]["worker_peak_mb"] = worker_peak
        payload["memory"]["within_budget"] = payload["memory"]["within_budget"] and worker_peak <= args.memory_mb
    return payload, code


def memory_report(budget_mb: float) -> dict:
    """The budget and the peaks (resident set sizes, MiB) of the auditor and of the processes
    it started and has waited for (isolated randomizers, local worker processes)."""
    import resource

    scale = 1 / 1024 if sys.platform != "darwin" else 1 / 2**20       # ru_maxrss: KiB (bytes on macOS)
    from ldpaudit.budget import own_peak_mb

    own = own_peak_mb()
    if own is None:
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale
    return {"budget_mb": budget_mb, "peak_mb": round(own, 1), "children_peak_mb": round(children, 1),
            "within_budget": max(own, children) <= budget_mb,
            "rule": "the auditor sizes what it holds to the budget (audit/wide.py); an isolated randomizer's address "
                    "space is limited to it"}


def _execute(args, journal, randomizer, batch, closable) -> tuple[dict, int]:
    from ldpaudit.audit import audit
    from ldpaudit.audit.journal import journaled
    from ldpaudit.audit.sequential import rounds_json, sequential_audit

    mech = _load_spec(args)
    box = mech is not None and mech.inputs.__class__.__name__ == "BoxDomain"
    domain = None
    if args.domain is None:
        if mech is not None and mech.inputs.__class__.__name__ == "FiniteDomain":
            domain = list(mech.inputs.enumerate())
        elif box:
            from ldpaudit.mechanism.vector import box_audit_inputs

            domain = box_audit_inputs(mech.inputs)  # the vertices of a small box, else corners and centre
        elif mech is not None:
            from ldpaudit.mechanism.realinput import density_inputs

            domain = density_inputs(mech)   # a density on [low, high]: both ends and three interior points
        if domain is None:
            raise InvalidParameter("--domain is required (e.g. --domain 0..24), unless --spec gives a finite input "
                                   "domain or a density channel on a bounded interval")
    else:
        domain = parse_domain(args.domain)
    from ldpaudit.mechanism.options import option_float

    epsilon = option_float(args.epsilon, "--epsilon")
    if epsilon is None:
        if mech is None:
            raise InvalidParameter("--epsilon is required (the claimed ε), unless --spec gives it")
        epsilon = float(mech.claimed_epsilon)
    source = randomizer
    mapped = _input_map(args, mech, domain)
    if mapped is not None:
        domain = [spec_input for spec_input, _ in mapped.pairs]
        if mapped.rule != "identity":
            from ldpaudit.audit.labels import Relabeled

            randomizer = Relabeled(randomizer, mapped.to_target)
    connection = None
    if getattr(args, "cluster", None):  # chunks are journaled as their counts arrive from the workers
        from ldpaudit.audit.cluster import Connection

        connection = Connection(args.cluster, journal=journal)
    elif journal is not None:
        randomizer, batch = journaled(randomizer, journal, batch=batch), True
    progress = (not args.no_progress and not args.json and sys.stderr.isatty()) or False
    options = dict(domain=domain, epsilon=epsilon, alpha=args.alpha, seed=args.seed, batch=batch,
                   spec=None if box else mech, workers=args.workers, progress=progress)
    if args.memory_mb != DEFAULT_MEMORY_MB:
        options["memory_mb"] = args.memory_mb
    if args.delta_value:
        options["delta"] = args.delta_value
    if getattr(args, "hash", None):
        options["feature"] = _hash_feature(args, mech, domain, batch)
    elif getattr(args, "feature", None):
        from ldpaudit.audit.adapters import load_target
        from ldpaudit.audit.projection import per_output

        if getattr(args, "cluster", None):  # loaded again by name on the workers
            from ldpaudit.audit.cluster import TargetFunction

            feature = TargetFunction(args.feature)
        else:
            feature = load_target(args.feature)
        # The feature follows the target's own convention (--batch or not), whatever the transport.
        options["feature"] = per_output(feature) if batch and not args.batch else feature
    if getattr(args, "as_set", False):
        options["as_set"] = True
    if connection is not None:
        options["cluster"] = connection
    rounds = None
    if args.until_confident:
        result, rounds = sequential_audit(randomizer, budget=args.budget or args.samples, **options)
    else:
        result = audit(randomizer, samples=args.samples, **options)
    payload = result.to_json()
    if mapped is not None:
        payload["input_map"] = mapped.to_json()
    isolation = _isolation(source, closable)
    if connection is not None:
        stats = dict(connection.stats)
        slowest = stats.pop("slowest_call_s", None)
        if isolation.get("timeouts") and slowest is not None:    # measured by the workers
            isolation["timeouts"] = {**isolation["timeouts"], "slowest_call_s": slowest}
        if stats.get("sandbox"):   # as confined on the workers
            isolation["sandbox"] = stats.pop("sandbox")
        elif not closable:
            isolation["sandbox"] = {**isolation["sandbox"], "fallback": "the randomizer ran unconfined in a child "
                                    "process of each Dask worker (--no-isolate); drop --no-isolate to sandbox it there"}
        payload["cluster"] = stats
    payload.update(isolation)
    if rounds is not None:
        payload["rounds"] = rounds_json(rounds)
    if args.report:
        from ldpaudit.audit.report import write_report

        files = write_report(result, args.report, randomizer=randomizer, domain=domain, batch=batch,
                             seed=args.seed, target=args.target or args.command or "", spec=mech,
                             rounds=rounds, alpha=args.alpha, isolation=isolation)
        payload["report"] = {k: str(v) for k, v in files.items()}
    nonconforming = _conformance_failed(result.conformance)
    payload["alpha"] = args.alpha
    payload["epsilon_claimed_exact"] = str(args.epsilon if args.epsilon is not None else mech.claimed_epsilon)
    payload["epsilon_verdict"] = result.epsilon_verdict  # the ε test alone; "verdict" also counts conformance
    payload["detectable_epsilon_max"] = result.detectable_epsilon   # at this δ, with these draws
    payload["false_alarm_control"] = _false_alarm_control(result.delta, mech is not None and not box,
                                                          rounds is not None, args.alpha)
    if box:
        payload["spec_use"] = ("the spec gave the inputs (the box's vertices, or its corners and centre) and the "
                               "claimed ε; vector-input channels do not guide the search: black-box events")
    payload["conformance_failed"] = nonconforming
    from ldpaudit.schema import VERDICTS, envelope

    verdict = "VIOLATION" if nonconforming else result.verdict
    return envelope("audit", verdict, payload), VERDICTS[verdict]


def _input_map(args, mech, domain: list):
    """The map of the target's inputs onto the spec's (labels.py), for a spec with a finite
    input domain; None without one (an ``--input-map`` is then refused in one line)."""
    text = getattr(args, "input_map", None)
    finite = mech is not None and mech.inputs.__class__.__name__ == "FiniteDomain" and not mech.parameters
    if not finite:
        if text is not None:
            raise InvalidParameter(f"--input-map {text} maps the target's inputs onto a spec's finite input domain; "
                                   + ("give --spec" if mech is None else "this spec's inputs are not a finite set"))
        return None
    from ldpaudit.audit.labels import input_map

    mapped = input_map(text, parse_domain(args.domain) if args.domain is not None else None,
                       list(mech.inputs.enumerate()))
    if mapped.rule != "identity" and getattr(args, "cluster", None):
        raise InvalidParameter(f"--input-map ({mapped.describe()}) is not supported with --cluster; give the spec's "
                               f"inputs to the target (a wrapper function), or audit without --cluster")
    return mapped


def _hash_feature(args, mech, domain, batch: bool):
    """``--hash MODULE:FUNC``: the support projection (value == h(seed, x) for every input of the
    spec's domain, else of --domain), batch-wise or per output like the randomizer."""
    from ldpaudit.audit.adapters import load_target
    from ldpaudit.audit.projection import hash_support
    from ldpaudit.errors import LdpAuditError

    if getattr(args, "feature", None):
        raise InvalidParameter("give either --hash (the local-hashing projection) or --feature, not both")
    try:
        if getattr(args, "cluster", None):  # loaded again by name on the workers, like --feature
            from ldpaudit.audit.cluster import TargetFunction

            h = TargetFunction(args.hash)
        else:
            h = load_target(args.hash)
    except LdpAuditError as exc:
        raise InvalidParameter(f"--hash {args.hash}: {' '.join(str(exc).split())}") from None
    inputs = list(mech.inputs.enumerate()) if mech is not None and hasattr(mech.inputs, "enumerate") \
        and not mech.parameters else domain
    support = hash_support(h, inputs)
    return support if batch else support.per_output


def _isolation(source, isolated: bool) -> dict:
    """The ``sandbox`` and ``timeouts`` entries: how the randomizer was confined."""
    if isolated:
        return source.describe()
    from ldpaudit.audit.sandbox import unconfined

    return {"sandbox": unconfined(), "timeouts": None}


def _conformance_failed(conformance) -> bool:
    from ldpaudit.audit.engine import conformance_failed

    return conformance_failed(conformance)


def _outputs_text(outputs: dict) -> str:
    """How the outputs were read, with the precision of real columns grouped by format."""
    groups: dict = {}
    for p in outputs.get("precision") or []:
        groups.setdefault((p["format"], p["detected_from"], p["grid"]), []).append(p["column"])
    parts = [outputs["read_as"]]
    for (fmt, source, grid), columns in groups.items():
        name = "y" if columns == [None] else "y[" + ", ".join(map(str, columns)) + "]"
        parts.append(f"{name} in {fmt} ({source}), float tests on its grid ({grid})")
    return "; ".join(parts)


def _render(payload: dict) -> None:
    head = payload["verdict"]
    if payload.get("conformance_failed") and payload.get("epsilon_verdict") != "VIOLATION":
        head += f" (conformance failed; ε test: {payload.get('epsilon_verdict')})"
    claimed = payload.get("epsilon_claimed_exact") or f"{payload['epsilon_claimed']:g}"
    alpha = payload.get("alpha", 1 - payload["confidence"])
    delta = payload.get("delta") or 0.0
    at = f" at δ = {delta:g}" if delta else ""
    findings = payload.get("findings") or []
    if findings:    # a float encoding leak and the law, apart (findings.py): the headline names both
        head += " (" + "; ".join(f"{f['finding']}: {f['verdict']}, ε >= {f['epsilon_lower_bound']:.4f}"
                                 for f in findings) + ")"
    print(f"{head}: certified ε >= {payload['epsilon_lower_bound']:.4f}{at} (claimed {claimed}) at confidence "
          f"{payload['confidence']:g} (α = {alpha:g}: a correct randomizer is flagged with probability <= α)")
    print(f"  draws per input: {payload['samples_per_input']:,}; this run could certify ε in "
          f"[0, {payload['detectable_epsilon']:.4f}]{at}; {payload['seconds']:.2f} s")
    if payload.get("witness"):
        w = payload["witness"]
        print("  witness: " + "; ".join(f"{k}={v}" for k, v in w.items() if k in ("pair", "event", "counts", "samples", "p_lower", "q_upper")))
        if delta and w.get("delta_lower_bound", 0) > 0:
            print(f"  at the claimed ε: P(S|x) - e^ε P(S|x') >= {w['delta_lower_bound']:.3g} (claimed δ = {delta:g})")
    if payload.get("cannot_test"):
        print(f"  {payload['cannot_test']['reason']}")
    for f in findings:
        print(f"  finding ({f['finding']}): {f['verdict']}: {f['statement']}")
    if payload.get("conformance"):
        from rich.console import Console

        from ldpaudit.render.tables import conformance_table

        from ldpaudit.render.textwidth import width

        Console(width=width()).print(conformance_table(payload["conformance"]))   # the terminal's, 80 in a pipe
    for r in payload.get("rounds") or []:
        print(f"  look {r['number']}: {r['samples_per_input']:,} confirmation draws, α_r = {r['alpha']:.3g}, ε_lb = {r['epsilon_lower_bound']:.4f}")
    if payload.get("report"):
        print(f"  report: {payload['report']['markdown']}")
    if (payload.get("input_map") or {}).get("rule", "identity") != "identity":
        print(f"  inputs: {payload['input_map']['text']}")
    if payload.get("interpreter"):
        print(f"  interpreter: {payload['interpreter']['python']} (the isolated worker ran there; the target "
              f"never loaded here)")
    print(f"  method: {payload['method']}")
    if payload.get("outputs"):
        print(f"  outputs: {_outputs_text(payload['outputs'])}")
    box = payload.get("sandbox")
    if box:
        print(f"  sandbox: {box.get('level')}; network {box.get('network')}; files {box.get('filesystem')}"
              + (f"; process tree {box['process_tree']}" if box.get("process_tree") else "")
              + (f"; fallback: {box['fallback']}" if box.get("fallback") else ""))
    if payload.get("timeouts"):
        print(f"  timeouts: {payload['timeouts']['rule']}")

