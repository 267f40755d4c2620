"""Closed-form regime tables: each bound under each spectral regime and Lipschitz model, with its exponents.

A *regime* bounds every matrix's Schatten quantity ``S_p`` and (2,1)-norm (all ``||W||_2 <= s``); an
*alpha model* bounds the downstream products ``alpha^(l)``.  The bounds are built from the derivations
(``sabounds.theory.thm31``, ``sabounds.theory.edelman``) over an architecture (``sabounds.theory.architecture``):

- ``edelman``: the theory form of Edelman et al. (2022);
- ``ours_sum`` / ``ours_rss``: Theorem 3.1 with sum / rss aggregation at one p for all slots;
- ``ours_best_p``: the infimum over p in [0, 2] of ``min(ours_sum, ours_rss)``.

Exponents in L, N and the T dependence are growth orders (``sabounds.theory.asymptotics``: sympy limits of
log-ratios); for the p-dependent bounds each fixed p gives an exponent and the table reports its
infimum over p, with the p that attains it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import sympy as sp

from sabounds.theory import edelman as edelman_theory
from sabounds.theory import symbols
from sabounds.theory.architecture import SPECTRAL, Architecture, single_head
from sabounds.theory.asymptotics import Domain, Growth, compare, growth, minimise_over_p
from sabounds.theory.joint import Joint, joint
from sabounds.theory.thm31 import (L, Delta, dudley_constant, dudley_constant_sharp, dudley_cut_value, post_hoc, slot_log_cover,
                                   slot_log_cover_sharp)
from sabounds.theory.thm41 import N, T, p

s, b_F, r_rank, tau, C = sp.symbols("s b r tau C", positive=True)
alpha_l = sp.Symbol("alpha_l", positive=True)
_c = sp.Symbol("c_C", positive=True)
"""``C = 1 + c_C`` while computing growth: the exponential model needs ``C > 1``."""

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
    return Regime("frobenius", "||W||_2 <= s, ||W||_F <= b; S_p <= D^{1-p/2} b^p (Hoelder), ||W||_{2,1} <= sqrt(d_out) b",
                  lambda p_, D, _: D ** (1 - p_ / 2) * b_F**p_, lambda d_out, D: sp.sqrt(d_out) * b_F)


def rank() -> Regime:
    return Regime("rank", "||W||_2 <= s, rank(W) <= r; S_p <= r s^p, ||W||_{2,1} <= sqrt(d_out r) s",
                  lambda p_, D, _: r_rank * s**p_, lambda d_out, D: sp.sqrt(d_out * r_rank) * s)


def spectral() -> Regime:
    return Regime("spectral", "||W||_2 <= s only; S_p <= D s^p, ||W||_{2,1} <= sqrt(d_out D) s",
                  lambda p_, D, _: D * s**p_, lambda d_out, D: sp.sqrt(d_out * D) * s)


def power_law(b: sp.Expr = sp.Integer(1)) -> Regime:
    """``sigma_i = s i^{-beta}`` with the given ``beta`` (a number): S_p changes form at ``p = 1/beta``."""
    b = sp.nsimplify(b)
    frob_sq = s**2 * _power_sum_bound(2 * b, sp.Symbol("D"), 2 * b)
    breaks = (1 / b,) if 0 < 1 / b < 2 else ()
    return Regime("power_law", f"sigma_i = s i^(-beta), beta = {b}; S_p = s^p sum_i i^(-beta p) bounded by the integral comparison, "
                  "||W||_{2,1} <= sqrt(d_out) ||W||_F",
                  lambda p_, D, branch: s**p_ * _power_sum_bound(b * p_, D, b * branch),
                  lambda d_out, D: sp.sqrt(d_out * frob_sq.subs(sp.Symbol("D"), D)), breaks)


def low_rank_tail() -> Regime:
    return Regime("low_rank_tail", "||W||_2 <= s, rank-r head plus a tail with ||W_{>r}||_F^2 <= tau; "
                  "S_p <= r s^p + D^{1-p/2} tau^{p/2}, ||W||_{2,1} <= sqrt(d_out (r s^2 + tau))",
                  lambda p_, D, _: r_rank * s**p_ + D ** (1 - p_ / 2) * tau ** (p_ / 2),
                  lambda d_out, D: sp.sqrt(d_out * (r_rank * s**2 + tau)))


REGIMES: dict[str, Callable[[], Regime]] = {
    "frobenius": frobenius, "rank": rank, "spectral": spectral, "power_law": power_law, "low_rank_tail": low_rank_tail,
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
    "exponential": AlphaModel("exponential", "alpha^(l) = C^(L-l), C > 1", lambda e: geometric_sum(C**e, L), C ** (L - 1)),
}


def _layer_total(term: sp.Expr, alpha: AlphaModel) -> sp.Expr:
    """``sum_l term(alpha^(l)) <= term(1) * layer_sum(degree)`` for a ``term`` homogeneous in ``alpha_l`` outside logs.

    A logarithm containing ``alpha_l`` (the allocated log factor ``log(c s B K rho_k / Delta)``) is increasing
    in it and is bounded by its value at ``alpha.largest``: with ``alpha^(l) = C^(L-l)`` this keeps the order
    (``sum_l (L-l)^h ~ L^{1+h}/(1+h)``, and for a positive power of alpha the sum is led by ``l = 1``).
    """
    term = term.replace(lambda e: isinstance(e, sp.log) and e.has(alpha_l), lambda e: e.subs(alpha_l, alpha.largest))
    degrees = []
    for t in sp.Add.make_args(term):
        powers = sp.expand_power_base(t, force=True).as_powers_dict()
        if any(alpha_l in base.free_symbols for base in powers if base != alpha_l):
            raise ValueError(f"alpha_l enters other than as a power in {t}")
        degrees.append(powers.get(alpha_l, sp.Integer(0)))
    degree = degrees[0]
    if alpha_l in degree.free_symbols or any(sp.cancel(d - degree) != 0 for d in degrees[1:]):
        raise ValueError(f"term is not homogeneous in alpha_l: {term}")
    return term.subs(alpha_l, 1) * alpha.layer_sum(degree)


def _kinds(arch: Architecture):
    bound = arch.bind()
    flat = {sym: s for sym in SPECTRAL}
    return [(k.count.subs(flat), k.d_in, k.d_out, k.gamma.subs(flat), k.gamma_edelman.subs(flat)) for k in bound.kinds]


def _slots(arch: Architecture) -> sp.Expr:
    return L * sp.Add(*(count for count, *_ in _kinds(arch)))


def _post_hoc(arch: Architecture) -> sp.Expr:
    j_max = 2 + sp.log(1 + N * (1 + s) ** 2) / sp.log(2)
    return post_hoc(_slots(arch), L + sp.log(N) + 1, j_max)


ROUTES = ("crude", "sharp")
"""Theorem 4.1's two tails: crude ``(D - r) sigma_{r+1}^2`` (cover ``A eps^{-q}``, ``q = 2p/(p+2)``) and sharp
``sigma_{r+1}^{2-p} S_p`` (cover ``A' eps^{-p}``, Dudley constant ``1/(1 - p/2)``; Maurey with a cut Dudley integral at
p = 2).  Saturation (``r = D``, the parametric count ``a D``) is the crude route's p = 0 cover with ``S_0 <= D``
replaced by ``D``, never smaller, so it adds no column."""


def ours(arch: Architecture, regime: Regime, alpha: AlphaModel, p_: sp.Expr, branch: sp.Expr, aggregation: str,
         route: str = "crude") -> sp.Expr:
    """Theorem 3.1 at one p for every slot, in this regime: Dudley term (sum or rss aggregation) plus post hoc term.

    ``route`` picks Theorem 4.1's tail for every slot (``ROUTES``); the sharp route at p = 0 is the crude one."""
    if route not in ROUTES:
        raise ValueError(f"route must be one of {ROUTES}, got {route!r}")
    if route == "sharp" and p_ == 0:
        route = "crude"
    K = _slots(arch)

    def cover(d_in, d_out, gamma):
        schatten = regime.schatten(p_, sp.Min(d_in, d_out), branch)
        if route == "crude":
            return slot_log_cover(d_in, d_out, schatten, K, gamma * alpha_l).subs(p, p_)
        return slot_log_cover_sharp(d_in, d_out, schatten, K, gamma * alpha_l, p_)

    covers = [(count, cover(d_in, d_out, gamma)) for count, d_in, d_out, gamma, _ in _kinds(arch)]
    if aggregation == "sum":
        root = _layer_total(sp.Add(*(count * sp.sqrt(A) for count, A in covers)), alpha)
    elif aggregation == "rss":
        root = sp.sqrt(_layer_total(sp.Add(*(count * A for count, A in covers)), alpha))
    else:
        raise ValueError(f"aggregation must be 'sum' or 'rss', got {aggregation!r}")
    if route == "crude":
        return dudley_constant.subs(p, p_) * root + _post_hoc(arch)
    if p_ == 2:
        return dudley_cut_value(root) + _post_hoc(arch)
    return dudley_constant_sharp.subs(p, p_) * root + _post_hoc(arch)


def edelman(arch: Architecture, regime: Regime, alpha: AlphaModel) -> sp.Expr:
    """The Edelman et al. (2022) theory form in this regime."""
    terms = sp.Add(*(count * edelman_theory.slot_term(gamma_e * alpha_l, regime.two_one(d_out, sp.Min(d_in, d_out)))
                     for count, d_in, d_out, _, gamma_e in _kinds(arch)))
    return edelman_theory.theory_form.subs({edelman_theory.W_E: edelman_theory.capacity(_layer_total(terms, alpha)), edelman_theory.ell_E: edelman_theory.edelman_log, edelman_theory.Delta: Delta})


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


def _branch(regime: Regime, p_: sp.Expr) -> sp.Expr:
    """The branch value of the piece holding ``p_`` (``p_`` itself at a piece's end point)."""
    return next(pc.branch for pc in pieces(regime) if (pc.is_point and pc.lo == p_) or (pc.lo < p_ < pc.hi))


def pieces(regime: Regime) -> tuple[Piece, ...]:
    cuts = sorted({*PIECE_POINTS, *regime.breakpoints}, key=float)
    out = [Piece(cuts[0], cuts[0])]
    for lo, hi in zip(cuts, cuts[1:]):
        out += [Piece(lo, hi), Piece(hi, hi)]
    return tuple(out)


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


@dataclass(frozen=True)
class RegimeResult:
    regime: Regime
    alpha: AlphaModel
    architecture: str
    bounds: dict[str, BoundResult] = field(default_factory=dict)
    joint: Joint | None = None
    """Ours (each form, one p at a time) against Edelman jointly in depth and width (``sabounds.theory.joint``)."""
    joints: dict[str, Joint] = field(default_factory=dict)
    """The same joint comparison against every other baseline of the catalog (``sabounds.theory.catalog``), by id."""

    def single_p(self, name: str = "ours_best_p") -> bool:
        """Whether one listed p (one form) attains both the depth and the width infimum of bound ``name``."""
        b = self.bounds[name]
        return any(compare(x.depth, b.depth.best, Domain()) == 0 and compare(x.width, b.width.best, Domain()) == 0
                   for x in (self.joint.pairs if self.joint else ()))


def _for_growth(expr: sp.Expr) -> sp.Expr:
    return expr.subs(C, 1 + _c)


def _exponent_fixed(expr: sp.Expr, v: sp.Symbol) -> Exponent:
    return Exponent(growth(_for_growth(expr), v).simplified())


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


def _exponent_over_p(exprs: dict[Piece, sp.Expr], v: sp.Symbol, sharp: bool = False) -> Exponent:
    """Growth at each piece; its infimum (and supremum) over p, with the p attaining it.

    An infimum approached only as a one-sided limit p -> end of an open piece is reported as that limit and
    labelled "infimum, not attained" (no interior point is reported as if it were the best).
    """
    rows, best, arg, attained, worst, best_flat = [], None, None, True, None, True
    for piece, expr in exprs.items():
        e = _for_growth(expr)
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
            arg = (f"p = {lo_arg}" if is_attained and lo_arg is not None else
                   (f"p -> {lo_arg} (infimum, not attained" + ("" if flat else "; the power is approached from above")
                    + ")") if lo_arg is not None else f"any p in ({piece.lo}, {piece.hi})")
        if worst is None or compare(hi_g, worst, Domain()) == 1:
            worst = hi_g
    return Exponent(best.simplified(), arg, tuple(rows), worst.simplified(), attained)


def _leading(candidate: Growth, best: Growth, candidate_attained: bool, best_attained: bool, candidate_flat: bool = True,
             best_flat: bool = True) -> int | None:
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


def _ours_bound(arch, regime, alpha, aggregation, route="crude") -> BoundResult:
    exprs = {piece: ours(arch, regime, alpha, piece.lo if piece.is_point else p, piece.branch, aggregation, route)
             for piece in pieces(regime)}
    interior = [(pc, e) for pc, e in exprs.items() if not pc.is_point]
    points = [(e, sp.Eq(p, pc.lo)) for pc, e in exprs.items() if pc.is_point]
    expr = interior[0][1] if len(interior) == 1 else sp.Piecewise(
        *points, *[(e, p < pc.hi) for pc, e in interior[:-1]], (interior[-1][1], True))
    name = f"ours_{aggregation}" if route == "crude" else f"ours_{aggregation}_{route}"
    sharp = route == "sharp"
    return BoundResult(name, expr, _exponent_over_p(exprs, L, sharp), _exponent_over_p(exprs, N, sharp),
                       _exponent_over_p(exprs, T, sharp), note=f"{aggregation} aggregation, one p for every slot, {route} tail of Theorem 4.1")


def _best_of_many(candidates: list[tuple[str, Exponent]]) -> Exponent:
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


def _best_of(a: Exponent, b: Exponent, names: tuple[str, str]) -> Exponent:
    """The better of two aggregations' infima, rss (``b``) on ties since rss <= sum at every p."""
    return _best_of_many([(names[1], b), (names[0], a)])


def regime_result(regime: Regime, alpha: AlphaModel, arch: Architecture | None = None) -> RegimeResult:
    """Every bound of one regime and alpha model, with its exponents in L and N and its T dependence.

    ``ours_best_p`` (the headline) is the best over both tails of Theorem 4.1 and both aggregations;
    ``ours_best_p_crude`` keeps the crude tail only, so a reader sees what the sharp tail changes."""
    arch = arch or single_head()
    ed = edelman(arch, regime, alpha)
    out = {"edelman": BoundResult("edelman", ed, _exponent_fixed(ed, L), _exponent_fixed(ed, N), _exponent_fixed(ed, T),
                                  note="theory form, Dudley cut at Delta/n")}
    for route in ROUTES:
        for agg in ("sum", "rss"):
            b = _ours_bound(arch, regime, alpha, agg, route)
            out[b.name] = b
    order = [("rss", "ours_rss"), ("sum", "ours_sum"), ("rss, sharp tail", "ours_rss_sharp"), ("sum, sharp tail", "ours_sum_sharp")]

    def best(keys, name, note):
        chosen = [(label, out[k]) for label, k in order if k in keys]
        return BoundResult(name, sp.Min(*(b.expr for _, b in chosen)),
                           *(_best_of_many([(label, getattr(b, v)) for label, b in chosen]) for v in ("depth", "width", "token")),
                           note=note)

    out["ours_best_p_crude"] = best({"ours_sum", "ours_rss"}, "ours_best_p_crude",
                                    "crude tail only: expr min(ours_sum, ours_rss) at one p; exponents: infimum over p in "
                                    "[0, 2] of the better aggregation, each variable separately (see single_p for whether one p attains both)")
    out["ours_best_p"] = best({k for _, k in order}, "ours_best_p",
                              "best of both tails of Theorem 4.1 (crude, sharp) and both aggregations: expr their minimum at "
                              "one p; exponents: infimum over p in [0, 2], each variable separately (see single_p for whether one p "
                              "attains both, and joint for the comparison at one p)")
    def closed_form(agg, route):
        return lambda p_: ours(arch, regime, alpha, p_, _branch(regime, p_), agg, route)

    forms = {label: (out[k], closed_form(k.split("_")[1], "sharp" if k.endswith("sharp") else "crude")) for label, k in order}
    rows = {e.id: bound_row(e.bound(), arch, regime, alpha) for e in catalog_bounds()}
    out.update(rows)
    others = {name: joint(forms, name, row, _for_growth) for name, row in rows.items() if name in _BASELINES()}
    return RegimeResult(regime, alpha, arch.name, out, joint(forms, "edelman", out["edelman"], _for_growth), others)


def _BASELINES() -> set[str]:
    from sabounds.theory.catalog import CATALOG
    return {e.id for e in CATALOG if "baseline" in e.tags}


def slot_norms(regime: Regime, d_in: sp.Expr, d_out: sp.Expr) -> dict:
    """The regime's bounds on a slot's norms, by the symbol table's names: ``F2 = ||W||_F^2 <= S_2``,
    ``w_21 <= two_one``, ``w_11 <= sqrt(d_in d_out) ||W||_F`` (Cauchy-Schwarz over the entries), ``s``."""
    D = sp.Min(d_in, d_out)
    frob_sq = regime.schatten(sp.Integer(2), D, sp.Integer(2))
    return {symbols.F2: frob_sq, symbols.w_21: regime.two_one(d_out, D), symbols.w_11: sp.sqrt(d_in * d_out * frob_sq)}


def bound_row(bound, arch: Architecture, regime: Regime, alpha: AlphaModel) -> BoundResult:
    """A :class:`sabounds.theory.bound.Bound` in this regime: its slot term with ``rho = gamma^E alpha^(l)`` and the
    regime's norms, summed over slots and layers, aggregated, in its form; ``ell`` at ``d_in d_out = sum_k d_in,k d_out,k``
    (at least the largest slot's, same order)."""
    kinds = _kinds(arch)
    if bound.propagation not in ("gamma_edelman", "none"):
        raise ValueError(f"bound {bound.id}: unknown propagation {bound.propagation!r}")

    def term(d_in, d_out, gamma_e):
        rho_k = gamma_e * alpha_l if bound.propagation == "gamma_edelman" else alpha_l ** 0
        return bound.term.subs(slot_norms(regime, d_in, d_out)).subs({symbols.rho: rho_k, symbols.d_in: d_in, symbols.d_out: d_out, symbols.s: s})

    total = _layer_total(sp.Add(*(count * term(d_in, d_out, g_e) for count, d_in, d_out, _, g_e in kinds)), alpha)
    width = sp.Add(*(d_in * d_out for _, d_in, d_out, _, _ in kinds))
    expr = bound.rademacher(total, bound.log_factor.subs({symbols.d_in: width, symbols.d_out: 1}, simultaneous=True))
    grow = expr.subs(s, 1 + _c_s)  # a product of spectral norms grows with depth only for s > 1: growth taken there
    note = f"{bound.source}: {bound.title}" + (f" (kept symbolic: {bound.symbolic})" if bound.symbolic else "")
    note += "; exponents with s > 1" if expr.has(s) else ""
    return BoundResult(bound.id, expr, _exponent_fixed(grow, L), _exponent_fixed(grow, N), _exponent_fixed(grow, T), note=note)


_c_s = sp.Symbol("c_s", positive=True)


def catalog_bounds():
    """The catalog's bounds given as data (``sabounds.theory.bound.Bound``), in catalog order."""
    from sabounds.theory.catalog import bounds
    return bounds()


def named_result(name: str, alpha: str, arch: Architecture | None = None) -> RegimeResult:
    """:func:`regime_result` of a named regime and alpha model (cached: the results are immutable)."""
    return _named_result(name, alpha, arch or single_head())


@lru_cache(maxsize=64)
def _named_result(name: str, alpha: str, arch: Architecture) -> RegimeResult:
    return regime_result(REGIMES[name](), ALPHAS[alpha], arch)


def table(names: tuple[str, ...] | None = None, arch: Architecture | None = None, extra: tuple = ()) -> tuple[RegimeResult, ...]:
    """Every requested regime (default: all five) under both alpha models; ``extra`` bounds (a user's
    :class:`sabounds.theory.bound.Bound`) add one row each."""
    chosen = names or tuple(REGIMES)
    results = tuple(named_result(name, a, arch) for name in chosen for a in ALPHAS)
    if not extra:
        return results
    from dataclasses import replace
    return tuple(replace(r, bounds={**r.bounds, **{b.id: bound_row(b, arch or single_head(), r.regime, r.alpha) for b in extra}})
                 for r in results)
