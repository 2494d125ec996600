"""``ldpaudit amplify``: the central (ε, δ) after shuffling n users' reports of a spec.

Exit codes: 0 bounds computed; 2 bad input (n < 2, δ outside (0, 1), an unknown spec, unbound
parameters, a finite channel that is not pure LDP); 3 when no rigorous upper bound could be
computed (the float error allowance exceeds δ, or a density channel with no proved finite ε0
that is not Gaussian). Density channels with Gaussian noise (specs/gaussian.toml) are handled
by :mod:`ldpaudit.account.gaussian_shuffle` (one report's ε, truncation then clones, the privacy
blanket; lower bounds from the sum and from a count); other density channels (Laplace,
Piecewise, Square Wave) by :mod:`ldpaudit.account.density_shuffle` (ε0 proved by verify, the
generic clone bound; a count lower bound).
"""

from __future__ import annotations

import argparse
import json
import math
from fractions import Fraction

from ldpaudit.errors import InvalidParameter
from ldpaudit.mechanism.options import add_load_budget, load_budget, option_exact, option_seed

EPILOG = """\
bounds (all at the given δ):
  epsilon_generic  Feldman, McMillan & Talwar's numerical clone bound from ε0 alone (any ε0-LDP
                   randomizer: clones with probability e^-ε0)
  epsilon_channel  the same reduction with the clone probability the channel itself admits,
                   2 p* with p* = min Q(y|x) / (Q(y|x0) + Q(y|x1)) (exact, from the channel)
  epsilon_blanket  the privacy-blanket bound (Balle et al. 2019; Su, Cheng & Wang 2025)
  epsilon_upper    the best of the proved upper bounds
  epsilon_exact    small n: the exact worst-case ε by enumeration of the output histograms
  epsilon_lower    the best rigorous lower bound (exact value, or one dataset seen through one count)
  epsilon_empirical small n: a sampled Clopper-Pearson lower bound at confidence 1 - alpha

Gaussian mechanism (a density spec with Gaussian noise, not pure LDP): epsilon_generic is null;
  epsilon_local      one report's exact ε at δ (shuffling is post-processing)
  epsilon_truncated  the report clipped to [low - T, high + T] is ε0(T)-LDP; FMT's clone bound for
                     it, with the clipping's total variation charged to δ
  epsilon_blanket    the privacy blanket for every target pair: the end pair's divergence by FFT,
                     the monotone region by the end pair, close pairs by one report or a chain
  epsilon_lower      the larger of the sum of the n reports' ε and a count above a threshold

Other density specs (Laplace, Piecewise, Square Wave: pure ε0-LDP): epsilon_local = ε0 (proved by
  verify), epsilon_generic from it, epsilon_lower a count above a threshold; no blanket bound.

exit status: 0 ok; 2 bad input; 3 no rigorous upper bound at this δ.
"""


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "amplify",
        help="the central (ε, δ) after shuffling n reports: generic FMT bound, channel bound, lower bounds",
        description="Privacy amplification by shuffling for a finite spec (or a density spec: Gaussian noise, or "
                    "pure ε0-LDP such as Laplace and Piecewise): "
                    "upper bounds (generic and from the channel), the exact value at small n, and lower bounds, "
                    "side by side.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("spec", help="a spec file (.toml) or a catalog name such as krr")
    p.add_argument("-p", "--param", action="append", metavar="NAME=VALUE", help="bind a parameter exactly (repeatable)")
    p.add_argument("--n", required=True, metavar="N", help="number of users whose reports are shuffled (>= 2)")
    p.add_argument("--delta", required=True, metavar="D", help="the central δ, in (0, 1), e.g. 1e-8")
    p.add_argument("--exact", action=argparse.BooleanOptionalAction, default=None,
                   help="enumerate the exact small-n value (default: when n <= 8 and the enumeration is small)")
    p.add_argument("--samples", type=int, default=None, metavar="M",
                   help="draws per dataset of the sampled lower bound (default 20000 when n <= 8, else off)")
    p.add_argument("--alpha", type=float, default=0.05, help="false-alarm probability of the sampled bound (0.05)")
    p.add_argument("--seed", type=option_seed, default=0, help="seed of the sampled bound, a non-negative integer (0)")
    add_load_budget(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)
    return p


def parse_n(text) -> int:
    raw = str(text).strip()
    try:
        value = Fraction(raw) if raw.replace("e", "").replace("E", "").replace("+", "").isdigit() else None
        if value is None and "**" in raw:
            base, power = raw.split("**")
            value = Fraction(int(base) ** int(power))
    except (ValueError, ZeroDivisionError):
        value = None
    if value is None or value.denominator != 1:
        raise InvalidParameter(f"--n {raw!r} is not a whole number of users; write e.g. --n 1000000 or --n 1e6")
    return int(value)


def parse_delta(text) -> float:
    value = option_exact(text, "--delta")
    try:
        number = float(value)
    except TypeError:
        raise InvalidParameter(f"--delta {text!r} is not a number; give a probability such as 1e-8") from None
    if not 0 < number < 1:
        raise InvalidParameter(f"--delta {text} is outside (0, 1); give a probability such as 1e-8")
    return number


def run(args) -> int:
    from ldpaudit.account.amplify import SMALL_N, amplify
    from ldpaudit.account.shuffle import check_inputs
    from ldpaudit.mechanism.loader import load_budgeted

    n = parse_n(args.n)
    delta = parse_delta(args.delta)
    check_inputs(n, delta)
    if not 0 < args.alpha < 1:
        raise InvalidParameter(f"--alpha {args.alpha} is outside (0, 1); e.g. --alpha 0.05")
    _, mech = load_budgeted(args.spec, args.param, **load_budget(args))
    from ldpaudit.verify.density_delta import applies

    if applies(mech):   # a density channel: Gaussian noise (not pure LDP), or a pure ε0-LDP density
        from ldpaudit.account import density_shuffle, gaussian_shuffle
        from ldpaudit.account.density import gaussian_scale

        gaussian = not mech.parameters and gaussian_scale(mech) is not None
        return _run_continuous(args, gaussian_shuffle if gaussian else density_shuffle, mech, n, delta)
    samples = args.samples if args.samples is not None else (20_000 if n <= SMALL_N else 0)
    if samples < 0:
        raise InvalidParameter(f"--samples {samples} is negative; give a number of draws such as 20000, or 0")
    result = amplify(mech, n, str(args.delta) if _plain_decimal(args.delta) else delta, exact=args.exact,
                     samples=samples, alpha=args.alpha, seed=args.seed)
    code = 0 if result.rigorous else 3
    if args.json:
        from ldpaudit.schema import envelope

        print(json.dumps(envelope("amplify", "OK" if code == 0 else "UNKNOWN", result.to_json()), indent=2))
        return code
    print(_render(result))
    return code


def _run_continuous(args, module, mech, n: int, delta: float) -> int:
    """A density channel shuffled (``module``: gaussian_shuffle or density_shuffle, each with an
    ``amplify`` and a ``render``): 0 with a proved upper bound, else 3."""
    if args.exact or args.samples:
        raise InvalidParameter("--exact and --samples apply to finite channels; a density channel has a "
                               "continuous output (drop them)")
    result = module.amplify(mech, n, delta)
    code = 0 if result.rigorous else 3
    if args.json:
        from ldpaudit.schema import envelope

        print(json.dumps(envelope("amplify", "OK" if code == 0 else "UNKNOWN", result.to_json()), indent=2,
                         ensure_ascii=False))
        return code
    print(module.render(result))
    return code


def _plain_decimal(text) -> bool:
    try:
        float(str(text))
        return True
    except ValueError:
        return False


def _fmt(value) -> str:
    if value is None:
        return "not computed"
    if not math.isfinite(value):
        return "none (float allowance exceeds δ)"
    return f"{value:.6g}"


def _render(r) -> str:
    lines = [
        f"{r.mechanism}: n = {r.n} shuffled reports, δ = {r.delta:g}; local ε0 = {r.epsilon0_exact} "
        f"({r.epsilon0:.6g}), clone p* = {r.clone_p}",
        f"  epsilon_upper     {_fmt(r.epsilon_upper)}   best proved upper bound",
        f"  epsilon_generic   {_fmt(r.epsilon_generic)}   FMT clones from ε0 alone (p = e^-ε0/2)",
        f"  epsilon_channel   {_fmt(r.epsilon_channel)}   clones the channel admits (p* = {r.clone_p})",
        f"  epsilon_blanket   {_fmt(r.epsilon_blanket)}   privacy blanket (Balle et al.; optimal decomposition)",
    ]
    if r.epsilon_exact is not None:
        w = r.exact_witness
        lines.append(f"  epsilon_exact     {_fmt(r.epsilon_exact)}   = {r.epsilon_exact_text}; worst pair "
                     f"x0={w['x0']}, x1={w['x1']}, others {w['others']} ({w['datasets']} datasets, {w['arithmetic']})")
    lines.append(f"  epsilon_lower     {_fmt(r.epsilon_lower)}   best rigorous lower bound "
                 f"(projection: {_fmt(r.epsilon_projection)})")
    if r.epsilon_empirical is not None:
        e = r.empirical
        lines.append(f"  epsilon_empirical {_fmt(r.epsilon_empirical)}   sampled, confidence {e['confidence']:g}, "
                     f"{e['samples_per_dataset']} draws per dataset")
    for note in r.notes:
        lines.append(f"  note: {note}")
    return "\n".join(lines)
