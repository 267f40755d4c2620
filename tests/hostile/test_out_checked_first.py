"""``--out`` that cannot be created (under a file, under a dangling link) is refused in one line before any work
(issue 20, item 18: ``report --model x.onnx`` said so only after 35 s): nothing read, nothing written."""

import pytest

from tests.support.hostile import _MODEL_ARGS, snapshot, tiny_model
from tests.support.hostile_exposure import EARLY_OUT, EARLY_OUT_COMMANDS
from sabounds.cli import main

CASES = [(c, k) for c in EARLY_OUT_COMMANDS for k in EARLY_OUT]


@pytest.mark.parametrize("command,case", CASES, ids=[f"{c}-{k}" for c, k in CASES])
def test_an_uncreatable_out_is_refused_before_any_work(command, case, tmp_path, monkeypatch, capsys):
    import sabounds.numerics.proxies.model_analysis as analysis
    tiny_model(tmp_path / "model")
    (tmp_path / "afile").write_text("a file")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SABOUNDS_CACHE_DIR", "off")

    def no_work(*args, **kwargs):
        raise AssertionError("the checkpoint was opened before --out was checked")
    monkeypatch.setattr(analysis, "measure_model", no_work)
    before = snapshot(tmp_path)
    args = [*_MODEL_ARGS[command], "--out", EARLY_OUT[case]]
    if command == "sweep":
        args = ["model", "--workers", "0", "--out", EARLY_OUT[case]]
    rc = main([command, *args])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "is not a folder" in err, err
    assert snapshot(tmp_path) == before
