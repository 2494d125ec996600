"""Mixtures of unbiased real-valued reports, and reporting k sampled coordinates of d.

Wang et al.'s Hybrid mechanism (ICDE 2019, §III-C) reports with mechanism A with probability α
and with mechanism B otherwise. Both reports are unbiased for x, so the mixture is, and

    Var[z | x] = α E_A[z² | x] + (1 - α) E_B[z² | x] - x²,   E[z² | x] = Var[z | x] + x².

When both second moments are even quadratics in x, a x² + c, so is the mixture's variance, and
its worst case over |x| ≤ B is c(α) + max(0, a(α)) B²: the maximum of two functions linear in α,
convex, with one kink where a(α) = 0. Its minimum over α in [0, 1] is at 0, at 1 or at the kink;
which one, for every ε > 0, is decided exactly from the sign regions of the differences
(:mod:`ldpaudit.derive.exproots`), never on a grid.

The d-dimensional versions (§IV) sample k of the d coordinates, report each sampled one with
the one-dimensional mechanism at budget ε/k scaled by d/k, and the others as 0. Coordinate j is
sampled with probability k/d, so its report is unbiased and E[t_j² | x] = (d/k) E[z² | x] at ε/k:

    Var[t_j | x] = (d/k) E[z² | x]_{ε/k} - x².
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ldpaudit.derive.algebra import simplify
from ldpaudit.derive.exproots import S, ExactRoot, gap_points, exp_form, sign_regions
from ldpaudit.errors import NotDerivable

#: the mixing weight: the probability of reporting with the first mechanism
ALPHA = sp.Symbol("alpha", nonnegative=True)
#: dimensions and sampled coordinates of the d-dimensional mechanisms
DIMENSIONS = sp.Symbol("d", positive=True, integer=True)
SAMPLED = sp.Symbol("k", positive=True, integer=True)


def even_quadratic(expr: sp.Basic, x: sp.Symbol) -> tuple[sp.Basic, sp.Basic]:
    """(a, c) with expr = a x² + c; NotDerivable when expr is not of that form."""
    expanded = sp.expand(expr)
    if not expanded.is_polynomial(x) or sp.degree(expanded, x) > 2:
        raise NotDerivable(f"{sp.sstr(expr)} is not a quadratic in {x}")
    poly = sp.Poly(expanded, x)
    if simplify(poly.coeff_monomial(x)) != 0:
        raise NotDerivable(f"{sp.sstr(expr)} has a term linear in {x}; the worst case over a symmetric interval "
                           "is not derived here")
    return simplify(poly.coeff_monomial(x**2)), simplify(poly.coeff_monomial(1))


@dataclass(frozen=True)
class Piece:
    """On ε in (low, high) (None: 0 or ∞) the worst case is smallest at α = ``weight``
    (``label``: "second", "first" or "kink"), where it equals ``worst``, attained ``where``."""

    low: ExactRoot | None
    high: ExactRoot | None
    label: str
    weight: sp.Basic
    worst: sp.Basic
    where: str


@dataclass(frozen=True)
class MixtureOptimum:
    variance: sp.Basic          # Var[z|x] of the mixture, in α and x
    x_squared: sp.Basic         # a(α)
    constant: sp.Basic          # c(α)
    kink: sp.Basic | None       # the α where a(α) = 0
    bound: sp.Basic
    pieces: tuple[Piece, ...]

    @property
    def thresholds(self) -> tuple[ExactRoot, ...]:
        return tuple(p.high for p in self.pieces if p.high is not None)


def mixture_variance(second_a: sp.Basic, second_b: sp.Basic, x: sp.Symbol, alpha: sp.Symbol = ALPHA) -> sp.Basic:
    """Var[z|x] of "A with probability α, else B" for unbiased reports A and B."""
    return alpha * second_a + (1 - alpha) * second_b - x**2


def optimal_mixture(second_a: sp.Basic, second_b: sp.Basic, x: sp.Symbol, bound: sp.Basic, eps: sp.Symbol,
                    alpha: sp.Symbol = ALPHA) -> MixtureOptimum:
    """The α in [0, 1] minimizing sup over |x| ≤ bound of the mixture's variance, for every ε > 0
    (see the module doc). The second moments are E[z²|x] of the two unbiased reports."""
    variance = mixture_variance(second_a, second_b, x, alpha)
    a, c = even_quadratic(variance, x)
    kinks = sp.solve(a, alpha) if a.has(alpha) else []
    kink = simplify(kinks[0]) if len(kinks) == 1 else None
    options = {"second": sp.Integer(0), "first": sp.Integer(1)}
    if kink is not None:
        options["kink"] = kink
    b2 = sp.sympify(bound) ** 2
    variants = {}  # (option, where) -> worst-case candidate value
    for name, value in options.items():
        at_zero = simplify(c.xreplace({alpha: value}))
        at_bound = simplify((c + a * b2).xreplace({alpha: value}))
        variants[(name, "x = 0")] = at_zero
        variants[(name, "|x| = bound")] = at_bound
    deciding = [a.xreplace({alpha: 0}), a.xreplace({alpha: 1})]
    if kink is not None:
        deciding += [kink, 1 - kink]
    values = list(variants.values())
    deciding += [values[i] - values[j] for i in range(len(values)) for j in range(i + 1, len(values))]
    scale = 1
    for e in deciding:
        scale = sp.ilcm(scale, exp_form(e, eps).scale)
    forms = {key: exp_form(v, eps, scale).rational for key, v in variants.items()}
    kink_form = exp_form(kink, eps, scale).rational if kink is not None else None
    roots = _merged_roots([r for e in deciding for r in sign_regions(e, eps, scale).roots])
    pieces: list[Piece] = []
    bounds = [None, *roots, None]
    for i, q in enumerate(gap_points([r.s_interval for r in roots])):
        worst = {}
        for name in options:
            if name == "kink" and not (0 <= kink_form.xreplace({S: q}) <= 1):
                continue
            at = {where: forms[(name, where)].xreplace({S: q}) for where in ("x = 0", "|x| = bound")}
            worst[name] = max(at.values()), at
        best = min(worst, key=lambda n: worst[n][0])
        at = worst[best][1]
        where = ("every x" if at["x = 0"] == at["|x| = bound"] else max(at, key=at.get))
        value = variants[(best, "x = 0" if where == "every x" else where)]
        piece = Piece(bounds[i], bounds[i + 1], best, options[best], value, where)
        if pieces and pieces[-1].label == best and pieces[-1].where == where:
            pieces[-1] = Piece(pieces[-1].low, piece.high, best, options[best], value, where)
        else:
            pieces.append(piece)
    return MixtureOptimum(variance, a, c, kink, sp.sympify(bound), tuple(pieces))


def _merged_roots(roots: list[ExactRoot]) -> list[ExactRoot]:
    """Distinct roots, increasing; two roots of the same irreducible polynomial with overlapping
    intervals are one root. Distinct roots whose intervals overlap are refused (never guessed)."""
    out: list[ExactRoot] = []
    for r in sorted(roots, key=lambda r: r.s_interval[0]):
        if out and r.s_interval[0] <= out[-1].s_interval[1]:
            if r.polynomial.monic() == out[-1].polynomial.monic():
                continue
            raise NotDerivable(f"two roots could not be separated: {r.root} and {out[-1].root}")
        out.append(r)
    return out


@dataclass(frozen=True)
class SampledCoordinate:
    """One coordinate of the "k of d coordinates, each at ε/k, scaled by d/k" mechanism."""

    mean: sp.Basic
    second_moment: sp.Basic
    variance: sp.Basic
    x_squared: sp.Basic   # coefficient of x² in the variance
    constant: sp.Basic

    def worst(self, bound: sp.Basic = 1) -> sp.Basic:
        """sup over |x| ≤ bound: at x = 0 or at |x| = bound (an even quadratic)."""
        return sp.Max(self.constant, self.constant + self.x_squared * sp.sympify(bound) ** 2)


def sampled_coordinate(mean_1d: sp.Basic, second_1d: sp.Basic, x: sp.Symbol, eps: sp.Symbol,
                       d: sp.Symbol = DIMENSIONS, k: sp.Symbol = SAMPLED) -> SampledCoordinate:
    """E, E[·²] and Var of one coordinate's report, from the one-dimensional report's mean and
    second moment (functions of ε and x) and the sampling step."""
    keep = k / d                       # probability that the coordinate is one of the k sampled
    scaled = d / k                     # the factor a sampled coordinate's report is multiplied by
    mean = simplify(keep * scaled * mean_1d.xreplace({eps: eps / k}))
    second = simplify(keep * scaled**2 * second_1d.xreplace({eps: eps / k}))
    if simplify(mean - x) != 0:
        raise NotDerivable(f"the sampled report has mean {sp.sstr(mean)}, not {x}: the one-dimensional report is biased")
    variance = second - x**2
    a, c = even_quadratic(variance, x)
    return SampledCoordinate(mean, second, simplify(variance), a, c)
