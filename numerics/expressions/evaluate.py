"""Evaluate theory expressions: mpmath at a chosen precision, or float64 (vectorised) where that suffices.

mpmath's exponent range is unbounded, so ``evaluate`` never overflows (``C**L`` for L in the hundreds
is an ordinary mpf); ``log_evaluate`` gives the natural log of a positive value for printing or fitting
where float64 would overflow; ``evaluate_float`` is the fast float64 path, which agrees with the mpmath
path to 1e-12 relative wherever it is finite.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp

DEFAULT_DPS = 50


def _ordered(expr: sp.Basic, values: Mapping) -> tuple[tuple[sp.Symbol, ...], tuple]:
    missing = expr.free_symbols - set(values)
    if missing:
        names = ", ".join(sorted(str(s) for s in missing))
        raise ValueError(f"no value given for {names} in {expr}")
    syms = tuple(sorted(expr.free_symbols, key=str))
    return syms, tuple(values[s] for s in syms)


@lru_cache(maxsize=4096)
def _compiled(expr: sp.Basic, syms: tuple[sp.Symbol, ...], module: str):
    return sp.lambdify(syms, expr, modules=module)


def evaluate(expr: sp.Basic, values: Mapping | None = None, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """``expr`` at ``values`` (symbol -> number) as an mpmath number with ``dps`` significant digits."""
    expr = sp.sympify(expr)
    syms, args = _ordered(expr, values or {})
    with mpmath.workdps(dps):
        args = tuple(mpmath.mpf(sp.Float(a, dps)) if not isinstance(a, (mpmath.mpf, mpmath.mpc)) else a for a in args)
        out = _compiled(expr, syms, "mpmath")(*args)
        return +mpmath.mpmathify(out)


def log_evaluate(expr: sp.Basic, values: Mapping | None = None, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Natural log of a positive ``expr``; raises ``ValueError`` if the value is not positive."""
    with mpmath.workdps(dps):
        v = evaluate(expr, values, dps)
        if not (mpmath.im(v) == 0 and mpmath.re(v) > 0):
            raise ValueError(f"log of non-positive value {v} of {expr}")
        return mpmath.log(mpmath.re(v))


def evaluate_float(expr: sp.Basic, values: Mapping | None = None) -> np.ndarray | float:
    """float64 evaluation, vectorised over numpy array values; may overflow to inf (then use :func:`evaluate`)."""
    expr = sp.sympify(expr)
    syms, args = _ordered(expr, values or {})
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _compiled(expr, syms, "numpy")(*(np.asarray(a, dtype=float) for a in args))


def to_float(x: mpmath.mpf) -> float:
    """An mpmath real as a Python float (``inf`` past float64's range)."""
    return float(mpmath.re(x))


def relative_difference(a, b) -> mpmath.mpf:
    """``|a - b| / max(|a|, |b|)`` (0 when both are 0)."""
    a, b = mpmath.mpmathify(a), mpmath.mpmathify(b)
    scale = max(abs(a), abs(b))
    return abs(a - b) / scale if scale else mpmath.mpf(0)
