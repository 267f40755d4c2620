"""Hypothesis profiles: ``ci`` (default; quick, derandomized, no deadline) and ``thorough`` (many examples).

Select with ``pytest --hypothesis-profile=thorough`` or ``SABOUNDS_HYPOTHESIS_PROFILE=thorough``.
"""

import os

from sabounds.threads import default_to_one_blas_thread

default_to_one_blas_thread()

import pytest
from hypothesis import HealthCheck, settings

from tests.support.dask_cluster import dask_cluster  # noqa: F401  (a fixture: a real scheduler and two workers)

_HOSTILE = pytest.StashKey[int]()

settings.register_profile("ci", max_examples=30, deadline=None, derandomize=True, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("thorough", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("SABOUNDS_HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(session, config, items):
    config.stash[_HOSTILE] = sum(1 for item in items if item.path.parent.name == "hostile")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The hostile suite counts its cases: ``hostile cases: N`` (those collected in this run)."""
    count = config.stash.get(_HOSTILE, 0)
    if count:
        terminalreporter.write_line(f"hostile cases: {count} (collected from tests/hostile/ in this run; "
                                    "per class: python -m tests.support.hostile)")
