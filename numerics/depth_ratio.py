"""The published proxies of THEORY.md section 6 on a stack's summary, for the depth-claim properties.

Per matrix ``contribution(p) = S_p^{1/(p+2)} scale^{p/(p+2)} N^{(p+1)/(p+2)}``, ``scale = gamma alpha^(l) L``,
minimised over ``P_m = {0, 1/m, ..., 2}``, ``m = ceil(L + ln N)`` (first minimiser).  Aggregations:
``sum`` (the published proxy) ``sum_k min_p contribution_k + sqrt(L)``, and ``rss``
``sqrt(sum_k (min_p contribution_k)^2) + sqrt(L)`` (section 5: exact when all optimal p are equal).
``edelman = (1 + sum_l alpha^(l)^{2/3} xi_l)^{3/2}``.  A stack is summarised once (singular values,
spectral and (2,1)-norms, per-layer Lipschitz factors) so that prefixes of it are cheap to evaluate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from numerics.random_stacks import Layer, Stack, layer_lipschitz
from numerics.spectra import schatten_grid, singular_values


def norm_21(a: np.ndarray) -> float:
    """``||A||_{2,1}``: the sum over columns of the columns' l2 norms (row-vector orientation, y = x A)."""
    return float(np.linalg.norm(a, axis=0).sum())


@dataclass(frozen=True)
class LayerSummary:
    """What the proxies need from one layer: spectra, spectral norms, (2,1)-norms and the Lipschitz factor."""

    qk_sigma: tuple[np.ndarray, ...]
    vt_sigma: tuple[np.ndarray, ...]
    in_sigma: np.ndarray
    out_sigma: np.ndarray
    qk_21: tuple[float, ...]
    vt_21: tuple[float, ...]
    in_21: float
    out_21: float

    @property
    def lipschitz(self) -> float:
        return layer_lipschitz(self.in_sigma[0], self.out_sigma[0], (q[0] for q in self.qk_sigma), (v[0] for v in self.vt_sigma))

    def slots(self) -> list[tuple[np.ndarray, float]]:
        """``(singular values, gamma)`` of every matrix: QK_h, Vt_h, M_in, M_out (THEORY.md section 3)."""
        ff = self.out_sigma[0] * self.in_sigma[0]
        return ([(q, 2 * v[0] * ff) for q, v in zip(self.qk_sigma, self.vt_sigma)]
                + [(v, ff) for v in self.vt_sigma] + [(self.in_sigma, self.out_sigma[0]), (self.out_sigma, 1.0)])

    def xi(self) -> float:
        """Edelman's per-layer sum ``xi_l`` (THEORY.md section 6)."""
        ff = self.out_sigma[0] * self.in_sigma[0]
        heads = sum((ff * v[0] * q21) ** (2 / 3) + (ff * v21) ** (2 / 3)
                    for q21, v, v21 in zip(self.qk_21, self.vt_sigma, self.vt_21))
        return float(heads + (self.out_sigma[0] * self.in_21) ** (2 / 3) + self.out_21 ** (2 / 3))


def summarise(layer: Layer) -> LayerSummary:
    return LayerSummary(tuple(map(singular_values, layer.qk)), tuple(map(singular_values, layer.vt)),
                        singular_values(layer.m_in), singular_values(layer.m_out),
                        tuple(map(norm_21, layer.qk)), tuple(map(norm_21, layer.vt)),
                        norm_21(layer.m_in), norm_21(layer.m_out))


def summarise_stack(stack: Stack) -> tuple[LayerSummary, ...]:
    return tuple(summarise(layer) for layer in stack.layers)


def p_grid(L: int, N: int) -> np.ndarray:
    """``P_m = {0, 1/m, ..., 2}`` with ``m = ceil(L + ln N)``."""
    m = math.ceil(L + math.log(N))
    return np.arange(2 * m + 1) / m


def contribution(sigma: np.ndarray, ps: np.ndarray, scale: float, N: int) -> np.ndarray:
    """``S_p^{1/(p+2)} scale^{p/(p+2)} N^{(p+1)/(p+2)}`` for every p in ``ps``."""
    ps = np.asarray(ps, dtype=float)
    return schatten_grid(sigma, ps) ** (1 / (ps + 2)) * scale ** (ps / (ps + 2)) * N ** ((ps + 1) / (ps + 2))


def alphas(layers: tuple[LayerSummary, ...]) -> np.ndarray:
    """``alpha^(l) = prod_{k > l} lambda_k`` for l = 1..L (1 for the last layer)."""
    lam = np.array([layer.lipschitz for layer in layers])
    return np.append(np.cumprod(lam[::-1])[::-1][1:], 1.0)


def optimal(layers: tuple[LayerSummary, ...], N: int) -> tuple[np.ndarray, np.ndarray]:
    """Per matrix (layer by layer, in ``slots`` order): the minimal contribution over ``P_m`` and its first minimiser."""
    L = len(layers)
    ps = p_grid(L, N)
    values, argmins = [], []
    for layer, alpha in zip(layers, alphas(layers)):
        for sigma, gamma in layer.slots():
            c = contribution(sigma, ps, gamma * alpha * L, N)
            i = int(np.argmin(c))
            values.append(c[i])
            argmins.append(ps[i])
    return np.array(values), np.array(argmins)


def ours(layers: tuple[LayerSummary, ...], N: int, aggregation: str = "sum") -> float:
    """The proxy ``ours`` under ``sum`` (published) or ``rss`` aggregation, plus ``sqrt(L)``."""
    values, _ = optimal(layers, N)
    if aggregation == "sum":
        total = values.sum()
    elif aggregation == "rss":
        total = math.sqrt(float((values**2).sum()))
    else:
        raise ValueError(f"aggregation must be 'sum' or 'rss', got {aggregation!r}")
    return float(total + math.sqrt(len(layers)))


def edelman(layers: tuple[LayerSummary, ...]) -> float:
    """``(1 + sum_l alpha^(l)^{2/3} xi_l)^{3/2}``."""
    return float((1 + sum(a ** (2 / 3) * layer.xi() for a, layer in zip(alphas(layers), layers))) ** 1.5)
