"""Printing exact values whose integers may be too long for ``str``.

Python refuses to convert integers of more than 4,300 decimal digits to text (a guard against
quadratic conversion); a bound k-subset channel at d = 20,000 has class counts such as
C(19999, 9999), about 6,000 digits. Every piece of text the verifier prints goes through
:func:`sstr`, which writes such integers as ``<6019-digit integer 3.3441…e6018>`` instead of
failing. Decisions never depend on this text. :func:`for_people` and :func:`human` write Euler's
number ``e`` for people; machine-readable text keeps :func:`sstr`.
"""

from __future__ import annotations

import math

import sympy as sp

#: integers longer than this many bits are abbreviated (4,300 decimal digits is about 14,280 bits)
MAX_PRINTED_BITS = 12_000


def big_integer_text(n: int) -> str:
    """``<6019-digit integer 3.3441…e6018>`` for a huge integer, without converting it to decimal."""
    sign = "-" if n < 0 else ""
    n = abs(n)
    shift = max(0, int((n.bit_length() - 1) * math.log10(2)) - 11)  # never above log10(n) - 11
    lead = n // 10**shift
    while lead >= 10**12:
        lead //= 10
        shift += 1
    mantissa = f"{lead}"
    power = shift + len(mantissa) - 1
    return f"<{power + 1}-digit integer {sign}{mantissa[0]}.{mantissa[1:5]}…e{power}>"


def _too_long(e) -> bool:
    return e.is_Rational and max(abs(int(e.p)).bit_length(), int(e.q).bit_length()) > MAX_PRINTED_BITS


def _abbreviate(e):
    if e.is_Integer:
        return sp.Symbol(big_integer_text(int(e.p)))
    p, q = int(e.p), int(e.q)
    num = sp.Symbol(big_integer_text(p)) if abs(p).bit_length() > MAX_PRINTED_BITS else sp.Integer(p)
    den = sp.Symbol(big_integer_text(q)) if q.bit_length() > MAX_PRINTED_BITS else sp.Integer(q)
    return sp.Mul(num, sp.Pow(den, -1, evaluate=False), evaluate=False)


def sstr(expr) -> str:
    """``sympy.sstr`` of ``expr``, with integers too long to print abbreviated."""
    if isinstance(expr, int) and not isinstance(expr, bool):
        return big_integer_text(expr) if abs(expr).bit_length() > MAX_PRINTED_BITS else str(expr)
    if not isinstance(expr, sp.Basic):
        return sp.sstr(expr)
    big = [a for a in expr.atoms(sp.Rational) if _too_long(a)]
    if big:
        expr = expr.xreplace({a: _abbreviate(a) for a in big})
    return sp.sstr(expr)


def for_people(expr) -> str:
    """sympy's text of ``expr`` with Euler's number written ``e`` (sympy writes ``E``): what
    ``show``, verdicts and derivations print. Machine-readable text keeps ``sympy.sstr``."""
    from sympy.printing.str import StrPrinter

    class _People(StrPrinter):
        def _print_Exp1(self, expr):
            return "e"

    return _People().doprint(expr)


def human(expr) -> str:
    """Text for people: :func:`sstr` with e written ``e``. Machine-readable fields (JSON values
    meant to be parsed back) keep :func:`sstr`, which sympy and the spec parser read as written."""
    if not isinstance(expr, sp.Basic) or not expr.has(sp.E):
        return sstr(expr)
    big = [a for a in expr.atoms(sp.Rational) if _too_long(a)]
    if big:
        expr = expr.xreplace({a: _abbreviate(a) for a in big})
    return for_people(expr)
