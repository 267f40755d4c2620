"""The report's folder: every table as CSV and JSON, the figures, ``provenance.json``, ``report.md`` and
``report.html``; :func:`build_report` computes and writes into a folder the caller makes atomic."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from sabounds.full_report.compute import Advance, ReportData, compute, provenance
from sabounds.full_report.html import html
from sabounds.full_report.sections import markdown
from sabounds.numerics.log_real import dumps
from sabounds.outputs.files import write_analysis_files, write_csv, write_scaling_files
from sabounds.proofs_check.outcome_records import outcome_record, summary
from sabounds.proofs_check.verdict import Settings


def _write_json(path: Path, data) -> None:
    path.write_text(dumps(data, indent=2) + "\n", encoding="utf-8")


def write_tables(data: ReportData, folder: Path, figures=None) -> None:
    """Every table as CSV and JSON, and the figures (PNG unless ``figures``, a ``sabounds.render.plots.FigureOptions``, says)."""
    records = [outcome_record(c, o) for c, o in data.checks]
    _write_json(folder / "checks.json", {"checks": records, "summary": summary(data.checks)})
    columns = [
        "id",
        "claim",
        "verdict",
        "method",
        "precision_digits",
        "samples",
        "margin",
        "seconds",
        "is_step",
        "detail",
    ]
    write_csv(folder / "checks.csv", columns, [[r[c] for c in columns] for r in records])
    _write_json(folder / "regimes.json", data.regimes)
    rows = [
        [reg["name"], reg["alpha"], bound, b["depth_exponent"], b["width_exponent"], b["token_dependence"], b["expr"]]
        for reg in data.regimes["regimes"]
        for bound, b in reg["bounds"].items()
    ]
    write_csv(
        folder / "regimes.csv",
        ["regime", "alpha", "bound", "depth_exponent", "width_exponent", "token_dependence", "expr"],
        rows,
    )
    (folder / "analysis").mkdir()
    write_analysis_files(data.analysis, folder / "analysis", plots=True, figures=_with_png(figures))
    _write_json(folder / "analysis" / "analysis.json", data.analysis.to_json())
    (folder / "scaling").mkdir()
    write_scaling_files(data.scaling, folder / "scaling", plots=True, figures=_with_png(figures))
    _write_json(folder / "scaling" / "scaling.json", data.scaling.to_json())
    _write_json(folder / "provenance.json", provenance(data))
    if data.bound is not None:
        from sabounds.outputs.bound_files import write_files

        (folder / "bound").mkdir()
        write_files(data.bound, folder / "bound", _with_png(figures))


def _with_png(figures):
    """The report's pages show PNG: it is always written, beside any other format asked for."""
    from sabounds.render.plots import FigureOptions

    figures = figures or FigureOptions()
    return FigureOptions(tuple(dict.fromkeys(("png", *figures.formats))), figures.dpi)


def build_report(folder: Path, model_dir: Path, settings: Settings, advance: Advance, figures=None) -> ReportData:
    """Compute everything and write it into ``folder`` (which the caller makes atomic)."""
    data = dataclasses.replace(compute(model_dir, settings, advance), figures=figures)
    write_tables(data, folder, figures)
    text = markdown(data)
    (folder / "report.md").write_text(text, encoding="utf-8")
    (folder / "report.html").write_text(html(text), encoding="utf-8")
    return data
