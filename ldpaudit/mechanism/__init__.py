"""Mechanisms: the model, the safe spec-file loader and the catalog.

The names below are imported on first use, so that a command which only needs a submodule
without sympy (``ldpaudit.mechanism.options`` parsing ``--epsilon 1`` for the auditor) does not pay
for sympy through this package."""

from ldpaudit._callable import lazy_names

#: public name -> the module that defines it
_API = {
    **{name: "ldpaudit.mechanism.catalog" for name in (
        "CATALOG", "k_rappor", "k_rr", "k_subset", "laplace_histogram", "laplace_mean", "o_rr", "oue", "rr_bit", "wrr")},
    **{name: "ldpaudit.mechanism.loader" for name in ("dumps_spec", "load_budgeted", "load_spec", "loads_spec", "spec_sha256")},
    **{name: "ldpaudit.mechanism.model" for name in (
        "X", "Z", "CohortSpace", "CoordinateLaw", "DensityChannel", "ElementSpace", "ExplicitChannel", "FiniteDomain",
        "IntervalDomain", "Mechanism", "OutputClass", "Parameter", "ProductChannel", "StructuredChannel",
        "SubsetSpace")},
}
__getattr__ = lazy_names(__name__, _API)
__all__ = list(_API)
