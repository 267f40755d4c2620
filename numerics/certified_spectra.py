"""Singular values with a proof of accuracy, and certified upper bounds on ``S_p`` without a full spectrum.

``certified_singular_values``: the spectrum of ``W`` (``n x m``, ``n <= m`` after transposing) from the eigenvalues
of the Gram matrix ``G = W W^T``, accepted only when an a-priori perturbation bound proves every singular value
accurate to ``rtol`` (default 1e-9) relative; otherwise LAPACK's SVD.  The bound (``u = 2^-53``):

- forming ``G`` by ``b``-column blocks summed in turn: ``|fl(G) - G| <= gamma_{b + m/b + 1} |W||W|^T`` entrywise
  (Higham, Accuracy and Stability, 3.5), so ``||fl(G) - G||_2 <= gamma_{b + m/b + 1} ||W||_F^2``;
- LAPACK's symmetric eigensolver: the computed eigenvalues are exact for ``fl(G) + E``, ``||E||_2 <= p(n) u ||G||_2``
  (LAPACK Users' Guide 4.7.1), with ``p(n) = n`` taken here;
- Weyl: ``|lambda_i - sigma_i^2| <= Delta``, the sum of both; then ``sigma_i`` is within
  ``Delta / (s_lo (sqrt(lambda_i) + s_lo))``, ``s_lo = sqrt(lambda_i - Delta)``, relative (plus ``u`` for the root).

Small ``sigma_i`` relative to ``sigma_1`` (roughly ``sigma_i^2 < Delta / rtol``) cannot be certified: such
matrices go to LAPACK, and the method is recorded per matrix.

``schatten_upper_bound``: top-k Ritz values of a randomized subspace (lower bounds on ``sigma_1..sigma_k`` by
interlacing, deflated for rounding) plus the exact Frobenius norm; the largest ``sum sigma_i^p`` compatible with
both is attained by water-filling the squares (``x_i = max(t_i^2, c)``, ``sum x_i = ||W||_F^2``), which gives
Hoelder's bound ``sum_{i>k} sigma_i^p <= (D-k)^{1-p/2} (||W||_F^2 - sum_{i<=k} sigma_i^2)^{p/2}`` when the top values
are exact.  ``S_0`` is bounded by ``D = min(n, m)``.  A certified UPPER bound, labelled so.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

UNIT_ROUNDOFF = 2.0**-53
RTOL = 1e-9
GRAM_BLOCK = 256
GRAM = "gram"
LAPACK = "lapack"
UPPER_BOUND_LABEL = "upper bound (top-k Ritz lower bounds + exact Frobenius norm, water-filled Hoelder)"


def _gamma(k: int) -> float:
    """``gamma_k = k u / (1 - k u)``: the relative error bound of a length-k dot product."""
    return k * UNIT_ROUNDOFF / (1.0 - k * UNIT_ROUNDOFF)


def _checked(w) -> np.ndarray:
    w = np.asarray(w, dtype=np.float64)
    if w.ndim != 2:
        raise ValueError(f"expected a matrix, got an array of shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError("matrix has NaN or Inf entries")
    return w


def _power_of_two_scale(w: np.ndarray) -> tuple[np.ndarray, float]:
    """``w / 2^e`` with ``max |w| / 2^e`` in [0.5, 1): exact, so squares neither overflow nor underflow early."""
    top = float(np.max(np.abs(w)))
    if top == 0.0:
        return w, 1.0
    scale = math.ldexp(1.0, math.frexp(top)[1])
    return w / scale, scale


@dataclass(frozen=True)
class CertifiedSpectrum:
    """Singular values (descending), the method that produced them and the proven relative error of the Gram route
    (``inf`` when the certificate refused and LAPACK was used)."""

    values: np.ndarray
    method: str
    relative_error_bound: float


def _dsyrk():
    """scipy's BLAS ``dsyrk`` (half the work of a general product), or None without scipy."""
    try:
        from scipy.linalg.blas import dsyrk
    except ImportError:
        return None
    return dsyrk


def gram_matrix(w: np.ndarray, block: int = GRAM_BLOCK, factor: float = 1.0) -> np.ndarray:
    """``(factor w)(factor w)^T`` summed over ``block``-column slices (the blocking the error bound above assumes):
    each slice is scaled into one preallocated buffer, its Gram formed from zero (``dsyrk``: the upper triangle,
    half a general product's work; ``matmul`` without scipy) and added once; the result is symmetric."""
    n, m = w.shape
    syrk = _dsyrk()
    g = np.zeros((n, n), order="F")
    part = np.zeros((n, n), order="F")
    buf = np.empty((n, min(block, m)))
    for start in range(0, m, block):
        piece = w[:, start : start + block]
        b = buf if piece.shape[1] == buf.shape[1] else np.empty(piece.shape)
        np.multiply(piece, factor, out=b)
        if syrk is not None:
            part = syrk(1.0, b.T, trans=1, beta=0.0, c=part, overwrite_c=1, lower=0)
        else:
            np.matmul(b, b.T, out=part)
        g += part
    if syrk is not None:  # mirror the upper triangle (dsyrk leaves the lower one at zero)
        np.copyto(g, g.T, where=_strictly_lower(n))
    return g


@functools.lru_cache(maxsize=8)
def _strictly_lower(n: int) -> np.ndarray:
    """The n x n mask of the strictly lower triangle (made once per size: the MLP matrices share a few sizes)."""
    mask = np.tri(n, k=-1, dtype=bool)
    mask.flags.writeable = False
    return mask


def gram_error_bound(lam: np.ndarray, fro2: float, n: int, m: int, block: int = GRAM_BLOCK) -> float:
    """``Delta``: the Weyl radius around every computed eigenvalue of ``fl(w w^T)`` (formation + eigensolver)."""
    blocks = -(-m // block)
    formation = _gamma(min(block, m) + blocks + 1) * fro2 * (1.0 + 1e-6)
    solver = n * UNIT_ROUNDOFF * float(np.max(np.abs(lam), initial=0.0)) * (1.0 + 1e-6) + formation * n * UNIT_ROUNDOFF
    return formation + solver


def relative_error_bounds(lam: np.ndarray, delta: float) -> np.ndarray:
    """Per eigenvalue: the proven relative error of ``sqrt(lambda_i)`` as ``sigma_i`` (inf where not provable)."""
    lam = np.asarray(lam, dtype=np.float64)
    low = lam - delta
    out = np.full(lam.shape, np.inf)
    ok = low > 0
    s_lo = np.sqrt(low[ok])
    out[ok] = delta / (s_lo * (np.sqrt(lam[ok]) + s_lo)) + 2 * UNIT_ROUNDOFF
    return out


def certified_singular_values(w, rtol: float = RTOL, top: float | None = None) -> CertifiedSpectrum:
    """Singular values of ``w`` through the smaller Gram matrix when every one is proven within ``rtol`` relative,
    else through LAPACK (gesdd); ``method`` says which.  One pass finds ``max |w|`` (NaN and Inf refused there;
    ``top``: that maximum when the caller has it already), one forms the scaled Gram matrix; ``||w||_F^2`` is its trace (every diagonal entry is a sum of squares, so
    its relative error is within the formation bound, covered by the bound's 1e-6 slack)."""
    w = np.asarray(w, dtype=np.float64)
    if w.ndim != 2:
        raise ValueError(f"expected a matrix, got an array of shape {w.shape}")
    if w.shape[0] > w.shape[1]:
        w = w.T
    n, m = w.shape
    if n == 0 or m == 0:
        return CertifiedSpectrum(np.zeros(n), GRAM, 0.0)
    top = max(float(w.max()), -float(w.min())) if top is None else float(top)
    if not math.isfinite(top):
        raise ValueError("matrix has NaN or Inf entries")
    if top == 0.0:
        return CertifiedSpectrum(np.zeros(n), GRAM, 0.0)
    scale = math.ldexp(1.0, math.frexp(top)[1])
    g = gram_matrix(w, factor=1.0 / scale)
    lam = np.linalg.eigvalsh(g)[::-1]
    fro2 = math.fsum(np.diagonal(g))
    bounds = relative_error_bounds(lam, gram_error_bound(lam, fro2, n, m))
    worst = float(np.max(bounds))
    if worst <= rtol:
        return CertifiedSpectrum(np.sqrt(lam) * scale, GRAM, worst)
    return CertifiedSpectrum(np.linalg.svd(w / scale, compute_uv=False) * scale, LAPACK, math.inf)


def certified_values(w, top: float | None = None) -> np.ndarray:
    """The singular values of :func:`certified_singular_values` alone (the default feed-forward spectrum)."""
    return certified_singular_values(w, top=top).values


@dataclass(frozen=True)
class SchattenUpperBound:
    """Certified upper bounds on ``S_p(W)`` for each ``p`` in ``ps`` (``S_0``: the dimension ``D``)."""

    ps: np.ndarray
    values: np.ndarray
    k: int
    top_lower: np.ndarray
    frobenius_squared_upper: float
    label: str = UPPER_BOUND_LABEL


def top_singular_lower_bounds(
    w: np.ndarray, k: int, iterations: int = 2, oversample: int = 16, seed: int = 0
) -> np.ndarray:
    """Lower bounds on ``sigma_1 >= ... >= sigma_k`` of ``w`` (``n <= m``): singular values of ``Q^T w`` for an
    orthonormal ``Q`` from subspace iteration (``sigma_i(Q^T w) <= sigma_i(w)``), deflated for ``Q``'s loss of
    orthogonality and the rounding of ``Q^T w`` and of the small SVD."""
    n, m = w.shape
    width = min(n, k + oversample)
    rng = np.random.default_rng(seed)
    y = w @ rng.standard_normal((m, width))
    for _ in range(iterations):
        q, _ = np.linalg.qr(y)
        y = w @ (w.T @ q)
    q, _ = np.linalg.qr(y)
    b = q.T @ w
    t = np.linalg.svd(b, compute_uv=False)[:k]
    eta = float(np.linalg.norm(q.T @ q - np.eye(width), 2)) + _gamma(n) * width
    fro = math.sqrt(float(np.einsum("ij,ij->", w, w)))
    product_error = _gamma(n) * math.sqrt(width) * math.sqrt(1.0 + eta) * fro
    svd_error = width * UNIT_ROUNDOFF * float(t[0] if t.size else 0.0)
    return np.maximum(t / math.sqrt(1.0 + eta) - product_error - svd_error, 0.0)


def water_filled_schatten(top_lower: np.ndarray, fro2_upper: float, dim: int, ps: np.ndarray) -> np.ndarray:
    """``max sum_i x_i^{p/2}`` over sorted ``x >= 0`` with ``x_i >= top_lower_i^2`` and ``sum x = fro2_upper``: the
    water-filled ``x_i = max(top_lower_i^2, c)`` is majorised by every such ``x`` and the sum is Schur-concave."""
    x = np.sort(np.asarray(top_lower, dtype=np.float64) ** 2)[::-1]
    x = np.concatenate([x, np.zeros(dim - x.size)])
    # c solves sum max(x_i, c) = F: with j values above c, c = (F - sum of those j) / (dim - j).
    c = 0.0
    for j in range(x.size + 1):
        rest = dim - j
        if rest == 0:
            break
        c = max(fro2_upper - float(np.sum(x[:j])), 0.0) / rest
        if j == x.size or x[j] <= c:
            break
    filled = np.maximum(x, c)
    ps = np.asarray(ps, dtype=np.float64)
    out = np.empty(ps.shape)
    zero = ps == 0
    out[zero] = dim
    with np.errstate(divide="ignore"):
        logs = np.log(filled)
    out[~zero] = np.exp(np.outer(ps[~zero] / 2.0, logs)).sum(axis=1)
    return out


def schatten_upper_bound(w, k: int, ps, iterations: int = 2, seed: int = 0) -> SchattenUpperBound:
    """Certified upper bounds on ``S_p(w)`` for every ``p`` in ``ps`` (0 <= p <= 2) from ``k`` top singular values
    (lower-bounded) and the exact Frobenius norm; never below the true ``S_p``."""
    w = _checked(w)
    ps = np.asarray(ps, dtype=np.float64)
    if np.any((ps < 0) | (ps > 2)) or not np.all(np.isfinite(ps)):
        raise ValueError("Schatten indices p must lie in [0, 2]")
    if w.shape[0] > w.shape[1]:
        w = w.T
    n, m = w.shape
    if not 1 <= k <= n:
        raise ValueError(f"k must lie in 1..{n}, got {k}")
    scaled, scale = _power_of_two_scale(w)
    top = top_singular_lower_bounds(scaled, k, iterations, seed=seed) if np.any(scaled) else np.zeros(k)
    fro2 = float(np.einsum("ij,ij->", scaled, scaled)) * (1.0 + 2.0 * _gamma(n * m))
    values = water_filled_schatten(top, fro2, n, ps)
    factor = np.where(ps == 0, 1.0, scale**ps)
    return SchattenUpperBound(ps, values * factor, k, top * scale, fro2 * scale * scale)
