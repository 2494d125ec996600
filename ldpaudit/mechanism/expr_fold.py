"""Piecewise expressions kept small: folding nested ``Piecewise`` and conditional branches,
simplifying their conditions (CNF, single-variable inequalities), and substituting parameter
values through the same budget checks as parsing (:mod:`ldpaudit.mechanism.expr_budget`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping

import sympy as sp

from ldpaudit.errors import InvalidSpec
from ldpaudit.mechanism.expr_budget import MAX_PIECES, BudgetExceeded, apply_guarded, shown


def piecewise_fold(expr: sp.Basic, *, guarded: bool = True) -> sp.Basic:
    """``sympy.piecewise_fold(expr)`` (the same result) with every node it rebuilds built by
    :func:`apply_guarded`, and at most :data:`MAX_PIECES` pieces per fold.

    sympy folds ``f(Piecewise((a, c), (b, True)))`` into ``Piecewise((f(a), c), (f(b), True))``,
    evaluating ``f(a)`` unguarded: ``2**64 ** (2**64 if epsilon > 10 else 1)`` is harmless
    unevaluated but folds into a number of 2**70 bits; and the pieces multiply, so ``n`` of
    ``a if c else b`` added in one comparison fold into 2**n pieces. sympy folds every condition
    that contains a Piecewise when it builds a Piecewise, so the parser folds conditions here first.

    ``guarded=False`` is sympy's fold step for step, for expressions the parser has already
    bounded (a density whose ``abs(z - x)`` is rewritten as a Piecewise). Either way, conditions
    that are ``ITE``s are simplified by :func:`simplify_cnf` (sympy's result, faster).
    """
    from sympy.functions.elementary.piecewise import ExprCondPair
    from sympy.logic.boolalg import ITE
    from sympy.utilities.iterables import common_prefix, sift

    if not isinstance(expr, sp.Basic) or not expr.has(sp.Piecewise):
        return expr
    build = apply_guarded if guarded else (lambda func, args: func(*args))
    count = _count_pieces if guarded else (lambda n: None)

    def again(e):
        return piecewise_fold(e, guarded=guarded)

    pieces = []
    if isinstance(expr, ExprCondPair | sp.Piecewise):
        for e, c in expr.args:
            if not isinstance(e, sp.Piecewise):
                e = again(e)
            if isinstance(c, ITE):
                c = simplify_cnf(c.to_nnf())
            if isinstance(e, sp.Piecewise):
                pieces.extend((again(ei), sp.And(ci, c)) for ei, ci in e.args)
            else:
                pieces.append((e, c))
            count(len(pieces))
    else:
        if expr.is_Add or expr.is_Mul and expr.is_commutative:
            # Piecewise terms with the same conditions are combined piece by piece (as sympy does)
            p, args = sift(expr.args, lambda x: x.is_Piecewise, binary=True)
            pc = sift(p, lambda x: tuple(c for e, c in x.args))
            for c in list(sp.ordered(pc)):
                if len(pc[c]) > 1:
                    pargs = [list(i.args) for i in pc[c]]
                    com = common_prefix(*[[i.cond for i in j] for j in pargs])
                    n = len(com)
                    collected = [(build(expr.func, tuple(ai[i].expr for ai in pargs)), com[i]) for i in range(n)]
                    remains = []
                    for a in pargs:
                        if n == len(a):
                            continue
                        remains.append(a[n].expr if a[n].cond == True else sp.Piecewise(*a[n:], evaluate=False))  # noqa: E712
                    if remains:
                        collected.append((build(expr.func, tuple(remains)), True))
                    args.append(sp.Piecewise(*collected, evaluate=False))
                    continue
                args.extend(pc[c])
        else:
            args = expr.args
        folded = [again(a) for a in args]
        choices = [a.args if isinstance(a, sp.Piecewise) else [(a, sp.true)] for a in folded]
        count(math.prod(len(c) for c in choices))
        for ec in itertools.product(*choices):
            e, c = zip(*ec)
            pieces.append((build(expr.func, e), sp.And(*c)))
    out = sp.Piecewise(*pieces)
    if any(s.expr.has(sp.Piecewise) for q in out.atoms(sp.Piecewise) for s in q.args):
        return again(out)
    return out


def simplify_cnf(cond: sp.Basic) -> sp.Basic:
    """``sympy.simplify_logic(cond, form="cnf")``, the same result, without sympy's generic
    ``simplify`` of each relation when every relation is an inequality between linear
    polynomials with rational coefficients (:func:`simplified_inequality`): that ``simplify``
    samples the expression at random points and imports ``sympy.physics.units`` (together
    most of the cost of loading Square Wave's ``abs(z - x) <= b``)."""
    from sympy.logic.boolalg import is_cnf, is_literal, simplify_logic

    def quick(c) -> bool:  # simplify_logic returns a CNF of literals as it is
        return is_cnf(c) and all(is_literal(a) for a in c.args)

    if quick(cond):
        return cond
    table = {}
    for rel in cond.atoms(sp.core.relational.Relational):
        table[rel] = simplified_inequality(rel)
        if table[rel] is None:
            return simplify_logic(cond, form="cnf")
    relations_simplified = cond.xreplace(table)
    if quick(relations_simplified):  # sympy would go on to minimize it: let it
        return simplify_logic(cond, form="cnf")
    return simplify_logic(relations_simplified, form="cnf", deep=False)


def simplified_inequality(rel: sp.Basic) -> sp.Basic | None:
    """``sympy.simplify(rel)`` for an inequality between polynomials of degree <= 1 in real
    symbols with rational coefficients, by the steps of sympy's ``Relational._eval_simplify``
    that apply to one (such sides are already simplified, and a difference with a free symbol
    is not identically 0, so sympy's numeric zero test is skipped); None for any other relation."""
    from sympy.core.function import count_ops
    from sympy.polys.polytools import gcd
    from sympy.solvers.solveset import linear_coeffs

    if not isinstance(rel, (sp.Lt, sp.Le, sp.Gt, sp.Ge)) or not all(_linear_rational(side) for side in rel.args):
        return None
    if not (rel.lhs - rel.rhs).free_symbols:
        return None
    r = rel.canonical
    free = list(sp.ordered(r.free_symbols))
    dif = r.lhs - r.rhs
    if len(free) == 1:
        m, b = linear_coeffs(dif, free[0])
        if m.is_zero is False:
            r = r.func(-b / m, free[0]) if m.is_negative else r.func(free[0], -b / m)
        else:
            r = r.func(b, sp.S.Zero)
    else:
        m = linear_coeffs(dif, *free)
        constant = m.pop()
        scale = gcd(m)
        m = [c / scale for c in m]
        terms = [(c, s) for c, s in zip(m, free) if c != 0]
        if scale.is_zero is False:
            if constant != 0:
                r = r.func(sp.Add(*[c * s for c, s in terms]), -constant / scale)
            else:
                r = r.func(terms[0][0] * terms[0][1], -sp.Add(*[c * s for c, s in terms[1:]]))
        else:
            r = r.func(constant, sp.S.Zero)
    r = r.canonical
    return r if count_ops(r) < 1.7 * count_ops(rel) else rel


def _linear_rational(e: sp.Basic) -> bool:
    """A sum of rationals times real symbols, and at most one rational."""
    for term in e.args if e.is_Add else (e,):
        if term.is_Rational:
            continue
        c, s = term.as_coeff_Mul()
        if not (c.is_Rational and s.is_Symbol and s.is_real):
            return False
    return True


def fold(expr: sp.Basic, *, field: str = "expression", error: type = InvalidSpec) -> sp.Basic:
    """:func:`piecewise_fold` for the loader: a refusal is ``error`` naming ``field``."""
    try:
        return piecewise_fold(expr)
    except BudgetExceeded as exc:
        raise error(f"{field} = {shown(expr)}: {exc}") from None


def _count_pieces(n: int) -> None:
    if n > MAX_PIECES:
        raise BudgetExceeded(
            f"folding the conditional expressions ('a if c else b') in a condition gives more than {MAX_PIECES} "
            "cases; use fewer conditional expressions inside conditions"
        )


def substitute(
    expr: sp.Basic,
    subs: Mapping[sp.Symbol, sp.Basic],
    *,
    field: str = "expression",
    error: type[InvalidSpec] | type = InvalidSpec,
) -> sp.Basic:
    """``expr.xreplace(subs)``, rebuilding the expression bottom-up under the same budgets as
    parsing: binding ``d = 10**9, k = 10**8`` in ``binomial(d, k)`` is refused before sympy
    starts on a number of half a billion bits. Errors are ``error`` naming ``field``."""
    expr = sp.sympify(expr)
    if not subs:
        return expr
    keys = set(subs)
    memo: dict = {}

    def walk(node):
        if node in subs:
            return subs[node]
        if not node.args or not (node.free_symbols & keys):
            return node
        if node in memo:
            return memo[node]
        args = tuple(walk(a) for a in node.args)
        out = node if args == node.args else apply_guarded(node.func, args)
        memo[node] = out
        return out

    try:
        return walk(expr)
    except BudgetExceeded as exc:
        at = ", ".join(f"{k}={shown(v, 30)}" for k, v in subs.items())
        raise error(f"{field} = {shown(expr)} at {shown(at, 80)}: {exc}") from None
