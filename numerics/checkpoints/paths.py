"""Where a checkpoint's own files may be: the one rule every source's file references follow.

A file a checkpoint names (an ONNX initializer's external data ``location``, a shard in ``weight_map``) is resolved
relative to the folder of the file that names it, never the current folder.  The name must be relative, lexically
inside that folder (no ``..`` component, no absolute path, no NUL) and must lead to a regular file; a symbolic link
there is followed only to a regular file (as in the Hugging Face cache, whose snapshot files are links to blobs), so
a FIFO or a device never blocks a read.  Every refusal is a one-line :class:`CheckpointError`.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath, PureWindowsPath

from sabounds.numerics.checkpoints.errors import CheckpointError, shown


def model_relative(folder: Path, location: object, where: str, what: str) -> Path:
    """``folder / location`` when ``location`` is a relative name inside ``folder`` naming a regular file."""
    if not isinstance(location, str) or not location.strip() or "\0" in location:
        raise CheckpointError(f"{where}: {what} location {shown(location)} is not a file name")
    parts = PurePosixPath(location.replace("\\", "/")).parts
    if (
        PurePosixPath(location).is_absolute()
        or PureWindowsPath(location).is_absolute()
        or location.startswith("\\")
        or PureWindowsPath(location).drive
    ):
        raise CheckpointError(
            f"{where}: {what} location {shown(location)} is an absolute path; it must be a name "
            "relative to the model's folder"
        )
    if ".." in parts:
        raise CheckpointError(f"{where}: {what} location {shown(location)} leaves the model's folder (..)")
    path = Path(folder, *parts)
    try:
        info = os.stat(path)
    except OSError as exc:
        raise CheckpointError(
            f"{where}: {what} file {shown(path)} cannot be opened ({exc.strerror or type(exc).__name__})"
        ) from None
    if not stat.S_ISREG(info.st_mode):
        raise CheckpointError(f"{where}: {what} file {shown(path)} is not a regular file")
    return path


def read_range(path: Path, offset: int, length: int, where: str) -> bytes:
    """Exactly ``length`` bytes at ``offset`` of the regular file ``path`` (O_NONBLOCK, checked with fstat)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise CheckpointError(f"{where}: {shown(path)} cannot be opened ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise CheckpointError(f"{where}: {shown(path)} is not a regular file")
        if offset < 0 or length < 0 or offset + length > info.st_size:
            raise CheckpointError(
                f"{where}: bytes {offset}..{offset + length} lie outside {shown(path)} ({info.st_size} bytes)"
            )
        data = os.pread(fd, length, offset)
    except OSError as exc:
        raise CheckpointError(f"{where}: {shown(path)} cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if len(data) != length:
        raise CheckpointError(f"{where}: {shown(path)} ended before byte {offset + length}")
    return data
