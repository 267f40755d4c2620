"""Random matrices with prescribed spectra, the test beds of the matrix-relation checks.

``U diag(sigma) V^T`` with Haar-random orthonormal ``U, V`` (QR of a Gaussian, sign-corrected) and one
of four spectral profiles:

- ``low_rank``: rank k exactly, ``sigma_1..k`` uniform in [0.5, 2];
- ``power_law``: ``sigma_i = s i^{-beta}``, beta in [0.5, 2];
- ``flat``: all ``sigma_i`` equal;
- ``low_rank_tail``: rank-k head plus a tail of Frobenius mass ``tau`` spread over the rest.
"""

from __future__ import annotations

import numpy as np

FAMILIES = ("low_rank", "power_law", "flat", "low_rank_tail")


def haar_orthonormal(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """An ``n x k`` matrix with orthonormal columns, Haar-distributed."""
    q, r = np.linalg.qr(rng.standard_normal((n, k)))
    return q * np.sign(np.diag(r))


def spectrum(
    family: str,
    rng: np.random.Generator,
    d: int,
    *,
    rank: int | None = None,
    beta: float | None = None,
    scale: float = 1.0,
    tail_mass: float | None = None,
) -> np.ndarray:
    """``d`` singular values (descending) of the given family; unspecified parameters are drawn from ``rng``."""
    if family == "low_rank":
        k = rank if rank is not None else int(rng.integers(1, max(2, d // 2) + 1))
        head = np.sort(rng.uniform(0.5, 2.0, size=min(k, d)))[::-1]
        return scale * np.concatenate([head, np.zeros(d - head.size)])
    if family == "power_law":
        b = beta if beta is not None else float(rng.uniform(0.5, 2.0))
        return scale * np.arange(1, d + 1, dtype=float) ** (-b)
    if family == "flat":
        return scale * np.ones(d)
    if family == "low_rank_tail":
        k = rank if rank is not None else int(rng.integers(1, max(2, d // 2) + 1))
        k = min(k, d)
        tau = tail_mass if tail_mass is not None else float(rng.uniform(0.01, 0.5))
        head = np.sort(rng.uniform(1.0, 2.0, size=k))[::-1]
        tail = np.sort(rng.uniform(0.0, 1.0, size=d - k))[::-1]
        if tail.size and tail.sum() > 0:
            tail = tail * np.sqrt(tau / np.sum(tail**2))
            tail = np.minimum(tail, head[-1])
        return scale * np.concatenate([head, tail])
    raise ValueError(f"unknown spectral family {family!r}; choose from {', '.join(FAMILIES)}")


def with_spectrum(rng: np.random.Generator, sigma: np.ndarray, d_in: int, d_out: int) -> np.ndarray:
    """A ``d_in x d_out`` matrix whose singular values are ``sigma`` (length ``min(d_in, d_out)``)."""
    d = min(d_in, d_out)
    sigma = np.asarray(sigma, dtype=float)
    if sigma.shape != (d,):
        raise ValueError(f"need {d} singular values, got {sigma.shape}")
    return (haar_orthonormal(rng, d_in, d) * sigma) @ haar_orthonormal(rng, d_out, d).T


def draw(family: str, rng: np.random.Generator, d_in: int, d_out: int, **spec) -> np.ndarray:
    """A random ``d_in x d_out`` matrix of the given spectral family."""
    return with_spectrum(rng, spectrum(family, rng, min(d_in, d_out), **spec), d_in, d_out)


def token_matrix(rng: np.random.Generator, t: int, d: int, bound: float = 1.0) -> np.ndarray:
    """``t`` tokens (rows) in R^d with ``||X||_{2->inf} = bound`` exactly (one row on the sphere, others inside)."""
    x = rng.standard_normal((t, d))
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    radii = rng.uniform(0.0, 1.0, size=(t, 1)) ** (1.0 / d)
    radii[0] = 1.0
    return bound * x / norms * radii
