"""Derivations with sympy: marginals, unbiased estimators, variances, worst-case risks,
effective sample sizes, optimal integer parameters and mutual information -- all derived
from the mechanism's channel, never typed in."""

from ldpaudit.derive.algebra import N_USERS
from ldpaudit.errors import NotDerivable, NotIdentifiable
from ldpaudit.derive.continuous import MeanEstimation, density_moments, mean_estimation
from ldpaudit.derive.derivation import Derivation, Equation, Step, derive, optimizable_parameters
from ldpaudit.derive.estimator import HitEstimator, MatrixEstimator, hit_estimator, matrix_estimator, unbiased_estimator
from ldpaudit.derive.headline import headline
from ldpaudit.derive.hits import ItemStatistic, item_statistic
from ldpaudit.derive.information import MutualInformation, mutual_information, subset_information
from ldpaudit.derive.optimize import (
    TARGETS,
    Optimum,
    Stationary,
    compiled_rule,
    integer_optimum,
    objective,
    optimal_parameter,
    stationary_point,
)
from ldpaudit.derive.risk import (
    MODELS,
    Risk,
    effective_samples,
    half_normal_mean,
    hit_risk,
    matrix_risk,
    nonprivate_l1,
    nonprivate_l2,
    project_to_simplex,
)


def estimator_risk(mech, model: str = "iid") -> Risk:
    """Variance and worst-case risks of the mechanism's unbiased estimator under ``model``."""
    est = unbiased_estimator(mech)
    return hit_risk(est, model) if est.kind == "hit" else matrix_risk(est, model)


__all__ = [
    "N_USERS", "NotDerivable", "NotIdentifiable", "MeanEstimation", "density_moments", "mean_estimation",
    "Derivation", "Equation", "Step", "derive", "optimizable_parameters", "HitEstimator", "MatrixEstimator",
    "hit_estimator", "matrix_estimator", "unbiased_estimator", "headline", "ItemStatistic", "item_statistic",
    "MutualInformation", "mutual_information", "subset_information", "TARGETS", "Optimum", "Stationary",
    "compiled_rule", "integer_optimum", "objective", "optimal_parameter", "stationary_point", "MODELS", "Risk",
    "effective_samples", "half_normal_mean", "hit_risk", "matrix_risk", "nonprivate_l1", "nonprivate_l2",
    "project_to_simplex", "estimator_risk",
]


# ``ldpaudit.derive(...)`` calls :func:`derive`
from ldpaudit._callable import make_callable  # noqa: E402

make_callable(__name__, "derive")
