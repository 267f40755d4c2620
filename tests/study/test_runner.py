"""The study's runs and the sweep's layers are scheduled by one function (``sabounds.distributed.run_cached``): cached
entries answered first, the rest in this process (``workers=0``), each outcome reported once.  No torch: a run is
replaced by a cheap stand-in, so these tests check the scheduling and the cache, not training."""

from dataclasses import replace

import pytest

from sabounds import distributed
from sabounds.training_study import runner
from sabounds.training_study.grids import BASE

SPECS = [replace(BASE["digits"], seed=seed) for seed in range(3)]


@pytest.fixture
def cheap_runs(monkeypatch):
    """Runs keyed by their seed and answered without training; seed 1 fails inside its task."""
    calls = []

    def run(spec_json):
        calls.append(spec_json["seed"])
        if spec_json["seed"] == 1:
            raise ValueError("seed 1 diverged")
        return {"seed": spec_json["seed"]}

    monkeypatch.setattr(runner, "_task", run)
    monkeypatch.setattr(runner, "run_key", lambda spec: f"{spec.seed:02d}" + "0" * 62)
    return calls


def test_a_run_is_trained_once_then_served_from_the_cache(cheap_runs, tmp_path):
    cache = runner.RunCache(tmp_path)
    seen = []
    first = runner.run_grid(SPECS, cache, workers=0, on_done=lambda s, o, cached: seen.append((s.seed, cached)))
    assert first[0] == {"seed": 0} and isinstance(first[1], ValueError) and first[2] == {"seed": 2}
    assert seen == [(0, False), (1, False), (2, False)] and cheap_runs == [0, 1, 2]
    again = runner.run_grid(SPECS, cache, workers=0, on_done=lambda s, o, cached: seen.append((s.seed, cached)))
    assert again[0] == first[0] and again[2] == first[2] and cheap_runs == [0, 1, 2, 1]  # the failed run is retried
    assert seen[3:] == [(0, True), (2, True), (1, False)]


@pytest.mark.parametrize("where", ["study", "sweep"])
def test_an_error_in_the_callers_callback_is_not_taken_for_the_tasks_failure(cheap_runs, monkeypatch, where):
    """A callback that raises stops the run with its own error, reported once; the callback's error is never recorded
    as the task's outcome nor passed back to the callback.  Run in process (``workers=0``); the Dask path calls the
    same ``finish`` outside its own try block."""
    calls = []

    def callback(*args):
        calls.append(args)
        raise RuntimeError("the progress display broke")

    if where == "study":
        run = lambda: runner.run_grid(SPECS[:1], None, workers=0, on_done=callback)
    else:
        monkeypatch.setattr(distributed, "measure_task", lambda task: f"measured {task}")
        monkeypatch.setattr(distributed, "cached_results", lambda tasks: [None] * len(tasks))
        run = lambda: distributed.run_tasks(["layer 0"], workers=0, on_done=callback)
    with pytest.raises(RuntimeError, match="progress display"):
        run()
    assert len(calls) == 1 and not isinstance(calls[0][1], BaseException)
