"""Complexity measures of one trained run, each computed by the package's own code on its weights.

All ranked measures are natural logarithms (Kendall's tau is unchanged by a monotone map, and the products leave
float64):

* ``ours_sum``, ``ours_rss``: the paper's proxy ``ours`` (``sabounds analyze``'s total) and its rss aggregation
  ``sqrt(sum_k c_k^2) + sqrt(L)`` over the same per-matrix minima ``c_k``; ``edelman``: Edelman et al.'s proxy.
  Post-LN runs get the published proxy, pre-LN runs the package's labelled extension (its ``vit`` family).
* ``bound_ours_sum``, ``bound_ours_rss``, ``bound_edelman``: the whole bound (``sabounds bound``, published constants)
  at n = the run's training size, delta = ``DELTA``, margin ``MARGIN`` with its empirical margin risk, T = tokens and
  B = the largest embedded training token's norm; the package reconstructs it for the post-LN layer only, so pre-LN
  runs have none (reported as missing, not zero), and none where the network stores linear biases the bound leaves
  out (the study's encoder has none in its layers).
* baselines over the six matrices per layer (query, key, value, output, M_in, M_out): ``spectral_product``
  (prod ||W||_2), ``frobenius_sum`` (sum ||W||_F), ``dist_init_frobenius`` (sqrt(sum ||W - W0||_F^2)),
  ``dist_init_spectral`` (sum ||W - W0||_2), and ``params`` (every trainable parameter).
* margin-based: ``inverse_margin`` = ln(1 / gamma) and Bartlett et al. (2017)'s margin-normalised spectral complexity
  ``bartlett`` = ln(prod_i ||A_i||_2 (sum_i (||A_i^T - M_i^T||_{2,1} / ||A_i||_2)^(2/3))^(3/2) / gamma), reference
  matrices M_i the initial weights; gamma = the ``MARGIN_QUANTILE`` quantile of the training margins (true logit
  minus the largest other; Jiang et al. 2020 take the 10th percentile), None when it is not positive.
Spectral norms are ``numerics.spectra.singular_values``' largest, (2,1)-norms ``numerics.norms.norm_21``.

Trauger and Tewari (2024) has no evaluation on weights in the package (only its regime rates), so it is not a measure
here.  The p_opt profile (how many of the proxy's matrices choose p > 0) is recorded beside the measures.
"""

from __future__ import annotations

import math

import numpy as np

DELTA = 0.05
MARGIN = 1.0
MARGIN_QUANTILE = 0.1
MEASURES = (
    "ours_sum",
    "ours_rss",
    "edelman",
    "bound_ours_sum",
    "bound_ours_rss",
    "bound_edelman",
    "spectral_product",
    "frobenius_sum",
    "dist_init_frobenius",
    "dist_init_spectral",
    "bartlett",
    "inverse_margin",
    "params",
)
BASELINES = ("spectral_product", "frobenius_sum", "dist_init_frobenius", "dist_init_spectral", "params")
WEIGHTS_ONLY = (
    "ours_sum",
    "ours_rss",
    "edelman",
    "spectral_product",
    "frobenius_sum",
    "dist_init_frobenius",
    "dist_init_spectral",
    "params",
)
"""Measures of the weights alone (no n, no margin): along the training size they can only track n through the weights."""


def proxy_measures(weights: dict[str, np.ndarray], config: dict):
    """``(measures, p profile, analysis, measured)`` of the package's proxies on the exported weights."""
    from sabounds.numerics.log_real import ln_of
    from sabounds.numerics.proxies.model_analysis import analyze_measured, measure_model, open_checkpoint

    measured = measure_model(open_checkpoint(weights, config=config))
    analysis = analyze_measured(measured)
    minima = np.array([m.min_contribution for m in analysis.matrices])
    root_l = math.sqrt(analysis.shape.layers)
    out = {
        "ours_sum": math.log(analysis.ours),
        "ours_rss": math.log(float(np.sqrt(np.sum(minima**2))) + root_l),
        "edelman": ln_of(analysis.edelman),
    }
    positive = [m for m in analysis.matrices if m.p_opt > 0]
    profile = {
        "matrices": len(analysis.matrices),
        "p_positive": len(positive),
        "p_positive_types": sorted({m.type for m in positive}),
        "proxy": analysis.proxy,
    }
    return out, profile, analysis, measured


def bound_measures(
    measured, tokens: int, n: int, input_norm: float, empirical: float, biases: dict[str, float] | None = None
) -> dict:
    """ln of the whole bound (ours sum, ours rss, Edelman's) for a post-LN run; all None for another layout, or where
    the bound is not a bound on the run's network (``biases``, ``CheckpointSource.linear_biases``, that it leaves out)."""
    import mpmath

    from sabounds.numerics.bound.checkpoint_inputs import model_from_measured
    from sabounds.numerics.bound.slots import PUBLISHED
    from sabounds.numerics.bound.whole import BoundInputs, evaluate_model

    shape = measured.shape
    model = model_from_measured(shape, measured.layers, biases=biases) if shape.published else None
    if model is None or model.unmodelled:
        return {k: None for k in ("bound_ours_sum", "bound_ours_rss", "bound_edelman")}
    setting = BoundInputs(n=n, delta=DELTA, margin=MARGIN, input_norm=input_norm, tokens=tokens, empirical=empirical)
    with mpmath.workdps(setting.dps):
        wb = evaluate_model(model, PUBLISHED, setting)
        return {
            "bound_ours_sum": float(mpmath.log(wb.ours_sum.total)),
            "bound_ours_rss": float(mpmath.log(wb.ours_rss.total)),
            "bound_edelman": float(mpmath.log(wb.edelman.total)),
        }


def _spectral(w: np.ndarray) -> float:
    from sabounds.numerics.spectra import singular_values

    return float(singular_values(w)[0])


def margin_measures(final: list[np.ndarray], initial: list[np.ndarray], margin: float) -> dict:
    """``inverse_margin`` = ln(1/gamma) and Bartlett's ln(R_A / gamma) with references at initialisation (torch
    weights are (out, in), so ``||A^T - M^T||_{2,1}`` is ``norm_21`` of ``(A - M)^T``)."""
    from sabounds.numerics.norms import norm_21

    if not margin > 0:
        return {"inverse_margin": None, "bartlett": None}
    spectral = [_spectral(w) for w in final]
    ratios = [(float(norm_21((w - w0).T)) / s) ** (2 / 3) for w, w0, s in zip(final, initial, spectral)]
    return {
        "inverse_margin": -math.log(margin),
        "bartlett": sum(math.log(s) for s in spectral) + 1.5 * math.log(sum(ratios)) - math.log(margin),
    }


def baseline_measures(final: list[np.ndarray], initial: list[np.ndarray], params: int) -> dict:
    """ln of the norm-based baselines over the paper's matrices, and of the parameter count."""
    spectral = _spectral
    diffs = [w - w0 for w, w0 in zip(final, initial)]
    return {
        "spectral_product": sum(math.log(spectral(w)) for w in final),
        "frobenius_sum": math.log(sum(float(np.linalg.norm(w)) for w in final)),
        "dist_init_frobenius": 0.5 * math.log(sum(float(np.sum(d * d)) for d in diffs)),
        "dist_init_spectral": math.log(sum(spectral(d) for d in diffs)),
        "params": math.log(params),
    }
