"""Adversarial numeric search: random starts, then a shrinking pattern search, at mpmath precision.

``adversarial_min(f, domain, ...)`` looks for the smallest value of a scalar function over a box of
intervals (linear or log-uniform coordinates).  It is evidence, not proof: a negative minimum is a
counterexample, a positive one is only the smallest margin found in ``evaluations`` tries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import mpmath
import numpy as np
import sympy as sp

from theory.checks import Interval


def _bounds(iv: Interval) -> tuple[float, float]:
    lo, hi = float(iv.lo), float(iv.hi)
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi < lo:
        raise ValueError(f"sampling interval [{iv.lo}, {iv.hi}] must be finite and ordered")
    if iv.log:
        if lo <= 0:
            raise ValueError(f"log-uniform interval [{iv.lo}, {iv.hi}] needs lo > 0")
        return float(np.log(lo)), float(np.log(hi))
    return lo, hi


def from_unit(u: float, iv: Interval) -> mpmath.mpf:
    """Map ``u`` in [0, 1] to the interval (log-uniformly if ``iv.log``; rounded if ``iv.integer``)."""
    _bounds(iv)
    u = mpmath.mpf(min(max(u, 0.0), 1.0))
    lo, hi = (mpmath.mpf(e.evalf(mpmath.mp.dps)) for e in (iv.lo, iv.hi))
    x = lo * (hi / lo) ** u if iv.log else lo + (hi - lo) * u
    if iv.integer:
        x = min(max(mpmath.nint(x), mpmath.ceil(lo)), mpmath.floor(hi))
    return x


@dataclass(frozen=True)
class SearchResult:
    value: mpmath.mpf
    point: dict
    evaluations: int


def adversarial_min(f: Callable[[dict], mpmath.mpf], domain: Mapping[sp.Symbol, Interval], samples: int,
                    rng: np.random.Generator, refine: int = 4, iterations: int = 40) -> SearchResult:
    """Minimise ``f(point)`` over the box ``domain``: ``samples`` random starts, then pattern search from the best ``refine``.

    Points where ``f`` raises or is not a finite real are skipped.  Call inside ``mpmath.workdps``.
    """
    syms = list(domain)
    ivs = [domain[s] for s in syms]
    evaluations = 0

    def value(u: np.ndarray):
        nonlocal evaluations
        evaluations += 1
        point = {s: from_unit(float(ui), iv) for s, ui, iv in zip(syms, u, ivs)}
        try:
            v = f(point)
            v = mpmath.mpmathify(v)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            return None, point
        if not isinstance(v, mpmath.mpf) or not mpmath.isfinite(v):
            return None, point
        return v, point

    starts = []
    for _ in range(samples):
        u = rng.uniform(0.0, 1.0, size=len(syms))
        v, point = value(u)
        if v is not None:
            starts.append((v, u, point))
    corners = [np.array(c, dtype=float) for c in np.ndindex(*(2,) * min(len(syms), 4))] if syms and len(syms) <= 4 else []
    for c in corners:
        v, point = value(c)
        if v is not None:
            starts.append((v, c, point))
    if not starts:
        raise ValueError("the function had no finite value at any sampled point")
    starts.sort(key=lambda t: t[0])
    best = starts[0]
    for v, u, point in starts[: max(1, refine)]:
        step = 0.1
        for _ in range(iterations):
            improved = False
            for j in range(len(syms)):
                for sign in (1.0, -1.0):
                    cand = u.copy()
                    cand[j] = min(max(cand[j] + sign * step, 0.0), 1.0)
                    cv, cpoint = value(cand)
                    if cv is not None and cv < v:
                        v, u, point, improved = cv, cand, cpoint, True
            if not improved:
                step /= 2
            if step < 1e-12:
                break
        if v < best[0]:
            best = (v, u, point)
    return SearchResult(best[0], best[2], evaluations)
