"""Spectral regimes and Lipschitz (alpha) models as data, and the pieces of [0, 2] on which a regime's ``S_p``
bound keeps one form.

A *regime* bounds every matrix's Schatten quantity ``S_p`` and (2,1)-norm (all ``||W||_2 <= s``); an *alpha model*
bounds the downstream products ``alpha^(l)`` (``sabounds.theory.regimes`` builds the tables from both).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

from sabounds.theory.thm31 import L

s, b_F, r_rank, tau, C = sp.symbols("s b r tau C", positive=True)


alpha_l = sp.Symbol("alpha_l", positive=True)


PIECE_POINTS = (sp.Integer(0), sp.Integer(2))


@dataclass(frozen=True)
class Regime:
    """Bounds on ``S_p`` (``schatten(p, D, branch)``, ``branch`` a number in the piece of p) and on ``||W||_{2,1}``.

    ``breakpoints`` are the p in (0, 2) where the S_p bound changes form.
    """

    name: str
    assumptions: str
    schatten: Callable[[sp.Expr, sp.Expr, sp.Expr], sp.Expr]
    two_one: Callable[[sp.Expr, sp.Expr], sp.Expr]
    breakpoints: tuple[sp.Expr, ...] = ()


def _power_sum_bound(x: sp.Expr, D: sp.Expr, branch: sp.Expr) -> sp.Expr:
    """``sum_{i <= D} i^{-x} <= D^{1-x}/(1-x)`` (x < 1), ``1 + ln D`` (x = 1), ``x/(x-1)`` (x > 1): integral comparison."""
    if branch < 1:
        return D ** (1 - x) / (1 - x)
    if branch == 1:
        return 1 + sp.log(D)
    return x / (x - 1)


def frobenius() -> Regime:
    return Regime(
        "frobenius",
        "||W||_2 <= s, ||W||_F <= b; S_p <= D^{1-p/2} b^p (Hoelder), ||W||_{2,1} <= sqrt(d_out) b",
        lambda p_, D, _: D ** (1 - p_ / 2) * b_F**p_,
        lambda d_out, D: sp.sqrt(d_out) * b_F,
    )


def rank() -> Regime:
    return Regime(
        "rank",
        "||W||_2 <= s, rank(W) <= r; S_p <= r s^p, ||W||_{2,1} <= sqrt(d_out r) s",
        lambda p_, D, _: r_rank * s**p_,
        lambda d_out, D: sp.sqrt(d_out * r_rank) * s,
    )


def spectral() -> Regime:
    return Regime(
        "spectral",
        "||W||_2 <= s only; S_p <= D s^p, ||W||_{2,1} <= sqrt(d_out D) s",
        lambda p_, D, _: D * s**p_,
        lambda d_out, D: sp.sqrt(d_out * D) * s,
    )


def power_law(b: sp.Expr = sp.Integer(1)) -> Regime:
    """``sigma_i = s i^{-beta}`` with the given ``beta`` (a number): S_p changes form at ``p = 1/beta``."""
    b = sp.nsimplify(b)
    frob_sq = s**2 * _power_sum_bound(2 * b, sp.Symbol("D"), 2 * b)
    breaks = (1 / b,) if 0 < 1 / b < 2 else ()
    return Regime(
        "power_law",
        f"sigma_i = s i^(-beta), beta = {b}; S_p = s^p sum_i i^(-beta p) bounded by the integral comparison, "
        "||W||_{2,1} <= sqrt(d_out) ||W||_F",
        lambda p_, D, branch: s**p_ * _power_sum_bound(b * p_, D, b * branch),
        lambda d_out, D: sp.sqrt(d_out * frob_sq.subs(sp.Symbol("D"), D)),
        breaks,
    )


def low_rank_tail() -> Regime:
    return Regime(
        "low_rank_tail",
        "||W||_2 <= s, rank-r head plus a tail with ||W_{>r}||_F^2 <= tau; "
        "S_p <= r s^p + D^{1-p/2} tau^{p/2}, ||W||_{2,1} <= sqrt(d_out (r s^2 + tau))",
        lambda p_, D, _: r_rank * s**p_ + D ** (1 - p_ / 2) * tau ** (p_ / 2),
        lambda d_out, D: sp.sqrt(d_out * (r_rank * s**2 + tau)),
    )


REGIMES: dict[str, Callable[[], Regime]] = {
    "frobenius": frobenius,
    "rank": rank,
    "spectral": spectral,
    "power_law": power_law,
    "low_rank_tail": low_rank_tail,
}


@dataclass(frozen=True)
class AlphaModel:
    """``layer_sum(e) >= sum_{l=1}^L alpha^(l)^e`` for an exponent ``e >= 0``; ``largest >= max_l alpha^(l)``."""

    name: str
    assumptions: str
    layer_sum: Callable[[sp.Expr], sp.Expr]
    largest: sp.Expr


def geometric_sum(ratio: sp.Expr, layers: sp.Expr) -> sp.Expr:
    """``sum_{l=1}^L ratio^{L-l} = (ratio^L - 1)/(ratio - 1)``, and ``L`` when ``ratio = 1``."""
    return layers if sp.simplify(ratio - 1) == 0 else (ratio**layers - 1) / (ratio - 1)


ALPHAS = {
    "bounded": AlphaModel("bounded", "every product alpha^(l) <= 1", lambda e: L, sp.Integer(1)),
    "exponential": AlphaModel(
        "exponential", "alpha^(l) = C^(L-l), C > 1", lambda e: geometric_sum(C**e, L), C ** (L - 1)
    ),
}


@dataclass(frozen=True)
class Piece:
    """p fixed at a point (``lo == hi``) or ranging over the open interval ``(lo, hi)``."""

    lo: sp.Expr
    hi: sp.Expr

    @property
    def is_point(self) -> bool:
        return self.lo == self.hi

    @property
    def label(self) -> str:
        return f"p={self.lo}" if self.is_point else f"{self.lo}<p<{self.hi}"

    @property
    def branch(self) -> sp.Expr:
        return self.lo if self.is_point else (self.lo + self.hi) / 2


def branch_of(regime: Regime, p_: sp.Expr) -> sp.Expr:
    """The branch value of the piece holding ``p_`` (``p_`` itself at a piece's end point)."""
    return next(pc.branch for pc in pieces(regime) if (pc.is_point and pc.lo == p_) or (pc.lo < p_ < pc.hi))


def pieces(regime: Regime) -> tuple[Piece, ...]:
    cuts = sorted({*PIECE_POINTS, *regime.breakpoints}, key=float)
    out = [Piece(cuts[0], cuts[0])]
    for lo, hi in zip(cuts, cuts[1:]):
        out += [Piece(lo, hi), Piece(hi, hi)]
    return tuple(out)
