"""Evaluate a user's expression tree with mpmath, refusing any step whose cost would be unbounded.

``lambdify`` hands ``x**y`` to mpmath as is, and mpmath computes ``1000**(1000**1000)`` by working at
a precision proportional to ``log |y ln x|``: a tower of three powers asks for 10^3000 bits and never
returns.  This evaluator walks the sympy tree itself (only the node types ``sabounds.theory.expression``
builds) and raises :class:`MagnitudeError` (an ``OverflowError``) when a power, exponential or gamma
would exceed ``exp(MAX_LOG_MAGNITUDE)`` or a trigonometric argument exceeds ``10**MAX_TRIG_DIGITS``;
the search treats such points as undefined.  Non-real results raise ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Mapping

import mpmath
import sympy as sp

MAX_LOG_MAGNITUDE = 10**6
MAX_TRIG_DIGITS = 1000


class MagnitudeError(OverflowError):
    """A value too large to compute in bounded time (|log value| beyond ``MAX_LOG_MAGNITUDE``)."""


def _real(v) -> mpmath.mpf:
    if isinstance(v, mpmath.mpc):
        if v.imag != 0:
            raise ValueError("non-real value")
        v = v.real
    if not mpmath.isfinite(v):
        raise ValueError("non-finite value")
    return v


def _power(b: mpmath.mpf, e: mpmath.mpf) -> mpmath.mpf:
    if b == 0:
        if e <= 0:
            raise ZeroDivisionError("0 to a non-positive power")
        return mpmath.mpf(0)
    if abs(e * mpmath.log(abs(b))) > MAX_LOG_MAGNITUDE:
        raise MagnitudeError("power beyond exp(10^6)")
    if b < 0 and e != mpmath.floor(e):
        raise ValueError("negative base to a non-integer power")
    return _real(mpmath.power(b, e))


def _exp(x):
    if x > MAX_LOG_MAGNITUDE:
        raise MagnitudeError("exp beyond exp(10^6)")
    return mpmath.exp(x)


def _gamma(x):
    if abs(x) > MAX_LOG_MAGNITUDE / 20:
        raise MagnitudeError("gamma of an argument beyond 5*10^4")
    return mpmath.gamma(x)


def _trig(fn):
    def guarded(x):
        if x != 0 and mpmath.mag(x) > 3.33 * MAX_TRIG_DIGITS:
            raise MagnitudeError("trigonometric argument beyond 10^1000")
        return fn(x)

    return guarded


def _log(x):
    if x <= 0:
        raise ValueError("log of a non-positive number")
    return mpmath.log(x)


_FUNCTIONS = {
    sp.exp: _exp,
    sp.log: _log,
    sp.Abs: abs,
    sp.gamma: _gamma,
    sp.erf: mpmath.erf,
    sp.sin: _trig(mpmath.sin),
    sp.cos: _trig(mpmath.cos),
    sp.tanh: mpmath.tanh,
    sp.atan: mpmath.atan,
}


def bounded_evaluate(expr: sp.Expr, values: Mapping[sp.Symbol, object], dps: int) -> mpmath.mpf:
    """``expr`` at ``values`` as a real mpmath number at ``dps`` digits, or an exception (never a hang)."""
    with mpmath.workdps(dps):
        return +_eval(expr, values)


def _eval(e: sp.Expr, values: Mapping) -> mpmath.mpf:
    if e.is_Symbol:
        return mpmath.mpf(values[e])
    if e.is_Rational:
        return mpmath.mpf(e.p) / e.q
    if e.is_Float:
        return mpmath.mpf(e._mpf_)
    if e is sp.pi:
        return +mpmath.pi
    if e is sp.E:
        return mpmath.e()
    if e.is_Add:
        return _real(mpmath.fsum(_eval(a, values) for a in e.args))
    if e.is_Mul:
        out = mpmath.mpf(1)
        for a in e.args:
            out *= _eval(a, values)
        return _real(out)
    if e.is_Pow:
        return _power(_eval(e.base, values), _eval(e.exp, values))
    if isinstance(e, (sp.Min, sp.Max)):
        args = [_eval(a, values) for a in e.args]
        return min(args) if isinstance(e, sp.Min) else max(args)
    fn = _FUNCTIONS.get(e.func)
    if fn is not None:
        return _real(fn(*(_eval(a, values) for a in e.args)))
    raise TypeError(f"cannot evaluate {type(e).__name__} nodes")
