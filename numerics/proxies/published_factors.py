"""The published Lipschitz bookkeeping of docs/definitions.md (section 3) [published proxy], and its labelled variant.

- Layer factor ``lip_k = L_phi ||M_in^k||_2 ||M_out^k||_2 sum_h ||Vt^{k,h}||_2 (1 + 4 ||QK^{k,h}||_2)``;
  ``alpha^(l) = prod_{k > l} lip_k`` (1 for the last layer).
- ``gamma``: ``QK_h -> 2 ||Vt_h|| ||M_out|| ||M_in||``, ``Vt_h -> ||M_out|| ||M_in||``, ``M_in -> ||M_out||``,
  ``M_out -> 1``.  Variant ``lphi_in_gamma``: GELU sits between M_in and M_out, so QK, Vt and M_in gain L_phi.

The proxies these factors feed (``ours``, ``edelman``) are compiled from the catalog's sympy
(``sabounds.numerics.expressions.published_compiled``); their hand-typed numpy is the test oracle
``tests/support/published_reference.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sabounds.numerics.expressions.generated import L_PHI_GELU, grid_m
from sabounds.numerics.log_real import logsumexp as _logsumexp

L_PHI = L_PHI_GELU
"""GELU's Lipschitz constant 1.13, printed from ``sabounds.theory.architecture.L_PHI_GELU`` (the package's one L_phi)."""
default_grid_m = grid_m
"""``m = ceil(L + ln N)``: ``sabounds.theory.thm31.grid_m`` printed as Python (the package's one m)."""


def p_grid(m: int) -> np.ndarray:
    """``P_m = {0, 1/m, 2/m, ..., 2}``: ``2m + 1`` points, each ``k/m``."""
    if m < 1:
        raise ValueError(f"grid parameter m must be a positive integer, got {m}")
    return np.arange(2 * m + 1, dtype=np.float64) / m


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
    return LayerGammas(
        qk=2.0 * norms.vt_spectral * ff,
        vt=np.full_like(norms.vt_spectral, ff),
        m_in=norms.m_out_spectral * g,
        m_out=1.0,
    )


# alpha and gamma are products of many norms and can leave float64 while every singular value is representable.
# Zero norms give ln = -inf, which these functions carry through (exp(-inf) = 0), never nan.


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
    return LayerGammas(
        qk=math.log(2.0) + vt + ff, vt=np.full_like(vt, ff), m_in=float(_ln(norms.m_out_spectral)) + g, m_out=0.0
    )
