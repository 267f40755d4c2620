"""The published proxies of docs/definitions.md on prefixes of a random stack, for the depth-claim properties.

The factors are those of ``sabounds.numerics.proxies.published_factors`` (``alpha``, ``gamma``), the proxies the
compiled ``sabounds.numerics.expressions.published_compiled`` (contribution over ``P_m``, ``m = ceil(L + ln N)``, first
minimiser, ``edelman``).  Specific to this module: a stack is summarised once (norms and singular values
per layer) so that its prefixes are cheap to evaluate, and the ``rss`` aggregation
``sqrt(sum_k (min_p contribution_k)^2) + sqrt(L)`` beside the published ``sum`` (section 5: exact when all optimal p
are equal).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sabounds.numerics.expressions import published_compiled as compiled
from sabounds.numerics.log_real import from_ln
from sabounds.numerics.proxies import published_factors as proxies
from sabounds.numerics.spectra import schatten_grid, singular_values
from sabounds.numerics.testbeds.random_stacks import Layer, Stack


@dataclass(frozen=True)
class LayerSummary:
    """What the proxies need from one layer: its norms and the singular values of QK_h, Vt_h, M_in, M_out in order."""

    norms: proxies.LayerNorms
    sigmas: tuple[np.ndarray, ...]

    @property
    def lipschitz(self) -> float:
        return proxies.layer_lipschitz(self.norms)

    def slots(self) -> list[tuple[np.ndarray, float]]:
        """``(singular values, gamma)`` of every matrix: QK_h, Vt_h, M_in, M_out (docs/definitions.md)."""
        g = proxies.gammas(self.norms)
        return list(zip(self.sigmas, [*g.qk, *g.vt, g.m_in, g.m_out]))


def summarise(layer: Layer) -> LayerSummary:
    return LayerSummary(layer.norms(), tuple(map(singular_values, (*layer.qk, *layer.vt, layer.m_in, layer.m_out))))


def summarise_stack(stack: Stack) -> tuple[LayerSummary, ...]:
    return tuple(summarise(layer) for layer in stack.layers)


def alphas(layers: tuple[LayerSummary, ...]) -> np.ndarray:
    """``alpha^(l)`` of ``sabounds.numerics.proxies.published_factors.alphas`` for the stack made of ``layers``."""
    return proxies.alphas([layer.norms for layer in layers])


def optimal(layers: tuple[LayerSummary, ...], N: int) -> tuple[np.ndarray, np.ndarray]:
    """Per matrix (layer by layer, in ``slots`` order): the minimal contribution over ``P_m`` and its first minimiser."""
    L = len(layers)
    ps = proxies.p_grid(proxies.default_grid_m(L, N))
    slots = [(sigma, gamma * alpha) for layer, alpha in zip(layers, alphas(layers)) for sigma, gamma in layer.slots()]
    with np.errstate(divide="ignore"):
        log_s_p = np.log(np.array([schatten_grid(sigma, ps) for sigma, _ in slots]))
        log_rho = np.log(np.array([rho for _, rho in slots]))
    _, best, minima = compiled.minimise_ours(log_s_p, ps, log_rho, L, N)
    return minima, ps[best]


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
    """``edelman`` (``published_compiled.log_edelman``) of the stack made of ``layers``: ``gamma^E`` is ``gamma`` without
    QK's factor 2."""
    log_rho, norm_21 = [], []
    for layer, alpha in zip(layers, alphas(layers)):
        n = layer.norms
        heads = len(n.qk_spectral)
        with np.errstate(divide="ignore", over="ignore"):
            log_rho += [
                np.log(alpha * gamma) - (math.log(2.0) if i < heads else 0.0)
                for i, (_, gamma) in enumerate(layer.slots())
            ]
        norm_21 += [*n.qk_21, *n.vt_21, n.m_in_21, n.m_out_21]
    return float(from_ln(compiled.log_edelman(np.array(log_rho), np.array(norm_21))))
