"""The quantities a paper manifest may name, and their values at one row of parameters.

``M.q`` names quantity ``q`` of the mechanism ``M`` declared under ``[mechanisms]``:

* the derived results of :func:`ldpaudit.derive.derive` (``l2_worst``, ``l1_worst``,
  ``variance``, ``effective_samples``, ``mutual_information``): exact sympy expressions in the
  spec's parameters, ``n`` (users) and ``p_j`` where they appear;
* ``tight_epsilon``: the tightest ε, proved by :func:`ldpaudit.verify.tight_epsilon` (z3);
* ``optimal_<parameter>_<target>``: the optimal integer value of a parameter for the target
  ``l2``, ``l1`` or ``mi`` (:mod:`ldpaudit.derive.optimize`: floor or ceil of the stationary
  point, whichever is better by the exact objective), e.g. ``ss.optimal_k_mi``.

Three quantities take arguments, written as calls: ``delta(M, eps)`` (the exact δ(ε) of one
report), ``composed_delta(M, K, eps)`` (of K reports) and ``amplified_epsilon(M, n, delta)``
(the central ε after shuffling n reports, the generic clone bound). Every symbol of a quantity is
bound by name: the mechanism's ``let`` first, then the row's parameters; ``n`` is 1 (per user)
when the row does not give it."""

from __future__ import annotations

import re

import sympy as sp

from ldpaudit.errors import InvalidSpec, NotDerivable, Undecided
from ldpaudit.mechanism.expr import shown, substitute
from ldpaudit.papers import solve

#: attribute quantities (M.q): name -> what it is
DERIVED = {
    "l2_worst": "worst-case ℓ2² risk of the unbiased estimator (derive)",
    "l1_worst": "worst-case ℓ1 risk, large n (derive)",
    "variance": "variance of the estimate, in p_j or x (derive)",
    "effective_samples": "effective sample size n·R_direct/R (derive)",
    "mutual_information": "I(X;Y) under the uniform prior (derive)",
}
TIGHT = {"tight_epsilon": "the tightest ε, proved (verify, z3)"}
OPTIMAL = re.compile(r"optimal_([A-Za-z]\w*?)_(l2|l1|mi)")


class Delta(sp.Function):
    """``delta(M, eps)``: the exact δ(ε) of one report of M."""

    nargs = 2


class ComposedDelta(sp.Function):
    """``composed_delta(M, K, eps)``: the exact δ(ε) of K independent reports of M."""

    nargs = 3


class AmplifiedEpsilon(sp.Function):
    """``amplified_epsilon(M, n, delta)``: the central ε after shuffling n reports of M."""

    nargs = 3


CALLS = {"delta": (Delta, 2), "composed_delta": (ComposedDelta, 3), "amplified_epsilon": (AmplifiedEpsilon, 3),
         **solve.CALLS}
CALL_TYPES = (Delta, ComposedDelta, AmplifiedEpsilon, *solve.CALL_TYPES)


def known(quantity: str) -> bool:
    return quantity in DERIVED or quantity in TIGHT or OPTIMAL.fullmatch(quantity) is not None


def names() -> str:
    return ", ".join([*DERIVED, *TIGHT, "optimal_<parameter>_<l2|l1|mi>", *(f"{c}(...)" for c in CALLS)])


class Evaluator:
    """Values of quantities at rows of parameters, with each symbolic derivation done once."""

    def __init__(self, mechanisms: dict):
        self.mechanisms = mechanisms        # name -> MechanismEntry (papers.manifest)
        self._families: dict = {}
        self._symbolic: dict = {}
        self._optimal: dict = {}
        self._derived: dict = {}

    def family(self, name: str):
        if name not in self._families:
            from ldpaudit.mechanism.loader import load_family

            entry = self.mechanisms[name]
            try:
                self._families[name] = load_family(entry.target)
            except InvalidSpec as exc:
                raise type(exc)(f"mechanisms.{name}.spec: {exc}") from None
        return self._families[name]

    # --- the value of an expression at one row ----------------------------------------------

    def value(self, expr: sp.Basic, row: dict, model: str, field: str) -> sp.Basic:
        """``expr`` (parsed by :mod:`ldpaudit.papers.manifest`) at ``row``: an exact number."""
        out = self.expression(expr, row, model, field, frozenset())
        if not out.is_number:
            raise InvalidSpec(f"{field} = {shown(out)} is not a number at {_at(row)}")
        if out.has(sp.nan, sp.zoo) or out.is_extended_real is False:
            raise InvalidSpec(f"{field} is undefined (not a real number) at {_at(row)}")
        return out

    def expression(self, expr: sp.Basic, row: dict, model: str, field: str, free: frozenset) -> sp.Basic:
        """``expr`` at ``row`` with the variables named in ``free`` left symbolic
        (:func:`ldpaudit.papers.solve.free_symbol`): the arguments of a solving call."""
        calls = {}
        for node in _outer_calls(expr):
            if isinstance(node, solve.CALL_TYPES):
                calls[node] = solve.solve_call(
                    node, lambda e, extra: self.expression(e, row, model, field, free | frozenset(extra)), field)
            else:
                calls[node] = self.call(node, row, model, field)
        expr = expr.xreplace(calls)
        subs = {}
        for s in expr.free_symbols:
            if "__" in s.name:
                mech, q = s.name.split("__", 1)
                subs[s] = self.quantity(mech, q, row, model, field, free)
            elif s.name in free:
                subs[s] = solve.free_symbol(s.name)
            elif s.name in row:
                subs[s] = row[s.name]
            else:
                raise InvalidSpec(f"{field}: {s.name} has no value in this row; give it in the grid or the rows")
        return substitute(expr, subs, field=field)

    def bindings(self, name: str, row: dict, field: str, symbols) -> dict:
        """Values of ``symbols`` (of mechanism ``name``'s quantities) at ``row``."""
        from ldpaudit.derive import N_USERS

        entry = self.mechanisms[name]
        row_symbols = {k: sp.Symbol(k, real=True) for k in row}
        values = {}
        for s in symbols:
            if s.name in entry.lets:
                let = entry.lets[s.name]
                values[s] = substitute(let, {row_symbols[k]: v for k, v in row.items() if k in row_symbols},
                                       field=f"mechanisms.{name}.let.{s.name}")
                if not values[s].is_number:
                    raise InvalidSpec(f"mechanisms.{name}.let.{s.name} = {shown(let)} depends on "
                                      f"{', '.join(sorted(str(f) for f in values[s].free_symbols))}, which the row does not give")
            elif s.name in row:
                values[s] = row[s.name]
            elif s == N_USERS:
                values[s] = sp.Integer(1)
            else:
                raise InvalidSpec(f"{field}: {name} needs {s.name}, which neither mechanisms.{name}.let nor the "
                                  f"row ({_at(row) or 'no parameters'}) gives")
        return values

    def quantity(self, name: str, q: str, row: dict, model: str, field: str, free: frozenset = frozenset()) -> sp.Basic:
        m = OPTIMAL.fullmatch(q)
        if m:
            real = self._real_optimum(name, m.group(1), m.group(2), model, field)
            if real is None:
                return self._optimum(name, m.group(1), m.group(2), row, model, field, free)
            return self._bind(name, real, row, field, free)
        if q in TIGHT:
            return self._tight(name, row, model, field, free)
        return self._bind(name, self.symbolic(name, q, model, field), row, field, free)

    def bound(self, name: str, row: dict, field: str):
        """Mechanism ``name`` with every parameter bound at ``row`` (its ``let`` first)."""
        family = self.family(name)
        values = self.bindings(name, row, field, [family.symbols[p.name] for p in family.parameters])
        return family.bind({s.name: v for s, v in values.items()})

    def _tight(self, name: str, row: dict, model: str, field: str, free: frozenset) -> sp.Basic:
        """The tightest ε for the whole family when z3 decides it there, else for the mechanism
        with its integer parameters bound at this row (a tie rule that only matters for even d)."""
        if (name, "tight_epsilon", "undecided") not in self._symbolic:
            try:
                return self._bind(name, self.symbolic(name, "tight_epsilon", model, field), row, field, free)
            except Undecided:
                self._symbolic[(name, "tight_epsilon", "undecided")] = None
        family = self.family(name)
        integers = [family.symbols[p.name] for p in family.parameters if p.kind == "integer" and p.name not in free]
        values = self.bindings(name, row, field, integers)
        key = (name, "tight_epsilon", tuple(sorted((s.name, v) for s, v in values.items())))
        if key not in self._symbolic:
            from ldpaudit.verify import tight_epsilon

            tight = tight_epsilon(family.bind({s.name: v for s, v in values.items()}))
            if not tight.determined:
                raise Undecided(f"{field}: the tightest ε of {name} at {_at(row)} was not determined: {tight.reason}")
            self._symbolic[key] = tight.value
        return self._bind(name, self._symbolic[key], row, field, free)

    def _bind(self, name: str, expr: sp.Basic, row: dict, field: str, free: frozenset) -> sp.Basic:
        """A mechanism's expression at ``row``, its symbols named in ``free`` left as variables."""
        bound = [s for s in expr.free_symbols if s.name not in free]
        values = self.bindings(name, row, field, bound)
        values.update({s: solve.free_symbol(s.name) for s in expr.free_symbols if s.name in free})
        return substitute(solve.lazy(expr), values, field=field)

    def _real_optimum(self, name: str, parameter: str, target: str, model: str, field: str) -> sp.Basic | None:
        """The optimal value of a real parameter (the Hybrid mechanism's weight) as derive
        gives it, an exact expression in the other parameters; None for an integer parameter."""
        mech = self.family(name)
        if parameter not in mech.symbols or mech.parameter(parameter).kind == "integer":
            return None
        key = (name, parameter, target, model, "real")
        if key not in self._optimal:
            entry = self._derivation(name, model).results.get("optimal", {}).get(f"{parameter}_{target}")
            if not isinstance(entry, dict) or not isinstance(entry.get("value"), sp.Basic):
                raise InvalidSpec(f"{field}: {name}.optimal_{parameter}_{target}: derive gives no optimal "
                                  f"{parameter} for the {target} target of {mech.name!r}")
            self._optimal[key] = entry["value"]
        return self._optimal[key]

    def symbolic(self, name: str, q: str, model: str, field: str) -> sp.Basic:
        key = (name, q, model)
        if key not in self._symbolic:
            mech = self.family(name)
            if q in TIGHT:
                from ldpaudit.verify import tight_epsilon

                tight = tight_epsilon(mech)
                if not tight.determined:
                    raise Undecided(f"{field}: the tightest ε of {name} was not determined: {tight.reason}")
                value = tight.value
            else:
                try:
                    results = self._derivation(name, model).results
                except NotDerivable as exc:
                    raise InvalidSpec(f"{field}: {name}.{q} cannot be derived: {exc}") from None
                value = results.get(q)
                if not isinstance(value, sp.Expr):
                    why = results.get("not_derived", {}).get(q, "derive gives no such result for this mechanism")
                    raise InvalidSpec(f"{field}: {name}.{q} is not derived for {mech.name!r}: {why}")
            self._symbolic[key] = value
        return self._symbolic[key]

    def _derivation(self, name: str, model: str):
        """derive() of mechanism ``name`` under ``model``, once per evaluator: every quantity of a
        mechanism (its variance, l2_worst, optimal weight, ...) reads the same derivation."""
        key = (name, model)
        if key not in self._derived:
            from ldpaudit.derive import derive

            self._derived[key] = derive(self.family(name), model=model)
        return self._derived[key]

    def _optimum(self, name: str, parameter: str, target: str, row: dict, model: str, field: str,
                 free: frozenset = frozenset()) -> sp.Integer:
        import math

        import mpmath

        from ldpaudit.derive.optimize import KAPPA, TARGETS, stationary_point

        key = (name, parameter, target, model)
        if key not in self._optimal:
            mech = self.family(name)
            if parameter not in mech.symbols:
                raise InvalidSpec(f"{field}: {name}.optimal_{parameter}_{target}: {mech.name!r} has no parameter "
                                  f"{parameter!r} (its parameters: {', '.join(mech.parameter_names)})")
            try:
                st = stationary_point(mech, parameter, target, model)
            except NotDerivable as exc:
                raise InvalidSpec(f"{field}: {name}.optimal_{parameter}_{target} cannot be derived: {exc}") from None
            point = sp.lambdify(st.symbols, st.point, "mpmath")
            objective = sp.lambdify((KAPPA, *st.symbols), st.objective, "mpmath")
            self._optimal[key] = (st, point, objective)
        st, point, objective = self._optimal[key]
        if any(s.name in free for s in st.symbols):
            raise InvalidSpec(f"{field}: {name}.optimal_{parameter}_{target} is an integer found at numbers; it cannot "
                              f"be taken with {', '.join(sorted(free))} left free")
        values = self.bindings(name, row, field, st.symbols)
        args = [mpmath.mpf(sp.Rational(values[s]).p) / sp.Rational(values[s]).q if values[s].is_Rational
                else mpmath.mpf(str(sp.N(values[s], 40))) for s in st.symbols]
        mpmath.mp.dps = 30
        at = float(point(*args))
        lo = int(sp.ceiling(substitute(sp.sympify(st.lower), values, field=field)))
        hi = substitute(sp.sympify(st.upper), values, field=field)
        hi = int(sp.floor(hi)) if hi.is_finite else None
        candidates = sorted({min(max(c, lo), hi if hi is not None else c) for c in (math.floor(at), math.ceil(at))})
        scored = [(c, objective(mpmath.mpf(c), *args)) for c in candidates]
        pick = (min if TARGETS[target][0] == "minimize" else max)(scored, key=lambda cv: cv[1])
        return sp.Integer(pick[0])

    # --- quantities with arguments -----------------------------------------------------------

    def call(self, node: sp.Basic, row: dict, model: str, field: str) -> sp.Basic:
        mech_symbol, *rest = node.args
        name = mech_symbol.name if isinstance(mech_symbol, sp.Symbol) else ""
        if name not in self.mechanisms:
            raise InvalidSpec(f"{field}: the first argument of {_call_name(node)}() must be a mechanism declared "
                              f"under [mechanisms] (declared: {', '.join(self.mechanisms)})")
        args = [self.value(a, row, model, field) for a in rest]
        family = self.family(name)
        params = self.bindings(name, row, field, [family.symbols[p] for p in family.parameter_names])
        mech = family.bind({s.name: v for s, v in params.items()})
        if isinstance(node, AmplifiedEpsilon):
            from ldpaudit.account.shuffle import generic_epsilon
            from ldpaudit.verify import tight_epsilon

            eps0 = tight_epsilon(mech).value
            n, delta = args
            if not (n.is_Integer and n >= 2):
                raise InvalidSpec(f"{field}: amplified_epsilon needs an integer n >= 2 reports, got {shown(n)}")
            return sp.Float(generic_epsilon(float(eps0), int(n), float(delta)), 15)
        from ldpaudit.account.profile import delta_at, view

        reports = 1
        if isinstance(node, ComposedDelta):
            k, eps = args
            if not (k.is_Integer and k >= 1):
                raise InvalidSpec(f"{field}: composed_delta needs an integer number of reports K >= 1, got {shown(k)}")
            reports = int(k)
        else:
            (eps,) = args
        return sp.sympify(delta_at(view(mech, reports=reports), eps).delta)


def _outer_calls(expr: sp.Basic) -> list:
    """The calls of ``expr`` not inside another call (a solving call evaluates its own)."""
    found, stack = [], [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, CALL_TYPES):
            if node not in found:
                found.append(node)
        else:
            stack.extend(node.args)
    return found


def _call_name(node) -> str:
    return {Delta: "delta", ComposedDelta: "composed_delta", AmplifiedEpsilon: "amplified_epsilon"}[type(node)]


def _at(row: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in row.items())


__all__ = ["DERIVED", "TIGHT", "OPTIMAL", "CALLS", "Evaluator", "known", "names"]
