"""Closed-form regime tables: each bound under each spectral regime and Lipschitz model, with its exponents.

A *regime* bounds every matrix's Schatten quantity ``S_p`` and (2,1)-norm (all ``||W||_2 <= s``); an
*alpha model* bounds the downstream products ``alpha^(l)``.  The bounds are built from the derivations
(``sabounds.theory.thm31``, ``sabounds.theory.edelman``) over an architecture (``sabounds.theory.architecture``):

- ``edelman``: the theory form of Edelman et al. (2022);
- ``ours_sum`` / ``ours_rss``: Theorem 3.1 with sum / rss aggregation at one p for all slots;
- ``ours_best_p``: the infimum over p in [0, 2] of ``min(ours_sum, ours_rss)``.

Exponents in L, N and the T dependence are growth orders (``sabounds.theory.asymptotics``: sympy limits of
log-ratios); for the p-dependent bounds each fixed p gives an exponent and the table reports its
infimum over p, with the p that attains it.  The regimes and alpha models are data in
``sabounds.theory.regime_models``, the closed forms come from ``sabounds.theory.regime_bounds`` and the exponents from
``sabounds.theory.regime_exponents``; this module assembles one table per regime and alpha model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import sympy as sp

from sabounds.theory.architecture import Architecture, single_head
from sabounds.theory.asymptotics import Domain, compare
from sabounds.theory.joint import Joint, joint
from sabounds.theory.regime_bounds import ROUTES, bound_row, catalog_bounds, edelman, ours
from sabounds.theory.regime_exponents import BoundResult, best_of_many, exponent_fixed, exponent_over_p, for_growth
from sabounds.theory.regime_models import ALPHAS, REGIMES, AlphaModel, Regime, branch_of, pieces
from sabounds.theory.thm31 import L
from sabounds.theory.thm41 import N, T, p


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
        return any(
            compare(x.depth, b.depth.best, Domain()) == 0 and compare(x.width, b.width.best, Domain()) == 0
            for x in (self.joint.pairs if self.joint else ())
        )


def _ours_bound(arch, regime, alpha, aggregation, route="crude") -> BoundResult:
    exprs = {
        piece: ours(arch, regime, alpha, piece.lo if piece.is_point else p, piece.branch, aggregation, route)
        for piece in pieces(regime)
    }
    interior = [(pc, e) for pc, e in exprs.items() if not pc.is_point]
    points = [(e, sp.Eq(p, pc.lo)) for pc, e in exprs.items() if pc.is_point]
    expr = (
        interior[0][1]
        if len(interior) == 1
        else sp.Piecewise(*points, *[(e, p < pc.hi) for pc, e in interior[:-1]], (interior[-1][1], True))
    )
    name = f"ours_{aggregation}" if route == "crude" else f"ours_{aggregation}_{route}"
    sharp = route == "sharp"
    return BoundResult(
        name,
        expr,
        exponent_over_p(exprs, L, sharp),
        exponent_over_p(exprs, N, sharp),
        exponent_over_p(exprs, T, sharp),
        note=f"{aggregation} aggregation, one p for every slot, {route} tail of Theorem 4.1",
    )


def regime_result(regime: Regime, alpha: AlphaModel, arch: Architecture | None = None) -> RegimeResult:
    """Every bound of one regime and alpha model, with its exponents in L and N and its T dependence.

    ``ours_best_p`` (the headline) is the best over both tails of Theorem 4.1 and both aggregations;
    ``ours_best_p_crude`` keeps the crude tail only, so a reader sees what the sharp tail changes."""
    arch = arch or single_head()
    ed = edelman(arch, regime, alpha)
    out = {
        "edelman": BoundResult(
            "edelman",
            ed,
            exponent_fixed(ed, L),
            exponent_fixed(ed, N),
            exponent_fixed(ed, T),
            note="theory form, Dudley cut at Delta/n",
        )
    }
    for route in ROUTES:
        for agg in ("sum", "rss"):
            b = _ours_bound(arch, regime, alpha, agg, route)
            out[b.name] = b
    order = [
        ("rss", "ours_rss"),
        ("sum", "ours_sum"),
        ("rss, sharp tail", "ours_rss_sharp"),
        ("sum, sharp tail", "ours_sum_sharp"),
    ]

    def best(keys, name, note):
        chosen = [(label, out[k]) for label, k in order if k in keys]
        return BoundResult(
            name,
            sp.Min(*(b.expr for _, b in chosen)),
            *(best_of_many([(label, getattr(b, v)) for label, b in chosen]) for v in ("depth", "width", "token")),
            note=note,
        )

    out["ours_best_p_crude"] = best(
        {"ours_sum", "ours_rss"},
        "ours_best_p_crude",
        "crude tail only: expr min(ours_sum, ours_rss) at one p; exponents: infimum over p in "
        "[0, 2] of the better aggregation, each variable separately (see single_p for whether one p attains both)",
    )
    out["ours_best_p"] = best(
        {k for _, k in order},
        "ours_best_p",
        "best of both tails of Theorem 4.1 (crude, sharp) and both aggregations: expr their minimum at "
        "one p; exponents: infimum over p in [0, 2], each variable separately (see single_p for whether one p "
        "attains both, and joint for the comparison at one p)",
    )

    def closed_form(agg, route):
        return lambda p_: ours(arch, regime, alpha, p_, branch_of(regime, p_), agg, route)

    forms = {
        label: (out[k], closed_form(k.split("_")[1], "sharp" if k.endswith("sharp") else "crude")) for label, k in order
    }
    rows = {e.id: bound_row(e.bound(), arch, regime, alpha) for e in catalog_bounds()}
    out.update(rows)
    others = {name: joint(forms, name, row, for_growth) for name, row in rows.items() if name in _BASELINES()}
    return RegimeResult(regime, alpha, arch.name, out, joint(forms, "edelman", out["edelman"], for_growth), others)


def _BASELINES() -> set[str]:
    from sabounds.theory.catalog import CATALOG

    return {e.id for e in CATALOG if "baseline" in e.tags}


def named_result(name: str, alpha: str, arch: Architecture | None = None) -> RegimeResult:
    """:func:`regime_result` of a named regime and alpha model (cached: the results are immutable)."""
    return _named_result(name, alpha, arch or single_head())


@lru_cache(maxsize=64)
def _named_result(name: str, alpha: str, arch: Architecture) -> RegimeResult:
    return regime_result(REGIMES[name](), ALPHAS[alpha], arch)


def table(
    names: tuple[str, ...] | None = None, arch: Architecture | None = None, extra: tuple = ()
) -> tuple[RegimeResult, ...]:
    """Every requested regime (default: all five) under both alpha models; ``extra`` bounds (a user's
    :class:`sabounds.theory.bound.Bound`) add one row each."""
    chosen = names or tuple(REGIMES)
    results = tuple(named_result(name, a, arch) for name in chosen for a in ALPHAS)
    if not extra:
        return results
    from dataclasses import replace

    return tuple(
        replace(r, bounds={**r.bounds, **{b.id: bound_row(b, arch or single_head(), r.regime, r.alpha) for b in extra}})
        for r in results
    )
