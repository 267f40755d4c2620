"""Hypothesis profiles: ``ci`` (default; quick, derandomized, no deadline) and ``thorough`` (many examples).

Select with ``pytest --hypothesis-profile=thorough`` or ``SABOUNDS_HYPOTHESIS_PROFILE=thorough``.
"""

import os

if "OPENBLAS_NUM_THREADS" not in os.environ and "OMP_NUM_THREADS" not in os.environ:
    os.environ["OPENBLAS_NUM_THREADS"] = "1"  # the test processes, as the command line: one BLAS thread (threads.py)

import pytest
from hypothesis import HealthCheck, settings

from tests.support.dask_cluster import dask_cluster  # noqa: F401  (a fixture: a real scheduler and two workers)

_HOSTILE = pytest.StashKey[int]()

settings.register_profile(
    "ci",
    max_examples=30,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough",
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("SABOUNDS_HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(session, config, items):
    config.stash[_HOSTILE] = sum(1 for item in items if item.path.parent.name == "hostile")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """Under pytest-xdist (``make test-fast``) the workers collect: count from a worker's list of test ids."""
    node.config.stash[_HOSTILE] = sum(1 for i in ids if i.startswith("tests/hostile/"))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The hostile suite counts its cases: ``hostile cases: N`` (those collected in this run)."""
    count = config.stash.get(_HOSTILE, 0)
    if count:
        terminalreporter.write_line(
            f"hostile cases: {count} (collected from tests/hostile/ in this run; "
            "per class: python -m tests.support.hostile)"
        )


# --- expensive results shared by several files: computed once per test process -------------------------------

QUICK = ("--precision", "20", "--samples", "10")
"""The quick settings of the shared results: every check decided at 20 digits with 10 samples."""


def _command_json(argv: list[str]) -> dict:
    import contextlib
    import io
    import json

    from sabounds.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0, argv
    return json.loads(out.getvalue())


@pytest.fixture(scope="session")
def quick_checks() -> dict:
    """``sabounds verify --json`` at the quick settings: every check's outcome."""
    return _command_json(["verify", "--json", *QUICK])


@pytest.fixture(scope="session")
def regime_command_json() -> dict:
    """``sabounds regimes --format json``: all five regimes under both alpha models, with the second route, computed
    by the command in this process (minutes)."""
    return _command_json(["regimes", "--format", "json"])


@pytest.fixture(scope="session")
def regime_tables() -> dict:
    """The same tables as :func:`regime_command_json`, from the report's cached part (``full_report.cached_parts``):
    the stored result when it is current for this code (instant), else the user's cache, else computed once.
    ``tests/outputs/test_report.py`` checks that they equal the command's."""
    from sabounds.full_report import cached_parts

    return cached_parts.regimes()[0]


@pytest.fixture(scope="session")
def default_checks() -> dict:
    """Every check's outcome at the default settings, by id, from the report's cached part (as :func:`regime_tables`):
    the claims' witnesses without deciding them again in every test file."""
    from sabounds.full_report import cached_parts
    from sabounds.proofs_check.verdict import Settings

    return {c.id: o for c, o in cached_parts.checks(Settings())[0]}


@pytest.fixture(scope="session")
def quick_report(tmp_path_factory):
    """One ``sabounds report`` folder at the quick settings (tests read it; none writes into it)."""
    from sabounds.cli import main

    out = tmp_path_factory.mktemp("report") / "report"
    assert main(["report", "--out", str(out), *QUICK]) == 0
    return out
