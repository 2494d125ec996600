"""The public Python API: ``import ldpaudit`` and call the three stages."""

import pytest

import ldpaudit
from ldpaudit.mechanism.randomizers import krr


def test_the_three_stages_are_callable_from_the_top_level():
    mech = ldpaudit.load_spec("specs/krr.toml").bind(d=8)
    assert ldpaudit.verify(mech).passed
    assert not ldpaudit.verify(mech, epsilon="epsilon - 1/1000").passed
    assert set(ldpaudit.derive(mech).results) >= {"estimator", "variance", "l2_worst", "mutual_information"}
    result = ldpaudit.audit(krr(d=8, epsilon=2.0), domain=range(8), epsilon=1, samples=20_000, batch=True)
    assert result.verdict == "VIOLATION"
    assert set(result.to_json()) >= {"verdict", "epsilon_claimed", "epsilon_lower_bound", "confidence", "witness",
                                     "samples_per_input", "seconds", "detectable_epsilon", "conformance"}
    # the packages stay packages
    from ldpaudit.audit.command import parse_domain
    assert parse_domain("0..2") == [0, 1, 2] and ldpaudit.audit.audit is not None


def test_unknown_attribute():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        ldpaudit.nope  # noqa: B018
    assert "assert_ldp" in dir(ldpaudit)
