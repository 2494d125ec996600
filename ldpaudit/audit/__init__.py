"""Black-box auditing of randomizers: sample, search for a distinguishing event, certify ε."""
from ldpaudit.audit.adapters import load_target
from ldpaudit.audit.auditor import AuditResult, audit
from ldpaudit.audit.summary import check_summary, spec_domain

__all__ = ["AuditResult", "audit", "check_summary", "load_target", "spec_domain"]
