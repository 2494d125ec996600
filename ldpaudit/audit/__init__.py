"""Black-box auditing of randomizers: sample, search for a distinguishing event, certify ε.

Names load on first use, so that the isolation worker and the sandbox supervisor
(``ldpaudit.audit.worker``, ``ldpaudit.audit.sandbox``) start without the auditor's
statistics libraries."""
import importlib

_API = {"AuditResult": "ldpaudit.audit.auditor", "audit": "ldpaudit.audit.auditor",
        "load_target": "ldpaudit.audit.adapters", "estimator_audit": "ldpaudit.audit.estimator",
        "EstimatorAuditResult": "ldpaudit.audit.estimator"}

__all__ = ["AuditResult", "EstimatorAuditResult", "audit", "estimator_audit", "load_target"]


def __getattr__(name: str):
    if name not in _API:
        raise AttributeError(f"module 'ldpaudit.audit' has no attribute {name!r}")
    return getattr(importlib.import_module(_API[name]), name)


# ``ldpaudit.audit(...)`` calls :func:`audit`
from ldpaudit._callable import make_callable  # noqa: E402

make_callable(__name__, "audit")
