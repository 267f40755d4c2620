"""The verdicts: the n at which a bound falls to a target (solved by bracketing), and break-even factors.

``n_needed`` solves ``bound(n) = target`` for ``log n`` with a bracket found by doubling steps from the given n and
the Illinois variant of regula falsi, both bounded by counts.  Break-even: the factor ``f`` by which a matrix's scale
``gamma alpha L`` (proxy) or ``rho_k`` (whole bound) must shrink before some p > 0 beats p = 0; the proxy's in closed
form (``sabounds.theory.whole_bound.proxy_break_even``), the whole bound's by bisection on ``log f``.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp

from sabounds.numerics.bound.compiled import compiled
from sabounds.numerics.bound.descent import others_log_sum
from sabounds.numerics.bound.slots import PUBLISHED, Model, Variant, rhos
from sabounds.numerics.bound.whole import (
    BoundInputs,
    BoundValue,
    Tables,
    choose,
    edelman_only,
    log_sum_shares,
    objective_for,
    ours_rss,
    ours_sum,
    remembering,
    tables,
)
from sabounds.theory import whole_bound
from sabounds.theory.thm41 import M, N, p

MAX_BRACKET_STEPS = 64
MAX_ROOT_STEPS = 200
BISECTION_STEPS = 45
LOG_FLOAT_MAX = math.log(sys.float_info.max)
BOUNDS = {"ours_sum": ours_sum, "ours_rss": ours_rss}
PARTS = {"ours_sum": ("sum",), "ours_rss": ("rss",)}
"""The tables each bound reads (:func:`~sabounds.numerics.bound.whole.tables`)."""


def bound_at(model: Model, variant: Variant, setting: BoundInputs, which: str) -> BoundValue:
    """One bound (``ours_sum``, ``ours_rss`` or ``edelman``) at ``setting``."""
    if which == "edelman":
        return edelman_only(model, variant, setting)
    comp = compiled(setting.constants)
    return BOUNDS[which](comp, model, setting, tables(model, variant, setting, comp, parts=PARTS[which]))


@dataclass(frozen=True)
class NNeeded:
    """``n`` with ``bound(n) <= target``, the bracket's end below the target: the bound is above the target at ``lo``
    and below it at ``hi`` (``n = hi``, within the solver's relative tolerance ``10^-(dps-5)`` in ``log n``)."""

    which: str
    target: mpmath.mpf
    n: mpmath.mpf | None
    value: mpmath.mpf | None
    lo: mpmath.mpf | None
    hi: mpmath.mpf | None
    evaluations: int
    note: str = ""


def n_needed(model: Model, variant: Variant, setting: BoundInputs, which: str, target=1) -> NNeeded:
    """Solve ``bound(n) = target`` in ``x = log n`` (each term decreases in n once n >= e^2)."""
    count = 0
    with mpmath.workdps(setting.dps), remembering():
        target = mpmath.mpf(target)
        if mpmath.mpf(setting.empirical) >= target:
            return NNeeded(
                which, target, None, None, None, None, 0, "never: the empirical margin risk alone reaches the target"
            )

        def g(x):
            nonlocal count
            count += 1
            return mpmath.log(bound_at(model, variant, setting.at_n(mpmath.exp(x)), which).total) - mpmath.log(target)

        x0 = mpmath.log(mpmath.mpf(setting.n))
        g0 = g(x0)
        step = mpmath.mpf(1) if g0 > 0 else mpmath.mpf(-1)
        lo, g_lo = x0, g0
        floor = mpmath.log(8)  # the smallest n the bound is stated for
        for _ in range(MAX_BRACKET_STEPS):
            hi = max(lo + step, floor) if step < 0 else lo + step
            g_hi = g(hi)
            if (g_hi > 0) != (g0 > 0):
                break
            if step < 0 and hi == floor:
                return NNeeded(
                    which,
                    target,
                    None,
                    None,
                    None,
                    None,
                    count,
                    "already below the target at n = 8, the smallest n the bound is stated for",
                )
            lo, g_lo, step = hi, g_hi, 2 * step
        else:
            return NNeeded(which, target, None, None, None, None, count, f"not reached by n = e^{mpmath.nstr(lo, 5)}")
        a, fa, b, fb = (lo, g_lo, hi, g_hi) if g_lo > 0 else (hi, g_hi, lo, g_lo)
        tol = mpmath.mpf(10) ** (-(setting.dps - 5))
        side = 0
        for _ in range(MAX_ROOT_STEPS):
            c = (a * fb - b * fa) / (fb - fa)
            fc = g(c)
            if fc == 0 or abs(b - a) < tol * max(1, abs(c)):
                break
            if (fc > 0) == (fa > 0):
                a, fa = c, fc
                if side == -1:
                    fb /= 2
                side = -1
            else:
                b, fb = c, fc
                if side == 1:
                    fa /= 2
                side = 1
        n = mpmath.exp(b)  # the bracket's end where the bound is below the target: never an n where it is not
        return NNeeded(
            which,
            target,
            n,
            bound_at(model, variant, setting.at_n(n), which).total,
            mpmath.exp(min(a, b)),
            mpmath.exp(max(a, b)),
            count,
        )


@dataclass(frozen=True)
class BreakEven:
    """Per slot: the factor (``None`` for a zero matrix); and the whole model's, with the slot that sets it."""

    per_slot: list
    model_factor: mpmath.mpf | None
    model_slot: int | None
    source: str


def _model_min(per_slot: list) -> tuple:
    known = [(f, i) for i, f in enumerate(per_slot) if f is not None]
    if not known:
        return None, None
    f, i = min(known, key=lambda x: x[0])
    return f, i


SCREEN = 1e-6
"""Float64 screen of :func:`proxy_break_even`: grid points whose float64 ``ln f`` exceeds the slot's smallest by more
than this are not evaluated in mpmath.  The float64 logs are within ~1e-11 of the true ones (terms of size
< 10^4 with a few roundings each), so a screened-out point is larger than the float64 minimiser's value."""


@lru_cache(maxsize=1)
def _proxy_forms():
    """``f`` of :func:`proxy_break_even` in mpmath, and ``ln f`` in numpy with ``kappa = e^{lk}``, ``S_p = e^{lM}``."""
    f = whole_bound.proxy_break_even
    lk, lm = sp.symbols("lk lM", real=True)
    log_f = sp.expand_log(sp.log(f.subs({whole_bound.scale: sp.exp(lk), M: sp.exp(lm)})), force=True)
    return (
        sp.lambdify((whole_bound.scale, M, N, whole_bound.rank_, p), f, modules="mpmath"),
        sp.lambdify((lk, lm, N, whole_bound.rank_, p), log_f, modules="numpy"),
    )


def proxy_break_even(model: Model, dps: int = 30, screen: float | None = SCREEN) -> BreakEven:
    """Published proxy: ``f_k = min_{p > 0} kappa S_p^{1/p} N^{(p+1)/p} / (r N)^{(p+2)/(2p)}``, ``kappa = gamma alpha L``
    from the unrounded norms with the published constants.  The model's factor is the smallest (the proxy is a sum).
    The minimum is taken in mpmath over the grid points whose float64 ``ln f`` lies within ``screen`` of the slot's
    float64 minimum (:data:`SCREEN`; every point where a float64 log is not finite; ``screen=None``: every point),
    the same minimum as over every point."""
    f, log_f = _proxy_forms()
    with mpmath.workdps(dps):
        kappas = [r * model.layers for r in rhos(model, PUBLISHED, rounded=False)]
        grid = np.arange(1, len(model.ps))
        keep: np.ndarray = np.ones((model.K, grid.size), dtype=bool)
        if screen is not None and grid.size:
            lk = np.array([float(mpmath.log(k)) if k > 0 else -np.inf for k in kappas])[:, None]
            lm = np.array([s.log_schatten[1:] for s in model.slots], dtype=np.float64)
            rank = np.array([max(s.rank, 1) for s in model.slots], dtype=np.float64)[:, None]
            with np.errstate(all="ignore"):
                logs = np.asarray(log_f(lk, lm, float(model.hidden), rank, grid / model.grid_m), dtype=np.float64)
                logs = np.broadcast_to(logs, keep.shape)
                finite = np.all(np.isfinite(logs), axis=1, keepdims=True)
                low = np.min(logs, axis=1, keepdims=True)
                keep = np.where(finite, logs <= low + screen, True)
        out = []
        for k, (s, kappa) in enumerate(zip(model.slots, kappas)):
            if s.rank == 0:
                out.append(None)
                continue
            out.append(
                min(
                    f(kappa, s.schatten_mp(j), model.hidden, s.rank, mpmath.mpf(j) / model.grid_m)
                    for j in map(int, grid[keep[k]])
                )
            )
    return BreakEven(out, *_model_min(out), "published proxy")


def whole_break_even(
    model: Model, variant: Variant, setting: BoundInputs, t: Tables | None = None, choice: np.ndarray | None = None
) -> BreakEven:
    """Whole bound, sum aggregation: per slot k at p = 0, the factor ``f`` such that with ``rho_k / f`` (others as
    chosen) some p > 0 lowers the whole bound (1 for a slot already at p > 0).  The model's factor: every rho shrunk
    by f at once, the smallest f at which the bound's own choice puts some slot at p > 0 (bisection on log f below
    the smallest slot factor).  It can be smaller than every slot's: the post hoc price is concave in the union's
    size, so slots that move together pay less each."""
    comp = compiled(setting.constants)
    t = t or tables(model, variant, setting, comp)
    obj = objective_for(comp, setting, "sum")
    if choice is None:
        choice = choose(t.log_sum, t.cost, t.base_cost, obj)
    rows = np.arange(model.K)
    chosen = t.log_sum[rows, choice]
    chosen_cost = t.base_cost + t.cost[rows, choice].sum()
    out: list = [None if s.rank == 0 else mpmath.mpf(1) for s in model.slots]
    at_zero = np.array([s.rank > 0 and model.ps[choice[k]] == 0 for k, s in enumerate(model.slots)], dtype=bool)
    ids = np.flatnonzero(at_zero)
    others = others_log_sum(chosen)[ids]
    c_other = chosen_cost - t.cost[ids, choice[ids]]

    def gaps(where: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Per slot ``ids[where]`` with rho shrunk by ``e^x``: best p > 0 minus p = 0 (all slots at once)."""
        k = ids[where]
        row = log_sum_shares(comp, model, setting, t.lrho[k] - x, t.lM[k], rows=list(k), norms=t.norms, forms=False)[0]
        values = obj(np.logaddexp(others[where][:, None], row), c_other[where][:, None] + t.cost[k])
        return np.min(values[:, 1:], axis=1) - values[:, 0]

    for k, f in zip(ids, _first_crossings(gaps, len(ids))):
        out[k] = f
    smallest, _ = _model_min(out)
    model_factor, model_slot = None, None
    if smallest is not None:

        def moved(x: float) -> np.ndarray:
            log_v = log_sum_shares(comp, model, setting, t.lrho - x, t.lM, norms=t.norms, forms=False)[0]
            return model.ps[choose(log_v, t.cost, t.base_cost, obj)] > 0

        lo, hi = 0.0, math.log(smallest) * (1 + 1e-12) + 1e-12
        if moved(lo).any():
            hi = lo
        else:
            for _ in range(BISECTION_STEPS):
                mid = (lo + hi) / 2
                lo, hi = (lo, mid) if moved(mid).any() else (mid, hi)
        model_factor, model_slot = math.exp(hi), int(np.argmax(moved(hi)))
    with mpmath.workdps(setting.dps):
        out = [None if f is None else mpmath.mpf(f) for f in out]
        model_factor = None if model_factor is None else mpmath.mpf(model_factor)
    return BreakEven(out, model_factor, model_slot, "reconstructed (whole bound, sum aggregation)")


def _first_crossings(gaps, count: int) -> list:
    """Per slot, ``exp(x)`` at the sign change of its gap nearest to x = 0 going up: doubling steps to a bracket, then
    bisection (counted steps), every slot in lockstep (``gaps(where, x)``: the gaps of slots ``where`` at ``x``)."""
    out: list = [None] * count
    where = np.arange(count)
    if count == 0:
        return out
    crossed = gaps(where, np.zeros(count)) < 0
    for i in where[crossed]:
        out[i] = 1.0
    where = where[~crossed]
    lo_of, hi_of = np.zeros(count), np.zeros(count)
    lo, step = 0.0, 1.0
    found = []
    for _ in range(MAX_BRACKET_STEPS):
        if where.size == 0 or lo >= LOG_FLOAT_MAX:  # any crossing lies beyond float64: no factor to report
            break
        hi = lo + step
        crossed = gaps(where, np.full(where.size, hi)) < 0
        lo_of[where[crossed]], hi_of[where[crossed]] = lo, hi
        found.append(where[crossed])
        where = where[~crossed]
        lo, step = hi, 2 * step
    bracketed = np.concatenate(found) if found else np.zeros(0, dtype=int)
    if bracketed.size == 0:
        return out
    lo, hi = lo_of[bracketed], hi_of[bracketed]
    for _ in range(BISECTION_STEPS):
        mid = (lo + hi) / 2
        below = gaps(bracketed, mid) < 0
        hi, lo = np.where(below, mid, hi), np.where(below, lo, mid)
    for i, h in zip(bracketed, hi):
        out[i] = math.exp(h) if h < LOG_FLOAT_MAX else None  # beyond float64: no factor to report
    return out
