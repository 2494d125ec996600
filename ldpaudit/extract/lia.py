"""Comparisons of integers (the symbolic input, draws, integer parameters) in z3's integer
arithmetic, every variable and numeral an integer: ``r1 < x`` over the integers is not the
same question as over the reals, and a formula that mixes the two sorts (``ToReal``) is one z3
may give up on. Linear formulas are decided exactly (Presburger arithmetic); the queries run
through :func:`ldpaudit.verify.smt.check`, bounded in z3 work units.
"""
from __future__ import annotations

import sympy as sp


class NotInteger(Exception):
    """The expression is not a polynomial with rational coefficients in integer symbols."""


class Integers:
    """z3 integer variables for sympy integer symbols, and the translation of relations."""

    def __init__(self):
        self.vars: dict = {}

    def var(self, s: sp.Symbol):
        import z3

        if s not in self.vars:
            if s.is_integer is not True:
                raise NotInteger(f"{s} is not an integer")
            self.vars[s] = z3.Int(f"{s.name}_{len(self.vars)}")
        return self.vars[s]

    def term(self, e):
        import z3

        if e.is_Integer:
            return z3.IntVal(int(e))
        if e.is_Symbol:
            return self.var(e)
        if e.is_Add:
            return z3.Sum([self.term(a) for a in e.args])
        if e.is_Mul:
            return z3.Product([self.term(a) for a in e.args])
        if e.is_Pow and e.exp.is_Integer and e.exp > 0:
            return z3.Product([self.term(e.base)] * int(e.exp))
        raise NotInteger(f"{e} is not a polynomial in integers")

    def relation(self, lhs, op: str, rhs=0):
        """``lhs op rhs`` with the denominators (positive integers) cleared."""
        num, den = sp.fraction(sp.together(sp.sympify(lhs) - sp.sympify(rhs)))
        if not (den.is_Integer and den > 0):
            raise NotInteger(f"{lhs} - {rhs} has the denominator {den}")
        t = self.term(sp.expand(num))
        return {"<": t < 0, "<=": t <= 0, ">": t > 0, ">=": t >= 0, "==": t == 0, "!=": t != 0}[op]

    def holds(self, relation):
        """A sympy relation (or True/False, And/Or/Not of them) as a z3 formula."""
        import z3

        if relation is sp.true or relation is True:
            return z3.BoolVal(True)
        if relation is sp.false or relation is False:
            return z3.BoolVal(False)
        if isinstance(relation, sp.And):
            return z3.And([self.holds(a) for a in relation.args])
        if isinstance(relation, sp.Or):
            return z3.Or([self.holds(a) for a in relation.args])
        if isinstance(relation, sp.Not):
            return z3.Not(self.holds(relation.args[0]))
        if isinstance(relation, sp.core.relational.Relational):
            return self.relation(relation.lhs, relation.rel_op, relation.rhs)
        raise NotInteger(f"{relation} is not a comparison")

    def value(self, model, s: sp.Symbol):
        v = model.eval(self.var(s), model_completion=True)
        return sp.Integer(v.as_long())


def check(formulas: list, rlimit: int):
    from ldpaudit.verify import smt

    return smt.check(formulas, rlimit=rlimit)
