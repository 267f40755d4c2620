"""The attention map ``f(X) = softmax(X W X^T) X`` (row-wise softmax) and its Lipschitz ratios, float64 and mpmath.

Tokens are rows; the norm on inputs and outputs is ``||A||_{2->inf}``, the largest l2 norm of a row.
``attention_ratio(X, X', W) = ||f(X) - f(X')||_{2->inf} / ||X - X'||_{2->inf}`` and
``softmax_ratio(u, u') = ||softmax(u) - softmax(u')||_1 / ||u - u'||_inf`` are what the conjecture
families of ``sabounds.proofs_check.conjecture`` maximise.  The ``*_mp`` versions recompute a witness at
mpmath precision so that a refutation does not rest on float64 rounding.
"""

from __future__ import annotations

import mpmath
import numpy as np


def softmax(u: np.ndarray) -> np.ndarray:
    """Row-wise softmax (the last axis), shifted by the row maximum for stability."""
    z = np.exp(u - u.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def attention(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``softmax(X W X^T) X`` with the softmax over each row of scores."""
    return softmax(x @ w @ x.T) @ x


def norm_2_inf(a: np.ndarray) -> float:
    """``||A||_{2->inf}``: the largest l2 norm of a row."""
    return float(np.sqrt((a * a).sum(axis=1)).max())


def into_unit_rows(a: np.ndarray) -> np.ndarray:
    """Rows of ``a`` projected onto the unit l2 ball (rows already inside are unchanged)."""
    norms = np.sqrt((a * a).sum(axis=1, keepdims=True))
    return a / np.maximum(norms, 1.0)


def attention_ratio(x: np.ndarray, x2: np.ndarray, w: np.ndarray) -> float:
    """``||f(X) - f(X')||_{2->inf} / ||X - X'||_{2->inf}`` in float64."""
    return norm_2_inf(attention(x, w) - attention(x2, w)) / norm_2_inf(x - x2)


def softmax_ratio(u: np.ndarray, u2: np.ndarray) -> float:
    """``||softmax(u) - softmax(u')||_1 / ||u - u'||_inf`` in float64."""
    return float(np.abs(softmax(u) - softmax(u2)).sum() / np.abs(u - u2).max())


def _mp(a: np.ndarray) -> mpmath.matrix:
    return mpmath.matrix([[mpmath.mpf(float(v)) for v in row] for row in np.atleast_2d(a)])


def _softmax_mp(row: list) -> list:
    top = max(row)
    z = [mpmath.exp(v - top) for v in row]
    total = mpmath.fsum(z)
    return [v / total for v in z]


def _attention_mp(x: mpmath.matrix, w: mpmath.matrix) -> mpmath.matrix:
    s = x * w * x.T
    t = x.rows
    p = mpmath.matrix(t, t)
    for i in range(t):
        row = _softmax_mp([s[i, j] for j in range(t)])
        for j in range(t):
            p[i, j] = row[j]
    return p * x


def _norm_2_inf_mp(a: mpmath.matrix) -> mpmath.mpf:
    return max(mpmath.sqrt(mpmath.fsum(a[i, j] ** 2 for j in range(a.cols))) for i in range(a.rows))


def attention_ratio_mp(x: np.ndarray, x2: np.ndarray, w: np.ndarray, dps: int) -> mpmath.mpf:
    """:func:`attention_ratio` at ``dps`` digits, the float64 inputs taken as exact binary numbers."""
    with mpmath.workdps(dps):
        X, X2, W = _mp(x), _mp(x2), _mp(w)
        return _norm_2_inf_mp(_attention_mp(X, W) - _attention_mp(X2, W)) / _norm_2_inf_mp(X - X2)


def spectral_norm_mp(w: np.ndarray, dps: int) -> mpmath.mpf:
    """``||W||_2`` at ``dps`` digits (largest singular value, mpmath SVD)."""
    with mpmath.workdps(dps):
        return max(mpmath.svd_r(_mp(w), compute_uv=False))


def softmax_ratio_mp(u: np.ndarray, u2: np.ndarray, dps: int) -> mpmath.mpf:
    """:func:`softmax_ratio` at ``dps`` digits."""
    with mpmath.workdps(dps):
        a = [mpmath.mpf(float(v)) for v in u]
        b = [mpmath.mpf(float(v)) for v in u2]
        sa, sb = _softmax_mp(a), _softmax_mp(b)
        return mpmath.fsum(abs(p - q) for p, q in zip(sa, sb)) / max(abs(p - q) for p, q in zip(a, b))
