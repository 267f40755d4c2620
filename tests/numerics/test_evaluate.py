"""sabounds.numerics.expressions.evaluate: mpmath at chosen precision, no overflow, and agreement with float64 where finite."""

import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from sabounds.numerics.expressions.evaluate import evaluate, evaluate_float, log_evaluate, relative_difference
from sabounds.theory import thm41 as T

C, L, l = sp.symbols("C L l", positive=True)


def test_exponential_alpha_does_not_overflow_in_mpmath():
    v = evaluate(C ** (L - l), {C: 3, L: 800, l: 1}, dps=50)
    assert mpmath.log(v) == pytest.approx(799 * math.log(3), rel=1e-14)
    assert float(evaluate_float(C ** (L - l), {C: 3, L: 800, l: 1})) == math.inf
    assert float(log_evaluate(C ** (L - l), {C: 3, L: 800, l: 1})) == pytest.approx(799 * math.log(3), rel=1e-14)


def test_precision_is_a_context_not_a_global():
    before = mpmath.mp.dps
    x = evaluate(sp.sqrt(2), {}, dps=80)
    assert mpmath.mp.dps == before
    assert mpmath.nstr(x, 60).startswith("1.41421356237309504880168872420969807856967187537694807317")


def test_float64_agrees_with_mpmath_to_1e12_where_finite():
    """200 random (p, M, B, eps, N): float64 closed form against 50-digit mpmath, relative 1e-12."""
    rng = np.random.default_rng(1)
    vals = {
        T.p: rng.uniform(0.01, 2, 200),
        T.M: 10 ** rng.uniform(0, 3, 200),
        T.B: 10 ** rng.uniform(-1, 1, 200),
        T.eps: 10 ** rng.uniform(-3, 0, 200),
        T.N: 10 ** rng.uniform(0.3, 3.6, 200),
    }
    fast = evaluate_float(T.closed_form, vals)
    for i in range(200):
        exact = evaluate(T.closed_form, {k: float(v[i]) for k, v in vals.items()}, dps=50)
        assert np.isfinite(fast[i])
        assert relative_difference(fast[i], exact) < 1e-12


def test_missing_value_is_a_clear_error():
    with pytest.raises(ValueError, match="no value given for"):
        evaluate(T.closed_form, {T.p: 1})
