"""Which planted bugs of the suite (:mod:`ldpaudit.bench.suite`) are now proved, not only
detected: a per-report twin of the bug in ordinary Python (``ldpaudit/bench/planted.py`` and the
multi-freq-ldpy fixture, in a checkout) is REFUTED by ``ldpaudit verify --from-code`` with its
exact tight ε (issue 36; tests/test_extract.py and tests/test_extract_libraries.py check each).
The suite's own samplers are vectorized (n reports per call) and are audited, not extracted.

bench key -> (target, --target-arg values, --domain, tight ε of the buggy channel)
"""

from __future__ import annotations

from dataclasses import dataclass


PROVED_FROM_CODE = {
    "krr-uniform-fallback": ("ldpaudit.bench.planted:krr_other_from_all", {"d": "4"}, "0..3",
                             "log(4*exp(epsilon)/3 + 1)"),
    "subset-order": ("tests/fixtures/multi_freq_ldpy_clients.py:SS_Client", {"k": "4", "epsilon": "1/2"}, "0..3",
                     "oo"),
    "oue-wrong-q": ("ldpaudit.bench.planted:oue_misplaced_parenthesis", {"d": "3"}, "0..2", "oo"),
}

#: bugs of the issue's list proved from code that the suite has no sampler for
PROVED_FROM_CODE_ONLY = {
    "randint-inclusive": ("ldpaudit.bench.planted:krr_randint_inclusive", {"d": "4"}, "0..3",
                          "epsilon + log(4/3)"),
    "epsilon-not-halved": ("ldpaudit.bench.planted:two_reports_eps_not_halved", {}, "0..1", "2*epsilon"),
    "subset-with-replacement": ("ldpaudit.bench.planted:ksubset_with_replacement", {"d": "4", "k": "2"}, "0..3",
                                "oo"),
}

#: bugs of the suite outside the subset extraction reads (audited statistically only), and why
OUTSIDE_THE_SUBSET = {
    "float-laplace": "a continuous draw (Laplace) returned",
    "unary-float-laplace": "a continuous draw (Laplace) returned",
    "geometric-rounding": "Laplace rounded: a continuous draw used in arithmetic",
    "rr-8bit-coin": "an 8-bit uniform: the float bits of the running code, which extraction does not model",
    "opendp-rr-bool-2022": "a float rounding of the running code, which extraction does not model",
}


@dataclass(frozen=True)
class ProvedRow:
    """One planted bug read from its source and verified at its claim ε."""

    key: str
    target: str
    status: str        # REFUTED (as it should be), PROVED, UNKNOWN, or SKIPPED (source not here)
    tight: str         # the tight ε proved for the code's channel ('' when not determined)
    expected: str      # the tight ε of the buggy channel, derived by hand from the bug
    lines: str         # the source lines on the witness's path
    reason: str = ""

    @property
    def as_expected(self) -> bool:
        return self.status == "REFUTED" and self.tight == self.expected

    def to_json(self) -> dict:
        return {"bug": self.key, "target": self.target, "status": self.status, "tight_epsilon": self.tight or None,
                "expected_tight_epsilon": self.expected, "source_lines": self.lines, "as_expected": self.as_expected,
                "reason": self.reason or None}


def planted_rows(only: list[str] | None = None) -> list[tuple[str, tuple]]:
    """The planted bugs ``--from-code`` proves, in order (``only``: their keys)."""
    rows = list(PROVED_FROM_CODE.items()) + list(PROVED_FROM_CODE_ONLY.items())
    return [r for r in rows if not only or r[0] in only]


def prove_planted(key: str, entry: tuple, *, rlimit=None) -> ProvedRow:
    """Extract the planted bug's channel from its source (never running it) and verify the
    claim ε = epsilon with its tight ε; the witness's source lines name the bug."""
    import sympy as sp

    from ldpaudit.errors import LdpAuditError, Undecided
    from ldpaudit.extract.channel import extract
    from ldpaudit.extract.spec import spec_text
    from ldpaudit.mechanism import loads_spec
    from ldpaudit.render.text import sstr
    from ldpaudit.verify import tight_epsilon, verify

    target, args, domain, expected = entry
    low, high = (int(v) for v in domain.split(".."))
    try:
        ex = extract(target, list(range(low, high + 1)), dict(args))
    except Undecided as exc:
        return ProvedRow(key, target, "UNKNOWN", "", expected, "", str(exc))
    except LdpAuditError as exc:
        if not target.startswith("tests/"):
            raise
        # a fixture of the test suite (a library's code copied verbatim) is found only in a checkout
        return ProvedRow(key, target, "SKIPPED", "", expected, "", f"{exc} (a fixture of ldpaudit's checkout)")
    mech = loads_spec(spec_text(ex), source=f"extracted from {ex.source.shown_path}:{ex.function}")
    kwargs = {} if rlimit is None else {"rlimit": rlimit}
    verdict = verify(mech, **kwargs)
    tight = tight_epsilon(mech, **kwargs)
    text = sstr(sp.simplify(tight.value)) if tight.determined else ""
    from ldpaudit.extract.command import witness_paths

    lines = "; ".join(witness_paths(ex, verdict.witness))[:300]
    return ProvedRow(key, target, verdict.status.name, text, expected, lines,
                     "" if tight.determined else tight.reason)


def table(rows: list[ProvedRow]) -> str:
    """The bugs proved from code, one line each."""
    out = ["planted bugs proved from their source (ldpaudit verify --from-code; the code read, never run):"]
    for r in rows:
        mark = "as expected" if r.as_expected else ("skipped" if r.status == "SKIPPED" else "NOT AS EXPECTED")
        tight = f"tight ε* = {r.tight}" if r.tight else "tight ε* not determined"
        out.append(f"  {r.key}: {r.status}, {tight} (expected {r.expected}) [{mark}]")
        if r.reason:
            out.append(f"      {r.reason}")
    return "\n".join(out)
