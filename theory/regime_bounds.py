"""Each bound's closed form in a regime: Theorem 3.1 at one p (``ours``, crude or sharp tail of Theorem 4.1, sum or rss
aggregation), the Edelman et al. (2022) theory form, and a row for any :class:`sabounds.theory.bound.Bound` given as data.

Sums over slots and layers go through :func:`layer_total`: a term homogeneous in ``alpha^(l)`` times the alpha
model's layer sum.
"""

from __future__ import annotations

import sympy as sp

from sabounds.theory import edelman as edelman_theory
from sabounds.theory import symbols
from sabounds.theory.architecture import SPECTRAL, Architecture
from sabounds.theory.regime_exponents import BoundResult, exponent_fixed
from sabounds.theory.regime_models import AlphaModel, Regime, alpha_l, s
from sabounds.theory.thm31 import (
    Delta,
    L,
    dudley_constant,
    dudley_constant_sharp,
    dudley_cut_value,
    post_hoc,
    slot_log_cover,
    slot_log_cover_sharp,
)
from sabounds.theory.thm41 import N, T, p


def layer_total(term: sp.Expr, alpha: AlphaModel) -> sp.Expr:
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


def slot_kinds(arch: Architecture):
    bound = arch.bind()
    flat = {sym: s for sym in SPECTRAL}
    return [(k.count.subs(flat), k.d_in, k.d_out, k.gamma.subs(flat), k.gamma_edelman.subs(flat)) for k in bound.kinds]


def _slots(arch: Architecture) -> sp.Expr:
    return L * sp.Add(*(count for count, *_ in slot_kinds(arch)))


def _post_hoc(arch: Architecture) -> sp.Expr:
    j_max = 2 + sp.log(1 + N * (1 + s) ** 2) / sp.log(2)
    return post_hoc(_slots(arch), L + sp.log(N) + 1, j_max)


ROUTES = ("crude", "sharp")
"""Theorem 4.1's two tails: crude ``(D - r) sigma_{r+1}^2`` (cover ``A eps^{-q}``, ``q = 2p/(p+2)``) and sharp
``sigma_{r+1}^{2-p} S_p`` (cover ``A' eps^{-p}``, Dudley constant ``1/(1 - p/2)``; Maurey with a cut Dudley integral at
p = 2).  Saturation (``r = D``, the parametric count ``a D``) is the crude route's p = 0 cover with ``S_0 <= D``
replaced by ``D``, never smaller, so it adds no column."""


def ours(
    arch: Architecture,
    regime: Regime,
    alpha: AlphaModel,
    p_: sp.Expr,
    branch: sp.Expr,
    aggregation: str,
    route: str = "crude",
) -> sp.Expr:
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

    covers = [(count, cover(d_in, d_out, gamma)) for count, d_in, d_out, gamma, _ in slot_kinds(arch)]
    if aggregation == "sum":
        root = layer_total(sp.Add(*(count * sp.sqrt(A) for count, A in covers)), alpha)
    elif aggregation == "rss":
        root = sp.sqrt(layer_total(sp.Add(*(count * A for count, A in covers)), alpha))
    else:
        raise ValueError(f"aggregation must be 'sum' or 'rss', got {aggregation!r}")
    if route == "crude":
        return dudley_constant.subs(p, p_) * root + _post_hoc(arch)
    if p_ == 2:
        return dudley_cut_value(root) + _post_hoc(arch)
    return dudley_constant_sharp.subs(p, p_) * root + _post_hoc(arch)


def edelman(arch: Architecture, regime: Regime, alpha: AlphaModel) -> sp.Expr:
    """The Edelman et al. (2022) theory form in this regime."""
    terms = sp.Add(
        *(
            count * edelman_theory.slot_term(gamma_e * alpha_l, regime.two_one(d_out, sp.Min(d_in, d_out)))
            for count, d_in, d_out, _, gamma_e in slot_kinds(arch)
        )
    )
    return edelman_theory.theory_form.subs(
        {
            edelman_theory.W_E: edelman_theory.capacity(layer_total(terms, alpha)),
            edelman_theory.ell_E: edelman_theory.edelman_log,
            edelman_theory.Delta: Delta,
        }
    )


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
    kinds = slot_kinds(arch)
    if bound.propagation not in ("gamma_edelman", "none"):
        raise ValueError(f"bound {bound.id}: unknown propagation {bound.propagation!r}")

    def term(d_in, d_out, gamma_e):
        rho_k = gamma_e * alpha_l if bound.propagation == "gamma_edelman" else alpha_l**0
        return bound.term.subs(slot_norms(regime, d_in, d_out)).subs(
            {symbols.rho: rho_k, symbols.d_in: d_in, symbols.d_out: d_out, symbols.s: s}
        )

    total = layer_total(sp.Add(*(count * term(d_in, d_out, g_e) for count, d_in, d_out, _, g_e in kinds)), alpha)
    width = sp.Add(*(d_in * d_out for _, d_in, d_out, _, _ in kinds))
    expr = bound.rademacher(total, bound.log_factor.subs({symbols.d_in: width, symbols.d_out: 1}, simultaneous=True))
    grow = expr.subs(s, 1 + _c_s)  # a product of spectral norms grows with depth only for s > 1: growth taken there
    note = f"{bound.source}: {bound.title}" + (f" (kept symbolic: {bound.symbolic})" if bound.symbolic else "")
    note += "; exponents with s > 1" if expr.has(s) else ""
    return BoundResult(
        bound.id, expr, exponent_fixed(grow, L), exponent_fixed(grow, N), exponent_fixed(grow, T), note=note
    )


_c_s = sp.Symbol("c_s", positive=True)


def catalog_bounds():
    """The catalog's bounds given as data (``sabounds.theory.bound.Bound``), in catalog order."""
    from sabounds.theory.catalog import bounds

    return bounds()
