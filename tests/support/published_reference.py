"""The hand-typed numpy of the section-6 proxies [published proxy]: the independent oracle the package's compiled
evaluators (``sabounds.numerics.expressions.published_compiled``, printed from the catalog's sympy) must agree with
to 1e-12 relative (``tests/numerics/test_generated.py``).

- ``contribution(p) = S_p^{1/(p+2)} scale^{p/(p+2)} N^{(p+1)/(p+2)}``, ``scale = gamma alpha^(l) L``, over the grid
  ``P_m = {0, 1/m, ..., 2}``, ``m = ceil(L + ln N)``; ``ours = sum of the minima + sqrt(L)``.
- ``edelman = (1 + sum_l alpha^(l)^{2/3} xi_l)^{3/2}``, ``xi_l = sum_h [(||M_out|| ||M_in|| ||Vt_h|| ||QK_h||_{2,1})^{2/3}
  + (||M_out|| ||M_in|| ||Vt_h||_{2,1})^{2/3}] + (||M_out|| ||M_in||_{2,1})^{2/3} + ||M_out||_{2,1}^{2/3}``.
  Variant ``qk_factor = 2``: the QK term carries the factor 2 that ``gamma_QK`` has.
"""

from __future__ import annotations

import math

import numpy as np

from sabounds.numerics.log_real import logsumexp as _logsumexp
from sabounds.numerics.proxies.published_factors import (
    L_PHI,
    LayerGammas,
    LayerNorms,
    _ln,
    alphas,
    default_grid_m,
    gammas,
    layer_lipschitz,
    log_alphas,
    log_gammas,
    log_layer_lipschitz,
    p_grid,
)

__all__ = [
    "L_PHI",
    "LayerGammas",
    "LayerNorms",
    "alphas",
    "contributions",
    "default_grid_m",
    "edelman",
    "gammas",
    "layer_lipschitz",
    "log_alphas",
    "log_contributions",
    "log_edelman",
    "log_gammas",
    "log_layer_lipschitz",
    "minimise",
    "minimise_log",
    "p_grid",
]


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


def edelman(layers: list[LayerNorms], alpha: np.ndarray, qk_factor: float = 1.0) -> float:
    """``(1 + sum_l alpha^(l)^{2/3} xi_l)^{3/2}``; ``qk_factor = 2`` gives the variant with gamma_QK's factor 2."""
    total = 1.0
    for a, n in zip(alpha, layers):
        ff = n.m_out_spectral * n.m_in_spectral
        xi = (
            np.sum((qk_factor * ff * n.vt_spectral * n.qk_21) ** (2 / 3))
            + np.sum((ff * n.vt_21) ** (2 / 3))
            + (n.m_out_spectral * n.m_in_21) ** (2 / 3)
            + n.m_out_21 ** (2 / 3)
        )
        total += a ** (2 / 3) * float(xi)
    return float(total**1.5)


# --- the same proxies in log space: no overflow for any representable spectrum ------------------------------
# alpha, gamma, scale and edelman are products of many norms and can leave float64 while every singular value
# is representable; ours cannot (its p = 0 term is sqrt(rank N)).  Zero norms give ln = -inf, which these
# functions carry through (exp(-inf) = 0), never nan.


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
        parts = np.concatenate(
            [
                (2 / 3) * (math.log(qk_factor) + ff + _ln(n.vt_spectral) + _ln(n.qk_21)),
                (2 / 3) * (ff + _ln(n.vt_21)),
                [(2 / 3) * float(_ln(n.m_out_spectral) + _ln(n.m_in_21)), (2 / 3) * float(_ln(n.m_out_21))],
            ]
        )
        terms.append((2 / 3) * la + float(_logsumexp(parts)))
    return 1.5 * float(np.logaddexp(0.0, _logsumexp(np.array(terms))))
