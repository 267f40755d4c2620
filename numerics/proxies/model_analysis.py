"""Spectra and section-6 proxies of a BERT checkpoint: per-matrix rank, norms, p_opt, and the totals.

Two stages, so depth truncations reuse one pass over the weights: ``measure`` reads one layer at a time and
keeps only singular values and (2,1)-norms (QK_h and Vt_h through their d_h x d_h cores, M_in and M_out
through LAPACK); ``analyze_spectra`` evaluates the proxies of ``sabounds.numerics.proxies.published`` for the first L layers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from sabounds.numerics.checkpoints.bert import read_layer
from sabounds.numerics.checkpoints.reader import BertShape, Checkpoint, CheckpointError
from sabounds.numerics.norms import norm_21, product_norm_21
from sabounds.numerics.log_real import LogReal, from_ln
from sabounds.numerics.proxies.published import (L_PHI, LayerNorms, default_grid_m, log_alphas, log_edelman, log_gammas,
                                                 minimise_log, p_grid)
from sabounds.numerics.spectra import RANK_TOL, log_schatten_grid, product_singular_values, singular_values

TYPES = ("QK", "V_tilde", "M_in", "M_out")


@dataclass(frozen=True)
class LayerSpectra:
    """Singular values (each padded to ``min(d_in, d_out) = N``) and (2,1)-norms of one layer's matrices."""

    index: int
    qk: np.ndarray
    vt: np.ndarray
    m_in: np.ndarray
    m_out: np.ndarray
    qk_21: np.ndarray
    vt_21: np.ndarray
    m_in_21: float
    m_out_21: float

    def norms(self) -> LayerNorms:
        return LayerNorms(qk_spectral=self.qk[:, 0], vt_spectral=self.vt[:, 0], m_in_spectral=float(self.m_in[0]),
                          m_out_spectral=float(self.m_out[0]), qk_21=self.qk_21, vt_21=self.vt_21,
                          m_in_21=self.m_in_21, m_out_21=self.m_out_21)

    def matrices(self):
        """``(head, type, sigma)`` in table order: QK heads, V_tilde heads, M_in, M_out (head -1)."""
        for h, s in enumerate(self.qk):
            yield h, "QK", s
        for h, s in enumerate(self.vt):
            yield h, "V_tilde", s
        yield -1, "M_in", self.m_in
        yield -1, "M_out", self.m_out


def measure_layer(checkpoint: Checkpoint, index: int) -> LayerSpectra:
    """Read one layer and reduce it to spectra and (2,1)-norms; its weights are dropped on return."""
    layer = read_layer(checkpoint, index)
    try:
        return _layer_spectra(layer, index)
    except ValueError as exc:  # a spectrum or norm beyond float64: name the layer's tensors
        raise CheckpointError(f"{checkpoint.model_dir}: layer {index} (tensors encoder.layer.{index}.*): {exc}") from None


def _layer_spectra(layer, index: int) -> LayerSpectra:
    return LayerSpectra(
        index=index,
        qk=product_singular_values(layer.qk_left, layer.qk_right),
        vt=product_singular_values(layer.vt_left, layer.vt_right),
        m_in=singular_values(layer.m_in), m_out=singular_values(layer.m_out),
        qk_21=product_norm_21(layer.qk_left, layer.qk_right), vt_21=product_norm_21(layer.vt_left, layer.vt_right),
        m_in_21=float(norm_21(layer.m_in)), m_out_21=float(norm_21(layer.m_out)))


def measure(checkpoint: Checkpoint, layers: int, progress: Callable[[str], None] | None = None) -> list[LayerSpectra]:
    """Spectra of the first ``layers`` layers, one layer resident at a time; ``progress(note)`` after each."""
    out = []
    for index in range(layers):
        out.append(measure_layer(checkpoint, index))
        if progress is not None:
            progress(f"layer {index}")
    return out


@dataclass(frozen=True)
class MatrixResult:
    """One matrix's row of the analysis (``layer`` 0-based, ``head`` -1 for M_in and M_out)."""

    layer: int
    head: int
    type: str
    rank: int
    spectral_norm: float
    frobenius_norm: float
    norm_21: float
    stable_rank: float
    alpha: float | LogReal  # a LogReal where the value leaves float64 (numerics/log_real.py)
    gamma: float | LogReal
    scale: float | LogReal
    p_opt: float
    min_contribution: float
    sigma: np.ndarray = field(repr=False)
    contributions: np.ndarray = field(repr=False)

    def to_json(self) -> dict:
        return {"layer": self.layer, "head": self.head, "type": self.type, "rank": self.rank,
                "spectral_norm": self.spectral_norm, "frobenius_norm": self.frobenius_norm, "norm_21": self.norm_21,
                "stable_rank": self.stable_rank, "alpha": self.alpha, "gamma": self.gamma, "scale": self.scale,
                "p_opt": self.p_opt, "min_contribution": self.min_contribution}


@dataclass(frozen=True)
class Variants:
    """The section-3 variants, beside the published totals: L_phi inside gamma; Edelman's QK term with factor 2."""

    ours_lphi_in_gamma: float
    edelman_qk_factor_2: float | LogReal


@dataclass(frozen=True)
class ModelAnalysis:
    """Everything ``sabounds analyze`` reports for an ``L``-layer model (or a depth truncation)."""

    shape: BertShape
    grid_m: int
    lphi: float
    rank_tol: float
    ps: np.ndarray
    matrices: list[MatrixResult]
    ours: float
    edelman: float | LogReal
    variants: Variants

    @property
    def rank_count(self) -> float:
        """``sum sqrt(rank N) + sqrt(L)``: what ``ours`` equals when every matrix chooses p = 0."""
        n = self.shape.hidden
        return sum(math.sqrt(m.rank * n) for m in self.matrices) + math.sqrt(self.shape.layers)

    def p_zero_counts(self) -> dict[str, tuple[int, int]]:
        """Per type: (how many matrices chose p = 0, how many there are)."""
        return {t: (sum(m.p_opt == 0.0 for m in self.matrices if m.type == t),
                    sum(m.type == t for m in self.matrices)) for t in TYPES}

    def to_json(self) -> dict:
        s = self.shape
        return {"model": {"L": s.layers, "N": s.hidden, "heads": s.heads, "head_dim": s.head_dim,
                          "intermediate": s.intermediate},
                "grid_m": self.grid_m,
                "matrices": [m.to_json() for m in self.matrices],
                "totals": {"ours": self.ours, "edelman": self.edelman},
                "variants": {"ours_lphi_in_gamma": self.variants.ours_lphi_in_gamma,
                             "edelman_qk_factor_2": self.variants.edelman_qk_factor_2},
                "settings": {"lphi": self.lphi, "rank_tol": self.rank_tol}}


def analyze_spectra(spectra: list[LayerSpectra], shape: BertShape, lphi: float = L_PHI, grid_m: int | None = None,
                    rank_tol: float = RANK_TOL) -> ModelAnalysis:
    """The section-6 proxies of the model made of ``spectra`` (its ``L = len(spectra)`` first layers)."""
    shape = shape.truncated(len(spectra))
    depth, n = shape.layers, shape.hidden
    m = default_grid_m(depth, n) if grid_m is None else grid_m
    ps = p_grid(m)
    norms = [s.norms() for s in spectra]
    alpha = log_alphas(norms, lphi)  # natural logs throughout: alpha, gamma, scale and S_p can leave float64
    rows, gamma_pub, gamma_var, sigmas, norm21 = [], [], [], [], []
    for s, nl, a in zip(spectra, norms, alpha):
        pub, var = log_gammas(nl), log_gammas(nl, lphi_in_gamma=lphi)
        by_type = {"QK": (pub.qk, var.qk, s.qk_21), "V_tilde": (pub.vt, var.vt, s.vt_21),
                   "M_in": ([pub.m_in], [var.m_in], [s.m_in_21]), "M_out": ([pub.m_out], [var.m_out], [s.m_out_21])}
        for head, kind, sigma in s.matrices():
            g_pub, g_var, n21 = by_type[kind]
            i = max(head, 0)
            rows.append((s.index, head, kind, float(a)))
            gamma_pub.append(float(g_pub[i]))
            gamma_var.append(float(g_var[i]))
            norm21.append(float(n21[i]))
            sigmas.append(sigma)
    sigma_table = np.array(sigmas)
    log_s_p = np.array([log_schatten_grid(sg, ps, rank_tol) for sg in sigma_table])
    layer_alpha = np.array([r[3] for r in rows])
    log_depth = math.log(depth)
    scale = np.array(gamma_pub) + layer_alpha + log_depth
    table, best, minima = minimise_log(log_s_p, ps, scale, n)
    _, _, minima_var = minimise_log(log_s_p, ps, np.array(gamma_var) + layer_alpha + log_depth, n)
    with np.errstate(over="ignore"):
        table = np.exp(table)  # for figures only; a value beyond float64 is inf there and not drawn
    matrices = []
    for i, (layer, head, kind, a) in enumerate(rows):
        sg = sigma_table[i]
        spectral = float(sg[0])
        relative = float(math.sqrt(np.sum(np.square(sg / spectral)))) if spectral > 0 else 0.0
        matrices.append(MatrixResult(
            layer=layer, head=head, type=kind, rank=int(round(math.exp(log_s_p[i, 0]))), spectral_norm=spectral,
            frobenius_norm=_finite(spectral * relative, "Frobenius norm", layer, kind), norm_21=norm21[i],
            stable_rank=relative ** 2, alpha=from_ln(a), gamma=from_ln(gamma_pub[i]), scale=from_ln(scale[i]),
            p_opt=float(ps[best[i]]), min_contribution=float(minima[i]), sigma=sg, contributions=table[i]))
    root_l = math.sqrt(depth)
    return ModelAnalysis(shape=shape, grid_m=m, lphi=lphi, rank_tol=rank_tol, ps=ps, matrices=matrices,
                         ours=float(np.sum(minima)) + root_l, edelman=from_ln(log_edelman(norms, alpha)),
                         variants=Variants(ours_lphi_in_gamma=float(np.sum(minima_var)) + root_l,
                                           edelman_qk_factor_2=from_ln(log_edelman(norms, alpha, qk_factor=2.0))))


def _finite(value: float, what: str, layer: int, kind: str) -> float:
    if not math.isfinite(value):
        raise ValueError(f"layer {layer} {kind}: {what} exceeds the float64 range")
    return value


def open_checkpoint(model_dir: str | Path, layers: int | None = None, allow_pickle: bool = False) -> tuple[Checkpoint, int]:
    """Open a model directory and validate the requested depth ``1 <= layers <= L``."""
    checkpoint = Checkpoint(model_dir, allow_pickle=allow_pickle)
    total = checkpoint.shape.layers
    depth = total if layers is None else layers
    if not 1 <= depth <= total:
        raise CheckpointError(f"{checkpoint.model_dir / 'config.json'}: --layers {layers} outside 1..{total} "
                              "(field num_hidden_layers)")
    return checkpoint, depth


def analyze_model(model_dir: str | Path, layers: int | None = None, lphi: float = L_PHI, grid_m: int | None = None,
                  rank_tol: float = RANK_TOL, progress: Callable[[str], None] | None = None,
                  allow_pickle: bool = False) -> ModelAnalysis:
    """Analyse the first ``layers`` layers (all by default) of a checkpoint directory as an ``L = layers`` model."""
    checkpoint, depth = open_checkpoint(model_dir, layers, allow_pickle)
    return analyze_spectra(measure(checkpoint, depth, progress), checkpoint.shape, lphi, grid_m, rank_tol)
