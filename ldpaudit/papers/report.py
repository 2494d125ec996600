"""The build's Markdown report (every printed value AGREE / DIFFER with both numbers, every
claim's verdict) and ``paper.json`` (every value of every item)."""

from __future__ import annotations

import json
from pathlib import Path


def paper_value(cell: dict) -> str:
    """What the paper prints in a cell: the number, and the formula it came from when it is one."""
    if "printed_shown" in cell:
        return f"{cell['printed_shown']} (= {cell['printed']})"
    return cell["printed"]


def _at(parameters: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in parameters.items())


def report_lines(result) -> list[str]:
    m = result.manifest
    lines = [f"# {m.title}", ""]
    if m.source:
        lines += [f"Source: {m.source}", ""]
    if m.note:
        lines += [m.note, ""]
    lines += [f"Built by `ldpaudit reproduce {m.path.name}` from the mechanisms' specs; every value below is "
              "derived, and each value the paper prints is compared with it.", ""]
    for r in result.items:
        p = r.payload
        lines += [f"## {r.item.kind} {r.item.name}" + (f": {r.item.caption}" if r.item.caption and
                                                        r.item.kind != "claim" else ""), ""]
        if r.item.kind == "table":
            if "agree" in p:
                lines += [f"{p['agree']} AGREE, {p['differ']} DIFFER"
                          + (f", {p['known_differences']} known differences" if p.get("known_differences") else "")
                          + f" (of {len(p['rows'])} rows).", ""]
            for row in p["rows"]:
                for c in row["cells"]:
                    if "verdict" not in c:
                        continue
                    line = (f"- {c['verdict']} [{_at(row['parameters'])}] {c['label']}: derived {c['shown']}, "
                            f"paper {paper_value(c)}")
                    if c.get("known_difference"):
                        line += f" (known: {c['known_difference']})"
                    lines.append(line)
            if not any("verdict" in c for row in p["rows"] for c in row["cells"]):
                lines.append(f"{len(p['rows'])} rows, no printed values to compare.")
            lines.append("")
        elif r.item.kind == "figure":
            lines += [f"![{r.item.caption or r.item.name}]({r.item.kind}-{r.item.name}.png)", ""]
        elif r.item.kind == "claim":
            for c in p["claims"]:
                line = f"- {c['status']} {p['label']} ({c['name']}): `{c['statement']}`"
                if c.get("reason"):
                    line += f"; {c['reason']}"
                if c.get("witness"):
                    line += f"; witness {c['witness'].get('point', c['witness'])}"
                lines.append(line)
            lines.append("")
        elif r.item.kind == "derivation":
            lines += [f"LaTeX fragment: `derivation-{r.item.name}.tex`.", ""]
        else:
            lines += [p.get("summary", "built by its hook"), ""]
    lines += [f"Verdict: {result.verdict} ({sum(r.differ for r in result.items)} DIFFER).", ""]
    return lines


def write_report(result, out: Path) -> list[Path]:
    md = out / "report.md"
    md.write_text("\n".join(report_lines(result)), encoding="utf-8")
    js = out / "paper.json"
    body = {"title": result.manifest.title, "source": result.manifest.source, "verdict": result.verdict,
            "items": {r.item.key: r.payload for r in result.items}}
    js.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return [md, js]


__all__ = ["write_report", "report_lines", "paper_value"]
