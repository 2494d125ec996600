"""The vocabulary every ``--json`` output shares: ``schema_version``, ``command`` and a
top-level ``verdict`` drawn from one set of values, with the exit status each implies."""

from __future__ import annotations

#: bumped when a key is renamed or removed (adding keys is compatible). 2: ``profile`` gives the
#: curve's ``breakpoints``, ``pieces``, ``tradeoff`` and ``worst_pair_proved`` only with ``--curve``
#: (δ at one ε does not need them) and says which ``answer`` it gave (exact or bounds).
SCHEMA_VERSION = 2

#: verdict -> exit status (see the README's exit-status table)
VERDICTS = {
    "PROVED": 0,        # verify: the claim holds for every admissible parameter
    "NO_EVIDENCE": 0,   # audit: no violation certified at the stated confidence
    "OK": 0,            # check/show/derive/reproduce/simulate: done
    "REFUTED": 1,       # verify: a witness breaks the claim
    "VIOLATION": 1,     # audit: a certified lower bound above the claim (or a conformance failure)
    "INVALID": 2,       # bad input
    "UNKNOWN": 3,       # verify: undecided (z3 unknown, a budget spent); never a pass
    "INCONCLUSIVE": 3,  # audit: the run could not decide
    "ERROR": 3,         # a stage inside `check` failed on this spec
    "INTERNAL_ERROR": 4,  # the tool itself failed (a bug, not a verdict); `error` says what
    "INTERRUPTED": 130,   # stopped by SIGINT (the shell's 128 + 2): no verdict
}


def envelope(command: str, verdict: str, payload: dict) -> dict:
    """``payload`` under the shared keys: ``schema_version``, ``command``, ``verdict`` first,
    then the command's own fields (which never override the shared ones)."""
    if verdict not in VERDICTS:
        raise ValueError(f"verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
    return {"schema_version": SCHEMA_VERSION, "command": command, "verdict": verdict,
            **{k: v for k, v in payload.items() if k not in ("schema_version", "command", "verdict")}}
