"""The distributions of the draws the subset reads: each call of ``random``, ``numpy.random``
or a Generator becomes a finite map from values to exact probabilities (the interpreter
branches on it), or continuous uniforms (``random()``) that branch when compared.

Python's ``randint(a, b)`` includes b; numpy's ``randint``/``integers`` exclude ``high``
(unless ``endpoint=True``); ``sample``/``choice(replace=False)`` draw ordered tuples without
replacement, each of the n!/(n-k)! with probability (n-k)!/n!.
"""
from __future__ import annotations

import itertools
import math

import sympy as sp

from ldpaudit.extract.symbolic import Arr, Stop, Uniform, as_expr, compare, concrete_int

#: draws from continuous or unbounded distributions: refused by name
CONTINUOUS = {"laplace", "normal", "gauss", "normalvariate", "standard_normal", "exponential", "expovariate",
              "gamma", "gammavariate", "beta", "betavariate", "uniform", "triangular", "lognormal", "lognormvariate",
              "vonmisesvariate", "paretovariate", "weibullvariate", "standard_cauchy", "standard_exponential",
              "geometric", "poisson", "logistic", "gumbel", "chisquare", "randn", "random_integers", "multinomial",
              "dirichlet", "hypergeometric", "zipf", "pareto", "rayleigh", "wald", "negative_binomial", "bytes",
              "getrandbits", "randbytes", "multivariate_normal", "standard_t", "f", "noncentral_f"}
SEEDING = {"seed", "setstate", "set_state", "default_rng", "RandomState", "Random", "SystemRandom", "Generator"}


class Draws:
    """Evaluates one draw call. ``choose(options)`` is the interpreter's branching: options are
    (probability, value, note) and it returns the value of the branch this path takes."""

    def __init__(self, choose, budget, symbolic=None):
        self.choose = choose
        self.budget = budget
        #: on a symbolic domain, ``symbolic(lo, hi, what)``: a uniform draw over lo..hi-1 whose
        #: size is symbolic (the interpreter's draw variable); None: sizes must be concrete
        self.symbolic = symbolic

    def call(self, api: str, name: str, args: list, kwargs: dict):
        if name in CONTINUOUS:
            raise Stop(f"{name}()", "is a draw from a continuous or unbounded distribution")
        method = getattr(self, "_" + name, None)
        if method is None:
            raise Stop(f"the draw {name}()", "is not in the subset (random, randrange, randint, integers, choice, "
                                             "sample, shuffle, permutation, binomial)")
        return method(api, args, kwargs)

    # -- helpers --

    def _size(self, kwargs: dict, args: list, index: int):
        size = kwargs.pop("size", args[index] if len(args) > index else None)
        if size is None:
            return None
        if isinstance(size, tuple):
            if len(size) != 1:
                raise Stop(f"size={size}", "only one-dimensional draws are read (a per-report randomizer)")
            size = size[0]
        n = concrete_int(size, "size")
        self.budget.spend(n)
        return n

    def _uniform_int(self, lo: int, hi: int, what: str):
        """Uniform over lo..hi-1."""
        if hi <= lo:
            raise Stop(f"{what} over an empty range {lo}..{hi - 1}", "raises ValueError")
        n = hi - lo
        self.budget.spend(n)
        p = sp.Rational(1, n)
        return self.choose([(p, sp.Integer(v), f"{what} = {v}") for v in range(lo, hi)])

    def _bounds(self, values: list, what: str) -> list | None:
        """Concrete ints, or None when a bound is symbolic and the domain is symbolic (the draw is
        then a draw variable); a symbolic bound otherwise stops, asking for a binding."""
        out = []
        for v in values:
            e = as_expr(v)
            if e.is_Integer or self.symbolic is None or not e.free_symbols:
                if not e.is_Integer and e.free_symbols:
                    names = ", ".join(sorted(str(s) for s in e.free_symbols))
                    raise Stop(f"{what} = {e}", f"needs a concrete integer: bind {names} with --target-arg, or "
                                                f"give the domain as 0..d-1 for code generic in its size")
                out.append(concrete_int(e, what))
            else:
                return None
        return out

    def _repeat(self, size, one):
        return one() if size is None else Arr([one() for _ in range(size)], "int")

    # -- uniforms --

    def _random(self, api, args, kwargs):
        size = self._size(kwargs, args, 0)
        return Uniform(0) if size is None else Arr([Uniform(0) for _ in range(size)], "float")

    _random_sample = _random
    _ranf = _random
    _sample_floats = _random

    def _rand(self, api, args, kwargs):
        if len(args) > 1:
            raise Stop("rand with several dimensions", "only one-dimensional draws are read")
        return self._random(api, list(args), kwargs)

    # -- integers --

    def _randrange(self, api, args, kwargs):
        ints = self._bounds(list(args), "randrange bound")
        if ints is None:
            if len(args) not in (1, 2):
                raise Stop("randrange of symbolic size with a step", "only randrange(n) and randrange(a, b) are read")
            lo, hi = (0, args[0]) if len(args) == 1 else args
            return self.symbolic(as_expr(lo), as_expr(hi), "randrange")
        if len(ints) == 1:
            lo, hi, step = 0, ints[0], 1
        elif len(ints) in (2, 3):
            lo, hi, step = ints[0], ints[1], ints[2] if len(ints) == 3 else 1
        else:
            raise Stop("randrange with these arguments")
        if step != 1:
            values = list(range(lo, hi, step))
            if not values:
                raise Stop("randrange over an empty range", "raises ValueError")
            p = sp.Rational(1, len(values))
            return self.choose([(p, sp.Integer(v), f"randrange = {v}") for v in values])
        return self._uniform_int(lo, hi, "randrange")

    def _randint(self, api, args, kwargs):
        if api == "python":
            if len(args) != 2:
                raise Stop("random.randint without two bounds")
            ints = self._bounds(list(args), "randint bound")
            if ints is None:
                return self.symbolic(as_expr(args[0]), as_expr(args[1]) + 1, "randint")  # both ends included
            a, b = ints
            return self._uniform_int(a, b + 1, "randint")  # both ends included
        return self._integers(api, args, kwargs, name="randint")

    def _integers(self, api, args, kwargs, name="integers"):
        args = list(args)
        low = kwargs.pop("low", args[0] if args else None)
        high = kwargs.pop("high", args[1] if len(args) > 1 else None)
        size = self._size(kwargs, args, 2)
        endpoint = kwargs.pop("endpoint", False)
        kwargs.pop("dtype", None)
        if kwargs:
            raise Stop(f"{name}() with {', '.join(kwargs)}")
        if high is None:
            low, high = 0, low
        ints = self._bounds([low, high], f"{name} bound")
        if ints is None:
            if size is not None:
                raise Stop(f"{name}(..., size=...) of symbolic range", "only one draw of symbolic size is read")
            return self.symbolic(as_expr(low), as_expr(high) + (1 if endpoint is True else 0), name)
        lo, hi = ints
        if endpoint is True:
            hi += 1
        return self._repeat(size, lambda: self._uniform_int(lo, hi, name))

    # -- choice, sample, shuffle, permutation --

    def _population(self, a, what: str) -> list:
        if isinstance(a, Arr):
            return list(a.items)
        if isinstance(a, (list, tuple, range)):
            return [sp.Integer(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in a]
        if isinstance(a, (set, frozenset)):
            raise Stop(f"{what} from a set", "a set's order depends on hashing; draw from a sorted list")
        n = concrete_int(a, f"{what} population")
        return [sp.Integer(v) for v in range(n)]

    def _choice(self, api, args, kwargs):
        args = list(args)
        a = kwargs.pop("a", args[0] if args else None)
        population = self._population(a, "choice")
        if not population:
            raise Stop("choice from an empty sequence", "raises")
        if api == "python":
            self.budget.spend(len(population))
            p = sp.Rational(1, len(population))
            return self.choose([(p, v, f"choice = {_short(v)}") for v in population])
        size = self._size(kwargs, args, 1)
        replace = kwargs.pop("replace", args[2] if len(args) > 2 else True)
        weights = kwargs.pop("p", args[3] if len(args) > 3 else None)
        if kwargs:
            raise Stop(f"choice() with {', '.join(kwargs)}")
        if weights is not None:
            weights = [as_expr(w) for w in (weights.items if isinstance(weights, Arr) else weights)]
            if len(weights) != len(population):
                raise Stop("choice with p of another length", "raises ValueError")
            for w in weights:
                if not compare(w, ">=", 0):
                    raise Stop(f"choice with a negative probability {w}", "raises ValueError")
            total = sp.Add(*weights)
            from ldpaudit.mechanism.checks import is_zero

            if is_zero(total - 1) is not True:
                raise Stop(f"choice with p summing to {sp.simplify(total)}", "p must sum to 1 exactly")
        if replace is not False and replace is not sp.false:
            def one():
                options = [(w, v, f"choice = {_short(v)}") for v, w in
                           zip(population, weights or [sp.Rational(1, len(population))] * len(population))]
                return self.choose([o for o in options if o[0] != 0])
            if size is None:
                return one()
            return Arr([one() for _ in range(size)], "int")
        if weights is not None:
            raise Stop("choice(replace=False, p=...)", "sequential weighted sampling without replacement is not read")
        k = 1 if size is None else size
        drawn = self._ordered(population, k, "choice")
        return drawn[0] if size is None else Arr(list(drawn), "int")

    def _ordered(self, population: list, k: int, what: str) -> tuple:
        """An ordered draw of k distinct positions of population (all (n)_k equally likely)."""
        n = len(population)
        if k > n or k < 0:
            raise Stop(f"{what} of {k} from {n}", "raises ValueError (sample larger than population)")
        count = math.perm(n, k)
        self.budget.spend(count)
        p = sp.Rational(1, count)
        options = [(p, idx, f"{what} = positions {idx}") for idx in itertools.permutations(range(n), k)]
        idx = self.choose(options)
        return tuple(population[i] for i in idx)

    def _sample(self, api, args, kwargs):
        args = list(args)
        population = kwargs.pop("population", args[0] if args else None)
        k = kwargs.pop("k", args[1] if len(args) > 1 else None)
        if kwargs or k is None:
            raise Stop("sample() with these arguments")
        drawn = self._ordered(self._population(population, "sample"), concrete_int(k, "sample size"), "sample")
        return list(drawn)

    def _shuffle(self, api, args, kwargs):
        (x,) = args
        items = x.items if isinstance(x, Arr) else x
        if not isinstance(items, list):
            raise Stop(f"shuffle of a {type(x).__name__}", "shuffle needs a list or an array")
        items[:] = list(self._ordered(list(items), len(items), "shuffle"))

    def _permutation(self, api, args, kwargs):
        (x,) = args
        if isinstance(x, Arr):
            return Arr(list(self._ordered(list(x.items), len(x.items), "permutation")), x.kind)
        population = self._population(x, "permutation")
        return Arr(list(self._ordered(population, len(population), "permutation")), "int")

    # -- binomial --

    def _binomial(self, api, args, kwargs):
        args = list(args)
        n = concrete_int(kwargs.pop("n", args[0] if args else None), "binomial n")
        p = as_expr(kwargs.pop("p", args[1] if len(args) > 1 else None))
        size = self._size(kwargs, args, 2)
        if not (compare(p, ">=", 0) and compare(p, "<=", 1)):
            raise Stop(f"binomial with p = {p}", "raises ValueError (p outside [0, 1])")

        def one():
            self.budget.spend(n + 1)
            options = [(sp.binomial(n, i) * p ** i * (1 - p) ** (n - i), sp.Integer(i), f"binomial = {i}")
                       for i in range(n + 1)]
            return self.choose([o for o in options if not (o[0].is_number and o[0] == 0)])
        return self._repeat(size, one)


def _short(v) -> str:
    text = sp.sstr(v) if isinstance(v, sp.Basic) else repr(v)
    return text if len(text) <= 30 else text[:27] + "..."
