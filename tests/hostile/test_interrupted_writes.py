"""``report --force`` over an existing report, interrupted at every stage of the write and the swap (SIGINT,
SIGTERM, SIGKILL through ``sabounds.outputs.atomic.arm_fault``): afterwards exactly one complete report exists, old or new,
the message says which, and the next run leaves no hidden folder.  Ctrl-C at start-up is one line.

The report's computation is replaced by a fast writer (tests/support/hostile.py ``fake_build_report``) so that 27
interrupted runs take seconds (SIGINT and SIGTERM in this process, SIGKILL in a child); the command, the folder machinery and the writers are the real ones.
"""

import signal
import subprocess
import time

import pytest

from sabounds.outputs import atomic, signals
from sabounds.outputs.atomic import MARKER, read_marker
from tests.support.hostile import (
    INTERRUPT_STAGES,
    NEW_AFTER,
    ROOT,
    SIGNALS,
    STARTUP_DELAYS,
    cli_with_ready_file,
    fake_build_report,
    run_report_subprocess,
    wait_for,
)

pytestmark = pytest.mark.slow  # child processes interrupted at every stage


def _report_run(target):
    marker = read_marker(target)
    assert marker is not None and marker["state"] == "complete", "no complete report at the target"
    listed = set(marker["files"])
    assert {"report.md", "checks.csv", "analysis/", "analysis/t0.csv", "analysis/t3.csv"} <= listed, listed
    for name in listed:
        assert (target / name).exists(), f"{name} listed but missing"
    return (target / "report.md").read_text().split()[-1]


def _in_process(target, run, fault, monkeypatch, capsys):
    """The same command in this process (INT and TERM are caught; KILL needs a child process)."""
    from sabounds.cli import main

    monkeypatch.setenv("SABOUNDS_TEST_RUN", run)
    monkeypatch.setattr(signals, "_fault", None)
    atomic.arm_fault(fault)
    rc = main(["report", "--out", str(target), "--force", "--precision", "15", "--samples", "1"])
    atomic.arm_fault(None)
    return rc, capsys.readouterr().err


@pytest.fixture
def fast_report(monkeypatch):
    import sabounds.full_report.files as command

    monkeypatch.setattr(command, "build_report", fake_build_report)


@pytest.mark.parametrize("stage", INTERRUPT_STAGES)
@pytest.mark.parametrize("sig", SIGNALS)
def test_interrupted_replacement_leaves_exactly_one_complete_report(
    tmp_path, stage, sig, fast_report, monkeypatch, capsys
):
    target = tmp_path / "report"
    rc, err = _in_process(target, "old", None, monkeypatch, capsys)
    assert rc == 0, err
    assert _report_run(target) == "old"

    if sig == "KILL":
        hit = run_report_subprocess(target, tmp_path, "new", f"{stage}:{sig}")
        assert hit.returncode == -signal.SIGKILL, hit.stderr
        expected = "new" if stage in ("swapped", "old-half-deleted", "done") else "old"
    else:
        rc, err = _in_process(target, "new", f"{stage}:{sig}", monkeypatch, capsys)
        expected = "new" if stage in NEW_AFTER else "old"
        assert rc == 130, err
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert ("holds the new, complete report" in err) == (expected == "new"), err
        assert (f"{target} unchanged" in err) == (expected == "old"), err
    assert _report_run(target) == expected

    rc, err = _in_process(target, "third", None, monkeypatch, capsys)
    assert rc == 0, err
    if sig == "KILL" and stage not in ("locked", "done"):
        assert "sabounds: " in err and ("removed" in err or "undid" in err or "finished" in err), err
    assert _report_run(target) == "third"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"], "a hidden folder or lock remains"


@pytest.mark.parametrize("delay", STARTUP_DELAYS)
def test_ctrl_c_at_start_up_is_one_line(tmp_path, delay):
    """Delays count from the moment sabounds' own handler is in place (the child creates the ready file):
    an interrupt inside Python's start-up, before any package code runs, is the interpreter's, not ours."""
    out, ready = tmp_path / "report", tmp_path.parent / f"ready-{tmp_path.name}"
    proc = subprocess.Popen(
        cli_with_ready_file(ready, "report", "--out", str(out), "--precision", "15", "--samples", "1"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert wait_for(ready.exists, 120), "the child never reached sabounds.cli"
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err
    assert err.count("\n") == 1 and "interrupted" in err and "Traceback" not in err, err
    assert not out.exists() and [p.name for p in tmp_path.iterdir() if p.name != MARKER] == []
