"""The matrices of one BERT layer in the paper's row-vector orientation (THEORY.md section 2).

Hugging Face ``Linear.weight`` is (out, in).  With ``q, k, v, o`` the query, key, value and attention-output
weights and ``d_h = N/H``: ``Wq_h = q[h d_h:(h+1) d_h, :]`` (same for k, v), ``Wo_h = o.T[h d_h:(h+1) d_h, :]``,
``QK_h = Wq_h^T Wk_h``, ``Vt_h = Wv_h^T Wo_h`` (N x N, rank <= d_h), ``M_in = intermediate.weight.T`` (N x 4N),
``M_out = output.weight.T`` (4N x N).  QK_h and Vt_h are kept as their ``N x d_h`` and ``d_h x N`` factors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sabounds.numerics.checkpoints.reader import BertShape, Checkpoint


@dataclass(frozen=True)
class LayerMatrices:
    """One layer: per-head factors stacked over heads (``(H, N, d_h)`` left, ``(H, d_h, N)`` right), M_in, M_out."""

    index: int
    qk_left: np.ndarray
    qk_right: np.ndarray
    vt_left: np.ndarray
    vt_right: np.ndarray
    m_in: np.ndarray
    m_out: np.ndarray

    def qk(self, head: int) -> np.ndarray:
        """``QK_h = Wq_h^T Wk_h`` (N x N)."""
        return self.qk_left[head] @ self.qk_right[head]

    def vt(self, head: int) -> np.ndarray:
        """``Vt_h = Wv_h^T Wo_h`` (N x N)."""
        return self.vt_left[head] @ self.vt_right[head]


def _per_head(weight: np.ndarray, heads: int) -> np.ndarray:
    """Row blocks ``weight[h d_h:(h+1) d_h, :]`` stacked: shape ``(H, d_h, N)``."""
    return weight.reshape(heads, weight.shape[0] // heads, weight.shape[1])


def read_layer(checkpoint: Checkpoint, index: int, shape: BertShape | None = None) -> LayerMatrices:
    """Read layer ``index`` (0-based, as in ``encoder.layer.<index>``) and cut it into the paper's matrices."""
    shape = shape or checkpoint.shape
    n, heads, inner = shape.hidden, shape.heads, shape.intermediate
    base = f"encoder.layer.{index}."
    q = checkpoint.tensor(base + "attention.self.query.weight", (n, n))
    k = checkpoint.tensor(base + "attention.self.key.weight", (n, n))
    v = checkpoint.tensor(base + "attention.self.value.weight", (n, n))
    o = checkpoint.tensor(base + "attention.output.dense.weight", (n, n))
    m_in = checkpoint.tensor(base + "intermediate.dense.weight", (inner, n)).T
    m_out = checkpoint.tensor(base + "output.dense.weight", (n, inner)).T
    wq, wk, wv = (_per_head(w, heads) for w in (q, k, v))
    wo = _per_head(np.ascontiguousarray(o.T), heads)
    return LayerMatrices(index=index, qk_left=wq.transpose(0, 2, 1), qk_right=wk,
                         vt_left=wv.transpose(0, 2, 1), vt_right=wo, m_in=m_in, m_out=m_out)
