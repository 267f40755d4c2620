"""The files of a whole-bound run: ``bound.json``, ``bound.txt`` (what ``sabounds bound`` prints) and the figure."""

from __future__ import annotations

from pathlib import Path

from sabounds.numerics.log_real import dumps
from sabounds.render.bound_text import bound_text_lines


def write_files(analysis, directory, figures=None) -> list:
    """``bound.json``, ``bound.txt`` (what the command prints) and, with a curve, ``bound_vs_n.{png,pdf,svg}``."""
    directory = Path(directory)
    (directory / "bound.json").write_text(dumps(analysis.to_json(), indent=2) + "\n", encoding="utf-8")
    (directory / "bound.txt").write_text("\n".join(bound_text_lines(analysis)) + "\n", encoding="utf-8")
    written = [directory / "bound.json", directory / "bound.txt"]
    if analysis.curve is not None:
        from sabounds.render.bound_figure import bound_figure

        written += bound_figure(analysis, directory, figures)
    return written
