"""Derivations with sympy: marginals, unbiased estimators, variances, worst-case risks,
effective sample sizes, optimal integer parameters and mutual information -- all derived
from the mechanism's channel, never typed in."""

from ldpaudit._callable import lazy_names, make_callable

#: public name -> the module that defines it (imported on first use)
_API = {
    "N_USERS": "ldpaudit.derive.algebra",
    "NotDerivable": "ldpaudit.errors",
    "NotIdentifiable": "ldpaudit.errors",
    "MeanEstimation": "ldpaudit.derive.continuous",
    "density_moments": "ldpaudit.derive.continuous",
    "mean_estimation": "ldpaudit.derive.continuous",
    "Derivation": "ldpaudit.derive.derivation",
    "Equation": "ldpaudit.derive.derivation",
    "Step": "ldpaudit.derive.derivation",
    "derive": "ldpaudit.derive.derivation",
    "optimizable_parameters": "ldpaudit.derive.derivation",
    "HitEstimator": "ldpaudit.derive.estimator",
    "MatrixEstimator": "ldpaudit.derive.estimator",
    "hit_estimator": "ldpaudit.derive.estimator",
    "matrix_estimator": "ldpaudit.derive.estimator",
    "unbiased_estimator": "ldpaudit.derive.estimator",
    "item_statistic": "ldpaudit.derive.hits",
    "MutualInformation": "ldpaudit.derive.information",
    "mutual_information": "ldpaudit.derive.information",
    "subset_information": "ldpaudit.derive.information",
    "TARGETS": "ldpaudit.derive.optimize",
    "Optimum": "ldpaudit.derive.optimize",
    "Stationary": "ldpaudit.derive.optimize",
    "compiled_rule": "ldpaudit.derive.optimize",
    "integer_optimum": "ldpaudit.derive.optimize",
    "objective": "ldpaudit.derive.optimize",
    "optimal_parameter": "ldpaudit.derive.optimize",
    "stationary_point": "ldpaudit.derive.optimize",
    "MODELS": "ldpaudit.derive.risk",
    "Risk": "ldpaudit.derive.risk",
    "effective_samples": "ldpaudit.derive.risk",
    "half_normal_mean": "ldpaudit.derive.risk",
    "hit_risk": "ldpaudit.derive.risk",
    "matrix_risk": "ldpaudit.derive.risk",
    "nonprivate_l1": "ldpaudit.derive.risk",
    "nonprivate_l2": "ldpaudit.derive.risk",
    "project_to_simplex": "ldpaudit.derive.risk",
    "estimator_risk": "ldpaudit.derive.risk",
    "ItemStatistic": "ldpaudit.derive.statistic",
}
__getattr__ = lazy_names(__name__, _API)
__all__ = sorted(_API)


# ``ldpaudit.derive(...)`` calls :func:`derive`
make_callable(__name__, "derive")
