"""A bound's proxies (``sabounds.theory.bound.Proxy``) on measured norms, compiled from their sympy at run time.

As ``sabounds.numerics.bound.compiled``: each slot term is lambdified in natural logs (``rho = e^{lrho}``,
``w_11 = e^{lw_11}``, ... and the logs expanded), so no product of norms overflows; slots are combined by
``aggregation.log_aggregate``.  The catalog's own proxies are printed as Python instead (``generated``); this
compiles a user's bound at run time.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import sympy as sp

from sabounds.numerics.expressions.aggregation import log_aggregate
from sabounds.numerics.log_real import LogReal, from_ln
from sabounds.theory import symbols as S
from sabounds.theory.bound import AGGREGATIONS, Proxy

NORMS = (S.rho, S.w_11, S.w_21, S.F2, S.s, S.d_in, S.d_out)
"""The per-slot arguments a proxy term may use, in lambdify order (each passed as its natural log)."""
_LOGS = sp.symbols("l_rho l_w11 l_w21 l_F2 l_s l_din l_dout", real=True)
_u = sp.Symbol("u", real=True)


def _gamma(x):
    """Gamma in float64: inf beyond its range, nan at its poles (refused by :func:`log_value`), never a traceback."""
    try:
        return math.gamma(x)
    except OverflowError:
        return math.inf
    except ValueError:
        return math.nan


NUMPY = [{"gamma": np.vectorize(_gamma, otypes=[np.float64])}, "numpy"]


@lru_cache(maxsize=64)
def _compiled(term: sp.Expr, aggregation: str, force: bool = True):
    """``ln term`` as numpy in the slots' logs.  ``force``: expand logs of products whatever their signs (the
    catalog's terms, positive by construction); a user's term is expanded only where sympy knows the factors are
    positive, so ``ln(-s)`` stays the log of a negative number and is refused, never made positive."""
    in_logs = term.subs({x: sp.exp(lx) for x, lx in zip(NORMS, _LOGS)})
    if aggregation == "exp":  # the terms are logs themselves (any sign): summed as they are, ln W = their sum
        return sp.lambdify(_LOGS, sp.expand_log(in_logs, force=force), modules=NUMPY), None
    log_term = sp.expand_log(sp.log(in_logs), force=force)
    outer = sp.expand_log(sp.log(AGGREGATIONS[aggregation](sp.exp(_u))), force=True)
    return sp.lambdify(_LOGS, log_term, modules=NUMPY), sp.lambdify(_u, outer, modules="numpy")


def _real_finite(proxy: Proxy, values) -> np.ndarray:
    """``values`` as float64 when every one is real and finite; else ValueError naming the proxy's entry ``term``."""
    values = np.asarray(values)
    if np.iscomplexobj(values):
        if np.any(values.imag != 0):
            raise ValueError(
                "entry term: the term is negative or not real on this checkpoint (its logarithm is complex)"
            )
        values = values.real
    try:
        values = values.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError("entry term: the term is not a real number") from None
    if np.any(np.isnan(values)):
        raise ValueError(
            "entry term: the term is negative, zero or undefined on this "
            "checkpoint (its logarithm is not a real number)"
        )
    if np.any(np.isinf(values)):
        raise ValueError(
            "entry term: the term overflows float64 or is zero on this checkpoint (its logarithm is infinite)"
        )
    return values


def log_value(proxy: Proxy, logs: dict[sp.Symbol, np.ndarray]) -> float:
    """``ln proxy`` over slots given as ``symbol -> array of natural logs`` (one entry per slot; missing: ln 1)."""
    n = len(next(iter(logs.values())))
    args = [np.asarray(logs[x], dtype=np.float64) if x in logs else np.zeros(n) for x in NORMS]
    term, outer = _compiled(proxy.term, proxy.aggregation, proxy.source != "user")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        try:
            raw = term(*args)
        except (TypeError, ArithmeticError) as exc:
            raise ValueError(f"entry term: cannot be evaluated ({type(exc).__name__})") from None
        logs = np.broadcast_to(
            _real_finite(proxy, raw) if proxy.source == "user" else np.asarray(raw, dtype=np.float64), (n,)
        )
    return log_aggregate(logs, float(proxy.offset), outer, proxy.name)


def value(proxy: Proxy, logs: dict[sp.Symbol, np.ndarray]) -> float | LogReal:
    """The proxy's value (arguments as natural logs): a float, or a LogReal beyond float64."""
    return from_ln(log_value(proxy, logs))
