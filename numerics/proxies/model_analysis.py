"""The one pipeline from weights to the paper's proxies: open -> measure -> analyse, for every family and source.

``open_checkpoint(source, mapping)`` opens a folder, ONNX file, dict of arrays or torch weights
(``sabounds.numerics.checkpoints``); ``measure_model`` reads one layer at a time (``measure_layer``) and keeps only
singular values and (2,1)-norms (QK_h and Vt_h through their d_h x d_h cores, the MLP matrices through LAPACK);
``analyze_measured`` evaluates the proxies for the first L layers: the published proxy (factors of
``sabounds.numerics.proxies.published_factors``, ours and Edelman printed from the catalog's sympy) where the
family's layer is the published one (post-LN, GELU, ungated, one K/V per head), the labelled extension of ``sabounds.numerics.proxies.layer_factors`` elsewhere.  The CLI's
``analyze``, ``scaling`` and ``report`` all go through these functions.  Measuring is
``sabounds.numerics.proxies.layer_measurement``, the result types ``sabounds.numerics.proxies.analysis_results``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from sabounds.numerics.checkpoints.source import CheckpointSource, ModelShape, open_source
from sabounds.numerics.expressions.published_compiled import grid_size, log_edelman, minimise_ours, ours_total
from sabounds.numerics.log_real import from_ln
from sabounds.numerics.proxies.analysis_results import MatrixResult, ModelAnalysis, VariantTotals
from sabounds.numerics.proxies.layer_factors import (
    TokenNorm,
    activation_constant,
    departures,
    extension_factors,
    extension_notes,
    premise_for,
)
from sabounds.numerics.proxies.layer_measurement import LayerSpectra, MeasuredModel, measure_layer, measure_model
from sabounds.numerics.proxies.published_factors import L_PHI, log_alphas, log_gammas, p_grid
from sabounds.numerics.spectra import RANK_TOL, log_schatten_grid, numerical_rank


def _factors(spectra: list[LayerSpectra], shape: ModelShape, lphi: float, premise=None):
    """Per layer: ln alpha, and per matrix (in ``matrices()`` order) ln gamma and ln of gamma's variant.  Natural
    logs throughout: alpha and gamma are products of many norms and can leave float64 (numerics/log_real.py)."""
    if shape.published:
        norms = [s.norms() for s in spectra]
        alpha = log_alphas(norms, lphi)
        per_layer = []
        for s, nl in zip(spectra, norms):
            pub, var = log_gammas(nl), log_gammas(nl, lphi_in_gamma=lphi)
            by = {
                "QK": (pub.qk, var.qk),
                "V_tilde": (pub.vt, var.vt),
                "M_in": ([pub.m_in], [var.m_in]),
                "M_out": ([pub.m_out], [var.m_out]),
            }
            per_layer.append([(float(by[k][0][max(h, 0)]), float(by[k][1][max(h, 0)])) for h, k, _ in s.matrices()])
        return alpha, per_layer, norms
    factors = []
    for s in spectra:
        attn, mlp = s.token_norms()
        if mlp is None and s.mlp_radius is not None:
            mlp = TokenNorm(s.mlp_radius / math.sqrt(shape.hidden), s.mlp_radius)
        factors.append(extension_factors(s.spectral(), shape, lphi, mlp, attn, premise))
    alpha = np.zeros(len(spectra))
    for l in range(len(spectra) - 2, -1, -1):
        alpha[l] = alpha[l + 1] + _log(factors[l + 1].lip)
    per_layer = []
    for s, f in zip(spectra, factors):
        rows = []
        for h, k, _ in s.matrices():
            g = f.gamma[k]
            g = _log(float(g[h]) if h >= 0 else float(g))
            rows.append((g, g))
        per_layer.append(rows)
    return alpha, per_layer, factors


def _log(x: float) -> float:
    if not np.isfinite(x):
        raise ValueError("a layer factor overflows float64; the extension's factors are not representable")
    return math.log(x) if x > 0 else -math.inf


def _norm_21_of(s: LayerSpectra, head: int, kind: str) -> float:
    return float(
        {
            "QK": lambda: s.qk_21[head],
            "V_tilde": lambda: s.vt_21[head],
            "M_in": lambda: s.m_in_21,
            "M_out": lambda: s.m_out_21,
            "M_gate": lambda: s.m_gate_21,
        }[kind]()
    )


def _baselines(spectra, matrices, shape):
    from sabounds.numerics.proxies.baselines import catalog_values

    return catalog_values(matrices, [s.raw_11 for s in spectra], shape)


def _norm_11_of(s: LayerSpectra, head: int, kind: str) -> float | None:
    values = {"QK": s.qk_11, "V_tilde": s.vt_11, "M_in": s.m_in_11, "M_out": s.m_out_11, "M_gate": s.m_gate_11}[kind]
    return None if values is None else float(values[head] if kind in ("QK", "V_tilde") else values)


def analyze_measured(
    measured: MeasuredModel,
    *,
    layers: int | None = None,
    lphi: float | None = None,
    grid_m: int | None = None,
    rank_tol: float = RANK_TOL,
    rms_floor: float | None = None,
) -> ModelAnalysis:
    """The section-6 proxies of the first ``layers`` measured layers (all by default) as an ``L = layers`` model.

    ``lphi`` defaults to the activation's constant (GELU: the published 1.13).  The published proxy where the
    family's layer is the published one, the labelled extension (``layer_factors``) elsewhere; ``rms_floor`` is the
    pre-LN normalisation premise (a lower bound on every norm input's rms; default 0: the eps-based constant).
    """
    spectra = measured.layers if layers is None else measured.truncated(layers).layers
    return analyze_spectra(spectra, measured.shape, lphi, grid_m, rank_tol, rms_floor)


def analyze_spectra(
    spectra: list[LayerSpectra],
    shape: ModelShape,
    lphi: float | None = L_PHI,
    grid_m: int | None = None,
    rank_tol: float = RANK_TOL,
    rms_floor: float | None = None,
) -> ModelAnalysis:
    """The section-6 proxies of the model made of ``spectra`` (its ``L = len(spectra)`` first layers)."""
    shape = shape.truncated(len(spectra))
    lphi = activation_constant(shape.activation) if lphi is None else lphi
    depth, n = shape.layers, shape.hidden
    m = grid_size(depth, n) if grid_m is None else grid_m
    ps = p_grid(m)
    premise = None if shape.published else premise_for(shape, rms_floor)
    alpha, per_layer, norms = _factors(spectra, shape, lphi, premise)
    rows, gamma_pub, gamma_var, sigmas, norm21, norm11, rank_sigmas = [], [], [], [], [], [], []
    for s, a, layer_gammas in zip(spectra, alpha, per_layer):
        for (head, kind, sigma), (g_pub, g_var) in zip(s.matrices(), layer_gammas):
            rows.append((s.index, head, kind, float(a)))
            gamma_pub.append(g_pub)
            gamma_var.append(g_var)
            norm21.append(_norm_21_of(s, max(head, 0), kind))
            norm11.append(_norm_11_of(s, max(head, 0), kind))
            sigmas.append(sigma)
            rank_sigmas.append(s.qk_rank[head] if kind == "QK" and s.qk_rank is not None else None)
    log_s_p = np.array([log_schatten_grid(sg, ps, rank_tol) for sg in sigmas])
    for i, c in enumerate(rank_sigmas):  # a rotating head's S_0 bounds every member's rank (Horn's b does not)
        if c is not None:
            with np.errstate(divide="ignore"):
                log_s_p[i, ps == 0] = np.log(
                    float(max(numerical_rank(c, rank_tol), numerical_rank(sigmas[i], rank_tol)))
                )
    layer_alpha = np.array([r[3] for r in rows])
    scale = np.array(gamma_pub) + layer_alpha + math.log(depth)
    table, best, minima = minimise_ours(log_s_p, ps, np.array(gamma_pub) + layer_alpha, depth, n)
    _, _, minima_var = minimise_ours(log_s_p, ps, np.array(gamma_var) + layer_alpha, depth, n)
    log_table = table
    with np.errstate(over="ignore"):
        table = np.exp(table)  # for figures only; beyond float64 the figure draws log_table instead
    matrices = []
    for i, (layer, head, kind, a) in enumerate(rows):
        sg = np.asarray(sigmas[i])
        spectral = float(sg[0])
        relative = float(math.sqrt(np.sum(np.square(sg / spectral)))) if spectral > 0 else 0.0
        matrices.append(
            MatrixResult(
                layer=layer,
                head=head,
                type=kind,
                rank=int(round(math.exp(log_s_p[i, 0]))),
                spectral_norm=spectral,
                frobenius_norm=_finite(spectral * relative, "Frobenius norm", layer, kind),
                norm_21=norm21[i],
                stable_rank=relative**2,
                alpha=from_ln(a),
                gamma=from_ln(gamma_pub[i]),
                scale=from_ln(scale[i]),
                horn_bound=kind == "QK" and shape.rope is not None,
                p_opt=float(ps[best[i]]),
                min_contribution=float(minima[i]),
                sigma=sg,
                contributions=table[i],
                log_contributions=log_table[i],
                norm_11=norm11[i],
            )
        )
    ours = ours_total(minima, depth)
    is_qk = np.array([r[2] == "QK" for r in rows])
    norm21 = np.array(norm21)

    def edelman(qk_factor: float):  # gamma^E = gamma, except QK's factor 2 replaced by qk_factor
        return from_ln(
            log_edelman(layer_alpha + np.array(gamma_pub) + np.where(is_qk, math.log(qk_factor / 2), 0.0), norm21)
        )

    if shape.published:
        return ModelAnalysis(
            shape=shape,
            grid_m=m,
            lphi=lphi,
            rank_tol=rank_tol,
            ps=ps,
            matrices=matrices,
            ours=ours,
            edelman=edelman(1.0),
            raw_11=tuple(s.raw_11 for s in spectra),
            baselines=_baselines(spectra, matrices, shape),
            variants=VariantTotals(ours_lphi_in_gamma=ours_total(minima_var, depth), edelman_qk_factor_2=edelman(2.0)),
        )
    summaries, notes = extension_notes(spectra, shape, norms, premise)
    return ModelAnalysis(
        shape=shape,
        grid_m=m,
        lphi=lphi,
        rank_tol=rank_tol,
        ps=ps,
        matrices=matrices,
        ours=ours,
        edelman=edelman(1.0),
        proxy="extension",
        raw_11=tuple(s.raw_11 for s in spectra),
        baselines=_baselines(spectra, matrices, shape),
        departures=tuple(departures(shape, premise, notes)),
        layer_factors=summaries,
        variants=VariantTotals(ours_lphi_in_gamma=ours, edelman_qk_factor_2=edelman(2.0)),
    )


def _finite(value: float, what: str, layer: int, kind: str) -> float:
    if not math.isfinite(value):
        raise ValueError(f"layer {layer} {kind}: {what} exceeds the float64 range")
    return value


def open_checkpoint(
    source, mapping=None, *, config=None, architecture=None, allow_pickle: bool = False
) -> CheckpointSource:
    """Open a model folder, ``.onnx`` file, dict of arrays, torch state_dict or module (see ``open_source``)."""
    return open_source(source, mapping, config=config, architecture=architecture, allow_pickle=allow_pickle)


def analyze_model(
    model_dir,
    layers: int | None = None,
    lphi: float | None = None,
    grid_m: int | None = None,
    rank_tol: float = RANK_TOL,
    progress: Callable[[str], None] | None = None,
    allow_pickle: bool = False,
    mapping=None,
    architecture=None,
    config=None,
) -> ModelAnalysis:
    """open -> measure -> analyse in one call: the first ``layers`` layers (all by default) as an ``L = layers`` model."""
    source = open_checkpoint(model_dir, mapping, config=config, architecture=architecture, allow_pickle=allow_pickle)
    return analyze_measured(measure_model(source, layers, progress), lphi=lphi, grid_m=grid_m, rank_tol=rank_tol)


BertShape = ModelShape
"""Backwards-compatible name of :class:`ModelShape`."""


layer_spectra = measure_layer
"""Backwards-compatible name of :func:`measure_layer`."""
