"""z3: ratio proofs, counterexamples, tightest ε, (ε, δ), float parameters, certificates.

The only package that imports z3. Entry points:

* :func:`verify` — PROVED / REFUTED (with an exactly re-checked witness) / UNKNOWN (with the
  reason) for ε-LDP or, with ``delta``, (ε, δ)-LDP; free parameters are universally quantified;
* :func:`tight_epsilon` — the tightest ε in closed form, proved, with an attaining witness;
* :func:`delta_for` — the exact δ(ε) of a numeric finite channel;
* :func:`verify_float_params` — the ε an implementation's float64 parameters really give;
* :func:`write_certificate` / :func:`reproduce_certificates` — SMT-LIB 2 + JSON certificates;
* :func:`summary` — a one-line verdict for ``ldpaudit check``.
"""

from ldpaudit.mechanism.core import Mechanism
from ldpaudit.verify.certificate import reproduce_certificates, write_certificate
from ldpaudit.verify.core import tight_epsilon, verify
from ldpaudit.verify.delta import delta_for
from ldpaudit.verify.floats import verify_float_params
from ldpaudit.verify.result import DeltaResult, FloatReport, Status, TightEpsilon, Verdict, Witness

PROVED, REFUTED, UNKNOWN = Status.PROVED, Status.REFUTED, Status.UNKNOWN


def summary(mech: Mechanism) -> str:
    """A short verdict for the ``ldpaudit check`` table, e.g. ``PROVED ε*=epsilon (all d, epsilon)``."""
    from ldpaudit.verify.text import sstr

    verdict = verify(mech)
    scope = f" (all {', '.join(mech.parameter_names)})" if mech.parameters else ""
    if verdict.status is Status.PROVED:
        tight = "" if verdict.tight_epsilon is None else f" ε*={sstr(verdict.tight_epsilon)}"
        return f"PROVED{tight}{scope}"
    if verdict.status is Status.REFUTED:
        return f"REFUTED: {verdict.witness}"
    return f"UNKNOWN ({verdict.reason})"


__all__ = [
    "verify", "tight_epsilon", "delta_for", "verify_float_params", "write_certificate", "reproduce_certificates",
    "summary", "Verdict", "Witness", "TightEpsilon", "DeltaResult", "FloatReport", "Status", "PROVED", "REFUTED",
    "UNKNOWN",
]


# ``ldpaudit.verify(...)`` calls :func:`verify`
from ldpaudit._callable import make_callable  # noqa: E402

make_callable(__name__, "verify")
