"""p = 0 proven optimal for a matrix without its full spectrum: sigma_1 bracketed, rank proven full, S_p bounded below.

For ``W`` (``n x m``, ``n <= m`` after transposing, ``D = n``) scaled by a power of two, ``G~ = fl(W W^T)`` is formed
by ``certified_spectra.gram_matrix`` with ``||G~ - G||_2 <= Delta_f = gamma_{b + m/b + 1} ||W||_F^2`` (the same
formation bound as the certified spectra).  Then, with floating Cholesky factorisations only (no eigensolver):

- **Cholesky test** (Demmel's backward error): if Cholesky of a symmetric ``H`` runs to completion, then
  ``H + E = R^T R`` with ``|E_ij| <= gamma_{n+1} ||r_i|| ||r_j||`` and ``||r_i||^2 <= H_ii / (1 - gamma_{n+1})``,
  so ``lambda_min(H) >= -gamma_{n+1} / (1 - gamma_{n+1}) tr(H)``.  ``H = fl(A - c I)`` adds ``u max|H_ii|``.
- **rank = D**: Cholesky of ``G~ - c I`` with ``c = thr^2 + Delta_f + margin`` succeeds => ``sigma_D^2 > thr^2``
  where ``thr`` is the published rank threshold ``tol D max(sigma_1, 1)`` (taken at an upper bound of sigma_1);
  inverse iteration with that factor estimates ``lambda_min``, and a third Cholesky test at 0.81 of it proves
  ``sigma_D >= 0.9`` of the estimate (less the margins) when it succeeds.
- **sigma_1**: lower bound from a Rayleigh quotient ``x^T G~ x / x^T x - Delta_f - (rounding)`` (power iteration),
  upper bound from a successful Cholesky of ``mu I - G~`` (``lambda_max(G~) <= mu - lower bound of that test``).
- **S_p from below**: ``S_p >= max(sigma_1^p + (D - 1) sigma_D^p, ||W||_F^2 sigma_1^(p - 2))`` (``p <= 2``).

Then p = 0 is the (first) minimiser of ``ln c(p) = (ln S_p + p ln scale + (p + 1) ln N) / (p + 2)`` whenever
``c_lower(p) >= sqrt(D N) = c(0)`` for every p > 0 of the grid, with ``scale`` at a LOWER bound (``c`` increases with
``scale`` and with ``S_p``).  Certified: p_opt = 0, rank = D, the contribution ``sqrt(D N)`` exactly and ``sigma_1``
in ``[lower, upper]``.  Bounded only: the p > 0 contributions (from below); ``||W||_F`` is the Gram trace
(relative error within the formation bound, ~1e-13).
Underflow is not modelled (entries are scaled to [0.5, 1)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sabounds.numerics.certified_spectra import UNIT_ROUNDOFF, _gamma, gram_error_bound, gram_matrix
from sabounds.numerics.spectra import RANK_TOL


@dataclass(frozen=True)
class PZeroEvidence:
    """Bounds on one matrix's spectrum (original units): ``sigma_1`` in ``[sigma1_lower, sigma1_upper]``, every
    singular value ``>= sigma_min_lower`` (0 when not proven), ``dim`` values, ``frobenius`` (Gram trace)."""

    sigma1_lower: float
    sigma1_upper: float
    sigma_min_lower: float
    dim: int
    frobenius: float
    full_rank: bool

    def log_s_p_lower(self, ps: np.ndarray) -> np.ndarray:
        """A lower bound on ``ln S_p`` for ``0 < p <= 2``: the larger of ``sigma1_lower^p + (D - 1) sigma_min_lower^p``
        and ``||W||_F^2 sigma1_upper^(p - 2)`` (each ``sigma_i^p = sigma_i^2 sigma_i^(p - 2) >= sigma_i^2
        sigma_1^(p - 2)``); ``||W||_F`` is deflated by ``1e-9`` for its rounding."""
        ps = np.asarray(ps, dtype=np.float64)
        top = ps * math.log(self.sigma1_lower) if self.sigma1_lower > 0 else np.full(ps.shape, -np.inf)
        if self.sigma_min_lower > 0 and self.dim >= 2:
            top = np.logaddexp(top, math.log(self.dim - 1) + ps * math.log(self.sigma_min_lower))
        if self.frobenius > 0 and self.sigma1_upper > 0:
            top = np.maximum(top, 2 * math.log(self.frobenius * (1 - 1e-9)) + (ps - 2) * math.log(self.sigma1_upper))
        return top


def _cholesky_lower_eig(h: np.ndarray, keep: list | None = None) -> float | None:
    """A proven lower bound on ``lambda_min`` of the symmetric ``h`` as stored, or None when Cholesky breaks down;
    the factor is appended to ``keep`` when given."""
    n = h.shape[0]
    diag = np.diagonal(h)
    if np.any(diag <= 0):
        return None
    bound = -_gamma(n + 1) / (1.0 - _gamma(n + 1)) * math.fsum(diag) * (1.0 + 1e-12)
    try:
        factor = np.linalg.cholesky(h)
    except np.linalg.LinAlgError:
        return None
    if keep is not None:
        keep.append(factor)
    return bound


def _smallest_estimate(factor: np.ndarray, shift: float, steps: int = 6, seed: int = 1) -> float | None:
    """``lambda_min(G~)`` estimated by inverse iteration with the Cholesky factor of ``G~ - shift I`` (scipy's
    triangular solves; None without scipy).  An estimate only: it is proven afterwards by another Cholesky test."""
    try:
        from scipy.linalg import cho_solve
    except ImportError:
        return None
    x = np.random.default_rng(seed).standard_normal(factor.shape[0])
    for _ in range(steps):
        y = cho_solve((factor, True), x)
        rayleigh = float(x @ y) / float(x @ x)
        x = y / np.linalg.norm(y)
    return shift + 1.0 / rayleigh if rayleigh > 0 else None


def _shifted(g: np.ndarray, c: float, sign: float) -> tuple[np.ndarray, float]:
    """``fl(sign G~ + c I)`` and the bound ``u max|diagonal|`` of its diagonal rounding."""
    h = g * sign if sign != 1.0 else g.copy()
    h[np.diag_indices_from(h)] += c
    return h, UNIT_ROUNDOFF * float(np.max(np.abs(np.diagonal(h))))


def _rayleigh_lower(g: np.ndarray, iterations: int, seed: int, block: int = 16) -> tuple[float, float]:
    """``lambda_max(G~)`` from below and a residual norm: subspace iteration on ``block`` vectors with a
    Rayleigh-Ritz step every 5 (stopping once the top residual is below ``1e-10 theta``), the top Ritz vector
    ``x``, its Rayleigh quotient less its rounding (a lower bound whatever ``x`` is) and ``||G~x - theta x||``."""
    n = g.shape[0]
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, min(block, n))))
    for step in range(1, iterations + 1):
        z = g @ q
        if step % 5 and step < iterations:
            q, _ = np.linalg.qr(z)
            continue
        vals, vecs = np.linalg.eigh(q.T @ z)
        q, _ = np.linalg.qr(z @ vecs[:, ::-1])
        x = q[:, 0]
        y = g @ x
        theta = float(x @ y) / float(x @ x)
        residual = float(np.linalg.norm(y - theta * x)) / float(np.linalg.norm(x))
        if residual <= 1e-10 * theta:
            break
    rounding = _gamma(2 * n + 2) * float(np.abs(x) @ (np.abs(g) @ np.abs(x))) / float(x @ x)
    return max(theta - rounding, 0.0), residual


def p_zero_evidence(w, rank_tol: float = RANK_TOL, iterations: int = 200, seed: int = 0) -> PZeroEvidence:
    """Form the scaled Gram matrix once and bound sigma_1, sigma_min and the rank by Cholesky tests."""
    w = np.asarray(w, dtype=np.float64)
    if w.shape[0] > w.shape[1]:
        w = w.T
    n, m = w.shape
    top = max(float(w.max()), -float(w.min()))
    if not math.isfinite(top):
        raise ValueError("matrix has NaN or Inf entries")
    if top == 0.0:
        return PZeroEvidence(0.0, 0.0, 0.0, n, 0.0, False)
    scale = math.ldexp(1.0, math.frexp(top)[1])
    g = gram_matrix(w, factor=1.0 / scale)
    fro2 = math.fsum(np.diagonal(g))
    delta = gram_error_bound(np.zeros(1), fro2, n, m) * (1.0 + 1e-9)
    theta, residual = _rayleigh_lower(g, iterations, seed)
    lam_lo = max(theta - delta, 0.0)
    lam_hi = math.inf
    for k in range(6):  # mu just above the Ritz value, the gap widened 8-fold after each failed test
        mu = theta + max(4e-9 * theta, residual, delta) * 8.0**k
        low = _cholesky_lower_eig(_shifted(g, mu, -1.0)[0])
        if low is not None:
            lam_hi = mu - low + UNIT_ROUNDOFF * mu + delta
            break
    sigma1_hi = math.sqrt(lam_hi) if math.isfinite(lam_hi) else math.sqrt(fro2 * (1 + 1e-6))
    threshold = rank_tol * n * max(sigma1_hi * scale, 1.0) / scale
    trace = fro2
    margin = _gamma(n + 1) / (1.0 - _gamma(n + 1)) * trace * (1.0 + 1e-12)
    c = threshold * threshold + delta + margin + UNIT_ROUNDOFF * float(np.max(np.diagonal(g)))
    factors: list = []
    h, diag_error = _shifted(g, -c, 1.0)
    low = _cholesky_lower_eig(h, factors)
    full = low is not None and c + low - diag_error - delta > threshold * threshold
    sigma_min = math.sqrt(c + low - diag_error - delta) if full else 0.0
    estimate = _smallest_estimate(factors[0], c) if full else None
    if estimate is not None and 0.81 * estimate > c:  # try to prove sigma_min >= 0.9 of its estimate
        c2 = 0.81 * estimate
        h, diag_error = _shifted(g, -c2, 1.0)
        low2 = _cholesky_lower_eig(h)
        if low2 is not None and c2 + low2 - diag_error - delta > sigma_min**2:
            sigma_min = math.sqrt(c2 + low2 - diag_error - delta)
    return PZeroEvidence(
        math.sqrt(lam_lo) * scale, sigma1_hi * scale, sigma_min * scale, n, math.sqrt(fro2) * scale, full
    )


def p_zero_proven(evidence: PZeroEvidence, ps: np.ndarray, log_scale_lower: float, hidden: int) -> bool:
    """True when p = 0 is proven the first minimiser over ``ps``: rank = D proven and, for every p > 0,
    the lower bound of ``ln c(p)`` reaches ``ln sqrt(D N)``.  ``log_scale_lower``: ln of a lower bound of scale."""
    if not evidence.full_rank:
        return False
    ps = np.asarray(ps, dtype=np.float64)
    positive = ps[ps > 0]
    lower = (evidence.log_s_p_lower(positive) + positive * log_scale_lower + (positive + 1.0) * math.log(hidden)) / (
        positive + 2.0
    )
    at_zero = 0.5 * math.log(evidence.dim * hidden)
    return bool(np.all(lower >= at_zero + 1e-12 * max(1.0, abs(at_zero))))
