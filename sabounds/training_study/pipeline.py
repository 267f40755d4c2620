"""``run_study``: the named grid's runs (cached or on Dask), their rows and the per-task rankings, as one dict."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from sabounds.training_study.grids import GRID_NOTES, grid
from sabounds.training_study.runner import RunCache, run_grid
from sabounds.training_study.statistics import ALPHA, BOOTSTRAP, LEVEL, PERMUTATIONS, TAU, Z
from sabounds.training_study.summary import clean, rank_tasks, run_rows
from sabounds.training_study.training import STOP_LOSS

RULE = (
    f"Every run trains until its training cross-entropy is at most {STOP_LOSS:g} (Jiang et al. 2020); runs that "
    "do not reach it within their epoch cap, or fail, are counted, listed and excluded from every statistic."
)


def run_study(
    grid_name="default",
    tasks=None,
    workers: int | None = None,
    scheduler: str | None = None,
    cache_dir: str | Path | None = None,
    on_done: Callable[[object, object, bool], None] | None = None,
) -> dict:
    """Train, measure and rank the named grid, or ``grid_name`` given as a sequence of ``RunSpec`` (then named
    ``custom``); ``cache_dir`` None: no cache.  Raises ValueError for an unknown grid or task."""
    if isinstance(grid_name, str):
        specs = grid(grid_name, tasks)
    else:
        specs, grid_name = list(grid_name), "custom"
    cache = RunCache(Path(cache_dir)) if cache_dir is not None else None
    start = time.perf_counter()
    counts = {"cached": 0, "trained": 0}

    def done(spec, outcome, cached):
        counts["cached" if cached else "trained"] += 1
        if on_done is not None:
            on_done(spec, outcome, cached)

    outcomes = run_grid(specs, cache, workers, scheduler, done)
    rows = run_rows(specs, outcomes)
    return clean(
        {
            "settings": settings(grid_name, specs),
            "runs": rows,
            "tasks": rank_tasks(rows),
            "timing": {**counts, "seconds": round(time.perf_counter() - start, 2)},
        }
    )


def settings(grid_name: str, specs) -> dict:
    """What a result was computed with: the grid, the stopping rule and the statistics' constants."""
    return {
        "grid": grid_name,
        "grid_note": GRID_NOTES.get(grid_name, grid_name),
        "tasks": sorted({s.task for s in specs}),
        "runs": len(specs),
        "rule": RULE,
        "stop_loss": STOP_LOSS,
        "tau": TAU,
        "level": LEVEL,
        "alpha": ALPHA,
        "permutations": PERMUTATIONS,
        "bootstrap": BOOTSTRAP,
        "z": Z,
    }


def table_digest(result: dict) -> str:
    """SHA-256 of everything but the timing: two runs of the same study agree on it exactly."""
    import hashlib
    import json

    body = {k: v for k, v in result.items() if k != "timing"}
    body["runs"] = [
        {k: v for k, v in r.items() if k != "record"}
        | {"record": {k: v for k, v in (r["record"] or {}).items() if k != "train_seconds"}}
        for r in result["runs"]
    ]
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
