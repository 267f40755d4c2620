"""A strict relation near its tightest point: refine the searched minimum at mpmath precision, look for an exact
point where the gap is 0 (sympy), and compare the smallest gap with the evaluation's certified error.

A strict relation ``g > 0`` whose infimum 0 is attained is false exactly there, often at an irrational point
(``(x - sqrt(2)/2)**2 > 0``) that no sampled rational hits.  ``refine`` drives a pattern search below float64's
resolution (unit coordinates are mpf, steps down to ``10^-(dps/2)``), ``tight_point`` recognises the refined point
(``sympy.nsimplify``) or solves ``g = 0`` for one coordinate with the others fixed (``sympy.solveset``) and keeps a
point only where sympy shows ``g = 0`` exactly, and ``certified_error`` encloses ``g`` at a point by interval
arithmetic (``mpmath.iv``): a gap whose enclosure reaches 0 cannot be told from 0 at that precision.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import mpmath
import sympy as sp

from sabounds.proofs_check.time_limit import TimeLimit, time_limit
from sabounds.theory.checks import Interval

TIGHT = mpmath.mpf(10) ** -6
"""A strict relation whose smallest scaled gap found is below this is examined at its tightest point."""


def _point(u: Mapping[sp.Symbol, mpmath.mpf], domain: Mapping[sp.Symbol, Interval]) -> dict:
    out = {}
    for s, ui in u.items():
        lo, hi = (mpmath.mpf(sp.Rational(e).p) / sp.Rational(e).q for e in (domain[s].lo, domain[s].hi))
        out[s] = lo * (hi / lo) ** ui if domain[s].log else lo + (hi - lo) * ui
    return out


def _unit(x: mpmath.mpf, iv: Interval) -> mpmath.mpf:
    lo, hi = (mpmath.mpf(sp.Rational(e).p) / sp.Rational(e).q for e in (iv.lo, iv.hi))
    if hi == lo:
        return mpmath.mpf(0)
    return mpmath.log(x / lo) / mpmath.log(hi / lo) if iv.log else (x - lo) / (hi - lo)


def refine(
    objective: Callable[[dict], mpmath.mpf],
    start: Mapping,
    domain: Mapping[sp.Symbol, Interval],
    dps: int,
    max_evaluations: int = 1500,
) -> tuple[mpmath.mpf, dict, int]:
    """Pattern search of ``objective`` from ``start`` in mpf unit coordinates (integer coordinates stay fixed), steps
    halved from 1/100 of the box down to ``10^-(dps/2)``: ``(smallest value, its point, evaluations)``.  Call inside
    ``mpmath.workdps(dps)``."""
    free = [s for s in domain if not domain[s].integer and domain[s].lo != domain[s].hi]
    fixed = {
        s: mpmath.mpf(start[s])
        if not isinstance(start[s], sp.Basic)
        else mpmath.mpf(sp.Rational(start[s]).p) / sp.Rational(start[s]).q
        for s in domain
    }
    u = {s: _unit(fixed[s], domain[s]) for s in free}
    best_point = {**fixed, **_point(u, domain)}
    best, evaluations = objective(best_point), 1
    step, floor = mpmath.mpf(1) / 100, mpmath.mpf(10) ** (-(dps // 2))
    while step > floor and evaluations < max_evaluations:
        improved = False
        for s in free:
            for sign in (1, -1):
                cand = dict(u)
                cand[s] = min(max(cand[s] + sign * step, mpmath.mpf(0)), mpmath.mpf(1))
                point = {**fixed, **_point(cand, domain)}
                try:
                    v = objective(point)
                except (ValueError, ZeroDivisionError, OverflowError, TypeError, ArithmeticError):
                    v = None
                evaluations += 1
                if v is not None and mpmath.isfinite(v) and v < best:
                    best, best_point, u, improved = v, point, cand, True
        if not improved:
            step /= 2
    return best, best_point, evaluations


def _is_zero(value: sp.Expr) -> bool:
    """True only when sympy shows ``value == 0`` (``simplify``, then ``equals``, which settles algebraic numbers)."""
    if value.has(sp.Float):
        return False  # a Float is rounded arithmetic: x*y*z - cos(x) can round to 0.0 where it is not 0
    if value == 0 or sp.simplify(value) == 0:
        return True
    return value.equals(0) is True


def _inside(v: sp.Expr, iv: Interval) -> bool:
    return bool(v.is_real) and bool(sp.Ge(v, iv.lo)) and bool(sp.Le(v, iv.hi))


def tight_point(
    g: sp.Expr, point: Mapping[sp.Symbol, mpmath.mpf], domain: Mapping[sp.Symbol, Interval], dps: int, seconds: float
) -> dict | None:
    """An exact point of the box (symbol -> sympy number) near ``point`` where sympy shows ``g == 0``, or ``None``.

    Tried in order: every coordinate recognised by ``nsimplify`` (``0.70710678...`` -> ``sqrt(2)/2``); then for each
    coordinate ``solveset(g = 0)`` on its range with the others at their recognised (else rational) values."""
    shown = max(15, dps // 2)
    guesses = {}
    for s, v in point.items():
        text = mpmath.nstr(v, shown)
        guess = sp.nsimplify(text, [sp.pi, sp.E], tolerance=10.0 ** (-(shown - 3)), rational=False)
        exact = not guess.has(sp.Float)  # nsimplify returns a Float where it recognises nothing
        guesses[s] = (
            guess if exact and _inside(guess, domain[s]) else min(max(sp.Rational(text), domain[s].lo), domain[s].hi)
        )
    try:
        with time_limit(seconds):
            if _is_zero(g.xreplace(guesses)):
                return guesses
            for s in domain:
                if domain[s].integer:
                    continue
                others = {t: v for t, v in guesses.items() if t != s}
                roots = sp.solveset(g.xreplace(others), s, sp.Interval(domain[s].lo, domain[s].hi))
                if not isinstance(roots, sp.FiniteSet):
                    continue
                for root in sorted(roots, key=lambda r: abs(complex(sp.N(r - guesses[s], 30)))):
                    candidate = {**others, s: root}
                    if _inside(root, domain[s]) and _is_zero(g.xreplace(candidate)):
                        return candidate
    except (TimeLimit, NotImplementedError, TypeError, ValueError, ArithmeticError, RecursionError):
        return None
    return None


def enclosure_near(
    g: sp.Expr, point: Mapping[sp.Symbol, mpmath.mpf], domain: Mapping[sp.Symbol, Interval], dps: int
) -> tuple[mpmath.mpf, mpmath.mpf] | None:
    """The interval enclosure ``(lo, hi)`` of ``g`` (mpmath.iv, ``dps`` digits) on the box of half-width
    ``10^-(dps/2)`` of each range around ``point`` (the refinement's resolution), clipped to the domain; ``None``
    when ``g`` has no interval extension.  A lower end <= 0 means the smallest gap cannot be told from 0: a zero of
    ``g`` may lie within the resolution (``(x - cos x)^2`` at the Dottie number), or rounding hides the sign."""
    from sabounds.proofs_check.interval_enclosure import NotEnclosable, enclose, iv, iv_digits

    radius = mpmath.mpf(10) ** (-(dps // 2))
    box = {}
    with mpmath.workdps(dps):
        for s, v in point.items():
            d = domain[s]
            lo, hi = (mpmath.mpf(sp.Rational(e).p) / sp.Rational(e).q for e in (d.lo, d.hi))
            if d.integer:
                box[s] = iv.mpf([v, v])
                continue
            if d.log:
                a, b = v * (hi / lo) ** -radius, v * (hi / lo) ** radius
            else:
                a, b = v - radius * (hi - lo), v + radius * (hi - lo)
            box[s] = iv.mpf([max(a, lo), min(b, hi)])
    try:
        with iv_digits(dps):
            e = enclose(g, box)
        return mpmath.mpf(e.a), mpmath.mpf(e.b)
    except (NotEnclosable, ZeroDivisionError, ValueError, OverflowError, TypeError, ArithmeticError):
        return None


def arb_enclosure_near(
    g: sp.Expr, point: Mapping[sp.Symbol, mpmath.mpf], domain: Mapping[sp.Symbol, Interval], dps: int
):
    """The Arb enclosure (naive and mean-value forms) of ``g`` on the same box as :func:`enclosure_near`, or ``None``."""
    from sabounds.proofs_check import arb_enclosure as A
    from sabounds.proofs_check.arb_branch_bound import _Enclosures
    from sabounds.proofs_check.interval_enclosure import NotEnclosable

    radius = sp.Rational(1, 10 ** (dps // 2))
    box = {}
    for s, v in point.items():
        d = domain[s]
        lo, hi = sp.Rational(d.lo), sp.Rational(d.hi)
        c = min(max(sp.Rational(mpmath.nstr(v, dps)), lo), hi)
        half = 0 if d.integer else radius * (c if d.log else hi - lo)
        box[s] = (A.fraction(max(c - half, lo)), A.fraction(min(c + half, hi)))
    flint = A.flint_module()
    try:
        with flint.ctx.workprec(int(3.33 * dps) + 64):
            return _Enclosures(g, list(box)).box(box)
    except (NotEnclosable, ZeroDivisionError, ValueError, ArithmeticError):
        return None


def certified_minimum(
    g: sp.Expr,
    point: Mapping[sp.Symbol, sp.Expr],
    box: Mapping[sp.Symbol, tuple],
    domain: Mapping[sp.Symbol, Interval],
    bits: int = 256,
) -> bool:
    """Is ``g >= 0`` on ``box`` certified, given sympy's exact zero ``g(point) = 0`` inside it?  Each coordinate where
    the point sits on the domain's edge must have Arb's enclosure of ``dg/dx`` on the box pointing into the domain
    (so ``g`` only grows inward); every other coordinate must have ``dg/dx = 0`` at the point exactly (sympy) and the
    Arb enclosure of the Hessian in those coordinates on the box must be positive definite (every leading minor,
    expanded in ball arithmetic, above 0).  Then ``g`` is monotone toward the point in the first and convex with a
    critical point in the others, so its minimum on the box is ``g(point) = 0``."""
    from sabounds.proofs_check import arb_enclosure as A
    from sabounds.proofs_check.interval_enclosure import NotEnclosable

    flint = A.flint_module()
    symbols = list(box)
    try:
        with time_limit(1.0), flint.ctx.workprec(bits):
            balls = {s: A.ball(lo, hi) for s, (lo, hi) in box.items()}
            interior = []
            for s in symbols:
                slope = sp.diff(g, s)
                at_lo, at_hi = point[s] == sp.Rational(domain[s].lo), point[s] == sp.Rational(domain[s].hi)
                enclosure = A.form(slope).enclose(balls) if at_lo or at_hi else None
                if (at_lo and enclosure >= 0) or (at_hi and enclosure <= 0):
                    continue
                if not _is_zero(slope.xreplace(dict(point))):
                    return False
                interior.append(s)
            hessian = [[A.form(sp.diff(g, a, b)).enclose(balls).ball() for b in interior] for a in interior]
            return all(_determinant([row[:k] for row in hessian[:k]]) > 0 for k in range(1, len(interior) + 1))
    except (TimeLimit, NotEnclosable, ZeroDivisionError, ValueError, TypeError, ArithmeticError, RecursionError):
        return False


def _determinant(m: list):
    """The determinant of a small matrix of Arb balls by Laplace expansion (a ball containing every determinant of
    the matrices the balls contain)."""
    if len(m) == 1:
        return m[0][0]
    total = 0
    for j, a in enumerate(m[0]):
        minor = [row[:j] + row[j + 1 :] for row in m[1:]]
        total = total + (-1) ** j * a * _determinant(minor)
    return total
