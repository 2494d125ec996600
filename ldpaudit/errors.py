"""The exceptions ldpaudit raises: one base class, a few subclasses that also
inherit the matching builtin so callers can catch either."""


class LdpAuditError(Exception):
    """Base class of every error ldpaudit raises on purpose."""


class InvalidSpec(LdpAuditError, ValueError):
    """A spec file or Mechanism is malformed: the message names the field, the value, the fix."""


class InvalidParameter(LdpAuditError, ValueError):
    """A parameter value is outside its declared range or of the wrong kind."""


class NotMaterializable(LdpAuditError, ValueError):
    """A channel is too large (or continuous) to list as an explicit matrix."""


class RandomizerError(LdpAuditError, RuntimeError):
    """A randomizer under audit raised, hung, or returned something unusable."""


class SolverError(LdpAuditError, RuntimeError):
    """The SMT solver failed in a way that is not a verdict."""


class NotIdentifiable(LdpAuditError, ValueError):
    """The channel has no left inverse: no unbiased linear estimator of p exists."""


class NotDerivable(LdpAuditError, ValueError):
    """A quantity cannot be derived for this mechanism (form or parameters); the message says why."""


class BudgetSpent(LdpAuditError, RuntimeError):
    """A job (loading a spec) ran out of its time or memory budget: inconclusive, not bad input
    (the CLI exits 3, not 2); the message says which budget was spent and how to raise it."""
