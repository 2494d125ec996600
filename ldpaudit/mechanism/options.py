"""Exact numbers given to command-line options (``--epsilon log(3)``, ``--delta 1/10**6``).

Every ε/δ option takes what ``verify`` takes: a decimal, a fraction or an expression of the
spec language (``log(3)``, ``exp(1)/2``), parsed exactly by the AST allow-list of
:func:`ldpaudit.mechanism.expr.parse_expression` (never ``eval``); the auditor and the simulator,
which compute in floats, then get :func:`option_float` of it. A plain decimal needs no sympy.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

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
