"""Random BERT-like stacks: per layer, low-rank attention (QK_h, Vt_h of rank d_h = N/H) and a slowly decaying
feed-forward pair (M_in N x 4N, M_out 4N x N), in the orientation of docs/definitions.md.

Every layer is rescaled so that its Lipschitz factor (docs/definitions.md, ``sabounds.numerics.proxies.published_factors.layer_lipschitz``)
``lambda = L_phi ||M_in||_2 ||M_out||_2 sum_h ||Vt_h||_2 (1 + 4 ||QK_h||_2)`` equals ``lipschitz`` exactly; then
``alpha^(l) = lipschitz^(L - l)``: ``lipschitz = 1`` is the bounded regime, ``> 1`` the exponential one.

Spectra (chosen so that p = 0 is the optimal index of every matrix once L >= 8, see ``tests/theory/test_depth_properties.py``):
QK_h flat-ish in ``[q / kappa, q]``, q in [0.5, 0.6]; Vt_h flat-ish in ``[v / kappa, v]``, v in [0.02, 0.05]
(q and v drawn per layer, shared by its heads);
M_out uniform in [1, 2] (rank N); M_in a power law ``s i^{-beta}``, beta in [0.1, 0.3] (rank N); kappa = 1.25.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sabounds.numerics.norms import norm_21
from sabounds.numerics.proxies import published_factors as proxies
from sabounds.numerics.testbeds.random_matrices import with_spectrum

KAPPA = 1.25


@dataclass(frozen=True)
class Layer:
    """One layer's matrices: per-head ``qk`` and ``vt`` (N x N), ``m_in`` (N x 4N), ``m_out`` (4N x N)."""

    qk: tuple[np.ndarray, ...]
    vt: tuple[np.ndarray, ...]
    m_in: np.ndarray
    m_out: np.ndarray

    def norms(self) -> proxies.LayerNorms:
        """The spectral and (2,1)-norms the section-6 proxies use."""
        spectral = lambda mats: np.array([np.linalg.norm(a, 2) for a in mats])
        return proxies.LayerNorms(
            qk_spectral=spectral(self.qk),
            vt_spectral=spectral(self.vt),
            m_in_spectral=float(np.linalg.norm(self.m_in, 2)),
            m_out_spectral=float(np.linalg.norm(self.m_out, 2)),
            qk_21=norm_21(np.array(self.qk)),
            vt_21=norm_21(np.array(self.vt)),
            m_in_21=float(norm_21(self.m_in)),
            m_out_21=float(norm_21(self.m_out)),
        )

    def lipschitz(self) -> float:
        """The layer's Lipschitz factor ``sabounds.numerics.proxies.published_factors.layer_lipschitz``."""
        return proxies.layer_lipschitz(self.norms())


@dataclass(frozen=True)
class Stack:
    """``layers`` of width ``N`` with ``H`` heads; ``stack.prefix(L)`` is the stack of its first L layers."""

    layers: tuple[Layer, ...]
    N: int
    H: int

    def prefix(self, depth: int) -> Stack:
        return Stack(self.layers[:depth], self.N, self.H)

    def __repr__(self) -> str:
        factors = sorted({round(layer.lipschitz(), 6) for layer in self.layers})
        return f"Stack(L={len(self.layers)}, N={self.N}, H={self.H}, layer Lipschitz factors {factors})"

    def _repr_pretty_(self, printer, cycle) -> None:  # hypothesis' and IPython's pretty printers: the short form
        printer.text(repr(self))


def _flat_ish(rng: np.random.Generator, top: float, k: int, d: int) -> np.ndarray:
    head = np.sort(rng.uniform(top / KAPPA, top, size=k))[::-1]
    head[0] = top
    return np.concatenate([head, np.zeros(d - k)])


def bert_like_layer(
    rng: np.random.Generator, N: int, H: int, lipschitz: float = 1.0, spectra_rng: np.random.Generator | None = None
) -> Layer:
    """One random layer (spectra as in the module docstring), M_in rescaled so that ``layer.lipschitz() == lipschitz``.

    Singular vectors come from ``rng``; singular values from ``spectra_rng`` (default ``rng``).
    """
    if N % H:
        raise ValueError(f"H = {H} must divide N = {N}")
    d_h = N // H
    g = spectra_rng if spectra_rng is not None else rng
    q, v = g.uniform(0.5, 0.6), g.uniform(0.02, 0.05)
    qk_sigma = [_flat_ish(g, q, d_h, N) for _ in range(H)]
    vt_sigma = [_flat_ish(g, v, d_h, N) for _ in range(H)]
    out_sigma = np.sort(g.uniform(1.0, 2.0, size=N))[::-1]
    in_sigma = np.arange(1, N + 1, dtype=float) ** (-g.uniform(0.1, 0.3))
    qk = tuple(with_spectrum(rng, sigma, N, N) for sigma in qk_sigma)
    vt = tuple(with_spectrum(rng, sigma, N, N) for sigma in vt_sigma)
    m_out = with_spectrum(rng, out_sigma, 4 * N, N)
    m_in = with_spectrum(rng, in_sigma, N, 4 * N)
    layer = Layer(qk, vt, m_in, m_out)
    return Layer(qk, vt, m_in * (lipschitz / layer.lipschitz()), m_out)


def bert_like_stack(
    rng: np.random.Generator, L: int, N: int, H: int, lipschitz: float = 1.0, shared_spectra: bool = False
) -> Stack:
    """``L`` random layers of width N with H heads, each with Lipschitz factor ``lipschitz``.

    ``shared_spectra``: every layer has the same singular values (new singular vectors per layer), so the
    per-layer sums of the proxies differ only through the (2,1)-norms; otherwise layers are fully independent.
    """
    if L < 1:
        raise ValueError(f"need at least one layer, got L = {L}")
    seed = int(rng.integers(2**63))
    layers = tuple(
        bert_like_layer(rng, N, H, lipschitz, np.random.default_rng(seed) if shared_spectra else None) for _ in range(L)
    )
    return Stack(layers, N, H)
