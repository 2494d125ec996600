"""The full derivation of one mechanism, as a sequence of stated steps.

:func:`derive` runs every stage that applies to the mechanism's channel form -- marginal,
estimator (with its unbiasedness proof), variance, worst-case ℓ2² and ℓ1 risks, effective
sample size and its asymptotics, optimal integer parameters, mutual information -- and
records each as a :class:`Step` (prose plus equations) and in ``results`` (the JSON
schema of ``ldpaudit derive --format json``). A stage that does not apply records why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from ldpaudit.derive.algebra import (
    without_abs,
    N_USERS,
    leading_power,
    leading_term_at_zero,
    simplify,
)
from ldpaudit.errors import NotDerivable, NotIdentifiable
from ldpaudit.derive.continuous import MU, mean_estimation
from ldpaudit.derive.estimator import HitEstimator, MatrixEstimator, unbiased_estimator
from ldpaudit.derive.statistic import ItemStatistic
from ldpaudit.derive.information import mutual_information
from ldpaudit.derive.optimize import TARGETS, integer_optimum, stationary_point
from ldpaudit.derive.risk import (
    MODEL_SHORT,
    S2,
    check_model,
    effective_samples,
    half_normal_mean,
    hit_risk,
    matrix_risk,
    nonprivate_l2,
)
from ldpaudit.errors import LdpAuditError
from ldpaudit.mechanism.core import Mechanism
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.product import ProductChannel
from ldpaudit.mechanism.spaces import FiniteDomain

G, H = sp.Symbol("g"), sp.Symbol("h")
PI_Y = sp.Symbol("pi_y", nonnegative=True)


@dataclass(frozen=True)
class Equation:
    lhs: str            # plain text
    lhs_latex: str
    expr: sp.Basic
    relation: str = "="


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    equations: tuple[Equation, ...] = ()


@dataclass(frozen=True)
class Derivation:
    mechanism: str
    form: str
    params: tuple[tuple[str, sp.Basic], ...]
    free: tuple[str, ...]
    sampling_model: str
    steps: tuple[Step, ...]
    results: dict = field(default_factory=dict)
    source: str = ""

    def _repr_markdown_(self) -> str:
        """Jupyter's display: the paper-style derivation, numbered steps with display equations."""
        from ldpaudit.derive.render import to_markdown

        return to_markdown(self)

    def _repr_latex_(self) -> str:
        """The same derivation as a LaTeX fragment (sections and align* blocks), e.g. for nbconvert."""
        from ldpaudit.derive.render import to_latex

        return to_latex(self, standalone=False)


def _eq(lhs, lhs_latex, expr, relation="="):
    return Equation(lhs, lhs_latex, sp.sympify(expr), relation)


def _size_symbol(mech: Mechanism):
    if isinstance(mech.inputs, FiniteDomain) and isinstance(mech.inputs.size, sp.Symbol):
        return mech.inputs.size
    return None


def derive(mech: Mechanism, *, model: str = "iid", family: Mechanism | None = None, asymptotics: bool = True) -> Derivation:
    """Derive everything that applies to ``mech`` under the sampling ``model``.

    ``family`` is the unbound mechanism it came from (used to optimize integer parameters
    that ``mech`` has already bound)."""
    check_model(model)
    steps: list[Step] = []
    results: dict = {key: None for key in (
        "marginal", "estimator", "variance", "l2_worst", "l1_worst", "effective_samples", "optimal",
        "mutual_information")}
    results["optimal"] = {}
    results["not_derived"] = {}
    params = tuple(mech.bindings)
    free = mech.parameter_names
    steps.append(_channel_step(mech))
    if isinstance(mech.channel, DensityChannel):
        _derive_density(mech, model, steps, results)
    elif mech.channel.form == "real-input":
        _derive_real_input(mech, model, steps, results)
    elif mech.channel.form in ("signs", "coordinates"):
        _derive_vector(mech, model, steps, results)
    elif mech.channel.form == "mixture":
        _derive_mixture(mech, family, model, steps, results)
    else:
        _derive_discrete(mech, model, steps, results, asymptotics)
        _derive_optimal(mech, family, model, steps, results)
        _derive_information(mech, steps, results)
    return Derivation(mech.name, mech.channel.form, params, free, model, tuple(steps), results, mech.source)


def _skip(results, key, exc):
    results["not_derived"][key] = str(exc)


def _channel_step(mech: Mechanism) -> Step:
    bound = ", ".join(f"{k} = {v}" for k, v in mech.bindings)
    free = ", ".join(p.describe() for p in mech.parameters) or "none"
    text = (f"{mech.name} is a {mech.channel.form} channel on inputs x in {mech.inputs.describe()}, claimed "
            f"ε = {mech.claimed_epsilon}. Free parameters: {free}." + (f" Bound: {bound}." if bound else ""))
    return Step("Mechanism", text)


# --- discrete channels ------------------------------------------------------------------------


def _derive_discrete(mech, model, steps, results, asymptotics):
    try:
        est = unbiased_estimator(mech)
    except (NotIdentifiable, NotDerivable) as exc:
        steps.append(Step("Estimator", f"No unbiased estimator of p is derived: {exc}."))
        for key in ("estimator", "variance", "l2_worst", "l1_worst", "effective_samples"):
            _skip(results, key, exc)
        _explicit_marginal_only(mech, steps, results)
        if isinstance(exc, NotIdentifiable):
            _least_squares_step(mech, steps, results)
        return
    if isinstance(est, HitEstimator):
        _hit_steps(mech, est, model, steps, results, asymptotics)
    else:
        _matrix_steps(mech, est, model, steps, results)


def _least_squares_step(mech, steps, results):
    """Rank-deficient channels: what least squares identifies (ldpaudit.derive.leastsquares)."""
    from ldpaudit.derive.leastsquares import identifiability

    try:
        info = identifiability(mech)
    except LdpAuditError as exc:
        _skip(results, "least_squares", exc)
        return
    results["least_squares"] = {"rank": info.rank, "inputs": info.d, "invisible": [list(a) for a in info.invisible],
                                "statement": info.statement}
    steps.append(Step(
        "Least-squares decoding",
        info.statement + " The least-squares estimator p̂ = m̂Q⁺ has E[p̂] = pP (P = QQ⁺) and bias -p(I - P); its "
        "covariance is Q⁺ᵀ Cov(m̂) Q⁺ (ldpaudit.derive.leastsquares.ls_moments). A basis of the invisible "
        "directions a (aQ = 0):",
        tuple(_eq(f"a_{i}", f"a_{{{i}}}", sp.Matrix(a)) for i, a in enumerate(info.invisible)),
    ))


def _explicit_marginal_only(mech, steps, results):
    try:
        ch = mech.channel if mech.channel.form == "explicit" else mech.materialize(max_entries=20_000)
    except LdpAuditError as exc:
        _skip(results, "marginal", exc)
        return
    p = [sp.Symbol(f"p_{i}", nonnegative=True) for i in range(len(ch.inputs))]
    m = (sp.Matrix([p]) * sp.Matrix(ch.matrix)).applyfunc(simplify)
    results["marginal"] = list(m)
    steps.append(Step("Marginal", "The output distribution is m = pQ (rows of Q are inputs):",
                      tuple(_eq(f"m({y})", f"m({y})", e) for y, e in zip(ch.outputs, m))))


def _hit_steps(mech, est: HitEstimator, model, steps, results, asymptotics):
    stat = est.stat
    d = stat.domain_size
    steps.append(_statistic_step(stat))
    # marginal
    if stat.source == "structured":
        w_hit = next(o.weight for o in stat.same if o.hits)
        w_miss = next(o.weight for o in stat.same if not o.hits)
        m_y = w_hit * PI_Y + w_miss * (1 - PI_Y)   # the declared class weights, as written
        hit_what = "y = x" if stat.statistic == "1{y = j}" else "x in y"
        text = (f"For an input distribution p, an output y has probability m(y) = Σ_x p_x Q(y|x). Every input "
                f"with {hit_what} gives y the weight of that class and every other input the other class's weight, so "
                f"with π(y) = P(X hits y) = Σ_{{x: {hit_what}}} p_x the marginal per output class is m(y) below;")
        eqs = [_eq("m(y)", "m(y)", m_y)]
        results["marginal"] = m_y
    elif stat.source == "hashed":
        text = ("The statistic T_j has mean g when x = j and h when x ≠ j (the same for every pair, see above), so "
                "for an input distribution p")
        eqs = []
        results["marginal"] = est.mean_equation
    else:
        text = ("The output is a vector with independent coordinates given x; coordinate j has the 'on' law when x = j "
                "and the 'off' law otherwise, so its marginal mean is")
        eqs = []
        results["marginal"] = est.mean_equation
    eqs.append(_eq("E[f_j]", r"\mathbb{E}[f_j]", est.mean_equation))
    steps.append(Step("Marginal", text + (" the item frequency f_j = F_j/n has mean E[f_j] (both sampling models):"
                                          if stat.source == "structured" else ""), tuple(eqs)))
    # estimator
    steps.append(Step(
        "Unbiased estimator",
        "Solving E[f_j] = p_j g + (1 - p_j) h for p_j and replacing E[f_j] by the observed f_j gives the empirical "
        "estimator p̂_j = (f_j - h)/(g - h):",
        (_eq("p̂_j", r"\hat p_j", est.expression),
         _eq("E[p̂_j] - p_j", r"\mathbb{E}[\hat p_j] - p_j", est.bias)),
    ))
    results["estimator"] = est.expression
    # variance and risks
    risk = hit_risk(est, model)
    alpha, beta, gamma = risk.coefficients
    if model == "iid":
        vtext = ("Under the i.i.d. model each user's statistic is a draw from the mixture of its laws given x = j "
                 "(weight p_j) and x ≠ j, so Var T_j = p_j g2 + (1 - p_j) h2 - (p_j g + (1 - p_j) h)^2 and "
                 "Var p̂_j = Var(T_j)/(n (g - h)^2):")
    else:
        vtext = ("Under the fixed-population model n p_j users hold j, so F_j is a sum of independent reports and "
                 "Var F_j = n p_j Var(T | x = j) + n (1 - p_j) Var(T | x ≠ j); Var p̂_j = Var(F_j)/(n (g - h))^2:")
    steps.append(Step(f"Variance ({MODEL_SHORT[model]})", vtext,
                      (_eq("Var(T_j)", r"\operatorname{Var}(T_j)", simplify(risk.per_user_variance)),
                       _eq("Var(p̂_j)", r"\operatorname{Var}(\hat p_j)", risk.variance))))
    results["variance"] = risk.variance
    steps.append(Step(
        "Worst-case ℓ2² risk",
        f"Var(p̂_j) = α + β p_j + γ p_j² with the coefficients below, so the total risk is "
        f"E‖p̂ - p‖² = Σ_j Var(p̂_j) = dα + β + γ Σ_j p_j² (using Σ_j p_j = 1). Here "
        f"{risk.l2_reason}; the supremum is attained at {risk.l2_argmax}:",
        (_eq("α", r"\alpha", alpha), _eq("β", r"\beta", beta), _eq("γ", r"\gamma", gamma),
         _eq("E‖p̂ - p‖²", r"\mathbb{E}\|\hat p - p\|_2^2", risk.total.subs(S2, sp.Symbol("S_2"))),
         _eq("sup_p E‖p̂ - p‖²", r"\sup_p \mathbb{E}\|\hat p - p\|_2^2", risk.l2_worst)),
    ))
    results["l2_worst"] = risk.l2_worst
    results["l2_argmax"] = risk.l2_argmax
    c = half_normal_mean()
    steps.append(Step(
        "Worst-case ℓ1 risk (large n)",
        "For large n, p̂_j - p_j is approximately N(0, Var p̂_j), and E|N(0, σ²)| = σ·c with c obtained by "
        f"integrating |z| against the standard normal density. The sum "
        f"{risk.l1_reason[len('Σ_j sqrt(2 Var(p̂_j)/π) '):] if risk.l1_reason.startswith('Σ_j') else risk.l1_reason}:",
        (_eq("c", "c", c), _eq("sup_p E‖p̂ - p‖₁", r"\sup_p \mathbb{E}\|\hat p - p\|_1", risk.l1_worst, "≈")),
    ))
    results["l1_worst"] = risk.l1_worst
    _effective(mech, est, d, model, risk, steps, results, asymptotics)


def _statistic_step(stat: ItemStatistic) -> Step:
    eqs = []
    if stat.source == "hashed":
        text = stat.notes[0] + " Hence:"
        eqs = [_eq("g", "g", stat.g), _eq("h", "h", stat.h)]
    elif stat.source == "structured":
        rows = "; ".join(f"[{o.relation}] {o.count} outputs in class '{o.cls}'" + (" (hit j)" if o.hits else "")
                         for o in stat.same)
        rows2 = "; ".join(f"[{o.relation}] {o.count} outputs in class '{o.cls}'" + (" (hit j)" if o.hits else "")
                          for o in stat.other)
        text = (f"The aggregator counts, for each item j, the reports with T_j = {stat.statistic}. Relative to the "
                f"input x the outputs split into orbits whose sizes follow from counting (outputs containing a "
                f"marked items and avoiding b others). For x = j: {rows}. For x ≠ j: {rows2}. Each orbit was "
                "assigned to the output class whose condition holds on a representative and the orbit sizes add up "
                "to the declared class counts. Summing count × weight over the orbits that hit j:")
        eqs = [_eq("g", "g", stat.g), _eq("h", "h", stat.h)]
    else:
        text = (f"Each coordinate is a statistic T_j = {stat.statistic}; its moments given x = j (the 'on' law) and "
                "x ≠ j (the 'off' law) are " + ("integrals of the densities" if not stat.indicator else "sums over the values") + ":")
        eqs = [_eq("g", "g", stat.g), _eq("h", "h", stat.h)]
        if not stat.indicator:
            eqs += [_eq("g2", "g_2", stat.g2), _eq("h2", "h_2", stat.h2)]
    return Step("Item statistic and hit rates", text, tuple(eqs))


def _effective(mech, est, d, model, risk, steps, results, asymptotics):
    iid = risk if model == "iid" else hit_risk(est, "iid")
    direct = nonprivate_l2(d)
    neff = effective_samples(iid.l2_worst, d)
    results["effective_samples"] = neff
    eqs = [_eq("R_direct", r"R_{\mathrm{direct}}", direct), _eq("n_eff", r"n_{\mathrm{eff}}", neff)]
    text = ("The effective sample size is the number of direct (non-private) i.i.d. samples with the same "
            "worst-case ℓ2² risk. The direct estimator is the same construction on the identity channel (g = 1, "
            "h = 0), whose worst case is R_direct; n_eff = n·R_direct/R_private, both under the i.i.d. model "
            "(the fixed-population direct risk is 0).")
    steps.append(Step("Effective sample size", text, tuple(eqs)))
    dsym = _size_symbol(mech)
    eps = mech.symbols.get("epsilon")
    free = {s for s in (risk.l2_worst.free_symbols | neff.free_symbols)} - {N_USERS}
    if not asymptotics or dsym is None or eps is None or free != {dsym, eps}:
        return
    asym = {}
    eqs = []
    for key, label, latex, expr in (("l2_worst", "sup E‖p̂ - p‖²", r"\sup_p \mathbb{E}\|\hat p - p\|_2^2", iid.l2_worst),
                                    ("l1_worst", "sup E‖p̂ - p‖₁", r"\sup_p \mathbb{E}\|\hat p - p\|_1", iid.l1_worst),
                                    ("effective_samples", "n_eff", r"n_{\mathrm{eff}}", neff)):
        try:
            c, a = leading_power(expr.subs(eps, sp.log(dsym)), dsym)
            at_ln = c * dsym**a
            small = leading_term_at_zero(expr, eps)
            c2, a2 = leading_power(small, dsym)
            small_d = c2 * dsym**a2
        except (LdpAuditError, NotImplementedError, ValueError, TypeError) as exc:
            results["not_derived"]["asymptotics"] = str(exc)
            return
        asym[key] = {"epsilon_ln_d": at_ln, "epsilon_to_0": small, "epsilon_to_0_large_d": small_d}
        eqs += [_eq(f"{label} at ε = ln {dsym}, {dsym} → ∞", latex + rf"\big|_{{\varepsilon=\ln {dsym}}}", at_ln, "~"),
                _eq(f"{label} as ε → 0", latex + r"\big|_{\varepsilon\to 0}", small, "~"),
                _eq(f"{label} as ε → 0, then {dsym} → ∞", latex + rf"\big|_{{\varepsilon\to0,\,{dsym}\to\infty}}", small_d, "~")]
    results["asymptotics"] = asym
    steps.append(Step(
        "Asymptotic forms (i.i.d.)",
        f"Leading terms computed by sympy: at ε = ln {dsym} the leading power of {dsym} as {dsym} → ∞ "
        f"(exponent lim log(R)/log {dsym}, then the coefficient lim R/{dsym}^a); as ε → 0 the leading term of the "
        f"series in ε, and of that the leading power of {dsym}:",
        tuple(eqs),
    ))


def _matrix_steps(mech, est: MatrixEstimator, model, steps, results):
    ch = est.channel
    steps.append(Step(
        "Marginal",
        f"The channel is the {len(ch.inputs)} × {len(ch.outputs)} matrix Q (rows are inputs). For a symbolic input "
        "distribution p = (p_0, ...) the output distribution is the row vector m = pQ:",
        tuple(_eq(f"m({y})", f"m({sp.latex(y) if not isinstance(y, tuple) else y})", e)
              for y, e in zip(ch.outputs, est.marginal)),
    ))
    results["marginal"] = list(est.marginal)
    text = (f"Q has full row rank {len(ch.inputs)}, so it has a right inverse R with QR = I ({est.method}). Then "
            "p̂ = m̂R is unbiased: E[p̂] = pQR = p. Column j of R gives p̂_j = Σ_y m̂(y) R[y, j]:")
    m_hat = [sp.Symbol(f"mhat_{i}") for i in range(len(ch.outputs))]
    estimators = [_column_estimator(est, m_hat, j) for j in range(len(ch.inputs))]
    eqs = [_eq(f"p̂_{x}", rf"\hat p_{{{x}}}", e) for x, e in zip(ch.inputs, estimators)]
    eqs.append(_eq("E[p̂] - p", r"\mathbb{E}[\hat p] - p", sp.Matrix(est.bias)))
    steps.append(Step("Unbiased estimator", text, tuple(eqs)))
    results["estimator"] = estimators
    risk = matrix_risk(est, model)
    cov = ("(diag m - mᵀm)/n (multinomial counts)" if model == "iid"
           else "(diag m - Σ_x p_x Q_xᵀQ_x)/n (a sum of independent multinomial rows)")
    steps.append(Step(
        f"Variance ({MODEL_SHORT[model]})",
        f"The output frequencies m̂ have covariance {cov}, so Var p̂_j = R_jᵀ Cov(m̂) R_j:",
        tuple(_eq(f"Var(p̂_{x})", rf"\operatorname{{Var}}(\hat p_{{{x}}})", v) for x, v in zip(ch.inputs, risk.variances)),
    ))
    results["variance"] = list(risk.variances)
    if risk.l2_worst is None:
        steps.append(Step("Worst-case risks", f"Not derived: {risk.l2_reason}."))
        for key in ("l2_worst", "l1_worst", "effective_samples"):
            _skip(results, key, risk.l2_reason)
        return
    steps.append(Step(
        "Worst-case ℓ2² risk", f"Summing the variances, {risk.l2_reason}; the supremum is attained at {risk.l2_argmax}:",
        (_eq("E‖p̂ - p‖²", r"\mathbb{E}\|\hat p - p\|_2^2", risk.total),
         _eq("sup_p E‖p̂ - p‖²", r"\sup_p \mathbb{E}\|\hat p - p\|_2^2", risk.l2_worst)),
    ))
    results["l2_worst"] = risk.l2_worst
    results["l2_argmax"] = risk.l2_argmax
    if risk.l1_worst is None:
        steps.append(Step("Worst-case ℓ1 risk (large n)", f"Not derived: {risk.l1_reason}."))
        _skip(results, "l1_worst", risk.l1_reason)
    else:
        steps.append(Step(
            "Worst-case ℓ1 risk (large n)",
            f"With E|N(0, σ²)| = σ·sqrt(2/π): {risk.l1_reason}; the supremum is attained at {risk.l1_argmax}:",
            (_eq("sup_p E‖p̂ - p‖₁", r"\sup_p \mathbb{E}\|\hat p - p\|_1", risk.l1_worst, "≈"),),
        ))
        results["l1_worst"] = risk.l1_worst
    iid = risk if model == "iid" else matrix_risk(est, "iid")
    d = sp.Integer(len(ch.inputs))
    if iid.l2_worst is None:
        _skip(results, "effective_samples", f"needs the i.i.d. worst case, which is not derived: {iid.l2_reason}")
        return
    neff = effective_samples(iid.l2_worst, d)
    results["effective_samples"] = neff
    steps.append(Step(
        "Effective sample size",
        "n_eff = n·R_direct/R_private with R_direct the worst-case risk of direct i.i.d. observation (identity "
        "channel), both under the i.i.d. model:",
        (_eq("R_direct", r"R_{\mathrm{direct}}", nonprivate_l2(d)), _eq("n_eff", r"n_{\mathrm{eff}}", neff)),
    ))


def _column_estimator(est: MatrixEstimator, m_hat, j: int) -> sp.Basic:
    """p̂_j = Σ_y m̂(y) R[y, j], simplified. When the entries of R are exact elements of a field
    of rational functions in u = e^(ε/L) and the sum would be simplified over that same u, the
    sum is formed from those elements directly (no fractions of exponentials to bring together
    first); :func:`simplify` is canonical on rational functions, so the result is the same."""
    column = sum((m_hat[i] * est.R[i, j] for i in range(len(m_hat))), sp.Integer(0))
    if est.Ru is None or not est.back:
        return simplify(column)
    from ldpaudit.derive.algebra import rational_simplify, to_exp_base

    _, back = to_exp_base(column)
    if back != est.back or column.has(sp.binomial, sp.factorial, sp.gamma):
        return simplify(column)
    K, rows = est.Ru.domain, est.Ru.to_list()
    over_u = sum((m_hat[i] * K.to_sympy(rows[i][j]) for i in range(len(m_hat))), sp.Integer(0))
    fast = rational_simplify(over_u, together=False)  # what simplify gives, without together's gcd_terms
    return (simplify(over_u) if fast is None else fast).xreplace(back)


# --- optimal integer parameters ---------------------------------------------------------------


def optimizable_parameters(mech: Mechanism) -> list[str]:
    """Integer parameters of the channel that are not the input-domain size (k of k-subset)."""
    size_syms = mech.inputs.size.free_symbols if isinstance(mech.inputs, FiniteDomain) else set()
    names = []
    for p in mech.parameters:
        if p.kind == "integer" and p.symbol not in size_syms:
            names.append(p.name)
    return names


def _derive_optimal(mech, family, model, steps, results):
    base = mech
    bound_names = {k for k, _ in mech.bindings}
    if family is not None:
        candidates = [n for n in optimizable_parameters(family) if n in bound_names]
        if candidates:
            keep = {k: v for k, v in mech.bindings if k not in candidates}
            base = family.bind(keep)
    names = optimizable_parameters(base)
    if not names or isinstance(mech.channel, ProductChannel):
        return
    try:
        from ldpaudit.derive.hits import item_statistic

        item_statistic(base)
    except LdpAuditError as exc:
        for name in names:
            results["not_derived"][f"{name}_optimal"] = f"not optimized: {exc}"
        return
    for name in names:
        for target in ("l2", "mi"):
            try:
                st = stationary_point(base, name, target, model)
            except (LdpAuditError, NotImplementedError) as exc:
                results["not_derived"][f"{name}_{target}"] = str(exc)
                continue
            others = [p.name for p in base.parameters if p.name != name]
            sense, what = TARGETS[target]
            text = (f"To {sense} the {what} over {name}, relax {name} to a real κ in [{st.lower}, {st.upper}], "
                    f"differentiate the objective J(κ) and solve dJ/dκ = 0 (the numerator of the derivative is shown; "
                    f"the stationary point inside the range is κ*). ")
            eqs = [_eq("J(κ)", r"J(\kappa)", st.objective), _eq("numerator of dJ/dκ", r"\mathrm{num}\,J'(\kappa)", st.derivative),
                   _eq("κ*", r"\kappa^*", st.point)]
            entry = {"continuous": st.point}
            if not others:
                opt = integer_optimum(st, {})
                cands = ", ".join(f"J({c}) = {v:.6g}" for c, v in opt.candidates)
                text += (f"κ* = {float(sp.N(st.point)):.6g}; the integer optimum is the better of floor and ceil "
                         f"(clamped to the range): {cands}, so {name} = {opt.value}.")
                eqs.append(_eq(f"{name}_{target}", f"{name}_{{\\mathrm{{{target}}}}}", sp.Integer(opt.value)))
                entry.update(value=sp.Integer(opt.value), objective=opt.objective)
            else:
                text += f"With {', '.join(others)} symbolic, the integer optimum is floor(κ*) or ceil(κ*), whichever is better."
                entry.update(value=st.point, objective=st.objective.subs(sp.Symbol("kappa", positive=True), st.point))
            steps.append(Step(f"Optimal {name} ({target})", text, tuple(eqs)))
            results["optimal"][f"{name}_{target}"] = entry


# --- mutual information -----------------------------------------------------------------------


def _derive_information(mech, steps, results):
    try:
        mi = mutual_information(mech)
    except (LdpAuditError, NotImplementedError) as exc:
        results["not_derived"]["mutual_information"] = str(exc)
        return
    eqs = [_eq("I(X;Y)", "I(X;Y)", mi.value)]
    if mi.output_marginal is not None and not mi.value.has(sp.Sum):
        eqs.insert(0, _eq("m_y (uniform prior)", r"m_y", mi.output_marginal))
    results["mutual_information"] = mi.value
    text = f"Under the uniform prior on the inputs ({mi.method}) the mutual information, in nats, is I(X;Y) below."
    d = mech.inputs.size if isinstance(mech.inputs, FiniteDomain) else None
    eps = mech.symbols.get("epsilon")
    eps_value = None if eps is not None else dict(mech.bindings).get("epsilon")
    if d is not None and d.is_Integer and eps_value is not None:
        try:
            from ldpaudit.mechanism.catalog import k_subset

            fam = k_subset(d=int(d), epsilon=eps_value)
            st = stationary_point(fam, "k", "mi")
            opt = integer_optimum(st, {})
            bound = opt.objective
            results["mutual_information_bound"] = {"k": sp.Integer(opt.value), "value": bound, "beta": st.point}
            text += (f" Wang et al.'s bound: no ε-LDP channel on {d} inputs exceeds max_k I_k, the k-subset "
                     f"information maximized as in the optimal-k step (β = {float(sp.N(st.point)):.6g}, best integer "
                     f"k = {opt.value}).")
            eqs.append(_eq("max_k I_k", r"\max_k I_k", bound))
        except (LdpAuditError, NotImplementedError) as exc:
            results["not_derived"]["mutual_information_bound"] = str(exc)
    elif d is not None:
        from ldpaudit.mechanism.catalog import k_subset

        family = k_subset()
        st = stationary_point(family, "k", "mi")
        beta = st.point.subs(family.symbols["d"], d)
        results["mutual_information_bound"] = {"beta": beta}
        text += (" Wang et al.'s bound: no ε-LDP channel on d inputs exceeds max_k I_k, the k-subset information "
                 "(derived from the catalog channel with k free), attained at k = floor(β) or ceil(β), whichever "
                 "gives more, with β the root of dI_k/dk = 0:")
        eqs.append(_eq("β", r"\beta", beta))
    steps.append(Step("Mutual information", text, tuple(eqs)))


# --- densities --------------------------------------------------------------------------------


def _derive_real_input(mech, model, steps, results):
    """A real input x with finitely many outputs: the report map g with E[g(Y) | x] = x, solved
    from the channel when every Q(y|x) is affine in x (Duchi et al.'s ±B mechanism)."""
    from ldpaudit.derive.mean import mean_estimator

    try:
        est = mean_estimator(mech)
    except LdpAuditError as exc:
        steps.append(Step("Estimator", f"No unbiased mean estimator is derived: {exc}."))
        for key in ("estimator", "variance", "l2_worst", "l1_worst"):
            _skip(results, key, exc)
        for key in ("marginal", "effective_samples", "mutual_information"):
            results["not_derived"][key] = "not defined for a real input without a finite channel matrix"
        return
    x = sp.Symbol("x", real=True)
    steps.append(Step(
        "Report map",
        "Every Q(y|x) is affine in x, so E[g(Y) | x] = Σ_y g(y) Q(y|x) is affine in x; requiring it to equal x "
        "for every x gives two linear equations in the values g(y)" + (
            " (more outputs than equations: the minimum-norm solution)" if est.minimum_norm else "") + ":",
        tuple(_eq(f"g({y})", f"g({y})", g) for y, g in zip(est.outputs, est.estimator)),
    ))
    results["estimator"] = {str(y): g for y, g in zip(est.outputs, est.estimator)}
    steps.append(Step(
        "Unbiasedness",
        "Each report is unbiased for its user's input, so the mean of the reports, μ̂ = (1/n) Σ g(Y_i), is unbiased "
        "for the mean of the inputs:",
        (_eq("E[g(Y) | x] - x", r"\mathbb{E}[g(Y) \mid x] - x", simplify(est.expectation - x)),),
    ))
    steps.append(Step(
        "Variance",
        "Var(g(Y) | x) = E[g(Y)² | x] - x². E[g(Y)² | x] is affine in x too, so under the i.i.d. model "
        "Var g(Y) = V(X) + E Var(g(Y) | X) is the same function of μ = E X as Var(g(Y) | x) is of x; under "
        f"either model ({MODEL_SHORT[model]} here) Var μ̂ is at most its largest value over the input interval, over n:",
        (_eq("Var(g(Y) | x)", r"\operatorname{Var}(g(Y) \mid x)", est.variance),
         _eq("sup E(μ̂ - μ)²", r"\sup \mathbb{E}(\hat\mu-\mu)^2", simplify(est.worst_variance / N_USERS))),
    ))
    results["variance"] = simplify(est.variance / N_USERS)
    results["l2_worst"] = simplify(est.worst_variance / N_USERS)
    l1 = without_abs(simplify(half_normal_mean() * sp.sqrt(results["l2_worst"])))
    results["l1_worst"] = l1
    steps.append(Step("Worst-case absolute error (large n)", "E|μ̂ - μ| ≈ sqrt(2/π)·sd(μ̂):",
                      (_eq("sup E|μ̂ - μ|", r"\sup \mathbb{E}|\hat\mu-\mu|", l1, "≈"),)))
    for key in ("marginal", "effective_samples", "mutual_information"):
        results["not_derived"][key] = "not defined for a real-valued mean estimate"


def _worst_case_steps(worst, steps, results) -> None:
    """The worst-case squared error of a real-valued mean estimate, its large-n absolute error,
    and what is not defined for it."""
    results["l2_worst"] = worst
    l1 = without_abs(simplify(half_normal_mean() * sp.sqrt(worst)))
    results["l1_worst"] = l1
    steps.append(Step("Worst-case absolute error (large n)", "E|μ̂ - μ| ≈ sqrt(2/π)·sd(μ̂):",
                      (_eq("sup E|μ̂ - μ|", r"\sup \mathbb{E}|\hat\mu-\mu|", l1, "≈"),)))
    for key in ("effective_samples", "mutual_information"):
        results["not_derived"][key] = "not defined for a real-valued mean estimate"


def _derive_piecewise(mech, model, steps, results):
    """A piecewise density (Piecewise mechanism, Square Wave): moments cell by cell, the unbiased
    affine report map, its variance and the worst case over the input interval."""
    from ldpaudit.derive.piecewise import piecewise_moments

    pm = piecewise_moments(mech)
    steps.append(Step(
        "Moments, cell by cell",
        "Between consecutive breakpoints in z the density is one expression; on the order of the breakpoints "
        f"{pm.order_text} (the order at every sample point; `ldpaudit verify` proves which orders occur) the first "
        "two moments are sums of exact integrals over the cells:",
        (_eq("E[z | x]", r"\mathbb{E}[z \mid x]", pm.mean), _eq("Var(z | x)", r"\operatorname{Var}(z \mid x)", pm.variance)),
    ))
    results["marginal"] = sp.Eq(sp.Symbol("E[z|x]"), pm.mean)
    steps.append(Step(
        "Unbiased report map",
        "E[z | x] is affine in x, so the affine map g(z) = (z - E[z | x=0]) / (dE[z | x]/dx) is unbiased for x, and "
        "the mean of the mapped reports is unbiased for the mean of the inputs (E[g(Z) | x] integrated again, cell by "
        "cell):",
        (_eq("g(z)", "g(z)", pm.report), _eq("E[g(Z) | x] - x", r"\mathbb{E}[g(Z) \mid x] - x", pm.bias)),
    ))
    results["estimator"] = pm.report
    n = N_USERS
    steps.append(Step(
        "Variance",
        "Var(g(Z) | x) = Var(z | x) / (dE[z | x]/dx)²; its largest value over the input interval is the worst-case "
        f"variance of one report ({pm.worst_note}; attained at x = {', '.join(map(str, pm.worst_inputs))}):",
        (_eq("Var(g(Z) | x)", r"\operatorname{Var}(g(Z) \mid x)", pm.report_variance),
         _eq("sup_x Var(g(Z) | x)", r"\sup_x \operatorname{Var}(g(Z) \mid x)", pm.worst_variance)),
    ))
    results["variance"] = simplify(pm.report_variance / n)
    worst = simplify(pm.worst_variance / n)
    text = ("Given the inputs, Var μ̂ = (1/n²) Σ Var(g(Z_i) | x_i), at most the worst case over n:" if model == "fixed" else
            "Under the i.i.d. model Var g(Z) = V(X) + E Var(g(Z) | X), so Var μ̂ is at most (sup V(X) + sup_x "
            "Var(g(Z) | x))/n, with sup V(X) = (high - low)²/4 (Popoviciu); an upper bound, stated as one:")
    if model != "fixed":
        lo, hi = mech.inputs.low, mech.inputs.high
        worst = simplify((pm.worst_variance + (hi - lo) ** 2 / 4) / n)
    steps.append(Step("Worst-case squared error", text,
                      (_eq("sup E(μ̂ - μ)²", r"\sup \mathbb{E}(\hat\mu-\mu)^2", worst, "=" if model == "fixed" else "≤"),)))
    _worst_case_steps(worst, steps, results)


def _derive_vector(mech, model, steps, results):
    """Vector inputs: the moments of each coordinate of the report, its variance and the worst
    case over the coordinate's interval; the mean of the reports estimates each coordinate's mean."""
    from ldpaudit.derive.vector import coordinate_moments, worst_case_statement

    try:
        cm = coordinate_moments(mech)
    except LdpAuditError as exc:
        steps.append(Step("Per-coordinate moments", f"Not derived: {exc}."))
        for key in ("marginal", "estimator", "variance", "l2_worst", "l1_worst"):
            _skip(results, key, exc)
        return
    x = sp.Symbol("x", real=True)
    eqs = [_eq("E[t_j | x_j = x]", r"\mathbb{E}[t_j \mid x_j = x]", cm.mean),
           _eq("E[t_j² | x_j = x]", r"\mathbb{E}[t_j^2 \mid x_j = x]", cm.second_moment),
           _eq("Var(t_j | x_j = x)", r"\operatorname{Var}(t_j \mid x_j = x)", cm.variance)]
    steps.append(Step("Per-coordinate moments", f"Coordinate j of the report t, by {cm.how}:", tuple(eqs)))
    for d, mean, var in cm.per_dimension:
        steps.append(Step(f"d = {d}", "Derived at this dimension:",
                          (_eq("E[t_j | x_j = x]", r"\mathbb{E}[t_j \mid x_j = x]", mean),
                           _eq("Var(t_j | x_j = x)", r"\operatorname{Var}(t_j \mid x_j = x)", var))))
    results["marginal"] = sp.Eq(sp.Symbol("E[t_j|x]"), cm.mean)
    bias = simplify(cm.mean - x)
    results["estimator"] = sp.Symbol("t_j") if bias == 0 else None
    if bias != 0:
        results["not_derived"]["estimator"] = f"E[t_j | x] = {sp.sstr(cm.mean)} is not x: the report is biased"
    n = N_USERS
    results["variance"] = simplify(cm.variance / n)
    where = ", ".join(map(sp.sstr, cm.worst_inputs))
    worst, relation, how = worst_case_statement(mech, cm, model)
    steps.append(Step(
        "Worst-case variance per coordinate",
        ("Each report is unbiased for its input, so the mean of the reports' coordinate j is unbiased for the mean "
         "of the inputs' coordinate j; " if bias == 0 else "") +
        f"Var(t_j | x) is largest over the coordinate's interval at x = {where}; {how}",
        (_eq("sup_x Var(t_j | x)", r"\sup_x \operatorname{Var}(t_j \mid x)", cm.worst_variance),
         _eq("sup E(μ̂_j - μ_j)²", r"\sup \mathbb{E}(\hat\mu_j-\mu_j)^2", worst, relation)),
    ))
    _worst_case_steps(worst, steps, results)
def _derive_mixture(mech, family, model, steps, results):
    """A mixture channel (the Hybrid mechanism): each component's first two moments (densities cell
    by cell, atoms summed over their positions), the mixture's, the unbiased report map, the
    worst case over the input interval and the weight that minimizes it for every ε."""
    from ldpaudit.derive.mixture import channel_moments, optimal_weight_expr

    try:
        cm = channel_moments(mech, family)
    except LdpAuditError as exc:
        steps.append(Step("Moments", f"The mixture's moments are not derived: {exc}."))
        for key in ("marginal", "estimator", "variance", "l2_worst", "l1_worst"):
            _skip(results, key, exc)
        for key in ("effective_samples", "mutual_information"):
            results["not_derived"][key] = "not defined for a real-valued mean estimate"
        return
    eqs = []
    for c in cm.components:
        what = "density, cell by cell" if c.kind == "density" else "atoms, summed over their positions"
        eqs += [_eq(f"E_{c.index}[z | x] ({what})", rf"\mathbb{{E}}_{{{c.index}}}[z \mid x]", c.mean),
                _eq(f"E_{c.index}[z² | x]", rf"\mathbb{{E}}_{{{c.index}}}[z^2 \mid x]", c.second_moment)]
    steps.append(Step(
        "Moments of the components",
        "Each component's first two moments: a density's are exact integrals over the cells between its breakpoints in "
        "z, the atoms' are sums of a(y)^k Q(y|x) over their labels y (a(y) the atom's position):", tuple(eqs)))
    weights = " + ".join(f"({sp.sstr(c.weight)}) E_{c.index}" for c in cm.components)
    steps.append(Step(
        "Moments of the mixture",
        f"The component is chosen with probabilities free of x, so every moment is the weighted sum {weights}:",
        (_eq("E[z | x]", r"\mathbb{E}[z \mid x]", cm.mean), _eq("Var(z | x)", r"\operatorname{Var}(z \mid x)", cm.variance)),
    ))
    results["marginal"] = sp.Eq(sp.Symbol("E[z|x]"), cm.mean)
    steps.append(Step(
        "Unbiased report map",
        "E[z | x] is affine in x, so g(z) = (z - E[z | x=0]) / (dE[z | x]/dx) is unbiased for x (the identity when "
        "E[z | x] = x), and the mean of the mapped reports is unbiased for the mean of the inputs:",
        (_eq("g(z)", "g(z)", cm.report), _eq("E[g(Z) | x] - x", r"\mathbb{E}[g(Z) \mid x] - x",
                                               simplify((cm.mean - cm.intercept) / cm.slope - sp.Symbol("x", real=True)))),
    ))
    results["estimator"] = cm.report
    n = N_USERS
    steps.append(Step(
        "Variance",
        f"Var(g(Z) | x) = Var(z | x) / (dE[z | x]/dx)² = a x² + c, an even quadratic in x, so its sup over "
        f"|x| <= {sp.sstr(cm.bound)} is at x = 0 or at |x| = {sp.sstr(cm.bound)}: max(c, c + a b²):",
        (_eq("Var(g(Z) | x)", r"\operatorname{Var}(g(Z) \mid x)", cm.report_variance), _eq("a", "a", cm.x_squared),
         _eq("c", "c", cm.constant), _eq("sup_x Var(g(Z) | x)", r"\sup_x \operatorname{Var}(g(Z) \mid x)", cm.worst_variance)),
    ))
    results["variance"] = simplify(cm.report_variance / n)
    worst = cm.worst_variance / n
    text = ("Given the inputs, Var μ̂ = (1/n²) Σ Var(g(Z_i) | x_i), at most the worst case over n:" if model == "fixed" else
            "Under the i.i.d. model Var g(Z) = V(X) + E Var(g(Z) | X), so Var μ̂ is at most (sup V(X) + sup_x "
            "Var(g(Z) | x))/n, with sup V(X) = (high - low)²/4 (Popoviciu); an upper bound, stated as one:")
    if model != "fixed":
        lo, hi = mech.inputs.low, mech.inputs.high
        worst = (cm.worst_variance + simplify((hi - lo) ** 2 / 4)) / n
    steps.append(Step("Worst-case squared error", text,
                      (_eq("sup E(μ̂ - μ)²", r"\sup \mathbb{E}(\hat\mu-\mu)^2", worst, "=" if model == "fixed" else "≤"),)))
    _worst_case_steps(worst, steps, results)
    if cm.optimum is None:
        results["not_derived"]["optimal_weight"] = cm.optimum_note
        return
    eps = next(s for s in cm.optimum.variance.free_symbols if s.name != "x" and s != cm.weight)
    weight, best = optimal_weight_expr(cm, eps)
    name = cm.weight.name
    thresholds = "; ".join(f"ε0 = {sp.sstr(r.epsilon)} ≈ {float(r.value()):.6g} (root of {sp.sstr(r.polynomial.as_expr())} in "
                           f"s = e^(ε/{r.scale}))" for r in cm.optimum.thresholds)
    steps.append(Step(
        f"Optimal {name}",
        f"The worst case max(c({name}), c({name}) + a({name}) b²) is the maximum of two functions linear in {name}, so its "
        f"minimum over {name} in [0, 1] is at 0, at 1 or where a({name}) = 0; which one, for every ε > 0, is decided "
        "exactly from the sign regions of the differences in e^(ε/L) (no grid)" + (f": {thresholds}" if thresholds else "") + ":",
        (_eq(f"a({name}) = 0 at {name}", name, cm.optimum.kink if cm.optimum.kink is not None else sp.nan),
         _eq(f"{name}*(ε)", rf"{name}^*(\varepsilon)", weight),
         _eq(f"sup_x Var at {name}*", rf"\sup_x \operatorname{{Var}} \text{{ at }} {name}^*", best)),
    ))
    results["optimal"][f"{name}_l2"] = {"value": weight, "objective": best, "continuous": None}


def _derive_density(mech, model, steps, results):
    from ldpaudit.derive.piecewise import applies as piecewise_applies

    if piecewise_applies(mech):
        return _derive_piecewise(mech, model, steps, results)
    try:
        me = mean_estimation(mech)
    except NotDerivable as exc:   # as the discrete forms do: say what is not derived, and why
        steps.append(Step("Estimator", f"No unbiased mean estimator is derived: {exc}."))
        _skip(results, "estimator", exc)
        for key in ("variance", "l2_worst", "l1_worst"):
            _skip(results, key, "needs the unbiased mean estimator, which is not derived")
        return
    steps.append(Step(
        "Noise law",
        "Substituting z = x + w, the density does not depend on x (a location family). Integrating w and w² "
        "against it (split at w = 0 so |w| = ±w) gives the noise mean and variance:",
        (_eq("f(x + w | x)", r"f(x + w \mid x)", me.shifted_density), _eq("E[W]", r"\mathbb{E}[W]", me.noise_mean),
         _eq("Var(W)", r"\operatorname{Var}(W)", me.noise_variance)),
    ))
    results["marginal"] = sp.Eq(sp.Symbol("E[Z]"), MU + me.noise_mean)
    steps.append(Step(
        "Unbiased estimator",
        "With μ the mean of the inputs, E[z̄] = μ + E[W]; solving for μ and replacing E[z̄] by the observed mean z̄:",
        (_eq("μ̂", r"\hat\mu", me.estimator), _eq("E[μ̂] - μ", r"\mathbb{E}[\hat\mu] - \mu", me.bias)),
    ))
    results["estimator"] = me.estimator
    var = me.variance_iid if model == "iid" else me.variance_fixed
    text = ("Under the i.i.d. model, by the law of total variance Var Z = Var E[Z|X] + E Var(Z|X) = V(X) + Var W, "
            "so Var μ̂ = (V(X) + Var W)/n:" if model == "iid" else
            "Under the fixed-population model only the noise is random: Var μ̂ = Var W / n:")
    steps.append(Step(f"Variance ({MODEL_SHORT[model]})", text, (_eq("Var(μ̂)", r"\operatorname{Var}(\hat\mu)", var),)))
    results["variance"] = var
    if model == "iid":
        worst = me.l2_worst_iid
        wt = ("V(X) over laws on the input interval is largest for the two-point law at its ends with equal "
              "mass (the variance q(1-q)(high-low)² of a two-point law is maximized at q = 1/2; Popoviciu):")
        eqs = (_eq("sup V(X)", r"\sup V(X)", me.worst_input_variance), _eq("sup E(μ̂ - μ)²", r"\sup \mathbb{E}(\hat\mu-\mu)^2", worst))
    else:
        worst = me.variance_fixed
        wt = "The fixed-population variance does not depend on the inputs:"
        eqs = (_eq("sup E(μ̂ - μ)²", r"\sup \mathbb{E}(\hat\mu-\mu)^2", worst),)
    steps.append(Step("Worst-case squared error", wt, eqs))
    _worst_case_steps(worst, steps, results)
