"""mkdocs hook: the command-line reference, generated from ldpaudit's real argument parser.

``docs/reference/cli.md`` holds the marker below; at build time it is replaced by one section
per subcommand of :func:`ldpaudit.cli.build_parser` (usage, description, every argument with its
help and default), so the reference cannot drift from the parser: nothing is copied by hand.
"""

from __future__ import annotations

import argparse
import html
import os

MARKER = "<!-- ldpaudit-cli-reference -->"
USAGE_WIDTH = "100"


def on_page_markdown(markdown, page, config, files):
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, cli_reference())


def cli_reference() -> str:
    from ldpaudit.cli import COMMANDS, build_parser

    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = USAGE_WIDTH  # argparse wraps usage lines at the terminal width
    try:
        parser = build_parser()  # every command built in full
        summaries = {f"ldpaudit {name}": help_text for name, (_, help_text) in COMMANDS.items()}
        return _section(parser, "ldpaudit", summaries, level=2)
    finally:
        if columns is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = columns


def _section(parser: argparse.ArgumentParser, title: str, summaries: dict, level: int) -> str:
    lines = [f"{'#' * level} `{title}`", ""]
    summary = summaries.get(title)
    if summary:
        lines += [_text(summary[0].upper() + summary[1:]) + ".", ""]
    lines += ["```text", parser.format_usage().strip(), "```", ""]
    if parser.description:
        lines += [_text(parser.description), ""]
    rows = []
    nested = []
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
            continue
        if isinstance(action, argparse._SubParsersAction):
            nested.append(action)
            rows.append((_invocation(action), "one of: " + ", ".join(f"`{c}`" for c in action.choices)))
            continue
        rows.append((_invocation(action), _help(parser, action)))
    if rows:
        lines += ["| argument | meaning |", "|---|---|"]
        lines += [f"| {arg} | {meaning} |" for arg, meaning in rows]
        lines.append("")
    if parser.epilog:
        lines += [_text(parser.epilog), ""]
    for action in nested:
        for name, child in action.choices.items():
            lines.append(_section(child, f"{title} {name}", summaries, level + 1))
    return "\n".join(lines)


def _invocation(action: argparse.Action) -> str:
    if not action.option_strings:
        metavar = action.metavar or action.dest
        return f"`{metavar}`".replace("|", "\\|")
    if action.nargs == 0:
        names = action.option_strings
    else:
        metavar = action.metavar or action.dest.upper()
        if isinstance(metavar, tuple):
            metavar = " ".join(metavar)
        names = [f"{o} {metavar}" for o in action.option_strings]
    return ", ".join(f"`{n}`" for n in names).replace("|", "\\|")


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    text = parser._get_formatter()._expand_help(action) if action.help else ""
    default = action.default
    shown = (default not in (None, False, argparse.SUPPRESS, [])
             and action.nargs != 0 and "default" not in (action.help or ""))
    if shown:
        text += f" (default: `{default}`)"
    if action.choices and not isinstance(action, argparse._SubParsersAction):
        text += " (one of: " + ", ".join(f"`{c}`" for c in action.choices) + ")"
    return _text(text) or "&nbsp;"


def _text(text: str) -> str:
    """Plain help text as one Markdown table cell: HTML-escaped, no emphasis, no pipes."""
    text = " ".join(text.split())
    out = []
    for i, chunk in enumerate(text.split("`")):
        if i % 2:  # inside backticks: code, left as it is
            out.append(chunk)
        else:
            out.append(html.escape(chunk, quote=False).replace("*", "\\*").replace("_", "\\_"))
    return "`".join(out).replace("|", "\\|")
