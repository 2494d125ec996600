"""Mechanisms: the model, the safe spec-file loader and the catalog.

The model, bottom up: ``params`` (parameters, x/y/z, size limits), ``spaces`` (input domains,
output spaces), ``checks`` (shared checks), ``core`` (the :class:`Mechanism` value; it imports
no channel form), then one module per channel form: ``explicit``, ``structured``,
``product``, ``density``, ``realinput``, ``mixture`` (a density and atoms, each with a weight),
``hashing`` (Bloom filters and hash families).
``model`` re-exports them for users. Above the model: ``loader`` (spec files; their tables read
in ``spec_tables``, the channel per form in ``spec_channels``, written back by ``spec_writer``), ``catalog``,
``randomizers`` and ``command`` (``ldpaudit show``).

The names below are imported on first use, so that a command which only needs a submodule
without sympy (``ldpaudit.mechanism.options`` parsing ``--epsilon 1`` for the auditor) does not pay
for sympy through this package."""

from ldpaudit._callable import lazy_names

#: public name -> the module that defines it
_API = {
    **{name: "ldpaudit.mechanism.catalog" for name in (
        "CATALOG", "k_rappor", "k_rr", "k_subset", "laplace_histogram", "laplace_mean", "o_rr", "oue", "rr_bit", "wrr")},
    **{name: "ldpaudit.mechanism.loader" for name in ("dumps_spec", "load_budgeted", "load_spec", "loads_spec", "spec_sha256")},
    "Mechanism": "ldpaudit.mechanism.core",
    **{name: "ldpaudit.mechanism.params" for name in ("X", "Y", "Z", "Parameter")},
    **{name: "ldpaudit.mechanism.spaces" for name in (
        "CohortSpace", "ElementSpace", "FiniteDomain", "IntervalDomain", "SubsetSpace")},
    "ExplicitChannel": "ldpaudit.mechanism.explicit",
    **{name: "ldpaudit.mechanism.structured" for name in ("OutputClass", "StructuredChannel")},
    **{name: "ldpaudit.mechanism.product" for name in ("CoordinateLaw", "ProductChannel")},
    "DensityChannel": "ldpaudit.mechanism.density",
    "RealInputChannel": "ldpaudit.mechanism.realinput",
    **{name: "ldpaudit.mechanism.mixture" for name in ("Component", "MixtureChannel")},
    "BloomChannel": "ldpaudit.mechanism.hashing",
}
__getattr__ = lazy_names(__name__, _API)
__all__ = list(_API)
