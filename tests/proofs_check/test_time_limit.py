"""``time_limit`` holds against the code it interrupts: a swallowing ``except``, nesting, and leaves no timer behind."""

from __future__ import annotations

import signal
import sys
import time

import pytest
import sympy as sp

from sabounds.proofs_check.time_limit import TimeLimit, time_limit


def _swallowing_loop(seconds: float) -> int:
    """Library code that catches everything it can: each interruption it sees is counted and ignored."""
    swallowed = 0
    end = time.monotonic() + seconds
    while True:
        try:
            if time.monotonic() > end:
                return swallowed
            sum(range(1000))
        except Exception:
            swallowed += 1


def test_an_except_exception_in_the_interrupted_code_does_not_swallow_the_limit():
    start = time.monotonic()
    with pytest.raises(TimeLimit):
        with time_limit(0.2):
            _swallowing_loop(5.0)
    assert time.monotonic() - start < 2.0
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_an_interruption_swallowed_by_a_finalizer_is_raised_again_and_prints_nothing(capfd):
    """Python reports an exception raised in ``__del__`` as "ignored" and goes on: the first interruption lands in
    such a finalizer (how a CI run stayed in sympy's ``factor`` past its limit); the next one stops the loop, and
    nothing reaches stderr."""
    swallowed = []

    class Finalizer:
        def __del__(self):
            try:
                while True:
                    pass
            except TimeLimit:
                swallowed.append(True)
                raise

    start = time.monotonic()
    with pytest.raises(TimeLimit):
        with time_limit(0.1):
            Finalizer()
            while time.monotonic() - start < 5.0:
                pass
    assert swallowed == [True] and time.monotonic() - start < 2.0
    assert "TimeLimit" not in capfd.readouterr().err


def test_an_interruption_caught_by_name_is_raised_again():
    """Code that catches ``TimeLimit`` itself and goes on is interrupted again (the timer re-fires) until it leaves."""
    caught = 0
    start = time.monotonic()
    with pytest.raises(TimeLimit):
        with time_limit(0.1):
            while time.monotonic() - start < 5.0:
                try:
                    while time.monotonic() - start < 5.0:
                        pass
                except TimeLimit:
                    caught += 1
                    if caught == 3:
                        raise
    assert caught == 3 and time.monotonic() - start < 2.0


def test_an_inner_limit_keeps_the_outer_one():
    """The inner block ends normally; the outer limit (0.4 s) still interrupts the loop that follows."""
    start = time.monotonic()
    with pytest.raises(TimeLimit):
        with time_limit(0.4):
            with time_limit(5.0):
                pass
            while time.monotonic() - start < 5.0:
                pass
    assert 0.3 < time.monotonic() - start < 2.0
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_an_inner_limit_never_outlasts_the_outer_one():
    start = time.monotonic()
    with pytest.raises(TimeLimit):
        with time_limit(0.3):
            try:
                with time_limit(60.0):
                    while time.monotonic() - start < 5.0:
                        pass
            except TimeLimit:
                pass
            while time.monotonic() - start < 5.0:
                pass
    assert time.monotonic() - start < 2.0


def test_sympy_factor_of_a_huge_exponent_is_interrupted():
    """The case that hung a CI run: ``factor`` of ``1 - 2 exp(-400000 (x - 31/100)^2)`` builds polynomials of degree
    ~4e5 in exp(x); the limit must stop it whatever state sympy's caches are in (three tries, a warm cache)."""
    x = sp.Symbol("x", real=True)
    g = 1 - 2 * sp.exp(-400000 * (x - sp.Rational(31, 100)) ** 2)
    for _ in range(3):
        start = time.monotonic()
        with pytest.raises(TimeLimit):
            with time_limit(0.3):
                sp.factor(g)
        assert time.monotonic() - start < 10.0


@pytest.mark.parametrize("seconds", [1e300, float("nan"), float("inf"), 0.0])
def test_a_limit_that_cannot_be_set_leaves_nothing_behind(seconds):
    """A duration the timer cannot hold raises (1e300) or means no limit (inf, nan, 0): either way the signal
    handler, the unraisable hook and the timer are what they were."""
    handler, hook = signal.getsignal(signal.SIGALRM), sys.unraisablehook
    try:
        with time_limit(seconds):
            pass
    except (OverflowError, ValueError):
        pass
    assert signal.getsignal(signal.SIGALRM) is handler and sys.unraisablehook is hook
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_nested_limits_restore_the_handler_and_hook_after_an_interruption():
    handler, hook = signal.getsignal(signal.SIGALRM), sys.unraisablehook
    with pytest.raises(TimeLimit):
        with time_limit(0.2):
            with time_limit(0.1):
                while True:
                    pass
    assert signal.getsignal(signal.SIGALRM) is handler and sys.unraisablehook is hook
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_no_limit_off_the_main_thread_says_so():
    import threading

    seen = []
    worker = threading.Thread(target=lambda: seen.append(time_limit(1.0).__enter__()))
    worker.start()
    worker.join()
    assert seen == [False]
