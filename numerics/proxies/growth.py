"""How a proxy grows with depth along one checkpoint's truncations: a power of L or a constant factor per layer.

Two least-squares fits of ``log y`` against depth: the power law ``log y = c + a log L`` (exponent ``a``) and the
exponential ``log y = c + L log g`` (per-layer growth factor ``g``).  The description is the one with the smaller
residual sum of squares; with fewer than three depths both fit exactly and neither is chosen.  A log-log slope
fitted to an exponential is meaningless (it grows with the depth range), hence the growth factor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np


@dataclass(frozen=True)
class DepthGrowth:
    """``quantity`` of checkpoint ``model`` at ``depths``: the fitted power ``a`` and per-layer factor ``g``."""

    quantity: str
    model: str
    depths: tuple[int, ...]
    power: float
    factor: float
    rss_power: float
    rss_exponential: float

    @property
    def kind(self) -> str:
        """``power``, ``exponential`` (the better fit in log y), or ``undetermined`` (fewer than 3 depths)."""
        if len(self.depths) < 3:
            return "undetermined"
        return "exponential" if self.rss_exponential < self.rss_power else "power"

    def describe(self) -> str:
        """``grows like L^1.00`` or ``grows by a factor 4.3e+04 per layer`` (the better fit), both when undetermined."""
        power, factor = f"grows like L^{self.power:.2f}", f"grows by a factor {self.factor:.3g} per layer"
        return {"power": power, "exponential": factor}.get(self.kind, f"{power}, or {factor} (too few depths to tell)")

    def to_json(self) -> dict:
        return {"quantity": self.quantity, "model": self.model, "depths": list(self.depths), "kind": self.kind,
                "power": self.power, "factor_per_layer": self.factor, "rss_power": self.rss_power,
                "rss_exponential": self.rss_exponential}


def _fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Slope and residual sum of squares of the least-squares line ``y = c + slope x``."""
    design = np.column_stack([np.ones_like(x), x])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    residual = y - design @ coef
    return float(coef[1]), float(residual @ residual)


def fit_depth_growth(quantity: str, model: str, depths: Sequence[int], values: Sequence[float]) -> DepthGrowth:
    """Fit both growth laws to positive ``values`` at two or more distinct ``depths``."""
    pairs = sorted(zip(depths, values))
    if len({d for d, _ in pairs}) < 2:
        raise ValueError("a growth fit needs at least two distinct depths")
    if any(not (v > 0 and math.isfinite(v)) for _, v in pairs):
        raise ValueError(f"{quantity} must be positive and finite to fit its growth")
    L = np.array([d for d, _ in pairs], dtype=float)
    y = np.log([v for _, v in pairs])
    power, rss_power = _fit(np.log(L), y)
    rate, rss_exp = _fit(L, y)
    return DepthGrowth(quantity, model, tuple(int(d) for d in L), power, math.exp(rate), rss_power, rss_exp)


def depth_growths(points: Sequence, quantity: str) -> list[DepthGrowth]:
    """One fit per checkpoint with at least two depths among ``points`` (objects with ``model``, ``layers``)."""
    out = []
    for model in sorted({p.model for p in points}):
        series = [p for p in points if p.model == model]
        if len({p.layers for p in series}) >= 2:
            out.append(fit_depth_growth(quantity, model, [p.layers for p in series],
                                        [getattr(p, quantity) for p in series]))
    return out
