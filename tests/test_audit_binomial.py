"""The conformance checks' exact two-sided binomial test (audit/binomial.py) is scipy.stats.binomtest's,
without importing scipy.stats."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from ldpaudit.audit import binomial


def _cases():
    rng = np.random.default_rng(0)
    for n in (1, 2, 7, 50, 1000, 200_000, 2_000_000, 10**7):
        for p in (1e-6, 0.001, 0.1, 0.228989990914488, 0.5, 0.6224593312018546, 0.97):
            sd = (n * p * (1 - p)) ** 0.5
            ks = {0, n, int(n * p), int(n * p) + 1, *map(int, rng.binomial(n, p, 2))}
            ks |= {int(n * p + z * sd) for z in (-6, -3, -2, 2, 3, 6)}
            for k in sorted(k for k in ks if 0 <= k <= n):
                yield k, n, p


def test_pvalues_match_scipy_binomtest():
    worst, count = 0.0, 0
    for k, n, p in _cases():
        want = stats.binomtest(k, n, p).pvalue
        got = binomial.pvalue(k, n, p)
        worst = max(worst, abs(got - want) / want if want > 1e-300 else got)
        count += 1
    assert count > 300 and worst < 1e-6


@pytest.mark.parametrize("k, n, p, want", [
    (0, 10, 0.0, 1.0), (1, 10, 0.0, 0.0), (10, 10, 1.0, 1.0), (9, 10, 1.0, 0.0), (5, 10, 0.5, 1.0),
    (0, 1, 0.5, 1.0), (3, 100, 0.5, stats.binomtest(3, 100, 0.5).pvalue),
])
def test_pvalue_edges(k, n, p, want):
    assert binomial.pvalue(k, n, p) == pytest.approx(want, rel=1e-9, abs=1e-300)


def test_pmf_is_accurate_where_lgamma_is_not():
    """Poisson-like tie: at n = 10^7, p = 10^-6 the pmf at 9 and 10 agree to 1e-16, which the
    test's 1e-7 tolerance must see (exp(lgamma) loses ~1e-8 and tipped the p-value to 1)."""
    n, p = 10**7, 1e-6
    for k in (0, 1, 9, 10, 11, 40):
        assert binomial.pmf(k, n, p) == pytest.approx(stats.binom.pmf(k, n, p), rel=1e-11)
    assert binomial.pvalue(9, n, p) == pytest.approx(stats.binomtest(9, n, p).pvalue, rel=1e-9)
    assert binomial.pvalue(9, n, p) < 0.9


def test_spec_guided_audit_does_not_import_scipy_stats():
    code = ("import sys; from ldpaudit.audit import audit; from ldpaudit.mechanism import catalog as C, randomizers as R\n"
            "r = audit(R.krr(d=4, epsilon=1), domain=range(4), epsilon=1, samples=2000, batch=True, "
            "spec=C.k_rr(d=4, epsilon=1))\n"
            "assert r.conformance['tests'] > 0\n"
            "print('scipy.stats' in sys.modules, 'scipy.integrate' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
