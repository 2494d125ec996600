"""``ldpaudit verify`` with ``--from-code TARGET``: the verify command, plus the options that
extract the mechanism from a randomizer's source (:mod:`ldpaudit.extract.command`). verify lies
below extract and never imports it; this module passes in how to load the mechanism
(``args.load_mechanism``) and how to name the source lines of a witness (``args.describe_source``).
"""
from __future__ import annotations

from ldpaudit.verify import command as verify_command


def add_parser(subparsers):
    from ldpaudit.extract.command import add_source_options

    p = verify_command.add_parser(subparsers)
    p.add_argument("--from-code", metavar="TARGET",
                   help="instead of a spec: extract the exact channel of a Python randomizer from its source "
                        "(module:function, file.py:function or module:Class(args).method, never run) and verify "
                        "it; needs --domain (0..d-1 "
                        "for code generic in d: proved for every d) and takes --assume (see: ldpaudit extract --help)")
    add_source_options(p, required=False)
    p.set_defaults(func=run)
    return p


def run(args) -> int:
    if getattr(args, "from_code", None) is not None:
        args.load_mechanism = _load
        args.describe_source = lambda verdict, tight: _describe(args, verdict, tight)
    return verify_command.run(args)


def _load(args):
    from ldpaudit.extract.command import extracted_mechanism

    args.extraction, _, mech = extracted_mechanism(args, epsilon=args.epsilon)
    return mech


def _describe(args, verdict, tight) -> dict:
    """Where the extracted channel came from, and the source lines on a witness's paths."""
    from ldpaudit.extract.command import witness_paths
    from ldpaudit.extract.spec import choose_form

    ex = args.extraction
    return {"file": ex.source.shown_path, "function": ex.function, "lines": list(ex.lines),
            "form": choose_form(ex)[0], "paths": ex.path_count,
            "witness_paths": witness_paths(ex, verdict.witness),
            "tight_paths": witness_paths(ex, None if tight is None else tight.witness)}
