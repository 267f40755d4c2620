"""Hostile --out values (tests/support/hostile.py OUTPUT_CASES x commands): refused in one line with nothing written or
deleted, or written into a folder that sabounds owns; two writers to one path: exactly one wins."""

import os
import signal
import subprocess
import sys
import time

import pytest

from sabounds.cli import main
from sabounds.outputs.atomic import MARKER, read_marker
from sabounds.outputs.lock import acquire as _acquire
from sabounds.outputs.lock import release as _release
from tests.support.hostile import (
    OUTPUT_CASES,
    OUTPUT_COMMANDS,
    REFUSALS_ONLY,
    REFUSE,
    ROOT,
    cli_with_fault,
    output_argv,
    snapshot,
    tiny_model,
    workspace,
)

# analyze meets every hazard in the quick lane (the --out handling is shared); the costlier commands in `make test`.
QUICK_COMMANDS = {"analyze", "scaling"}
CASES = [
    pytest.param(cmd, c, id=f"{cmd}-{c.id}", marks=() if cmd in QUICK_COMMANDS else pytest.mark.slow)
    for c in OUTPUT_CASES
    for cmd in OUTPUT_COMMANDS
    if cmd not in REFUSALS_ONLY or c.expect == REFUSE
]


@pytest.fixture
def root(tmp_path, monkeypatch):
    workspace(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _under(path: str, prefixes) -> bool:
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in prefixes)


@pytest.mark.parametrize("command,case", CASES)
def test_hostile_out(command, case, root, capsys):
    before = snapshot(root)
    rc = main(output_argv(command, case, root))
    captured = capsys.readouterr()
    after = snapshot(root)
    if case.expect == REFUSE:
        assert rc == 2, captured
        assert captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
        assert after == before, "a refused run changed the file system"
    else:
        assert rc == 0, captured.err
        kept = {k: v for k, v in before.items() if not _under(k, case.changes)}
        assert {k: v for k, v in after.items() if k in kept} == kept, "files outside the target changed"
        target = root / case.out
        assert read_marker(target)["state"] == "complete"
        listed = set(read_marker(target)["files"])
        present = {
            k[len(str(target.relative_to(root))) + 1 :]
            for k in after
            if k.startswith(str(target.relative_to(root)) + "/")
        }
        assert present - {MARKER} <= listed | {f + "/" for f in listed}
        hidden = [
            k
            for k in after
            if os.path.basename(k).startswith(".") and os.path.basename(k) != MARKER and k not in before
        ]
        assert hidden == [], f"leftovers: {hidden}"


def test_a_held_lock_refuses_a_second_writer_in_one_line(root, capsys):
    target = root / "fresh"
    fd = _acquire(target)
    try:
        before = snapshot(root)
        assert main(["analyze", "model", "--out", "fresh"]) == 2
        err = capsys.readouterr().err
        assert "another sabounds run" in err and err.count("\n") == 1
        assert snapshot(root) == before
    finally:
        _release(target, fd)


@pytest.mark.slow
def test_two_processes_to_one_out_exactly_one_wins(tmp_path):
    """Run A stops (SIGSTOP) holding the lock after creating its partial folder; run B is refused; A finishes."""
    tiny_model(tmp_path / "model")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "sabounds", "analyze", str(tmp_path / "model"), "--out", str(out), "--json"]
    a = subprocess.Popen(
        cli_with_fault("partial-created:STOP", *cmd[3:]),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not list(tmp_path.glob(".out.partial-*")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert list(tmp_path.glob(".out.partial-*")), "run A never started writing"
        b = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert b.returncode == 2 and "another sabounds run" in b.stderr and b.stderr.count("\n") == 1
        a.send_signal(signal.SIGCONT)
        _, err = a.communicate(timeout=300)
    finally:
        a.kill()
    assert a.returncode == 0, err
    assert read_marker(out)["state"] == "complete"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model", "out"]
