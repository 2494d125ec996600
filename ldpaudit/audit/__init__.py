"""Black-box auditing of randomizers: sample, search for a distinguishing event, certify ε."""
from ldpaudit.audit.adapters import load_target
from ldpaudit.audit.auditor import AuditResult, audit

__all__ = ["AuditResult", "audit", "load_target"]


# ``ldpaudit.audit(...)`` calls :func:`audit`
from ldpaudit._callable import make_callable  # noqa: E402

make_callable(__name__, "audit")
