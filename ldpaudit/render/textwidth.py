"""Text that fits the terminal: every line a command prints for people is at most the terminal's
width (``$COLUMNS``, else the terminal's, else 80 when the output is not a terminal), long
expressions wrapped at their operators and long prose at spaces, each continuation indented
under its line. Machine-readable output (``--json``, ``--format md/latex/json``) is never wrapped,
and neither are Markdown tables or drawn tables (a table is laid out to the width by whoever
draws it).

Below every stage: it imports nothing of ldpaudit.
"""

from __future__ import annotations

import io
import os
import shutil
import sys

#: the width when the output is not a terminal and $COLUMNS is not set
PIPE_WIDTH = 80
#: narrowest width honoured
MIN_WIDTH = 40
#: lines drawn by a table renderer (box drawing) or Markdown table rows: never re-wrapped
_TABLE_MARKS = set("│┃┆┊║╎┏┓┗┛┣┫━─═╭╮╰╯┌┐└┘├┤┬┴┼")


def width(stream=None) -> int:
    """The width to print to: $COLUMNS, the terminal's width, or 80 in a pipe."""
    text = os.environ.get("COLUMNS", "")
    if text.isdigit() and int(text) > 0:
        return max(int(text), MIN_WIDTH)
    stream = sys.stdout if stream is None else stream
    try:
        if stream.isatty():
            return max(shutil.get_terminal_size((PIPE_WIDTH, 24)).columns, MIN_WIDTH)
    except (AttributeError, ValueError, OSError):
        pass
    return PIPE_WIDTH


def _break_at(line: str, limit: int, floor: int) -> int:
    """Where to cut ``line`` so that the head is at most ``limit`` long: after the last space
    past ``floor`` (the indent), else, inside one token longer than the line, after its last
    operator or comma; a path or an address (letters, digits, ``/ . _ - : ~``) is never cut
    (its line may then be longer than ``limit``)."""
    cut = line.rfind(" ", floor + 1, limit + 1)
    if cut > floor:
        return cut
    end = line.find(" ", limit)
    token = line[floor:end if end >= 0 else len(line)].strip()
    if all(ch.isalnum() or ch in "/._-:~@%+=" for ch in token):
        return end if end >= 0 else len(line)
    for marks in (("*", ",", "+", "-", "=", "|", ";"), ("(", "/")):   # between terms, then inside one
        best = max(line.rfind(mark, floor + 1, limit) for mark in marks) + 1
        if best > floor + 1:
            return best
    return limit


def wrap_line(line: str, limit: int) -> list[str]:
    """``line`` as lines of at most ``limit`` characters, continuations indented 4 more."""
    if len(line) <= limit or any(ch in _TABLE_MARKS for ch in line) or line.lstrip().startswith("|"):
        return [line]
    indent = len(line) - len(line.lstrip(" "))
    more = " " * min(indent + 4, limit // 2)
    out = []
    rest, lead = line, indent
    while len(rest) > limit:
        cut = _break_at(rest, limit, lead)
        out.append(rest[:cut].rstrip())
        rest = more + rest[cut:].lstrip()
        lead = len(more)
    out.append(rest)
    return out


def wrap_math(line: str, limit: int) -> list[str]:
    """An equation ``line`` as lines of at most ``limit`` characters, cut before the ``+`` or
    ``-`` between two terms, after a comma or after the ``/`` of ``(...)/(...)``: the outermost
    place first (a sum breaks between its terms before inside a parenthesis, and between terms
    before at a ``/``), each continuation indented 4 more; what has no such place is cut as
    :func:`wrap_line` cuts it."""
    if len(line) <= limit:
        return [line]
    indent = len(line) - len(line.lstrip(" "))
    more = " " * min(indent + 4, limit // 2)
    cuts, depth = [], 0   # (end of the head, start of the rest, parentheses open there, 1 for a /)
    for i, ch in enumerate(line):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == " " and i > indent and (line[i + 1:i + 3] in ("+ ", "- ") or line[i - 1] == ","):
            cuts.append((i, i + 1, depth, 0))
        elif ch == "/" and line[i - 1] == ")" and line[i + 1:i + 2] == "(":
            cuts.append((i + 1, i + 1, depth, 1))
    out, start, lead = [], 0, ""
    while len(lead) + len(line) - start > limit:
        room = limit - len(lead)
        window = [c for c in cuts if start + room // 3 <= c[0] <= start + room]
        if not window:
            break
        top = min(c[2:] for c in window)   # the outermost; between terms before at a /
        end, rest, *_ = max(c for c in window if c[2:] == top)
        out.append(lead + line[start:end])
        start, lead = rest, more
    return out + wrap_line(lead + line[start:], limit) if out else wrap_line(line, limit)


def wrap_text(text: str, limit: int) -> str:
    """Every line of ``text`` wrapped to ``limit``; fenced code blocks are left as they are."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        out.extend([line] if fenced else wrap_line(line, limit))
    return "\n".join(out)


class Wrapped(io.TextIOBase):
    """A text stream that wraps each complete line written through it to ``limit`` columns."""

    def __init__(self, target, limit: int):
        self.target, self.limit = target, limit
        self.pending = ""
        self.fenced = False

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        self.pending += s
        if "\n" in self.pending:
            *lines, self.pending = self.pending.split("\n")
            out = []
            for line in lines:
                if line.lstrip().startswith("```"):
                    self.fenced = not self.fenced
                out.extend([line] if self.fenced else wrap_line(line, self.limit))
            self.target.write("\n".join(out) + "\n")
        return len(s)

    def flush(self) -> None:
        self.target.flush()

    def close_pending(self) -> None:
        """Write a last line that ended without a newline."""
        if self.pending:
            self.target.write("\n".join(wrap_line(self.pending, self.limit)))
            self.pending = ""
        self.target.flush()

    def isatty(self) -> bool:
        return self.target.isatty()

    def fileno(self) -> int:
        return self.target.fileno()

    @property
    def encoding(self):
        return getattr(self.target, "encoding", "utf-8")
