"""``ldpaudit derive SPEC [-p name=value ...] [--model iid|fixed] [--format text|md|latex|json]``.

CLI glue only: parse, load and bind (under the load budget, ``--load-timeout``), call
:func:`ldpaudit.derive.derive`, render with :mod:`ldpaudit.derive.render` (imported when the
command runs)."""

from __future__ import annotations

import json
from pathlib import Path

from ldpaudit.errors import InvalidParameter
from ldpaudit.mechanism.options import add_load_budget, load_budget


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "derive",
        help="derive marginal, unbiased estimator, variance, worst-case risks, optimal parameters, information",
        description="Derive, from the channel, the marginal, the unbiased estimator and its unbiasedness proof, "
        "variances, worst-case l2^2 and l1 risks, effective samples, optimal integer parameters and mutual "
        "information of a mechanism.",
    )
    p.add_argument("spec", help="a spec file (.toml) or a catalog name such as krr, ksubset")
    p.add_argument("-p", "--param", action="append", metavar="NAME=VALUE", help="bind a parameter exactly (repeatable)")
    p.add_argument("--model", choices=("iid", "fixed"), default="iid", help="sampling model (default: iid)")
    p.add_argument("--format", choices=("text", "md", "latex", "json"), default="text")
    p.add_argument("--json", action="store_true", help="machine-readable output (the same as --format json)")
    p.add_argument("-n", "--users", metavar="N", help="bind the number of users n (default: symbolic)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line (also off with --json or off a terminal)")
    p.add_argument("--no-cache", action="store_true",
                   help="derive afresh instead of reusing a cached derivation (cache: $LDPAUDIT_CACHE_DIR or ~/.cache/ldpaudit)")
    add_load_budget(p)
    p.set_defaults(func=run)


def parse_params(items) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        for part in item.split(","):
            name, sep, value = part.partition("=")
            if not sep or not name.strip() or not value.strip():
                raise InvalidParameter(f"-p {part!r} is not name=value; write e.g. -p d=8 -p epsilon=1/2")
            out[name.strip()] = value.strip()
    return out


def _cache_key(args) -> str | None:
    """The derivation's cache key: the spec file's bytes (or the catalog name), the bindings
    and the options; None when caching is off."""
    if getattr(args, "no_cache", False):
        return None
    from ldpaudit.derive import cache

    path = Path(args.spec)
    source = path.read_bytes().hex() if path.is_file() else f"catalog:{args.spec}"
    return cache.key(source, repr(sorted(parse_params(args.param).items())), args.model, str(args.users), args.format,
                     str(_text_width(args)))


def _text_width(args) -> int | None:
    """The width the text format cuts its equations to (the terminal's, 80 in a pipe); None for
    the machine-readable formats, which are never wrapped."""
    if args.format != "text" or args.json:
        return None
    from ldpaudit.render.textwidth import width

    return width()


def run(args) -> int:
    if args.json:
        args.format = "json"

    key = _cache_key(args)  # from the spec's bytes: a hit needs neither sympy nor the spec loaded
    if key is not None:
        from ldpaudit.derive import cache
    cached = None if key is None else cache.get(key)
    if cached is not None:
        print(cached, end="")
        return 0
    from ldpaudit.render.progress import status, wanted

    with status("derive", enabled=wanted(args) and args.format != "json") as progress:
        progress(f"{args.spec}: loading")
        from ldpaudit.derive.derivation import derive
        from ldpaudit.mechanism.loader import load_budgeted

        family, mech = load_budgeted(args.spec, args.param, **load_budget(args))
        progress(f"{args.spec}: deriving the marginal, estimator, variances, risks and optimal parameters")
        dv = derive(mech, model=args.model, family=family)
        kept = None
        if args.format == "text":   # derived again with a quantity the spec defines kept as its name
            from ldpaudit.derive.kept import kept_derivation

            kept = kept_derivation(mech, args.model)
    if args.users is not None:
        try:
            n = int(args.users)
        except ValueError:
            raise InvalidParameter(f"--users {args.users!r} is not an integer; give the number of users, e.g. -n 10000") from None
        if n < 1:
            raise InvalidParameter(f"--users {n} must be at least 1")
        dv = _bind_users(dv, n)
        kept = None if kept is None else (_bind_users(kept[0], n), kept[1])
    from ldpaudit.derive.render import render

    names = None
    if args.format == "text":   # the text prints derived expressions in the spec's own names
        from ldpaudit.derive.kept import with_kept_forms
        from ldpaudit.derive.names import spec_names

        names = with_kept_forms(spec_names(mech), dv, kept, mech)
    text = render(dv, args.format, names, _text_width(args))
    if args.format == "json":  # the shared vocabulary of every command's --json
        from ldpaudit.schema import SCHEMA_VERSION

        payload = {"schema_version": SCHEMA_VERSION, "command": "derive", "verdict": "OK", **json.loads(text)}
        text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    if key is not None:
        cache.put(key, text)
    print(text, end="")
    return 0


def _bind_users(dv, n: int):
    from dataclasses import replace

    import sympy as sp

    from ldpaudit.derive.algebra import N_USERS
    from ldpaudit.derive.derivation import Equation, Step

    def sub(v):
        if isinstance(v, sp.Basic):
            return v.subs(N_USERS, n)
        if isinstance(v, dict):
            return {k: sub(x) for k, x in v.items()}
        if isinstance(v, list):
            return [sub(x) for x in v]
        return v

    steps = tuple(Step(s.title, s.text, tuple(Equation(e.lhs, e.lhs_latex, sub(e.expr), e.relation) for e in s.equations))
                  for s in dv.steps)
    results = {k: sub(v) for k, v in dv.results.items()}
    return replace(dv, steps=steps, results=results, params=dv.params + (("n", sp.Integer(n)),))


__all__ = ["add_parser", "run"]
