"""``sabounds.study``: train a grid of small transformers, measure them and rank the measures (needs the ``study``
extra)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from sabounds.api._common import frame
from sabounds.errors import InputError


@dataclass(frozen=True)
class Study:
    """``sabounds.study``'s result: ``json`` as ``sabounds study --json``; ``runs`` (one row per run) and
    ``ranking`` (one row per task and measure: tau, interval, granulated Psi, sign-error) as pandas tables.
    ``json["complete"]`` is false when runs were lost with their workers on every try (``json["missing"]``: their
    labels; they are excluded like failed runs, and a rerun trains only them, the others coming from the cache)."""

    json: dict = field(repr=False)

    @property
    def runs(self):
        return frame([{"label": r["label"], "status": r["status"], **r["spec"], **(r["record"] or {}),
                        **{f"ln_{k}": v for k, v in (r["measures"] or {}).items()}} for r in self.json["runs"]])

    @property
    def ranking(self):
        return frame([{"task": task, "measure": r["measure"], "runs": r["runs"], "tau": r["tau"],
                        "tau_low": r["tau_low"], "tau_high": r["tau_high"], "Psi": r["granulated"]["Psi"],
                        "sign_error_worst": r["sign_error"]["worst"], "sign_error_mean": r["sign_error"]["mean"]}
                       for task, t in self.json["tasks"].items() for r in t["rankings"]["gap_error"]])

    def write(self, out, *, force: bool = False, formats: Sequence[str] = ("png", "pdf", "svg"), dpi: int = 150):
        """study.json, runs.csv, table.md and the figures into the new folder ``out``."""
        from sabounds.outputs.atomic import atomic_directory
        from sabounds.render.plots import FigureOptions
        from sabounds.training_study.outputs import write_study
        with atomic_directory(out, force=force) as work:
            write_study(self.json, work, FigureOptions(tuple(formats), dpi))


def study(grid: str = "default", *, tasks: Sequence[str] | None = None, workers: int | None = None,
          scheduler: str | None = None, cache_dir=None, out=None, force: bool = False, figures=None,
          progress_bar=None) -> Study:
    """Train, measure and rank the named grid (``sabounds study``); ``cache_dir`` None: no run cache.  With ``out``
    the study's files go into that new folder (``figures``: a ``FigureOptions``); ``progress_bar(total)``: a context
    manager yielding ``advance(note)``, called once per run."""
    from contextlib import nullcontext
    from importlib.util import find_spec
    missing = [m for m in ("torch", "sklearn", "scipy", "distributed") if find_spec(m) is None]
    if missing:
        raise InputError(f"sabounds study needs {', '.join(missing)}: pip install 'sabounds[study]'")
    from sabounds.api._sweep import check_cache_dir
    from sabounds.outputs.atomic import atomic_directory, check_target
    from sabounds.training_study.grids import GRID_NOTES, grid as grid_runs
    from sabounds.training_study.tasks import TASKS
    if scheduler is not None and workers is not None:
        raise InputError("a worker count sizes a local cluster; it cannot be combined with a scheduler")
    if out is not None and not str(out).strip():
        raise InputError("the output folder needs a name")
    if grid not in GRID_NOTES:
        raise InputError(f"unknown grid {grid!r}; choose from {', '.join(GRID_NOTES)}")
    bad = [t for t in tasks or () if t not in TASKS]
    if bad or (tasks is not None and not tasks):
        raise InputError(f"unknown task {', '.join(bad) or '(none)'}; choose among {', '.join(TASKS)}")
    tasks = None if tasks is None else list(dict.fromkeys(tasks))
    protect = [cache_dir] if cache_dir else []
    if out:
        check_target(out, force, protect=protect)
    check_cache_dir(None if cache_dir is None else str(cache_dir), [], out)
    from sabounds.training_study.pipeline import run_study  # torch (200 MB): after every refusal of the arguments
    total = len(grid_runs(grid, tasks))
    from sabounds.distributed import LostTask
    lost: list[str] = []

    def done(spec, outcome, cached) -> None:
        if isinstance(outcome, LostTask):
            lost.append(spec.label())
        advance(spec.label())
    with (progress_bar(total) if progress_bar else nullcontext(lambda note: None)) as advance:
        try:
            result = Study({**run_study(grid, tasks, workers, scheduler, cache_dir, on_done=done),
                            "complete": not lost, "missing": lost})
        except OSError as exc:
            raise InputError(f"cannot reach the Dask scheduler {scheduler}: {' '.join(str(exc).split())}") from None
        except ValueError as exc:
            raise InputError(str(exc)) from None
    if out:
        from sabounds.training_study.outputs import write_study
        with atomic_directory(out, force=force, protect=protect) as work:
            write_study(result.json, work, figures)
    return result
