"""The (2,1)-norm of docs/definitions.md: the sum over columns of the columns' l2 norms (row-vector orientation).

Both norms are homogeneous (``||c W|| = |c| ||W||``), so each matrix is divided by its largest entry before
squares or Gram matrices are formed and the result multiplied back: no overflow for entries up to the float64
maximum, no underflow to zero for entries of 1e-300.  A result beyond float64 raises ValueError (one line).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_MAX = np.finfo(np.float64).max


def _scale(w: np.ndarray) -> np.ndarray:
    """The largest absolute entry of each matrix (batched over leading axes), 1 for an all-zero matrix."""
    m = np.max(np.abs(w), axis=(-2, -1), keepdims=True) if w.size else np.ones(w.shape[:-2] + (1, 1))
    return np.where(m > 0, m, 1.0)


def _rescale(value: np.ndarray, *factors: np.ndarray, what: str) -> np.ndarray:
    """``value * prod(factors)`` rounded once: each factor split exactly as ``m 2^e`` (``frexp``, exact for
    subnormals too), the mantissas multiplied in [1/8, 1) and the exponents added as integers, then one ``ldexp``.
    So an intermediate never overflows or sinks into the subnormals; ValueError if the result leaves float64."""
    out, exponent = np.asarray(value, dtype=np.float64), 0
    for factor in factors:
        mantissa, e = np.frexp(np.asarray(factor, dtype=np.float64))
        out, exponent = out * mantissa, exponent + e.astype(np.int64)
    with np.errstate(over="ignore", under="ignore"):
        out = np.ldexp(out, exponent)
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{what} exceeds the float64 range (the weights are too large for this quantity)")
    return out


def norm_21(w: np.ndarray) -> np.ndarray:
    """``||W||_{2,1} = sum_j ||W[:, j]||_2`` (batched over leading axes)."""
    w = np.asarray(w, dtype=np.float64)
    s = _scale(w)
    unit = np.sqrt(np.sum(np.square(w / s), axis=-2)).sum(axis=-1)
    return _rescale(unit, s[..., 0, 0], what="the (2,1)-norm")


def norm_11(w: np.ndarray) -> np.ndarray:
    """``||W||_{1,1} = sum_ij |W_ij|`` (entrywise l1, batched over leading axes; scaled so no sum overflows)."""
    w = np.asarray(w, dtype=np.float64)
    s = _scale(w)
    return _rescale(np.abs(w / s).sum(axis=(-2, -1)), s[..., 0, 0], what="the (1,1)-norm")


PRODUCT_CHUNK_BYTES = 8 * 2**20
"""The most memory :func:`product_norm_11` gives to the heads' products at once (one BERT-base head's N x N product
is 4.5 MiB; a chunk that stays in a last-level cache is summed faster than a larger batch)."""


def product_norm_11(left: np.ndarray, right: np.ndarray, chunk_bytes: int = PRODUCT_CHUNK_BYTES) -> np.ndarray:
    """``||left @ right||_{1,1}`` over heads (``(H, n, k)`` times ``(H, k, m)``): the products are formed (entrywise
    l1 has no factor shortcut) after balancing the inner dimension, as batched products of as many heads as fit in
    ``chunk_bytes``, each head's absolute values summed over its own ``n x m`` block."""
    left, right = _balanced(np.asarray(left, dtype=np.float64), np.asarray(right, dtype=np.float64))
    sl, sr = _scale(left), _scale(right)
    a, b = left / sl, right / sr
    heads, n, m = a.shape[0], a.shape[-2], b.shape[-1]
    step = max(1, chunk_bytes // max(1, 8 * n * m))
    unit = np.empty(heads)
    for start in range(0, heads, step):
        block = np.matmul(a[start : start + step], b[start : start + step])
        unit[start : start + step] = np.abs(block, out=block).sum(axis=(-2, -1))
    return _rescale(unit, sl[..., 0, 0], sr[..., 0, 0], what="the (1,1)-norm of a product")


def _balanced(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(A D, D^-1 B)`` with ``D`` diagonal powers of two that bring column ``k`` of ``A`` and row ``k`` of ``B``
    to the same magnitude (``A B`` unchanged, exactly): a 1e200 column against a 1e-200 row no longer pushes the
    other columns below the float64 range when ``A`` is divided by its largest entry."""
    if not left.size or not right.size:
        return left, right
    top_left, top_right = np.max(np.abs(left), axis=-2), np.max(np.abs(right), axis=-1)
    e_left, e_right = np.frexp(top_left)[1], np.frexp(top_right)[1]
    live = (top_left > 0) & (top_right > 0)
    shift = np.where(live, (e_right - e_left) // 2, 0)
    return np.ldexp(left, shift[..., None, :]), np.ldexp(right, -shift[..., :, None])


def product_norm_21(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``||left @ right||_{2,1}`` without forming the product: ``||(AB)_j|| = ||R B_j||`` with ``A = Q R`` (Q with
    orthonormal columns).  Not through the Gram matrix ``B_j^T (A^T A) B_j``: that forms the square with an absolute
    error ~ u ||A||^2 ||B_j||^2, so a column that nearly cancels came out orders of magnitude too large.

    With ``A`` n x k and ``B`` k x m this costs O((n + m) k^2) instead of O(n m k); batched over leading axes.
    The inner dimension is balanced first (:func:`_balanced`), then each factor divided by its largest entry and
    the two scales multiplied back once (:func:`_rescale`).
    """
    left, right = _balanced(np.asarray(left, dtype=np.float64), np.asarray(right, dtype=np.float64))
    sl, sr = _scale(left), _scale(right)
    a, b = left / sl, right / sr
    r = np.linalg.qr(a, mode="r") if a.size else a
    unit = np.sqrt(np.sum(np.square(r @ b), axis=-2)).sum(axis=-1)
    return _rescale(unit, sl[..., 0, 0], sr[..., 0, 0], what="the (2,1)-norm of a product")


@dataclass(frozen=True)
class EntrywiseSums:
    """Entrywise quantities of one matrix (arrays over leading axes), all from one ``|W| / max|W|`` buffer:
    ``max_abs = max|W|``, ``norm_11``, ``norm_21``, ``frobenius = sqrt(sum (W/s)^2) s`` and
    ``below = #{|W_ij| < low}`` (the storage-rank's subnormal count; 0 when ``low`` is 0)."""

    max_abs: np.ndarray
    norm_11: np.ndarray
    norm_21: np.ndarray
    frobenius: np.ndarray
    below: np.ndarray


def entrywise_sums(w: np.ndarray, low: float = 0.0) -> EntrywiseSums:
    """:class:`EntrywiseSums` of ``w`` in one buffer, equal bit for bit to :func:`norm_11`, :func:`norm_21` and a
    scaled Frobenius norm computed apart: ``|w / s| = |w| / s`` and ``(w / s)^2 = (|w| / s)^2`` exactly, and every
    sum runs over an array of ``w``'s own memory layout, as theirs do."""
    w = np.asarray(w, dtype=np.float64)
    if not w.size:
        zero = np.zeros(w.shape[:-2])
        return EntrywiseSums(zero, norm_11(w), norm_21(w), zero, zero.astype(np.int64))
    a = np.abs(w)
    top = np.max(a, axis=(-2, -1), keepdims=True)
    s = np.where(top > 0, top, 1.0)
    below = np.count_nonzero(a < low, axis=(-2, -1)) if low else np.zeros(w.shape[:-2], dtype=np.int64)
    np.divide(a, s, out=a)
    l1 = _rescale(a.sum(axis=(-2, -1)), s[..., 0, 0], what="the (1,1)-norm")
    np.multiply(a, a, out=a)
    frobenius = np.sqrt(a.sum(axis=(-2, -1))) * s[..., 0, 0]
    l21 = _rescale(np.sqrt(a.sum(axis=-2)).sum(axis=-1), s[..., 0, 0], what="the (2,1)-norm")
    return EntrywiseSums(top[..., 0, 0], l1, l21, frobenius, below)
