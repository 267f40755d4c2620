"""The lock beside an output folder (``.<name>.sabounds-lock``, flocked, written before it appears): of two runs to
one path exactly one proceeds; a file of that name sabounds did not write is never opened for writing or removed."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import uuid
from pathlib import Path

from sabounds.errors import UserError


def lock_path(target: Path) -> Path:
    return target.parent / f".{target.name}.sabounds-lock"


LOCK_SIGNATURE = b"sabounds output lock\n"


def _lock_content() -> bytes:
    return LOCK_SIGNATURE + f"pid {os.getpid()}\n".encode()


def _create_lock(path: Path) -> int | None:
    """Make the lock file ours, flocked and with its content before it appears (a private file hard-linked to the
    lock's name); None if the name is taken.  Where hard links are refused: create, flock, then write."""
    tmp = path.parent / f"{path.name}.{os.getpid()}-{uuid.uuid4().hex[:12]}.tmp"
    try:
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise UserError(f"cannot create the lock {path}: {exc.strerror or exc}") from None
    try:
        os.write(fd, _lock_content())
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        try:
            os.link(tmp, path, follow_symlinks=False)
            return fd
        except FileExistsError:
            os.close(fd)
            return None
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS):
                raise UserError(f"cannot create the lock {path}: {exc.strerror or exc}") from None
        os.close(fd)
        fd = -1
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except FileExistsError:
            return None
        except OSError as exc:
            raise UserError(f"cannot create the lock {path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # a second run opened our still-empty lock this instant; it refuses and lets go
            os.unlink(path)
            raise UserError(f"another sabounds run is starting to write beside {path.name}; retry") from None
        os.write(fd, _lock_content())
        return fd
    except BaseException:
        if fd >= 0:
            os.close(fd)
        raise
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _special_file(path: Path, st: os.stat_result) -> str | None:
    """Why ``path`` (lstat ``st``) cannot be a sabounds lock: a symbolic link or not a regular file; else None."""
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        return (
            f"{path} is {kind}, not a sabounds lock; refusing to use or remove it "
            "(move it away or choose another --out)"
        )
    return None


def foreign_lock(path: Path) -> str | None:
    """Why a file at the lock's name is certainly not a sabounds lock (a link, not a regular file, or content
    without our first line), else None.  Read without following links and without blocking."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    why = _special_file(path, st)
    if why:
        return why
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        content = os.read(fd, len(LOCK_SIGNATURE)) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    finally:
        os.close(fd)
    if content and not LOCK_SIGNATURE.startswith(content):
        return (
            f"{path} is not a sabounds lock (it holds other content); refusing to use or remove it "
            "(move it away or choose another --out)"
        )
    return None


def _adopt_lock(path: Path, target: Path) -> int | None:
    """Take an existing lock file left by a finished or killed run; refuse one held now or one sabounds did not
    write (never opened for writing, never removed); None if it vanished meanwhile."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    why = _special_file(path, st)
    if why:
        raise UserError(why)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UserError(f"cannot open the lock {path}: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UserError(f"{path} is not a regular file, not a sabounds lock; refusing to use or remove it")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise UserError(
                f"another sabounds run is writing {target} (lock {path.name} is held); "
                "wait for it or choose another --out"
            ) from None
        content = os.read(fd, 4096)
        if not content:
            raise UserError(
                f"another sabounds run may be starting to write {target} (its lock {path.name} is "
                "still empty); retry, or remove that file if it is not a sabounds lock"
            )
        if not content.startswith(LOCK_SIGNATURE):
            raise UserError(
                f"{path} is not a sabounds lock (it holds other content); refusing to use or remove "
                "it (move it away or choose another --out)"
            )
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path, follow_symlinks=False))
        except FileNotFoundError:
            same = False
        if same:  # not a lock file the previous holder removed after we opened it
            return fd
        os.close(fd)
        return None
    except BaseException:
        try:
            os.close(fd)
        except OSError:
            pass
        raise


def acquire(target: Path) -> int:
    """Take the exclusive lock beside ``target`` without waiting; returns a file descriptor on a lock file
    sabounds wrote (created now, or left by a run that ended), which :func:`release` removes."""
    path = lock_path(target)
    for _ in range(100):
        fd = _create_lock(path)
        if fd is None:
            fd = _adopt_lock(path, target)
        if fd is not None:
            return fd
    raise UserError(f"cannot take the lock {path}")


def release(target: Path, fd: int) -> None:
    """Remove the lock file only if it is still the one this descriptor holds, then let go."""
    path = lock_path(target)
    try:
        if os.path.samestat(os.fstat(fd), os.stat(path, follow_symlinks=False)):
            os.unlink(path)
    except OSError:
        pass
    os.close(fd)
