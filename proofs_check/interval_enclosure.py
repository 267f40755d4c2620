"""Interval enclosures of sympy expressions (``mpmath.iv``, outward rounding): ``enclose(expr, box)`` contains every
value ``expr`` takes on the box, or raises :class:`NotEnclosable` where an operation has no interval extension there.

Elementary functions come from ``mpmath.iv``; erf, atan and Gamma (which ``mpmath.iv`` lacks) from their monotone
pieces, evaluated beyond the working precision and widened outwards (``_monotone``).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import contextmanager

import mpmath
import sympy as sp

iv = mpmath.iv


@contextmanager
def iv_digits(dps: int):
    """Run the body with ``mpmath.iv`` at ``dps`` digits (precision as a context, restored afterwards)."""
    saved = iv.dps
    iv.dps = dps
    try:
        yield
    finally:
        iv.dps = saved


class NotEnclosable(Exception):
    """The expression uses an operation without an interval extension here."""


def constant_interval(x: sp.Expr):
    if x.is_Integer:
        return iv.mpf(int(x))
    if x.is_Rational:
        return iv.mpf(int(x.p)) / iv.mpf(int(x.q))
    if x is sp.pi:
        return iv.pi
    if x is sp.E:
        return iv.e
    if x.is_Float:
        return iv.mpf(mpmath.mpf(x))
    raise NotEnclosable(f"constant {x}")


def strictly_positive(v) -> bool:
    return v.a > 0


GAMMA_MIN_AT = mpmath.mpf("1.4616321449683623412626595423257213284681962040064")
"""Where Gamma attains its minimum on (0, oo): decreasing before, increasing after."""


GAMMA_MIN_BELOW = mpmath.mpf("0.88560319441088")
"""A lower bound of that minimum, Gamma(1.46163...) = 0.8856031944108887..."""


def _monotone(fn, v, floor=None, ceiling=None, decreasing: bool = False):
    """The image of the interval ``v`` under a monotone ``fn``: its values at the ends, computed 10 digits beyond the
    interval precision and widened outwards by ``10^-dps`` relative plus ``10^-(2 dps)`` absolute (mpmath's elementary
    and special functions are accurate to a few ulps at the working precision), clipped to the range ``[floor,
    ceiling]`` of ``fn``.  Mpmath.iv has no erf or atan (and ``iv.erf`` does not converge)."""
    dps = iv.dps
    with mpmath.workdps(dps + 10):
        a, b = fn(mpmath.mpf(v.a)), fn(mpmath.mpf(v.b))
        if decreasing:
            a, b = b, a
        slack = mpmath.mpf(10) ** (-dps)
        lo = a - abs(a) * slack - slack**2
        hi = b + abs(b) * slack + slack**2
        if floor is not None:
            lo = max(lo, floor)
        if ceiling is not None:
            hi = min(hi, ceiling)
    return iv.mpf([lo, hi])


def _gamma(v):
    """Gamma on an interval of positive reals (decreasing up to its minimum at 1.4616..., increasing after), and on an
    interval of negative reals between two poles by the reflection ``Gamma(x) = pi / (sin(pi x) Gamma(1 - x))``;
    refused where the interval holds a pole (0, -1, ...) and outside (-49998, 5 * 10^4] (where the evaluator refuses
    Gamma or, by the reflection, Gamma(1 - x))."""
    if v.b < 0 and v.a > -5 * 10**4 + 2 and mpmath.floor(v.a) == mpmath.floor(v.b) and v.a != mpmath.floor(v.a):
        return iv.pi / (iv.sin(iv.pi * v) * _gamma(1 - v))
    if not strictly_positive(v) or v.b > 5 * 10**4:
        raise NotEnclosable("gamma of an interval holding a pole or outside (-49998, 5e4]")
    if v.b <= GAMMA_MIN_AT:
        return _monotone(mpmath.gamma, v, decreasing=True)
    if v.a >= GAMMA_MIN_AT:
        return _monotone(mpmath.gamma, v)
    ends = _monotone(mpmath.gamma, iv.mpf([v.a, v.a]), decreasing=True), _monotone(mpmath.gamma, iv.mpf([v.b, v.b]))
    return iv.mpf([GAMMA_MIN_BELOW, max(e.b for e in ends)])


def _enclose_pow(expr: sp.Pow, box):
    """``base^e``: an integer power directly (a negative one of an interval away from 0), a square root of an interval
    in [0, oo), otherwise ``exp(e log base)`` for a base bounded away from 0."""
    base, e = expr.args
    if e.is_Integer:
        b = enclose(base, box)
        k = int(e)
        if k >= 0:
            return b**k
        if b.a > 0 or b.b < 0:
            return 1 / b ** (-k)
        raise NotEnclosable("negative power of an interval containing 0")
    b = enclose(base, box)
    if e == sp.Rational(1, 2):
        if b.a < 0:
            raise NotEnclosable("sqrt of an interval reaching below 0")
        return iv.sqrt(b)
    if not strictly_positive(b):
        raise NotEnclosable(f"non-integer power of a base not bounded away from 0: {base}")
    return iv.exp(enclose(e, box) * iv.log(b))


def _log(v):
    if not strictly_positive(v):
        raise NotEnclosable("log of an interval not bounded away from 0")
    return iv.log(v)


def _abs(v):
    if v.a >= 0:
        return v
    if v.b <= 0:
        return -v
    return iv.mpf([0, max(-v.a, v.b)])


def _atan(v):
    half_pi = mpmath.pi / 2
    return _monotone(mpmath.atan, v, -half_pi * (1 + mpmath.eps), half_pi * (1 + mpmath.eps))


_UNARY = (
    (sp.exp, iv.exp),
    (sp.sin, iv.sin),
    (sp.cos, iv.cos),
    (sp.erf, lambda v: _monotone(mpmath.erf, v, -1, 1)),
    (sp.atan, _atan),
    (sp.gamma, _gamma),
    (sp.tanh, lambda v: 1 - 2 / (iv.exp(2 * v) + 1)),
    (sp.log, _log),
    (sp.Abs, _abs),
    (sp.ceiling, lambda v: iv.mpf([mpmath.ceil(v.a), mpmath.ceil(v.b)])),
    (sp.floor, lambda v: iv.mpf([mpmath.floor(v.a), mpmath.floor(v.b)])),
)
"""The one-argument functions with an interval extension, each applied to the enclosure of its argument."""


def enclose(expr: sp.Expr, box: Mapping[sp.Symbol, object]):
    """An interval containing ``expr`` for every point of ``box`` (symbol -> ``iv.mpf`` interval)."""
    if expr.is_Symbol:
        if expr not in box:
            raise NotEnclosable(f"free symbol {expr} has no range")
        return box[expr]
    if expr.is_Number or expr in (sp.pi, sp.E):
        return constant_interval(expr)
    if isinstance(expr, sp.Add):
        out = iv.mpf(0)
        for a in expr.args:
            out = out + enclose(a, box)
        return out
    if isinstance(expr, sp.Mul):
        out = iv.mpf(1)
        for a in expr.args:
            out = out * enclose(a, box)
        return out
    if isinstance(expr, sp.Pow):
        return _enclose_pow(expr, box)
    if isinstance(expr, (sp.Max, sp.Min)):
        vals = [enclose(a, box) for a in expr.args]
        pick = max if isinstance(expr, sp.Max) else min
        return iv.mpf([pick(v.a for v in vals), pick(v.b for v in vals)])
    for kind, image in _UNARY:
        if isinstance(expr, kind):
            return image(enclose(expr.args[0], box))
    raise NotEnclosable(f"{type(expr).__name__}")
