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

from __future__ import annotations

from ldpaudit._callable import lazy_names, make_callable

#: public name -> the module that defines it (imported on first use, so that a command which
#: needs one of them does not pay for z3 and every prover)
_API = {
    "verify": "ldpaudit.verify.core",
    "tight_epsilon": "ldpaudit.verify.core",
    "delta_for": "ldpaudit.verify.delta",
    "verify_float_params": "ldpaudit.verify.floats",
    "write_certificate": "ldpaudit.verify.certificate",
    "reproduce_certificates": "ldpaudit.verify.certificate",
    "DeltaResult": "ldpaudit.verify.result",
    "FloatReport": "ldpaudit.verify.result",
    "Status": "ldpaudit.verify.result",
    "TightEpsilon": "ldpaudit.verify.result",
    "Verdict": "ldpaudit.verify.result",
    "Witness": "ldpaudit.verify.result",
}
_names = lazy_names(__name__, _API)


def __getattr__(name: str):
    if name in ("PROVED", "REFUTED", "UNKNOWN"):
        from ldpaudit.verify.result import Status

        return Status[name]
    return _names(name)


def summary(mech) -> str:
    """A short verdict for the ``ldpaudit check`` table, e.g. ``PROVED ε*=epsilon (all d, epsilon)``."""
    from ldpaudit.verify.core import verify
    from ldpaudit.verify.result import Status
    from ldpaudit.render.text import sstr

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
make_callable(__name__, "verify")
