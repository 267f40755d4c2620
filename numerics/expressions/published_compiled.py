"""The published proxies ``ours`` and ``edelman`` evaluated from their sympy (the route ``sabounds analyze`` takes).

``ours``: each slot's ``min_{p in P_m}`` of ``sabounds.theory.thm31.proxy_summand`` lambdified in natural logs
(``M = e^{lM}``, ``rho = e^{lrho}``, ``N = e^{lN}``, logs expanded; p = 0 substituted before taking logs, as in
``sabounds.numerics.bound.compiled``), plus ``proxy_post_hoc``; ``edelman``: the catalog proxy
``sabounds.theory.edelman.PROXY`` through ``bound_values``.  The hand-typed numpy of
``sabounds.numerics.proxies.published`` is the independent test oracle.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import sympy as sp

from sabounds.numerics.expressions.bound_values import log_value
from sabounds.theory import edelman as E
from sabounds.theory import symbols as S
from sabounds.theory.thm31 import grid_m, proxy_post_hoc, proxy_summand

lM, lrho, lN = sp.symbols("lM lrho lN", real=True)


def _log_form(expr: sp.Expr) -> sp.Expr:
    return sp.expand_log(sp.log(expr.subs({S.M: sp.exp(lM), S.rho: sp.exp(lrho), S.N: sp.exp(lN)})), force=True)


@lru_cache(maxsize=1)
def _summand():
    args = (S.p, lM, lrho, S.L, lN)
    return (sp.lambdify(args, _log_form(proxy_summand), modules="numpy"),
            sp.lambdify(args, _log_form(proxy_summand.subs(S.p, 0)), modules="numpy"))


def grid_size(layers: int, hidden: int) -> int:
    """``m`` of the grid ``P_m`` from ``sabounds.theory.thm31.grid_m`` (exact ceiling, the package's one m)."""
    return int(grid_m.subs({S.L: layers, S.N: hidden}))


def minimise_ours(log_s_p: np.ndarray, ps: np.ndarray, log_rho: np.ndarray, layers: int, hidden: int):
    """Per slot (rows of ``ln S_p`` over ``ps``, ``ln(gamma alpha)``): the ``ln summand`` table, the first minimiser's
    index (``p_opt``) and the minimum's value."""
    positive, at_zero = _summand()
    ps = np.asarray(ps, dtype=np.float64)
    lr = np.asarray(log_rho, dtype=np.float64)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        table = np.where(ps == 0.0, at_zero(ps, log_s_p, lr, layers, math.log(hidden)),
                         positive(ps, log_s_p, lr, layers, math.log(hidden)))
    table = np.asarray(np.broadcast_to(table, log_s_p.shape), dtype=np.float64)
    best = np.argmin(table, axis=1)
    return table, best, np.exp(table[np.arange(len(best)), best])


def ours_total(minima: np.ndarray, layers: int) -> float:
    """``ours = sum of the slot minima + proxy_post_hoc``."""
    return float(np.sum(minima)) + float(proxy_post_hoc.subs(S.L, layers))


def log_edelman(log_rho: np.ndarray, norm_21: np.ndarray) -> float:
    """``ln edelman`` from each slot's ``ln rho_k = ln gamma^E_k alpha^(l)`` and ``||W_k||_{2,1}``."""
    with np.errstate(divide="ignore"):
        return log_value(E.PROXY, {S.rho: np.asarray(log_rho, dtype=np.float64), S.w_21: np.log(np.asarray(norm_21, dtype=np.float64))})
