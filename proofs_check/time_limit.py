"""A wall-clock limit on pure-Python work (sympy): ``with time_limit(s): ...`` raises ``TimeLimit`` after ``s`` seconds.

Uses ``SIGALRM`` (``setitimer``), so it works only in the main thread of a POSIX process; elsewhere it imposes no
limit and says so through the value the ``with`` binds.  Python code is interrupted between bytecodes, so a single
long C call (a huge integer power) is not: callers must bound those sizes themselves.

Three properties make the limit hold against the code it interrupts:
- the timer re-fires every ``REFIRE`` seconds until the block is left, so an interruption that lands in a finalizer
  (``__del__``, a weakref callback: Python reports such an exception as "ignored" and goes on - how a CI run stayed
  in sympy's ``factor`` past a 1 s limit) is raised again, and ``TimeLimit`` derives from ``BaseException`` so
  ``except Exception`` does not catch it in the first place;
- while the block runs, ``sys.unraisablehook`` drops a swallowed ``TimeLimit`` silently (nothing on stderr) and
  hands every other unraisable exception to the hook it replaced;
- limits nest: an inner limit never extends an outer one and, when it ends, re-arms the outer timer with what is left
  of it (an inner ``setitimer(0)`` used to cancel the outer limit for good).
"""

from __future__ import annotations

import math
import signal
import sys
import threading
import time

REFIRE = 0.05
"""Seconds between repeated interruptions once the limit has passed, until the block is left."""


class TimeLimit(BaseException):
    """The work inside ``time_limit`` ran out of time (a ``BaseException``: ``except Exception`` must not swallow it)."""


class time_limit:
    """Run the body for at most ``seconds``; ``with time_limit(s) as enforced`` binds whether the limit is enforced
    (main thread, POSIX)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.enforced = (
            0 < seconds < math.inf
            and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
        )
        self._active = False

    def __enter__(self) -> bool:
        if not self.enforced:
            return False
        self._outer, self._outer_interval = signal.getitimer(signal.ITIMER_REAL)
        self._start = time.monotonic()
        self._previous = signal.signal(signal.SIGALRM, self._expire)
        self._previous_hook = sys.unraisablehook
        sys.unraisablehook = self._unraisable
        self._active = True
        try:
            first = min(self.seconds, self._outer) if self._outer > 0 else self.seconds
            signal.setitimer(signal.ITIMER_REAL, first, REFIRE)
        except BaseException:  # e.g. a duration setitimer cannot represent: leave nothing behind
            self.__exit__()
            raise
        return True

    def _expire(self, signum, frame) -> None:
        if self._active and (frame is None or frame.f_code not in _QUIET_CODES):
            raise TimeLimit(f"ran longer than {self.seconds:g} s")

    def _unraisable(self, unraisable) -> None:
        if not isinstance(unraisable.exc_value, TimeLimit):
            self._previous_hook(unraisable)

    def __exit__(self, *exc) -> bool:
        if not self.enforced:
            return False
        self._active = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._previous)
        sys.unraisablehook = self._previous_hook
        if self._outer > 0:
            left = self._outer - (time.monotonic() - self._start)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), self._outer_interval)
        return False


_QUIET_CODES = (time_limit.__exit__.__code__, time_limit._unraisable.__code__)
"""Frames the interruption never lands in: leaving the block, and dropping a swallowed interruption."""
