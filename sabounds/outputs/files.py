"""The files of an analysis or a scaling run: tables as CSV and, on request, figures.  Callers write them into
a ``sabounds.outputs.atomic.atomic_directory`` so that an error never leaves a half-written folder behind."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from sabounds.numerics.proxies.model_analysis import ModelAnalysis
from sabounds.numerics.proxies.scaling import ScalingResult
from sabounds.outputs.atomic import fault_point
from sabounds.render.user_text import csv_row


def write_csv(path: Path, header: Sequence[str], rows) -> None:
    """A CSV table; text cells that a spreadsheet would run as formulas are neutralised (``sabounds.render.user_text``)."""
    fault_point("writing")
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(csv_row(header))
        writer.writerows(csv_row(r) for r in rows)


def write_analysis_files(analysis: ModelAnalysis, directory: Path, plots: bool = False, figures=None) -> list[Path]:
    """``model.csv``, ``matrices.csv``, ``totals.csv`` (and, with ``plots``, three figures in the formats of
    ``figures``, a ``sabounds.render.plots.FigureOptions``; PNG by default) in ``directory``."""
    record = analysis.to_json()
    directory = Path(directory)
    model = record["model"]
    write_csv(
        directory / "model.csv",
        [*model, "grid_m", "lphi", "rank_tol"],
        [[*model.values(), analysis.grid_m, analysis.lphi, analysis.rank_tol]],
    )
    rows = record["matrices"]
    write_csv(directory / "matrices.csv", list(rows[0]), [list(r.values()) for r in rows])
    totals = [
        ("ours", analysis.ours),
        ("edelman", analysis.edelman),
        ("ours_lphi_in_gamma", analysis.variants.ours_lphi_in_gamma),
        ("edelman_qk_factor_2", analysis.variants.edelman_qk_factor_2),
        ("rank_count", analysis.rank_count),
    ]
    write_csv(directory / "totals.csv", ["quantity", "value"], totals)
    written = [directory / n for n in ("model.csv", "matrices.csv", "totals.csv")]
    if plots:
        from sabounds.render import plots as figures_module

        written += figures_module.analysis_figures(analysis, directory, figures or figures_module.FigureOptions())
    return written


def write_scaling_files(result: ScalingResult, directory: Path, plots: bool = True, figures=None) -> list[Path]:
    """``scaling.csv`` (one row per checkpoint and depth), ``fits.csv`` (log-log slopes), ``growth.csv`` (per
    checkpoint: power of L or factor per layer, whichever fits) and the ``scaling`` figure."""
    directory = Path(directory)
    record = result.to_json()
    write_csv(directory / "scaling.csv", list(record["points"][0]), [list(p.values()) for p in record["points"]])
    write_csv(
        directory / "fits.csv",
        ["quantity", "slope_L", "slope_N", "intercept"],
        [[f.quantity, f.slope_L, f.slope_N, f.intercept] for f in result.fits],
    )
    from sabounds.numerics.proxies.growth import depth_growths

    growth = [g.to_json() for q in ("ours", "edelman") for g in depth_growths(result.points, q)]
    write_csv(
        directory / "growth.csv",
        ["quantity", "model", "kind", "power", "factor_per_layer", "rss_power", "rss_exponential"],
        [
            [g[c] for c in ("quantity", "model", "kind", "power", "factor_per_layer", "rss_power", "rss_exponential")]
            for g in growth
        ],
    )
    written = [directory / "scaling.csv", directory / "fits.csv", directory / "growth.csv"]
    if plots:
        from sabounds.render import plots as figures_module

        written += figures_module.scaling_figure(result, directory, figures or figures_module.FigureOptions())
    return written
