"""Putting a complete folder in place: ``renameat2(RENAME_EXCHANGE)`` swaps old and new in one system call on Linux;
elsewhere two renames (a kill between them is undone by :mod:`sabounds.outputs.recovery`)."""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import sys
from pathlib import Path

from sabounds.outputs.marker import MARKER
from sabounds.outputs.signals import fault_point

_RENAME_NOREPLACE, _RENAME_EXCHANGE = 1, 2
_AT_FDCWD = -100


def _renameat2(src: Path, dst: Path, flags: int) -> bool:
    """``renameat2`` through libc; False when the call or the flag is unsupported here, OSError on failure."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        func = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    func.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if func(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), flags) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(dst))


def old_name(target: Path, pid: int) -> Path:
    return target.parent / f".{target.name}.old-{pid}"


def partial_name(target: Path, pid: int) -> Path:
    return target.parent / f".{target.name}.partial-{pid}"


def remove_old(old: Path) -> None:
    """Delete a replaced report (verified ours); the fault point sits half-way for the tests."""
    entries = sorted(old.iterdir(), key=lambda e: e.name == MARKER)  # the marker last: leftovers stay recognisable
    for i, entry in enumerate(entries):
        if i == len(entries) // 2:
            fault_point("old-half-deleted")
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    old.rmdir()


def swap(partial: Path, target: Path) -> Path | None:
    """Put ``partial`` at ``target``; return where the old report now lies (None if there was none)."""
    if not os.path.lexists(target):
        if not _renameat2(partial, target, _RENAME_NOREPLACE):
            os.rename(partial, target)
        return None
    if _renameat2(partial, target, _RENAME_EXCHANGE):
        return partial
    old = old_name(target, os.getpid())
    os.rename(target, old)  # fallback: two renames; a kill between them is undone by the next run
    fault_point("renamed-away")
    os.rename(partial, target)
    return old
