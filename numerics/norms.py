"""The (2,1)-norm of docs/definitions.md: the sum over columns of the columns' l2 norms (row-vector orientation)."""

from __future__ import annotations

import numpy as np


def norm_21(w: np.ndarray) -> np.ndarray:
    """``||W||_{2,1} = sum_j ||W[:, j]||_2`` (batched over leading axes)."""
    return np.sqrt(np.sum(np.square(w), axis=-2)).sum(axis=-1)


def product_norm_21(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``||left @ right||_{2,1}`` without forming the product: ``||(AB)_j||^2 = B_j^T (A^T A) B_j``.

    With ``A`` n x k and ``B`` k x m this costs O((n + m) k^2) instead of O(n m k); batched over leading axes.
    """
    gram = np.swapaxes(left, -1, -2) @ left
    squares = np.sum((gram @ right) * right, axis=-2)
    return np.sqrt(np.maximum(squares, 0.0)).sum(axis=-1)
