"""One buffer per matrix gives the same bits as each norm computed apart (numerics/norms.py, issue 33): the
(1,1)-, (2,1)- and scaled Frobenius norms, max|w| and the count below a threshold; and ||L R||_{1,1} over heads is
the same whatever the chunk of heads multiplied at once."""

from __future__ import annotations

import numpy as np
import pytest

from sabounds.numerics.norms import entrywise_sums, norm_11, norm_21, product_norm_11
from sabounds.numerics.proxies.storage_rank import _frobenius

RNG = np.random.default_rng(33)
CASES = {
    "matrix": RNG.standard_normal((40, 70)),
    "transposed view": RNG.standard_normal((70, 40)).T,
    "heads, transposed views": RNG.standard_normal((4, 8, 40)).transpose(0, 2, 1),
    "tiny entries": RNG.standard_normal((30, 20)) * 1e-300,
    "huge entries": RNG.standard_normal((30, 20)) * 1e300,
    "zero matrix": np.zeros((5, 9)),
    "a zero head": np.concatenate([np.zeros((1, 6, 5)), RNG.standard_normal((2, 6, 5))]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_entrywise_sums_equal_each_norm_computed_apart_bit_for_bit(name):
    w = CASES[name]
    low = float(np.median(np.abs(w)))
    sums = entrywise_sums(w, low)
    assert np.array_equal(sums.norm_11, norm_11(w)) and np.array_equal(sums.norm_21, norm_21(w))
    assert np.array_equal(sums.frobenius, _frobenius(w))
    assert np.array_equal(sums.max_abs, np.max(np.abs(w), axis=(-2, -1)))
    assert np.array_equal(sums.below, np.count_nonzero(np.abs(w) < low, axis=(-2, -1)))


def test_product_norm_11_is_the_same_for_every_chunk_of_heads():
    left, right = RNG.standard_normal((5, 30, 4)), RNG.standard_normal((5, 4, 20))
    per_head = product_norm_11(left, right, chunk_bytes=1)
    assert all(np.array_equal(product_norm_11(left, right, chunk_bytes=c), per_head) for c in (8 * 600, 10**9))
    assert np.allclose(per_head, [np.abs(a @ b).sum() for a, b in zip(left, right)], rtol=1e-13)
