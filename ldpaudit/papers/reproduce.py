"""``ldpaudit reproduce [NAME|all] [--out proofs/] [--json]``: regenerate the papers' results
and every bundled spec's derivation as Markdown + LaTeX (+ JSON, + PNG where a figure fits)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

from ldpaudit.errors import LdpAuditError

#: name -> (module, description)
TARGETS = {
    "derivations": ("ldpaudit.papers.hooks.derivations", "every bundled spec's derivation"),
    "kairouz2016": ("ldpaudit.papers.bundled", "Kairouz et al. ICML 2016: utility table (a manifest), open/closed-alphabet sweeps"),
    "wang2017": ("ldpaudit.papers.bundled", "Wang et al. Table 1: k*, k# (a manifest) and the simulation"),
    "yebarg2017": ("ldpaudit.papers.bundled", "Ye & Barg medium-privacy risk ratios and optimality gaps (a manifest)"),
    "duchi2013": ("ldpaudit.papers.hooks.duchi2013", "Duchi et al.: Laplace mean, multivariate RR rate"),
    "joseph2018": ("ldpaudit.papers.hooks.joseph2018", "Joseph et al.: Gaussian estimation protocols, simulated and verified"),
    "gaussian": ("ldpaudit.papers.hooks.gaussian", "Gaussian mechanism: exact δ(ε), analytic vs classical calibration"),
    "localhashing": ("ldpaudit.papers.bundled", "Wang et al. 2017 local hashing: OLH's optimal g and variance, BLH (a manifest)"),
    "wang2019": ("ldpaudit.papers.bundled", "Wang et al. ICDE 2019: PM, Duchi and HM worst-case variance, ε*, HM's weight (a manifest)"),
    "certificates": ("ldpaudit.verify.command", "privacy certificates (ldpaudit.verify)"),
    "optimality": ("ldpaudit.papers.hooks.optimality", "certified staircase-LP optima: Wang Thm 2.1 (d <= 12), W-RR for binary inputs"),
    "accounting": ("ldpaudit.papers.hooks.accounting", "privacy profiles, trade-off curves, K-report and memoized composition"),
    "theorems": ("ldpaudit.papers.hooks.theorems", "the seed papers' inequalities over their regions (proofs/theorems/*.toml)"),
}


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("reproduce", help="regenerate the papers' results and the derivations under proofs/")
    p.add_argument("name", nargs="?", default="all", metavar="NAME|paper.toml",
                   help=f"what to regenerate: {', '.join([*TARGETS, 'all'])} (default: all), or a paper manifest")
    p.add_argument("--out", default=None, help="output directory (default: proofs/; a manifest's own output folder)")
    p.add_argument("--check", action="store_true",
                   help="(manifest) rebuild into a temporary folder and exit 1 if the committed output differs")
    p.add_argument("--json", action="store_true", help="also print the results as JSON on stdout")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line (also off with --json or off a terminal)")
    p.set_defaults(func=run)


def reproduce(name: str, out_dir, **options) -> tuple[list, object]:
    """Regenerate one target under ``out_dir``; also records the toolchain that printed it
    (``GENERATED_WITH.json``, major.minor versions; see :mod:`ldpaudit.papers.golden`)."""
    from ldpaudit.papers.golden import write_toolchain

    out_dir = Path(out_dir)
    write_toolchain(out_dir)
    if name == "certificates":
        try:
            module = importlib.import_module("ldpaudit.verify.command")
        except ImportError:
            raise LdpAuditError("reproduce certificates needs ldpaudit.verify.command, which is not installed") from None
        func = getattr(module, "reproduce_certificates", None)
        if func is None:
            raise LdpAuditError("ldpaudit.verify.command has no reproduce_certificates(out_dir); nothing to regenerate")
        result = func(out_dir / "certificates")  # its argument is the certificates directory itself
        return (list(result) if isinstance(result, (list, tuple)) else []), None
    from ldpaudit.papers.bundled import bundled_manifest, reproduce_bundled

    if bundled_manifest(name) is not None:  # a paper.toml under ldpaudit/papers/manifests
        return reproduce_bundled(name, out_dir, **options)
    module = importlib.import_module(TARGETS[name][0])
    return module.reproduce(out_dir, **options)


def run(args) -> int:
    from ldpaudit.papers.command import is_manifest, run_manifest

    if is_manifest(args.name):
        return run_manifest(args, args.name, args.out)
    if args.name not in TARGETS and args.name != "all":
        raise LdpAuditError(f"reproduce {args.name!r}: not a known paper nor a manifest; give one of "
                            f"{', '.join([*TARGETS, 'all'])} or a paper.toml path")
    if args.check:
        raise LdpAuditError("--check compares a manifest's build with its committed output; give a paper.toml path")
    args.out = "proofs" if args.out is None else args.out
    names = list(TARGETS) if args.name == "all" else [args.name]
    from ldpaudit.render.progress import status, wanted

    results, written = {}, {}
    with status("reproduce", enabled=wanted(args)) as progress:
        for number, name in enumerate(names, 1):
            if args.name == "all" and name == "certificates" and importlib.util.find_spec("ldpaudit.verify.command") is None:
                continue
            progress(f"{name} ({number}/{len(names)}): {TARGETS[name][1]}")
            paths, payload = reproduce(name, args.out)
            for p in paths:
                print(f"wrote {p}", file=sys.stderr if args.json else sys.stdout)
            results[name] = payload
            written[name] = [str(p) for p in paths]
    if args.json:
        from ldpaudit.schema import envelope

        # the shared keys, then (as before) the target's own payload: one target's at the top level
        # (a list, like wang2017's rows, goes under "results"), several under their names
        if len(names) == 1:
            body = _json_payload(names[0], results[names[0]])
            body = body if isinstance(body, dict) else {"results": body}
        else:
            body = {k: _json_payload(k, v) for k, v in results.items()}
        payload = envelope("reproduce", "OK", {"targets": list(results), "written": written, **body})
        print(json.dumps(payload, indent=2, ensure_ascii=False, default=str))
    return 0


def _json_payload(name, payload):
    if name == "wang2017" and isinstance(payload, dict) and "rows" in payload:
        return payload["rows"]
    return payload
