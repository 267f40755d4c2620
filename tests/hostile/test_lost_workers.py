"""A worker lost during a sweep or a study (issue 34 item 5): each case of ``tests/support/lost_worker_cases.py``
runs in a child pytest on a real local Dask cluster, with a deadline.

In the child because the cases kill Dask workers on purpose: now and then (twice in CI runs, once in three runs of
this file on 2 workers, never in 12 runs of one case alone) the local cluster stalls after such a kill until the
per-test limit ends the process, and pytest-xdist then waited for its lost test worker forever.  The stall is not
yet understood (an open defect: a sweep or study whose worker dies may hang the same way).  A child that passes its
deadline is killed with its process group (its cluster included) and tried once more; a second stall fails the case."""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("distributed")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "support" / "lost_worker_cases.py"
DEADLINE = 120
"""Seconds a case may take in its child (each takes 3-25 s on an idle 2-core machine); the child's own per-test
limit is later, so that a stall is ended here and tried again."""


def _case_names() -> list[str]:
    tree = ast.parse(CASES.read_text(encoding="utf-8"))
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]


def _run_child(name: str) -> subprocess.CompletedProcess | None:
    """The case in a child pytest; None when it passed :data:`DEADLINE` (its process group then killed)."""
    argv = [
        sys.executable,
        "-m",
        "pytest",
        f"{CASES.relative_to(ROOT)}::{name}",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:xdist",
        "-o",
        f"timeout={3 * DEADLINE}",
    ]
    child = subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    try:
        out, _ = child.communicate(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        return None
    return subprocess.CompletedProcess(argv, child.returncode, out)


@pytest.mark.parametrize("name", _case_names())
def test_lost_worker_case(name):
    done = _run_child(name)
    if done is None:
        warnings.warn(f"{name}: the child stalled past {DEADLINE} s and was killed; trying once more", stacklevel=1)
        done = _run_child(name)
    assert done is not None, f"{name}: the child stalled twice past {DEADLINE} s"
    assert done.returncode == 0, done.stdout[-4000:]
    if "1 skipped" in done.stdout:  # e.g. the study's case without torch: the child's reason, as a skip here
        pytest.skip(next((line for line in done.stdout.splitlines() if line.startswith("SKIPPED")), "skipped"))
    assert "1 passed" in done.stdout, done.stdout[-2000:]
