"""Signals around an output folder: Ctrl-C and SIGTERM remembered and held across a step that must not be cut, and
fault injection for the tests (:func:`arm_fault` makes the process send itself a signal at a named stage)."""

from __future__ import annotations

import os
import signal
from contextlib import contextmanager

STAGES = (
    "locked",
    "partial-created",
    "writing",
    "written",
    "completed",
    "in-swap",
    "renamed-away",
    "swapped",
    "old-half-deleted",
    "done",
)
_fault: tuple[str, str] | None = None


class OutputInterrupted(KeyboardInterrupt):
    """An interrupt while writing an output folder; ``message`` says which report is at the target now."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def arm_fault(spec: str | None) -> None:
    """Test hook: at stage ``spec`` (``"<stage>[:<SIG>]"``) this process sends itself the signal; None disarms."""
    global _fault
    if spec is None:
        _fault = None
        return
    stage, _, sig = spec.partition(":")
    if stage not in STAGES or sig not in ("", "INT", "TERM", "KILL", "STOP"):
        raise ValueError(f"unknown fault {spec!r}")
    _fault = (stage, sig or "INT")


def fault_point(stage: str) -> None:
    """Where :func:`arm_fault` may strike (a no-op unless a test armed it for ``stage``)."""
    if _fault is not None and _fault[0] == stage:
        os.kill(os.getpid(), getattr(signal, "SIG" + _fault[1]))


class Interrupts:
    """Ctrl-C and SIGTERM raise KeyboardInterrupt and are remembered, so that an interrupt swallowed by library
    code (a bare ``except:``) still prevents the folder from being moved into place."""

    def __init__(self):
        self.seen = False
        self.deferred = False
        self.pending = False

    def __call__(self, signum, frame):
        self.seen = True
        if self.deferred:  # inside a step that must not be cut (blocking covers only this thread)
            self.pending = True
            return
        raise KeyboardInterrupt

    @contextmanager
    def held(self):
        """Run a step whole: SIGINT/SIGTERM are blocked in this thread and, if another thread takes one, the
        KeyboardInterrupt comes after the step."""
        self.deferred = True
        signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)
            self.deferred = False
            if self.pending:
                self.pending = False
                raise KeyboardInterrupt


SIGNALS = {signal.SIGINT, signal.SIGTERM}
