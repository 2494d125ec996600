"""The ``ldpaudit`` command line: parses arguments, calls the API, renders.

Subcommands owned by other stages live next to their code (``ldpaudit/<stage>/command.py``,
each with ``add_parser(subparsers)`` and ``run(args) -> int``) and are wired in here.

One exit-code contract for every command (:data:`EXIT_STATUS`): 0 proved / no evidence / ok,
1 refuted / violation, 2 bad input, 3 unknown / inconclusive, 4 internal error. Bad input is a
one-line message; so is a spent budget (a spec that takes more time or memory to load than
its budget: exit 3, inconclusive, not bad input); an unexpected exception is one line too (what
failed, how to report it) and exits 4, so a crash never reads as a verdict. ``--debug`` shows
the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from ldpaudit import __version__
from ldpaudit.errors import BudgetSpent, LdpAuditError, Undecided

#: the exit-code contract, shared by every command
EXIT_STATUS = {
    0: "proved / no evidence / ok",
    1: "refuted / violation",
    2: "bad input",
    3: "unknown / inconclusive",
    4: "internal error",
}
EXIT_OK, EXIT_REFUTED, EXIT_BAD_INPUT, EXIT_UNKNOWN, EXIT_INTERNAL = 0, 1, 2, 3, 4

#: every subcommand: name -> (module with add_parser(subparsers), one-line help). A module is
#: imported only when its command runs, so `ldpaudit --help`, `--version` and usage errors
#: never import sympy, scipy, z3 or matplotlib.
COMMANDS = {
    "check": ("ldpaudit.report.check", "validate specs and summarize every stage on their examples"),
    "show": ("ldpaudit.mechanism.command", "print a mechanism: parameters, channel, LaTeX, claimed ε"),
    "derive": ("ldpaudit.derive.command", "derive estimator, variances, risks, optimal parameters, information"),
    "verify": ("ldpaudit.verify.command", "prove or refute the ε-LDP claim with z3 (witness on refutation)"),
    "audit": ("ldpaudit.audit.command", "certify a lower bound on a black-box randomizer's ε"),
    "reproduce": ("ldpaudit.report.command", "regenerate the papers' results and the derivations under proofs/"),
    "simulate": ("ldpaudit.protocol.command", "simulate a protocol (Joseph et al. Gaussian estimation) on synthetic data"),
    "new": ("ldpaudit.mechanism.scaffold", "start a spec for a new mechanism from a bundled one"),
    "profile": ("ldpaudit.account.command", "exact privacy profile δ(ε), f-DP trade-off and K-report composition of a finite channel"),
    "bench": ("ldpaudit.bench.command", "run the public suite of real LDP bugs: detected at which n, ε_lb vs true ε"),
    "optimize": ("ldpaudit.extremal.command", "the optimal ε-LDP mechanism for mutual information (staircase LP), with a certified optimum"),
    "amplify": ("ldpaudit.account.amplify_command", "the central (ε, δ) after shuffling n reports: upper and lower bounds"),
    "prove": ("ldpaudit.theorems.command", "prove or refute inequalities between derived quantities over a whole region"),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own usage errors also exit 2, in one line
        self.exit(2, f"ldpaudit: error: {message}\n")


# --- main -------------------------------------------------------------------------------------


def build_parser(load: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with ``load`` only that command's module is imported (the others
    are listed by name and help), without it every command is built in full."""
    parser = _Parser(
        prog="ldpaudit",
        description="Prove, derive and audit local differential privacy.",
        epilog="exit status: " + "; ".join(f"{code} {meaning}" for code, meaning in EXIT_STATUS.items()),
    )
    parser.add_argument("--version", action="version", version=f"ldpaudit {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an internal error")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")
    wanted = set(COMMANDS) if load is None else {load} & set(COMMANDS)
    for name, (module, help_text) in COMMANDS.items():
        if name not in wanted:
            sub.add_parser(name, help=help_text)  # listed in --help; its module is not imported
            continue
        stage = importlib.import_module(module)
        before = set(sub.choices)
        stage.add_parser(sub)
        for added in set(sub.choices) - before:
            if sub.choices[added].get_default("func") is None:
                sub.choices[added].set_defaults(func=stage.run)
    return parser


def _command_word(argv: list[str]) -> str | None:
    """The subcommand named on the line (the first word that is not an option), if any."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in argv  # accepted anywhere on the line, before or after the command
    argv = [a for a in argv if a != "--debug"]
    try:
        parser = build_parser(load=_command_word(argv) or "")
        args = parser.parse_args(argv)
        code = args.func(args)
    except SystemExit as exc:  # argparse: --help, --version (0) and usage errors (2)
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    except (BudgetSpent, Undecided) as exc:  # not shown wrong, only not finished or not decided: inconclusive
        print(f"ldpaudit: inconclusive: {_one_line(exc)}", file=sys.stderr)
        return EXIT_UNKNOWN
    except LdpAuditError as exc:
        print(f"ldpaudit: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("ldpaudit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `ldpaudit ... | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except BaseException as exc:  # noqa: BLE001 - a crash must never read as a verdict
        return _internal_error(exc, argv, debug)
    if code not in EXIT_STATUS:
        print(f"ldpaudit: internal error: the command returned exit status {code!r}", file=sys.stderr)
        return EXIT_INTERNAL
    return code


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def _internal_error(exc: BaseException, argv: list[str], debug: bool) -> int:
    if debug:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    command = next((a for a in argv if not a.startswith("-")), "ldpaudit")
    where = "" if debug else "; rerun with --debug for the traceback"
    print(
        f"ldpaudit: internal error in '{command}': {type(exc).__name__}: {_one_line(exc)[:300]}"
        f"{where}, and report it with the command line (exit 4: this is not a verdict)",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
