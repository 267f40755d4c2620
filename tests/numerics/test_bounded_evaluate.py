"""The guarded evaluator agrees with ``sabounds.numerics.expressions.evaluate`` and refuses unbounded work quickly; ``time_limit`` interrupts."""

from __future__ import annotations

import time

import mpmath
import pytest
import sympy as sp

from sabounds.numerics.expressions.bounded import MagnitudeError, bounded_evaluate
from sabounds.numerics.expressions.evaluate import evaluate
from sabounds.proofs_check.time_limit import TimeLimit, time_limit

x, y = sp.symbols("x y", positive=True)


@pytest.mark.parametrize(
    "expr",
    [
        x**2 + sp.sqrt(y) / 3,
        sp.log(x, 2) * sp.exp(-y),
        sp.Max(x, y) - sp.Min(x, 1),
        sp.gamma(x) * sp.erf(y),
        sp.sin(x) + sp.cos(y) - sp.tanh(x) * sp.atan(y),
        sp.Abs(x - y) ** sp.Rational(1, 3) + sp.pi * sp.E,
    ],
)
def test_bounded_evaluate_agrees_with_evaluate(expr):
    point = {x: mpmath.mpf("1.7"), y: mpmath.mpf("0.3")}
    a, b = bounded_evaluate(expr, point, 60), evaluate(expr, point, 60)
    assert abs(a - b) <= mpmath.mpf(10) ** -55 * max(1, abs(b))


@pytest.mark.parametrize(
    "expr", [x ** (x ** (x**x)), sp.exp(sp.exp(sp.exp(x))), sp.gamma(sp.exp(x**2)), sp.sin(x**1000)]
)
def test_towers_are_refused_quickly_instead_of_computed(expr):
    start = time.monotonic()
    with pytest.raises(MagnitudeError):
        bounded_evaluate(expr, {x: mpmath.mpf(900)}, 50)
    assert time.monotonic() - start < 1.0


def test_non_real_values_are_errors_not_complex_numbers():
    with pytest.raises(ValueError):
        bounded_evaluate((x - 2) ** sp.Rational(1, 2), {x: 1}, 30)
    with pytest.raises(ValueError):
        bounded_evaluate(sp.log(x - 2), {x: 1}, 30)


def test_time_limit_interrupts_a_python_loop():
    start = time.monotonic()
    with pytest.raises(TimeLimit):
        with time_limit(0.2) as enforced:
            assert enforced
            while True:
                pass
    assert time.monotonic() - start < 1.0
