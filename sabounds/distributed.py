"""Run layer tasks on Dask's distributed scheduler: a local cluster sized to the machine, or an existing one.

Tasks whose verified cache entry exists are answered in this process first (no weights read, no cluster started),
so a rerun or a resumed sweep only sends what is missing.  Each remaining task is one Dask task; a task that raises
(or whose worker dies) yields its exception, which the caller turns into its checkpoint's error row.
"""

from __future__ import annotations

from typing import Callable, Sequence

from sabounds.numerics.proxies.certified_measure import usable_cores
from sabounds.numerics.proxies.sweep import LayerResult, LayerTask, cached_results, measure_task


def default_workers() -> int:
    """One single-threaded worker process per usable core (BLAS in each worker is single-threaded too)."""
    return usable_cores()


def run_tasks(tasks: Sequence[LayerTask], workers: int | None = None, scheduler: str | None = None,
              on_done: Callable[[LayerTask, LayerResult | BaseException], None] | None = None
              ) -> list[LayerResult | BaseException]:
    """Results in task order: cached ones locally, the rest on Dask (``workers = 0``: in this process, serially)."""
    results: list[LayerResult | BaseException | None] = [None] * len(tasks)

    def finish(i: int, outcome) -> None:
        results[i] = outcome
        if on_done is not None:
            on_done(tasks[i], outcome)

    pending = []
    for i, hit in enumerate(cached_results(tasks)):
        if hit is not None:
            finish(i, hit)
        else:
            pending.append(i)
    if not pending:
        return results
    if workers == 0 and scheduler is None:
        for i in pending:
            try:
                finish(i, measure_task(tasks[i]))
            except Exception as exc:
                finish(i, exc)
        return results
    _run_on_dask([tasks[i] for i in pending], pending, workers, scheduler, finish)
    return results


def _run_on_dask(tasks, positions, workers, scheduler, finish, function=measure_task) -> None:
    from distributed import Client, LocalCluster, as_completed
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=workers or default_workers(), threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=40)
        client = Client(cluster)
    else:
        client = Client(scheduler, timeout="20s")
    try:
        futures = client.map(function, tasks, pure=False)
        where = {f.key: p for f, p in zip(futures, positions)}
        for future in as_completed(futures):
            try:
                outcome = future.result()
            except Exception as exc:  # the task's own error, or a lost worker
                outcome = exc
            finish(where[future.key], outcome)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def map_tasks(function: Callable, items: Sequence, positions: Sequence[int], workers: int | None, scheduler: str | None,
              finish: Callable[[int, object], None]) -> None:
    """``finish(position, function(item) or its exception)`` for each item, one Dask task each, on the sweep's
    cluster (local by default, or ``scheduler``); ``function`` must be importable by the workers."""
    _run_on_dask(list(items), list(positions), workers, scheduler, finish, function)
