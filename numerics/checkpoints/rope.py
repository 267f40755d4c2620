"""Rotary position embeddings (RoPE) as a family's config states them, and the rotation ``R_delta`` they put between
a head's query and key maps.

Hugging Face's convention (``rotate_half``): the rotated part of a head vector is its first ``r`` coordinates
(``r = partial_rotary_factor * d_h``, even), paired as ``(t, t + r/2)`` for ``t < r/2`` and turned by the angle
``pos * inv_freq_t`` with ``inv_freq_t = theta^(-2t/r)`` (``rope_scaling`` of type ``linear`` divides it by its
factor).  Scores ``<R_i q, R_j k> = q^T R_(j-i) k``, so head ``h`` scores ``x_i Wq_h^T R_(j-i) Wk_g x_j^T``: the
objects to bound are the family ``{Wq_h^T R_delta Wk_g : |delta| < T}`` (T the context length), not its
``delta = 0`` member.  Scalings that also multiply cos and sin (``yarn``, ``longrope``: an attention factor) scale
the rotated part of every score by that factor squared; :attr:`RopeSpec.score_factor` carries max(factor^2, 1),
the norm of the scaled rotation (the unrotated dimensions keep factor 1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from sabounds.numerics.checkpoints.errors import shown

DEFAULT_THETA = 10000.0
DEFAULT_CONTEXT = 2048


@dataclass(frozen=True)
class RopeSpec:
    """``theta``, rotated dimensions ``rotary_dim`` of ``head_dim``, context length ``context``, ``scaling`` type,
    its ``factor`` and ``score_factor`` (the square of yarn's/longrope's attention factor, else 1)."""

    theta: float
    head_dim: int
    rotary_dim: int
    context: int
    scaling: str = "none"
    factor: float = 1.0
    score_factor: float = 1.0

    def inv_freq(self) -> np.ndarray:
        """``theta^(-2t/r)`` for ``t < r/2`` (divided by ``factor`` under ``linear`` scaling)."""
        freq = self.theta ** (-np.arange(0, self.rotary_dim, 2, dtype=np.float64) / self.rotary_dim)
        return freq / self.factor if self.scaling == "linear" else freq

    def describe(self) -> str:
        scaled = "" if self.scaling == "none" else f", {self.scaling} scaling x{self.factor:g}"
        return (
            f"rotary position embeddings (theta = {self.theta:g}, {self.rotary_dim} of {self.head_dim} head "
            f"dimensions rotated, context {self.context}{scaled})"
        )


def rope_from_config(config: Mapping, head_dim: int, where: str) -> RopeSpec:
    """The family's RoPE from ``config.json`` fields ``rope_theta``, ``partial_rotary_factor``, ``rope_scaling``,
    ``max_position_embeddings``; a bad value is a one-line ValueError naming the field."""
    theta = config.get("rope_theta", DEFAULT_THETA)
    factor = config.get("partial_rotary_factor", 1.0)
    context = config.get("max_position_embeddings", DEFAULT_CONTEXT)
    for name, value in (("rope_theta", theta), ("partial_rotary_factor", factor), ("max_position_embeddings", context)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise ValueError(f"{where}: field {name} must be a positive number, got {shown(value)}")
    rotary = int(head_dim * factor) // 2 * 2
    if not 2 <= rotary <= head_dim:
        raise ValueError(f"{where}: field partial_rotary_factor {factor} leaves {rotary} of {head_dim} dimensions")
    scaling = config.get("rope_scaling") or {}
    if not isinstance(scaling, Mapping):
        raise ValueError(f"{where}: field rope_scaling must be an object, got {shown(scaling)}")
    kind = str(scaling.get("rope_type", scaling.get("type", "none")))
    scale, attention = scaling.get("factor", 1.0) or 1.0, scaling.get("attention_factor")
    for name, value in (("rope_scaling.factor", scale), ("rope_scaling.attention_factor", attention)):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0
        ):
            raise ValueError(f"{where}: field {name} must be a positive number, got {shown(value)}")
    scale = float(scale)
    if kind in ("yarn", "longrope"):
        attention = float(attention or (0.1 * math.log(scale) + 1.0 if scale > 1 else 1.0))
    else:
        attention = 1.0
    return RopeSpec(float(theta), head_dim, rotary, int(context), kind, scale, max(attention**2, 1.0))


def rotation(spec: RopeSpec, delta: float) -> np.ndarray:
    """``R_delta`` (d_h x d_h, orthogonal): pairs ``(t, t + r/2)`` turned by ``delta inv_freq_t``, the rest fixed;
    ``rotate(q, i) . rotate(k, j) = q^T R_(j-i) k``."""
    half = spec.rotary_dim // 2
    angle = delta * spec.inv_freq()
    c, s = np.cos(angle), np.sin(angle)
    r = np.eye(spec.head_dim)
    idx = np.arange(half)
    r[idx, idx], r[idx + half, idx + half] = c, c
    r[idx, idx + half], r[idx + half, idx] = -s, s
    return r


def family_member(q_left: np.ndarray, k_right: np.ndarray, spec: RopeSpec, delta: float) -> np.ndarray:
    """``Wq_h^T R_delta Wk_g`` (N x N) from the factors ``Wq_h^T`` (N x d_h) and ``Wk_g`` (d_h x N)."""
    return spec.score_factor * (q_left @ rotation(spec, delta) @ k_right)


def family_bound(q_left: np.ndarray, k_right: np.ndarray, spec: RopeSpec | None = None) -> np.ndarray:
    """``b_i = c sigma_i(Wq_h) sigma_i(Wk_g)`` (c the score factor): for every orthogonal ``R`` and every ``k``,
    ``prod_{i<=k} sigma_i(Wq^T R Wk) <= prod_{i<=k} b_i`` (Horn), hence ``sigma_1 <= b_1`` and
    ``S_p(Wq^T R Wk) <= (sum b_i^p)^(1/p)`` for every p > 0, and the rank is at most ``#{b_i > 0} <= d_h``."""
    sq = np.linalg.svd(q_left, compute_uv=False)
    sk = np.linalg.svd(k_right, compute_uv=False)
    k = min(sq.size, sk.size)
    return (1.0 if spec is None else spec.score_factor) * sq[:k] * sk[:k]


def head_values(q_left: np.ndarray, k_right: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per head ``sigma(Wq_h)`` and ``sigma(Wk_g)``, one SVD per stored matrix: a key head shared by consecutive
    query heads (GQA: equal slices) is decomposed once."""
    sq = [np.linalg.svd(q_left[h], compute_uv=False) for h in range(q_left.shape[0])]
    sk: list[np.ndarray] = []
    for h in range(k_right.shape[0]):
        same = h > 0 and np.array_equal(k_right[h], k_right[h - 1])
        sk.append(sk[-1] if same else np.linalg.svd(k_right[h], compute_uv=False))
    return sq, sk


def family_spectra(q_left: np.ndarray, k_right: np.ndarray, spec: RopeSpec, width: int, values=None) -> np.ndarray:
    """Per head (stacked ``(H, N, d_h)`` and ``(H, d_h, N)`` factors), :func:`family_bound` padded with zeros to
    ``width``: the spectrum the analysis uses for a rotating head (``values``: :func:`head_values`, if computed)."""
    sq, sk = values or head_values(q_left, k_right)
    out = np.zeros((q_left.shape[0], width))
    for h in range(out.shape[0]):
        k = min(sq[h].size, sk[h].size)
        out[h, :k] = spec.score_factor * sq[h][:k] * sk[h][:k]
    return out


def family_rank_spectra(q_left: np.ndarray, k_right: np.ndarray, spec: RopeSpec, width: int, values=None) -> np.ndarray:
    """Per head ``c_k = c min(sigma_1(Wq_h) sigma_k(Wk_g), sigma_k(Wq_h) sigma_1(Wk_g))`` padded to ``width``: a bound
    on ``sigma_k`` of every member (``sigma_k(AB) <= sigma_1(A) sigma_k(B)``), hence on its thresholded rank.
    Horn's products do not bound each ``sigma_k``: ``b = (1, 9e-10)`` allows a member with
    ``sigma = (3e-5, 3e-5)``, so ``#{b_k > thr}`` can be below a member's rank; ``S_p`` (p > 0) keeps ``b``."""
    sq_all, sk_all = values or head_values(q_left, k_right)
    out = np.zeros((q_left.shape[0], width))
    for h in range(out.shape[0]):
        sq, sk = sq_all[h], sk_all[h]
        k = min(sq.size, sk.size)
        if k:
            out[h, :k] = spec.score_factor * np.minimum(sq[0] * sk[:k], sq[:k] * sk[0])
    return out
