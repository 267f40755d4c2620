"""The post hoc grid P_m = {0, 1/m, ..., 2}: the cost of rounding the optimal p to it, and the choice m = ceil(L + ln N).

For one matrix the proxy contribution is ``exp(phi(p))``, ``phi(p) = (log S_p + p log kappa + (p+1) log N)/(p+2)``.
If the continuous optimum p* is an end point it lies on the grid (no cost); otherwise ``phi'(p*) = 0`` and
the nearest grid point is within ``1/(2m)``, so the cost factor is at most ``exp(max|phi''| / (8 m^2))``.
"""

from __future__ import annotations

import math

import numpy as np

from sabounds.numerics.spectra import numerical_rank
from sabounds.numerics.testbeds.random_matrices import FAMILIES, spectrum
from sabounds.proofs_check.registry import claim
from sabounds.proofs_check.sampling import rng_for
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict

_DENSE = np.linspace(0.0, 2.0, 4001)
_MS = (1, 2, 4, 8, 16, 32, 64)


def log_contribution(sigma: np.ndarray, ps: np.ndarray, kappa: float, width: float) -> np.ndarray:
    """``phi(p)`` on an array of p, S_p over the numerically nonzero singular values (S_0 = rank)."""
    head = sigma[: numerical_rank(sigma)]
    log_s = np.log(np.exp(np.outer(ps, np.log(head))).sum(axis=1))
    return (log_s + ps * math.log(kappa) + (ps + 1) * math.log(width)) / (ps + 2)


def _draw(rng: np.random.Generator):
    family = FAMILIES[int(rng.integers(len(FAMILIES)))]
    width = int(rng.integers(16, 257))
    sigma = spectrum(family, rng, width, scale=float(10 ** rng.uniform(-2, 1)))
    return family, width, sigma, float(10 ** rng.uniform(-1, 2))


def _costs(sigma, kappa, width, ms):
    phi = log_contribution(sigma, _DENSE, kappa, width)
    best = phi.min()
    h = _DENSE[1] - _DENSE[0]
    curvature = float(np.max(np.abs(np.diff(phi, 2)))) / h**2
    interior = 0 < int(np.argmin(phi)) < len(_DENSE) - 1
    out = []
    for m in ms:
        grid = np.arange(2 * m + 1) / m
        cost = float(log_contribution(sigma, grid, kappa, width).min() - best)
        bound = curvature / (8 * m**2) if interior else 0.0
        out.append((m, cost, bound))
    return out


@claim(
    "grid.rounding_cost",
    "rounding the continuous optimal p to P_m costs a factor at most exp(max|phi''| / (8 m^2)), i.e. 1 + O(1/m^2)",
)
def _rounding(settings: Settings) -> Outcome:
    rng = rng_for("grid.rounding_cost", settings)
    worst = {m: 0.0 for m in _MS}
    samples = min(settings.samples, 100)
    for i in range(samples):
        family, width, sigma, kappa = _draw(rng)
        for m, cost, bound in _costs(sigma, kappa, width, _MS):
            worst[m] = max(worst[m], cost)
            if cost > bound + 1e-6:
                return Outcome(
                    Verdict.REFUTED,
                    "dense p grid (4001 points) on random spectra, float64",
                    16,
                    i + 1,
                    bound - cost,
                    {"family": family, "N": width, "kappa": kappa, "m": m, "log_cost": cost, "log_bound": bound},
                )
    table = ", ".join(f"m={m}: x{math.exp(worst[m]):.6g}" for m in _MS)
    return Outcome(
        Verdict.VERIFIED,
        "dense p grid (4001 points) on random spectra of all four families, float64",
        16,
        samples,
        detail=f"worst observed cost factor of the grid minimum over the continuous one: {table}; "
        "always within exp(max|phi''|/(8 m^2)) (curvature by second differences, tolerance 1e-6 in log)",
    )


def structured_spectra():
    """Two-level spectra (a fraction of the values at 1, the rest at ``ratio``), the structured inputs tried before
    random ones: they bend ``phi`` most (a two-level spectrum gave cost 1.07 where 98 random ones gave 1.003)."""
    for width in (16, 256):
        for frac in (0.25, 0.75):
            for ratio in (1e-2, 1e-4):
                for kappa in (1.0, 100.0):
                    k = int(width * frac)
                    yield f"two_level({frac}, {ratio:g})", width, np.array([1.0] * k + [ratio] * (width - k)), kappa


@claim(
    "grid.m_choice",
    "with m = ceil(L + ln N) the rounding cost is at most exp(max|phi''| / (8 m^2)); "
    "the union bound pays ln(2m+1) per slot",
)
def _m_choice(settings: Settings) -> Outcome:
    rng = rng_for("grid.m_choice", settings)
    rows, draws = [], 0
    for L in (1, 2, 4, 8, 16, 32, 64):
        worst, worst_bound = 0.0, 0.0
        candidates = list(structured_spectra()) + [_draw(rng) for _ in range(max(1, min(settings.samples, 100) // 7))]
        for family, width, sigma, kappa in candidates:
            draws += 1
            m = math.ceil(L + math.log(width))
            _, cost, bound = _costs(sigma, kappa * L, width, (m,))[0]
            if cost > bound + 1e-6:
                return Outcome(
                    Verdict.REFUTED,
                    "dense p grid on random spectra",
                    16,
                    draws,
                    bound - cost,
                    {"family": family, "N": width, "L": L, "m": m, "log_cost": cost, "log_bound": bound},
                )
            worst, worst_bound = max(worst, cost), max(worst_bound, bound)
        rows.append((L, math.exp(worst), math.exp(worst_bound), math.log(2 * math.ceil(L + math.log(4096)) + 1)))
    detail = "; ".join(
        f"L={L}: worst factor {c:.6g} (bound {b:.6g}), ln(2m+1) at N=4096 {u:.3g}" for L, c, b, u in rows
    )
    detail += (
        f" ({draws} spectra, {draws // len(rows)} per L: 16 structured two-level ones first, then random). "
        "The statement is the curvature bound; the observed factors are only what these spectra reach."
    )
    return Outcome(
        Verdict.VERIFIED,
        "dense p grid (4001 points) on structured two-level then random spectra, kappa "
        "scaled by L, float64 (sampling: phi depends on a whole spectrum, no finite box to certify over)",
        16,
        draws,
        detail=detail,
    )
