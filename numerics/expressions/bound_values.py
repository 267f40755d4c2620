"""A catalog bound's proxies (``sabounds.theory.bound.Proxy``) on measured norms, compiled from their sympy.

As ``sabounds.numerics.bound.compiled``: each slot term is lambdified in natural logs (``rho = e^{lrho}``,
``w_11 = e^{lw_11}``, ... and the logs expanded), so no product of norms overflows; slots are combined by the one
log-sum-exp, the offset by ``logaddexp``, and the aggregation's outer power in log form again.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy as sp

from sabounds.numerics.log_real import LogReal, from_ln, logsumexp
from sabounds.theory import symbols as S
from sabounds.theory.bound import AGGREGATIONS, Proxy

NORMS = (S.rho, S.w_11, S.w_21, S.F2, S.s, S.d_in, S.d_out)
"""The per-slot arguments a proxy term may use, in lambdify order (each passed as its natural log)."""
_LOGS = sp.symbols("l_rho l_w11 l_w21 l_F2 l_s l_din l_dout", real=True)
_u = sp.Symbol("u", real=True)


@lru_cache(maxsize=64)
def _compiled(term: sp.Expr, aggregation: str):
    in_logs = term.subs({x: sp.exp(lx) for x, lx in zip(NORMS, _LOGS)})
    if aggregation == "exp":  # the terms are logs themselves (any sign): summed as they are, ln W = their sum
        return sp.lambdify(_LOGS, sp.expand_log(in_logs, force=True), modules="numpy"), None
    log_term = sp.expand_log(sp.log(in_logs), force=True)
    outer = sp.expand_log(sp.log(AGGREGATIONS[aggregation](sp.exp(_u))), force=True)
    return sp.lambdify(_LOGS, log_term, modules="numpy"), sp.lambdify(_u, outer, modules="numpy")


def log_value(proxy: Proxy, logs: dict[sp.Symbol, np.ndarray]) -> float:
    """``ln proxy`` over slots given as ``symbol -> array of natural logs`` (one entry per slot; missing: ln 1)."""
    n = len(next(iter(logs.values())))
    args = [np.asarray(logs[x], dtype=np.float64) if x in logs else np.zeros(n) for x in NORMS]
    term, outer = _compiled(proxy.term, proxy.aggregation)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.broadcast_to(np.asarray(term(*args), dtype=np.float64), (n,))
    if outer is None:
        if proxy.offset != 0:
            raise ValueError(f"proxy {proxy.name}: aggregation exp takes no offset")
        return float(np.sum(logs))
    total = float(logsumexp(logs))
    offset = float(proxy.offset)
    inner = float(np.logaddexp(np.log(offset), total)) if offset > 0 else total
    return float(outer(inner))


def value(proxy: Proxy, logs: dict[sp.Symbol, np.ndarray]) -> float | LogReal:
    """The proxy's value (arguments as natural logs): a float, or a LogReal beyond float64."""
    return from_ln(log_value(proxy, logs))
