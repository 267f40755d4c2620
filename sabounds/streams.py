"""Standard streams the Unix way: a closed, full or broken standard output never ends in a traceback.

Python leaves ``sys.stdout`` as None when descriptor 1 is closed at start-up, and then prints nothing and
exits 0; and a file opened later could take descriptor 1.  So closed descriptors 0-2 are first filled with
``/dev/null``, and a closed standard output is refused before any work.  Output is flushed before the exit
status is decided, so a full device (ENOSPC) is reported as one line rather than at interpreter shutdown.
"""

from __future__ import annotations

import errno
import os
import sys

from sabounds.errors import UserError

_STDOUT_CLOSED = False


def guard_closed_descriptors() -> None:
    """Fill closed descriptors 0, 1, 2 with /dev/null so that no file we open lands on them."""
    global _STDOUT_CLOSED
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            if fd == 1:
                _STDOUT_CLOSED = True
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if sys.stdout is None:
        _STDOUT_CLOSED = True


def require_stdout() -> None:
    """Refuse to run with a closed standard output: results would vanish silently."""
    if _STDOUT_CLOSED:
        raise UserError("standard output is closed; redirect it to a file or /dev/null")


def flush_stdout() -> None:
    """Flush now, so that a write error surfaces while the exit status can still say so."""
    if sys.stdout is not None:
        sys.stdout.flush()


def is_stdout_error(exc: OSError) -> bool:
    """A write error of the kind a full or vanished device gives (ENOSPC, EDQUOT, EFBIG, EIO).  Files in output
    folders turn such errors into UserError themselves, so one reaching the command line came from a stream."""
    return exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


def discard_stdout() -> None:
    """Point descriptor 1 at /dev/null so that Python's final flush cannot fail again (no shutdown noise)."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno() if sys.stdout is not None else 1)
    os.close(null)


def flush_quietly() -> bool:
    """Flush standard output before an early exit; False (after one line on stderr) if the device is full."""
    try:
        flush_stdout()
    except BrokenPipeError:
        discard_stdout()
    except OSError as exc:
        discard_stdout()
        print(f"sabounds: error: cannot write the output ({exc.strerror or exc})", file=sys.stderr)
        return False
    return True
