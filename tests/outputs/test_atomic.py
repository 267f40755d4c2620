"""atomic_directory: all of the outputs or none of them."""

import os

import pytest

from sabounds.errors import UserError
from sabounds.outputs import atomic, signals, swap
from sabounds.outputs.atomic import MARKER, OutputInterrupted, atomic_directory, read_marker, remove_stale_partials


def _mark(folder, **fields):
    """A marker as sabounds writes it on completion (with the sha256 and size of each listed file)."""
    import json

    from sabounds.outputs.marker import hashes as _hashes

    (folder / MARKER).write_text(
        json.dumps({"sabounds_output": 1, "state": "complete", **fields, "hashes": _hashes(folder, fields["files"])})
    )


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
    marker = '{"sabounds_output": 1, "state": "writing", "pid": %d, "target": "out", "files": []}'
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
    import sabounds.outputs.atomic as atomic

    target = tmp_path / "out"
    _old_report(target)
    monkeypatch.setattr(swap, "_renameat2", lambda src, dst, flags: False)
    with atomic_directory(target, force=True) as part:
        (part / "new.txt").write_text("new")
    assert _visible(target) == ["new.txt"] and sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    old_token = read_marker(target)["token"]
    dead = 999999997
    target.rename(tmp_path / f".out.old-{dead}")
    partial = tmp_path / f".out.partial-{dead}"
    partial.mkdir()
    (partial / "newer.txt").write_text("newer")
    _mark(partial, token="t2", replaces=old_token, files=["newer.txt"], pid=dead, target="out")
    done = atomic.recover(target)
    assert any("undone" in line for line in done) and any("undid" in line for line in done), done
    assert _visible(target) == ["new.txt"] and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_leftover_of_a_finished_swap_is_removed_as_finished(tmp_path):
    import json

    import sabounds.outputs.atomic as atomic

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


# --- the lock file: only sabounds' own is used or removed ---------------------------------------------------


def _lock(tmp_path):
    return tmp_path / ".out.sabounds-lock"


@pytest.mark.parametrize("kind", ["text", "empty", "link", "folder", "fifo"])
def test_a_lock_named_thing_sabounds_did_not_write_is_refused_and_kept(tmp_path, kind):
    """Through ``_acquire`` itself (the checks before any work refuse most of these earlier)."""
    from sabounds.outputs.lock import acquire as _acquire

    lock = _lock(tmp_path)
    (tmp_path / "notes.txt").write_text("my notes")
    if kind == "text":
        lock.write_text("precious\n")
    elif kind == "empty":
        lock.write_text("")
    elif kind == "link":
        lock.symlink_to(tmp_path / "notes.txt")
    elif kind == "folder":
        lock.mkdir()
    else:
        os.mkfifo(lock)
    before = sorted((p.name, p.is_symlink()) for p in tmp_path.iterdir())
    with pytest.raises(UserError) as info:
        _acquire(tmp_path / "out")
    assert "\n" not in str(info.value)
    assert ("another sabounds run" in str(info.value)) == (kind == "empty")
    with pytest.raises(UserError):
        with atomic_directory(tmp_path / "out"):
            pass
    assert sorted((p.name, p.is_symlink()) for p in tmp_path.iterdir()) == before
    assert (tmp_path / "notes.txt").read_text() == "my notes"
    if kind == "text":
        assert lock.read_text() == "precious\n"


def test_a_lock_left_by_a_killed_run_is_taken_and_removed(tmp_path):
    from sabounds.outputs.lock import LOCK_SIGNATURE

    _lock(tmp_path).write_bytes(LOCK_SIGNATURE + b"pid 999999999\n")
    with atomic_directory(tmp_path / "out") as part:
        (part / "a.txt").write_text("x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_the_lock_appears_with_its_content_and_only_ours_is_removed(tmp_path):
    from sabounds.outputs.lock import LOCK_SIGNATURE
    from sabounds.outputs.lock import acquire as _acquire
    from sabounds.outputs.lock import release as _release

    fd = _acquire(tmp_path / "out")
    assert _lock(tmp_path).read_bytes().startswith(LOCK_SIGNATURE)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.sabounds-lock"]  # no private file left
    _lock(tmp_path).unlink()
    _lock(tmp_path).write_text("a user's file put there meanwhile")
    _release(tmp_path / "out", fd)
    assert _lock(tmp_path).read_text() == "a user's file put there meanwhile"


# --- recovery touches only what a dead sabounds run left -----------------------------------------------------


def test_leftover_names_without_our_marker_or_with_foreign_content_are_left_alone(tmp_path, capsys):
    import json

    target = tmp_path / "out"
    empty_partial, empty_old = tmp_path / ".out.partial-999999", tmp_path / ".out.old-999998"
    empty_partial.mkdir()
    empty_old.mkdir()
    wrong_pid = tmp_path / ".out.partial-999997"  # a 'writing' marker naming another process
    wrong_pid.mkdir()
    (wrong_pid / MARKER).write_text(json.dumps({"sabounds_output": 1, "state": "writing", "pid": 5, "files": []}))
    extra = tmp_path / ".out.old-999996"  # complete marker, plus a file it does not list
    extra.mkdir()
    (extra / "a.txt").write_text("ours")
    _mark(extra, token="t1", replaces=None, files=["a.txt"])
    (extra / "mine.txt").write_text("the user's")
    edited = tmp_path / ".out.partial-999995"  # complete marker, a listed file edited since
    edited.mkdir()
    (edited / "a.txt").write_text("ours")
    _mark(edited, token="t2", replaces=None, files=["a.txt"])
    (edited / "a.txt").write_text("edited by the user")
    hashless = tmp_path / ".out.old-999994"  # complete marker without hashes: edits cannot be ruled out
    hashless.mkdir()
    (hashless / "a.txt").write_text("ours")
    (hashless / MARKER).write_text(json.dumps({"sabounds_output": 1, "state": "complete", "files": ["a.txt"]}))
    keep = [empty_partial, empty_old, wrong_pid, extra, edited, hashless]
    with atomic_directory(target) as part:
        (part / "new.txt").write_text("new")
    assert all(p.is_dir() for p in keep) and capsys.readouterr().err == ""
    assert (extra / "mine.txt").exists() and (edited / "a.txt").read_text() == "edited by the user"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out", *(p.name for p in keep)])


def test_a_folder_at_this_runs_own_leftover_name_blocks_it_and_is_kept(tmp_path):
    taken = tmp_path / f".out.old-{os.getpid()}"
    taken.mkdir()
    with pytest.raises(UserError, match="not made by this run"):
        with atomic_directory(tmp_path / "out"):
            pass
    assert taken.is_dir() and sorted(p.name for p in tmp_path.iterdir()) == [taken.name]


# --- --force and the content sabounds wrote ------------------------------------------------------------------


@pytest.mark.parametrize("change", ["edit", "same-size-edit", "link", "folder", "listed-folder-to-link", "no-hashes"])
def test_force_refuses_a_report_whose_files_were_changed(tmp_path, change):
    import json

    target = tmp_path / "out"
    with atomic_directory(target) as part:
        (part / "sub").mkdir()
        (part / "sub" / "t.csv").write_text("1,2\n")
        (part / "old.txt").write_text("old")
    (tmp_path / "elsewhere").mkdir()
    if change == "edit":
        (target / "old.txt").write_text("my notes")
    elif change == "same-size-edit":
        (target / "old.txt").write_text("OLD")
    elif change == "link":
        (target / "old.txt").unlink()
        (tmp_path / "elsewhere" / "old.txt").write_text("old")
        (target / "old.txt").symlink_to(tmp_path / "elsewhere" / "old.txt")
    elif change == "folder":
        (target / "old.txt").unlink()
        (target / "old.txt").mkdir()
    elif change == "listed-folder-to-link":
        import shutil

        shutil.rmtree(target / "sub")
        (target / "sub").symlink_to(tmp_path / "elsewhere")
    else:
        marker = read_marker(target)
        del marker["hashes"]
        (target / MARKER).write_text(json.dumps(marker))
    with pytest.raises(UserError) as info:
        with atomic_directory(target, force=True):
            pass
    message = str(info.value)
    assert "\n" not in message
    if change == "no-hashes":
        assert "without content hashes" in message
    else:
        assert "changed after sabounds wrote it" in message or change == "folder"
        assert ("sub" if change == "listed-folder-to-link" else "old.txt") in message
    assert os.path.lexists(target / "old.txt") and (tmp_path / "elsewhere").is_dir()


def test_force_replaces_a_report_whose_files_were_only_deleted(tmp_path):
    target = tmp_path / "out"
    _old_report(target)
    assert set(read_marker(target)["hashes"]) == {"old.txt"}
    (target / "old.txt").unlink()
    with atomic_directory(target, force=True) as part:
        (part / "new.txt").write_text("new")
    assert _visible(target) == ["new.txt"]


def test_an_interrupt_taken_by_another_thread_during_the_swap_comes_after_it(tmp_path, monkeypatch):
    """With the signal blocked in the main thread the kernel hands it to another thread; the swap still
    completes and the message says the new report is in place."""
    import threading

    target = tmp_path / "out"
    _old_report(target)
    stop = threading.Event()
    helper = threading.Thread(target=stop.wait, daemon=True)
    helper.start()
    monkeypatch.setattr(signals, "_fault", None)
    atomic.arm_fault("in-swap:INT")
    try:
        with pytest.raises(OutputInterrupted, match="holds the new, complete report"):
            with atomic_directory(target, force=True) as part:
                (part / "new.txt").write_text("new")
    finally:
        stop.set()
        helper.join()
    assert _visible(target) == ["new.txt"] and sorted(p.name for p in tmp_path.iterdir()) == ["out"]
