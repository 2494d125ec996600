"""Mechanisms: the model, the safe spec-file loader and the catalog."""

from ldpaudit.spec.catalog import CATALOG, k_rappor, k_rr, k_subset, laplace_histogram, laplace_mean, o_rr, oue, rr_bit, wrr
from ldpaudit.spec.loader import dumps_spec, load_spec, loads_spec, spec_sha256
from ldpaudit.spec.model import (
    X,
    Z,
    CohortSpace,
    CoordinateLaw,
    DensityChannel,
    ElementSpace,
    ExplicitChannel,
    FiniteDomain,
    IntervalDomain,
    Mechanism,
    OutputClass,
    Parameter,
    ProductChannel,
    StructuredChannel,
    SubsetSpace,
)

__all__ = [
    "CATALOG", "k_rappor", "k_rr", "k_subset", "laplace_histogram", "laplace_mean", "o_rr", "oue", "rr_bit", "wrr",
    "dumps_spec", "load_spec", "loads_spec", "spec_sha256", "X", "Z", "CohortSpace", "CoordinateLaw",
    "DensityChannel", "ElementSpace", "ExplicitChannel", "FiniteDomain", "IntervalDomain", "Mechanism",
    "OutputClass", "Parameter", "ProductChannel", "StructuredChannel", "SubsetSpace",
]
