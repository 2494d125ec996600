"""The ``ldpaudit`` command line: parses arguments, calls the API, renders.

Subcommands owned by other stages live next to their code (``ldpaudit/<stage>/command.py``,
each with ``add_parser(subparsers)`` and ``run(args) -> int``) and are wired in here.

One exit-code contract for every command (:data:`EXIT_STATUS`): 0 proved / no evidence / ok,
1 refuted / violation, 2 bad input, 3 unknown / inconclusive, 4 internal error. Bad input is a
one-line message; so is a spent budget (a spec that takes more time or memory to load than
its budget: exit 3, inconclusive, not bad input); an unexpected exception is one line too (what
failed, how to report it) and exits 4, so a crash never reads as a verdict. ``--debug`` shows
the traceback. Two statuses say that the command stopped before its answer: 130 (interrupted)
and 141 (the reader of its output went away, ``ldpaudit ... | head``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

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
    "check": ("ldpaudit.check", "validate specs and summarize every stage on their examples"),
    "show": ("ldpaudit.mechanism.command", "print a mechanism: parameters, channel, LaTeX, claimed ε"),
    "derive": ("ldpaudit.derive.command", "derive estimator, variances, risks, optimal parameters, information"),
    "verify": ("ldpaudit.extract.verify_command", "prove or refute the ε-LDP claim with z3 (witness on refutation)"),
    "audit": ("ldpaudit.audit.command", "certify a lower bound on a black-box randomizer's ε"),
    "audit-estimator": ("ldpaudit.audit.estimator_command", "audit a frequency oracle's server: bias, variance and post-processing of its estimates"),
    "reproduce": ("ldpaudit.papers.reproduce", "regenerate the papers' results and the derivations under proofs/"),
    "simulate": ("ldpaudit.protocol.command", "simulate a protocol (Joseph et al. Gaussian estimation) on synthetic data"),
    "new": ("ldpaudit.mechanism.scaffold", "start a spec for a new mechanism from a bundled one"),
    "profile": ("ldpaudit.account.command", "exact privacy profile δ(ε), f-DP trade-off and K-report composition of a finite channel"),
    "bench": ("ldpaudit.bench.command", "run the public suite of real LDP bugs: detected at which n, ε_lb vs true ε"),
    "optimize": ("ldpaudit.extremal.command", "the optimal ε-LDP mechanism for mutual information (staircase LP), with a certified optimum"),
    "amplify": ("ldpaudit.account.amplify_command", "the central (ε, δ) after shuffling n reports: upper and lower bounds"),
    "prove": ("ldpaudit.theorems.command", "prove or refute inequalities between derived quantities over a whole region"),
    "extract": ("ldpaudit.extract.command", "read the exact channel of a Python randomizer off its source (never running it)"),
}


class _UsageError(SystemExit):
    """argparse's usage error (exit 2), keeping its message for ``--json``."""

    def __init__(self, message: str):
        super().__init__(2)
        self.message = message


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own usage errors also exit 2, in one line
        sys.stderr.write(f"ldpaudit: error: {message}\n")
        raise _UsageError(message)


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
    out = _JsonOnError(argv)
    try:
        key = _output_key(argv)
        hit = None if key is None else _cached_output(key)
        if hit is not None:  # the same command on the same bytes: its output, without sympy or z3
            code, text = hit
            with _fitted(_ArgvFormat(argv)):
                sys.stdout.write(text)
            return out.done(code)
        parser = build_parser(load=_command_word(argv) or "")
        args = parser.parse_args(argv)
        out.watch(args)
        with _fitted(args):
            tee = sys.stdout = _Tee(sys.stdout) if key is not None else sys.stdout
            try:
                code = args.func(args)
            finally:
                if key is not None:
                    sys.stdout = tee.target
        if key is not None and code in (EXIT_OK, 1):
            _store_output(key, code, tee.text())
    except SystemExit as exc:  # argparse: --help, --version (0) and usage errors (2)
        code = exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
        if code == EXIT_BAD_INPUT:
            return out.error(code, "usage", _one_line(getattr(exc, "message", "")) or "the command line is not valid",
                             None)
        return out.done(code)
    except (BudgetSpent, Undecided) as exc:  # not shown wrong, only not finished or not decided: inconclusive
        print(f"ldpaudit: inconclusive: {_one_line(exc)}", file=sys.stderr)
        return out.error(EXIT_UNKNOWN, "inconclusive", _one_line(exc), exc)
    except LdpAuditError as exc:
        print(f"ldpaudit: error: {_one_line(exc)}", file=sys.stderr)
        return out.error(EXIT_BAD_INPUT, "bad input", _one_line(exc), exc)
    except KeyboardInterrupt as exc:
        print("ldpaudit: interrupted", file=sys.stderr)
        return out.error(EXIT_INTERRUPTED, "interrupted", "interrupted", exc)
    except BrokenPipeError:  # e.g. `ldpaudit ... | head`: stop quietly, and never as a verdict
        out.done(EXIT_PIPE_CLOSED)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_PIPE_CLOSED
    except BaseException as exc:  # noqa: BLE001 - a crash must never read as a verdict
        return out.error(_internal_error(exc, argv, debug), "internal error", f"{type(exc).__name__}: "
                         f"{_one_line(exc)[:300]}", exc)
    if code not in EXIT_STATUS:
        print(f"ldpaudit: internal error: the command returned exit status {code!r}", file=sys.stderr)
        return out.error(EXIT_INTERNAL, "internal error", f"the command returned exit status {code!r}", None)
    return out.done(code)


#: exit status of an interrupted command (the shell's 128 + SIGINT): not a verdict
EXIT_INTERRUPTED = 130
#: exit status when the reader of stdout went away before the answer was written (the shell's
#: 128 + SIGPIPE, `ldpaudit check specs/ | head -3`): the command stopped, so not a verdict either
EXIT_PIPE_CLOSED = 141


#: commands whose output is a function of the command line and the bytes of the files it
#: names (every budget counts work): a second run is a lookup (:mod:`ldpaudit.cache`). derive
#: and check keep caches of their own; a command that writes files is never cached.
_CACHED = {"show": (), "verify": ("--certificate", "--calibrate", "--from-code")}  # code targets: not files


def _output_key(argv: list[str]) -> str | None:
    command = _command_word(argv)
    if command not in _CACHED or any(flag in argv for flag in _CACHED[command]) or "--no-cache" in argv:
        return None
    from ldpaudit import cache

    if cache.cache_dir() is None:
        return None
    import json

    parts: list = ["cli-output", json.dumps(argv), str(sys.stdout.isatty())]
    for arg in argv:
        try:
            path = Path(arg)
            if path.is_file():
                parts.append(path.read_bytes())
        except (OSError, ValueError):
            continue
    return cache.key(*parts)


def _cached_output(key: str) -> tuple[int, str] | None:
    from ldpaudit import cache

    hit = cache.get_text("output", key)
    if hit is None or "\n" not in hit:
        return None
    code, text = hit.split("\n", 1)
    return (int(code), text) if code in ("0", "1") else None


def _store_output(key: str, code: int, text: str) -> None:
    from ldpaudit import cache

    cache.put_text("output", key, f"{code}\n{text}")


class _Tee:
    """Passes writes through and keeps a copy (what the output cache stores)."""

    def __init__(self, target):
        self.target, self.parts = target, []

    def write(self, s: str) -> int:
        self.parts.append(s)
        return self.target.write(s)

    def text(self) -> str:
        return "".join(self.parts)

    def __getattr__(self, name):
        return getattr(self.target, name)


class _ArgvFormat:
    """The two options :class:`_fitted` reads, from the raw command line."""

    def __init__(self, argv: list[str]):
        self.json = "--json" in argv
        self.format = "json" if "--format=json" in argv else None
        for a, b in zip(argv, argv[1:]):
            if a == "--format":
                self.format = b


class _fitted:
    """Within the block, what a command prints for people fits the terminal (80 columns in a
    pipe): :mod:`ldpaudit.render.textwidth`. JSON, Markdown and LaTeX output pass unchanged."""

    def __init__(self, args):
        fmt = getattr(args, "format", None)
        self.on = not getattr(args, "json", False) and fmt in (None, "text")
        self.stream = None

    def __enter__(self):
        if self.on:
            from ldpaudit.render.textwidth import Wrapped, width

            self.stream = sys.stdout
            sys.stdout = Wrapped(self.stream, width(self.stream))
        return self

    def __exit__(self, *exc):
        if self.stream is not None:
            wrapped, sys.stdout = sys.stdout, self.stream
            try:
                wrapped.close_pending()
            except (BrokenPipeError, AttributeError):
                pass
        return False


class _JsonOnError:
    """Every command's ``--json`` prints exactly one JSON object, whatever the exit status:
    the command prints its own; when it ends in an error instead (bad input, a spent budget,
    an internal error, a usage error) without having written to stdout, this prints one with
    the shared keys, the verdict its exit status implies and ``error`` (kind, message, type).
    While the command runs, stdout is watched (a thin wrapper) to know whether it wrote."""

    def __init__(self, argv: list[str]):
        self.command = _command_word(argv)
        self.wanted = self.command in COMMANDS and (
            "--json" in argv or "--format=json" in argv
            or any(a == "--format" and b == "json" for a, b in zip(argv, argv[1:])))
        self.stream = None

    def watch(self, args) -> None:
        self.wanted = bool(getattr(args, "json", False)) or getattr(args, "format", None) == "json"
        if self.wanted:
            self.stream = sys.stdout
            sys.stdout = _Watched(self.stream)

    def done(self, code: int) -> int:
        if self.stream is not None:
            written, sys.stdout = sys.stdout.written if isinstance(sys.stdout, _Watched) else True, self.stream
            self.stream = None
            self.wanted = self.wanted and not written
        return code

    def error(self, code: int, kind: str, message: str, exc: BaseException | None) -> int:
        self.done(code)
        if self.wanted:
            import json

            from ldpaudit.schema import envelope

            verdict = {EXIT_BAD_INPUT: "INVALID", EXIT_INTERNAL: "INTERNAL_ERROR", EXIT_INTERRUPTED: "INTERRUPTED",
                       EXIT_UNKNOWN: "INCONCLUSIVE" if self.command in ("audit", "audit-estimator") else "UNKNOWN"}[code]
            error = {"kind": kind, "message": message, "exception": type(exc).__name__ if exc else None}
            try:
                print(json.dumps(envelope(self.command, verdict, {"error": error}), indent=2, ensure_ascii=False))
            except BrokenPipeError:
                pass
        return code


class _Watched:
    """``sys.stdout``, noting whether anything was written to it."""

    def __init__(self, stream):
        self._stream = stream
        self.written = False

    def write(self, text):
        self.written = self.written or bool(text)
        return self._stream.write(text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def __getattr__(self, name):
        return getattr(self._stream, name)


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
