"""The Python API: ``import sabounds`` stays light, each call returns the same content as its command's JSON,
the notebook-style example in docs/api_example runs, and the sources agree (folder, dict, torch state_dict)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sabounds
from sabounds.api import InputError
from sabounds.cli import main
from tests.support.family_files import CONFIGS, write_family

ROOT = Path(__file__).resolve().parents[2]


def _without_seconds(record: dict) -> dict:
    return {k: v for k, v in record.items() if k != "seconds"}


@pytest.mark.slow
def test_import_sabounds_does_not_load_the_numerics():
    code = (
        "import sys, sabounds; print(sorted(m for m in ('numpy', 'sympy', 'pandas', 'matplotlib') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert {"analyze", "verify", "regimes", "conjecture"} <= set(dir(sabounds))
    with pytest.raises(AttributeError):
        sabounds.no_such_thing  # noqa: B018


@pytest.mark.slow
def test_the_api_example_runs():
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "api_example" / "example.py")], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "extension departs by: pre-LN" in done.stdout


def test_analyze_table_equals_the_command_json(tmp_path, capsys):
    write_family(tmp_path, "gpt2")
    result = sabounds.analyze(tmp_path)
    assert main(["analyze", str(tmp_path), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert set(record) - set(result.json) == {"storage_rank"}  # the command's labelled extra (issue 10 item 7)
    record = {k: v for k, v in record.items() if k != "storage_rank"}
    assert result.json == record
    assert result.table.to_dict("records") == record["matrices"]
    assert result.totals["ours"] == record["totals"]["ours"] and result.proxy == "extension"


def test_analyze_dict_and_folder_give_the_same_table(tmp_path):
    weights = write_family(tmp_path, "llama", seed=4)
    folder = sabounds.analyze(tmp_path)
    in_memory = sabounds.analyze(weights, config=CONFIGS["llama"])
    assert folder.table.equals(in_memory.table) and folder.totals == in_memory.totals


def test_analyze_torch_state_dict_gives_the_folder_table(tmp_path):
    torch = pytest.importorskip("torch", reason="torch is an optional extra (pip install sabounds[torch])")
    weights = write_family(tmp_path, "bert", seed=4)
    state = {k: torch.from_numpy(np.array(v)) for k, v in weights.items()}
    assert sabounds.analyze(state, config=CONFIGS["bert"]).table.equals(sabounds.analyze(tmp_path).table)


def test_figures_are_matplotlib_figures(tmp_path):
    from matplotlib.figure import Figure

    write_family(tmp_path, "llama")
    result = sabounds.analyze(tmp_path)
    for fig in (result.plot_spectra(), result.plot_contributions(), result.plot_p_opt()):
        assert isinstance(fig, Figure)
        assert all(ax.get_xlabel() and ax.get_ylabel() for ax in fig.axes if ax.get_label() != "<colorbar>")


def test_bad_source_is_an_input_error_with_one_line(tmp_path):
    with pytest.raises(InputError, match="no such file or directory"):
        sabounds.analyze(tmp_path / "missing")
    with pytest.raises(InputError, match="layers"):
        write_family(tmp_path / "m", "bert")
        sabounds.analyze(tmp_path / "m", layers=5)


@pytest.mark.slow  # the rank regime computed twice (the command, then the API): about a minute
def test_regimes_json_equals_the_command(capsys):
    assert main(["regimes", "--format", "json", "--regime", "rank"]) == 0
    assert sabounds.regimes(regime="rank").json == json.loads(capsys.readouterr().out)
    with pytest.raises(InputError):
        sabounds.regimes(regime="nope")


def test_conjecture_json_equals_the_command(capsys):
    assert main(["conjecture", "gelu-lipschitz", "--value", "1.13", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    api = sabounds.conjecture("gelu-lipschitz", value="1.13")
    assert _without_seconds(api.json) == _without_seconds(cli) and api.verdict == "proved"
    with pytest.raises(InputError, match="needs a proposed value"):
        sabounds.conjecture("gelu-lipschitz")


def test_verify_json_equals_the_command(capsys):
    assert main(["verify", "--only", "thm41.constant_*", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    api = sabounds.verify(only="thm41.constant_*")
    assert [_without_seconds(r) for r in api.json["checks"]] == [_without_seconds(r) for r in cli["checks"]]
    assert api.summary == cli["summary"] and list(api.table["id"]) == [r["id"] for r in cli["checks"]]


def test_derivation_text_and_latex_equal_the_command(capsys):
    assert main(["derivation", "attention"]) == 0
    assert sabounds.derivation("attention").text + "\n" == capsys.readouterr().out
    assert main(["derivation", "attention", "--format", "latex"]) == 0
    assert sabounds.derivation("attention").latex() + "\n" == capsys.readouterr().out
    assert len(sabounds.derivation("attention").to_frame()) == len(sabounds.derivation("attention").steps)
    with pytest.raises(InputError, match="unknown derivation"):
        sabounds.derivation("nope")


def test_default_model_is_the_bundled_folder():
    folder = sabounds.default_model()
    assert (folder / "config.json").is_file() and (folder / "model.safetensors").is_file()


def test_bound_refuses_bad_settings_in_library_words_before_reading_weights(tmp_path):
    with pytest.raises(InputError, match="delta must lie in"):
        sabounds.bound(tmp_path / "missing", n=10**9, delta=2, margin=1.0)
    with pytest.raises(InputError, match="no such file or directory|not found|does not exist"):
        sabounds.bound(tmp_path / "missing", n=10**9, delta=0.05, margin=1.0)
    with pytest.raises(InputError, match="a value applies to families"):
        sabounds.conjecture("x <= 1", value="1", variables=["x:0:1"])
