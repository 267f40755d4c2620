"""A wall-clock limit on pure-Python work (sympy): ``with time_limit(s): ...`` raises ``TimeLimit`` after ``s`` seconds.

Uses ``SIGALRM`` (``setitimer``), so it works only in the main thread of a POSIX process; elsewhere it imposes no
limit and says so through the value the ``with`` binds.  Python code is interrupted between bytecodes, so a single
long C call (a huge integer power) is not: callers must bound those sizes themselves.

Two properties make the limit hold against the code it interrupts:
- the timer re-fires every ``REFIRE`` seconds until the block is left, so an interruption swallowed by a library's
  broad ``except`` is raised again, and ``TimeLimit`` derives from ``BaseException`` so ``except Exception`` does not
  catch it in the first place;
- limits nest: an inner limit never extends an outer one and, when it ends, re-arms the outer timer with what is left
  of it (an inner ``setitimer(0)`` used to cancel the outer limit for good).
"""

from __future__ import annotations

import signal
import threading
import time

REFIRE = 0.05
"""Seconds between repeated interruptions once the limit has passed, until the block is left."""


class TimeLimit(BaseException):
    """The work inside ``time_limit`` ran out of time (a ``BaseException``: ``except Exception`` must not swallow it)."""


class time_limit:  # noqa: N801  (used as a function: ``with time_limit(s) as enforced``)
    """Run the body for at most ``seconds``; ``with time_limit(s) as enforced`` binds whether the limit is enforced
    (main thread, POSIX)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.enforced = (seconds > 0 and hasattr(signal, "setitimer")
                         and threading.current_thread() is threading.main_thread())
        self._active = False

    def __enter__(self) -> bool:
        if not self.enforced:
            return False
        self._outer, self._outer_interval = signal.getitimer(signal.ITIMER_REAL)
        self._start = time.monotonic()
        self._previous = signal.signal(signal.SIGALRM, self._expire)
        self._active = True
        first = min(self.seconds, self._outer) if self._outer > 0 else self.seconds
        signal.setitimer(signal.ITIMER_REAL, first, REFIRE)
        return True

    def _expire(self, signum, frame) -> None:
        if self._active and (frame is None or frame.f_code is not _EXIT_CODE):
            raise TimeLimit(f"ran longer than {self.seconds:g} s")

    def __exit__(self, *exc) -> bool:
        if not self.enforced:
            return False
        self._active = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._previous)
        if self._outer > 0:
            left = self._outer - (time.monotonic() - self._start)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), self._outer_interval)
        return False


_EXIT_CODE = time_limit.__exit__.__code__
