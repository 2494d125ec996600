"""ldpaudit: prove, derive and audit local differential privacy.

The public API, loaded on first use so that ``import ldpaudit`` stays cheap::

    import ldpaudit
    mech = ldpaudit.load_spec("specs/krr.toml").bind(d=8)
    ldpaudit.verify(mech)                       # PROVED / REFUTED / UNKNOWN (z3)
    ldpaudit.derive(mech)                       # estimator, variances, risks, ... (sympy)
    ldpaudit.audit(randomizer, domain=range(8), epsilon=1, batch=True)   # certified ε lower bound
"""

from __future__ import annotations

import importlib

from ldpaudit._version import __version__

_API = {
    # mechanisms
    "Mechanism": "ldpaudit.mechanism",
    "load_spec": "ldpaudit.mechanism",
    "loads_spec": "ldpaudit.mechanism",
    "dumps_spec": "ldpaudit.mechanism",
    "CATALOG": "ldpaudit.mechanism",
    "wrr": "ldpaudit.mechanism",
    "k_rr": "ldpaudit.mechanism",
    "k_rappor": "ldpaudit.mechanism",
    "oue": "ldpaudit.mechanism",
    "k_subset": "ldpaudit.mechanism",
    "o_rr": "ldpaudit.mechanism",
    "rr_bit": "ldpaudit.mechanism",
    "laplace_mean": "ldpaudit.mechanism",
    "laplace_histogram": "ldpaudit.mechanism",
    # the three stages (each package is also callable as its main function)
    "verify": None,
    "derive": None,
    "audit": None,
    "tight_epsilon": "ldpaudit.verify",
    "delta_for": "ldpaudit.verify",
    "sequential_audit": "ldpaudit.audit.sequential",
    "assert_ldp": "ldpaudit.testing",
    # errors
    "LdpAuditError": "ldpaudit.errors",
    "InvalidSpec": "ldpaudit.errors",
    "InvalidParameter": "ldpaudit.errors",
    "RandomizerError": "ldpaudit.errors",
}

__all__ = ["__version__", *_API]


def __getattr__(name: str):
    if name not in _API:
        raise AttributeError(f"module 'ldpaudit' has no attribute {name!r}")
    source = _API[name]
    if source is None:  # a stage package, callable as its main function
        return importlib.import_module(f"ldpaudit.{name}")
    return getattr(importlib.import_module(source), name)


def __dir__():
    return sorted(__all__)
