"""Small algebra helpers shared by the derivation modules: the symbols every derivation
uses (n users, the item probability p_j, the observed frequency f_j), simplification
that copes with binomials of symbolic arguments, and exact/numeric checks."""

from __future__ import annotations

import math
from functools import lru_cache

import sympy as sp

from ldpaudit.errors import NotDerivable


#: number of users
N_USERS = sp.Symbol("n", positive=True, integer=True)
#: probability of item j under the input distribution p
P_J = sp.Symbol("p_j", nonnegative=True)
#: observed frequency of the per-item statistic: F_j / n
F_J = sp.Symbol("f_j", real=True)
#: the real relaxation of an integer parameter in optimizations
KAPPA = sp.Symbol("kappa", positive=True)



def simplify(expr: sp.Basic) -> sp.Basic:
    """Simplify with binomials of symbolic arguments rewritten as ratios (combsimp), then
    cancel and factor over u = e^(ε/L) when every exponential is a power of one such u
    (so (e^(ε/2) - 1)^2 stays factored instead of expanding). A pure function of its
    argument: a derivation that simplifies the same expression twice pays once."""
    expr = sp.sympify(expr)
    return _simplified(expr) if isinstance(expr, sp.Basic) else _simplify(expr)  # a mutable matrix: no memory


@lru_cache(maxsize=4096)
def _simplified(expr: sp.Basic) -> sp.Basic:
    return _simplify(expr)


def _simplify(expr: sp.Basic) -> sp.Basic:
    if expr.is_number and expr.is_Rational:
        return expr
    if expr.has(sp.Piecewise, sp.Sum, sp.Integral):
        return combsimp(expr) if expr.has(sp.binomial) else expr
    expr_u, back = to_exp_base(expr)
    if expr_u.has(sp.binomial, sp.factorial, sp.gamma):
        ratios = _binomial_ratios(expr_u)
        expr_u = combsimp(expr_u) if ratios is None else ratios
    fast = rational_simplify(expr_u)
    if fast is not None:
        return fast.xreplace(back) if back else fast
    out = sp.cancel(sp.together(expr_u))
    try:
        factored = sp.factor(out)
        if sp.count_ops(factored) <= sp.count_ops(out):
            out = factored
    except (sp.PolynomialError, NotImplementedError, TypeError):
        pass
    return out.xreplace(back) if back else out


def rational_simplify(expr: sp.Basic, together: bool = True) -> sp.Basic | None:
    """What :func:`simplify` makes of a rational function ``expr`` with no exponentials or
    binomials left: the factored form when it is no longer than the cancelled one."""
    fast = cancel_factor(expr, together)
    if fast is None:
        return None
    out, factored = fast
    return factored if sp.count_ops(factored) <= sp.count_ops(out) else out


def factor_cancelled(expr: sp.Basic, together: bool = True) -> sp.Basic:
    """``sp.factor(sp.cancel(sp.together(expr)))`` (without ``together`` when it is False),
    computed by :func:`cancel_factor` when it applies."""
    fast = cancel_factor(expr, together)
    if fast is None:
        return sp.factor(sp.cancel(sp.together(expr) if together else expr))
    return fast[1]


def cancel_factor(expr: sp.Basic, together=True):
    """``(sp.cancel(expr), sp.factor(sp.cancel(expr)))`` computed in one polynomial ring.

    cancel and factor are canonical on a rational function once its generators are fixed
    (sympy sorts them): cancel returns P/Q in lowest terms with its signs normalized, factor the
    content and the irreducible factors of P and Q. So both are taken from the ring elements
    P, Q directly, instead of sympy bringing the expression together (gcd_terms) again at each
    call. None when the expression is not a rational function of its symbols (the caller
    then asks sympy)."""
    cancelled = _cancelled(expr, together)
    if cancelled is None:
        return None
    ring, P, Q = cancelled
    out = P.as_expr() / Q.as_expr()
    to_sympy = ring.domain.to_sympy
    coeff, factors = sp.Integer(1), []
    for part, sign in ((P, 1), (Q, -1)):
        c, fs = _factor_list(part)
        coeff *= to_sympy(c) ** sign
        factors += [(f.as_expr(), k * sign) for f, k in fs]
    from sympy.core.mul import _keep_coeff

    factored = _keep_coeff(coeff, sp.Mul(*[f if k == 1 else f**k for f, k in factors]))
    return out, factored


def combsimp(expr: sp.Basic) -> sp.Basic:
    """sympy's combsimp, made fast for binomials with a numeric top and symbolic bottom
    (C(255, k-1) at d = 256): the tops are written as D + offset for a dummy D, the
    identity is simplified for all D, and D is put back."""
    tops = {b.args[0] for b in expr.atoms(sp.binomial) if b.args[0].is_Integer and not b.args[1].is_number}
    if not tops or max(tops) <= 8:
        return sp.combsimp(expr)
    top = max(tops)
    D = sp.Dummy("D", integer=True, positive=True)
    general = expr.replace(
        lambda a: isinstance(a, sp.binomial) and a.args[0].is_Integer and not a.args[1].is_number,
        lambda a: sp.binomial(D + (a.args[0] - top), a.args[1]),
    )
    return sp.combsimp(general).subs(D, top)


def _binomial_ratios(expr: sp.Basic) -> sp.Basic | None:
    """``expr`` as a rational function when its binomials all have the form C(N + p, K + q) for
    one pair of symbols N, K and integers p, q, and cancel out: each is C(N, K) times
    (N+p)!/N! · K!/(K+q)! · (N-K)!/(N-K+p-q)!, products of p, q, p-q linear factors, so
    C(N, K) becomes one symbol B; when B cancels the result is exact (the identity holds
    for every integer N, K where the binomials are defined). None otherwise (use combsimp)."""
    if expr.has(sp.factorial, sp.gamma):
        return None
    pair, ratios = None, {}
    for b in expr.atoms(sp.binomial):
        (p, n), (q, k) = b.args[0].as_coeff_Add(), b.args[1].as_coeff_Add()
        if not (p.is_Integer and q.is_Integer and n.is_Symbol and k.is_Symbol):
            return None
        if pair is None:
            pair = (n, k)
        elif pair != (n, k):
            return None
        ratios[b] = _shift(n, int(p)) / _shift(k, int(q)) * (1 / _shift(n - k, int(p - q)))
    if pair is None:
        return None
    B = sp.Dummy("B", positive=True)
    value = cancel(expr.xreplace({b: B * r for b, r in ratios.items()}))
    return None if value.has(B) else value


def _shift(x: sp.Basic, m: int) -> sp.Basic:
    """(x + m)!/x! for an integer m (a product of |m| linear factors, inverted when m < 0)."""
    if m >= 0:
        return sp.Mul(*[x + i for i in range(1, m + 1)])
    return 1 / sp.Mul(*[x - i for i in range(0, -m)])


def _factor_list(P):
    """``P.factor_list()``, read off without factoring when P has degree 1 in a set V of its
    generators (a column estimator: linear in the m̂'s): P = g·L with g the gcd of its
    coefficients in the other generators and L primitive of degree 1 in V, hence irreducible
    (a factorization would put a factor of degree 0 in V, a common divisor of L's
    coefficients). So the factors are those of g and L, each with a positive leading
    coefficient as sympy normalizes them."""
    ring = P.ring
    if P.is_ground or ring.ngens < 2:
        return P.factor_list()
    monoms = list(P.itermonoms())
    candidates = [i for i in range(ring.ngens) if max(m[i] for m in monoms) == 1]
    linear = []  # no monomial has two of them (greedily, the rarest first)
    for i in sorted(candidates, key=lambda i: sum(1 for m in monoms if m[i])):
        if not any(m[i] and m[j] for m in monoms for j in linear):
            linear.append(i)
    if not linear:
        return P.factor_list()
    coefficients = {}
    for m, c in P.iterterms():
        at = next((i for i in linear if m[i]), None)
        rest = tuple(0 if i == at else e for i, e in enumerate(m))
        coefficients.setdefault(at, ring.zero)
        coefficients[at] += ring({rest: c})
    g = ring.zero
    for c in coefficients.values():
        g = g.gcd(c)
    L = P.exquo(g)
    coeff, factors = g.factor_list()
    if ring.domain.is_negative(L.LC):
        L, coeff = -L, -coeff
    return coeff, factors + [(L, 1)]


def cancel(expr: sp.Basic) -> sp.Basic:
    """``sp.cancel(sp.together(expr))``, from the ring when :func:`cancel_factor` applies."""
    cancelled = _cancelled(expr, True)
    if cancelled is None:
        return sp.cancel(sp.together(expr))
    _, P, Q = cancelled
    return P.as_expr() / Q.as_expr()


def _cancelled(expr: sp.Basic, together: bool):
    """``(ring, P, Q)`` with P/Q = expr in lowest terms, normalized as sympy's cancel does."""
    if expr.has(sp.Max, sp.Min):
        return None  # a Max or Min would be a generator of the ring, not a Symbol: refused below, after sring
    fraction = _fraction(expr)
    if fraction is not None:
        ring, (F, G) = fraction
    else:
        try:
            p, q = (expr if not together else sp.together(expr)).as_numer_denom()
            ring, (F, G) = sp.sring((p, q))
        except (sp.PolynomialError, sp.polys.polyerrors.GeneratorsNeeded, NotImplementedError, TypeError):
            return None
        if not ring.ngens or not all(isinstance(g, sp.Symbol) for g in ring.symbols):
            return None  # generators such as x**(d - w): sympy's cancel may choose others
    P, Q = F.cancel(G)
    return ring, P, Q


def _fraction(expr: sp.Basic):
    """``(ring, (numerator, denominator))`` of ``expr`` over ZZ[its symbols, in sympy's order]
    when it is built from symbols and rationals by +, · and integer powers: the fraction is
    formed by exact arithmetic in the field of fractions (each step in lowest terms), not by
    bringing the expression together symbolically. None otherwise."""
    if not _rational_in_symbols(expr) or not expr.free_symbols:
        return None
    field = _fraction_field(_generators(expr))
    parts = expr.args if expr.is_Mul else (expr,)
    if all(_polynomial_in_symbols(a.base if a.is_Pow and a.exp.is_negative else a) for a in parts):
        # a product of polynomials and their inverses: numerator and denominator are products
        # in the polynomial ring (no fraction arithmetic term by term)
        num, den = expr.as_numer_denom()
        try:
            return field.ring, (field.ring.from_expr(num), field.ring.from_expr(den))
        except (ValueError, sp.polys.polyerrors.CoercionFailed):
            pass
    ring = field.ring
    return ring, _numerator_denominator(expr, ring, dict(zip(ring.symbols, ring.gens)))


def _numerator_denominator(expr: sp.Basic, ring, gens: dict):
    """``(N, D)`` in ``ring`` with N/D = ``expr`` (a rational function of the ring's symbols),
    not in lowest terms: sums are brought over the least common multiple of their distinct
    denominators and products multiplied out, with no gcd of numerators (the caller cancels
    once, at the end; field arithmetic would cancel at every + and ·). Terms of a sum that
    share a denominator (the entries of a channel's inverse mostly do) add their numerators."""
    if expr.is_Symbol:
        return gens[expr], ring.one
    if expr.is_Rational:
        return ring(expr.p), ring(expr.q)
    if expr.is_Add:
        by_denominator: dict = {}
        for term in expr.args:
            N, D = _numerator_denominator(term, ring, gens)
            by_denominator[D] = by_denominator.get(D, ring.zero) + N
        denominators = list(by_denominator)
        if len(denominators) == 1:
            return by_denominator[denominators[0]], denominators[0]
        common = denominators[0]
        for D in denominators[1:]:
            common = common.lcm(D)
        return sum((N * common.exquo(D) for D, N in by_denominator.items()), ring.zero), common
    if expr.is_Mul:
        N, D = ring.one, ring.one
        for factor in expr.args:
            n, d = _numerator_denominator(factor, ring, gens)
            N, D = N * n, D * d
        return N, D
    if expr.is_Pow and expr.exp.is_Integer:
        N, D = _numerator_denominator(expr.base, ring, gens)
        e = int(expr.exp)
        if e < 0:
            if not N:
                raise ZeroDivisionError(f"{expr} divides by zero")
            N, D, e = D, N, -e
        return N**e, D**e
    raise ValueError(f"{expr} is not a rational function of {ring.symbols}")


def _generators(expr: sp.Basic) -> tuple:
    """The free symbols of ``expr`` in sympy's generator order, made deterministic: sympy sorts
    the symbols by name, so two symbols with one name (``t`` and ``t`` positive) would keep the
    order of a set, which changes with the hash seed, and with it the ring's lex order, hence
    where cancel and factor put a sign. Ties are pre-sorted by the symbols' assumptions."""
    from sympy.polys.polyutils import _sort_gens

    return tuple(_sort_gens(sorted(expr.free_symbols, key=lambda s: (s.name, str(s._hashable_content())))))


@lru_cache(maxsize=256)
def _fraction_field(gens):
    from sympy.polys.fields import FracField

    return FracField(gens, sp.ZZ, sp.polys.orderings.lex)


def _polynomial_in_symbols(expr: sp.Basic) -> bool:
    return _in_symbols(expr, inverses=False)


def _rational_in_symbols(expr: sp.Basic) -> bool:
    return _in_symbols(expr, inverses=True)


def _in_symbols(expr: sp.Basic, *, inverses: bool) -> bool:
    """Built from symbols and rationals by +, · and integer powers (positive only unless
    ``inverses``): a polynomial, or a rational function, of its symbols."""
    if expr.is_Symbol or expr.is_Rational:
        return True
    if expr.is_Add or expr.is_Mul:
        return all(_in_symbols(a, inverses=inverses) for a in expr.args)
    if expr.is_Pow:
        return expr.exp.is_Integer and (inverses or expr.exp > 0) and _in_symbols(expr.base, inverses=inverses)
    return False


_U = sp.Symbol("u_exp", positive=True)


def to_exp_base(expr: sp.Basic):
    """Rewrite every exp(q·a) (q rational, one common a) as u**(q·L) with u = exp(a/L).
    Returns (rewritten, {u: exp(a/L)}) or (expr, {}) when that is not possible."""
    atoms = set(expr.atoms(sp.exp))
    if expr.has(sp.E):
        atoms.add(sp.E)
    if not atoms:
        return expr, {}
    base = None
    coeffs = []
    for a in atoms:
        coeff, rest = (sp.Integer(1), sp.Integer(1)) if a is sp.E else a.args[0].as_coeff_Mul()
        if not coeff.is_Rational:
            return expr, {}
        if base is None:
            base = rest
        elif rest != base:
            return expr, {}
        coeffs.append(coeff)
    L = 1
    for c in coeffs:
        L = sp.ilcm(L, sp.Rational(c).q)
    sub = {a: _U ** ((1 if a is sp.E else sp.Rational(a.args[0].as_coeff_Mul()[0])) * L) for a in atoms}
    return expr.xreplace(sub), {_U: sp.exp(base / L)}


def positive_sqrt(expr: sp.Basic) -> sp.Basic:
    """sqrt of a positive expression, taken factor by factor: even powers come out of the
    root with the sign that makes them positive (checked at a sample point), so
    sqrt((e^ε - 1)^2) is e^ε - 1 and not Abs(e^ε - 1)."""
    expr = sp.sympify(expr)
    expr_u, back = to_exp_base(expr)
    if expr_u.has(sp.binomial):
        ratios = _binomial_ratios(expr_u)
        expr_u = combsimp(expr_u) if ratios is None else ratios
    num, den = sp.fraction(cancel(expr_u))
    outside, inside = sp.Integer(1), sp.Integer(1)
    for part, power in ((num, 1), (den, -1)):
        coeff, factors = sp.factor_list(part)
        inside *= sp.Abs(coeff) ** power
        for f, e in factors:
            if _sample_sign(f) < 0:
                f = -f
            half, rest = divmod(e, 2)
            outside *= f ** (half * power)
            inside *= f ** (rest * power)
    root = outside * sp.sqrt(sp.factor(inside))
    return root.xreplace(back) if back else root


def _sample_sign(expr: sp.Basic) -> int:
    values = {}
    for s in expr.free_symbols:
        name = s.name
        if name == "u_exp":
            values[s] = sp.Rational(27, 10)
        elif name in ("d", "K"):
            values[s] = 11
        elif name == "k":
            values[s] = 3
        else:
            values[s] = 5
    value = expr.xreplace(values)
    return -1 if float(value) < 0 else 1


def is_zero(expr: sp.Basic) -> bool:
    """True when the expression is provably zero (combsimp/cancel/simplify)."""
    expr = sp.sympify(expr)
    if expr == 0:
        return True
    if _nonzero_somewhere(expr):
        return False
    for step in (simplify, sp.simplify):
        try:
            if step(expr) == 0:
                return True
        except (TypeError, ValueError, NotImplementedError):
            continue
    return False


def _nonzero_somewhere(expr: sp.Basic) -> bool:
    """True when ``expr`` is clearly nonzero at one admissible point (the sizes d, K at 11,
    k at 3, other integers at 5, 6, ..., reals at 27/10, 31/10, ...), so it is not identically
    zero and no simplification needs to try. False means only "not shown here"."""
    if expr.has(sp.Sum, sp.Integral, sp.Piecewise):
        return False
    values = {}
    for i, s in enumerate(sorted(expr.free_symbols, key=str)):
        if s.name in ("d", "K"):
            values[s] = sp.Integer(11)
        elif s.name == "k":
            values[s] = sp.Integer(3)
        else:
            values[s] = sp.Integer(5 + i) if s.is_integer else sp.Rational(27 + 4 * i, 10)
    try:
        value = complex(sp.N(expr.xreplace(values), 30))
    except (TypeError, ValueError, ZeroDivisionError):
        return False
    return math.isfinite(abs(value)) and abs(value) > 1e-12


def numeric(expr: sp.Basic) -> float | None:
    """The value as a float when the expression has no free symbols, else None."""
    expr = sp.sympify(expr)
    if expr.free_symbols:
        return None
    try:
        value = complex(sp.N(expr, 30))
    except (TypeError, ValueError):
        return None
    if abs(value.imag) > 1e-12 * max(1.0, abs(value.real)):
        return None
    return value.real if math.isfinite(value.real) else None


def exp_base(mech_symbols: dict[str, sp.Symbol]) -> sp.Basic | None:
    """e^ε for the mechanism's ε parameter (None if it has no free ε)."""
    eps = mech_symbols.get("epsilon")
    return sp.exp(eps) if eps is not None else None


def leading_power(expr: sp.Basic, var: sp.Symbol) -> tuple[sp.Basic, sp.Basic]:
    """``(c, a)`` with ``expr ~ c * var**a`` as ``var -> oo``.

    Algebraic expressions (sums, products and rational powers of polynomials in ``var``) are
    read off structurally, which is exact and fast; a sum whose leading terms cancel, and
    anything else, goes to sympy's limits."""
    expr = sp.sympify(expr)
    fast = _leading(expr, var, at_infinity=True)
    if fast is not None:
        c, a = fast
        return simplify(c), a
    slow = _leading_with_log(expr, var)
    if slow is not None:
        return slow
    a = sp.limit(sp.log(expr) / sp.log(var), var, sp.oo)
    if not a.is_finite:
        raise NotDerivable(f"{expr} has no power-law behaviour as {var} -> oo")
    c = sp.limit(expr / var**a, var, sp.oo)
    return sp.simplify(c), a


def _leading_with_log(expr: sp.Basic, var: sp.Symbol):
    """``(0 or oo, a)`` for ``expr ~ c·var^a·log(var)^b`` with c > 0 and b != 0 as var -> oo,
    for expressions algebraic in var and ℓ = log(var): the leading power of var is read off with
    ℓ held fixed (any power of var outgrows any power of ℓ), then the leading power b of ℓ in
    its coefficient. Then lim log(expr)/log(var) = a and lim expr/var^a = c·ℓ^b is 0 (b < 0) or
    oo (b > 0), the limits sympy would compute. None when that structure does not decide it."""
    log_var = sp.log(var)
    if not expr.has(log_var):
        return None
    ell = sp.Dummy("ell", positive=True)
    algebraic = expr.xreplace({log_var: ell})
    outer = _leading(algebraic, var, at_infinity=True)
    if outer is None:
        return None
    coefficient, a = outer
    inner = _leading(coefficient, ell, at_infinity=True)
    if inner is None or inner[0].has(var, ell):
        return None
    c, b = inner
    if b == 0 or c.is_positive is not True:
        return None
    return (sp.oo if b > 0 else sp.Integer(0)), a


def leading_term_at_zero(expr: sp.Basic, var: sp.Symbol) -> sp.Basic:
    """The leading term of the series of ``expr`` as ``var -> 0``.

    When ``var`` enters only through exponentials e^(q·var), write e^(var/L) = 1 + w (L the
    common denominator of the q): the expression is algebraic in w, its leading term c·w^a is
    read off structurally, and w = var/L + O(var²) gives c·(var/L)^a. An expression algebraic in
    var is read off directly. Otherwise, or when the leading terms cancel, sympy's series decides."""
    expr = sp.sympify(expr)
    fast = _leading_term_exp(expr, var)
    if fast is None and not any(e.has(var) for e in expr.atoms(sp.Function)):
        lead = _leading(expr, var, at_infinity=False)  # algebraic in var: read off directly
        fast = None if lead is None else lead[0] * var ** lead[1]
    if fast is not None:
        return sp.factor(fast)
    term = sp.series(expr, var, 0, 3).removeO()
    terms = sp.Add.make_args(sp.expand(term))
    def order(t):
        powers = sp.Poly(t * var**10, var).monoms() if t.has(var) else [(10,)]
        return powers[0][0]
    try:
        low = min(terms, key=order)
        lowest = order(low)
        return sp.factor(sp.Add(*[t for t in terms if order(t) == lowest]))
    except (sp.PolynomialError, ValueError):
        return sp.factor(expr.as_leading_term(var))


def _leading_term_exp(expr: sp.Basic, var: sp.Symbol) -> sp.Basic | None:
    coefficients = []
    for e in expr.atoms(sp.exp):
        q = sp.cancel(e.args[0] / var)
        if q.has(var) or not q.is_Rational:
            return None
        coefficients.append(q)
    if not coefficients:
        return None
    L = sp.ilcm(*[q.q for q in coefficients]) if len(coefficients) > 1 else coefficients[0].q
    w = sp.Dummy("w", positive=True)
    algebraic = expr.replace(lambda a: isinstance(a, sp.exp), lambda a: (1 + w) ** (sp.cancel(a.args[0] / var) * L))
    if algebraic.has(var):
        return None
    lead = _leading(algebraic, w, at_infinity=False)
    if lead is None:
        return None
    c, a = lead
    return c * (var / L) ** a


def _leading(expr: sp.Basic, var: sp.Symbol, *, at_infinity: bool):
    """``(c, a)`` with ``expr ~ c·var^a`` (var -> oo, or var -> 0+), c free of var and nonzero,
    for algebraic expressions; None when the structure does not decide it (cancellation,
    transcendental functions of var)."""
    if not expr.has(var):
        return (expr, sp.Integer(0)) if expr != 0 else None
    if expr == var:
        return sp.Integer(1), sp.Integer(1)
    if expr.is_Mul:
        c, a = sp.Integer(1), sp.Integer(0)
        for factor in expr.args:
            part = _leading(factor, var, at_infinity=at_infinity)
            if part is None:
                return None
            c, a = c * part[0], a + part[1]
        return c, a
    if expr.is_Pow:
        base, exponent = expr.args
        if exponent.has(var) or not exponent.is_Rational:
            return None
        part = _leading(base, var, at_infinity=at_infinity)
        if part is None:
            return None
        if exponent.q != 1 and part[0].is_positive is not True:
            return None  # a fractional power of a coefficient of unknown sign
        return part[0] ** exponent, part[1] * exponent
    if expr.is_Add:
        parts = [_leading(term, var, at_infinity=at_infinity) for term in expr.args]
        if any(p is None for p in parts):
            return None
        best = max(p[1] for p in parts) if at_infinity else min(p[1] for p in parts)
        c = simplify(sum((p[0] for p in parts if p[1] == best), sp.Integer(0)))
        if c == 0 or c.is_zero is not False:
            return None  # the leading terms cancel (or might): let sympy decide
        return c, best
    return None


def without_abs(expr: sp.Basic) -> sp.Basic:
    """``expr`` with each |a| replaced by a or -a where the sign of a follows from the declared
    parameter ranges: ``|e^ε - 1|`` is ``e^ε - 1`` when ε > 0. Sound: every e^a with a > 0 is
    read as 1 + t with t > 0, and sympy must show the sign for every such t."""
    def sign_of(a: sp.Basic):
        if a.is_positive or a.is_negative:
            return a.is_positive
        subs = {}
        for e in a.atoms(sp.exp):
            if e.args[0].is_positive:
                subs[e] = 1 + sp.Dummy("t", positive=True)
            elif e.args[0].is_negative:
                subs[e] = 1 / (1 + sp.Dummy("t", positive=True))
        if not subs:
            return None
        b = sp.factor(a.xreplace(subs))
        return True if b.is_positive else False if b.is_negative else None

    def replace(a):
        s = sign_of(a)
        return a if s is True else -a if s is False else sp.Abs(a)

    return expr.replace(lambda e: isinstance(e, sp.Abs), lambda e: replace(e.args[0]))
