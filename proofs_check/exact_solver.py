"""Exact decisions of polynomial and rational relations on a box: z3's nonlinear real arithmetic (nlsat).

For ``rhs - lhs = P/Q`` with rational coefficients, the relation fails somewhere on the box iff ``Q != 0`` and
``P Q < 0`` (``<= 0`` when strict) has a solution with every variable in its range (integers as z3 integers).
``unsat`` proves the relation on the box (where it is defined: the domain is checked separately, before);
``sat`` gives a model, whose coordinates (rationals, or real algebraic numbers turned into sympy's exact roots) are
re-checked by sympy exactly before they are reported.  z3 runs in C under its own timeout (a Python signal cannot
stop it); ``unknown`` (the timeout, or nonlinear integer arithmetic) decides nothing.  z3 is imported lazily:
:func:`z3_module` is ``None`` without it, and the decider says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp

from sabounds.theory.checks import Interval

PIN = "z3-solver>=4.12,<6"
MAX_DEGREE, MAX_TERMS = 40, 400
"""Larger polynomials are left to the other routes (z3's cost grows quickly with degree and terms)."""


def z3_module():
    """The z3 Python bindings, or ``None`` when ``z3-solver`` is not installed."""
    try:
        import z3
    except ImportError:
        return None
    return z3


@dataclass(frozen=True)
class ExactResult:
    """``holds`` True (unsat: proved on the box), False (``witness`` violates it, re-checked exactly) or None."""

    holds: bool | None
    reason: str
    witness: dict | None = None


def rational_parts(gap: sp.Expr, symbols) -> tuple[sp.Poly, sp.Poly] | None:
    """``(P, Q)`` with ``gap = P/Q``, both polynomials with rational coefficients in ``symbols``, or ``None`` when the
    gap is not such a rational function (or too large for z3)."""
    if (
        not gap.free_symbols
        or _size(gap) > MAX_DEGREE
        or not gap.is_rational_function(*symbols)
        or gap.has(sp.pi, sp.E)
    ):
        return None
    try:
        num, den = sp.fraction(sp.together(gap))
        p, q = sp.Poly(num, *symbols), sp.Poly(den, *symbols)
    except (sp.PolynomialError, sp.GeneratorsNeeded, TypeError, ValueError):
        return None
    for poly in (p, q):
        if (
            not (poly.domain.is_QQ or poly.domain.is_ZZ)
            or poly.total_degree() > MAX_DEGREE
            or len(poly.terms()) > MAX_TERMS
        ):
            return None
    return p, q


def _size(expr: sp.Expr) -> float:
    """A bound of the degrees of ``P`` and ``Q`` once ``expr`` is brought over a common denominator, read off the tree
    without expanding (``(x+1)**10000`` is refused at once); ``inf`` for anything but + * and integer powers."""
    if not expr.free_symbols:
        return 0
    if expr.is_Symbol:
        return 1
    if isinstance(expr, (sp.Add, sp.Mul)):
        return sum(_size(a) for a in expr.args)
    if isinstance(expr, sp.Pow) and expr.exp.is_Integer:
        return _size(expr.base) * abs(int(expr.exp))
    return float("inf")


def _to_z3(poly: sp.Poly, variables: list, z3):
    total = z3.RealVal(0)
    for monomial, c in poly.terms():
        c = sp.Rational(c)
        term = z3.Q(int(c.p), int(c.q))
        for v, k in zip(variables, monomial):
            for _ in range(k):
                term = term * v
        total = total + term
    return total


def _value(v, z3) -> sp.Expr | None:
    """A z3 model value as an exact sympy number (a rational, or the real root of its polynomial that z3 names)."""
    if z3.is_rational_value(v) or z3.is_int_value(v):
        return (
            sp.Rational(v.as_fraction().numerator, v.as_fraction().denominator)
            if z3.is_rational_value(v)
            else sp.Integer(v.as_long())
        )
    if z3.is_algebraic_value(v):
        t = sp.Symbol("t")
        poly = sp.Poly(sum(int(c) * t**k for k, c in enumerate(v.poly())), t)
        near = v.approx(40)
        near = sp.Rational(near.as_fraction().numerator, near.as_fraction().denominator)
        roots = sp.real_roots(poly)
        return min(roots, key=lambda r: abs(sp.N(r - near, 60))) if roots else None
    return None


def decide(gap: sp.Expr, strict: bool, domain: Mapping[sp.Symbol, Interval], seconds: float) -> ExactResult | None:
    """``gap >= 0`` (``> 0`` if strict) on the box, decided by z3; ``None`` when the gap is not a rational function of
    the variables with rational coefficients; an ``ExactResult`` with ``holds`` None when z3 is missing or gives up."""
    symbols = sorted(domain, key=str)
    parts = rational_parts(gap, symbols)
    if parts is None:
        return None
    z3 = z3_module()
    if z3 is None:
        return ExactResult(
            None, f"z3 is not installed ({PIN}; the 'certify' extra): no exact decision of this polynomial relation"
        )
    p, q = parts
    variables = [z3.Int(str(s)) if domain[s].integer else z3.Real(str(s)) for s in symbols]
    solver = z3.Solver()
    solver.set("timeout", max(1, int(seconds * 1000)))
    for v, s in zip(variables, symbols):
        lo, hi = sp.Rational(domain[s].lo), sp.Rational(domain[s].hi)
        solver.add(v >= z3.Q(int(lo.p), int(lo.q)), v <= z3.Q(int(hi.p), int(hi.q)))
    num, den = _to_z3(p, variables, z3), _to_z3(q, variables, z3)
    solver.add(den != 0, num * den <= 0 if strict else num * den < 0)
    answer = solver.check()
    if answer == z3.unsat:
        return ExactResult(
            True,
            f"z3 (nonlinear real arithmetic, version {z3.get_version_string()}): no point of the box "
            f"has P*Q {'<=' if strict else '<'} 0 for rhs - lhs = P/Q with P = {p.as_expr()}, Q = "
            f"{q.as_expr()} (unsat)",
        )
    if answer != z3.sat:
        return ExactResult(None, f"z3 gave up ({solver.reason_unknown()}) within {seconds:g} s")
    model = solver.model()
    witness = {}
    for v, s in zip(variables, symbols):
        value = model.eval(v, model_completion=True)
        exact = _value(value, z3)
        if exact is None:
            return ExactResult(None, f"z3's model value {value} of {s} could not be made exact")
        witness[s] = exact
    return ExactResult(False, f"z3 model (nonlinear real arithmetic, version {z3.get_version_string()})", witness)
