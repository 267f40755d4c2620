"""The BERT-adapted proxies of docs/definitions.md [published proxy], and their labelled variants.

- Layer factor ``lip_k = L_phi ||M_in^k||_2 ||M_out^k||_2 sum_h ||Vt^{k,h}||_2 (1 + 4 ||QK^{k,h}||_2)``;
  ``alpha^(l) = prod_{k > l} lip_k`` (1 for the last layer).
- ``gamma``: ``QK_h -> 2 ||Vt_h|| ||M_out|| ||M_in||``, ``Vt_h -> ||M_out|| ||M_in||``, ``M_in -> ||M_out||``,
  ``M_out -> 1``.  Variant ``lphi_in_gamma``: GELU sits between M_in and M_out, so QK, Vt and M_in gain L_phi.
- ``contribution(p) = S_p^{1/(p+2)} scale^{p/(p+2)} N^{(p+1)/(p+2)}``, ``scale = gamma alpha^(l) L``, over the grid
  ``P_m = {0, 1/m, ..., 2}``, ``m = ceil(L + ln N)``; ``ours = sum of the minima + sqrt(L)``.
- ``edelman = (1 + sum_l alpha^(l)^{2/3} xi_l)^{3/2}``, ``xi_l = sum_h [(||M_out|| ||M_in|| ||Vt_h|| ||QK_h||_{2,1})^{2/3}
  + (||M_out|| ||M_in|| ||Vt_h||_{2,1})^{2/3}] + (||M_out|| ||M_in||_{2,1})^{2/3} + ||M_out||_{2,1}^{2/3}``.
  Variant ``qk_factor = 2``: the QK term carries the factor 2 that ``gamma_QK`` has.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sabounds.numerics.expressions.published_compiled import grid_size
from sabounds.numerics.log_real import logsumexp as _logsumexp
from sabounds.theory.architecture import L_PHI_GELU

L_PHI = float(L_PHI_GELU)
"""GELU's Lipschitz constant 1.13, from ``sabounds.theory.architecture.L_PHI_GELU`` (the package's one L_phi)."""
default_grid_m = grid_size
"""``m = ceil(L + ln N)``: ``sabounds.theory.thm31.grid_m`` (the package's one m)."""


def p_grid(m: int) -> np.ndarray:
    """``P_m = {0, 1/m, 2/m, ..., 2}``: ``2m + 1`` points, each ``k/m``."""
    if m < 1:
        raise ValueError(f"grid parameter m must be a positive integer, got {m}")
    return np.arange(2 * m + 1, dtype=np.float64) / m


def contributions(s_p: np.ndarray, ps: np.ndarray, scale: np.ndarray, hidden: int) -> np.ndarray:
    """``S_p^{1/(p+2)} scale^{p/(p+2)} N^{(p+1)/(p+2)}`` for rows of ``S_p`` over ``ps`` (``scale`` per row)."""
    ps = np.asarray(ps, dtype=np.float64)
    scale = np.asarray(scale, dtype=np.float64)[..., None]
    return s_p ** (1.0 / (ps + 2.0)) * scale ** (ps / (ps + 2.0)) * float(hidden) ** ((ps + 1.0) / (ps + 2.0))


def minimise(s_p: np.ndarray, ps: np.ndarray, scale: np.ndarray, hidden: int):
    """Per row: the :func:`contributions` table, the index of the first minimiser (``p_opt``) and the minimum."""
    table = contributions(s_p, ps, scale, hidden)
    best = np.argmin(table, axis=1)  # the first minimiser
    return table, best, table[np.arange(len(best)), best]


@dataclass(frozen=True)
class LayerNorms:
    """The norms of one layer the proxies use: spectral and (2,1) norms, per head for QK and Vt."""

    qk_spectral: np.ndarray
    vt_spectral: np.ndarray
    m_in_spectral: float
    m_out_spectral: float
    qk_21: np.ndarray
    vt_21: np.ndarray
    m_in_21: float
    m_out_21: float


def layer_lipschitz(norms: LayerNorms, lphi: float = L_PHI) -> float:
    """``L_phi ||M_in||_2 ||M_out||_2 sum_h ||Vt_h||_2 (1 + 4 ||QK_h||_2)``."""
    attention = float(np.sum(norms.vt_spectral * (1.0 + 4.0 * norms.qk_spectral)))
    return lphi * norms.m_in_spectral * norms.m_out_spectral * attention


def alphas(layers: list[LayerNorms], lphi: float = L_PHI) -> np.ndarray:
    """``alpha^(l) = prod_{k > l} lip_k`` for each layer (1 for the last)."""
    factors = [layer_lipschitz(n, lphi) for n in layers]
    out = np.ones(len(layers))
    with np.errstate(over="ignore"):  # an overflow to inf is refused by the caller, in one line
        for l in range(len(layers) - 2, -1, -1):
            out[l] = out[l + 1] * factors[l + 1]
    return out


@dataclass(frozen=True)
class LayerGammas:
    """``gamma`` of every matrix of a layer: per head for QK and Vt."""

    qk: np.ndarray
    vt: np.ndarray
    m_in: float
    m_out: float


def gammas(norms: LayerNorms, lphi_in_gamma: float | None = None) -> LayerGammas:
    """The published ``gamma``; with ``lphi_in_gamma = L_phi``, the variant that counts GELU inside the layer."""
    g = 1.0 if lphi_in_gamma is None else lphi_in_gamma
    ff = norms.m_out_spectral * norms.m_in_spectral * g
    return LayerGammas(qk=2.0 * norms.vt_spectral * ff, vt=np.full_like(norms.vt_spectral, ff),
                       m_in=norms.m_out_spectral * g, m_out=1.0)


def edelman(layers: list[LayerNorms], alpha: np.ndarray, qk_factor: float = 1.0) -> float:
    """``(1 + sum_l alpha^(l)^{2/3} xi_l)^{3/2}``; ``qk_factor = 2`` gives the variant with gamma_QK's factor 2."""
    total = 1.0
    for a, n in zip(alpha, layers):
        ff = n.m_out_spectral * n.m_in_spectral
        xi = (np.sum((qk_factor * ff * n.vt_spectral * n.qk_21) ** (2 / 3)) + np.sum((ff * n.vt_21) ** (2 / 3))
              + (n.m_out_spectral * n.m_in_21) ** (2 / 3) + n.m_out_21 ** (2 / 3))
        total += a ** (2 / 3) * float(xi)
    return float(total ** 1.5)


# --- the same proxies in log space: no overflow for any representable spectrum ------------------------------
# alpha, gamma, scale and edelman are products of many norms and can leave float64 while every singular value
# is representable; ours cannot (its p = 0 term is sqrt(rank N)).  Zero norms give ln = -inf, which these
# functions carry through (exp(-inf) = 0), never nan.


def _ln(x) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(x, dtype=np.float64))


def log_layer_lipschitz(norms: LayerNorms, lphi: float = L_PHI) -> float:
    """``ln lip_k = ln L_phi + ln ||M_in|| + ln ||M_out|| + ln sum_h ||Vt_h|| (1 + 4 ||QK_h||)``."""
    heads = _ln(norms.vt_spectral) + np.logaddexp(0.0, math.log(4.0) + _ln(norms.qk_spectral))
    return float(math.log(lphi) + _ln(norms.m_in_spectral) + _ln(norms.m_out_spectral) + _logsumexp(heads))


def log_alphas(layers: list[LayerNorms], lphi: float = L_PHI) -> np.ndarray:
    """``ln alpha^(l) = sum_{k > l} ln lip_k`` (0 for the last layer)."""
    factors = [log_layer_lipschitz(n, lphi) for n in layers]
    out = np.zeros(len(layers))
    for l in range(len(layers) - 2, -1, -1):
        out[l] = out[l + 1] + factors[l + 1]
    return out


def log_gammas(norms: LayerNorms, lphi_in_gamma: float | None = None) -> LayerGammas:
    """``ln gamma`` of :func:`gammas`, term by term."""
    g = 0.0 if lphi_in_gamma is None else math.log(lphi_in_gamma)
    ff = float(_ln(norms.m_out_spectral) + _ln(norms.m_in_spectral)) + g
    vt = _ln(norms.vt_spectral)
    return LayerGammas(qk=math.log(2.0) + vt + ff, vt=np.full_like(vt, ff),
                       m_in=float(_ln(norms.m_out_spectral)) + g, m_out=0.0)


def log_contributions(log_s_p: np.ndarray, ps: np.ndarray, log_scale: np.ndarray, hidden: int) -> np.ndarray:
    """``ln contribution(p) = (ln S_p + p ln scale + (p + 1) ln N) / (p + 2)`` (``p ln scale = 0`` at p = 0)."""
    ps = np.asarray(ps, dtype=np.float64)
    log_scale = np.asarray(log_scale, dtype=np.float64)[..., None]
    with np.errstate(invalid="ignore"):
        pull = np.where(ps == 0.0, 0.0, ps * log_scale)
    return (log_s_p + pull + (ps + 1.0) * math.log(hidden)) / (ps + 2.0)


def minimise_log(log_s_p: np.ndarray, ps: np.ndarray, log_scale: np.ndarray, hidden: int):
    """Per row: the ``ln contribution`` table, the first minimiser's index (``p_opt``) and the minimum (a float:
    the p = 0 term ``sqrt(rank N)`` bounds it)."""
    table = log_contributions(log_s_p, ps, log_scale, hidden)
    best = np.argmin(table, axis=1)
    minima = np.exp(table[np.arange(len(best)), best])
    at_zero = np.asarray(ps)[best] == 0.0  # sqrt(rank N) exactly, as the float formula gives it
    minima[at_zero] = np.sqrt(np.round(np.exp(log_s_p[at_zero, 0])) * float(hidden))
    return table, best, minima


def log_edelman(layers: list[LayerNorms], log_alpha: np.ndarray, qk_factor: float = 1.0) -> float:
    """``ln edelman = (3/2) ln(1 + sum_l exp((2/3) ln alpha^(l) + ln xi_l))``, ``ln xi_l`` by log-sum-exp."""
    terms = []
    for la, n in zip(log_alpha, layers):
        ff = float(_ln(n.m_out_spectral) + _ln(n.m_in_spectral))
        parts = np.concatenate([
            (2 / 3) * (math.log(qk_factor) + ff + _ln(n.vt_spectral) + _ln(n.qk_21)),
            (2 / 3) * (ff + _ln(n.vt_21)),
            [(2 / 3) * float(_ln(n.m_out_spectral) + _ln(n.m_in_21)), (2 / 3) * float(_ln(n.m_out_21))]])
        terms.append((2 / 3) * la + float(_logsumexp(parts)))
    return 1.5 * float(np.logaddexp(0.0, _logsumexp(np.array(terms))))
