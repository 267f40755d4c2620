"""``sabounds.study``: train a grid of small transformers, measure them and rank the measures (needs the ``study``
extra)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sabounds.api._common import frame
from sabounds.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from sabounds.api._sweep import ProgressBar
    from sabounds.render.figure_formats import FigureOptions
    from sabounds.training_study.grids import RunSpec


@dataclass(frozen=True)
class Study:
    """``sabounds.study``'s result: ``json`` as ``sabounds study --json``; ``runs`` (one row per run) and
    ``ranking`` (one row per task, measure and axis, plus axis ``overall``: tau, interval, p-value, verdict, with the
    measure's sign-error, range and tau with n) as pandas tables.

    ``json["complete"]`` is false when runs were lost with their workers on every try (``json["missing"]``: their
    labels; they are excluded like failed runs, and a rerun trains only them, the others coming from the cache)."""

    json: dict[str, Any] = field(repr=False)

    @property
    def runs(self) -> pd.DataFrame:
        return frame(
            [
                {
                    "label": r["label"],
                    "status": r["status"],
                    **r["spec"],
                    **(r["record"] or {}),
                    **{f"ln_{k}": v for k, v in (r["measures"] or {}).items()},
                }
                for r in self.json["runs"]
            ]
        )

    @property
    def ranking(self) -> pd.DataFrame:
        rows: list[dict[str, Any]] = []
        for task, t in self.json["tasks"].items():
            for r in t["rankings"]["gap_error"]:
                common = {
                    "task": task,
                    "measure": r["measure"],
                    "runs": r["runs"],
                    "sign_error_worst": r["sign_error"]["worst"],
                    "sign_error_kept": r["sign_error"]["kept"],
                    "range": r["describe"]["range"],
                    "tau_with_size": r["describe"]["tau_with_size"],
                }
                o = r["overall"]
                rows.append(
                    {
                        **common,
                        "axis": "overall",
                        "tau": o["tau"],
                        "low": o["low"],
                        "high": o["high"],
                        "p": o["p"],
                        "verdict": o["verdict"],
                    }
                )
                rows += [
                    {
                        **common,
                        "axis": a,
                        "tau": c["psi"],
                        "low": c["low"],
                        "high": c["high"],
                        "p": c["p"],
                        "verdict": c["verdict"],
                    }
                    for a, c in r["granulated"]["per_axis"].items()
                ]
        return frame(rows)

    def sections(self) -> list[dict[str, Any]]:
        """What ``sabounds study`` prints, in order: tables ``{"title", "header", "rows"}`` (rows of strings) and
        lines ``{"line"}``, per task along each axis and over all runs, then the legend and the timing."""
        from sabounds.training_study.outputs import (
            AXIS_HEADER,
            AXIS_NAMES,
            OVERALL_HEADER,
            SHOWN,
            axis_rows,
            conclusion,
            left_out,
            legend,
            overall_rows,
        )

        result, out = self.json, list[dict[str, Any]]()
        for task, t in result["tasks"].items():
            out.append(
                {
                    "line": f"{task}: {t['used']} of {t['runs']} runs used, {len(t['excluded'])} excluded (not at "
                    f"cross-entropy {result['settings']['stop_loss']:g}); gap = test - train error"
                }
            )
            out += [
                {
                    "title": f"{task}: along {AXIS_NAMES.get(axis, axis)} (granulated tau)",
                    "header": AXIS_HEADER,
                    "rows": axis_rows(t, axis),
                }
                for axis in t["axes"]
            ]
            out.append({"title": f"{task}: over all runs", "header": OVERALL_HEADER, "rows": overall_rows(t)})
            out.append(
                {
                    "line": "* weights only (no n, no margin); sign-err.: worst, environments kept by the noise "
                    "filter/all; range: ln max - min over all runs / within one architecture; tau(n): tau "
                    "with the size"
                }
            )
            out += [
                {"line": line.replace("`", "")}
                for line in left_out(t, SHOWN, "--out DIR's study.json and Study.ranking")[:1] + conclusion(task, t)
            ]
        out.append({"line": legend(result["settings"])})
        timing = result["timing"]
        out.append(
            {
                "line": f"{result['settings']['rule']}  {timing['cached'] + timing['trained']} runs "
                f"({timing['cached']} from cache) in {timing['seconds']:.1f} s"
            }
        )
        return out

    def write(
        self, out: str | Path, *, force: bool = False, formats: Sequence[str] = ("png", "pdf", "svg"), dpi: int = 150
    ) -> None:
        """study.json, runs.csv, table.md and the figures into the new folder ``out``."""
        from sabounds.outputs.atomic import atomic_directory
        from sabounds.outputs.study_files import write_study
        from sabounds.render.plots import FigureOptions

        with atomic_directory(out, force=force) as work:
            write_study(self.json, work, FigureOptions(tuple(formats), dpi))


def study(
    grid: str | Sequence[RunSpec] = "default",
    *,
    tasks: Sequence[str] | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    cache_dir: str | Path | None = None,
    out: str | Path | None = None,
    force: bool = False,
    figures: FigureOptions | None = None,
    progress_bar: ProgressBar | None = None,
) -> Study:
    """Train, measure and rank the named grid (``sabounds study``), or ``grid`` given as a sequence of
    ``sabounds.training_study.grids.RunSpec`` (any task, size, noise, architecture, seed); ``cache_dir`` None: no
    run cache.  With ``out``
    the study's files go into that new folder (``figures``: a ``FigureOptions``); ``progress_bar(total)``: a context
    manager yielding ``advance(note)``, called once per run."""
    from contextlib import nullcontext
    from importlib.util import find_spec

    missing = [m for m in ("torch", "sklearn", "scipy", "distributed") if find_spec(m) is None]
    if missing:
        raise InputError(f"sabounds study needs {', '.join(missing)}: pip install 'sabounds[study]'")
    from sabounds.api._sweep import check_cache_dir
    from sabounds.outputs.atomic import atomic_directory, check_target
    from sabounds.training_study.grids import GRID_NOTES
    from sabounds.training_study.grids import grid as grid_runs
    from sabounds.training_study.tasks import TASKS

    if scheduler is not None and workers is not None:
        raise InputError("a worker count sizes a local cluster; it cannot be combined with a scheduler")
    if out is not None and not str(out).strip():
        raise InputError("the output folder needs a name")
    if isinstance(grid, str):
        if grid not in GRID_NOTES:
            raise InputError(f"unknown grid {grid!r}; choose from {', '.join(GRID_NOTES)}")
    else:
        from sabounds.training_study.grids import RunSpec

        grid = list(grid)
        if not grid or not all(isinstance(s, RunSpec) for s in grid):
            raise InputError("a custom grid is a non-empty sequence of RunSpec")
    bad = [t for t in tasks or () if t not in TASKS]
    if bad or (tasks is not None and not tasks):
        raise InputError(f"unknown task {', '.join(bad) or '(none)'}; choose among {', '.join(TASKS)}")
    tasks = None if tasks is None else list(dict.fromkeys(tasks))
    protect = [cache_dir] if cache_dir else []
    if out:
        check_target(out, force, protect=protect)
    check_cache_dir(None if cache_dir is None else str(cache_dir), [], out)
    from sabounds.training_study.pipeline import run_study  # torch (200 MB): after every refusal of the arguments

    total = len(grid_runs(grid, tasks) if isinstance(grid, str) else grid)
    from sabounds.distributed import LostTask

    lost: list[str] = []

    def done(spec: Any, outcome: object, cached: bool) -> None:
        if isinstance(outcome, LostTask):
            lost.append(spec.label())
        advance(spec.label())

    with progress_bar(total) if progress_bar else nullcontext(lambda note: None) as advance:
        try:
            result = Study(
                {
                    **run_study(grid, tasks, workers, scheduler, cache_dir, on_done=done),
                    "complete": not lost,
                    "missing": lost,
                }
            )
        except OSError as exc:
            raise InputError(f"cannot reach the Dask scheduler {scheduler}: {' '.join(str(exc).split())}") from None
        except ValueError as exc:
            raise InputError(str(exc)) from None
    if out:
        from sabounds.outputs.study_files import write_study
        from sabounds.render.figure_formats import FigureOptions

        with atomic_directory(out, force=force, protect=protect) as work:
            write_study(result.json, work, figures or FigureOptions(("png", "pdf", "svg")))
    return result


def rank_runs(table: str | Path | pd.DataFrame, *, axes: Sequence[str] | None = None) -> Study:
    """Rank a user's own runs without training: ``table`` a CSV path or a pandas DataFrame, one row per run with
    ``seed``, ``train_error``, ``test_error``, hyperparameter columns and measures as ``ln_<name>`` columns (the form
    of ``runs.csv``); ``axes`` the hyperparameter columns (default: the study's axes that vary).  The result's
    ``ranking`` and ``write`` are the study's, under task ``user``."""
    import pandas as pd

    from sabounds.training_study.pipeline import settings
    from sabounds.training_study.summary import clean
    from sabounds.training_study.user_runs import rank_table

    if not isinstance(table, pd.DataFrame):
        try:
            table = pd.read_csv(table)
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read the runs table {table}: {' '.join(str(exc).split())[:200]}") from None
    try:
        ranked = rank_table(table, axes)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    return Study(
        clean(
            {
                "settings": {**settings("user", []), "runs": ranked["runs"]},
                "runs": [],
                "tasks": {"user": ranked},
                "timing": {"cached": 0, "trained": 0, "seconds": 0.0},
            }
        )
    )
