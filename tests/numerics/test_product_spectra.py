"""Singular values of a rank <= k product from its k x k core equal those of the full SVD, and are exact zeros
where the full SVD shows rounding noise (which inflates S_p at small p)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sabounds.numerics.norms import norm_21, product_norm_21
from sabounds.numerics.spectra import numerical_rank, product_singular_values, schatten_grid, singular_values


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 40), m=st.integers(2, 40), data=st.data())
def test_core_singular_values_equal_full_svd(seed, n, m, data):
    k = data.draw(st.integers(1, min(n, m)))
    rng = np.random.default_rng(seed)
    left, right = rng.standard_normal((n, k)), rng.standard_normal((k, m)) * rng.uniform(0.01, 100)
    core = product_singular_values(left, right)
    full = singular_values(left @ right)
    assert core.shape == full.shape == (min(n, m),)
    np.testing.assert_allclose(core, full, rtol=0, atol=1e-12 * full[0])
    assert np.all(core[k:] == 0.0)
    assert numerical_rank(core) == numerical_rank(full)
    assert product_norm_21(left, right) == pytest.approx(norm_21(left @ right), rel=1e-12)


def test_batched_over_heads_equals_one_at_a_time():
    rng = np.random.default_rng(1)
    left, right = rng.standard_normal((5, 30, 6)), rng.standard_normal((5, 6, 30))
    batched = product_singular_values(left, right)
    for h in range(5):
        np.testing.assert_array_equal(batched[h], product_singular_values(left[h], right[h]))


def test_shared_key_value_heads_are_decomposed_once_with_the_same_values():
    """GQA: 6 query heads over 2 key/value heads; grouped factors give the ungrouped values bit for bit."""
    rng = np.random.default_rng(3)
    groups = np.array([0, 0, 0, 1, 1, 1])
    left, shared = rng.standard_normal((6, 30, 6)), rng.standard_normal((2, 6, 30))[groups]
    plain = product_singular_values(left, shared, factor_values=True)
    grouped = product_singular_values(left, shared, factor_values=True, right_groups=groups)
    for a, b in zip(plain, grouped):
        np.testing.assert_array_equal(a, b)
    vt_left = np.swapaxes(shared, -1, -2)
    np.testing.assert_array_equal(
        product_singular_values(vt_left, np.swapaxes(left, -1, -2)),
        product_singular_values(vt_left, np.swapaxes(left, -1, -2), left_groups=groups),
    )


def test_full_svd_noise_inflates_small_p_but_the_core_does_not():
    """A 384 x 384 product of rank 32: at p = 1/12 the full SVD's rounding noise adds ~0.07 per zero value."""
    rng = np.random.default_rng(2)
    left, right = rng.standard_normal((384, 32)), rng.standard_normal((32, 384))
    ps = np.array([1 / 12, 1.0, 2.0])
    core, full = (
        schatten_grid(product_singular_values(left, right), ps),
        schatten_grid(singular_values(left @ right), ps),
    )
    assert full[0] > 1.3 * core[0]
    np.testing.assert_allclose(core[1:], full[1:], rtol=1e-9)


def test_rejects_wide_factors_and_nan():
    with pytest.raises(ValueError):
        product_singular_values(np.ones((3, 4)), np.ones((4, 5)))
    with pytest.raises(ValueError):
        product_singular_values(np.full((5, 2), np.nan), np.ones((2, 5)))


def test_product_norm_21_keeps_columns_that_cancel_accurate():
    """Columns of ``B`` almost in the null space of ``A`` (``A`` with 32 singular values 1e-9): ``||A B_j||`` is 1e-9,
    but ``B_j^T (A^T A) B_j`` forms the square with an absolute error ~ u ||A||^2, so its square root was ~34 times too
    large (1.08e-6 against 3.2e-8); through ``R`` of ``A = Q R`` the columns are computed to rounding."""
    rng = np.random.default_rng(0)
    u, s, vt = np.linalg.svd(rng.standard_normal((64, 64)))
    s[32:] = 1e-9
    a, b = (u * s) @ vt, vt[32:].T
    exact = 32 * 1e-9
    assert product_norm_21(a, b) == pytest.approx(exact, rel=1e-5)
    assert product_norm_21(a, b) == pytest.approx(norm_21(a @ b), rel=1e-5)
