"""Small result tables shared by the console (rich) and the Markdown reports.

The audit's conformance result (:func:`ldpaudit.audit.guided_events._conformance`) is a dict; people
read it as a two-column table of what was tested and what was found, not as raw JSON."""

from __future__ import annotations


def _number(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def conformance_rows(conformance: dict) -> list[tuple[str, str]]:
    """(field, value) rows of a conformance result, most important first."""
    passed = conformance.get("passed")
    rows = [("result", "passed" if passed else "FAILED" if passed is False else str(conformance.get("verdict", "?")))]
    if "tests" in conformance:
        rows.append(("tests", f"{_number(conformance['tests'])} ({_number(conformance.get('rejected', 0))} rejected)"))
    if "alpha" in conformance:
        rows.append(("family-wise α", _number(conformance["alpha"])))
    worst = conformance.get("discrepancy")
    if worst:
        rows += [
            ("worst input", str(worst.get("input"))),
            ("event", str(worst.get("event"))),
            ("observed", f"{_number(worst.get('count'))} of {_number(worst.get('trials'))} "
                         f"= {_number(worst.get('observed_frequency'))}"),
            ("expected probability", _number(worst.get("expected_probability"))),
            ("p-value", _number(worst.get("p_value"))),
        ]
    known = {"passed", "verdict", "tests", "rejected", "alpha", "discrepancy", "method"}
    rows += [(key, _number(value)) for key, value in conformance.items() if key not in known]
    if conformance.get("method"):
        rows.append(("method", str(conformance["method"])))
    return rows


def conformance_markdown(conformance: dict) -> list[str]:
    """A Markdown table of :func:`conformance_rows` (``|`` in values escaped)."""
    lines = ["| | |", "|---|---|"]
    for key, value in conformance_rows(conformance):
        escaped = value.replace("|", "\\|")
        lines.append(f"| {key} | {escaped} |")
    return lines


def conformance_table(conformance: dict):
    """A rich :class:`~rich.table.Table` of :func:`conformance_rows`."""
    from rich.table import Table

    table = Table(title="conformance with the spec", show_header=False, title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in conformance_rows(conformance):
        if key == "result":
            value = f"[green]{value}[/green]" if value == "passed" else f"[red]{value}[/red]"
        table.add_row(key, value)
    return table
