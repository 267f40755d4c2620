"""``sabounds.sweep``: analyse many checkpoints as Dask tasks (one per layer), with cached, certified spectra; rows
per checkpoint and depth, fits per family, and on request an output folder written atomically."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sabounds.api._common import frame, renamed
from sabounds.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from sabounds.numerics.proxies.scaling import LogLogFit
    from sabounds.numerics.proxies.sweep import PlannedCheckpoint
    from sabounds.render.figure_formats import FigureOptions

ProgressBar = Callable[[int], AbstractContextManager[Callable[[str], None]]]
"""``progress_bar(total)``: a context manager yielding ``advance(note)``, called once per layer done."""


@dataclass(frozen=True)
class Sweep:
    """``sabounds.sweep``'s result: ``rows`` (one per checkpoint and depth, an error row for a failed checkpoint),
    ``fits`` (``(family, fit)`` pairs), ``layers`` (total, from_cache, measured, failed), ``seconds``."""

    rows: list[dict[str, Any]] = field(repr=False)
    fits: list[tuple[str, LogLogFit]] = field(repr=False)
    layers: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    missing: list[str] = field(default_factory=list)
    """Tasks lost with their workers on every try (``sabounds.distributed.LostTask``), one line each: the rows of
    their checkpoints are error rows, the result is partial (``provenance.json``: ``"complete": false``), and
    ``sweep(..., resume=True)`` completes it from the cache."""

    def to_frame(self) -> pd.DataFrame:
        """The rows as a DataFrame (the columns of ``sweep.csv``)."""
        return frame(self.rows)

    def to_json(self) -> dict[str, Any]:
        """``{"rows", "fits", "complete", "missing"}`` as ``sabounds sweep --json`` prints them (``complete`` false:
        tasks lost with their workers, named in ``missing``)."""
        return {
            "rows": self.rows,
            "fits": [{"family": f, **vars(fit)} for f, fit in self.fits],
            "complete": not self.missing,
            "missing": list(self.missing),
        }


def check_cache_dir(cache_dir: str | Path | None, inputs: Sequence[str | Path], out: str | Path | None) -> None:
    """Refuse a spectra cache that is not a folder, or that is, contains or lies inside an input (checkpoint or
    list file) or the output folder (the cache writes ``entries/`` and ``files/`` into it), or one that is not private
    (owned by another user, writable by group or others)."""
    if cache_dir is None:
        return
    if "\0" in str(cache_dir):
        raise InputError("the cache folder's name contains a NUL character")
    if os.path.lexists(cache_dir) and not os.path.isdir(cache_dir):
        raise InputError(f"the spectra cache {cache_dir} exists and is not a folder; give a folder as the cache")
    from sabounds.numerics.cache import CacheFolderError, check_cache_root

    try:
        check_cache_root(cache_dir)
    except CacheFolderError as exc:
        raise InputError(str(exc)) from None
    real = os.path.realpath(cache_dir)
    for item, what in [*((i, "the input") for i in inputs), (out, "the output folder")]:
        if item is None or not str(item).strip():
            continue
        other = os.path.realpath(item)
        if os.path.commonpath([real, other]) in (real, other):
            raise InputError(
                f"the spectra cache {cache_dir} is, contains or lies inside {what} {item}; choose another cache folder"
            )


def _provenance(
    settings: dict[str, Any],
    command: list[str] | None,
    plan: list[PlannedCheckpoint],
    outcomes: list[Any],
    seconds: float,
) -> dict[str, Any]:
    from sabounds.outputs.provenance import package_versions, platform_line

    results = [o for o in outcomes if not isinstance(o, BaseException)]
    return {
        "command": command,
        "settings": settings,
        "sources": [p.source for p in plan],
        "packages": package_versions(),
        "platform": platform_line(),
        "layers": {
            "total": len(outcomes),
            "from_cache": sum(r.cached for r in results),
            "measured": sum(not r.cached for r in results),
            "failed": len(outcomes) - len(results),
        },
        "seconds": round(seconds, 3),
    }


def _run(
    plan: list[PlannedCheckpoint], workers: int | None, scheduler: str | None, progress_bar: ProgressBar | None
) -> list[Any]:
    from sabounds.distributed import run_tasks
    from sabounds.numerics.proxies.sweep import one_line

    tasks = [t for p in plan for t in p.tasks]
    owner = {id(t): p.source for p in plan for t in p.tasks}
    left = {p.source: len(p.tasks) for p in plan}
    done = {"checkpoints": sum(1 for p in plan if not p.tasks)}
    with progress_bar(len(tasks)) if progress_bar else nullcontext(lambda note: None) as advance:

        def on_done(task: object, outcome: object) -> None:
            source = owner[id(task)]
            left[source] -= 1
            done["checkpoints"] += left[source] == 0
            advance(f"checkpoints {done['checkpoints']}/{len(plan)}")

        try:
            return run_tasks(tasks, workers, scheduler, on_done)
        except OSError as exc:
            raise InputError(f"cannot reach the Dask scheduler {scheduler}: {one_line(exc)}") from None


@renamed(sources="models")
def sweep(
    models: Sequence[str],
    *,
    method: str = "certified",
    depths: Sequence[int] | None = None,
    lphi: float | None = None,
    grid_m: int | None = None,
    rank_tol: float | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    cache_dir: str | None = None,
    out: str | None = None,
    force: bool = False,
    figures: FigureOptions | None = None,
    command: list[str] | None = None,
    progress_bar: ProgressBar | None = None,
    resume: bool = False,
) -> Sweep:
    """Analyse every checkpoint ``models`` names (folders, glob patterns, list files; a name that exists is read
    literally, a pattern expands only where no such path exists), ``workers`` local processes
    (0: this process) or the Dask ``scheduler``; ``cache_dir`` None: no spectra cache.  With ``out`` the table,
    fits, figures (``figures``: a ``FigureOptions``) and provenance go into that new folder, all at once.  ``resume``:
    ``out`` may hold the partial result of an earlier sweep (tasks lost with their workers), which is replaced."""
    from sabounds.distributed import LostTask
    from sabounds.numerics.proxies.published_factors import L_PHI
    from sabounds.numerics.proxies.sweep import (
        SourceListError,
        checkpoint_rows,
        expand_sources,
        family_fits,
        method_rows,
        one_line,
        plan_sweep,
    )
    from sabounds.numerics.spectra import RANK_TOL
    from sabounds.outputs.atomic import atomic_directory, check_target

    lphi, rank_tol = L_PHI if lphi is None else lphi, RANK_TOL if rank_tol is None else rank_tol
    if scheduler is not None and workers is not None:
        raise InputError("a worker count sizes a local cluster; it cannot be combined with a scheduler")
    if out is not None and not out.strip():
        raise InputError("the output folder needs a name")
    try:
        expanded = expand_sources(models)
    except SourceListError as exc:
        raise InputError(str(exc)) from None
    protect = [p for p in (*expanded, *models, cache_dir) if p and os.path.lexists(p)]
    if out and resume and os.path.lexists(out):
        force = force or _partial(out)
    if out:
        check_target(out, force, protect=protect)
    check_cache_dir(cache_dir, [*expanded, *(s for s in models if os.path.lexists(s))], out)
    start = time.perf_counter()
    plan = plan_sweep(expanded, method, cache_dir, list(depths) if depths else None)
    outcomes = _run(plan, workers, scheduler, progress_bar)
    by_task = dict(zip(map(id, [t for p in plan for t in p.tasks]), outcomes))
    rows, methods = [], []
    for p in plan:
        mine = [by_task[id(t)] for t in p.tasks]
        methods += method_rows(p, mine)
        failure = next((o for o in mine if isinstance(o, BaseException)), None)
        rows += checkpoint_rows(
            p, None if failure else mine, one_line(failure) if failure else None, lphi, grid_m, rank_tol, method
        )
    fits = family_fits(rows)
    seconds = time.perf_counter() - start
    settings = {
        "method": method,
        "lphi": lphi,
        "rank_tol": rank_tol,
        "grid_m": grid_m,
        "depths": list(depths) if depths else None,
        "workers": workers,
        "scheduler": scheduler,
        "cache_dir": cache_dir,
    }
    provenance = _provenance(settings, command, plan, outcomes, seconds)
    missing = [str(o) for o in outcomes if isinstance(o, LostTask)]
    provenance.update(complete=not missing, missing=missing)
    if out:
        from sabounds.outputs.sweep_files import write_sweep_files

        with atomic_directory(out, force=force, protect=protect) as work:
            write_sweep_files(rows, fits, provenance, work, methods, figures)
    return Sweep(rows, fits, provenance["layers"], seconds, missing)


def _partial(out: str) -> bool:
    """Whether ``out`` holds a partial sweep (``provenance.json`` with ``"complete": false``); else InputError."""
    from sabounds.numerics.user_files import Limits, UserFileError, read_json

    try:
        record = read_json(os.path.join(out, "provenance.json"), "provenance of the sweep", Limits(2**20))
    except UserFileError:
        record = None
    if not (isinstance(record, dict) and record.get("complete") is False):
        raise InputError(
            f"--resume: {out} holds no partial sweep (its provenance.json does not say complete: false); "
            "use --force to replace it"
        )
    return True
