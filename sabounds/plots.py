"""Figures of an analysis (matplotlib, Agg): spectral decay and contribution curves per matrix type, p_opt per
layer, and the growth of ours and edelman with depth and width."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.ticker  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from sabounds.numerics.proxies.model_analysis import TYPES, ModelAnalysis  # noqa: E402
from sabounds.numerics.proxies.scaling import ScalingResult  # noqa: E402


def _per_type_axes(title: str):
    fig, axes = plt.subplots(2, 2, figsize=(10, 7.5), constrained_layout=True)
    fig.suptitle(title)
    return fig, dict(zip(TYPES, axes.ravel()))


def _layer_colour(analysis: ModelAnalysis, layer: int):
    return plt.cm.viridis(layer / max(1, analysis.shape.layers - 1))


def _save(fig, path: Path) -> Path:
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def singular_value_decay(analysis: ModelAnalysis, directory: Path) -> Path:
    """``sigma_i / sigma_1`` against i for every matrix (nonzero values only), one panel per type."""
    fig, axes = _per_type_axes("Normalised singular values (colour: layer)")
    for m in analysis.matrices:
        s = m.sigma[m.sigma > 0]
        if s.size:
            axes[m.type].semilogy(np.arange(1, s.size + 1), s / s[0], lw=0.7, alpha=0.6,
                                  color=_layer_colour(analysis, m.layer))
    for kind, ax in axes.items():
        ax.set(title=kind, xlabel="index i", ylabel="sigma_i / sigma_1")
    return _save(fig, directory / "singular_value_decay.png")


def contribution_curves(analysis: ModelAnalysis, directory: Path) -> Path:
    """``contribution(p)`` over the grid for every matrix, minimum marked, one panel per type."""
    fig, axes = _per_type_axes(f"Contribution against p (grid m = {analysis.grid_m}; dot: p_opt)")
    for m in analysis.matrices:
        colour = _layer_colour(analysis, m.layer)
        axes[m.type].semilogy(analysis.ps, m.contributions, lw=0.7, alpha=0.6, color=colour)
        axes[m.type].plot([m.p_opt], [m.min_contribution], "o", ms=3, color=colour)
    for kind, ax in axes.items():
        ax.set(title=kind, xlabel="p", ylabel="contribution")
    return _save(fig, directory / "contribution_vs_p.png")


def p_opt_per_layer(analysis: ModelAnalysis, directory: Path) -> Path:
    """p_opt of every matrix against its layer, one marker per type (offset sideways to stay visible)."""
    fig, ax = plt.subplots(figsize=(7, 4.5), constrained_layout=True)
    for i, kind in enumerate(TYPES):
        rows = [m for m in analysis.matrices if m.type == kind]
        ax.plot([m.layer + 0.15 * (i - 1.5) for m in rows], [m.p_opt for m in rows], "o", ms=4, alpha=0.6, label=kind)
    ax.set(xlabel="layer", ylabel="p_opt", ylim=(-0.1, 2.1), title="Optimal Schatten index per layer")
    ax.set_xticks(range(analysis.shape.layers))
    ax.legend()
    return _save(fig, directory / "p_opt_per_layer.png")


def analysis_figures(analysis: ModelAnalysis, directory: Path) -> list[Path]:
    return [singular_value_decay(analysis, directory), contribution_curves(analysis, directory),
            p_opt_per_layer(analysis, directory)]


def scaling_figure(result: ScalingResult, directory: Path) -> Path:
    """``ours`` and ``edelman`` against L (lines join one checkpoint's truncations) and against N (lines join
    checkpoints of equal depth), log-log, fitted slopes in the legend; a panel only for a variable that varies."""
    fits = {f.quantity: f for f in result.fits}
    panels = [(var, label, group) for var, label, group in (("layers", "L", "model"), ("hidden", "N", "layers"))
              if len({getattr(p, var) for p in result.points}) > 1] or [("layers", "L", "model")]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.5), constrained_layout=True, squeeze=False)
    for ax, (var, label, group) in zip(axes[0], panels):
        for quantity, style, colour in (("ours", "o-", "C0"), ("edelman", "s--", "C1")):
            fit = fits.get(quantity)
            slope = getattr(fit, f"slope_{label}") if fit else None
            name = quantity + (f" (slope {slope:.2f})" if slope is not None else "")
            for i, key in enumerate(sorted({getattr(p, group) for p in result.points}, key=str)):
                pts = sorted((p for p in result.points if getattr(p, group) == key), key=lambda p: getattr(p, var))
                ax.loglog([getattr(p, var) for p in pts], [getattr(p, quantity) for p in pts], style, color=colour,
                          mfc="none", label=name if i == 0 else None)
                trained = [p for p in pts if getattr(p, "kind", "trained") == "trained"]
                ax.loglog([getattr(p, var) for p in trained], [getattr(p, quantity) for p in trained], style[0],
                          color=colour, ms=8)
        if any(getattr(p, "kind", "trained") == "truncation" for p in result.points):
            ax.plot([], [], "ko", ms=8, label="filled: a model trained at this depth")
            ax.plot([], [], "ko", mfc="none", label="hollow: depth truncation (first L layers)")
        ticks = sorted({getattr(p, var) for p in result.points})
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set(xlabel=label, ylabel="proxy", title=f"against {label}")
        ax.legend()
    return _save(fig, directory / "scaling.png")
