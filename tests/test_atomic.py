"""atomic_directory: all of the outputs or none of them."""

import os

import pytest

from sabounds.atomic import MARKER, OutputInterrupted, atomic_directory, read_marker, remove_stale_partials
from sabounds.errors import UserError


def _mark(folder, **fields):
    """A marker as sabounds writes it on completion (with the sha256 and size of each listed file)."""
    import json
    from sabounds.atomic import _hashes
    (folder / MARKER).write_text(json.dumps({"sabounds_output": 1, "state": "complete", **fields,
                                             "hashes": _hashes(folder, fields["files"])}))


def _visible(folder):
    return sorted(p.name for p in folder.iterdir() if p.name != MARKER)


def test_success_moves_the_folder_into_place(tmp_path):
    target = tmp_path / "out"
    with atomic_directory(target) as part:
        (part / "a.txt").write_text("x")
        assert not target.exists()
    assert (target / "a.txt").read_text() == "x"
    assert read_marker(target)["state"] == "complete" and read_marker(target)["files"] == ["a.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_error_leaves_nothing(tmp_path):
    target = tmp_path / "out"
    with pytest.raises(RuntimeError):
        with atomic_directory(target) as part:
            (part / "a.txt").write_text("x")
            raise RuntimeError("disk full")
    assert not target.exists() and not list(tmp_path.iterdir())


def test_interrupt_leaves_nothing(tmp_path):
    target = tmp_path / "out"
    with pytest.raises(OutputInterrupted, match="not created"):
        with atomic_directory(target) as part:
            (part / "a.txt").write_text("x")
            raise KeyboardInterrupt
    assert not list(tmp_path.iterdir())


def _old_report(target):
    with atomic_directory(target) as part:
        (part / "old.txt").write_text("old")


def test_existing_target_needs_force(tmp_path):
    target = tmp_path / "out"
    _old_report(target)
    with pytest.raises(UserError, match="--force"):
        with atomic_directory(target):
            pass
    with atomic_directory(target, force=True) as part:
        (part / "new.txt").write_text("new")
    assert _visible(target) == ["new.txt"]


def test_force_refuses_a_folder_sabounds_did_not_write(tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    (target / "mine.txt").write_text("user data")
    with pytest.raises(UserError, match="not a sabounds output folder"):
        with atomic_directory(target, force=True):
            pass
    _old_report(tmp_path / "rep")
    (tmp_path / "rep" / "notes.txt").write_text("added by the user")
    with pytest.raises(UserError, match="did not write"):
        with atomic_directory(tmp_path / "rep", force=True):
            pass
    assert (target / "mine.txt").read_text() == "user data"
    assert (tmp_path / "rep" / "notes.txt").exists() and (tmp_path / "rep" / "old.txt").exists()


def test_failed_forced_run_keeps_the_old_report(tmp_path):
    target = tmp_path / "out"
    _old_report(target)
    with pytest.raises(RuntimeError):
        with atomic_directory(target, force=True):
            raise RuntimeError
    assert (target / "old.txt").read_text() == "old"


def test_stale_partials_of_dead_runs_are_removed(tmp_path):
    target = tmp_path / "out"
    marker = '{"sabounds_output": 1, "state": "writing", "pid": %d, "files": []}'
    dead, alive, foreign = (tmp_path / f".out.partial-{pid}" for pid in (999999999, os.getpid(), 999999998))
    for folder in (dead, alive, foreign):
        folder.mkdir()
    (dead / MARKER).write_text(marker % 999999999)
    (alive / MARKER).write_text(marker % os.getpid())
    (foreign / "data.txt").write_text("not ours")
    assert remove_stale_partials(target) == [dead]
    assert alive.exists() and not dead.exists() and foreign.exists()  # no marker: not ours, never deleted


def test_unwritable_target_is_a_one_line_user_error(tmp_path):
    with pytest.raises(UserError, match="cannot"):
        with atomic_directory("/proc/sabounds-cannot-write-here/out"):
            pass


def test_write_failure_inside_becomes_user_error_and_leaves_nothing(tmp_path):
    target = tmp_path / "out"
    with pytest.raises(UserError, match="nothing written"):
        with atomic_directory(target):
            raise OSError(28, "No space left on device")
    assert not list(tmp_path.iterdir())


def test_an_interrupt_swallowed_inside_still_discards_the_folder(tmp_path):
    import signal
    target = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        with atomic_directory(target) as part:
            (part / "a.txt").write_text("x")
            try:
                signal.raise_signal(signal.SIGTERM)
            except BaseException:  # library code that swallows everything
                pass
    assert not list(tmp_path.iterdir())


def test_two_rename_fallback_replaces_and_a_kill_between_is_undone(tmp_path, monkeypatch):
    """Without renameat2 the swap is two renames; the state a kill between them leaves (target missing, the old
    report at .out.old-PID, the new complete one at .out.partial-PID) is undone by the next run."""
    import json
    import sabounds.atomic as atomic
    target = tmp_path / "out"
    _old_report(target)
    monkeypatch.setattr(atomic, "_renameat2", lambda src, dst, flags: False)
    with atomic_directory(target, force=True) as part:
        (part / "new.txt").write_text("new")
    assert _visible(target) == ["new.txt"] and sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    old_token = read_marker(target)["token"]
    dead = 999999997
    target.rename(tmp_path / f".out.old-{dead}")
    partial = tmp_path / f".out.partial-{dead}"
    partial.mkdir()
    (partial / "newer.txt").write_text("newer")
    _mark(partial, token="t2", replaces=old_token, files=["newer.txt"])
    done = atomic.recover(target)
    assert any("undone" in line for line in done) and any("undid" in line for line in done), done
    assert _visible(target) == ["new.txt"] and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_leftover_of_a_finished_swap_is_removed_as_finished(tmp_path):
    import json
    import sabounds.atomic as atomic
    target = tmp_path / "out"
    _old_report(target)
    token = read_marker(target)["token"]
    old = tmp_path / ".out.partial-999999996"
    old.mkdir()
    (old / "old.txt").write_text("older")
    _mark(old, token="t0", replaces=None, files=["old.txt"])
    marker = read_marker(target)
    marker["replaces"] = "t0"
    (target / MARKER).write_text(json.dumps(marker))
    done = atomic.recover(target)
    assert len(done) == 1 and "finished" in done[0] and not old.exists() and token
