"""Figure of the whole bound against the sample size: ours (sum and rss aggregation) and Edelman et al., log-log."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import mpmath

from sabounds.numerics.bound.analysis import BoundAnalysis

STYLE = {
    "ours_sum": ("ours, sum aggregation", "C0", "-"),
    "ours_rss": ("ours, rss aggregation", "C2", "-."),
    "edelman": ("Edelman et al. (2022)", "C1", "--"),
}


def bound_axes(analysis: BoundAnalysis):
    """The figure: every bound against n (log10 of both, so nothing overflows), the target and the n needed."""
    curve = analysis.curve
    fig, ax = plt.subplots(figsize=(7, 4.8), constrained_layout=True)
    x = [float(mpmath.log10(n)) for n in curve.ns]
    for name, values in curve.values.items():
        label, colour, style = STYLE[name]
        ax.plot(x, [float(mpmath.log10(v)) for v in values], style, color=colour, label=label)
        need = analysis.needed[name]
        if need.n is not None:
            ax.plot([float(mpmath.log10(need.n))], [float(mpmath.log10(need.target))], "o", color=colour)
    ax.axhline(
        float(mpmath.log10(analysis.target)),
        color="grey",
        lw=0.8,
        ls=":",
        label=f"target {mpmath.nstr(analysis.target, 3)} (below: not vacuous)",
    )
    s = analysis.setting
    ax.set(
        xlabel=r"$\log_{10} n$ (samples)",
        ylabel=r"$\log_{10}$ of the bound on the risk",
        title=rf"Whole bound against $n$ ($\delta = {s.delta}$, margin $\gamma = {s.margin}$; dots: $n$ needed)",
    )
    ax.legend()
    return fig


def bound_figure(analysis: BoundAnalysis, directory: Path, figures=None) -> list[Path]:
    """``bound_vs_n.<fmt>`` (:func:`bound_axes`); formats and PNG resolution from ``figures`` (a
    ``sabounds.render.plots.FigureOptions``; default PNG, PDF and SVG)."""
    from sabounds.render.plots import FigureOptions, _save

    figures = figures or FigureOptions(("png", "pdf", "svg"))
    return _save(bound_axes(analysis), Path(directory), "bound_vs_n", figures)
