"""atomic_directory: all of the outputs or none of them."""

import os

import pytest

from sabounds.atomic import atomic_directory, remove_stale_partials
from sabounds.errors import UserError


def test_success_moves_the_folder_into_place(tmp_path):
    target = tmp_path / "out"
    with atomic_directory(target) as part:
        (part / "a.txt").write_text("x")
        assert not target.exists()
    assert (target / "a.txt").read_text() == "x"
    assert not list(tmp_path.glob(".out.partial-*"))


def test_error_leaves_nothing(tmp_path):
    target = tmp_path / "out"
    with pytest.raises(RuntimeError):
        with atomic_directory(target) as part:
            (part / "a.txt").write_text("x")
            raise RuntimeError("disk full")
    assert not target.exists() and not list(tmp_path.iterdir())


def test_interrupt_leaves_nothing(tmp_path):
    target = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        with atomic_directory(target) as part:
            (part / "a.txt").write_text("x")
            raise KeyboardInterrupt
    assert not list(tmp_path.iterdir())


def test_existing_target_needs_force(tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    (target / "old.txt").write_text("old")
    with pytest.raises(UserError, match="--force"):
        with atomic_directory(target):
            pass
    with atomic_directory(target, force=True) as part:
        (part / "new.txt").write_text("new")
    assert sorted(p.name for p in target.iterdir()) == ["new.txt"]


def test_failed_forced_run_keeps_the_old_report(tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    (target / "old.txt").write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_directory(target, force=True):
            raise RuntimeError
    assert (target / "old.txt").read_text() == "old"


def test_stale_partials_of_dead_runs_are_removed(tmp_path):
    target = tmp_path / "out"
    dead = tmp_path / ".out.partial-999999999"
    dead.mkdir()
    alive = tmp_path / f".out.partial-{os.getpid()}"
    alive.mkdir()
    assert remove_stale_partials(target) == [dead]
    assert alive.exists() and not dead.exists()


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
