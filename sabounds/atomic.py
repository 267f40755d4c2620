"""Write a folder of outputs all at once or not at all.

``atomic_directory(target)`` yields a private partial folder beside ``target``; on success it is renamed
into place (one ``rename``), on any error or interruption it is removed.  A run killed outright (SIGKILL,
power loss) can leave only a partial folder named ``.<target>.partial-<pid>``, never a half-written
``target``; the next run removes such leftovers and says so.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sabounds.errors import UserError


def _partial_name(target: Path, pid: int) -> Path:
    return target.parent / f".{target.name}.partial-{pid}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_partials(target: Path) -> list[Path]:
    """Delete partial folders left by runs that no longer exist; return what was removed."""
    removed = []
    for path in target.parent.glob(f".{target.name}.partial-*"):
        pid = path.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


class _Interrupts:
    """Ctrl-C and SIGTERM raise KeyboardInterrupt and are remembered, so that an interrupt swallowed by library
    code (a bare ``except:``) still prevents the folder from being moved into place."""

    def __init__(self):
        self.seen = False

    def __call__(self, signum, frame):
        self.seen = True
        raise KeyboardInterrupt


@contextmanager
def atomic_directory(target: str | os.PathLike, force: bool = False) -> Iterator[Path]:
    """Yield a partial folder; move it to ``target`` when the block succeeds, remove it otherwise.

    An existing ``target`` is replaced only with ``force``; without it the call is refused before any
    work.  SIGTERM is treated like Ctrl-C for the duration, so both clean up.  Must run in the main thread.
    """
    target = Path(target).resolve()
    if target.exists() and not force:
        raise UserError(f"{target} exists; pass --force to replace it or --out to write elsewhere")
    if target.exists() and not target.is_dir():
        raise UserError(f"{target} exists and is not a folder")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create {target.parent}: {exc.strerror or exc}") from None
    for stale in remove_stale_partials(target):
        print(f"removed {stale.name}, left by an earlier run that was interrupted", file=sys.stderr)
    partial = _partial_name(target, os.getpid())
    try:
        partial.mkdir()
    except OSError as exc:
        raise UserError(f"cannot write in {target.parent}: {exc.strerror}") from None
    interrupts = _Interrupts()
    previous = {sig: signal.signal(sig, interrupts) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield partial
        if interrupts.seen:
            raise KeyboardInterrupt
        if target.exists():
            trash = target.parent / f".{target.name}.old-{os.getpid()}"
            target.rename(trash)
            partial.rename(target)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            partial.rename(target)
    except OSError as exc:
        shutil.rmtree(partial, ignore_errors=True)
        raise UserError(f"cannot write {target}: {exc.strerror or exc}; nothing written") from None
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
