"""Intervals with exact Arb ends (python-flint): the arithmetic of the second certified engine.

:class:`Iv` is a closed interval whose two ends are exact Arb numbers; every operation rounds its ends outwards with
Arb's rigorous error bounds, at the precision of the enclosing ``flint.ctx.workprec``.  Increasing functions (exp,
log, sqrt, erf, atan, tanh) are evaluated at the two ends; gamma on its monotone pieces (the turning point checked
once by the sign of digamma); sin and cos as Arb balls; Min, Max and Abs end by end; Heaviside and sign (what sympy's
derivatives of Min, Max and Abs contain) as their Clarke gradients.  The guards follow
``numerics.expressions.bounded``: an exponential beyond ``exp(10^6)``, a gamma beyond 5e4 or a trigonometric argument
beyond 1e1000 is :class:`NotEnclosable` (no information, never a wrong interval).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import sympy as sp

from sabounds.proofs_check.interval_enclosure import NotEnclosable

MAX_LOG_MAGNITUDE = 10**6


def flint_module():
    """python-flint, or ``None`` when it is not installed (the verdicts then say so)."""
    try:
        import flint
    except ImportError:
        return None
    return flint


def fraction(r: sp.Rational):
    """A sympy rational as an exact ``flint.fmpq``."""
    flint = flint_module()
    r = sp.Rational(r)
    return flint.fmpq(int(r.p), int(r.q))


def rational(q) -> sp.Rational:
    return sp.Rational(int(q.p), int(q.q))


class Iv:
    """A closed interval whose ends are exact Arb numbers (``lo <= hi``): every operation rounds its ends outwards
    with Arb's rigorous error bounds.  Balls (midpoint and a 30-bit radius) lose the lower end of a wide range such as
    ``[1, e^2000]`` (a radius error of 2^-30 e^2000 swamps 1); an interval of two exact ends does not."""

    __slots__ = ("lo", "hi")

    def __init__(self, lo, hi=None):
        hi = lo if hi is None else hi
        if not (lo.is_finite() and hi.is_finite()):
            raise NotEnclosable("an Arb end is not finite (a pole or a domain boundary inside the box)")
        self.lo, self.hi = lo.lower(), hi.upper()

    def __repr__(self) -> str:
        return f"[{self.lo.str(8, radius=False)}, {self.hi.str(8, radius=False)}]"

    def lower(self):
        return self.lo

    def upper(self):
        return self.hi

    def mid(self):
        return ((self.lo + self.hi) / 2).mid()

    def rad(self):
        m = self.mid()
        return largest([(m - self.lo).upper(), (self.hi - m).upper()])

    def ball(self):
        return self.lo.union(self.hi)

    def is_finite(self) -> bool:
        return True

    def __gt__(self, v) -> bool:
        return bool(self.lo > v)

    def __ge__(self, v) -> bool:
        return bool(self.lo >= v)

    def __lt__(self, v) -> bool:
        return bool(self.hi < v)

    def __le__(self, v) -> bool:
        return bool(self.hi <= v)

    def contains(self, v) -> bool:
        return bool(self.lo <= v) and bool(v <= self.hi)

    def contains_integer(self) -> bool:
        return bool(self.lo.ceil() <= self.hi)

    def overlaps(self, other: Iv) -> bool:
        return not (self.hi < other.lo or other.hi < self.lo)

    def intersection(self, other: Iv) -> Iv:
        return Iv(largest([self.lo, other.lo]), smallest([self.hi, other.hi]))

    def __add__(self, other: Iv) -> Iv:
        return Iv(self.lo + other.lo, self.hi + other.hi)

    def __neg__(self) -> Iv:
        return Iv(-self.hi, -self.lo)

    def __sub__(self, other: Iv) -> Iv:
        return self + (-other)

    def __mul__(self, other: Iv) -> Iv:
        products = [a * b for a in (self.lo, self.hi) for b in (other.lo, other.hi)]
        return Iv(smallest([p.lower() for p in products]), largest([p.upper() for p in products]))

    def reciprocal(self) -> Iv:
        if self.contains(0):
            raise NotEnclosable("division by an interval containing 0")
        return Iv((1 / self.hi).lower(), (1 / self.lo).upper())


def smallest(values):
    out = values[0]
    for v in values[1:]:
        if v < out:
            out = v
    return out


def largest(values):
    out = values[0]
    for v in values[1:]:
        if v > out:
            out = v
    return out


def ball(lo, hi=None) -> Iv:
    """The interval of the exact rationals ``[lo, hi]`` (``fmpq`` or sympy rationals) at the current precision."""
    flint = flint_module()
    lo = lo if isinstance(lo, flint.fmpq) else fraction(lo)
    hi = lo if hi is None else hi if isinstance(hi, flint.fmpq) else fraction(hi)
    return Iv(flint.arb(lo), flint.arb(hi))


def point(value) -> Iv:
    """An Arb number (a ball) as an interval."""
    return Iv(value.lower(), value.upper())


def between(lo: Iv, hi: Iv) -> Iv:
    """The smallest interval containing both."""
    return Iv(smallest([lo.lo, hi.lo]), largest([lo.hi, hi.hi]))


def _power_int(b: Iv, k: int) -> Iv:
    flint = flint_module()
    if k == 0:
        return point(flint.arb(1))
    if k < 0:
        return _power_int(b, -k).reciprocal()
    lo, hi = b.lo**k, b.hi**k
    if k % 2 == 1 or b.lo >= 0:
        return Iv(lo.lower(), hi.upper())
    if b.hi <= 0:
        return Iv(hi.lower(), lo.upper())
    return Iv(flint.arb(0), largest([lo.upper(), hi.upper()]))


def _increasing(b: Iv, fn) -> Iv:
    return Iv(fn(b.lo).lower(), fn(b.hi).upper())


def _pow(base: Iv, exponent: Iv, e_sym: sp.Expr) -> Iv:
    flint = flint_module()
    if e_sym.is_Integer:
        return _power_int(base, int(e_sym))
    if e_sym.is_Rational and e_sym > 0:
        if base.lo < 0:
            raise NotEnclosable("a fractional power of an interval reaching below 0")
        e = flint.arb(fraction(e_sym))
        return _increasing(
            base, lambda v: v.sqrt() if e_sym == sp.Rational(1, 2) else (v**e if v > 0 else flint.arb(0))
        )
    if not base > 0:
        raise NotEnclosable("a non-integer power of an interval not bounded away from 0")
    return _exp(exponent * _increasing(base, lambda v: v.log()))


def _exp(b: Iv) -> Iv:
    if b.hi > MAX_LOG_MAGNITUDE:
        raise NotEnclosable("exp beyond exp(10^6)")
    return _increasing(b, lambda v: v.exp())


def _log(b: Iv) -> Iv:
    if not b > 0:
        raise NotEnclosable("log of an interval not bounded away from 0")
    return _increasing(b, lambda v: v.log())


GAMMA_MIN_AT = "1.4616321449683623412626595423257213284681962040064463512959884085987864403538018102430749927337255"


@lru_cache(maxsize=1)
def _gamma_turn() -> Iv:
    """An interval of width 2e-80 around Gamma's minimum on (0, oo), checked once: digamma changes sign inside it."""
    flint = flint_module()
    with flint.ctx.workprec(400):
        centre, radius = flint.arb(GAMMA_MIN_AT), flint.arb(10) ** -80
        turn = Iv(centre - radius, centre + radius)
        if not (turn.lo.digamma() < 0 and turn.hi.digamma() > 0):
            raise NotEnclosable("Gamma's turning point is not where it was recorded")
    return turn


def _gamma(b: Iv) -> Iv:
    """Gamma: decreasing on (0, 1.4616...], increasing after; on negative arguments Arb's ball, off the poles."""
    flint = flint_module()
    if b.contains_integer() and not b > 0:
        raise NotEnclosable("gamma of an interval that may contain a pole (0, -1, -2, ...)")
    if largest([abs(b.lo), abs(b.hi)]) > 5 * 10**4:
        raise NotEnclosable("gamma of an argument beyond 5e4")
    if not b > 0:
        return point(b.ball().gamma())
    turn = _gamma_turn()
    if b.hi <= turn.lo:
        return Iv(b.hi.gamma().lower(), b.lo.gamma().upper())
    if b.lo >= turn.hi:
        return _increasing(b, lambda v: v.gamma())
    ends = [b.lo.gamma().upper(), b.hi.gamma().upper()]
    return Iv(flint.arb("0.8856031944108887"), largest(ends))


def _trig(name):
    def apply(b: Iv) -> Iv:
        if largest([abs(b.lo), abs(b.hi)]) > 10**1000:
            raise NotEnclosable("trigonometric argument beyond 1e1000")
        flint = flint_module()
        v = getattr(b.ball(), name)()
        one = flint.arb(1)
        return Iv(largest([v.lower(), -one]), smallest([v.upper(), one]))

    return apply


def _abs(b: Iv) -> Iv:
    flint = flint_module()
    if b.lo >= 0:
        return b
    if b.hi <= 0:
        return -b
    return Iv(flint.arb(0), largest([-b.lo, b.hi]))


def _step(b: Iv, low: int) -> Iv:
    """Heaviside's step (``low`` 0) or sign (``low`` -1) as the Clarke gradients of Min/Max/Abs need them: the
    whole range [low, 1] where the argument may vanish."""
    flint = flint_module()
    if b > 0:
        return point(flint.arb(1))
    if b < 0:
        return point(flint.arb(low))
    return Iv(flint.arb(low), flint.arb(1))


def _extreme(args, lowest: bool) -> Iv:
    pick = smallest if lowest else largest
    return Iv(pick([a.lo for a in args]), pick([a.hi for a in args]))


_UNARY: dict[type, Callable] = {
    sp.exp: _exp,
    sp.log: _log,
    sp.gamma: _gamma,
    sp.Abs: _abs,
    sp.Heaviside: lambda b: _step(b, 0),
    sp.sign: lambda b: _step(b, -1),
    sp.erf: lambda b: _increasing(b, lambda v: v.erf()),
    sp.atan: lambda b: _increasing(b, lambda v: v.atan()),
    sp.tanh: lambda b: _increasing(b, lambda v: v.tanh()),
    sp.sin: _trig("sin"),
    sp.cos: _trig("cos"),
}
