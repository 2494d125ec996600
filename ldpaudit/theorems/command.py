"""``ldpaudit prove CLAIMS.toml [--json] [--seconds S]``: decide each claim of a claims file over its
whole region: PROVED (exit 0), REFUTED with an exact witness (exit 1), UNKNOWN naming what is left
(exit 3); a malformed file or an empty region is bad input (exit 2)."""

from __future__ import annotations

import json
import sys

from ldpaudit.mechanism.options import option_seconds


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("prove", help="prove or refute inequalities between derived quantities over a region")
    p.add_argument("claims", help="a claims file (TOML): [specs], [region], [[claim]] statement = \"a <= b\"")
    p.add_argument("--seconds", type=lambda text: option_seconds(text, "--seconds"), default=60.0,
                   help="CPU budget per claim, e.g. 60, 2.5, 500ms (default 60)")
    p.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    from ldpaudit.errors import InvalidSpec
    from ldpaudit.theorems.claims import load_claims
    from ldpaudit.theorems.prover import prove_file

    if args.seconds <= 0:
        raise InvalidSpec(f"--seconds = {args.seconds}: give a positive CPU budget such as 60")
    cf = load_claims(args.claims)
    results = prove_file(cf, seconds=args.seconds)
    empty = [r for r in results if r.status == "EMPTY"]
    if empty:
        raise InvalidSpec(f"{args.claims}: region.where: {empty[0].reason}; no parameter value satisfies every relation")
    code = 0
    for r in results:
        code = max(code, r.exit_code) if r.exit_code != 1 and code != 1 else 1
    if args.json:
        from ldpaudit.schema import envelope

        status = {0: "PROVED", 1: "REFUTED", 3: "UNKNOWN"}[code]
        print(json.dumps(envelope("prove", status, {"file": args.claims, "title": cf.title,
                                                    "claims": [r.as_dict() for r in results]}),
                         indent=2, ensure_ascii=False, default=str))
        return code
    print(cf.title)
    for r in results:
        print(render(r))
    return code


def render(r) -> str:
    lines = [f"{r.status}: {r.name}  [{r.statement}]"]
    if r.status == "PROVED":
        lines.append(f"  {r.reason} ({r.boxes} pieces, {r.seconds:.2f} s CPU); {r.method}")
    elif r.status == "REFUTED":
        w = r.witness
        point = ", ".join(f"{k} = {v}" for k, v in w.point.items())
        lines.append(f"  at {point}: {w.lhs_value} vs {w.rhs_value} (checked exactly)")
    else:
        lines.append(f"  {r.reason}; {r.method}")
        lines.extend(f"  left: {x}"[:300] for x in r.left[:4])
    if r.note:
        lines.append(f"  note: {r.note}")
    return "\n".join(lines)
