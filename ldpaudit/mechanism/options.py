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
