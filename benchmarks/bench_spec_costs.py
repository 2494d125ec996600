"""Cold costs of a first contact, per bundled spec: the CPU seconds of loading it (parse,
validate, bind its ``[example]``), of ``verify --tight``, of ``derive`` and of ``check``'s
derive and audit stages, each in a fresh child process with the result cache off
(``LDPAUDIT_CACHE_DIR=off``), with the child's peak RSS.

    python benchmarks/bench_spec_costs.py [--specs square_wave,hybrid] [--commands] [--repeat 3]

Each figure is CPU time (``time.process_time()`` inside the child, around the measured call
only), never wall time: the machine is shared; with ``--repeat N`` the least of N fresh children
(CPU time still grows when the neighbours share the cores' caches). The phases:

- ``load``: ``load_spec(path)`` (the validated family with its example bound) in a process that
  has already imported sympy (with the two modules sympy imports on first arithmetic, which
  ``load_budgeted`` imports before it forks) and the loader, as every command has before it loads;
- ``verify``: ``verify(family)`` and ``tight_epsilon(family)``, what ``ldpaudit verify --tight
  SPEC`` computes after loading (the example instance for an (ε, δ) claim, as check does);
- ``derive``: ``derive(example, family=family)``, what ``ldpaudit derive SPEC -p <example>``
  computes after loading; ``headline``: check's derive stage (``headline(example)``);
- ``audit``: check's audit stage (``_audit_stage(example, samples=20000)``), after check's
  verify and derive stages in the same process, as ``check`` runs them (their imports and
  in-process memory are not the audit's cost; the imports only the audit needs are).

With ``--commands`` the whole commands ``ldpaudit verify --tight SPEC`` and ``ldpaudit derive
SPEC --no-cache`` are also measured (user + sys of the child and its children, from
``RUSAGE_CHILDREN``: Python's start, the imports and the forked load included).

Targets (issue 31, item 6): load <= 0.3 s, verify --tight <= 2 s, derive <= 2 s per spec.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"load": 0.3, "verify": 2.0, "derive": 2.0}
PHASES = ("load", "verify", "derive", "headline", "audit")


def _peak_mb() -> float:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(phase: str, spec: str) -> dict:
    """One measurement in this (fresh) process: the CPU seconds of ``phase`` on ``spec``."""
    import time

    import sympy  # noqa: F401
    import sympy.sets.setexpr  # noqa: F401  (sympy's Add and Mul import these on first use;
    import sympy.tensor.tensor  # noqa: F401   load_budgeted imports them before it forks)

    from ldpaudit.mechanism.loader import load_spec

    if phase == "load":
        t0 = time.process_time()
        load_spec(spec)
        return {"cpu": time.process_time() - t0, "peak_mb": _peak_mb()}
    from ldpaudit.mechanism.loader import load_budgeted

    # loaded as the commands load it: in a forked child (whose work warms nothing here)
    family, example = load_budgeted(spec, example=True)
    if phase == "verify":
        from ldpaudit.verify.core import tight_epsilon, verify

        from ldpaudit.errors import LdpAuditError

        # an (ε, δ) claim needs numbers: decided on the example, as check does
        target = family if family.claimed_delta is None else example
        t0 = time.process_time()
        verdict = verify(target)
        try:
            tight = str(tight_epsilon(target).value)
        except LdpAuditError as exc:
            tight = f"error: {exc}"
        cpu = time.process_time() - t0
        return {"cpu": cpu, "peak_mb": _peak_mb(), "verdict": verdict.status.value, "tight": tight}
    if phase == "derive":
        from ldpaudit.derive.derivation import derive
        from ldpaudit.errors import LdpAuditError

        t0 = time.process_time()
        try:  # a refusal ("not a location family") costs what it costs
            derive(example, family=family)
            outcome = "derived"
        except LdpAuditError as exc:
            outcome = f"error: {exc}"
        return {"cpu": time.process_time() - t0, "peak_mb": _peak_mb(), "outcome": outcome}
    if phase == "headline":
        from ldpaudit.derive.headline import headline

        t0 = time.process_time()
        text = headline(example)
        return {"cpu": time.process_time() - t0, "peak_mb": _peak_mb(), "text": text}
    if phase == "audit":
        import ldpaudit.audit.engine  # noqa: F401  (imports are not the stage's cost)
        import ldpaudit.mechanism.randomizers  # noqa: F401
        import ldpaudit.mechanism.realinput  # noqa: F401
        from ldpaudit.errors import LdpAuditError
        from ldpaudit.check import _audit_stage, _derive_stage, _verify_stage

        for stage, target in ((_verify_stage, family if family.claimed_delta is None else example),
                              (_derive_stage, example)):  # what check runs before, in the same process
            try:
                stage(target, samples=20_000)
            except LdpAuditError:
                pass
        t0 = time.process_time()
        out = _audit_stage(example, samples=20_000)
        return {"cpu": time.process_time() - t0, "peak_mb": _peak_mb(), "text": out["text"]}
    raise SystemExit(f"unknown phase {phase!r}")


def _env() -> dict:
    return dict(os.environ, LDPAUDIT_CACHE_DIR="off", PYTHONPATH=str(ROOT))


def measure(phase: str, spec: str, repeat: int = 1) -> dict:
    """The phase in ``repeat`` fresh children: the least CPU (the others' noise is the machine's)."""
    runs = []
    for _ in range(repeat):
        proc = subprocess.run([sys.executable, __file__, "--child", phase, spec], cwd=ROOT, env=_env(),
                              capture_output=True, text=True)
        if proc.returncode != 0:
            return {"cpu": float("nan"), "peak_mb": float("nan"), "error": proc.stderr.strip().splitlines()[-1:]}
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return min(runs, key=lambda r: r["cpu"])


def command_cpu(argv: list[str], repeat: int = 1) -> float:
    """User + sys CPU seconds of a whole command and its children (the least of ``repeat`` runs)."""
    runs = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "ldpaudit.cli", *argv], cwd=ROOT, env=_env(),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        runs.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return min(runs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--specs", help="comma-separated spec stems (default: every bundled spec)")
    ap.add_argument("--phases", default=",".join(PHASES), help=f"comma-separated, of {', '.join(PHASES)}")
    ap.add_argument("--commands", action="store_true", help="also the whole verify --tight and derive commands")
    ap.add_argument("--repeat", type=int, default=1, help="fresh children per figure; the least CPU is shown")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    ap.add_argument("--child", nargs=2, metavar=("PHASE", "SPEC"), help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.child:
        print(json.dumps(child(*opts.child)))
        return 0
    specs = sorted(ROOT.glob("specs/*.toml"))
    if opts.specs:
        wanted = set(opts.specs.split(","))
        specs = [s for s in specs if s.stem in wanted]
    phases = [p for p in opts.phases.split(",") if p]
    cols = phases + (["verify cmd", "derive cmd"] if opts.commands else [])
    print(f"# cold CPU seconds per bundled spec (result cache off; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores)\n")
    print("| spec | " + " | ".join(cols) + " | peak RSS MB |")
    print("|---|" + "---|" * (len(cols) + 1))
    table, missed = {}, []
    for spec in specs:
        rel = spec.relative_to(ROOT).as_posix()
        row = {p: measure(p, rel, opts.repeat) for p in phases}
        if opts.commands:
            row["verify cmd"] = {"cpu": command_cpu(["verify", "--tight", "-q", rel], opts.repeat)}
            row["derive cmd"] = {"cpu": command_cpu(["derive", rel, "--no-cache", "-q"], opts.repeat)}
        table[spec.stem] = row
        for p, target in TARGETS.items():
            if p in row and not row[p]["cpu"] <= target:
                missed.append(f"{spec.stem} {p} {row[p]['cpu']:.2f} s")
        peak = max((r.get("peak_mb", 0) for r in row.values() if r.get("peak_mb") == r.get("peak_mb")), default=0)
        cells = " | ".join(f"{row[c]['cpu']:.2f}" for c in cols)
        print(f"| {spec.stem} | {cells} | {peak:.0f} |", flush=True)
    totals = " | ".join(f"{sum(r[c]['cpu'] for r in table.values()):.1f}" for c in cols)
    print(f"| **total** | {totals} | |")
    if opts.json:
        Path(opts.json).write_text(json.dumps(table, indent=1, default=str))
    if missed:
        print(f"\nover target: {'; '.join(missed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
