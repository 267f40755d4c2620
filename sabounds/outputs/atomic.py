"""Output folders that are owned, locked and replaced atomically: sabounds loses nothing it did not write.

``atomic_directory(target, force, protect)`` yields a private partial folder ``.<name>.partial-<pid>`` beside
``target``; when the block succeeds the partial folder is completed and swapped into place, otherwise removed.

- **Ownership.** Every folder sabounds creates carries a marker file ``.sabounds-output`` (JSON: a run token,
  the state ``writing`` or ``complete``, the token of the report it replaces, the manifest of the files it
  wrote and, once complete, the sha256 and size of each).  ``--force`` replaces only an empty folder or one whose
  marker lists every file in it with unchanged content (an edited file, or one turned into a link or folder, is
  named in the refusal; a marker without hashes is not trusted); it refuses a symbolic link (never followed),
  the current folder or one containing it, the inputs (``protect``), a folder containing or inside an input,
  anything that is not a folder, and an empty path.
- **Concurrency.** ``fcntl.flock`` on ``.<name>.sabounds-lock`` beside the target, held from the first check to
  the swap: of two runs to one path exactly one proceeds, the other gets a one-line error.  The lock file
  appears with its content (first line ``sabounds output lock``; hard-linked from a private file); a file of
  that name that is a link, not a regular file, or holds other content is refused and never opened for writing
  or removed; only the lock file this run holds is removed.
- **Atomic swap.** On Linux ``renameat2(RENAME_EXCHANGE)`` (through ctypes) swaps the complete new folder with
  the old one in one system call, so at every instant exactly one complete report sits at ``target``; the old
  one is then deleted.  Where the call is missing (non-Linux, or a file system that refuses it) two renames
  are used; a kill between them leaves ``target`` missing for an instant, and the next run restores the old
  report.  SIGINT and SIGTERM are blocked during the swap (and held until
  after it if another thread takes them), so an interrupt is reported with the true state.
- **Recovery.** Leftovers of a killed run carry the marker; the next run to the same target (under the lock)
  deletes unfinished ones, finishes an interrupted replacement or undoes it, and says which on stderr.  Only a
  leftover of a dead process named exactly for this target is touched (names compared as strings, never as a
  glob: a target ``o*`` never sees ``.out.old-7``): a partial whose marker names this target and that process
  (``writing``, or ``complete`` and replaceable by ``--force``), or the replaceable previous report that such a
  partial or the report at the target names by its token; a folder of a leftover's name without our marker,
  another target's, or with files the marker does not list or that were edited, is left alone (if it blocks
  this run, the refusal says so).
- **Fault injection (tests only).** :func:`arm_fault` (``"<stage>[:<SIG>]"``) makes the process send itself ``SIG``
  (INT, TERM, KILL or STOP; INT by default) at ``<stage>``; :data:`STAGES` lists them, in order.  Nothing in a
  user's environment arms it: only test code calls :func:`arm_fault`.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sabounds.errors import UserError
from sabounds.outputs.file_systems import special_file_system
from sabounds.outputs.lock import acquire, foreign_lock, lock_path, release
from sabounds.outputs.marker import MARKER, contents, hashes, ownership, read_marker, write_marker
from sabounds.outputs.recovery import recover, remove_stale_partials
from sabounds.outputs.signals import SIGNALS, Interrupts, OutputInterrupted, arm_fault, fault_point
from sabounds.outputs.swap import old_name, partial_name, remove_old, swap

__all__ = [
    "MARKER",
    "OutputInterrupted",
    "arm_fault",
    "atomic_directory",
    "check_target",
    "ownership",
    "read_marker",
    "recover",
    "remove_stale_partials",
]


# --- checks before any work --------------------------------------------------------------------------------


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _check_creatable(path: Path) -> None:
    """Refuse, before any work, a target whose folder could not be made: its nearest existing ancestor is not a
    folder (a file, a dangling link), lies on a special file system of the kernel (/proc, /sys, ...) or is not
    writable (permissions, a read-only file system)."""
    ancestor = path.parent
    while not os.path.lexists(ancestor) and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not os.path.isdir(ancestor):
        raise UserError(f"cannot write {path}: {ancestor} is not a folder")
    special = special_file_system(ancestor)
    if special:
        raise UserError(
            f"cannot write {path}: {ancestor} is on the kernel's {special} file system, not storage; "
            "choose a folder on a disk"
        )
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise UserError(f"cannot write {path}: no permission to create anything in {ancestor}")


def check_target(target: str | os.PathLike, force: bool = False, protect: Iterable[str | os.PathLike] = ()) -> Path:
    """Validate an output path; returns it absolute (its last component not resolved).  Raises UserError."""
    if str(target).strip() == "":
        raise UserError("--out is empty; give a folder name")
    if "\0" in str(target):
        raise UserError("--out contains a NUL character")
    path = Path(os.path.abspath(target))
    if path.name in ("", ".", ".."):
        raise UserError(f"--out {str(target)!r} names no new folder")
    if path.is_symlink():
        raise UserError(f"{path} is a symbolic link; sabounds never writes through links (give the real folder)")
    real = Path(os.path.realpath(path.parent)) / path.name
    cwd = Path(os.path.realpath(os.getcwd()))
    if _inside(cwd, real):
        raise UserError(f"{path} is the current folder or contains it; refusing to write there")
    for item in protect:
        if item is None:
            continue
        inp = Path(os.path.realpath(item))
        if _inside(inp, real) or _inside(real, inp):
            raise UserError(f"{path} is, contains or lies inside the input {inp}; choose another --out")
    _check_creatable(path)
    foreign = foreign_lock(lock_path(path))
    if foreign:
        raise UserError(foreign)
    if os.path.lexists(path):
        if not path.is_dir():
            raise UserError(f"{path} exists and is not a folder")
        if not force:
            raise UserError(f"{path} exists; pass --force to replace it or --out to write elsewhere")
        why = ownership(path)
        if why:
            raise UserError(why)
    return path


# --- the context manager ------------------------------------------------------------------------------------


def _finish_marker(partial: Path, record: dict) -> None:
    files = contents(partial)
    record.update(state="complete", files=files, hashes=hashes(partial, files))
    write_marker(partial, record)


def _new_record(path: Path, old_marker: dict | None) -> dict:
    """The marker of this run's folder for ``path`` (state ``writing``); refuses names of this pid already taken."""
    for taken in (partial_name(path, os.getpid()), old_name(path, os.getpid())):
        if os.path.lexists(taken):
            raise UserError(f"{taken} exists (not made by this run); sabounds will not touch it: move it away or retry")
    return {
        "sabounds_output": 1,
        "token": uuid.uuid4().hex,
        "pid": os.getpid(),
        "target": path.name,
        "state": "writing",
        "replaces": old_marker.get("token") if old_marker else None,
        "files": [],
    }


def _make_partial(path: Path, record: dict) -> Path:
    """Create this run's partial folder beside ``path`` with its marker (removed again if the marker fails)."""
    partial = partial_name(path, os.getpid())
    try:
        partial.mkdir()
    except OSError as exc:
        raise UserError(f"cannot write in {path.parent}: {exc.strerror or exc}") from None
    try:
        write_marker(partial, record)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return partial


@contextmanager
def atomic_directory(
    target: str | os.PathLike, force: bool = False, protect: Iterable[str | os.PathLike] = ()
) -> Iterator[Path]:
    """Yield a partial folder; swap it into ``target`` when the block succeeds, remove it otherwise.

    Refusals (UserError, before any work): see :func:`check_target`; the lock is held until the swap is done.
    An interrupt raises :class:`OutputInterrupted` whose message says which report is at ``target``.
    Must run in the main thread.
    """
    protect = list(protect)
    path = check_target(target, force, protect)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create {path.parent}: {exc.strerror or exc}") from None
    interrupts = Interrupts()
    previous = {sig: signal.signal(sig, interrupts) for sig in SIGNALS}
    lock = None
    partial = None
    swapped = False
    existed = False
    try:
        lock = acquire(path)
        fault_point("locked")
        for line in recover(path):
            print(f"sabounds: {line}", file=sys.stderr)
        check_target(path, force, protect)  # again, under the lock
        existed = os.path.lexists(path)
        record = _new_record(path, read_marker(path) if existed else None)
        with interrupts.held():  # the folder is never without its marker (but after SIGKILL)
            partial = _make_partial(path, record)
        fault_point("partial-created")
        yield partial
        fault_point("written")
        if interrupts.seen:
            raise KeyboardInterrupt
        _finish_marker(partial, record)
        fault_point("completed")
        if existed and ownership(path):  # changed under us since the check (not by sabounds: we hold the lock)
            raise UserError(ownership(path))
        with interrupts.held():
            fault_point("in-swap")
            old = swap(partial, path)
            swapped = True
        fault_point("swapped")
        if old is not None:
            remove_old(old)
        fault_point("done")
    except BaseException as exc:
        if not swapped and partial is not None:  # made by our mkdir, so everything in it is ours
            shutil.rmtree(partial, ignore_errors=True)
        replacement = _failure(exc, path, swapped, existed)
        if replacement is None:
            raise
        raise replacement from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if lock is not None:
            release(path, lock)


def _failure(exc: BaseException, path: Path, swapped: bool, existed: bool) -> BaseException | None:
    """What an exception inside :func:`atomic_directory` becomes: an interrupt says which report is at ``path``
    now, a system error is a one-line refusal; None: ``exc`` itself."""
    if isinstance(exc, KeyboardInterrupt):
        if swapped:
            cleanup = _cleanup_after(path)
            return OutputInterrupted(
                f"{path} holds the new, complete report (the interrupt came after it was in place){cleanup}"
            )
        return OutputInterrupted(f"no report written ({path} unchanged" + ("" if existed else ", not created") + ")")
    if isinstance(exc, OSError):
        return UserError(f"cannot write {path}: {exc.strerror or exc}; nothing written")
    return None


def _cleanup_after(target: Path) -> str:
    """After an interrupt that came once the new report was in place: delete the old one now if possible."""
    try:
        for p in (partial_name(target, os.getpid()), old_name(target, os.getpid())):
            if read_marker(p) is not None:
                shutil.rmtree(p)
        return ""
    except BaseException:
        return "; the previous report's remains are removed by the next run"
