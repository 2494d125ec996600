"""``ldpaudit audit-estimator``: audit the server side of a frequency oracle.

    ldpaudit audit-estimator CLIENT SERVER --spec SPEC [-p NAME=VALUE ...] --n N --trials R
                             [--alpha A] [--seed S] [--json] [--batch] [--target-arg name=value]
                             [--server-arg name=value] [--distributions uniform,one-hot,geometric]
                             [--variance-factor F] [--range LOW..HIGH] [--counts]

CLIENT is a randomizer target as ``audit`` takes it (``f(x)``, or ``f(x, n, rng)`` with
``--batch``); SERVER is ``module:function`` (a factory with ``--server-arg``) called with the
list of n reports and returning one estimate per input of the spec's domain, in order. Both run
in this process. Exit codes: 0 no evidence, 1 biased or variance out of the stated factor,
2 bad input, 3 inconclusive (estimates outside the range the tests assume), 4 internal error.
"""

from __future__ import annotations

import json

from ldpaudit.errors import InvalidParameter
from ldpaudit.mechanism.options import add_load_budget, option_seed

#: the default false-alarm level, as ``audit``'s
DEFAULT_ALPHA = 0.01


def add_parser(subparsers) -> None:
    from ldpaudit.audit.estimator import DEFAULT_VARIANCE_FACTOR, DISTRIBUTIONS

    p = subparsers.add_parser("audit-estimator",
                              help="audit a frequency oracle's server: bias, variance and post-processing of its "
                                   "estimates against the spec's derived estimator")
    p.add_argument("client", help="the randomizer: package.module:function or path/to/file.py:function")
    p.add_argument("server", help="the estimator: module:function called with the list of n reports, returning one "
                                  "estimate per input of the spec's domain, in order")
    p.add_argument("--spec", required=True, help="a spec file or catalog name (a frequency oracle over inputs 0..d-1)")
    p.add_argument("-p", "--param", action="append", metavar="NAME=VALUE", help="bind a spec parameter")
    add_load_budget(p)
    p.add_argument("--n", type=int, required=True, help="reports per trial (users); small n with many trials tests "
                                                        "bias most sharply")
    p.add_argument("--trials", type=int, required=True, help="trials per distribution (at least 4)")
    p.add_argument("--alpha", type=float, default=DEFAULT_ALPHA,
                   help=f"false-alarm probability: a server that is unbiased with the derived variance is flagged "
                        f"with probability at most ALPHA (default {DEFAULT_ALPHA:g})")
    p.add_argument("--seed", type=option_seed, default=0, help="seed of the draws, a non-negative integer (default 0)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--batch", action="store_true", help="the client is f(x, n, rng) -> n reports")
    p.add_argument("--target-arg", action="append", metavar="NAME=VALUE", help="argument of a client factory")
    p.add_argument("--server-arg", action="append", metavar="NAME=VALUE", help="argument of a server factory")
    p.add_argument("--distributions", default=",".join(DISTRIBUTIONS),
                   help=f"input distributions, comma-separated (default {','.join(DISTRIBUTIONS)})")
    p.add_argument("--variance-factor", type=float, default=DEFAULT_VARIANCE_FACTOR, metavar="F",
                   help=f"flag a variance ratio (server / derived) shown outside [1/F, F] (default "
                        f"{DEFAULT_VARIANCE_FACTOR:g})")
    p.add_argument("--range", dest="estimate_range", metavar="LOW..HIGH",
                   help="the range of every estimate, instead of the spec estimator's (the tests assume it)")
    p.add_argument("--counts", action="store_true", help="the server returns estimated counts (divided by n here)")
    p.add_argument("--timeout", type=_cpu_seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"CPU budget of the whole audit (derivation, draws, server calls), in CPU seconds "
                        f"(default {DEFAULT_TIMEOUT:g}); over budget the verdict is INCONCLUSIVE (exit 3)")
    p.add_argument("--memory-mb", type=_memory_mb, default=None, metavar="MB",
                   help="memory budget of the whole audit in MiB (default: ldpaudit's, 2048); over budget the "
                        "verdict is INCONCLUSIVE (exit 3)")
    p.set_defaults(func=run)


#: the CPU seconds an estimator audit may spend by default (a derivation plus R x K server calls)
DEFAULT_TIMEOUT = 600.0


def _cpu_seconds(text: str) -> float:
    from ldpaudit.mechanism.options import option_seconds

    return option_seconds(text, "--timeout")


def _memory_mb(text: str) -> int:
    from ldpaudit.mechanism.options import option_megabytes

    return option_megabytes(text, "--memory-mb")


def _named_args(items, option: str) -> dict:
    out = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise InvalidParameter(f"{option} {item!r} is not name=value")
        out[name] = value
    return out


def _range(text: str | None):
    if text is None:
        return None
    from ldpaudit.mechanism.options import option_float

    low, sep, high = text.partition("..")
    if not sep:
        raise InvalidParameter(f"--range {text!r}: write LOW..HIGH, e.g. --range -4..5")
    lo = option_float(low, "--range LOW", positive=False)
    hi = option_float(high, "--range HIGH", positive=False)
    if not lo < hi:
        raise InvalidParameter(f"--range {text!r}: LOW must be below HIGH, e.g. --range -4..5")
    return lo, hi


def run(args) -> int:
    from ldpaudit import budget
    from ldpaudit.errors import BudgetSpent

    memory_mb = budget.DEFAULT_MEMORY_MB if args.memory_mb is None else args.memory_mb
    try:   # the derivation, the draws and the server's calls, within the job's CPU and memory budget
        payload, code = budget.call(execute, args, seconds=args.timeout, memory_mb=memory_mb,
                                    label="audit-estimator")
    except budget.BudgetExceeded as exc:
        raise BudgetSpent(f"audit-estimator: {exc}") from None
    if args.json:
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        _render(payload)
    return code


def execute(args) -> tuple[dict, int]:
    from ldpaudit.audit.adapters import load_target
    from ldpaudit.audit.estimator import estimator_audit
    from ldpaudit.mechanism.loader import load_budgeted
    from ldpaudit.mechanism.options import load_budget
    from ldpaudit.schema import VERDICTS, envelope

    distributions = tuple(s.strip() for s in args.distributions.split(",") if s.strip())
    estimate_range = _range(args.estimate_range)
    _, mech = load_budgeted(args.spec, args.param, **load_budget(args))
    if mech.parameters:
        raise InvalidParameter(f"--spec {args.spec}: bind every parameter (free: {', '.join(mech.parameter_names)}); "
                               f"e.g. -p d=8")
    client = load_target(args.client, _named_args(args.target_arg, "--target-arg"), batch=bool(args.batch))
    server = load_target(args.server, _named_args(args.server_arg, "--server-arg"), batch=None)
    result = estimator_audit(client, server, mech, n=args.n, trials=args.trials, alpha=args.alpha, seed=args.seed,
                             batch=bool(args.batch), distributions=distributions,
                             variance_factor=args.variance_factor, estimate_range=estimate_range, counts=args.counts)
    payload = {"client": args.client, "server": args.server, **result.to_json(),
               "sandbox": {"level": "none", "note": "client and server run in this process"}}
    return envelope("audit-estimator", result.verdict, payload), VERDICTS[result.verdict]


def _render(payload: dict) -> None:
    verdict = payload["verdict"]
    m = payload["hypotheses"]
    head = {"VIOLATION": f"the server is biased on {payload['biased']} and its variance is off on "
                         f"{payload['variance_flagged']} of {m // 2} coordinates (certified)",
            "NO_EVIDENCE": f"no bias or variance beyond [1/{payload['variance_factor']:g}, "
                           f"{payload['variance_factor']:g}] shown on {m // 2} coordinates",
            "INCONCLUSIVE": f"{payload['uncertified']} of {m // 2} coordinates have estimates outside the range the "
                            f"tests assume: not certified"}[verdict]
    print(f"{verdict}: {head} at confidence {payload['confidence']:g} (α = {payload['alpha']:g}: an unbiased server "
          f"with the derived variance is flagged with probability <= α)")
    print(f"  spec: {payload['spec']}; its estimator: {payload['spec_estimator']['formula']}")
    dists = "; ".join(f"{d['name']} ({d['description']})" for d in payload["distributions"])
    print(f"  {payload['n']:,} reports per trial, {payload['trials']:,} trials per distribution: {dists}")
    for f in payload["findings"]:
        print(f"  {f['kind']}: {f['text']}")
    for pp in payload["post_processing"]:
        print(f"  {pp['distribution']}: {pp['negative']} negative estimates (spec's estimator: about "
              f"{pp['negative_expected']:g}), {pp['exact_zeros']} exactly 0, sums to 1 in {pp['trials_summing_to_1']} "
              f"of {pp['trials']} trials (mean sum {pp['sum_mean']:.4g})")
    rated = [c for c in payload["coordinates"] if c["variance_ratio"] is not None]
    if rated:
        low = min(rated, key=lambda c: c["variance_ratio"])
        high = max(rated, key=lambda c: c["variance_ratio"])
        shown = "; ".join(f"{c['variance_ratio']:.3g} in [{c['variance_ratio_interval'][0]:.3g}, "
                          f"{c['variance_ratio_interval'][1]:.3g}] (input {c['input']}, {c['distribution']})"
                          for c in (low, high))
        print(f"  variance ratio (server / derived), lowest and highest: {shown}")
    print(f"  range: {payload['range_rule']}")
    print(f"  method: {payload['method']}")
