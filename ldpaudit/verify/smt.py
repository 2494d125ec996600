"""Exact translation of channel expressions into z3's nonlinear real arithmetic.

z3 has no exponential, so a channel in e^ε is rewritten before z3 sees it:

* every ``exp(c*p + r)`` with a parameter p and rational c becomes ``u_p**(c*L)`` where
  ``u_p = e^(p/L)`` and L is the least common denominator of the coefficients of p; p's range
  maps to u_p's (ε > 0 becomes u > 1). If p also occurs outside an exponential it stays a real
  variable of its own, tied to u_p only by the exponential's tangent lines at 0 (e^p >= 1 + p,
  e^(-p) >= 1 - p): a relaxation, sound for proofs. When the degrees c*L would be
  large (``epsilon*(1 - 1/10**9)`` gives L = 10**9), each ``e^(c*p)`` gets its own variable
  instead, tied to p by facts that hold for the real exponential (positivity, monotonicity in
  c for the sign of p, e^x >= 1 + x, products e^(a p) e^(b p) = e^((a+b) p) and small integer
  powers): again a relaxation, and polynomial degrees stay small whatever the claim's digits;
* numeric constants that are not rational (``e``, ``e^(1/2)``, ``e^(-1/1000)``, ``sqrt(3)``,
  ``log 3``) become variables pinned between exact rationals (:mod:`ldpaudit.verify.numbers`);
  exponentials of rationals share one base e^g when the resulting degree stays small, so
  identities such as ``e^(1/2) * e^(1/2) = e`` remain polynomial identities; roots also get
  their defining equation ``r**n = a`` up to degree 64; beyond that (``3**(1/10**9)``) a
  rational power is one constant pinned between enclosures computed as exp(r ln a);
* ``binomial(n, m)`` with symbolic arguments becomes a variable with the identities z3 needs
  (``C(n,m) m = C(n,m-1) (n-m+1)``, Pascal's rule, non-negativity, positivity in range);
* integer parameters become reals within their bounds (a relaxation: a proof over all real
  d >= 2 covers every integer d; counterexamples are re-checked at integer points).

Numbers reach z3 as exact strings ``"p/q"``, never floats. Inequalities are cleared of their
denominators after proving the denominators do not vanish.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp
import z3
from sympy.functions.elementary.hyperbolic import HyperbolicFunction

from ldpaudit.errors import InvalidSpec, SolverError
from ldpaudit.mechanism.params import Parameter
from ldpaudit.verify.numbers import HUGE_EXPONENT, MAX_INTEGER_ROOT_DEGREE, exp_bounds, log_bounds, power_bounds, root_bounds
from ldpaudit.render.text import sstr

#: the random seed every solver is created with (recorded in certificates)
SEED = 0
#: default work budget of one z3 query, in z3's deterministic resource units (``rlimit``, about
#: 10^6 per CPU second on nonlinear arithmetic): the same query gets the same answer on a slow
#: or a busy machine, which a timeout cannot promise. The hardest query of the bundled specs
#: (``verify --tight`` on every spec) needs about 10^4 units (benchmarks/bench_check.py).
DEFAULT_RLIMIT = 40_000_000
#: the budget of a quick side query (is the claim positive anywhere? are the ranges consistent?)
QUICK_RLIMIT = 5_000_000
#: largest power of a shared exponential base before constants get separate variables
MAX_BASE_DEGREE = 64


class Unsupported(Exception):
    """The expression has a form the exact encoding does not cover (becomes UNKNOWN)."""


def z3_version() -> str:
    return z3.get_version_string()


def rational(value) -> z3.ArithRef:
    """An exact z3 real numeral from a rational (int, Fraction or sympy Rational)."""
    if isinstance(value, sp.Rational):
        p, q = int(value.p), int(value.q)
    else:
        f = Fraction(value)
        p, q = f.numerator, f.denominator
    if max(abs(p).bit_length(), q.bit_length()) > _NUMERAL_CHUNK_BITS:
        return _big_rational(p, q)
    return z3.RealVal(f"{p}/{q}") if q != 1 else z3.RealVal(str(p))


#: integers longer than this are handed to z3 in binary chunks (Python will not print them)
_NUMERAL_CHUNK_BITS = 8192


def _big_integer(n: int) -> z3.ArithRef:
    """The z3 numeral n, built from base-2^8192 digits (each short enough to print) and
    folded by z3's simplifier into one exact numeral."""
    sign, n = (-1 if n < 0 else 1), abs(n)
    chunks = []
    while n:
        chunks.append(n & ((1 << _NUMERAL_CHUNK_BITS) - 1))
        n >>= _NUMERAL_CHUNK_BITS
    base = z3.RealVal(str(1 << _NUMERAL_CHUNK_BITS))
    acc = z3.RealVal(0)
    for c in reversed(chunks):
        acc = acc * base + z3.RealVal(str(c))
    return z3.simplify(acc * sign)


def _big_rational(p: int, q: int) -> z3.ArithRef:
    return _big_integer(p) if q == 1 else z3.simplify(_big_integer(p) / _big_integer(q))


@dataclass
class Atom:
    """A non-rational constant (or a derived variable) with its exact description."""

    symbol: sp.Symbol
    meaning: sp.Basic  # what the symbol stands for, as a sympy expression
    kind: str  # 'exp' (e^q), 'root' (a^(1/n)), 'rpow' (a^r, large r), 'log', 'binomial',
    #            'power' (symbolic root), 'u' (e^(p/L)), 'pexp' (e^(c p), its own variable)
    data: tuple = ()


@dataclass
class Encoder:
    """Rewrites sympy expressions over a mechanism's parameters into z3 terms.

    Build it with every expression that will be encoded (entries, e^claim, bounds), so the
    exponential bases and their degrees are chosen once.
    """

    parameters: Sequence[Parameter]
    expressions: Iterable[sp.Basic]
    bits: int = 96
    integers: bool = False  # keep integer parameters integer (nonlinear integer arithmetic)
    atoms: list[Atom] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.expressions = [sp.sympify(e) for e in self.expressions]
        self.params = {p.name: p for p in self.parameters}
        self.param_symbols = {p.symbol: p for p in self.parameters}
        self._cache: dict = {}
        self._z3cache: dict = {}
        self._vars: dict[sp.Symbol, z3.ArithRef] = {}
        self._exp_params: dict[sp.Symbol, tuple[int, sp.Symbol]] = {}  # p -> (L, u symbol)
        self._sep_exps: dict[sp.Symbol, dict[sp.Rational, sp.Symbol]] = {}  # p -> {c: e^(c p) symbol}
        self._rest_atoms: dict[Fraction, sp.Basic] = {}  # rational q -> poly expression for e^q
        self._binomials: dict[sp.Basic, sp.Symbol] = {}
        self._roots: dict[sp.Basic, sp.Symbol] = {}
        self._logs: dict[sp.Basic, sp.Symbol] = {}
        self._scan()

    # -- scanning -------------------------------------------------------------------------

    def _exp_args(self, expr) -> list[sp.Basic]:
        if expr.has(HyperbolicFunction):  # encoded as exponentials (see poly)
            expr = expr.rewrite(sp.exp)
        out = [e.args[0] for e in expr.atoms(sp.exp)]
        if expr.has(sp.E):
            out.append(sp.Integer(1))
        return out

    def _split(self, arg: sp.Basic) -> tuple[dict, sp.Basic]:
        """arg = sum_p c_p p + rest with rational c_p and numeric rest."""
        arg = sp.expand(arg)
        coeffs = {}
        rest = arg
        for s in arg.free_symbols:
            if s not in self.param_symbols:
                raise Unsupported(f"exp({arg}) mentions {s}, which is not a parameter")
            c = arg.coeff(s)
            if not c.is_Rational:
                raise Unsupported(f"exp({arg}) is not linear in {s} with a rational coefficient")
            coeffs[s] = c
            rest = rest - c * s
        rest = sp.expand(rest)
        if rest.free_symbols:
            raise Unsupported(f"exp({arg}) is not linear in the parameters")
        return coeffs, rest

    def _scan(self) -> None:
        denominators: dict[sp.Symbol, int] = {}
        coefficients: dict[sp.Symbol, set] = {}
        rests: set[Fraction] = set()
        for expr in self.expressions:
            for arg in self._exp_args(expr):
                coeffs, rest = self._split(arg)
                for s, c in coeffs.items():
                    denominators[s] = math.lcm(denominators.get(s, 1), int(c.q))
                    coefficients.setdefault(s, set()).add(c)
                if rest != 0:
                    if not rest.is_Rational:
                        raise Unsupported(f"exp({rest}) is not an exponential of a rational number")
                    rests.add(Fraction(int(rest.p), int(rest.q)))
        for s, L in sorted(denominators.items(), key=lambda kv: kv[0].name):
            if max(abs(c) * L for c in coefficients[s]) > MAX_BASE_DEGREE:
                self._separate_exponentials(s, sorted(coefficients[s]))
                continue
            u = sp.Symbol(f"u_{s.name}", positive=True)
            self._exp_params[s] = (L, u)
            self.atoms.append(Atom(u, sp.exp(s / L), "u", (s, L)))
        if rests:
            g = Fraction(0)
            for q in rests:
                g = Fraction(math.gcd(g.numerator * q.denominator, q.numerator * g.denominator), g.denominator * q.denominator) if g else abs(q)
            degree = max(abs(q) / g for q in rests)
            if degree <= MAX_BASE_DEGREE:
                tau = sp.Symbol(_name("e", g), positive=True)
                self.atoms.append(Atom(tau, sp.exp(sp.Rational(g.numerator, g.denominator)), "exp", (g,)))
                for q in rests:
                    self._rest_atoms[q] = tau ** int(q / g)
            else:
                for q in sorted(rests):
                    base = abs(q)
                    tau = sp.Symbol(_name("e", base), positive=True)
                    self.atoms.append(Atom(tau, sp.exp(sp.Rational(base.numerator, base.denominator)), "exp", (base,)))
                    self._rest_atoms[q] = tau if q > 0 else 1 / tau

    def _separate_exponentials(self, s: sp.Symbol, coefficients: list) -> None:
        table = self._sep_exps[s] = {}
        for i, c in enumerate(coefficients):
            w = sp.Symbol(f"w_{s.name}_{i}", positive=True)
            table[c] = w
            self.atoms.append(Atom(w, sp.exp(c * s), "pexp", (s, c)))

    # -- sympy-level normalization ----------------------------------------------------------

    def exp_of(self, arg: sp.Basic) -> sp.Basic:
        coeffs, rest = self._split(arg)
        out = sp.Integer(1)
        for s, c in coeffs.items():
            if s in self._sep_exps:
                out *= self._sep_exps[s][c]
                continue
            L, u = self._exp_params[s]
            out *= u ** int(c * L)
        if rest != 0:
            out *= self._rest_atoms[Fraction(int(rest.p), int(rest.q))]
        return out

    def poly(self, expr: sp.Basic) -> sp.Basic:
        """``expr`` with exponentials, roots, logs and binomials replaced by variables."""
        expr = sp.sympify(expr)
        hit = self._cache.get(expr)
        if hit is not None:
            return hit
        out = expr
        if out.has(HyperbolicFunction):  # sympy's simplify turns (e^a + 1)/(e^a - 1) into 1/tanh(a/2)
            out = out.rewrite(sp.exp)
        if out.has(sp.binomial):
            out = out.replace(lambda e: isinstance(e, sp.binomial) and not e.is_number, self._binomial)
        if out.has(sp.exp) or out.has(sp.E):
            out = out.replace(lambda e: isinstance(e, sp.exp), lambda e: self.exp_of(e.args[0]))
            if out.has(sp.E):
                out = out.xreplace({sp.E: self.exp_of(sp.Integer(1))})
        if out.has(sp.log):
            out = out.replace(lambda e: isinstance(e, sp.log), self._log)
        out = out.replace(
            lambda e: e.is_Pow and e.exp.is_Rational and not e.exp.is_Integer, self._root
        )
        for f in out.atoms(sp.Function):
            if not isinstance(f, (sp.Abs, sp.Max, sp.Min, sp.Piecewise)):
                raise Unsupported(f"cannot encode {f} exactly")
        self._cache[expr] = out
        return out

    def _binomial(self, e):
        hit = self._binomials.get(e)
        if hit is None:
            hit = sp.Symbol(f"C_{len(self._binomials)}", nonnegative=True)
            self._binomials[e] = hit
            self.atoms.append(Atom(hit, e, "binomial", e.args))
        return hit

    def _root(self, e):
        base, ex = e.base, e.exp
        if int(ex.q) > MAX_INTEGER_ROOT_DEGREE or abs(int(ex.p)) > MAX_BASE_DEGREE:
            return self._rational_power(e)
        key = (base, int(ex.q))
        hit = self._roots.get(key)
        if hit is None:
            if base.is_number and not base.is_Rational:
                base_poly = self.poly(base)
            else:
                base_poly = self.poly(base) if not base.is_Rational else base
            hit = sp.Symbol(f"r_{len(self._roots)}", nonnegative=True)
            self._roots[key] = hit
            kind = "root" if base.is_Rational else "power"
            self.atoms.append(Atom(hit, base ** sp.Rational(1, int(ex.q)), kind, (base_poly, int(ex.q))))
        return hit ** int(ex.p)

    def _rational_power(self, e):
        """a**r with a rational base and a rational r whose digits are many: one constant."""
        base, ex = e.base, e.exp
        if not base.is_Rational or base <= 0:
            raise Unsupported(f"cannot encode {e} exactly: a power with exponent {ex} of a non-rational or non-positive base")
        hit = self._roots.get((base, ex))
        if hit is None:
            hit = sp.Symbol(f"r_{len(self._roots)}", positive=True)
            self._roots[(base, ex)] = hit
            self.atoms.append(Atom(hit, e, "rpow", (Fraction(int(base.p), int(base.q)), Fraction(int(ex.p), int(ex.q)))))
        return hit

    def _log(self, e):
        arg = e.args[0]
        if not arg.is_Rational or arg <= 0:
            raise Unsupported(f"cannot encode {e} exactly")
        hit = self._logs.get(arg)
        if hit is None:
            hit = sp.Symbol(f"l_{len(self._logs)}", real=True)
            self._logs[arg] = hit
            self.atoms.append(Atom(hit, e, "log", (Fraction(int(arg.p), int(arg.q)),)))
        return hit

    def back(self, expr: sp.Basic) -> sp.Basic:
        """Undo :meth:`poly`: variables back to the exponentials and constants they stand for."""
        return sp.sympify(expr).xreplace({a.symbol: a.meaning for a in self.atoms})

    # -- z3 ---------------------------------------------------------------------------------

    def var(self, s: sp.Symbol) -> z3.ArithRef:
        v = self._vars.get(s)
        if v is None:
            p = self.param_symbols.get(s)
            v = z3.Int(s.name) if (self.integers and p is not None and p.kind == "integer") else z3.Real(s.name)
            self._vars[s] = v
        return v

    def z3(self, expr: sp.Basic) -> z3.ArithRef:
        """A z3 term for an already normalized expression (see :meth:`poly`)."""
        hit = self._z3cache.get(expr)
        if hit is not None:
            return hit
        out = self._z3(expr)
        self._z3cache[expr] = out
        return out

    def _z3(self, e):
        if e.is_Rational:
            return rational(e)
        if e.is_Symbol:
            if e in self.param_symbols or any(a.symbol == e for a in self.atoms):
                return self.var(e)
            raise Unsupported(f"unknown symbol {e} in an encoded expression")
        if e.is_Add:
            return z3.Sum([self.z3(a) for a in e.args])
        if e.is_Mul:
            return z3.Product([self.z3(a) for a in e.args])
        if e.is_Pow:
            if e.exp.is_Integer:
                n = int(e.exp)
                base = self.z3(e.base)
                if n > 0:
                    return base if n == 1 else (z3.Product([base] * n) if n <= 6 else base**n)
                # only reached for constant denominators (δ sums); proofs clear denominators first
                return 1 / (base if n == -1 else (z3.Product([base] * -n) if -n <= 6 else base ** (-n)))
            raise Unsupported(f"cannot encode power {e}")
        if isinstance(e, sp.Abs):
            a = self.z3(e.args[0])
            return z3.If(a >= 0, a, -a)
        if isinstance(e, (sp.Max, sp.Min)):
            terms = [self.z3(a) for a in e.args]
            acc = terms[0]
            for t in terms[1:]:
                acc = z3.If(t > acc, t, acc) if isinstance(e, sp.Max) else z3.If(t < acc, t, acc)
            return acc
        if isinstance(e, sp.Piecewise):
            acc = None
            for value, cond in reversed(e.args):
                v = self.z3(value)
                acc = v if acc is None or cond is sp.true else z3.If(self.z3_bool(cond), v, acc)
            return acc
        raise Unsupported(f"cannot encode {e}")

    def z3_bool(self, c) -> z3.BoolRef:
        if c is sp.true:
            return z3.BoolVal(True)
        if c is sp.false:
            return z3.BoolVal(False)
        if isinstance(c, sp.And):
            return z3.And([self.z3_bool(a) for a in c.args])
        if isinstance(c, sp.Or):
            return z3.Or([self.z3_bool(a) for a in c.args])
        if isinstance(c, sp.Not):
            return z3.Not(self.z3_bool(c.args[0]))
        if isinstance(c, sp.core.relational.Relational):
            a, b = self.z3(self.poly(c.lhs)), self.z3(self.poly(c.rhs))
            return {
                "==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b,
                "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b,
            }[c.rel_op]()
        raise Unsupported(f"cannot encode condition {c}")

    def relation(self, lhs: sp.Basic, op: str, rhs: sp.Basic) -> z3.BoolRef:
        """``lhs op rhs`` for sympy expressions, denominators cleared where their sign is known."""
        a, b = self.poly(lhs), self.poly(rhs)
        return _cmp(self.z3(a), op, self.z3(b))

    # -- the domain -------------------------------------------------------------------------

    def constraints(self) -> list[z3.BoolRef]:
        """Parameter ranges, atom definitions and rational enclosures of every variable used
        so far (call after building the terms)."""
        out: list[z3.BoolRef] = []
        done: set = set()
        while True:
            pending = [s for s in list(self._vars) if s not in done]
            if not pending:
                return out
            for s in pending:
                done.add(s)
                out += self._facts_for(s)

    def _facts_for(self, s: sp.Symbol) -> list[z3.BoolRef]:
        v = self.var(s)
        p = self.param_symbols.get(s)
        if p is not None:
            out = []
            for bound, strict, op in ((p.lower, p.lower_strict, ">"), (p.upper, p.upper_strict, "<")):
                if bound is None:
                    continue
                try:
                    bz = self.z3(self.poly(bound))
                except Unsupported:
                    self.notes.append(f"bound {p.name} {op} {bound} dropped (not encodable); a relaxation")
                    continue
                out.append(_cmp(v, op if strict else op + "=", bz))
            return out + self._coupling(p)
        atom = next(a for a in self.atoms if a.symbol == s)
        if atom.kind == "u":
            p = self.param_symbols[atom.data[0]]
            return self._u_bounds(p) + self._coupling(p)
        if atom.kind == "pexp":
            return self._pexp_facts(atom)
        if atom.kind == "rpow":
            lo, hi = power_bounds(*atom.data, self.bits)
            return [v > rational(lo), v < rational(hi)]
        if atom.kind == "exp":
            q = atom.data[0]
            if abs(q) > HUGE_EXPONENT:
                return self._huge_exp_facts(atom)
            lo, hi = exp_bounds(q, self.bits)
            return [v > rational(lo), v < rational(hi)]
        if atom.kind == "log":
            lo, hi = log_bounds(atom.data[0], self.bits)
            return [v > rational(lo), v < rational(hi)]
        if atom.kind == "root":
            base, n = atom.data
            lo, hi = root_bounds(Fraction(int(base.p), int(base.q)), n, self.bits)
            return [v >= 0, _power(v, n) == rational(base), v >= rational(lo), v <= rational(hi)]
        if atom.kind == "power":
            base, n = atom.data
            return [v >= 0, _power(v, n) == self.z3(base)]
        return self._binomial_facts(atom)

    def _coupling(self, p: Parameter) -> list[z3.BoolRef]:
        """When p occurs both inside an exponential (as u = e^(p/L)) and outside it, the two are
        tied by the tangent lines of the exponential at 0, true for every real p:
        e^p >= 1 + p and e^(-p) >= 1 - p (that is, e^p (1 - p) <= 1), both strict for p != 0.
        Without them z3 may pick e^p < 1 - ... and call (ε - 1) e^ε + 1 negative."""
        pair = self._exp_params.get(p.symbol)
        if pair is None or p.symbol not in self._vars or pair[1] not in self._vars:
            return []
        L, u = pair
        x, uL = self.var(p.symbol), _power(self.var(u), int(L))
        return [uL >= 1 + x, uL * (1 - x) <= 1,
                z3.Implies(x != 0, z3.And(uL > 1 + x, uL * (1 - x) < 1))]

    def _u_bounds(self, p: Parameter) -> list[z3.BoolRef]:
        L, u = self._exp_params[p.symbol]
        v = self.var(u)
        out = [v > 0]
        for bound, strict, lower in ((p.lower, p.lower_strict, True), (p.upper, p.upper_strict, False)):
            if bound is None:
                continue
            if not bound.is_Rational:
                out += self._u_bound_mapped(p, bound, L, v, strict, lower)
                continue
            q = Fraction(int(bound.p), int(bound.q)) / L
            if abs(q) > HUGE_EXPONENT:  # keep the side of the bound that stays small: a relaxation
                if (lower and q < 0) or (not lower and q > 0):
                    self.notes.append(f"bound on {p.name} ({bound}) too large to map onto e^({p.name}/{L}); a relaxation")
                    continue
                q = Fraction(HUGE_EXPONENT) * (1 if q > 0 else -1)
            lo, hi = exp_bounds(q, self.bits)
            if lower:
                out.append((v > rational(lo)) if (strict and lo == hi) else (v >= rational(lo)))
            else:
                out.append((v < rational(hi)) if (strict and lo == hi) else (v <= rational(hi)))
        return out

    def _u_bound_mapped(self, p: Parameter, bound: sp.Basic, L, v, strict: bool, lower: bool) -> list[z3.BoolRef]:
        """A bound on p that is not rational (``max = "log(2)"``) as a bound on u = e^(p/L):
        exactly when e^(bound/L) is rational (e^(log 2) = 2), else the side of a rational
        enclosure that keeps every admissible u (a relaxation, noted)."""
        image = sp.exp(bound / L)
        if image.is_Rational and image > 0:
            r = rational(Fraction(int(image.p), int(image.q)))
            if lower:
                return [v > r if strict else v >= r]
            return [v < r if strict else v <= r]
        try:
            value = sp.Float(image.evalf(60), 60)
        except (TypeError, ValueError):
            value = None
        if value is None or not value.is_real or not value.is_finite or not value > 0:
            self.notes.append(f"bound on {p.name} ({bound}) not mapped onto e^({p.name}/{L}); a relaxation")
            return []
        middle = Fraction(str(sp.Rational(value)))
        pad = abs(middle) / 10**50 + Fraction(1, 10**50)
        note = f"bound on {p.name} ({bound}) mapped onto e^({p.name}/{L}) by a rational enclosure; a relaxation"
        if note not in self.notes:
            self.notes.append(note)
        return [v >= rational(middle - pad)] if lower else [v <= rational(middle + pad)]

    def _huge_exp_facts(self, a: Atom) -> list[z3.BoolRef]:
        """e^q with |q| > HUGE_EXPONENT: its exact enclosure would be as long as its value, so z3
        gets a relaxation: beyond e^±HUGE_EXPONENT, ordered against the other constants
        e^q' (e^q < e^q' for q < q') and multiplicative (e^a e^b = e^(a+b)) where they meet."""
        q = a.data[0]
        v = self.var(a.symbol)
        edge = Fraction(HUGE_EXPONENT)
        if q > 0:
            out = [v > rational(exp_bounds(edge, self.bits)[0])]
        else:
            out = [v > 0, v < rational(exp_bounds(-edge, self.bits)[1])]
        consts = {b.data[0]: b.symbol for b in self.atoms if b.kind == "exp" and b.symbol in self._vars}
        for q2, sym in consts.items():
            if q2 != q and abs(q2) <= HUGE_EXPONENT:
                continue  # small constants are pinned exactly; the bound above already orders them
            if q2 > q:
                out.append(v < self.var(sym))
            for q3, sym3 in consts.items():
                if q2 + q3 == q and sym3 != a.symbol:
                    out.append(v == self.var(sym) * self.var(sym3))
        return out

    def _pexp_facts(self, a: Atom) -> list[z3.BoolRef]:
        """Facts true of w = e^(c p): w > 0, w >= 1 + c p, monotone in c (by the sign of p),
        products and small integer powers of the other e^(c' p) in use."""
        s, c = a.data
        w, p = self.var(a.symbol), self.var(s)
        out = [w > 0, w >= 1 + rational(c) * p]
        table = self._sep_exps[s]
        chain = sorted(set(table) | {sp.Integer(0)})
        i = chain.index(c)
        if i + 1 < len(chain):  # the next coefficient up (1 stands for e^(0 p))
            b = chain[i + 1]
            wb = self.var(table[b]) if b != 0 else z3.RealVal(1)
            out += [z3.Implies(p > 0, w < wb), z3.Implies(p == 0, w == wb), z3.Implies(p < 0, w > wb)]
        if i > 0 and chain[i - 1] == 0:
            out += [z3.Implies(p > 0, w > 1), z3.Implies(p == 0, w == 1), z3.Implies(p < 0, w < 1)]
        for b, other in table.items():
            if b != c and c + b in table and other in self._vars:
                out.append(w * self.var(other) == self.var(table[c + b]))
            if b != 0 and c != b and (c / b).is_Integer and 2 <= c / b <= 6 and other in self._vars:
                out.append(w == _power(self.var(other), int(c / b)))
        return out

    def _binomial_facts(self, a: Atom) -> list[z3.BoolRef]:
        v = self.var(a.symbol)
        n, m = a.data
        zn, zm = self.z3(self.poly(n)), self.z3(self.poly(m))
        out = [z3.Implies(zn >= 0, v >= 0), z3.Implies(z3.And(zm >= 0, zm <= zn), v >= 1)]
        for other in self.atoms:
            if other.kind != "binomial" or other is a:
                continue
            n2, m2 = other.data
            w = self.var(other.symbol)
            if sp.expand(n2 - n) == 0 and sp.expand(m - m2) == 1:  # C(n,m) m = C(n,m-1) (n-m+1)
                out.append(v * zm == w * (zn - zm + 1))
            if sp.expand(n - n2) == 1 and sp.expand(m - m2) == 0:  # C(n,m) (n-m) = C(n-1,m) n
                out.append(v * (zn - zm) == w * zn)
        return out

    def legend(self) -> str:
        """What each introduced variable stands for (for certificate comments)."""
        lines = []
        for a in self.atoms:
            if a.kind == "exp" and abs(a.data[0]) > HUGE_EXPONENT:
                lines.append(f"{a.symbol} = {sstr(a.meaning)}, relaxed: beyond e^(±{HUGE_EXPONENT}), ordered against and "
                             "multiplied with the other huge constants")
            elif a.kind in ("exp", "log", "root", "rpow"):
                lines.append(f"{a.symbol} = {sstr(a.meaning)}, pinned between rationals ({self.bits}-bit enclosure)")
            elif a.kind == "u":
                lines.append(f"{a.symbol} = {sstr(a.meaning)}")
            else:
                lines.append(f"{a.symbol} = {sstr(a.meaning)}")
        ints = [p.name for p in self.parameters if p.kind == "integer" and p.symbol in self._vars]
        if ints and self.integers:
            lines.append(f"integer parameters {', '.join(ints)} kept integer")
        elif ints:
            lines.append(f"integer parameters {', '.join(ints)} relaxed to reals (a proof for all reals covers the integers)")
        return "\n".join(lines)

    def refine(self) -> None:
        self.bits *= 4


def _name(prefix: str, q: Fraction) -> str:
    text = f"{q.numerator}" if q.denominator == 1 else f"{q.numerator}_{q.denominator}"
    return f"{prefix}_{re.sub('-', 'm', text)}"


def _power(v, n: int):
    return z3.Product([v] * n) if n <= 6 else v**n


def _cmp(a, op: str, b):
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[op]


# --- solving ----------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What one z3 query said."""

    result: str  # 'unsat' | 'sat' | 'unknown'
    model: z3.ModelRef | None = None
    reason: str = ""
    smt2: object = ""  # a Script
    seconds: float = 0.0
    work: int = 0  # z3 resource units spent (the unit of ``rlimit``)


def new_solver(rlimit: int | None) -> z3.Solver:
    """A fresh solver with the fixed seed and a budget of ``rlimit`` z3 resource units (counted
    from this query's start; None or 0: no limit)."""
    s = z3.Solver()
    s.set("random_seed", SEED)
    if rlimit:
        s.set("rlimit", int(rlimit))
    return s


#: the most resource units one query has used in this process (tests read it to keep
#: :data:`DEFAULT_RLIMIT` far above what the bundled specs need)
PEAK_RLIMIT = [0]


def _used(s: z3.Solver, before: int) -> int:
    try:
        return int(s.statistics().get_key_value("rlimit count")) - before
    except (z3.Z3Exception, KeyError):
        return 0


def check(assertions: list[z3.BoolRef], *, rlimit: int | None = DEFAULT_RLIMIT, comment: str = "") -> Outcome:
    """Run one query in a fresh solver; keep its SMT-LIB text for certificates."""
    import time

    s = new_solver(rlimit)
    s.add(*assertions)
    before = _used(s, 0)
    start = time.perf_counter()
    try:
        r = s.check()
    except z3.Z3Exception as exc:  # pragma: no cover - z3 internal failure
        raise SolverError(f"z3 failed: {exc}") from None
    seconds = time.perf_counter() - start  # reported only, never compared with a budget
    out = Outcome(str(r), seconds=seconds, work=_used(s, before))
    PEAK_RLIMIT[0] = max(PEAK_RLIMIT[0], out.work)
    if r == z3.sat:
        out.model = s.model()
    elif r == z3.unknown:
        out.reason = s.reason_unknown() or "unknown"
    out.smt2 = Script(list(assertions), comment)
    return out


class Script:
    """The SMT-LIB 2 text of one query, printed only when asked for (certificates)."""

    def __init__(self, assertions: list[z3.BoolRef], comment: str = ""):
        self.assertions = assertions
        self.comment = comment
        self._text: str | None = None

    def __str__(self) -> str:
        if self._text is None:
            self._text = smt2_text(self.assertions, self.comment)
        return self._text

    def rstrip(self) -> str:
        return str(self).rstrip()

    def __getstate__(self) -> dict:  # z3 terms do not pickle; the text is what a verdict keeps
        return {"assertions": [], "comment": self.comment, "_text": str(self)}


def smt2_text(assertions: list[z3.BoolRef], comment: str = "") -> str:
    """A self-contained SMT-LIB 2 script with one ``(check-sat)``.

    The assertions are copied into a fresh z3 context first: z3 prints shared subterms as
    ``let`` bindings named after internal ids and chosen by reference counts, both of which
    depend on everything else alive in the process. A fresh context makes the text a function
    of the query alone (certificates are regenerated and diffed)."""
    ctx = z3.Context()
    s = z3.Solver(ctx=ctx)
    s.add(*[a.translate(ctx) for a in assertions])
    body = _canonical_lets(s.to_smt2())
    lines = [f"; {line}" for line in comment.splitlines()] if comment else []
    lines.append(f"(set-option :smt.random_seed {SEED})")
    return "\n".join(lines) + "\n" + body


def _canonical_lets(text: str) -> str:
    """z3 names shared subterms after internal AST ids (``?x127``), which depend on everything
    created earlier in the process; renumber them in order of appearance so that the same
    query always prints the same text."""
    names: dict[str, str] = {}

    def rename(m: re.Match) -> str:
        token = m.group(0)
        if token not in names:
            names[token] = f"{token[0]}t{len(names)}"
        return names[token]

    return re.sub(r"[?$]x\d+\b", rename, text)


def model_value(model: z3.ModelRef, v: z3.ArithRef) -> Fraction | None:
    """A rational approximation (exact when rational) of a model value."""
    val = model.eval(v, model_completion=True)
    try:
        if z3.is_rational_value(val):
            return Fraction(val.numerator_as_long(), val.denominator_as_long())
        if z3.is_algebraic_value(val):
            approx = val.approx(30)
            return Fraction(approx.numerator_as_long(), approx.denominator_as_long())
    except ValueError:  # a numeral too long for Python's int(str) (only a hint is lost)
        return None
    return None


def fraction(expr: sp.Basic) -> tuple[sp.Basic, sp.Basic]:
    """numerator, denominator of a rational function (common denominator)."""
    n, d = sp.fraction(sp.together(expr))
    return n, d


def nonvanishing_error(where: str, expr: sp.Basic, point: dict) -> InvalidSpec:
    pretty = ", ".join(f"{k} = {v}" for k, v in point.items())
    return InvalidSpec(
        f"{where}: the denominator {expr} can be 0 (at {pretty}); restrict the parameter ranges "
        "so that every entry is defined, or rewrite the entry"
    )
