"""Hypothesis profiles: ``ci`` (default; quick, derandomized, no deadline) and ``thorough`` (many examples).

Select with ``pytest --hypothesis-profile=thorough`` or ``SABOUNDS_HYPOTHESIS_PROFILE=thorough``.
"""

import os

from sabounds.threads import default_to_one_blas_thread

default_to_one_blas_thread()

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=30, deadline=None, derandomize=True, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("thorough", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("SABOUNDS_HYPOTHESIS_PROFILE", "ci"))
