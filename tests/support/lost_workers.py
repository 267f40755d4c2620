"""Task functions that kill the worker process running them, for the lost-worker tests (issue 34 item 5).

The private cluster's workers are spawned from the test process and inherit its ``sys.path``, so they import this
module.  Deaths are decided by the task alone (a marker file per death, or a checkpoint whose folder is named
``doomed``): no environment variable and no hook in the package."""

from __future__ import annotations

import os
from pathlib import Path


def die_times(item: tuple[int, str, int]) -> int:
    """``(value, folder, deaths)``: the worker exits hard the first ``deaths`` times (one marker file each), then
    the task returns ``2 * value``."""
    value, folder, deaths = item
    for k in range(deaths):
        try:
            fd = os.open(Path(folder) / f"{value}-{k}", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            continue
        os.close(fd)
        os._exit(1)
    return 2 * value


def measure_or_die(task):
    """``measure_task``, except that every layer of a checkpoint folder named ``doomed`` kills its worker."""
    from sabounds.numerics.proxies.sweep import measure_task

    if Path(task.source).name == "doomed":
        os._exit(1)
    return measure_task(task)


def train_or_die(spec_json: dict) -> dict:
    """The study's run task, except that the tiny grid's last run (n = 80, noise 0.2, seed 1) kills its worker
    every time."""
    from sabounds.training_study.runner import _task

    if (spec_json.get("size"), spec_json.get("noise"), spec_json.get("seed")) == (80, 0.2, 1):
        os._exit(1)
    return _task(spec_json)
