"""Run layer tasks (and the study's runs) on Dask's distributed scheduler: a private local cluster sized to the
machine, or an existing one.

Tasks whose verified cache entry exists are answered in this process first (no weights read, no cluster started),
so a rerun or a resumed sweep only sends what is missing.  Each remaining task is one Dask task; a task that raises
yields its exception, which the caller turns into its checkpoint's error row.  A task whose worker is lost (killed,
out of memory) is reported in one line on stderr and sent again to the remaining workers up to :data:`MAX_RETRIES`
times; after that it yields :class:`LostTask`, which the caller reports as missing (a partial result, resumable).

The local cluster is private: scheduler, nannies and workers listen on 127.0.0.1 only, over TLS with a key and a
self-signed certificate made for this run and held in memory (``Security.temporary()``), so a process without
them cannot connect; and no node starts an HTTP server (no dashboard, no /health or Prometheus routes, no port
beyond the TLS ones).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Sequence

from sabounds.errors import UserError
from sabounds.numerics.proxies.certified_measure import usable_cores
from sabounds.numerics.proxies.sweep import LayerResult, LayerTask, cached_results, measure_task

MAX_RETRIES = 2
"""Times a task whose worker was lost is sent again before it is reported missing (the private cluster's scheduler
fails a task at its first lost worker, ``allowed_failures=0``, so the retries are counted here, and reported)."""


class LostTask(RuntimeError):
    """A task whose worker was lost on every try (1 + :data:`MAX_RETRIES`): missing, not failed; a rerun resumes."""


def _lost_worker(exc: BaseException) -> bool:
    """Whether ``exc`` says the task's worker was lost (Dask's KilledWorker, a cancelled future, a closed comm)."""
    import concurrent.futures

    from distributed.comm.core import CommClosedError
    from distributed.scheduler import KilledWorker

    return isinstance(exc, (KilledWorker, CommClosedError, concurrent.futures.CancelledError))


def default_workers() -> int:
    """One single-threaded worker process per usable core (BLAS in each worker is single-threaded too)."""
    return usable_cores()


def run_tasks(
    tasks: Sequence[LayerTask],
    workers: int | None = None,
    scheduler: str | None = None,
    on_done: Callable[[LayerTask, LayerResult | BaseException], None] | None = None,
) -> list[LayerResult | BaseException]:
    """Results in task order: cached ones locally, the rest on Dask (``workers = 0``: in this process, serially)."""
    report = None if on_done is None else (lambda i, outcome, cached: on_done(tasks[i], outcome))
    return run_cached(measure_task, tasks, cached_results(tasks), workers, scheduler, report)


def run_cached(
    function: Callable,
    items: Sequence,
    hits: Sequence,
    workers: int | None,
    scheduler: str | None,
    on_done: Callable[[int, object, bool], None] | None = None,
) -> list:
    """``function(item)`` (or its exception) per item in item order, ``hits[i]`` where it is not None: the cached
    ones answered here first (``on_done(i, hit, True)``), the rest in this process serially (``workers == 0`` and
    no ``scheduler``) or one Dask task each (``on_done(i, outcome, False)`` as each finishes).  ``function`` must be
    importable by the workers.  The sweep's layers and the study's runs both go through here."""
    results: list = [None] * len(items)

    def finish(i: int, outcome, cached: bool = False) -> None:
        results[i] = outcome
        if on_done is not None:
            on_done(i, outcome, cached)

    pending = []
    for i, hit in enumerate(hits):
        if hit is not None:
            finish(i, hit, True)
        else:
            pending.append(i)
    if not pending:
        return results
    if workers == 0 and scheduler is None:
        for i in pending:
            try:
                outcome = function(items[i])
            except Exception as exc:  # the task's own error; an error of on_done is the caller's, not the task's
                outcome = exc
            finish(i, outcome)
        return results
    _run_on_dask(function, [items[i] for i in pending], pending, workers, scheduler, finish)
    return results


def private_cluster(workers: int):
    """A started local cluster on 127.0.0.1 over TLS with a per-run temporary certificate and no HTTP server."""
    from distributed import Nanny, SpecCluster
    from distributed.security import Security

    global cluster_started
    cluster_started = True
    security = Security.temporary()
    common = {
        "host": "127.0.0.1",
        "protocol": "tls",
        "security": security,
        "dashboard": False,
        "dashboard_address": None,
    }
    scheduler = {"cls": node_class("Scheduler"), "options": {**common, "port": 0, "allowed_failures": 0}}
    worker = {
        "cls": Nanny,
        "options": {**common, "nthreads": 1, "worker_class": node_class("Worker"), "silence_logs": logging.CRITICAL},
    }
    return SpecCluster(
        scheduler=scheduler,
        workers={i: worker for i in range(workers)},
        worker=worker,
        security=security,
        silence_logs=logging.CRITICAL,
    )


def started_cluster(workers: int):
    """:func:`private_cluster`, started in a helper thread.  Ctrl-C during the start (distributed cannot close a
    cluster whose workers are half-started: ``AssertionError: Status.init`` at exit) lets the start finish, with
    further Ctrl-C ignored, closes the cluster, then raises KeyboardInterrupt."""
    import signal
    import threading

    box: dict = {}

    def start() -> None:
        try:
            box["cluster"] = private_cluster(workers)
        except BaseException as exc:
            box["error"] = exc

    helper = threading.Thread(target=start, name="sabounds-cluster-start", daemon=True)
    helper.start()
    try:
        helper.join()
    except KeyboardInterrupt:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            helper.join()
            if "cluster" in box:
                box["cluster"].close()
        finally:
            signal.signal(signal.SIGINT, previous)
        raise
    if "error" in box:
        raise box["error"]
    return box["cluster"]


def _no_http_server(self, routes, dashboard_address, default_port=0, ssl_options=None) -> None:
    """In place of ``distributed.node.ServerNode.start_http_server``: listen on no HTTP port at all."""


def node_class(kind: str) -> type:
    """Dask's ``Scheduler`` or ``Worker`` without an HTTP server, made on first use (importing distributed takes a
    second) and kept as this module's ``PrivateScheduler`` / ``PrivateWorker``, so worker processes unpickle it."""
    name = f"Private{kind}"
    if name not in globals():
        import distributed

        globals()[name] = type(
            name,
            (getattr(distributed, kind),),
            {"start_http_server": _no_http_server, "__module__": __name__, "__qualname__": name},
        )
    return globals()[name]


def __getattr__(name: str):
    if name in ("PrivateScheduler", "PrivateWorker"):
        return node_class(name[len("Private") :])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


QUIET_LOGGERS = ("distributed", "distributed.client", "tornado.application")
"""distributed's loggers (``distributed.client`` has its own handler and does not propagate) and tornado's."""

cluster_started = False
"""Whether this process started a private cluster (whose finalizers at exit may still log)."""


@contextlib.contextmanager
def quiet_logs():
    """distributed's own lines (``INFO - Closing scheduler``, ...) kept off stderr while this process runs a private
    cluster, interrupted or not: the command's one line stays the only one; the logger's level is restored after."""
    loggers = [logging.getLogger(name) for name in QUIET_LOGGERS]
    previous = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, previous):
            logger.setLevel(level)


def describe(task) -> str:
    """A task as a reader knows it: a layer of a checkpoint, or a run (the study's tasks are dicts)."""
    if hasattr(task, "source") and hasattr(task, "layer"):
        return f"layer {task.layer} of {task.source}"
    return " ".join(str(task).split())[:120]


def _retry(client, function, task, tries: int, exc: BaseException, finished, where: dict, position: int):
    """Send ``task`` again after its worker was lost (one line on stderr), or its :class:`LostTask` after the last
    try; None when it was sent again.  A task queued on a worker that another task killed is lost with it too."""
    import sys

    what = describe(task)
    if tries >= MAX_RETRIES:
        sys.stderr.write(f"sabounds: a worker was lost holding {what} on each of {tries + 1} tries; it is missing\n")
        return LostTask(
            f"{what}: its worker was lost on each of {tries + 1} tries ({type(exc).__name__}); rerun to resume"
        )
    sys.stderr.write(f"sabounds: a worker was lost holding {what}; sending it again ({tries + 1} of {MAX_RETRIES})\n")
    again = client.submit(function, task, pure=False)
    where[again.key] = (position, task, tries + 1)
    finished.add(again)
    return None


def _close(cluster, tries: int = 3) -> None:
    """Close the private cluster.  A nanny caught restarting a lost worker fails its first close (distributed's
    ``AssertionError: can only join a started process``): the results are in, so the close is tried again after a
    moment rather than ending the run in a traceback."""
    import time

    for attempt in range(tries):
        try:
            cluster.close()
            return
        except Exception:  # distributed's own state while a worker restarts
            if attempt == tries - 1:
                return
            time.sleep(1.0)


def _run_on_dask(function, tasks, positions, workers, scheduler, finish) -> None:
    try:
        import cryptography  # noqa: F401  (the local cluster's temporary certificate)
        from distributed import as_completed
    except ImportError as exc:
        raise UserError(
            f"running on Dask needs the sweep extra (pip install 'sabounds[sweep]'): {exc}; "
            "or run in this process with --workers 0"
        ) from None

    from sabounds.scheduler_address import connect

    cluster = client = None
    with quiet_logs() if scheduler is None else contextlib.nullcontext():
        try:
            if scheduler is None:
                cluster = started_cluster(workers or default_workers())
                client = connect(cluster)
            else:
                client = connect(scheduler)
            futures = client.map(function, tasks, pure=False)
            where = {f.key: (p, task, 0) for f, p, task in zip(futures, positions, tasks)}
            finished = as_completed(futures, loop=client.loop)
            for future in finished:
                position, task, tries = where.pop(future.key)
                try:
                    outcome = future.result()
                except Exception as exc:  # the task's own error, or a lost worker
                    outcome = exc
                    if _lost_worker(exc):
                        outcome = _retry(client, function, task, tries, exc, finished, where, position)
                        if outcome is None:
                            continue
                finish(position, outcome)
        finally:
            if client is not None:
                client.close()
            if cluster is not None:
                _close(cluster)
