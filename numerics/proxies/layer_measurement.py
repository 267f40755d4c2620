"""Measure a checkpoint one layer at a time: each layer reduced to singular values, (2,1)- and (1,1)-norms and the
pre-LN norms' gains (:class:`LayerSpectra`), its weights dropped on return; a model's first layers as a
:class:`MeasuredModel`.

QK_h and Vt_h go through their d_h x d_h cores (``product_singular_values``), the MLP matrices through the certified
Gram route or LAPACK (``sabounds.numerics.certified_spectra``); with RoPE, QK_h is the family's certified bound
(``sabounds.numerics.checkpoints.rope``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sabounds.numerics.certified_spectra import certified_values
from sabounds.numerics.checkpoints import rope
from sabounds.numerics.checkpoints.architectures import PRE_LN
from sabounds.numerics.checkpoints.errors import CheckpointError
from sabounds.numerics.checkpoints.layers import group_of
from sabounds.numerics.checkpoints.source import CheckpointSource, ModelShape
from sabounds.numerics.norms import product_norm_11, product_norm_21
from sabounds.numerics.proxies.layer_factors import TokenNorm, token_norm
from sabounds.numerics.proxies.published_factors import LayerNorms
from sabounds.numerics.proxies.storage_rank import layer_sums, rounding_thresholds, source_storage
from sabounds.numerics.spectra import product_singular_values


@dataclass(frozen=True)
class LayerSpectra:
    """Singular values (each padded to ``min(d_in, d_out)``) and (2,1)-norms of one layer's matrices;
    ``m_gate`` only for a gated MLP; the pre-LN norms' ``*_gain`` (max|g|) and ``*_radius`` (``sqrt(N) max|g| + ||b||``),
    ``norm_assumed`` (bit 1: pre-attention, bit 2: pre-MLP weight missing, max|g| <= 1 assumed); with RoPE, ``qk``
    holds the family's certified bound ``sigma_i(Wq_h) sigma_i(Wk_g)`` and ``qk_delta0`` the delta = 0 member's norm."""

    index: int
    qk: np.ndarray
    vt: np.ndarray
    m_in: np.ndarray
    m_out: np.ndarray
    qk_21: np.ndarray
    vt_21: np.ndarray
    m_in_21: float
    m_out_21: float
    m_gate: np.ndarray | None = None
    m_gate_21: float | None = None
    mlp_radius: float | None = None
    mlp_gain: float | None = None
    attn_gain: float | None = None
    attn_radius: float | None = None
    norm_assumed: float = 0.0
    qk_delta0: np.ndarray | None = None
    qk_rank: np.ndarray | None = None
    """With RoPE, per head a bound on each member's ``sigma_k`` (``rope.family_rank_spectra``): its S_0."""
    qk_11: np.ndarray | None = None
    vt_11: np.ndarray | None = None
    m_in_11: float | None = None
    m_out_11: float | None = None
    raw_11: float | None = None
    m_gate_11: float | None = None
    """(1,1)-norms (entrywise l1) for the Trauger-Tewari rows: of QK_h (at delta = 0 with RoPE), Vt_h, M_in, M_out, and
    ``raw_11`` the sum over the layer's stored weight factors (q, k, v, o, up, down, gate; each tensor once)."""
    post_radii: np.ndarray | None = None
    """Post-LN: output bounds ``sqrt(N) max|g| + ||b||`` of the LayerNorms after attention and after the MLP (None
    unless the checkpoint has both weights): they cap the whole bound's token norms (whole_bound 'token_norms')."""
    rounding: dict | None = field(default=None, repr=False, compare=False)
    """The storage-aware rank's thresholds ``tau`` per type (numerics/proxies/storage_rank.py), same pass."""

    def token_norms(self) -> tuple[TokenNorm | None, TokenNorm | None]:
        """(pre-attention, pre-MLP) norms as ``layer_factors.TokenNorm`` (None where not measured)."""
        return (
            TokenNorm.stored(self.attn_gain, self.attn_radius, int(self.norm_assumed) & 1, "pre-attention"),
            TokenNorm.stored(self.mlp_gain, self.mlp_radius, int(self.norm_assumed) & 2, "pre-MLP"),
        )

    def norms(self) -> LayerNorms:
        return LayerNorms(
            qk_spectral=self.qk[:, 0],
            vt_spectral=self.vt[:, 0],
            m_in_spectral=float(self.m_in[0]),
            m_out_spectral=float(self.m_out[0]),
            qk_21=self.qk_21,
            vt_21=self.vt_21,
            m_in_21=self.m_in_21,
            m_out_21=self.m_out_21,
        )

    def spectral(self) -> dict:
        """Spectral norms per type (arrays over heads for QK and V_tilde)."""
        out = {
            "QK": self.qk[:, 0],
            "V_tilde": self.vt[:, 0],
            "M_in": float(self.m_in[0]),
            "M_out": float(self.m_out[0]),
        }
        if self.m_gate is not None:
            out["M_gate"] = float(self.m_gate[0])
        return out

    def matrices(self):
        """``(head, type, sigma)`` in table order: QK heads, V_tilde heads, M_in, M_out, M_gate (head -1)."""
        for h, s in enumerate(self.qk):
            yield h, "QK", s
        for h, s in enumerate(self.vt):
            yield h, "V_tilde", s
        yield -1, "M_in", self.m_in
        yield -1, "M_out", self.m_out
        if self.m_gate is not None:
            yield -1, "M_gate", self.m_gate


def measure_layer(
    source: CheckpointSource, index: int, spectrum: Callable[[np.ndarray, float], np.ndarray] | None = None
) -> LayerSpectra:
    """Read one layer and reduce it to spectra and (2,1)-norms; its weights are dropped on return.  ``spectrum(w,
    top)`` computes the MLP matrices' singular values, ``top = max|w|`` from the layer's entrywise pass (default
    ``certified_values``: Gram eigenvalues where proven to 1e-9 relative, else LAPACK)."""
    spectrum = certified_values if spectrum is None else spectrum
    split = getattr(source, "layer_and_bounds", None)
    layer, bounds = split(index) if split is not None else (source.layer(index), None)
    try:
        u, dtype = source_roundoff(source)
        sums = layer_sums(layer, dtype)
        rounding = rounding_thresholds(layer, u, dtype, bounds, sums)
        return _layer_spectra(source, layer, index, spectrum, rounding, sums)
    except ValueError as exc:  # a spectrum or norm beyond float64: name the layer
        raise CheckpointError(f"{source.label}: layer {index}: {exc}") from None


def source_roundoff(source) -> tuple[float, str]:
    """The storage's unit roundoff and float dtype (safetensors headers; F64 otherwise), read once per source."""
    u = getattr(source, "_unit_roundoff", None)
    if u is None:
        u = source_storage(source)
        try:
            source._unit_roundoff = u
        except AttributeError:
            pass
    return u


def _layer_spectra(source, layer, index: int, spectrum, rounding=None, sums=None) -> LayerSpectra:
    sums = layer_sums(layer) if sums is None else sums
    gated = layer.m_gate is not None
    shape = source.shape
    rotating = shape.rope is not None
    shared = _shared_heads(shape)
    qk = product_singular_values(layer.qk_left, layer.qk_right, factor_values=rotating, right_groups=shared)
    if rotating:  # one QR per head factor gives sigma(QK_h(0)), sigma(Wq_h) and sigma(Wk_g)
        qk, values = qk[0], (list(qk[1]), list(qk[2]))
    qk_21 = None if rotating else product_norm_21(layer.qk_left, layer.qk_right)
    norms, qk_delta0 = {}, None
    if shape.layout == PRE_LN:
        attn = token_norm(shape.hidden, layer.attn_norm, layer.attn_norm_bias, "pre-attention")
        mlp = token_norm(shape.hidden, layer.mlp_norm, layer.mlp_norm_bias, "pre-MLP")
        norms = dict(
            attn_gain=attn.gain,
            attn_radius=attn.radius,
            mlp_gain=mlp.gain,
            mlp_radius=mlp.radius,
            norm_assumed=float((attn.assumed is not None) + 2 * (mlp.assumed is not None)),
        )
    elif getattr(layer, "post_norms", None) and all(w is not None for w, _ in layer.post_norms):
        norms["post_radii"] = np.array([token_norm(shape.hidden, w, b, "post-LN").radius for w, b in layer.post_norms])
    if rotating:
        if rounding is not None:  # a rotating head's storage-aware rank from its stored factors' values
            rounding = {**rounding, "QK_left_sigma": np.array(values[0]), "QK_right_sigma": np.array(values[1])}
        qk_delta0 = qk[:, 0].copy()
        qk = rope.family_spectra(layer.qk_left, layer.qk_right, shape.rope, qk.shape[1], values)
        norms["qk_rank"] = rope.family_rank_spectra(layer.qk_left, layer.qk_right, shape.rope, qk.shape[1], values)
        qk_21 = (
            np.array(
                [
                    float(values[0][h][0]) * float(np.sum(np.linalg.norm(layer.qk_right[h], axis=0)))
                    for h in range(qk.shape[0])
                ]
            )
            * shape.rope.score_factor
        )
    return LayerSpectra(
        rounding=rounding,
        index=index,
        qk=qk,
        vt=product_singular_values(layer.vt_left, layer.vt_right, left_groups=shared),
        m_in=spectrum(layer.m_in, sums["m_in"].max_abs),
        m_out=spectrum(layer.m_out, sums["m_out"].max_abs),
        qk_21=qk_21,
        vt_21=product_norm_21(layer.vt_left, layer.vt_right),
        m_in_21=float(sums["m_in"].norm_21),
        m_out_21=float(sums["m_out"].norm_21),
        m_gate=spectrum(layer.m_gate, sums["m_gate"].max_abs) if gated else None,
        m_gate_21=float(sums["m_gate"].norm_21) if gated else None,
        qk_delta0=qk_delta0,
        **norms,
        **_entrywise_l1(layer, shape, sums),
    )


def _shared_heads(shape) -> np.ndarray | None:
    """Per query head its key/value head ``g(h)`` where heads share them (GQA: ``qk_right`` and ``vt_left`` repeat
    per group), else None."""
    if not shape.kv_heads or shape.kv_heads == shape.heads:
        return None
    return group_of(shape.heads, shape.kv_heads)


def _entrywise_l1(layer, shape, sums) -> dict:
    """The (1,1)-norms of :class:`LayerSpectra` from the layer's :func:`layer_sums` and the heads' products;
    shared key/value heads (GQA) counted once in ``raw_11``."""
    share = shape.kv_heads / shape.heads if shape.kv_heads else 1.0
    l1 = {name: s.norm_11 for name, s in sums.items()}
    factors = (
        float(np.sum(l1["qk_left"]))
        + share * float(np.sum(l1["qk_right"]))
        + share * float(np.sum(l1["vt_left"]))
        + float(np.sum(l1["vt_right"]))
    )
    mlp = [float(l1[name]) for name in ("m_in", "m_out", "m_gate") if name in l1]
    return dict(
        qk_11=product_norm_11(layer.qk_left, layer.qk_right),
        vt_11=product_norm_11(layer.vt_left, layer.vt_right),
        m_in_11=mlp[0],
        m_out_11=mlp[1],
        m_gate_11=mlp[2] if len(mlp) > 2 else None,
        raw_11=factors + sum(mlp),
    )


def measure(
    checkpoint: CheckpointSource, layers: int, progress: Callable[[str], None] | None = None
) -> list[LayerSpectra]:
    """Spectra of the first ``layers`` layers, one layer resident at a time; ``progress(note)`` after each."""
    out = []
    for index in range(layers):
        out.append(measure_layer(checkpoint, index))
        if progress is not None:
            progress(f"layer {index}")
    return out


@dataclass(frozen=True)
class MeasuredModel:
    """The spectra of a model's first ``len(layers)`` layers, with its shape and where it came from."""

    label: str
    shape: ModelShape
    layers: list[LayerSpectra]
    model_dir: Path | None = None

    def truncated(self, depth: int) -> MeasuredModel:
        """Its first ``depth`` layers (a depth truncation, not a model trained at that depth)."""
        if not 1 <= depth <= len(self.layers):
            raise ValueError(f"depth {depth} outside 1..{len(self.layers)}")
        return MeasuredModel(self.label, self.shape.truncated(depth), self.layers[:depth], self.model_dir)


def measure_model(
    source: CheckpointSource, layers: int | None = None, progress: Callable[[str], None] | None = None
) -> MeasuredModel:
    """Measure the first ``layers`` layers (all by default) of an opened checkpoint."""
    depth = check_depth(source, layers)
    return MeasuredModel(
        source.label, source.shape.truncated(depth), measure(source, depth, progress), source.model_dir
    )


def check_depth(source: CheckpointSource, layers: int | None) -> int:
    """``layers`` (all by default), refused in one line unless ``1 <= layers <= L``."""
    total = source.shape.layers
    depth = total if layers is None else layers
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= total:
        raise CheckpointError(f"{source.size_fields.get('layers', source.label)}: --layers {layers} outside 1..{total}")
    return depth
