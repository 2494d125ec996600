"""``ldpaudit optimize --objective mi|kl|tv|chi2|hellinger -p d=6 -p epsilon=1 [--prior uniform|w1,w2,...]
[--alternative uniform|w1,w2,...] [--json] [--out spec.toml]``: the optimal ε-LDP mechanism for a
sublinear utility (mutual information under a prior, or an f-divergence between the output laws of
two input distributions), with a certified optimum.

CLI glue only: parse, call :func:`ldpaudit.extremal.staircase.certify`, compare with Wang et al.'s
Theorem 2.1 under the uniform prior, render, write the mechanism as a spec. Exit 0 when the optimum
is proved, 1 when the theorem comparison finds a mechanism that beats max_k I_k, 3 when the
certificate cannot be completed, 2 on bad input.
"""

from __future__ import annotations

import json
import sys

from ldpaudit.errors import InvalidParameter, InvalidSpec

ALLOWED = ("d", "epsilon")


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "optimize",
        help="the optimal ε-LDP mechanism for mutual information or an f-divergence, by LP over staircase patterns, "
             "with a certificate",
        description="Solve Kairouz, Oh & Viswanath's staircase linear program for the ε-LDP mechanism on d inputs "
        "that maximizes a sublinear utility (mutual information under a prior; the KL, total variation, χ² or squared "
        "Hellinger divergence between the output laws of two input distributions), then prove the optimum: exact "
        "primal weights in Q(e^ε), a rational dual checked against all 2^d patterns with interval enclosures of "
        "the logarithms. Prints the proved bracket [lower, upper] and the optimal mechanism; under the uniform "
        "prior also compares with the best k-subset mechanism (Wang et al. Thm 2.1).",
    )
    p.add_argument("--objective", default="mi",
                   help="the utility to maximize: mi (mutual information; default), or a divergence between the output "
                        "laws of --prior and --alternative: kl, tv, chi2, hellinger")
    p.add_argument("-p", "--param", action="append", metavar="NAME=VALUE",
                   help="d (number of inputs, 2..16) and epsilon (exact: 1, 1/2, log(3)); repeatable")
    p.add_argument("--prior", default="uniform",
                   help="the input distribution (P0 for a divergence): uniform (default) or d exact weights, "
                        "e.g. 1/2,1/4,1/4")
    p.add_argument("--alternative", metavar="WEIGHTS",
                   help="the second input distribution P1 of a divergence objective: uniform or d exact weights")
    p.add_argument("--out", metavar="SPEC.toml", help="write the optimal mechanism as a spec file (checked before the "
                                                       "LP is solved; an existing file only with --force)")
    p.add_argument("--force", action="store_true", help="let --out overwrite an existing file")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def _parse(args):
    from ldpaudit.mechanism.expr import parse_expression
    from ldpaudit.mechanism.loader import parse_assignments

    values = parse_assignments(args.param)
    for name in values:
        if name not in ALLOWED:
            raise InvalidParameter(f"-p {name}: optimize takes only -p d=... and -p epsilon=...")
    for name in ALLOWED:
        if name not in values:
            raise InvalidParameter(f"-p {name} is missing; write e.g. -p d=6 -p epsilon=1")

    def exact(name):
        v = values[name]
        if isinstance(v, str):
            try:
                return parse_expression(v, {}, field=f"-p {name}")
            except InvalidSpec as exc:
                raise InvalidParameter(str(exc)) from None
        import sympy as sp

        return sp.Rational(v.numerator, v.denominator)

    return exact("d"), exact("epsilon"), _weights(args.prior, "--prior"), _weights(args.alternative, "--alternative")


def _weights(text, option):
    """``uniform``, None (not given) or a list of exact weights from ``w1,w2,...``."""
    if text is None or text == "uniform":
        return text
    from ldpaudit.mechanism.expr import exact_decimal

    weights = []
    for part in text.split(","):
        w = exact_decimal(part.strip())
        if w is None:
            raise InvalidParameter(f"{option} weight {part.strip()!r} is not an exact number; write e.g. 1/3 or 0.25")
        weights.append(w)
    return weights


def run(args) -> int:
    d, epsilon, prior, alternative = _parse(args)
    if args.out:  # before the computation, whose result would otherwise be lost
        from ldpaudit.mechanism.options import check_output_path

        check_output_path(args.out, "--out", force=args.force)
    from ldpaudit.extremal.staircase import OBJECTIVES, certify, mechanism, pattern_text, problem

    if args.objective not in OBJECTIVES:
        raise InvalidParameter(f"--objective {args.objective!r} is unknown; objectives: {', '.join(OBJECTIVES)}")
    prob = problem(d, epsilon, prior=prior, objective=args.objective, alternative=alternative)
    opt = certify(prob)
    comparison = None
    if opt.status == "PROVED" and prob.uniform and prob.objective == "mi":
        from ldpaudit.extremal.theorems import compare_wang_21

        comparison = compare_wang_21(opt)
    written = None
    if args.out and opt.status == "PROVED":
        from ldpaudit.mechanism.loader import dumps_spec

        from ldpaudit.mechanism.options import write_output

        write_output(args.out, dumps_spec(mechanism(opt)), "--out", force=args.force)
        written = args.out
    verdict = "UNKNOWN" if opt.status != "PROVED" else ("REFUTED" if comparison and comparison.verdict == "BEATEN" else "PROVED")
    code = {"PROVED": 0, "REFUTED": 1, "UNKNOWN": 3}[verdict]
    if args.json:
        from ldpaudit.schema import envelope

        import sympy as sp

        body = {"objective": prob.objective, "d": prob.d, "epsilon": sp.sstr(prob.epsilon),
                "prior": "uniform" if prob.uniform else [str(w) for w in prob.prior], "status": opt.status}
        if prob.alternative is not None:
            body["alternative"] = [str(w) for w in prob.alternative]
        if opt.status == "PROVED":
            body.update({"lower": str(opt.lower), "upper": str(opt.upper), "value": opt.value,
                         "width": float(opt.width), "precision_bits": opt.bits,
                         "mechanism": [{"pattern": pattern_text(c.pattern, prob.d), "weight": sp.sstr(c.weight)}
                                       for c in opt.columns],
                         "dual": [str(v) for v in opt.dual]})
        else:
            body["reason"] = opt.reason
        body["float_value"] = opt.float_value
        body["seconds"] = {k: round(v, 4) for k, v in opt.seconds.items()}
        if comparison is not None:
            body["wang_theorem_2_1"] = comparison.row()
        if written:
            body["spec"] = written
        print(json.dumps(envelope("optimize", verdict, body), indent=2, ensure_ascii=False))
        return code
    print(render(opt, comparison))
    if written:
        print(f"wrote {written}")
    return code


def render(opt, comparison=None) -> str:
    import sympy as sp

    from ldpaudit.extremal.staircase import OBJECTIVES, pattern_text

    p = opt.problem
    prior = "uniform prior" if p.uniform else f"prior ({', '.join(map(str, p.prior))})"
    if p.alternative is not None:
        prior = f"P0 = {'uniform' if p.uniform else '(' + ', '.join(map(str, p.prior)) + ')'}, " \
                f"P1 = ({', '.join(map(str, p.alternative))})"
    if opt.status != "PROVED":
        return (f"UNKNOWN: the optimum of {OBJECTIVES[p.objective]} at d = {p.d}, ε = {sp.sstr(p.epsilon)} could not "
                f"be certified: {opt.reason} (the float LP says {opt.float_value!r}, which proves nothing)")
    lines = [f"PROVED: the largest {OBJECTIVES[p.objective]} of any ε-LDP mechanism on d = {p.d} inputs, "
             f"ε = {sp.sstr(p.epsilon)}, {prior}, is {opt.value:.17g}",
             f"  proved bracket [{float(opt.lower):.17g}, {float(opt.upper):.17g}], width {float(opt.width):.2g} "
             f"(exact rational ends; primal exact in Q(e^ε), dual checked on all {2**p.d} patterns at {opt.bits} bits)",
             f"optimal mechanism: {len(opt.columns)} outputs, Q(y|x) = θ_y · (e^ε if pattern_y[x] = t else 1):"]
    for y, c in enumerate(opt.columns):
        lines.append(f"  y = {y}: pattern {pattern_text(c.pattern, p.d)}  θ = {sp.sstr(c.weight)}")
    if comparison is not None:
        lines.append(f"Wang et al. Thm 2.1 (best k-subset): max_k I_k = "
                     f"{float((comparison.theorem_lower + comparison.theorem_upper) / 2):.17g} at {comparison.attained_by}: "
                     f"{comparison.verdict} (hull of both enclosures {float(comparison.hull_width):.2g} wide)")
    return "\n".join(lines)
