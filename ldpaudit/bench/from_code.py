"""Which planted bugs of the suite (:mod:`ldpaudit.bench.suite`) are now proved, not only
detected: a per-report twin of the bug in ordinary Python (``tests/extract/planted.py`` and the
multi-freq-ldpy fixture, in a checkout) is REFUTED by ``ldpaudit verify --from-code`` with its
exact tight ε (issue 36; tests/test_extract.py and tests/test_extract_libraries.py check each).
The suite's own samplers are vectorized (n reports per call) and are audited, not extracted.

bench key -> (target, --target-arg values, --domain, tight ε of the buggy channel)
"""

PROVED_FROM_CODE = {
    "krr-uniform-fallback": ("tests/extract/planted.py:krr_other_from_all", {"d": "4"}, "0..3",
                             "log(4*exp(epsilon)/3 + 1)"),
    "subset-order": ("tests/fixtures/multi_freq_ldpy_clients.py:SS_Client", {"k": "4", "epsilon": "1/2"}, "0..3",
                     "oo"),
    "oue-wrong-q": ("tests/extract/planted.py:oue_misplaced_parenthesis", {"d": "3"}, "0..2", "oo"),
}

#: bugs of the issue's list proved from code that the suite has no sampler for
PROVED_FROM_CODE_ONLY = {
    "randint-inclusive": ("tests/extract/planted.py:krr_randint_inclusive", {"d": "4"}, "0..3",
                          "epsilon + log(4/3)"),
    "epsilon-not-halved": ("tests/extract/planted.py:two_reports_eps_not_halved", {}, "0..1", "2*epsilon"),
    "subset-with-replacement": ("tests/extract/planted.py:ksubset_with_replacement", {"d": "4", "k": "2"}, "0..3",
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
