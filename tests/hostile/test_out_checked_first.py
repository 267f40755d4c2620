"""``--out`` that cannot be created (under a file, under a dangling link) or lies on a special file system of the kernel
(/proc, /sys: as root the old checks passed, and the refusal came only after the work) is refused in one line before
any work (issue 20, item 18: ``report --model x.onnx`` said so only after 35 s): nothing read, nothing written."""

import importlib
import os
import sys

import pytest

from sabounds.cli import main
from sabounds.errors import UserError
from tests.support.hostile import _MODEL_ARGS, snapshot, tiny_model
from tests.support.hostile_exposure import EARLY_OUT, EARLY_OUT_COMMANDS, SPECIAL_OUT

CASES = [(c, k) for c in EARLY_OUT_COMMANDS for k in EARLY_OUT]
SPECIAL_CASES = [(c, k) for c in EARLY_OUT_COMMANDS for k in SPECIAL_OUT]


def _refused_before_work(command, out, tmp_path, monkeypatch, capsys) -> str:
    """Run ``command`` on a tiny model with ``--out out`` where opening the checkpoint fails the test; return stderr."""
    import sabounds.numerics.proxies.model_analysis as analysis

    tiny_model(tmp_path / "model")
    (tmp_path / "afile").write_text("a file")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SABOUNDS_CACHE_DIR", "off")

    def no_work(*args, **kwargs):
        raise AssertionError("the checkpoint was opened before --out was checked")

    # every module that bound measure_model at its import is patched (patching model_analysis alone missed those,
    # and a consumer first imported during the patch kept no_work for the rest of the run)
    for name in (
        "sabounds.full_report.compute",
        "sabounds.numerics.bound.checkpoint_inputs",
        "sabounds.numerics.proxies.scaling",
        "sabounds.numerics.proxies.layer_measurement",
    ):
        importlib.import_module(name)
    original = analysis.measure_model
    for module in [m for m in list(sys.modules.values()) if getattr(m, "measure_model", None) is original]:
        monkeypatch.setattr(module, "measure_model", no_work)
    before = snapshot(tmp_path)
    args = [*_MODEL_ARGS[command], "--out", out]
    if command == "sweep":
        args = ["model", "--workers", "0", "--out", out]
    rc = main([command, *args])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert snapshot(tmp_path) == before
    return err


@pytest.mark.parametrize("command,case", CASES, ids=[f"{c}-{k}" for c, k in CASES])
def test_an_uncreatable_out_is_refused_before_any_work(command, case, tmp_path, monkeypatch, capsys):
    assert "is not a folder" in _refused_before_work(command, EARLY_OUT[case], tmp_path, monkeypatch, capsys)


@pytest.mark.parametrize("command,case", SPECIAL_CASES, ids=[f"{c}-{k}" for c, k in SPECIAL_CASES])
def test_an_out_on_a_special_file_system_is_refused_before_any_work(command, case, tmp_path, monkeypatch, capsys):
    from sabounds.outputs.file_systems import special_file_system

    out = SPECIAL_OUT[case]
    top = "/" + out.split("/")[1]
    if special_file_system(top) is None:
        pytest.skip(f"{top} is not a special file system here")
    err = _refused_before_work(command, out, tmp_path, monkeypatch, capsys)
    assert f"is on the kernel's {special_file_system(top)} file system" in err, err
    assert not os.path.lexists(out)


def test_a_special_file_system_is_told_from_storage_by_its_mount():
    """/proc is proc and /sys sysfs wherever Linux mounts them; a temporary folder is storage.  ``/dev`` is refused
    where it is devtmpfs (a container may mount a tmpfs there instead)."""
    import tempfile

    from sabounds.outputs.atomic import check_target
    from sabounds.outputs.file_systems import file_system, special_file_system

    if file_system("/proc") is None:
        pytest.skip("no /proc/self/mountinfo here")
    assert (file_system("/proc"), file_system("/proc/self"), file_system("/sys")) == ("proc", "proc", "sysfs")
    assert special_file_system(tempfile.gettempdir()) is None
    if file_system("/dev") == "devtmpfs":
        with pytest.raises(UserError, match="kernel's devtmpfs file system"):
            check_target("/dev/sabounds-out")
