"""``ldpaudit simulate PROTOCOL``: run a bundled protocol on synthetic Gaussian data and report
its error distribution (mean absolute error, the (1-β) quantile with an order-statistic
confidence interval) for every combination of the given n, ε, σ and R.

    ldpaudit simulate kv2 --n 10000 --n 100000 --epsilon 1 --sigma 1 --R 1000 --trials 200 --json

Protocols: kv2 (KVGausstimate), kv1 (1RoundKVGausstimate), uv2 (UVGausstimate), uv1
(1RoundUVGausstimate), laplace (clipped-Laplace baseline). ``--privacy`` adds the per-round
verify report and decides the exit status: 0 only when every round's randomizer is PROVED and
no user spends more than the per-message ε (sequential interaction), 1 when a round is REFUTED
or a user answers rounds whose budgets sum past ε, 3 when a round is UNKNOWN. Without
``--privacy`` the exit is 0. Bad input exits 2.
"""

from __future__ import annotations

import itertools
import json
import math

from ldpaudit.errors import InvalidParameter
from ldpaudit.mechanism.options import option_megabytes, option_seed
from ldpaudit.protocol.simulate import MEMORY_MB

PROTOCOL_NAMES = ("kv2", "kv1", "uv2", "uv1", "laplace")


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("simulate", help="simulate a protocol (Joseph et al. Gaussian estimation) on synthetic data")
    p.add_argument("protocol", choices=PROTOCOL_NAMES, help="which protocol")
    p.add_argument("--n", type=int, action="append", help="number of users (repeatable; default 100000)")
    p.add_argument("--epsilon", action="append",
                   help="privacy budget per message, exact: 1, 1/2, log(3) (repeatable; default 1)")
    p.add_argument("--sigma", type=float, action="append", help="true standard deviation (repeatable; default 1)")
    p.add_argument("--R", type=float, action="append", help="public bound |mu| <= R (repeatable; default 1000)")
    p.add_argument("--mu", type=float, default=None, help="true mean (default R/3, a point not on a block boundary)")
    p.add_argument("--sigma-min", type=float, default=None, help="unknown-variance protocols: lower bound on sigma (default sigma/2)")
    p.add_argument("--sigma-max", type=float, default=None, help="unknown-variance protocols: upper bound on sigma (default 8 sigma)")
    p.add_argument("--trials", type=int, default=200, help="independent runs per setting (default 200)")
    p.add_argument("--beta", type=float, default=0.05, help="report the (1-beta) error quantile (default 0.05)")
    p.add_argument("--seed", type=option_seed, default=0, help="seed of numpy's default_rng, a non-negative integer "
                                                        "(same seed, same result)")
    p.add_argument("--memory-mb", type=lambda text: option_megabytes(text, "--memory-mb"), default=MEMORY_MB,
                   metavar="MB", help=f"memory budget of the simulation's arrays in MiB (default {MEMORY_MB}); a run "
                                      "that would need more is refused before it starts (exit 2)")
    p.add_argument("--method", choices=("auto", "users", "law"), default="auto",
                   help="auto: exact count laws where available, per-user draws elsewhere; users: always per user")
    p.add_argument("--privacy", action="store_true", help="also verify every round's randomizer (z3) and compose")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line (also off with --json or off a terminal)")
    p.set_defaults(func=run)


#: the largest ratio R/σ (and σ_max/σ_min) the level grids are built for: 2^1000 blocks of
#: width σ·2^j stay finite floats
_MAX_RATIO = 2.0**1000


def constants_for(name: str, *, n: int, epsilon: float, sigma: float, R: float, sigma_min=None, sigma_max=None) -> dict:
    for option, value in (("--epsilon", epsilon), ("--sigma", sigma), ("--R", R), ("--sigma-min", sigma_min),
                          ("--sigma-max", sigma_max)):
        if value is not None and not math.isfinite(value):
            raise InvalidParameter(f"{option} {value} is not a finite number; give e.g. 1")
    if n < 1 or epsilon <= 0 or sigma <= 0 or R <= 0:
        raise InvalidParameter(f"need n >= 1, epsilon > 0, sigma > 0, R > 0; got n={n}, epsilon={epsilon}, sigma={sigma}, R={R}")
    c = {"n": n, "epsilon": epsilon, "R": R}
    lo = hi = sigma
    if name in ("kv2", "kv1"):
        c["sigma"] = sigma
    elif name in ("uv2", "uv1"):
        lo = sigma / 2 if sigma_min is None else sigma_min
        hi = 8 * sigma if sigma_max is None else sigma_max
        if not 0 < lo <= sigma <= hi:
            raise InvalidParameter(f"--sigma-min {lo} <= --sigma {sigma} <= --sigma-max {hi} must hold (and sigma-min > 0)")
        c.update(sigma_min=lo, sigma_max=hi)
    if not (R + 4 * hi) / lo <= _MAX_RATIO:
        raise InvalidParameter(f"--R {R} is more than 2^1000 times sigma ({lo}); the protocols' level grid would not "
                               f"fit in floats: give a smaller --R or a larger --sigma")
    return c


def run(args) -> int:
    from ldpaudit.protocol.joseph import PROTOCOLS
    from ldpaudit.protocol.simulate import simulate
    from ldpaudit.render.progress import status, wanted
    from ldpaudit.schema import VERDICTS
    from ldpaudit.mechanism.options import option_float

    protocol = PROTOCOLS[args.protocol]()
    if not 0 < args.beta < 1:
        raise InvalidParameter(f"--beta {args.beta}; the error quantile 1-beta needs 0 < beta < 1, e.g. 0.05")
    if args.trials < 1:
        raise InvalidParameter(f"--trials {args.trials}; give at least 1")
    epsilons = [option_float(e, "--epsilon") for e in args.epsilon or ["1"]]
    settings = list(itertools.product(args.n or [100_000], epsilons, args.sigma or [1.0], args.R or [1000.0]))
    rows = []
    with status("simulate", enabled=wanted(args), delay=0.5) as progress:
        for number, (n, eps, sigma, R) in enumerate(settings, 1):
            consts = constants_for(args.protocol, n=n, epsilon=eps, sigma=sigma, R=R,
                                   sigma_min=args.sigma_min, sigma_max=args.sigma_max)
            mu = R / 3 if args.mu is None else args.mu
            if not abs(mu) <= R:
                raise InvalidParameter(f"--mu {mu} is outside [-R, R] = [{-R}, {R}]; the protocols assume |mu| <= R")
            progress(f"{args.protocol} setting {number}/{len(settings)}: n={n}, epsilon={eps:g}, sigma={sigma:g}, "
                     f"R={R:g} ({args.trials} trials)")
            rows.append(simulate(protocol, constants=consts, mu=mu, sigma=sigma, trials=args.trials, beta=args.beta,
                                 seed=args.seed, method=args.method, memory_mb=args.memory_mb))
        payload = {"protocol": protocol.name, "description": protocol.description, "results": rows}
        verdict = "OK"
        if args.privacy:
            from ldpaudit.protocol.privacy import privacy_report

            progress(f"{args.protocol}: verifying {len(protocol.rounds)} round(s) (z3)")
            report = privacy_report(protocol)
            payload["privacy"] = report.verdict_dict()
            verdict = report.verdict
    if args.json:
        from ldpaudit.schema import envelope

        print(json.dumps(envelope("simulate", verdict, payload), indent=2, ensure_ascii=False))
        return VERDICTS[verdict]
    print(f"{protocol.name} ({protocol.description})")
    q = int(round(100 * (1 - args.beta)))
    print(f"{'n':>9} {'eps':>5} {'sigma':>6} {'R':>8}  {'mean|err|':>10}  {f'q{q}':>10}  {'CI':>23}")
    for r in rows:
        c = r["constants"]
        print(f"{c['n']:>9} {c['epsilon']:>5g} {r['sigma']:>6g} {c['R']:>8g}  {r['mean_abs_error']:>10.4g}  "
              f"{r['quantile']:>10.4g}  [{r['quantile_low']:.4g}, {r['quantile_high']:.4g}]")
    print(f"{rows[0]['trials']} trials per row, seed {args.seed}; CI: {rows[0]['confidence']:.0%} order-statistic "
          f"interval for the {q}% quantile")
    if args.privacy:
        privacy = payload["privacy"]
        print(f"{verdict}: " + ", ".join(f"{r['round']} {r['status']} at {r['epsilon']}" for r in privacy["rounds"]))
        if verdict != "PROVED":
            print(f"  {privacy['reason']}")
    return VERDICTS[verdict]
