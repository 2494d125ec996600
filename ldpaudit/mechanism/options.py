"""Values given to command-line options shared by several commands.

Exact numbers (``--epsilon log(3)``, ``--delta 1/10**6``): every ε/δ option takes what
``verify`` takes: a decimal, a fraction or an expression of the spec language (``log(3)``,
``exp(1)/2``), parsed exactly by the AST allow-list of
:func:`ldpaudit.mechanism.expr.parse_expression` (never ``eval``); the auditor and the simulator,
which compute in floats, then get :func:`option_float` of it. A plain decimal needs no sympy.

Budgets (``--timeout 2.5``, ``--memory-mb 2048``): verify's whole-command budget, and the
budget of loading a spec that every command loading one takes (:func:`add_load_budget`).
"""

from __future__ import annotations

import argparse
import math
import re
from fractions import Fraction

from ldpaudit import budget
from ldpaudit.errors import InvalidParameter, InvalidSpec

_PLAIN = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?")


def option_exact(text: str | float | int, option: str):
    """The exact value of ``option``'s ``text``: a :class:`~fractions.Fraction` for a plain
    decimal, else a constant sympy expression. A one-line :class:`InvalidParameter` otherwise."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        text = repr(text)  # a value restored from a journal or passed through the API
    raw = str(text).strip()
    if _PLAIN.fullmatch(raw) and len(raw) <= 60:
        return Fraction(raw)
    from ldpaudit.mechanism.expr import parse_expression

    try:
        value = parse_expression(raw, {}, field=option)
    except InvalidSpec as exc:
        message = str(exc).replace("unknown symbol", "unknown name").replace("; declared names are (none)", "")
        raise InvalidParameter(f"{message}; write a number or an exact expression such as 1/2 or log(3)") from None
    if not value.is_real or value.free_symbols:
        raise InvalidParameter(f"{option} {raw!r} is not a real number; write e.g. 1/2 or log(3)")
    return value


def option_float(text: str | float | int | None, option: str, *, positive: bool = True) -> float | None:
    """``option``'s value as the float the numeric code needs (None stays None); exactly parsed
    first, so ``log(3)`` is the float nearest ln 3."""
    if text is None:
        return None
    value = option_exact(text, option)
    number = float(value) if isinstance(value, Fraction) else float(value.evalf(30))
    if not math.isfinite(number):
        raise InvalidParameter(f"{option} {text!s} is not finite; give a finite number such as 1 or log(3)")
    if positive and not number > 0:
        raise InvalidParameter(f"{option} {text!s} must be positive, e.g. 1 or log(3)")
    return number


def option_seconds(text: str, option: str = "--timeout") -> float:
    """A positive number of seconds: ``60``, ``2.5``, ``2.5s``, ``500ms`` (an argparse type)."""
    raw = text.strip().lower()
    scale = 1.0
    if raw.endswith("ms"):
        raw, scale = raw[:-2], 0.001
    elif raw.endswith("s"):
        raw = raw[:-1]
    try:
        value = float(raw) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{option} {text!r} is not a number of seconds; write e.g. 60, 2.5 or 500ms") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{option} {text!r} must be a positive number of seconds")
    return value


def option_seed(text: str) -> int:
    """--seed: numpy's generators take a non-negative integer (an argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number; give e.g. 0") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative; numpy's generator takes a non-negative integer such as 0")
    return value


def option_megabytes(text: str, option: str = "--memory-mb") -> int:
    """A whole number of MiB, at least 64 (an argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{option} {text!r} is not a whole number of MiB; write e.g. 2048") from None
    if value < 64:
        raise argparse.ArgumentTypeError(f"{option} {text!r} is below the 64 MiB a bounded job needs to start")
    return value


def add_load_budget(parser: argparse.ArgumentParser) -> None:
    """``--load-timeout`` and ``--load-memory-mb``: the budget of loading the spec (parsing,
    validating, binding ``-p``), the same in every command
    (:func:`ldpaudit.mechanism.loader.load_budgeted`)."""
    parser.add_argument("--load-timeout", type=lambda text: option_seconds(text, "--load-timeout"),
                        default=budget.LOAD_SECONDS, metavar="SECONDS",
                        help=f"CPU budget of loading the spec in CPU seconds, e.g. 5, 2.5, 500ms (default "
                             f"{budget.LOAD_SECONDS:g}); over budget the command stops with exit 3")
    parser.add_argument("--load-memory-mb", type=lambda text: option_megabytes(text, "--load-memory-mb"),
                        default=budget.LOAD_MEMORY_MB, metavar="MB",
                        help=f"memory budget of loading the spec in MiB (default {budget.LOAD_MEMORY_MB}); "
                             "over budget the command stops with exit 3")


def load_budget(args) -> dict:
    """The load budget chosen on the command line, as keyword arguments of ``load_budgeted``."""
    return {"seconds": getattr(args, "load_timeout", budget.LOAD_SECONDS),
            "memory_mb": getattr(args, "load_memory_mb", budget.LOAD_MEMORY_MB)}


# --- files a command writes ---------------------------------------------------------------------

#: the longest path and path component the checks accept (Linux's PATH_MAX and NAME_MAX)
MAX_PATH, MAX_NAME = 4096, 255


def _shown_path(path) -> str:
    text = str(path)
    return repr(text) if len(text) <= 80 else f"{text[:60]!r}... ({len(text)} characters)"


def check_output_path(path, option: str, *, force: bool = False, make_parents: bool = False):
    """The file ``option`` will write, checked before any work: not too long, not an existing
    file unless ``force`` (never silently overwritten), in a directory that exists (or, with
    ``make_parents``, can be created) and is writable. A one-line InvalidParameter otherwise."""
    import os
    from pathlib import Path

    text = str(path)
    target = Path(text)
    if not text or len(text) > MAX_PATH or any(len(part) > MAX_NAME for part in target.parts):
        raise InvalidParameter(f"{option} {_shown_path(text)} is too long a path (at most {MAX_PATH} characters, "
                               f"{MAX_NAME} per name); give a shorter one")
    try:
        if target.is_dir():
            raise InvalidParameter(f"{option} {_shown_path(text)} is a directory; give a file path")
        if target.exists() and not force:
            raise InvalidParameter(f"{option} {_shown_path(text)} exists; choose a new path or remove it"
                                   + ("" if force is None else " (or give --force to overwrite it)"))
        parent = target.parent
        while make_parents and not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if parent.exists() and not parent.is_dir():
            raise InvalidParameter(f"{option} {_shown_path(text)}: {_shown_path(parent)} is a file, not a directory")
        if not parent.is_dir():
            raise InvalidParameter(f"{option} {_shown_path(text)}: the directory {_shown_path(target.parent)} does not "
                                   f"exist; create it first")
    except OSError as exc:
        raise InvalidParameter(f"{option} {_shown_path(text)} cannot be written: {exc.strerror or exc}") from None
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InvalidParameter(f"{option} {_shown_path(text)}: the directory {_shown_path(parent)} is not writable")
    return target


def write_output(path, text: str, option: str, *, force: bool = False, make_parents: bool = False) -> None:
    """Write ``text`` to the file checked by :func:`check_output_path` (never overwriting an
    existing file unless ``force``, even in a race); an OSError is one line naming ``option``."""
    target = check_output_path(path, option, force=force, make_parents=make_parents)
    try:
        if make_parents:
            target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "w" if force else "x", encoding="utf-8") as fh:
            fh.write(text)
    except FileExistsError:
        raise InvalidParameter(f"{option} {_shown_path(target)} exists; choose a new path or remove it") from None
    except OSError as exc:
        raise InvalidParameter(f"{option} {_shown_path(target)} cannot be written: {exc.strerror or exc}") from None
