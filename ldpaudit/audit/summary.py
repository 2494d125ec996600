"""One-line audit summaries of catalog mechanisms, for ``ldpaudit check``."""
from __future__ import annotations

from ldpaudit.audit.auditor import audit
from ldpaudit.spec.randomizers import reference_for


def spec_domain(mech) -> list:
    """The inputs to audit: every input of a finite domain, the endpoints of an interval."""
    dom = mech.inputs
    if hasattr(dom, "enumerate"):
        return list(dom.enumerate())
    return [float(dom.low), float(dom.high)]


def check_summary(mech, *, samples: int = 20_000, alpha: float = 0.05, seed: int = 0) -> str:
    """Spec-guided audit of the mechanism's reference sampler (a bound Mechanism), in one line."""
    claimed = float(mech.claimed_epsilon)
    r = audit(reference_for(mech), domain=spec_domain(mech), epsilon=claimed, samples=samples,
              alpha=alpha, batch=True, spec=mech, seed=seed)
    conf = r.conformance
    status = "conformance passed" if conf["passed"] else (
        f"conformance FAILED on {conf['discrepancy']['event']} (p = {conf['discrepancy']['p_value']:.2g})")
    return (f"{r.verdict}: ε_lb = {r.epsilon_lower_bound:.3f} vs ε = {claimed:.3f}; {status} "
            f"({samples} draws/input, α = {alpha:g})")
