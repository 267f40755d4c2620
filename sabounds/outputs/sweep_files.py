"""The files of a sweep, written into an atomic folder: the tidy table (Parquet and CSV), the per-family fits, the
figures (PNG, PDF, SVG) and the provenance.  Parquet goes through pyarrow (the ``sweep`` extra)."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path

from sabounds.numerics.proxies.sweep import METHOD_COLUMNS, ROW_COLUMNS
from sabounds.render.user_text import csv_row, plot_text

FIT_COLUMNS = ("family", "quantity", "slope_L", "slope_N", "intercept", "points")
FIGURE_FORMATS = ("png", "pdf", "svg")


def _write_csv(path: Path, columns: Sequence[str], rows: Sequence[dict]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(columns)
        writer.writerows([csv_row("" if r[c] is None else r[c] for c in columns) for r in rows])


def _write_parquet(path: Path, columns: Sequence[str], rows: Sequence[dict]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist([{c: r[c] for c in columns} for r in rows], schema=_schema(columns, rows))
    pq.write_table(table, path)


def _schema(columns: Sequence[str], rows: Sequence[dict]):
    """Column types from the values present (all-None columns are strings), so error rows keep the schema."""
    import numpy as np
    import pyarrow as pa

    fields = []
    for c in columns:
        values = [r[c] for r in rows if r[c] is not None]
        if values and all(isinstance(v, (bool, np.bool_)) for v in values):
            kind = pa.bool_()
        elif values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            kind = pa.int64()
        elif values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            kind = pa.float64()
        else:
            kind = pa.string()
        fields.append(pa.field(c, kind))
    return pa.schema(fields)


def fit_rows(fits) -> list[dict]:
    return [
        {
            "family": family,
            "quantity": f.quantity,
            "slope_L": f.slope_L,
            "slope_N": f.slope_N,
            "intercept": f.intercept,
            "points": None,
        }
        for family, f in fits
    ]


def write_sweep_files(
    rows: Sequence[dict], fits, provenance: dict, directory: Path, methods: Sequence[dict] = (), figures=None
) -> list[Path]:
    """``sweep``, ``fits`` and ``spectrum_methods`` (how each feed-forward spectrum was computed) as ``.parquet``
    and ``.csv``, ``sweep_scaling.{png,pdf,svg}`` and ``provenance.json`` in ``directory``.  Figures are always drawn
    from the rows, never copied from the spectra cache (a figure file from a cache folder could carry anything)."""
    directory = Path(directory)
    written = []
    for name, columns, table in (
        ("sweep", ROW_COLUMNS, rows),
        ("fits", FIT_COLUMNS, fit_rows(fits)),
        ("spectrum_methods", METHOD_COLUMNS, methods),
    ):
        _write_parquet(directory / f"{name}.parquet", columns, table)
        _write_csv(directory / f"{name}.csv", columns, table)
        written += [directory / f"{name}.parquet", directory / f"{name}.csv"]
    written += sweep_figure(rows, fits, directory, figures)
    (directory / "provenance.json").write_text(json.dumps(provenance, indent=2), encoding="utf-8")
    written.append(directory / "provenance.json")
    return written


def _options(figures):
    """The figure options asked for (a ``sabounds.render.plots.FigureOptions``); by default PNG, PDF and SVG."""
    from sabounds.render.plots import FigureOptions

    return figures or FigureOptions(FIGURE_FORMATS)


def sweep_figure(rows: Sequence[dict], fits, directory: Path, figures=None) -> list[Path]:
    """Per family: ``ours`` (left) and ``edelman`` (right) against depth L, log-log, one line per width N (its
    checkpoints and depth truncations, by L), coloured by N (colour bar), fitted slopes in the titles."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    from matplotlib.colors import Normalize

    ok = [r for r in rows if r["status"] == "ok"]
    families = sorted({r["family"] for r in ok}) or [""]
    slopes = {(family, f.quantity): f for family, f in fits}
    fig, axes = plt.subplots(len(families), 2, figsize=(11, 4.2 * len(families)), squeeze=False)
    fig.subplots_adjust(left=0.08, right=0.97, top=0.9, bottom=0.12, wspace=0.3, hspace=0.45)
    widths = sorted({r["N"] for r in ok}) or [1]
    norm = Normalize(vmin=min(widths), vmax=max(widths) if max(widths) > min(widths) else min(widths) + 1)
    cmap = plt.get_cmap("viridis")
    for row_axes, family in zip(axes, families):
        mine = [r for r in ok if r["family"] == family]
        depths = sorted({r["L"] for r in mine})
        for ax, quantity in zip(row_axes, ("ours", "edelman")):
            beyond = any(r[quantity] is None for r in mine)  # beyond float64: log10 on a linear axis, none dropped
            for width in sorted({r["N"] for r in mine}):
                pts = sorted((r for r in mine if r["N"] == width), key=lambda r: r["L"])
                ax.plot(
                    [r["L"] for r in pts],
                    [r[f"{quantity}_log10"] if beyond else r[quantity] for r in pts],
                    "o-",
                    ms=4,
                    lw=1,
                    color=cmap(norm(width)),
                )
            fit = slopes.get((family, quantity))
            slope = (
                ", ".join(
                    f"slope in ${v}$ {s:.2f}" for v, s in (("L", fit.slope_L), ("N", fit.slope_N)) if s is not None
                )
                if fit
                else "no fit"
            )
            ax.set(
                xscale="log",
                yscale="linear" if beyond else "log",
                xlabel=r"depth $L$ (layers)",
                ylabel=f"log10 {quantity} (proxy value)" if beyond else f"{quantity} (proxy value)",
                title=f"{plot_text(family) if family else 'no family'}: {quantity} ({slope})",
            )
            ax.set_xticks(depths, [str(d) for d in depths])
            ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
            ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
            ax.plot([], [], "o-", color="grey", label=r"one width $N$ (colour bar)")
            ax.legend(loc="upper left", fontsize=8)
            bar = fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, label=r"width $N$")
            bar.set_ticks(widths, labels=[str(w) for w in widths])
    options, paths = _options(figures), []
    try:
        for fmt in options.formats:
            path = Path(directory) / f"sweep_scaling.{fmt}"
            fig.savefig(
                path,
                dpi=options.dpi if fmt == "png" else None,
                format=fmt,
                metadata={"CreationDate": None} if fmt == "pdf" else None,
            )
            paths.append(path)
    finally:
        plt.close(fig)
    return paths
