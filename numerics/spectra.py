"""Singular values and Schatten quantities of actual matrices (float64).

``S_p(W) = sum_i sigma_i^p`` for ``0 < p <= 2`` and ``S_0(W) = rank(W)``, the numerical rank of
docs/definitions.md (the published proxy): ``#{i : sigma_i > tol * len(sigma) * max(sigma_1, 1)}``,
``tol = 1e-10``.

Overflow: singular values are homogeneous, so each matrix (or factor) is divided by its largest entry before
LAPACK sees it and the values multiplied back; entries from 1e-300 up to the float64 maximum raise no numpy
warning.  A singular value beyond float64 is a ValueError (one line).  ``S_p`` itself can exceed float64
(``sigma^2`` of 1e200): :func:`log_schatten_grid` gives ``ln S_p`` for that case.
"""

from __future__ import annotations

import numpy as np

from sabounds.numerics.log_real import logsumexp

RANK_TOL = 1e-10


def singular_values(w: np.ndarray) -> np.ndarray:
    """Singular values of ``w`` in descending order, computed in float64 by LAPACK (gesdd)."""
    w = np.asarray(w, dtype=np.float64)
    if w.ndim != 2:
        raise ValueError(f"expected a matrix, got an array of shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError("matrix has NaN or Inf entries")
    if 0 in w.shape:
        return np.zeros(0)
    scale = float(np.max(np.abs(w)))
    if scale == 0.0:
        return np.zeros(min(w.shape))
    return _times(np.linalg.svd(w / scale, compute_uv=False), scale)


def _times(sigma: np.ndarray, factor) -> np.ndarray:
    """``sigma * factor`` (factor broadcast over the last axis); ValueError when a value leaves float64."""
    with np.errstate(over="ignore"):
        out = sigma * factor
    if not np.all(np.isfinite(out)):
        raise ValueError(
            "singular values exceed the float64 range (largest about 10^"
            f"{float(np.max(np.log10(np.max(sigma, axis=-1)) + np.log10(factor).ravel())):.1f}); "
            "the weights are too large for their spectra to be represented"
        )
    return out


def numerical_rank(sigma: np.ndarray, tol: float = RANK_TOL) -> int:
    """``#{i : sigma_i > tol * len(sigma) * max(sigma_1, 1)}`` (the published proxy's rank)."""
    sigma = np.asarray(sigma, dtype=np.float64)
    if sigma.size == 0:
        return 0
    return int(np.count_nonzero(sigma > tol * sigma.size * max(float(sigma.max()), 1.0)))


def check_p(p: float) -> float:
    """Validate a Schatten index: a finite number in ``[0, 2]``."""
    p = float(p)
    if not (0.0 <= p <= 2.0):
        raise ValueError(f"Schatten index p must lie in [0, 2], got {p}")
    return p


def schatten(sigma: np.ndarray, p: float, tol: float = RANK_TOL) -> float:
    """``S_p`` from singular values: ``sum sigma_i^p`` for p > 0, the numerical rank for p = 0."""
    p = check_p(p)
    if p == 0.0:
        return float(numerical_rank(sigma, tol))
    return float(np.sum(np.asarray(sigma, dtype=np.float64) ** p))


def _grid_arguments(sigma, ps) -> tuple[np.ndarray, np.ndarray]:
    """``(ps, sigma)`` as float64 arrays; every p must be finite and in [0, 2]."""
    ps = np.asarray(ps, dtype=np.float64)
    if np.any((ps < 0) | (ps > 2)) or not np.all(np.isfinite(ps)):
        raise ValueError("Schatten indices p must lie in [0, 2]")
    return ps, np.asarray(sigma, dtype=np.float64)


def schatten_grid(sigma: np.ndarray, ps: np.ndarray, tol: float = RANK_TOL) -> np.ndarray:
    """``S_p`` for every p in ``ps`` at once (vectorised): one ``len(ps) x len(sigma)`` power table."""
    ps, sigma = _grid_arguments(sigma, ps)
    out = np.empty(ps.shape, dtype=np.float64)
    zero = ps == 0.0
    out[zero] = numerical_rank(sigma, tol)
    if np.any(~zero):
        with np.errstate(divide="ignore"):
            logs = np.log(sigma)
        out[~zero] = np.exp(np.outer(ps[~zero], logs)).sum(axis=1)
    return out


def log_schatten_grid(sigma: np.ndarray, ps: np.ndarray, tol: float = RANK_TOL) -> np.ndarray:
    """``ln S_p`` for every p in ``ps`` (``-inf`` where ``S_p = 0``): ``logsumexp(p ln sigma_i)``, finite even when
    ``S_p`` exceeds float64.  ``ln S_0 = ln rank``."""
    ps, sigma = _grid_arguments(sigma, ps)
    out = np.empty(ps.shape, dtype=np.float64)
    zero = ps == 0.0
    with np.errstate(divide="ignore"):
        out[zero] = np.log(float(numerical_rank(sigma, tol)))
        positive = sigma[sigma > 0]
        if np.any(~zero):
            if positive.size == 0:
                out[~zero] = -np.inf
            else:
                out[~zero] = logsumexp(np.outer(ps[~zero], np.log(positive)), axis=1)
    return out


def schatten_norm(sigma: np.ndarray, p: float) -> float:
    """``||W||_{s,p} = S_p^{1/p}`` for ``0 < p <= 2``."""
    p = check_p(p)
    if p == 0.0:
        raise ValueError("the Schatten p-norm needs p > 0 (S_0 is the rank)")
    return schatten(sigma, p) ** (1.0 / p)


def _r_factors(x: np.ndarray, groups: np.ndarray | None) -> np.ndarray:
    """R of the thin QR of each matrix of the stack ``x``, once per group of equal matrices (``groups[h]``: heads with
    the same number hold the same matrix, as key/value heads shared by query heads do) and copied to the others."""
    if groups is None:
        return np.asarray(np.linalg.qr(x, mode="r"))
    _, first, at = np.unique(groups, return_index=True, return_inverse=True)
    return np.asarray(np.linalg.qr(x[first], mode="r"))[at]


def product_singular_values(
    left: np.ndarray,
    right: np.ndarray,
    factor_values: bool = False,
    left_groups: np.ndarray | None = None,
    right_groups: np.ndarray | None = None,
):
    """Singular values of ``left @ right`` (``n x k`` times ``k x m``, k <= n, m; batched over leading axes).

    The product has rank <= k, so its spectrum is that of a k x k core: with thin QR ``left = Q1 R1`` and
    ``right^T = Q2 R2``, ``left @ right = Q1 (R1 R2^T) Q2^T`` and ``sigma(left @ right) = sigma(R1 R2^T)``.
    This costs O((n + m) k^2) instead of an ``n x m`` SVD, and avoids the rounding noise (~eps sigma_1) that a
    full SVD puts on the exactly-zero singular values.  The result is padded with those ``min(n, m) - k`` exact
    zeros, so it can stand in for ``singular_values(left @ right)`` (its length enters the numerical rank).
    With ``factor_values`` also ``sigma(left) = sigma(R1)`` and ``sigma(right) = sigma(R2)`` from the same QR
    (k x k SVDs: no second decomposition of the n x k factors).  ``left_groups`` / ``right_groups`` (over the
    leading axis): factors with equal numbers are equal (grouped-query attention's shared key/value heads), so each
    is decomposed once; the values are those of decomposing every copy.
    """
    left = np.asarray(left, dtype=np.float64)
    right = np.asarray(right, dtype=np.float64)
    n, k = left.shape[-2:]
    k2, m = right.shape[-2:]
    if k != k2 or k > min(n, m):
        raise ValueError(f"expected n x k and k x m factors with k <= n, m; got {left.shape} and {right.shape}")
    if not (np.all(np.isfinite(left)) and np.all(np.isfinite(right))):
        raise ValueError("factor has NaN or Inf entries")
    sl = np.max(np.abs(left), axis=(-2, -1), keepdims=True)
    sr = np.max(np.abs(right), axis=(-2, -1), keepdims=True)
    sl, sr = np.where(sl > 0, sl, 1.0), np.where(sr > 0, sr, 1.0)
    r1 = _r_factors(left / sl, left_groups)
    r2 = _r_factors(np.swapaxes(right / sr, -1, -2), right_groups)
    unit = np.linalg.svd(r1 @ np.swapaxes(r2, -1, -2), compute_uv=False)
    core = _times(_times(unit, sl[..., 0]), sr[..., 0])
    pad = np.zeros(core.shape[:-1] + (min(n, m) - k,))
    values = np.concatenate([core, pad], axis=-1)
    if not factor_values:
        return values
    return (
        values,
        _times(_factor_values(r1, left_groups), sl[..., 0]),
        _times(_factor_values(r2, right_groups), sr[..., 0]),
    )


def _factor_values(r: np.ndarray, groups: np.ndarray | None) -> np.ndarray:
    """Singular values of each R factor, once per group of equal factors (:func:`_r_factors`)."""
    if groups is None:
        return np.linalg.svd(r, compute_uv=False)
    _, first, at = np.unique(groups, return_index=True, return_inverse=True)
    return np.linalg.svd(r[first], compute_uv=False)[at]
