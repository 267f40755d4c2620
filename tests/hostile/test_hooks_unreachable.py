"""Test hooks are out of a user's reach (issue 20, item 4): ``SABOUNDS_TEST_READY`` and ``SABOUNDS_TEST_FAULT`` in
the environment do nothing (no file truncated or created, no signal sent); only test code arms the hooks."""

import os
import subprocess
import sys

import pytest

from tests.support.hostile import ROOT, tiny_model
from tests.support.hostile_exposure import FAULT_VALUES, HOOK_VARIABLES

pytestmark = pytest.mark.slow  # child processes


@pytest.mark.parametrize("variable,argv", HOOK_VARIABLES, ids=[f"{v}-{a[0]}" for v, a in HOOK_VARIABLES])
def test_a_hook_variable_in_the_environment_touches_nothing(variable, argv, tmp_path):
    precious = tmp_path / "thesis.tex"
    precious.write_text("precious")
    tiny_model(tmp_path / "model")
    value = str(precious) if variable == "SABOUNDS_TEST_READY" else "locked:KILL"
    words = [w.replace("{model}", str(tmp_path / "model")).replace("{out}", str(tmp_path / "out")) for w in argv]
    env = dict(os.environ, **{variable: value, "SABOUNDS_CACHE_DIR": "off"})
    done = subprocess.run(
        [sys.executable, "-m", "sabounds", *words], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert precious.read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["thesis.tex", "model"] + (["out"] if "--out" in argv else [])
    )


@pytest.mark.parametrize("fault", FAULT_VALUES)
def test_a_fault_variable_in_the_environment_sends_no_signal(fault, tmp_path):
    tiny_model(tmp_path / "model")
    env = dict(os.environ, SABOUNDS_TEST_FAULT=fault, SABOUNDS_CACHE_DIR="off")
    done = subprocess.run(
        [sys.executable, "-m", "sabounds", "analyze", str(tmp_path / "model"), "--out", str(tmp_path / "out")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / ".sabounds-output").is_file()


def test_the_ready_hook_never_truncates_an_existing_file(tmp_path):
    """Even armed by test code, the hook only creates a new file."""
    from tests.support.hostile import cli_with_ready_file

    ready = tmp_path / "exists.txt"
    ready.write_text("precious")
    done = subprocess.run(
        cli_with_ready_file(ready, "--version"), cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0 and ready.read_text() == "precious"
