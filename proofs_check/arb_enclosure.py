"""Arb enclosures of sympy expressions: the second certified engine beside ``mpmath.iv``.

``ArbForm(expr)`` compiles an expression once and encloses it on a box of :class:`~.arb_interval.Iv` intervals
(exact Arb ends, rigorous rounding at any precision, ``flint.ctx.workprec``), so an enclosure of ``rhs - lhs`` that
excludes 0 certifies the sign.  Polynomial subexpressions of degree >= 2 are evaluated in their Taylor form at the
box's centre as well (exact coefficients, so ``x**2 - 0.62*x + 0.0961`` on a box of width ``w`` around 0.31 costs
``w**2``, not the ``0.62 w`` that naive interval arithmetic pays: the dependency problem), intersected with the naive
enclosure.  python-flint is imported lazily; :func:`flint_module` is ``None`` without it, and :func:`available`
tells the deciders (which then say so in their verdicts).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import lru_cache

import sympy as sp

from sabounds.proofs_check import arb_interval
from sabounds.proofs_check.arb_interval import (
    _UNARY,
    Iv,
    _extreme,
    _pow,
    ball,
    between,
    fraction,
    largest,
    point,
    rational,
)

__all__ = [
    "ArbForm",
    "Iv",
    "at_point",
    "available",
    "ball",
    "between",
    "ends",
    "flint_module",
    "form",
    "fraction",
    "largest",
    "point",
    "rational",
]
from sabounds.proofs_check.interval_enclosure import NotEnclosable

PIN = "python-flint>=0.6,<0.10"
"""The version range the package is tested with (the ``certify`` and ``test`` extras)."""
MAX_POLY_DEGREE, MAX_POLY_TERMS = 12, 80
"""Polynomial subexpressions larger than this are not recentred (the shift costs terms x degree per box)."""


def flint_module():
    """python-flint, or ``None`` when it is not installed (a test replaces this to simulate its absence)."""
    return arb_interval.flint_module()


def available() -> bool:
    return flint_module() is not None


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
                    key = m[:i] + (j,) + m[i + 1 :]
                    shifted[key] = shifted.get(key, 0) + a * math.comb(k, j) * c ** (k - j)
            coeffs = shifted
        total = point(flint.arb(0))
        for m, a in coeffs.items():
            term = point(a)
            for j, r in zip(m, radii):
                if j:
                    top = (r**j).upper()
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
