"""``ldpaudit profile SPEC [-p name=value ...] [--reports K] [--epsilon E] [--json] [--plot out.png]``.

The exact privacy profile δ(ε) (piecewise in e^ε, breakpoints at the likelihood ratios), the
worst pair, the f-DP trade-off curve, and for K > 1 reports the exact composed δ beside basic
and advanced composition. SPEC may also be a composition file (``[composition]``, see
:mod:`ldpaudit.account.composition`). Exit 0 with a value, 2 on bad input, 3 when the channel's
numbers are outside what is decided exactly (UNKNOWN with the reason). Density channels (Laplace,
Gaussian) give the whole δ(ε) in closed form (``curve``: pieces, breakpoints, sample points),
derived from the density (:func:`ldpaudit.account.density.profile_curve`).
"""

from __future__ import annotations

import json
import sys


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "profile",
        help="exact privacy profile δ(ε), f-DP trade-off curve and K-report composition of a finite channel",
        description="The exact δ(ε) for all ε of one report (or K independent reports of the same input, or a "
        "composition file with memoization), the worst pair, the trade-off curve T(α), basic and advanced "
        "composition beside the exact value.",
    )
    p.add_argument("spec", help="a spec file (.toml), a catalog name such as krr, or a composition file")
    p.add_argument("-p", "--param", action="append", metavar="NAME=VALUE", help="bind a parameter exactly (repeatable)")
    p.add_argument("--reports", default=None, metavar="K", help="independent reports of the same input (default 1)")
    p.add_argument("--epsilon", default=None, metavar="E", help="the ε at which to give δ exactly (default: the claimed ε)")
    p.add_argument("--json", action="store_true", help="machine-readable output, exact strings and floats")
    p.add_argument("--plot", metavar="OUT.png", help="plot δ(ε) and T(α) into a PNG file")
    p.add_argument("--grid", default=None, metavar="H",
                   help="grid step of the pessimistic discretized PLD used when the exact support of K reports "
                        "explodes (rounded down to a power of 2; default: about 60,000 grid points)")
    p.set_defaults(func=run)


def _reports(text) -> int:
    from ldpaudit.errors import InvalidParameter

    if text is None:
        return 1
    try:
        k = int(str(text).strip())
    except ValueError:
        raise InvalidParameter(f"--reports {text!r} is not a whole number; give K >= 1, e.g. --reports 2") from None
    if k < 1:
        raise InvalidParameter(f"--reports {text!r}: the number of reports K must be >= 1, e.g. --reports 2")
    return k


def run(args) -> int:
    from ldpaudit.account.numbers import Unsupported
    from ldpaudit.verify.density_delta import NotDerived

    reports = _reports(args.reports)
    try:
        result = compute(args.spec, args.param, reports=reports, epsilon=args.epsilon, grid=getattr(args, "grid", None),
                         curve=True)
    except (Unsupported, NotDerived) as exc:  # could not decide: UNKNOWN with the reason, exit 3
        if args.json:
            from ldpaudit.schema import envelope

            print(json.dumps(envelope("profile", "UNKNOWN", {"reason": str(exc)}), indent=2, ensure_ascii=False))
        else:
            print(f"UNKNOWN: {exc}")
        return 3
    if args.plot and result.get("kind") == "density" and result.get("curve"):
        from ldpaudit.report.accounting import plot_density_profile

        plot_density_profile(result, args.plot)
    elif args.plot and (result.get("delta") is None or result.get("kind") == "density"):
        print(f"note: --plot draws exact profiles (finite channels; density channels in closed form); not drawn "
              f"for {result['mechanism']!r} (delta_upper only)", file=sys.stderr)
    elif args.plot:
        from ldpaudit.report.accounting import plot_profile

        plot_profile(result, args.plot)
    if args.json:
        from ldpaudit.schema import envelope

        print(json.dumps(envelope("profile", "OK", result), indent=2, ensure_ascii=False, default=str))
    else:
        sys.stdout.write(render_text(result))
    return 0


def _grid(text):
    if text is None:
        return None
    import math

    from ldpaudit.errors import InvalidParameter

    try:
        h = float(text)
    except ValueError:
        h = float("nan")
    if not (h > 0 and math.isfinite(h)):
        raise InvalidParameter(f"--grid {text!r} must be a positive number, e.g. --grid 1e-3")
    return 2.0 ** math.floor(math.log2(h))


def compute(spec, params, *, reports: int = 1, epsilon=None, grid=None, curve: bool = False) -> dict:
    """The JSON payload of ``ldpaudit profile`` (also used by ``reproduce accounting``); ``curve``
    adds a density channel's whole δ(ε) in closed form (the command always asks for it)."""
    from ldpaudit.account import composition
    from ldpaudit.account import pld as P
    from ldpaudit.account import profile as pf

    step = _grid(grid)
    fallback = None  # (one-round view, rounds) when the exact support of the composition explodes
    if composition.is_composition(spec):
        comp = composition.load_composition(spec, params)
        single = comp.view(1)
        try:
            v = comp.view(reports * comp.reports) if reports > 1 or comp.reports > 1 else single
        except (P.SupportTooLarge, composition.TooManyHistograms) as exc:
            if comp.mode == "memoized":
                return _memo_cap(comp, reports * comp.reports, _epsilon(epsilon, None), str(exc))
            fallback, v = (single, reports * comp.reports, str(exc)), None
        name, claimed = comp.name, None
        note = comp.describe()
    else:
        from ldpaudit.mechanism.loader import load_budgeted

        family, mech = load_budgeted(spec, params, example=not params)
        if mech.parameters:  # the parameters not given on the line take the spec's example values
            rest = {k: v for k, v in family.example if k in mech.parameter_names}
            mech = mech.bind(rest) if rest else mech
        if _is_density(mech):
            from ldpaudit.account.density import compute_density

            return compute_density(mech, reports=reports, epsilon=_epsilon(epsilon, mech.claimed_epsilon), grid=step,
                                   curve=curve)
        from ldpaudit.account.numbers import NotInField

        try:
            single = pf.view(mech)
        except NotInField as exc:
            return _enclosed(mech, reports, _epsilon(epsilon, mech.claimed_epsilon), step, str(exc))
        try:
            v = pf.view(mech, reports=reports) if reports > 1 else single
        except P.SupportTooLarge as exc:
            fallback, v = (single, reports, str(exc)), None
        name, claimed, note = mech.name, mech.claimed_epsilon, None
    if fallback is not None:
        return _discretized(name, fallback, _epsilon(epsilon, claimed), step, note)
    eps = _epsilon(epsilon, claimed)
    at = pf.delta_at(v, eps)
    prof = pf.profile(v)
    return _exact_payload(name, single, v, at, prof, eps, note)


def _is_density(mech) -> bool:
    from ldpaudit.verify.density_delta import applies

    return applies(mech)


def _discretized(name, fallback, eps, step, note) -> dict:
    """The payload when the exact support explodes: a proven upper bound ``delta_upper``."""
    from ldpaudit.account import discrete as D
    from ldpaudit.account import profile as pf

    single, rounds, reason = fallback
    step = step or D.default_step(single.classes, rounds)
    up = D.view_delta_upper(single.classes, rounds, eps, step)
    eps0 = pf.tight_epsilon(single)
    return {
        "mechanism": name,
        "reports": rounds * single.reports,
        "rounds": rounds,
        "epsilon": str(eps),
        "exact": False,
        "delta": None,
        "delta_float": None,
        "delta_upper": up.delta_upper,
        "grid_step": step,
        "grid_points": up.support,
        "method": "pessimistic discretized privacy-loss distribution: every loss rounded up to the grid, masses "
                  "rounded up, direct convolution with its float error bounded and added (an upper bound on δ)",
        "reason": reason,
        "worst_pairs": [list(map(str, p)) for p in up.pairs[:10]],
        "single_report_epsilon": str(eps0),
        "basic_composition_epsilon": str(rounds * eps0),
        "notes": ([note] if note else []) + [f"{rounds} round(s) of the one-round view ({single.reports} report(s) each)"],
    }


def _enclosed(mech, reports, eps, step, reason) -> dict:
    """Entries outside Q(e^c): a proven upper bound from interval enclosures of the entries."""
    from ldpaudit.account import discrete as D

    up = D.enclosed_delta_upper(mech, reports, eps, step)
    return {
        "mechanism": mech.name,
        "reports": reports,
        "epsilon": str(eps),
        "exact": False,
        "delta": None,
        "delta_float": None,
        "delta_upper": up.delta_upper,
        "grid_step": up.step,
        "grid_points": up.support,
        "method": "pessimistic discretized PLD from interval enclosures of the entries (losses and masses rounded up), "
                  "direct convolution with its float error bounded (an upper bound on δ)",
        "reason": reason,
        "worst_pairs": [list(map(str, p)) for p in up.pairs[:10]],
        "single_report_epsilon": f"{mech.claimed_epsilon} (claimed, not proved here)",
        "basic_composition_epsilon": None,
        "notes": [],
    }


def _memo_cap(comp, rounds, eps, reason) -> dict:
    """A memoized view too large to list: the permanent response's exact δ(ε) bounds it (every
    day's report is post-processing of the permanent response, a channel for every K)."""
    import math

    from ldpaudit.account import composition
    from ldpaudit.account import profile as pf

    perm = composition.permanent_view(comp)
    at = pf.delta_at(perm, eps)
    return {
        "mechanism": comp.name,
        "reports": rounds,
        "epsilon": str(eps),
        "exact": False,
        "delta": None,
        "delta_float": None,
        "delta_upper": math.nextafter(at.delta_float, math.inf) if at.delta_float > 0 else 0.0,
        "delta_upper_exact": str(at.delta),
        "grid_step": None,
        "grid_points": 0,
        "method": "memoization cap: the view over any number of rounds is post-processing of the permanent response "
                  "(data-processing inequality), so its exact δ(ε) bounds the view's",
        "reason": reason,
        "worst_pairs": [list(map(str, p)) for p in at.pairs[:10]],
        "single_report_epsilon": str(pf.tight_epsilon(comp.view(1))),
        "basic_composition_epsilon": None,
        "permanent_epsilon": str(pf.tight_epsilon(perm)),
        "notes": [comp.describe()],
    }


def _epsilon(epsilon, claimed):
    import sympy as sp

    from ldpaudit.mechanism.options import option_exact

    if epsilon is None:
        eps = claimed if claimed is not None and claimed.is_number else sp.Integer(1)
    else:
        value = option_exact(epsilon, "--epsilon")
        eps = sp.Rational(value.numerator, value.denominator) if hasattr(value, "numerator") and not isinstance(value, sp.Basic) else value
        if not (eps.is_real and sp.N(eps) >= 0):
            from ldpaudit.errors import InvalidParameter

            raise InvalidParameter(f"--epsilon {epsilon!r} must be a real number >= 0, e.g. 1/2 or log(3)")
    return eps


def _float(x) -> float:
    import sympy as sp

    return float(x) if x.is_Rational else float(sp.N(x, 20))


def _breakpoint(b) -> dict:
    """e^ε = b, ε = log(b): rational b without sympy arithmetic (the same strings sympy prints)."""
    import mpmath
    import sympy as sp

    if b.is_Rational and b > 1 and b.q != 1:
        with mpmath.workdps(25):
            value = float(mpmath.log(mpmath.mpf(int(b.p)) / int(b.q)))
        return {"exp_epsilon": str(b), "epsilon": f"log({b})", "epsilon_float": value}
    return {"exp_epsilon": str(b), "epsilon": str(sp.log(b)), "epsilon_float": float(sp.N(sp.log(b), 20))}


def _exact_payload(name, single, v, at, prof, eps, note) -> dict:
    import sympy as sp

    from ldpaudit.account import profile as pf

    eps0 = pf.tight_epsilon(single)
    k = v.reports
    out = {
        "mechanism": name,
        "reports": k,
        "epsilon": str(eps),
        "delta": str(at.delta),
        "delta_float": at.delta_float,
        "worst_pairs": [list(map(str, p)) for p in at.pairs[:10]],
        "worst_pairs_count": len(at.pairs),
        "tight_epsilon": str(prof.tight_epsilon),
        "tight_epsilon_float": float(prof.tight_epsilon) if prof.tight_epsilon != sp.oo else None,
        "single_report_epsilon": str(eps0),
        "breakpoints": [_breakpoint(b) for b in prof.breakpoints],
        "pieces": [{"pair": list(map(str, pair)),
                    "pieces": [{"exp_epsilon_from": str(q.t_low), "exp_epsilon_to": None if q.t_high is None else str(q.t_high),
                                "delta": f"{q.a} - exp(epsilon)*({q.b})"} for q in pieces]}
                   for pair, pieces in prof.pieces],
        "worst_pair_proved": prof.worst is not None,
        "tradeoff": {"pair": list(map(str, (prof.worst or v.classes[0]).pairs[0])),
                     "vertices": [{"alpha": str(a), "beta": str(b), "alpha_float": _float(a),
                                   "beta_float": _float(b)} for a, b in prof.tradeoff]},
        "pair_classes": len(v.classes),
        "notes": prof.notes + ([note] if note else []),
    }
    if k > 1 and note is None:
        basic = pf.basic_composition(single, k, eps)
        adv = pf.advanced_composition(eps0, k, eps)
        out["basic_composition"] = {"delta": str(basic), "delta_float": float(sp.N(basic, 20))}
        out["advanced_composition"] = None if adv is None else {"delta": str(adv), "delta_float": float(sp.N(adv, 20))}
        out["basic_composition_epsilon"] = str(k * eps0)
    return out


def render_text(r: dict) -> str:
    if r.get("delta") is None and "delta_upper" in r:
        lines = [f"{r['mechanism']}: {r['reports']} report(s); no exact value ({r['reason']})",
                 f"  δ({r['epsilon']}) <= {r['delta_upper']:.9g}  (delta_upper: " +
                 (f"pessimistic discretized PLD, grid step {r['grid_step']:g}, {r['grid_points']:,} grid points"
                  if r["grid_step"] else f"the permanent response's δ = {r.get('delta_upper_exact')}") +
                 "; a proven upper bound, not the exact value)",
                 f"  single-report ε = {r['single_report_epsilon']}" +
                 (f"; basic composition: ({r['basic_composition_epsilon']}, 0)" if r["basic_composition_epsilon"]
                  else f"; cap: the permanent response's ε = {r['permanent_epsilon']}" if "permanent_epsilon" in r else "")]
        return "\n".join(lines + [f"  note: {n}" for n in r["notes"]]) + "\n"
    if r.get("kind") == "density":
        from ldpaudit.account.density import render_density

        return render_density(r)
    lines = [f"{r['mechanism']}: {r['reports']} report(s); {r['pair_classes']} class(es) of ordered input pairs"]
    lines.append(f"  δ({r['epsilon']}) = {r['delta']}  ≈ {r['delta_float']:.6g}   worst pair x, x' = "
                 f"{', '.join(r['worst_pairs'][0]) if r['worst_pairs'] else '-'}")
    lines.append(f"  tight ε (δ = 0) = {r['tight_epsilon']}" +
                 (f" ≈ {r['tight_epsilon_float']:.6g}" if r["tight_epsilon_float"] is not None else ""))
    if "basic_composition" in r:
        lines.append(f"  basic composition: δ = {r['basic_composition']['delta_float']:.6g}; advanced: "
                     + ("n/a" if r["advanced_composition"] is None else f"{r['advanced_composition']['delta_float']:.6g}"))
    bps = r["breakpoints"]
    shown = ", ".join(f"{b['epsilon_float']:.6g}" for b in bps[:8]) + (", ..." if len(bps) > 8 else "")
    lines.append(f"  breakpoints of δ(ε) at ε = {shown or '(none)'} ({len(bps)})")
    for cls in r["pieces"][:3]:
        for q in cls["pieces"][:6]:
            lines.append(f"    e^ε in [{q['exp_epsilon_from']}, {q['exp_epsilon_to'] or 'oo'}]: δ = {q['delta']}")
    tv = r["tradeoff"]["vertices"]
    lines.append(f"  trade-off T(α) of pair {', '.join(r['tradeoff']['pair'])}: {len(tv)} vertices, "
                 + ", ".join(f"({v['alpha_float']:.4g}, {v['beta_float']:.4g})" for v in tv[:6]) + (" ..." if len(tv) > 6 else ""))
    for n in r["notes"]:
        lines.append(f"  note: {n}")
    return "\n".join(lines) + "\n"
