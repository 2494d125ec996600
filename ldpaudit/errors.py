"""The exceptions ldpaudit raises: one base class, a few subclasses that also
inherit the matching builtin so callers can catch either."""


class LdpAuditError(Exception):
    """Base class of every error ldpaudit raises on purpose."""


class InvalidSpec(LdpAuditError, ValueError):
    """A spec file or Mechanism is malformed: the message names the field, the value, the fix."""


class Undecided(InvalidSpec):
    """A check of a spec or parameter could not be decided exactly (sympy could not prove a row
    sums to 1, a value lies within 1e-50 of its bound): not shown wrong, so inconclusive (the CLI
    exits 3, not 2); the message says what could not be decided and how to write it so it can be.
    A subclass of InvalidSpec: whatever refuses a spec it cannot check still refuses it."""


class Unextractable(Undecided):
    """``extract`` met code outside the subset it reads exactly (a continuous draw, a hash, an
    unbounded loop, a comparison it cannot decide): inconclusive (exit 3); the message names
    the file, the line and the construct, and points to ``audit``."""


def refused(exc: Exception, message: str) -> InvalidSpec:
    """A refusal re-raised with more context (``message``): an :class:`Undecided` stays
    undecided, anything else becomes :class:`InvalidSpec`."""
    return (Undecided if isinstance(exc, Undecided) else InvalidSpec)(message)


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
