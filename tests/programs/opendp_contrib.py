"""OpenDP's measurement factories with its 'contrib' features enabled, as a user's script does
before building one (tests/test_foreign_python.py audits them through a class target)."""

import opendp.prelude as dp

dp.enable_features("contrib")

from opendp.measurements import make_randomized_response  # noqa: F401 - the factory the target names
