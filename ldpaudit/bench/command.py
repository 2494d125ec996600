"""``ldpaudit bench``: run the public suite of real LDP bugs and print the table.

    ldpaudit bench                 # every bug up to 10^6 (10^7) draws per input; several minutes
    ldpaudit bench --quick --json  # up to 10^6 draws, counterparts at 10^5; about 20 s
    ldpaudit bench --only olh-binary-p --only float-laplace
    ldpaudit bench --from-code     # the planted bugs proved wrong from their Python source; seconds
    ldpaudit bench --servers       # the server-side bugs: estimators audited by audit-estimator

Exit 0 when every bug is flagged and no correct counterpart is, 1 when a bug is missed or a
counterpart flagged, 2 on bad input (an unknown ``--only`` name). With ``--from-code``: 0 when
every planted bug's source is REFUTED with the tight ε of its bug, 1 otherwise, 3 when one could
not be decided.
"""

from __future__ import annotations

import json

from ldpaudit.mechanism.options import option_seed


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("bench", help="run the public suite of real LDP bugs: detected at which n, ε_lb vs true ε")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: up to 10^6 draws per input (no 10^7 step), counterparts at 10^5")
    p.add_argument("--only", action="append", metavar="NAME",
                   help="run only this bug (repeatable); an unknown name lists the valid ones")
    p.add_argument("--seed", type=option_seed, default=0, help="seed of every audit and baseline draw (default 0)")
    p.add_argument("--alpha", type=float, default=0.05, help="false-alarm probability of each audit (default 0.05)")
    p.add_argument("--from-code", action="store_true",
                   help="instead of auditing: read each planted bug's Python source (ldpaudit/bench/planted.py; "
                        "never run) and prove its channel wrong with its tight ε (issue 36)")
    p.add_argument("--servers", action="store_true",
                   help="instead of the randomizers: the server-side bugs (estimators that publish wrong "
                        "frequencies), each audited by audit-estimator beside the spec's own estimator")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line (also off with --json or off a terminal)")
    p.set_defaults(func=run)


def run(args) -> int:
    from ldpaudit.bench import runner
    from ldpaudit.errors import InvalidParameter
    from ldpaudit.render.progress import status, wanted
    from ldpaudit.schema import VERDICTS, envelope

    if not 0 < args.alpha < 1:
        raise InvalidParameter(f"--alpha {args.alpha} must be in (0, 1), e.g. --alpha 0.05")
    if args.from_code:
        return _from_code(args)
    if args.servers:
        return _servers(args)
    bugs = runner.select(args.only)
    with status("bench", enabled=wanted(args)) as update:
        rows = runner.run_suite(bugs, quick=args.quick, seed=args.seed, alpha=args.alpha, update=update)
    verdict = runner.verdict(rows)
    if args.json:
        payload = {"alpha": args.alpha, "seed": args.seed, "quick": args.quick, "epsilon_claimed": 1.0,
                   "bugs": [r.to_json() for r in rows],
                   "missed": [r.key for r in rows if not r.flagged],
                   "counterparts_flagged": [r.key for r in rows if r.counterpart_flagged]}
        print(json.dumps(envelope("bench", verdict, payload), indent=2))
    else:
        print(runner.table(rows, seed=args.seed, alpha=args.alpha))
        print(f"{verdict}")
    return VERDICTS[verdict]


def _from_code(args) -> int:
    """``bench --from-code``: the planted bugs proved from their source, not sampled."""
    from ldpaudit.bench import from_code
    from ldpaudit.errors import InvalidParameter
    from ldpaudit.render.progress import status, wanted
    from ldpaudit.schema import VERDICTS, envelope

    entries = from_code.planted_rows(args.only)
    if args.only and len(entries) < len(set(args.only)):
        known = [k for k, _ in from_code.planted_rows()]
        missing = next(k for k in args.only if k not in known)
        raise InvalidParameter(f"--only {missing!r} has no planted source for --from-code; valid names: "
                               f"{', '.join(known)}")
    rows = []
    with status("bench --from-code", enabled=wanted(args)) as update:
        for i, (key, entry) in enumerate(entries):
            update(f"{key} ({i + 1}/{len(entries)})")
            rows.append(from_code.prove_planted(key, entry))
    if any(r.status == "UNKNOWN" for r in rows):
        verdict = "UNKNOWN"
    elif all(r.as_expected or r.status == "SKIPPED" for r in rows):
        verdict = "OK"
    else:
        verdict = "REFUTED"
    if args.json:
        print(json.dumps(envelope("bench", verdict, {"from_code": [r.to_json() for r in rows]}), indent=2))
    else:
        print(from_code.table(rows))
        print(verdict)
    return VERDICTS[verdict]


def _servers(args) -> int:
    """``bench --servers``: each buggy server caught (VIOLATION), each counterpart left alone."""
    from ldpaudit.bench import servers
    from ldpaudit.errors import InvalidParameter
    from ldpaudit.render.progress import status, wanted
    from ldpaudit.schema import VERDICTS, envelope

    bugs = servers.server_bugs()
    known = [b.key for b in bugs]
    unknown = [k for k in args.only or [] if k not in known]
    if unknown:
        raise InvalidParameter(f"--only {unknown[0]!r} is not a server bug; valid names with --servers: "
                               f"{', '.join(known)}")
    bugs = [b for b in bugs if not args.only or b.key in args.only]
    rows = []
    with status("bench --servers", enabled=wanted(args)) as update:
        for i, bug in enumerate(bugs):
            update(f"{bug.key} ({i + 1}/{len(bugs)})")
            rows.append(servers.score(bug, seed=args.seed, alpha=min(args.alpha, servers.ALPHA)))
    verdict = "OK" if all(r.ok for r in rows) else "REFUTED"
    if args.json:
        print(json.dumps(envelope("bench", verdict, {"servers": [r.to_json() for r in rows]}), indent=2))
    else:
        print(servers.table(rows))
        print(verdict)
    return VERDICTS[verdict]
