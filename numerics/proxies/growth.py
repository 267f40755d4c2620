"""How a proxy grows with depth along one checkpoint's truncations: a power of L or a constant factor per layer.

Two least-squares fits of ``log y`` against depth: the power law ``log y = c + a log L`` (exponent ``a``) and the
exponential ``log y = c + L log g`` (per-layer growth factor ``g``).  One law describes a quantity across all
checkpoints (:data:`LAWS`: edelman, a product of per-layer Lipschitz factors, by its factor per layer; otherwise the
law with the smaller residual summed over the checkpoints), so two checkpoints are never described by different
laws picked on a few points each.  With fewer than three depths both fit exactly and neither is chosen; with three,
the fit is weakly determined and says so.  A log-log slope fitted to an exponential is meaningless (it grows with
the depth range), hence the growth factor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

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
    law: str | None = None
    """The law chosen for this quantity across checkpoints (``power`` or ``exponential``); None: this fit's own."""

    @property
    def kind(self) -> str:
        """``power`` or ``exponential`` (the law chosen, else the better fit in log y), or ``undetermined`` (fewer
        than 3 depths)."""
        if len(self.depths) < 3:
            return "undetermined"
        if self.law is not None:
            return self.law
        return "exponential" if self.rss_exponential < self.rss_power else "power"

    @property
    def weak(self) -> bool:
        """Three depths: one residual degree of freedom, so the fitted number is weakly determined."""
        return len(self.depths) == 3

    def describe(self) -> str:
        """``grows like L^1.00`` or ``grows by a factor 4.3e+04 per layer``, both when undetermined; with three
        depths it says the fit is weakly determined."""
        power, factor = f"grows like L^{self.power:.2f}", f"grows by a factor {self.factor:.3g} per layer"
        text = {"power": power, "exponential": factor}.get(self.kind, f"{power}, or {factor} (too few depths to tell)")
        return text + (" (weakly determined: a fit to 3 depths)" if self.weak else "")

    def to_json(self) -> dict:
        return {
            "quantity": self.quantity,
            "model": self.model,
            "depths": list(self.depths),
            "kind": self.kind,
            "power": self.power,
            "factor_per_layer": self.factor,
            "rss_power": self.rss_power,
            "rss_exponential": self.rss_exponential,
            "weakly_determined": self.weak,
        }


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


LAWS = {"edelman": "exponential"}
"""Quantities whose growth law is fixed by their form: edelman multiplies per-layer Lipschitz factors."""


def depth_growths(points: Sequence, quantity: str) -> list[DepthGrowth]:
    """One fit per checkpoint with at least two depths among ``points`` (objects with ``model``, ``layers``), all
    described by one law: :data:`LAWS`, else the one with the smaller residual summed over checkpoints with three or
    more depths."""
    import dataclasses

    out = []
    for model in sorted({p.model for p in points}):
        series = [p for p in points if p.model == model]
        if len({p.layers for p in series}) >= 2:
            out.append(
                fit_depth_growth(quantity, model, [p.layers for p in series], [getattr(p, quantity) for p in series])
            )
    judged = [g for g in out if len(g.depths) >= 3]
    law = LAWS.get(quantity)
    if law is None and judged:
        law = "exponential" if sum(g.rss_exponential for g in judged) < sum(g.rss_power for g in judged) else "power"
    return [dataclasses.replace(g, law=law) for g in out]
