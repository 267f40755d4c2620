"""``sabounds.report``: the main job's report (every check, the regime tables, the model analysis and its depth
scaling, the whole bound) written into a new folder that appears whole or not at all."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sabounds.api._common import check_settings, model_or_default
from sabounds.errors import InputError

if TYPE_CHECKING:
    from sabounds.full_report.compute import ReportData
    from sabounds.render.figure_formats import FigureOptions


@dataclass(frozen=True)
class Report:
    """``sabounds.report``'s result: ``folder`` (report.md, report.html, the tables and figures) and ``data`` (the
    computed ``ReportData``: checks, regimes, analysis, scaling, bound)."""

    folder: Path
    data: ReportData = field(repr=False)

    @property
    def failing(self) -> tuple[str, ...]:
        """Derivation steps not proved or verified (the command exits 1 when there is one)."""
        from sabounds.proofs_check.outcome_records import failing_steps

        return tuple(c.id for c in failing_steps(self.data.checks))

    @property
    def summary(self) -> dict[str, Any]:
        from sabounds.proofs_check.outcome_records import summary

        return summary(self.data.checks)

    def to_json(self) -> dict[str, Any]:
        """The verdict counts, the failing steps and the headline numbers."""
        return {
            "folder": str(self.folder),
            "summary": self.summary,
            "failing": list(self.failing),
            "ours": self.data.analysis.ours,
            "edelman": self.data.analysis.edelman,
            "seconds": self.data.seconds,
        }

    @property
    def markdown(self) -> str:
        return (self.folder / "report.md").read_text(encoding="utf-8")


def report(
    out: str | Path = "report",
    *,
    model: str | Path | None = None,
    force: bool = False,
    precision: int = 50,
    samples: int = 200,
    seed: int | None = None,
    figures: FigureOptions | None = None,
    progress_bar: Callable[[int], AbstractContextManager[Callable[[str], None]]] | None = None,
) -> Report:
    """Compute everything and write the report folder ``out`` (replaced only with ``force`` and only if sabounds
    wrote it).  ``figures``: a ``FigureOptions`` (formats, PNG resolution); ``progress_bar(total)`` a context manager
    yielding ``advance(note)``.  An interrupt raises ``OutputInterrupted`` saying which report is at ``out``."""
    from sabounds.full_report.compute import stage_sizes
    from sabounds.full_report.files import build_report
    from sabounds.numerics.checkpoints.errors import CheckpointError
    from sabounds.outputs.atomic import atomic_directory, check_target

    settings = check_settings(precision, samples, seed)
    model_dir = model_or_default(model)
    check_target(out, force, protect=[model_dir])
    try:
        sizes = stage_sizes(model_dir)
        with (
            atomic_directory(out, force=force, protect=[model_dir]) as folder,
            progress_bar(sum(sizes.values())) if progress_bar else nullcontext(lambda note: None) as advance,
        ):
            data = build_report(folder, model_dir, settings, advance, figures)
    except (CheckpointError, ValueError) as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"could not write the report ({exc.strerror or exc}); nothing written") from None
    return Report(Path(out), data)
