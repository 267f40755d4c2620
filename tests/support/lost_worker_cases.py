"""A worker lost during a sweep (issue 34 item 5), on a real local Dask cluster on 127.0.0.1 whose workers are
killed by the tasks themselves: each loss is one line on stderr, the task is sent again up to MAX_RETRIES times,
the finished rows are written, the exit status is 1 naming what is missing, and ``--resume`` completes the result.

Not collected by the suite itself: ``tests/hostile/test_lost_workers.py`` runs each case in a child pytest with a
deadline, so a local cluster that stalls after its worker is killed cannot take a test worker down with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sabounds import distributed
from sabounds.cli import main
from tests.support.hostile import tiny_model
from tests.support.lost_workers import die_times, measure_or_die

pytest.importorskip("distributed")
pytestmark = pytest.mark.slow


def test_a_task_whose_worker_dies_once_is_sent_again(tmp_path, capsys):
    items = [(1, str(tmp_path), 0), (2, str(tmp_path), 1)]
    assert distributed.run_cached(die_times, items, [None] * 2, 2, None) == [2, 4]
    lost = [line for line in capsys.readouterr().err.splitlines() if "worker was lost" in line]
    assert lost and all("sending it again" in line for line in lost), lost  # item 2; item 1 too if queued with it
    assert [p.name for p in tmp_path.iterdir()] == ["2-0"]


def test_a_task_lost_on_every_try_is_missing_after_max_retries(tmp_path, capsys):
    results = distributed.run_cached(die_times, [(3, str(tmp_path), 99)], [None], 2, None)
    assert isinstance(results[0], distributed.LostTask) and "rerun" in str(results[0])
    lost = [line for line in capsys.readouterr().err.splitlines() if "worker was lost" in line]
    assert len(lost) == 1 + distributed.MAX_RETRIES and "it is missing" in lost[-1], lost
    assert len(list(tmp_path.iterdir())) == 1 + distributed.MAX_RETRIES  # one death per try


def test_sweep_with_a_lost_worker_writes_a_partial_result_and_resume_completes_it(tmp_path, capsys, monkeypatch):
    tiny_model(tmp_path / "good", layers=2)
    tiny_model(tmp_path / "doomed", layers=2, scale=2.0)  # other weights: other cache keys
    cache, out = tmp_path / "cache", tmp_path / "out"
    assert main(["sweep", str(tmp_path / "good"), "--workers", "0", "--cache-dir", str(cache), "--json"]) == 0
    argv = [
        "sweep",
        str(tmp_path / "good"),
        str(tmp_path / "doomed"),
        "--workers",
        "2",
        "--cache-dir",
        str(cache),
        "--out",
        str(out),
        "--figure-format",
        "png",
    ]
    monkeypatch.setattr(distributed, "measure_task", measure_or_die)
    capsys.readouterr()
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "partial result: 2 layer task(s) missing" in err and "doomed" in err and "--resume" in err, err
    assert "Traceback" not in err
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["complete"] is False and len(provenance["missing"]) == 2
    rows = {Path(r["source"]).name: r for r in _csv_rows(out / "sweep.csv")}
    assert rows["good"]["status"] == "ok" and rows["doomed"]["status"] == "error"

    monkeypatch.setattr(distributed, "measure_task", _real_measure_task())
    assert main(argv) == 2  # the folder exists: --resume (or --force) is needed
    assert main([*argv, "--resume"]) == 0
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["complete"] is True and provenance["missing"] == []
    assert provenance["layers"]["from_cache"] == 2 and provenance["layers"]["measured"] == 2
    assert all(r["status"] == "ok" for r in _csv_rows(out / "sweep.csv"))
    assert main([*argv, "--resume"]) == 2  # a complete result is not resumed over


def _real_measure_task():
    from sabounds.numerics.proxies.sweep import measure_task

    return measure_task


def _csv_rows(path: Path) -> list[dict]:
    import csv

    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_study_with_a_run_lost_on_every_try_exits_1_and_a_rerun_completes_it(tmp_path, capsys, monkeypatch):
    pytest.importorskip("torch")
    from sabounds.training_study import runner
    from sabounds.training_study.grids import grid
    from tests.support.lost_workers import train_or_die

    cache = tmp_path / "cache"
    argv = ["study", "--grid", "tiny", "--tasks", "digits", "--cache-dir", str(cache), "--json"]
    assert main([*argv, "--workers", "0"]) == 0
    specs = grid("tiny", ["digits"])
    doomed = specs[-1]
    runner.RunCache(cache).path(runner.run_key(doomed)).unlink()
    capsys.readouterr()
    monkeypatch.setattr(runner, "_task", train_or_die)
    assert main([*argv, "--workers", "2"]) == 1
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert result["complete"] is False and result["missing"] == [doomed.label()]
    assert "partial result: 1 run(s) missing" in err and doomed.label() in err and "Traceback" not in err
    monkeypatch.undo()
    assert main([*argv, "--workers", "0"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (
        result["complete"] is True and result["timing"]["trained"] == 1 and result["timing"]["cached"] == len(specs) - 1
    )
