"""Growth exponents of a bound in L, N and T (``sabounds.theory.asymptotics``): at a fixed p, and the infimum over
p in [0, 2] with the p that attains it (or the one-sided limit that approaches it).

``BoundResult`` is one row of a regime table: a bound's closed form with its three exponents.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from sabounds.theory.asymptotics import Domain, Growth, compare, growth, minimise_over_p
from sabounds.theory.regime_models import C, Piece
from sabounds.theory.thm41 import p

_c = sp.Symbol("c_C", positive=True)
"""``C = 1 + c_C`` while computing growth: the exponential model needs ``C > 1``."""


@dataclass(frozen=True)
class Exponent:
    """The growth in one variable: ``best`` (infimum over p where p is free) and where: ``argmin``; ``attained`` is
    False when no fixed p reaches the infimum (a one-sided limit p -> end of an open range); ``by_piece``."""

    best: Growth
    argmin: str | None = None
    by_piece: tuple[tuple[str, Growth], ...] = ()
    worst: Growth | None = None
    attained: bool = True


@dataclass(frozen=True)
class BoundResult:
    name: str
    expr: sp.Expr
    depth: Exponent
    width: Exponent
    token: Exponent
    note: str = ""


def for_growth(expr: sp.Expr) -> sp.Expr:
    return expr.subs(C, 1 + _c)


def exponent_fixed(expr: sp.Expr, v: sp.Symbol) -> Exponent:
    return Exponent(growth(for_growth(expr), v).simplified())


_t_in = sp.Symbol("t_piece", positive=True)


def _interior_growth(e: sp.Expr, v: sp.Symbol, piece: Piece, sharp: bool = False):
    """Growth for p in the open piece; for the sharp route, whose exponents (``1/2 - p/4``) sympy's limits cannot
    sign on their own, substitute ``p = lo + (hi - lo) t/(1 + t)`` (t > 0 ranges over exactly the piece), then map t back to p."""
    if not sharp:
        return growth(e, v, Domain(p, piece.lo, piece.hi)).simplified()
    try:
        return growth(e, v, Domain(p, piece.lo, piece.hi)).simplified()
    except (NotImplementedError, ArithmeticError):
        pass
    g = growth(e.subs(p, piece.lo + (piece.hi - piece.lo) * _t_in / (1 + _t_in)), v)
    back = (p - piece.lo) / (piece.hi - p)
    return Growth(*(sp.factor(sp.cancel(part.subs(_t_in, back))) for part in g.parts)).simplified()


def exponent_over_p(exprs: dict[Piece, sp.Expr], v: sp.Symbol, sharp: bool = False) -> Exponent:
    """Growth at each piece; its infimum (and supremum) over p, with the p attaining it.

    An infimum approached only as a one-sided limit p -> end of an open piece is reported as that limit and
    labelled "infimum, not attained" (no interior point is reported as if it were the best).
    """
    rows, best, arg, attained, worst, best_flat = [], None, None, True, None, True
    for piece, expr in exprs.items():
        e = for_growth(expr)
        if piece.is_point:
            g = growth(e, v).simplified()
            lo_g, lo_arg, hi_g, flat = g, piece.lo, g, True
        else:
            g = _interior_growth(e, v, piece, sharp)
            lo_g, lo_arg = minimise_over_p(g, p, piece.lo, piece.hi)
            hi_neg, _ = minimise_over_p(g.scale(-1), p, piece.lo, piece.hi)
            hi_g = hi_neg.scale(-1)
            flat = p not in sp.sympify(g.rate).free_symbols | sp.sympify(g.power).free_symbols
        rows.append((piece.label, g))
        is_attained = piece.is_point or lo_arg is None or lo_arg not in (piece.lo, piece.hi)
        if best is None or _leading(lo_g, best, is_attained, attained, flat, best_flat) == -1:
            best, attained, best_flat = lo_g, is_attained, flat
            arg = (
                f"p = {lo_arg}"
                if is_attained and lo_arg is not None
                else (
                    f"p -> {lo_arg} (infimum, not attained"
                    + ("" if flat else "; the power is approached from above")
                    + ")"
                )
                if lo_arg is not None
                else f"any p in ({piece.lo}, {piece.hi})"
            )
        if worst is None or compare(hi_g, worst, Domain()) == 1:
            worst = hi_g
    return Exponent(best.simplified(), arg, tuple(rows), worst.simplified(), attained)


def _leading(
    candidate: Growth,
    best: Growth,
    candidate_attained: bool,
    best_attained: bool,
    candidate_flat: bool = True,
    best_flat: bool = True,
) -> int | None:
    """Lexicographic comparison of a candidate infimum with the current best; ties go to an attained value.

    A one-sided limit whose power varies over its piece (not ``flat``) is approached from above in power: its log
    power is not the growth of any fixed p, so on a tie in (rate, power) it loses to any other value.
    """
    c = compare(Growth(candidate.rate, candidate.power), Growth(best.rate, best.power), Domain())
    if c != 0:
        return c
    real_c, real_b = candidate_attained or candidate_flat, best_attained or best_flat
    if real_c != real_b:
        return -1 if real_c else 1
    if not real_c:
        return 1
    full = compare(candidate, best, Domain())
    if full != 0:
        return full
    return -1 if candidate_attained and not best_attained else 1


def best_of_many(candidates: list[tuple[str, Exponent]]) -> Exponent:
    """The smallest infimum among ``candidates`` (name, exponent), earlier names on ties; ``worst`` is the smallest
    supremum (an upper bound on the supremum over p of the minimum)."""
    pick, name = candidates[0][1], candidates[0][0]
    for cand_name, cand in candidates[1:]:
        c = compare(cand.best, pick.best, Domain())
        if c is not None and (c < 0 or (c == 0 and cand.attained and not pick.attained)):
            pick, name = cand, cand_name
    worst = candidates[0][1].worst
    for _, cand in candidates[1:]:
        if compare(cand.worst, worst, Domain()) == -1:
            worst = cand.worst
    return Exponent(pick.best, f"{pick.argmin} ({name})", (), worst, pick.attained)
