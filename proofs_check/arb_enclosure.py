"""Arb ball enclosures of sympy expressions (python-flint's ``arb``): the second certified engine beside ``mpmath.iv``.

Arb carries a rigorous error bound on every operation at any precision (``flint.ctx.workprec``), including erf,
gamma, atan and tanh, so a ball of ``rhs - lhs`` that excludes 0 certifies the sign.  ``ArbForm(expr)`` compiles an
expression once and encloses it on a box of balls; polynomial subexpressions of degree >= 2 are evaluated in their
Taylor form at the box's centre (exact coefficients, so ``x**2 - 0.62*x + 0.0961`` on a box of width ``w`` around
0.31 costs ``w**2``, not the ``0.62 w`` that naive interval arithmetic pays: the dependency problem), intersected
with the naive enclosure.  Every function is guarded like ``numerics.expressions.bounded``: an exponential beyond
``exp(10^6)``, a gamma beyond 5e4 or a trigonometric argument beyond 1e1000 is :class:`NotEnclosable` (no
information, never a wrong ball).  python-flint is imported lazily; :func:`flint_module` is ``None`` without it.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable, Mapping

import sympy as sp

from sabounds.proofs_check.interval_enclosure import NotEnclosable

PIN = "python-flint>=0.6,<0.10"
"""The version range the package is tested with (the ``certify`` and ``test`` extras)."""
MAX_LOG_MAGNITUDE = 10**6
MAX_POLY_DEGREE, MAX_POLY_TERMS = 12, 80
"""Polynomial subexpressions larger than this are not recentred (the shift costs terms x degree per box)."""


def flint_module():
    """python-flint, or ``None`` when it is not installed (the verdicts then say so)."""
    try:
        import flint
    except ImportError:
        return None
    return flint


def available() -> bool:
    return flint_module() is not None


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
        return _largest([(m - self.lo).upper(), (self.hi - m).upper()])

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

    def overlaps(self, other: "Iv") -> bool:
        return not (self.hi < other.lo or other.hi < self.lo)

    def intersection(self, other: "Iv") -> "Iv":
        return Iv(_largest([self.lo, other.lo]), _smallest([self.hi, other.hi]))

    def __add__(self, other: "Iv") -> "Iv":
        return Iv(self.lo + other.lo, self.hi + other.hi)

    def __neg__(self) -> "Iv":
        return Iv(-self.hi, -self.lo)

    def __sub__(self, other: "Iv") -> "Iv":
        return self + (-other)

    def __mul__(self, other: "Iv") -> "Iv":
        products = [a * b for a in (self.lo, self.hi) for b in (other.lo, other.hi)]
        return Iv(_smallest([p.lower() for p in products]), _largest([p.upper() for p in products]))

    def reciprocal(self) -> "Iv":
        if self.contains(0):
            raise NotEnclosable("division by an interval containing 0")
        return Iv((1 / self.hi).lower(), (1 / self.lo).upper())


def _smallest(values):
    out = values[0]
    for v in values[1:]:
        if v < out:
            out = v
    return out


def _largest(values):
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
    return Iv(_smallest([lo.lo, hi.lo]), _largest([lo.hi, hi.hi]))


def _power_int(b: Iv, k: int) -> Iv:
    flint = flint_module()
    if k == 0:
        return point(flint.arb(1))
    if k < 0:
        return _power_int(b, -k).reciprocal()
    lo, hi = b.lo ** k, b.hi ** k
    if k % 2 == 1 or b.lo >= 0:
        return Iv(lo.lower(), hi.upper())
    if b.hi <= 0:
        return Iv(hi.lower(), lo.upper())
    return Iv(flint.arb(0), _largest([lo.upper(), hi.upper()]))


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
        return _increasing(base, lambda v: v.sqrt() if e_sym == sp.Rational(1, 2) else (v ** e if v > 0 else flint.arb(0)))
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
    if _largest([abs(b.lo), abs(b.hi)]) > 5 * 10**4:
        raise NotEnclosable("gamma of an argument beyond 5e4")
    if not b > 0:
        return point(b.ball().gamma())
    turn = _gamma_turn()
    if b.hi <= turn.lo:
        return Iv(b.hi.gamma().lower(), b.lo.gamma().upper())
    if b.lo >= turn.hi:
        return _increasing(b, lambda v: v.gamma())
    ends = [b.lo.gamma().upper(), b.hi.gamma().upper()]
    return Iv(flint.arb("0.8856031944108887"), _largest(ends))


def _trig(name):
    def apply(b: Iv) -> Iv:
        if _largest([abs(b.lo), abs(b.hi)]) > 10 ** 1000:
            raise NotEnclosable("trigonometric argument beyond 1e1000")
        flint = flint_module()
        v = getattr(b.ball(), name)()
        one = flint.arb(1)
        return Iv(_largest([v.lower(), -one]), _smallest([v.upper(), one]))
    return apply


def _abs(b: Iv) -> Iv:
    flint = flint_module()
    if b.lo >= 0:
        return b
    if b.hi <= 0:
        return -b
    return Iv(flint.arb(0), _largest([-b.lo, b.hi]))


def _step(b: Iv, low: int) -> Iv:
    """Heaviside's step (``low`` 0) or sign (``low`` -1) as the Clarke gradients of Min/Max/Abs need them: the
    whole range [low, 1] where the argument may vanish."""
    flint = flint_module()
    if b > 0:
        return point(flint.arb(1))
    if b < 0:
        return point(flint.arb(low))
    return Iv(flint.arb(low), flint.arb(1))


def _extreme(args, smallest: bool) -> Iv:
    pick = _smallest if smallest else _largest
    return Iv(pick([a.lo for a in args]), pick([a.hi for a in args]))


_UNARY: dict[type, Callable] = {
    sp.exp: _exp, sp.log: _log, sp.gamma: _gamma, sp.Abs: _abs,
    sp.Heaviside: lambda b: _step(b, 0), sp.sign: lambda b: _step(b, -1),
    sp.erf: lambda b: _increasing(b, lambda v: v.erf()), sp.atan: lambda b: _increasing(b, lambda v: v.atan()),
    sp.tanh: lambda b: _increasing(b, lambda v: v.tanh()),
    sp.sin: _trig("sin"), sp.cos: _trig("cos"),
}


class _Poly:
    """A polynomial subexpression: evaluated in its Taylor form at the box's centre, ``sum_a c_a (x - m)^a`` over
    ``x - m`` in ``[-r, r]`` (even powers in ``[0, r^k]``): its coefficients are exact up to Arb's rounding."""

    def __init__(self, poly: sp.Poly):
        self.symbols = poly.gens
        self.terms = [(m, ArbForm(poly.domain.to_sympy(c))) for m, c in poly.terms()]
        self._coefficients: dict = {}

    def enclose(self, box: Mapping) -> Iv:
        flint = flint_module()
        centres = [box[s].mid() for s in self.symbols]
        radii = [box[s].rad() for s in self.symbols]
        prec = flint.ctx.prec
        if prec not in self._coefficients:
            self._coefficients[prec] = {m: c.enclose({}).ball() for m, c in self.terms}
        coeffs = self._coefficients[prec]
        for i, c in enumerate(centres):
            shifted: dict = {}
            for m, a in coeffs.items():
                k = m[i]
                for j in range(k + 1):
                    key = m[:i] + (j,) + m[i + 1:]
                    shifted[key] = shifted.get(key, 0) + a * math.comb(k, j) * c ** (k - j)
            coeffs = shifted
        total = point(flint.arb(0))
        for m, a in coeffs.items():
            term = point(a)
            for j, r in zip(m, radii):
                if j:
                    top = (r ** j).upper()
                    term = term * Iv(flint.arb(0) if j % 2 == 0 else -top, top)
            total = total + term
        return total


def degree_bound(expr: sp.Expr) -> float:
    """An upper bound of ``expr``'s total degree as a polynomial (``inf`` when it is none), read off the tree without
    expanding anything (``(x+1)**10000`` costs nothing here)."""
    if not expr.free_symbols:
        return 0
    if expr.is_Symbol:
        return 1
    if isinstance(expr, sp.Add):
        return max(degree_bound(a) for a in expr.args)
    if isinstance(expr, sp.Mul):
        return sum(degree_bound(a) for a in expr.args)
    if isinstance(expr, sp.Pow) and expr.exp.is_Integer and expr.exp >= 0:
        return degree_bound(expr.base) * int(expr.exp)
    return math.inf


def _as_poly(expr: sp.Expr) -> _Poly | None:
    if not isinstance(expr, sp.Add) or not expr.free_symbols or len(expr.args) > MAX_POLY_TERMS:
        return None
    if not 2 <= degree_bound(expr) <= MAX_POLY_DEGREE:
        return None
    try:
        poly = sp.Poly(expr, *sorted(expr.free_symbols, key=str))
        if len(poly.terms()) > MAX_POLY_TERMS:
            return None
        return _Poly(poly)
    except (sp.PolynomialError, sp.GeneratorsNeeded, NotEnclosable, sp.CoercionFailed):
        return None


class ArbForm:
    """``expr`` compiled for Arb: ``enclose(box)`` (symbol -> :class:`Iv`) contains every value it takes on the box,
    or raises :class:`NotEnclosable`.  ``memo`` (one dict per box) shares subexpressions between forms evaluated on
    the same box (a gap and its derivatives).  Call inside ``flint.ctx.workprec(bits)``."""

    def __init__(self, expr: sp.Expr):
        self.expr = expr
        self._run = self._compile(expr)

    def enclose(self, box: Mapping, memo: dict | None = None) -> Iv:
        return self._run(box, {} if memo is None else memo)

    def _compile(self, e: sp.Expr) -> Callable:
        flint = flint_module()
        if e.is_Symbol:
            return lambda box, memo: box[e] if e in box else _missing(e)
        if e.is_Rational or e.is_Float:
            q = fraction(sp.Rational(e))
            return lambda box, memo: point(flint.arb(q))
        if e is sp.pi:
            return lambda box, memo: point(flint.arb.pi())
        if e is sp.E:
            return lambda box, memo: point(flint.arb.const_e())
        run = self._node(e)

        def cached(box, memo):
            key = (e, flint.ctx.prec)
            value = memo.get(key)
            if value is None:
                value = memo[key] = run(box, memo)
            return value
        return cached

    def _node(self, e: sp.Expr) -> Callable:
        if isinstance(e, sp.Add):
            parts = [self._compile(a) for a in e.args]
            poly = _as_poly(e)

            def add(box, memo):
                total = parts[0](box, memo)
                for p in parts[1:]:
                    total = total + p(box, memo)
                if poly is not None and any(box[s].lo < box[s].hi for s in poly.symbols):
                    shifted = poly.enclose(box)
                    if not total.overlaps(shifted):  # two rigorous enclosures of one set always overlap
                        raise NotEnclosable("Arb enclosures of one polynomial do not overlap")
                    total = total.intersection(shifted)
                return total
            return add
        if isinstance(e, sp.Mul):
            parts = [self._compile(a) for a in e.args]

            def mul(box, memo):
                total = parts[0](box, memo)
                for p in parts[1:]:
                    total = total * p(box, memo)
                return total
            return mul
        if isinstance(e, sp.Pow):
            base, exponent = self._compile(e.base), self._compile(e.exp)
            return lambda box, memo: _pow(base(box, memo), exponent(box, memo), e.exp)
        if isinstance(e, (sp.Min, sp.Max)):
            parts = [self._compile(a) for a in e.args]
            smallest = isinstance(e, sp.Min)
            return lambda box, memo: _extreme([p(box, memo) for p in parts], smallest)
        if isinstance(e, sp.polygamma) and e.args[0] == 0:
            inner = self._compile(e.args[1])
            return lambda box, memo: point(inner(box, memo).ball().digamma())
        for kind, fn in _UNARY.items():
            if isinstance(e, kind) and len(e.args) == 1:
                inner = self._compile(e.args[0])
                return lambda box, memo: fn(inner(box, memo))
        raise NotEnclosable(f"{type(e).__name__} has no Arb enclosure here")


def _missing(s):
    raise NotEnclosable(f"free symbol {s} has no range")


@lru_cache(maxsize=256)
def form(expr: sp.Expr) -> ArbForm:
    """The compiled form of ``expr`` (cached: the decider encloses the same gap many times)."""
    return ArbForm(expr)


def at_point(expr: sp.Expr, values: Mapping[sp.Symbol, sp.Expr], bits: int) -> Iv:
    """The Arb enclosure of ``expr`` at an exact point (rationals, or sympy numbers Arb can enclose) at ``bits`` bits."""
    flint = flint_module()
    with flint.ctx.workprec(bits):
        return form(expr).enclose({s: form(sp.sympify(v)).enclose({}) for s, v in values.items()})


def ends(b: Iv) -> tuple[sp.Rational, sp.Rational]:
    """The interval's ends as exact rationals."""
    return rational(b.lo.mid().fmpq()), rational(b.hi.mid().fmpq())
