"""A wall-clock limit on pure-Python work (sympy): ``with time_limit(s): ...`` raises ``TimeLimit`` after ``s`` seconds.

Uses ``SIGALRM`` (``setitimer``), so it works only in the main thread of a POSIX process; elsewhere
it imposes no limit and says so through ``enforced``.  Python code is interrupted between bytecodes,
so a single long C call (a huge integer power) is not: callers must bound those sizes themselves.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


class TimeLimit(Exception):
    """The work inside ``time_limit`` ran out of time."""


@contextmanager
def time_limit(seconds: float):
    """Run the body for at most ``seconds``; yields whether the limit is enforced (main thread, POSIX)."""
    enforced = (seconds > 0 and hasattr(signal, "setitimer")
                and threading.current_thread() is threading.main_thread())
    if not enforced:
        yield False
        return

    def _expire(signum, frame):
        raise TimeLimit(f"ran longer than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, _expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
