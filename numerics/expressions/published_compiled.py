"""The published proxies ``ours`` and ``edelman`` from the catalog's sympy, printed as Python (the route of ``analyze``).

``ours``: each slot's ``min_{p in P_m}`` of ``sabounds.theory.thm31.proxy_summand`` in natural logs (``M = e^{lM}``,
``rho = e^{lrho}``, ``N = e^{lN}``; p = 0 substituted before taking logs), plus ``proxy_post_hoc``; ``edelman``: the
catalog proxy ``edelman.edelman``.  All printed by ``python -m sabounds.numerics.expressions.generate`` into
``generated`` (no sympy at run time); the hand-typed numpy of ``tests/support/published_reference.py`` is the oracle.
"""

from __future__ import annotations

import math

import numpy as np

from sabounds.numerics.expressions import generated as G
from sabounds.numerics.expressions.aggregation import log_catalog


def grid_size(layers: int, hidden: int) -> int:
    """``m = ceil(L + ln N)`` of the grid ``P_m`` (``sabounds.theory.thm31.grid_m``, the package's one m)."""
    return G.grid_m(layers, hidden)


def minimise_ours(log_s_p: np.ndarray, ps: np.ndarray, log_rho: np.ndarray, layers: int, hidden: int):
    """Per slot (rows of ``ln S_p`` over ``ps``, ``ln(gamma alpha)``): the ``ln summand`` table, the first minimiser's
    index (``p_opt``) and the minimum's value."""
    ps = np.asarray(ps, dtype=np.float64)
    lr = np.asarray(log_rho, dtype=np.float64)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        table = np.where(
            ps == 0.0,
            G.log_ours_summand_at_0(ps, log_s_p, lr, layers, math.log(hidden)),
            G.log_ours_summand(ps, log_s_p, lr, layers, math.log(hidden)),
        )
    table = np.asarray(np.broadcast_to(table, log_s_p.shape), dtype=np.float64)
    best = np.argmin(table, axis=1)
    return table, best, np.exp(table[np.arange(len(best)), best])


def ours_total(minima: np.ndarray, layers: int) -> float:
    """``ours = sum of the slot minima + proxy_post_hoc``."""
    return float(np.sum(minima)) + float(G.ours_post_hoc(layers))


def log_edelman(log_rho: np.ndarray, norm_21: np.ndarray) -> float:
    """``ln edelman`` from each slot's ``ln rho_k = ln gamma^E_k alpha^(l)`` and ``||W_k||_{2,1}``."""
    with np.errstate(divide="ignore"):
        return log_catalog(
            G.PROXIES["edelman.edelman"],
            {"rho": np.asarray(log_rho, dtype=np.float64), "w_21": np.log(np.asarray(norm_21, dtype=np.float64))},
        )
