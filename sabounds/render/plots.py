"""Figures of an analysis and of a scaling run (matplotlib, Agg), for slides and papers.

Layer colour always comes with a colour bar, labels are mathtext, every line carries a legend label, and each
figure is written in every requested format (PNG at ``dpi``, PDF and SVG as vectors).  A proxy that grows
exponentially with depth is described by its per-layer growth factor (``sabounds.numerics.proxies.growth``), not
by a log-log slope.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np

from sabounds.numerics.log_real import finite_or_log
from sabounds.numerics.proxies.analysis_results import TYPES, ModelAnalysis
from sabounds.numerics.proxies.growth import depth_growths
from sabounds.numerics.proxies.scaling import ScalingResult
from sabounds.render.figure_formats import FORMATS, FigureOptions, parse_formats  # noqa: F401

TYPE_LABELS = {
    "QK": r"$QK_h$",
    "V_tilde": r"$\tilde V_h$",
    "M_in": r"$M_{\mathrm{in}}$",
    "M_out": r"$M_{\mathrm{out}}$",
    "M_gate": r"$M_{\mathrm{gate}}$",
}
QUANTITY_LABELS = {"ours": r"$\mathrm{ours}$", "edelman": r"$\mathrm{edelman}$"}


def _save(fig, directory: Path, stem: str, options: FigureOptions) -> list[Path]:
    paths = []
    try:
        for fmt in options.formats:
            path = Path(directory) / f"{stem}.{fmt}"
            fig.savefig(path, dpi=options.dpi if fmt == "png" else None, format=fmt)
            paths.append(path)
    finally:
        plt.close(fig)
    return paths


def _layer_norm(analysis: ModelAnalysis):
    return matplotlib.colors.Normalize(vmin=0, vmax=max(1, analysis.shape.layers - 1))


def _layer_colourbar(fig, axes, analysis: ModelAnalysis, cmap):
    mappable = matplotlib.cm.ScalarMappable(norm=_layer_norm(analysis), cmap=cmap)
    bar = fig.colorbar(mappable, ax=list(axes), shrink=0.85)
    bar.set_label(r"layer $l$")
    bar.set_ticks(
        range(analysis.shape.layers)
        if analysis.shape.layers <= 12
        else np.linspace(0, analysis.shape.layers - 1, 7).round()
    )
    return bar


def _per_type_axes(title: str, types: tuple[str, ...] = TYPES):
    """A panel per matrix type: 2 x 2, or 2 x 3 with a gated MLP's ``M_gate`` (the spare panel removed)."""
    cols = 2 if len(types) <= 4 else 3
    fig, axes = plt.subplots(2, cols, figsize=(5 * cols, 7.5), constrained_layout=True)
    fig.suptitle(title)
    for ax in axes.ravel()[len(types) :]:
        fig.delaxes(ax)
    return fig, dict(zip(types, axes.ravel()))


def singular_value_decay_figure(analysis: ModelAnalysis):
    """``sigma_i / sigma_1`` against ``i`` for every matrix (nonzero values only), one panel per type, colour = layer."""
    fig, axes = _per_type_axes("Normalised singular values", analysis.types())
    cmap, norm = plt.get_cmap("viridis"), _layer_norm(analysis)
    for m in analysis.matrices:
        s = m.sigma[m.sigma > 0]
        if s.size:
            axes[m.type].semilogy(np.arange(1, s.size + 1), s / s[0], lw=0.7, alpha=0.6, color=cmap(norm(m.layer)))
    for kind, ax in axes.items():
        ax.set(title=TYPE_LABELS[kind], xlabel=r"index $i$", ylabel=r"$\sigma_i / \sigma_1$")
    _layer_colourbar(fig, axes.values(), analysis, cmap)
    return fig


def contribution_figure(analysis: ModelAnalysis):
    """``contribution(p)`` over the grid for every matrix, its minimum marked, one panel per type, colour = layer."""
    fig, axes = _per_type_axes(
        rf"Contribution against $p$ (grid $m = {analysis.grid_m}$; dot: $p_{{\mathrm{{opt}}}}$)", analysis.types()
    )
    cmap, norm = plt.get_cmap("viridis"), _layer_norm(analysis)
    beyond = any(not np.all(np.isfinite(m.contributions)) for m in analysis.matrices)
    for m in analysis.matrices:  # beyond float64 somewhere: every curve as log10 on a linear axis, none dropped
        colour = cmap(norm(m.layer))
        if beyond:
            axes[m.type].plot(analysis.ps, m.log_contributions / np.log(10), lw=0.7, alpha=0.6, color=colour)
            axes[m.type].plot([m.p_opt], [np.log10(m.min_contribution)], "o", ms=3, color=colour)
        else:
            axes[m.type].semilogy(analysis.ps, m.contributions, lw=0.7, alpha=0.6, color=colour)
            axes[m.type].plot([m.p_opt], [m.min_contribution], "o", ms=3, color=colour)
    label = r"$S_p^{1/(p+2)}\,\mathrm{scale}^{p/(p+2)}\,N^{(p+1)/(p+2)}$"
    for kind, ax in axes.items():
        ax.set(title=TYPE_LABELS[kind], xlabel=r"$p$", ylabel=rf"$\log_{{10}}$ {label}" if beyond else label)
    _layer_colourbar(fig, axes.values(), analysis, cmap)
    return fig


def p_opt_grid(analysis: ModelAnalysis) -> dict[str, np.ndarray]:
    """``p_opt`` as layer x head arrays for QK and V_tilde, and layer x (M_in, M_out[, M_gate]) for the MLP."""
    layers, heads = analysis.shape.layers, analysis.shape.heads
    mlp = [t for t in analysis.types() if t.startswith("M_")]
    grids = {
        "QK": np.full((layers, heads), np.nan),
        "V_tilde": np.full((layers, heads), np.nan),
        "feed-forward": np.full((layers, len(mlp)), np.nan),
    }
    for m in analysis.matrices:
        if m.type in ("QK", "V_tilde"):
            grids[m.type][m.layer, m.head] = m.p_opt
        else:
            grids["feed-forward"][m.layer, mlp.index(m.type)] = m.p_opt
    return grids


def p_opt_figure(analysis: ModelAnalysis):
    """Heat map of ``p_opt``: layer x head for ``QK_h`` and ``V_tilde_h``, layer x MLP matrix; one colour bar on [0, 2]."""
    grids = p_opt_grid(analysis)
    mlp = [TYPE_LABELS[t] for t in analysis.types() if t.startswith("M_")]
    heads = analysis.shape.heads
    fig, axes = plt.subplots(
        1,
        3,
        figsize=(4 + 0.5 * heads, 1.5 + 0.45 * analysis.shape.layers),
        gridspec_kw={"width_ratios": [heads, heads, 1.25 * len(mlp)]},
        constrained_layout=True,
    )
    fig.suptitle(r"Post hoc optimal Schatten index $p_{\mathrm{opt}}$ per matrix")
    cmap = plt.get_cmap("cividis")
    image = None
    for ax, (name, grid) in zip(axes, grids.items()):
        image = ax.imshow(grid, cmap=cmap, vmin=0, vmax=2, aspect="auto", origin="lower")
        cols = grid.shape[1]
        ax.set_xticks(range(cols), mlp if name == "feed-forward" else [str(h) for h in range(cols)])
        ax.set_yticks(range(grid.shape[0]))
        ax.set(
            xlabel="matrix" if name == "feed-forward" else r"head $h$",
            ylabel=r"layer $l$",
            title=TYPE_LABELS.get(name, name),
        )
        if grid.size <= 400:
            for (i, j), v in np.ndenumerate(grid):
                if np.isfinite(v):
                    ax.text(j, i, f"{v:.2g}", ha="center", va="center", fontsize=7, color="white" if v < 1 else "black")
    bar = fig.colorbar(image, ax=list(axes), shrink=0.9)
    bar.set_label(r"$p_{\mathrm{opt}}$")
    return fig


def singular_value_decay(
    analysis: ModelAnalysis, directory: Path, options: FigureOptions = FigureOptions()
) -> list[Path]:
    return _save(singular_value_decay_figure(analysis), directory, "singular_value_decay", options)


def contribution_curves(
    analysis: ModelAnalysis, directory: Path, options: FigureOptions = FigureOptions()
) -> list[Path]:
    return _save(contribution_figure(analysis), directory, "contribution_vs_p", options)


def p_opt_per_layer(analysis: ModelAnalysis, directory: Path, options: FigureOptions = FigureOptions()) -> list[Path]:
    return _save(p_opt_figure(analysis), directory, "p_opt_per_layer", options)


def analysis_figures(analysis: ModelAnalysis, directory: Path, options: FigureOptions = FigureOptions()) -> list[Path]:
    """The three analysis figures, each in every format of ``options``."""
    return [
        *singular_value_decay(analysis, directory, options),
        *contribution_curves(analysis, directory, options),
        *p_opt_per_layer(analysis, directory, options),
    ]


def _short(model: str) -> str:
    from sabounds.render.user_text import plot_text

    return plot_text(Path(model).name or model)


def _growth_label(g) -> str:
    if g.kind == "power":
        return rf"$\propto L^{{{g.power:.2f}}}$"
    if g.kind == "exponential":
        return rf"$\times${g.factor:.3g} per layer"
    return rf"$\propto L^{{{g.power:.2f}}}$ or $\times${g.factor:.3g} per layer"


def scaling_figure(result: ScalingResult, directory: Path, options: FigureOptions = FigureOptions()) -> list[Path]:
    """The scaling figure (:func:`scaling_figure_object`) in every format of ``options``."""
    return _save(scaling_figure_object(result), directory, "scaling", options)


def scaling_figure_object(result: ScalingResult):
    """Each proxy against depth L (one labelled line per checkpoint, log y, with its fitted growth law) and, when
    widths differ, against width N (one labelled line per depth, log-log)."""
    points = result.points
    by_width = len({p.hidden for p in points}) > 1
    fig, axes = plt.subplots(
        1, 2 if by_width else 1, figsize=(11 if by_width else 6.5, 4.8), constrained_layout=True, squeeze=False
    )
    ax = axes[0][0]
    styles = {"ours": ("o-", "C0"), "edelman": ("s--", "C1")}
    models = sorted({p.model for p in points})
    for quantity, (style, colour) in styles.items():
        growth = {g.model: g for g in depth_growths(points, quantity)}
        for i, model in enumerate(models):
            pts = sorted((p for p in points if p.model == model), key=lambda p: p.layers)
            label = QUANTITY_LABELS[quantity] + (f", {_short(model)}" if len(models) > 1 else "")
            if model in growth:
                label += f": {_growth_label(growth[model])}"
            ax.semilogy(
                [p.layers for p in pts],
                finite_or_log([getattr(p, quantity) for p in pts]),
                style,
                color=colour,
                mfc="none",
                alpha=1 - 0.5 * i / max(1, len(models)),
                label=label,
            )
            trained = [p for p in pts if getattr(p, "kind", "trained") == "trained"]
            ax.scatter(
                [p.layers for p in trained],
                finite_or_log([getattr(p, quantity) for p in trained]),
                marker=style[0],
                color=colour,
                s=49,
                zorder=3,
            )
    depths = sorted({p.layers for p in points})
    ax.set_xticks(depths)
    ax.set(xlabel=r"depth $L$", ylabel="proxy value (log scale)", title=r"against depth $L$")
    handles, _ = ax.get_legend_handles_labels()
    if any(getattr(p, "kind", "trained") == "truncation" for p in points):
        from matplotlib.lines import Line2D

        handles += [
            Line2D([], [], marker="o", color="k", ls="none", ms=7, label="filled: a model trained at this depth"),
            Line2D(
                [],
                [],
                marker="o",
                color="k",
                mfc="none",
                ls="none",
                ms=7,
                label="hollow: depth truncation (first L layers)",
            ),
        ]
    ax.legend(handles=handles, fontsize=8)
    if by_width:
        ax = axes[0][1]
        fits = {f.quantity: f for f in result.fits}
        for quantity, (style, colour) in styles.items():
            for i, depth in enumerate(depths):
                pts = sorted((p for p in points if p.layers == depth), key=lambda p: p.hidden)
                if len(pts) < 2:
                    continue
                slope = getattr(fits.get(quantity), "slope_N", None)
                label = (
                    QUANTITY_LABELS[quantity]
                    + f", $L = {depth}$"
                    + (f" (fit: $N^{{{slope:.2f}}}$)" if slope is not None and i == 0 else "")
                )
                ax.loglog(
                    [p.hidden for p in pts],
                    finite_or_log([getattr(p, quantity) for p in pts]),
                    style,
                    color=colour,
                    alpha=1 - 0.5 * i / max(1, len(depths)),
                    label=label,
                )
        widths = sorted({p.hidden for p in points})
        ax.set_xticks(widths, [str(w) for w in widths])
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set(xlabel=r"width $N$", ylabel="proxy value (log scale)", title=r"against width $N$")
        ax.legend(fontsize=8)
    return fig
