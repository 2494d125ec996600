"""The verifier's budget: :mod:`ldpaudit.budget`, which moved below every stage so that the
spec loader runs under it too; this name stays for the verifier and its users."""

from ldpaudit.budget import DEFAULT_MEMORY_MB, DEFAULT_SECONDS, BudgetExceeded, call, supported

__all__ = ["DEFAULT_MEMORY_MB", "DEFAULT_SECONDS", "BudgetExceeded", "call", "supported"]
