"""Joint comparison of bounds in depth and width: per p the exponent pair, its Pareto set, and growth along N = L^kappa.

At one fixed p a bound grows like ``L^a`` in depth and ``N^b`` in width (with log powers, and a growth in T): the
*pair* ``(a, b)``.  The best depth and the best width may come from different p, so a comparison fixes p.  The
*Pareto set* lists the p whose pair no other listed p improves in both variables.  Along joint growth
``N = L^kappa`` (kappa > 0) a pair grows like ``L^(a + kappa b)``: ours is smaller than a baseline ``(a', b')``
(up to log factors) where ``(a - a') + kappa (b - b') < 0``, an interval of kappa per p; the region where ours is
smaller is the union over the listed p.  A second route checks each pair's sum: the growth in L of the closed form
with ``N = L^kappa`` substituted, by sympy limits, at the sampled kappa (:data:`KAPPAS`).

Bounds are :class:`~sabounds.theory.regime_exponents.BoundResult` objects; a baseline is any bound with a fixed pair, so
further baselines (rows of other papers) compare the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import sympy as sp

from sabounds.theory.asymptotics import Domain, Growth, compare, growth, sign
from sabounds.theory.thm31 import L
from sabounds.theory.thm41 import N, p

P_GRID = tuple(sp.Rational(k, 4) for k in range(9))
"""The grid of p at which pairs are listed (besides the symbolic pieces)."""
KAPPAS = (sp.Rational(1, 2), sp.Integer(1), sp.Integer(2), sp.Integer(3))
"""The kappa of ``N = L^kappa`` at which the direct joint growth is computed (second route)."""
DIRECT_P = tuple(sp.Rational(k, 2) for k in range(5))
"""The p at which the second route recomputes each form's joint growth from its closed form."""
POSITIVE_KAPPA = sp.Interval.open(0, sp.oo)


@dataclass(frozen=True)
class Pair:
    """One form of a bound at one p (``p`` None for a bound free of p): growth in L, in N and in T."""

    variant: str
    p: sp.Expr | None
    depth: Growth
    width: Growth
    token: Growth

    @property
    def label(self) -> str:
        return self.variant + ("" if self.p is None else f" at p = {self.p}")


def _piece_of(by_piece: tuple[tuple[str, Growth], ...], value: sp.Expr) -> Growth:
    """The growth at ``p = value`` from a bound's per-piece growths (point pieces exact, open pieces symbolic in p)."""
    for label, g in by_piece:
        if label == f"p={value}":
            return g
    for label, g in by_piece:
        if "<" in label:
            lo, hi = (sp.Rational(x) for x in label.split("<p<"))
            if lo < value < hi:
                return Growth(*(sp.nsimplify(sp.sympify(c).subs(p, value)) for c in g.parts))
    raise ValueError(f"no piece contains p = {value}")


def pairs_of(variant: str, bound) -> tuple[Pair, ...]:
    """The pair of ``bound`` at every p of :data:`P_GRID` (one pair if the bound is free of p)."""
    if p not in bound.expr.free_symbols and not bound.depth.by_piece:
        return (Pair(variant, None, bound.depth.best, bound.width.best, bound.token.best),)
    return tuple(
        Pair(variant, v, *(_piece_of(getattr(bound, x).by_piece, v) for x in ("depth", "width", "token")))
        for v in P_GRID
    )


def _at_most(a: Growth, b: Growth) -> bool:
    return compare(a, b, Domain()) in (-1, 0)


def pareto(pairs: tuple[Pair, ...]) -> tuple[Pair, ...]:
    """The pairs no other pair improves in both depth and width (ties kept: equal pairs are all optimal)."""

    def dominated(x: Pair) -> bool:
        return any(
            _at_most(y.depth, x.depth)
            and _at_most(y.width, x.width)
            and not (compare(y.depth, x.depth, Domain()) == 0 and compare(y.width, x.width, Domain()) == 0)
            for y in pairs
        )

    return tuple(x for x in pairs if not dominated(x))


def along(pair: Pair, kappa: sp.Expr) -> Growth:
    """Growth in L of ``L^a N^b`` along ``N = L^kappa``: rate of the depth, power ``a + kappa b``, log powers added."""
    return Growth(
        pair.depth.rate, pair.depth.power + kappa * pair.width.power, pair.depth.log_power + pair.width.log_power
    )


def smaller_region(ours: Pair, base: Pair) -> sp.Set:
    """The kappa > 0 where ours grows strictly slower than ``base`` along ``N = L^kappa``, by (rate, power): up to logs."""
    for x in (ours, base):
        if x.width.exponential:
            raise ValueError(f"{x.label}: exponential in N")
    rate = sign(ours.depth.rate - base.depth.rate, Domain())
    if rate is None:
        raise ArithmeticError(f"cannot compare the depth rates of {ours.label} and {base.label}")
    if rate:
        return POSITIVE_KAPPA if rate < 0 else sp.EmptySet
    a = sp.nsimplify(ours.depth.power - base.depth.power)
    b = sp.nsimplify(ours.width.power - base.width.power)
    if b == 0:  # a + kappa b < 0 is linear in kappa
        return POSITIVE_KAPPA if a < 0 else sp.EmptySet
    cut = -a / b
    if b > 0:
        return sp.Interval.open(0, cut) if cut > 0 else sp.EmptySet
    return sp.Interval.open(sp.Max(cut, 0), sp.oo)


@dataclass(frozen=True)
class JointSample:
    """At one kappa: ours' smallest joint growth over the pairs (and which), the baseline's, both computed directly."""

    kappa: sp.Expr
    ours: Growth
    ours_at: str
    base: Growth
    smaller: bool
    pairs_agree: bool


@dataclass(frozen=True)
class Joint:
    """Ours against one baseline: pairs, Pareto set, the kappa region where ours is smaller, and (computed on first
    use: it takes most of the time) the second route's direct samples."""

    baseline: str
    pairs: tuple[Pair, ...]
    pareto: tuple[Pair, ...]
    region: sp.Set
    by_pair: tuple[tuple[str, sp.Set], ...]
    sampler: Callable[[], tuple[JointSample, ...]] = field(compare=False, repr=False, default=tuple)

    @cached_property
    def samples(self) -> tuple[JointSample, ...]:
        return self.sampler()

    @property
    def agrees(self) -> bool:
        """Both routes agree: at every sampled kappa the direct growth is the pairs' and 'smaller' matches the region."""
        return all(s.pairs_agree and s.smaller == bool(self.region.contains(s.kappa)) for s in self.samples)


def _power_key(g: Growth) -> tuple:
    return (
        float(g.rate.subs(sp.Symbol("c_C", positive=True), 1)) if g.rate.free_symbols else float(g.rate),
        float(g.power),
    )


def _direct(expr: sp.Expr, kappa: sp.Expr, prepare) -> Growth:
    return growth(prepare(expr).subs(N, L**kappa), L).simplified()


def joint(
    ours_forms: dict[str, tuple], base_name: str, base, prepare=lambda e: e, kappas: tuple[sp.Expr, ...] = KAPPAS
) -> Joint:
    """Ours (``{variant: (BoundResult, closed_form_at)}``, ``closed_form_at(p)`` the form's expression at one p)
    against ``base`` (a p-free BoundResult).  The pairs kept at each p are the forms no other form improves at that
    p (the minimum of the forms grows like the best of them): the pairs of ours' best bound at that p."""
    every = tuple(x for name, (b, _) in ours_forms.items() for x in pairs_of(name, b))
    at_p = {v: pareto(tuple(y for y in every if y.p == v)) for v in dict.fromkeys(x.p for x in every)}
    pairs = tuple(x for x in every if x in at_p[x.p])
    base_pair = pairs_of(base_name, base)[0]
    by_pair = tuple((x.label, smaller_region(x, base_pair)) for x in pairs)
    region = sp.Union(*(r for _, r in by_pair)) if by_pair else sp.EmptySet
    return Joint(
        base_name,
        pairs,
        pareto(pairs),
        region,
        by_pair,
        lambda: _samples(pairs, ours_forms, base_pair, base, prepare, kappas),
    )


def _samples(pairs, ours_forms, base_pair, base, prepare, kappas) -> tuple[JointSample, ...]:
    """The second route: at each kappa, the growth in L of every listed form's closed form with N = L^kappa."""
    samples = []
    for kappa in kappas:
        b_direct = _direct(base.expr, kappa, prepare)
        best, best_at, agree = None, "", True
        for x in (x for x in pairs if x.p is None or x.p in DIRECT_P):
            g = _direct(ours_forms[x.variant][1](x.p), kappa, prepare)
            agree &= _power_key(g) == _power_key(along(x, kappa))
            if best is None or compare(Growth(g.rate, g.power), Growth(best.rate, best.power), Domain()) == -1:
                best, best_at = g, x.label
        agree &= _power_key(b_direct) == _power_key(along(base_pair, kappa))
        smaller = compare(Growth(best.rate, best.power), Growth(b_direct.rate, b_direct.power), Domain()) == -1
        samples.append(JointSample(kappa, best, best_at, b_direct, smaller, agree))
    return tuple(samples)


def region_text(region: sp.Set) -> str:
    """``kappa in (0, 2)``, ``every kappa > 0``, ``no kappa > 0``: where ours is smaller along N = L^kappa."""
    if region == sp.EmptySet:
        return "no kappa > 0"
    if region == POSITIVE_KAPPA:
        return "every kappa > 0"
    parts = region.args if isinstance(region, sp.Union) else (region,)
    return " or ".join(_interval_text(x) for x in parts)


def _interval_text(x: sp.Set) -> str:
    if not isinstance(x, sp.Interval):
        return f"kappa in {x}"
    lo = f"{x.start} {'<' if x.left_open else '<='} "
    hi = "" if x.end == sp.oo else f" {'<' if x.right_open else '<='} {x.end}"
    return f"{lo}kappa{hi}"
