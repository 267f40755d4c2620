"""The files of a study, written into the folder the caller created: study.json, runs.csv, table.md and, per task,
the scatter and forest figures (``sabounds.training_study.outputs`` draws them; ``sabounds.render.plots`` saves)."""

from __future__ import annotations

import json
from pathlib import Path

from sabounds.render.figure_formats import FigureOptions
from sabounds.render.plots import _save
from sabounds.training_study.outputs import forest_figure, markdown, scatter_figure, write_csv


def write_study(result: dict, folder: Path, options: FigureOptions) -> None:
    """Every file into ``folder`` (an empty folder the caller created)."""
    folder = Path(folder)
    (folder / "study.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    write_csv(result["runs"], folder / "runs.csv")
    (folder / "table.md").write_text(markdown(result) + "\n", encoding="utf-8")
    for task, t in result["tasks"].items():
        _save(scatter_figure(task, result["runs"], t), folder, f"scatter_{task}", options)
        _save(forest_figure(task, t), folder, f"forest_{task}", options)
