"""``ldpaudit profile SPEC [-p name=value ...] [--reports K] [--epsilon E] [--curve] [--json] [--plot out.png]``.

δ at one ε of a finite channel, exactly, for one report or K independent reports, beside basic
and advanced composition; ``--curve`` adds the whole exact profile δ(ε) (piecewise in e^ε,
breakpoints at the likelihood ratios), the worst pair proved for every ε, and the f-DP
trade-off curve. SPEC may also be a composition file (``[composition]``, see
:mod:`ldpaudit.account.composition`).

The exact K-fold convolution has a work budget (``--work-budget``, in work units: products of
two mass terms, predicted before it starts, never seconds): past it the answer is a pair of
proven bounds lower <= δ(ε) <= upper from the discretized privacy-loss distribution
(:mod:`ldpaudit.account.bounds`), and the output says so, with the grid and the reason. Exit 0
with a value or bounds, 2 on bad input, 3 when the channel's numbers are outside what is decided
exactly (UNKNOWN with the reason). Density channels (Laplace, Gaussian) give the whole δ(ε) in
closed form (``curve``: pieces, breakpoints, sample points), derived from the density
(:func:`ldpaudit.account.density.profile_curve`).
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
    p.add_argument("--curve", action="store_true",
                   help="also the whole exact δ(ε) curve: its breakpoints and pieces, the worst pair proved for every "
                        "ε, the trade-off curve T(α) (not needed for δ at one ε; --plot implies it)")
    p.add_argument("--json", action="store_true", help="machine-readable output, exact strings and floats")
    p.add_argument("--plot", metavar="OUT.png", help="plot δ(ε) and T(α) into a PNG file (implies --curve)")
    p.add_argument("--work-budget", default=None, metavar="UNITS",
                   help="work budget of the exact K-fold convolution, in work units (products of two mass terms, "
                        "predicted before it starts); past it δ is given as proven bounds [lower, upper] from the "
                        "discretized privacy-loss distribution (default 200,000)")
    p.add_argument("--grid", default=None, metavar="H",
                   help="grid step of the discretized PLD of the bounds (rounded down to a power of 2; default: the "
                        "losses' own lattice when they have one, else the finest grid within the bounds' work budget)")
    p.set_defaults(func=run)


#: the most reports composed: the bounds' plan walks every n < K (about 20 CPU s at 10^7)
MAX_REPORTS = 10**7


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
    if k > MAX_REPORTS:
        raise InvalidParameter(f"--reports {text}: at most {MAX_REPORTS:,} reports (planning the composition of K "
                               f"reports takes work linear in K, before any budget applies: about 20 CPU s at 10^7, "
                               f"where the bounds already need more than their work budget); give a smaller K")
    return k


def run(args) -> int:
    from ldpaudit.account.numbers import Unsupported
    from ldpaudit.verify.density_delta import NotDerived

    reports = _reports(args.reports)
    budget = _work_budget(getattr(args, "work_budget", None))
    try:
        result = compute(args.spec, args.param, reports=reports, epsilon=args.epsilon, grid=getattr(args, "grid", None),
                         curve=bool(getattr(args, "curve", False) or args.plot), work_budget=budget)
    except (Unsupported, NotDerived) as exc:  # could not decide: UNKNOWN with the reason, exit 3
        if args.json:
            from ldpaudit.schema import envelope

            print(json.dumps(envelope("profile", "UNKNOWN", {"reason": str(exc)}), indent=2, ensure_ascii=False))
        else:
            print(f"UNKNOWN: {exc}")
        return 3
    if args.plot and result.get("kind") == "density" and result.get("curve"):
        from ldpaudit.render.plots import plot_density_profile

        plot_density_profile(result, args.plot)
    elif args.plot and (result.get("delta") is None or result.get("kind") == "density"):
        print(f"note: --plot draws exact profiles (finite channels; density channels in closed form); not drawn "
              f"for {result['mechanism']!r} ({result.get('answer', 'upper bound')} only)", file=sys.stderr)
    elif args.plot:
        from ldpaudit.render.plots import plot_profile

        plot_profile(result, args.plot)
    if args.json:
        from ldpaudit.schema import envelope

        print(json.dumps(envelope("profile", "OK", result), indent=2, ensure_ascii=False, default=str))
    else:
        sys.stdout.write(render_text(result))
    return 0


def _work_budget(text):
    from ldpaudit.errors import InvalidParameter

    if text is None:
        return None
    try:
        units = int(str(text).replace(",", "").replace("_", "").strip())
    except ValueError:
        units = -1
    if units < 0:
        raise InvalidParameter(f"--work-budget {text!r} must be a whole number of work units >= 0, e.g. "
                               "--work-budget 1000000")
    return units


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


def compute(spec, params, *, reports: int = 1, epsilon=None, grid=None, curve: bool = False,
            work_budget: int | None = None) -> dict:
    """The JSON payload of ``ldpaudit profile``: δ at one ε, exactly while the K-fold convolution
    is within ``work_budget`` work units (None: :data:`ldpaudit.account.pld.MAX_PRODUCTS`), else
    proven bounds; ``curve`` adds the whole exact δ(ε) curve, the worst pair proved and the
    trade-off curve (for a density channel: its closed form)."""
    from ldpaudit.account import composition
    from ldpaudit.account import pld as P
    from ldpaudit.account import profile as pf

    step = _grid(grid)
    budget = P.MAX_PRODUCTS if work_budget is None else work_budget
    fallback = None  # (one-round view, rounds, exception) when the exact convolution is past its budget
    if composition.is_composition(spec):
        comp = composition.load_composition(spec, params)
        single = comp.view(1)
        rounds = reports * comp.reports
        try:
            if comp.mode == "memoized":  # a histogram view, not a K-fold convolution
                v = comp.view(rounds) if rounds > 1 else single
            else:
                v = pf.composed(single, rounds, budget=budget) if rounds > 1 else single
        except (P.SupportTooLarge, composition.TooManyHistograms) as exc:
            if comp.mode == "memoized":
                return _memo_cap(comp, rounds, _epsilon(epsilon, None), str(exc))
            fallback, v = (single, rounds, exc), None
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
            v = pf.composed(single, reports, budget=budget) if reports > 1 else single
        except P.SupportTooLarge as exc:
            fallback, v = (single, reports, exc), None
        name, claimed, note = mech.name, mech.claimed_epsilon, None
    eps = _epsilon(epsilon, claimed)
    if fallback is not None:
        out = _bounds_payload(name, fallback, eps, step, note, budget)
        if curve:
            out["notes"].append(f"no curve: the exact δ(ε) curve needs the exact {fallback[1]}-fold convolution, past "
                                f"the work budget of {budget:,} work units (raise it with --work-budget)")
        return out
    at = pf.delta_at(v, eps)
    prof = pf.profile(v) if curve else None
    return _exact_payload(name, single, v, at, prof, eps, note, budget)


def _is_density(mech) -> bool:
    from ldpaudit.verify.density_delta import applies

    return applies(mech)


def _bounds_payload(name, fallback, eps, step, note, budget) -> dict:
    """The payload past the work budget: proven bounds lower <= δ(ε) <= upper from the
    discretized PLD of each pair class (:mod:`ldpaudit.account.bounds`)."""
    import sympy as sp

    from ldpaudit.account import bounds as Bd
    from ldpaudit.account import profile as pf

    single, rounds, exc = fallback
    b = Bd.view_bounds(single.classes, rounds, eps, step)
    eps0 = pf.tight_epsilon(single)
    k = rounds * single.reports
    lattice = b.grid.kind == "lattice"
    out = {
        "mechanism": name,
        "reports": k,
        "rounds": rounds,
        "epsilon": str(eps),
        "answer": "bounds",
        "exact": False,
        "delta": None,
        "delta_float": None,
        "delta_lower": b.lower,
        "delta_upper": b.upper,
        "gap": b.upper - b.lower,
        "reason": str(exc),
        "work_budget": budget,
        "exact_work_at_least": getattr(exc, "work", None),
        "discretization": {
            "kind": b.grid.kind,
            "interval": b.grid.step,
            "interval_exact": b.grid.exact,
            "rounding": ("none: every loss is a multiple of the interval (the losses' lattice, decided on the exact "
                         "ratios); the bounds differ by float rounding only") if lattice else
                        "losses rounded down to the grid (lower bound) and up (upper bound); the gap is at most "
                        "δ(ε - K h) - δ(ε)",
            "grid_points": b.points,
            "multiply_adds": b.work,
            "tail_cut": Bd.TAIL,
            "pair_classes": len(single.classes),
            "other_grids": [{"kind": g.kind, "interval": g.step, "interval_exact": g.exact}
                            for g in b.grids if g != b.grid],
        },
        "grid_step": b.grid.step,
        "grid_points": b.points,
        "method": "discretized privacy-loss distribution both ways: losses rounded up and masses up (pessimistic, an "
                  "upper bound), losses rounded down and masses down (optimistic, a lower bound), K-fold direct "
                  "convolution with its float error bounded after every step (tails below "
                  f"{Bd.TAIL:g} moved outward)",
        "worst_pairs": [list(map(str, p)) for p in b.pairs[:10]],
        "tight_epsilon": str(rounds * eps0),
        "tight_epsilon_float": float(rounds * eps0) if eps0 != sp.oo else None,
        "single_report_epsilon": str(eps0),
        "basic_composition_epsilon": str(rounds * eps0),
        "notes": [note, f"{rounds} round(s) of the one-round view ({single.reports} report(s) each)"] if note else [],
    }
    if note is None:
        _compositions(out, single, k, eps, eps0)
    return out


def _enclosed(mech, reports, eps, step, reason) -> dict:
    """Entries outside Q(e^c): a proven upper bound from interval enclosures of the entries."""
    from ldpaudit.account import discrete as D

    up = D.enclosed_delta_upper(mech, reports, eps, step)
    return {
        "mechanism": mech.name,
        "reports": reports,
        "epsilon": str(eps),
        "answer": "upper bound",
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
        "answer": "upper bound",
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


def _compositions(out: dict, single, k: int, eps, eps0) -> None:
    """Basic and advanced composition beside the answer (K > 1 reports of one channel)."""
    import sympy as sp

    from ldpaudit.account import profile as pf

    if k > 1:
        basic = pf.basic_composition(single, k, eps)
        adv = pf.advanced_composition(eps0, k, eps)
        out["basic_composition"] = {"delta": str(basic), "delta_float": float(sp.N(basic, 20))}
        out["advanced_composition"] = None if adv is None else {"delta": str(adv), "delta_float": float(sp.N(adv, 20))}
        out["basic_composition_epsilon"] = str(k * eps0)


def _exact_payload(name, single, v, at, prof, eps, note, budget) -> dict:
    import sympy as sp

    from ldpaudit.account.numbers import readable, readable_piece
    from ldpaudit.render.text import human

    from ldpaudit.account import profile as pf

    eps0 = pf.tight_epsilon(single)
    tight = pf.tight_epsilon(v) if prof is None else prof.tight_epsilon
    k = v.reports
    out = {
        "mechanism": name,
        "reports": k,
        "epsilon": str(eps),
        "answer": "exact",
        "exact": True,
        "delta": str(at.delta),
        "delta_readable": readable(at.delta),
        "delta_float": at.delta_float,
        "work": v.work,
        "work_budget": budget,
        "worst_pairs": [list(map(str, p)) for p in at.pairs[:10]],
        "worst_pairs_count": len(at.pairs),
        "tight_epsilon": str(tight),
        "tight_epsilon_float": float(tight) if tight != sp.oo else None,
        "single_report_epsilon": str(eps0),
        "pair_classes": len(v.classes),
        "notes": list(v.notes) if prof is None else prof.notes,
    }
    if prof is not None:
        out.update({
            "breakpoints": [_breakpoint(b) for b in prof.breakpoints],
            "pieces": [{"pair": list(map(str, pair)),
                        "pieces": [{"exp_epsilon_from": str(q.t_low),
                                    "exp_epsilon_to": None if q.t_high is None else str(q.t_high),
                                    "epsilon_from": human(sp.log(q.t_low)),
                                    "epsilon_to": None if q.t_high is None else human(sp.log(q.t_high)),
                                    "delta": f"{q.a} - exp(epsilon)*({q.b})",
                                    "delta_readable": readable_piece(q.a, q.b)} for q in pieces]}
                       for pair, pieces in prof.pieces],
            "worst_pair_proved": prof.worst is not None,
            "tradeoff": {"pair": list(map(str, (prof.worst or v.classes[0]).pairs[0])),
                         "vertices": [{"alpha": str(a), "beta": str(b), "alpha_float": _float(a),
                                       "beta_float": _float(b)} for a, b in prof.tradeoff]},
        })
    out["notes"] = out["notes"] + ([note] if note else [])
    if note is None:
        _compositions(out, single, k, eps, eps0)
    return out


def _fmt(x: float) -> str:
    return f"{x:.15g}"


def _composition_line(r: dict) -> str:
    """The classical composition bounds beside the exact answer, each said to be vacuous when it
    is (a bound of 1 says nothing)."""
    def bound(value: float) -> str:
        return f"{value:.6g}" + (" (vacuous)" if value >= 1 else "")

    adv = r["advanced_composition"]
    return (f"  for comparison, composition theorems on the single report's ε = {r['single_report_epsilon']}: "
            f"basic K·δ1(ε/K) = {bound(r['basic_composition']['delta_float'])}; advanced (Dwork, Rothblum & "
            f"Vadhan) δ <= " + ("n/a: the single report is not pure ε-LDP" if adv is None else bound(adv["delta_float"])))


def render_text(r: dict) -> str:
    if r.get("answer") == "bounds":
        g = r["discretization"]
        how = (f"losses on their lattice λ = {g['interval_exact']} (every loss a multiple: no rounding, the bounds "
               f"differ by float rounding only)" if g["kind"] == "lattice" else
               f"grid h = {g['interval_exact']} ≈ {g['interval']:.6g}, losses rounded down (lower) and up (upper)")
        lines = [f"{r['mechanism']}: {r['reports']} report(s); BOUNDS, not the exact value: {r['reason']} "
                 f"(--work-budget)",
                 f"  {_fmt(r['delta_lower'])} <= δ({r['epsilon']}) <= {_fmt(r['delta_upper'])}  (gap {r['gap']:.2g}; "
                 f"proven bounds from the discretized privacy-loss distribution)",
                 f"  discretization: {how}; {g['grid_points']:,} grid points kept, {g['multiply_adds']:,} multiply-adds",
                 f"  tight ε (δ = 0) = {r['tight_epsilon']}" +
                 (f" ≈ {r['tight_epsilon_float']:.6g}" if r["tight_epsilon_float"] is not None else "") +
                 f"; single-report ε = {r['single_report_epsilon']}"]
        if "basic_composition" in r:
            lines.append(_composition_line(r))
        return "\n".join(lines + [f"  note: {n}" for n in r["notes"]]) + "\n"
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
    lines = [f"{r['mechanism']}: {r['reports']} report(s); {r['pair_classes']} class(es) of ordered input pairs; "
             f"EXACT (exact convolution: {r['work']:,} of {r['work_budget']:,} work units)" if r["reports"] > 1 else
             f"{r['mechanism']}: {r['reports']} report(s); {r['pair_classes']} class(es) of ordered input pairs; EXACT"]
    lines.append(f"  δ({r['epsilon']}) = {r.get('delta_readable') or r['delta']}  ≈ {r['delta_float']:.6g}   worst pair x, x' = "
                 f"{', '.join(r['worst_pairs'][0]) if r['worst_pairs'] else '-'}")
    lines.append(f"  tight ε (δ = 0) = {r['tight_epsilon']}" +
                 (f" ≈ {r['tight_epsilon_float']:.6g}" if r["tight_epsilon_float"] is not None else ""))
    if "basic_composition" in r:
        lines.append(_composition_line(r))
    if "breakpoints" in r:
        bps = r["breakpoints"]
        shown = ", ".join(f"{b['epsilon_float']:.6g}" for b in bps[:8]) + (", ..." if len(bps) > 8 else "")
        lines.append(f"  breakpoints of δ(ε) at ε = {shown or '(none)'} ({len(bps)})")
        for cls in r["pieces"][:3]:
            for q in cls["pieces"][:6]:
                lines.append(f"    ε in [{q['epsilon_from']}, {q.get('epsilon_to') or '∞'}): δ(ε) = "
                             f"{q.get('delta_readable') or q['delta']}")
        tv = r["tradeoff"]["vertices"]
        lines.append(f"  trade-off T(α) of pair {', '.join(r['tradeoff']['pair'])}: {len(tv)} vertices, "
                     + ", ".join(f"({v['alpha_float']:.4g}, {v['beta_float']:.4g})" for v in tv[:6])
                     + (" ..." if len(tv) > 6 else ""))
    else:
        lines.append("  the whole curve (breakpoints, pieces, worst pair for every ε, trade-off T(α)): --curve")
    for n in r["notes"]:
        lines.append(f"  note: {n}")
    return "\n".join(lines) + "\n"
