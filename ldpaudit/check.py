"""``ldpaudit check``: validate specs and summarize every stage (verify, derive, audit) on
their example instances: the main job a newcomer runs on the bundled specs.

Each spec is loaded under the load budget (``--load-timeout``, ``--load-memory-mb``): one that
is still loading when it runs out gets its row with the reason (verdict UNKNOWN) and the
others are checked as usual. Each spec that could not be loaded also gets one line on stderr,
the line ``show`` would print for it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ldpaudit import budget
from ldpaudit._version import __version__
from ldpaudit.errors import BudgetSpent, LdpAuditError, Undecided
from ldpaudit.mechanism.options import add_load_budget


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("check", help="validate specs and summarize every stage on their examples")
    p.add_argument("target", nargs="?", default="specs", help="a spec file or a directory of them (default: specs)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--audit-samples", type=int, default=20_000, help="samples per input for the quick audit")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    p.add_argument("--jobs", type=_jobs, default=None, metavar="N",
                   help="check N specs at a time in separate processes (default: the number of CPU cores, "
                        "at most 4); the rows are the same in any case, in file order")
    add_load_budget(p)
    p.set_defaults(func=cmd_check)


def _jobs(text: str) -> int:
    import argparse

    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"--jobs {text!r} is not a whole number >= 1; give e.g. --jobs 2")
    return n


def spec_files(target: str) -> list[Path]:
    path = Path(target)
    if path.is_dir():
        files = sorted(path.glob("*.toml"))
        if not files:
            raise LdpAuditError(f"no *.toml spec files in directory {target!r}")
        return files
    if not path.exists():
        raise LdpAuditError(f"spec {target!r} does not exist; give a .toml file or a directory of them")
    return [path]


#: the quick audit's false-alarm level (one fixed seed per spec, so the table is reproducible)
CHECK_ALPHA = 0.01


def check_one(path: Path, *, audit_samples: int, progress=None, load_seconds: float | None = budget.LOAD_SECONDS,
              load_memory_mb: int | None = budget.LOAD_MEMORY_MB) -> dict:
    """Validate one spec (under the load budget) and run the three stages (verify, derive,
    audit) on its example instance. ``row["stages"]`` holds each stage's structured result (a
    ``verdict`` from :data:`ldpaudit.schema.VERDICTS`, a ``text`` for people, and the stage's own
    fields); the ``verification``/``derivation``/``audit`` keys repeat each ``text``. A spec that
    is refused is INVALID; one whose loading spent the budget is UNKNOWN (not shown wrong)."""
    hit = cached_row(path, audit_samples)
    if hit is not None:
        return hit
    key = _row_key(path, audit_samples)
    row = _check_one(path, audit_samples=audit_samples, progress=progress, load_seconds=load_seconds,
                     load_memory_mb=load_memory_mb)
    if key is not None and row["verdict"] not in _UNDECIDED:
        from ldpaudit import cache

        cache.put_text("check", key, json.dumps(row))
    return {**row, "cached": False}


def cached_row(path: Path, audit_samples: int) -> dict | None:
    """The row of an earlier check of the same spec bytes with the same options, or None."""
    key = _row_key(path, audit_samples)
    if key is None:
        return None
    from ldpaudit import cache

    hit = cache.get_text("check", key)  # JSON: reading it executes nothing
    if hit is None:
        return None
    try:
        return {**json.loads(hit), "cached": True}
    except ValueError:
        return None


#: rows that depend on a budget or end in an error: never cached
_UNDECIDED = ("UNKNOWN", "ERROR")


def _row_key(path: Path, audit_samples: int) -> str | None:
    """The row cache's key (:mod:`ldpaudit.cache`, namespace ``check``): the spec's path and
    bytes and the audit's sample count. Every stage is a function of these (the verdicts of z3
    under its deterministic resource limit, the derivation, the audit with its fixed seed), so a
    second ``check`` of unchanged specs is a lookup; a row that spent a budget is not kept."""
    from ldpaudit import cache

    if cache.cache_dir() is None:
        return None
    try:
        source = Path(path).read_bytes()
    except OSError:
        return None
    return cache.key(b"check-row", str(path), source, str(audit_samples), str(CHECK_ALPHA))


def _check_one(path: Path, *, audit_samples: int, progress=None, load_seconds: float | None,
               load_memory_mb: int | None) -> dict:
    from ldpaudit.mechanism.loader import load_budgeted

    row: dict = {"spec": str(path)}
    try:
        mech, example = load_budgeted(Path(path), example=True, seconds=load_seconds, memory_mb=load_memory_mb)
    except (BudgetSpent, Undecided) as exc:          # not shown wrong: UNKNOWN
        row.update(mechanism=path.stem, ok=False, error=str(exc), stochastic="UNKNOWN", verdict="UNKNOWN")
        return row
    except LdpAuditError as exc:
        row.update(mechanism=path.stem, ok=False, error=str(exc), stochastic="INVALID", verdict="INVALID")
        return row
    row.update(
        mechanism=mech.name,
        form=mech.channel.form,
        parameters=[p.describe() for p in mech.parameters],
        example={k: str(v) for k, v in mech.example},
        claimed_epsilon=str(mech.claimed_epsilon) + ("" if mech.claimed_delta is None else f", δ={mech.claimed_delta}"),
        claimed_value=_claimed_value(example),
        stochastic="proved" if mech.parameters else "exact",
        notes=list(mech.notes),
        ok=True,
    )
    stages = {}
    for key, title, stage in (("verify", "verification", _verify_stage), ("derive", "derivation", _derive_stage),
                              ("audit", "audit", _audit_stage)):
        if progress is not None:
            progress(f"{path.stem}: {key}")
        # an (ε, δ) claim is decided on the example instance (δ(ε) needs numbers)
        target = mech if key == "verify" and mech.claimed_delta is None else example
        try:
            stages[key] = stage(target, samples=audit_samples)
        except LdpAuditError as exc:
            stages[key] = {"verdict": "ERROR", "text": f"error: {exc}"}
        row[title] = stages[key]["text"]
    if any("`ldpaudit verify` proves it" in n for n in mech.notes):  # a piecewise density: checked at points
        validity = stages.get("verify", {}).get("validity", "")
        row["stochastic"] = "proved" if validity.startswith("∫ f(z|x) dz = 1 and f >= 0 proved") else "checked at points"
    row["stages"] = stages
    row["verdict"] = _row_verdict(stages)
    return row


def _claimed_value(example) -> str:
    """The claimed ε (and δ) at the example instance, as a number: ``1``, ``1.099 (log(3))``."""
    import sympy as sp

    from ldpaudit.render.text import human

    def number(v) -> str:
        v = sp.sympify(v)
        if not v.is_number:
            return human(v)
        if v.is_Rational:
            return human(v) if v.is_Integer or v.q <= 1000 else f"{float(v):.4g}"
        return f"{float(sp.N(v, 20)):.4g} ({human(v)})"

    text = number(example.claimed_epsilon)
    return text if example.claimed_delta is None else f"{text}, δ = {number(example.claimed_delta)}"


def _row_verdict(stages: dict) -> str:
    verdicts = {s["verdict"] for s in stages.values()}
    for worst in ("REFUTED", "VIOLATION", "UNKNOWN", "ERROR"):
        if worst in verdicts:
            return worst
    return "OK"


def _verify_stage(mech, *, samples) -> dict:
    import sympy as sp

    from ldpaudit.verify import verify
    from ldpaudit.render.text import human

    verdict = verify(mech)
    out = {"verdict": verdict.status.value, "tight_epsilon": None, "scope": verdict.scope,
           "seconds": round(verdict.seconds, 3)}
    validity = [n.removeprefix("one coordinate: ") for n in verdict.notes
                if n.removeprefix("one coordinate: ").startswith(("∫ f(z|x) dz = 1", "validity (∫ f = 1"))]
    if validity:
        out["validity"] = validity[0]
    if verdict.status.value == "PROVED":
        scope = f" (all {', '.join(mech.parameter_names)})" if mech.parameters else ""
        tight = ""
        if verdict.tight_epsilon is not None:
            out["tight_epsilon"] = sp.sstr(verdict.tight_epsilon)
            tight = f" ε*={human(verdict.tight_epsilon)}"
        out["text"] = f"PROVED{tight}{scope}"
    elif verdict.status.value == "REFUTED":
        out["witness"] = None if verdict.witness is None else verdict.witness.to_json()
        if verdict.delta is not None and verdict.exact_delta is not None:
            # an (ε, δ) claim is refuted by its δ, not by a ratio: the excess is the reason
            from ldpaudit.verify.result import approx

            w = verdict.witness
            pair = "" if w is None else f" (pair x={human(w.x)}, x'={human(w.x_prime)})"
            out["exact_delta"] = sp.sstr(verdict.exact_delta)
            out["text"] = (f"REFUTED: δ({human(verdict.claim)}) ≈ {approx(verdict.exact_delta)} > "
                           f"δ = {human(verdict.delta)}{pair}")
        else:
            out["text"] = f"REFUTED: {verdict.witness}"
    else:
        out["reason"] = verdict.reason
        out["text"] = f"UNKNOWN ({verdict.reason})"
    return out


def _derive_stage(mech, *, samples) -> dict:
    from ldpaudit.derive.headline import headline

    text = headline(mech)
    derived = not text.startswith(("not ", "no "))
    return {"verdict": "OK" if derived else "NOT_DERIVED", "text": text}


def _audit_stage(mech, *, samples) -> dict:
    """Audit the bundled reference randomizer of the mechanism against its spec at a modest
    sample count, at α = CHECK_ALPHA with seed 0."""
    from ldpaudit.audit import audit
    from ldpaudit.audit.engine import conformance_failed
    from ldpaudit.errors import InvalidParameter
    from ldpaudit.mechanism.randomizers import reference_for
    from ldpaudit.mechanism.spaces import BoxDomain, FiniteDomain

    try:
        randomizer = reference_for(mech)
    except InvalidParameter:
        return {"verdict": "NOT_AUDITED", "text": "no reference randomizer"}
    if isinstance(mech.inputs, FiniteDomain):
        domain, spec = list(mech.inputs.enumerate()), mech
    elif isinstance(mech.inputs, BoxDomain):
        from ldpaudit.mechanism.vector import box_audit_inputs

        domain, spec = box_audit_inputs(mech.inputs), None
    else:
        from ldpaudit.mechanism.realinput import audit_inputs

        # verify's witness pair, then one input per distinct row Q(.|x): every class exercised
        domain, spec = audit_inputs(mech, extra=_witness_inputs(mech)), None
    eps = float(mech.claimed_epsilon)
    delta = 0.0 if mech.claimed_delta is None else float(mech.claimed_delta)
    result = audit(randomizer, domain=domain, epsilon=eps, samples=samples, alpha=CHECK_ALPHA, seed=0, batch=True,
                   spec=None if delta else spec, delta=delta)
    out = {"verdict": result.verdict, "epsilon_lower_bound": result.epsilon_lower_bound,
           "samples_per_input": samples, "alpha": CHECK_ALPHA, "confidence": 1 - CHECK_ALPHA, "conformance": None,
           "delta": delta}
    conf = ""
    if result.conformance is not None:
        failed = conformance_failed(result.conformance)
        out["conformance"] = "failed" if failed else "ok"
        conf = "; conformance " + ("FAILED" if failed else "ok")
        if failed and result.verdict != "VIOLATION":
            out["verdict"] = "VIOLATION"
    at = f" at δ={delta:g}" if delta else ""
    out["text"] = f"{result.verdict} ε_lb={result.epsilon_lower_bound:.3f}{at} (n={samples:,}, α={CHECK_ALPHA}){conf}"
    return out


def _witness_inputs(mech) -> tuple:
    """The two real inputs of verify's tightest-ε witness (where Q(y|x)/Q(y|x') attains ε*),
    so the audit probes the pair that separates the classes most; () when there is none. Only
    the witness is used: ε* is not proved again (the verify stage proves the claim)."""
    from ldpaudit.errors import LdpAuditError
    from ldpaudit.verify.core import tight_epsilon

    try:
        witness = tight_epsilon(mech, proved=False).witness
    except LdpAuditError:
        return ()
    if witness is None or getattr(witness, "kind", "Q") != "Q":
        return ()
    return tuple(v for v in (witness.x, witness.x_prime) if getattr(v, "is_Rational", False) or isinstance(v, int))


def cmd_check(args) -> int:
    from ldpaudit.schema import SCHEMA_VERSION

    files = spec_files(args.target)
    from ldpaudit.render.progress import status, wanted

    options = {"audit_samples": args.audit_samples, "load_seconds": args.load_timeout,
               "load_memory_mb": args.load_memory_mb}
    rows = [cached_row(path, args.audit_samples) for path in files]
    todo = [path for path, row in zip(files, rows) if row is None]
    jobs = min(args.jobs or min(os.cpu_count() or 1, 4), len(todo))
    with status("check", enabled=wanted(args)) as progress:
        if jobs <= 1:
            done = [check_one(path, progress=progress, **options) for path in todo]
        else:
            done = _check_parallel(todo, jobs, options, progress)
    fresh = iter(done)
    rows = [row if row is not None else next(fresh) for row in rows]
    cached = sum(bool(r.pop("cached", False)) for r in rows)
    for r in rows:
        if not r["ok"]:
            kind = "inconclusive" if r["verdict"] == "UNKNOWN" else "error"
            print(f"ldpaudit: {kind}: {' '.join(r['error'].split())}", file=sys.stderr)
    counts = summary_counts(rows)
    if args.json:
        print(json.dumps({"schema_version": SCHEMA_VERSION, "command": "check", "verdict": _overall(rows),
                          "version": __version__, "summary": counts, "cached": cached, "specs": rows}, indent=2))
    else:
        _render_check(rows)
        print(summary_line(counts, cached))
    return {"OK": 0, "INVALID": 2, "REFUTED": 1, "VIOLATION": 1, "UNKNOWN": 3, "ERROR": 3}[_overall(rows)]


def _check_parallel(files: list[Path], jobs: int, options: dict, progress) -> list[dict]:
    """check_one on every file in ``jobs`` worker processes ("spawn": the parent may hold
    threads); each row depends only on its spec (one fixed seed per spec), so the rows are the
    sequential run's, returned in file order."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    rows: list = [None] * len(files)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(check_one, path, **options): i for i, path in enumerate(files)}
        for done, future in enumerate(as_completed(futures), 1):
            i = futures[future]
            rows[i] = future.result()
            progress(f"{done}/{len(files)} specs ({files[i].stem} done)")
    return rows


#: the order of the statuses in the summary line: the worst first
_STATUS_ORDER = ("INVALID", "REFUTED", "VIOLATION", "UNKNOWN", "ERROR", "OK")


def summary_counts(rows: list[dict]) -> dict:
    """How many rows have each status, the worst first (``{"REFUTED": 1, "OK": 27}``)."""
    counts = {}
    for status in _STATUS_ORDER:
        n = sum(r["verdict"] == status for r in rows)
        if n:
            counts[status] = n
    return counts


def summary_line(counts: dict, cached: int = 0) -> str:
    """``28 specs: 26 OK, 1 REFUTED, 1 UNKNOWN`` (and how many rows came from the cache)."""
    total = sum(counts.values())
    parts = ", ".join(f"{n} {status}" for status, n in counts.items())
    line = f"{total} spec{'s' if total != 1 else ''}: {parts}"
    if cached:
        line += f" ({cached} unchanged since an earlier check: from the cache)"
    return line


def _overall(rows: list[dict]) -> str:
    """INVALID (exit 2) before REFUTED/VIOLATION (1) before UNKNOWN/ERROR (3) before OK (0)."""
    verdicts = {r["verdict"] for r in rows}
    for worst in ("INVALID", "REFUTED", "VIOLATION", "UNKNOWN", "ERROR"):
        if worst in verdicts:
            return worst
    return "OK"


#: below this terminal width `check` prints one block per spec instead of the table
WIDE = 140


def _render_check(rows: list[dict]) -> None:
    from rich.console import Console

    width = Console().width  # the terminal's, or $COLUMNS (80 when piped without it)
    if width < WIDE:
        print(_compact(rows, width))
        return
    from rich.table import Table

    table = Table(title="ldpaudit check", show_lines=True)
    columns = ["mechanism", "parameters", "claimed ε", "rows sum to 1"]
    extra = ["verification", "derivation", "audit"]
    for name in columns + extra:
        table.add_column(name, overflow="fold")
    for r in rows:
        if not r["ok"]:
            table.add_row(r["mechanism"], "", "", f"[red]{r['verdict']}[/red]: {r['error']}", *["" for _ in extra])
            continue
        params = ", ".join(r["parameters"]) or "(none)"
        example = ", ".join(f"{k}={v}" for k, v in r["example"].items())
        table.add_row(
            f"{r['mechanism']}\n[dim]{r['form']}[/dim]",
            params + (f"\nexample: {example}" if example else ""),
            r["claimed_value"],
            f"[green]{r['stochastic']}[/green]",
            *[str(r.get(k, "")) for k in extra],
        )
    Console(width=width).print(table)


def _compact(rows: list[dict], width: int) -> str:
    """One block per spec, every line at most ``width`` characters: the verdict and name, then
    the instance and each stage on its own wrapped line."""
    import textwrap

    width = max(width, 40)
    out = []

    def line(text: str, indent: str = "    ") -> None:
        out.extend(textwrap.wrap(text, width=width, initial_indent=indent, subsequent_indent=indent + "  ",
                                 break_long_words=True, break_on_hyphens=False) or [indent])

    for r in rows:
        if not r["ok"]:
            line(f"{r['verdict']}  {r['mechanism']}: {r['error']}", "")
            continue
        line(f"{r['verdict']}  {r['mechanism']} ({r['form']}): claimed ε = {r['claimed_value']} at the example", "")
        example = ", ".join(f"{k}={v}" for k, v in r["example"].items())
        line("parameters: " + (", ".join(r["parameters"]) or "(none)") + (f"; example: {example}" if example else ""))
        line(f"rows sum to 1: {r['stochastic']}")
        for key, title in (("verification", "verify"), ("derivation", "derive"), ("audit", "audit")):
            line(f"{title}: {r.get(key, '')}")
    return "\n".join(out)
