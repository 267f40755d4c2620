"""The matrices of one layer in the paper's row-vector orientation (docs/definitions.md), for any family.

Weights are first brought to ``nn.Linear``'s ``(out, in)`` layout (``in_out`` storage is transposed; a fused
``qkv`` tensor is split by rows into ``H d_h``, ``G d_h``, ``G d_h``).  With ``d_h`` the head size, ``G`` the
number of key/value heads and ``g(h) = floor(h G / H)`` the group of query head ``h`` (grouped-query attention;
``G = H`` is ordinary multi-head attention):
``Wq_h = q[h d_h:(h+1) d_h, :]``, ``Wk_g = k[g d_h:(g+1) d_h, :]`` (same for v), ``Wo_h = o.T[h d_h:(h+1) d_h, :]``,
``QK_h = Wq_h^T Wk_{g(h)}``, ``Vt_h = Wv_{g(h)}^T Wo_h`` (N x N, rank <= d_h), ``M_in = up.T`` (N x I),
``M_out = down.T`` (I x N) and, for a gated MLP, ``M_gate = gate.T`` (N x I).  QK_h and Vt_h are kept as their
``N x d_h`` and ``d_h x N`` factors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LayerMatrices:
    """One layer: per-head factors stacked over heads (``(H, N, d_h)`` left, ``(H, d_h, N)`` right), M_in, M_out,
    and ``m_gate`` (None unless the MLP is gated); ``attn_norm``, ``mlp_norm`` (and ``*_bias``) are the pre-attention
    and pre-MLP norms' weights (as applied, Gemma's offset included) and LayerNorm biases where the family has them."""

    index: int
    qk_left: np.ndarray
    qk_right: np.ndarray
    vt_left: np.ndarray
    vt_right: np.ndarray
    m_in: np.ndarray
    m_out: np.ndarray
    m_gate: np.ndarray | None = None
    mlp_norm: np.ndarray | None = None
    attn_norm: np.ndarray | None = None
    mlp_norm_bias: np.ndarray | None = None
    attn_norm_bias: np.ndarray | None = None
    post_norms: tuple | None = None
    """Post-LN: ``((weight, bias), (weight, bias))`` of the LayerNorm after attention and after the MLP (None if absent)."""

    def qk(self, head: int) -> np.ndarray:
        """``QK_h = Wq_h^T Wk_{g(h)}`` (N x N)."""
        return self.qk_left[head] @ self.qk_right[head]

    def vt(self, head: int) -> np.ndarray:
        """``Vt_h = Wv_{g(h)}^T Wo_h`` (N x N)."""
        return self.vt_left[head] @ self.vt_right[head]


def per_head(weight: np.ndarray, heads: int) -> np.ndarray:
    """Row blocks ``weight[h d_h:(h+1) d_h, :]`` stacked: shape ``(heads, d_h, N)``."""
    return weight.reshape(heads, weight.shape[0] // heads, weight.shape[1])


def group_of(heads: int, kv_heads: int) -> np.ndarray:
    """``g(h) = floor(h G / H)``: query heads ``h`` in consecutive blocks of ``H / G`` share key/value head ``g``."""
    return (np.arange(heads) * kv_heads) // heads


def assemble(
    index: int,
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    o: np.ndarray,
    up: np.ndarray,
    down: np.ndarray,
    heads: int,
    kv_heads: int,
    gate: np.ndarray | None = None,
    mlp_norm: np.ndarray | None = None,
    attn_norm: np.ndarray | None = None,
    mlp_norm_bias: np.ndarray | None = None,
    attn_norm_bias: np.ndarray | None = None,
    post_norms: tuple | None = None,
) -> LayerMatrices:
    """The paper's matrices from ``(out, in)`` weights: q (H d_h x N), k, v (G d_h x N), o (N x H d_h), up, gate
    (I x N), down (N x I)."""
    wq, wk, wv = per_head(q, heads), per_head(k, kv_heads), per_head(v, kv_heads)
    wo = per_head(np.ascontiguousarray(o.T), heads)
    g = group_of(heads, kv_heads)
    return LayerMatrices(
        index=index,
        qk_left=wq.transpose(0, 2, 1),
        qk_right=wk[g],
        vt_left=wv[g].transpose(0, 2, 1),
        vt_right=wo,
        m_in=up.T,
        m_out=down.T,
        m_gate=None if gate is None else gate.T,
        mlp_norm=mlp_norm,
        attn_norm=attn_norm,
        mlp_norm_bias=mlp_norm_bias,
        attn_norm_bias=attn_norm_bias,
        post_norms=post_norms,
    )
