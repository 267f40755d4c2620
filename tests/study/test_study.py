"""``sabounds study`` end to end on tiny grids: a run's measures equal ``sabounds analyze`` and ``sabounds bound`` on
its saved checkpoint, a run is deterministic, the tiny grid reaches the stopping loss on every run so the statistics
run on trained models, a real Dask scheduler with two workers on 127.0.0.1 gives the in-process table, an
interrupted study (in process, and Ctrl-C on the command: one line) resumes from its cache, and bad input is one
line with exit status 2."""

import json
import math
from dataclasses import replace

import pytest

torch = pytest.importorskip("torch", reason="sabounds study trains with torch (the `study` extra)")
pytest.importorskip("sklearn", reason="the digits task ships with scikit-learn (the `study` extra)")

from sabounds.cli import main  # noqa: E402
from sabounds.training_study.grids import BASE  # noqa: E402
from sabounds.training_study.pipeline import run_study, table_digest  # noqa: E402
from sabounds.training_study.run import run_point  # noqa: E402
from tests.support.dask_cluster import free_port  # noqa: E402

pytestmark = pytest.mark.slow  # torch training and a Dask cluster

ONE_LAYER = replace(BASE["digits"], size=80, width=8, epochs=15)


def _without_time(result: dict) -> dict:
    return {**result, "record": {k: v for k, v in result["record"].items() if k != "train_seconds"}}


def test_a_one_layer_run_measures_what_analyze_and_bound_read_from_its_checkpoint(tmp_path, capsys):
    import mpmath

    import sabounds

    result = run_point(ONE_LAYER, checkpoint=tmp_path / "ckpt")
    assert main(["analyze", str(tmp_path / "ckpt"), "--json"]) == 0
    totals = json.loads(capsys.readouterr().out)["totals"]
    assert result["measures"]["ours_sum"] == math.log(totals["ours"])
    assert result["measures"]["edelman"] == math.log(totals["edelman"])
    s = result["settings"]
    b = sabounds.bound(
        tmp_path / "ckpt",
        n=ONE_LAYER.size,
        delta=0.05,
        margin=1.0,
        input_norm=s["input_norm"],
        tokens=8,
        empirical_risk=s["empirical_margin_risk"],
    )
    assert b.sound and b.unmodelled == []  # the study's layers store no biases: its bound measures are bounds
    b = b.primary
    for name, value in (("bound_ours_sum", b.ours_sum), ("bound_ours_rss", b.ours_rss), ("bound_edelman", b.edelman)):
        assert result["measures"][name] == float(mpmath.log(value.total))
    assert result["p_profile"]["matrices"] == 6 and result["p_profile"]["proxy"] == "published"


def test_a_network_with_linear_biases_gets_no_bound_measures():
    """Where the bound leaves out the network's biases its ``bound_*`` measures are missing, not the formula's value."""
    from sabounds.numerics.proxies.model_analysis import measure_model, open_checkpoint
    from sabounds.training_study.measures import bound_measures
    from sabounds.training_study.model import Encoder, export

    model = Encoder(features=4, tokens=3, classes=2, depth=1, width=8, heads=2, layout="post")
    weights = export(model)
    assert not any(k.endswith(".bias") and weights[k[:-4] + "weight"].ndim == 2 for k in weights if "layer." in k)
    measured = measure_model(open_checkpoint(weights, config=model.config()))
    assert bound_measures(measured, 3, 100, 1.0, 0.0, {})["bound_ours_sum"] is not None
    assert set(bound_measures(measured, 3, 100, 1.0, 0.0, {"query": 0.5}).values()) == {None}


def test_a_pre_ln_run_is_read_as_the_extension_and_has_no_whole_bound(tmp_path, capsys):
    result = run_point(replace(ONE_LAYER, layout="pre"), checkpoint=tmp_path / "ckpt")
    assert main(["analyze", str(tmp_path / "ckpt"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["proxy"] == "extension" and result["p_profile"]["proxy"] == "extension"
    assert result["measures"]["ours_sum"] == math.log(out["totals"]["ours"])
    assert result["measures"]["bound_ours_sum"] is None


def test_a_run_is_deterministic_and_records_its_errors():
    first, second = run_point(ONE_LAYER), run_point(ONE_LAYER)
    assert _without_time(first) == _without_time(second)
    r = first["record"]
    assert r["gap_error"] == r["test_error"] - r["train_error"] and r["converged"] == (r["train_loss"] <= 0.01)
    assert r["n_train"] == 80 and r["n_test"] == 500


@pytest.mark.slow
def test_a_real_scheduler_with_two_workers_gives_the_in_process_table(dask_cluster, tmp_path):
    address, client = dask_cluster
    local = run_study("tiny", ["digits"], workers=0, cache_dir=None)
    remote = run_study("tiny", ["digits"], scheduler=address, cache_dir=tmp_path / "cache")
    assert table_digest(local) == table_digest(remote) and remote["timing"]["trained"] == 8
    executed = client.run(lambda dask_worker: dask_worker.state.executed_count)
    assert sum(executed.values()) == 8 and min(executed.values()) > 0


@pytest.mark.slow
def test_an_interrupted_study_resumes_from_its_cache(tmp_path):
    seen = []

    def stop_after_two(spec, outcome, cached):
        seen.append(spec)
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_study("tiny", ["digits"], workers=0, cache_dir=tmp_path / "cache", on_done=stop_after_two)
    resumed = run_study("tiny", ["digits"], workers=0, cache_dir=tmp_path / "cache")
    assert resumed["timing"] == {**resumed["timing"], "cached": 2, "trained": 6}
    again = run_study("tiny", ["digits"], workers=0, cache_dir=tmp_path / "cache")
    assert again["timing"]["cached"] == 8 and table_digest(again) == table_digest(resumed)
    fresh = run_study("tiny", ["digits"], workers=0, cache_dir=None)
    assert table_digest(fresh) == table_digest(resumed)


def test_a_corrupt_cache_entry_is_retrained(tmp_path):
    from sabounds.training_study.grids import grid
    from sabounds.training_study.runner import RunCache, run_key

    spec = grid("tiny", ["digits"])[0]
    cache = RunCache(tmp_path)
    cache.put(run_key(spec), {"spec": spec.to_json(), "forged": True})
    path = cache.path(run_key(spec))
    path.write_text(path.read_text().replace('"forged": true', '"forged": false'))
    assert cache.get(run_key(spec)) is None


def test_the_command_writes_every_output(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SABOUNDS_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    assert (
        main(
            [
                "study",
                "--grid",
                "tiny",
                "--tasks",
                "digits",
                "--workers",
                "0",
                "--out",
                str(out),
                "--figure-format",
                "png,svg",
            ]
        )
        == 0
    )
    names = {p.name for p in out.iterdir()}
    assert {
        "study.json",
        "runs.csv",
        "table.md",
        "scatter_digits.png",
        "scatter_digits.svg",
        "forest_digits.png",
        "forest_digits.svg",
    } <= names
    data = json.loads((out / "study.json").read_text())
    # the tiny grid converges: every run stopped at the target cross-entropy, none excluded, so the statistics below
    # ran on 8 trained models (sizes 40 and 80, noise 0 and 0.2, 2 seeds)
    digits = data["tasks"]["digits"]
    assert len(data["runs"]) == 8 and digits["used"] == 8 and digits["excluded"] == []
    assert all(r["record"]["train_loss"] <= 0.01 and r["record"]["converged"] for r in data["runs"])
    assert digits["axes"] == ["size", "noise"]
    for ranking in digits["rankings"]["gap_error"]:
        for axis in ("size", "noise"):
            cell = ranking["granulated"]["per_axis"][axis]
            assert cell["blocks"] == 4 and cell["verdict"] in ("tracks", "anti-tracks", "inconclusive")
            assert cell["low"] <= cell["psi"] <= cell["high"] and 0 < cell["p"] <= 1
        assert ranking["sign_error"]["per_axis"]["size"]["environments"] == 2
    table = (out / "table.md").read_text()
    assert "ours_sum" in table and "inconclusive" in table
    assert "along training size n" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["study", "--tasks", "digits,nope"],
        ["study", "--grid", "nope"],
        ["study", "--workers", "1", "--scheduler", "x"],
        ["study", "--workers", "-1"],
        ["study", "--out", " "],
        ["study", "--cache-dir", "FILE"],
        pytest.param(
            ["study", "--tasks", "digits", "--grid", "tiny", "--workers", "0", "--scheduler", "tcp://127.0.0.1:1"],
            marks=pytest.mark.slow,
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, tmp_path, capsys):
    (tmp_path / "FILE").write_text("x")
    argv = [str(tmp_path / "FILE") if a == "FILE" else a for a in argv]
    if "--scheduler" in argv and argv[-1].endswith(":1"):
        argv = [a for a in argv if a not in ("--workers", "0")]
        argv[argv.index("tcp://127.0.0.1:1")] = f"tcp://127.0.0.1:{free_port()}"
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_the_api_gives_the_command_json_as_tables(tmp_path):
    import sabounds.api

    result = sabounds.api.study("tiny", tasks=["digits"], workers=0)
    assert len(result.runs) == 8 and set(result.ranking["task"]) == {"digits"}
    assert set(result.ranking["axis"]) == {"overall", "size", "noise"}
    result.write(tmp_path / "out", formats=("svg",))
    assert (tmp_path / "out" / "scatter_digits.svg").is_file()
    with pytest.raises(sabounds.api.InputError):
        sabounds.api.study("nope")
    with pytest.raises(sabounds.api.InputError, match="RunSpec"):
        sabounds.api.study(["digits"])
    from sabounds.training_study.grids import grid

    own = sabounds.api.study(grid("tiny")[:2], workers=0)  # a grid given as objects: two runs differing in seed
    assert own.json["settings"]["grid"] == "custom" and len(own.runs) == 2


def test_an_unwritable_cache_costs_the_caching_not_the_runs(tmp_path):
    (tmp_path / "cache").write_text("a file where the cache folder should be")
    from sabounds.training_study.grids import grid
    from sabounds.training_study.runner import RunCache, run_grid

    spec = replace(grid("tiny", ["digits"])[0], epochs=2)
    [outcome] = run_grid([spec], RunCache(tmp_path / "cache"), workers=0)
    assert isinstance(outcome, dict) and outcome["record"]["epochs_run"] == 2


_CLI = "import sys; from sabounds.cli import main; sys.exit(main(sys.argv[1:]))"


def test_ctrl_c_prints_one_line_and_leaves_a_resumable_study(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    cache = tmp_path / "cache"
    proc = subprocess.Popen(
        [sys.executable, "-c", _CLI, "study", "--grid", "tiny", "--workers", "0", "--cache-dir", str(cache)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300
        while not list(cache.glob("study/*/*.json")) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert proc.poll() is None, "the study finished before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130 and err.count("\n") == 1 and "interrupted" in err and "Traceback" not in err, err
    kept = len(list(cache.glob("study/*/*.json")))
    resumed = run_study("tiny", ["digits"], workers=0, cache_dir=cache)
    assert 1 <= kept == resumed["timing"]["cached"] and resumed["timing"]["trained"] == 8 - kept
